//! Which Kubernetes release's kubelet a Pod runs under, and what each
//! release can do: the version facts the rules (`scenario::rules`) and the
//! model (sidecar ordering, the back-off cap) ask, in one place.
//!
//! Invariant: a feature's first release is written once, here; every check
//! of it is one of these methods.

/// The Kubernetes minor version whose kubelet is simulated (1.x).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct KubeVersion(pub u32);

impl KubeVersion {
    /// The newest release `docs/kubelet-rules.md` describes.
    pub const NEWEST: KubeVersion = KubeVersion(36);
    /// The oldest release podsim knows.
    pub const OLDEST: KubeVersion = KubeVersion(20);

    /// Native sidecars exist from 1.28 (alpha, gate SidecarContainers; on by default from 1.29).
    pub fn has_native_sidecars(self) -> bool {
        self.0 >= 28
    }

    /// Native sidecars are on by default from 1.29 (beta; GA 1.33): what
    /// advice may count on, where 1.28 needs a gate a cluster rarely turns on.
    pub fn native_sidecars_by_default(self) -> bool {
        self.0 >= 29
    }

    /// The preStop `sleep` action (KEP-3960) is on by default from 1.30
    /// (alpha 1.29 behind PodLifecycleSleepAction, beta 1.30, GA 1.34);
    /// before, a sleep needs an `exec` of the image's own `sleep`.
    pub fn has_sleep_action(self) -> bool {
        self.0 >= 30
    }

    /// A container's own `restartPolicy` and rules exist from 1.34 (alpha,
    /// ContainerRestartRules; on by default from 1.35), R60.
    pub fn has_container_restart_policy(self) -> bool {
        self.0 >= 34
    }

    /// `lifecycle.stopSignal` exists from 1.33 (KEP-4960, alpha, gate
    /// ContainerStopSignals, off by default through 1.36), R59.
    pub fn has_stop_signals(self) -> bool {
        self.0 >= 33
    }

    /// The `RestartAllContainers` rule action exists from 1.35 (KEP-5532,
    /// alpha, gate RestartAllContainersOnContainerExits; on by default from
    /// 1.36), R61.
    pub fn has_restart_all_containers(self) -> bool {
        self.0 >= 35
    }

    /// Sidecars are stopped after the apps, in reverse order, from 1.29 (R36).
    pub fn orders_sidecar_termination(self) -> bool {
        self.0 >= 29
    }

    /// `crashLoopBackOff.maxContainerRestartPeriod` exists from 1.32 (alpha)
    /// and is on by default from 1.35 (R18).
    pub fn configurable_backoff_cap(self) -> Option<&'static str> {
        match self.0 {
            0..=31 => None,
            32..=34 => Some("alpha: needs the KubeletCrashLoopBackOffMax feature gate"),
            _ => Some("beta, on by default"),
        }
    }
}

impl Default for KubeVersion {
    fn default() -> Self {
        KubeVersion::NEWEST
    }
}
