//! A small SVG writer shared by every picture podsim draws: elements as text,
//! attribute values and text escaped, coordinates rounded to 0.01 px.
//!
//! Written by hand rather than through a plotting crate so that the output is
//! fully under our control (classes and `data-*` attributes that tests and the
//! HTML report read, `<title>` tooltips) and needs no font at drawing time.
//!
//! Invariant: `Svg::finish` returns well-formed XML: every value passes
//! through `escape`, and every element opened with `open` is closed.

use std::borrow::Cow;
use std::fmt::{self, Write};

/// The font stack of every picture: DejaVu Sans is what the PNG renderer
/// embeds, so SVG, HTML and PNG look alike; browsers fall back to their own.
pub const FONT_FAMILY: &str = "'DejaVu Sans', Verdana, Arial, sans-serif";

/// A number as SVG coordinates want it: at most two decimals, no trailing zeros.
#[derive(Clone, Copy, Debug)]
pub struct Num(pub f64);

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rounded = (self.0 * 100.0).round() / 100.0;
        // `-0` would be legal but noisy.
        let rounded = if rounded == 0.0 { 0.0 } else { rounded };
        write!(f, "{rounded}")
    }
}

/// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in attribute
/// values. Characters XML 1.0 forbids outright (control characters other
/// than tab and line breaks, U+FFFE, U+FFFF), which no entity can carry,
/// become U+FFFD: they reach a picture from a CSV cell or a column name,
/// and one of them would make the whole file unreadable.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.contains(|c| matches!(c, '&' | '<' | '>' | '"' | '\'') || !xml_char(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c if !xml_char(c) => out.push(char::REPLACEMENT_CHARACTER),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether XML 1.0 allows `c` in a document (its `Char` production).
fn xml_char(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{fffd}' | '\u{10000}'..)
}

/// One attribute: a name and anything printable (use `Num` for coordinates).
pub type Attr<'a> = (&'a str, &'a dyn fmt::Display);

/// An SVG document being written.
pub struct Svg {
    out: String,
    open: Vec<&'static str>,
}

impl Svg {
    /// The dark frame around a plot's area, corners `from` and `to`.
    pub fn frame(&mut self, from: (f64, f64), to: (f64, f64)) {
        self.leaf(
            "rect",
            &[
                ("x", &Num(from.0)),
                ("y", &Num(from.1)),
                ("width", &Num(to.0 - from.0)),
                ("height", &Num(to.1 - from.1)),
                ("fill", &"none"),
                ("stroke", &"#333333"),
            ],
        );
    }

    /// A document of `width` × `height` pixels on a white background.
    pub fn new(width: u32, height: u32) -> Svg {
        let mut out = String::with_capacity(16 * 1024);
        let _ = write!(
            out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"{}\" font-size=\"12\">",
            escape(FONT_FAMILY)
        );
        let mut svg = Svg {
            out,
            open: vec!["svg"],
        };
        svg.leaf(
            "rect",
            &[("width", &width), ("height", &height), ("fill", &"white")],
        );
        svg
    }

    fn start_tag(&mut self, name: &str, attrs: &[Attr]) {
        self.out.push('<');
        self.out.push_str(name);
        self.attrs(attrs);
    }

    fn attrs(&mut self, attrs: &[Attr]) {
        for (key, value) in attrs {
            let _ = write!(self.out, " {key}=\"{}\"", escape(&value.to_string()));
        }
    }

    /// An element with no content: `<rect .../>`.
    pub fn leaf(&mut self, name: &str, attrs: &[Attr]) {
        self.start_tag(name, attrs);
        self.out.push_str("/>");
    }

    /// An element whose tooltip is `title` (browsers show it on hover).
    pub fn titled(&mut self, name: &str, attrs: &[Attr], title: &str) {
        self.start_tag(name, attrs);
        self.out.push('>');
        self.title(title);
        let _ = write!(self.out, "</{name}>");
    }

    /// The tooltip of the element opened last.
    pub fn title(&mut self, text: &str) {
        let _ = write!(self.out, "<title>{}</title>", escape(text));
    }

    /// A text element.
    pub fn text(&mut self, x: f64, y: f64, content: &str, attrs: &[Attr]) {
        self.start_tag("text", &[("x", &Num(x)), ("y", &Num(y))]);
        self.attrs(attrs);
        let _ = write!(self.out, ">{}</text>", escape(content));
    }

