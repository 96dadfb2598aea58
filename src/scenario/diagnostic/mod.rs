//! What podsim tells a user about an input: one `Diagnostic` type for errors
//! and notices alike, positioned like a compiler's (`origin:line:col:
//! message`), with the closest valid word suggested for a typo.
//!
//! Invariant: a diagnostic's text names the file and, where the problem has
//! one, the place in it, and says what would be valid; it never names a
//! command-line flag (the CLI adds that advice, it knows its flags). The
//! `io::Error` behind an unreadable file stays reachable as the source.
//! What is wrong is a typed `Problem` (`problem`), worded there once.

mod axis;
mod problem;
mod written;

use std::fmt;
use std::io;
use std::ops::Range;
use std::sync::Arc;

pub use axis::{AtAxis, AxisWrong, Entry};
pub use problem::{AtValue, Injector, Input, ProbeTold, Problem, Scripted, Unknown, Wrong};
pub use written::{Expected, Found, Layout, Missing, NotLaidOut};

/// Whether the input was refused or only needs the user's attention.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The input is refused.
    Error,
    /// The run goes on: podsim assumed something, or reads what it does not model.
    Warning,
}

/// One error or notice about one input.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// An error stops the input from being used; a warning is a notice.
    pub severity: Severity,
    /// The file (or a label for inline text, `request`, `inline`).
    pub origin: String,
    /// 1-based line and column (in characters), when the problem has a place.
    pub position: Option<(usize, usize)>,
    /// What is wrong.
    pub problem: Problem,
    source: Option<Arc<io::Error>>,
}

impl PartialEq for Diagnostic {
    /// Equal when they say the same thing at the same place; an I/O cause
    /// counts by its kind.
    fn eq(&self, other: &Self) -> bool {
        (self.severity, &self.origin, self.position, &self.problem)
            == (other.severity, &other.origin, other.position, &other.problem)
            && self.source.as_ref().map(|e| e.kind()) == other.source.as_ref().map(|e| e.kind())
    }
}

impl Eq for Diagnostic {}

impl Diagnostic {
    /// An error at byte `span` of `text` (or at no place).
    pub fn error(origin: &str, text: &str, span: Option<Range<usize>>, problem: impl Into<Problem>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            origin: origin.to_string(),
            position: span.map(|s| line_col(text, s.start)),
            problem: problem.into(),
            source: None,
        }
    }

    /// A key at byte `span` of `text` that is none of `valid` (a table's
    /// keys, a grid's keys): the message suggests the closest.
    pub fn unknown_key(origin: &str, text: &str, span: Range<usize>, word: &str, valid: &[&str]) -> Self {
        let valid = valid.iter().map(|v| v.to_string()).collect();
        Diagnostic::error(
            origin,
            text,
            Some(span),
            Problem::unknown(String::new(), "key", word, valid),
        )
    }

    /// An error at a line and column a parser reported.
    pub fn positioned(origin: &str, position: Option<(usize, usize)>, message: impl Into<String>) -> Self {
        Diagnostic {
            position,
            ..Diagnostic::whole(origin, message)
        }
    }

    /// An error about the whole file.
    pub fn whole(origin: &str, message: impl Into<String>) -> Self {
        Diagnostic::error(origin, "", None, Problem::Message(message.into()))
    }

    /// `path` could not be read.
    pub fn unreadable(origin: &str, what: Input, cause: io::Error) -> Self {
        Diagnostic {
            source: Some(Arc::new(cause)),
            ..Diagnostic::error(origin, "", None, Problem::Unreadable(what))
        }
    }

    /// The same diagnostic as a notice: the run goes on.
    pub fn warning(self) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            ..self
        }
    }

    /// The text after `origin:line:col: `.
    pub fn message(&self) -> String {
        self.problem.message()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some((line, col)) => write!(f, "{}:{line}:{col}: {}", self.origin, self.message()),
            None => write!(f, "{}: {}", self.origin, self.message()),
        }
    }
}

impl std::error::Error for Diagnostic {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|e| e as &(dyn std::error::Error + 'static))
    }
}

/// 1-based line and column (in characters) of byte `offset` in `text`.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

/// The valid word closest to `word`, if one is close enough to be a typo
/// or `word` is the start of it (`ready` for `ready_ms`).
pub fn closest<'a>(word: &str, valid: &[&'a str]) -> Option<&'a str> {
    let lower = word.to_lowercase();
    if let Some(longer) = valid
        .iter()
        .filter(|v| **v != word && lower.len() >= 3 && v.to_lowercase().starts_with(&lower))
        .min_by_key(|v| v.len())
    {
        return Some(longer);
    }
    valid
        .iter()
        .map(|&v| (strsim::damerau_levenshtein(&lower, &v.to_lowercase()), v))
        .filter(|&(d, v)| v != word && d <= 2.max(v.len() / 3))
        .min_by_key(|&(d, _)| d)
        .map(|(_, v)| v)
}

/// `unknown X "word"; did you mean "y"? expected one of a, b, c`.
pub fn unknown_word(what: &str, word: &str, valid: &[&str]) -> String {
    let hint = closest(word, valid)
        .map(|v| format!("did you mean \"{v}\"? "))
        .unwrap_or_default();
    format!(
        "unknown {what} \"{word}\"; {hint}expected one of {}",
        valid.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_characters() {
        assert_eq!(line_col("ab\ncdé\nx", 8), (3, 1));
        assert_eq!(line_col("ab\ncdé", 5), (2, 3));
        // Inside a multi-byte character: the character's own column.
        assert_eq!(line_col("é", 1), (1, 1));
    }

    #[test]
    fn suggestions_prefer_a_prefix_then_a_near_word_never_the_word_itself() {
        let valid = ["ready_ms", "restarts", "boot"];
        assert_eq!(closest("ready", &valid), Some("ready_ms"));
        assert_eq!(closest("bot", &valid), Some("boot"));
        assert_eq!(closest("boot", &valid), None);
        assert_eq!(closest("xyzzy", &valid), None);
        assert_eq!(closest("always", &["Always", "Never"]), Some("Always"));
    }

    #[test]
    fn an_unreadable_file_keeps_its_cause() {
        let cause = io::Error::new(io::ErrorKind::NotFound, "No such file or directory");
        let d = Diagnostic::unreadable("x.toml", Input::Scenario, cause);
        assert_eq!(d.to_string(), "x.toml: cannot read scenario");
        let source = std::error::Error::source(&d).and_then(|s| s.downcast_ref::<io::Error>());
        assert_eq!(source.map(io::Error::kind), Some(io::ErrorKind::NotFound));
    }
}
