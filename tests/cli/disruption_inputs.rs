//! Issue 40's disruption kinds written as a new user writes them, wrong:
//! a delete beside another kind's key, a node failure given a spot
//! reclaim's notice, a toleration in milliseconds, in a TOML scenario,
//! in a real manifest's annotations and as a grid axis. Each is refused at its key (file:line:col), with
//! what to write instead, exit 1 and no file written; before, each ran
//! as another disruption than the one written.

use super::common::{TempDir, podsim, write};

/// `podsim run` of `path`: its stderr, once it exits 1 with stdout empty.
fn refused(path: &std::path::Path) -> String {
    let out = podsim().arg("run").arg(path).assert().code(1);
    let output = out.get_output();
    assert!(
        output.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// `podsim sweep` of a grid in `dir` with one `axis` over `base`: its
/// stderr, once it exits 1 with nothing written beside the two files.
fn sweep_refused(dir: &TempDir, base: &str, axis: &str) -> String {
    let grid = write(
        dir.path(),
        "grid.toml",
        &format!("base = \"{base}\"\n\n[axes]\n{axis}\n"),
    );
    let csv = dir.path().join("out.csv");
    let out = podsim()
        .args(["sweep", "--grid"])
        .arg(&grid)
        .arg("--out")
        .arg(&csv)
        .assert()
        .code(1);
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        2,
        "only the base and grid.toml"
    );
    String::from_utf8(out.get_output().stderr.clone()).unwrap()
}

/// The bundled node failure's line `node_failure = 1`, from 1.
fn failure_line() -> usize {
    let base = std::fs::read_to_string("scenarios/service/disruptions/node-failure.toml").unwrap();
    1 + base.lines().position(|l| l == "node_failure = 1").unwrap()
}

/// The bundled node failure with its `node_failure = 1` (`failure_line`) made `with`.
fn node_failure_with(dir: &TempDir, with: &str) -> std::path::PathBuf {
    let base = std::fs::read_to_string("scenarios/service/disruptions/node-failure.toml").unwrap();
    write(
        dir.path(),
        "lost.toml",
        &base.replacen("node_failure = 1", with, 1),
    )
}

#[test]
fn a_delete_beside_a_spot_reclaims_provider_is_refused_not_run_as_a_spot_reclaim() {
    // Before: `delete = 2` set replica 2 (the default kind's key) and
    // `provider` made the entry a spot reclaim of node 0, the delete gone.
    let dir = TempDir::new();
    let path = node_failure_with(&dir, "delete = 2\nprovider = \"gcp\"");
    let e = refused(&path);
    assert!(
        e.contains(&format!(
            "lost.toml:{}:1: disruption 0: provider makes this disruption a lost node, and delete a kubectl \
             delete; write them as two disruptions",
            failure_line()
        )),
        "{e}"
    );
}

#[test]
fn a_node_failure_given_a_notice_is_refused_at_the_notice() {
    // Before: the notice made the node failure a spot reclaim (cordoned and
    // drained for 30 s), which the user did not write.
    let dir = TempDir::new();
    let path = node_failure_with(&dir, "node_failure = 1\nnotice = \"30s\"");
    let e = refused(&path);
    assert!(
        e.contains(&format!(
            "lost.toml:{}:1: disruption 0: notice is a spot reclaim's",
            failure_line() + 1
        )),
        "{e}"
    );
    assert!(e.contains("write spot_reclaim instead of node_failure"), "{e}");
    let both = node_failure_with(&dir, "node_failure = 1\nspot_reclaim = 1");
    let e = refused(&both);
    let at = format!(
        "lost.toml:{}:1: disruption 0: node_failure and spot_reclaim both name",
        failure_line() + 1
    );
    assert!(e.contains(&at), "{e}");
}

#[test]
fn a_manifests_delete_annotation_beside_a_crash_is_refused_at_the_delete() {
    // tests/manifests/kubernetes-website-nginx.yaml (the Kubernetes
    // website's nginx Deployment) with two annotations of one disruption
    // on its Pod template. Before, the annotations' reader, unlike the
    // TOML's, ran the crash and dropped the delete.
    let text = std::fs::read_to_string("tests/manifests/kubernetes-website-nginx.yaml").unwrap();
    let labels = "    metadata:\n      labels:\n        app.kubernetes.io/name: nginx\n";
    assert_eq!(text.matches(labels).count(), 1);
    let annotations = "      annotations:\n        podsim.dev/disruptions.0.after_ready: \"10s\"\n        \
                       podsim.dev/disruptions.0.delete: \"2\"\n        podsim.dev/disruptions.0.crash: \"1\"\n";
    let text = text.replacen(labels, &format!("{labels}{annotations}"), 1);
    let line = 1 + text
        .lines()
        .position(|l| l.contains("disruptions.0.delete"))
        .unwrap();
    let dir = TempDir::new();
    let e = refused(&write(dir.path(), "nginx.yaml", &text));
    assert!(
        e.contains(&format!(
            "nginx.yaml:{line}:9: disruption 0: crash makes this disruption a crash of its app (its Pod stays), \
             and delete a kubectl delete"
        )),
        "{e}"
    );
}

#[test]
fn a_provider_axis_over_a_node_failure_is_refused_and_writes_nothing() {
    let dir = TempDir::new();
    node_failure_with(&dir, "node_failure = 1");
    let e = sweep_refused(
        &dir,
        "lost.toml",
        "\"disruptions.0.provider\" = [\"aws\", \"gcp\"]",
    );
    assert!(
        e.contains(
            "grid.toml:4:1: axis \"disruptions.0.provider\": disruption 0 of the base is a node failure"
        ),
        "{e}"
    );
    assert!(e.contains("write spot_reclaim = <node> in the base"), "{e}");
}

#[test]
fn a_toleration_in_milliseconds_is_refused_with_the_whole_seconds_around_it() {
    // core/v1 Toleration.tolerationSeconds is an int64 of seconds: 1500ms
    // is none, and 1s and 2s are the two around it. Before, it ran (its
    // Pods evicted 1.5 s after NotReady).
    let dir = TempDir::new();
    let path = node_failure_with(&dir, "node_failure = 1\ntoleration_seconds = \"1500ms\"");
    let e = refused(&path);
    assert!(
        e.contains(&format!(
            "lost.toml:{}:22: disruption 0: toleration_seconds \"1.5s\" is not a whole number of seconds, and \
             the Kubernetes API keeps a toleration's tolerationSeconds in whole seconds; write \"1s\" or \"2s\"",
            failure_line() + 1
        )),
        "{e}"
    );
}

#[test]
fn a_scale_down_of_a_single_replica_offers_0_not_a_range_of_one() {
    // tests/manifests/istio-frontend-service.yaml, Online Boutique's
    // frontend with Istio's injected proxy: `replicas: 1`. Its timings
    // file's rollout made `scale_to = 1`: not below 1, and 0 is the one
    // value below (the message said "one of 0 to 0").
    let timings = std::fs::read_to_string("tests/manifests/istio-frontend-service.timings.toml").unwrap();
    let rollout = "rollout = \"RollingUpdate\"";
    assert_eq!(timings.matches(rollout).count(), 1);
    let timings = timings.replacen(rollout, "scale_to = 1", 1);
    let line = 1 + timings
        .lines()
        .position(|l| l.starts_with("scale_to = 1"))
        .unwrap();
    let dir = TempDir::new();
    let path = write(dir.path(), "frontend.timings.toml", &timings);
    let out = podsim()
        .args(["run", "tests/manifests/istio-frontend-service.yaml", "--timings"])
        .arg(&path)
        .assert()
        .code(1);
    let e = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        e.contains(&format!(
            "frontend.timings.toml:{line}:1: disruption 0: scale_to = 1 is not below the replicas: with \
             replicas = 1, scale down to 0\n"
        )),
        "{e}"
    );
}

