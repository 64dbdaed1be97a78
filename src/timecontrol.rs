//! Time controls: the `--tc` syntax, and the PGN `TimeControl` tag.
//!
//! Accepted forms:
//! - `M+S`: minutes plus a Fischer increment in seconds (`5+0`, `3+2`, `0.5+0.1`);
//! - `G/M`: sudden death in M minutes (`G/5`);
//! - `G/M;dS`: sudden death with a simple (US) delay of S seconds (`G/5;d2`);
//! - `G/M;incS`: sudden death with a Fischer increment of S seconds;
//! - values with units: `30s+0.3s`, `500ms+5ms`, `1m`, `2m+1s`;
//! - `N/M+S`: repeating periods of N moves: M minutes for every N moves, refilled after each
//!   N-th move (`40/90+30`, `40/60s+0.6s`; cutechess's and fastchess's `tc=40/60+0.6`);
//! - `S/move`: a fixed time per move, in seconds, none of it carried to the next move
//!   (`2s/move`; fastchess's `st=2`); engines are sent `go movetime`.
//!
//! A bare number is minutes for the base and seconds for the increment, the FIDE and PGN usage
//! (lichess's `5+3` too): `10+0.1` is ten minutes plus 0.1 s a move. cutechess-cli, fastchess
//! and fishtest read `10+0.1` as ten *seconds*; here that is `10s+0.1s`. Every run prints its
//! time control in words ([`TimeControl::in_words`]) so the difference cannot go unseen.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// A time control for one side: a base time, a Fischer increment added after each move, and a
/// simple delay during which the clock does not run at the start of each move (USCF 1b).
/// With `moves`, the base time is for that many moves and is added again after every
/// `moves`-th move (repeating periods, FIDE 6.1's "a specified number of moves").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TimeControl {
    pub base: Duration,
    pub increment: Duration,
    pub delay: Duration,
    /// Moves per period; `None` is sudden death (one period for the whole game).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moves: Option<u32>,
    /// `base` is the time for each move, given afresh at every move (`2s/move`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_move: bool,
}

impl TimeControl {
    /// G/5: the arena's default and the blitz standard of WBCA 1 and USCF 1a.
    pub const G5: TimeControl = TimeControl {
        base: Duration::from_secs(300),
        increment: Duration::ZERO,
        delay: Duration::ZERO,
        moves: None,
        per_move: false,
    };

    /// The clock that stands in for "no clock" (fastchess's `tc=inf`): the arena's clock
    /// always runs, so this is one no game can use up, a million seconds (over eleven days) a
    /// side. The search is then bounded by `--nodes` or `--depth`.
    pub const UNLIMITED: TimeControl = TimeControl {
        base: Duration::from_secs(1_000_000),
        increment: Duration::ZERO,
        delay: Duration::ZERO,
        moves: None,
        per_move: false,
    };

    /// The PGN standard `TimeControl` tag value: `300` (sudden death) or `180+2` (increment), in
    /// seconds. A delay has no PGN syntax; it is written as sudden death and the delay is named
    /// in the game's `TimeControlDelay` tag by the PGN writer.
    pub fn pgn_tag(&self) -> String {
        if self.per_move {
            return format!("{}/move", seconds_str(self.base));
        }
        let base = match self.moves {
            // As cutechess-cli and fastchess write a repeating period: `40/60+0.6`.
            Some(moves) => format!("{moves}/{}", seconds_str(self.base)),
            None => seconds_str(self.base),
        };
        if self.increment.is_zero() {
            base
        } else {
            format!("{base}+{}", seconds_str(self.increment))
        }
    }
}

impl TimeControl {
    /// The time control in words, for the line that starts every run: `5 minutes, no
    /// increment`, `10 minutes + 0.1 seconds a move`, `5 minutes, 2 seconds delay a move`.
    pub fn in_words(&self) -> String {
        if self.per_move {
            return format!("{} a move, fixed", duration_words(self.base));
        }
        let mut words = duration_words(self.base);
        if let Some(moves) = self.moves {
            words.push_str(&format!(" for every {moves} moves"));
        }
        if self.increment.is_zero() {
            words.push_str(", no increment");
        } else {
            words.push_str(&format!(" + {} a move", duration_words(self.increment)));
        }
        if !self.delay.is_zero() {
            words.push_str(&format!(", {} delay a move", duration_words(self.delay)));
        }
        words
    }
}

