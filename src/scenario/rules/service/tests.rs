//! The Service's rules as a TOML scenario meets them: each refusal's words
//! and place, and what a valid Service table reads into.

use crate::scenario::Scenario;

const POD: &str = "[[containers]]\nname = \"web\"\nkind = \"app\"\nboot = \"1s\"\n";

fn error_of(service: &str) -> String {
    Scenario::parse(&format!("{service}{POD}"), "s.toml")
        .unwrap_err()
        .to_string()
}

#[test]
fn bad_service_input_is_refused_where_it_is_written() {
    assert_eq!(
        error_of("[service]\nreplicas = 0\n"),
        "s.toml:2:12: replicas must be 1 or more"
    );
    assert_eq!(
        error_of("[service]\nreplicas = 2\n[[disruptions]]\nat = \"5s\"\ndelete = 2\n"),
        "s.toml:5:10: disruption 0: delete = 2 is beyond the replicas: with replicas = 2, delete one of 0 to 1"
    );
    let e = error_of("[service]\n[traffic]\nrate = 0\n");
    assert!(e.starts_with("s.toml:3:8: ") && e.contains("above 0"), "{e}");
    let e = error_of("[service]\n[traffic]\nrate = -2.5\n");
    assert!(e.starts_with("s.toml:3:8: ") && e.contains("above 0"), "{e}");
    let e = error_of("[service]\npropagation = \"tinny\"\n");
    assert!(
        e.starts_with("s.toml:2:15: ")
            && e.contains("did you mean \"tiny\"")
            && e.contains("tiny, medium, large, gcp-lb, azure-lb, nlb-ip"),
        "{e}"
    );
    assert_eq!(
        error_of("[traffic]\nrate = 5\n"),
        "s.toml:1:2: [traffic] needs a [service] to send to: add [service] (replicas, nodes, propagation, …)"
    );
    assert_eq!(
        error_of("[service]\n[[disruptions]]\nat = \"5s\"\nevery = \"0s\"\n"),
        "s.toml:4:9: disruption 0: every must be above 0s: write the time between two deletions, such as \"10m\""
    );
    let e = error_of("[service]\n[[disruptions]]\ndelete = 0\n");
    assert!(e.contains("say when with one of at"), "{e}");
    // kubectl's --grace-period and minReadySeconds are whole seconds:
    // 2.5 s lies between 2 s and 3 s; each is told at its value, on line
    // 4 after `grace_period = ` and after `min_ready_seconds = `.
    assert_eq!(
        error_of("[service]\n[[disruptions]]\nat = \"5s\"\ngrace_period = \"2500ms\"\n"),
        "s.toml:4:16: disruption 0: grace_period \"2.5s\" is not a whole number of seconds, and the Kubernetes \
         API keeps kubectl delete --grace-period in whole seconds; write \"2s\" or \"3s\""
    );
    assert_eq!(
        error_of("[service]\n[[disruptions]]\nafter_ready = \"5s\"\nmin_ready_seconds = \"0.5s\"\n"),
        "s.toml:4:21: disruption 0: min_ready_seconds \"500ms\" is not a whole number of seconds, and the \
         Kubernetes API keeps the Deployment's minReadySeconds in whole seconds; write \"0s\" or \"1s\""
    );
}

#[test]
fn a_rollout_reads_into_the_spec_with_its_new_template() {
    let text = format!(
        "[service]\nreplicas = 4\n[[disruptions]]\nafter_ready = \"5s\"\nrollout = \"RollingUpdate\"\n\
         max_surge = 2\nmax_unavailable = \"50%\"\nmin_ready_seconds = \"3s\"\n\
         [disruptions.template.web]\nboot = \"4s\"\n{POD}"
    );
    let s = Scenario::parse(&text, "s.toml").unwrap();
    use crate::model::service::*;
    let r = s.run.service.as_deref().unwrap().disruptions[0]
        .rollout
        .clone()
        .unwrap();
    assert_eq!(
        (
            r.strategy,
            r.max_surge,
            r.max_unavailable,
            r.min_ready.as_millis()
        ),
        (
            Strategy::RollingUpdate,
            Scaled::Count(2),
            Scaled::Percent(50),
            3000
        )
    );
    let template = r.template.unwrap();
    assert_eq!(template.containers[0].boot.fixed().unwrap().as_millis(), 4000);
    // The old template is untouched.
    assert_eq!(s.run.pod.containers[0].boot.fixed().unwrap().as_millis(), 1000);
}

