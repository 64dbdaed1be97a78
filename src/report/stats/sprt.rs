//! The SPRT of a two-engine match as the summary states it: the LLR over every finished game
//! and, when the run stopped at a bound, where it stopped. The two differ when games were in
//! progress at the stop: they finish and are counted, so both are labelled.

use std::fmt::Write as _;

use super::cells::count;
use super::pentanomial::PentaTally;
use crate::report::csv::GameRow;
use crate::report::sprt::{Sprt, SprtCounts, SprtStatus};

/// The state of an SPRT on a two-engine match, from the tested engine's side.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtOutcome {
    pub sprt: Sprt,
    /// The tested engine.
    pub engine: String,
    pub opponent: String,
    /// Pentanomial counts from `engine`'s side.
    pub penta: [u32; 5],
    /// Finished games between the two.
    pub games: u32,
    pub llr: f64,
    pub status: SprtStatus,
    /// Where the run stopped, when a bound was crossed while it ran.
    pub stopped: Option<SprtStop>,
}

/// The bound crossing that stopped a run: the decision, the LLR (the last one on the progress
/// line) and the games finished then.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtStop {
    pub status: SprtStatus,
    pub llr: f64,
    pub games: usize,
}

/// What an SPRT of `a` against `b` reads in the rows added, from `a`'s side: the pentanomial
/// counts of their complete pairs (`pairs`), or the wins, draws and losses of all their games.
/// Kept game by game, at a constant cost a game: a run reads its SPRT after every game.
#[derive(Clone, Debug)]
pub enum SprtTally {
    Pairs(PentaTally),
    Games {
        a: String,
        b: String,
        /// Losses, draws, wins.
        wdl: [u32; 3],
    },
}

impl SprtTally {
    pub fn new(a: &str, b: &str, pairs: bool) -> SprtTally {
        if pairs {
            return SprtTally::Pairs(PentaTally::new(a, b));
        }
        SprtTally::Games {
            a: a.to_string(),
            b: b.to_string(),
            wdl: [0; 3],
        }
    }

    pub fn add(&mut self, row: &GameRow) {
        match self {
            SprtTally::Pairs(tally) => tally.add(row),
            SprtTally::Games { a, b, wdl } => {
                let (Some(result), Some(side)) = (row.result, row.side_of(a)) else {
                    return;
                };
                if a != b && row.side_of(b).is_some() {
                    // Losses, draws, wins: half points 0, 1, 2.
                    wdl[(result.points(side) * 2.0).round() as usize] += 1;
                }
            }
        }
    }

    pub fn counts(&self) -> SprtCounts {
        match self {
            SprtTally::Pairs(tally) => SprtCounts::Pairs(tally.counts().0),
            SprtTally::Games { wdl, .. } => SprtCounts::Games(*wdl),
        }
    }
}

/// The SPRT lines of the summary.
pub fn text(out: &mut String, s: &SprtOutcome) {
    let (lower, upper) = s.sprt.bounds();
    let llr = if s.llr.is_nan() {
        "-".to_string()
    } else {
        format!("{:+.2}", s.llr)
    };
    let _ = writeln!(
        out,
        "\nSPRT {} vs {}: nElo [{}, {}], alpha {}, beta {}\n\
         LLR {llr} over {}, bounds ({lower:+.2}, {upper:+.2}): {}",
        s.engine,
        s.opponent,
        s.sprt.elo0,
        s.sprt.elo1,
        s.sprt.alpha,
        s.sprt.beta,
        count(s.games, "game"),
        s.status
    );
    if let Some(stop) = &s.stopped {
        let _ = write!(
            out,
            "Stopped: {} at LLR {:+.2} after {}",
            stop.status,
            stop.llr,
            count(stop.games as u64, "game")
        );
        let more = (s.games as usize).saturating_sub(stop.games);
        if more == 0 {
            out.push_str(", as above\n");
        } else {
            let _ = writeln!(
                out,
                " (the last LLR shown while the games ran);\n\
                 the {} in progress then finished and count in the LLR above",
                count(more as u64, "game")
            );
        }
    }
}
