//! YAML streams as manifests need them (JSON too: a JSON value is a YAML
//! flow node): where each document lies, where each of its keys and values
//! was written, and typed parsing of one node (a document, or an item of a
//! `List`) into `k8s-openapi` types with the fields Kubernetes would not know
//! reported and the YAML crate's type errors reworded with the field's path.
//!
//! Invariant: every position is one of the original text. A node is parsed
//! from an excerpt of the text (see `Excerpt`) whose positions are mapped
//! back, so a position the YAML crate reports is one in the user's file;
//! the excerpt costs the node's length, not the file's, so a `List` of
//! thousands of Pods is read in linear time.
//!
//! A parsed document's lookups are in `document`, the wording of errors in
//! `wording`.

use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde_saphyr::granit_parser::{Event, Parser};
use serde_saphyr::{DefaultMessageFormatter, MessageFormatter};

use crate::scenario::diagnostic::{AtValue, Diagnostic, Problem, Wrong, line_col};

mod document;
pub mod outline;
mod wording;
pub use document::Document;
use document::{Place, SEP};
pub use wording::dotted;
use wording::explain;

/// What only a Helm template refers to inside `{{ }}`.
const HELM_OBJECTS: [&str; 5] = [".Values", ".Release", ".Chart", "include \"", "template \""];

/// Whether a text is YAML or JSON: the same reader, other words in errors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// YAML, one document or several (`---`).
    Yaml,
    /// JSON, one value or several in a row (as `jq` prints them).
    Json,
}

/// A YAML stream (or a stream of JSON values) split into documents.
pub struct Stream<'a> {
    pub origin: &'a str,
    pub text: &'a str,
    pub documents: Vec<Document>,
    /// The byte where each line starts, as YAML counts lines (a `\n`, a
    /// `\r\n` or a lone `\r` ends one).
    line_starts: Vec<usize>,
}

/// The bytes `start..` of the text, to be parsed alone: their first line
/// keeps its column (the characters before them on it become spaces, so a
/// block mapping keeps its indentation), the lines above are only counted.
struct Excerpt {
    text: String,
    /// The byte of the text where the excerpt's own bytes start.
    start: usize,
    /// Spaces put before them.
    indent: usize,
    /// Lines of the text above the excerpt's first.
    lines_before: usize,
}

impl Excerpt {
    /// The text's byte for the excerpt's byte `offset`.
    fn original(&self, offset: usize) -> usize {
        self.start + offset.saturating_sub(self.indent)
    }

    /// The text's line and column for the excerpt's (1-based) ones.
    fn position(&self, line: usize, col: usize) -> (usize, usize) {
        (line + self.lines_before, col)
    }
}

/// A mapping or sequence being walked, and where its next child goes.
enum Frame {
    Map {
        path: String,
        key: Option<(String, usize)>,
    },
    Seq {
        path: String,
        next: usize,
    },
}

impl Frame {
    fn path(&self) -> &str {
        match self {
            Frame::Map { path, .. } | Frame::Seq { path, .. } => path,
        }
    }
}

