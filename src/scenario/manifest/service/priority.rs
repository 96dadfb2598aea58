//! The Pod template's priority as the `pod_priority` key: its
//! `spec.priority` if written (what the Priority admission plugin fills
//! in), else the value of its `spec.priorityClassName` when that is one of
//! the two built-in classes; a class of the cluster's own, whose value no
//! manifest of the Pod holds, is taken as 0 with a notice naming the key
//! that sets it.
//!
//! Invariant: the key is `Derived`, so an annotation may repeat the
//! manifest's priority but not contradict it, as for a Deployment's fields.

use k8s_openapi::api::core::v1::PodSpec;

use super::Derived;
use crate::model::service::BUILT_IN_CLASSES;
use crate::scenario::diagnostic::Diagnostic;
use crate::scenario::key::path::{self, Place, Spelling};
use crate::scenario::key::{Field, Value};
use crate::scenario::manifest::timings::PREFIX;
use crate::scenario::manifest::yaml::{Document, Stream, dotted};

/// What the template's priority fields say: the key they set, if any, and
/// a notice to show if the run is a Service's (the only one that reads it).
#[derive(Default)]
pub struct Priority {
    pub derived: Option<Derived>,
    pub notice: Option<Diagnostic>,
}

/// Reads `spec`'s priority; `template` is the path to the Pod template
/// (empty for a Pod).
pub fn read(stream: &Stream, doc: &Document, template: &[&str], spec: &PodSpec) -> Priority {
    let path =
        |field: &'static str| -> Vec<&str> { template.iter().copied().chain(["spec", field]).collect() };
    let key = format!(
        "{PREFIX}{}",
        path::print(Field::PodPriority, Place::Table, Spelling::Axis)
    );
    let said = |field: &'static str, shown: String| {
        let at = path(field);
        let place = stream.line_col(doc.value_offset(&at));
        format!("the Pod template's {}: {shown} ({place})", dotted(&at))
    };
    if let Some(p) = spec.priority {
        let value = u32::try_from(p).unwrap_or(0);
        let notice = (p < 0).then(|| {
            let at = path("priority");
            let message = format!(
                "{}: {p} is below 0; podsim's priorities start at 0, and in a node shutdown a Pod \
                 below the lowest group's priority falls in that group as one of 0 does: taken as 0",
                dotted(&at)
            );
            stream.error(doc.value_offset(&at), message).warning()
        });
        let derived = Derived {
            field: Field::PodPriority,
            value: Some(Value::Count(value)),
            said: said("priority", p.to_string()),
        };
        return Priority {
            derived: Some(derived),
            notice,
        };
    }
    let Some(class) = spec.priority_class_name.as_deref() else {
        return Priority::default();
    };
    match BUILT_IN_CLASSES.iter().find(|(name, _)| *name == class) {
        Some(&(_, value)) => Priority {
            derived: Some(Derived {
                field: Field::PodPriority,
                value: Some(Value::Count(value)),
                said: said("priorityClassName", format!("{class} ({value})")),
            }),
            notice: None,
        },
        None => {
            let at = path("priorityClassName");
            let message = format!(
                "{}: \"{class}\" is a PriorityClass of the cluster's own, whose value podsim cannot see: \
                 the Pods' priority is taken as 0 (regular Pods in a node shutdown); annotate \
                 {key}: \"<its value>\" to set it",
                dotted(&at)
            );
            Priority {
                derived: None,
                notice: Some(stream.error(doc.value_offset(&at), message).warning()),
            }
        }
    }
}
