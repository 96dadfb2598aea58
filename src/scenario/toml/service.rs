//! The Service's tables of a TOML scenario: `[service]`, `[traffic]`,
//! `[app]`, `[pdb]`, `[cluster]` and `[[disruptions]]` (a delete, or a rollout with its
//! `template` of new container timings), read through the key registry,
//! then the Service's rules.
//!
//! Invariant: a rollout's template is read with the very code that reads
//! a container (the Pod swapped for the template meanwhile), so its keys
//! mean and are checked the same, and it passes the Pod's rules.

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::{Reader, Spot, each_a_table, list_of_tables};
use crate::scenario::diagnostic::{Diagnostic, Layout, Problem};
use crate::scenario::key::path::{TEMPLATE, not_in_template};
use crate::scenario::key::{Field, Scope};
use crate::scenario::rules::check_spec;
use crate::scenario::rules::neither_budget;

impl Reader<'_> {
    /// `[service]`, `[traffic]`, `[app]` and `[[disruptions]]`, then the Service's rules.
    pub(super) fn service(
        &mut self,
        tables: &[(Scope, &Spanned<toml::de::DeString>, &Spanned<DeValue>)],
    ) -> Result<(), Diagnostic> {
        let Some(first) = tables.first() else {
            return Ok(());
        };
        if !tables.iter().any(|(s, _, _)| *s == Scope::Service) {
            let what = match first.0 {
                Scope::Disruption => "whose replicas it disrupts",
                _ => "to send to",
            };
            return Err(self.error(
                first.1.span(),
                format!(
                    "[{}] needs a [service] {what}: add [service] (replicas, nodes, propagation, …)",
                    first.1.get_ref().as_ref() as &str
                ),
            ));
        }
        self.run.service.get_or_insert_with(Default::default);
        for &(scope, key, value) in tables {
            let word: &str = key.get_ref().as_ref();
            match (scope, value.get_ref()) {
                (Scope::Disruption, DeValue::Array(items)) => {
                    for item in items.iter() {
                        let DeValue::Table(table) = item.get_ref() else {
                            return Err(self.error(item.span(), each_a_table("disruption", "disruptions")));
                        };
                        let service = self.run.service.get_or_insert_with(Default::default);
                        let index = service.disruptions.len();
                        service.disruptions.push(Default::default());
                        let when = [Field::At, Field::AfterReady];
                        let given: Vec<Field> = when
                            .into_iter()
                            .filter(|f| table.get(f.leaf()).is_some())
                            .collect();
                        if given.len() != 1 {
                            return Err(self.error(
                                item.span(),
                                format!("disruption {index}: say when with one of at = \"30s\" or after_ready = \"10s\""),
                            ));
                        }
                        let context = format!("disruption {index}: ");
                        self.disruption(index, &context, table)?;
                    }
                }
                (Scope::Disruption, _) => {
                    return Err(self.error(value.span(), list_of_tables("disruptions")));
                }
                (_, DeValue::Table(table)) => {
                    self.table(scope, None, &format!("[{word}] "), table)?;
                    let both = [Field::MinAvailable, Field::PdbMaxUnavailable]
                        .map(|f| table.get_key_value(f.leaf()));
                    if let (Scope::Pdb, [Some(_), Some((second, _))]) = (scope, both) {
                        return Err(self.error(
                            second.span(),
                            "[pdb] max_unavailable: a budget has min_available or max_unavailable, not both \
                             (the API refuses both); drop one",
                        ));
                    }
                    if scope == Scope::Hop {
                        // Written, even empty: a hop (ingress-nginx unless `preset` says).
                        let service = self.run.service.get_or_insert_with(Default::default);
                        service.hop.get_or_insert_with(Default::default);
                    }
                    if scope == Scope::Pdb {
                        // Written, even empty: a budget (with neither field, `Budget::Unset`).
                        let service = self.run.service.get_or_insert_with(Default::default);
                        service.pdb.get_or_insert_with(Default::default);
                    }
                    if scope == Scope::Cluster {
                        // Written, even empty: the runner shares each node with
                        // the cluster (no other Service yet), syncs take time.
                        let service = self.run.service.get_or_insert_with(Default::default);
                        service.cluster.get_or_insert_with(Default::default);
                    }
                    if scope == Scope::Traffic {
                        let service = self.run.service.get_or_insert_with(Default::default);
                        service.traffic.get_or_insert_with(Default::default);
                        if table.get(Field::Rate.leaf()).is_none() {
                            return Err(self.error(
                                key.span(),
                                "[traffic] needs a rate: add rate = 10 (requests per second)",
                            ));
                        }
                    }
                }
                _ => {
                    let table = Problem::not_laid_out(word, Layout::Table, format!("[{word}]"));
                    return Err(self.error(value.span(), table));
                }
            }
        }
        if let Err(p) = crate::scenario::rules::check_service(&self.run) {
            let span = self
                .spans
                .iter()
                .find(|((i, s), _)| *s == Spot::Field(p.field) && (p.index.is_none() || *i == p.index))
                .map(|(_, span)| span.clone())
                .unwrap_or_else(|| first.1.span());
            return Err(self.error(span, p.to_string()));
        }
        Ok(())
    }

    /// The notice for a `[pdb]` with neither min_available nor
    /// max_unavailable, which the API takes and which blocks every drain.
    pub(super) fn budget_notice(
        &self,
        tables: &[(Scope, &Spanned<toml::de::DeString>, &Spanned<DeValue>)],
    ) -> Option<Diagnostic> {
        let (_, key, value) = tables.iter().find(|(s, _, _)| *s == Scope::Pdb)?;
        let DeValue::Table(table) = value.get_ref() else {
            return None;
        };
        if [Field::MinAvailable, Field::PdbMaxUnavailable]
            .iter()
            .any(|f| table.get(f.leaf()).is_some())
        {
            return None;
        }
        let message = neither_budget(Field::MinAvailable.leaf(), Field::PdbMaxUnavailable.leaf());
        Some(self.error(key.span(), format!("[pdb] {message}")).warning())
    }

    /// One `[[disruptions]]` entry: a delete's keys or a rollout's, and a
    /// rollout's `template` of container keys.
    fn disruption(&mut self, index: usize, context: &str, table: &DeTable) -> Result<(), Diagnostic> {
        let mut valid = Field::names(Scope::Disruption);
        valid.push(TEMPLATE);
        for (key, value) in table.iter() {
            match key.get_ref().as_ref() {
                TEMPLATE => self.template(index, context, value)?,
                _ => self.setting(Scope::Disruption, Some(index), context, key, value, valid.clone())?,
            }
        }
        let written = |f: Field| table.get_key_value(f.leaf()).map(|(k, _)| k.span());
        let rollout_key = [
            Field::Rollout,
            Field::MaxSurge,
            Field::MaxUnavailable,
            Field::MinReadySeconds,
        ]
        .into_iter()
        .find_map(|f| written(f).map(|_| f.leaf()))
        .or(table.get(TEMPLATE).map(|_| TEMPLATE));
        let drain_key = written(Field::DrainNode).map(|_| Field::DrainNode.leaf());
        if let (Some(drain), Some(other)) = (drain_key, rollout_key) {
            let span = written(Field::DrainNode).unwrap_or_default();
            return Err(self.error(
                span,
                format!("{context}{drain} makes this disruption a kubectl drain, and {other} a rollout; write them in two scenarios"),
            ));
        }
        let drains = drain_key.is_some();
        if let Some(rollout_key) = rollout_key.or(drain_key) {
            for f in [Field::Delete, Field::GracePeriod] {
                if let Some(span) = written(f) {
                    return Err(self.error(
                        span,
                        format!(
                            "{context}{} is a kubectl delete's, and {rollout_key} makes this disruption {}; \
                             drop one of the two",
                            f.leaf(),
                            if drains {
                                "a kubectl drain, which evicts every Pod of the node itself"
                            } else {
                                "a rollout, which deletes every old Pod itself"
                            }
                        ),
                    ));
                }
            }
        }
        let one_replica_key = [
            Field::Unready,
            Field::UnreadyFor,
            Field::Crash,
            Field::ScaleTo,
            Field::Annotate,
            Field::DeletionCost,
            Field::NodeShutdown,
            Field::ShutdownGracePeriod,
            Field::ShutdownGracePeriodCriticalPods,
            Field::ShutdownGracePeriodByPodPriority,
            Field::ScaleDownNode,
            Field::MaxGracefulTerminationSec,
            Field::MaxPodEvictionTime,
            Field::EvictionRetryTime,
        ]
        .into_iter()
        .find_map(|f| written(f).map(|_| f));
        if let Some(key) = one_replica_key {
            let (unready, what) = (key.leaf(), crate::scenario::rules::service::one_replica_kind(key));
            // `delete` has a default, so only its reader knows it was written.
            if let Some(span) = written(Field::Delete) {
                let other = Field::Delete.leaf();
                return Err(self.error(
                    span,
                    format!(
                        "{context}{unready} makes this disruption {what}, \
                         and {other} a kubectl delete; write them as two disruptions"
                    ),
                ));
            }
        }
        let node_key = [Field::NodeFailure, Field::SpotReclaim]
            .into_iter()
            .find(|&f| written(f).is_some());
        if let (Some(key), Some(span)) = (node_key, written(Field::Delete)) {
            return Err(self.error(
                span,
                format!(
                    "{context}{} makes this disruption a lost node, and delete a kubectl delete; \
                     write them as two disruptions",
                    key.leaf()
                ),
            ));
        }
        let recreate = self
            .run
            .service
            .as_deref()
            .and_then(|s| s.disruptions[index].rollout.as_ref())
            .is_some_and(|r| r.strategy == crate::model::service::Strategy::Recreate);
        for f in [Field::MaxSurge, Field::MaxUnavailable] {
            if let (true, Some(span)) = (recreate, written(f)) {
                return Err(self.error(
                    span,
                    format!(
                        "{context}{} belongs to a RollingUpdate; a Recreate deletes every old Pod at once \
                         (the API refuses it there): drop it, or write rollout = \"RollingUpdate\"",
                        f.leaf()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `[disruptions.template.<container>]`: the new Pod template's
    /// container keys, read through the registry on a copy of the Pod.
    fn template(&mut self, index: usize, context: &str, value: &Spanned<DeValue>) -> Result<(), Diagnostic> {
        let DeValue::Table(containers) = value.get_ref() else {
            let such = "a table of containers: write [disruptions.template.<container>]";
            return Err(self.error(value.span(), Problem::expected(context, TEMPLATE, such, None)));
        };
        let service = self.run.service.get_or_insert_with(Default::default);
        let rollout = service.disruptions[index]
            .rollout
            .get_or_insert_with(Default::default);
        let mut template = *rollout
            .template
            .take()
            .unwrap_or_else(|| Box::new(self.run.pod.clone()));
        // The template's keys are set as a container's are: on the Pod, swapped in.
        std::mem::swap(&mut self.run.pod, &mut template);
        let result = self.template_containers(context, containers);
        let result = result.and_then(|()| check_spec(&self.run.pod).map_err(|p| self.rule(&p)));
        std::mem::swap(&mut self.run.pod, &mut template);
        if let Some(r) = self
            .run
            .service
            .as_deref_mut()
            .and_then(|s| s.disruptions[index].rollout.as_mut())
        {
            r.template = Some(Box::new(template));
        }
        result
    }

    fn template_containers(&mut self, context: &str, containers: &DeTable) -> Result<(), Diagnostic> {
        let names: Vec<String> = self.run.pod.containers.iter().map(|c| c.name.clone()).collect();
        for (name, keys) in containers.iter() {
            let name_text: &str = name.get_ref().as_ref();
            let Some(c) = names.iter().position(|n| n == name_text) else {
                let unknown =
                    Problem::unknown(format!("{context}{TEMPLATE}: "), "container", name_text, names);
                return Err(self.error(name.span(), unknown));
            };
            let DeValue::Table(keys) = keys.get_ref() else {
                let key = format!("{TEMPLATE}.{name_text}");
                let such = "a table of the container's keys";
                return Err(self.error(keys.span(), Problem::expected(context, key, such, None)));
            };
            let context = format!("{context}template.{name_text}: ");
            let valid = Field::names(Scope::Container);
            for (key, value) in keys.iter() {
                if let Some(refused) = not_in_template(key.get_ref()) {
                    return Err(self.error(key.span(), format!("{context}{refused}")));
                }
                self.setting(Scope::Container, Some(c), &context, key, value, valid.clone())?;
            }
        }
        Ok(())
    }
}
