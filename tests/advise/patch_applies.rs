//! The patch `podsim advise` prints, applied as `kubectl patch --type
//! strategic` applies it, to the manifest it was made for: the patched
//! manifest reads as a Deployment (k8s-openapi's type), is simulated
//! again, and the target holds there (failed p99 0, no SIGKILL), on the
//! search's replications and on fresh ones.
//!
//! The merge is the strategic merge's rules for the fields a patch of
//! advise's touches (Kubernetes' `strategicpatch` package, and the
//! `patchMergeKey` tags of `PodSpec` in k8s.io/api/core/v1/types.go):
//! maps merge key by key; `null` deletes a key; `$patch: replace` in a map
//! replaces the whole map; `containers` and `initContainers` merge by
//! `name` (patchStrategy "merge", patchMergeKey "name"); any other list is
//! replaced.

use k8s_openapi::api::apps::v1::Deployment;
use serde_json::{Value, json};

use podsim::advise::{Advice, Measurer, Point, Request, Target, advise};
use podsim::report::advice;
use podsim::scenario::key::{Field, Key};
use podsim::scenario::manifest::Timings;
use podsim::scenario::{InputFormat, Scenario};

/// Lists merged by a key: their field name and that key.
const MERGED_BY_NAME: [&str; 2] = ["containers", "initContainers"];

/// `patch` applied to `target` as a strategic merge.
fn merge(target: &mut Value, patch: &Value) {
    let (Value::Object(into), Value::Object(from)) = (&mut *target, patch) else {
        *target = patch.clone();
        return;
    };
    if from.get("$patch").and_then(Value::as_str) == Some("replace") {
        let mut replaced = from.clone();
        replaced.remove("$patch");
        *into = replaced;
        return;
    }
    for (key, value) in from {
        match value {
            Value::Null => {
                into.remove(key);
            }
            Value::Array(items) if MERGED_BY_NAME.contains(&key.as_str()) => {
                let list = into.entry(key.clone()).or_insert_with(|| json!([]));
                for item in items {
                    merge_by_name(list, item);
                }
            }
            _ => merge(into.entry(key.clone()).or_insert(Value::Null), value),
        }
    }
}

/// `item` merged into the entry of `list` with its name, or appended.
fn merge_by_name(list: &mut Value, item: &Value) {
    let list = list.as_array_mut().expect("a list");
    match list.iter_mut().find(|c| c["name"] == item["name"]) {
        Some(entry) => merge(entry, item),
        None => list.push(item.clone()),
    }
}

fn read_manifest(text: &str) -> Vec<Value> {
    let docs: Vec<Value> = serde_saphyr::from_multiple(text).expect("the manifest is YAML");
    docs.into_iter().filter(|d| !d.is_null()).collect()
}

