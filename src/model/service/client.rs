//! Client profiles: what the library that sends the requests does when a
//! Pod goes away (issue 39). The same `kubectl delete pod` loses a request
//! on every pinned connection with one library and none with another, so
//! the answer to "how many requests fail" depends on the client as much as
//! on the Pod. A profile says what a pooled connection does once its
//! server closed it, which failures the library sends again (how often,
//! after what back-off), its pool, its timeouts and whether the requests
//! are idempotent.
//!
//! The presets name their source, a library's own code or docs, at each
//! figure below; `ideal` is podsim's client before profiles existed, the
//! default, so a scenario that names no client runs as it always has.
//!
//! Invariant: a scenario's `[traffic]` keys (`pool`, `connect_retries`, …)
//! override the preset's field for field, whatever the order they were
//! written in (`ClientSpec` keeps what was written, `Profile` is the
//! result); the model reads only the `Profile`, resolved once per run.
//!
//! The client talks to the Pods through its node's kube-proxy rules; a
//! hop (an ingress, a mesh sidecar) is a router between the two with its
//! own view of the endpoints, so it will take the client's place as the
//! one that picks a Pod, and the client's retries stay the client's.

use super::hop::Status;
use super::spec::{Connections, Retry, TrafficSpec};
use crate::engine::SimDuration;

/// A client library, as a preset of every field of a `Profile`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ClientPreset {
    /// podsim's client before profiles: the `[traffic]` keys as written,
    /// a closed pooled connection fails a request only in the instant it
    /// closed, and `retry = "once"` its one retry.
    #[default]
    Ideal,
    /// Go's `net/http` `DefaultTransport`.
    GoNetHttp,
    /// Python's `requests` on urllib3.
    PythonRequests,
    /// Python's plain `http.client.HTTPConnection`, kept open.
    PythonHttpClient,
    /// Node's undici (`fetch`).
    NodeUndici,
    /// OkHttp's `OkHttpClient` defaults.
    JavaOkhttp,
    /// The `curl` command, once per request.
    Curl,
    /// k6's `http` module (Go's Transport underneath).
    K6,
    /// An Istio sidecar's Envoy, as the client's outbound proxy.
    Envoy,
}

impl ClientPreset {
    crate::model::words::words! {
        /// The spellings.
        Ideal => "ideal",
        GoNetHttp => "go-net-http",
        PythonRequests => "python-requests",
        PythonHttpClient => "python-http-client",
        NodeUndici => "node-undici",
        JavaOkhttp => "java-okhttp",
        Curl => "curl",
        K6 => "k6",
        Envoy => "envoy",
    }
}

/// What a client does with a pooled connection its server has closed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum OnClosed {
    /// It notices the close (FIN or RST) before it reuses the connection,
    /// and opens another: no request is lost on it.
    Detected,
    /// It reuses it unchecked: the next request on it fails, however long
    /// ago the server closed it.
    FailsNext,
    /// It notices the close unless a request leaves in the very
    /// millisecond of it: the keep-alive race.
    #[default]
    Raced,
}

impl OnClosed {
    crate::model::words::words! {
        /// The spellings.
        Detected => "detected",
        FailsNext => "fails-next",
        Raced => "raced",
    }
}

/// The `[traffic]` client keys as the scenario wrote them: the preset, and
/// each field it overrides (`None`: the preset's).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ClientSpec {
    /// `client`: the library whose defaults the rest override.
    pub preset: ClientPreset,
    /// `on_closed`: `Profile::on_closed`.
    pub on_closed: Option<OnClosed>,
    /// `connect_retries`: `Retries::connect`.
    pub connect_retries: Option<u32>,
    /// `reset_retries`: `Retries::reset`.
    pub reset_retries: Option<u32>,
    /// `retry_backoff`: `Retries::backoff`.
    pub retry_backoff: Option<SimDuration>,
    /// `idle_timeout`; 0: idle connections are kept until the server closes them.
    pub idle_timeout: Option<SimDuration>,
    /// `timeout`, per try; 0: no timeout of the client's own.
    pub timeout: Option<SimDuration>,
    /// `idempotent`: `Profile::idempotent`.
    pub idempotent: Option<bool>,
    /// `status_retries`: `Retries::status`.
    pub status_retries: Option<u32>,
}

