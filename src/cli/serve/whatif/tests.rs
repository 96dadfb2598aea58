//! The what-ifs on each format: the text expected after each is written
//! out by hand, and the scenario read back from it has the change.

use podsim::engine::SimDuration;
use podsim::model::{ContainerKind, Deletion, Dist};
use podsim::scenario::{InputFormat, Scenario};

use super::{WhatIf, apply};

/// The Kubernetes website's sidecar Deployment, cut down: a native sidecar
/// `logshipper` and the app `myapp`, with comments to keep.
const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: myapp
spec:
  selector:
    matchLabels:
      app: myapp
  template:
    metadata:
      labels:
        app: myapp   # the selector's
    spec:
      containers:
        - name: myapp
          image: alpine:latest
      initContainers:
        - name: logshipper
          image: alpine:latest
          # Setting restartPolicy: Always makes this a sidecar container.
          restartPolicy: Always
          command: ['sh', '-c', 'tail -F /opt/logs.txt']
";

/// `DEPLOYMENT` with `lines` as its Pod template's annotations.
fn annotated(lines: &str) -> String {
    DEPLOYMENT.replace(
        "      labels:\n",
        &format!("      annotations:\n{lines}      labels:\n"),
    )
}

fn scenario(text: &str, index: usize) -> Scenario {
    let all = Scenario::read_all(text, "t", InputFormat::sniff(text), None);
    all.into_iter().nth(index).unwrap().unwrap()
}

fn whatif(text: &str, workload: usize, what: WhatIf, at_ms: u64) -> String {
    apply(text, workload, what, SimDuration::from_millis(at_ms))
        .unwrap_or_else(|e| panic!("{what:?}: {e}"))
        .0
}

#[test]
fn an_annotation_goes_under_the_templates_metadata_with_its_indentation() {
    let edited = whatif(DEPLOYMENT, 0, WhatIf::DeleteNow, 3500);
    let want = DEPLOYMENT.replace(
        "        app: myapp   # the selector's\n",
        "        app: myapp   # the selector's\n      annotations:\n        podsim.dev/stop_at: \"3.5s\"\n",
    );
    assert_eq!(edited, want);
    assert_eq!(
        scenario(&edited, 0).run.pod.deletion,
        Deletion::At(SimDuration::from_millis(3500))
    );
    // Again: the annotation is replaced where it is, not added twice.
    let again = whatif(&edited, 0, WhatIf::DeleteNow, 1000);
    assert_eq!(again, want.replace("\"3.5s\"", "\"1s\""));
}

#[test]
fn a_stop_after_ready_annotation_gives_way_to_stop_at() {
    let text = annotated(
        "        podsim.dev/stop_after_ready: \"5s\"   # see it stop\n        podsim.dev/myapp.boot: \"2s\"\n",
    );
    let edited = whatif(&text, 0, WhatIf::DeleteNow, 2000);
    assert_eq!(
        edited,
        annotated("        podsim.dev/myapp.boot: \"2s\"\n        podsim.dev/stop_at: \"2s\"\n")
    );
}

#[test]
fn the_native_sidecar_moves_to_containers_and_back() {
    // Side by side: first in containers, without its restartPolicy line;
    // initContainers, left empty, goes; the comment moves with the entry.
    let proxy = annotated("        podsim.dev/logshipper.proxy: \"true\"\n");
    let beside = whatif(&proxy, 0, WhatIf::ProxyLayout, 0);
    assert_eq!(
        beside,
        proxy.replace(
            "      containers:\n        - name: myapp\n          image: alpine:latest\n      initContainers:\n        - name: logshipper\n          image: alpine:latest\n          # Setting restartPolicy: Always makes this a sidecar container.\n          restartPolicy: Always\n          command: ['sh', '-c', 'tail -F /opt/logs.txt']\n",
            "      containers:\n        - name: logshipper\n          image: alpine:latest\n          # Setting restartPolicy: Always makes this a sidecar container.\n          command: ['sh', '-c', 'tail -F /opt/logs.txt']\n        - name: myapp\n          image: alpine:latest\n",
        )
    );
    let kinds = |text: &str| -> Vec<(String, ContainerKind)> {
        let s = scenario(text, 0);
        s.run
            .pod
            .containers
            .iter()
            .map(|c| (c.name.clone(), c.kind))
            .collect()
    };
    assert_eq!(
        kinds(&beside),
        [
            ("logshipper".into(), ContainerKind::App),
            ("myapp".into(), ContainerKind::App)
        ]
    );
    // And back: a new initContainers before containers, the entry last in
    // it, restartPolicy: Always after its name.
    let back = whatif(&beside, 0, WhatIf::ProxyLayout, 0);
    assert!(
        back.contains("    spec:\n      initContainers:\n        - name: logshipper\n          restartPolicy: Always\n          image: alpine:latest\n"),
        "{back}"
    );
    assert_eq!(
        kinds(&back),
        [
            ("logshipper".into(), ContainerKind::Sidecar),
            ("myapp".into(), ContainerKind::App)
        ]
    );
}

