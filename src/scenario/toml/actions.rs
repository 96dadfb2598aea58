//! `[[actions]]` in a TOML scenario: what happens to the Pod during the run
//! (R70–R79). Each entry says when (`at` or `after_ready`, through the key
//! registry, so both are grid axes) and what: `delete = true` (with an
//! optional `grace_period`), `update_image = "<container>"` (with an
//! optional `[actions.timings]` table of the new image's container keys) or
//! `kubelet_restart = true` (with an optional `forget_exited_init`) or
//! `node_reboot = true` (with an optional `down`).
//! Kubernetes has no manifest field for these: TOML only.
//!
//! Invariant: the new image's timings are read with the very code that
//! reads a container (the container swapped for its copy meanwhile), so
//! they mean and are checked the same, and pass the Pod's rules.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{Reader, each_a_table, found, list_of_tables};
use crate::model::{ActionKind, ActionTime, ContainerId, NODE_DOWN, PodMode, TimedAction};
use crate::scenario::diagnostic::{Diagnostic, Expected, Problem};
use crate::scenario::key::{Field, Scope};
use crate::scenario::rules::check_spec;

/// The keys that say what an action does, besides the registry's.
const KINDS: [&str; 4] = ["delete", "update_image", "kubelet_restart", "node_reboot"];
/// The new image's container keys, inside an `update_image` action.
const TIMINGS: &str = "timings";
/// A kubelet restart's option: the runtime forgot completed init containers.
const FORGET: &str = "forget_exited_init";

