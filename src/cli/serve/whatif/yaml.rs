//! A what-if's edits written into a YAML manifest as text, at the places
//! the manifest reader found (`Outline`): an annotation set where it is or
//! added after the Pod template's others (`metadata` and `annotations`
//! added when missing), a container's entry moved between `containers`
//! and `initContainers` with its lines re-indented, a `lifecycle` added to
//! a container. Everything else, comments included, stays as written; a
//! node written on one line (`{…}`, `[…]`) is not rewritten but refused.

use std::ops::Range;

use podsim::model::ContainerKind;
use podsim::scenario::manifest::{Node, Outline, Syntax};

use super::{Edit, annotation};

/// `text` with `edits` applied to its workload number `workload` (of
/// `Outline::workloads`).
pub fn apply(text: &str, workload: usize, edits: &[Edit]) -> Result<String, String> {
    let mut text = text.to_string();
    // Each edit reads the text as it now is, so every offset is true.
    for edit in edits {
        let outline = Outline::parse(&text, Syntax::Yaml).map_err(|e| crate::cli::message(&e))?;
        let placed = &outline.workloads()[workload];
        let mut writer = Writer {
            outline: &outline,
            text: outline.text(),
            document: placed.document,
            out: Vec::new(),
        };
        let template = &placed.template;
        let annotations = path(template, &["metadata", "annotations"]);
        match edit {
            Edit::Layout(name, to) => writer.move_container(&path(template, &["spec"]), name, *to)?,
            Edit::PreStop(name, seconds) => {
                let item = writer.container(&path(template, &["spec"]), name)?;
                let sleep = Tree::Map(vec![("seconds".into(), Tree::Leaf(seconds.to_string()))]);
                writer.put(&path(&item, &["lifecycle", "preStop"]), "sleep", sleep)?;
            }
            Edit::Pod(_, None) => writer.remove(&annotations, &annotation(edit).unwrap_or_default()),
            Edit::Pod(_, Some(value)) | Edit::Container(_, _, value) | Edit::Service(_, _, value) => {
                let quoted = format!("\"{}\"", value.text());
                writer.put(
                    &annotations,
                    &annotation(edit).unwrap_or_default(),
                    Tree::Leaf(quoted),
                )?;
            }
        }
        text = writer.finish();
    }
    Ok(text)
}

fn path(base: &[String], rest: &[&str]) -> Vec<String> {
    base.iter()
        .cloned()
        .chain(rest.iter().map(|s| s.to_string()))
        .collect()
}

/// What to write under a key: a scalar, or a block of entries.
enum Tree {
    Leaf(String),
    Map(Vec<(String, Tree)>),
}

impl Tree {
    /// `key: …` at `indent` spaces, nested entries two deeper; no final newline.
    fn render(&self, key: &str, indent: usize) -> String {
        let pad = " ".repeat(indent);
        match self {
            Tree::Leaf(value) => format!("{pad}{key}: {value}"),
            Tree::Map(entries) => entries.iter().fold(format!("{pad}{key}:"), |out, (k, t)| {
                format!("{out}\n{}", t.render(k, indent + 2))
            }),
        }
    }
}

/// A new key that reads best before a sibling: `metadata` before `spec`
/// (as every manifest writes it), `initContainers` before `containers`.
fn before(key: &str) -> Option<&'static str> {
    match key {
        "metadata" => Some("spec"),
        "initContainers" => Some("containers"),
        _ => None,
    }
}

/// The replacements of one edit, made on the text as read.
struct Writer<'o> {
    outline: &'o Outline<'o>,
    text: &'o str,
    document: usize,
    out: Vec<(Range<usize>, String)>,
}

