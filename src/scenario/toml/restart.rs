//! A container's `restart_policy_rules` in a TOML scenario, in the API's
//! shape: `[{ action = "Restart", exit_codes = { operator = "In", values = [42] } }]`
//! (KEP-5307, R60), checked by `scenario::rules::restart` and located here.

use toml::Spanned;
use toml::de::DeValue;

use super::{RESTART_RULES, Reader};
use crate::scenario::diagnostic::{Diagnostic, Problem};
use crate::scenario::rules::restart::{self, MAX_RULES, Part};

impl Reader<'_> {
    /// The rules of container `index`, in order.
    pub(super) fn restart_rules(
        &mut self,
        index: usize,
        context: &str,
        value: &Spanned<DeValue>,
    ) -> Result<(), Diagnostic> {
        let shape = || {
            let such = "a list of rules such as \
                        [{ action = \"Restart\", exit_codes = { operator = \"In\", values = [42] } }]";
            Problem::expected(context, RESTART_RULES, such, None)
        };
        let DeValue::Array(items) = value.get_ref() else {
            return Err(self.error(value.span(), shape()));
        };
        if items.len() > MAX_RULES {
            return Err(self.error(
                value.span(),
                format!("{context}restart_policy_rules: at most {MAX_RULES} rules"),
            ));
        }
        for item in items.iter() {
            let DeValue::Table(rule) = item.get_ref() else {
                return Err(self.error(item.span(), shape()));
            };
            for (key, _) in rule.iter() {
                if !["action", "exit_codes"].contains(&key.get_ref().as_ref()) {
                    return Err(self.unknown(key, &["action", "exit_codes"]));
                }
            }
            let word = |v: Option<&Spanned<DeValue>>, what: &str| match v.map(|v| (v, v.get_ref())) {
                Some((_, DeValue::String(s))) => Ok(s.to_string()),
                Some((v, _)) => Err(self.expected(v, context, what, "a word in quotes")),
                None => Err(self.error(item.span(), Problem::missing(context, what, ""))),
            };
            let action = word(rule.get("action"), "action")?;
            let codes_shape = "{ operator = \"In\", values = [42] }";
            let Some(codes) = rule.get("exit_codes") else {
                return Err(self.error(item.span(), Problem::missing(context, "exit_codes", codes_shape)));
            };
            let DeValue::Table(codes_table) = codes.get_ref() else {
                return Err(self.error(
                    codes.span(),
                    Problem::expected(context, "exit_codes", codes_shape, None),
                ));
            };
            for (key, _) in codes_table.iter() {
                if !["operator", "values"].contains(&key.get_ref().as_ref()) {
                    return Err(self.unknown(key, &["operator", "values"]));
                }
            }
            let operator = word(codes_table.get("operator"), "exit_codes.operator")?;
            let values_item = codes_table.get("values");
            let values = match values_item.map(|v| v.get_ref()) {
                Some(DeValue::Array(list)) => list
                    .iter()
                    .map(|v| match v.get_ref() {
                        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| {
                            self.error(v.span(), format!("{context}values: {i} is not an exit code"))
                        }),
                        _ => Err(self.expected(v, context, "values", "an exit code such as 42")),
                    })
                    .collect::<Result<Vec<i64>, Diagnostic>>()?,
                _ => {
                    let such = "a list of exit codes such as [42]";
                    return Err(self.error(
                        values_item.map_or(codes.span(), |v| v.span()),
                        Problem::expected(context, "exit_codes.values", such, None),
                    ));
                }
            };
            let parsed = restart::rule(&action, &operator, &values).map_err(|(part, message)| {
                let span = match part {
                    Part::Action => rule.get("action").map(|v| v.span()),
                    Part::Operator => codes_table.get("operator").map(|v| v.span()),
                    Part::Values => values_item.map(|v| v.span()),
                };
                self.error(span.unwrap_or(item.span()), format!("{context}{message}"))
            })?;
            self.run.pod.containers[index].restart_rules.push(parsed);
        }
        self.spans.push(((Some(index), super::Spot::Name), value.span()));
        Ok(())
    }
}