/// `5 minutes`, `1 minute`, `90 seconds`, `0.1 seconds`, `1 second`.
fn duration_words(d: Duration) -> String {
    let us = d.as_micros();
    let (number, unit) = if us != 0 && us % 60_000_000 == 0 {
        ((us / 60_000_000).to_string(), "minute")
    } else {
        (seconds_str(d), "second")
    };
    let plural = if number == "1" { "" } else { "s" };
    format!("{number} {unit}{plural}")
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl::G5
    }
}

/// Seconds with up to six decimals (the parser keeps microseconds) and no trailing zeros:
/// `300`, `0.1`, `2.5`, `0.0001`.
fn seconds_str(d: Duration) -> String {
    let us = d.as_micros();
    if us % 1_000_000 == 0 {
        format!("{}", us / 1_000_000)
    } else {
        let s = format!("{}.{:06}", us / 1_000_000, us % 1_000_000);
        s.trim_end_matches('0').to_string()
    }
}

impl fmt::Display for TimeControl {
    /// The canonical spelling that parses back to the same value: `5+0`, `10s+0.1s`, `G/5;d2`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.per_move {
            return write!(f, "{}s/move", seconds_str(self.base));
        }
        if let Some(moves) = self.moves {
            write!(f, "{moves}/")?;
        }
        let base = if self.base.as_micros() % 60_000_000 == 0 {
            format!("{}", self.base.as_micros() / 60_000_000)
        } else {
            format!("{}s", seconds_str(self.base))
        };
        if !self.delay.is_zero() {
            write!(f, "G/{base};d{}", seconds_str(self.delay))?;
            if !self.increment.is_zero() {
                write!(f, ";inc{}", seconds_str(self.increment))?;
            }
            return Ok(());
        }
        let inc = seconds_str(self.increment);
        if base.ends_with('s') && !self.increment.is_zero() {
            write!(f, "{base}+{inc}s")
        } else {
            write!(f, "{base}+{inc}")
        }
    }
}

/// Why a time control did not parse; the message says what is accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad time control {input:?}: {reason} (expected e.g. 5+0, 3+2, G/5, G/5;d2, 30s+0.3s, 500ms+5ms, 40/90+30, 2s/move)")]
pub struct ParseTimeControlError {
    input: String,
    reason: &'static str,
}

/// Which unit a bare number is in: minutes for a base, seconds for an increment or delay.
#[derive(Clone, Copy)]
enum BareUnit {
    Minutes,
    Seconds,
}

fn parse_duration(s: &str, bare: BareUnit) -> Result<Duration, &'static str> {
    let s = s.trim();
    // Scaled to microseconds in one multiplication, so that every spelling `Display` writes
    // (up to six decimals of a second) reads back exactly.
    let (number, scale_us) = if let Some(n) = s.strip_suffix("ms") {
        (n, 1e3)
    } else if let Some(n) = s.strip_suffix("min") {
        (n, 6e7)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 6e7)
    } else if let Some(n) = s.strip_suffix('s') {
        (n, 1e6)
    } else {
        match bare {
            BareUnit::Minutes => (s, 6e7),
            BareUnit::Seconds => (s, 1e6),
        }
    };
    let number = number.trim();
    if number.starts_with('-') {
        return Err("times must be zero or positive");
    }
    if number.contains(':') {
        return Err("`:` is not read here: 5 minutes is 5+0 or 5m, 1:30 is 90s");
    }
    if !number.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return Err("not a number");
    }
    let value: f64 = number.parse().map_err(|_| "not a number")?;
    // A number too large for an f64 reads as infinity.
    if !value.is_finite() {
        return Err("time is too large");
    }
    if value < 0.0 {
        return Err("times must be zero or positive");
    }
    let us = value * scale_us;
    if us > 1e15 {
        return Err("time is too large");
    }
    // Sub-microsecond values are rounded to the microsecond: clocks run on microseconds.
    Ok(Duration::from_micros(us.round() as u64))
}

impl FromStr for TimeControl {
    type Err = ParseTimeControlError;

