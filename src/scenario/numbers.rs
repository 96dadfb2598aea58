//! Counts and sizes as a person reads them (`28,800 rows`, `2.7 MB`), for
//! every message: a limit or a work estimate refused while reading, and
//! every subcommand's (`sweep`, `merge`, checkpoints, the interrupt notice)
//! word numbers the same way.

/// `28800` → `28,800`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `2_700_000.0` → `2.7 MB`.
pub fn human_bytes(bytes: f64) -> String {
    let units = ["bytes", "kB", "MB", "GB", "TB"];
    let mut value = bytes;
    let mut unit = 0;
    while value >= 1000.0 && unit + 1 < units.len() {
        value /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{value:.0} bytes")
    } else {
        format!("{value:.1} {}", units[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_numbers() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1_000), "1,000");
        assert_eq!(grouped(28_800), "28,800");
        assert_eq!(grouped(100_000_000), "100,000,000");
        assert_eq!(human_bytes(950.0), "950 bytes");
        assert_eq!(human_bytes(2_740_000.0), "2.7 MB");
    }
}
