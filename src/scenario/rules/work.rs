//! The work estimate of a Service run, for what Kubernetes does not bound
//! (`key::limit` holds what it does): the memory its size holds, from
//! `service.replicas` and `service.replicas` × `service.nodes` (every
//! node's rules list every replica, even within Kubernetes' 150,000 Pods
//! and 5,000 nodes: that product once took 50 GB); the requests a run
//! simulates one by one, from `traffic.rate` × `traffic.duration`; and
//! the requests in flight at once, from the rate × the median
//! `service_time`. Past any budget a run would take hours or fill memory
//! (`traffic.rate = 1e9` once asked for 1.3 GB at once and aborted), so it
//! is refused before it starts, at the key that lowers it. A run within
//! the budgets that still takes a while (past `NOTICE_MEMORY` or
//! `NOTICE_REQUESTS`) gets a notice of how long.
//!
//! Invariant: the estimate only ever errs low (a run without a
//! `duration` sends for at least its `SETTLE_TAIL`), so a refused run is
//! over its budget for sure; what runs is bounded by the engine's limits
//! (a stop request, `serve`'s event budget).

use crate::model::service::{SETTLE_TAIL, ServiceSpec, TrafficSpec};
use crate::scenario::numbers::grouped;

/// The most requests one run may send: about an hour of simulation at a
/// few hundred thousand requests a second, and half of what the run's
/// request counter (`u32`) can number.
pub const MAX_REQUESTS: u64 = 2_000_000_000;

/// The most requests in flight at once: each holds a slot and its pending
/// events (about 100 bytes), so this bounds them to about 100 MB.
pub const MAX_IN_FLIGHT: u64 = 1_000_000;

/// Past this many requests a run, a notice says how long the run takes.
pub const NOTICE_REQUESTS: u64 = 100_000_000;

/// Requests one core simulates a second, for the notice's time: the
/// Service benches' 9 to 11 million (BENCHMARKS.md).
const REQUESTS_PER_SECOND: u64 = 10_000_000;

/// Bytes `podsim run` holds per replica (its Pod model, serving state and
/// trace), and per replica per node (the node's rules, the meter's copy,
/// the trace's change as the rule is added): measured with
/// `/usr/bin/time` on no-prestop.toml, 2.6 KB per replica at 30,000 and
/// 100,000 replicas on 100 nodes, and 49 B per replica-node from
/// 30,000 × 1,000 (1.56 GB) and 10,000 × 5,000 (2.53 GB). A sweep, which
/// keeps no trace, holds about a fifth of the second (10 B).
const BYTES_PER_REPLICA: u64 = 2_600;
const BYTES_PER_RULE: u64 = 50;

/// The most memory a run's size may hold: 80 million replica-nodes, such
/// as 16,000 replicas on 5,000 nodes or 150,000 on 480; past it a run
/// holds several GB before its first request.
pub const MAX_MEMORY: u64 = 4_000_000_000;

/// Past this much, a notice says what a run holds and how long it takes.
pub const NOTICE_MEMORY: u64 = 1_000_000_000;

/// Replica-nodes `podsim run` simulates a second (each node hears of
/// each version, drawing its delay): 12.5 million, measured as 80 ns each
/// at 30,000 × 1,000 (2.4 s) and 10,000 × 5,000 (4.0 s).
const RULES_PER_SECOND: u64 = 12_500_000;

/// What a run is over budget by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OverBudget {
    /// About this many bytes held for its replicas and nodes.
    Memory {
        /// The estimate.
        bytes: u64,
        /// `service.replicas`.
        replicas: u32,
        /// `service.nodes`.
        nodes: u32,
    },
    /// About this many requests sent in one run.
    Requests {
        /// The estimate.
        requests: u64,
        /// Whether `duration` is set (else the tail is the floor).
        timed: bool,
    },
    /// About this many requests in flight at once.
    InFlight(u64),
}

/// The requests `traffic` sends in one run, at least: the rate over its
/// `duration`, or over the tail it runs after the disruptions settle.
pub fn requests(traffic: &TrafficSpec) -> u64 {
    let window = traffic.duration.unwrap_or(SETTLE_TAIL);
    saturating(traffic.rate.get() * window.as_millis() as f64 / 1000.0)
}