    fn from_str(input: &str) -> Result<TimeControl, ParseTimeControlError> {
        let err = |reason| ParseTimeControlError {
            input: input.to_string(),
            reason,
        };
        let s = input.trim();
        if s.is_empty() {
            return Err(err("empty"));
        }
        let mut tc = TimeControl {
            base: Duration::ZERO,
            increment: Duration::ZERO,
            delay: Duration::ZERO,
            moves: None,
            per_move: false,
        };
        if let Some(each) = s.strip_suffix("/move") {
            // A fixed time per move: bare numbers are seconds, as fastchess's `st=`.
            tc.base = parse_duration(each, BareUnit::Seconds).map_err(err)?;
            if tc.base.is_zero() {
                return Err(err("no time at all: a move needs some time"));
            }
            tc.per_move = true;
            return Ok(tc);
        }
        let mut s = s;
        if let Some((moves, rest)) = s.split_once('/') {
            if !moves.is_empty() && moves.bytes().all(|b| b.is_ascii_digit()) {
                match moves.parse::<u32>() {
                    Ok(n) if n >= 1 => tc.moves = Some(n),
                    _ => return Err(err("moves per period: 1 to 4294967295")),
                }
                if rest.starts_with(['G', 'g']) || rest.contains(';') {
                    return Err(err("a period of moves takes M+S, not G/ or a delay"));
                }
                s = rest;
            }
        }
        if let Some(rest) = s.strip_prefix("G/").or_else(|| s.strip_prefix("g/")) {
            let mut parts = rest.split(';');
            let base = parts.next().unwrap_or_default();
            tc.base = parse_duration(base, BareUnit::Minutes).map_err(err)?;
            for part in parts {
                let part = part.trim();
                if let Some(v) = part.strip_prefix("inc") {
                    tc.increment = parse_duration(v, BareUnit::Seconds).map_err(err)?;
                } else if let Some(v) = part.strip_prefix('d') {
                    tc.delay = parse_duration(v, BareUnit::Seconds).map_err(err)?;
                } else {
                    return Err(err("after ';' expected dS (delay) or incS (increment)"));
                }
            }
        } else {
            let (base, inc) = match s.split_once('+') {
                Some((b, i)) => (b, Some(i)),
                None => (s, None),
            };
            tc.base = parse_duration(base, BareUnit::Minutes).map_err(err)?;
            if let Some(inc) = inc {
                tc.increment = parse_duration(inc, BareUnit::Seconds).map_err(err)?;
            }
        }
        if tc.base.is_zero() && tc.increment.is_zero() {
            return Err(err("no time at all: base and increment are both zero"));
        }
        Ok(tc)
    }
}

