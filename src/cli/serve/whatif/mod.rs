//! `POST /api/whatif`: the page's what-if buttons, applied to the text the
//! user is editing, in its own language: a TOML scenario gets its keys, a
//! manifest its `podsim.dev/` annotations or the Kubernetes fields
//! themselves (a native sidecar is an `initContainers` entry with
//! `restartPolicy: Always`, a preStop a `lifecycle.preStop.sleep`).
//!
//! Why on the server: what a what-if touches (the first init container, the
//! proxy, the first app that is not the proxy) is decided on the scenario
//! as podsim reads it, not by guessing at text, and a manifest's nodes are
//! found where the manifest reader found them (`Outline`), so a YAML
//! manifest is edited in place, its comments and layout kept. JSON is
//! re-serialised (it has no comments to keep).
//!
//! Invariant: an answer's text reads as a scenario again (checked here);
//! a what-if that cannot apply changes nothing and says why.

mod json;
mod toml;
mod yaml;

use serde_json::{Value, json};

use podsim::engine::SimDuration;
use podsim::model::ContainerKind;
use podsim::model::service::{Connections, Preset, Propagation};
use podsim::scenario::manifest::{Outline, PREFIX, Syntax};
use podsim::scenario::{InputFormat, Scenario};

use super::api::{ORIGIN, Reply};

/// The what-ifs, as the page names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum WhatIf {
    /// Delete the Pod at the cursor's time.
    DeleteNow,
    /// The first init container's first attempt exits 1.
    FailInit,
    /// The proxy as a native sidecar, or beside the app.
    ProxyLayout,
    /// A 5 s preStop on the first app that is not the proxy.
    PreStop,
    /// Connections: new ⇄ keep-alive.
    Connections,
    /// Propagation: tiny → medium → large.
    Propagation,
}

impl WhatIf {
    const NAMES: [(&'static str, WhatIf); 6] = [
        ("delete-now", WhatIf::DeleteNow),
        ("fail-init", WhatIf::FailInit),
        ("proxy-layout", WhatIf::ProxyLayout),
        ("pre-stop", WhatIf::PreStop),
        ("connections", WhatIf::Connections),
        ("propagation", WhatIf::Propagation),
    ];
}

/// A value as a scenario writes it: TOML keeps a number a number; an
/// annotation's value is always a string.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Scalar {
    Text(String),
    Number(u32),
}

impl Scalar {
    fn text(&self) -> String {
        match self {
            Scalar::Text(t) => t.clone(),
            Scalar::Number(n) => n.to_string(),
        }
    }
}

/// One change, in the scenario's terms; each format writes it its own way.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Edit {
    /// A Pod key (`[pod]`, `podsim.dev/<key>`); `None` removes it.
    Pod(&'static str, Option<Scalar>),
    /// A container's key (`[[containers]]`, `podsim.dev/<name>.<key>`).
    Container(String, &'static str, Scalar),
    /// A Service key (`[service]`, `podsim.dev/service.<key>`, and so on).
    Service(&'static str, &'static str, Scalar),
    /// The container moves: a native sidecar (`Sidecar`) or an app.
    Layout(String, ContainerKind),
    /// A preStop hook that sleeps this many seconds, on a container the
    /// manifest gives none.
    PreStop(String, u32),
}

/// `POST /api/whatif`: `{"text", "whatif", "workload"?, "at_ms"?}`; the
/// answer is `{"text", "changed"}`, or `{"unchanged": why}` (a 200: the
/// request was understood, the scenario just has nothing to change).
pub fn whatif(body: &str) -> Reply {
    let request: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => return Reply::error(400, &format!("the body is not JSON: {e}")),
    };
    let (Some(text), Some(name)) = (
        request.get("text").and_then(Value::as_str),
        request.get("whatif").and_then(Value::as_str),
    ) else {
        return Reply::error(
            400,
            "the body must be {\"text\": scenario, \"whatif\": name, \"workload\": n, \"at_ms\": n}",
        );
    };
    let Some(&(_, what)) = WhatIf::NAMES.iter().find(|(n, _)| *n == name) else {
        let names: Vec<&str> = WhatIf::NAMES.iter().map(|(n, _)| *n).collect();
        return Reply::error(
            400,
            &format!("no what-if \"{name}\"; the page has {}", names.join(", ")),
        );
    };
    let workload = request.get("workload").and_then(Value::as_u64).unwrap_or(0) as usize;
    let at = SimDuration::from_millis(request.get("at_ms").and_then(Value::as_u64).unwrap_or(0));
    match apply(text, workload, what, at) {
        Ok((text, changed)) => Reply::json(&json!({ "text": text, "changed": changed })),
        Err(why) => Reply::json(&json!({ "unchanged": why })),
    }
}

