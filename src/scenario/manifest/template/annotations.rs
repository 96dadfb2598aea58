//! The `podsim.dev/` annotations of a Pod: read into settings, each
//! checked where it is written.
//!
//! Invariant: every annotation under `podsim.dev/` is used or is an error;
//! one whose domain is a misspelling of it is an error too, so a typo never
//! falls back to a default.

use std::collections::BTreeMap;

use super::pod::{DOMAIN, Mapper};
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
}
