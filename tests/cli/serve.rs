//! `podsim serve` through a real TCP socket: the binary listens on a free
//! port, and each test speaks plain HTTP/1.1 to it, as a browser would.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use super::common::podsim_process;

/// A running `podsim serve --port 0`, stopped when dropped.
pub(super) struct Server {
    child: Child,
    port: u16,
}

impl Server {
    pub(super) fn start(extra: &[&str]) -> Server {
        let mut child = podsim_process()
            .args(["serve", "--port", "0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("podsim serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().expect("stdout piped"))
            .read_line(&mut line)
            .expect("the first line says where it listens");
        let port = line
            .rsplit(':')
            .next()
            .and_then(|rest| rest.split('/').next())
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {line:?}"));
        Server { child, port }
    }

    /// Sends one request; returns the status code and the body.
    pub(super) fn request(&self, method: &str, path: &str, body: &[u8]) -> (u16, String) {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connects");
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        stream.write_all(head.as_bytes()).expect("request head sent");
        // The server may refuse before reading all of an oversized body.
        let _ = stream.write_all(body);
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer).into_owned();
        let status = answer
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {answer:?}"));
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
        let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
        let body = if chunked { unchunk(body) } else { body.to_string() };
        (status, body)
    }

    pub(super) fn json(&self, method: &str, path: &str, body: &str) -> (u16, serde_json::Value) {
        let (status, text) = self.request(method, path, body.as_bytes());
        let value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        (status, value)
    }
}

/// A chunked body (what the server sends for large answers) put back
/// together; sizes count bytes, so the chunks are joined as bytes.
fn unchunk(rest: &str) -> String {
    let (mut rest, mut body) = (rest.as_bytes(), Vec::new());
    while let Some(eol) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&rest[..eol])
            .unwrap_or("?")
            .trim()
            .to_string();
        let size = usize::from_str_radix(&size, 16).unwrap_or_else(|_| panic!("chunk size {size:?}"));
        if size == 0 {
            break;
        }
        body.extend_from_slice(&rest[eol + 2..eol + 2 + size]);
        rest = &rest[eol + 2 + size + 2..];
    }
    String::from_utf8(body).expect("a UTF-8 body")
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(super) fn seed(name: &str) -> String {
    std::fs::read_to_string(format!("{}/scenarios/{name}", env!("CARGO_MANIFEST_DIR")))
        .expect("seed scenario")
}

#[test]
fn the_api_gives_the_seed_figures() {
    let server = Server::start(&[]);
    let (status, doc) = server.json("POST", "/api/run", &seed("seed-sidecar.toml"));
    assert_eq!(status, 200, "{doc}");
    assert_eq!(doc["metrics"]["exposed_total_ms"], 0);
    assert_eq!(doc["metrics"]["ready_ms"], 6000);
    assert_eq!(doc["source"], "request");
    let (_, doc) = server.json("POST", "/api/run", &seed("seed-side-by-side.toml"));
    assert_eq!(doc["metrics"]["exposed_startup_ms"], 2000);
    assert_eq!(doc["metrics"]["exposed_shutdown_ms"], 2000);
    assert_eq!(doc["metrics"]["ready_ms"], 5000);
}

#[test]
fn the_run_answer_is_what_run_format_json_prints() {
    let server = Server::start(&[]);
    let (_, body) = server.request("POST", "/api/run", seed("seed-sidecar.toml").as_bytes());
    let printed = podsim_process()
        .args(["run", "--format", "json", "-"])
        .stdin(
            std::fs::File::open(format!(
                "{}/scenarios/seed-sidecar.toml",
                env!("CARGO_MANIFEST_DIR")
            ))
            .unwrap(),
        )
        .output()
        .expect("podsim run");
    let mut printed: serde_json::Value = serde_json::from_slice(&printed.stdout).expect("one JSON document");
    // The one difference is the input's name: standard input there, the request here.
    printed["source"] = "request".into();
    let answered: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answered, printed);
}

