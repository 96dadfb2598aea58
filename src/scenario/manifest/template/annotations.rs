//! The `podsim.dev/` annotations of a Pod: read into settings, each
//! checked where it is written.
//!
//! Invariant: every annotation under `podsim.dev/` is used or is an error;
//! one whose domain is a misspelling of it is an error too, so a typo never
//! falls back to a default.

use std::collections::BTreeMap;

use super::pod::{DOMAIN, Mapper};
use crate::scenario::diagnostic::{Diagnostic, Problem, closest};
use crate::scenario::key::path::{self, NO_ACTIONS, PathError, overlay_check, overlay_unknown};
use crate::scenario::key::{Field, Place, Scope, Spelling};
use crate::scenario::manifest::timings::{PREFIX, Setting, Source};
use crate::scenario::rules::TWO_DELETIONS;

/// The key an annotation names after `podsim.dev/` (`rest`), parsed by the
/// registry's grammar: its container, its disruption's index and its
/// field; or why not, in the annotation's words. A container is checked
/// against the manifest's `names` before its key, as a reader reads.
fn annotation_key(
    rest: &str,
    context: &str,
    names: &[&str],
) -> Result<(Option<String>, Option<usize>, Field), Problem> {
    let unknown_container = |name: &str| {
        let valid = names.iter().map(|n| n.to_string()).collect();
        Problem::unknown(context.to_string(), "container", name, valid)
    };
    let words = |scope: Scope| match scope {
        Scope::Run | Scope::Pod => "pod key".to_string(),
        Scope::Container => "timing key".to_string(),
        Scope::Job => "[job] key".to_string(),
        scope => format!("[{}] key", scope.table()),
    };
    match path::parse(rest, Spelling::Annotation) {
        Ok(parsed) => {
            let (container, index) = match parsed.place {
                Place::Container(name) if !names.contains(&name) => return Err(unknown_container(name)),
                Place::Container(name) => (Some(name.to_string()), None),
                Place::Index(i) => (None, Some(i)),
                Place::Table => (None, None),
            };
            if parsed.field.scope() == Scope::Action {
                return Err(Problem::Message(format!("{context}{NO_ACTIONS}")));
            }
            Ok((container, index, overlay_check(parsed.field, context)?))
        }
        Err(PathError::UnknownKey {
            container: Some(name),
            ..
        }) if !names.contains(&name) => Err(unknown_container(name)),
        Err(
            PathError::UnknownKey {
                scope: Scope::Action, ..
            }
            | PathError::Index {
                scope: Scope::Action, ..
            },
        ) => Err(Problem::Message(format!("{context}{NO_ACTIONS}"))),
        Err(PathError::UnknownKey { scope, key, .. }) => {
            Err(overlay_unknown(scope, key, context, &words(scope)))
        }
        Err(PathError::Index { index: None, .. }) => Err(Problem::Message(format!(
            "{context}a disruption's key names its entry: write disruptions.<index>.<key>, \
             such as disruptions.0.after_ready"
        ))),
        Err(PathError::Index {
            index: Some(index),
            key,
            ..
        }) => Err(Problem::Message(format!(
            "{context}\"{index}\" is not a disruption's index: write disruptions.0.{key} \
             for the first, disruptions.1.{key} for the second"
        ))),
        // A container's key written as the Pod's (`restart_policy` is
        // both: the Pod's answer stands then).
        Err(PathError::NoContainer(_)) => Err(Problem::Message(format!(
            "{context}{rest} belongs to a container: write \"{PREFIX}<container>.{rest}\""
        ))),
        Err(PathError::Group(_) | PathError::Unknown) => {
            Err(overlay_unknown(Scope::Pod, rest, context, &words(Scope::Pod)))
        }
    }
}

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
            let (container, index, field) = annotation_key(rest, &context, names).map_err(key_error)?;
            let value = field.unit().parse_text(&field.name(), text);
            let value = value.and_then(|v| field.within_limit(v)).map_err(|message| {
                let path = self.full(&at);
                self.stream
                    .error(self.doc.value_offset(&path), format!("{context}{message}"))
            })?;
            if matches!(field, Field::StopAt | Field::StopAfterReady) {
                stops.push(field);
                if stops.len() > 1 {
                    return Err(self.error(
                        &["metadata", "annotations", &format!("{PREFIX}stop_after_ready")],
                        TWO_DELETIONS,
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
