//! What Kubernetes does not know (how long a container boots, drains, …;
//! when the Pod is deleted; the node's back-off; the Service, traffic and
//! disruptions it runs under): read from `podsim.dev/` Pod annotations and
//! from a timings overlay file, in the words of TOML scenarios, as a list
//! of settings applied over the manifest's Pod.
//!
//! Invariant: both sources look their keys up in the registry (`key`) and
//! set them with `Key::set`, so a key means the same and is checked the
//! same wherever it is written; a key the manifest itself expresses (a
//! probe's period, the grace period) is refused with the field to edit.

use std::ops::Range;
use std::path::Path;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::scenario::diagnostic::{Diagnostic, Input, Layout, Problem};
use crate::scenario::key::path::{self, NO_ACTIONS, TEMPLATE, not_in_template, overlay_lookup};
use crate::scenario::key::{Field, Scope, Value};
use crate::scenario::rules::TWO_DELETIONS;
use crate::scenario::toml::{ValueError, syntax_error, value};

/// The annotation prefix: `podsim.dev/<container>.<key>` and `podsim.dev/<key>`.
pub const PREFIX: &str = "podsim.dev/";

/// One setting as written, before the manifest says which container is which.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The container's name; `None` for a Pod, run or Service setting.
    pub container: Option<String>,
    /// A disruption's index, for a disruption's key; with a container, the
    /// key is that disruption's new Pod template's (`in_template`).
    pub index: Option<usize>,
    /// The key, as the registry knows it.
    pub field: Field,
    /// The value as written, checked for its unit.
    pub value: Value,
    /// Where it was written, for a rule that only the whole scenario can check.
    pub source: Source,
}

impl Setting {
    /// Whether it sets a rollout's new Pod template
    /// (`[disruptions.template.<container>]`), not the Pod.
    pub fn in_template(&self) -> bool {
        self.container.is_some() && self.index.is_some()
    }
}

/// Where a setting was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The annotation of this key.
    Annotation(String),
    /// These bytes of the overlay.
    Overlay(Range<usize>),
}

/// A timings overlay, checked except for container names, which only a
/// manifest can check (hence the spans kept for them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timings {
    /// The file's name, for messages.
    pub origin: String,
    text: String,
    /// In the order written: Pod settings, then each container's.
    pub settings: Vec<Setting>,
    /// Each `[containers.<name>]` table's name and where it was written.
    pub containers: Vec<(String, Range<usize>)>,
}

/// An entry written other than as a table, `write`.
fn a_table(write: &str) -> Problem {
    Problem::expected("", "", format!("a table: {write}"), None)
}

impl Timings {
    /// Reads and checks a timings file.
    pub fn load(path: &Path) -> Result<Timings, Diagnostic> {
        let (origin, text) = crate::scenario::read_input(path, Input::Timings)?;
        Timings::parse(&text, &origin)
    }

