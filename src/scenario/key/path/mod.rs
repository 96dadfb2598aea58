//! Key paths: the one grammar of the names a key is written by outside its
//! own table — a grid axis (`containers.web.boot`, `pod.backoff.cap`,
//! `disruptions.0.at`) and a `podsim.dev/` annotation (`web.boot`,
//! `backoff.cap`, `traffic.rate`) — and of the tables that hold keys in a
//! TOML scenario and a timings overlay (`[pod]`, `[containers.<name>]`,
//! `[service]`, `[[disruptions]]`, …).
//!
//! Invariant: every reader (TOML, annotations, `--timings`, grid axes, the
//! page's axis hints) splits a path, names a table, lists the valid paths
//! of a family and suggests the closest one here, so a path that one reader
//! takes, every other takes in the same sense, and a misspelt one gets the
//! same suggestion wherever it is written. Which keys a reader writes at
//! all (a manifest's readers refuse what the manifest says) is `Reader`.
//!
//! The rooms: this file (tables, parsing, printing), `list` (the valid
//! paths of a family, for suggestions and messages), `reader` (what each
//! reader writes, and the lookup the manifest's readers share).

mod list;
mod reader;
#[cfg(test)]
mod tests;

pub use list::{axis_paths, family_help, overview};
pub use reader::{NO_ACTIONS, Reader, overlay_check, overlay_keys, overlay_lookup, overlay_unknown};

use super::{Field, Group, Scope};

impl Scope {
    /// The tables that hold keys, in the order a scenario writes them and
    /// messages list them (the run's keys are the top level's, no table).
    pub const TABLES: [Scope; 11] = [
        Scope::Pod,
        Scope::Container,
        Scope::Job,
        Scope::Service,
        Scope::Traffic,
        Scope::App,
        Scope::Pdb,
        Scope::Hop,
        Scope::Disruption,
        Scope::Action,
        Scope::Cluster,
    ];

    /// The scope whose table is called `name` (`pod`, `containers`,
    /// `disruptions`); the run has none.
    pub fn from_table(name: &str) -> Option<Scope> {
        Scope::TABLES.into_iter().find(|s| s.table() == name)
    }

    /// Whether the table is a list of entries, each named by its index in
    /// a path (`disruptions.0.at`, `actions.1.down`).
    pub fn indexed(self) -> bool {
        matches!(self, Scope::Disruption | Scope::Action)
    }

    /// The table as a TOML scenario writes it: `[pod]`, `[[containers]]`.
    pub fn heading(self) -> String {
        match self {
            Scope::Run => "the top level".to_string(),
            Scope::Container | Scope::Disruption | Scope::Action => format!("[[{}]]", self.table()),
            _ => format!("[{}]", self.table()),
        }
    }
}

/// How a reader spells a path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// A grid axis, the scenario's tables in full: `horizon`,
    /// `pod.backoff.cap`, `containers.<name>.<key>` (a name may hold dots),
    /// `job.<key>`, `service.<key>`, `disruptions.<index>.<key>`,
    /// `actions.<index>.<key>`.
    Axis,
    /// A `podsim.dev/` annotation, written on its Pod: the run's and the
    /// Pod's keys bare (`stop_at`, `backoff.cap`), a container's after its
    /// name (`web.boot`, up to the first dot), the Job's and the Service's
    /// tables as an axis writes them. A container may be called like a
    /// table (`app`, `job`): a container's key after the name is then that
    /// container's, since no table's key is spelt like one.
    Annotation,
}

/// Where a path's key sits besides its table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place<'p> {
    /// The table's only instance: the run, the Pod, the Job, the Service's.
    Table,
    /// The container of this name, as written (the base or the manifest
    /// says whether it exists).
    Container(&'p str),
    /// The entry of an indexed table (`Scope::indexed`).
    Index(usize),
}

/// A path parsed: the key and where it sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyPath<'p> {
    /// The key.
    pub field: Field,
    /// Its container or entry.
    pub place: Place<'p>,
}

