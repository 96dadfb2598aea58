//! Where a proxy sits: side by side with the app (a `containers` entry) or
//! as a native sidecar (an `initContainers` entry with `restartPolicy:
//! Always`, KEP-753), and moving it from one to the other on a `RunSpec`
//! the way the patch moves it in the manifest.
//!
//! Why a room of its own: the Pod's start and a Job both advise the move,
//! and the move must be the same in the simulation as in the patch. A
//! strategic merge appends an entry it adds to a list merged by name after
//! the list's own entries (the `$patch: delete` in `containers` removes the
//! old one), so the native sidecar starts after every init container the
//! Pod already has; `native` puts it there in podsim's declaration order
//! too, and renumbers what names containers by index (actions, the Job's
//! `podFailurePolicy` rules).
//!
//! Invariant: `native` changes nothing but the container's place and kind
//! and the fields a native sidecar cannot have (its own restart policy;
//! a `run` that stands for the app killing a side-by-side proxy when it
//! is done, which the kubelet's stop of a native sidecar replaces, R43).

use crate::model::job::Requirement;
use crate::model::{ActionKind, ContainerId, ContainerKind, KubeVersion, RunSpec};

/// A proxy's place in the Pod.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// In `containers`, started with the apps.
    SideBySide,
    /// In `initContainers` with `restartPolicy: Always`.
    Native,
}

impl Layout {
    /// How the table names it.
    pub fn name(self) -> &'static str {
        match self {
            Layout::SideBySide => "side by side",
            Layout::Native => "native sidecar",
        }
    }

    /// The layout of a container of `kind`.
    pub fn of(kind: ContainerKind) -> Layout {
        match kind {
            ContainerKind::Sidecar => Layout::Native,
            _ => Layout::SideBySide,
        }
    }
}

/// Whether advice may move a proxy to a native sidecar on `version`: on
/// by default (1.29 on), not behind 1.28's alpha gate.
pub fn native_available(version: KubeVersion) -> bool {
    version.native_sidecars_by_default()
}

/// `run` with container `index` moved to `layout`: a native sidecar after
/// the last init container or sidecar, or an app after the last app.
pub fn with_layout(run: &RunSpec, index: usize, layout: Layout) -> RunSpec {
    let mut out = run.clone();
    let pod = &mut out.pod;
    let mut moved = pod.containers.remove(index);
    let is_init = |k: ContainerKind| k != ContainerKind::App;
    let to = match layout {
        Layout::Native => {
            moved.kind = ContainerKind::Sidecar;
            moved.restart_policy = None;
            moved.run = None;
            pod.containers
                .iter()
                .rposition(|c| is_init(c.kind))
                .map_or(0, |i| i + 1)
        }
        Layout::SideBySide => {
            moved.kind = ContainerKind::App;
            pod.containers.len()
        }
    };
    pod.containers.insert(to, moved);
    // Old index → new index: the entries between the two places shift by one.
    let renumber = |id: ContainerId| {
        let i = id.index();
        let j = match i {
            _ if i == index => to,
            _ if index < to && i > index && i <= to => i - 1,
            _ if to < index && i >= to && i < index => i + 1,
            _ => i,
        };
        ContainerId(j as u32)
    };
    for action in &mut pod.actions {
        if let ActionKind::UpdateImage { container, .. } = &mut action.kind {
            *container = renumber(*container);
        }
    }
    for rule in &mut out.job.pod_failure_policy {
        if let Requirement::ExitCodes {
            container: Some(c), ..
        } = &mut rule.on
        {
            *c = renumber(*c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;
    use crate::model::job::{Action, FailureRule};
    use crate::model::{ContainerSpec, PodSpec};

    #[test]
    fn a_native_move_lands_after_the_init_containers_and_renumbers_the_rules() {
        let c = |name, kind| ContainerSpec::new(name, kind, SimDuration::ZERO);
        let mut run = RunSpec::new(PodSpec::new(vec![
            c("fetch", ContainerKind::Init),
            c("main", ContainerKind::App),
            c("proxy", ContainerKind::App),
        ]));
        run.job.pod_failure_policy = vec![
            FailureRule::on_exit_codes(Action::FailJob, Some(ContainerId(1)), true, &[42]),
            FailureRule::on_exit_codes(Action::Ignore, Some(ContainerId(2)), true, &[143]),
        ];
        let native = with_layout(&run, 2, Layout::Native);
        let names: Vec<&str> = native.pod.containers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["fetch", "proxy", "main"]);
        assert_eq!(native.pod.containers[1].kind, ContainerKind::Sidecar);
        let named = |run: &RunSpec, i: usize| match &run.job.pod_failure_policy[i].on {
            Requirement::ExitCodes { container, .. } => container.map(|c| run.pod.container(c).name.clone()),
            Requirement::PodConditions(_) => None,
        };
        assert_eq!(named(&native, 0).as_deref(), Some("main"));
        assert_eq!(named(&native, 1).as_deref(), Some("proxy"));
        // And back: an app after the last app.
        let back = with_layout(&native, 1, Layout::SideBySide);
        let names: Vec<&str> = back.pod.containers.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["fetch", "main", "proxy"]);
        assert_eq!(named(&back, 1).as_deref(), Some("proxy"));
    }
}