#[test]
fn a_bad_body_gets_400_with_line_and_column() {
    let server = Server::start(&[]);
    let (status, doc) = server.json("POST", "/api/run", "name = \"x\"\n[pod\n");
    assert_eq!(status, 400);
    assert_eq!(doc["error"]["file"], "request");
    assert_eq!(doc["error"]["line"], 2, "{doc}");
    assert!(doc["error"]["column"].as_u64().is_some(), "{doc}");
    let (status, doc) = server.json(
        "POST",
        "/api/run",
        "[[containers]]\nname = \"web\"\nboot = \"1s\"\nkind = \"ap\"\n",
    );
    assert_eq!(status, 400);
    assert_eq!(doc["error"]["line"], 4, "{doc}");
    assert!(doc["error"]["message"].as_str().unwrap().contains("app"), "{doc}");
}

#[test]
fn an_oversized_body_gets_413_and_the_server_goes_on() {
    let server = Server::start(&[]);
    let (status, _) = server.request("POST", "/api/run", &vec![b'#'; (1 << 20) + 1]);
    assert_eq!(status, 413);
    let (status, _) = server.request("POST", "/api/run", seed("seed-sidecar.toml").as_bytes());
    assert_eq!(status, 200);
}

#[test]
fn nothing_but_the_page_and_the_api_is_served() {
    let server = Server::start(&[]);
    let (status, page) = server.request("GET", "/", b"");
    assert_eq!(status, 200);
    assert!(page.contains("<title>podsim"), "{page}");
    // No file system behind it, whatever the path says.
    for path in [
        "/scenarios/seed-sidecar.toml",
        "/../Cargo.toml",
        "/api/run/../../etc/passwd",
    ] {
        assert_eq!(server.request("GET", path, b"").0, 404, "{path}");
    }
    assert_eq!(server.request("GET", "/api/run", b"").0, 405);
    let (status, doc) = server.json("GET", "/api/initial", "");
    assert_eq!(status, 200);
    assert_eq!(doc["scenarios"].as_array().map(Vec::len), Some(2));
}

#[test]
fn fifty_concurrent_requests_are_all_answered() {
    let server = Server::start(&[]);
    let body = seed("seed-side-by-side.toml");
    std::thread::scope(|scope| {
        let answers: Vec<_> = (0..50)
            .map(|_| scope.spawn(|| server.json("POST", "/api/run", &body)))
            .collect();
        for answer in answers {
            let (status, doc) = answer.join().expect("request thread");
            assert_eq!(status, 200);
            assert_eq!(doc["metrics"]["exposed_total_ms"], 4000);
        }
    });
}

#[test]
fn a_sweep_answers_its_rows_within_max_runs() {
    let server = Server::start(&["--max-runs", "10"]);
    let request = |values: &str| {
        serde_json::json!({
            "scenario": seed("seed-side-by-side.toml"),
            "grid": format!("[axes]\n\"containers.proxy.boot\" = {values}\n"),
        })
        .to_string()
    };
    let (status, doc) = server.json("POST", "/api/sweep", &request("[\"1s\", \"3s\"]"));
    assert_eq!(status, 200, "{doc}");
    let columns = doc["columns"].as_array().unwrap();
    let ready = columns.iter().position(|c| c == "ready_ms").unwrap();
    // Side by side, Ready when the slower of proxy (boot b) and web (1 s)
    // is up after the 2 s init: 2 + max(b, 1).
    assert_eq!(doc["rows"][0][ready], "3000");
    assert_eq!(doc["rows"][1][ready], "5000");
    let (status, doc) = server.json(
        "POST",
        "/api/sweep",
        &request("{ from = \"0s\", to = \"10s\", step = \"1s\" }"),
    );
    assert_eq!(status, 400);
    assert!(
        doc["error"]["message"].as_str().unwrap().contains("at most 10"),
        "{doc}"
    );
    // A grid's timings key names a file: the server reads none.
    let body = serde_json::json!({
        "scenario": seed("seed-side-by-side.toml"),
        "grid": "timings = \"/etc/passwd\"\n[axes]\n\"horizon\" = [\"1h\"]\n",
    });
    let (status, doc) = server.json("POST", "/api/sweep", &body.to_string());
    assert_eq!(status, 400);
    assert_eq!(doc["error"]["line"], 2, "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the page reads none"),
        "{doc}"
    );
}