/// Why a path names no key: each case carries the family it was meant
/// for, so the message lists that family's paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathError<'p> {
    /// A group's table rather than one of its keys (`pod.backoff`).
    Group(Group),
    /// A table the path names, and a key it does not have; for a
    /// container's key, the container as written.
    UnknownKey {
        /// The table.
        scope: Scope,
        /// The container named, for a container's key.
        container: Option<&'p str>,
        /// The key as written.
        key: &'p str,
    },
    /// An indexed table's entry with no index (`disruptions.at`: `None`)
    /// or one that is not a number (`disruptions.first.at`).
    Index {
        /// The table.
        scope: Scope,
        /// The index as written, if there is one.
        index: Option<&'p str>,
        /// The key after it, as written.
        key: &'p str,
    },
    /// A container's key with no container before it (an annotation's
    /// `boot`, which must say whose).
    NoContainer(Field),
    /// No table's path and no key of the run.
    Unknown,
}

impl PathError<'_> {
    /// The family the path was meant for, if it names one.
    pub fn scope(&self) -> Option<Scope> {
        match *self {
            PathError::Group(group) => Some(group.scope()),
            PathError::UnknownKey { scope, .. } | PathError::Index { scope, .. } => Some(scope),
            PathError::NoContainer(_) => Some(Scope::Container),
            PathError::Unknown => None,
        }
    }
}

/// The key `path` names, spelt as `spelling` spells it.
pub fn parse(path: &str, spelling: Spelling) -> Result<KeyPath<'_>, PathError<'_>> {
    match spelling {
        Spelling::Axis => parse_axis(path),
        Spelling::Annotation => parse_annotation(path),
    }
}

fn parse_axis(path: &str) -> Result<KeyPath<'_>, PathError<'_>> {
    if let Some(field) = Field::find(Scope::Run, path) {
        return Ok(whole(field));
    }
    let Some((table, rest)) = path.split_once('.') else {
        return Err(PathError::Unknown);
    };
    match Scope::from_table(table) {
        Some(Scope::Container) => container_path(rest),
        Some(scope) if scope.indexed() => indexed(scope, rest),
        Some(scope) => in_table(scope, rest),
        None => Err(PathError::Unknown),
    }
}

fn parse_annotation(path: &str) -> Result<KeyPath<'_>, PathError<'_>> {
    let split = path.split_once('.');
    // A table's path, unless a container called like the table is meant.
    if let Some((table, rest)) = split
        && let Some(scope) = Scope::from_table(table)
        && !matches!(scope, Scope::Pod | Scope::Container)
        && Field::find(Scope::Container, rest).is_none()
    {
        return match scope {
            scope if scope.indexed() => indexed(scope, rest),
            scope => in_table(scope, rest),
        };
    }
    if let Some(field) = [Scope::Run, Scope::Pod]
        .into_iter()
        .find_map(|scope| Field::find(scope, path))
    {
        return Ok(whole(field));
    }
    match split {
        Some((name, key)) if !key.is_empty() && Group::ALL.iter().all(|g| g.name() != name) => {
            match Field::find(Scope::Container, key) {
                Some(field) => Ok(KeyPath {
                    field,
                    place: Place::Container(name),
                }),
                None => Err(PathError::UnknownKey {
                    scope: Scope::Container,
                    container: Some(name),
                    key,
                }),
            }
        }
        _ => match Field::find(Scope::Container, path) {
            Some(field) => Err(PathError::NoContainer(field)),
            None => Err(PathError::UnknownKey {
                scope: Scope::Pod,
                container: None,
                key: path,
            }),
        },
    }
}

fn whole(field: Field) -> KeyPath<'static> {
    KeyPath {
        field,
        place: Place::Table,
    }
}

/// `<key>` of a table that is written once (`[pod]`, `[service]`), or the
/// name of one of its groups.
fn in_table(scope: Scope, key: &str) -> Result<KeyPath<'_>, PathError<'_>> {
    if let Some(group) = group(scope, key) {
        return Err(PathError::Group(group));
    }
    Field::find(scope, key).map(whole).ok_or(PathError::UnknownKey {
        scope,
        container: None,
        key,
    })
}

