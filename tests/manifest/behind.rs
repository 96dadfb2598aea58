//! A Deployment behind a Service, as the manifests people apply have it:
//! the Kubernetes website's `application/deployment.yaml` (nginx, two
//! replicas, labels `app: nginx`), a Service selecting its Pods and a
//! budget after the website's `policy/zookeeper-pdb.yaml`. What the
//! Deployment, Service and budget say becomes the Service scenario; what
//! contradicts them, or what the API would refuse, is an error at its line.

use podsim::engine::SimDuration;
use podsim::model::service::{Budget, EvictionPolicy, Pdb, Scaled, Strategy};
use podsim::scenario::Scenario;
use podsim::scenario::manifest::{Syntax, parse_all};

/// The website's Deployment (lines 1–19), `EXTRA` for more spec fields
/// and `ANNOTATIONS` for the template's annotations.
const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: nginx-deployment
spec:
  selector:
    matchLabels:
      app: nginx
  replicas: 2 # tells deployment to run 2 pods matching the template
EXTRA  template:
    metadata:
      labels:
        app: nginx
      annotations:
        podsim.dev/nginx.boot: \"2s\"
ANNOTATIONS    spec:
      containers:
      - name: nginx
        image: nginx:1.14.2
        ports:
        - containerPort: 80
";

pub(super) const SERVICE: &str = "---
apiVersion: v1
kind: Service
metadata:
  name: nginx
spec:
  selector:
    app: nginx
  ports:
  - port: 80
";

pub(super) const PDB: &str = "---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: zk-pdb
spec:
  minAvailable: 2
  selector:
    matchLabels:
      app: nginx
";

pub(super) fn manifest(extra: &str, annotations: &str, rest: &str) -> String {
    let d = DEPLOYMENT
        .replace("EXTRA", extra)
        .replace("ANNOTATIONS", annotations);
    format!("{d}{rest}")
}

pub(super) fn all(text: &str) -> Vec<Result<Scenario, String>> {
    parse_all(text, "app.yaml", Syntax::Yaml, None)
        .into_iter()
        .map(|r| r.map_err(|e| e.to_string()))
        .collect()
}

pub(super) fn one(text: &str) -> Scenario {
    let mut all = all(text);
    assert_eq!(all.len(), 1);
    all.remove(0).unwrap_or_else(|e| panic!("{e}"))
}

pub(super) fn error(text: &str) -> String {
    one_result(text).expect_err("refused")
}

pub(super) fn one_result(text: &str) -> Result<Scenario, String> {
    all(text).remove(0)
}

pub(super) fn notices(s: &Scenario) -> Vec<String> {
    s.notices.iter().map(|n| n.to_string()).collect()
}

const ROLLOUT: &str = "        podsim.dev/traffic.rate: \"10\"\n        podsim.dev/disruptions.0.after_ready: \"10s\"\n\
                       \x20       podsim.dev/disruptions.0.rollout: \"RollingUpdate\"\n";

#[test]
fn a_service_makes_the_deployment_a_service_scenario_with_its_replicas_and_budget() {
    let s = one(&manifest("", "", &format!("{SERVICE}{PDB}")));
    let service = s.run.service.as_deref().expect("a Service scenario");
    assert_eq!(service.replicas, 2);
    assert_eq!(
        service.pdb,
        Some(Pdb {
            budget: Budget::MinAvailable(Scaled::Count(2)),
            unhealthy_pod_eviction_policy: EvictionPolicy::IfHealthyBudget,
        })
    );
    assert!(service.disruptions.is_empty());
    // Every replica is simulated: no "one Pod" notice; the Service and the
    // budget are read, not skipped.
    let n = notices(&s);
    assert!(
        n.iter()
            .all(|n| !n.contains("simulates one Pod") && !n.contains("skipped")),
        "{n:?}"
    );
}

