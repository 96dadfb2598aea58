//! The seed corpus, read from the repository each time so it never goes
//! stale: the bundled scenarios, grids and manifests, the results' CSV and
//! manifest, and the inline texts of the tests and unit tests (string
//! literals that look like one of podsim's inputs).
//!
//! Invariant: every seed of a target is an input that target reads: texts
//! are classified by the markers their format cannot do without.

use std::path::{Path, PathBuf};

use super::targets::Target;

/// A CSV seed keeps this many lines: enough for every column and both
/// layouts, small enough that the plot of a mutant is quick to draw.
const CSV_LINES: usize = 40;

/// The seeds of `target`, each a whole input, in a fixed order.
pub fn seeds(target: Target, repo: &Path) -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = match target {
        Target::CsvTable => files(repo, &["results"], "csv")
            .iter()
            .map(|p| head(&read(p), CSV_LINES))
            .collect(),
        Target::Merge => merge_seeds(repo),
        Target::Checkpoint => checkpoint_seeds(),
        _ => files(repo, &["scenarios", "benches/grids", "tests/manifests"], "")
            .iter()
            .map(|p| read(p))
            .filter(|bytes| kind_of(&String::from_utf8_lossy(bytes)) == Some(target))
            .collect(),
    };
    if target == Target::Manifest {
        let shapes = manifest_shapes(&seeds);
        seeds.extend(shapes);
    }
    for text in inline_texts(repo) {
        match kind_of(&text) {
            Some(kind) if kind == target => seeds.push(text.into_bytes()),
            // Axis lines of a test's grid, which the test puts under its own base.
            None if target == Target::GridToml && text.trim_start().starts_with("\"containers.") => {
                seeds.push(format!("base = \"seed-sidecar.toml\"\n[axes]\n{text}").into_bytes())
            }
            _ => {}
        }
    }
    seeds.sort();
    seeds.dedup();
    seeds
}

/// Which target a text is an input of, if any.
fn kind_of(text: &str) -> Option<Target> {
    let has = |marker: &str| text.contains(marker);
    if has("apiVersion") {
        Some(Target::Manifest)
    } else if has("[axes]") {
        Some(Target::GridToml)
    } else if has("[[containers]]") {
        Some(Target::ScenarioToml)
    } else if has("[containers.") || text.trim_start().starts_with("[pod]") {
        Some(Target::TimingsToml)
    } else if text.starts_with("run,") {
        Some(Target::CsvTable)
    } else {
        None
    }
}

/// The bundled manifests in the other shapes the reader takes, made from
/// them at each run so they never go stale: each as JSON (as `kubectl get
/// -o json` prints it), every document of them as one `List` (in YAML and
/// in JSON), and all of them as one multi-document stream.
fn manifest_shapes(yaml: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let mut items = Vec::new();
    let mut shapes = Vec::new();
    for text in yaml {
        let text = String::from_utf8_lossy(text);
        let Ok(documents) = serde_saphyr::from_multiple::<serde_json::Value>(&text) else {
            continue; // A JSON seed, or a document YAML reads differently.
        };
        let documents: Vec<serde_json::Value> = documents.into_iter().filter(|d| !d.is_null()).collect();
        for document in &documents {
            shapes.push(serde_json::to_vec_pretty(document).expect("a value serializes"));
        }
        items.extend(documents);
    }
    let list = serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items, "metadata": {}});
    shapes.push(serde_json::to_vec_pretty(&list).expect("a value serializes"));
    // The same List in YAML's block style: each document an item, indented.
    let mut block = String::from("apiVersion: v1\nkind: List\nitems:\n");
    for text in yaml {
        let text = String::from_utf8_lossy(text);
        for document in text.split("\n---").filter(|d| d.contains("kind:")) {
            let lines = document
                .lines()
                .filter(|l| !l.trim().is_empty() && !l.starts_with('#') && *l != "---");
            for (i, line) in lines.enumerate() {
                block.push_str(if i == 0 { "- " } else { "  " });
                block.push_str(line);
                block.push('\n');
            }
        }
    }
    shapes.push(block.into_bytes());
    let stream: Vec<u8> = yaml
        .iter()
        .flat_map(|t| [b"---\n".as_slice(), t].concat())
        .collect();
    shapes.push(stream);
    shapes
}

/// What a sweep of the checkpoint grid stopped after each of its runs
/// leaves (`checkpoint \0 csv \0 summary`), the partial files with rows
/// after the checkpoint in every other one, as a lost machine leaves them.
fn checkpoint_seeds() -> Vec<Vec<u8>> {
    use podsim::sweep::checkpoint::Checkpoint;
    use podsim::sweep::{Output, Tally};
    let grid = super::targets::checkpoint_grid();
    let (csv, summary) = super::targets::whole_sweep(&grid);
    // The bytes of the header and of the rows of the runs before `next`,
    // each row's first cell being its run.
    let cut = |file: &[u8], next: u64| -> usize {
        let lines = file.split_inclusive(|&b| b == b'\n');
        let kept = lines.take_while(|l| {
            let run = String::from_utf8_lossy(l.split(|&b| b == b',').next().unwrap_or_default());
            run == "run" || run.parse::<u64>().is_ok_and(|r| r < next)
        });
        kept.map(<[u8]>::len).sum()
    };
    (0..=grid.runs())
        .map(|next| {
            let (c, s) = (cut(&csv, next), cut(&summary, next));
            let written = |file: &[u8], len: usize| {
                Tally::read(&mut &file[..], len as u64)
                    .expect("a prefix")
                    .written()
            };
            let output = Output {
                csv: written(&csv, c),
                summary: Some(written(&summary, s)),
            };
            let checkpoint = Checkpoint::new(&grid, 0..grid.runs(), None, next, &output);
            let tail = if next % 2 == 1 { csv.len() } else { c };
            let mut input = serde_json::to_vec_pretty(&checkpoint).expect("a checkpoint serializes");
            input.push(0);
            input.extend_from_slice(&csv[..tail]);
            input.push(0);
            input.extend_from_slice(&summary[..s]);
            input
        })
        .collect()
}

