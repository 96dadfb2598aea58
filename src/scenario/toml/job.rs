//! `[job]` of a TOML scenario: the Job controller's limits through the key
//! registry, and its `[[job.pod_failure_policy]]` rules in the API's own
//! shape (`action`, `on_exit_codes = { container, operator, values }` or
//! `on_pod_conditions = [{ type, status }]`), then the Job's rules.
//!
//! Invariant: a `[job]` makes the Pod a Job's, and every refusal points at
//! the key or value that breaks the rule (`scenario::rules::job` words them).

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::Reader;
use crate::model::PodMode;
use crate::model::job::{FailureRule, Requirement};
use crate::scenario::diagnostic::{Diagnostic, Layout, Problem};
use crate::scenario::key::{Field, Scope};
use crate::scenario::rules::job::{self as rules, JobProblem, Part};

/// The rules' key inside `[job]`.
const POLICY: &str = "pod_failure_policy";
/// How the rules are written.
const WRITE_POLICY: &str = "[[job.pod_failure_policy]]";
/// What an exit-code requirement looks like.
const EXIT_CODES: &str = "{ operator = \"In\", values = [42] }";

impl Reader<'_> {
    /// `[job]`: its keys, its rules, then the Job's rules as a whole.
    pub(super) fn job(&mut self, value: &Spanned<DeValue>) -> Result<(), Diagnostic> {
        let DeValue::Table(table) = value.get_ref() else {
            return Err(self.error(value.span(), Problem::not_laid_out("job", Layout::Table, "[job]")));
        };
        let mut valid = Field::names(Scope::Job);
        valid.push(POLICY);
        for (key, item) in table.iter() {
            match key.get_ref().as_ref() {
                POLICY => self.failure_rules(item)?,
                _ => self.setting(Scope::Job, None, "", key, item, valid.clone())?,
            }
        }
        if self.run.pod.mode == PodMode::Service && self.written(Field::Mode).is_none() {
            self.run.pod.mode = PodMode::Job;
        }
        rules::check_job(&self.run).map_err(|problem| {
            let span = match problem {
                JobProblem::NotAJob => self.written(Field::Mode),
                JobProblem::PolicyNeedsNever => self.written(Field::RestartPolicy),
                _ => None,
            };
            let span = span
                .or_else(|| table.get(POLICY).map(|p| p.span()))
                .unwrap_or(value.span());
            self.error(span, problem.message())
        })
    }

    /// Where `field` of the Pod was written, if it was.
    fn written(&self, field: Field) -> Option<std::ops::Range<usize>> {
        self.spans
            .iter()
            .find(|((c, spot), _)| c.is_none() && *spot == super::Spot::Field(field))
            .map(|(_, span)| span.clone())
    }

    /// `[[job.pod_failure_policy]]`: each rule in order.
    fn failure_rules(&mut self, value: &Spanned<DeValue>) -> Result<(), Diagnostic> {
        let DeValue::Array(items) = value.get_ref() else {
            let list = Problem::not_laid_out(POLICY, Layout::List("rules"), WRITE_POLICY);
            return Err(self.error(value.span(), list));
        };
        for (index, item) in items.iter().enumerate() {
            let DeValue::Table(rule) = item.get_ref() else {
                return Err(self.error(
                    item.span(),
                    Problem::not_laid_out("rule", Layout::Entry, WRITE_POLICY),
                ));
            };
            let context = format!("pod_failure_policy rule {index}: ");
            let parsed = self.failure_rule(rule, item, &context)?;
            self.run.job.pod_failure_policy.push(parsed);
        }
        Ok(())
    }

    fn failure_rule(
        &self,
        rule: &DeTable,
        item: &Spanned<DeValue>,
        context: &str,
    ) -> Result<FailureRule, Diagnostic> {
        const KEYS: [&str; 3] = ["action", "on_exit_codes", "on_pod_conditions"];
        for (key, _) in rule.iter() {
            if !KEYS.contains(&key.get_ref().as_ref()) {
                return Err(self.unknown(key, &KEYS));
            }
        }
        let Some(action_value) = rule.get("action") else {
            let missing = Problem::missing(context, "action", "FailJob, FailIndex, Ignore or Count");
            return Err(self.error(item.span(), missing));
        };
        let action = self.text(action_value, context, "action").and_then(|w| {
            rules::action(w).map_err(|m| self.error(action_value.span(), format!("{context}{m}")))
        })?;
        let on = match (rule.get("on_exit_codes"), rule.get("on_pod_conditions")) {
            (Some(codes), None) => self.exit_codes(codes, context)?,
            (None, Some(patterns)) => self.patterns(patterns, context)?,
            (Some(_), Some(second)) => {
                return Err(self.error(
                    second.span(),
                    format!("{context}write on_exit_codes or on_pod_conditions, not both"),
                ));
            }
            (None, None) => {
                return Err(self.error(
                    item.span(),
                    format!("{context}say what the rule matches: on_exit_codes = {EXIT_CODES} or on_pod_conditions = [{{ type = \"DisruptionTarget\" }}]"),
                ));
            }
        };
        Ok(FailureRule { action, on })
    }

    fn exit_codes(&self, value: &Spanned<DeValue>, context: &str) -> Result<Requirement, Diagnostic> {
        let DeValue::Table(table) = value.get_ref() else {
            let such = format!("a table such as {EXIT_CODES}");
            return Err(self.error(
                value.span(),
                Problem::expected(context, "on_exit_codes", such, None),
            ));
        };
        const KEYS: [&str; 3] = ["container", "operator", "values"];
        for (key, _) in table.iter() {
            if !KEYS.contains(&key.get_ref().as_ref()) {
                return Err(self.unknown(key, &KEYS));
            }
        }
        let container = table.get("container");
        let container_name = container
            .map(|c| self.text(c, context, "container"))
            .transpose()?;
        let Some(operator) = table.get("operator") else {
            let missing = Problem::missing(context, "on_exit_codes.operator", "In or NotIn");
            return Err(self.error(value.span(), missing));
        };
        let Some(values) = table.get("values") else {
            let missing = Problem::missing(context, "on_exit_codes.values", "a list of exit codes");
            return Err(self.error(value.span(), missing));
        };
        let DeValue::Array(list) = values.get_ref() else {
            let such = "a list of exit codes such as [42]";
            return Err(self.error(values.span(), Problem::expected(context, "values", such, None)));
        };
        let mut codes = Vec::with_capacity(list.len());
        for v in list.iter() {
            match v.get_ref() {
                DeValue::Integer(i) => {
                    codes.push(i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| {
                        self.error(v.span(), format!("{context}values: {i} is not an exit code"))
                    })?)
                }
                _ => return Err(self.expected(v, context, "values", "an exit code such as 42")),
            }
        }
        let operator_word = self.text(operator, context, "operator")?;
        rules::exit_codes(&self.run.pod, container_name, operator_word, &codes).map_err(|(part, message)| {
            let span = match part {
                Part::Container => container.map_or(value.span(), |c| c.span()),
                Part::Operator => operator.span(),
                _ => values.span(),
            };
            self.error(span, format!("{context}{message}"))
        })
    }

    fn patterns(&self, value: &Spanned<DeValue>, context: &str) -> Result<Requirement, Diagnostic> {
        let list = match value.get_ref() {
            DeValue::Array(list) if !list.is_empty() && list.len() <= rules::MAX_RULES => list,
            _ => {
                let such = format!(
                    "a list of 1 to {} patterns such as [{{ type = \"DisruptionTarget\" }}]",
                    rules::MAX_RULES
                );
                return Err(self.error(
                    value.span(),
                    Problem::expected(context, "on_pod_conditions", such, None),
                ));
            }
        };
        let mut patterns = Vec::with_capacity(list.len());
        for entry in list.iter() {
            let DeValue::Table(t) = entry.get_ref() else {
                return Err(self.error(
                    entry.span(),
                    format!("{context}each pattern is a table such as {{ type = \"DisruptionTarget\" }}"),
                ));
            };
            const KEYS: [&str; 2] = ["type", "status"];
            for (key, _) in t.iter() {
                if !KEYS.contains(&key.get_ref().as_ref()) {
                    return Err(self.unknown(key, &KEYS));
                }
            }
            let condition = match t.get("type") {
                Some(c) => self.text(c, context, "type")?,
                None => "",
            };
            let status = t
                .get("status")
                .map(|s| self.text(s, context, "status"))
                .transpose()?;
            patterns.push(
                rules::pattern(condition, status)
                    .map_err(|m| self.error(entry.span(), format!("{context}{m}")))?,
            );
        }
        Ok(Requirement::PodConditions(patterns))
    }

    /// A string value, or a located error naming `key`.
    fn text<'v>(&self, value: &'v Spanned<DeValue>, context: &str, key: &str) -> Result<&'v str, Diagnostic> {
        match value.get_ref() {
            DeValue::String(s) => Ok(s.as_ref()),
            _ => Err(self.expected(value, context, key, "a word in quotes")),
        }
    }
}
