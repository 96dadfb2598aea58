//! What the Pod model works out from a spec's shape rather than from its
//! durations: counted once per shape, read at every event that needs it.

use super::spec::{ContainerKind, ContainerSpec, ImagePull, PodSpec};

/// What the model works out from the spec's shape: the containers'
/// kinds, proxies, probes and image pulls, and the Pod's actions. A sweep
/// changes mostly durations, which leave it as it was, so it is worked
/// out again only when the spec may have changed shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// Apps and sidecars: the Pod is Ready when this many are (R22).
    pub(super) needed_for_ready: u32,
    /// App containers (R43).
    pub(super) apps: u32,
    /// Some container's image pull may fail (R67): only then does a start
    /// look at pulls, so a sweep without them pays nothing for it.
    pub(super) pulls_may_fail: bool,
    /// Exposure is measured (`PodSpec::measures_exposure`).
    pub(super) measures_exposure: bool,
    /// Some container may get a probe worker: it has probes, or the Pod
    /// has actions (an image update may bring probes, R71).
    pub(super) may_probe: bool,
}

impl Shape {
    pub(super) fn of(pod: &PodSpec) -> Shape {
        let count =
            |kind: fn(ContainerKind) -> bool| pod.containers.iter().filter(|c| kind(c.kind)).count() as u32;
        Shape {
            needed_for_ready: count(|k| k != ContainerKind::Init),
            apps: count(|k| k == ContainerKind::App),
            pulls_may_fail: pod.containers.iter().any(|c| c.image_pull != ImagePull::Pulls),
            measures_exposure: pod.measures_exposure(),
            may_probe: !pod.actions.is_empty() || pod.containers.iter().any(ContainerSpec::has_probes),
        }
    }
}
