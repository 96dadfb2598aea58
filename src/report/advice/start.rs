//! What `podsim advise` shows for a Pod's start (`advise::StartAdvice`):
//! the table (the proxy's place, its startupProbe's period and failure
//! threshold: today, advised, what each buys and costs), each layout's
//! figures, the runs; the same as JSON; and the patch.
//!
//! Why the patch moves the whole container: a strategic merge merges
//! `containers` and `initContainers` by name, so moving the proxy takes
//! a `$patch: delete` entry in `containers` and the complete container,
//! with `restartPolicy: Always`, in `initContainers`, where the merge
//! appends it after the init containers already there
//! (kubernetes/community `contributors/devel/sig-api-machinery/strategic-merge-patch.md`).
//! The complete container comes from the manifest (`original`); it is
//! written as JSON, which YAML reads as a flow mapping.

use std::fmt::Write;

use serde_json::{Value, json};

use super::table;
use crate::advise::{Layout, StartAdvice, StartFigures};
use crate::engine::SimDuration;
use crate::scenario::manifest::WorkloadKind;

/// The table and the evidence, for people.
pub fn text(name: &str, source: &str, a: &StartAdvice) -> String {
    let mut out = String::new();
    let r = a.replications;
    let _ = writeln!(out, "== advise: {name} ({source})");
    let budget = a
        .max_ready
        .map_or(String::new(), |m| format!(", Ready p99 ≤ {m}"));
    let _ = writeln!(
        out,
        "target: no exposure of {} without {} (p99 0 s at start and shutdown){budget}, over {r} replications \
         (seed {})",
        a.app, a.proxy, a.seed
    );
    let _ = writeln!(out);
    let mut rows = vec![layout_row(a)];
    rows.extend(probe_rows(a));
    out.push_str(&table(&rows));
    let _ = writeln!(out);
    for (layout, f) in &a.layouts {
        let _ = writeln!(out, "{:<15} {}", format!("{}:", layout.name()), figures(f));
    }
    if !a.layouts.iter().any(|(l, _)| *l == Layout::Native) {
        let _ = writeln!(
            out,
            "native sidecar: not tried: Kubernetes 1.{} does not have it on by default (1.29 on, KEP-753); a \
             postStart hook that waits for the proxy (Istio's holdApplicationUntilProxyStarts) holds the app instead",
            a.kubernetes.0
        );
    }
    if a.advised_layout.is_none() {
        let _ = writeln!(
            out,
            "what limits it: no layout keeps {} from serving without {} at the p99",
            a.app, a.proxy
        );
    } else if !a.fits(&a.advised) {
        let _ = writeln!(
            out,
            "what limits it: the fastest unexposed start has Ready p99 {}, over the budget: no exposure costs \
             that much here",
            ms(a.advised.ready_p99)
        );
    }
    let _ = writeln!(
        out,
        "runs: {} simulated; a brute-force grid of the same candidates runs {} ({:.0}x more)",
        a.runs,
        a.grid_runs,
        a.grid_runs as f64 / a.runs.max(1) as f64
    );
    out
}

fn figures(f: &StartFigures) -> String {
    format!(
        "exposed p99 {} at start, {} at shutdown; Ready p99 {}; runs with a restart {}",
        SimDuration::from_millis(f.exposed_startup_p99),
        SimDuration::from_millis(f.exposed_shutdown_p99),
        ms(f.ready_p99),
        f.restarted
    )
}

fn ms(x: Option<u64>) -> String {
    x.map_or_else(|| "never".into(), |v| SimDuration::from_millis(v).to_string())
}

fn layout_row(a: &StartAdvice) -> [String; 5] {
    let label = format!("{} placement", a.proxy);
    let today = a.today_layout.name().to_string();
    let figures = |l: Layout| a.layouts.iter().find(|(x, _)| *x == l).map(|(_, f)| *f);
    match (a.advised_layout, figures(a.today_layout)) {
        (Some(l), Some(t)) if l != a.today_layout => {
            let f = a.advised;
            [
                label,
                today,
                l.name().into(),
                format!(
                    "exposed p99 {} + {} → {} + {}",
                    SimDuration::from_millis(t.exposed_startup_p99),
                    SimDuration::from_millis(t.exposed_shutdown_p99),
                    SimDuration::from_millis(f.exposed_startup_p99),
                    SimDuration::from_millis(f.exposed_shutdown_p99)
                ),
                format!("Ready p99 {} → {}", ms(t.ready_p99), ms(f.ready_p99)),
            ]
        }
        (Some(_), _) => [
            label,
            today.clone(),
            today,
            "no exposure already".into(),
            "nothing".into(),
        ],
        (None, _) => [
            label,
            today,
            "none safe".into(),
            "no layout tried is unexposed".into(),
            "-".into(),
        ],
    }
}

