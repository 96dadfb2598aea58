//! Every relative link of the front page and the guide leads to a file or
//! folder of the repository, and every `#anchor` to a heading of its page:
//! a section moved or renamed breaks here, not in a reader's browser.

use super::markdown::{anchors, links, pages, root};

#[test]
fn every_relative_link_and_anchor_of_the_guide_resolves() {
    let pages = pages();
    let mut broken = Vec::new();
    for page in &pages {
        let folder = page.path.parent().unwrap();
        for link in links(&page.text) {
            let target = link.target.as_str();
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
            let path = if file.is_empty() {
                page.path.clone()
            } else {
                normalise(&folder.join(file))
            };
            let at = format!("{}:{}: {target}", page.path.display(), link.line);
            if !root().join(&path).exists() {
                broken.push(format!("{at}: no file {}", path.display()));
                continue;
            }
            if anchor.is_empty() || path.extension().is_none_or(|ext| ext != "md") {
                continue;
            }
            let text = std::fs::read_to_string(root().join(&path)).unwrap();
            if !anchors(&text).iter().any(|a| a == anchor) {
                broken.push(format!("{at}: no heading #{anchor} in {}", path.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

/// `docs/../results/x.svg` as `results/x.svg`; a link that climbs out of
/// the repository keeps its `..` and is reported as missing.
fn normalise(path: &std::path::Path) -> std::path::PathBuf {
    let mut out = std::path::PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir if out.file_name().is_some() => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn anchors_are_made_as_github_makes_them() {
    let text = "# `podsim serve`: the what-if page\n\
                ## Drains and PodDisruptionBudgets: what a PDB really protects\n\
                ```toml\n# not a heading\n```\n\
                ## Actions during a run (`[[actions]]`)\n\
                ### R51 onwards: podsim's additions\n\
                ## Notes\n## Notes\n";
    assert_eq!(
        anchors(text),
        [
            "podsim-serve-the-what-if-page",
            "drains-and-poddisruptionbudgets-what-a-pdb-really-protects",
            "actions-during-a-run-actions",
            "r51-onwards-podsims-additions",
            "notes",
            "notes-1",
        ]
    );
}
