//! A what-if's edits written into a TOML scenario, line by line: a key of
//! a table (`[pod]`, `[traffic]`) or of the `[[containers]]` entry with a
//! given name, replaced where it is or added under the table's header (a
//! missing table is added at the end). Every other line, comments
//! included, stays as written.

use super::{Edit, Scalar};

/// `text` with `edits` applied.
pub fn apply(text: &str, edits: &[Edit]) -> Result<String, String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for edit in edits {
        match edit {
            Edit::Pod(key, value) => set_in_table(&mut lines, "pod", key, value.as_ref()),
            Edit::Service(table, key, value) => set_in_table(&mut lines, table, key, Some(value)),
            Edit::Container(name, key, value) => set_in_container(&mut lines, name, key, value)?,
            Edit::Layout(name, kind) => {
                set_in_container(&mut lines, name, "kind", &Scalar::Text(kind.name().into()))?
            }
            Edit::PreStop(name, seconds) => {
                set_in_container(&mut lines, name, "pre_stop", &Scalar::Text(format!("{seconds}s")))?
            }
        }
    }
    let mut edited = lines.join("\n");
    if text.ends_with('\n') {
        edited.push('\n');
    }
    Ok(edited)
}

fn line(key: &str, value: &Scalar) -> String {
    match value {
        Scalar::Text(t) => format!("{key} = \"{t}\""),
        Scalar::Number(n) => format!("{key} = {n}"),
    }
}

/// A line's table header (`pod` of `[pod]`, `[[containers]]` as is), if it is one.
fn header(line: &str) -> Option<&str> {
    let t = line.split('#').next().unwrap_or("").trim();
    match t.strip_prefix("[[") {
        Some(_) => Some(t),
        None => t.strip_prefix('[')?.strip_suffix(']').map(str::trim),
    }
}

/// The key a `key = value` line sets, if it is one.
fn key_of(line: &str) -> Option<&str> {
    let (key, _) = line.split_once('=')?;
    let key = key.trim();
    (!key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))).then_some(key)
}

/// The lines of the table that starts at `start` (its header): up to the next header.
fn body(lines: &[String], start: usize) -> std::ops::Range<usize> {
    let end = (start + 1..lines.len())
        .find(|&i| header(&lines[i]).is_some())
        .unwrap_or(lines.len());
    start + 1..end
}

/// Sets (or, with `None`, removes) `key` in `[table]`.
fn set_in_table(lines: &mut Vec<String>, table: &str, key: &str, value: Option<&Scalar>) {
    let Some(start) = lines.iter().position(|l| header(l) == Some(table)) else {
        if let Some(value) = value {
            if lines.last().is_some_and(|l| !l.trim().is_empty()) {
                lines.push(String::new());
            }
            lines.extend([format!("[{table}]"), line(key, value)]);
        }
        return;
    };
    let found = body(lines, start).find(|&i| key_of(&lines[i]) == Some(key));
    match (found, value) {
        (Some(i), Some(value)) => lines[i] = line(key, value),
        (Some(i), None) => {
            lines.remove(i);
        }
        (None, Some(value)) => lines.insert(start + 1, line(key, value)),
        (None, None) => {}
    }
}

/// Sets `key` in the `[[containers]]` entry named `name`, after its name.
fn set_in_container(lines: &mut Vec<String>, name: &str, key: &str, value: &Scalar) -> Result<(), String> {
    let named = line("name", &Scalar::Text(name.into()));
    let entry = (0..lines.len())
        .filter(|&i| header(&lines[i]) == Some("[[containers]]"))
        .map(|start| body(lines, start))
        .find(|range| {
            range
                .clone()
                .any(|i| lines[i].trim() == named || value_of(&lines[i], "name") == Some(name))
        })
        .ok_or_else(|| format!("no [[containers]] entry with name = \"{name}\" to edit"))?;
    match entry.clone().find(|&i| key_of(&lines[i]) == Some(key)) {
        Some(i) => lines[i] = line(key, value),
        None => {
            let after = entry
                .clone()
                .find(|&i| key_of(&lines[i]) == Some("name"))
                .unwrap_or(entry.start - 1);
            lines.insert(after + 1, line(key, value));
        }
    }
    Ok(())
}

/// The string value of `key` on a `key = "value"` line.
fn value_of<'l>(line: &'l str, key: &str) -> Option<&'l str> {
    let (k, v) = line.split_once('=')?;
    let v = v.split('#').next()?.trim();
    (k.trim() == key).then(|| v.trim_matches(['"', '\'']))
}

#[cfg(test)]
mod tests {
    use super::*;
    use podsim::model::ContainerKind;

    const SEED: &str = "name = \"x\"\n\n[pod]\nstop_after_ready = \"2s\"\n\n[[containers]]\nname = \"proxy\" # the mesh\nkind = \"sidecar\"\nboot = \"3s\"\n\n[[containers]]\nname = \"web\"\nkind = \"app\"\n";

    #[test]
    fn keys_are_set_where_they_are_and_added_under_their_name_or_header() {
        let edits = [
            Edit::Pod("stop_at", Some(Scalar::Text("3.5s".into()))),
            Edit::Pod("stop_after_ready", None),
            Edit::Layout("proxy".into(), ContainerKind::App),
            Edit::Container("web".into(), "fails", Scalar::Number(1)),
            Edit::Service("traffic", "connections", Scalar::Text("keep-alive".into())),
        ];
        assert_eq!(
            apply(SEED, &edits).unwrap(),
            "name = \"x\"\n\n[pod]\nstop_at = \"3.5s\"\n\n[[containers]]\nname = \"proxy\" # the mesh\nkind = \"app\"\nboot = \"3s\"\n\n[[containers]]\nname = \"web\"\nfails = 1\nkind = \"app\"\n\n[traffic]\nconnections = \"keep-alive\"\n"
        );
    }

    #[test]
    fn a_container_that_is_not_there_is_said() {
        let e = apply(SEED, &[Edit::Container("db".into(), "fails", Scalar::Number(1))]).unwrap_err();
        assert!(e.contains("name = \"db\""), "{e}");
    }
}