/// The requests in flight at once: the rate × the median service time.
pub fn in_flight(traffic: &TrafficSpec) -> u64 {
    let median = traffic.service_time.sample(0.5);
    saturating(traffic.rate.get() * median.as_millis() as f64 / 1000.0)
}

/// The memory a run of `service` holds for its replicas and nodes, at
/// least (a rollout's surge, a drain's replacements add replicas).
pub fn memory(service: &ServiceSpec) -> u64 {
    let replicas = u64::from(service.replicas.max(1));
    let nodes = u64::from(service.nodes.max(1));
    (replicas * BYTES_PER_REPLICA).saturating_add((replicas * nodes).saturating_mul(BYTES_PER_RULE))
}

/// Whether `service` stays within every budget: its size's memory, then
/// its traffic's.
pub fn check_work(service: &ServiceSpec) -> Result<(), OverBudget> {
    let bytes = memory(service);
    if bytes > MAX_MEMORY {
        let (replicas, nodes) = (service.replicas, service.nodes);
        return Err(OverBudget::Memory {
            bytes,
            replicas,
            nodes,
        });
    }
    // Counted requests cost the same at any rate: no request budget.
    match service.counts() {
        true => Ok(()),
        false => service.traffic.as_ref().map_or(Ok(()), check_traffic),
    }
}

/// Whether `traffic` stays within both of its budgets.
fn check_traffic(traffic: &TrafficSpec) -> Result<(), OverBudget> {
    let requests = requests(traffic);
    if requests > MAX_REQUESTS {
        return Err(OverBudget::Requests {
            requests,
            timed: traffic.duration.is_some(),
        });
    }
    match in_flight(traffic) {
        n if n > MAX_IN_FLIGHT => Err(OverBudget::InFlight(n)),
        _ => Ok(()),
    }
}

/// The notices for a run within the budgets that still takes a while:
/// the estimate, the time it takes, and the keys that shorten it.
pub fn work_notices(service: &ServiceSpec) -> Vec<String> {
    let size = (memory(service) > NOTICE_MEMORY).then(|| {
        let (replicas, nodes) = (service.replicas.max(1), service.nodes.max(1));
        let rules = u64::from(replicas) * u64::from(nodes);
        format!(
            "service.replicas × service.nodes ({} × {}) holds about {} in one run (every node's rules list \
             every replica) and takes about {} (Ctrl-C stops it); lower service.replicas or service.nodes for \
             a quicker answer",
            grouped(u64::from(replicas)),
            grouped(u64::from(nodes)),
            gigabytes(memory(service)),
            seconds(rules / RULES_PER_SECOND),
        )
    });
    size.into_iter()
        .chain(
            service
                .traffic
                .as_ref()
                .filter(|_| !service.counts())
                .and_then(traffic_notice),
        )
        .chain(service.traffic_model_notice())
        .collect()
}

/// The traffic's notice, past `NOTICE_REQUESTS`.
fn traffic_notice(traffic: &TrafficSpec) -> Option<String> {
    let requests = requests(traffic);
    if requests <= NOTICE_REQUESTS {
        return None;
    }
    let time = seconds(requests / REQUESTS_PER_SECOND);
    let timed = traffic.duration.is_some();
    Some(format!(
        "traffic.rate sends about {} requests in one run ({}): about {time} of simulation at ten million \
         a second (Ctrl-C stops it); {} for a quicker answer",
        grouped(requests),
        how(timed),
        lower(timed),
    ))
}

/// `s` seconds in words: seconds below two minutes, else minutes.
fn seconds(s: u64) -> String {
    match s {
        s if s < 120 => format!("{s} s"),
        s => format!("{} min", s / 60),
    }
}

/// `bytes` in GB, to a tenth.
fn gigabytes(bytes: u64) -> String {
    format!("{:.1} GB", bytes as f64 / 1e9)
}

/// How the requests were estimated.
fn how(timed: bool) -> &'static str {
    if timed {
        "traffic.rate × traffic.duration"
    } else {
        "traffic.rate × the 10 s it runs after the disruptions settle, at least"
    }
}

