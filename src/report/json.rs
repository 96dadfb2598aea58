//! `podsim run --format json`: one document per scenario with its metrics
//! and its events, absent metrics as `null`. Each event is a line of the
//! event timeline: its words (`event`), its `type`, and the typed fields of
//! that type, so a `jq` user never parses the words.
//!
//! Invariant: the metric keys are `Metrics::NAMES`, in that order, so JSON and
//! CSV can never disagree about what a metric is called; the events are the
//! timeline's lines, one for one.

use serde_json::{Map, Value, json};

use super::line::{self, Line};
use crate::model::{Change, Field, Metrics, PodReport, PodSpec, ProbeKind, Signal, TraceEntry};

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

/// `{"name": …, "metrics": {…}, "events": [{"at_ms", "container", "event", "type", …}, …],
/// "probes": [{"container", "probe", "runs", "failures"}, …]}`.
pub fn run_document(name: &str, spec: &PodSpec, report: &PodReport) -> Value {
    let events: Vec<Value> = line::lines(&report.trace)
        .map(|(e, line)| event_object(spec, e, line))
        .collect();
    let mut document = json!({
        "name": name,
        "metrics": metrics_object(&report.metrics),
        "events": events,
        "probes": probes_array(spec, report),
    });
    if let (Some(job), Value::Object(object)) = (&report.job, &mut document) {
        object.insert("job".into(), super::job::json(spec, job));
    }
    document
}

/// Every probe's runs and failures over the run (R53), summed from the
/// history's `Probed` reports: one object per container and probe that
/// ran, in container then probe order.
fn probes_array(spec: &PodSpec, report: &PodReport) -> Vec<Value> {
    let mut totals = vec![[(0u32, 0u32); 3]; spec.containers.len()];
    for e in &report.trace {
        if let (
            Some(c),
            Change::Probed {
                probe,
                runs,
                failures,
            },
        ) = (e.container, e.what)
        {
            let t = &mut totals[c.index()][probe.index()];
            *t = (t.0 + runs, t.1 + failures);
        }
    }
    let mut out = Vec::new();
    for (c, kinds) in spec.containers.iter().zip(&totals) {
        for kind in ProbeKind::ALL {
            let (runs, failures) = kinds[kind.index()];
            if c.probe(kind).is_some() {
                out.push(
                    json!({ "container": c.name, "probe": kind.name(), "runs": runs, "failures": failures }),
                );
            }
        }
    }
    out
}

/// One event: when, to whom, in words, and its type's own fields.
fn event_object(spec: &PodSpec, e: &TraceEntry, line: Line) -> Value {
    let mut object = Map::new();
    object.insert("at_ms".into(), e.at.as_millis().into());
    let container = e.container.map(|c| spec.container(c).name.clone());
    object.insert("container".into(), container.into());
    object.insert("event".into(), line.to_string().into());
    object.insert("type".into(), e.what.name().into());
    let ms = |d: crate::engine::SimDuration| Value::from(d.as_millis());
    let fields: Vec<(&str, Value)> = match e.what {
        Change::Starting { attempt } => vec![("attempt", attempt.into())],
        Change::ProbeFailed { probe } => vec![("probe", probe.name().into())],
        Change::Exited(reason) => vec![
            ("exit_code", reason.code().into()),
            ("reason", reason.name().into()),
        ],
        Change::BackOff { delay } => vec![("delay_ms", ms(delay))],
        Change::PreStopFinished { cut_off } => vec![("cut_off", cut_off.into())],
        Change::Sigterm { timeout, signal } => {
            let mut fields = vec![
                ("timeout_ms", ms(timeout)),
                ("deadline_ms", (e.at + timeout).as_millis().into()),
            ];
            // R59: only a stop signal other than SIGTERM, so documents stay as they were.
            if signal != Signal::Term {
                fields.push(("signal", signal.name().into()));
            }
            fields
        }
        Change::DeletionRequested { grace } => vec![
            ("grace_ms", ms(grace)),
            ("deadline_ms", (e.at + grace).as_millis().into()),
        ],
        Change::Phase(phase) => vec![("phase", phase.name().into())],
        Change::DeletionRepeated { grace, shortened } => {
            vec![("grace_ms", ms(grace)), ("shortened", shortened.into())]
        }
        Change::ImageUpdated(effect) => vec![("effect", effect.name().into())],
        Change::NodeRebooted { down } => vec![("down_ms", ms(down))],
        Change::NodeBack { sandbox_recreated } => vec![("sandbox_recreated", sandbox_recreated.into())],
        Change::ProbesRestarted { started, ready } => {
            vec![("started", started.into()), ("ready", ready.into())]
        }
        Change::PostStartFinished { failed } => vec![("failed", failed.into())],
        Change::ImagePullFailed { back_off } => vec![("back_off_ms", ms(back_off))],
        // Named one by one, so a new change's fields cannot be left out
        // unnoticed (`alive` and `ready` have a line only when probed).
        Change::Running
        | Change::Alive { .. }
        | Change::Started
        | Change::Ready { .. }
        | Change::Unready
        | Change::Probed { .. }
        | Change::BackOffShown
        | Change::PreStopStarted
        | Change::AwaitingTurn
        | Change::Sigkill
        | Change::KubeletRestarted
        | Change::PodReady
        | Change::PodNotReady
        | Change::PodFailed
        | Change::AppsFinished
        | Change::ContainersStopped
        | Change::AllContainersRestarting
        | Change::ExposureBegan
        | Change::ExposureEnded => vec![],
    };
    for (key, value) in fields {
        object.insert(key.into(), value);
    }
    Value::Object(object)
}
