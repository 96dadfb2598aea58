//! YAML streams as manifests need them: where each document lies, where each
//! of its keys and values was written, and typed parsing of one document into
//! `k8s-openapi` types with the fields Kubernetes would not know reported.
//!
//! Invariant: every position is one of the original text. A document is
//! parsed from a copy of the stream in which every other document is blanked
//! (characters become spaces, line breaks stay), so a position the YAML crate
//! reports is a position in the user's file.

use std::collections::HashMap;

use serde::de::DeserializeOwned;
use serde_saphyr::granit_parser::{Event, Parser};
use serde_saphyr::{DefaultMessageFormatter, MessageFormatter};

use crate::scenario::diagnostic::{Diagnostic, line_col};

/// Joins path segments; no YAML key a manifest uses contains it.
const SEP: char = '\u{1f}';

/// Where one node was written: its key (for a mapping entry) and its value.
#[derive(Clone, Debug)]
struct Place {
    key: Option<usize>,
    value: usize,
    scalar: Option<String>,
}

/// One document of a stream with the place of every node, by path.
#[derive(Debug)]
pub struct Document {
    /// Byte where the document starts (its `---`, or its first node).
    start: usize,
    places: HashMap<String, Place>,
}

impl Document {
    /// The text of the scalar at `path` (e.g. `["kind"]`), if it is one.
    pub fn scalar(&self, path: &[&str]) -> Option<&str> {
        self.places.get(&join(path))?.scalar.as_deref()
    }

    /// Nothing but perhaps a null, as after a trailing `---`.
    pub fn is_empty(&self) -> bool {
        match self.places.get("") {
            None => true,
            Some(root) => root
                .scalar
                .as_deref()
                .is_some_and(|s| matches!(s.trim(), "" | "~" | "null")),
        }
    }

    /// Byte of the key at `path`, else of its value; the nearest written
    /// ancestor when the path itself was not written.
    pub fn offset(&self, path: &[&str]) -> usize {
        (0..=path.len())
            .rev()
            .find_map(|n| self.places.get(&join(&path[..n])))
            .map_or(self.start, |p| p.key.unwrap_or(p.value))
    }

    /// Byte of the value at `path` (or as `offset` when it was not written).
    pub fn value_offset(&self, path: &[&str]) -> usize {
        self.places
            .get(&join(path))
            .map_or_else(|| self.offset(path), |p| p.value)
    }
}

fn join(path: &[&str]) -> String {
    let mut joined = String::new();
    for (i, segment) in path.iter().enumerate() {
        if i > 0 {
            joined.push(SEP);
        }
        joined.push_str(segment);
    }
    joined
}

/// A YAML stream split into documents.
pub struct Stream<'a> {
    pub origin: &'a str,
    pub text: &'a str,
    pub documents: Vec<Document>,
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

