//! How each key's value is written and read: the one `Unit` of every
//! field, kept apart from the key list so the list stays readable.

use crate::model::{ContainerKind, Drain, PodMode, PostStart, ProbeOutcome, RestartPolicy, Signal};

use crate::model::service::{
    Arrival, Balance, ClientPreset, Connections, EvictionPolicy, HopPreset, OnClosed, OnSigterm, Provider,
    ProxyMode, Retry, Strategy, TrafficModel,
};

use super::Field;
use crate::scenario::key::ProbeField;
use crate::scenario::key::unit::*;

impl Field {
    /// How the field's value is written and read.
    pub fn unit(self) -> Unit {
        match self {
            Field::Horizon
            | Field::TerminationGracePeriod
            | Field::StopAt
            | Field::StopAfterReady
            | Field::BackoffInitial
            | Field::BackoffCap
            | Field::KubeletDelay
            | Field::MinSyncPeriod
            | Field::Cleanup
            | Field::Duration
            | Field::ConnectTimeout
            | Field::HopConnectTimeout
            | Field::HopHealthInterval
            | Field::HopDeregistrationDelay
            | Field::HopBaseEjectionTime
            | Field::RetryBackoff
            | Field::IdleTimeout
            | Field::Timeout
            | Field::DrainDelay
            | Field::At
            | Field::AfterReady
            | Field::GracePeriod
            | Field::Every
            | Field::MinReadySeconds
            | Field::UnreadyFor
            | Field::NodeMonitorGracePeriod
            | Field::TolerationSeconds
            | Field::Notice
            | Field::LeaseRenewInterval
            | Field::NodeMonitorPeriod
            | Field::LeaseAge
            | Field::MonitorLag
            | Field::OutOfService
            | Field::ActionAt
            | Field::ActionAfterReady
            | Field::ActionGracePeriod
            | Field::ActionDown
            | Field::Stagger
            | Field::SyncTime
            | Field::LineCost
            | Field::FullSync => Unit::Millis,
            Field::Boot | Field::PreStop | Field::Run | Field::ServiceTime => Unit::Dist,
            Field::Drain => Unit::DistOrWord {
                word: Drain::NEVER,
                meaning: "for a process that ignores SIGTERM",
            },
            Field::PostStart => Unit::DistOrWord {
                word: PostStart::UNTIL_BOOTED,
                meaning: "for a hook that waits for its container to answer",
            },
            Field::ImagePull => Unit::Pulls,
            Field::Replicas
            | Field::Nodes
            | Field::Pool
            | Field::Clients
            | Field::Delete
            | Field::ConnectRetries
            | Field::ResetRetries
            | Field::StatusRetries
            | Field::HopTries
            | Field::HopUnhealthyThreshold
            | Field::HopConsecutive5xx => Unit::Count,
            Field::HopKind => Unit::Word {
                what: "hop kind",
                names: &HopPreset::NAMES,
            },
            Field::HopBalance => Unit::Word {
                what: "balance",
                names: &Balance::NAMES,
            },
            Field::HopPropagation => Unit::Propagation,
            Field::Client => Unit::Word {
                what: "client",
                names: &ClientPreset::NAMES,
            },
            Field::OnClosed => Unit::Word {
                what: "on_closed",
                names: &OnClosed::NAMES,
            },
            Field::TrafficModel => Unit::Word {
                what: "model",
                names: &TrafficModel::NAMES,
            },
            Field::Rate | Field::Churn => Unit::Rate,
            Field::ClusterServices | Field::ClusterEndpoints | Field::Rolling | Field::PodPriority => {
                Unit::Count
            }
            Field::ProxyMode => Unit::Word {
                what: "proxy_mode",
                names: &ProxyMode::NAMES,
            },
            Field::MaxSurge | Field::MaxUnavailable | Field::MinAvailable | Field::PdbMaxUnavailable => {
                Unit::Scaled
            }
            Field::DrainNode
            | Field::Unready
            | Field::Crash
            | Field::NodeFailure
            | Field::SpotReclaim
            | Field::ScaleTo
            | Field::Annotate
            | Field::DeletionCost
            | Field::NodeShutdown
            | Field::ScaleDownNode => Unit::Count,
            Field::ShutdownGracePeriod
            | Field::ShutdownGracePeriodCriticalPods
            | Field::MaxGracefulTerminationSec
            | Field::MaxPodEvictionTime
            | Field::EvictionRetryTime => Unit::Millis,
            Field::ShutdownGracePeriodByPodPriority => Unit::PriorityGroups,
            Field::Partition | Field::NodeDeleted => Unit::Flag,
            Field::Provider => Unit::Word {
                what: "provider",
                names: &Provider::NAMES,
            },
            Field::UnhealthyPodEvictionPolicy => Unit::Word {
                what: "unhealthy_pod_eviction_policy",
                names: &EvictionPolicy::NAMES,
            },
            Field::Rollout => Unit::Word {
                what: "rollout",
                names: &Strategy::NAMES,
            },
            Field::Propagation => Unit::Propagation,
            Field::Arrival => Unit::Word {
                what: "arrival",
                names: &Arrival::NAMES,
            },
            Field::Connections => Unit::Word {
                what: "connections",
                names: &Connections::NAMES,
            },
            Field::Retry => Unit::Word {
                what: "retry",
                names: &Retry::NAMES,
            },
            Field::OnSigterm => Unit::Word {
                what: "on_sigterm",
                names: &OnSigterm::NAMES,
            },
            Field::CrashAfter => Unit::DistList,
            Field::FailProbability => Unit::Probability,
            Field::Seed
            | Field::Fails
            | Field::ExitCode
            | Field::ExitCodeOnSigterm
            | Field::BackoffLimit
            | Field::BackoffLimitPerIndex => Unit::Count,
            Field::Proxy
            | Field::BackoffImmediateFirstRestart
            | Field::PostStartFails
            | Field::Idempotent
            | Field::HopConnectionTermination => Unit::Flag,
            Field::RestartPolicy | Field::ContainerRestartPolicy => Unit::Word {
                what: "restart_policy",
                names: &RestartPolicy::NAMES,
            },
            Field::StopSignal => Unit::Word {
                what: "stop_signal",
                names: &Signal::NAMES,
            },
            Field::DrainsOn => Unit::Word {
                what: "drains_on",
                names: &Signal::NAMES,
            },
            Field::Kind => Unit::Word {
                what: "kind",
                names: &ContainerKind::NAMES,
            },
            Field::Mode => Unit::Word {
                what: "mode",
                names: &PodMode::NAMES,
            },
            Field::Kubernetes => Unit::Version,
            Field::Probe(_, field) => match field {
                ProbeField::SuccessThreshold | ProbeField::FailureThreshold => Unit::Count,
                ProbeField::Outcome => Unit::Word {
                    what: "outcome",
                    names: &ProbeOutcome::NAMES,
                },
                _ => Unit::Millis,
            },
        }
    }
}