fn probe_rows(a: &StartAdvice) -> Vec<[String; 5]> {
    let Some(p) = &a.probe else {
        return Vec::new();
    };
    let Some((ap, at)) = p.advised else {
        return vec![[
            format!("startupProbe ({})", a.proxy),
            p.today.map_or("none".into(), |(q, t)| format!("{q} × {t}")),
            "none safe".into(),
            format!("a restart stays at every period up to a threshold of {}", p.top),
            "-".into(),
        ]];
    };
    let at_period = |q: SimDuration| p.periods.iter().find(|(x, _, _)| *x == q).map(|(_, _, f)| *f);
    let ready = |q| ms(at_period(q).and_then(|f| f.ready_p99));
    let Some((period, threshold)) = p.today else {
        // Added: what it buys is the app held until the proxy serves.
        return vec![[
            format!("startupProbe ({})", a.proxy),
            "none".into(),
            format!("period {} × {at}", secs(ap)),
            format!(
                "{} starts once {} serves, not once its process runs",
                a.app, a.proxy
            ),
            format!("Ready p99 {}; a probe every {ap} until started", ready(ap)),
        ]];
    };
    let period_row = [
        format!("startupProbe.periodSeconds ({})", a.proxy),
        secs(period),
        secs(ap),
        match ap.cmp(&period) {
            std::cmp::Ordering::Equal => "-".into(),
            std::cmp::Ordering::Less => format!("Ready p99 {} → {}", ready(period), ready(ap)),
            std::cmp::Ordering::Greater => format!("a probe every {ap} until started, not every {period}"),
        },
        match ap.cmp(&period) {
            std::cmp::Ordering::Equal => "nothing".into(),
            std::cmp::Ordering::Less => format!("a probe every {ap} until started, not every {period}"),
            std::cmp::Ordering::Greater => format!("Ready p99 {} → {}", ready(period), ready(ap)),
        },
    ];
    let threshold_row = [
        format!("startupProbe.failureThreshold ({})", a.proxy),
        threshold.to_string(),
        at.to_string(),
        match p.restarted_today {
            0 => format!("no restart in {} runs (as today)", a.replications),
            n => format!(
                "restarts in {n} of {} runs → none beyond a slow boot's",
                a.replications
            ),
        },
        format!(
            "a proxy that never answers is restarted after {} (today {})",
            SimDuration(ap.as_millis() * u64::from(at)),
            SimDuration(period.as_millis() * u64::from(threshold))
        ),
    ];
    vec![period_row, threshold_row]
}

/// Whole seconds, as the API writes `periodSeconds`.
fn secs(d: SimDuration) -> String {
    d.as_millis().div_ceil(1000).to_string()
}

/// The advice as one JSON document, the patch included.
pub fn json(name: &str, source: &str, a: &StartAdvice, patch: &str, manifest: bool) -> Value {
    let f = |f: &StartFigures| {
        json!({
            "exposed_startup_p99_ms": f.exposed_startup_p99,
            "exposed_shutdown_p99_ms": f.exposed_shutdown_p99,
            "ready_p99_ms": f.ready_p99,
            "restarted_runs": f.restarted,
        })
    };
    json!({
        "name": name,
        "source": source,
        "advice": "start",
        "proxy": a.proxy,
        "app": a.app,
        "replications": a.replications,
        "seed": a.seed,
        "max_ready_ms": a.max_ready.map(SimDuration::as_millis),
        "layout": {
            "today": a.today_layout.name(),
            "advised": a.advised_layout.map(Layout::name),
            "tried": a.layouts.iter().map(|(l, x)| json!({ "layout": l.name(), "figures": f(x) })).collect::<Vec<_>>(),
        },
        "startup_probe": a.probe.as_ref().map(|p| json!({
            "today": p.today.map(|(q, t)| json!({ "period_ms": q.as_millis(), "failure_threshold": t })),
            "advised": p.advised.map(|(q, t)| json!({ "period_ms": q.as_millis(), "failure_threshold": t })),
            "top": p.top,
            "periods": p.periods.iter().map(|(q, t, x)| json!({
                "period_ms": q.as_millis(), "failure_threshold": t, "figures": f(x),
            })).collect::<Vec<_>>(),
        })),
        "today": f(&a.today),
        "advised": f(&a.advised),
        "runs": a.runs,
        "grid_runs": a.grid_runs,
        "patch": { "format": if manifest { "strategic-merge-yaml" } else { "podsim-keys" }, "text": patch },
    })
}

