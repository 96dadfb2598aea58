//! A container's `restartPolicyRules` (KEP-5307, R60; KEP-5532, R61): which
//! exit codes a rule matches and what the kubelet then does. Plain data the
//! scenario layer builds and the restart decision reads.

/// One `restartPolicyRules` entry: what the kubelet does when an exit code
/// meets `exit_codes`. `Debug` is in `canonical`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct RestartRule {
    /// `action`.
    pub action: RuleAction,
    /// `exitCodes`.
    pub exit_codes: ExitCodes,
}

/// A rule's `action`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RuleAction {
    /// The container restarts alone (KEP-5307, R60).
    Restart,
    /// Every container is killed at once and the Pod starts over from its
    /// first init container (KEP-5532, R61).
    RestartAllContainers,
}

/// An exit-code requirement: the code is (`In`) or is not (`NotIn`) among
/// `values`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ExitCodes {
    /// `operator: In` is true, `NotIn` false.
    pub is_in: bool,
    /// `values`.
    pub values: Vec<i32>,
}

impl ExitCodes {
    /// Whether `code` meets the requirement.
    pub fn matches(&self, code: i32) -> bool {
        self.values.contains(&code) == self.is_in
    }
}
