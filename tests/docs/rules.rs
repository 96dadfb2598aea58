//! Every kubelet rule that code or a test cites by number (`R36`,
//! `R43–R45`) has its entry, `**R36.`, in `docs/kubelet-rules.md`: a
//! citation is only worth its number if a reader can look it up.

use super::markdown::root;

#[test]
fn every_rule_cited_in_src_and_tests_is_written_down_in_docs() {
    let rules = std::fs::read_to_string(root().join("docs/kubelet-rules.md")).unwrap();
    let mut missing = Vec::new();
    for folder in ["src", "tests"] {
        for file in rust_files(&root().join(folder)) {
            let text = std::fs::read_to_string(&file).unwrap();
            for (line, rule) in cited(&text) {
                if !rules.contains(&format!("\n**R{rule}. ")) {
                    let path = file.strip_prefix(root()).unwrap().display();
                    missing.push(format!("{path}:{line}: R{rule}"));
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "cited but not in docs/kubelet-rules.md:\n{}",
        missing.join("\n")
    );
}

#[test]
fn citations_are_read_with_their_ranges() {
    let text = "// R4–R6, R9-R10 and R14–16; not PR12, R2D2, r7 or R3x\n(R51)";
    let rules: Vec<u32> = cited(text).into_iter().map(|(_, rule)| rule).collect();
    assert_eq!(rules, [4, 5, 6, 9, 10, 14, 15, 16, 51]);
}

/// Every `.rs` file under `folder`, at any depth.
fn rust_files(folder: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// The rule numbers a text cites, with their lines: `R<n>` standing alone
/// (not inside a word), and every number of a range `R<a>–R<b>` (or
/// `R<a>–<b>`, with an en dash or a hyphen).
fn cited(text: &str) -> Vec<(usize, u32)> {
    let mut rules = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let bytes = line.as_bytes();
        let mut at = 0;
        while let Some(found) = line[at..].find('R').map(|r| r + at) {
            at = found + 1;
            let word_before =
                found > 0 && (bytes[found - 1].is_ascii_alphanumeric() || bytes[found - 1] == b'_');
            let Some((first, after)) = number(line, found + 1) else {
                continue;
            };
            if word_before || line[after..].starts_with(|c: char| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let mut last = first;
            for dash in ["–R", "-R", "–", "-"] {
                if let Some((end, past)) = line[after..]
                    .strip_prefix(dash)
                    .and_then(|_| number(line, after + dash.len()))
                    && !line[past..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
                    && end > first
                {
                    last = end;
                    at = past;
                    break;
                }
            }
            rules.extend((first..=last).map(|rule| (i + 1, rule)));
        }
    }
    rules
}

/// The decimal number starting at byte `from` of `line`, and the byte after it.
fn number(line: &str, from: usize) -> Option<(u32, usize)> {
    let digits = line[from..].bytes().take_while(u8::is_ascii_digit).count();
    let value = line.get(from..from + digits)?.parse().ok()?;
    Some((value, from + digits))
}