#[test]
fn a_bad_rollout_is_refused_where_it_is_written() {
    let rollout = "[service]\n[[disruptions]]\nat = \"5s\"\n";
    assert_eq!(
        error_of("[[disruptions]]\nat = \"5s\"\nrollout = \"Recreate\"\n"),
        "s.toml:1:3: [disruptions] needs a [service] whose replicas it disrupts: add [service] (replicas, nodes, propagation, …)"
    );
    let e = error_of(&format!("{rollout}rollout = \"Recreate\"\ndelete = 1\n"));
    assert!(
        e.starts_with("s.toml:5:1: disruption 0: delete is a kubectl delete's"),
        "{e}"
    );
    let e = error_of(&format!("{rollout}rollout = \"Recreate\"\nmax_surge = 1\n"));
    assert!(
        e.starts_with("s.toml:5:1: disruption 0: max_surge belongs to a RollingUpdate"),
        "{e}"
    );
    let e = error_of(&format!("{rollout}max_surge = 0\nmax_unavailable = \"0%\"\n"));
    assert!(
        e.starts_with("s.toml:5:19: disruption 0: max_unavailable may not be 0 when max_surge is 0"),
        "{e}"
    );
    let e = error_of(&format!("{rollout}max_surge = \"a%\"\n"));
    assert!(
        e.starts_with("s.toml:4:13: ") && e.contains("not a percentage"),
        "{e}"
    );
    let e = error_of(&format!("{rollout}rollout = \"Rolling\"\n"));
    assert!(
        e.starts_with("s.toml:4:11: ") && e.contains("RollingUpdate, Recreate"),
        "{e}"
    );
    let e = error_of(&format!(
        "{rollout}rollout = \"Recreate\"\n[[disruptions]]\nat = \"9s\"\nrollout = \"Recreate\"\n"
    ));
    assert!(
        e.starts_with("s.toml:7:11: disruption 1: disruption 0 is already a rollout"),
        "{e}"
    );
    let e = error_of(&format!(
        "{rollout}rollout = \"Recreate\"\n[[disruptions]]\nat = \"9s\"\ndelete = 0\n"
    ));
    assert!(
        e.starts_with("s.toml:7:10: disruption 1: a kubectl delete beside the rollout"),
        "{e}"
    );
    let e = error_of(&format!("{rollout}[disruptions.template.wbe]\nboot = \"2s\"\n"));
    assert!(
        e.starts_with("s.toml:4:23: ") && e.contains("did you mean \"web\""),
        "{e}"
    );
    let e = error_of(&format!("{rollout}[disruptions.template.web]\nkind = \"init\"\n"));
    assert!(
        e.starts_with("s.toml:5:1: disruption 0: template.web: kind shapes the Pod"),
        "{e}"
    );
    let e = error_of(&format!("{rollout}[disruptions.template.web]\nbot = \"2s\"\n"));
    assert!(
        e.starts_with("s.toml:5:1: ") && e.contains("did you mean \"boot\""),
        "{e}"
    );
}

