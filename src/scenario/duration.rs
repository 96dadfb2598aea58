//! Durations as people write them in scenario and grid files: `"250ms"`,
//! `"3s"`, `"1.5s"`, `"5m"`, `"1h"`, or sums such as `"1m30s"`.
//!
//! Invariant: a parsed duration is exact to the millisecond; text that would
//! need rounding is refused rather than silently rounded.

use crate::engine::SimDuration;

/// Parses a duration, or says in plain words what is wrong with it.
pub fn parse_duration(text: &str) -> Result<SimDuration, String> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("empty duration; write e.g. \"3s\" or \"250ms\"".into());
    }
    if trimmed.starts_with('-') {
        return Err(format!(
            "negative duration \"{text}\"; durations must be 0 or more"
        ));
    }
    if trimmed == "0" {
        return Ok(SimDuration::ZERO);
    }
    let mut rest = trimmed;
    let mut total: u64 = 0;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (number, after) = rest.split_at(number_len);
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let unit_ms: u64 = match unit {
            "ms" => 1,
            "s" => 1000,
            "m" => 60_000,
            "h" => 3_600_000,
            "" => {
                return Err(format!(
                    "duration \"{text}\" needs a unit: ms, s, m or h (e.g. \"{number}s\")"
                ));
            }
            other => {
                return Err(format!(
                    "unknown unit \"{other}\" in duration \"{text}\"; use ms, s, m or h"
                ));
            }
        };
        let ms = scaled(number, unit_ms).ok_or_else(|| {
            if number.is_empty() || number.matches('.').count() > 1 || number.ends_with('.') {
                format!("malformed duration \"{text}\"; write e.g. \"3s\", \"1.5s\" or \"250ms\"")
            } else {
                format!("duration \"{text}\" is not a whole number of milliseconds (or is too large)")
            }
        })?;
        total = total
            .checked_add(ms)
            .ok_or_else(|| format!("duration \"{text}\" is too large"))?;
        rest = after;
    }
    Ok(SimDuration::from_millis(total))
}

/// `number` (digits, optionally one decimal point) times `unit_ms`, if that
/// is a whole number of milliseconds that fits.
fn scaled(number: &str, unit_ms: u64) -> Option<u64> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || (number.contains('.') && fraction.is_empty()) {
        return None;
    }
    if fraction.contains('.') {
        return None;
    }
    let whole: u64 = if whole.is_empty() { 0 } else { whole.parse().ok()? };
    let mut ms = whole.checked_mul(unit_ms)?;
    let mut place = unit_ms;
    for digit in fraction.bytes() {
        let d = u64::from(digit - b'0');
        if !place.is_multiple_of(10) {
            if d != 0 {
                return None;
            }
            continue;
        }
        place /= 10;
        ms = ms.checked_add(d * place)?;
    }
    Some(ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> u64 {
        parse_duration(text).unwrap().as_millis()
    }

    #[test]
    fn accepts_every_unit_and_fractions_exact_to_the_millisecond() {
        assert_eq!(ms("250ms"), 250);
        assert_eq!(ms("3s"), 3000);
        assert_eq!(ms("1.5s"), 1500);
        assert_eq!(ms("0.001s"), 1);
        assert_eq!(ms("5m"), 300_000);
        assert_eq!(ms("1.5h"), 5_400_000);
        assert_eq!(ms("1m30s"), 90_000);
        assert_eq!(ms("0"), 0);
        assert_eq!(ms("0s"), 0);
        assert_eq!(ms(".5s"), 500);
    }

    #[test]
    fn refuses_what_would_need_rounding_or_guessing() {
        let err = |t: &str| parse_duration(t).unwrap_err();
        assert!(err("1.0005s").contains("not a whole number of milliseconds"));
        assert!(err("1.5ms").contains("not a whole number of milliseconds"));
        assert!(err("3").contains("needs a unit"));
        assert!(err("-1s").contains("negative"));
        assert!(err("3sec").contains("unknown unit \"sec\""));
        assert!(err("1..5s").contains("malformed"));
        assert!(err("").contains("empty"));
        assert!(err("99999999999999999999s").contains("too large"));
    }
}
