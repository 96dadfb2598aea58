//! One parsed document of a stream and the place of each of its nodes by
//! path: the lookups manifests make (a scalar, a key's offset), apart from
//! the event walk that fills them in.

use std::collections::HashMap;
use std::ops::Range;

/// Joins path segments; no YAML key a manifest uses contains it.
pub(super) const SEP: char = '\u{1f}';

/// Where one node was written: its key (for a mapping entry), its value,
/// and the byte just past it.
#[derive(Clone, Debug)]
pub(super) struct Place {
    pub(super) key: Option<usize>,
    pub(super) value: usize,
    pub(super) end: usize,
    pub(super) scalar: Option<String>,
}

/// One document of a stream with the place of every node, by path.
#[derive(Debug)]
pub struct Document {
    /// Byte where the document starts (its `---`, or its first node).
    pub(super) start: usize,
    /// Byte where the next document starts (or the end of the text).
    pub(super) end: usize,
    pub(super) places: HashMap<String, Place>,
}

impl Document {
    /// The text of the scalar at `path` (e.g. `["kind"]`), if it is one.
    pub fn scalar(&self, path: &[&str]) -> Option<&str> {
        self.places.get(&join(path))?.scalar.as_deref()
    }

    /// Whether anything was written at `path`.
    pub fn has(&self, path: &[&str]) -> bool {
        self.places.contains_key(&join(path))
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

    /// Whether some path under `root` ends in `leaf` below a `within` key
    /// (`image` under `containers`): how a custom resource shows it holds
    /// containers.
    pub fn has_leaf_below(&self, root: &[&str], leaf: &str, within: &[&str]) -> bool {
        self.places.keys().any(|p| {
            let segments: Vec<&str> = p.split(SEP).collect();
            segments.starts_with(root)
                && segments.last() == Some(&leaf)
                && segments[root.len()..].iter().any(|s| within.contains(s))
        })
    }

    /// The bytes of the node at `path`: the whole document for `[]`.
    pub(super) fn range(&self, path: &[&str]) -> Range<usize> {
        match (path, self.places.get(&join(path))) {
            ([], _) | (_, None) => self.start..self.end,
            (_, Some(place)) => place.value..place.end,
        }
    }

    /// The path and the scalar text of the node written at byte `offset`
    /// (its key or its value), the deepest one if several start there.
    pub(super) fn node_at(&self, offset: usize) -> Option<(Vec<String>, Option<&str>)> {
        self.places
            .iter()
            .filter(|(_, p)| p.value == offset || p.key == Some(offset))
            .max_by_key(|(path, _)| (path.matches(SEP).count(), path.len()))
            .map(|(path, p)| {
                let segments = if path.is_empty() {
                    Vec::new()
                } else {
                    path.split(SEP).map(str::to_string).collect()
                };
                (segments, p.scalar.as_deref())
            })
    }
}

/// The key of `path` in a document's places: its segments joined by `SEP`.
pub(super) fn join(path: &[&str]) -> String {
    let mut joined = String::new();
    for (i, segment) in path.iter().enumerate() {
        if i > 0 {
            joined.push(SEP);
        }
        joined.push_str(segment);
    }
    joined
}
