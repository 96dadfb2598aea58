//! The advice as one JSON document for tools (`--format json`, `podsim
//! serve`'s `/api/advise`): every setting with its registry key, today's
//! and the advised value, how its search went, and the patch as text.
//!
//! Why apart from the text: a tool reads fields, not columns; the field
//! names are a contract the table's wording is not.

use serde_json::{Value, json};

use super::{Patch, rollout};
use crate::advise::{Advice, Sample, Searched, Target};
use crate::engine::SimDuration;
use crate::model::service::Cause;

/// The advice as one JSON document, the patch included.
pub fn json(name: &str, source: &str, advice: &Advice, patch: &Patch) -> Value {
    let r = advice.request.replications;
    let target = advice.request.target;
    let metric = match target {
        Target::FailedP99(_) => "failed_p99",
        Target::FailedMean(_) => "failed_mean",
    };
    let by_cause = |s: &Sample| -> Value {
        Cause::ALL
            .iter()
            .map(|&c| (c.name().to_string(), json!(s.cause_mean(c))))
            .collect::<serde_json::Map<_, _>>()
            .into()
    };
    let figures = |s: &Sample| {
        json!({
            metric: target.metric(s),
            "failed_mean_by_cause": by_cause(s),
            "termination_ms_mean": s.mean(|r| r.termination_ms),
            "rollout_done_ms_mean": s.mean(|r| r.rollout_done_ms),
            "drain_ms_mean": s.mean(|r| r.drain_ms),
            "sigkilled_runs": s.killed_runs(),
        })
    };
    let ms = |d: Option<SimDuration>| d.map(SimDuration::as_millis);
    let p = &advice.pre_stop;
    let g = &advice.grace;
    let mut settings = vec![
        json!({
            "key": p.path,
            "kubernetes_field": "lifecycle.preStop",
            "container": advice.container,
            "today": p.today.as_ref().map(ToString::to_string),
            "advised_ms": ms(p.advised),
            "left_at_top": p.left_at_top.iter().map(|(c, m)| (c.name().to_string(), json!(m))).collect::<serde_json::Map<_, _>>(),
            "searched": searched_json(&p.searched),
        }),
        json!({
            "key": g.path,
            "kubernetes_field": "terminationGracePeriodSeconds",
            "today_ms": g.today.as_millis(),
            "advised_ms": ms(g.advised),
            "top_ms": g.top.as_millis(),
            "sigkilled_runs_at_today": g.killed_today,
            "sigkill_remains": g.kills_remain,
            "overridden_by_disruption": g.overridden,
            "searched": searched_json(&g.searched),
        }),
    ];
    if let (Some(proxy), Some(first)) = (&p.proxy, settings.first_mut()) {
        first["proxy"] = json!({
            "container": proxy.container,
            "key": format!("containers.{}.{}", proxy.container, crate::scenario::key::Field::PreStop.name()),
            "today": proxy.today.as_ref().map(ToString::to_string),
        });
    }
    settings.extend(advice.rollout.iter().flat_map(rollout::json));
    json!({
        "name": name,
        "source": source,
        "target": { "metric": metric, "bound": target.bound() },
        "replications": r,
        "confidence": advice.request.confidence,
        "seed": advice.seed,
        "step_ms": advice.request.step.as_millis(),
        "settings": settings,
        "today": figures(&advice.today),
        "advised": figures(&advice.advised),
        "runs": advice.runs,
        "grid_runs": advice.grid_runs(),
        "patch": { "format": patch.format(), "text": patch.text },
    })
}

fn searched_json(s: &Searched) -> Value {
    json!({
        "values": s.values,
        "evaluated": s.evaluated,
        "bisected_ms": s.bisected.map(SimDuration::as_millis),
        "fresh_check_held": s.checked.map(|c| c.held),
        "walked": s.checked.map(|c| c.walked),
    })
}