#[test]
fn a_prestop_is_a_lifecycle_sleep_where_the_manifest_has_none() {
    let edited = whatif(DEPLOYMENT, 0, WhatIf::PreStop, 0);
    assert_eq!(
        edited,
        DEPLOYMENT.replace(
            "          image: alpine:latest\n      initContainers:",
            "          image: alpine:latest\n          lifecycle:\n            preStop:\n              sleep:\n                seconds: 5\n      initContainers:",
        )
    );
    let s = scenario(&edited, 0);
    let app = s.run.pod.containers.iter().find(|c| c.name == "myapp").unwrap();
    assert_eq!(app.pre_stop, Some(Dist::Fixed(SimDuration::from_secs(5))));
}

#[test]
fn each_workload_of_a_file_is_edited_apart() {
    let second = "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: solo\nspec:\n  initContainers:\n  - name: setup\n    image: busybox\n  containers:\n  - name: web\n    image: nginx\n";
    let text = format!("{DEPLOYMENT}{second}");
    let edited = whatif(&text, 1, WhatIf::FailInit, 0);
    assert_eq!(
        edited,
        format!(
            "{DEPLOYMENT}{}",
            second.replace(
                "  name: solo\n",
                "  name: solo\n  annotations:\n    podsim.dev/setup.fails: \"1\"\n"
            )
        )
    );
    // The Deployment has no regular init container: said, nothing changed.
    let e = apply(&text, 0, WhatIf::FailInit, SimDuration::ZERO).unwrap_err();
    assert_eq!(e, "this Pod has no init container");
}

#[test]
fn a_node_written_on_one_line_is_refused_not_rewritten() {
    let text = DEPLOYMENT.replace(
        "      labels:\n        app: myapp   # the selector's\n",
        "      labels: {app: myapp}\n      annotations: {a: b}\n",
    );
    let e = apply(&text, 0, WhatIf::DeleteNow, SimDuration::ZERO).unwrap_err();
    assert!(
        e.contains("spec.template.metadata.annotations is written on one line ({a: b}"),
        "{e}"
    );
}

#[test]
fn a_json_manifest_is_edited_as_values_and_keeps_its_indentation() {
    let text = "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"metadata\": {\"name\": \"p\"},\n    \"spec\": {\"containers\": [{\"name\": \"web\", \"image\": \"nginx\"}, {\"name\": \"proxy\", \"image\": \"envoy\"}]}\n}\n";
    let text = text.replace(
        "\"metadata\": {\"name\": \"p\"}",
        "\"metadata\": {\"name\": \"p\", \"annotations\": {\"podsim.dev/proxy.proxy\": \"true\"}}",
    );
    let edited = whatif(&text, 0, WhatIf::ProxyLayout, 0);
    assert_eq!(
        edited,
        "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"metadata\": {\n        \"name\": \"p\",\n        \"annotations\": {\n            \"podsim.dev/proxy.proxy\": \"true\"\n        }\n    },\n    \"spec\": {\n        \"containers\": [\n            {\n                \"name\": \"web\",\n                \"image\": \"nginx\"\n            }\n        ],\n        \"initContainers\": [\n            {\n                \"name\": \"proxy\",\n                \"image\": \"envoy\",\n                \"restartPolicy\": \"Always\"\n            }\n        ]\n    }\n}\n"
    );
    let edited = whatif(&edited, 0, WhatIf::PreStop, 0);
    let s = scenario(&edited, 0);
    let web = s.run.pod.containers.iter().find(|c| c.name == "web").unwrap();
    assert_eq!(web.pre_stop, Some(Dist::Fixed(SimDuration::from_secs(5))));
}

#[test]
fn a_service_manifest_gets_its_service_and_traffic_annotations() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scenarios/service/rollout.yaml"
    ))
    .unwrap();
    // tiny → medium, in place; the comment above the Deployment stays.
    let edited = whatif(&text, 0, WhatIf::Propagation, 0);
    assert_eq!(
        edited,
        text.replace(
            "podsim.dev/service.propagation: \"tiny\"",
            "podsim.dev/service.propagation: \"medium\""
        )
    );
    let edited = whatif(&text, 0, WhatIf::Connections, 0);
    assert_eq!(
        edited,
        text.replace(
            "podsim.dev/traffic.connections: \"new\"",
            "podsim.dev/traffic.connections: \"keep-alive\""
        )
    );
    let e = apply(&text, 0, WhatIf::DeleteNow, SimDuration::ZERO).unwrap_err();
    assert!(e.contains("disruptions"), "{e}");
}