impl<'a> Stream<'a> {
    /// Reads the structure of `text`; a syntax error is positioned, and an
    /// unrendered Helm template is told as one.
    pub fn parse(text: &'a str, origin: &'a str, syntax: Syntax) -> Result<Self, Diagnostic> {
        let mut line_starts = vec![0];
        let bytes = text.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'\n' || (b == b'\r' && bytes.get(i + 1) != Some(&b'\n')) {
                line_starts.push(i + 1);
            }
        }
        let mut stream = Stream {
            origin,
            text,
            documents: Vec::new(),
            line_starts,
        };
        match syntax {
            Syntax::Yaml => {
                let whole = stream.excerpt(0..text.len());
                stream.walk(&whole).map_err(|e| stream.helm().unwrap_or(e))?
            }
            Syntax::Json => {
                // serde_json knows JSON's own words for a syntax error; each
                // value of the stream is then walked as a document of its own.
                let mut values =
                    serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
                let mut start = 0;
                while let Some(value) = values.next() {
                    if let Err(e) = value {
                        let message = e.to_string();
                        let mut message = message.split(" at line ").next().unwrap_or(&message).to_string();
                        // serde_json counts columns in bytes; podsim, in characters.
                        let line_start: usize = text
                            .split_inclusive('\n')
                            .take(e.line().saturating_sub(1))
                            .map(str::len)
                            .sum();
                        let mut at = (line_start + e.column().saturating_sub(1)).min(text.len());
                        while !text.is_char_boundary(at) {
                            at -= 1;
                        }
                        if text[..at].trim_end().ends_with(',') {
                            message =
                                "a comma before a closing bracket (JSON allows no trailing comma)".into();
                        }
                        return Err(stream.error(at, format!("invalid JSON: {message}")));
                    }
                    let end = values.byte_offset();
                    let value = stream.excerpt(start..end);
                    stream.walk(&value)?;
                    if let Some(doc) = stream.documents.last_mut() {
                        doc.start = start;
                        doc.end = end;
                    }
                    start = end;
                }
            }
        }
        Ok(stream)
    }

    /// The bytes `range` of the text as an `Excerpt`.
    fn excerpt(&self, range: std::ops::Range<usize>) -> Excerpt {
        let line = self
            .line_starts
            .partition_point(|&s| s <= range.start)
            .saturating_sub(1);
        let line_start = self.line_starts.get(line).copied().unwrap_or(0).min(range.start);
        let indent = self
            .text
            .get(line_start..range.start)
            .map_or(0, |t| t.chars().count());
        let mut text = " ".repeat(indent);
        text.push_str(self.text.get(range.clone()).unwrap_or(""));
        Excerpt {
            text,
            start: range.start,
            indent,
            lines_before: line,
        }
    }

    /// The documents of `excerpt` (the whole text, or one JSON value),
    /// appended with the place of every node.
    fn walk(&mut self, excerpt: &Excerpt) -> Result<(), Diagnostic> {
        let first = self.documents.len();
        let mut stack: Vec<Frame> = Vec::new();
        for item in Parser::new_from_str(&excerpt.text) {
            let (event, span) = item.map_err(|e| {
                let marker = e.marker();
                Diagnostic::positioned(
                    self.origin,
                    Some(excerpt.position(marker.line(), marker.col() + 1)),
                    format!("invalid YAML: {}", e.info()),
                )
            })?;
            let at = excerpt.original(span.start.byte_offset().unwrap_or(0));
            let end = excerpt.original(span.end.byte_offset().unwrap_or(0)).max(at);
            let scalar = match &event {
                Event::DocumentStart(..) => {
                    self.documents.push(Document {
                        start: at,
                        end: excerpt.original(excerpt.text.len()),
                        places: HashMap::new(),
                    });
                    continue;
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    if let (Some(frame), Some(document)) = (stack.pop(), self.documents.last_mut())
                        && let Some(place) = document.places.get_mut(frame.path())
                    {
                        place.end = end.max(place.value);
                    }
                    continue;
                }
                Event::MappingStart(..) if self.text[at.min(self.text.len())..].starts_with("{{") => {
                    return Err(self.helm().unwrap_or_else(|| self.error(at, "unexpected {{")));
                }
                // Quoted, a template survives the YAML reader: Helm's own
                // objects give it away (a Vault annotation's template does not).
                Event::Scalar(value, ..)
                    if value.contains("{{") && HELM_OBJECTS.iter().any(|o| value.contains(o)) =>
                {
                    return Err(self.helm().unwrap_or_else(|| self.error(at, "unexpected {{")));
                }
                Event::Scalar(value, ..) => Some(value.to_string()),
                Event::MappingStart(..) | Event::SequenceStart(..) | Event::Alias(..) => None,
                _ => continue,
            };
            let Some(document) = self.documents.last_mut() else {
                continue;
            };
            let place = |key| Place {
                key,
                value: at,
                end,
                scalar: scalar.clone(),
            };
            // The path of this node, or `None` when it is a mapping key.
            let path = match stack.last_mut() {
                None => Some(String::new()),
                Some(Frame::Seq { path, next }) => {
                    *next += 1;
                    Some(child(path, &(*next - 1).to_string()))
                }
                Some(Frame::Map { path, key }) => match key.take() {
                    Some((name, key_at)) => {
                        let path = child(path, &name);
                        document.places.insert(path.clone(), place(Some(key_at)));
                        Some(path)
                    }
                    None => {
                        // A complex key (a mapping as key) gets a name no
                        // lookup uses; its children are recorded under it.
                        *key = Some((scalar.clone().unwrap_or_else(|| "?".into()), at));
                        None
                    }
                },
            };
            if let Some(path) = &path {
                document.places.entry(path.clone()).or_insert(place(None));
            }
            let frame_path = path.unwrap_or_else(|| "?".into());
            match event {
                Event::MappingStart(..) => stack.push(Frame::Map {
                    path: frame_path,
                    key: None,
                }),
                Event::SequenceStart(..) => stack.push(Frame::Seq {
                    path: frame_path,
                    next: 0,
                }),
                _ => {}
            }
        }
        // Each document ends where the next one starts.
        let starts: Vec<usize> = self.documents[first..].iter().skip(1).map(|d| d.start).collect();
        for (doc, next) in self.documents[first..].iter_mut().zip(starts) {
            doc.end = next;
        }
        Ok(())
    }

    /// An unrendered Helm template, told as one at its first `{{`.
    fn helm(&self) -> Option<Diagnostic> {
        let at = self.text.find("{{")?;
        Some(self.error(
            at,
            "this is an unrendered Helm template ({{ ... }}), not a manifest: run `helm template` \
             first and give podsim what it prints",
        ))
    }

    /// An error at byte `offset`.
    pub fn error(&self, offset: usize, problem: impl Into<Problem>) -> Diagnostic {
        Diagnostic::error(self.origin, self.text, Some(offset..offset), problem.into())
    }

    /// An error at the value of the field at `path` in `doc`, told after
    /// the field's path: every reader of a manifest's fields words its
    /// refusals so.
    pub fn at_value(&self, doc: &Document, path: &[&str], wrong: impl Into<Wrong>) -> Diagnostic {
        let problem = AtValue {
            path: dotted(path),
            wrong: wrong.into(),
        };
        self.error(doc.value_offset(path), Problem::AtValue(Box::new(problem)))
    }

    /// `line:col` of byte `offset`, for messages that mention another place.
    pub fn line_col(&self, offset: usize) -> String {
        let (line, col) = line_col(self.text, offset);
        format!("{line}:{col}")
    }

    /// Parses the node at `path` of `doc` (`[]`: the whole document) into
    /// `T`. Fields that `T` does not know (kubectl's strict field validation
    /// rejects them) come back as paths from the document's root.
    pub fn parse_node<T: DeserializeOwned>(
        &self,
        doc: &Document,
        path: &[&str],
    ) -> Result<(T, Vec<Vec<String>>), Diagnostic> {
        let excerpt = self.excerpt(doc.range(path));
        let mut unknown = Vec::new();
        // One callback type for every `T`: the deserializers of the Pod
        // spec, which every workload holds, are then compiled once.
        let mut note = |found: serde_ignored::Path| unknown.push(segments(&found));
        let note: &mut dyn FnMut(serde_ignored::Path) = &mut note;
        let options = serde_saphyr::options! { with_snippet: false };
        let parsed = serde_saphyr::with_deserializer_from_str_with_options(&excerpt.text, options, |de| {
            serde_ignored::deserialize(de, &mut *note)
        });
        let value = parsed.map_err(|e| self.type_error(doc, &excerpt, &e))?;
        let root: Vec<String> = path.iter().map(|s| s.to_string()).collect();
        let unknown = unknown
            .into_iter()
            .map(|p| root.iter().cloned().chain(p).collect())
            .collect();
        Ok((value, unknown))
    }

    /// The YAML crate's error in podsim's words: the field's path, what was
    /// written and what to write instead.
    fn type_error(&self, doc: &Document, excerpt: &Excerpt, e: &serde_saphyr::Error) -> Diagnostic {
        let message: String = DefaultMessageFormatter
            .format_message(e)
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        // Advice for the programmer, not for the user of the file.
        let message = match message.split_once(", set DuplicateKeyPolicy") {
            Some((kept, _)) => kept.to_string(),
            None => message,
        };
        let position = e
            .location()
            .filter(|l| l.line() > 0)
            .map(|l| excerpt.position(l.line() as usize, l.column().max(1) as usize));
        let node = position
            .map(|(line, col)| offset_of(self.text, line, col))
            .and_then(|offset| doc.node_at(offset));
        Diagnostic::positioned(self.origin, position, explain(&message, node))
    }
}

/// The byte of 1-based `line` and `col` (in characters) in `text`.
fn offset_of(text: &str, line: usize, col: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let rest = &text[start.min(text.len())..];
    start
        + rest
            .char_indices()
            .nth(col.saturating_sub(1))
            .map_or(rest.len(), |(i, _)| i)
}

fn child(parent: &str, name: &str) -> String {
    if parent.is_empty() {
        name.to_string()
    } else {
        format!("{parent}{SEP}{name}")
    }
}

/// serde_ignored's path as segments, the way `Document` lookups spell them.
fn segments(path: &serde_ignored::Path) -> Vec<String> {
    let mut out = match path {
        serde_ignored::Path::Root => return Vec::new(),
        serde_ignored::Path::Seq { parent, .. }
        | serde_ignored::Path::Map { parent, .. }
        | serde_ignored::Path::Some { parent }
        | serde_ignored::Path::NewtypeStruct { parent }
        | serde_ignored::Path::NewtypeVariant { parent } => segments(parent),
    };
    match path {
        serde_ignored::Path::Seq { index, .. } => out.push(index.to_string()),
        serde_ignored::Path::Map { key, .. } => out.push(key.clone()),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests;