/// Written as derived before hops, without `status_retries` while it is
/// unwritten: a grid's hash is taken over its base's `Debug` text, and a
/// client grid written before hops keeps the hash its shards carry. No
/// `..`, so a new field must be written here too.
impl std::fmt::Debug for ClientSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ClientSpec {
            preset,
            on_closed,
            connect_retries,
            reset_retries,
            retry_backoff,
            idle_timeout,
            timeout,
            idempotent,
            status_retries,
        } = self;
        let mut d = f.debug_struct("ClientSpec");
        d.field("preset", preset)
            .field("on_closed", on_closed)
            .field("connect_retries", connect_retries)
            .field("reset_retries", reset_retries)
            .field("retry_backoff", retry_backoff)
            .field("idle_timeout", idle_timeout)
            .field("timeout", timeout)
            .field("idempotent", idempotent);
        if let Some(n) = status_retries {
            d.field("status_retries", n);
        }
        d.finish()
    }
}

impl ClientSpec {
    /// Today's client with nothing overridden: runs keep every byte they had.
    pub fn is_ideal(&self) -> bool {
        *self == ClientSpec::default()
    }
}

/// How many times a failure is sent again, and the wait before each.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Retries {
    /// Tries after the first for a failure to connect (refused, REJECT, a
    /// connect timeout): nothing reached the app, any request may go again.
    pub connect: u32,
    /// Tries after the first for a request whose reused connection was
    /// reset or closed before any answer byte: always if it never reached
    /// the app, only an idempotent one if it was cut in flight. A failure
    /// on a fresh connection is not retried (Go's `shouldRetryRequest`:
    /// "This was a fresh connection. There's no reason the server should've
    /// hung up on us.").
    pub reset: u32,
    /// Tries after the first for a hop's error answer whose code is in
    /// `statuses` (a hop answers 502, 503 or 504 when its upstream failed;
    /// without a hop no answer is one).
    pub status: u32,
    /// The codes `status` retries.
    pub statuses: &'static [u16],
    /// The first retry's wait, doubled for each next one up to ten times
    /// itself (Envoy's `base_interval` and `max_interval` defaults); no
    /// jitter, so a run stays one run.
    pub backoff: SimDuration,
}

impl Retries {
    /// Tries after the first for a hop's answer `status`.
    pub fn for_status(&self, status: Status) -> u32 {
        if self.statuses.contains(&status.code()) {
            self.status
        } else {
            0
        }
    }

    /// The wait before retry `n` (1 for the first).
    pub fn wait(&self, n: u32) -> SimDuration {
        let doubled = self.backoff.0.saturating_mul(1 << (n - 1).min(16));
        SimDuration(doubled.min(self.backoff.0.saturating_mul(10)))
    }
}

/// A client, every field resolved: what the model runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Profile {
    /// A connection per request, or a pool of kept-alive ones.
    pub connections: Connections,
    /// Idle connections a client keeps (`u32::MAX`: no bound).
    pub pool: u32,
    /// An idle pooled connection is closed by the client after this.
    pub idle_timeout: Option<SimDuration>,
    /// A SYN to a vanished Pod IP fails after this (the request timeout
    /// included, if shorter).
    pub connect_timeout: SimDuration,
    /// A request with no answer fails after this, if the client has a
    /// timeout of its own (a lost node's Pod never answers).
    pub timeout: Option<SimDuration>,
    /// What it does with a pooled connection its server closed.
    pub on_closed: OnClosed,
    /// Which failed tries it sends again, how often, after what wait.
    pub retries: Retries,
    /// The requests may be sent twice (GET, HEAD, PUT, DELETE, …).
    pub idempotent: bool,
}

impl Default for Profile {
    fn default() -> Self {
        TrafficSpec::default().profile()
    }
}

