//! The little of Markdown the guide's tests need: the pages, their fenced
//! blocks with their info strings, their headings' anchors as GitHub makes
//! them, and their links. Written here rather than taken from a Markdown
//! crate: the guide uses a plain subset, and a dependency would lengthen
//! the first `cargo test`.

use std::path::{Path, PathBuf};

/// The repository's root, where `README.md` is.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A page of the guide: its path from the repository's root and its text.
pub struct Page {
    pub path: PathBuf,
    pub text: String,
}

/// `README.md` and every `docs/*.md`, in name order after the README.
pub fn pages() -> Vec<Page> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ is there")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| path.strip_prefix(root()).unwrap().to_path_buf())
        .collect();
    paths.sort();
    paths.insert(0, PathBuf::from("README.md"));
    paths
        .into_iter()
        .map(|path| Page {
            text: std::fs::read_to_string(root().join(&path)).unwrap(),
            path,
        })
        .collect()
}

/// A fenced block: where it is, its info string and its text (without the
/// indentation its fence has, as inside a list item).
pub struct Block {
    /// The 1-based line of its opening fence.
    pub line: usize,
    /// The 1-based line of its closing fence.
    pub end: usize,
    pub info: String,
    pub body: String,
}

impl Block {
    /// The info string's first word: `sh`, `text`, `toml`, …
    pub fn lang(&self) -> &str {
        self.info.split_whitespace().next().unwrap_or("")
    }

    /// The value of `key=value` in the info string.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.info
            .split_whitespace()
            .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
    }

    /// The reason after `no-run:`, when the block is not to be run; an
    /// empty reason is `Some("")`, which the tests refuse.
    pub fn no_run(&self) -> Option<&str> {
        let at = self.info.find("no-run")?;
        let rest = &self.info[at + "no-run".len()..];
        Some(rest.strip_prefix(':').unwrap_or(rest).trim())
    }
}

/// Every fenced block of a page, in order.
pub fn blocks(text: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut open: Option<(usize, usize, String, Vec<&str>)> = None;
    for (i, line) in text.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let fence = line.trim_start().starts_with("```");
        match &mut open {
            None if fence => {
                let info = line.trim_start().trim_start_matches('`').trim().to_string();
                open = Some((i + 1, indent, info, Vec::new()));
            }
            None => {}
            Some(_) if fence && line.trim() == "```" => {
                let (start, _, info, lines) = open.take().unwrap();
                blocks.push(Block {
                    line: start,
                    end: i + 1,
                    info,
                    body: lines.join("\n"),
                });
            }
            Some((_, indent, _, lines)) => {
                let cut = line.len() - line.trim_start().len();
                lines.push(&line[cut.min(*indent)..]);
            }
        }
    }
    assert!(open.is_none(), "a fenced block is never closed");
    blocks
}

/// The lines of a page outside its fenced blocks, with their 1-based numbers.
pub fn prose(text: &str) -> Vec<(usize, &str)> {
    let mut inside = false;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            inside = !inside;
        } else if !inside {
            lines.push((i + 1, line));
        }
    }
    lines
}

/// The anchors of a page's headings, as GitHub makes them: the heading's
/// text lowercased, links reduced to their text, every character but
/// letters, digits, `_`, `-` and spaces dropped, spaces made `-`; a repeated
/// anchor gets `-1`, `-2`, ….
pub fn anchors(text: &str) -> Vec<String> {
    let mut anchors = Vec::new();
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for (_, line) in prose(text) {
        let hashes = line.len() - line.trim_start_matches('#').len();
        let Some(title) = line[hashes..].strip_prefix(' ') else {
            continue;
        };
        if !(1..=6).contains(&hashes) {
            continue;
        }
        let slug: String = link_texts(title)
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                '-' | '_' => Some(c),
                c if c.is_alphanumeric() => Some(c),
                _ => None,
            })
            .collect();
        let taken = seen.entry(slug.clone()).or_default();
        anchors.push(match *taken {
            0 => slug,
            n => format!("{slug}-{n}"),
        });
        *taken += 1;
    }
    anchors
}

/// `[text](target)` made `text`.
fn link_texts(line: &str) -> String {
    let mut out = line.to_string();
    while let Some((label, at, end)) = links_with_span(&out).into_iter().next() {
        out.replace_range(at..end, &label);
    }
    out
}

/// A link of a page's prose: its line and its target.
pub struct Link {
    pub line: usize,
    pub target: String,
}

/// Every link and image of a page's prose, outside code spans.
pub fn links(text: &str) -> Vec<Link> {
    let mut links = Vec::new();
    for (number, line) in prose(text) {
        let plain = without_code_spans(line);
        for (_, start, end) in links_with_span(&plain) {
            let target = &plain[start..end];
            let target = &target[target.rfind("](").unwrap() + 2..target.len() - 1];
            links.push(Link {
                line: number,
                target: target.to_string(),
            });
        }
    }
    links
}

/// The line with every code span blanked out, so that `[x](y)` written as
/// code is not taken for a link; the byte positions stay those of the line.
fn without_code_spans(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(open) = rest.find('`') {
        let ticks = rest[open..].len() - rest[open..].trim_start_matches('`').len();
        let fence = &rest[open..open + ticks];
        let Some(close) = rest[open + ticks..].find(fence) else {
            break;
        };
        out.push_str(&rest[..open]);
        let span = open + ticks + close + ticks;
        out.extend(std::iter::repeat_n(' ', rest[open..span].len()));
        rest = &rest[span..];
    }
    out.push_str(rest);
    out
}

/// Each `[label](target)` of a line with the label and the byte span of
/// the whole link; a target holds no space or parenthesis.
fn links_with_span(line: &str) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(mid) = line[from..].find("](").map(|at| at + from) {
        let target_end = line[mid + 2..].find([')', ' ', '(']).map(|at| at + mid + 2);
        let label_start = line[..mid].rfind('[');
        match (label_start, target_end) {
            (Some(start), Some(end)) if line[end..].starts_with(')') => {
                found.push((line[start + 1..mid].to_string(), start, end + 1));
                from = end + 1;
            }
            _ => from = mid + 2,
        }
    }
    found
}
