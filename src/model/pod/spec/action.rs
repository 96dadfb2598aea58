//! What a scenario scripts to happen to the Pod during a run (`[[actions]]`,
//! R70–R79): a deletion with its own grace, a container's new image, a
//! kubelet restart, a node reboot, each at a time or after the Pod is Ready.
//!
//! Invariant: an action is plain data the model reads when it is due; the
//! deletion shorthands (`stop_at`, `stop_after_ready`) stay in
//! `PodSpec::deletion`, so a spec without `[[actions]]` is the spec it was
//! (same events, same bytes, same grid hash), and `PodSpec::actions` holds
//! only what `[[actions]]` wrote, in the order written.

use super::{ContainerId, ContainerSpec};
use crate::engine::SimDuration;

/// When an action reaches the kubelet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ActionTime {
    /// This long after the Pod was created (`at`).
    At(SimDuration),
    /// This long after the Pod first became Ready (`after_ready`); never if
    /// it never does.
    AfterReady(SimDuration),
}

/// What the action does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ActionKind {
    /// `kubectl delete`, with `--grace-period` if given (R70): the first
    /// delete starts termination, a later one may only shorten the grace.
    Delete {
        /// `gracePeriodSeconds`; the Pod's `terminationGracePeriodSeconds` if `None`.
        grace_period: Option<SimDuration>,
    },
    /// The container's image is changed in the Pod's spec (R71–R73).
    UpdateImage {
        /// Whose image.
        container: ContainerId,
        /// The new image's timings, if `[actions.timings]` gave any; `None`
        /// runs the new image with the container's own.
        timings: Option<Box<ContainerSpec>>,
    },
    /// The kubelet restarts (R74, R75): containers run on, its probe
    /// workers start afresh.
    KubeletRestart {
        /// The runtime's records of completed init containers are gone too.
        forget_exited_init: bool,
    },
    /// The node reboots (R76–R79): the sandbox and every container stop at
    /// once; the kubelet is back `down` later and makes a new sandbox.
    NodeReboot {
        /// How long the node is gone (`down`, `NODE_DOWN` if not given).
        down: SimDuration,
    },
}

/// A node reboot's down time when `down` is not given: a VM's reboot and the
/// kubelet's start, and shorter than the node controller's
/// `node-monitor-grace-period` (40 s, 50 s from 1.32), so the node is never
/// marked NotReady and no taint-based eviction enters the picture (R76).
pub const NODE_DOWN: SimDuration = SimDuration::from_secs(30);

impl ActionKind {
    /// The key that names the action in a scenario.
    pub fn name(&self) -> &'static str {
        match self {
            ActionKind::Delete { .. } => "delete",
            ActionKind::UpdateImage { .. } => "update_image",
            ActionKind::KubeletRestart { .. } => "kubelet_restart",
            ActionKind::NodeReboot { .. } => "node_reboot",
        }
    }
}

/// One scripted action: when, and what.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TimedAction {
    /// When it reaches the kubelet.
    pub when: ActionTime,
    /// What it does.
    pub kind: ActionKind,
}
