//! The Pod's containers in model order — `initContainers`, then
//! `containers` — each with its kind (a native sidecar is an init
//! container whose `restartPolicy` is Always), and the checks the API
//! server makes of them before anything else is read: what a regular init
//! container may not have (R8), a container's own restart policy (R60),
//! a name and an image.
//!
//! Invariant: entry `i` is model container `i`, and carries its path in
//! the document for every later message about it.

use k8s_openapi::api::core::v1::PodSpec as K8sPodSpec;

use super::{Entry, Mapper};
use crate::model::{ContainerKind, RestartPolicy};
use crate::scenario::diagnostic::{Diagnostic, closest};
use crate::scenario::manifest::is_label;
use crate::scenario::manifest::yaml::dotted;

impl Mapper<'_> {
    /// The containers in model order with their kinds (R8: what a regular
    /// init container may not have; container `restartPolicy` rules).
    pub(super) fn entries<'s>(&self, spec: &'s K8sPodSpec) -> Result<Vec<Entry<'s>>, Diagnostic> {
        let mut entries = Vec::new();
        for (i, c) in spec.init_containers.iter().flatten().enumerate() {
            let path = vec!["spec".to_string(), "initContainers".into(), i.to_string()];
            let at = |key: &'static str| [path[0].as_str(), &path[1], &path[2], key];
            let kind = match c.restart_policy.as_deref() {
                // R60: OnFailure or Never is a regular init container's own policy.
                None | Some("OnFailure" | "Never") => ContainerKind::Init,
                Some("Always") => ContainerKind::Sidecar,
                Some(other) => {
                    let hint = closest(other, &["Always", "OnFailure", "Never"])
                        .map(|v| format!("did you mean \"{v}\"? "))
                        .unwrap_or_default();
                    return Err(self.value_error(
                        &at("restartPolicy"),
                        format!(
                            "init container \"{}\": restartPolicy \"{other}\" is not allowed; {hint}an init \
                             container's restartPolicy is Always (a native sidecar), OnFailure or Never, or left out",
                            c.name
                        ),
                    ));
                }
            };
            if kind == ContainerKind::Init {
                let forbidden = [
                    ("lifecycle", c.lifecycle.is_some()),
                    ("livenessProbe", c.liveness_probe.is_some()),
                    ("readinessProbe", c.readiness_probe.is_some()),
                    ("startupProbe", c.startup_probe.is_some()),
                ];
                if let Some((key, _)) = forbidden.iter().find(|(_, set)| *set) {
                    return Err(self.error(
                        &at(key),
                        format!(
                            "init container \"{}\": {key} is not allowed on an init container (it runs to \
                             completion); add restartPolicy: Always to make it a native sidecar",
                            c.name
                        ),
                    ));
                }
            }
            entries.push(Entry {
                kind,
                container: c,
                path,
            });
        }
        if spec.containers.is_empty() {
            return Err(self.error(
                &["spec", "containers"],
                format!(
                    "{}: the Pod has no containers; Kubernetes needs at least one",
                    dotted(&self.full(&["spec", "containers"]))
                ),
            ));
        }
        for (i, c) in spec.containers.iter().enumerate() {
            let path = vec!["spec".to_string(), "containers".into(), i.to_string()];
            if let Some(policy) = &c.restart_policy
                && RestartPolicy::parse(policy).is_none()
            {
                let hint = closest(policy, &RestartPolicy::NAMES)
                    .map(|v| format!("did you mean \"{v}\"? "))
                    .unwrap_or_default();
                return Err(self.value_error(
                    &[&path[0], &path[1], &path[2], "restartPolicy"],
                    format!(
                        "container \"{}\": restartPolicy \"{policy}\" is not a restart policy; {hint}write \
                         Always, OnFailure or Never",
                        c.name
                    ),
                ));
            }
            entries.push(Entry {
                kind: ContainerKind::App,
                container: c,
                path,
            });
        }
        for entry in &entries {
            let c = entry.container;
            let path: Vec<&str> = entry.path.iter().map(String::as_str).collect();
            let at = |key: &'static str| [path.as_slice(), &[key]].concat();
            if c.name.is_empty() {
                return Err(self.error(
                    &path,
                    format!(
                        "{}: the container has no name; Kubernetes requires one: add name: <name>",
                        dotted(&self.full(&path))
                    ),
                ));
            }
            if !is_label(&c.name) {
                return Err(self.value_error(
                    &at("name"),
                    format!(
                        "\"{}\" is not a container name Kubernetes accepts (lowercase letters, digits and \
                         '-', starting and ending with a letter or digit, at most 63); write one such as web",
                        c.name
                    ),
                ));
            }
            if c.image.as_deref().is_none_or(|i| i.trim().is_empty()) {
                return Err(self.error(
                    &at("name"),
                    format!(
                        "{}: container \"{}\" has no image; Kubernetes requires one: add image: <name:tag> \
                         (podsim does not pull it, any image will do)",
                        dotted(&self.full(&path)),
                        c.name
                    ),
                ));
            }
        }
        Ok(entries)
    }
}
