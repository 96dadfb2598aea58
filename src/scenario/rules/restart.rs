//! A container's `restartPolicyRules` (KEP-5307, R60) as the API validates
//! them, shared by the TOML reader and the manifest reader, each pointing
//! the message at the key it read.
//!
//! Invariant: a rule the readers accept is one the API accepts: `Restart`
//! (R60) or `RestartAllContainers` (KEP-5532, R61; its version is checked
//! with the Pod's rules).

use crate::model::{ExitCodes, RestartRule, RuleAction};
use crate::scenario::diagnostic::unknown_word;

/// At most this many rules on a container, and values in one rule.
pub const MAX_RULES: usize = 20;
const MAX_VALUES: usize = 255;

/// Which part of a rule a message is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// `action`.
    Action,
    /// `exit_codes.operator`.
    Operator,
    /// `exit_codes.values`.
    Values,
}

/// One rule: `action` and its exit codes, or the part that is wrong and why.
pub fn rule(action: &str, operator: &str, values: &[i64]) -> Result<RestartRule, (Part, String)> {
    let action = match action {
        "Restart" => RuleAction::Restart,
        "RestartAllContainers" => RuleAction::RestartAllContainers,
        other => {
            return Err((
                Part::Action,
                unknown_word("action", other, &["Restart", "RestartAllContainers"]),
            ));
        }
    };
    let is_in = match operator {
        "In" => true,
        "NotIn" => false,
        other => return Err((Part::Operator, unknown_word("operator", other, &["In", "NotIn"]))),
    };
    if values.is_empty() || values.len() > MAX_VALUES {
        return Err((Part::Values, format!("values: give 1 to {MAX_VALUES} exit codes")));
    }
    let mut codes: Vec<i32> = Vec::with_capacity(values.len());
    for &v in values {
        if !(0..=255).contains(&v) {
            return Err((
                Part::Values,
                format!("values: {v} is not an exit code (0 to 255)"),
            ));
        }
        let code = v as i32;
        if codes.contains(&code) {
            return Err((Part::Values, format!("values: {code} is listed twice")));
        }
        codes.push(code);
    }
    Ok(RestartRule {
        action,
        exit_codes: ExitCodes { is_in, values: codes },
    })
}
