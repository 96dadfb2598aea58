//! The proxies a service mesh's injector puts in a Pod, recognised from
//! the injector's own marks, so that an injected manifest measures
//! exposure (an app alive while no proxy is) without the user marking its
//! proxy: the question podsim exists to answer is whether an Istio or
//! Linkerd Pod's app runs before its proxy.
//!
//! Why a name and an annotation, not an image: each injector names its
//! proxy container itself (Istio `istio-proxy`, Linkerd `linkerd-proxy`)
//! and records the injection in an annotation of the Pod; an image says
//! nothing certain (Istio's `proxyv2` also runs its gateways, and a
//! registry mirror renames it). A container of that name without the
//! annotation was not put there by the injector, and is left as written.
//!
//! The other way round, a Pod that asks an admission webhook for its
//! containers (`dapr.io/enabled: "true"`) and has none of them yet is a
//! manifest as written, not the Pod the kubelet will run: podsim says so,
//! since the containers it lacks (an init container before every other, a
//! sidecar the app talks through) move every figure.

use std::collections::BTreeMap;

use crate::scenario::diagnostic::Injector;

/// One mesh's injector: the proxy container it adds and the Pod
/// annotation it writes when it does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mesh {
    /// The mesh, as its users call it.
    pub name: &'static str,
    /// The container name its injector gives the proxy.
    pub container: &'static str,
    /// The annotation its injector writes on every Pod it injects.
    pub annotation: &'static str,
}

/// The injectors podsim knows (Istio's `sidecar.istio.io/status` lists what
/// it injected; Linkerd's proxy injector stamps the proxy's version).
const MESHES: [Mesh; 2] = [
    Mesh {
        name: "Istio",
        container: "istio-proxy",
        annotation: "sidecar.istio.io/status",
    },
    Mesh {
        name: "Linkerd",
        container: "linkerd-proxy",
        annotation: "linkerd.io/proxy-version",
    },
];

/// The containers of `names` (by index) that a mesh's injector put in this
/// Pod as its proxy, with the mesh that says so.
pub fn injected_proxies(
    annotations: Option<&BTreeMap<String, String>>,
    names: &[&str],
) -> Vec<(usize, Mesh)> {
    let Some(annotations) = annotations else {
        return Vec::new();
    };
    MESHES
        .iter()
        .filter(|mesh| annotations.contains_key(mesh.annotation))
        .filter_map(|mesh| {
            let i = names.iter().position(|&n| n == mesh.container)?;
            Some((i, *mesh))
        })
        .collect()
}

/// The webhooks podsim knows, each from its project's documentation:
/// Istio's sidecar injector (the `sidecar.istio.io/inject` annotation,
/// also read as a label), Linkerd's proxy injector, the Vault Agent
/// injector (`vault-agent-init` before every other container, then
/// `vault-agent`), Dapr's sidecar injector and GKE's Cloud Storage FUSE
/// CSI driver's webhook (docs/known-issues.md, docs/sidecar-manual-injection.md).
const INJECTORS: [Injector; 5] = [
    Injector {
        project: "Istio",
        annotation: "sidecar.istio.io/inject",
        value: "true",
        containers: &["istio-proxy"],
        command: Some("istioctl kube-inject -f FILE"),
    },
    Injector {
        project: "Linkerd",
        annotation: "linkerd.io/inject",
        value: "enabled",
        containers: &["linkerd-proxy"],
        command: Some("linkerd inject FILE"),
    },
    Injector {
        project: "Vault",
        annotation: "vault.hashicorp.com/agent-inject",
        value: "true",
        containers: &["vault-agent-init", "vault-agent"],
        command: None,
    },
    Injector {
        project: "Dapr",
        annotation: "dapr.io/enabled",
        value: "true",
        containers: &["daprd"],
        command: None,
    },
    Injector {
        project: "GKE's Cloud Storage FUSE CSI driver",
        annotation: "gke-gcsfuse/volumes",
        value: "true",
        containers: &["gke-gcsfuse-sidecar"],
        command: None,
    },
];

/// The injections the Pod's annotations ask for whose containers are none
/// of `names`: the webhook has not run on this manifest yet.
pub fn not_injected(annotations: Option<&BTreeMap<String, String>>, names: &[&str]) -> Vec<Injector> {
    let Some(annotations) = annotations else {
        return Vec::new();
    };
    INJECTORS
        .iter()
        .filter(|i| annotations.get(i.annotation).is_some_and(|v| v == i.value))
        .filter(|i| !i.containers.iter().any(|c| names.contains(c)))
        .copied()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn annotated(keys: &[&str]) -> BTreeMap<String, String> {
        keys.iter().map(|k| (k.to_string(), "x".to_string())).collect()
    }

    #[test]
    fn an_injection_asked_for_and_not_yet_done_is_found() {
        let dapr = annotated(&["dapr.io/enabled"]);
        // The value must be the one that asks (`"false"` does not).
        assert!(not_injected(Some(&dapr), &["app"]).is_empty());
        let mut dapr = dapr;
        dapr.insert("dapr.io/enabled".into(), "true".into());
        assert_eq!(not_injected(Some(&dapr), &["app"]), [INJECTORS[3]]);
        // Injected already: `kubectl get pod -o yaml` of the running Pod.
        assert!(not_injected(Some(&dapr), &["app", "daprd"]).is_empty());
        let mut vault = BTreeMap::new();
        vault.insert("vault.hashicorp.com/agent-inject".to_string(), "true".to_string());
        assert!(not_injected(Some(&vault), &["vault-agent-init", "app"]).is_empty());
        assert_eq!(not_injected(Some(&vault), &["app"]), [INJECTORS[2]]);
        assert!(not_injected(None, &["app"]).is_empty());
    }

    #[test]
    fn an_injectors_annotation_and_its_proxys_name_together_make_the_proxy() {
        let names = ["istio-init", "hello", "istio-proxy"];
        let found = injected_proxies(Some(&annotated(&["sidecar.istio.io/status"])), &names);
        assert_eq!(found, [(2, MESHES[0])]);
        let names = ["linkerd-init", "linkerd-proxy", "web"];
        let found = injected_proxies(Some(&annotated(&["linkerd.io/proxy-version"])), &names);
        assert_eq!(found, [(1, MESHES[1])]);
    }

    #[test]
    fn a_name_without_the_annotation_or_an_annotation_without_the_name_is_no_proxy() {
        let names = ["hello", "istio-proxy"];
        assert!(injected_proxies(None, &names).is_empty());
        assert!(injected_proxies(Some(&annotated(&["linkerd.io/proxy-version"])), &names).is_empty());
        let names = ["hello", "envoy"];
        assert!(injected_proxies(Some(&annotated(&["sidecar.istio.io/status"])), &names).is_empty());
    }
}
