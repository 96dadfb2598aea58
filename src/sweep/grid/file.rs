//! A grid file as written: its keys read and checked one by one, its axes
//! kept as TOML for `Grid::new` to resolve against the base scenario.

use std::ops::Range;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

use crate::scenario::diagnostic::Layout;
use crate::scenario::toml::syntax_error;
use crate::scenario::{Diagnostic, Problem};

/// The keys of a grid file.
const GRID_KEYS: &[&str] = &[
    "base",
    "timings",
    "out",
    "plot",
    "summary",
    "seed",
    "replications",
    "axes",
];

/// A grid file as written: its keys checked, its axes not yet resolved.
pub struct GridFile<'t> {
    pub(super) origin: &'t str,
    pub(super) text: &'t str,
    /// The base scenario's path as written, and where.
    pub base: (String, Range<usize>),
    /// The `timings` key: a timings file for a manifest base, as written, and where.
    pub timings: Option<(String, Range<usize>)>,
    /// The `out` key: where the CSV goes unless `--out` says otherwise.
    pub out: Option<String>,
    /// The `plot` key: where the trade-off plot goes.
    pub plot: Option<String>,
    /// The `summary` key: where the per-combination summary goes.
    pub summary: Option<String>,
    /// `seed`, replacing the base scenario's.
    pub seed: Option<u32>,
    /// `replications`: runs per combination.
    pub replications: Option<u64>,
    pub(super) axes_span: Range<usize>,
    pub(super) doc: Spanned<DeTable<'t>>,
}

impl<'t> GridFile<'t> {
    /// Reads grid text; `origin` names it in errors.
    pub fn parse(text: &'t str, origin: &'t str) -> Result<GridFile<'t>, Diagnostic> {
        let doc = DeTable::parse(text).map_err(|e| syntax_error(origin, text, &e))?;
        let error =
            |span: Range<usize>, problem: Problem| Diagnostic::error(origin, text, Some(span), problem);
        let (mut base, mut out, mut plot, mut summary, mut axes_span) = (None, None, None, None, None);
        let (mut seed, mut replications, mut timings) = (None, None, None);
        for (key, value) in doc.get_ref() {
            let string = || string_value(value, key.get_ref()).map_err(|m| error(value.span(), m.into()));
            match key.get_ref().as_ref() {
                "base" => base = Some((string()?, value.span())),
                "timings" => timings = Some((string()?, value.span())),
                "out" => out = Some(string()?),
                "plot" => plot = Some(string()?),
                "summary" => summary = Some(string()?),
                "seed" => {
                    let n = whole(value, "seed", 0).map_err(|m| error(value.span(), m.into()))?;
                    seed = Some(u32::try_from(n).map_err(|_| {
                        error(
                            value.span(),
                            format!("seed must be at most {}, not {n}", u32::MAX).into(),
                        )
                    })?);
                }
                "replications" => {
                    replications =
                        Some(whole(value, "replications", 1).map_err(|m| error(value.span(), m.into()))?)
                }
                "axes" => match value.get_ref() {
                    DeValue::Table(_) => axes_span = Some(value.span()),
                    _ => return Err(error(value.span(), not_a_table("axes"))),
                },
                "name" | "horizon" | "pod" | "containers" => {
                    return Err(error(
                        key.span(),
                        format!(
                            "\"{}\" belongs in a scenario, and this looks like one; a grid names its \
                             scenario with base = \"scenario.toml\" and lists what to sweep under [axes]",
                            key.get_ref()
                        )
                        .into(),
                    ));
                }
                other => {
                    return Err(Diagnostic::unknown_key(
                        origin,
                        text,
                        key.span(),
                        other,
                        GRID_KEYS,
                    ));
                }
            }
        }
        let Some(base) = base else {
            return Err(error(
                0..0,
                "the grid names no base scenario; add base = \"scenario.toml\" (relative to the grid file)"
                    .into(),
            ));
        };
        let Some(axes_span) = axes_span else {
            return Err(error(
                0..0,
                "the grid has no [axes] table; add one with at least one axis, e.g. \
                 \"containers.web.boot\" = [\"1s\", \"2s\"]"
                    .into(),
            ));
        };
        Ok(GridFile {
            origin,
            text,
            base,
            timings,
            out,
            plot,
            summary,
            seed,
            replications,
            axes_span,
            doc,
        })
    }

    pub(super) fn error(&self, span: Range<usize>, problem: impl Into<Problem>) -> Diagnostic {
        Diagnostic::error(self.origin, self.text, Some(span), problem)
    }
}

/// A whole number of at least `min`, for `seed` and `replications`.
fn whole(value: &Spanned<DeValue>, key: &str, min: u64) -> Result<u64, String> {
    let DeValue::Integer(i) = value.get_ref() else {
        return Err(format!(
            "{key} must be a whole number without quotes, e.g. {key} = {}",
            min.max(1) * 10
        ));
    };
    let n = i64::from_str_radix(i.as_str(), i.radix()).map_err(|_| format!("{key}: {i} is too large"))?;
    match u64::try_from(n) {
        Ok(n) if n >= min => Ok(n),
        _ if min == 1 => Err(format!(
            "{key} must be at least 1 (each combination runs that many times), not {i}"
        )),
        _ => Err(format!("{key} must be {min} or more, not {i}")),
    }
}

/// `key` must be a table such as `[axes]`.
pub(super) fn not_a_table(key: &str) -> Problem {
    Problem::not_laid_out(key, Layout::Table, format!("[{key}]"))
}

fn string_value(value: &Spanned<DeValue>, key: &str) -> Result<String, String> {
    match value.get_ref() {
        DeValue::String(s) => Ok(s.to_string()),
        _ => Err(format!("{key} must be a path in quotes, e.g. {key} = \"x.toml\"")),
    }
}
