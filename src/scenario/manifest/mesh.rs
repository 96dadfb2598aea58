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

use std::collections::BTreeMap;

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

#[cfg(test)]
mod tests {
    use super::*;

    fn annotated(keys: &[&str]) -> BTreeMap<String, String> {
        keys.iter().map(|k| (k.to_string(), "x".to_string())).collect()
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
