//! The allowed range of every numeric run option. The command line (clap value parsers), the
//! `[run]` table of engines.toml and docs/options.md's option table all state these ranges; a
//! value outside one is refused with one line naming the range (tests keep the three in step).
//!
//! The bounds are what a run can use, not what a type can hold: `--games 4294967295` would
//! ask for a 171 GB schedule, a `--time-margin` of 2^53 ms overflows the clocks, and an
//! injected flag held for 2^64 ms never ends.

use std::fmt::Display;
use std::str::FromStr;

use super::{MsRange, Shard};
use crate::rules::{DrawAdjudication, ResignAdjudication};

/// An inclusive range of allowed values for one option.
#[derive(Clone, Copy, Debug)]
pub struct Limit<T> {
    /// The option's name, as on the command line without `--` and as a `[run]` key.
    pub option: &'static str,
    /// What it is, for messages: `number`, `probability`.
    pub noun: &'static str,
    pub min: T,
    pub max: T,
}

impl<T: Copy + PartialOrd + Display + FromStr> Limit<T> {
    /// `v` if it is in range, else the one-line reason.
    pub fn check(&self, v: T) -> Result<T, String> {
        if v >= self.min && v <= self.max {
            Ok(v)
        } else {
            Err(format!("{v} is out of range: {}", self.expected()))
        }
    }

    /// Parses a value given as text (the command line, or a `[run]` number) and checks its
    /// range. A number the type cannot hold (`-1`, `2.5` or 2^32 games) is out of range too.
    pub fn parse(&self, s: &str) -> Result<T, String> {
        let s = s.trim();
        match s.parse::<T>() {
            Ok(v) => self.check(v),
            Err(_) if s.parse::<f64>().is_ok() => {
                Err(format!("{s} is out of range: {}", self.expected()))
            }
            Err(_) => Err(format!("{s:?} is not a number: {}", self.expected())),
        }
    }

    /// `from 1 to 1000000`, as `--help` and docs/options.md show it.
    pub fn range_text(&self) -> String {
        format!("{} to {}", self.min, self.max)
    }

    fn expected(&self) -> String {
        format!("give a {} from {}", self.noun, self.range_text())
    }
}

/// Games per pairing.
pub const GAMES: Limit<u32> = Limit {
    option: "games",
    noun: "number",
    min: 1,
    max: 1_000_000,
};
/// Games in one run, all pairings and shards together: the schedule is built whole.
pub const RUN_GAMES: u64 = 1_000_000;
/// `--openings-start`: the book's opening to start from, 1-based (a short book wraps around).
pub const OPENINGS_START: Limit<u64> = Limit {
    option: "openings-start",
    noun: "number",
    min: 1,
    max: 1_000_000_000,
};
/// `--opening-plies`: plies of each PGN book game.
pub const OPENING_PLIES: Limit<u32> = Limit {
    option: "opening-plies",
    noun: "number",
    min: 1,
    max: 10_000,
};
/// `--book-depth`: plies drawn from a Polyglot book.
pub const BOOK_DEPTH: Limit<u32> = Limit {
    option: "book-depth",
    noun: "number",
    min: 1,
    max: 10_000,
};
pub const CONCURRENCY: Limit<usize> = Limit {
    option: "concurrency",
    noun: "number",
    min: 1,
    max: 1024,
};
pub const SEED: Limit<u64> = Limit {
    option: "seed",
    noun: "number",
    min: 0,
    max: u64::MAX,
};
pub const MAX_MOVES: Limit<u32> = Limit {
    option: "max-moves",
    noun: "number",
    min: 1,
    max: 10_000,
};
pub const NODES: Limit<u64> = Limit {
    option: "nodes",
    noun: "number",
    min: 1,
    max: 1_000_000_000_000,
};
pub const DEPTH: Limit<u32> = Limit {
    option: "depth",
    noun: "number",
    min: 1,
    max: 255,
};
/// `--tb-pieces`: Syzygy tables hold 3 to 7 pieces.
pub const TB_PIECES: Limit<usize> = Limit {
    option: "tb-pieces",
    noun: "number",
    min: 3,
    max: 7,
};
/// Milliseconds; all the millisecond options share one ceiling of ten minutes.
pub const TIME_MARGIN: Limit<u64> = Limit {
    option: "time-margin",
    noun: "number",
    min: 0,
    max: MAX_MS,
};
pub const FLAG_NOTICE_MS: Limit<f64> = Limit {
    option: "flag-notice-ms",
    noun: "number",
    min: 0.0,
    max: MAX_MS as f64,
};
pub const CLAIM_MS: Limit<u64> = Limit {
    option: "claim-ms",
    noun: "number",
    min: 0,
    max: MAX_MS,
};
pub const ILLEGAL_NOTICE: Limit<f64> = probability("illegal-notice");
pub const INJECT_ILLEGAL: Limit<f64> = probability("inject-illegal");
pub const INJECT_FLAG: Limit<f64> = probability("inject-flag");
/// Each end of `--flag-overshoot-ms LOW..HIGH` and `--flag-gap-ms LOW..HIGH`.
pub const MS_RANGE_END: Limit<u64> = Limit {
    option: "LOW..HIGH",
    noun: "number",
    min: 0,
    max: MAX_MS,
};
/// N of `--shard K/N`.
pub const SHARDS: Limit<u32> = Limit {
    option: "shard",
    noun: "number",
    min: 1,
    max: 10_000,
};
/// `movenumber` of `--draw-adjudication`.
pub const ADJUDICATION_MOVENUMBER: Limit<u32> = Limit {
    option: "movenumber",
    noun: "number",
    min: 0,
    max: 10_000,
};
/// `movecount` of `--draw-adjudication` and `--resign-adjudication`.
pub const ADJUDICATION_MOVECOUNT: Limit<u32> = Limit {
    option: "movecount",
    noun: "number",
    min: 1,
    max: 10_000,
};
/// `score` (centipawns) of `--draw-adjudication` and `--resign-adjudication`.
pub const ADJUDICATION_SCORE: Limit<i32> = Limit {
    option: "score",
    noun: "number",
    min: 0,
    max: 100_000,
};

