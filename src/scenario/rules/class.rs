//! A grid's shortcut to the rules: the class of an axis value as far as
//! `check_spec` can tell, so a grid is checked one value per class instead
//! of running every combination. Kept beside the rules it must follow.

use crate::model::{Backoff, KubeVersion, Signal};

use crate::scenario::key::{Field, ProbeField, service_field};

/// For checking a grid without running every combination: the class of
/// `encoded` (a value of `field` as an axis holds it) as far as
/// `check_spec` can tell — values of one class pass or fail the same rules —
/// or `None` if the field cannot affect any rule. `check_spec` looks only at
/// kinds, the proxy flag, whether exit_code is zero, whether run,
/// fails and fail_probability are (zero),
/// crash_after and pre_stop are present, probe periods and timeouts under
/// a second, the lengths the API keeps in whole seconds (the grace, the
/// probes' four) with a fraction, thresholds 0, 1 or more, and the Pod's mode, policy, version
/// and back-off delays (under a second, the default cap); keep the two in step.
pub fn rule_class(field: Field, encoded: u64) -> Option<u64> {
    let second = 1000;
    // The API keeps these lengths in whole seconds (a range's first two
    // values show whether its step has a fraction).
    let fraction = u64::from(!encoded.is_multiple_of(second));
    match field {
        Field::TerminationGracePeriod => Some(fraction),
        Field::Kind | Field::Proxy | Field::Mode | Field::ContainerRestartPolicy => Some(encoded),
        Field::StopSignal => Some(u64::from(encoded != Signal::Term as u64)),
        Field::ExitCode => Some(encoded.min(256).div_ceil(255)),
        Field::ExitCodeOnSigterm => Some(u64::from(encoded > 255)),
        // Present whatever the value (a preStop of 0 s is a hook, R58): only
        // the container's kind decides.
        Field::Run | Field::CrashAfter | Field::PreStop | Field::PostStart => Some(0),
        Field::PostStartFails => Some(encoded),
        // Whether a failure is scripted: `exit_code` needs one, or `run`.
        Field::Fails | Field::FailProbability => Some(u64::from(encoded != 0)),
        Field::Probe(_, field) => Some(match field {
            ProbeField::Outcome | ProbeField::PassAfter | ProbeField::PassUntil => 0,
            ProbeField::InitialDelay | ProbeField::TerminationGracePeriod => fraction,
            ProbeField::Period | ProbeField::Timeout => u64::from(encoded >= second) + 2 * fraction,
            ProbeField::SuccessThreshold | ProbeField::FailureThreshold => encoded.min(2),
        }),
        Field::RestartPolicy => Some(u64::from(encoded == 0)),
        Field::Kubernetes => {
            let version = KubeVersion(encoded as u32);
            let cap = version.configurable_backoff_cap().is_some();
            let own_policy = version.has_container_restart_policy();
            let signals = version.has_stop_signals();
            let restart_all = version.has_restart_all_containers();
            Some(
                u64::from(restart_all) * 16
                    + u64::from(signals) * 8
                    + u64::from(own_policy) * 4
                    + u64::from(version.has_native_sidecars()) * 2
                    + u64::from(cap),
            )
        }
        Field::BackoffCap => {
            Some(u64::from(encoded == Backoff::default().cap.as_millis()) + 2 * u64::from(encoded >= second))
        }
        Field::BackoffInitial => Some(u64::from(encoded >= second)),
        Field::Horizon
        | Field::Seed
        | Field::StopAt
        | Field::StopAfterReady
        | Field::BackoffImmediateFirstRestart
        | Field::Boot
        | Field::Drain
        | Field::DrainsOn
        | Field::ImagePull
        | Field::ActionAt
        | Field::ActionAfterReady
        | Field::ActionGracePeriod
        | Field::ActionDown => None,
        // The Service's rules (`rules::service`) check axes value by value.
        service_field!() => None,
        // The Job's rules (`rules::job`) are checked on the base.
        Field::BackoffLimit | Field::BackoffLimitPerIndex => None,
    }
}
