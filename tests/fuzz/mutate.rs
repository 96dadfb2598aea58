//! Structured mutations of seed inputs: what a person editing a file, or a
//! file damaged on its way, does to it. Byte flips, insertions, deletions
//! and truncation; splices of two seeds; lines moved, doubled or dropped;
//! and at the level of TOML and YAML structure, a key's value or name
//! replaced by one seen elsewhere in the corpus (or by an edge value), two
//! values swapped, a line indented deeper or shallower, a document repeated.
//!
//! Invariant: a mutation is plain data whose numbers are taken modulo what
//! they index, so any `Op` applies to any input and proptest can shrink a
//! failing list of them to a short one.

use proptest::prelude::*;

/// Inputs are cut to this length after mutation, so no input is slow
/// merely because it is large.
pub const MAX_LEN: usize = 64 * 1024;

/// Values that sit on an edge of what podsim reads: zero, negative and
/// huge durations and counts, wrong types, YAML's special scalars.
const EDGE_VALUES: &[&str] = &[
    "\"\"",
    "\"0s\"",
    "\"0ms\"",
    "\"1ms\"",
    "\"-1s\"",
    "\"1.0005s\"",
    "\"1e3s\"",
    "\"18446744073709551615ms\"",
    "\"9999999999999999h\"",
    "\"213503982334601h\"",
    "\"5124095576030431h\"",
    "\"1m30s\"",
    "0",
    "-1",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "1e308",
    "nan",
    "true",
    "[]",
    "{}",
    "[1, \"a\"]",
    "{ from = \"0s\", to = \"1h\", step = \"1ms\" }",
    "{ from = 0, to = 4294967295, step = 1 }",
    "\"sidecar\"",
    "\"init\"",
    "\"app\"",
    "\"Never\"",
    "\"OnFailure\"",
    "\"job\"",
    "\"1.20\"",
    "\"1.28\"",
    "\"1.99\"",
    "null",
    "~",
    "&a x",
    "*a",
    "!!binary aGk=",
    "\"\\u0000\"",
    "\"é\"",
    "|\n  text",
    "- a\n- b",
];

/// Tokens inserted at random places.
const WORDS: &[&str] = &[
    "\n",
    "---\n",
    "...\n",
    ": ",
    "- ",
    "\t",
    "[",
    "]",
    "{",
    "}",
    "\"",
    "'",
    "=",
    ",",
    "#",
    "&a ",
    "*a",
    "<<: *a\n",
    "[[containers]]\n",
    "[pod]\n",
    "[axes]\n",
    "kind: List\nitems:\n",
    "\u{feff}",
    "é",
    "\0",
    "\r\n",
    "0",
    "9",
];

/// One edit. Positions and choices are taken modulo the input's length or
/// the list they pick from.
#[derive(Clone, Debug)]
pub enum Op {
    FlipBit {
        at: usize,
        bit: u8,
    },
    SetByte {
        at: usize,
        byte: u8,
    },
    InsertWord {
        at: usize,
        word: usize,
    },
    Delete {
        at: usize,
        len: usize,
    },
    Truncate {
        at: usize,
    },
    /// This input up to `at`, then seed `other` from `from` on.
    Splice {
        other: usize,
        at: usize,
        from: usize,
    },
    /// Lines `from..from + count` of seed `other` inserted before line `at`.
    SpliceLines {
        other: usize,
        at: usize,
        from: usize,
        count: usize,
    },
    SwapLines {
        a: usize,
        b: usize,
    },
    DuplicateLine {
        line: usize,
    },
    DeleteLine {
        line: usize,
    },
    /// The value of the `line`-th key line replaced by value `value` of the pool.
    SetValue {
        line: usize,
        value: usize,
    },
    /// The key of the `line`-th key line replaced by key `key` of the pool.
    SetKey {
        line: usize,
        key: usize,
    },
    SwapValues {
        a: usize,
        b: usize,
    },
    Indent {
        line: usize,
        deeper: bool,
    },
    RepeatDocument,
}

