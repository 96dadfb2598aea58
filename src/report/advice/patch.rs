//! The advice as something to apply: for a manifest, a strategic-merge
//! patch of the workload (`kubectl patch --type strategic --patch-file`);
//! for a TOML scenario, the keys to set, as a grid axis names them.
//!
//! Why a strategic merge: containers are merged by name in it, so the
//! patch names only the serving container and leaves the others as they
//! are. The preStop is the native `sleep` action where the simulated
//! Kubernetes has it on by default (KEP-3960: beta from 1.30, GA in 1.34),
//! else an `exec` of the image's `sleep`. A hook the manifest already has
//! is replaced (`$patch: replace`), since merging a `sleep` beside an
//! `exec` gives a hook with two handlers, which the API refuses.
//!
//! A rollout strategy goes in the Deployment's own spec
//! (`spec.strategy.rollingUpdate`, `spec.minReadySeconds`), beside its
//! template; a count as a number, a percentage as a string, as the API's
//! IntOrString has them.
//!
//! Invariant: the patch holds only what changes; nothing to change is an
//! empty patch (`{}`), which applies as a no-op.

use std::fmt::Write;

use super::rollout::Changes;
use crate::advise::Advice;
use crate::engine::SimDuration;
use crate::model::service::Scaled;
use crate::scenario::manifest::WorkloadKind;

/// A patch and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Patch {
    /// The text to write (YAML for a manifest, key lines for a scenario).
    pub text: String,
    /// For a manifest.
    manifest: bool,
}

impl Patch {
    /// What the text is, for JSON.
    pub fn format(&self) -> &'static str {
        match self.manifest {
            true => "strategic-merge-yaml",
            false => "podsim-keys",
        }
    }
}

/// What becomes of the serving container's preStop hook.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Hook {
    /// As it is.
    Keep,
    /// A sleep this long.
    Sleep(SimDuration),
    /// No hook (the advice is 0 s and there is one today).
    Remove,
}

fn hook(advice: &Advice) -> Hook {
    let p = &advice.pre_stop;
    match (p.advised, &p.today) {
        (None, _) => Hook::Keep,
        // The proxy has no hook of today's length, whatever the app's.
        (Some(a), _) if p.proxy.is_some() && a != SimDuration::ZERO => Hook::Sleep(a),
        (Some(a), None) if a == SimDuration::ZERO => Hook::Keep,
        (Some(a), Some(today)) if today.fixed() == Some(a) => Hook::Keep,
        (Some(a), Some(_)) if a == SimDuration::ZERO => Hook::Remove,
        (Some(a), _) => Hook::Sleep(a),
    }
}

fn grace(advice: &Advice) -> Option<SimDuration> {
    let g = &advice.grace;
    g.advised.filter(|&a| a != g.today)
}

/// The patch for the scenario `name` from `origin`: a manifest's workload
/// of `kind`, or a TOML scenario (`None`).
pub fn patch(advice: &Advice, kind: Option<WorkloadKind>, name: &str, origin: &str) -> Patch {
    let (hook, grace) = (hook(advice), grace(advice));
    let rollout = Changes::of(advice.rollout.as_ref());
    match kind {
        Some(kind) => Patch {
            text: manifest_patch(advice, kind, name, (hook, grace), rollout),
            manifest: true,
        },
        None => Patch {
            text: keys(advice, origin, (hook, grace), rollout),
            manifest: false,
        },
    }
}

fn manifest_patch(
    advice: &Advice,
    kind: WorkloadKind,
    name: &str,
    (hook, grace): (Hook, Option<SimDuration>),
    rollout: Changes,
) -> String {
    let mut out = String::new();
    let resource = kind.name().to_lowercase();
    let pod = hook != Hook::Keep || grace.is_some();
    if !pod && rollout.is_empty() {
        return super::empty_patch(kind, name);
    }
    let _ = writeln!(
        out,
        "# podsim advise: a strategic-merge patch for {} {name}; apply with",
        kind.name()
    );
    let _ = writeln!(
        out,
        "#   kubectl patch {resource} {name} --type strategic --patch-file THIS-FILE"
    );
    // The Pod spec's path: the template's, then its `spec`; the object's
    // own `spec` (the first key of either) holds the strategy.
    let _ = writeln!(out, "spec:");
    strategy(&mut out, rollout);
    if !pod {
        return out;
    }
    let mut depth = 1;
    for key in kind.template().iter().chain(&["spec"]).skip(1) {
        let _ = writeln!(out, "{:indent$}{key}:", "", indent = depth * 2);
        depth += 1;
    }
    let pad = |d: usize| " ".repeat(d * 2);
    if let Some(g) = grace {
        let _ = writeln!(
            out,
            "{}terminationGracePeriodSeconds: {}",
            pad(depth),
            g.as_millis() / 1000
        );
    }
    if hook == Hook::Keep {
        return out;
    }
    let _ = writeln!(out, "{}containers:", pad(depth));
    let proxy = advice.pre_stop.proxy.as_ref();
    let proxy = proxy.map(|p| (p.container.as_str(), p.today.is_some()));
    let app = (advice.container.as_str(), advice.pre_stop.today.is_some());
    for (container, had_hook) in std::iter::once(app).chain(proxy) {
        let _ = writeln!(out, "{}- name: {container}", pad(depth));
        let c = depth + 1;
        let _ = writeln!(out, "{}lifecycle:", pad(c));
        match hook {
            Hook::Remove => {
                let _ = writeln!(out, "{}preStop: null", pad(c + 1));
            }
            Hook::Sleep(p) => {
                let _ = writeln!(out, "{}preStop:", pad(c + 1));
                if had_hook {
                    let _ = writeln!(out, "{}$patch: replace", pad(c + 2));
                }
                sleep(&mut out, advice, p, c + 2);
            }
            Hook::Keep => {}
        }
    }
    out
}