    /// Reads and checks timings text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Timings, Diagnostic> {
        let doc = DeTable::parse(text).map_err(|e| syntax_error(origin, text, &e))?;
        let mut timings = Timings {
            origin: origin.to_string(),
            text: text.to_string(),
            settings: Vec::new(),
            containers: Vec::new(),
        };
        for (key, table) in doc.get_ref() {
            let scope = match Scope::from_table(key.get_ref()) {
                Some(Scope::Action) => {
                    return Err(timings.error(key.span(), format!("actions: {NO_ACTIONS}")));
                }
                Some(scope) => scope,
                None => {
                    let tables: Vec<&str> = Scope::TABLES
                        .into_iter()
                        .filter(|s| *s != Scope::Action)
                        .map(Scope::table)
                        .collect();
                    return Err(Diagnostic::unknown_key(
                        origin,
                        text,
                        key.span(),
                        key.get_ref(),
                        &tables,
                    ));
                }
            };
            // `[[disruptions]]`, as a TOML scenario writes them: numbered in order.
            if let (Scope::Disruption, DeValue::Array(list)) = (scope, table.get_ref()) {
                for (i, keys) in list.iter().enumerate() {
                    let DeValue::Table(keys) = keys.get_ref() else {
                        return Err(timings.error(keys.span(), a_table("[[disruptions]]")));
                    };
                    let context = format!("[disruptions.{i}]");
                    timings.read(Scope::Disruption, None, Some(i), &context, keys)?;
                }
                continue;
            }
            let DeValue::Table(entries) = table.get_ref() else {
                let key = key.get_ref();
                let written = match scope {
                    Scope::Container => "[containers.<name>]".to_string(),
                    _ => format!("[{key}]"),
                };
                let table_problem = Problem::not_laid_out(key.as_ref() as &str, Layout::Table, written);
                return Err(timings.error(table.span(), table_problem));
            };
            match scope {
                Scope::Disruption => {
                    for (index, keys) in entries {
                        // The one rollout's template, without its index: disruption 0's.
                        if index.get_ref().as_ref() as &str == TEMPLATE {
                            timings.template(0, "[disruptions.0]", keys)?;
                            continue;
                        }
                        let (Ok(i), DeValue::Table(keys)) =
                            (index.get_ref().parse::<usize>(), keys.get_ref())
                        else {
                            return Err(timings.error(
                                index.span(),
                                Problem::expected(
                                    "",
                                    "",
                                    "a disruption's table by its index: [disruptions.0], [disruptions.1], …",
                                    None,
                                ),
                            ));
                        };
                        let context = format!("[disruptions.{i}]");
                        timings.read(Scope::Disruption, None, Some(i), &context, keys)?;
                    }
                }
                Scope::Container => {
                    for (name, keys) in entries {
                        let DeValue::Table(keys) = keys.get_ref() else {
                            return Err(timings.error(keys.span(), a_table("[containers.<name>]")));
                        };
                        let name_text = name.get_ref().to_string();
                        timings.containers.push((name_text.clone(), name.span()));
                        let context = format!("[containers.{name_text}]");
                        timings.read(Scope::Container, Some(&name_text), None, &context, keys)?;
                    }
                }
                scope => timings.read(scope, None, None, &format!("[{}]", scope.table()), entries)?,
            }
        }
        Ok(timings)
    }

    /// The keys of one table (`[pod]`, `[containers.<name>]`, `[service]`,
    /// `[disruptions.<index>]`, …), groups included.
    fn read(
        &mut self,
        scope: Scope,
        container: Option<&str>,
        index: Option<usize>,
        table_name: &str,
        entries: &DeTable,
    ) -> Result<(), Diagnostic> {
        let mut stops = Vec::new();
        for (key, item) in entries {
            let name: &str = key.get_ref().as_ref();
            if let (Scope::Disruption, Some(i), TEMPLATE) = (scope, index, name) {
                self.template(i, table_name, item)?;
                continue;
            }
            match (path::group(scope, name), item.get_ref()) {
                (Some(group), DeValue::Table(inner)) => {
                    for (leaf, item) in inner {
                        let path = format!("{}.{}", group.name(), leaf.get_ref());
                        self.one(
                            (scope, container, index),
                            table_name,
                            &path,
                            leaf,
                            item,
                            &mut stops,
                        )?;
                    }
                }
                _ => self.one((scope, container, index), table_name, name, key, item, &mut stops)?,
            }
        }
        Ok(())
    }

    /// `template.<container>` of disruption `index`: the new Pod template's
    /// container keys, read as a container's (its shape refused, as a TOML
    /// scenario refuses it); the manifest says which containers exist.
    fn template(
        &mut self,
        index: usize,
        table_name: &str,
        item: &Spanned<DeValue>,
    ) -> Result<(), Diagnostic> {
        let write = "[disruptions.template.<container>]";
        let DeValue::Table(containers) = item.get_ref() else {
            return Err(self.error(item.span(), a_table(write)));
        };
        for (name, keys) in containers {
            let DeValue::Table(keys) = keys.get_ref() else {
                return Err(self.error(keys.span(), a_table(write)));
            };
            let name_text = name.get_ref().to_string();
            let context = format!("{table_name} {TEMPLATE}.{name_text}");
            for (key, _) in keys {
                if let Some(refused) = not_in_template(key.get_ref()) {
                    return Err(self.error(key.span(), format!("{context} {}: {refused}", key.get_ref())));
                }
            }
            self.read(Scope::Container, Some(&name_text), Some(index), &context, keys)?;
        }
        Ok(())
    }

    /// One key of a table; `at` is the table's scope, container and disruption index.
    fn one(
        &mut self,
        at: (Scope, Option<&str>, Option<usize>),
        table_name: &str,
        path: &str,
        key: &Spanned<toml::de::DeString>,
        item: &Spanned<DeValue>,
        stops: &mut Vec<Field>,
    ) -> Result<(), Diagnostic> {
        let (scope, container, index) = at;
        let context = format!("{table_name} {path}: ");
        let what = match scope {
            Scope::Run | Scope::Pod | Scope::Container => "timing key".to_string(),
            _ => format!("{table_name} key"),
        };
        let field = overlay_lookup(scope, path, &context, &what)
            .map_err(|p| Diagnostic::error(&self.origin, &self.text, Some(key.span()), p))?;
        let parsed = value(field.unit(), item.get_ref())
            .and_then(|v| field.within_limit(v).map_err(ValueError::Invalid))
            .map_err(|e| self.error(item.span(), e.problem(&format!("{table_name} "), &field.name())))?;
        if matches!(field, Field::StopAt | Field::StopAfterReady) {
            stops.push(field);
            if stops.len() > 1 {
                return Err(self.error(item.span(), TWO_DELETIONS));
            }
        }
        self.settings.push(Setting {
            container: container.map(str::to_string),
            index,
            field,
            value: parsed,
            source: Source::Overlay(key.span()),
        });
        Ok(())
    }

    /// An error about this overlay at `span`.
    pub fn error(&self, span: Range<usize>, problem: impl Into<Problem>) -> Diagnostic {
        Diagnostic::error(&self.origin, &self.text, Some(span), problem)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::SimDuration;

    #[test]
    fn overlay_reads_every_key_in_typed_units() {
        let t = Timings::parse(
            "[pod]\nstop_after_ready = \"5s\"\nbackoff = { cap = \"8s\" }\n[containers.web]\nboot = \"2s\"\nfails = 1\nproxy = true\n",
            "t.toml",
        )
        .unwrap();
        let fields: Vec<(Option<&str>, Field, &Value)> = t
            .settings
            .iter()
            .map(|s| (s.container.as_deref(), s.field, &s.value))
            .collect();
        let secs = |s| Value::Millis(SimDuration::from_secs(s));
        assert_eq!(
            fields,
            [
                (None, Field::StopAfterReady, &secs(5)),
                (None, Field::BackoffCap, &secs(8)),
                (Some("web"), Field::Boot, &secs(2)),
                (Some("web"), Field::Fails, &Value::Count(1)),
                (Some("web"), Field::Proxy, &Value::Flag(true)),
            ]
        );
    }

    #[test]
    fn overlay_typos_are_positioned_and_suggest() {
        let e = Timings::parse("[containers.web]\nbot = \"2s\"\n", "t.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.toml:2:1: [containers.web] bot: unknown timing key \"bot\"; did you mean \"boot\"? \
             expected one of boot, drain, pre_stop, fails, fail_probability, proxy, crash_after, run, exit_code, startup_probe.outcome, startup_probe.pass_after, startup_probe.pass_until, readiness_probe.outcome, readiness_probe.pass_after, readiness_probe.pass_until, liveness_probe.outcome, liveness_probe.pass_after, liveness_probe.pass_until, exit_code_on_sigterm, drains_on, post_start, post_start_fails, image_pull"
        );
        let e = Timings::parse("[containers.web]\nboot = 2\n", "t.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.toml:2:8: [containers.web] boot: a duration needs a unit and quotes: write \"2s\" or \"2ms\", not 2"
        );
        let e = Timings::parse("[pods]\n", "t.toml").unwrap_err();
        assert!(e.to_string().contains("did you mean \"pod\"?"), "{e}");
    }

    #[test]
    fn keys_the_manifest_expresses_are_refused_with_the_field_to_edit() {
        let e = Timings::parse("[pod]\ntermination_grace_period = \"5s\"\n", "t.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.toml:2:1: [pod] termination_grace_period: termination_grace_period comes from the manifest: \
             spec.terminationGracePeriodSeconds; edit it there (or sweep it as an axis)"
        );
    }

    #[test]
    fn a_deletion_is_written_once() {
        let e = Timings::parse("[pod]\nstop_at = \"1s\"\nstop_after_ready = \"1s\"\n", "t.toml").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.toml:3:20: stop_at and stop_after_ready"),
            "{e}"
        );
    }

    /// `[[disruptions]]`, as a TOML scenario writes them, are the same as
    /// `[disruptions.0]`, `[disruptions.1]`; a key that is not a table says
    /// how to write it.
    #[test]
    fn disruptions_are_read_as_a_list_or_by_index() {
        let index = |text: &str| -> Vec<(Option<usize>, Field)> {
            let t = Timings::parse(text, "t.toml").unwrap_or_else(|e| panic!("{e}"));
            t.settings.iter().map(|s| (s.index, s.field)).collect()
        };
        let listed = index("[[disruptions]]\nafter_ready = \"5s\"\n[[disruptions]]\ndelete = 1\n");
        assert_eq!(listed, [(Some(0), Field::AfterReady), (Some(1), Field::Delete)]);
        let numbered = index("[disruptions.0]\nafter_ready = \"5s\"\n[disruptions.1]\ndelete = 1\n");
        assert_eq!(listed, numbered);
        let e = Timings::parse("pod = 3\n", "t.toml").unwrap_err();
        assert_eq!(e.to_string(), "t.toml:1:7: pod must be a table: write [pod]");
        let e = Timings::parse("containers = []\n", "t.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.toml:1:14: containers must be a table: write [containers.<name>]"
        );
    }
}
