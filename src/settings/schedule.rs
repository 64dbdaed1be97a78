//! How the schedule is cut and ordered: `--openings-order` and `--shard`.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// `--openings-order`.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum OpeningsOrder {
    /// The book's order, from the first opening.
    Sequential,
    /// A seeded shuffle of the book.
    #[default]
    Random,
}

impl OpeningsOrder {
    pub fn as_str(self) -> &'static str {
        match self {
            OpeningsOrder::Sequential => "sequential",
            OpeningsOrder::Random => "random",
        }
    }
}

impl fmt::Display for OpeningsOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `--shard K/N`: the K-th (1-based) of N disjoint slices of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    /// Whether the games of pair `pair` (1-based) belong to this shard. Slices are made of whole pairs (both colours of
    /// an opening stay together, for pentanomial statistics), dealt round-robin so every shard
    /// gets every encounter.
    pub fn holds(&self, pair: u64) -> bool {
        (pair - 1) % u64::from(self.count) == u64::from(self.index - 1)
    }
}

impl FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("bad --shard {s:?}: expected K/N with 1 <= K <= N, e.g. 2/8");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let index: u32 = k.trim().parse().map_err(|_| bad())?;
        let count: u32 = n.trim().parse().map_err(|_| bad())?;
        if index == 0 || count == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shard_syntax() {
        assert_eq!(
            "2/8".parse::<Shard>().unwrap(),
            Shard { index: 2, count: 8 }
        );
        for bad in ["0/3", "4/3", "1/0", "x", "1-3", "/3"] {
            assert!(bad.parse::<Shard>().unwrap_err().contains("K/N"), "{bad}");
        }
    }
}