fn manifests(name: &str) -> String {
    format!("{}/tests/manifests/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The one Service scenario of `file` (a manifest) with its timings file.
fn load(file: &str, timings: Option<&str>) -> (Scenario, String, Option<Timings>) {
    let text = std::fs::read_to_string(manifests(file)).expect("the manifest reads");
    let timings = timings.map(|t| Timings::load(std::path::Path::new(&manifests(t))).expect("timings read"));
    let scenario = read(&text, timings.as_ref());
    (scenario, text, timings)
}

fn read(text: &str, timings: Option<&Timings>) -> Scenario {
    let mut all = Scenario::read_all(text, "manifest", InputFormat::sniff(text), timings);
    assert_eq!(all.len(), 1, "one workload");
    all.remove(0).expect("the manifest is a scenario")
}

fn request(replications: u64) -> Request {
    Request::new(Target::FailedP99(0), replications)
}

/// Advises `scenario`, applies the patch to `text`, and reads the patched
/// manifest back: the advice, the patched Deployment, the patched scenario.
fn advise_and_apply(
    scenario: &Scenario,
    text: &str,
    timings: Option<&Timings>,
) -> (Advice, Deployment, Scenario) {
    let advice = advise(&scenario.run, &request(100)).expect("a Service is advised");
    let patch = advice::patch(&advice, scenario.workload, &scenario.name, &scenario.origin);
    assert_eq!(patch.format(), "strategic-merge-yaml");
    let patch: Value = serde_saphyr::from_str(&patch.text).expect("the patch is YAML");
    let mut docs = read_manifest(text);
    let deployment = (docs.iter_mut())
        .find(|d| d["kind"] == "Deployment")
        .expect("a Deployment");
    merge(deployment, &patch);
    let typed: Deployment =
        serde_json::from_value(deployment.clone()).expect("the patched Deployment is one");
    let list = json!({ "apiVersion": "v1", "kind": "List", "items": docs });
    let patched = read(&serde_json::to_string_pretty(&list).unwrap(), timings);
    (advice, typed, patched)
}

/// The patched scenario over replications `reps`: its target holds and no
/// container is SIGKILLed. It is measured as today's point: nothing set.
fn holds(patched: &Scenario, reps: std::ops::Range<u64>) {
    let mut m = Measurer::new(
        patched.run.clone(),
        Key::container(Field::PreStop, 0),
        Key::pod(Field::TerminationGracePeriod),
    );
    let sample = m.sample(Point::TODAY, reps.clone());
    assert_eq!(sample.failed_percentile(99), 0, "failed p99 on {reps:?}");
    assert_eq!(sample.killed_runs(), 0, "SIGKILLs on {reps:?}");
}

/// The serving container's preStop as the patched Deployment has it.
fn sleep_seconds(d: &Deployment, container: &str) -> Option<i64> {
    let spec = d.spec.as_ref()?.template.spec.as_ref()?;
    let c = spec.containers.iter().find(|c| c.name == container)?;
    Some(c.lifecycle.as_ref()?.pre_stop.as_ref()?.sleep.as_ref()?.seconds)
}

#[test]
fn the_merge_follows_the_strategic_rules_it_names() {
    let mut target = json!({"spec": {"containers": [
        {"name": "a", "image": "x", "lifecycle": {"preStop": {"exec": {"command": ["sleep", "1"]}}}},
        {"name": "b", "image": "y"}
    ], "volumes": [{"name": "v"}]}});
    let patch = json!({"spec": {"terminationGracePeriodSeconds": 40, "containers": [
        {"name": "a", "lifecycle": {"preStop": {"$patch": "replace", "sleep": {"seconds": 3}}}},
        {"name": "c", "image": "z"}
    ], "volumes": [{"name": "w"}]}});
    merge(&mut target, &patch);
    assert_eq!(
        target,
        json!({"spec": {"containers": [
            {"name": "a", "image": "x", "lifecycle": {"preStop": {"sleep": {"seconds": 3}}}},
            {"name": "b", "image": "y"},
            {"name": "c", "image": "z"}
        ], "volumes": [{"name": "w"}], "terminationGracePeriodSeconds": 40}})
    );
    merge(
        &mut target,
        &json!({"spec": {"containers": [{"name": "a", "lifecycle": {"preStop": null}}]}}),
    );
    assert_eq!(target["spec"]["containers"][0]["lifecycle"], json!({}));
}

/// The Kubernetes website's nginx Deployment and the Service of its
/// termination tutorial, with traffic and a rollout from the timings file:
/// the patch adds a native sleep to nginx (podsim simulates 1.36, which
/// has it), the patched rollout fails no request and kills nothing.
#[test]
fn the_patch_applied_to_the_website_nginx_meets_the_target() {
    let (scenario, text, timings) = load(
        "kubernetes-website-nginx.yaml",
        Some("kubernetes-website-nginx.timings.toml"),
    );
    let (advice, deployment, patched) = advise_and_apply(&scenario, &text, timings.as_ref());
    let advised = advice.pre_stop.advised.expect("a preStop is advised");
    assert!(
        advice.today.failed_percentile(99) > 0,
        "today's rollout fails requests"
    );
    assert_eq!(
        sleep_seconds(&deployment, "nginx"),
        Some((advised.as_millis() / 1000) as i64)
    );
    // The grace was enough: the patch leaves it unset, as it was.
    let spec = deployment.spec.as_ref().unwrap().template.spec.as_ref().unwrap();
    assert_eq!(spec.termination_grace_period_seconds, None);
    holds(&patched, 0..100);
    holds(&patched, 100..200);
}

/// Online Boutique's frontend: the serving container is `server`, the one
/// the patch names; the second Service over the same Pods is skipped.
#[test]
fn the_patch_applied_to_the_boutique_frontend_meets_the_target() {
    let (scenario, text, timings) = load(
        "microservices-demo-frontend.yaml",
        Some("microservices-demo-frontend.timings.toml"),
    );
    let (advice, deployment, patched) = advise_and_apply(&scenario, &text, timings.as_ref());
    assert_eq!(advice.container, "server");
    assert!(sleep_seconds(&deployment, "server").is_some_and(|s| s > 0));
    holds(&patched, 0..100);
    holds(&patched, 100..200);
}

/// Istio's injected frontend: the app's sleep alone is not enough (the
/// proxy refuses from SIGTERM on), so the patch gives nginx and
/// istio-proxy the same sleep, each merged by its name; the patched
/// rollout fails no request and kills nothing.
#[test]
fn the_patch_applied_to_the_istio_frontend_meets_the_target() {
    let (scenario, text, timings) = load(
        "istio-frontend-service.yaml",
        Some("istio-frontend-service.timings.toml"),
    );
    let (advice, deployment, patched) = advise_and_apply(&scenario, &text, timings.as_ref());
    let proxy = advice
        .pre_stop
        .proxy
        .as_ref()
        .expect("the proxy's hook is advised");
    assert_eq!(proxy.container, "istio-proxy");
    let advised = advice.pre_stop.advised.expect("a preStop is advised");
    let seconds = Some((advised.as_millis() / 1000) as i64);
    assert_eq!(sleep_seconds(&deployment, "nginx"), seconds);
    assert_eq!(sleep_seconds(&deployment, "istio-proxy"), seconds);
    holds(&patched, 0..100);
    holds(&patched, 100..200);
}
