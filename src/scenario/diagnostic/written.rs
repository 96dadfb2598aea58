//! What is wrong with how a TOML file is laid out, as distinct from what a
//! value says: a key whose value is not the table or list of tables its
//! format wants, a value of another type than its key takes, a key left
//! out. Every TOML reader (the scenario's tables, the timings overlay, the
//! grid) meets these at every table, so they are typed here once with
//! their words, and a reader only says which key and what it found.

use std::fmt;

/// What a TOML value was, for "…, found …".
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// A string, as written between its quotes.
    Text(String),
    /// An integer, as written.
    Integer(String),
    /// A float, as written.
    Number(String),
    /// `true` or `false`.
    Flag(bool),
    /// A date or time.
    Date,
    /// An array.
    List,
    /// A table.
    Table,
}

impl fmt::Display for Found {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Found::Text(s) => write!(f, "the string \"{s}\""),
            Found::Integer(i) => write!(f, "the integer {i}"),
            Found::Number(n) => write!(f, "the number {n}"),
            Found::Flag(b) => write!(f, "{b}"),
            Found::Date => f.write_str("a date"),
            Found::List => f.write_str("a list"),
            Found::Table => f.write_str("a table"),
        }
    }
}

/// What a key's value must be, for "… must be …: write …".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One table (`[pod]`).
    Table,
    /// A list of tables, of these (`tables`, `rules`).
    List(&'static str),
    /// One entry of such a list, the key naming the entry (`container`).
    Entry,
}

/// A key whose value is not laid out as its format wants (boxed in
/// `Problem`, as `Unknown` is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NotLaidOut {
    /// The key (`pod`), or for an entry what it is (`container`).
    pub key: String,
    /// What its value must be.
    pub layout: Layout,
    /// How to write it (`[pod]`, `[[containers]]`).
    pub write: String,
}

impl fmt::Display for NotLaidOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let NotLaidOut { key, layout, write } = self;
        match layout {
            Layout::Table => write!(f, "{key} must be a table: write {write}"),
            Layout::List(of) => write!(f, "{key} must be a list of {of}: write {write}"),
            Layout::Entry => write!(f, "each {key} is a table: write {write}"),
        }
    }
}

/// A value of another type or shape than its key takes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// Where, as a prefix (`container "web": `, `action 0: `), or empty.
    pub context: String,
    /// The key whose value it is (`values`, `exit_codes.operator`), or
    /// empty where the context names the place already.
    pub key: String,
    /// What the value should look like (`a word in quotes`).
    pub expected: String,
    /// What was written instead, where the reader tells it.
    pub found: Option<Found>,
    /// Advice after it (`; drop the action to do nothing`), or empty.
    pub then: &'static str,
}

impl fmt::Display for Expected {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Expected {
            context,
            key,
            expected,
            found,
            then,
        } = self;
        let key = if key.is_empty() {
            String::new()
        } else {
            format!("{key}: ")
        };
        let found = found
            .as_ref()
            .map_or(String::new(), |found| format!(", found {found}"));
        write!(f, "{context}{key}expected {expected}{found}{then}")
    }
}

/// A key left out that must be written (boxed in `Problem`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing {
    /// Where, as a prefix (`pod_failure_policy rule 0: `), or empty.
    pub context: String,
    /// The key (`action`, `on_exit_codes.operator`).
    pub key: String,
    /// What it may be, or what its absence means (`In or NotIn`), or empty.
    pub hint: String,
}

impl fmt::Display for Missing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Missing { context, key, hint } = self;
        let hint = if hint.is_empty() {
            String::new()
        } else {
            format!(": {hint}")
        };
        write!(f, "{context}{key} is missing{hint}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::Problem;
    use super::*;

    #[test]
    fn each_layout_is_worded_with_how_to_write_it() {
        let table = Problem::not_laid_out("pod", Layout::Table, "[pod]");
        assert_eq!(table.message(), "pod must be a table: write [pod]");
        let list = Problem::not_laid_out(
            "pod_failure_policy",
            Layout::List("rules"),
            "[[job.pod_failure_policy]]",
        );
        assert_eq!(
            list.message(),
            "pod_failure_policy must be a list of rules: write [[job.pod_failure_policy]]"
        );
        let entry = Problem::not_laid_out("action", Layout::Entry, "[[actions]]");
        assert_eq!(entry.message(), "each action is a table: write [[actions]]");
    }

    #[test]
    fn expected_names_the_key_after_its_context_and_what_was_found() {
        let found = Problem::expected(
            "action 0: ",
            "update_image",
            "a name",
            Some(Found::Integer("3".into())),
        );
        assert_eq!(
            found.message(),
            "action 0: update_image: expected a name, found the integer 3"
        );
        // No key: the context (or an axis) names the place.
        let bare = Problem::expected("", "", "a table: [[disruptions]]", None);
        assert_eq!(bare.message(), "expected a table: [[disruptions]]");
        let then = Problem::Expected(Box::new(Expected {
            context: String::new(),
            key: "delete".into(),
            expected: "true".into(),
            found: Some(Found::Text("yes".into())),
            then: "; drop it",
        }));
        assert_eq!(
            then.message(),
            "delete: expected true, found the string \"yes\"; drop it"
        );
    }

    #[test]
    fn missing_says_what_the_key_may_be_where_it_is_told() {
        let hint = Problem::missing("rule 0: ", "on_exit_codes.operator", "In or NotIn");
        assert_eq!(
            hint.message(),
            "rule 0: on_exit_codes.operator is missing: In or NotIn"
        );
        assert_eq!(Problem::missing("", "action", "").message(), "action is missing");
    }
}