/// `<index>.<key>` of an indexed table.
fn indexed(scope: Scope, rest: &str) -> Result<KeyPath<'_>, PathError<'_>> {
    let Some((index, key)) = rest.split_once('.') else {
        return Err(PathError::Index {
            scope,
            index: None,
            key: rest,
        });
    };
    let Ok(i) = index.parse::<usize>() else {
        return Err(PathError::Index {
            scope,
            index: Some(index),
            key,
        });
    };
    match Field::find(scope, key) {
        Some(field) => Ok(KeyPath {
            field,
            place: Place::Index(i),
        }),
        None => Err(PathError::UnknownKey {
            scope,
            container: None,
            key,
        }),
    }
}

/// `<name>.<key>` or `<name>.<group>.<key>` of an axis: the key is the last
/// part, or the last two for a group's, and the name the rest.
fn container_path(rest: &str) -> Result<KeyPath<'_>, PathError<'_>> {
    let Some((head, last)) = rest.rsplit_once('.') else {
        return Err(PathError::UnknownKey {
            scope: Scope::Container,
            container: None,
            key: rest,
        });
    };
    if let Some((name, group)) = head.rsplit_once('.')
        && let Some(field) = Field::find(Scope::Container, &format!("{group}.{last}"))
    {
        return Ok(KeyPath {
            field,
            place: Place::Container(name),
        });
    }
    if let Some(group) = group(Scope::Container, last) {
        return Err(PathError::Group(group));
    }
    match Field::find(Scope::Container, last) {
        Some(field) => Ok(KeyPath {
            field,
            place: Place::Container(head),
        }),
        None => Err(PathError::UnknownKey {
            scope: Scope::Container,
            container: Some(head),
            key: last,
        }),
    }
}

/// A rollout's new Pod template, inside a disruption's table:
/// `[disruptions.template.<container>]` in a TOML scenario and in a
/// timings file alike, each of its keys a container's.
pub const TEMPLATE: &str = "template";

/// Why a container's key `word` cannot be written in a rollout's template,
/// if it cannot: the template changes timings, and the keys that shape the
/// Pod (its containers' names and kinds, which one is the proxy) stay the
/// old Pod's, where the Service finds its app and proxy.
pub fn not_in_template(word: &str) -> Option<String> {
    matches!(word, "name" | "kind" | "proxy").then(|| {
        format!(
            "{word} shapes the Pod, and a new template changes its timings only: the Service finds its app \
             and proxy in the old one"
        )
    })
}

/// The group of `scope` called `name`.
pub fn group(scope: Scope, name: &str) -> Option<Group> {
    Group::ALL
        .into_iter()
        .find(|g| g.scope() == scope && g.name() == name)
}

/// The path of `field` at `place` as `spelling` writes it; the inverse of
/// `parse`. A place not given keeps its placeholder (`containers.<name>.boot`).
pub fn print(field: Field, place: Place<'_>, spelling: Spelling) -> String {
    // The key first: a container's name is the user's and may hold anything.
    let path = pattern(field.scope(), spelling).replace("<key>", &field.name());
    match place {
        Place::Container(name) => path.replace("<name>", name).replace("<container>", name),
        Place::Index(i) => path.replace("<index>", &i.to_string()),
        Place::Table => path,
    }
}

/// How `spelling` writes any key of `scope`, with placeholders:
/// `pod.<key>`, `containers.<name>.<key>`, an annotation's `<container>.<key>`.
pub fn pattern(scope: Scope, spelling: Spelling) -> String {
    match (scope, spelling) {
        (Scope::Run, _) | (Scope::Pod, Spelling::Annotation) => "<key>".to_string(),
        (Scope::Container, Spelling::Annotation) => "<container>.<key>".to_string(),
        (Scope::Container, Spelling::Axis) => "containers.<name>.<key>".to_string(),
        (scope, _) if scope.indexed() => format!("{}.<index>.<key>", scope.table()),
        (scope, _) => format!("{}.<key>", scope.table()),
    }
}