impl TryFrom<String> for TimeControl {
    type Error = ParseTimeControlError;
    fn try_from(s: String) -> Result<Self, Self::Error> {
        s.parse()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_time_control_in_words_says_its_units() {
        let words = |tc: &str| tc.parse::<TimeControl>().unwrap().in_words();
        assert_eq!(words("G/5"), "5 minutes, no increment");
        // FIDE/PGN: a bare base is minutes, a bare increment seconds (cutechess: seconds).
        assert_eq!(words("10+0.1"), "10 minutes + 0.1 seconds a move");
        assert_eq!(words("10s+0.1s"), "10 seconds + 0.1 seconds a move");
        assert_eq!(words("1m+1s"), "1 minute + 1 second a move");
        assert_eq!(words("90s"), "90 seconds, no increment");
        assert_eq!(
            words("G/5;d2"),
            "5 minutes, no increment, 2 seconds delay a move"
        );
    }

    use super::*;

    fn tc(s: &str) -> TimeControl {
        s.parse().unwrap()
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn minutes_plus_seconds() {
        assert_eq!(tc("5+0"), TimeControl::G5);
        let t = tc("3+2");
        assert_eq!(
            (t.base, t.increment, t.delay),
            (ms(180_000), ms(2000), ms(0))
        );
        assert_eq!(tc("0.5+0.1").base, ms(30_000));
        assert_eq!(tc("1").base, ms(60_000));
    }

    #[test]
    fn sudden_death_delay_and_increment_forms() {
        assert_eq!(tc("G/5"), TimeControl::G5);
        let d = tc("G/5;d2");
        assert_eq!(
            (d.base, d.increment, d.delay),
            (ms(300_000), ms(0), ms(2000))
        );
        let i = tc("G/3;inc2");
        assert_eq!(
            (i.base, i.increment, i.delay),
            (ms(180_000), ms(2000), ms(0))
        );
    }

    #[test]
    fn unit_suffixes() {
        let t = tc("30s+0.3s");
        assert_eq!((t.base, t.increment), (ms(30_000), ms(300)));
        let t = tc("500ms+5ms");
        assert_eq!((t.base, t.increment), (ms(500), ms(5)));
        assert_eq!(tc("1m").base, ms(60_000));
        assert_eq!(tc("10s+0.1s").increment, ms(100));
        assert_eq!(tc("2m+1s").base, ms(120_000));
    }

    #[test]
    fn a_number_may_start_with_its_decimal_point() {
        let t = tc(".5+.1");
        assert_eq!((t.base, t.increment), (ms(30_000), ms(100)));
    }

    #[test]
    fn the_largest_time_is_a_billion_seconds() {
        assert_eq!(tc("1000000000s").base, Duration::from_secs(1_000_000_000));
        for bad in ["1000000000.000001s", "1e400"] {
            let e = bad.parse::<TimeControl>().unwrap_err();
            assert!(e.to_string().contains("time is too large"), "{bad}: {e}");
        }
    }

    #[test]
    fn try_from_a_string_is_parse() {
        assert_eq!(TimeControl::try_from("3+2".to_string()), Ok(tc("3+2")));
        assert!(TimeControl::try_from("3+x".to_string()).is_err());
    }

    #[test]
    fn rejects_nonsense_with_a_helpful_message() {
        for bad in ["", "abc", "5+x", "-1+0", "0+0", "G/5;z3", "5++1", "1e13"] {
            let e = bad.parse::<TimeControl>().unwrap_err().to_string();
            assert!(e.contains("expected e.g. 5+0"), "{bad}: {e}");
        }
    }

    #[test]
    fn repeating_periods_of_moves() {
        let t = tc("40/90+30");
        assert_eq!(
            (t.moves, t.base, t.increment),
            (Some(40), ms(5_400_000), ms(30_000))
        );
        let t = tc("40/60s+0.6s");
        assert_eq!(
            (t.moves, t.base, t.increment),
            (Some(40), ms(60_000), ms(600))
        );
        assert_eq!(t.to_string(), "40/1+0.6");
        assert_eq!(tc(&t.to_string()), t);
        assert_eq!(t.pgn_tag(), "40/60+0.6");
        assert_eq!(tc("40/90").pgn_tag(), "40/5400");
        assert_eq!(
            t.in_words(),
            "1 minute for every 40 moves + 0.6 seconds a move"
        );
        for bad in ["0/90+30", "40/G/5", "40/5;d2", "99999999999/5"] {
            let e = bad.parse::<TimeControl>().unwrap_err().to_string();
            assert!(e.contains("40/90+30"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_fixed_time_per_move() {
        let t = tc("2s/move");
        assert_eq!((t.base, t.per_move, t.moves), (ms(2000), true, None));
        assert_eq!(tc("0.5/move").base, ms(500));
        assert_eq!(t.to_string(), "2s/move");
        assert_eq!(tc(&tc("0.25/move").to_string()), tc("0.25/move"));
        assert_eq!(t.pgn_tag(), "2/move");
        assert_eq!(t.in_words(), "2 seconds a move, fixed");
        assert!("0/move".parse::<TimeControl>().is_err());
    }

    #[test]
    fn pgn_tag_follows_the_pgn_standard() {
        assert_eq!(tc("5+0").pgn_tag(), "300");
        assert_eq!(tc("3+2").pgn_tag(), "180+2");
        assert_eq!(tc("10s+0.1s").pgn_tag(), "10+0.1");
        assert_eq!(tc("G/5;d2").pgn_tag(), "300");
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "5+0",
            "3+2",
            "G/5;d2",
            "10s+0.1s",
            "500ms+5ms",
            "G/3;inc2",
            "G/5;d2;inc1",
            "30s+0.3s",
        ] {
            let t = tc(s);
            assert_eq!(tc(&t.to_string()), t, "{s} -> {t}");
        }
        assert_eq!(tc("5+0").to_string(), "5+0");
        assert_eq!(tc("10s+0.1s").to_string(), "10s+0.1s");
        assert_eq!(tc("30s").to_string(), "30s+0");
        assert_eq!(tc("G/5;d2").to_string(), "G/5;d2");
        assert_eq!(tc("G/5;d2;inc1").to_string(), "G/5;d2;inc1");
        // Found by tests/fuzz: sub-millisecond times were written as whole milliseconds, so
        // `G/0.1001ms` was spelled `0+0`, which does not parse.
        for s in [
            "G/0.1001ms",
            "0.5+0.2551",
            "0+0.000001",
            "999999999.999999s+1",
        ] {
            let t = tc(s);
            assert_eq!(tc(&t.to_string()), t, "{s} -> {t}");
        }
        assert_eq!(tc("0.5+0.2551").to_string(), "30s+0.2551s");
        assert_eq!(tc("G/0.1001ms").pgn_tag(), "0.0001");
    }
}
