//! The rollout strategy's part of the advice: its three table rows, what
//! keeps it from being safe, how its brute force went, its JSON, and
//! which of its settings a patch changes.
//!
//! Why apart: the preStop and grace rows are a value each; a strategy is
//! three settings judged together, with a count or a percentage of the
//! replicas each, so it reads and patches differently.

use serde_json::{Value, json};

use super::{number, seconds};
use crate::advise::{RolloutAdvice, RolloutFigures, RolloutPoint};
use crate::engine::SimDuration;
use crate::model::service::Scaled;

/// What a patch changes: each setting whose resolved value differs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    /// `maxSurge`.
    pub max_surge: Option<Scaled>,
    /// `maxUnavailable`.
    pub max_unavailable: Option<Scaled>,
    /// `minReadySeconds`.
    pub min_ready: Option<SimDuration>,
}

impl Changes {
    /// The settings of `r` to change; none when nothing was advised. A
    /// percentage and a count that resolve to the same Pods are the same.
    pub fn of(r: Option<&RolloutAdvice>) -> Changes {
        let Some((r, a)) = r.and_then(|r| r.advised.map(|a| (r, a))) else {
            return Changes::default();
        };
        let n = r.replicas;
        let differs = |today: Scaled, advised: Scaled, up: bool| today.of(n, up) != advised.of(n, up);
        Changes {
            max_surge: differs(r.today.max_surge, a.max_surge, true).then_some(a.max_surge),
            max_unavailable: differs(r.today.max_unavailable, a.max_unavailable, false)
                .then_some(a.max_unavailable),
            min_ready: (r.today.min_ready != a.min_ready).then_some(a.min_ready),
        }
    }

    /// Nothing to change.
    pub fn is_empty(&self) -> bool {
        *self == Changes::default()
    }
}

/// A count or percentage as written, with the Pods it resolves to when
/// those are not plain from it.
fn scaled(s: Scaled, replicas: u32, round_up: bool) -> String {
    match s {
        Scaled::Count(n) => n.to_string(),
        Scaled::Percent(_) => format!("{s} ({})", s.of(replicas, round_up)),
    }
}

/// The strategy's three rows.
pub fn rows(r: &RolloutAdvice) -> [[String; 5]; 3] {
    let n = r.replicas;
    let t = &r.today;
    let labels = ["maxSurge", "maxUnavailable", "minReadySeconds"].map(String::from);
    let todays = [
        scaled(t.max_surge, n, true),
        scaled(t.max_unavailable, n, false),
        t.min_ready.to_string(),
    ];
    let (Some(a), Some(f)) = (r.advised, r.advised_figures) else {
        let why = format!(
            "no strategy of {} keeps the target and {} ready",
            r.candidates, r.min_ready
        );
        return [
            [
                labels[0].clone(),
                todays[0].clone(),
                "none safe".into(),
                why,
                "-".into(),
            ],
            [
                labels[1].clone(),
                todays[1].clone(),
                "-".into(),
                "-".into(),
                "-".into(),
            ],
            [
                labels[2].clone(),
                todays[2].clone(),
                "-".into(),
                "-".into(),
                "-".into(),
            ],
        ];
    };
    let g = &r.today_figures;
    let time = |x: &RolloutFigures| x.done_ms.map_or("-".into(), seconds);
    let pods = |x: &RolloutFigures| x.peak_pods.map_or("-".into(), number);
    let counted = |x: &RolloutFigures| x.counted_pods.map_or("-".into(), number);
    let ready = |x: &RolloutFigures| x.min_ready.map_or("-".into(), |m| m.to_string());
    [
        [
            labels[0].clone(),
            todays[0].clone(),
            scaled(a.max_surge, n, true),
            format!("rollout {} → {} (mean)", time(g), time(&f)),
            format!(
                "Pods at once {} → {} ({} → {} counted; mean of the most)",
                pods(g),
                pods(&f),
                counted(g),
                counted(&f)
            ),
        ],
        [
            labels[1].clone(),
            todays[1].clone(),
            scaled(a.max_unavailable, n, false),
            format!("never fewer than {} ready (floor)", r.min_ready),
            format!("fewest ready {} → {}", ready(g), ready(&f)),
        ],
        [
            labels[2].clone(),
            todays[2].clone(),
            a.min_ready.to_string(),
            match a.min_ready > SimDuration::ZERO {
                true => "a new Pod's endpoint reaches the nodes before an old one goes".into(),
                false => "-".into(),
            },
            "-".into(),
        ],
    ]
}