/// Shards as the merge target reads them (`manifest \0 csv ...`): the
/// bundled sweep cut to its first rows as one whole shard, and as two.
fn merge_seeds(repo: &Path) -> Vec<Vec<u8>> {
    let results = repo.join("results");
    let manifest: serde_json::Value =
        serde_json::from_slice(&read(&results.join("seed-sweep.csv.manifest.json")))
            .expect("the bundled manifest is JSON");
    let csv = head(&read(&results.join("seed-sweep.csv")), CSV_LINES);
    let lines: Vec<&[u8]> = csv.split_inclusive(|&b| b == b'\n').collect();
    let (header, rows) = (lines[0], &lines[1..]);
    let runs = rows.len() as u64;
    let shard = |first: usize, end: usize, label: Option<String>| {
        let mut body = header.to_vec();
        rows[first..end].iter().for_each(|r| body.extend_from_slice(r));
        let mut m = manifest.clone();
        m["runs_total"] = runs.into();
        m["first_run"] = first.into();
        m["end_run"] = end.into();
        m["shard"] = label.into();
        m["bytes"] = body.len().into();
        let digest = <sha2::Sha256 as sha2::Digest>::digest(&body);
        m["csv_sha256"] = digest
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
            .into();
        let mut input = serde_json::to_vec_pretty(&m).expect("a manifest serializes");
        input.push(0);
        input.extend_from_slice(&body);
        input
    };
    let half = rows.len() / 2;
    let whole = shard(0, rows.len(), None);
    let mut halves = shard(0, half, Some("0/2".into()));
    halves.push(0);
    halves.extend(shard(half, rows.len(), Some("1/2".into())));
    vec![whole, halves]
}

/// String literals of the Rust sources under `tests/` and `src/` that hold
/// a line break: the inline scenarios, manifests, grids and CSV of the tests.
fn inline_texts(repo: &Path) -> Vec<String> {
    files(repo, &["tests", "src"], "rs")
        .iter()
        .flat_map(|p| string_literals(&String::from_utf8_lossy(&read(p))))
        .filter(|s| s.contains('\n'))
        .collect()
}

/// The contents of the string literals in Rust source: `"..."` (see
/// `quoted`) and raw `r"..."`, `r#"..."#`. Character literals and comments are skipped well
/// enough for test files; a literal misread only adds a useless seed.
fn string_literals(source: &str) -> Vec<String> {
    let bytes = source.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                i = source[i..].find('\n').map_or(bytes.len(), |n| i + n);
            }
            b'\'' => {
                // A char literal ('"', '\'') or a lifetime: skip past the closing quote if near.
                let close = bytes[i + 1..].iter().take(4).position(|&b| b == b'\'');
                i += close.map_or(1, |n| n + 2);
            }
            b'r' if matches!(bytes.get(i + 1), Some(b'"' | b'#'))
                && !is_ident(bytes.get(i.wrapping_sub(1))) =>
            {
                let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
                let open = i + 1 + hashes;
                if bytes.get(open) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let end = source[open + 1..]
                    .find(&close)
                    .map_or(bytes.len(), |n| open + 1 + n);
                found.push(source[open + 1..end].to_string());
                i = end + close.len();
            }
            b'"' => {
                let (text, end) = quoted(source, i + 1);
                found.push(text);
                i = end;
            }
            _ => i += 1,
        }
    }
    found
}

/// The text of the `"..."` literal whose contents start at byte `start`,
/// and the index just past its closing quote.
fn quoted(source: &str, start: usize) -> (String, usize) {
    let mut text = String::new();
    let mut i = start;
    while let Some(c) = source[i..].chars().next() {
        i += c.len_utf8();
        match c {
            '"' => return (text, i),
            '\\' => {
                let Some(escaped) = source[i..].chars().next() else {
                    break;
                };
                i += escaped.len_utf8();
                match escaped {
                    'n' => text.push('\n'),
                    't' => text.push('\t'),
                    // A line continuation: the break and the indentation vanish.
                    '\n' => i += source[i..].len() - source[i..].trim_start().len(),
                    other => text.push(other),
                }
            }
            c => text.push(c),
        }
    }
    (text, source.len())
}

fn is_ident(byte: Option<&u8>) -> bool {
    byte.is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
}

/// Files under `dirs` of `repo` whose name ends in `ext` ("" for any), sorted.
fn files(repo: &Path, dirs: &[&str], ext: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack: Vec<PathBuf> = dirs.iter().map(|d| repo.join(d)).collect();
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| ext.is_empty() || e == ext) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The first `lines` lines of `bytes`.
fn head(bytes: &[u8], lines: usize) -> Vec<u8> {
    bytes
        .split_inclusive(|&b| b == b'\n')
        .take(lines)
        .flatten()
        .copied()
        .collect()
}