/// An IntOrString as YAML and TOML write it: a count bare, a percentage quoted.
fn int_or_string(s: Scaled) -> String {
    match s {
        Scaled::Count(n) => n.to_string(),
        Scaled::Percent(_) => format!("\"{s}\""),
    }
}

/// A Deployment's strategy, under its `spec`.
fn strategy(out: &mut String, c: Changes) {
    if let Some(m) = c.min_ready {
        let _ = writeln!(out, "  minReadySeconds: {}", m.as_millis() / 1000);
    }
    if c.max_surge.is_none() && c.max_unavailable.is_none() {
        return;
    }
    let _ = writeln!(out, "  strategy:");
    let _ = writeln!(out, "    rollingUpdate:");
    if let Some(s) = c.max_surge {
        let _ = writeln!(out, "      maxSurge: {}", int_or_string(s));
    }
    if let Some(u) = c.max_unavailable {
        let _ = writeln!(out, "      maxUnavailable: {}", int_or_string(u));
    }
}

/// The hook's handler: the native sleep in whole seconds, or `exec sleep`.
fn sleep(out: &mut String, advice: &Advice, p: SimDuration, depth: usize) {
    let pad = " ".repeat(depth * 2);
    let ms = p.as_millis();
    if advice.kubernetes.has_sleep_action() {
        let secs = ms.div_ceil(1000);
        if !ms.is_multiple_of(1000) {
            let _ = writeln!(out, "{pad}# the sleep action takes whole seconds: {p} rounded up");
        }
        let _ = writeln!(out, "{pad}sleep:");
        let _ = writeln!(out, "{pad}  seconds: {secs}");
    } else {
        let _ = writeln!(
            out,
            "{pad}# Kubernetes 1.{} has no sleep action on by default (KEP-3960: from 1.30): the image's own sleep",
            advice.kubernetes.0
        );
        let seconds = p.to_string();
        let _ = writeln!(out, "{pad}exec:");
        let _ = writeln!(
            out,
            "{pad}  command: [\"sleep\", \"{}\"]",
            seconds.trim_end_matches('s')
        );
    }
}

/// Where each key of a TOML scenario's patch is written: the container
/// entries by name (the app's, and the proxy's when its preStop is set
/// too), `[pod]`, and the rollout's `[[disruptions]]` entry when its
/// strategy changes.
fn entries(advice: &Advice, rollout: Changes) -> Vec<String> {
    let containers = match &advice.pre_stop.proxy {
        Some(proxy) => format!(
            "pre_stop in the [[containers]] entries named \"{}\" and \"{}\"",
            advice.container, proxy.container
        ),
        None => format!(
            "pre_stop in the [[containers]] entry named \"{}\"",
            advice.container
        ),
    };
    let mut entries = vec![containers, "termination_grace_period in [pod]".to_string()];
    if let (false, Some(r)) = (rollout.is_empty(), &advice.rollout) {
        entries.push(format!(
            "max_surge, max_unavailable and min_ready_seconds in [[disruptions]] entry {} (from 0)",
            r.index
        ));
    }
    entries
}

/// The keys for a TOML scenario.
fn keys(
    advice: &Advice,
    origin: &str,
    (hook, grace): (Hook, Option<SimDuration>),
    rollout: Changes,
) -> String {
    let mut out = String::new();
    if hook == Hook::Keep && grace.is_none() && rollout.is_empty() {
        let _ = writeln!(out, "# podsim advise: nothing to change in {origin}");
        return out;
    }
    let _ = writeln!(
        out,
        "# podsim advise: the keys to set in {origin}, as a grid axis names them ({})",
        entries(advice, rollout).join(", ")
    );
    match hook {
        Hook::Sleep(p) => {
            let _ = writeln!(out, "{} = \"{p}\"", advice.pre_stop.path);
            if let Some(proxy) = &advice.pre_stop.proxy {
                let _ = writeln!(out, "containers.{}.pre_stop = \"{p}\"", proxy.container);
            }
        }
        Hook::Remove => {
            let _ = writeln!(
                out,
                "# remove pre_stop from the container \"{}\"",
                advice.container
            );
        }
        Hook::Keep => {}
    }
    if let Some(g) = grace {
        let _ = writeln!(out, "{} = \"{g}\"", advice.grace.path);
    }
    let index = advice.rollout.as_ref().map_or(0, |r| r.index);
    let key = |name: &str| format!("disruptions.{index}.{name}");
    if let Some(s) = rollout.max_surge {
        let _ = writeln!(out, "{} = {}", key("max_surge"), int_or_string(s));
    }
    if let Some(u) = rollout.max_unavailable {
        let _ = writeln!(out, "{} = {}", key("max_unavailable"), int_or_string(u));
    }
    if let Some(m) = rollout.min_ready {
        let _ = writeln!(out, "{} = \"{m}\"", key("min_ready_seconds"));
    }
    out
}
