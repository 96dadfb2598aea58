//! Tests of `grid`.

use super::*;

fn scenarios() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenarios")
}

fn grid(axes: &str) -> Result<Grid, Diagnostic> {
    let text = format!("base = \"seed-sidecar.toml\"\n[axes]\n{axes}");
    let base = Scenario::load(&scenarios().join("seed-sidecar.toml")).unwrap();
    Grid::parse(&text, "g.toml", base, &scenarios())
}

fn error(axes: &str) -> String {
    grid(axes).unwrap_err().to_string()
}

#[test]
fn axes_keep_file_order_and_the_last_varies_fastest() {
    let g = grid(
        "\"pod.backoff.cap\" = [\"8s\", \"60s\"]\ncontainers.web.boot = { from = \"1s\", to = \"2s\", step = \"500ms\" }\n",
    )
    .unwrap();
    assert_eq!(g.runs(), 6);
    let paths: Vec<&str> = g.axes.iter().map(|a| a.path.as_str()).collect();
    assert_eq!(paths, ["pod.backoff.cap", "containers.web.boot"]);
    let mut digits = [0; 2];
    g.digits(4, &mut digits);
    assert_eq!(digits, [1, 1]);
    assert_eq!(
        g.columns()[..3],
        ["run", "pod.backoff.cap_ms", "containers.web.boot_ms"]
    );
}

#[test]
fn relative_paths_fold_parent_folders() {
    assert_eq!(
        relative_to(Path::new("scenarios"), "../results/x.csv"),
        Path::new("results/x.csv")
    );
    assert_eq!(relative_to(Path::new(""), "../x.csv"), Path::new("../x.csv"));
    assert_eq!(relative_to(Path::new("/a/b"), "/abs.csv"), Path::new("/abs.csv"));
}

#[test]
fn the_hash_ignores_layout_but_not_meaning() {
    let a = grid("\"containers.web.boot\" = [\"1s\", \"2s\"]").unwrap();
    let b =
        grid("# a comment\ncontainers.web.boot = { from = \"1s\", to = \"2000ms\", step = \"1s\" }").unwrap();
    let c = grid("\"containers.web.boot\" = [\"1s\", \"3s\"]").unwrap();
    assert_eq!(a.sha256(), b.sha256());
    assert_ne!(a.sha256(), c.sha256());
}

#[test]
fn errors_name_the_line_and_the_axis() {
    let unknown = error("\"containers.web.bot\" = [\"1s\"]");
    assert!(
        unknown.starts_with(
            "g.toml:3:1: unknown axis \"containers.web.bot\"; did you mean \"containers.web.boot\"?"
        ),
        "{unknown}"
    );
    assert!(
        error("\"containers.wbe.boot\" = [\"1s\"]")
            .contains("unknown container \"wbe\"; did you mean \"web\"?")
    );
    assert!(
        error("\"containers.web.boot\" = []")
            .starts_with("g.toml:3:25: axis \"containers.web.boot\": no values")
    );
    assert!(error("\"containers.web.boot\" = [1]").contains("write \"1s\" or \"1ms\", not 1"));
    assert!(
        error("\"containers.web.fails\" = [\"1\"]")
            .contains("expected an integer such as 0 or 3 (no quotes), found the string \"1\"")
    );
    assert!(
        error("\"containers.web.kind\" = [\"ap\"]").contains("unknown kind \"ap\"; did you mean \"app\"?")
    );
    let step = error("\"containers.web.boot\" = { from = \"0s\", to = \"1s\", step = \"0s\" }");
    assert!(
        step.starts_with("g.toml:3:58: axis \"containers.web.boot\": step must be greater than zero"),
        "{step}"
    );
    assert!(
        error("\"containers.web.fails\" = { from = 0, to = 3, step = -1 }")
            .contains("step must be greater than zero")
    );
    assert!(
        error("\"containers.web.boot\" = { from = \"5s\", to = \"1s\", step = \"1s\" }")
            .contains("to (1s) is before from (5s)")
    );
    assert!(error("name = [\"x\"]").contains("cannot be swept"));
    assert!(
        error("\"pod.stop_at\" = [\"1s\"]\n\"pod.stop_after_ready\" = [\"1s\"]").starts_with("g.toml:4:1:")
    );
}

