//! The scope table: which table of a scenario each field belongs to. One
//! exhaustive match, so a new field must be placed; `Field::find` looks a
//! key up only in its own table.

use super::Field;
use crate::scenario::key::Scope;

impl Field {
    /// Whether the field belongs to the run, the Pod or a container.
    pub fn scope(self) -> Scope {
        match self {
            Field::Horizon | Field::Seed => Scope::Run,
            Field::RestartPolicy
            | Field::TerminationGracePeriod
            | Field::StopAt
            | Field::StopAfterReady
            | Field::Mode
            | Field::Kubernetes
            | Field::BackoffInitial
            | Field::BackoffCap
            | Field::BackoffImmediateFirstRestart => Scope::Pod,
            Field::Kind
            | Field::Boot
            | Field::Drain
            | Field::PreStop
            | Field::Fails
            | Field::FailProbability
            | Field::Proxy
            | Field::CrashAfter
            | Field::Run
            | Field::ExitCode
            | Field::ContainerRestartPolicy
            | Field::ExitCodeOnSigterm
            | Field::StopSignal
            | Field::DrainsOn
            | Field::PostStart
            | Field::PostStartFails
            | Field::ImagePull
            | Field::Probe(..) => Scope::Container,
            Field::Replicas
            | Field::Nodes
            | Field::Propagation
            | Field::KubeletDelay
            | Field::MinSyncPeriod
            | Field::Cleanup
            | Field::PodPriority => Scope::Service,
            Field::Rate
            | Field::Arrival
            | Field::Connections
            | Field::Pool
            | Field::Clients
            | Field::ServiceTime
            | Field::Retry
            | Field::Duration
            | Field::ConnectTimeout
            | Field::Client
            | Field::OnClosed
            | Field::ConnectRetries
            | Field::ResetRetries
            | Field::RetryBackoff
            | Field::IdleTimeout
            | Field::Timeout
            | Field::Idempotent
            | Field::StatusRetries
            | Field::TrafficModel => Scope::Traffic,
            Field::HopKind
            | Field::HopPropagation
            | Field::HopBalance
            | Field::HopTries
            | Field::HopConnectTimeout
            | Field::HopHealthInterval
            | Field::HopUnhealthyThreshold
            | Field::HopDeregistrationDelay
            | Field::HopConnectionTermination
            | Field::HopConsecutive5xx
            | Field::HopBaseEjectionTime => Scope::Hop,
            Field::OnSigterm | Field::DrainDelay => Scope::App,
            Field::At
            | Field::AfterReady
            | Field::Delete
            | Field::GracePeriod
            | Field::Every
            | Field::Rollout
            | Field::MaxSurge
            | Field::MaxUnavailable
            | Field::MinReadySeconds
            | Field::DrainNode
            | Field::Unready
            | Field::UnreadyFor
            | Field::Crash
            | Field::NodeFailure
            | Field::Partition
            | Field::NodeMonitorGracePeriod
            | Field::TolerationSeconds
            | Field::SpotReclaim
            | Field::Provider
            | Field::Notice
            | Field::LeaseRenewInterval
            | Field::NodeMonitorPeriod
            | Field::LeaseAge
            | Field::MonitorLag
            | Field::NodeDeleted
            | Field::OutOfService
            | Field::ScaleTo
            | Field::Annotate
            | Field::DeletionCost
            | Field::NodeShutdown
            | Field::ShutdownGracePeriod
            | Field::ShutdownGracePeriodCriticalPods
            | Field::ShutdownGracePeriodByPodPriority
            | Field::ScaleDownNode
            | Field::MaxGracefulTerminationSec
            | Field::MaxPodEvictionTime
            | Field::EvictionRetryTime => Scope::Disruption,
            Field::MinAvailable | Field::PdbMaxUnavailable | Field::UnhealthyPodEvictionPolicy => Scope::Pdb,
            Field::BackoffLimit | Field::BackoffLimitPerIndex => Scope::Job,
            Field::ActionAt | Field::ActionAfterReady | Field::ActionGracePeriod | Field::ActionDown => {
                Scope::Action
            }
            Field::ClusterServices
            | Field::ClusterEndpoints
            | Field::Churn
            | Field::Rolling
            | Field::Stagger
            | Field::ProxyMode
            | Field::SyncTime
            | Field::LineCost
            | Field::FullSync => Scope::Cluster,
        }
    }
}
