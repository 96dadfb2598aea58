//! `podsim run --format json`: one document per scenario with its metrics
//! and its events, absent metrics as `null`.
//!
//! Invariant: the metric keys are `Metrics::NAMES`, in that order, so JSON and
//! CSV can never disagree about what a metric is called.

use serde_json::{Map, Value, json};

use crate::model::{Field, Metrics, PodSpec, RunReport};

/// The metrics as a JSON object.
pub fn metrics_object(metrics: &Metrics) -> Value {
    let mut object = Map::new();
    for (name, field) in Metrics::NAMES.iter().zip(metrics.fields()) {
        let value = match field {
            Field::Millis(ms) => ms.map_or(Value::Null, Value::from),
            Field::Count(n) => Value::from(n),
            Field::Text(text) => Value::from(text),
        };
        object.insert(name.to_string(), value);
    }
    Value::Object(object)
}

/// `{"name": …, "metrics": {…}, "events": [{"at_ms", "container", "event"}, …]}`.
pub fn run_document(name: &str, spec: &PodSpec, report: &RunReport) -> Value {
    let events: Vec<Value> = report
        .lines()
        .map(|(e, line)| {
            json!({
                "at_ms": e.at.as_millis(),
                "container": e.container.map(|c| spec.container(c).name.clone()),
                "event": line.to_string(),
            })
        })
        .collect();
    json!({ "name": name, "metrics": metrics_object(&report.metrics), "events": events })
}
