//! The question `advise` asks of a Service scenario that asks none: a
//! Deployment's manifest, as published, has no client and deletes no Pod,
//! and "nothing to change" would then be the answer to a question the
//! user never asked. A preStop and a grace exist for requests that reach
//! a Pod going away, so the search needs both; where the scenario leaves
//! one out, advise assumes the one `podsim run`'s notice already suggests
//! (50 requests a second; one `kubectl delete` of replica 0, 10 s after
//! the Service is Ready) and says so, with the keys that ask the user's
//! own question instead.

use crate::engine::SimDuration;
use crate::model::service::{Disruption, Rate, ServiceSpec, TrafficSpec, When};

/// The assumed rate: the figure `run`'s notice suggests, high enough that
/// a 1 s race meets requests in nearly every replication (e^−50 misses).
pub const ASSUMED_RATE: f64 = 50.0;

/// The assumed delete comes this long after the Service is first Ready on
/// every node: traffic has settled, as it has before a real delete.
pub const ASSUMED_AFTER_READY: SimDuration = SimDuration::from_secs(10);

/// Fills in the traffic and the disruption `service` leaves out, and
/// returns what was assumed, one sentence each (empty: nothing was).
pub fn assume_question(service: &mut ServiceSpec) -> Vec<String> {
    let mut assumed = Vec::new();
    if service.traffic.is_none() {
        let rate = Rate::new(ASSUMED_RATE).expect("a positive rate");
        service.traffic = Some(TrafficSpec {
            rate,
            ..TrafficSpec::default()
        });
        assumed.push(format!(
            "no client sends the Service requests, so advise assumes {ASSUMED_RATE} a second from one client \
             on new connections (set traffic.rate and the [traffic] keys to ask about your own)"
        ));
    }
    if service.disruptions.is_empty() {
        service.disruptions.push(Disruption {
            when: When::AfterReady(ASSUMED_AFTER_READY),
            ..Disruption::default()
        });
        assumed.push(format!(
            "no Pod of the Service is ever deleted, so advise assumes one `kubectl delete` of replica 0, \
             {ASSUMED_AFTER_READY} after the Service is Ready (declare disruptions.0.* — a rollout, a drain, \
             a lost node — to ask about your own)"
        ));
    }
    assumed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scenario_that_asks_nothing_gets_the_suggested_question_and_one_that_asks_keeps_its_own() {
        let mut bare = ServiceSpec::default();
        let said = assume_question(&mut bare);
        assert_eq!(said.len(), 2);
        assert_eq!(bare.traffic.as_ref().map(|t| t.rate.get()), Some(50.0));
        assert_eq!(bare.disruptions.len(), 1);
        assert_eq!(
            bare.disruptions[0].when,
            When::AfterReady(SimDuration::from_secs(10))
        );
        assert_eq!(bare.disruptions[0].replica, 0);
        assert!(bare.disruptions[0].rollout.is_none() && bare.disruptions[0].drain.is_none());

        let asked = bare.clone();
        assert!(assume_question(&mut bare).is_empty());
        assert!(bare == asked);
    }
}