#[test]
fn the_deployments_strategy_is_the_declared_rollouts() {
    // Unwritten, the strategy is the API's default: RollingUpdate 25%/25%.
    let s = one(&manifest("", ROLLOUT, SERVICE));
    let r = s.run.service.as_deref().unwrap().disruptions[0]
        .rollout
        .clone()
        .unwrap();
    assert_eq!(
        (r.strategy, r.max_surge, r.max_unavailable, r.min_ready),
        (
            Strategy::RollingUpdate,
            Scaled::Percent(25),
            Scaled::Percent(25),
            SimDuration::ZERO
        )
    );
    let extra =
        "  minReadySeconds: 5\n  strategy:\n    rollingUpdate:\n      maxSurge: 2\n      maxUnavailable: 0\n";
    let s = one(&manifest(extra, ROLLOUT, SERVICE));
    let r = s.run.service.as_deref().unwrap().disruptions[0]
        .rollout
        .clone()
        .unwrap();
    assert_eq!(
        (r.max_surge, r.max_unavailable, r.min_ready),
        (Scaled::Count(2), Scaled::Count(0), SimDuration::from_secs(5))
    );
    // A Recreate, declared by an annotation that agrees with it.
    let extra = "  strategy:\n    type: Recreate\n";
    let s = one(&manifest(
        extra,
        &ROLLOUT.replace("\"RollingUpdate\"", "\"Recreate\""),
        SERVICE,
    ));
    let r = s.run.service.as_deref().unwrap().disruptions[0]
        .rollout
        .clone()
        .unwrap();
    assert_eq!(r.strategy, Strategy::Recreate);
    // A drain evicts through the budget.
    let drain = "        podsim.dev/disruptions.0.after_ready: \"10s\"\n        podsim.dev/disruptions.0.drain: \"1\"\n";
    let s = one(&manifest("", drain, &format!("{SERVICE}{PDB}")));
    let service = s.run.service.as_deref().unwrap();
    assert_eq!(
        (service.disruptions[0].drain, service.pdb.is_some()),
        (Some(1), true)
    );
}

#[test]
fn an_annotation_may_repeat_the_manifest_but_not_contradict_it() {
    // Agreeing: accepted.
    let same = "        podsim.dev/service.replicas: \"2\"\n";
    assert_eq!(one(&manifest("", same, SERVICE)).run.service.unwrap().replicas, 2);
    // Line 16 is the first annotation after nginx.boot.
    assert_eq!(
        error(&manifest(
            "",
            "        podsim.dev/service.replicas: \"5\"\n",
            SERVICE
        )),
        "app.yaml:16:9: service.replicas contradicts the Deployment's spec.replicas: 2 (9:13), which podsim \
         reads as it is: the manifest is the source of truth; edit it there, or drop service.replicas"
    );
    let e = error(&manifest(
        "",
        &ROLLOUT.replace("\"RollingUpdate\"", "\"Recreate\""),
        SERVICE,
    ));
    assert!(
        e.starts_with(
            "app.yaml:18:9: disruptions.0.rollout contradicts the Deployment's spec.strategy.type, unset \
                       (the API's default: RollingUpdate)"
        ),
        "{e}"
    );
    let recreate = format!("{ROLLOUT}        podsim.dev/disruptions.0.max_unavailable: \"1\"\n")
        .replace("\"RollingUpdate\"", "\"Recreate\"");
    let e = error(&manifest("  strategy:\n    type: Recreate\n", &recreate, SERVICE));
    assert!(
        e.starts_with(
            "app.yaml:21:9: disruptions.0.max_unavailable contradicts the Deployment's spec.strategy.type: \
                       Recreate (11:11)"
        ),
        "{e}"
    );
    let e = error(&manifest(
        "",
        "        podsim.dev/pdb.max_unavailable: \"1\"\n",
        &format!("{SERVICE}{PDB}"),
    ));
    assert!(
        e.starts_with("app.yaml:16:9: pdb.max_unavailable contradicts PodDisruptionBudget \"zk-pdb\"'s spec.minAvailable: 2"),
        "{e}"
    );
}

