//! What the page counts of the games' rows, kept as rows are added: a run rewrites its page
//! after finished games, and counting every row again for each write cost it more the longer
//! it went (O(games) a write); now a write counts only the rows added since the last.

use std::collections::BTreeMap;

use crate::event::Side;
use crate::report::csv::GameRow;
use crate::report::stats::RunningSummary;
use crate::report::tally::by_name;

/// The counts of the rows seen so far.
#[derive(Clone, Debug, Default)]
pub struct RowCounts {
    /// Rows counted, and the game of the last of them: the rows a run passes only grow (the
    /// run's `Tally`); any other rows are counted afresh.
    seen: usize,
    last_game: Option<u64>,
    pub summary: RunningSummary,
    /// Each engine's clock at the end of its finished games, in seconds, sorted.
    pub left: BTreeMap<String, Vec<f64>>,
    /// Games by ruleset and termination (`unfinished` for a game without one).
    pub endings: BTreeMap<(&'static str, &'static str), u32>,
}

impl RowCounts {
    /// The counts of `rows`.
    pub fn of(rows: &[GameRow]) -> RowCounts {
        let mut counts = RowCounts::default();
        counts.catch_up(rows);
        counts
    }

    /// Counts the rows of `rows` not counted yet: those past the ones seen, when `rows` begins
    /// with them; otherwise all of them, afresh.
    pub fn catch_up(&mut self, rows: &[GameRow]) {
        let grown = rows.len() >= self.seen
            && (self.seen == 0 || Some(rows[self.seen - 1].game) == self.last_game);
        if !grown {
            *self = RowCounts::default();
        }
        let new = &rows[self.seen..];
        for row in new {
            self.summary.add(row);
            let termination = row.termination.map_or("unfinished", |t| t.as_str());
            *self
                .endings
                .entry((row.ruleset.as_str(), termination))
                .or_default() += 1;
            if row.result.is_some() {
                for side in Side::ALL {
                    by_name(&mut self.left, row.engine(side))
                        .push(row.ms_left(side) as f64 / 1000.0);
                }
            }
        }
        if !new.is_empty() {
            // A sorted run and the new values after it: merged in about one pass.
            for v in self.left.values_mut() {
                v.sort_by(f64::total_cmp);
            }
        }
        self.seen = rows.len();
        self.last_game = rows.last().map(|r| r.game);
    }
}
