//! What a Pod may hold that podsim reads past without simulating, told at
//! its place in the file so that no figure is trusted for what it leaves
//! out: ephemeral containers (`kubectl debug`), and a Windows node, whose
//! runtime stops a container another way than the Linux one podsim models.
//!
//! Invariant: each notice names the field it comes from and says what
//! podsim does instead; nothing here changes the simulated Pod.

use k8s_openapi::api::core::v1::PodSpec as K8sPodSpec;

/// One thing left out: the field (from the Pod spec's root) and what to say.
pub struct LeftOut {
    /// Where it is written, as `Document::offset` finds it.
    pub path: &'static [&'static str],
    /// The notice's text.
    pub message: String,
}

/// The Windows label `nodeSelector` picks a Windows node by.
const OS_LABEL: &str = "kubernetes.io/os";

/// What of `spec` podsim leaves out.
pub fn left_out(spec: &K8sPodSpec) -> Vec<LeftOut> {
    let mut notes = Vec::new();
    let ephemeral: Vec<String> = spec
        .ephemeral_containers
        .iter()
        .flatten()
        .map(|c| format!("\"{}\"", c.name))
        .collect();
    if !ephemeral.is_empty() {
        notes.push(LeftOut {
            path: &["spec", "ephemeralContainers"],
            message: format!(
                "spec.ephemeralContainers: {} left out: an ephemeral container (`kubectl debug`) joins a running \
                 Pod when someone debugs it, is never restarted and counts for neither the Pod's readiness nor \
                 its phase; podsim simulates the Pod without it",
                ephemeral.join(", ")
            ),
        });
    }
    let by_os = spec.os.as_ref().is_some_and(|os| os.name == "windows");
    let by_node = spec
        .node_selector
        .as_ref()
        .is_some_and(|s| s.get(OS_LABEL).is_some_and(|v| v == "windows"));
    if by_os || by_node {
        let (path, field): (&'static [&'static str], _) = if by_os {
            (&["spec", "os", "name"], "spec.os.name".to_string())
        } else {
            (
                &["spec", "nodeSelector", OS_LABEL],
                format!("spec.nodeSelector {OS_LABEL}"),
            )
        };
        notes.push(LeftOut {
            path,
            message: format!(
                "{field}: windows: podsim simulates a Linux node's stop, the stop signal then SIGKILL when the grace \
                 period runs out; a Windows container's process is sent CTRL_SHUTDOWN_EVENT instead and ended by \
                 its image's own shutdown timeout (5 s unless the image's registry sets another), whatever the \
                 grace period (kubernetes.io, Windows containers in Kubernetes); set each container's drain \
                 (podsim.dev/<name>.drain) to what it really takes"
            ),
        });
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::{EphemeralContainer, PodOS};

    #[test]
    fn a_linux_pod_without_ephemeral_containers_leaves_nothing_out() {
        assert!(left_out(&K8sPodSpec::default()).is_empty());
        let linux = K8sPodSpec {
            os: Some(PodOS { name: "linux".into() }),
            node_selector: Some([(OS_LABEL.to_string(), "linux".to_string())].into()),
            ..K8sPodSpec::default()
        };
        assert!(left_out(&linux).is_empty());
    }

    #[test]
    fn ephemeral_containers_and_a_windows_node_are_told_at_their_fields() {
        let spec = K8sPodSpec {
            ephemeral_containers: Some(vec![EphemeralContainer {
                name: "debugger-x7k2p".into(),
                ..EphemeralContainer::default()
            }]),
            node_selector: Some([(OS_LABEL.to_string(), "windows".to_string())].into()),
            ..K8sPodSpec::default()
        };
        let notes = left_out(&spec);
        assert_eq!(notes.len(), 2);
        assert_eq!(notes[0].path, ["spec", "ephemeralContainers"]);
        assert!(
            notes[0].message.contains("\"debugger-x7k2p\" left out"),
            "{}",
            notes[0].message
        );
        assert_eq!(notes[1].path, ["spec", "nodeSelector", OS_LABEL]);
        assert!(
            notes[1]
                .message
                .starts_with("spec.nodeSelector kubernetes.io/os: windows:")
        );
        // spec.os.name, where both are written, is the field named.
        let both = K8sPodSpec {
            os: Some(PodOS {
                name: "windows".into(),
            }),
            ..spec
        };
        assert_eq!(left_out(&both)[1].path, ["spec", "os", "name"]);
    }
}
