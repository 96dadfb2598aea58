//! `podsim serve`: the seed's interactive demo as a local web page. One
//! self-contained page (HTML, CSS and JS compiled into the binary) and a
//! small JSON API that runs what the page sends.
//!
//! Invariant: the server serves the page and the API and nothing else; the
//! API never touches the file system (the files named on the command line
//! are read once, at start); every request is bounded (body size, runs per
//! sweep, the run's horizon, its time and events: `budget`) and answered,
//! a malformed one with a 4xx, one over its budget with a 503 and a
//! handler's panic with a 500, so no request can stop the server.

mod advise;
mod api;
mod budget;
mod notices;
mod whatif;

use std::io::Read;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;
use tiny_http::{Header, Method, Request, Response, Server};

use self::budget::Budget;
use super::UsageError;

/// The page: markup and style, then its script (the page, the trade-off
/// plot, the self-tests), served as one file that requests nothing else.
const PAGE: &str = concat!(
    include_str!("../../../assets/serve/index.html"),
    "<script>\n",
    include_str!("../../../assets/serve/page.js"),
    include_str!("../../../assets/serve/advise.js"),
    include_str!("../../../assets/serve/plot.js"),
    include_str!("../../../assets/serve/selftest.js"),
    include_str!("../../../assets/serve/selftest-manifests.js"),
    "start();\n</script>\n</body>\n</html>\n",
);

/// Request bodies above this are refused (413): a scenario or a manifest
/// is a few kilobytes.
pub const MAX_BODY: usize = 1 << 20;

/// Arguments of `podsim serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Scenario files to open the page with (TOML or manifests); by default
    /// the seed chapter's two layouts.
    pub files: Vec<PathBuf>,
    /// The port to listen on; 0 picks a free one (the first line printed says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on. Anything but 127.0.0.1 or ::1 lets other
    /// machines run simulations on this one: podsim warns.
    #[arg(long, default_value = "127.0.0.1")]
    pub listen: IpAddr,
    /// The most runs one `/api/sweep` request may ask for.
    #[arg(long, default_value_t = 100_000)]
    pub max_runs: u64,
    /// Threads answering requests at once.
    #[arg(long, default_value_t = 4)]
    pub threads: usize,
    /// The most seconds one /api request may run; past it the runs stop and the answer is a 503.
    #[arg(long, default_value_t = 30, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_seconds: u64,
}

/// What every request handler may read: the page's first scenarios and the limits.
pub struct State {
    /// `(source, text)` of each scenario the page opens with.
    pub initial: Vec<(String, String)>,
    /// `--max-runs`.
    pub max_runs: u64,
    /// `--max-seconds`.
    pub max_seconds: u64,
}

/// Serves until the process is stopped.
pub fn serve(args: &ServeArgs, out: &mut dyn std::io::Write) -> Result<()> {
    if args.threads == 0 {
        return Err(UsageError("--threads must be at least 1".into()).into());
    }
    let state = Arc::new(State {
        initial: initial_scenarios(&args.files)?,
        max_runs: args.max_runs,
        max_seconds: args.max_seconds,
    });
    let address = SocketAddr::new(args.listen, args.port);
    let server = Server::http(address)
        .map_err(|e| anyhow::anyhow!("cannot listen on {address}: {e}"))
        .map(Arc::new)?;
    let bound = server
        .server_addr()
        .to_ip()
        .context("the server has no IP address")?;
    if !bound.ip().is_loopback() {
        eprintln!(
            "podsim: warning: listening on {bound}: any machine that reaches it can run simulations here"
        );
    }
    let shown = match bound.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => SocketAddr::new(Ipv4Addr::LOCALHOST.into(), bound.port()),
        _ => bound,
    };
    writeln!(out, "podsim serve: listening on http://{shown}/ (Ctrl-C stops)")?;
    out.flush()?;
    let workers: Vec<_> = (0..args.threads)
        .map(|_| {
            let (server, state) = (Arc::clone(&server), Arc::clone(&state));
            std::thread::spawn(move || {
                for request in server.incoming_requests() {
                    answer(request, &state);
                }
            })
        })
        .collect();
    for worker in workers {
        let _ = worker.join();
    }
    Ok(())
}

