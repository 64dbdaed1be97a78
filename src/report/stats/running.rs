//! [`Summary::from_rows`] kept row by row: a run rewrites its report after finished games, and
//! counting every row again for each write cost the run more the longer it went. Every count
//! here is an integer added in any order, so the summary is the same whatever order the rows
//! came in, and the same as counting them all at once.

use std::collections::{BTreeMap, HashMap};

use super::elo::Wdl;
use super::pairings::{self, PairingStats};
use super::pentanomial::PentaTally;
use super::standings::{self, base_us, tc_of, Acc};
use super::starved::{self, StarvedStats};
use super::totals::TotalsTally;
use super::{add_pairs, Summary};
use crate::event::Side;
use crate::report::csv::GameRow;
use crate::report::tally::by_name;

/// The counts behind a [`Summary`] of the rows added so far (by engine name in ordered maps:
/// a run has few engines, and comparing their names costs less than hashing them).
#[derive(Clone, Debug, Default)]
pub struct RunningSummary {
    /// Rows added.
    rows: usize,
    /// Each engine's first place in the schedule: (game, row, 0 as white or 1 as black), the
    /// least of its rows (`engine_order`).
    first: BTreeMap<String, (u64, usize, u8)>,
    engines: BTreeMap<String, Acc>,
    /// Base times by time-control text (`standings::base_us`).
    bases: BTreeMap<String, Option<i64>>,
    /// Finished games by white and black, from white's side.
    results: BTreeMap<String, BTreeMap<String, Wdl>>,
    /// Pairs of two engines, by the name that sorts first and the other, from the first's side.
    pairs: BTreeMap<String, BTreeMap<String, PentaTally>>,
    totals: TotalsTally,
    starved: BTreeMap<String, StarvedStats>,
}

impl RunningSummary {
    /// Rows added so far.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Counts one more row of `games.csv`.
    pub fn add(&mut self, row: &GameRow) {
        let index = self.rows;
        self.rows += 1;
        for (side, name) in [(0, &row.white), (1, &row.black)] {
            let place = (row.game, index, side);
            match self.first.get_mut(name.as_str()) {
                Some(first) => *first = (*first).min(place),
                None => {
                    self.first.insert(name.clone(), place);
                }
            }
        }
        self.totals.add(row);
        let Some(result) = row.result else {
            return;
        };
        for side in Side::ALL {
            let tc = tc_of(row, side);
            let base = match self.bases.get(tc) {
                Some(&base) => base,
                None => *self.bases.entry(tc.to_string()).or_insert(base_us(tc)),
            };
            by_name(&mut self.engines, row.engine(side)).add(row, side, result, base);
            by_name(&mut self.starved, row.engine(side)).add(row, side);
        }
        by_name(by_name(&mut self.results, &row.white), &row.black).add(result.points(Side::White));
        let (first, second) = if row.white <= row.black {
            (&row.white, &row.black)
        } else {
            (&row.black, &row.white)
        };
        let with = by_name(&mut self.pairs, first);
        if !with.contains_key(second.as_str()) {
            with.insert(second.clone(), PentaTally::new(first, second));
        }
        with.get_mut(second.as_str())
            .expect("inserted above")
            .add(row);
    }

    /// The summary of the rows added, as [`Summary::from_rows`] gives it.
    pub fn summary(&self) -> Summary {
        let mut order: Vec<(&(u64, usize, u8), &String)> = self
            .first
            .iter()
            .map(|(name, place)| (place, name))
            .collect();
        order.sort_unstable();
        let order: Vec<&String> = order.into_iter().map(|(_, name)| name).collect();
        let mut engines: Vec<_> = self
            .engines
            .iter()
            .map(|(name, acc)| acc.stats(name))
            .collect();
        standings::sort(&mut engines);
        let pairings = self.pairings(&order);
        add_pairs(&mut engines, &pairings);
        let names: Vec<String> = engines.iter().map(|e| e.name.clone()).collect();
        Summary {
            totals: self.totals.totals(),
            starved: starved::in_order(&names, |name| self.starved.get(name)),
            engines,
            pairings,
            phases_known: false,
            sprt: None,
        }
    }

    /// The pairings, as `pairings::pairings` lists them for the engines in `order`.
    fn pairings(&self, order: &[&String]) -> Vec<PairingStats> {
        let rank: HashMap<&str, usize> = order
            .iter()
            .enumerate()
            .map(|(i, name)| (name.as_str(), i))
            .collect();
        let mut results: HashMap<(usize, usize), Wdl> = HashMap::new();
        for (white, games) in &self.results {
            for (black, r) in games {
                let (w, b) = (rank[white.as_str()], rank[black.as_str()]);
                let (key, r) = if w <= b {
                    ((w, b), *r)
                } else {
                    ((b, w), r.flipped())
                };
                let sum = results.entry(key).or_default();
                sum.wins += r.wins;
                sum.draws += r.draws;
                sum.losses += r.losses;
            }
        }
        let mut keys: Vec<(usize, usize)> = results.keys().copied().collect();
        keys.sort_unstable();
        keys.into_iter()
            .map(|(i, j)| {
                let (a, b) = (order[i].as_str(), order[j].as_str());
                let (first, second) = if a <= b { (a, b) } else { (b, a) };
                let (mut counts, unpaired) = self.pairs[first][second].counts();
                if a != first {
                    // The same pairs from `a`'s side.
                    counts.reverse();
                }
                pairings::pairing(a, b, results[&(i, j)], (counts, unpaired))
            })
            .collect()
    }
}
