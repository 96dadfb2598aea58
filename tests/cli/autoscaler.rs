//! `[[disruptions]] scale_down_node` end to end: from a manifest's
//! annotation and as a grid's axes, its evictions in the JSON and the
//! CSV's drain columns, worked by hand.

use super::common::{TempDir, rollout_yaml_json_with, sweep_csv, write};

#[test]
fn a_scale_down_annotation_evicts_that_nodes_pod_and_the_replicaset_replaces_it() {
    // scenarios/service/rollout.yaml with its rollout annotation made a
    // scale-down of node 1 of two: replica r is on node r mod 2, so node
    // 1 holds replica 1 alone. No budget: it is evicted at once, and the
    // ReplicaSet makes replica 3 on node 0 (node 1 is tainted).
    let doc = rollout_yaml_json_with(
        "podsim.dev/disruptions.0.scale_down_node: \"1\"\n        podsim.dev/service.nodes: \"2\"",
    );
    let deleted: Vec<u64> = (doc["deleted"].as_array().unwrap().iter())
        .map(|d| d["replica"].as_u64().unwrap())
        .collect();
    assert_eq!(deleted, [1]);
    assert_eq!(doc["replicas"].as_array().unwrap().len(), 4);
}

#[test]
fn scale_down_axes_count_the_refusals_until_the_replacement_is_ready_or_the_eviction_time_is_over() {
    // scenarios/service/disruptions/autoscaler-scale-down.toml: node 0
    // (replicas 0 and 2) scaled down at 13.056 s under min_available 2.
    // Replica 0's eviction passes, replica 2's is refused (2 healthy, not
    // above 2); replica 0's replacement is Ready 2 s later, so the retry
    // at 23.056 s passes: 1 refusal, replica 2 gone at 23.156 s + 3 s of
    // drain + 2 s of cleanup = 28.156 s, 15.1 s after the start. With a
    // max_pod_eviction_time of 5 s that retry comes past it: given up
    // after 1 refusal, the drain unfinished (an empty cell). With
    // min_available 3 no disruption is allowed: it never starts.
    let dir = TempDir::new();
    let base = std::fs::read_to_string("scenarios/service/disruptions/autoscaler-scale-down.toml").unwrap();
    write(dir.path(), "base.toml", &base);
    let grid = write(
        dir.path(),
        "grid.toml",
        "base = 'base.toml'\n[axes]\n\"pdb.min_available\" = [2, 3]\n\
         \"disruptions.0.max_pod_eviction_time\" = [\"2m\", \"5s\"]\n",
    );
    let text = sweep_csv(&grid);
    let rows: Vec<Vec<&str>> = text.lines().map(|l| l.split(',').collect()).collect();
    let column = |name: &str| rows[0].iter().position(|&c| c == name).unwrap();
    let (refused, drain) = (column("evictions_refused"), column("drain_ms"));
    let cells: Vec<(&str, &str)> = rows[1..].iter().map(|r| (r[refused], r[drain])).collect();
    assert_eq!(cells, [("1", "15100"), ("1", ""), ("0", ""), ("0", "")]);
}
