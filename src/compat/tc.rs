//! fastchess's and cutechess-cli's time controls (`tc=8+0.08`, `tc=1:30+1`, `tc=inf`), read
//! into the arena's [`TimeControl`].
//!
//! Their numbers are seconds (`tc=8+0.08` is 8 s plus 80 ms a move), `M:S` is minutes and
//! seconds, `N/` before them is a repeating period of N moves (`tc=40/60+0.6`: 60 s for every
//! 40 moves), and `inf`/`infinite` is no clock at all. `st=2` is a fixed time per move
//! (`--tc 2s/move`).

use std::time::Duration;

use crate::timecontrol::TimeControl;

/// The clock that stands in for `tc=inf` (see [`TimeControl::UNLIMITED`]).
pub const INFINITE: TimeControl = TimeControl::UNLIMITED;

/// `tc=` of fastchess and cutechess-cli. `Ok(None)` for `inf`/`infinite`.
pub fn parse(text: &str) -> Result<Option<TimeControl>, String> {
    let bad = |why: &str| Err(format!("tc={text}: {why}"));
    if text == "inf" || text == "infinite" {
        return Ok(None);
    }
    if text.contains("hg") {
        return bad("hourglass time controls are not supported (fastchess refuses them too)");
    }
    let mut rest = text;
    let mut moves = None;
    if let Some((count, time)) = rest.split_once('/') {
        if count != "inf" && count != "infinite" {
            match count.parse::<u32>() {
                Ok(n) if n >= 1 => moves = Some(n),
                _ => return bad(&format!("{count:?} is not a number of moves (1 or more)")),
            }
        }
        rest = time;
    }
    let (time, increment) = match rest.split_once('+') {
        Some((time, increment)) => (
            time,
            seconds(increment).map_err(|e| format!("tc={text}: {e}"))?,
        ),
        None => (rest, Duration::ZERO),
    };
    let base = match time.split_once(':') {
        Some((minutes, secs)) => {
            let minutes = seconds(minutes).map_err(|e| format!("tc={text}: {e}"))?;
            minutes * 60 + seconds(secs).map_err(|e| format!("tc={text}: {e}"))?
        }
        None => seconds(time).map_err(|e| format!("tc={text}: {e}"))?,
    };
    if base.is_zero() && increment.is_zero() {
        return bad("no time at all (give a base time or an increment)");
    }
    let limit = Duration::from_millis(1_000_000_000_000);
    if base > limit || increment > limit {
        return bad("more than 1000000000000 ms");
    }
    Ok(Some(TimeControl {
        base,
        increment,
        delay: Duration::ZERO,
        moves,
        per_move: false,
    }))
}

/// `st=`: a fixed time per move, in seconds.
pub fn fixed_per_move(text: &str) -> Result<TimeControl, String> {
    let base = seconds(text).map_err(|e| format!("st={text}: {e}"))?;
    if base.is_zero() || base > Duration::from_millis(1_000_000_000_000) {
        return Err(format!("st={text}: give a time above zero"));
    }
    Ok(TimeControl {
        base,
        increment: Duration::ZERO,
        delay: Duration::ZERO,
        moves: None,
        per_move: true,
    })
}

/// A non-negative number of seconds (`8`, `0.08`, `10s`), kept to the microsecond.
fn seconds(text: &str) -> Result<Duration, String> {
    let number = text.strip_suffix('s').unwrap_or(text);
    let value: f64 = number
        .parse()
        .ok()
        .filter(|v: &f64| v.is_finite() && *v >= 0.0 && *v < 1e12)
        .ok_or_else(|| format!("{text:?} is not a number of seconds"))?;
    Ok(Duration::from_micros((value * 1e6).round() as u64))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tc(base_ms: u64, inc_ms: u64) -> Option<TimeControl> {
        Some(TimeControl {
            base: Duration::from_millis(base_ms),
            increment: Duration::from_millis(inc_ms),
            delay: Duration::ZERO,
            moves: None,
            per_move: false,
        })
    }

    #[test]
    fn numbers_are_seconds() {
        assert_eq!(parse("8+0.08"), Ok(tc(8000, 80)));
        assert_eq!(parse("10+0.1"), Ok(tc(10_000, 100)));
        assert_eq!(parse("60"), Ok(tc(60_000, 0)));
        assert_eq!(parse("0.601+0.006"), Ok(tc(601, 6)));
        assert_eq!(parse("10s+0.1s"), Ok(tc(10_000, 100)));
    }

    #[test]
    fn minutes_and_seconds() {
        assert_eq!(parse("1:30+1"), Ok(tc(90_000, 1000)));
        assert_eq!(parse("2:00"), Ok(tc(120_000, 0)));
    }

    #[test]
    fn infinite_is_no_clock() {
        assert_eq!(parse("inf"), Ok(None));
        assert_eq!(parse("infinite"), Ok(None));
        assert_eq!(parse("inf/10+0.1"), Ok(tc(10_000, 100)));
    }

    #[test]
    fn repeating_periods() {
        let t = parse("40/60+0.6").unwrap().unwrap();
        assert_eq!(
            (t.moves, t.base, t.increment),
            (
                Some(40),
                Duration::from_secs(60),
                Duration::from_millis(600)
            )
        );
        assert!(parse("0/60").unwrap_err().contains("not a number of moves"));
    }

    #[test]
    fn nonsense_is_refused_with_the_reason() {
        assert!(parse("1hg").unwrap_err().contains("hourglass"));
        assert!(parse("abc")
            .unwrap_err()
            .contains("\"abc\" is not a number"));
        assert!(parse("-1+0").is_err());
        assert!(parse("0+0").unwrap_err().contains("no time"));
    }
}