impl Reader<'_> {
    /// Every `[[actions]]` entry, in order; containers, `[pod]` and the
    /// horizon are read already.
    pub(super) fn actions(&mut self, value: &Spanned<DeValue>) -> Result<(), Diagnostic> {
        let DeValue::Array(items) = value.get_ref() else {
            return Err(self.error(value.span(), list_of_tables("actions")));
        };
        if self.run.pod.mode == PodMode::Job || self.run.service.is_some() {
            let whose = if self.run.pod.mode == PodMode::Job {
                "a Job's Pods (the Job controller replaces them)"
            } else {
                "a Service's replicas (say what happens to them with [[disruptions]])"
            };
            return Err(self.error(
                value.span(),
                format!("[[actions]] script one Pod; they are not simulated for {whose}"),
            ));
        }
        for item in items.iter() {
            let DeValue::Table(table) = item.get_ref() else {
                return Err(self.error(item.span(), each_a_table("action", "actions")));
            };
            let index = self.run.pod.actions.len();
            let context = format!("action {index}: ");
            let mut valid = Field::names(Scope::Action);
            valid.extend(KINDS);
            valid.push(TIMINGS);
            valid.push(FORGET);
            for (key, _) in table.iter() {
                if !valid.contains(&key.get_ref().as_ref()) {
                    return Err(self.unknown(key, &valid));
                }
            }
            let whens: Vec<_> = [Field::ActionAt, Field::ActionAfterReady]
                .into_iter()
                .filter_map(|f| table.get_key_value(f.leaf()))
                .collect();
            match whens.as_slice() {
                [_] => {}
                [_, (second, _)] => {
                    return Err(self.error(
                        second.span(),
                        format!("{context}at and after_ready are both set; an action happens once: keep one"),
                    ));
                }
                _ => {
                    return Err(self.error(
                        item.span(),
                        format!("{context}say when with one of at = \"30s\" or after_ready = \"5s\""),
                    ));
                }
            }
            let kind = self.action_kind(&context, item, table)?;
            self.run.pod.actions.push(TimedAction {
                when: ActionTime::At(crate::engine::SimDuration::ZERO),
                kind,
            });
            for (key, value) in table.iter() {
                let word: &str = key.get_ref().as_ref();
                if KINDS.contains(&word) || word == TIMINGS || word == FORGET {
                    continue;
                }
                if word == Field::ActionGracePeriod.leaf() && table.get("delete").is_none() {
                    return Err(self.error(
                        key.span(),
                        format!("{context}grace_period belongs to a delete (kubectl delete --grace-period)"),
                    ));
                }
                if word == Field::ActionDown.leaf() && table.get("node_reboot").is_none() {
                    return Err(self.error(
                        key.span(),
                        format!("{context}down belongs to a node_reboot (how long the node is gone)"),
                    ));
                }
                self.setting(Scope::Action, Some(index), &context, key, value, valid.clone())?;
            }
            if let Some((key, value)) = table.get_key_value(TIMINGS) {
                let Some(ActionKind::UpdateImage { container, .. }) =
                    self.run.pod.actions.last().map(|a| &a.kind)
                else {
                    return Err(self.error(
                        key.span(),
                        format!("{context}timings are a new image's: they belong to an update_image"),
                    ));
                };
                let container = *container;
                self.timings(index, container, &context, value)?;
            }
            if let Some((key, value)) = table.get_key_value(FORGET) {
                let forget = match value.get_ref() {
                    DeValue::Boolean(b) => *b,
                    _ => return Err(self.expected(value, &context, FORGET, "true or false")),
                };
                let Some(ActionKind::KubeletRestart { forget_exited_init }) =
                    self.run.pod.actions.last_mut().map(|a| &mut a.kind)
                else {
                    return Err(self.error(
                        key.span(),
                        format!("{context}{FORGET} belongs to a kubelet_restart"),
                    ));
                };
                *forget_exited_init = forget;
            }
            if let ActionTime::At(at) = self.run.pod.actions[index].when
                && at > self.run.horizon
            {
                let span = table
                    .get(Field::ActionAt.leaf())
                    .map_or(item.span(), |v| v.span());
                return Err(self.error(
                    span,
                    format!(
                        "{context}at = \"{at}\" is after the horizon ({}): the run ends first; \
                         move the action earlier or raise horizon",
                        self.run.horizon
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The one key that says what the action does.
    fn action_kind(
        &self,
        context: &str,
        item: &Spanned<DeValue>,
        table: &DeTable,
    ) -> Result<ActionKind, Diagnostic> {
        let given: Vec<_> = KINDS.iter().filter_map(|k| table.get_key_value(*k)).collect();
        let (key, value) = match given.as_slice() {
            [one] => *one,
            [_, (second, _), ..] => {
                return Err(self.error(
                    second.span(),
                    format!(
                        "{context}an action does one thing; write {} in an [[actions]] of its own",
                        second.get_ref().as_ref() as &str
                    ),
                ));
            }
            [] => {
                return Err(self.error(
                    item.span(),
                    format!(
                        "{context}say what with one of delete = true, update_image = \"<container>\", \
                         kubelet_restart = true or node_reboot = true"
                    ),
                ));
            }
        };
        match (key.get_ref().as_ref() as &str, value.get_ref()) {
            ("delete", DeValue::Boolean(true)) => Ok(ActionKind::Delete { grace_period: None }),
            ("kubelet_restart", DeValue::Boolean(true)) => Ok(ActionKind::KubeletRestart {
                forget_exited_init: false,
            }),
            ("node_reboot", DeValue::Boolean(true)) => Ok(ActionKind::NodeReboot { down: NODE_DOWN }),
            ("delete" | "kubelet_restart" | "node_reboot", other) => {
                let expected = Expected {
                    context: context.into(),
                    key: key.get_ref().to_string(),
                    expected: "true".into(),
                    found: Some(found(other)),
                    then: "; drop the action to do nothing",
                };
                Err(self.error(value.span(), Problem::Expected(Box::new(expected))))
            }
            (_, DeValue::String(name)) => {
                let names: Vec<&str> = self.run.pod.containers.iter().map(|c| c.name.as_str()).collect();
                match names.iter().position(|n| n == name) {
                    Some(i) => Ok(ActionKind::UpdateImage {
                        container: ContainerId(i as u32),
                        timings: None,
                    }),
                    None => {
                        let names = names.iter().map(|n| n.to_string()).collect();
                        let unknown =
                            Problem::unknown(format!("{context}update_image: "), "container", name, names);
                        Err(self.error(value.span(), unknown))
                    }
                }
            }
            (_, _) => Err(self.expected(value, context, "update_image", "a container's name in quotes")),
        }
    }

    /// `[actions.timings]`: the new image's keys, set on a copy of the
    /// container put in its place, then checked as the Pod's.
    fn timings(
        &mut self,
        index: usize,
        container: ContainerId,
        context: &str,
        value: &Spanned<DeValue>,
    ) -> Result<(), Diagnostic> {
        let DeValue::Table(keys) = value.get_ref() else {
            let such = "a table of the container's keys: write [actions.timings]";
            return Err(self.error(value.span(), Problem::expected(context, TIMINGS, such, None)));
        };
        let c = container.index();
        let mut image = self.run.pod.containers[c].clone();
        std::mem::swap(&mut self.run.pod.containers[c], &mut image);
        let result = self.timing_keys(c, context, keys);
        let result = result.and_then(|()| check_spec(&self.run.pod).map_err(|p| self.rule(&p)));
        std::mem::swap(&mut self.run.pod.containers[c], &mut image);
        if let ActionKind::UpdateImage { timings, .. } = &mut self.run.pod.actions[index].kind {
            *timings = Some(Box::new(image));
        }
        result
    }

    fn timing_keys(&mut self, c: usize, context: &str, keys: &DeTable) -> Result<(), Diagnostic> {
        let context = format!("{context}timings: ");
        let valid = Field::names(Scope::Container);
        for (key, value) in keys.iter() {
            let word: &str = key.get_ref().as_ref();
            if matches!(word, "name" | "kind" | "proxy") {
                return Err(self.error(
                    key.span(),
                    format!(
                        "{context}{word} shapes the Pod, and a new image changes its container's timings only"
                    ),
                ));
            }
            self.setting(Scope::Container, Some(c), &context, key, value, valid.clone())?;
        }
        Ok(())
    }
}
