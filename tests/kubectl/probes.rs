//! kubectl's READY column as a readiness probe stops passing (R53, R50),
//! worked out by hand in the test's comments.

#[test]
fn r53_kubectl_shows_ready_dropping_on_a_readiness_failure() {
    // The Pod of `r53_readiness_that_stops_passing…`: web is started and
    // Running at 0 s (0/1), Ready at 5 s (1/1), not Ready at 30 s (0/1)
    // while it keeps running (R50: READY counts ready containers).
    let toml = r#"
        [[containers]]
        name = "web"
        kind = "app"
        boot = "2s"
        readiness_probe = { period = "5s", pass_until = "20s", failure_threshold = 2 }
    "#;
    let scenario = podsim::scenario::Scenario::parse(toml, "test.toml").unwrap();
    let report = podsim::model::simulate_pod(&scenario.run);
    let lines: Vec<(u64, String, String)> = podsim::report::kubectl::watch(&scenario.run.pod, &report.trace)
        .into_iter()
        .map(|l| (l.at.as_millis(), l.ready, l.status))
        .collect();
    let line = |at: u64, ready: &str| (at, ready.to_string(), "Running".to_string());
    assert_eq!(
        &lines[1..],
        [line(0, "0/1"), line(5000, "1/1"), line(30_000, "0/1")]
    );
}
