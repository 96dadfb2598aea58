//! Distributions as people write them: `{ dist = "lognormal", median = "3s",
//! p99 = "10s" }` in TOML (a scenario, a grid axis, a timings file), or the
//! same inline table as the text of an annotation. One parser serves all:
//! annotation text is read as a TOML value and handed to the same code.
//!
//! Invariant: a `Dist` that leaves here has parameters that make sense —
//! none negative, `p99` not below `median`, `max` not below `min`, a
//! non-empty empirical list — so sampling never needs to check.

use toml::de::{DeTable, DeValue};

use super::diagnostic::unknown_word;
use super::duration::parse_duration;
use crate::engine::SimDuration;
use crate::model::{Dist, Probability};

/// How each distribution is written, for messages.
fn example(name: &str) -> &'static str {
    match name {
        "lognormal" => "{ dist = \"lognormal\", median = \"3s\", p99 = \"10s\" }",
        "uniform" => "{ dist = \"uniform\", min = \"1s\", max = \"5s\" }",
        "exponential" => "{ dist = \"exponential\", mean = \"2s\" }",
        "normal" => "{ dist = \"normal\", mean = \"3s\", sd = \"500ms\" }",
        _ => "{ dist = \"empirical\", values = [\"1s\", \"2s\", \"9s\"] }",
    }
}

/// The parameter keys of each distribution.
fn parameters(name: &str) -> &'static [&'static str] {
    match name {
        "lognormal" => &["median", "p99"],
        "uniform" => &["min", "max"],
        "exponential" => &["mean"],
        "normal" => &["mean", "sd"],
        _ => &["values"],
    }
}