#[test]
fn a_view_draws_every_scenario_on_one_axis() {
    let server = Server::start(&[]);
    let body = serde_json::json!({ "scenarios": [seed("seed-sidecar.toml"), "[[containers]]\nname = \"web\"\nboot = \"1s\"\nkind = 1\n"] });
    let (status, doc) = server.json("POST", "/api/view", &body.to_string());
    assert_eq!(status, 200);
    assert_eq!(doc["runs"][0]["document"]["metrics"]["ready_ms"], 6000);
    assert_eq!(doc["runs"][1]["error"]["line"], 4, "{doc}");
    assert!(doc["picture"]["svg"].as_str().unwrap().starts_with("<svg"));
    // The seed sidecar Pod ends at 14 s; the axis ends a whole tick past it.
    let end = doc["picture"]["axis"]["end_ms"].as_u64().unwrap();
    assert!(end >= 14_000, "{end}");
    // kubectl's view at 7 s: both containers Ready, Running.
    let watch = doc["runs"][0]["kubectl"].as_array().unwrap();
    let at_7s = watch
        .iter()
        .rev()
        .find(|w| w["at_ms"].as_u64().unwrap() <= 7000)
        .unwrap();
    assert_eq!(
        (at_7s["ready"].as_str(), at_7s["status"].as_str()),
        (Some("2/2"), Some("Running"))
    );
}

#[test]
fn a_service_scenario_gets_its_own_document_and_the_picture_of_the_race() {
    let server = Server::start(&[]);
    let text = seed("service/no-prestop.toml");
    let (status, doc) = server.json("POST", "/api/run", &text);
    assert_eq!(status, 200, "{doc}");
    let printed = podsim_process()
        .args(["run", "--format", "json", "scenarios/service/no-prestop.toml"])
        .output()
        .expect("podsim run");
    let mut printed: serde_json::Value = serde_json::from_slice(&printed.stdout).expect("one JSON document");
    // The one difference is the input's name: the file there, the request here.
    assert_eq!(printed["source"], "scenarios/service/no-prestop.toml");
    printed["source"] = "request".into();
    assert_eq!(doc, printed);
    // README's table: two requests refused, each listed with its cause.
    assert_eq!(doc["metrics"]["failed"], 2);
    assert_eq!(doc["failed_requests"].as_array().map(Vec::len), Some(2));

    let body = serde_json::json!({ "scenarios": [text, seed("seed-sidecar.toml")] });
    let (status, view) = server.json("POST", "/api/view", &body.to_string());
    assert_eq!(status, 200, "{view}");
    let service = &view["runs"][0];
    assert_eq!(service["document"], printed);
    let svg = service["service_svg"].as_str().expect("the race's picture");
    assert_eq!(svg.matches("class=\"node\"").count(), 3, "one row per node");
    assert_eq!(svg.matches("data-outcome=\"refused\" data-at=").count(), 2);
    // The Pod scenario beside it keeps the shared timeline to itself.
    assert!(view["runs"][1].get("service_svg").is_none());
    let picture = view["picture"]["svg"].as_str().unwrap();
    assert_eq!(picture.matches("class=\"scenario\"").count(), 1);
}

fn manifest(name: &str) -> String {
    std::fs::read_to_string(format!("{}/tests/manifests/{name}", env!("CARGO_MANIFEST_DIR")))
        .expect("test manifest")
}

