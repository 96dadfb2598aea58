//! Bad input never panics: any text, and the lab's manifests cut or spliced
//! at random, give a scenario or an error, and an error names the file.

use podsim::scenario::manifest;
use proptest::prelude::*;

const GRACEFUL: &str = include_str!("../../scenarios/ckad/graceful.yaml");

fn check(text: &str) {
    if let Err(e) = manifest::parse(text, "x.yaml", None) {
        assert!(e.to_string().starts_with("x.yaml"), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn prop_any_text_is_a_scenario_or_an_error(text in "(?s).{0,200}") {
        check(&text);
    }

    #[test]
    fn prop_a_manifest_cut_anywhere_is_a_scenario_or_an_error(at in 0..GRACEFUL.len(), len in 0usize..40) {
        let (start, end) = (at, (at + len).min(GRACEFUL.len()));
        if GRACEFUL.is_char_boundary(start) && GRACEFUL.is_char_boundary(end) {
            check(&format!("{}{}", &GRACEFUL[..start], &GRACEFUL[end..]));
        }
    }

    #[test]
    fn prop_a_manifest_with_a_word_spliced_in_is_a_scenario_or_an_error(
        at in 0..GRACEFUL.len(),
        word in prop::sample::select(vec!["---\n", ": ", "- ", "\t", "[", "{", "\"", "&a ", "*a", "é", "~", "\n  x: 1\n"]),
    ) {
        if GRACEFUL.is_char_boundary(at) {
            check(&format!("{}{word}{}", &GRACEFUL[..at], &GRACEFUL[at..]));
        }
    }
}
