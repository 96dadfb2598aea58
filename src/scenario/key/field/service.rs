//! The Service's fields as one pattern, for the matches that must treat
//! them alike and stay exhaustive (see `service_field!`).

/// The fields of the Service's scopes (`Scope::SERVICE`), as a pattern.
/// `Key::set` hands them to the Service's setter and `rules::rule_class`
/// leaves them to the Service's own checks; a pattern rather than a
/// predicate so both matches stay exhaustive and a new field must be placed.
macro_rules! service_field {
    () => {
        $crate::scenario::key::Field::Replicas
            | $crate::scenario::key::Field::Nodes
            | $crate::scenario::key::Field::Propagation
            | $crate::scenario::key::Field::KubeletDelay
            | $crate::scenario::key::Field::MinSyncPeriod
            | $crate::scenario::key::Field::Cleanup
            | $crate::scenario::key::Field::PodPriority
            | $crate::scenario::key::Field::Rate
            | $crate::scenario::key::Field::Arrival
            | $crate::scenario::key::Field::Connections
            | $crate::scenario::key::Field::Pool
            | $crate::scenario::key::Field::Clients
            | $crate::scenario::key::Field::ServiceTime
            | $crate::scenario::key::Field::Retry
            | $crate::scenario::key::Field::Duration
            | $crate::scenario::key::Field::ConnectTimeout
            | $crate::scenario::key::Field::Client
            | $crate::scenario::key::Field::OnClosed
            | $crate::scenario::key::Field::ConnectRetries
            | $crate::scenario::key::Field::ResetRetries
            | $crate::scenario::key::Field::RetryBackoff
            | $crate::scenario::key::Field::IdleTimeout
            | $crate::scenario::key::Field::Timeout
            | $crate::scenario::key::Field::Idempotent
            | $crate::scenario::key::Field::TrafficModel
            | $crate::scenario::key::Field::OnSigterm
            | $crate::scenario::key::Field::DrainDelay
            | $crate::scenario::key::Field::At
            | $crate::scenario::key::Field::AfterReady
            | $crate::scenario::key::Field::Delete
            | $crate::scenario::key::Field::GracePeriod
            | $crate::scenario::key::Field::Every
            | $crate::scenario::key::Field::Rollout
            | $crate::scenario::key::Field::MaxSurge
            | $crate::scenario::key::Field::MaxUnavailable
            | $crate::scenario::key::Field::MinReadySeconds
            | $crate::scenario::key::Field::DrainNode
            | $crate::scenario::key::Field::Unready
            | $crate::scenario::key::Field::UnreadyFor
            | $crate::scenario::key::Field::Crash
            | $crate::scenario::key::Field::NodeFailure
            | $crate::scenario::key::Field::Partition
            | $crate::scenario::key::Field::NodeMonitorGracePeriod
            | $crate::scenario::key::Field::TolerationSeconds
            | $crate::scenario::key::Field::SpotReclaim
            | $crate::scenario::key::Field::Provider
            | $crate::scenario::key::Field::Notice
            | $crate::scenario::key::Field::LeaseRenewInterval
            | $crate::scenario::key::Field::NodeMonitorPeriod
            | $crate::scenario::key::Field::LeaseAge
            | $crate::scenario::key::Field::MonitorLag
            | $crate::scenario::key::Field::NodeDeleted
            | $crate::scenario::key::Field::OutOfService
            | $crate::scenario::key::Field::ScaleTo
            | $crate::scenario::key::Field::Annotate
            | $crate::scenario::key::Field::DeletionCost
            | $crate::scenario::key::Field::NodeShutdown
            | $crate::scenario::key::Field::ShutdownGracePeriod
            | $crate::scenario::key::Field::ShutdownGracePeriodCriticalPods
            | $crate::scenario::key::Field::ShutdownGracePeriodByPodPriority
            | $crate::scenario::key::Field::ScaleDownNode
            | $crate::scenario::key::Field::MaxGracefulTerminationSec
            | $crate::scenario::key::Field::MaxPodEvictionTime
            | $crate::scenario::key::Field::EvictionRetryTime
            | $crate::scenario::key::Field::MinAvailable
            | $crate::scenario::key::Field::PdbMaxUnavailable
            | $crate::scenario::key::Field::UnhealthyPodEvictionPolicy
            | $crate::scenario::key::Field::StatusRetries
            | $crate::scenario::key::Field::HopKind
            | $crate::scenario::key::Field::HopPropagation
            | $crate::scenario::key::Field::HopBalance
            | $crate::scenario::key::Field::HopTries
            | $crate::scenario::key::Field::HopConnectTimeout
            | $crate::scenario::key::Field::HopHealthInterval
            | $crate::scenario::key::Field::HopUnhealthyThreshold
            | $crate::scenario::key::Field::HopDeregistrationDelay
            | $crate::scenario::key::Field::HopConnectionTermination
            | $crate::scenario::key::Field::HopConsecutive5xx
            | $crate::scenario::key::Field::HopBaseEjectionTime
            | $crate::scenario::key::Field::ClusterServices
            | $crate::scenario::key::Field::ClusterEndpoints
            | $crate::scenario::key::Field::Churn
            | $crate::scenario::key::Field::Rolling
            | $crate::scenario::key::Field::Stagger
            | $crate::scenario::key::Field::ProxyMode
            | $crate::scenario::key::Field::SyncTime
            | $crate::scenario::key::Field::LineCost
            | $crate::scenario::key::Field::FullSync
    };
}
pub(crate) use service_field;
