//! `podsim advise` on published manifests, unchanged (tests/manifests/,
//! their sources in their first lines), with the timings Kubernetes does
//! not know in their `.timings.toml`: the answer's key facts, bounded by
//! hand from the propagation preset.
//!
//! The `medium` preset draws each node's delay from a lognormal of median
//! 1 s and p99 4 s (σ = ln 4 / 2.326 = 0.596); the kubelet hears 100 ms
//! after the delete. A run is safe when its preStop outlasts every draw of
//! every deleted Pod, so the advised preStop sits near the p99 over runs of
//! the largest of n draws, the draw's 0.99^(1/n) quantile:
//! `e^(0.596 z)` s with z its normal quantile. Never below one draw's p99,
//! 4 s − 100 ms, so 4 s on the 1 s grid; kube-proxy's token bucket
//! (min_sync_period 1 s) may hold a node's sync up to 1 s more.

use super::common::podsim;

fn manifest(name: &str) -> String {
    format!("{}/tests/manifests/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// `podsim advise` of a manifest and its timings file, as JSON.
fn advise(name: &str) -> serde_json::Value {
    let out = podsim()
        .args(["advise", &manifest(&format!("{name}.yaml")), "--timings"])
        .arg(manifest(&format!("{name}.timings.toml")))
        .args(["--replications", "100", "--format", "json"])
        .output()
        .expect("podsim runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON document")
}

fn pre_stop_ms(doc: &serde_json::Value) -> u64 {
    doc["settings"][0]["advised_ms"]
        .as_u64()
        .expect("a preStop is advised")
}

/// Three replicas on three nodes rolled one after another: 9 draws, the
/// 0.99889 quantile, z = 3.06: 6.2 s. Between 4 s and 6.2 s + 1 s.
#[test]
fn the_website_nginx_needs_a_sleep_of_the_medium_presets_tail() {
    let doc = advise("kubernetes-website-nginx");
    assert_eq!(doc["settings"][0]["container"], "nginx");
    assert!(
        (4000..=8000).contains(&pre_stop_ms(&doc)),
        "{}",
        pre_stop_ms(&doc)
    );
    assert_eq!(
        doc["settings"][1]["advised_ms"], 30_000,
        "nginx's 500 ms drain fits 30 s"
    );
    assert!(doc["today"]["failed_p99"].as_f64().unwrap() > 0.0);
    assert_eq!(doc["advised"]["failed_p99"], 0.0);
    let patch = doc["patch"]["text"].as_str().unwrap();
    assert!(
        patch.contains("kubectl patch deployment nginx-deployment --type strategic"),
        "{patch}"
    );
    assert!(patch.contains("      - name: nginx\n"), "{patch}");
}

/// One replica (the manifest leaves `replicas` unset) on three nodes: 3
/// draws, the 0.99666 quantile, z = 2.71: 5.0 s. Between 4 s and 6 s + 1 s.
/// Of the two Services over its Pods, one is simulated.
#[test]
fn the_boutique_frontend_needs_a_sleep_of_one_pods_tail() {
    let doc = advise("microservices-demo-frontend");
    assert_eq!(doc["settings"][0]["container"], "server");
    assert!(
        (4000..=7000).contains(&pre_stop_ms(&doc)),
        "{}",
        pre_stop_ms(&doc)
    );
    assert_eq!(doc["advised"]["failed_p99"], 0.0);
    assert!(
        doc["patch"]["text"]
            .as_str()
            .unwrap()
            .contains("- name: server\n")
    );
}

/// Istio's classic sidecar: istio-proxy beside nginx, with no preStop of
/// its own, takes no new inbound connection once SIGTERMed (at once:
/// istio/istio#34855), so no sleep of nginx's alone keeps them from being
/// refused; the same sleep on both is searched, and it is the app's
/// arithmetic: one replica on three nodes, 3 draws, 5.0 s (as the
/// boutique's), between 4 s and 6 s + 1 s. The grace is kept: the hook and
/// the proxy's 5 s drain fit 30 s. The patch names both containers.
#[test]
fn the_istio_injected_frontend_sleeps_on_the_proxy_and_the_app() {
    let doc = advise("istio-frontend-service");
    assert_eq!(doc["settings"][0]["container"], "nginx");
    assert_eq!(doc["settings"][0]["proxy"]["container"], "istio-proxy");
    assert_eq!(
        doc["settings"][0]["proxy"]["key"],
        "containers.istio-proxy.pre_stop"
    );
    assert!(
        (4000..=7000).contains(&pre_stop_ms(&doc)),
        "{}",
        pre_stop_ms(&doc)
    );
    assert_eq!(doc["settings"][1]["advised_ms"], 30_000);
    assert!(doc["today"]["failed_p99"].as_f64().unwrap() > 0.0);
    assert_eq!(doc["advised"]["failed_p99"], 0.0);
    let patch = doc["patch"]["text"].as_str().unwrap();
    assert!(patch.contains("      - name: nginx\n"), "{patch}");
    assert!(patch.contains("      - name: istio-proxy\n"), "{patch}");
}
