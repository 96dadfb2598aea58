//! The valid paths of a family, for "did you mean" and for the list a
//! message prints beside it: every family (the run, the Pod with its
//! back-off, a container with its probes, the Job, the Service's tables,
//! the disruptions and the actions) listed from the registry the same way.

use crate::model::{PodMode, RunSpec};

use super::super::{Field, Group, Scope};
use super::{Place, Spelling, pattern, print};

/// Every path an axis may name on `base`, in the families it has: the
/// run, the Pod and its containers by name always; the Job's keys for a
/// Job's Pod; the Service's tables and its disruptions by index for a
/// Service; its actions by index. The candidates "did you mean" picks
/// from, and the page's hints, so neither offers a path the base refuses.
pub fn axis_paths(base: &RunSpec) -> Vec<String> {
    let containers: Vec<&str> = base.pod.containers.iter().map(|c| c.name.as_str()).collect();
    let service = base.service.as_deref();
    let mut paths = Vec::new();
    for field in Field::ALL {
        let places: Vec<Place<'_>> = match field.scope() {
            Scope::Run | Scope::Pod => vec![Place::Table],
            Scope::Container => containers.iter().map(|c| Place::Container(c)).collect(),
            Scope::Job if base.pod.mode == PodMode::Job => vec![Place::Table],
            Scope::Job => Vec::new(),
            Scope::Action => (0..base.pod.actions.len()).map(Place::Index).collect(),
            Scope::Disruption => (0..service.map_or(0, |s| s.disruptions.len()))
                .map(Place::Index)
                .collect(),
            Scope::Service | Scope::Traffic | Scope::App | Scope::Pdb | Scope::Hop | Scope::Cluster
                if service.is_some() =>
            {
                vec![Place::Table]
            }
            Scope::Service | Scope::Traffic | Scope::App | Scope::Pdb | Scope::Hop | Scope::Cluster => {
                Vec::new()
            }
        };
        paths.extend(places.into_iter().map(|p| print(field, p, Spelling::Axis)));
    }
    paths
}

/// The paths of `scope`'s family as an axis writes them, grouped: a group's
/// keys in braces (`pod.backoff.{initial,cap,immediate_first_restart}`),
/// a container's and an entry's after a placeholder said once
/// (`containers.<name>.{kind,boot,…}, with <name> one of proxy, web`).
pub fn family_help(scope: Scope, base: &RunSpec) -> String {
    let plain = ungrouped(scope);
    let groups: Vec<Group> = Group::ALL.into_iter().filter(|g| g.scope() == scope).collect();
    let braced = |prefix: &str, keys: &[&str]| format!("{prefix}.{{{}}}", keys.join(","));
    match scope {
        Scope::Run => plain.join(", "),
        Scope::Container => {
            let names: Vec<&str> = base.pod.containers.iter().map(|c| c.name.as_str()).collect();
            let probes: Vec<&str> = groups
                .iter()
                .map(|g| g.name().trim_end_matches("_probe"))
                .collect();
            format!(
                "{}, {}, with <name> one of {}",
                braced("containers.<name>", &plain),
                braced(
                    &format!("containers.<name>.<{}>_probe", probes.join("|")),
                    &Field::names_in(groups[0])
                ),
                names.join(", ")
            )
        }
        scope if scope.indexed() => {
            let count = match scope {
                Scope::Action => base.pod.actions.len(),
                _ => base.service.as_ref().map_or(0, |s| s.disruptions.len()),
            };
            let indices = match count {
                0 => format!(" (the base has no {} entry)", scope.heading()),
                1 => ", with <index> 0".to_string(),
                n => format!(", with <index> one of 0 to {}", n - 1),
            };
            format!(
                "{}{indices}",
                braced(&format!("{}.<index>", scope.table()), &plain)
            )
        }
        scope => {
            let table = scope.table();
            let mut paths: Vec<String> = plain.iter().map(|k| format!("{table}.{k}")).collect();
            paths.extend(
                groups
                    .iter()
                    .map(|g| braced(&format!("{table}.{}", g.name()), &Field::names_in(*g))),
            );
            paths.join(", ")
        }
    }
}

/// Every family at a glance, for a path that names none: the run's keys,
/// then each table's paths with a placeholder for the key.
pub fn overview() -> String {
    let tables: Vec<String> = Scope::TABLES.map(|s| pattern(s, Spelling::Axis)).into();
    format!(
        "{}, or a key of a table: {}",
        ungrouped(Scope::Run).join(", "),
        tables.join(", ")
    )
}

/// The keys of `scope` outside groups, in the registry's order.
fn ungrouped(scope: Scope) -> Vec<&'static str> {
    Field::ALL
        .iter()
        .filter(|f| f.scope() == scope && f.group().is_none())
        .map(|f| f.leaf())
        .collect()
}