#[test]
fn what_the_api_refuses_in_the_deployment_or_budget_is_refused_at_its_line() {
    let e = error(&manifest(
        "  strategy:\n    type: Recreate\n    rollingUpdate:\n      maxSurge: 1\n",
        "",
        SERVICE,
    ));
    assert!(
        e.starts_with(
            "app.yaml:13:7: spec.strategy.rollingUpdate: may not be set when the strategy type is Recreate"
        ),
        "{e}"
    );
    let zero = "  strategy:\n    rollingUpdate:\n      maxSurge: 0\n      maxUnavailable: 0%\n";
    let e = error(&manifest(zero, "", SERVICE));
    assert!(
        e.starts_with(
            "app.yaml:13:23: spec.strategy.rollingUpdate.maxUnavailable: may not be 0 when maxSurge is 0"
        ),
        "{e}"
    );
    let e = error(&manifest("  strategy:\n    type: Rolling\n", "", SERVICE));
    assert!(
        e.starts_with("app.yaml:11:11: spec.strategy.type: ") && e.contains("did you mean \"RollingUpdate\""),
        "{e}"
    );
    let e = error(&manifest(
        "  strategy:\n    rollingUpdate:\n      maxSurge: three\n",
        "",
        SERVICE,
    ));
    assert!(
        e.contains("spec.strategy.rollingUpdate.maxSurge: \"three\" is neither a count nor a percentage"),
        "{e}"
    );
    let e = error(&manifest(
        "",
        "",
        &format!(
            "{SERVICE}{}",
            PDB.replace("  minAvailable: 2\n", "  minAvailable: 2\n  maxUnavailable: 1\n")
        ),
    ));
    assert!(
        e.starts_with(
            "app.yaml:39:19: spec.maxUnavailable: a budget has minAvailable or maxUnavailable, not both"
        ),
        "{e}"
    );
    let e = error(&manifest(
        "",
        "",
        &format!("{SERVICE}{}", PDB.replace("policy/v1", "policy/v1beta1")),
    ));
    assert!(
        e.contains("apiVersion \"policy/v1beta1\" of PodDisruptionBudget was removed in Kubernetes 1.25; write apiVersion: policy/v1"),
        "{e}"
    );
    let e = error(&manifest(
        "",
        "",
        &format!(
            "{SERVICE}{}",
            PDB.replace(
                "  minAvailable: 2\n",
                "  minAvailable: 2\n  unhealthyPodEvictionPolicy: Always\n"
            )
        ),
    ));
    assert!(
        e.contains("spec.unhealthyPodEvictionPolicy: ") && e.contains("AlwaysAllow"),
        "{e}"
    );
    // Two budgets over the same Pods: the Eviction API refuses to evict.
    let e = error(&manifest(
        "",
        "",
        &format!("{SERVICE}{PDB}{}", PDB.replace("zk-pdb", "second")),
    ));
    assert!(
        e.starts_with("app.yaml:44:1: PodDisruptionBudget \"second\" selects the Deployment"),
        "{e}"
    );
    let e = error(&manifest("", "", SERVICE).replace("replicas: 2 #", "replicas: 0 #"));
    assert!(
        e.starts_with("app.yaml:9:13: spec.replicas: 0 replicas behind a Service"),
        "{e}"
    );
}

#[test]
fn a_service_that_selects_no_deployment_is_skipped_saying_why() {
    let other = SERVICE.replace("    app: nginx\n", "    app: web\n");
    let s = one(&manifest("", "", &other));
    assert!(s.run.service.is_none());
    let n = notices(&s);
    assert!(
        n.contains(
            &"app.yaml:24:1: skipped Service \"nginx\": not a workload; its selector (app=web) matches no \
                     Pod template of the file (in namespace default), so it would have no endpoints"
                .to_string()
        ),
        "{n:?}"
    );
    assert!(
        n.iter()
            .any(|n| n.contains("replicas: 2; podsim simulates one Pod of the Deployment")),
        "{n:?}"
    );
    // Another namespace's Service selects no Pod of this one.
    let elsewhere = SERVICE.replace("  name: nginx\n", "  name: nginx\n  namespace: shop\n");
    assert!(one(&manifest("", "", &elsewhere)).run.service.is_none());
    // A StatefulSet's Pods: told that the Service model runs a Deployment's.
    let set =
        manifest("  serviceName: nginx\n", "", SERVICE).replace("kind: Deployment", "kind: StatefulSet");
    let s = one(&set);
    assert!(s.run.service.is_none());
    assert!(
        notices(&s)
            .iter()
            .any(|n| n.contains("it selects the StatefulSet \"nginx-deployment\"'s Pods")),
        "{:?}",
        notices(&s)
    );
    // A budget without a Service is not consulted.
    let s = one(&manifest("", "", PDB));
    assert!(
        notices(&s)
            .iter()
            .any(|n| n.contains("skipped PodDisruptionBudget \"zk-pdb\": not a workload; the Deployment")),
        "{:?}",
        notices(&s)
    );
}

#[test]
fn the_overlay_may_not_contradict_the_manifest_either() {
    let overlay = podsim::scenario::manifest::Timings::parse("[service]\nreplicas = 4\n", "t.toml").unwrap();
    let e = parse_all(
        &manifest("", "", SERVICE),
        "app.yaml",
        Syntax::Yaml,
        Some(&overlay),
    )
    .remove(0)
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with("t.toml:2:1: service.replicas contradicts the Deployment's spec.replicas: 2 (9:13)"),
        "{e}"
    );
}

