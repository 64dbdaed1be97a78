//! What a run keeps of its finished games: each game's `games.csv` row (what the standings,
//! pairings and pentanomial tables are computed from) and running totals of what only the
//! event records hold (think time by phase, injections). Never the records themselves, so a
//! run's memory does not grow with the size of `events.jsonl`.

use std::collections::BTreeMap;

use super::csv::GameRow;
use super::injections::InjectionSummary;
use super::phases::{add_phase_times, PhaseTimes};
use super::pondering::PonderTally;
use crate::event::GameRecord;

#[derive(Debug, Default)]
pub struct Tally {
    /// One row per finished game, in the order they were counted.
    pub rows: Vec<GameRow>,
    /// Think time by game phase, per engine.
    pub phases: BTreeMap<String, PhaseTimes>,
    pub injections: InjectionSummary,
    /// Ponder searches and ponderhits, per engine.
    pub pondering: PonderTally,
}

impl Tally {
    /// Counts one finished game: `row` is its `games.csv` row.
    pub fn add(&mut self, record: &GameRecord, row: GameRow) {
        add_phase_times(&mut self.phases, record);
        self.injections.add(record);
        self.pondering.add(record);
        self.rows.push(row);
    }
}

/// The value kept for engine `name`, made on first use: looked up by `&str`, so that a count
/// kept per move allocates the key once per engine, not once per move.
pub fn by_name<'a, V: Default>(map: &'a mut BTreeMap<String, V>, name: &str) -> &'a mut V {
    if !map.contains_key(name) {
        map.insert(name.to_string(), V::default());
    }
    map.get_mut(name).expect("inserted above")
}