const MAX_MS: u64 = 600_000;

const fn probability(option: &'static str) -> Limit<f64> {
    Limit {
        option,
        noun: "probability",
        min: 0.0,
        max: 1.0,
    }
}

/// `--flag-overshoot-ms` / `--flag-gap-ms`: `LOW..HIGH` (or one number), each end in range.
pub fn ms_range(s: &str) -> Result<MsRange, String> {
    let range: MsRange = s.parse()?;
    check_ms_range(range)
}

pub fn check_ms_range(range: MsRange) -> Result<MsRange, String> {
    MS_RANGE_END.check(range.high).map_err(|_| {
        format!(
            "{range}: each end must be from {}",
            MS_RANGE_END.range_text()
        )
    })?;
    Ok(range)
}

/// `--shard K/N`, with N in range.
pub fn shard(s: &str) -> Result<Shard, String> {
    let shard: Shard = s.parse()?;
    check_shard(shard)
}

pub fn check_shard(shard: Shard) -> Result<Shard, String> {
    SHARDS
        .check(shard.count)
        .map_err(|_| format!("{shard}: N must be from {}", SHARDS.range_text()))?;
    Ok(shard)
}

/// `--draw-adjudication`, each number in range.
pub fn draw_adjudication(s: &str) -> Result<DrawAdjudication, String> {
    check_draw_adjudication(s.parse()?)
}

pub fn check_draw_adjudication(d: DrawAdjudication) -> Result<DrawAdjudication, String> {
    in_range(&ADJUDICATION_MOVENUMBER, d.movenumber)?;
    in_range(&ADJUDICATION_MOVECOUNT, d.movecount)?;
    in_range(&ADJUDICATION_SCORE, d.score)?;
    Ok(d)
}

/// `--resign-adjudication`, each number in range.
pub fn resign_adjudication(s: &str) -> Result<ResignAdjudication, String> {
    check_resign_adjudication(s.parse()?)
}

pub fn check_resign_adjudication(r: ResignAdjudication) -> Result<ResignAdjudication, String> {
    in_range(&ADJUDICATION_MOVECOUNT, r.movecount)?;
    in_range(&ADJUDICATION_SCORE, r.score)?;
    Ok(r)
}

fn in_range<T: Copy + PartialOrd + Display + FromStr>(
    limit: &Limit<T>,
    v: T,
) -> Result<(), String> {
    limit
        .check(v)
        .map(drop)
        .map_err(|_| format!("{}={v}: must be from {}", limit.option, limit.range_text()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_at_the_bounds_pass_and_beyond_them_fail() {
        assert_eq!(GAMES.parse("1"), Ok(1));
        assert_eq!(GAMES.parse("1000000"), Ok(1_000_000));
        assert_eq!(
            GAMES.parse("0").unwrap_err(),
            "0 is out of range: give a number from 1 to 1000000"
        );
        assert!(GAMES.parse("4294967295").is_err());
        assert!(GAMES
            .parse("4294967296")
            .unwrap_err()
            .contains("out of range"));
        assert!(GAMES.parse("2.5").unwrap_err().contains("out of range"));
        assert!(GAMES.parse("ten").unwrap_err().contains("not a number"));
        assert_eq!(SEED.parse("18446744073709551615"), Ok(u64::MAX));
        assert_eq!(
            INJECT_FLAG.parse("1.5").unwrap_err(),
            "1.5 is out of range: give a probability from 0 to 1"
        );
        assert!(INJECT_FLAG.parse("NaN").is_err());
        assert!(FLAG_NOTICE_MS.parse("inf").is_err());
        assert_eq!(INJECT_FLAG.range_text(), "0 to 1");
        assert_eq!(FLAG_NOTICE_MS.range_text(), "0 to 600000");
    }

    #[test]
    fn composite_values_check_each_number() {
        assert!(ms_range("0..600000").is_ok());
        let e = ms_range("0..18446744073709551615").unwrap_err();
        assert!(e.contains("0 to 600000"), "{e}");
        assert!(shard("3/10000").is_ok());
        assert!(shard("1/10001").is_err());
        assert!(draw_adjudication("movenumber=40,movecount=8,score=10").is_ok());
        let e = draw_adjudication("movecount=0").unwrap_err();
        assert_eq!(e, "movecount=0: must be from 1 to 10000");
        assert!(draw_adjudication("score=-5").is_err());
        assert!(resign_adjudication("movecount=4294967295").is_err());
        assert!(resign_adjudication("movecount=3,score=1000,twosided=true").is_ok());
    }
}
