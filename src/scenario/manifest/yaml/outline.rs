//! Where a manifest's workloads and their nodes were written, for a tool
//! that edits the manifest as text (the page's what-ifs add an annotation
//! or move a container) and must keep the user's comments and layout.
//!
//! Why here: the positions are the ones the manifest reader records while
//! it parses (`Stream`), and a workload is what `parse_all` takes for one
//! (`classify`), so an editor and the reader never disagree on either.

use super::document::{SEP, join};
use super::{Stream, Syntax};
use crate::scenario::diagnostic::Diagnostic;
use crate::scenario::manifest::{Class, WorkloadKind, classify, objects};

/// A manifest's workloads, in the order written, and its nodes' places.
pub struct Outline<'a> {
    stream: Stream<'a>,
    workloads: Vec<Placed>,
}

/// One workload object of a manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placed {
    /// Its kind.
    pub kind: WorkloadKind,
    /// Its `metadata.name` (else `generateName`), as a scenario is named.
    pub name: Option<String>,
    /// The document (YAML's `---`, or one value of a JSON stream) it is in.
    pub document: usize,
    /// The path of its Pod template from the document's root (a `List`'s
    /// item first: `items`, `0`, `spec`, `template`).
    pub template: Vec<String>,
}

/// Where one node was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    /// Byte of its key, for a mapping's entry.
    pub key: Option<usize>,
    /// Byte where its value starts (a sequence item's, after its `- `).
    pub value: usize,
    /// Byte just past the last character it holds: its closing bracket
    /// when written in flow style (`{…}`, `[…]`), else its last scalar's
    /// end, so that comments and blank lines after it are not its own.
    pub last: usize,
    /// Written in flow style (JSON is all flow).
    pub flow: bool,
    /// Its text, when it is a scalar.
    pub scalar: Option<String>,
}

impl<'a> Outline<'a> {
    /// Reads `text` as the manifest reader does; its errors are the reader's.
    pub fn parse(text: &'a str, syntax: Syntax) -> Result<Self, Diagnostic> {
        let stream = Stream::parse(text, "request", syntax)?;
        let objects = objects(&stream);
        let single = objects.len() == 1;
        let mut workloads = Vec::new();
        for object in &objects {
            if let Class::Workload(kind) = classify(&stream, object, single) {
                let name = object
                    .scalar(&["metadata", "name"])
                    .or_else(|| object.scalar(&["metadata", "generateName"]));
                let document = stream
                    .documents
                    .iter()
                    .position(|d| std::ptr::eq(d, object.doc))
                    .unwrap_or_default();
                workloads.push(Placed {
                    kind,
                    name: name.map(str::to_string),
                    document,
                    template: object.at(kind.template()).iter().map(|s| s.to_string()).collect(),
                });
            }
        }
        Ok(Outline { stream, workloads })
    }

    /// The workload objects, in the order written.
    pub fn workloads(&self) -> &[Placed] {
        &self.workloads
    }

    /// The text it was read from.
    pub fn text(&self) -> &'a str {
        self.stream.text
    }

    /// The node at `path` (from the root) of document `document`, if written.
    pub fn node(&self, document: usize, path: &[&str]) -> Option<Node> {
        let doc = self.stream.documents.get(document)?;
        let joined = join(path);
        let place = doc.places.get(&joined)?;
        let text = self.stream.text;
        let is_flow = |value: usize| text[value.min(text.len())..].starts_with(['{', '[']);
        let below = format!("{joined}{SEP}");
        let last = doc
            .places
            .iter()
            .filter(|(p, _)| path.is_empty() || **p == joined || p.starts_with(&below))
            .filter(|(_, q)| q.scalar.is_some() || is_flow(q.value))
            .map(|(_, q)| q.end)
            .max()
            .unwrap_or(place.end);
        Some(Node {
            key: place.key,
            value: place.value,
            last,
            flow: is_flow(place.value),
            scalar: place.scalar.clone(),
        })
    }

    /// The keys of the mapping at `path` (or the indexes of the sequence),
    /// in the order written.
    pub fn children(&self, document: usize, path: &[&str]) -> Vec<String> {
        let Some(doc) = self.stream.documents.get(document) else {
            return Vec::new();
        };
        let prefix = match path {
            [] => String::new(),
            _ => format!("{}{SEP}", join(path)),
        };
        let mut found: Vec<(usize, String)> = doc
            .places
            .iter()
            .filter_map(|(p, place)| {
                let name = p.strip_prefix(&prefix)?;
                (!name.is_empty() && !name.contains(SEP))
                    .then(|| (place.key.unwrap_or(place.value), name.to_string()))
            })
            .collect();
        found.sort();
        found.into_iter().map(|(_, name)| name).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "\
# a comment
apiVersion: v1
kind: Pod
metadata:
  name: one
spec:
  containers:
  - name: web   # the app
    image: nginx
---
kind: Service
apiVersion: v1
metadata: {name: svc}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: two
spec:
  template:
    spec:
      containers: [{name: app, image: x}]
";

    #[test]
    fn each_workload_is_found_with_its_template_and_the_rest_is_not() {
        let outline = Outline::parse(TWO, Syntax::Yaml).unwrap();
        let found: Vec<(WorkloadKind, Option<&str>, usize, Vec<String>)> = outline
            .workloads()
            .iter()
            .map(|w| (w.kind, w.name.as_deref(), w.document, w.template.clone()))
            .collect();
        assert_eq!(
            found,
            vec![
                (WorkloadKind::Pod, Some("one"), 0, vec![]),
                (
                    WorkloadKind::Deployment,
                    Some("two"),
                    2,
                    vec!["spec".to_string(), "template".to_string()]
                ),
            ]
        );
    }

    #[test]
    fn a_block_node_ends_at_its_last_scalar_and_a_flow_one_at_its_bracket() {
        let outline = Outline::parse(TWO, Syntax::Yaml).unwrap();
        let item = outline.node(0, &["spec", "containers", "0"]).unwrap();
        // The item's mapping starts at `name`, after its `- `, and ends
        // after `nginx`, before the newline (the comment is on `name`'s line).
        assert_eq!(&TWO[item.value..item.value + 4], "name");
        assert_eq!(&TWO[item.last - 5..=item.last], "nginx\n");
        assert!(!item.flow);
        let name = outline.node(0, &["spec", "containers", "0", "name"]).unwrap();
        assert_eq!(name.scalar.as_deref(), Some("web"));
        assert_eq!(&TWO[name.key.unwrap()..name.value], "name: ");
        let flow = outline
            .node(2, &["spec", "template", "spec", "containers"])
            .unwrap();
        assert!(flow.flow);
        assert_eq!(&TWO[flow.value..flow.last], "[{name: app, image: x}]");
        assert_eq!(
            outline.children(0, &["spec", "containers", "0"]),
            vec!["name", "image"]
        );
        assert_eq!(
            outline.children(0, &[]),
            vec!["apiVersion", "kind", "metadata", "spec"]
        );
    }
}
