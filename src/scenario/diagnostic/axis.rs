//! What is wrong with one axis of a grid, told after its path (`axis
//! "containers.web.boot": …`): the grid reader resolves each axis against
//! its base scenario and refuses it in these few ways, each worded here.

use std::fmt;

use super::Problem;

/// An axis and what is wrong with it (boxed in `Problem`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AtAxis {
    /// The axis's path as written in the grid.
    pub path: String,
    /// What is wrong with it.
    pub wrong: AxisWrong,
}

/// What is wrong with an axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AxisWrong {
    /// The path names a group of keys, a table, and not one key.
    Group {
        /// The group's name (`startup_probe`).
        name: &'static str,
        /// Its keys, each a path to sweep below the axis's.
        keys: Vec<&'static str>,
    },
    /// The base has no entry `index` of a numbered list.
    NoEntry {
        /// Which list.
        entry: Entry,
        /// The index the path names.
        index: usize,
        /// How many entries the base has.
        count: usize,
    },
    /// A problem of the axis's values, or of the container its path names.
    Problem(Problem),
    /// Anything else, in the grid reader's words.
    Message(String),
}

/// A numbered list of the base scenario that an axis path indexes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Entry {
    /// `[[actions]]`.
    Action,
    /// `[[disruptions]]`.
    Disruption,
}

impl Entry {
    fn name(self) -> &'static str {
        match self {
            Entry::Action => "action",
            Entry::Disruption => "disruption",
        }
    }

    /// The table to add, with its article.
    fn table(self) -> &'static str {
        match self {
            Entry::Action => "an [[actions]]",
            Entry::Disruption => "a [[disruptions]]",
        }
    }
}

impl fmt::Display for AtAxis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = &self.path;
        write!(f, "axis \"{path}\": ")?;
        match &self.wrong {
            AxisWrong::Group { name, keys } => {
                let paths: Vec<String> = keys.iter().map(|k| format!("{path}.{k}")).collect();
                write!(
                    f,
                    "{name} is a table; sweep one of its keys: {}",
                    paths.join(", ")
                )
            }
            AxisWrong::NoEntry { entry, index, count } => {
                let name = entry.name();
                let has = match count {
                    0 => "none".to_string(),
                    1 => format!("{name} 0 only"),
                    n => format!("{name}s 0 to {}", n - 1),
                };
                write!(
                    f,
                    "the base scenario has no {name} {index} (it has {has}); sweep one it has, or add {} \
                     entry to the base",
                    entry.table()
                )
            }
            AxisWrong::Problem(problem) => f.write_str(&problem.message()),
            AxisWrong::Message(message) => f.write_str(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn said(path: &str, wrong: AxisWrong) -> String {
        Problem::at_axis(path, wrong).message()
    }

    #[test]
    fn a_missing_entry_says_which_the_base_has() {
        let none = AxisWrong::NoEntry {
            entry: Entry::Action,
            index: 0,
            count: 0,
        };
        assert_eq!(
            said("actions.0.at", none),
            "axis \"actions.0.at\": the base scenario has no action 0 (it has none); sweep one it has, or add \
             an [[actions]] entry to the base"
        );
        let three = AxisWrong::NoEntry {
            entry: Entry::Disruption,
            index: 5,
            count: 3,
        };
        assert!(said("disruptions.5.at", three).contains("no disruption 5 (it has disruptions 0 to 2)"));
        let one = AxisWrong::NoEntry {
            entry: Entry::Disruption,
            index: 1,
            count: 1,
        };
        assert!(
            said("d", one).contains("(it has disruption 0 only); sweep one it has, or add a [[disruptions]]")
        );
    }

    #[test]
    fn a_group_lists_its_keys_under_the_axis_path() {
        let group = AxisWrong::Group {
            name: "backoff",
            keys: vec!["initial", "cap"],
        };
        assert_eq!(
            said("pod.backoff", group),
            "axis \"pod.backoff\": backoff is a table; sweep one of its keys: pod.backoff.initial, pod.backoff.cap"
        );
    }
}