/// The edited text and what changed, in a few words; or why nothing did.
fn apply(text: &str, workload: usize, what: WhatIf, at: SimDuration) -> Result<(String, String), String> {
    let format = InputFormat::sniff(text);
    let all = Scenario::read_all(text, ORIGIN, format, None);
    let scenario = match all.get(workload) {
        Some(Ok(scenario)) => scenario,
        Some(Err(e)) => {
            return Err(format!(
                "this workload does not read as it is ({}): fix that first",
                crate::cli::message(e)
            ));
        }
        None => return Err(format!("the text holds no workload {}", workload + 1)),
    };
    let edits = edits(scenario, what, at, format != InputFormat::Toml)?;
    let edited = match format {
        InputFormat::Toml => toml::apply(text, &edits)?,
        InputFormat::Manifest(syntax) => {
            let outline = Outline::parse(text, syntax).map_err(|e| crate::cli::message(&e))?;
            let index = position(&outline, &all, workload)?;
            match syntax {
                Syntax::Yaml => yaml::apply(text, index, &edits)?,
                Syntax::Json => json::apply(text, &outline.workloads()[index], &edits)?,
            }
        }
    };
    // The edited text must read again, as a scenario of the same format.
    if let Some(Err(e)) = Scenario::read_all(&edited, ORIGIN, format, None).get(workload) {
        return Err(format!(
            "the change would not read ({}); make it by hand",
            crate::cli::message(e)
        ));
    }
    // A removal of what was not there is no change to speak of.
    let changed = edits
        .iter()
        .filter(|e| !matches!(e, Edit::Pod(key, None) if !text.contains(key)))
        .map(|e| describe(e, format != InputFormat::Toml))
        .collect::<Vec<_>>()
        .join("; ");
    Ok((edited, changed))
}

/// Which of `outline`'s workload objects read as result `index` of `all`:
/// the one of the same kind and name (a file rarely holds two of those; if
/// it does, they are taken in the order written).
fn position(
    outline: &Outline,
    all: &[Result<Scenario, podsim::scenario::Diagnostic>],
    index: usize,
) -> Result<usize, String> {
    let Some(Ok(scenario)) = all.get(index) else {
        return Err("no such workload".into());
    };
    let earlier = all[..index]
        .iter()
        .flatten()
        .filter(|s| s.workload == scenario.workload && s.name == scenario.name)
        .count();
    outline
        .workloads()
        .iter()
        .enumerate()
        .filter(|(_, p)| {
            Some(p.kind) == scenario.workload && p.name.as_deref().is_none_or(|n| n == scenario.name)
        })
        .nth(earlier)
        .map(|(i, _)| i)
        .ok_or_else(|| format!("cannot find \"{}\" in the text", scenario.name))
}

