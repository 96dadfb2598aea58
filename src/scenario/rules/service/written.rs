//! The keys written together in one `[[disruptions]]` entry, checked
//! before they are set: what only a reader sees, since the spec they make
//! no longer tells. `delete` has a default (replica 0), so a delete beside
//! another kind's key would vanish into that kind; and a spot reclaim's
//! `provider` or `notice` would turn a written `node_failure` into a spot
//! reclaim.
//!
//! Invariant: the TOML reader and the manifest's annotations and timings
//! file ask this one function, with the keys of each disruption, so a
//! scenario and a manifest refuse the same entries with the same words.

use crate::scenario::key::{DisruptionKind, Field};

use super::one_replica_kind;

/// The keys of a disruption that affects one replica or one node, other
/// than a lost node's: each makes the disruption its kind.
const ONE_REPLICA: [Field; 14] = [
    Field::Unready,
    Field::UnreadyFor,
    Field::Crash,
    Field::ScaleTo,
    Field::Annotate,
    Field::DeletionCost,
    Field::NodeShutdown,
    Field::ShutdownGracePeriod,
    Field::ShutdownGracePeriodCriticalPods,
    Field::ShutdownGracePeriodByPodPriority,
    Field::ScaleDownNode,
    Field::MaxGracefulTerminationSec,
    Field::MaxPodEvictionTime,
    Field::EvictionRetryTime,
];

/// The keys that name a kind, each with its own settings: a setting
/// written alone would make a disruption of node 0 that nobody asked
/// for (a lost node's settings are the registry's, `disruption_kind`).
const SETTINGS: [(&[Field], &[Field]); 2] = [
    (
        &[Field::NodeShutdown],
        &[
            Field::ShutdownGracePeriod,
            Field::ShutdownGracePeriodCriticalPods,
            Field::ShutdownGracePeriodByPodPriority,
        ],
    ),
    (
        &[Field::ScaleDownNode],
        &[
            Field::MaxGracefulTerminationSec,
            Field::MaxPodEvictionTime,
            Field::EvictionRetryTime,
        ],
    ),
];

/// The keys that name the kind `setting` belongs to, if it is a setting
/// of a kind that must be named (`None` for a naming key or any other).
pub fn named_by(setting: Field) -> Option<&'static [Field]> {
    const LOST_NAMED: [Field; 2] = [Field::NodeFailure, Field::SpotReclaim];
    if setting.disruption_kind() == Some(DisruptionKind::Node) {
        return (!LOST_NAMED.contains(&setting)).then_some(&LOST_NAMED[..]);
    }
    SETTINGS
        .iter()
        .find(|(_, settings)| settings.contains(&setting))
        .map(|&(named, _)| named)
}

/// A setting written without the key that names its kind, and that key.
fn setting_alone(written: &[Field]) -> Option<(Field, Field)> {
    written.iter().find_map(|&f| match named_by(f) {
        Some(named) if !named.iter().any(|n| written.contains(n)) => Some((f, named[0])),
        _ => None,
    })
}

/// `written`, the keys of one disruption, against the rules above: the key
/// to point at and the message (without the `disruption N: ` context).
pub fn check_written(written: &[Field]) -> Result<(), (Field, String)> {
    let has = |f: Field| written.contains(&f);
    // Any of a lost node's keys (the registry's one list) makes the
    // disruption a lost node.
    let lost = |f: &Field| f.disruption_kind() == Some(DisruptionKind::Node);
    let other = ONE_REPLICA.into_iter().find(|&f| has(f));
    let other = other.or_else(|| written.iter().copied().find(lost));
    if let (true, Some(key)) = (has(Field::Delete), other) {
        let what = match lost(&key) {
            true => DisruptionKind::Node.name(),
            false => one_replica_kind(key),
        };
        return Err((
            Field::Delete,
            format!(
                "{} makes this disruption {what}, and delete a kubectl delete; write them as two disruptions",
                key.leaf()
            ),
        ));
    }
    if let Some((setting, named)) = setting_alone(written) {
        let how = match named {
            Field::NodeFailure => "node_failure = <node> (or spot_reclaim = <node>)".to_string(),
            _ => format!("{} = <node>", named.leaf()),
        };
        return Err((
            setting,
            format!(
                "{} is a setting of {}, which this disruption does not name; write {how} beside it",
                setting.leaf(),
                one_replica_kind_or_lost(setting)
            ),
        ));
    }
    if !has(Field::NodeFailure) {
        return Ok(());
    }
    if has(Field::SpotReclaim) {
        return Err((
            Field::SpotReclaim,
            "node_failure and spot_reclaim both name the node to lose; keep node_failure for a node that \
             fails without warning, or spot_reclaim for one taken back after a notice"
                .into(),
        ));
    }
    match [Field::Provider, Field::Notice].into_iter().find(|&f| has(f)) {
        Some(key) => Err((
            key,
            format!(
                "{} is a spot reclaim's, and node_failure makes this disruption a node that fails without \
                 warning; write spot_reclaim instead of node_failure for a notice, or drop {}",
                key.leaf(),
                key.leaf()
            ),
        )),
        None => Ok(()),
    }
}

/// A key's kind as a message names it: a lost node, or a one-replica kind.
fn one_replica_kind_or_lost(key: Field) -> &'static str {
    match key.disruption_kind() {
        Some(DisruptionKind::Node) => DisruptionKind::Node.name(),
        _ => one_replica_kind(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_delete_beside_another_kind_and_a_failure_with_a_notice_are_refused() {
        let e = |w: &[Field]| check_written(w).unwrap_err();
        assert_eq!(e(&[Field::Delete, Field::Provider]).0, Field::Delete);
        assert!(
            e(&[Field::Delete, Field::Partition])
                .1
                .starts_with("partition makes this disruption a lost node")
        );
        assert!(
            e(&[Field::Crash, Field::Delete])
                .1
                .starts_with("crash makes this disruption a crash")
        );
        assert_eq!(e(&[Field::NodeFailure, Field::Notice]).0, Field::Notice);
        assert_eq!(e(&[Field::NodeFailure, Field::SpotReclaim]).0, Field::SpotReclaim);
        // The node monitor's and the garbage collection's keys are a lost node's too.
        assert_eq!(e(&[Field::Delete, Field::OutOfService]).0, Field::Delete);
        assert_eq!(e(&[Field::LeaseAge, Field::Delete]).0, Field::Delete);
        // A setting without the key that names its kind.
        let alone = e(&[Field::Partition]);
        assert_eq!(alone.0, Field::Partition);
        assert!(alone.1.contains("write node_failure = <node>"), "{}", alone.1);
        assert_eq!(e(&[Field::ShutdownGracePeriod]).0, Field::ShutdownGracePeriod);
        assert!(
            e(&[Field::EvictionRetryTime])
                .1
                .ends_with("write scale_down_node = <node> beside it")
        );
        for fine in [
            &[Field::NodeShutdown, Field::ShutdownGracePeriod][..],
            &[Field::ScaleDownNode, Field::MaxPodEvictionTime],
            &[Field::SpotReclaim, Field::LeaseAge],
            &[Field::Delete, Field::GracePeriod],
            &[Field::SpotReclaim, Field::Provider, Field::Notice],
            &[Field::NodeFailure, Field::Partition, Field::TolerationSeconds],
        ] {
            assert_eq!(check_written(fine), Ok(()), "{fine:?}");
        }
    }
}
