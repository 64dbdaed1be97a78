//! How numbers are written in the printed tables and in `summary.csv`, and the aligned table
//! itself. One rule each: an Elo is signed with one decimal, never `-0.0`; a missing value is
//! `-`; a likelihood of superiority that would round to 0 % or 100 % is `<0.01%` or
//! `>99.99%` (a finite sample never makes it certain); a figure that cannot be estimated from
//! the sample (every game or pair scored the same, so it has no spread to estimate an
//! interval, a normalized Elo or a pentanomial LOS from) is `n/a (no spread)` in its own cell,
//! never a certainty, so that every table stays one line per engine or pairing.

/// The cell of a figure the sample cannot estimate because it has no spread.
pub const NO_SPREAD: &str = "n/a (no spread)";

/// `12.5%` for 0.125; `-` for NaN.
pub fn pct(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else {
        format!("{:.1}%", x * 100.0)
    }
}

/// LOS with two decimals; a value that would print as `0.00%` or `100.00%` is `<0.01%` or
/// `>99.99%`, exactly 0 or 1 included.
pub fn los_text(x: f64) -> String {
    let p = x * 100.0;
    if x.is_nan() {
        "-".to_string()
    } else if p >= 99.995 {
        ">99.99%".to_string()
    } else if p < 0.005 {
        "<0.01%".to_string()
    } else {
        format!("{p:.2}%")
    }
}

/// `+12.3`, `-4.0`, `0.0` (a value that rounds to zero has no sign), `inf`, `-inf`; `-` for NaN.
pub fn elo_text(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        let text = format!("{x:+.1}");
        if text == "+0.0" || text == "-0.0" {
            "0.0".to_string()
        } else {
            text
        }
    }
}

/// `+12.3 ± 20.1`; `± inf` when the interval reaches past 0 or 100 %; `0.0 ± n/a (no spread)`
/// when the value exists but its interval does not; just the value when the value is missing.
pub fn plus_minus(value: f64, error: f64) -> String {
    if value.is_nan() {
        elo_text(value)
    } else if error.is_nan() {
        format!("{} ± {NO_SPREAD}", elo_text(value))
    } else if error.is_infinite() {
        format!("{} ± inf", elo_text(value))
    } else {
        format!("{} ± {error:.1}", elo_text(value))
    }
}

/// `[-33.4, +504.0]`; `n/a (no spread)` when the interval does not exist (every game scored
/// the same).
pub fn interval_text(low: f64, high: f64) -> String {
    if low.is_nan() || high.is_nan() {
        NO_SPREAD.to_string()
    } else {
        format!("[{}, {}]", elo_text(low), elo_text(high))
    }
}

/// Milliseconds as seconds: `1.5s`.
pub fn secs(ms: f64, decimals: usize) -> String {
    format!("{:.decimals$}s", ms / 1000.0)
}

/// `1 game`, `2 games`.
pub fn count(n: impl Into<u64>, word: &str) -> String {
    let n = n.into();
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// A number for `summary.csv`: plain digits, `inf`/`-inf`, empty where the value does not
/// exist; never `-0.0`.
pub fn csv_number(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        String::new()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        let text = format!("{x:.decimals$}");
        match text.strip_prefix('-') {
            Some(rest) if rest.chars().all(|c| c == '0' || c == '.') => rest.to_string(),
            _ => text,
        }
    }
}

/// An aligned table: columns in `left` are left-aligned, the others right-aligned.
pub fn table(header: &[&str], left: &[usize], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let cells = std::iter::once(header.iter().map(|h| h.to_string()).collect::<Vec<_>>())
        .chain(rows.iter().cloned());
    for row in cells {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = w - cell.chars().count();
            if left.contains(&i) {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_negative_zero_anywhere() {
        for x in [-0.0, -0.04, 0.0, 0.04] {
            assert_eq!(elo_text(x), "0.0");
            assert_eq!(csv_number(x, 1), "0.0");
        }
        assert_eq!(elo_text(-0.05), "-0.1");
        assert_eq!(csv_number(-0.00001, 4), "-0.0000".trim_start_matches('-'));
        assert_eq!(csv_number(-2.5, 1), "-2.5");
        assert_eq!(csv_number(f64::NAN, 1), "");
    }

    #[test]
    fn one_rule_for_near_certain_superiority() {
        assert_eq!(los_text(1.0), ">99.99%");
        assert_eq!(los_text(0.99996), ">99.99%");
        assert_eq!(los_text(0.9999), "99.99%");
        assert_eq!(los_text(0.0), "<0.01%");
        assert_eq!(los_text(0.00004), "<0.01%");
        assert_eq!(los_text(0.5), "50.00%");
        assert_eq!(los_text(f64::NAN), "-");
    }

    #[test]
    fn a_missing_interval_says_why() {
        assert_eq!(plus_minus(0.0, f64::NAN), "0.0 ± n/a (no spread)");
        assert_eq!(plus_minus(12.34, 5.0), "+12.3 ± 5.0");
        assert_eq!(plus_minus(1.0, f64::INFINITY), "+1.0 ± inf");
        assert_eq!(plus_minus(f64::NAN, f64::NAN), "-");
        assert_eq!(interval_text(f64::NAN, f64::NAN), "n/a (no spread)");
        assert_eq!(interval_text(-1.0, f64::INFINITY), "[-1.0, inf]");
        assert_eq!(count(1u32, "draw"), "1 draw");
        assert_eq!(count(0u32, "draw"), "0 draws");
    }
}
