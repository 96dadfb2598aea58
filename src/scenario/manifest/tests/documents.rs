//! The manifest reader on a file's shape rather than a workload's kind:
//! several documents in one file (the ones podsim does not run skipped
//! with a notice), a `List` as kubectl prints it, JSON, and the position of
//! a type or syntax error.
//!
//! Apart from `kinds` because these hold for every kind: they test how a
//! file is split into workloads, not how one workload is read.

use super::kinds::JOB;
use super::*;

#[test]
fn other_documents_are_skipped_with_a_notice_and_every_workload_runs() {
    let service = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n";
    let s = scenario(&format!("{service}---\n{POD}---\n"));
    assert_eq!(s.name, "demo");
    assert_eq!(
        s.notices[0].to_string(),
        "pod.yaml:2:1: skipped Service \"web\": not a workload; no selector, so the endpoints controller \
         gives it no Pods (its EndpointSlices are written by hand)"
    );
    // Positions stay those of the whole file.
    let e = error(&format!(
        "{service}---\n{}",
        POD.replace("kind: Pod", "kind: Pdo")
    ));
    assert!(e.starts_with("pod.yaml:10:7: unknown kind \"Pdo\""), "{e}");
    let both = format!("{POD}---\n{JOB}");
    let all = parse_all(&both, "pod.yaml", Syntax::Yaml, None);
    let names: Vec<_> = all
        .iter()
        .flatten()
        .map(|s| (s.name.as_str(), s.workload))
        .collect();
    assert_eq!(
        names,
        [
            ("demo", Some(WorkloadKind::Pod)),
            ("batch", Some(WorkloadKind::Job))
        ]
    );
    // Where one is needed (a sweep's base), several are an error.
    assert_eq!(
        error(&both),
        "pod.yaml: 2 workloads in one file (Pod \"demo\", Job \"batch\"); one is needed here: put it in a \
         file of its own"
    );
    // A refused workload does not stop the others.
    let all = parse_all(
        &format!("{}---\n{JOB}", POD.replace("image: nginx", "imag: nginx")),
        "pod.yaml",
        Syntax::Yaml,
        None,
    );
    assert!(
        all[0]
            .as_ref()
            .unwrap_err()
            .to_string()
            .starts_with("pod.yaml:23:5: unknown field")
    );
    assert_eq!(all[1].as_ref().map(|s| s.name.as_str()), Ok("batch"));
    assert_eq!(
        error(&format!("{service}---\n{service}")),
        format!(
            "pod.yaml: no workload in the file (found Service \"web\" at 2:1, Service \"web\" at 10:1); \
             podsim reads {KINDS}"
        )
    );
}

#[test]
fn type_and_syntax_errors_carry_the_position_the_yaml_crate_gives() {
    let e = error(&POD.replace(
        "terminationGracePeriodSeconds: 20",
        "terminationGracePeriodSeconds: soon",
    ));
    assert!(e.starts_with("pod.yaml:14:"), "{e}");
    let e = error(&POD.replace("[\"/bin/sh\", \"-c\", \"sleep 5\"]", "[\"/bin/sh\""));
    assert!(e.starts_with("pod.yaml:2"), "{e}");
    assert!(e.contains("invalid YAML"), "{e}");
}

/// `kubectl get pods -o yaml` prints a `List`; a `PodList` from the API
/// leaves each item's kind out.
#[test]
fn a_list_runs_each_item_as_kubectl_prints_them() {
    let item = |name: &str, extra: &str| {
        format!(
            "- apiVersion: v1\n  kind: Pod\n  metadata:\n    name: {name}\n  spec:\n{extra}    containers:\n    \
             - name: web\n      image: nginx\n"
        )
    };
    let list = |b: &str| {
        format!(
            "apiVersion: v1\nitems:\n{}{}kind: List\nmetadata:\n  resourceVersion: \"\"\n",
            item("a", ""),
            item("b", b)
        )
    };
    let text = list("");
    let all = parse_all(&text, "pod.yaml", Syntax::Yaml, None);
    let names: Vec<_> = all.iter().flatten().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a", "b"]);
    // Item b's spec starts on line 15; its first key is line 16.
    let all = parse_all(
        &list("    terminationGracePeriodSeconds: 1.5\n"),
        "pod.yaml",
        Syntax::Yaml,
        None,
    );
    assert!(all[0].is_ok());
    assert_eq!(
        all[1].as_ref().unwrap_err().to_string(),
        "pod.yaml:16:36: items[1].spec.terminationGracePeriodSeconds: 1.5 is not a whole number of seconds; \
         Kubernetes keeps terminationGracePeriodSeconds in whole seconds: write 1 or 2"
    );
    let pod_list = text
        .replace("kind: List", "kind: PodList")
        .replace("  kind: Pod\n", "")
        .replace("- apiVersion: v1\n  metadata", "- metadata");
    let all = parse_all(&pod_list, "pod.yaml", Syntax::Yaml, None);
    assert_eq!(all.iter().flatten().count(), 2, "{all:?}");
}

#[test]
fn json_as_kubectl_prints_it_is_read_like_yaml() {
    let text = "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"Pod\",\n    \"metadata\": {\"name\": \"j\", \"annotations\": {\"podsim.dev/web.boot\": \"4s\"}},\n    \"spec\": {\"containers\": [{\"name\": \"web\", \"image\": \"nginx\"}]}\n}\n";
    let all = parse_all(text, "pod.json", Syntax::Json, None);
    let s = all[0].as_ref().unwrap();
    assert_eq!(s.run.pod.containers[0].boot, SimDuration::from_secs(4));
    let e = parse_all(
        &text.replace("\"nginx\"", "[\"nginx\"]"),
        "pod.json",
        Syntax::Json,
        None,
    );
    assert_eq!(
        e[0].as_ref().unwrap_err().to_string(),
        "pod.json:5:54: spec.containers[0].image: expected a string here"
    );
}
