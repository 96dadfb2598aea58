//! The rooms' edges, read from their sources: which parts of `model` each
//! room's files name, so that an edge pointing up (to `run`) or sideways
//! (`pod` to `job`, `job` to `service`) fails a test instead of waiting
//! for the next reader to find the cycle.
//!
//! A room names another by path, `crate::model::<room>::…` or a
//! `super::…` chain long enough to leave it; both are resolved here from
//! the file's place (its module depth) and, inside a file, the inline
//! modules (`mod tests { … }`) a line sits in, which `cargo fmt` closes at
//! the indentation it opened them. Line comments are skipped: prose may
//! name any room. The flat re-exports (`crate::model::Metrics`) count as
//! naming `model` itself, which a room may not: they would hide the edge.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The parts of `model` (and, as `crate::<layer>`, of the crate outside
/// `engine`) that `source` names, for a file `depth` modules below `model`
/// (`pod/mod.rs` is 1, `pod/spec/run.rs` is 3). Paths that stay in the
/// file's own room are not listed.
fn edges(source: &str, depth: usize) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut open: Vec<usize> = Vec::new();
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or("");
        let indent = line.len() - line.trim_start().len();
        if open.last() == Some(&indent) && line.trim() == "}" {
            open.pop();
            continue;
        }
        let here = depth + open.len();
        for (at, _) in code.match_indices("crate::") {
            if at > 0 && is_ident(code[..at].chars().next_back()) {
                continue;
            }
            match segments(&code[at + "crate::".len()..]).as_slice() {
                [layer, ..] if layer == "engine" => {}
                [layer, room, ..] if layer == "model" => {
                    found.insert(room.clone());
                }
                [layer, ..] if layer == "model" => {
                    found.insert("model".into());
                }
                [layer, ..] => {
                    found.insert(format!("crate::{layer}"));
                }
                [] => {
                    found.insert("crate".into());
                }
            }
        }
        for (at, _) in code.match_indices("super::") {
            if at > 0 && (is_ident(code[..at].chars().next_back()) || code[..at].ends_with("::")) {
                continue;
            }
            let mut rest = &code[at..];
            let mut ups = 0;
            while let Some(next) = rest.strip_prefix("super::") {
                (rest, ups) = (next, ups + 1);
            }
            let after = segments(rest);
            match here.checked_sub(ups) {
                Some(0) => {
                    found.insert(after.first().cloned().unwrap_or_else(|| "model".into()));
                }
                Some(_) => {}
                None => {
                    found.insert("crate".into());
                }
            }
        }
        let opens = code
            .trim_start()
            .trim_start_matches("pub ")
            .trim_start_matches("pub(crate) ");
        if opens.starts_with("mod ") && code.trim_end().ends_with('{') {
            open.push(indent);
        }
    }
    found
}

fn is_ident(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$')
}

/// The path segments at the start of `rest`: `pod::spec::{A, B}` gives
/// `pod`, `spec`, `{`; a group or glob ends the path.
fn segments(rest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = rest;
    loop {
        let ident: String = rest.chars().take_while(|&c| is_ident(Some(c))).collect();
        if ident.is_empty() {
            if let Some(c) = rest.chars().next().filter(|c| matches!(c, '{' | '*')) {
                out.push(c.to_string());
            }
            return out;
        }
        rest = &rest[ident.len()..];
        out.push(ident);
        match rest.strip_prefix("::") {
            Some(next) => rest = next,
            None => return out,
        }
    }
}

/// Every `.rs` file under `dir` (or `dir` itself, a file), with its depth
/// below `src/model`.
fn sources(model: &Path, dir: &Path, files: &mut Vec<(PathBuf, usize)>) {
    if dir.is_file() {
        let parts = dir.strip_prefix(model).unwrap().components().count();
        let depth = parts - usize::from(dir.ends_with("mod.rs"));
        files.push((dir.to_path_buf(), depth));
        return;
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        sources(model, &entry.unwrap().path(), files);
    }
}

const GROUND: [&str; 4] = ["dist", "draw", "version", "words"];

/// What each room of `model` names: the Pod only the shared ground,
/// the Job and the Service the Pod besides; none names `run`, each
/// other, the flat re-exports or a layer above.
#[test]
fn every_room_names_only_the_rooms_below_it() {
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/model");
    for (room, below) in [
        ("pod", &[][..]),
        ("job", &["pod"][..]),
        ("service", &["pod"][..]),
        ("dist.rs", &[][..]),
        ("draw.rs", &[][..]),
        ("version.rs", &[][..]),
        ("words.rs", &[][..]),
    ] {
        let own = room.trim_end_matches(".rs");
        let mut files = Vec::new();
        sources(&model, &model.join(room), &mut files);
        assert!(!files.is_empty(), "{room}");
        for (file, depth) in files {
            let source = std::fs::read_to_string(&file).unwrap();
            let named = edges(&source, depth);
            let wrong: Vec<_> = (named.iter())
                .filter(|n| *n != own && !GROUND.contains(&n.as_str()) && !below.contains(&n.as_str()))
                .collect();
            assert!(wrong.is_empty(), "{} names {wrong:?}", file.display());
        }
    }
}

/// The reading itself, on sources written for it: each way of naming
/// a room is found, at the depth that makes it one.
#[test]
fn paths_are_resolved_from_the_file_and_its_inline_modules() {
    let named = |source: &str, depth| edges(source, depth).into_iter().collect::<Vec<_>>();
    // In `service/mod.rs`, one `super` is `model`; in `service/app.rs`
    // it is the room, and two are `model`.
    assert_eq!(named("use super::run::RunSpec;\n", 1), ["run"]);
    assert_eq!(named("use super::app::Replica;\n", 2), Vec::<String>::new());
    assert_eq!(named("use super::super::run::RunSpec;\n", 2), ["run"]);
    assert_eq!(named("use super::super::super::x;\n", 2), ["crate"]);
    // A test module is one deeper: its `super` is the file.
    let tests = "#[cfg(test)]\nmod tests {\n    use super::*;\n    use super::super::job::JobSpec;\n}\nuse super::{a, b};\n";
    assert_eq!(named(tests, 1), ["job", "{"]);
    assert_eq!(named(tests, 2), Vec::<String>::new());
    // Absolute paths: a room, the flat re-exports, a layer above.
    let absolute = "use crate::model::pod::spec::PodRun;\nlet m: crate::model::Metrics;\nuse crate::engine::SimTime;\nuse crate::scenario::Scenario;\n";
    assert_eq!(named(absolute, 3), ["Metrics", "crate::scenario", "pod"]);
    // Comments and `pub(super)` name nothing.
    assert_eq!(
        named(
            "// see crate::model::run\npub(super) fn f() {} // super::run\n",
            1
        ),
        Vec::<String>::new()
    );
}
