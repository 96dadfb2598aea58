//! How a YAML node's type error is said to the user: the field's dotted
//! path first, then what Kubernetes wants there (a whole number of
//! seconds, a flag, a list), instead of the YAML crate's Rust type names.

/// `message` with the path of the node it is about and, for a number or a
/// flag, what Kubernetes wants there.
pub(super) fn explain(message: &str, node: Option<(Vec<String>, Option<&str>)>) -> String {
    let Some((path, scalar)) = node else {
        return message.to_string();
    };
    let leaf = path.last().map_or("", String::as_str);
    let at = dotted(&path);
    let lower = message.to_lowercase();
    let integer = ["i64", "i32", "u32", "u64", "integer"]
        .iter()
        .any(|t| lower.contains(t));
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
    {
        let at = if at.is_empty() {
            "the document".to_string()
        } else {
            at
        };
        return format!("{at}: {field} is missing; Kubernetes requires it here");
    }
    match scalar {
        Some(text) if integer => {
            let seconds = leaf.ends_with("Seconds") || leaf == "seconds";
            // `sleep.seconds` says more than `seconds`.
            let field = match path.as_slice() {
                [.., parent, last] if last == "seconds" => format!("{parent}.{last}"),
                _ => leaf.to_string(),
            };
            match text.trim().parse::<f64>() {
                Ok(v) if seconds && v.is_finite() && v.fract() != 0.0 => format!(
                    "{at}: {text} is not a whole number of seconds; Kubernetes keeps {field} in whole \
                     seconds: write {} or {}",
                    v.floor(),
                    v.ceil()
                ),
                Ok(v) if v.is_finite() && v.fract() == 0.0 => {
                    format!("{at}: {text} is out of range for {leaf}; write a smaller whole number")
                }
                _ => format!("{at}: expected a whole number, not \"{text}\""),
            }
        }
        Some(text) if lower.contains("bool") => {
            format!("{at}: expected true or false, not \"{text}\"")
        }
        None if lower.contains("expected string") && !at.is_empty() => {
            format!("{at}: expected a string here")
        }
        _ if lower.contains("expected sequence start") => {
            format!("{at}: expected a list here (lines of `- item`, or [a, b])")
        }
        _ if lower.contains("expected mapping start") => {
            format!("{at}: expected a mapping here (lines of `key: value`, or {{key: value}})")
        }
        _ if at.is_empty() => message.to_string(),
        _ => match message
            .strip_prefix("invalid type: ")
            .and_then(|rest| rest.split_once(", expected "))
        {
            Some((found, expected)) => {
                let found = found.replace("sequence", "a list").replace("map", "a mapping");
                format!("{at}: expected {expected}, found {found}")
            }
            None => format!("{at}: {message}"),
        },
    }
}

/// `spec.containers[0].name` from `["spec", "containers", "0", "name"]`.
pub fn dotted(path: &[impl AsRef<str>]) -> String {
    let mut out = String::new();
    for segment in path {
        let segment = segment.as_ref();
        if segment.bytes().all(|b| b.is_ascii_digit()) && !segment.is_empty() {
            out.push_str(&format!("[{segment}]"));
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(segment);
        }
    }
    out
}