/// Issue 9, symptom 1: the axis help and suggestions come from the one
/// list of keys, so every pod key is suggested and listed, and a probe
/// table never suggests itself.
#[test]
fn issue_9_axis_suggestions_come_from_the_registry() {
    let e = error("\"pod.mdoe\" = [\"job\"]");
    assert!(
        e.contains("unknown axis \"pod.mdoe\"; did you mean \"pod.mode\"?"),
        "{e}"
    );
    assert!(e.contains("pod.mode, pod.kubernetes"), "{e}");
    let e = error("\"containers.web.startup_probe\" = [\"1s\"]");
    assert!(
        e.contains(
            "axis \"containers.web.startup_probe\": startup_probe is a table; sweep one of its keys: \
             containers.web.startup_probe.initial_delay"
        ),
        "{e}"
    );
    assert!(!e.contains("did you mean"), "{e}");
    let e = error("\"containers.web.startup_probe.perod\" = [\"1s\"]");
    assert!(
        e.contains("did you mean \"containers.web.startup_probe.period\"?"),
        "{e}"
    );
}

#[test]
fn combinations_that_break_pod_rules_are_found_before_running() {
    let e = error("\"containers.proxy.kind\" = [\"sidecar\", \"init\"]");
    assert!(e.starts_with("g.toml:3:1: the combination containers.proxy.kind = \"init\" breaks a Pod rule: container \"proxy\": proxy is not allowed"), "{e}");
    let e = error("\"containers.config-fetch.proxy\" = [false, true]");
    assert!(
        e.contains("containers.config-fetch.proxy = true breaks a Pod rule"),
        "{e}"
    );
    // R57: an init container may drain.
    assert!(grid("\"containers.config-fetch.drain\" = [\"0s\", \"1s\", \"never\"]").is_ok());
    let e = error("\"containers.config-fetch.pre_stop\" = { from = \"0s\", to = \"1h\", step = \"1ms\" }");
    assert!(
        e.contains("containers.config-fetch.pre_stop = 0s breaks a Pod rule"),
        "{e}"
    );
    let e = error("\"containers.web.kind\" = [\"app\", \"sidecar\"]");
    assert!(e.contains("the Pod has no app container"), "{e}");
    assert!(grid("\"containers.proxy.kind\" = [\"sidecar\", \"app\"]").is_ok());
}

#[test]
fn a_scenario_given_as_a_grid_is_recognised() {
    let text = std::fs::read_to_string(scenarios().join("seed-sidecar.toml")).unwrap();
    let base = Scenario::load(&scenarios().join("seed-sidecar.toml")).unwrap();
    let e = Grid::parse(&text, "s.toml", base, &scenarios())
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml:4:1: \"name\" belongs in a scenario, and this looks like one"),
        "{e}"
    );
}

/// A grid over the bundled scenario `base` (under `scenarios/service/`).
fn service_error(base: &str, axes: &str) -> String {
    let text = format!("base = \"{base}\"\n[axes]\n{axes}");
    let folder = scenarios().join("service");
    let base = Scenario::load(&folder.join(base)).unwrap();
    Grid::parse(&text, "g.toml", base, &folder)
        .unwrap_err()
        .to_string()
}

#[test]
fn two_axes_that_combine_into_a_refused_service_are_refused_naming_both() {
    // Each value passes alone (against the base's 25% of the other); only
    // 0 with 0 is refused, as the API refuses it (line 3: the second axis).
    let e = service_error(
        "rollout.toml",
        "\"disruptions.0.max_surge\" = [0, 1]\n\"disruptions.0.max_unavailable\" = [0, 1]\n",
    );
    assert_eq!(
        e,
        "g.toml:4:1: the combination disruptions.0.max_surge = 0 (line 3), disruptions.0.max_unavailable = 0 \
         (line 4) is refused: disruption 0: max_unavailable may not be 0 when max_surge is 0 (the API \
         refuses it: no Pod could ever be replaced); make one of them 1 or more"
    );
    // Node 2 of 2 does not exist, though each exists with the other's base value (3 nodes, node 0).
    let e = service_error(
        "drain.toml",
        "\"disruptions.0.drain\" = [0, 2]\n\"service.nodes\" = [2, 3]\n",
    );
    assert_eq!(
        e,
        "g.toml:3:1: the combination disruptions.0.drain = 2 (line 3), service.nodes = 2 (line 4) is refused: \
         disruption 0: drain = 2 is beyond the nodes: with nodes = 2, drain one of 0 to 1"
    );
    // A value inside a list is checked too, not only its ends.
    let e = service_error(
        "drain.toml",
        "\"pdb.max_unavailable\" = [\"50%\", 1]\n\"disruptions.0.drain\" = [0, 5, 1]\n",
    );
    assert!(
        e.starts_with("g.toml:4:1: disruptions.0.drain = 5: disruption 0: drain = 5 is beyond"),
        "{e}"
    );
    // A delete beyond the replicas of a swept count.
    let e = service_error(
        "no-prestop.toml",
        "\"service.replicas\" = { from = 1, to = 3, step = 1 }\n\"disruptions.0.delete\" = [0, 1]\n",
    );
    assert!(
        e.starts_with(
            "g.toml:4:1: the combination service.replicas = 1 (line 3), disruptions.0.delete = 1 (line 4)"
        ),
        "{e}"
    );
}