/// The keys that lower the requests.
fn lower(timed: bool) -> &'static str {
    if timed {
        "lower traffic.rate or traffic.duration"
    } else {
        "lower traffic.rate, or set a short traffic.duration"
    }
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            OverBudget::Memory {
                bytes,
                replicas,
                nodes,
            } => write!(
                f,
                "service.replicas × service.nodes ({} × {}) would hold about {} in one run (every node's \
                 rules list every replica), over podsim's memory budget of {}; lower service.replicas or \
                 service.nodes",
                grouped(u64::from(replicas)),
                grouped(u64::from(nodes)),
                gigabytes(bytes),
                gigabytes(MAX_MEMORY),
            ),
            OverBudget::Requests { requests, timed } => write!(
                f,
                "traffic.rate would send about {} requests in one run ({}), over podsim's work budget of {} \
                 a run (each request is simulated: past it a run takes hours); {}",
                grouped(requests),
                how(timed),
                grouped(MAX_REQUESTS),
                lower(timed),
            ),
            OverBudget::InFlight(n) => write!(
                f,
                "traffic.rate would keep about {} requests in flight at once (traffic.rate × the median \
                 traffic.service_time), over podsim's memory budget of {} (each holds memory); lower \
                 traffic.rate or traffic.service_time",
                grouped(n),
                grouped(MAX_IN_FLIGHT)
            ),
        }
    }
}

