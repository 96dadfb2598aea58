//! A PodDisruptionBudget beside a Deployment behind a Service, as the API
//! reads one: its selector, its fields' bounds, and a budget with neither
//! field, which the API accepts and the disruption controller answers by
//! allowing no disruption. The manifests are `behind.rs`'s.

use podsim::model::service::{Budget, EvictionPolicy, Pdb};

use super::behind::{PDB, SERVICE, error, manifest, notices, one};

#[test]
fn a_budget_selects_by_expressions_as_a_label_selector_does() {
    let with = |expression: &str| {
        let pdb = PDB.replace(
            "    matchLabels:\n      app: nginx\n",
            &format!("    matchExpressions:\n    - {expression}\n"),
        );
        selects(&pdb)
    };
    assert!(with("{key: app, operator: In, values: [web, nginx]}"));
    assert!(!with("{key: app, operator: NotIn, values: [nginx]}"));
    assert!(with("{key: tier, operator: DoesNotExist}"));
    assert!(!with("{key: tier, operator: Exists}"));
    let pdb = PDB.replace(
        "    matchLabels:\n      app: nginx\n",
        "    matchExpressions:\n    - {key: app, operator: in}\n",
    );
    let e = error(&manifest("", "", &format!("{SERVICE}{pdb}")));
    assert!(
        e.contains("spec.selector.matchExpressions[0].operator: ") && e.contains("\"In\""),
        "{e}"
    );
    // An empty selector selects every Pod of the namespace (policy/v1).
    let pdb = PDB.replace(
        "  selector:\n    matchLabels:\n      app: nginx\n",
        "  selector: {}\n",
    );
    assert!(selects(&pdb));
}

/// Whether the Deployment behind the Service is under the budget `pdb`.
fn selects(pdb: &str) -> bool {
    let s = one(&manifest("", "", &format!("{SERVICE}{pdb}")));
    s.run.service.unwrap().pdb.is_some()
}

#[test]
fn a_percentage_above_100_is_refused_on_either_field() {
    // ValidatePodDisruptionBudgetSpec calls IsNotMoreThan100Percent on
    // minAvailable and on maxUnavailable (kubernetes
    // pkg/apis/policy/validation/validation.go at 01aa0f3f6052).
    let e = error(&manifest(
        "",
        "",
        &format!(
            "{SERVICE}{}",
            PDB.replace("minAvailable: 2", "minAvailable: 120%")
        ),
    ));
    assert_eq!(
        e,
        "app.yaml:38:17: spec.minAvailable: \"120%\" is above 100%; write \"100%\" at most"
    );
    let e = error(&manifest(
        "",
        "",
        &format!(
            "{SERVICE}{}",
            PDB.replace("minAvailable: 2", "maxUnavailable: \"101%\"")
        ),
    ));
    assert!(
        e.starts_with("app.yaml:38:19: spec.maxUnavailable: \"101%\" is above 100%"),
        "{e}"
    );
    let s = one(&manifest(
        "",
        "",
        &format!(
            "{SERVICE}{}",
            PDB.replace("minAvailable: 2", "minAvailable: 100%")
        ),
    ));
    assert!(s.run.service.unwrap().pdb.is_some());
}

#[test]
fn a_budget_with_neither_field_allows_no_disruption_and_says_so() {
    // The API accepts it (no default, no validation error); the disruption
    // controller leaves expectedCount at 0 and so disruptionsAllowed at 0
    // (pkg/controller/disruption/disruption.go at 003e86297d18).
    let pdb = PDB.replace("  minAvailable: 2\n", "");
    let s = one(&manifest("", "", &format!("{SERVICE}{pdb}")));
    assert_eq!(
        s.run.service.as_deref().unwrap().pdb,
        Some(Pdb {
            budget: Budget::Unset,
            unhealthy_pod_eviction_policy: EvictionPolicy::IfHealthyBudget,
        })
    );
    let n = notices(&s);
    assert!(
        n.iter().any(|n| n.starts_with(
            "app.yaml:37:1: PodDisruptionBudget \"zk-pdb\" sets neither minAvailable nor maxUnavailable: \
             the disruption controller then allows no disruption"
        )),
        "{n:?}"
    );
    // What it leaves unset, an annotation may not set.
    let e = error(&manifest(
        "",
        "        podsim.dev/pdb.min_available: \"1\"\n",
        &format!("{SERVICE}{pdb}"),
    ));
    assert!(
        e.contains("pdb.min_available contradicts PodDisruptionBudget \"zk-pdb\"'s spec.minAvailable, unset"),
        "{e}"
    );
}

#[test]
fn a_budget_in_another_namespace_is_skipped_naming_its_namespace() {
    // A budget selects Pods of its own namespace only; the Deployment and
    // the Service have none, so they are in `default`, and the budget in
    // `shop` guards nothing: the notice says which namespace it looked in.
    let pdb = PDB.replace("  name: zk-pdb\n", "  name: zk-pdb\n  namespace: shop\n");
    let s = one(&manifest("", "", &format!("{SERVICE}{pdb}")));
    assert_eq!(s.run.service.as_deref().unwrap().pdb, None);
    let n = notices(&s);
    assert!(
        n.iter().any(|n| n.ends_with(
            "skipped PodDisruptionBudget \"zk-pdb\": not a workload; its selector matches no Pod template of \
             the file behind a Service (in namespace shop)"
        )),
        "{n:?}"
    );
}