#[test]
fn a_view_shows_every_workload_of_every_file_and_says_which_it_left_out() {
    let server = Server::start(&[]);
    // Five files, the second a List of two workloads: six, all run.
    let list = manifest("kubectl-get-list.json");
    let texts = [
        seed("seed-sidecar.toml"),
        list.clone(),
        manifest("deployment-sidecar.yaml"),
        seed("seed-side-by-side.toml"),
        seed("service/no-prestop.toml"),
    ];
    let (status, view) = server.json(
        "POST",
        "/api/view",
        &serde_json::json!({ "scenarios": texts }).to_string(),
    );
    assert_eq!(status, 200, "{view}");
    let runs = view["runs"].as_array().unwrap();
    let placed: Vec<(u64, u64)> = runs
        .iter()
        .map(|r| (r["scenario"].as_u64().unwrap(), r["workload"].as_u64().unwrap()))
        .collect();
    assert_eq!(placed, [(0, 0), (1, 0), (1, 1), (2, 0), (3, 0), (4, 0)]);
    assert_eq!(runs[1]["document"]["name"], "web");
    assert_eq!(runs[2]["document"]["name"], "fluentd-elasticsearch");
    // Notices worded for the page: the annotation, not the --timings flag
    // `podsim run` names (its document keeps the command line's words).
    let notices: Vec<&str> = runs[3]["notices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["message"].as_str().unwrap())
        .collect();
    assert!(
        notices.contains(&"the Pod is never deleted; add podsim.dev/stop_after_ready to see shutdown"),
        "{notices:?}"
    );
    assert!(notices.iter().all(|n| !n.contains("--timings")), "{notices:?}");
    assert!(runs[3]["document"]["notices"].to_string().contains("--timings"));
    // Seven copies of the List: fourteen workloads, eight run, six left out.
    let (status, view) = server.json(
        "POST",
        "/api/view",
        &serde_json::json!({ "scenarios": vec![list; 7] }).to_string(),
    );
    assert_eq!(status, 200, "{view}");
    let runs = view["runs"].as_array().unwrap();
    assert_eq!(runs.iter().filter(|r| r.get("document").is_some()).count(), 8);
    let left: Vec<&serde_json::Value> = runs.iter().filter(|r| r.get("left_out").is_some()).collect();
    assert_eq!(left.len(), 6);
    assert_eq!(
        (left[0]["scenario"].as_u64(), left[0]["workload"].as_u64()),
        (Some(4), Some(0))
    );
    assert!(
        left[0]["left_out"]
            .as_str()
            .unwrap()
            .contains("at most 8 workloads"),
        "{}",
        left[0]
    );
}

#[test]
fn a_whatif_edits_a_manifest_as_a_manifest() {
    let server = Server::start(&[]);
    let whatif = |text: &str, name: &str| {
        let body = serde_json::json!({ "text": text, "whatif": name, "workload": 0, "at_ms": 2500 });
        server.json("POST", "/api/whatif", &body.to_string())
    };
    let rollout = seed("service/rollout.yaml");
    let (status, answer) = whatif(&rollout, "propagation");
    assert_eq!(status, 200, "{answer}");
    // The one annotation, changed in place; every other byte as it was.
    assert_eq!(
        answer["text"].as_str().unwrap(),
        rollout.replace(
            "podsim.dev/service.propagation: \"tiny\"",
            "podsim.dev/service.propagation: \"medium\""
        )
    );
    // TOML gets its key: the seed's config-fetch is the first init container.
    let (_, answer) = whatif(&seed("seed-sidecar.toml"), "fail-init");
    let text = answer["text"].as_str().unwrap();
    assert!(text.contains("name = \"config-fetch\"\nfails = 1\n"), "{text}");
    // A what-if that does not fit is no error: it says why, and changes nothing.
    let (status, answer) = whatif(&manifest("deployment-sidecar.yaml"), "fail-init");
    assert_eq!(status, 200);
    assert_eq!(answer["unchanged"], "this Pod has no init container");
    assert!(answer.get("text").is_none());
    let (status, answer) = whatif(&rollout, "undo");
    assert_eq!(status, 400);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no what-if \"undo\""),
        "{answer}"
    );
}