#[test]
fn a_lost_nodes_setting_without_the_node_is_refused_at_the_setting() {
    // Before: `partition = true` alone made a node failure of node 0, which
    // the user did not name.
    let dir = TempDir::new();
    let path = node_failure_with(&dir, "partition = true");
    let e = refused(&path);
    assert!(
        e.contains(&format!(
            "lost.toml:{}:1: disruption 0: partition is a setting of a lost node, which this disruption does \
             not name; write node_failure = <node> (or spot_reclaim = <node>) beside it",
            failure_line()
        )),
        "{e}"
    );
    let shutdown = node_failure_with(&dir, "shutdown_grace_period = \"20s\"");
    assert!(
        refused(&shutdown).contains("write node_shutdown = <node> beside it"),
        "a node shutdown's setting alone"
    );
}

#[test]
fn a_node_shutdown_of_0s_is_refused_as_the_kubelets_feature_off() {
    // shutdownGracePeriod 0 (with no by-priority list) leaves the kubelet's
    // graceful node shutdown off: the machine goes as a failed one does.
    // Before, every Pod was killed within 0 s by a kubelet that runs no
    // shutdown manager then.
    let dir = TempDir::new();
    let path = node_failure_with(&dir, "node_shutdown = 1\nshutdown_grace_period = \"0s\"");
    let e = refused(&path);
    assert!(
        e.contains("shutdown_grace_period \"0s\" turns the kubelet's graceful node shutdown off"),
        "{e}"
    );
    assert!(e.contains("write node_failure = <node> for that"), "{e}");
}

#[test]
fn a_node_shutdown_setting_swept_over_a_delete_is_refused_and_writes_nothing() {
    // Before: the axis set a shutdown budget that nothing read, two equal rows.
    let dir = TempDir::new();
    let base = std::fs::read_to_string("scenarios/service/no-prestop.toml").unwrap();
    write(dir.path(), "delete.toml", &base);
    let axis = "\"disruptions.0.shutdown_grace_period\" = [\"20s\", \"30s\"]";
    let e = sweep_refused(&dir, "delete.toml", axis);
    assert!(
        e.contains(
            "grid.toml:4:1: axis \"disruptions.0.shutdown_grace_period\": disruption 0 of the base shuts no \
             node down"
        ),
        "{e}"
    );
    assert!(e.contains("write node_shutdown = <node> in the base"), "{e}");
}