/// A distribution table, or the message saying what is wrong with it.
pub fn dist_from_table(table: &DeTable) -> Result<Dist, String> {
    let Some(kind) = table.get("dist") else {
        return Err(format!(
            "a distribution needs dist = one of {}, e.g. {}",
            Dist::NAMES.join(", "),
            example("lognormal")
        ));
    };
    let DeValue::String(name) = kind.get_ref() else {
        return Err(format!(
            "dist must be a word in quotes, one of {}",
            Dist::NAMES.join(", ")
        ));
    };
    let name: &str = name.as_ref();
    if !Dist::NAMES.contains(&name) {
        return Err(unknown_word("dist", name, &Dist::NAMES));
    }
    let keys = parameters(name);
    for (key, _) in table {
        let key: &str = key.get_ref().as_ref();
        if key != "dist" && !keys.contains(&key) {
            let mut valid = vec!["dist"];
            valid.extend(keys);
            return Err(unknown_word(
                &format!("key of a {name} distribution"),
                key,
                &valid,
            ));
        }
    }
    let duration = |key: &str| -> Result<SimDuration, String> {
        let Some(item) = table.get(key) else {
            return Err(format!(
                "a {name} distribution needs {}, e.g. {}",
                keys.join(" and "),
                example(name)
            ));
        };
        match item.get_ref() {
            DeValue::String(s) => parse_duration(s).map_err(|m| format!("{key}: {m}")),
            _ => Err(format!(
                "{key}: a duration needs a unit and quotes, e.g. {}",
                example(name)
            )),
        }
    };
    let dist = match name {
        "lognormal" => {
            let (median, p99) = (duration("median")?, duration("p99")?);
            if median == SimDuration::ZERO {
                return Err("median must be above 0s (a lognormal is never 0)".into());
            }
            if p99 < median {
                return Err(format!(
                    "p99 ({p99}) is below median ({median}); the 99th percentile is at least the median"
                ));
            }
            Dist::LogNormal { median, p99 }
        }
        "uniform" => {
            let (min, max) = (duration("min")?, duration("max")?);
            if max < min {
                return Err(format!("max ({max}) is below min ({min})"));
            }
            Dist::Uniform { min, max }
        }
        "exponential" => Dist::Exponential {
            mean: duration("mean")?,
        },
        "normal" => Dist::Normal {
            mean: duration("mean")?,
            sd: duration("sd")?,
        },
        _ => {
            let Some(DeValue::Array(items)) = table.get("values").map(|v| v.get_ref()) else {
                return Err(format!(
                    "values must be a list of durations, e.g. {}",
                    example(name)
                ));
            };
            if items.is_empty() {
                return Err("values is empty; an empirical distribution needs at least one duration".into());
            }
            let values = items
                .iter()
                .map(|item| match item.get_ref() {
                    DeValue::String(s) => parse_duration(s).map_err(|m| format!("values: {m}")),
                    _ => Err(format!(
                        "values: each is a duration in quotes, e.g. {}",
                        example(name)
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Dist::Empirical(values.into())
        }
    };
    // A degenerate distribution is the fixed duration it always draws.
    Ok(match dist {
        Dist::LogNormal { median, p99 } if median == p99 => Dist::Fixed(median),
        Dist::Uniform { min, max } if min == max => Dist::Fixed(min),
        Dist::Normal { mean, sd } if sd == SimDuration::ZERO => Dist::Fixed(mean),
        other => other,
    })
}

/// A duration (`"3s"`) or a distribution table, as an annotation's text.
pub fn parse_dist_text(text: &str) -> Result<Dist, String> {
    let trimmed = text.trim();
    if !trimmed.starts_with('{') {
        return parse_duration(text).map(Dist::Fixed);
    }
    with_toml(trimmed, |value| match value {
        DeValue::Table(table) => dist_from_table(table),
        _ => Err(format!(
            "expected a duration or a distribution such as {}",
            example("lognormal")
        )),
    })
}

/// `"30s,10s"`, or a TOML list of durations and distribution tables.
pub fn parse_dist_list_text(text: &str) -> Result<Vec<Dist>, String> {
    if !text.starts_with('[') {
        return text
            .split(',')
            .map(|d| parse_dist_text(d.trim().trim_matches('"')))
            .collect();
    }
    with_toml(text, |value| {
        let DeValue::Array(items) = value else {
            return Err("expected a list of durations".into());
        };
        items.iter().map(|item| dist_value(item.get_ref())).collect()
    })
}

/// One duration in quotes or one distribution table, as TOML.
pub fn dist_value(value: &DeValue) -> Result<Dist, String> {
    match value {
        DeValue::String(s) => parse_duration(s).map(Dist::Fixed),
        DeValue::Table(table) => dist_from_table(table),
        _ => Err(format!(
            "expected a duration in quotes such as \"1s\" or a distribution such as {}",
            example("lognormal")
        )),
    }
}

/// `f` on `text` read as one TOML value.
fn with_toml<T>(text: &str, f: impl FnOnce(&DeValue) -> Result<T, String>) -> Result<T, String> {
    let source = format!("v = {text}");
    let doc = DeTable::parse(&source)
        .map_err(|e| format!("cannot read {text} as TOML: {}", e.message().trim_end()))?;
    match doc.get_ref().get("v") {
        Some(value) => f(value.get_ref()),
        None => Err(format!("cannot read {text} as TOML")),
    }
}

/// A probability as text, 0 to 1.
/// `key` (empty where the reader names it) prefixes the message.
pub fn parse_probability(key: &str, text: &str) -> Result<Probability, String> {
    let key = if key.is_empty() {
        String::new()
    } else {
        format!("{key} ")
    };
    let p: f64 = text
        .parse()
        .map_err(|_| format!("{key}must be a number from 0 to 1 (e.g. 0.2), not \"{text}\""))?;
    Probability::new(p).ok_or_else(|| format!("{key}must be from 0 to 1 (a probability), not {text}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::Scenario;

    const BASE: &str = "[[containers]]\nname = \"web\"\nkind = \"app\"\n";

    fn scenario(boot: &str) -> Result<Scenario, String> {
        Scenario::parse(&format!("{BASE}boot = {boot}\n"), "x.toml").map_err(|e| e.to_string())
    }

    fn s(secs: u64) -> SimDuration {
        SimDuration::from_secs(secs)
    }

    #[test]
    fn every_spelling_reads_into_its_distribution() {
        let boot = |text: &str| scenario(text).unwrap().run.pod.containers[0].boot.clone();
        assert_eq!(
            boot("{ dist = \"lognormal\", median = \"3s\", p99 = \"10s\" }"),
            Dist::LogNormal {
                median: s(3),
                p99: s(10)
            }
        );
        assert_eq!(
            boot("{ dist = \"uniform\", min = \"1s\", max = \"5s\" }"),
            Dist::Uniform { min: s(1), max: s(5) }
        );
        assert_eq!(
            boot("{ dist = \"exponential\", mean = \"2s\" }"),
            Dist::Exponential { mean: s(2) }
        );
        assert_eq!(
            boot("{ dist = \"normal\", mean = \"3s\", sd = \"500ms\" }"),
            Dist::Normal {
                mean: s(3),
                sd: SimDuration::from_millis(500)
            }
        );
        assert_eq!(
            boot("{ dist = \"empirical\", values = [\"1s\", \"2s\", \"2s\", \"9s\"] }"),
            Dist::Empirical(vec![s(1), s(2), s(2), s(9)].into())
        );
        // Degenerate ones are the fixed duration they always draw.
        assert_eq!(boot("{ dist = \"uniform\", min = \"2s\", max = \"2s\" }"), s(2));
    }

    #[test]
    fn annotation_text_reads_the_same_inline_table() {
        assert_eq!(
            parse_dist_text("{ dist = \"lognormal\", median = \"2s\", p99 = \"7s\" }").unwrap(),
            Dist::LogNormal {
                median: s(2),
                p99: s(7)
            }
        );
        assert_eq!(parse_dist_text("3s").unwrap(), s(3));
        assert_eq!(
            parse_dist_list_text("[\"10s\", { dist = \"exponential\", mean = \"5s\" }]").unwrap(),
            [Dist::Fixed(s(10)), Dist::Exponential { mean: s(5) }]
        );
        assert_eq!(parse_dist_list_text("30s,10s").unwrap(), [s(30), s(10)]);
    }

    #[test]
    fn bad_distributions_are_located_and_say_what_would_do() {
        let e = |text: &str| scenario(text).unwrap_err();
        assert_eq!(
            e("{ dist = \"lognormla\", median = \"3s\", p99 = \"10s\" }"),
            "x.toml:4:8: container \"web\": boot: unknown dist \"lognormla\"; did you mean \"lognormal\"? \
             expected one of lognormal, uniform, exponential, normal, empirical"
        );
        assert!(
            e("{ dist = \"lognormal\", median = \"3s\" }")
                .contains("a lognormal distribution needs median and p99"),
        );
        assert!(e("{ dist = \"exponential\", mean = \"-2s\" }").contains("mean: negative duration \"-2s\""));
        assert!(
            e("{ dist = \"lognormal\", median = \"3s\", p99 = \"1s\" }")
                .contains("p99 (1s) is below median (3s)")
        );
        assert!(
            e("{ dist = \"empirical\", values = [] }")
                .contains("values is empty; an empirical distribution needs at least one duration")
        );
        assert!(
            e("{ dist = \"uniform\", min = \"5s\", mx = \"1s\" }")
                .contains("unknown key of a uniform distribution \"mx\"; did you mean \"max\"?")
        );
        assert!(e("{ median = \"3s\" }").contains("a distribution needs dist = one of lognormal"));
    }

    #[test]
    fn settings_take_one_duration_and_probabilities_stay_in_range() {
        let text = format!(
            "[pod]\ntermination_grace_period = {{ dist = \"exponential\", mean = \"2s\" }}\n{BASE}boot = \"1s\"\n"
        );
        let e = Scenario::parse(&text, "x.toml").unwrap_err().to_string();
        assert!(
            e.starts_with("x.toml:2:28: termination_grace_period: takes one duration"),
            "{e}"
        );
        let p = |v: &str| {
            Scenario::parse(
                &format!("{BASE}boot = \"1s\"\nfail_probability = {v}\n"),
                "x.toml",
            )
        };
        assert_eq!(
            p("0.2").unwrap().run.pod.containers[0].fail_probability.get(),
            0.2
        );
        assert_eq!(p("1").unwrap().run.pod.containers[0].fail_probability.get(), 1.0);
        let e = p("1.5").unwrap_err().to_string();
        assert_eq!(
            e,
            "x.toml:5:20: container \"web\": fail_probability: must be from 0 to 1 (a probability), not 1.5"
        );
        assert!(p("-0.1").unwrap_err().to_string().contains("must be from 0 to 1"));
    }
}