/// The patch: for a manifest's workload of `kind`, a strategic merge;
/// `original` is the proxy's container as the manifest writes it (needed
/// to move it). For a TOML scenario (`None`), the keys to set.
pub fn patch(
    a: &StartAdvice,
    kind: Option<WorkloadKind>,
    name: &str,
    origin: &str,
    original: Option<&Value>,
) -> String {
    let moved = a.advised_layout.filter(|l| *l != a.today_layout);
    let probe = a
        .probe
        .as_ref()
        .and_then(|p| p.advised.filter(|&x| Some(x) != p.today));
    let mut out = String::new();
    let Some(kind) = kind else {
        if moved.is_none() && probe.is_none() {
            let _ = writeln!(out, "# podsim advise: nothing to change in {origin}");
            return out;
        }
        let _ = writeln!(
            out,
            "# podsim advise: the keys to set in {origin}, in the [[containers]] entry named \"{}\"",
            a.proxy
        );
        if let Some(l) = moved {
            let word = if l == Layout::Native { "sidecar" } else { "app" };
            let _ = writeln!(out, "containers.{}.kind = \"{word}\"", a.proxy);
        }
        if let Some((p, t)) = probe {
            let _ = writeln!(out, "containers.{}.startup_probe.period = \"{p}\"", a.proxy);
            let _ = writeln!(
                out,
                "containers.{}.startup_probe.failure_threshold = {t}",
                a.proxy
            );
        }
        return out;
    };
    if moved.is_none() && probe.is_none() {
        return super::empty_patch(kind, name);
    }
    let _ = writeln!(out, "{}", super::apply_line(kind, name));
    let mut depth = 0;
    for key in kind.template().iter().chain(&["spec"]) {
        let _ = writeln!(out, "{:w$}{key}:", "", w = depth * 2);
        depth += 1;
    }
    let pad = " ".repeat(depth * 2);
    // A startup probe added takes the readiness probe's handler.
    let startup = |entry: Option<&Value>, (p, t): (SimDuration, u32)| {
        let probe = entry.and_then(|c| c.get("startupProbe").or_else(|| c.get("readinessProbe")));
        let mut probe = probe.cloned().unwrap_or_else(|| json!({}));
        if let Value::Object(map) = &mut probe {
            map.retain(|k, _| !matches!(k.as_str(), "successThreshold" | "initialDelaySeconds"));
            map.insert("periodSeconds".into(), json!(p.as_millis().div_ceil(1000)));
            map.insert("failureThreshold".into(), json!(t));
        }
        probe
    };
    let adds = a.probe.as_ref().is_some_and(|p| p.today.is_none());
    let probe_fields = |out: &mut String, inner: &str| {
        if let Some((p, t)) = probe {
            match adds {
                true => {
                    let _ = writeln!(out, "{inner}startupProbe: {}", startup(original, (p, t)));
                }
                false => {
                    let _ = writeln!(out, "{inner}startupProbe:");
                    let _ = writeln!(out, "{inner}  periodSeconds: {}", secs(p));
                    let _ = writeln!(out, "{inner}  failureThreshold: {t}");
                }
            }
        }
    };
    let list = |l: Layout| {
        if l == Layout::Native {
            "initContainers"
        } else {
            "containers"
        }
    };
    match moved {
        None => {
            let _ = writeln!(out, "{pad}{}:", list(a.today_layout));
            let _ = writeln!(out, "{pad}- name: {}", a.proxy);
            probe_fields(&mut out, &format!("{pad}  "));
        }
        Some(to) => {
            let extra = probe.map(|x| startup(original, x));
            move_container(&mut out, &pad, (&a.proxy, original), (a.today_layout, to), extra);
        }
    }
    out
}

/// The list a container of `layout` is in.
fn list(layout: Layout) -> &'static str {
    match layout {
        Layout::Native => "initContainers",
        Layout::SideBySide => "containers",
    }
}

/// Writes at `pad` the strategic merge that moves container `name` (as the
/// manifest writes it, `original`, if at hand) from one layout to the
/// other: `$patch: delete` in its list, the whole container in the other
/// (native: with `restartPolicy: Always`), with `startup` as its
/// startupProbe if given.
pub(super) fn move_container(
    out: &mut String,
    pad: &str,
    (name, original): (&str, Option<&Value>),
    (from, to): (Layout, Layout),
    startup: Option<Value>,
) {
    let _ = writeln!(out, "{pad}{}:", list(from));
    let _ = writeln!(out, "{pad}- name: {name}\n{pad}  $patch: delete");
    let _ = writeln!(out, "{pad}{}:", list(to));
    let mut entry = original.cloned().unwrap_or_else(|| json!({ "name": name }));
    if original.is_none() {
        let _ = writeln!(
            out,
            "{pad}# the manifest was not at hand: copy the rest of {name} (image, args, ports, probes) into this entry"
        );
    }
    if let Value::Object(map) = &mut entry {
        match to {
            Layout::Native => map.insert("restartPolicy".into(), json!("Always")),
            Layout::SideBySide => map.remove("restartPolicy"),
        };
        if let Some(probe) = startup {
            map.insert("startupProbe".into(), probe);
        }
    }
    let _ = writeln!(out, "{pad}- {entry}");
}
