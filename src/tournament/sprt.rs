//! A run's sequential test as games finish: the counts of the first engine against the
//! second, kept game by game, and where the test stands after each game.

use crate::report::{GameRow, Sprt, SprtStatus, SprtTally};

/// The test and its counts so far.
pub struct LiveSprt {
    sprt: Sprt,
    counts: SprtTally,
}

/// Where the test stands: the decision, the log-likelihood ratio, and the progress line's
/// text (`LLR +1.23 (-2.94, +2.94)`).
pub struct SprtNow {
    pub status: SprtStatus,
    pub llr: f64,
    pub line: String,
}

impl LiveSprt {
    /// The test of `a` against `b` (`pairs`: on the pairs' pentanomial counts, else on the
    /// games), counting `rows` already played (a resumed run's).
    pub fn new(sprt: Sprt, a: &str, b: &str, pairs: bool, rows: &[GameRow]) -> LiveSprt {
        let mut counts = SprtTally::new(a, b, pairs);
        for row in rows {
            counts.add(row);
        }
        LiveSprt { sprt, counts }
    }

    /// Counts one more finished game: a constant cost a game, however long the run.
    pub fn add(&mut self, row: &GameRow) {
        self.counts.add(row);
    }

    pub fn now(&self) -> SprtNow {
        let llr = self.sprt.llr_counts(self.counts.counts());
        let (lower, upper) = self.sprt.bounds();
        SprtNow {
            status: self.sprt.decide(llr),
            llr,
            line: format!("LLR {llr:+.2} ({lower:+.2}, {upper:+.2})"),
        }
    }
}