#[test]
fn a_drain_and_its_budget_read_into_the_spec_and_bad_ones_are_refused() {
    use crate::model::service::*;
    let ok = format!(
        "[service]\nnodes = 2\n[pdb]\nmax_unavailable = \"25%\"\nunhealthy_pod_eviction_policy = \"AlwaysAllow\"\n\
         [[disruptions]]\nat = \"5s\"\ndrain = 1\n{POD}"
    );
    let s = Scenario::parse(&ok, "s.toml").unwrap();
    let service = s.run.service.as_deref().unwrap();
    assert_eq!(service.disruptions[0].drain, Some(1));
    assert_eq!(
        service.pdb,
        Some(Pdb {
            budget: Budget::MaxUnavailable(Scaled::Percent(25)),
            unhealthy_pod_eviction_policy: EvictionPolicy::AlwaysAllow,
        })
    );
    let e = error_of("[service]\n[pdb]\nmin_available = 2\nmax_unavailable = 1\n");
    assert!(
        e.starts_with(
            "s.toml:4:1: [pdb] max_unavailable: a budget has min_available or max_unavailable, not both"
        ),
        "{e}"
    );
    let e = error_of("[service]\nnodes = 2\n[[disruptions]]\nat = \"5s\"\ndrain = 2\n");
    assert_eq!(
        e,
        "s.toml:5:9: disruption 0: drain = 2 is beyond the nodes: with nodes = 2, drain one of 0 to 1"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\ndrain = 0\ndelete = 1\n");
    assert!(e.starts_with("s.toml:5:1: disruption 0: delete is a kubectl delete's, and drain makes this disruption a kubectl drain"), "{e}");
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\ndrain = 0\nrollout = \"Recreate\"\n");
    assert!(
        e.starts_with(
            "s.toml:4:1: disruption 0: drain makes this disruption a kubectl drain, and rollout a rollout"
        ),
        "{e}"
    );
    let e = error_of(
        "[service]\n[[disruptions]]\nat = \"5s\"\ndrain = 0\n[[disruptions]]\nat = \"6s\"\ndelete = 1\n",
    );
    assert!(
        e.starts_with("s.toml:7:10: disruption 1: a kubectl delete beside the drain of disruption 0"),
        "{e}"
    );
    let e = error_of("[pdb]\nmin_available = 1\n");
    assert!(e.starts_with("s.toml:1:2: [pdb] needs a [service]"), "{e}");
}

#[test]
fn a_service_scenario_reads_into_the_spec() {
    let text = format!(
        "seed = 4\n[service]\nreplicas = 2\npropagation = \"gcp-lb\"\n[traffic]\nrate = 8.3\n\
         connections = \"keep-alive\"\n[app]\non_sigterm = \"ignore\"\n[[disruptions]]\n\
         after_ready = \"10s\"\ndelete = 1\ngrace_period = \"5s\"\n{POD}"
    );
    let s = Scenario::parse(&text, "s.toml").unwrap();
    let service = s.run.service.as_deref().unwrap();
    use crate::model::service::*;
    assert_eq!(service.replicas, 2);
    assert_eq!(service.propagation, Propagation::Preset(Preset::GcpLb));
    let t = service.traffic.as_ref().unwrap();
    assert_eq!((t.rate.get(), t.connections), (8.3, Some(Connections::KeepAlive)));
    assert_eq!(service.app.on_sigterm, OnSigterm::Ignore);
    assert_eq!(
        service.disruptions,
        [Disruption {
            when: When::AfterReady(crate::engine::SimDuration::from_secs(10)),
            replica: 1,
            grace_period: Some(crate::engine::SimDuration::from_secs(5)),
            every: None,
            rollout: None,
            drain: None,
            unready: None,
            crash: None,
            node_failure: None,
            scale_to: None,
            annotate: None,
            node_shutdown: None,
            scale_down_node: None,
        }]
    );
    assert_eq!(s.run.stream.seed, 4);
}