/// Any `Op`; shrinking moves numbers towards 0, so towards the first line
/// and the first seed.
pub fn op() -> impl Strategy<Value = Op> {
    let n = any::<usize>;
    prop_oneof![
        1 => (n(), 0u8..8).prop_map(|(at, bit)| Op::FlipBit { at, bit }),
        1 => (n(), any::<u8>()).prop_map(|(at, byte)| Op::SetByte { at, byte }),
        1 => (n(), n()).prop_map(|(at, word)| Op::InsertWord { at, word }),
        1 => (n(), 1usize..64).prop_map(|(at, len)| Op::Delete { at, len }),
        1 => n().prop_map(|at| Op::Truncate { at }),
        1 => (n(), n(), n()).prop_map(|(other, at, from)| Op::Splice { other, at, from }),
        1 => (n(), n(), n(), 1usize..8).prop_map(|(other, at, from, count)| Op::SpliceLines {
            other,
            at,
            from,
            count
        }),
        1 => (n(), n()).prop_map(|(a, b)| Op::SwapLines { a, b }),
        1 => n().prop_map(|line| Op::DuplicateLine { line }),
        1 => n().prop_map(|line| Op::DeleteLine { line }),
        // Edits that keep the syntax reach past the parser: drawn more often.
        4 => (n(), n()).prop_map(|(line, value)| Op::SetValue { line, value }),
        2 => (n(), n()).prop_map(|(line, key)| Op::SetKey { line, key }),
        2 => (n(), n()).prop_map(|(a, b)| Op::SwapValues { a, b }),
        1 => (n(), any::<bool>()).prop_map(|(line, deeper)| Op::Indent { line, deeper }),
        1 => Just(Op::RepeatDocument),
    ]
}

/// The seeds of one target and the keys and values seen in them.
pub struct Corpus {
    pub seeds: Vec<Vec<u8>>,
    keys: Vec<String>,
    values: Vec<String>,
}

impl Corpus {
    pub fn new(seeds: Vec<Vec<u8>>) -> Corpus {
        assert!(!seeds.is_empty(), "a target needs at least one seed");
        let (mut keys, mut values) = (Vec::new(), Vec::new());
        for seed in &seeds {
            for line in String::from_utf8_lossy(seed).lines() {
                if let Some((key, _, value)) = key_value(line) {
                    keys.push(key.trim().to_string());
                    values.push(value.to_string());
                }
            }
        }
        values.extend(EDGE_VALUES.iter().map(|v| v.to_string()));
        for list in [&mut keys, &mut values] {
            list.sort();
            list.dedup();
        }
        if keys.is_empty() {
            keys.push("key".into());
        }
        Corpus { seeds, keys, values }
    }

    /// Seed `seed` with `ops` applied in order, cut to `MAX_LEN`.
    pub fn mutant(&self, seed: usize, ops: &[Op]) -> Vec<u8> {
        let mut input = self.seeds[seed % self.seeds.len()].clone();
        for op in ops {
            self.apply(op, &mut input);
        }
        input.truncate(MAX_LEN);
        input
    }

    fn apply(&self, op: &Op, input: &mut Vec<u8>) {
        let len = input.len();
        let at = |n: usize| if len == 0 { 0 } else { n % (len + 1) };
        match *op {
            Op::FlipBit { at: n, bit } if len > 0 => input[n % len] ^= 1 << bit,
            Op::SetByte { at: n, byte } if len > 0 => input[n % len] = byte,
            Op::FlipBit { .. } | Op::SetByte { .. } => {}
            Op::InsertWord { at: n, word } => {
                let word = WORDS[word % WORDS.len()].as_bytes();
                input.splice(at(n)..at(n), word.iter().copied());
            }
            Op::Delete { at: n, len: count } => {
                let start = at(n);
                input.drain(start..(start + count).min(len));
            }
            Op::Truncate { at: n } => input.truncate(at(n)),
            Op::Splice { other, at: n, from } => {
                let other = &self.seeds[other % self.seeds.len()];
                let from = from % (other.len() + 1);
                input.truncate(at(n));
                input.extend_from_slice(&other[from..]);
            }
            _ => self.apply_to_lines(op, input),
        }
    }