/// What keeps every strategy from being safe, when none is.
pub fn limit(r: &RolloutAdvice, budget: Option<SimDuration>) -> Option<String> {
    if r.advised.is_some() {
        return None;
    }
    if r.safe > 0 {
        return Some(format!(
            "what limits it: {} strategies held on replications 0 to R-1, but the best {} did not on fresh \
             ones: they are at the edge of what these replications tell; try more --replications",
            r.safe,
            r.checked.map_or(0, |c| c.walked + 1)
        ));
    }
    let [target, floor, unfinished, over] = r.broke;
    let mut parts = vec![
        format!("{target} break the failed-request target"),
        format!("{floor} leave fewer than {} ready (--min-ready)", r.min_ready),
    ];
    if unfinished > 0 {
        parts.push(format!("{unfinished} do not finish within the horizon"));
    }
    if let Some(b) = budget {
        parts.push(format!("{over} take longer than {b} (--max-rollout)"));
    }
    let screened = match r.screened_out {
        0 => "",
        _ => " (one dropped at the screening counts for what its first runs broke)",
    };
    Some(format!(
        "what limits it: of {} strategies, {}{screened}",
        r.candidates,
        parts.join(", ")
    ))
}

/// How the brute force went, in words.
pub fn searched(r: &RolloutAdvice) -> String {
    let found = match r.checked {
        Some(c) if c.held && c.walked == 0 => "the best held on fresh replications".to_string(),
        Some(c) if c.held => format!(
            "the best {} failed on fresh replications; the next held",
            c.walked
        ),
        _ => "none held".to_string(),
    };
    let screened = match r.screened_out {
        0 => String::new(),
        n => format!(
            "; {n} dropped after a tenth or a third of the replications, sure to break a condition on all, {} \
             run on all",
            r.candidates - n
        ),
    };
    format!(
        "{} of {} strategies run (brute force: no monotonicity is known for them){screened}; {} safe; {found}",
        r.candidates, r.candidates, r.safe
    )
}

/// The strategy's settings and its search, for JSON.
pub fn json(r: &RolloutAdvice) -> [Value; 3] {
    let key = |name: &str| format!("disruptions.{}.{name}", r.index);
    let a = r.advised;
    let field = |name: &str, k8s: &str, today: String, advised: Option<String>| {
        json!({
            "key": key(name),
            "kubernetes_field": k8s,
            "today": today,
            "advised": advised,
        })
    };
    let mut settings = [
        field(
            "max_surge",
            "spec.strategy.rollingUpdate.maxSurge",
            r.today.max_surge.to_string(),
            a.map(|a| a.max_surge.to_string()),
        ),
        field(
            "max_unavailable",
            "spec.strategy.rollingUpdate.maxUnavailable",
            r.today.max_unavailable.to_string(),
            a.map(|a| a.max_unavailable.to_string()),
        ),
        field(
            "min_ready_seconds",
            "spec.minReadySeconds",
            r.today.min_ready.to_string(),
            a.map(|a: RolloutPoint| a.min_ready.to_string()),
        ),
    ];
    settings[0]["searched"] = json!({
        "strategies": r.candidates,
        "evaluated": r.candidates,
        "safe": r.safe,
        "screened_out": r.screened_out,
        "broke": {
            "target": r.broke[0],
            "min_ready": r.broke[1],
            "unfinished": r.broke[2],
            "max_rollout": r.broke[3],
        },
        "min_ready_floor": r.min_ready,
        "fresh_check_held": r.checked.map(|c| c.held),
        "today_rollout_done_ms_mean": r.today_figures.done_ms,
        "advised_rollout_done_ms_mean": r.advised_figures.and_then(|f| f.done_ms),
        "today_peak_pods_mean": r.today_figures.peak_pods,
        "advised_peak_pods_mean": r.advised_figures.and_then(|f| f.peak_pods),
    });
    settings
}