impl Writer<'_> {
    fn node(&self, path: &[String]) -> Option<Node> {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        self.outline.node(self.document, &path)
    }

    fn children(&self, path: &[String]) -> Vec<String> {
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        self.outline.children(self.document, &path)
    }

    fn line_start(&self, at: usize) -> usize {
        self.text[..at].rfind('\n').map_or(0, |i| i + 1)
    }

    /// Where the line of the byte before `end` ends (its `\n`, or the text's end).
    fn line_end(&self, end: usize) -> usize {
        let mut last = end.saturating_sub(1).min(self.text.len());
        while !self.text.is_char_boundary(last) {
            last -= 1;
        }
        self.text[last..].find('\n').map_or(self.text.len(), |i| last + i)
    }

    fn column(&self, at: usize) -> usize {
        self.text[self.line_start(at)..at].chars().count()
    }

    /// Refuses a node written on one line, which is not rewritten here.
    fn block(&self, path: &[String], node: &Node) -> Result<(), String> {
        if node.flow || node.scalar.is_some() {
            let written: String = self.text[node.value..].chars().take(30).collect();
            let written = written.lines().next().unwrap_or("");
            return Err(format!(
                "{} is written on one line ({written}…): write it as indented lines to use this what-if",
                path.join(".")
            ));
        }
        Ok(())
    }

    /// Sets `key` of the mapping at `map` to `tree`, adding the mapping
    /// (and its parents) when missing.
    fn put(&mut self, map: &[String], key: &str, tree: Tree) -> Result<(), String> {
        let Some(node) = self.node(map) else {
            let (parent, name) = map.split_at(map.len().saturating_sub(1));
            let name = name.first().ok_or("the document is empty")?;
            return self.put(parent, name, Tree::Map(vec![(key.into(), tree)]));
        };
        self.block(map, &node)?;
        let child = path(map, &[key]);
        if let Some(existing) = self.node(&child) {
            return match tree {
                Tree::Leaf(value) if existing.scalar.is_some() => {
                    self.out.push((existing.value..existing.last, value));
                    Ok(())
                }
                Tree::Map(entries) => entries.into_iter().try_for_each(|(k, t)| self.put(&child, &k, t)),
                Tree::Leaf(_) => Err(format!("{} is not a single value", child.join("."))),
            };
        }
        let children = self.children(map);
        let first = self.node(&path(map, &[&children[0]])).ok_or("an empty mapping")?;
        let rendered = tree.render(key, self.column(first.key.unwrap_or(first.value)));
        match before(key).filter(|b| children.iter().any(|c| c == b)) {
            Some(sibling) => {
                let next = self.node(&path(map, &[sibling])).ok_or("no sibling")?;
                let at = self.line_start(next.key.unwrap_or(next.value));
                self.out.push((at..at, format!("{rendered}\n")));
            }
            None => {
                let last = self
                    .node(&path(map, &[&children[children.len() - 1]]))
                    .ok_or("no entry")?;
                let at = self.line_end(last.last);
                self.out.push((at..at, format!("\n{rendered}")));
            }
        }
        Ok(())
    }

    /// Removes `key` of the mapping at `map` (its lines, when it has them to itself).
    fn remove(&mut self, map: &[String], key: &str) {
        if let Some(range) = self.node(&path(map, &[key])).map(|n| self.lines_of(&n)) {
            self.out.push((range, String::new()));
        }
    }

    /// The bytes of an entry: its whole lines and their newline when it
    /// starts its line, else from its key to its line's end.
    fn lines_of(&self, node: &Node) -> Range<usize> {
        let start = node.key.unwrap_or(node.value);
        let line = self.line_start(start);
        let end = self.line_end(node.last);
        match self.text[line..start].trim().is_empty() {
            true if end < self.text.len() => line..end + 1,
            true => line.saturating_sub(1)..end,
            false => start..end,
        }
    }

    /// The path of the container `name` of the Pod spec at `spec`.
    fn container(&self, spec: &[String], name: &str) -> Result<Vec<String>, String> {
        ["initContainers", "containers"]
            .iter()
            .map(|list| path(spec, &[list]))
            .flat_map(|list| self.children(&list).into_iter().map(move |i| path(&list, &[&i])))
            .find(|item| {
                self.node(&path(item, &["name"]))
                    .and_then(|n| n.scalar)
                    .as_deref()
                    == Some(name)
            })
            .ok_or_else(|| format!("no container \"{name}\" in the Pod template"))
    }

    /// The byte of the `-` before the sequence item that starts at `value`,
    /// when it is the first on its line.
    fn dash(&self, value: usize) -> Result<usize, String> {
        let before = self.text[..value].trim_end_matches(' ');
        let dash = before.strip_suffix('-').map(str::len);
        dash.filter(|&d| self.text[self.line_start(d)..d].trim().is_empty())
            .ok_or_else(|| "a container entry written in flow style".to_string())
    }

    /// Moves container `name` to `initContainers` as a native sidecar
    /// (last, so it starts after the init containers, before the apps) or
    /// to `containers` (first, where a classic sidecar stands).
    fn move_container(&mut self, spec: &[String], name: &str, to: ContainerKind) -> Result<(), String> {
        let item_path = self.container(spec, name)?;
        let from = item_path[..item_path.len() - 1].to_vec();
        let to_key = if to == ContainerKind::Sidecar {
            "initContainers"
        } else {
            "containers"
        };
        let target = path(spec, &[to_key]);
        let item = self.node(&item_path).ok_or("no container entry")?;
        self.block(&item_path, &item)?;
        let dash = self.dash(item.value)?;
        let (start, end) = (self.line_start(dash), self.line_end(item.last));
        // The entry's own text, its restartPolicy made a native sidecar's or dropped.
        let mut local = Vec::new();
        let policy = self.node(&path(&item_path, &["restartPolicy"]));
        match (to, policy) {
            (ContainerKind::Sidecar, Some(p)) => local.push((p.value..p.last, "Always".to_string())),
            (ContainerKind::Sidecar, None) => {
                let name_node = self.node(&path(&item_path, &["name"])).ok_or("no name")?;
                let at = self.line_end(name_node.last);
                let pad = " ".repeat(self.column(item.value));
                local.push((at..at, format!("\n{pad}restartPolicy: Always")));
            }
            (_, Some(p)) => local.push((self.lines_of(&p), String::new())),
            (_, None) => {}
        }
        let entry = splice(
            &self.text[start..end],
            local
                .into_iter()
                .map(|(r, s)| (r.start - start..r.end - start, s)),
        );
        let dash_column = self.column(dash);
        // Out of its list (the list's key too when it was the only entry).
        if self.children(&from).len() == 1 {
            let key = from.last().cloned().unwrap_or_default();
            self.remove(spec, &key);
        } else {
            let whole = self.lines_of(&Node {
                key: Some(dash),
                ..item.clone()
            });
            self.out.push((whole, String::new()));
        }
        match self.node(&target) {
            Some(list) => {
                self.block(&target, &list)?;
                let items = self.children(&target);
                let first = self.node(&path(&target, &[&items[0]])).ok_or("no entry")?;
                let first_dash = self.dash(first.value)?;
                let entry = reindent(&entry, dash_column, self.column(first_dash));
                if to == ContainerKind::Sidecar {
                    let last = self
                        .node(&path(&target, &[&items[items.len() - 1]]))
                        .ok_or("no entry")?;
                    let at = self.line_end(last.last);
                    self.out.push((at..at, format!("\n{entry}")));
                } else {
                    let at = self.line_start(first_dash);
                    self.out.push((at..at, format!("{entry}\n")));
                }
            }
            None => {
                let from_key = self.node(&from).and_then(|n| n.key).ok_or("no list key")?;
                let pad = " ".repeat(self.column(from_key));
                self.put_before(spec, to_key, &format!("{pad}{to_key}:\n{entry}"))?;
            }
        }
        Ok(())
    }

    /// Writes the lines `entry` (a key of `map`) before its preferred sibling.
    fn put_before(&mut self, map: &[String], key: &str, entry: &str) -> Result<(), String> {
        let sibling = before(key).ok_or("no place for it")?;
        let next = self.node(&path(map, &[sibling])).ok_or("no sibling")?;
        let at = self.line_start(next.key.unwrap_or(next.value));
        self.out.push((at..at, format!("{entry}\n")));
        Ok(())
    }

    /// The text with every replacement made.
    fn finish(self) -> String {
        splice(self.text, self.out)
    }
}

/// `text` with `replacements` (ranges of it, none overlapping) made; at
/// one offset a removal is made before an insertion.
fn splice(text: &str, replacements: impl IntoIterator<Item = (Range<usize>, String)>) -> String {
    let mut replacements: Vec<_> = replacements.into_iter().collect();
    replacements.sort_by_key(|(r, _)| std::cmp::Reverse((r.start, r.end)));
    let mut out = text.to_string();
    for (range, with) in replacements {
        out.replace_range(range, &with);
    }
    out
}

/// The lines of `entry` moved from column `from` to column `to`.
fn reindent(entry: &str, from: usize, to: usize) -> String {
    entry
        .split('\n')
        .map(|line| match to.cmp(&from) {
            std::cmp::Ordering::Greater => format!("{}{line}", " ".repeat(to - from)),
            _ => {
                let spaces = line.len() - line.trim_start_matches(' ').len();
                line[spaces.min(from - to)..].to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
