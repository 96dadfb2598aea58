//! Whether what a command printed is the output the guide shows: line by
//! line, trailing spaces and blank lines at the end ignored, with two
//! placeholders for what the guide leaves out or what varies: `[..]`
//! matches any text within a line, and a line `...` any number of lines.

/// Whether `actual` is what `shown` describes.
pub fn matches(shown: &str, actual: &str) -> bool {
    let shown = lines(shown);
    let actual = lines(actual);
    lines_match(&shown, &actual)
}

fn lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    while lines.last().is_some_and(|l| l.is_empty()) {
        lines.pop();
    }
    lines
}

fn lines_match(shown: &[&str], actual: &[&str]) -> bool {
    match shown.split_first() {
        None => actual.is_empty(),
        Some((&"...", rest)) => (0..=actual.len()).any(|skip| lines_match(rest, &actual[skip..])),
        Some((line, rest)) => {
            actual.first().is_some_and(|first| line_matches(line, first)) && lines_match(rest, &actual[1..])
        }
    }
}

/// `[..]` in `shown` stands for any text, the rest must be as written.
fn line_matches(shown: &str, actual: &str) -> bool {
    let pieces: Vec<&str> = shown.split("[..]").collect();
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if pieces.len() == 1 {
        return shown == actual;
    }
    if actual.len() < first.len() + last.len() || !actual.starts_with(first) || !actual.ends_with(last) {
        return false;
    }
    let mut middle = &actual[first.len()..actual.len() - last.len()];
    for piece in &pieces[1..pieces.len() - 1] {
        match middle.find(piece) {
            Some(at) => middle = &middle[at + piece.len()..],
            None => return false,
        }
    }
    true
}

#[test]
fn placeholders_match_what_they_say_and_nothing_else() {
    let printed = "== seed (a.toml)\n\nwrote 21,600 rows (2.0 MB) to /tmp/x/seed.csv  \nsummary\n\n";
    assert!(matches(printed, printed));
    assert!(matches(
        "== seed (a.toml)\n\nwrote [..] rows ([..]) to [..]/seed.csv\nsummary",
        printed
    ));
    assert!(matches("...\nsummary", printed));
    assert!(matches("== seed (a.toml)\n...\n...\nsummary\n...", printed));
    // a line left out without `...`, a wrong word, a `[..]` past the line's end
    assert!(!matches("== seed (a.toml)\nsummary", printed));
    assert!(!matches("...\nwrote 21,600 rows[..]seed.svg\n...", printed));
    assert!(!matches("== seed[..](a.toml)[..]x", printed));
    assert!(!matches("...\nsummary\nmore", printed));
    assert!(!line_matches("ab[..]ba", "aba") && line_matches("ab[..]ba", "abba"));
}