/// `x` as a count, `u64::MAX` past it.
fn saturating(x: f64) -> u64 {
    if x >= u64::MAX as f64 { u64::MAX } else { x as u64 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::Dist;
    use crate::model::service::{Arrival, Rate};

    fn sized(replicas: u32, nodes: u32) -> ServiceSpec {
        ServiceSpec {
            replicas,
            nodes,
            ..ServiceSpec::default()
        }
    }

    #[test]
    fn the_size_holds_bytes_per_replica_and_per_replica_node() {
        // 30,000 × 100: 30,000 × 2,600 B + 3,000,000 × 50 B = 228 MB (226 measured).
        assert_eq!(memory(&sized(30_000, 100)), 78_000_000 + 150_000_000);
        assert_eq!(check_work(&sized(30_000, 100)), Ok(()));
        assert!(work_notices(&sized(30_000, 100)).is_empty());
        // Kubernetes' most, 150,000 Pods on 5,000 nodes: 7.5·10⁸ replica-nodes,
        // 37.5 GB and 390 MB: refused.
        assert_eq!(
            check_work(&sized(150_000, 5_000)),
            Err(OverBudget::Memory {
                bytes: 37_890_000_000,
                replicas: 150_000,
                nodes: 5_000
            })
        );
        // 150,000 replicas fit on 481 nodes (3.9975 GB), not on 482 (4.005 GB).
        assert_eq!(check_work(&sized(150_000, 481)), Ok(()));
        assert!(matches!(
            check_work(&sized(150_000, 482)),
            Err(OverBudget::Memory { .. })
        ));
        // The size is checked before the traffic.
        let mut both = sized(150_000, 5_000);
        both.traffic = Some(traffic(1e9, None, 20));
        assert!(matches!(check_work(&both), Err(OverBudget::Memory { .. })));
    }

    #[test]
    fn a_run_past_a_gigabyte_gets_a_notice_of_its_size_and_time() {
        // 30,000 × 1,000: 78 MB + 1.5 GB = 1.578 GB (1.56 measured), and
        // 3·10⁷ replica-nodes at 12.5 million a second: 2 s.
        let notices = work_notices(&sized(30_000, 1_000));
        assert_eq!(notices.len(), 1);
        assert!(
            notices[0].starts_with(
                "service.replicas × service.nodes (30,000 × 1,000) holds about 1.6 GB in one run"
            ) && notices[0].contains("takes about 2 s"),
            "{notices:?}"
        );
        // A TOML scenario carries it.
        let toml = "[service]\nreplicas = 30000\nnodes = 1000\n[[containers]]\nname = \"web\"\nkind = \"app\"\n\
                    boot = \"1s\"\n";
        let scenario = crate::scenario::Scenario::parse(toml, "large.toml").unwrap();
        assert!(
            (scenario.notices.iter()).any(|n| n.to_string().contains("(30,000 × 1,000) holds about 1.6 GB")),
            "{:?}",
            scenario.notices
        );
        let over = check_work(&sized(150_000, 5_000)).unwrap_err().to_string();
        assert!(
            over.starts_with("service.replicas × service.nodes (150,000 × 5,000) would hold about 37.9 GB")
                && over.contains("budget of 4.0 GB; lower service.replicas or service.nodes"),
            "{over}"
        );
    }

    fn traffic(rate: f64, duration: Option<u64>, service_ms: u64) -> TrafficSpec {
        TrafficSpec {
            rate: Rate::new(rate).unwrap(),
            duration: duration.map(SimDuration::from_secs),
            service_time: Dist::Fixed(SimDuration::from_millis(service_ms)),
            ..TrafficSpec::default()
        }
    }

    #[test]
    fn the_estimate_is_rate_times_the_window_and_the_median_service_time() {
        // 1e9/s for at least the 10 s tail: 1e10 requests, 2e7 in flight at 20 ms.
        let huge = traffic(1e9, None, 20);
        assert_eq!(requests(&huge), 10_000_000_000);
        assert_eq!(in_flight(&huge), 20_000_000);
        assert_eq!(
            check_traffic(&huge),
            Err(OverBudget::Requests {
                requests: 10_000_000_000,
                timed: false
            })
        );
        // 1e9/s for 1 s: 1e9 requests fit, 2e7 in flight do not.
        assert_eq!(
            check_traffic(&traffic(1e9, Some(1), 20)),
            Err(OverBudget::InFlight(20_000_000))
        );
        // A million a second for 30 min: 1.8e9, 20,000 in flight.
        assert_eq!(check_traffic(&traffic(1e6, Some(1800), 20)), Ok(()));
        // For an hour: 3.6e9.
        assert!(matches!(
            check_traffic(&traffic(1e6, Some(3600), 20)),
            Err(OverBudget::Requests {
                requests: 3_600_000_000,
                timed: true
            })
        ));
    }

    #[test]
    fn a_run_past_a_hundred_million_requests_gets_a_notice_of_its_time() {
        // 10^7 a second for 10 s is 10^8: no notice. 10^6 for 30 min is
        // 1.8·10^9: 180 s at 10^7 a second.
        assert_eq!(traffic_notice(&traffic(1e7, Some(10), 20)), None);
        let notice = traffic_notice(&traffic(1e6, Some(1800), 20)).unwrap();
        assert!(
            notice.starts_with(
                "traffic.rate sends about 1,800,000,000 requests in one run (traffic.rate × traffic.duration): \
                 about 3 min of simulation"
            ),
            "{notice}"
        );
        // A TOML scenario that simulates each request carries it; counted
        // (`auto`, one client), the run costs the same at any rate: none.
        let toml = "[service]\n[traffic]\nrate = 1000000\nduration = \"30m\"\nmodel = \"per-request\"\n\
                    [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n";
        let notices = |toml: &str| {
            let scenario = crate::scenario::Scenario::parse(toml, "slow.toml").unwrap();
            scenario.notices.iter().map(|n| n.to_string()).collect::<Vec<_>>()
        };
        let slow = notices(toml);
        assert!(
            slow.iter().any(|n| n.contains("about 3 min of simulation")),
            "{slow:?}"
        );
        let counted = notices(&toml.replace("model = \"per-request\"\n", ""));
        assert!(counted.is_empty(), "{counted:?}");
    }

    #[test]
    fn a_counted_run_is_never_over_the_request_budget_and_a_blocked_one_says_why() {
        // 10^9 a second: 10^10 requests, past the budget one by one.
        let mut service = ServiceSpec {
            traffic: Some(traffic(1e9, None, 20)),
            ..ServiceSpec::default()
        };
        service.traffic.as_mut().unwrap().clients = 1;
        assert!(service.counts());
        assert_eq!(check_work(&service), Ok(()));
        // Three clients on three nodes, each request's client drawn: counted.
        service.traffic.as_mut().unwrap().clients = 3;
        assert!(service.counts());
        assert_eq!(check_work(&service), Ok(()));
        // Constant arrivals: per-request, refused, with the reason.
        service.traffic.as_mut().unwrap().arrival = Arrival::Constant;
        assert!(!service.counts());
        assert!(check_work(&service).is_err());
        let notice = service.traffic_model_notice().unwrap();
        assert!(notice.contains("constant arrivals"), "{notice}");
    }
}