#[test]
fn a_client_profile_and_an_unready_window_are_refused_where_they_contradict() {
    // retry = "once" is the ideal client's own (line 5, after `retry = `).
    assert_eq!(
        error_of("[service]\n[traffic]\nrate = 5\nclient = \"go-net-http\"\nretry = \"once\"\n"),
        "s.toml:5:9: retry = \"once\" is the ideal client's; client = \"go-net-http\" retries as its library \
         does: set connect_retries and reset_retries instead"
    );
    // Three replicas (the default): 0 to 2.
    assert_eq!(
        error_of("[service]\n[[disruptions]]\nat = \"5s\"\nunready = 3\n"),
        "s.toml:4:11: disruption 0: unready = 3 is beyond the replicas: with replicas = 3, name one of 0 to 2"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\nunready = 1\ndelete = 1\n");
    assert!(
        e.starts_with("s.toml:5:1: ") && e.contains("and delete a kubectl delete"),
        "{e}"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\nunready = 1\nevery = \"10s\"\n");
    assert!(
        e.contains("every belongs to a delete, a rollout or a drain"),
        "{e}"
    );
}

#[test]
fn a_crash_is_refused_beyond_the_replicas_and_beside_another_kind() {
    // Three replicas (the default): 0 to 2; the value starts at column 9.
    assert_eq!(
        error_of("[service]\n[[disruptions]]\nat = \"5s\"\ncrash = 3\n"),
        "s.toml:4:9: disruption 0: crash = 3 is beyond the replicas: with replicas = 3, name one of 0 to 2"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\ncrash = 1\ndelete = 1\n");
    assert!(
        e.starts_with("s.toml:5:1: ") && e.contains("crash makes this disruption a crash of its app"),
        "{e}"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\ncrash = 1\nunready = 1\n");
    assert!(
        e.contains("crash belongs to another kind, and unready makes this disruption a readiness failure"),
        "{e}"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\ncrash = 1\nevery = \"10s\"\n");
    assert!(
        e.contains("every belongs to a delete, a rollout or a drain, and crash makes"),
        "{e}"
    );
}

#[test]
fn a_lost_node_is_refused_beyond_the_nodes_beside_a_delete_and_as_a_partitioned_spot() {
    // Three nodes (the default): 0 to 2; the value starts at column 16.
    assert_eq!(
        error_of("[service]\n[[disruptions]]\nat = \"5s\"\nnode_failure = 3\n"),
        "s.toml:4:16: disruption 0: node_failure = 3 is beyond the nodes: with nodes = 3, name one of 0 to 2"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\nnode_failure = 1\ndelete = 1\n");
    assert!(
        e.starts_with("s.toml:5:1: ") && e.contains("makes this disruption a lost node"),
        "{e}"
    );
    let e = error_of(
        "[service]\n[[disruptions]]\nat = \"5s\"\ndelete = 0\n[[disruptions]]\nat = \"5s\"\nspot_reclaim = 1\n",
    );
    assert!(
        e.contains("spot_reclaim loses a node beside the kubectl delete of disruption 0"),
        "{e}"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\nspot_reclaim = 1\npartition = true\n");
    assert!(
        e.starts_with("s.toml:5:13: ") && e.contains("partition is a node failure's"),
        "{e}"
    );
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\nnode_failure = 1\ncrash = 0\n");
    assert!(
        e.contains("crash belongs to another kind, and node_failure makes"),
        "{e}"
    );
}

#[test]
fn a_lost_nodes_lease_phases_fall_within_their_cycles() {
    // The Lease's age is below the 10 s renew interval, the lag below the
    // 5 s check period (both written here, or drawn below them).
    let e = error_of("[service]\n[[disruptions]]\nat = \"5s\"\nnode_failure = 1\nlease_age = \"10s\"\n");
    assert_eq!(
        e,
        "s.toml:5:13: disruption 0: lease_age = 10s is not below lease_renew_interval = 10s: the phase falls \
         within one cycle; write less, or leave it out to draw it"
    );
    let e = error_of(
        "[service]\n[[disruptions]]\nat = \"5s\"\nnode_failure = 1\nnode_monitor_period = \"2s\"\nmonitor_lag = \"3s\"\n",
    );
    assert!(
        e.contains("monitor_lag = 3s is not below node_monitor_period = 2s"),
        "{e}"
    );
    let e =
        error_of("[service]\n[[disruptions]]\nat = \"5s\"\nnode_failure = 1\nnode_monitor_period = \"0s\"\n");
    assert!(
        e.contains("node_monitor_period = 0s: the node controller would never check"),
        "{e}"
    );
    let text =
        format!("[service]\n[[disruptions]]\nat = \"5s\"\nnode_failure = 1\nlease_age = \"9.999s\"\n{POD}");
    let s = Scenario::parse(&text, "s.toml").unwrap();
    let f = s.run.service.as_deref().unwrap().disruptions[0]
        .node_failure
        .unwrap();
    assert_eq!(f.lease_age, Some(crate::engine::SimDuration::from_millis(9999)));
}