#[test]
fn a_rollout_declared_without_a_service_document_still_takes_the_deployments_strategy() {
    // The annotations make the Service (three replicas, not the
    // Deployment's two: no Service document says whose they are); the
    // rollout is the Deployment's, surge 2.
    let extra = "  strategy:\n    rollingUpdate:\n      maxSurge: 2\n";
    let annotations = format!("        podsim.dev/service.replicas: \"3\"\n{ROLLOUT}");
    let s = one(&manifest(extra, &annotations, ""));
    let service = s.run.service.as_deref().unwrap();
    let r = service.disruptions[0].rollout.clone().unwrap();
    assert_eq!(
        (service.replicas, r.max_surge, r.max_unavailable),
        (3, Scaled::Count(2), Scaled::Percent(25))
    );
    let e = error(&manifest(
        extra,
        &format!("{annotations}        podsim.dev/disruptions.0.max_surge: \"1\"\n"),
        "",
    ));
    assert!(e.contains("disruptions.0.max_surge contradicts the Deployment's spec.strategy.rollingUpdate.maxSurge: 2 (12:17)"), "{e}");
    // A plain Deployment stays a Pod scenario.
    assert!(one(&manifest(extra, "", "")).run.service.is_none());
}

/// R80 behind a Service: an app whose PID 1 is `sleep` (Istio's
/// `samples/sleep` runs `/bin/sleep infinity`) ignores SIGTERM, so it keeps
/// its listener and serves until SIGKILL: `on_sigterm = "ignore"`, where
/// the default is close-then-drain. A setting of `app.on_sigterm`, or of
/// the app's `drain`, wins.
#[test]
fn a_served_app_without_a_sigterm_handler_serves_on_until_sigkill() {
    use podsim::model::service::OnSigterm;
    let sleeping = manifest("", "", SERVICE).replace(
        "        image: nginx:1.14.2\n",
        "        image: curlimages/curl:8.16.0\n        command: [\"/bin/sleep\", \"infinity\"]\n",
    );
    let on_sigterm = |text: &str| one(text).run.service.as_deref().unwrap().app.on_sigterm;
    assert_eq!(on_sigterm(&sleeping), OnSigterm::Ignore);
    assert_eq!(on_sigterm(&manifest("", "", SERVICE)), OnSigterm::CloseThenDrain);
    let told = sleeping.replace(
        "        podsim.dev/nginx.boot: \"2s\"\n",
        "        podsim.dev/nginx.boot: \"2s\"\n        podsim.dev/app.on_sigterm: \"delay-then-drain\"\n",
    );
    assert_ne!(told, sleeping);
    assert_eq!(on_sigterm(&told), OnSigterm::DelayThenDrain);
    // A drain set for it says it handles SIGTERM: the default stands.
    let drains = sleeping.replace(
        "        podsim.dev/nginx.boot: \"2s\"\n",
        "        podsim.dev/nginx.boot: \"2s\"\n        podsim.dev/nginx.drain: \"1s\"\n",
    );
    assert_eq!(on_sigterm(&drains), OnSigterm::CloseThenDrain);
}

#[test]
fn a_service_whose_pods_nothing_disrupts_is_told_how_to_delete_one_that_it_accepts() {
    // stop_after_ready is refused in a Service scenario: the notice names
    // the disruption annotations, and following it silences it.
    let s = one(&manifest("", "", SERVICE));
    let told: Vec<String> = notices(&s)
        .into_iter()
        .filter(|n| n.contains("ever deleted"))
        .collect();
    assert_eq!(
        told,
        [
            "app.yaml:10:3: no Pod of the Service is ever deleted, so no request fails by one going away; annotate \
          podsim.dev/disruptions.0.after_ready: \"10s\" and podsim.dev/disruptions.0.delete: \"1\" (or write \
          [[disruptions]] in a timings file) to see one go"
        ]
    );
    let advised = "        podsim.dev/disruptions.0.after_ready: \"10s\"\n        podsim.dev/disruptions.0.delete: \"1\"\n";
    let s = one(&manifest("", advised, SERVICE));
    assert!(
        !notices(&s).iter().any(|n| n.contains("ever deleted")),
        "{:?}",
        notices(&s)
    );
}

#[test]
fn a_service_no_client_calls_is_told_how_to_send_requests() {
    // No traffic: every request count is 0, which reads as safe although
    // nothing was tried; following the notice silences it.
    let s = one(&manifest("", "", SERVICE));
    let told: Vec<String> = notices(&s)
        .into_iter()
        .filter(|n| n.contains("no client"))
        .collect();
    assert_eq!(
        told,
        [
            "app.yaml:10:3: no client sends the Service requests, so none can fail; annotate \
             podsim.dev/traffic.rate: \"50\" (requests per second; or [traffic] rate = 50 in a timings file) to \
             count them"
        ]
    );
    let s = one(&manifest(
        "",
        "        podsim.dev/traffic.rate: \"50\"\n",
        SERVICE,
    ));
    assert!(
        !notices(&s).iter().any(|n| n.contains("no client")),
        "{:?}",
        notices(&s)
    );
}