/// The page's axis hints are the paths a sweep of each scenario takes, by
/// hand: 2 run keys, 9 of the Pod (6 and back-off's 3), 44 per container
/// (17 of its own, 3 probes × 9), and for a Service its 20 table keys
/// (service 6, traffic 9, app 2, pdb 3) and 10 per disruption.
#[test]
fn a_view_offers_each_scenario_the_axis_paths_its_sweep_takes() {
    let server = Server::start(&[]);
    let body =
        serde_json::json!({ "scenarios": [seed("seed-sidecar.toml"), seed("service/no-prestop.toml")] });
    let (status, view) = server.json("POST", "/api/view", &body.to_string());
    assert_eq!(status, 200, "{view}");
    let axes = |i: usize| -> Vec<String> {
        let list = view["runs"][i]["axes"].as_array().expect("axis hints");
        list.iter().map(|p| p.as_str().unwrap().to_string()).collect()
    };
    let pod = axes(0);
    assert_eq!(pod.len(), 2 + 9 + 3 * 44, "{pod:?}");
    for path in [
        "horizon",
        "pod.backoff.cap",
        "containers.config-fetch.boot",
        "containers.web.liveness_probe.period",
    ] {
        assert!(pod.iter().any(|p| p == path), "{path}");
    }
    assert!(
        !pod.iter()
            .any(|p| p.starts_with("service.") || p.starts_with("job."))
    );
    let service = axes(1);
    // … and issue 39's: the client's 8 keys, a disruption's unready and for;
    // and issue 40's crash and lost node's 7 keys; issue 39's hop: the
    // client's status_retries, the hop's 7 keys and its deregistration
    // and outlier detection's 4; issue 39's [cluster], 8, and its full_sync;
    // issue 40's scale_to, annotate, deletion_cost, and node_shutdown
    // with its two settings; issue 41's traffic model; issue 40's
    // scale_down_node with its three settings; issue 40's lost node's
    // Lease timings: renew interval, monitor period, age and lag; and
    // its Pods' garbage collection: node_deleted, out_of_service; issue
    // 40's pod_priority and shutdown_grace_period_by_pod_priority.
    assert_eq!(
        service.len(),
        2 + 9 + 44 + 20 + 10 + 8 + 2 + 1 + 7 + 1 + 7 + 4 + 8 + 1 + 3 + 3 + 1 + 4 + 4 + 2 + 1 + 1,
        "{service:?}"
    );
    for path in ["traffic.rate", "disruptions.0.after_ready", "pdb.min_available"] {
        assert!(service.iter().any(|p| p == path), "{path}");
    }
}

/// A run past `--max-seconds` is stopped, answered 503 with the reason
/// (run, view and sweep alike), and the server goes on. The slow Service
/// sends 1.8·10⁹ requests (minutes); the bound of 10 s, for a loaded
/// machine, is far from them.
#[test]
fn a_request_past_its_time_budget_gets_503_with_the_reason() {
    let server = Server::start(&["--max-seconds", "1"]);
    let slow = seed("service/no-prestop.toml").replace(
        "rate = 50 ",
        "rate = 1000000\nmodel = \"per-request\"\nduration = \"30m\" ",
    );
    let sweep = json!({ "scenario": slow, "grid": "[axes]\n\"traffic.clients\" = [3]\n" });
    let view = json!({ "scenarios": [slow] });
    for (path, body) in [
        ("/api/run", slow.clone()),
        ("/api/view", view.to_string()),
        ("/api/sweep", sweep.to_string()),
    ] {
        let started = Instant::now();
        let (status, doc) = server.json("POST", path, &body);
        assert_eq!(status, 503, "{path}: {doc}");
        let message = doc["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("time budget of 1 s (--max-seconds)"),
            "{path}: {message}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{path}: {:?}",
            started.elapsed()
        );
    }
    let (status, doc) = server.json("POST", "/api/run", &seed("seed-sidecar.toml"));
    assert_eq!((status, &doc["metrics"]["ready_ms"]), (200, &json!(6000)));
}