    /// A straight line from `a` to `b`, styled by `attrs`.
    pub fn line(&mut self, a: (f64, f64), b: (f64, f64), attrs: &[Attr]) {
        let (x1, y1, x2, y2) = (Num(a.0), Num(a.1), Num(b.0), Num(b.1));
        self.start_tag("line", &[("x1", &x1), ("y1", &y1), ("x2", &x2), ("y2", &y2)]);
        self.attrs(attrs);
        self.out.push_str("/>");
    }

    /// Opens a container element (`g`, usually); `close` ends it.
    pub fn open(&mut self, name: &'static str, attrs: &[Attr]) {
        self.start_tag(name, attrs);
        self.out.push('>');
        self.open.push(name);
    }

    /// Closes the element opened last.
    pub fn close(&mut self) {
        if let Some(name) = self.open.pop() {
            let _ = write!(self.out, "</{name}>");
        }
    }

    /// Closes what is still open and returns the document.
    pub fn finish(mut self) -> String {
        while !self.open.is_empty() {
            self.close();
        }
        self.out.push('\n');
        self.out
    }
}

/// A linear map from data values to pixels.
#[derive(Clone, Copy, Debug)]
pub struct Scale {
    /// The smallest data value shown.
    pub lo: f64,
    /// The largest data value shown.
    pub hi: f64,
    /// The pixel `lo` lands on.
    pub from_px: f64,
    /// The pixel `hi` lands on (less than `from_px` on a y axis, which grows upwards).
    pub to_px: f64,
}

impl Scale {
    /// The pixel of `value`; a scale with no span maps everything to `from_px`.
    pub fn px(&self, value: f64) -> f64 {
        let span = if self.hi > self.lo { self.hi - self.lo } else { 1.0 };
        self.from_px + (value - self.lo) / span * (self.to_px - self.from_px)
    }
}

/// Round tick values covering `[lo, hi]`: steps of 1, 2 or 5 × 10^k, at most
/// `max_count` of them, all inside the range.
pub fn ticks(lo: f64, hi: f64, max_count: usize) -> Vec<f64> {
    ticks_by_step(lo, hi, tick_step(lo, hi, max_count))
}

/// The multiples of `step` inside `[lo, hi]`.
pub fn ticks_by_step(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).map(|i| i as f64 * step).collect()
}

/// The smallest 1/2/5 × 10^k step giving at most `max_count` ticks over the range.
pub fn tick_step(lo: f64, hi: f64, max_count: usize) -> f64 {
    let span = (hi - lo).abs().max(f64::MIN_POSITIVE);
    let raw = span / max_count.max(1) as f64;
    let magnitude = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|&step| step >= raw)
        .unwrap_or(10.0 * magnitude)
}

/// A tick label: no decimals for whole numbers, otherwise as few as needed.
pub fn tick_label(value: f64) -> String {
    let rounded = (value * 1000.0).round() / 1000.0;
    if rounded == rounded.trunc() {
        format!("{}", rounded as i64)
    } else {
        format!("{rounded}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_in_text_and_attributes() {
        let mut svg = Svg::new(10, 10);
        svg.text(1.0, 2.0, "a < b & \"c\"", &[("class", &"x'y")]);
        let doc = svg.finish();
        assert!(doc.contains(">a &lt; b &amp; &quot;c&quot;</text>"), "{doc}");
        assert!(doc.contains("class=\"x&#39;y\""), "{doc}");
        assert!(doc.trim_end().ends_with("</svg>"));
    }

    #[test]
    fn characters_xml_forbids_become_replacement_characters() {
        assert_eq!(escape("a\0b\u{1}\u{fffe}"), "a\u{fffd}b\u{fffd}\u{fffd}");
        assert_eq!(escape("tab\tline\n\u{e9}\u{1f600}"), "tab\tline\n\u{e9}\u{1f600}");
    }

    #[test]
    fn finish_closes_open_groups() {
        let mut svg = Svg::new(10, 10);
        svg.open("g", &[]);
        svg.open("g", &[]);
        svg.close();
        assert!(svg.finish().trim_end().ends_with("</g></svg>"));
    }

    #[test]
    fn numbers_keep_two_decimals_at_most() {
        assert_eq!(Num(1.0 / 3.0).to_string(), "0.33");
        assert_eq!(Num(12.0).to_string(), "12");
        assert_eq!(Num(-0.001).to_string(), "0");
    }

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(ticks(0.0, 13.0, 10), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0]);
        let labels: Vec<String> = ticks(0.0, 1.0, 5).into_iter().map(tick_label).collect();
        assert_eq!(labels, ["0", "0.2", "0.4", "0.6", "0.8", "1"]);
        assert_eq!(ticks(-0.5, 40.0, 8), [0.0, 10.0, 20.0, 30.0, 40.0]);
    }
}
