//! The `podsim.dev/` annotations of a Pod: read into settings, each
//! checked where it is written, and the notices a container's timings call
//! for (a hook whose length the manifest does not tell, a timing set for a
//! hook that is not there).
//!
//! Invariant: every annotation under `podsim.dev/` is used or is an error;
//! one whose domain is a misspelling of it is an error too, so a typo never
//! falls back to a default.

use std::collections::BTreeMap;

use super::handler::Hook;
use super::pod::{DEFAULT_HOOK, DOMAIN, Entry, Mapper};
use crate::model::ContainerKind;
use crate::scenario::diagnostic::{Diagnostic, Problem, closest};
use crate::scenario::key::{Field, Group, Scope};
use crate::scenario::manifest::service::service_key;
use crate::scenario::manifest::timings::{PREFIX, Setting, Source, lookup};

impl Mapper<'_> {
    /// `podsim.dev/` annotations as settings, each checked where it is written.
    pub(super) fn annotations(
        &self,
        annotations: Option<&BTreeMap<String, String>>,
        names: &[&str],
    ) -> Result<Vec<Setting>, Diagnostic> {
        let mut settings = Vec::new();
        let mut stops = Vec::new();
        for (key, text) in annotations.into_iter().flatten() {
            let Some(rest) = key.strip_prefix(PREFIX) else {
                let domain = key.split_once('/').map_or("", |(d, _)| d);
                if domain.starts_with("podsim") || closest(domain, &[DOMAIN]).is_some() {
                    return Err(self.error(
                        &["metadata", "annotations", key.as_str()],
                        format!(
                            "annotation \"{key}\": podsim reads annotations that start with \"{PREFIX}\""
                        ),
                    ));
                }
                continue;
            };
            let at = ["metadata", "annotations", key.as_str()];
            let context = format!("annotation \"{key}\": ");
            let key_error = |problem: Problem| {
                let offset = self.doc.offset(&self.full(&at));
                Diagnostic::error(
                    self.stream.origin,
                    self.stream.text,
                    Some(offset..offset),
                    problem,
                )
            };
            let pod_field = lookup(Scope::Pod, rest, &context, "pod key");
            let (container, index, field) =
                match (service_key(rest, &context), pod_field, rest.split_once('.')) {
                    (Some(found), _, _) => {
                        let (field, index) = found.map_err(key_error)?;
                        (None, index, field)
                    }
                    (None, Ok(field), _) => (None, None, field),
                    // `job.backoff_limit`: the Job's, unless `job` is a
                    // container and the key one of a container's.
                    (None, Err(_), Some(("job", leaf))) if Field::find(Scope::Container, leaf).is_none() => {
                        let field = lookup(Scope::Job, leaf, &context, "[job] key").map_err(key_error)?;
                        (None, None, field)
                    }
                    (None, Err(_), Some((container, timing)))
                        if !timing.is_empty() && Group::ALL.iter().all(|g| g.name() != container) =>
                    {
                        if !names.contains(&container) {
                            let valid = names.iter().map(|n| n.to_string()).collect();
                            return Err(key_error(Problem::unknown(
                                context,
                                "container",
                                container,
                                valid,
                            )));
                        }
                        let field =
                            lookup(Scope::Container, timing, &context, "timing key").map_err(key_error)?;
                        (Some(container.to_string()), None, field)
                    }
                    // A container's key written as the Pod's (`restart_policy`
                    // is both: the Pod's answer stands then).
                    (None, Err(_), _)
                        if Field::find(Scope::Container, rest).is_some()
                            && Field::find(Scope::Pod, rest).is_none() =>
                    {
                        return Err(key_error(Problem::Message(format!(
                            "{context}{rest} belongs to a container: write \"{PREFIX}<container>.{rest}\""
                        ))));
                    }
                    (None, Err(problem), _) => return Err(key_error(problem)),
                };
            let value = field.unit().parse_text(&field.name(), text).map_err(|message| {
                let path = self.full(&at);
                self.stream
                    .error(self.doc.value_offset(&path), format!("{context}{message}"))
            })?;
            if matches!(field, Field::StopAt | Field::StopAfterReady) {
                stops.push(field);
                if stops.len() > 1 {
                    return Err(self.error(
                        &["metadata", "annotations", &format!("{PREFIX}stop_after_ready")],
                        "stop_at and stop_after_ready are both set; keep one (a deletion happens once)",
                    ));
                }
            }
            settings.push(Setting {
                container,
                index,
                field,
                value,
                source: Source::Annotation(key.clone()),
            });
        }
        Ok(settings)
    }

    /// Notices for a container, given the fields its settings set, and
    /// whether its boot and drain were assumed (drain only counts if the Pod
    /// `shuts_down`); a `pre_stop` setting without a hook to time is an error.
    pub(super) fn timing_notices(
        &self,
        entry: &Entry,
        (hook, post_start): &(Hook, Hook),
        set: &[Field],
        shuts_down: bool,
        notices: &mut Vec<Diagnostic>,
    ) -> Result<(bool, bool), Diagnostic> {
        let c = entry.container;
        let path = entry.path();
        let at = |key: &'static str| {
            let mut at: Vec<&str> = path.iter().map(String::as_str).collect();
            at.push(key);
            at
        };
        let has = |field| set.contains(&field);
        // Each hook: whether its length or anything else of it is set, how
        // the message names what is set, its timing key and its field in
        // `lifecycle`, and whether a length podsim must assume matters.
        let hooks = [
            (
                hook,
                has(Field::PreStop),
                has(Field::PreStop),
                "a pre_stop timing is",
                "pre_stop",
                "preStop",
                shuts_down,
            ),
            (
                post_start,
                has(Field::PostStart),
                has(Field::PostStart) || has(Field::PostStartFails),
                "a post_start timing or post_start_fails is",
                "post_start",
                "postStart",
                true,
            ),
        ];
        for (hook, length_set, anything_set, what_is_set, key, field, matters) in hooks {
            match hook {
                Hook::Absent if anything_set => {
                    return Err(self.error(
                        &at("name"),
                        format!(
                            "container \"{}\": {what_is_set} set ({PREFIX}{}.{key} or the timings file) \
                             but the container has no lifecycle.{field} hook",
                            c.name, c.name
                        ),
                    ));
                }
                Hook::UntilBooted(command) if !length_set => {
                    notices.push(self.notice(
                        &at("lifecycle"),
                        format!(
                            "container \"{}\": its {field} hook `{command}` returns once the container \
                             answers, so podsim runs it until the boot is over and nothing after it starts \
                             before (set {PREFIX}{}.{key} for another length)",
                            c.name, c.name
                        ),
                    ));
                }
                Hook::Unknown(what) if !length_set && matters => {
                    notices.push(self.notice(
                        &at("lifecycle"),
                        format!(
                            "container \"{}\": how long its {what} {field} hook takes is not written in the \
                             manifest; podsim assumes {DEFAULT_HOOK} (set {PREFIX}{}.{key})",
                            c.name, c.name
                        ),
                    ));
                }
                _ => {}
            }
        }
        let no_boot = !has(Field::Boot);
        let no_drain = shuts_down && entry.kind != ContainerKind::Init && !has(Field::Drain);
        Ok((no_boot, no_drain))
    }
}
