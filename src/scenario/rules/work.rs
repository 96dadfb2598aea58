//! The work estimate of a Service run, for what Kubernetes does not bound
//! (`key::limit` holds what it does): the requests a run simulates one by
//! one, from `traffic.rate` × `traffic.duration`, and the requests in
//! flight at once, from the rate × the median `service_time`. Past either
//! budget a run would take hours or fill memory (`traffic.rate = 1e9`
//! once asked for 1.3 GB at once and aborted), so it is refused before it
//! starts, at the key that lowers it. A run within the budget that still
//! takes a while (past `NOTICE_REQUESTS`) gets a notice of how long.
//!
//! Invariant: the estimate only ever errs low (a run without a
//! `duration` sends for at least its `SETTLE_TAIL`), so a refused run is
//! over its budget for sure; what runs is bounded by the engine's limits
//! (a stop request, `serve`'s event budget).

use crate::model::service::{SETTLE_TAIL, TrafficSpec};
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

/// What a run's traffic is over budget by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OverBudget {
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

/// Whether `traffic` stays within both budgets.
pub fn check_work(traffic: &TrafficSpec) -> Result<(), OverBudget> {
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

/// The notice for a run within the budget that still takes a while: the
/// estimate, the time it takes, and the keys that shorten it.
pub fn work_notice(traffic: &TrafficSpec) -> Option<String> {
    let requests = requests(traffic);
    if requests <= NOTICE_REQUESTS {
        return None;
    }
    let time = match requests / REQUESTS_PER_SECOND {
        s if s < 120 => format!("{s} s"),
        s => format!("{} min", s / 60),
    };
    let timed = traffic.duration.is_some();
    Some(format!(
        "traffic.rate sends about {} requests in one run ({}): about {time} of simulation at ten million \
         a second (Ctrl-C stops it); {} for a quicker answer",
        grouped(requests),
        how(timed),
        lower(timed),
    ))
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
    use crate::model::service::Rate;

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
            check_work(&huge),
            Err(OverBudget::Requests {
                requests: 10_000_000_000,
                timed: false
            })
        );
        // 1e9/s for 1 s: 1e9 requests fit, 2e7 in flight do not.
        assert_eq!(
            check_work(&traffic(1e9, Some(1), 20)),
            Err(OverBudget::InFlight(20_000_000))
        );
        // A million a second for 30 min: 1.8e9, 20,000 in flight.
        assert_eq!(check_work(&traffic(1e6, Some(1800), 20)), Ok(()));
        // For an hour: 3.6e9.
        assert!(matches!(
            check_work(&traffic(1e6, Some(3600), 20)),
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
        assert_eq!(work_notice(&traffic(1e7, Some(10), 20)), None);
        let notice = work_notice(&traffic(1e6, Some(1800), 20)).unwrap();
        assert!(
            notice.starts_with(
                "traffic.rate sends about 1,800,000,000 requests in one run (traffic.rate × traffic.duration): \
                 about 3 min of simulation"
            ),
            "{notice}"
        );
        // A TOML scenario carries it.
        let toml = "[service]\n[traffic]\nrate = 1000000\nduration = \"30m\"\n\
                    [[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n";
        let scenario = crate::scenario::Scenario::parse(toml, "slow.toml").unwrap();
        assert!(
            scenario
                .notices
                .iter()
                .any(|n| n.to_string().contains("about 3 min of simulation")),
            "{:?}",
            scenario.notices
        );
    }
}