impl<'a> Stream<'a> {
    /// Reads the structure of `text`; a syntax error is positioned.
    pub fn parse(text: &'a str, origin: &'a str) -> Result<Self, Diagnostic> {
        let mut documents = Vec::new();
        let mut stack: Vec<Frame> = Vec::new();
        for item in Parser::new_from_str(text) {
            let (event, span) = item.map_err(|e| {
                let marker = e.marker();
                Diagnostic::positioned(
                    origin,
                    Some((marker.line(), marker.col() + 1)),
                    format!("invalid YAML: {}", e.info()),
                )
            })?;
            let at = span.start.byte_offset().unwrap_or(0);
            let scalar = match &event {
                Event::DocumentStart(..) => {
                    documents.push(Document {
                        start: at,
                        places: HashMap::new(),
                    });
                    continue;
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    stack.pop();
                    continue;
                }
                Event::Scalar(value, ..) => Some(value.to_string()),
                Event::MappingStart(..) | Event::SequenceStart(..) | Event::Alias(..) => None,
                _ => continue,
            };
            let Some(document) = documents.last_mut() else {
                continue;
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
                        document.places.insert(
                            path.clone(),
                            Place {
                                key: Some(key_at),
                                value: at,
                                scalar: scalar.clone(),
                            },
                        );
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
                document.places.entry(path.clone()).or_insert(Place {
                    key: None,
                    value: at,
                    scalar: scalar.clone(),
                });
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
        Ok(Stream {
            origin,
            text,
            documents,
        })
    }

    /// An error at byte `offset`.
    pub fn error(&self, offset: usize, message: impl Into<String>) -> Diagnostic {
        Diagnostic::at(self.origin, self.text, Some(offset..offset), message)
    }

    /// `line:col` of byte `offset`, for messages that mention another place.
    pub fn line_col(&self, offset: usize) -> String {
        let (line, col) = line_col(self.text, offset);
        format!("{line}:{col}")
    }

    /// Parses document `index` into `T`. Fields that `T` does not know
    /// (kubectl's strict field validation rejects them) come back as paths.
    pub fn parse_document<T: DeserializeOwned>(
        &self,
        index: usize,
    ) -> Result<(T, Vec<Vec<String>>), Diagnostic> {
        let text = self.isolate(index);
        let mut unknown = Vec::new();
        let options = serde_saphyr::options! { with_snippet: false };
        let parsed = serde_saphyr::with_deserializer_from_str_with_options(&text, options, |de| {
            serde_ignored::deserialize(de, |path| unknown.push(segments(&path)))
        });
        match parsed {
            Ok(value) => Ok((value, unknown)),
            Err(e) => {
                let message: String = DefaultMessageFormatter
                    .format_message(&e)
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
                    .map(|l| (l.line() as usize, l.column().max(1) as usize));
                Err(Diagnostic::positioned(self.origin, position, message))
            }
        }
    }

    /// The stream with every document but `index` blanked out.
    fn isolate(&self, index: usize) -> String {
        let start = self.documents.get(index).map_or(0, |d| d.start);
        let end = self.documents.get(index + 1).map_or(self.text.len(), |d| d.start);
        self.text
            .char_indices()
            .map(|(i, c)| match c {
                '\n' | '\r' => c,
                _ if (start..end).contains(&i) => c,
                _ => ' ',
            })
            .collect()
    }
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

/// `spec.containers[0].name` from `["spec", "containers", "0", "name"]`.
pub fn dotted(path: &[impl AsRef<str>]) -> String {
    let mut out = String::new();
    for segment in path {
        let segment = segment.as_ref();
        if segment.bytes().all(|b| b.is_ascii_digit()) && !segment.is_empty() {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(segment);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "# leading comment\napiVersion: v1\nkind: Service\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: web\n    image: nginx\n";

    #[test]
    fn finds_documents_and_the_place_of_every_node() {
        let s = Stream::parse(TWO, "x.yaml").unwrap();
        assert_eq!(s.documents.len(), 2);
        assert_eq!(s.documents[0].scalar(&["kind"]), Some("Service"));
        let pod = &s.documents[1];
        assert_eq!(pod.scalar(&["spec", "containers", "0", "name"]), Some("web"));
        assert_eq!(
            s.line_col(pod.offset(&["spec", "containers", "0", "name"])),
            "9:5"
        );
        assert_eq!(
            s.line_col(pod.value_offset(&["spec", "containers", "0", "name"])),
            "9:11"
        );
        // Not written: the nearest ancestor that was.
        assert_eq!(
            s.line_col(pod.offset(&["spec", "containers", "0", "lifecycle"])),
            "9:5"
        );
    }

    #[test]
    fn a_document_parses_with_the_positions_of_the_whole_stream() {
        let text = TWO.replace("image: nginx", "image: [nginx");
        let e = Stream::parse(&text, "x.yaml").map(|_| ()).unwrap_err();
        assert!(e.to_string().starts_with("x.yaml:1"), "{e}");
        let text = TWO.replace("containers:\n", "containers: 3\n  x:\n");
        let s = Stream::parse(&text, "x.yaml").unwrap();
        let e = s
            .parse_document::<k8s_openapi::api::core::v1::Pod>(1)
            .map(|_| ())
            .unwrap_err();
        assert!(e.to_string().starts_with("x.yaml:8:"), "{e}");
    }

    #[test]
    fn unknown_fields_come_back_as_paths() {
        let text = TWO.replace("image: nginx", "imgae: nginx");
        let s = Stream::parse(&text, "x.yaml").unwrap();
        let (_, unknown) = s.parse_document::<k8s_openapi::api::core::v1::Pod>(1).unwrap();
        assert_eq!(dotted(&unknown[0]), "spec.containers[0].imgae");
    }
}