/// What `what` changes in `scenario`, or why it cannot apply there.
fn edits(scenario: &Scenario, what: WhatIf, at: SimDuration, manifest: bool) -> Result<Vec<Edit>, String> {
    let pod = &scenario.run.pod;
    let service = scenario.run.service.as_deref();
    let container = |pick: &dyn Fn(&podsim::model::ContainerSpec) -> bool, none: &str| {
        pod.containers
            .iter()
            .find(|c| pick(c))
            .ok_or_else(|| none.to_string())
    };
    match what {
        WhatIf::DeleteNow if service.is_some() => {
            Err("a Service scenario deletes its Pods by its disruptions; \"delete now\" is for a Pod".into())
        }
        WhatIf::DeleteNow => Ok(vec![
            Edit::Pod("stop_at", Some(Scalar::Text(at.to_string()))),
            Edit::Pod("stop_after_ready", None),
        ]),
        WhatIf::FailInit => {
            let init = container(
                &|c| c.kind == ContainerKind::Init,
                "this Pod has no init container",
            )?;
            Ok(vec![Edit::Container(
                init.name.clone(),
                "fails",
                Scalar::Number(1),
            )])
        }
        WhatIf::ProxyLayout => {
            let proxy = container(
                &|c| c.proxy,
                "no container is marked as the proxy (proxy = true, or the annotation \
                 podsim.dev/<container>.proxy: \"true\")",
            )?;
            let to = match proxy.kind {
                ContainerKind::Sidecar => ContainerKind::App,
                ContainerKind::App => ContainerKind::Sidecar,
                ContainerKind::Init => {
                    return Err(format!("the proxy \"{}\" is an init container", proxy.name));
                }
            };
            Ok(vec![Edit::Layout(proxy.name.clone(), to)])
        }
        WhatIf::PreStop => {
            let app = container(
                &|c| c.kind == ContainerKind::App && !c.proxy,
                "this Pod has no app container but the proxy",
            )?;
            Ok(vec![match (manifest, &app.pre_stop) {
                // A manifest's hook stays, its length set by annotation.
                (true, None) => Edit::PreStop(app.name.clone(), 5),
                _ => Edit::Container(app.name.clone(), "pre_stop", Scalar::Text("5s".into())),
            }])
        }
        WhatIf::Connections => {
            let traffic = service
                .and_then(|s| s.traffic.as_ref())
                .ok_or("this scenario sends no traffic (no [traffic] rate)")?;
            let next = match traffic.profile().connections {
                Connections::New => "keep-alive",
                Connections::KeepAlive => "new",
            };
            Ok(vec![Edit::Service(
                "traffic",
                "connections",
                Scalar::Text(next.into()),
            )])
        }
        WhatIf::Propagation => {
            let service = service.ok_or("this scenario has no Service ([service] or a Service manifest)")?;
            let next = match service.propagation {
                Propagation::Preset(Preset::Tiny) => "medium",
                Propagation::Preset(Preset::Medium) => "large",
                _ => "tiny",
            };
            Ok(vec![Edit::Service(
                "service",
                "propagation",
                Scalar::Text(next.into()),
            )])
        }
    }
}

/// The annotation a key edit writes in a manifest.
fn annotation(edit: &Edit) -> Option<String> {
    match edit {
        Edit::Pod(key, _) => Some(format!("{PREFIX}{key}")),
        Edit::Container(name, key, _) => Some(format!("{PREFIX}{name}.{key}")),
        Edit::Service(table, key, _) => Some(format!("{PREFIX}{table}.{key}")),
        Edit::Layout(..) | Edit::PreStop(..) => None,
    }
}

/// An edit in a few words, as the page shows it beside the button.
fn describe(edit: &Edit, manifest: bool) -> String {
    let value = |v: &Scalar| match v {
        Scalar::Text(t) => format!("\"{t}\""),
        Scalar::Number(n) if manifest => format!("\"{n}\""),
        Scalar::Number(n) => n.to_string(),
    };
    match (edit, manifest) {
        (Edit::Layout(name, ContainerKind::Sidecar), true) => {
            format!("{name} moved to initContainers, with restartPolicy: Always (a native sidecar)")
        }
        (Edit::Layout(name, _), true) => format!("{name} moved to containers, beside the app"),
        (Edit::Layout(name, kind), false) => format!("{name}: kind = \"{}\"", kind.name()),
        (Edit::PreStop(name, s), _) => format!("{name}: lifecycle.preStop.sleep.seconds: {s}"),
        (Edit::Pod(key, None), true) => format!("{PREFIX}{key} removed"),
        (Edit::Pod(key, None), false) => format!("[pod] {key} removed"),
        (Edit::Pod(key, Some(v)), false) => format!("[pod] {key} = {}", value(v)),
        (Edit::Container(name, key, v), false) => format!("{name}: {key} = {}", value(v)),
        (Edit::Service(table, key, v), false) => format!("[{table}] {key} = {}", value(v)),
        (Edit::Pod(_, Some(v)) | Edit::Container(_, _, v) | Edit::Service(_, _, v), true) => {
            format!("{}: {}", annotation(edit).unwrap_or_default(), value(v))
        }
    }
}

#[cfg(test)]
mod tests;
