//! `[[disruptions]] crash` end to end: from a manifest's annotation and as
//! a grid's axis, its count in the JSON and the CSV's `crashes` column,
//! worked by hand.

use super::common::{TempDir, rollout_yaml_json_with, sweep_csv, write};

#[test]
fn a_crash_annotation_crashes_that_replica_once_and_deletes_nothing() {
    // scenarios/service/rollout.yaml with its rollout annotation made a
    // crash of replica 1, 10 s after every replica is Ready: its app is
    // running then, so it crashes (1), restarts at once (the first
    // CrashLoopBackOff is 0: one restart) and no Pod is deleted.
    let doc = rollout_yaml_json_with("podsim.dev/disruptions.0.crash: \"1\"");
    assert_eq!(doc["metrics"]["crashes"], 1);
    assert_eq!(doc["deleted"], serde_json::json!([]));
    let restarts = |r: usize| doc["replicas"][r]["metrics"]["restarts"].clone();
    assert_eq!([0, 1, 2].map(restarts), [0, 1, 0].map(serde_json::Value::from));
}

#[test]
fn a_crash_axis_counts_only_the_crashes_that_found_a_running_app() {
    // scenarios/service/disruptions/crash.toml (replica 0 crashes 10 and
    // 15 s after Ready, T = 3.056 s) with a third crash 20 s after, of
    // the swept replica. Replica 0's first crash (13.056 s) restarts at
    // once; its second (18.056 s) waits 10 s of back-off, to 28.056 s, so
    // a third of replica 0 at 23.056 s finds no app running: 2 crashes.
    // Of replica 1, running all along: 3.
    let dir = TempDir::new();
    let base = std::fs::read_to_string("scenarios/service/disruptions/crash.toml").unwrap();
    let third = "[[disruptions]]\nafter_ready = \"20s\"\ncrash = 0\n\n[[containers]]";
    write(
        dir.path(),
        "crash.toml",
        &base.replacen("[[containers]]", third, 1),
    );
    let grid = write(
        dir.path(),
        "grid.toml",
        "base = 'crash.toml'\n[axes]\n\"disruptions.2.crash\" = [0, 1]\n",
    );
    let text = sweep_csv(&grid);
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0].last(), Some(&"crashes"), "{:?}", rows[0]);
    assert_eq!([1, 2].map(|r| *rows[r].last().unwrap()), ["2", "3"]);
}
