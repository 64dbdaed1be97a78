//! Statistics over `games.csv` rows, printed at the end of a run, by `stats` and `merge`, and
//! written to `summary.csv`: one table per module, each given only what it shows.
//!
//! - `standings`: each engine against the field (`elo` has the trinomial formulas);
//! - `time`, `phases`: time losses, trouble and clocks; think time per move by game phase;
//! - `pairings`, `pentanomial`: each pairing from its first engine's side, in the fixed order
//!   of `order`, whatever order the games finished in;
//! - `sprt`: the SPRT of a two-engine match; `totals`: the closing lines;
//! - `summary_csv`: the same numbers in `summary.csv`; `cells`: how a number is written.

mod cells;
mod elo;
mod order;
mod pairings;
mod pentanomial;
mod phases;
mod running;
mod sprt;
mod standings;
mod starved;
mod summary_csv;
mod time;
mod totals;

#[cfg(test)]
pub(crate) mod testing;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::path::Path;

pub use self::cells::{elo_text, interval_text, los_text, NO_SPREAD};
pub use self::elo::{elo_from_score, erf, erfc, Wdl, Z95};
pub use self::order::engine_order;
pub use self::pairings::PairingStats;
pub use self::pentanomial::{pentanomial, PentaStats, PentaTally};
pub use self::running::RunningSummary;
pub use self::sprt::{SprtOutcome, SprtStop, SprtTally};
pub use self::standings::EngineStats;
pub use self::starved::StarvedStats;
pub use self::summary_csv::SUMMARY_COLUMNS;
pub use self::totals::Totals;
use super::csv::GameRow;
use super::phases::PhaseTimes;
use super::sprt::{Sprt, SprtCounts, SprtStatus};

/// Everything `stats` prints and `summary.csv` holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Games, results and terminations, all engines together.
    pub totals: Totals,
    /// Standings: by score, then points, then name.
    pub engines: Vec<EngineStats>,
    /// Pairings in the fixed order of the engines (`order`), each from its first engine's side.
    pub pairings: Vec<PairingStats>,
    /// Whether the engines' `phases` were computed (`with_phases`).
    pub phases_known: bool,
    /// The SPRT of a two-engine match, when `with_sprt` was called.
    pub sprt: Option<SprtOutcome>,
    /// Moves starved of CPU per engine, in standings order.
    pub starved: Vec<StarvedStats>,
}

/// Adds each pairing's pairs to both of its engines, from their sides.
fn add_pairs(engines: &mut [EngineStats], pairings: &[PairingStats]) {
    for p in pairings {
        for (name, penta) in [(&p.a, p.penta), (&p.b, p.penta.flipped())] {
            if let Some(e) = engines.iter_mut().find(|e| &e.name == name) {
                e.penta.add(penta.counts, penta.unpaired);
            }
        }
    }
}

impl Summary {
    /// The summary of `rows`, the engines in the order they first appear in the schedule (by
    /// game number; see `engine_order`).
    pub fn from_rows(rows: &[GameRow]) -> Summary {
        Summary::from_rows_ordered(rows, &[])
    }

    /// The summary of `rows`, the engines of `named` (a run's engines, as named on its command
    /// line) first in every table of pairings.
    pub fn from_rows_ordered(rows: &[GameRow], named: &[String]) -> Summary {
        let order = engine_order(rows, named);
        let mut engines = standings::engines(rows);
        let pairings = pairings::pairings(rows, &order);
        add_pairs(&mut engines, &pairings);
        let names: Vec<String> = engines.iter().map(|e| e.name.clone()).collect();
        Summary {
            totals: Totals::of(rows),
            starved: starved::starved(rows, &names),
            engines,
            pairings,
            phases_known: false,
            sprt: None,
        }
    }

    /// Adds think time by game phase (the `phase_times` of the run's records) to every
    /// engine, for the text and `summary.csv`; without it they say that phases need the events.
    pub fn with_phases(&mut self, times: &BTreeMap<String, PhaseTimes>) {
        for e in &mut self.engines {
            e.phases = Some(times.get(&e.name).copied().unwrap_or_default());
        }
        self.phases_known = true;
    }

    /// Adds the state of `sprt` for `engine`'s match: the one pairing it plays, seen from its
    /// side, on its pairs' pentanomial counts (`pairs`) or its games' trinomial counts, as the
    /// run tested it. Returns false (and adds nothing) when `engine` does not play exactly one
    /// pairing.
    pub fn with_sprt(&mut self, sprt: &Sprt, engine: &str, pairs: bool) -> bool {
        let mut pairings = self
            .pairings
            .iter()
            .filter(|p| p.a == engine || p.b == engine);
        let (Some(p), None) = (pairings.next(), pairings.next()) else {
            return false;
        };
        let (opponent, penta, wdl) = if p.a == engine {
            (&p.b, p.penta, p.results)
        } else {
            (&p.a, p.penta.flipped(), p.results.flipped())
        };
        let llr = sprt.llr_counts(if pairs {
            SprtCounts::Pairs(penta.counts)
        } else {
            SprtCounts::Games([wdl.losses, wdl.draws, wdl.wins])
        });
        self.sprt = Some(SprtOutcome {
            sprt: *sprt,
            engine: engine.to_string(),
            opponent: opponent.clone(),
            penta: penta.counts,
            games: p.results.games(),
            llr,
            status: sprt.decide(llr),
            stopped: None,
        });
        true
    }

    /// Records where the run stopped its SPRT (`with_sprt` first): the decision, the LLR it
    /// was taken at and the games finished then, so the summary can say why its own LLR, over
    /// every finished game, differs.
    pub fn with_sprt_stop(&mut self, status: SprtStatus, llr: f64, games: usize) {
        if let Some(s) = &mut self.sprt {
            s.stopped = Some(SprtStop { status, llr, games });
        }
    }

    /// The summary as aligned tables for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.totals.games == 0 {
            out.push_str("No finished games.\n");
        } else {
            standings::text(&mut out, &self.engines);
            time::text(&mut out, &self.engines);
            phases::text(&mut out, &self.engines, self.phases_known);
            pairings::text(&mut out, &self.pairings);
            starved::text(&mut out, &self.starved);
            if let Some(s) = &self.sprt {
                sprt::text(&mut out, s);
            }
            out.push('\n');
        }
        self.totals.text(&mut out);
        if let Some(line) = self.starved_line() {
            out.push_str(&line);
            out.push('\n');
        }
        out
    }

    /// `12 moves starved of CPU ...: the machine was short of CPU, not the engines`, for the
    /// end of a run and `stats`; `None` when no move was starved.
    pub fn starved_line(&self) -> Option<String> {
        starved::closing_line(&self.starved)
    }

    /// Writes `summary.csv` (see `SUMMARY_COLUMNS`): a row per engine in standings order, then
    /// a row per pairing in the order of the Pairings table. Replaces the file atomically.
    pub fn write_csv(&self, path: &Path) -> anyhow::Result<()> {
        summary_csv::write(path, &self.engines, &self.pairings, self.sprt.as_ref())
    }
}