    /// The edits that work on lines, on the input as text.
    fn apply_to_lines(&self, op: &Op, input: &mut Vec<u8>) {
        let text = String::from_utf8_lossy(input).into_owned();
        let mut lines: Vec<String> = text.split('\n').map(str::to_string).collect();
        let count = lines.len();
        let keyed: Vec<usize> = (0..count).filter(|&i| key_value(&lines[i]).is_some()).collect();
        let keyed_line = |n: usize| (!keyed.is_empty()).then(|| keyed[n % keyed.len()]);
        match *op {
            Op::SpliceLines {
                other,
                at,
                from,
                count: n,
            } => {
                let other = String::from_utf8_lossy(&self.seeds[other % self.seeds.len()]).into_owned();
                let other: Vec<&str> = other.split('\n').collect();
                let from = from % other.len();
                let taken = other[from..(from + n).min(other.len())]
                    .iter()
                    .map(|l| l.to_string());
                let at = at % (count + 1);
                lines.splice(at..at, taken);
            }
            Op::SwapLines { a, b } => lines.swap(a % count, b % count),
            Op::DuplicateLine { line } => {
                let line = line % count;
                lines.insert(line, lines[line].clone());
            }
            Op::DeleteLine { line } => {
                lines.remove(line % count);
            }
            Op::SetValue { line, value } => {
                if let Some(i) = keyed_line(line) {
                    let (key, sep, _) = key_value(&lines[i]).expect("a key line");
                    lines[i] = format!("{key}{sep}{}", self.values[value % self.values.len()]);
                }
            }
            Op::SetKey { line, key } => {
                if let Some(i) = keyed_line(line) {
                    let (old, sep, value) = key_value(&lines[i]).expect("a key line");
                    let indent = &old[..old.len() - old.trim_start().len()];
                    lines[i] = format!("{indent}{}{sep}{value}", self.keys[key % self.keys.len()]);
                }
            }
            Op::SwapValues { a, b } => {
                if let (Some(i), Some(j)) = (keyed_line(a), keyed_line(b)) {
                    let (ka, sa, va) = key_value(&lines[i]).expect("a key line");
                    let (kb, sb, vb) = key_value(&lines[j]).expect("a key line");
                    let (new_i, new_j) = (format!("{ka}{sa}{vb}"), format!("{kb}{sb}{va}"));
                    lines[i] = new_i;
                    lines[j] = new_j;
                }
            }
            Op::Indent { line, deeper } => {
                let line = &mut lines[line % count];
                if deeper {
                    line.insert_str(0, "  ");
                } else if line.starts_with("  ") {
                    line.drain(..2);
                }
            }
            Op::RepeatDocument => {
                lines.push("---".into());
                lines.extend(text.split('\n').map(str::to_string));
            }
            _ => unreachable!("byte-level edits are applied by `apply`"),
        }
        *input = lines.join("\n").into_bytes();
    }
}

/// A `key = value` (TOML) or `key: value` (YAML) line: the key with its
/// indentation, the separator as written and the value.
fn key_value(line: &str) -> Option<(&str, &str, &str)> {
    let at = line.find([':', '='])?;
    let key = &line[..at];
    let name = key.trim().trim_start_matches("- ");
    let plain = |c: char| c.is_ascii_alphanumeric() || "_.-/\"".contains(c);
    if name.is_empty() || !name.chars().all(plain) {
        return None;
    }
    let after = &line[at + 1..];
    let value = after.trim_start();
    let sep = &line[at..line.len() - value.len()];
    Some((key, sep, value))
}
