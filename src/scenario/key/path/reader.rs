//! Which keys each reader writes, and the lookup the manifest's two readers
//! (annotations and the timings overlay) share: they carry only what
//! Kubernetes does not say, so a key the manifest says is refused with
//! the field to edit named.

use crate::scenario::diagnostic::Problem;

use super::super::{Field, Scope};

/// Why a manifest's readers refuse an action's key.
pub const NO_ACTIONS: &str = "a manifest has no actions: write them as [[actions]] in a TOML scenario";

/// A place a key can be written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reader {
    /// A TOML scenario's tables.
    Toml,
    /// A grid axis's path.
    Axis,
    /// A `podsim.dev/` annotation of a manifest's Pod.
    Annotation,
    /// A timings overlay's tables (`--timings`).
    Timings,
}

impl Reader {
    /// Every reader, in the order the key reference's columns list them.
    pub const ALL: [Reader; 4] = [Reader::Toml, Reader::Axis, Reader::Annotation, Reader::Timings];

    /// What the reader is called in the key reference.
    pub fn name(self) -> &'static str {
        match self {
            Reader::Toml => "TOML",
            Reader::Axis => "axis",
            Reader::Annotation => "annotation",
            Reader::Timings => "timings",
        }
    }

    /// Whether the reader writes `field`. A scenario and an axis write
    /// every key; a manifest's readers neither what the manifest says
    /// (it is the source of truth) nor an action (a manifest has none).
    pub fn writes(self, field: Field) -> bool {
        match self {
            Reader::Toml | Reader::Axis => true,
            Reader::Annotation | Reader::Timings => {
                field.manifest_field().is_none() && field.scope() != Scope::Action
            }
        }
    }
}

/// The scopes whose keys a manifest reader's table `scope` holds: a Pod
/// table (and an annotation without a table) holds the run's keys too.
fn scopes(scope: Scope) -> &'static [Scope] {
    match scope {
        Scope::Run | Scope::Pod => &[Scope::Run, Scope::Pod],
        Scope::Container => &[Scope::Container],
        Scope::Service => &[Scope::Service],
        Scope::Traffic => &[Scope::Traffic],
        Scope::App => &[Scope::App],
        Scope::Disruption => &[Scope::Disruption],
        Scope::Pdb => &[Scope::Pdb],
        Scope::Hop => &[Scope::Hop],
        Scope::Cluster => &[Scope::Cluster],
        Scope::Job => &[Scope::Job],
        Scope::Action => &[Scope::Action],
    }
}

/// The keys (`boot`, `backoff.cap`) a manifest's readers write in
/// `scope`'s table: the registry's, less those the manifest says.
pub fn overlay_keys(scope: Scope) -> Vec<String> {
    let scopes = scopes(scope);
    Field::ALL
        .iter()
        .filter(|f| scopes.contains(&f.scope()) && Reader::Timings.writes(**f))
        .map(|f| f.name())
        .collect()
}

/// The field `name` a manifest's readers write in `scope`'s table, or the
/// message saying why not (`what` names the reader's keys).
pub fn overlay_lookup(scope: Scope, name: &str, context: &str, what: &str) -> Result<Field, Problem> {
    let scopes = scopes(scope);
    match scopes.iter().find_map(|s| Field::find(*s, name)) {
        Some(field) => overlay_check(field, context),
        None => Err(overlay_unknown(scope, name, context, what)),
    }
}

/// `name` is not a key of `scope`'s table that a manifest's readers know:
/// the closest and the list of those they write. A table whose every key
/// the manifest says (`[job]`) lists those keys, so that the suggestion
/// leads to the refusal naming the manifest field.
pub fn overlay_unknown(scope: Scope, name: &str, context: &str, what: &str) -> Problem {
    let mut valid = overlay_keys(scope);
    if valid.is_empty() {
        let scopes = scopes(scope);
        valid = Field::ALL
            .iter()
            .filter(|f| scopes.contains(&f.scope()))
            .map(|f| f.name())
            .collect();
    }
    Problem::unknown(context.to_string(), what, name, valid)
}

/// `field` if a manifest's readers write it, or the message naming the
/// manifest field to edit instead.
pub fn overlay_check(field: Field, context: &str) -> Result<Field, Problem> {
    match field.manifest_field() {
        None => Ok(field),
        Some(k8s) => Err(Problem::Message(format!(
            "{context}{} comes from the manifest: {k8s}; edit it there (or sweep it as an axis)",
            field.name()
        ))),
    }
}
