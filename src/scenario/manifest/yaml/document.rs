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

    /// The first label or annotation (in the order written) whose value is
    /// a plain YAML number or boolean, as `(map, key, offset of the value,
    /// value, "number" or "boolean")`, the map `labels` or `annotations`. Their values are strings: kubectl
    /// sends such a value as a JSON number or boolean, which the API server
    /// refuses ("cannot unmarshal number into Go struct field
    /// ObjectMeta.metadata.annotations of type string"). `text` is the
    /// stream's, to tell `50` from `"50"`; only the node at `root` is read.
    pub fn unquoted_in_string_maps(
        &self,
        text: &str,
        root: &[&str],
    ) -> Option<(&'static str, String, usize, String, &'static str)> {
        self.places
            .iter()
            .filter_map(|(path, place)| {
                let segments: Vec<&str> = path.split(SEP).collect();
                let (map, key) = match segments[..] {
                    [.., "metadata", "labels", key] => ("labels", key),
                    [.., "metadata", "annotations", key] => ("annotations", key),
                    _ => return None,
                };
                if !segments.starts_with(root) {
                    return None;
                }
                let scalar = place.scalar.as_deref()?;
                let quoted = text[place.value..].starts_with(['"', '\'', '|', '>']);
                let what = if quoted { None } else { yaml_1_1_type(scalar) }?;
                Some((map, key.to_string(), place.value, scalar.to_string(), what))
            })
            .min_by_key(|found| found.2)
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

/// What kubectl's YAML reader (YAML 1.1, go-yaml v2's resolver) makes of a
/// plain scalar other than a string: `Some("number")` for `50`, `1.5`,
/// `0x1F`, `1e3`, `.inf`; `Some("boolean")` for `true`, `yes`, `on`, `n`
/// and their capitalised forms; `None` for a string (a null is let be: the
/// API server reads a null as the empty string).
fn yaml_1_1_type(plain: &str) -> Option<&'static str> {
    const BOOLS: [&str; 22] = [
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False",
        "FALSE", "on", "On", "ON", "off", "Off", "OFF",
    ];
    if BOOLS.contains(&plain) {
        return Some("boolean");
    }
    let unsigned = plain.strip_prefix(['-', '+']).unwrap_or(plain).replace('_', "");
    let special =
        matches!(unsigned.as_str(), ".inf" | ".Inf" | ".INF") || matches!(plain, ".nan" | ".NaN" | ".NAN");
    let radix = |prefix: &str, digit: fn(&u8) -> bool| {
        unsigned
            .strip_prefix(prefix)
            .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| digit(&b)))
    };
    let hex = radix("0x", u8::is_ascii_hexdigit) || radix("0b", |b| matches!(b, b'0' | b'1'));
    let decimal = !unsigned.is_empty()
        && unsigned.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && unsigned != "."
        && unsigned.parse::<f64>().is_ok();
    (special || hex || decimal).then_some("number")
}

#[cfg(test)]
mod tests {
    use super::yaml_1_1_type;

    #[test]
    fn plain_scalars_are_typed_as_kubectl_reads_them() {
        for number in [
            "50", "-3", "1.5", "3.0", ".5", "1e3", "0x1F", "0b101", "1_000", ".inf", "-.inf", ".nan",
        ] {
            assert_eq!(yaml_1_1_type(number), Some("number"), "{number}");
        }
        for boolean in ["true", "False", "yes", "NO", "on", "Off", "y", "N"] {
            assert_eq!(yaml_1_1_type(boolean), Some("boolean"), "{boolean}");
        }
        for string in [
            "2s", "nginx", "1.2.3", "v1", "inf", "nan", "0x", "-", ".", "yess", "", "1e",
        ] {
            assert_eq!(yaml_1_1_type(string), None, "{string}");
        }
    }
}
