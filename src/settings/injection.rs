//! The injector's ranges of milliseconds (`--flag-overshoot-ms`, `--flag-gap-ms`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// An inclusive range of milliseconds: `--flag-overshoot-ms 50..500` (or one number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MsRange {
    pub low: u64,
    pub high: u64,
}

impl FromStr for MsRange {
    type Err = String;
    fn from_str(s: &str) -> Result<MsRange, String> {
        let bad =
            || format!("bad range {s:?}: expected MS or LOW..HIGH in milliseconds, e.g. 50..500");
        let number = |t: &str| t.trim().parse::<u64>().map_err(|_| bad());
        let (low, high) = match s.split_once("..") {
            Some((a, b)) => (number(a)?, number(b.trim_start_matches('='))?),
            None => {
                let n = number(s)?;
                (n, n)
            }
        };
        if low > high {
            return Err(bad());
        }
        Ok(MsRange { low, high })
    }
}

impl fmt::Display for MsRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.low == self.high {
            write!(f, "{}", self.low)
        } else {
            write!(f, "{}..{}", self.low, self.high)
        }
    }
}