#[test]
fn a_swept_surge_never_meets_a_recreate() {
    let e = service_error(
        "rollout.toml",
        "\"disruptions.0.rollout\" = [\"RollingUpdate\", \"Recreate\"]\n\"disruptions.0.max_surge\" = [1, 2]\n",
    );
    assert_eq!(
        e,
        "g.toml:4:1: the combination disruptions.0.rollout = \"Recreate\" (line 3), disruptions.0.max_surge = 1 \
         (line 4) is refused: the API refuses maxSurge and maxUnavailable under a Recreate, which deletes every \
         old Pod at once; sweep Recreate in a grid of its own"
    );
    // Swept alone, the strategy is fine: the base's surge does not apply to a Recreate.
    let folder = scenarios().join("service");
    let base = Scenario::load(&folder.join("rollout.toml")).unwrap();
    let text =
        "base = \"rollout.toml\"\n[axes]\n\"disruptions.0.rollout\" = [\"RollingUpdate\", \"Recreate\"]\n";
    assert!(Grid::parse(text, "g.toml", base.clone(), &folder).is_ok());
    // A Recreate base with a swept surge.
    let mut recreate = base;
    recreate.run.service.as_mut().unwrap().disruptions[0]
        .rollout
        .as_mut()
        .unwrap()
        .strategy = crate::model::service::Strategy::Recreate;
    let text = "base = \"rollout.toml\"\n[axes]\n\"disruptions.0.max_unavailable\" = [0, 1]\n";
    let e = Grid::parse(text, "g.toml", recreate, &folder)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with(
            "g.toml:3:1: axis \"disruptions.0.max_unavailable\": disruption 0 of the base is a Recreate"
        ),
        "{e}"
    );
}

#[test]
fn an_axis_sweeps_a_disruption_of_its_own_kind() {
    let e = service_error(
        "no-prestop.toml",
        "\"disruptions.0.rollout\" = [\"RollingUpdate\"]\n",
    );
    assert_eq!(
        e,
        "g.toml:3:1: axis \"disruptions.0.rollout\": disruption 0 of the base is a kubectl delete, and rollout \
         belongs to a rollout; make it a rollout in the base (rollout = \"RollingUpdate\") to sweep its keys"
    );
    let e = service_error("rollout.toml", "\"disruptions.0.drain\" = [1]\n");
    assert!(
        e.contains("disruption 0 of the base is a rollout, and drain belongs to a kubectl drain"),
        "{e}"
    );
    let e = service_error("drain.toml", "\"disruptions.0.delete\" = [1]\n");
    assert!(
        e.contains("is a kubectl drain, and delete belongs to a kubectl delete"),
        "{e}"
    );
    let e = service_error("drain.toml", "\"disruptions.1.at\" = [\"5s\"]\n");
    assert!(
        e.contains("the base scenario has no disruption 1 (it has disruption 0 only)"),
        "{e}"
    );
    // A key every disruption has is swept on any.
    let folder = scenarios().join("service");
    let base = Scenario::load(&folder.join("drain.toml")).unwrap();
    let text = "base = \"drain.toml\"\n[axes]\n\"disruptions.0.after_ready\" = [\"5s\", \"10s\"]\n";
    assert!(Grid::parse(text, "g.toml", base, &folder).is_ok());
}

#[test]
fn the_clusters_full_resync_is_an_axis() {
    let text = "base = \"busy-nodes.toml\"\n[axes]\n\"cluster.full_sync\" = [\"5s\", \"20s\"]\n";
    let folder = scenarios().join("service").join("cluster");
    let base = Scenario::load(&folder.join("busy-nodes.toml")).unwrap();
    let g = Grid::parse(text, "g.toml", base, &folder).unwrap();
    assert_eq!(g.runs(), 2);
    assert_eq!(g.columns()[1], "cluster.full_sync_ms");
}