/// What a preset gives each field the scenario did not write (for
/// `ideal`, the `[traffic]` keys' own defaults).
struct Defaults {
    connections: Connections,
    pool: u32,
    idle_timeout: SimDuration,
    connect_timeout: SimDuration,
    timeout: SimDuration,
    on_closed: OnClosed,
    connect_retries: u32,
    reset_retries: u32,
    /// Retries of a hop's error answer, and their codes.
    status_retries: (u32, &'static [u16]),
    backoff: SimDuration,
    idempotent: bool,
}

/// The gateway errors a client retries when told to (`status_retries`
/// with a preset that names none): curl's `--retry` transient set less
/// 408, 429 and 500, which no hop here answers.
const GATEWAY_ERRORS: &[u16] = &[502, 503, 504];

const fn s(secs: u64) -> SimDuration {
    SimDuration::from_secs(secs)
}

/// Linux's SYN retries (`net.ipv4.tcp_syn_retries` = 6: "about 127
/// seconds", Documentation/networking/ip-sysctl.rst): how long a library
/// with no connect timeout of its own waits for a vanished Pod IP.
const KERNEL_CONNECT: SimDuration = s(127);

impl ClientPreset {
    fn defaults(self) -> Defaults {
        let ka = Connections::KeepAlive;
        let none = SimDuration::ZERO;
        let d =
            |pool, idle, connect, timeout, on_closed, (connect_retries, reset_retries), backoff| Defaults {
                connections: ka,
                pool,
                idle_timeout: idle,
                connect_timeout: connect,
                timeout,
                on_closed,
                connect_retries,
                reset_retries,
                status_retries: (0, GATEWAY_ERRORS),
                backoff,
                idempotent: true,
            };
        match self {
            // `retry`, `pool`, `connections`, `connect_timeout` as written
            // (`TrafficSpec::profile`); these are their defaults.
            ClientPreset::Ideal => Defaults {
                connections: Connections::New,
                idempotent: false,
                ..d(2, none, s(30), none, OnClosed::Raced, (0, 0), none)
            },
            // src/net/http/transport.go: DefaultTransport (Dialer Timeout
            // 30 s, IdleConnTimeout 90 s), DefaultMaxIdleConnsPerHost = 2;
            // persistConn.readLoop sees an idle connection's EOF and drops
            // it; shouldRetryRequest re-sends once on a reused connection
            // (nothing written, or a replayable request before any
            // response byte), never after a dial error.
            ClientPreset::GoNetHttp => d(2, s(90), s(30), none, OnClosed::Detected, (0, 1), none),
            // requests/adapters.py: DEFAULT_POOLSIZE = 10, DEFAULT_RETRIES
            // = 0 (Retry(0, read=False)), no timeout unless given;
            // urllib3/connectionpool.py `_get_conn` drops a connection
            // `is_connection_dropped` finds closed (util/wait.py
            // `wait_for_read(sock, timeout=0.0)`), no idle expiry.
            ClientPreset::PythonRequests => {
                d(10, none, KERNEL_CONNECT, none, OnClosed::Detected, (0, 0), none)
            }
            // Lib/http/client.py: HTTPConnection sends on its socket as it
            // is (auto_open only after a close it saw itself), so a request
            // on a connection the server closed gets BrokenPipeError or
            // RemoteDisconnected("Remote end closed connection without
            // response"); no retry, no timeout (socket default None).
            ClientPreset::PythonHttpClient => {
                d(1, none, KERNEL_CONNECT, none, OnClosed::FailsNext, (0, 0), none)
            }
            // undici lib/dispatcher/client.js: keepAliveTimeout 4e3 ms,
            // connect timeout 10e3 ms, headersTimeout 300e3 ms; Pool/Agent
            // `connections: null` (no bound); a socket's 'end'/'close'
            // takes it out of the pool; retries only with RetryAgent.
            ClientPreset::NodeUndici => d(u32::MAX, s(4), s(10), s(300), OnClosed::Detected, (0, 0), none),
            // okhttp3 ConnectionPool(maxIdleConnections = 5,
            // keepAliveDuration = 5 min); connectTimeout 10 s, callTimeout 0;
            // RealConnection.isHealthy does the socket read check only for
            // a non-GET (`doExtensiveHealthChecks`), so a GET goes out on a
            // stale connection, and RetryAndFollowUpInterceptor.recover
            // (retryOnConnectionFailure = true) sends it again once on a
            // new connection; a lone route's connect failure is final.
            ClientPreset::JavaOkhttp => d(5, s(300), s(10), none, OnClosed::FailsNext, (0, 1), none),
            // curl(1): one connection per invocation; --retry 0 by
            // default; --connect-timeout default 300 s (lib/connect.h
            // DEFAULT_CONNECT_TIMEOUT); no --max-time.
            ClientPreset::Curl => Defaults {
                connections: Connections::New,
                ..d(0, none, s(300), none, OnClosed::Detected, (0, 0), none)
            },
            // k6 docs, Params: timeout 60 s; its VUs send through Go's
            // http.Transport, so Go's pool, close detection and retry.
            ClientPreset::K6 => d(2, s(90), s(30), s(60), OnClosed::Detected, (0, 1), none),
            // Istio pilot/pkg/networking/core/route/retry/retry.go
            // DefaultPolicy: 2 retries on "connect-failure,refused-stream,
            // unavailable,cancelled,retriable-status-codes" (no `reset`, so
            // a request cut in flight is not sent again); Envoy router
            // back-off base 25 ms; cluster connect_timeout 10 s (Istio's
            // default); upstream idle_timeout 1 h; no connection bound
            // (Istio sets the circuit breakers to their maximum); the
            // route timeout is off (Istio's 0s). Envoy sees an upstream
            // close as it happens. `retriable-status-codes` with Istio's
            // RetriableStatusCodes [503] (same DefaultPolicy): a hop's 503
            // is sent again twice too.
            ClientPreset::Envoy => Defaults {
                status_retries: (2, &[503]),
                ..d(
                    u32::MAX,
                    s(3600),
                    s(10),
                    none,
                    OnClosed::Detected,
                    (2, 0),
                    SimDuration::from_millis(25),
                )
            },
        }
    }
}

impl TrafficSpec {
    /// The client this traffic runs: its preset, each field the scenario
    /// wrote instead.
    pub fn profile(&self) -> Profile {
        let c = &self.client;
        let d = c.preset.defaults();
        let ideal_retries = match (c.preset, self.retry) {
            (ClientPreset::Ideal, Retry::Once) => 1,
            _ => 0,
        };
        let positive = |d: SimDuration| (d > SimDuration::ZERO).then_some(d);
        let timeout = positive(c.timeout.unwrap_or(d.timeout));
        let connect = self.connect_timeout.unwrap_or(d.connect_timeout);
        Profile {
            connections: self.connections.unwrap_or(d.connections),
            pool: self.pool.unwrap_or(d.pool),
            idle_timeout: positive(c.idle_timeout.unwrap_or(d.idle_timeout)),
            connect_timeout: timeout.map_or(connect, |t| t.min(connect)),
            timeout,
            on_closed: c.on_closed.unwrap_or(d.on_closed),
            retries: Retries {
                connect: c.connect_retries.unwrap_or(d.connect_retries.max(ideal_retries)),
                reset: c.reset_retries.unwrap_or(d.reset_retries.max(ideal_retries)),
                status: c.status_retries.unwrap_or(d.status_retries.0),
                statuses: d.status_retries.1,
                backoff: c.retry_backoff.unwrap_or(d.backoff),
            },
            idempotent: c.idempotent.unwrap_or(d.idempotent),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ideal_is_the_traffic_keys_as_written() {
        let mut t = TrafficSpec::default();
        let p = t.profile();
        assert_eq!(
            (p.connections, p.pool, p.connect_timeout),
            (Connections::New, 2, s(30))
        );
        assert_eq!(
            (p.on_closed, p.retries, p.idle_timeout),
            (
                OnClosed::Raced,
                Retries {
                    statuses: GATEWAY_ERRORS,
                    ..Retries::default()
                },
                None
            )
        );
        t.retry = Retry::Once;
        assert_eq!((t.profile().retries.connect, t.profile().retries.reset), (1, 1));
    }

    #[test]
    fn a_written_key_overrides_the_preset_whatever_the_order() {
        let mut t = TrafficSpec::default();
        t.client.reset_retries = Some(0);
        t.pool = Some(7);
        t.client.preset = ClientPreset::GoNetHttp;
        let p = t.profile();
        // Go's own: keep-alive, 90 s idle, close detected; the keys: no reset retry, 7 idle.
        assert_eq!(
            (p.connections, p.idle_timeout, p.on_closed),
            (Connections::KeepAlive, Some(s(90)), OnClosed::Detected)
        );
        assert_eq!((p.retries.reset, p.pool), (0, 7));
    }

    #[test]
    fn a_request_timeout_shortens_the_connect_wait() {
        // k6: 60 s request timeout under Go's 30 s dialer: 30 s; a 5 s timeout: 5 s.
        let mut t = TrafficSpec::default();
        t.client.preset = ClientPreset::K6;
        assert_eq!(t.profile().connect_timeout, s(30));
        t.client.timeout = Some(s(5));
        assert_eq!(t.profile().connect_timeout, s(5));
    }

    #[test]
    fn back_off_doubles_up_to_ten_times_the_first() {
        let r = Retries {
            backoff: SimDuration::from_millis(25),
            ..Retries::default()
        };
        let waits: Vec<u64> = (1..=6).map(|n| r.wait(n).as_millis()).collect();
        assert_eq!(waits, [25, 50, 100, 200, 250, 250]);
    }
}
