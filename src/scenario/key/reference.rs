//! The key reference, `docs/keys.md`, written from the registry: every
//! key with its path in each reader, its value, what it means, and whether
//! a manifest's readers take it or the manifest says it.
//!
//! Invariant: the page is this function's output, byte for byte; a test
//! (`scenario::registry`) fails when the committed page differs, and
//! `PODSIM_BLESS=1` rewrites it. So a key added to the registry is in the
//! reference with no second place to edit, and the page cannot drift.

use super::path::{Reader, Spelling, TEMPLATE, pattern, print};
use super::{Field, Group, Place, Scope, Unit};

/// How to regenerate the page, for its header and the test's message.
pub const REGENERATE: &str = "PODSIM_BLESS=1 cargo test --release --lib key_reference";

/// The page's opening: what it is, and how each reader writes a key.
const INTRO: &str = "\
One list of keys serves every input: a TOML scenario, a grid axis, a
`podsim.dev/` annotation of a manifest's Pod and a timings file
(`--timings`). Each section below is one table of a scenario and says how
each of them writes its keys; the last column says whether annotations
and timings files take a key. Those that Kubernetes itself expresses are
read from the manifest and refused there, with the field to edit named
(sweep them as an axis to try other values). A misspelt key or path is
refused with the closest valid one and the valid keys of its table. A
count that Kubernetes bounds (a cluster's nodes and Pods: the value column
says \"at most\") is refused past the bound, by every reader; the bounds
are those of Kubernetes' scalability thresholds
(https://kubernetes.io/docs/setup/best-practices/cluster-large/ and
https://github.com/kubernetes/community/blob/master/sig-scalability/configs-and-limits/thresholds.md).
";

/// The reference as Markdown.
pub fn markdown() -> String {
    let mut page = format!(
        "# Every key\n\n<!-- Generated from the key registry (src/scenario/key/); do not edit. \
         Regenerate: {REGENERATE} -->\n\n{INTRO}"
    );
    for scope in [Scope::Run].into_iter().chain(Scope::TABLES) {
        section(scope, &mut page);
    }
    page
}

/// One table's section: where its keys are written, then one row per key.
fn section(scope: Scope, page: &mut String) {
    page.push_str(&format!("\n## {}\n\n", title(scope)));
    let groups: Vec<String> = Group::ALL
        .into_iter()
        .filter(|g| g.scope() == scope)
        .map(|g| format!("`{} = {{ {} = … }}`", g.name(), Field::names_in(g)[0]))
        .collect();
    let grouped = match groups.as_slice() {
        [] => String::new(),
        groups => format!(" (a group's keys as a table: {})", groups.join(", ")),
    };
    let in_scenario = match scope {
        Scope::Run => "the top level".to_string(),
        scope => format!("`{}`", scope.heading()),
    };
    page.push_str(&format!(
        "In a scenario: {in_scenario}{grouped}. As a grid axis: `{}`. {}\n\n",
        pattern(scope, Spelling::Axis),
        in_manifest(scope)
    ));
    page.push_str("| key | value | meaning | grid axis | annotation, timings file |\n");
    page.push_str("|-----|-------|---------|-----------|--------------------------|\n");
    for field in Field::ALL.into_iter().filter(|f| f.scope() == scope) {
        page.push_str(&format!(
            "| `{}` | {} | {} | `{}` | {} |\n",
            field.name(),
            value(field),
            field.doc(),
            print(field, Place::Table, Spelling::Axis),
            by_manifest(field)
        ));
    }
    if scope == Scope::Disruption {
        page.push_str(&format!(
            "\nA rollout's new Pod template: `[disruptions.{TEMPLATE}.<container>]` under its `[[disruptions]]` \
             entry in a scenario, and in a timings file (or `[disruptions.<index>.{TEMPLATE}.<container>]`), \
             with any key of a container but name, kind and proxy, which shape the Pod; the keys it does not \
             set keep the old Pod's values. It is not a grid axis or an annotation.\n"
        ));
    }
}

/// The section's title.
fn title(scope: Scope) -> &'static str {
    match scope {
        Scope::Run => "The run",
        Scope::Pod => "The Pod",
        Scope::Container => "A container",
        Scope::Job => "The Job",
        Scope::Service => "The Service",
        Scope::Traffic => "Traffic",
        Scope::App => "The app behind the Service",
        Scope::Pdb => "The PodDisruptionBudget",
        Scope::Hop => "A hop between the clients and the Pods",
        Scope::Disruption => "Disruptions",
        Scope::Action => "Actions",
        Scope::Cluster => "The cluster around the Service",
    }
}

/// How a manifest's readers write the table's keys, if they write any.
fn in_manifest(scope: Scope) -> String {
    let timings = match scope {
        Scope::Run | Scope::Pod => "`[pod]`".to_string(),
        Scope::Container => "`[containers.<name>]`".to_string(),
        Scope::Disruption => "`[disruptions.<index>]` or `[[disruptions]]`".to_string(),
        Scope::Action => return "A manifest has no actions: TOML only.".to_string(),
        scope => format!("`{}`", scope.heading()),
    };
    format!(
        "As an annotation: `podsim.dev/{}`. In a timings file: {timings}.",
        pattern(scope, Spelling::Annotation)
    )
}

/// The last column: the annotation, or why a manifest's readers refuse it.
fn by_manifest(field: Field) -> String {
    if Reader::Annotation.writes(field) {
        let annotation = format!(
            "`podsim.dev/{}`",
            print(field, Place::Table, Spelling::Annotation)
        );
        return match field.also_in_manifest() {
            Some(note) => format!("{annotation}; {note}, which a setting may repeat but not contradict"),
            None => annotation,
        };
    }
    match field.manifest_field() {
        Some(k8s) => format!("no: from the manifest, {k8s}"),
        None => "no: TOML only".to_string(),
    }
}

/// What a value of `field` is written as, and its bound if it has one.
fn value(field: Field) -> String {
    let written = match field.unit() {
        Unit::Millis => "duration".to_string(),
        Unit::Dist => "duration or distribution".to_string(),
        Unit::Probability => "0 to 1".to_string(),
        Unit::Count => "count".to_string(),
        Unit::Flag => "true/false".to_string(),
        Unit::Word { names, .. } => format!("one of {}", names.join(", ")),
        Unit::Version => "version".to_string(),
        Unit::DistList => "durations or distributions".to_string(),
        Unit::Rate => "number".to_string(),
        Unit::Propagation => "preset, duration or distribution".to_string(),
        Unit::DistOrWord { word, .. } => format!("duration, distribution or \"{word}\""),
        Unit::Scaled => "count or percentage".to_string(),
        Unit::Pulls => "count or \"fails\"".to_string(),
        Unit::PriorityGroups => "priority:seconds groups".to_string(),
    };
    match field.limit() {
        Some(limit) => format!("{written}, {}", limit.reference()),
        None => written,
    }
}
