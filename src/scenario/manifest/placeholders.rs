//! Placeholders left in a manifest copied from a guide (`<YOUR-PROJECT>`,
//! `<INSTANCE_CONNECTION_NAME>`, `<your-namespace>`), found in the whole
//! file at once so that they are filled in one edit, not one per run.
//!
//! Where one sits decides what is said. In a name (`name:`,
//! `namespace:`, `serviceAccountName:`...) the API server refuses the
//! object, and in an `image:` the kubelet never starts the container
//! (`InvalidImageName`): the file is refused, with every placeholder of it
//! listed. Elsewhere (args, env values, annotations) Kubernetes runs the Pod
//! as written and podsim does not read those fields, so the run stands and
//! one notice lists them.

use super::yaml::Stream;
use crate::scenario::{Diagnostic, line_col};

/// The keys whose values Kubernetes validates as names or image references.
const REFUSED_IN: [&str; 6] = [
    "name",
    "generateName",
    "namespace",
    "serviceAccountName",
    "serviceAccount",
    "image",
];

/// One placeholder: its byte offset, its text, and whether it sits in a
/// value Kubernetes refuses it in.
struct Placeholder<'t> {
    at: usize,
    text: &'t str,
    refused: bool,
}

/// The file refused for its placeholders (`Err`), or the one notice
/// naming them (`Ok(None)`: there is none).
pub(super) fn check(stream: &Stream) -> Result<Option<Diagnostic>, Diagnostic> {
    let found = find(stream.text);
    let Some(first) = found.first() else {
        return Ok(None);
    };
    let listed: Vec<String> = found
        .iter()
        .map(|p| format!("line {} `{}`", line_col(stream.text, p.at).0, p.text))
        .collect();
    let s = if found.len() == 1 { "" } else { "s" };
    let listed = format!("{} placeholder{s} to fill in: {}", found.len(), listed.join(", "));
    match found.iter().find(|p| p.refused) {
        Some(refused) => Err(stream.error(
            refused.at,
            format!(
                "{listed}; Kubernetes refuses one in a name, and the kubelet one in an image \
                 (InvalidImageName): write the real values"
            ),
        )),
        None => Ok(Some(
            stream
                .error(
                    first.at,
                    format!(
                        "{listed}; podsim does not read these fields, so the run is the same, but write \
                         the real values before kubectl apply"
                    ),
                )
                .warning(),
        )),
    }
}

/// Every placeholder of `text` outside comments, in order.
fn find(text: &str) -> Vec<Placeholder<'_>> {
    let mut found = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let code = match line.trim_start().starts_with('#') {
            true => "",
            false => line.split(" #").next().unwrap_or(line),
        };
        let key = code.trim_start().trim_start_matches("- ").trim_start();
        let key = key
            .split(':')
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(['"', '\'']);
        let refused = REFUSED_IN.contains(&key);
        let mut from = 0;
        while let Some(open) = code[from..].find('<').map(|i| from + i) {
            from = open + 1;
            let Some(len) = code[from..].find('>') else { break };
            let inner = &code[from..from + len];
            if is_placeholder(inner) && !code[..open].ends_with('<') {
                found.push(Placeholder {
                    at: start + open,
                    text: &code[open..from + len + 1],
                    refused,
                });
                from += len + 1;
            }
        }
        start += line.len();
    }
    found
}

/// `YOUR-PROJECT`, `PROJECT_ID`, `your-namespace`: a word of letters,
/// digits, `-`, `_` and `.`, starting with a letter, in capitals or with a
/// `-` or `_` (so `<br>` in an HTML snippet or `<<EOF` in a script is not).
fn is_placeholder(inner: &str) -> bool {
    let word = inner.starts_with(|c: char| c.is_ascii_alphabetic())
        && inner
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    let capitals = inner.len() >= 2 && !inner.chars().any(|c| c.is_ascii_lowercase());
    word && (capitals || inner.contains(['-', '_']))
}

#[cfg(test)]
mod tests {
    use super::find;

    #[test]
    fn placeholders_are_found_outside_comments_and_scripts() {
        let text = "metadata:\n  name: <YOUR-APP>\n# image: <NOT-THIS>\nspec:\n  containers:\n  - image: \
                    gcr.io/<YOUR-PROJECT>/app # <NOR-THIS>\n    args: [\"--instances=<INSTANCE_CONNECTION_NAME>\", \
                    \"cat <<EOF\", \"<br>\", \"<your-ns>\", \"a<b>c\"]\n";
        let found: Vec<(&str, bool)> = find(text).iter().map(|p| (p.text, p.refused)).collect();
        assert_eq!(
            found,
            [
                ("<YOUR-APP>", true),
                ("<YOUR-PROJECT>", true),
                ("<INSTANCE_CONNECTION_NAME>", false),
                ("<your-ns>", false)
            ]
        );
        // Offsets are bytes of the whole text: "<YOUR-APP>" starts line 2 at column 9.
        assert_eq!(&text[find(text)[0].at..][..10], "<YOUR-APP>");
        assert_eq!(find(text)[0].at, "metadata:\n  name: ".len());
    }
}
