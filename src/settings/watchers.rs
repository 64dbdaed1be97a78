//! How the watchers behave: when each notices a fallen flag or an illegal move, and whether
//! it claims the draws it may claim (`--flag-notice-after`, `--illegal-notice-after`,
//! `--claim-draws`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::limits::CLAIM_MS;
use crate::event::Side;

/// `--claim-draws`: whether the draw-claim watcher claims the draws it may claim.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum ClaimDraws {
    #[default]
    Always,
    Never,
}

impl ClaimDraws {
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimDraws::Always => "always",
            ClaimDraws::Never => "never",
        }
    }
}

impl fmt::Display for ClaimDraws {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// When one watcher notices the opponent's fallen flag, exactly (`--flag-notice-after`), in
/// place of the random delay of `--flag-notice-ms`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NoticeAt {
    /// This many milliseconds after the flag fell.
    Ms(u64),
    /// As its own side completes its next move (presses its clock).
    Press,
    /// Never.
    Never,
}

impl FromStr for NoticeAt {
    type Err = String;
    fn from_str(s: &str) -> Result<NoticeAt, String> {
        match s.trim() {
            "press" => Ok(NoticeAt::Press),
            "never" => Ok(NoticeAt::Never),
            ms => ms
                .parse::<u64>()
                .ok()
                .filter(|ms| *ms <= CLAIM_MS.max)
                .map(NoticeAt::Ms)
                .ok_or_else(|| {
                    format!(
                        "{ms:?} is not a notice time: MS (0 to {}), press or never",
                        CLAIM_MS.max
                    )
                }),
        }
    }
}

impl fmt::Display for NoticeAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoticeAt::Ms(ms) => write!(f, "{ms}"),
            NoticeAt::Press => f.write_str("press"),
            NoticeAt::Never => f.write_str("never"),
        }
    }
}

/// `--flag-notice-after`: each watcher's exact notice of the opponent's fallen flag, by the
/// watcher's side (`white` notices black's flag). `300`, `press`, `never`, or per side
/// `white=press,black=300` (a side not named notices at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlagNoticeAfter {
    pub white: NoticeAt,
    pub black: NoticeAt,
}

impl FlagNoticeAfter {
    /// When the watcher of `side` notices the opponent's flag.
    pub fn of(self, side: Side) -> NoticeAt {
        match side {
            Side::White => self.white,
            Side::Black => self.black,
        }
    }
}

impl FromStr for FlagNoticeAfter {
    type Err = String;
    fn from_str(s: &str) -> Result<FlagNoticeAfter, String> {
        let bad = |why: String| {
            format!("bad --flag-notice-after {s:?}: {why} (e.g. 300, press, never, white=press,black=300)")
        };
        if !s.contains('=') {
            let at: NoticeAt = s.parse().map_err(bad)?;
            return Ok(FlagNoticeAfter {
                white: at,
                black: at,
            });
        }
        let mut exact = FlagNoticeAfter {
            white: NoticeAt::Ms(0),
            black: NoticeAt::Ms(0),
        };
        for item in s.split(',').filter(|i| !i.trim().is_empty()) {
            let (side, at) = item
                .split_once('=')
                .ok_or_else(|| bad(format!("{item:?} is not SIDE=WHEN")))?;
            let at: NoticeAt = at.parse().map_err(bad)?;
            match side.trim() {
                "white" => exact.white = at,
                "black" => exact.black = at,
                other => return Err(bad(format!("{other:?} is not white or black"))),
            }
        }
        Ok(exact)
    }
}

impl fmt::Display for FlagNoticeAfter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.white == self.black {
            write!(f, "{}", self.white)
        } else {
            write!(f, "white={},black={}", self.white, self.black)
        }
    }
}

/// `--illegal-notice-after`: the opponent's watcher notices a completed illegal move after
/// exactly this many further plies (0: before it moves), or never; in place of the
/// probability of `--illegal-notice`. Noticed after its own next move, it is too late: the
/// move stands (H15, G§3, WBCA 14, USCF 3b, FIDE A4.2) and the record shows the late notice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum IllegalNoticeAfter {
    Plies(u32),
    Never,
}

impl FromStr for IllegalNoticeAfter {
    type Err = String;
    fn from_str(s: &str) -> Result<IllegalNoticeAfter, String> {
        match s.trim() {
            "never" => Ok(IllegalNoticeAfter::Never),
            n => n
                .parse::<u32>()
                .ok()
                .filter(|n| *n <= 10_000)
                .map(IllegalNoticeAfter::Plies)
                .ok_or_else(|| {
                    format!("bad --illegal-notice-after {s:?}: PLIES (0 to 10000) or never")
                }),
        }
    }
}

impl fmt::Display for IllegalNoticeAfter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalNoticeAfter::Plies(n) => write!(f, "{n}"),
            IllegalNoticeAfter::Never => f.write_str("never"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_watcher_timings_parse_with_one_clear_error() {
        let both = |at| FlagNoticeAfter {
            white: at,
            black: at,
        };
        assert_eq!("300".parse(), Ok(both(NoticeAt::Ms(300))));
        assert_eq!("press".parse(), Ok(both(NoticeAt::Press)));
        assert_eq!("never".parse(), Ok(both(NoticeAt::Never)));
        let per_side: FlagNoticeAfter = "black=press,white=1500".parse().unwrap();
        assert_eq!(per_side.white, NoticeAt::Ms(1500));
        assert_eq!(per_side.black, NoticeAt::Press);
        assert_eq!(per_side.to_string(), "white=1500,black=press");
        // A side not named notices at once.
        let one: FlagNoticeAfter = "white=never".parse().unwrap();
        assert_eq!(one.black, NoticeAt::Ms(0));
        for bad in ["", "-1", "600001", "soon", "red=1", "white=x", "white"] {
            let e = bad.parse::<FlagNoticeAfter>().unwrap_err();
            assert!(
                e.contains("--flag-notice-after") && !e.contains('\n'),
                "{bad}: {e}"
            );
        }
        assert_eq!("0".parse(), Ok(IllegalNoticeAfter::Plies(0)));
        assert_eq!("never".parse(), Ok(IllegalNoticeAfter::Never));
        for bad in ["", "-1", "10001", "sometimes"] {
            let e = bad.parse::<IllegalNoticeAfter>().unwrap_err();
            assert!(e.contains("PLIES (0 to 10000) or never"), "{bad}: {e}");
        }
    }
}
