//! `podsim advise` on an input without a Service: a Pod's start (a Pod, or
//! a workload's template, with a proxy in front of an app), or a Job. The
//! search is the library's (`podsim::advise::advise_start`), the words
//! `podsim::report::advice::start`'s; a Job's are `advise_job` and
//! `report::advice::job`.
//!
//! Why the manifest is read again here: moving the proxy to
//! `initContainers` takes the whole container in the patch, and the
//! scenario keeps only what the simulation needs.

use std::io::Write;

use anyhow::Result;
use serde_json::Value;

use podsim::advise::{DEFAULT_REPLICATIONS, advise_job, advise_start};
use podsim::model::{PodMode, RunSpec};
use podsim::report::advice::{job, start};
use podsim::scenario::manifest::WorkloadKind;

use super::advise::AdviseArgs;
use super::inputs::Input;
use super::output::write_file;
use super::run::Format;

/// Advises `spec` (the input's run, seeded) and prints it; `Ok(Err(_))`
/// is a refusal to list with the others, `Err(_)` a failure to write.
pub fn advise(input: &Input, spec: &RunSpec, args: &AdviseArgs, out: &mut dyn Write) -> Result<Result<()>> {
    let s = &input.scenario;
    let replications = args.replications.unwrap_or(DEFAULT_REPLICATIONS);
    if spec.pod.mode == PodMode::Job {
        let advice = advise_job(spec, replications);
        let original = |name: &str| {
            s.workload
                .and_then(|kind| container(&s.origin, kind, &s.name, name))
        };
        let patch = job::patch(&advice, s.workload, &s.name, &s.origin, &original);
        let text = || job::text(&s.name, &input.source, &advice, spec);
        let doc = || job::json(&s.name, &input.source, &advice, &patch, s.workload.is_some());
        return show(args, out, &patch, text, doc).map(Ok);
    }
    let advice = match advise_start(spec, replications, args.max_ready) {
        Ok(advice) => advice,
        Err(e) => return Ok(Err(anyhow::anyhow!("{}: {e}", input.source))),
    };
    let original = s
        .workload
        .and_then(|kind| container(&s.origin, kind, &s.name, &advice.proxy));
    let patch = start::patch(&advice, s.workload, &s.name, &s.origin, original.as_ref());
    let text = || start::text(&s.name, &input.source, &advice);
    let doc = || start::json(&s.name, &input.source, &advice, &patch, s.workload.is_some());
    show(args, out, &patch, text, doc).map(Ok)
}

/// Prints the advice (`text` or `doc` by the format) and the patch, or
/// writes the patch to `--patch`.
fn show(
    args: &AdviseArgs,
    out: &mut dyn Write,
    patch: &str,
    text: impl Fn() -> String,
    doc: impl Fn() -> Value,
) -> Result<()> {
    match args.format {
        Format::Json => {
            serde_json::to_writer(&mut *out, &doc())?;
            writeln!(out)?;
        }
        Format::Text => {
            write!(out, "{}", text())?;
            if args.patch.is_none() {
                writeln!(out)?;
                write!(out, "{patch}")?;
            }
        }
    }
    if let Some(path) = &args.patch {
        write_file(path, patch.as_bytes())?;
        if args.format == Format::Text {
            writeln!(out, "wrote the patch to {}", path.display())?;
        }
    }
    Ok(())
}

/// The container `wanted` of workload `kind`/`name` as the manifest at
/// `path` writes it, if the file can be read again.
fn container(path: &str, kind: WorkloadKind, name: &str, wanted: &str) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    let docs: Vec<Value> = serde_saphyr::from_multiple(&text).ok()?;
    let doc = docs.into_iter().find(|d| {
        d.get("kind").and_then(Value::as_str) == Some(kind.name())
            && d.pointer("/metadata/name").and_then(Value::as_str) == Some(name)
    })?;
    let mut spec = &doc;
    for key in kind.template().iter().chain(&["spec"]) {
        spec = spec.get(key)?;
    }
    ["containers", "initContainers"]
        .iter()
        .filter_map(|list| spec.get(list)?.as_array())
        .flatten()
        .find(|c| c.get("name").and_then(Value::as_str) == Some(wanted))
        .cloned()
}
