//! A scenario's notices as the page words them. The command line points
//! to its `--timings` flag (`TIMINGS_FLAG`) as the other way to give what
//! a manifest's annotations give; the page reads no file, so there the
//! annotation, which every such notice names, is the one way, and the
//! alternative is left out: "(annotate podsim.dev/web.boot or use
//! --timings)" becomes "(annotate podsim.dev/web.boot)".
//!
//! Why here and not in the library: the library words a notice for any
//! way of giving a timings file (`Problem::message_with`); only the page
//! has none, and the command line's words stay as its tests pin them.

use serde_json::{Value, json};

use podsim::scenario::Diagnostic;

/// Stands for the timings file in the library's words, to be cut out.
const FILE: &str = "\u{1}timings\u{1}";

/// `{line, column, message}` of a notice, for the page.
pub fn for_page(d: &Diagnostic) -> Value {
    json!({
        "line": d.position.map(|p| p.0),
        "column": d.position.map(|p| p.1),
        "message": message(d),
    })
}

/// The notice's words without the timings file.
fn message(d: &Diagnostic) -> String {
    let mut text = d.problem.message_with(Some(FILE)).unwrap_or_else(|| d.message());
    while let Some(at) = text.find(FILE) {
        let (before, after) = (&text[..at], &text[at + FILE.len()..]);
        // The alternative starts at the last word "or" before the file:
        // "… or use F", "… (or write … in F)", "(…; or … in F)".
        let or = before
            .rmatch_indices("or ")
            .map(|(i, _)| i)
            .find(|&i| i > 0 && matches!(before.as_bytes()[i - 1], b' ' | b'('));
        text = match or {
            Some(i) if before.as_bytes()[i - 1] == b'(' => {
                let after = after.strip_prefix(')').unwrap_or(after);
                format!("{}{after}", before[..i - 1].trim_end())
            }
            Some(i) => format!("{}{after}", before[..i - 1].trim_end_matches(';')),
            None => format!("{before}a timings file{after}"),
        };
    }
    text
}

#[cfg(test)]
mod tests {
    use super::message;
    use podsim::engine::SimDuration;
    use podsim::scenario::{Diagnostic, Problem};

    fn page(problem: Problem) -> String {
        let mut notice = Diagnostic::whole("request", "").warning();
        notice.problem = problem;
        message(&notice)
    }

    #[test]
    fn the_page_points_to_the_annotation_alone() {
        let assumed = Problem::AssumedTimings {
            assumed: vec![("boot".into(), SimDuration::from_secs(1), vec!["web".into()])],
        };
        assert_eq!(
            page(assumed),
            "container \"web\": podsim assumes boot 1s (annotate podsim.dev/web.boot)"
        );
        assert_eq!(
            page(Problem::NeverDeleted { job: None }),
            "the Pod is never deleted; add podsim.dev/stop_after_ready to see shutdown"
        );
        assert_eq!(
            page(Problem::NoTraffic),
            "no client sends the Service requests, so none can fail; annotate podsim.dev/traffic.rate: \"50\" \
             (requests per second) to count them"
        );
        assert_eq!(
            page(Problem::NeverDisrupted),
            "no Pod of the Service is ever deleted, so no request fails by one going away; annotate \
             podsim.dev/disruptions.0.after_ready: \"10s\" and podsim.dev/disruptions.0.delete: \"1\" to see one go"
        );
    }
}