/// The files named on the command line, read once; the seed's two layouts
/// when none is named. Each workload of a file is one scenario of the page.
fn initial_scenarios(files: &[PathBuf]) -> Result<Vec<(String, String)>> {
    if files.is_empty() {
        return Ok(vec![
            (
                "seed-sidecar.toml".into(),
                include_str!("../../../scenarios/seed-sidecar.toml").into(),
            ),
            (
                "seed-side-by-side.toml".into(),
                include_str!("../../../scenarios/seed-side-by-side.toml").into(),
            ),
        ]);
    }
    let mut initial = Vec::new();
    for file in files {
        if file.as_os_str() == "-" {
            return Err(UsageError("`podsim serve` reads files, not standard input".into()).into());
        }
        let text =
            std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
        initial.push((file.display().to_string(), text));
    }
    Ok(initial)
}

/// Reads the body (at most `MAX_BODY`), routes, and answers; never panics.
fn answer(mut request: Request, state: &State) {
    let route = (
        request.method().clone(),
        request.url().split('?').next().unwrap_or("").to_string(),
    );
    let reply = match read_body(&mut request) {
        Err(reply) => reply,
        Ok(body) => catch_unwind(AssertUnwindSafe(|| {
            route_request(&route.0, &route.1, &body, state)
        }))
        .unwrap_or_else(|_| {
            api::Reply::error(500, "podsim failed on this request (a bug: please report it)")
        }),
    };
    let _ = request.respond(reply.into_response());
}

fn route_request(method: &Method, path: &str, body: &str, state: &State) -> api::Reply {
    match (method, path) {
        (Method::Get, "/") | (Method::Get, "/index.html") => api::Reply::page(PAGE),
        (Method::Get, "/api/initial") => api::initial(state),
        (Method::Post, "/api/run") => api::run(body, &Budget::start(state.max_seconds)),
        (Method::Post, "/api/view") => api::view(body, &Budget::start(state.max_seconds)),
        (Method::Post, "/api/sweep") => api::sweep(body, state, &Budget::start(state.max_seconds)),
        (Method::Post, "/api/whatif") => whatif::whatif(body),
        (Method::Post, "/api/advise") => advise::advise(body, &Budget::start(state.max_seconds)),
        (
            _,
            "/" | "/index.html" | "/api/initial" | "/api/run" | "/api/view" | "/api/sweep" | "/api/whatif"
            | "/api/advise",
        ) => api::Reply::error(405, "method not allowed here"),
        _ => api::Reply::error(
            404,
            "podsim serves / and /api/{run,view,sweep,whatif,advise,initial} only",
        ),
    }
}

/// The body as UTF-8 text, or the reply that refuses it.
fn read_body(request: &mut Request) -> Result<String, api::Reply> {
    if request.body_length().is_some_and(|n| n > MAX_BODY) {
        return Err(api::Reply::error(
            413,
            &format!("the body is over {MAX_BODY} bytes"),
        ));
    }
    let mut bytes = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY as u64 + 1)
        .read_to_end(&mut bytes);
    match read {
        Err(e) => Err(api::Reply::error(400, &format!("cannot read the body: {e}"))),
        Ok(_) if bytes.len() > MAX_BODY => Err(api::Reply::error(
            413,
            &format!("the body is over {MAX_BODY} bytes"),
        )),
        Ok(_) => String::from_utf8(bytes).map_err(|_| api::Reply::error(400, "the body is not UTF-8 text")),
    }
}

/// A header tiny_http accepts (they are all ASCII constants here).
fn header(name: &str, value: &str) -> Header {
    Header::from_bytes(name.as_bytes(), value.as_bytes()).expect("an ASCII header")
}

impl api::Reply {
    fn into_response(self) -> Response<std::io::Cursor<Vec<u8>>> {
        Response::from_data(self.body)
            .with_status_code(self.status)
            .with_header(header("Content-Type", self.content_type))
            .with_header(header("Cache-Control", "no-store"))
            // The page may load nothing but itself.
            .with_header(header(
                "Content-Security-Policy",
                "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; \
                 img-src data:; connect-src 'self'",
            ))
            .with_header(header("X-Content-Type-Options", "nosniff"))
    }
}
