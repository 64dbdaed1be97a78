//! The closing lines of the summary: games, white wins, black wins and draws, and the count of
//! each termination.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::cells::count;
use crate::event::{GameResult, Termination};
use crate::report::csv::GameRow;

/// What the finished games were, all engines together.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Finished games counted.
    pub games: usize,
    /// Rows without a result (records cut off before their end), not counted.
    pub unfinished: usize,
    pub white_wins: usize,
    pub black_wins: usize,
    pub draws: usize,
    /// Games per termination, in the order of `Termination::ALL`, zero counts left out.
    pub terminations: Vec<(Termination, usize)>,
}

impl Totals {
    pub fn of(rows: &[GameRow]) -> Totals {
        let mut tally = TotalsTally::default();
        for row in rows {
            tally.add(row);
        }
        tally.totals()
    }

    /// `11 games: 5 white wins, 4 black wins, 1 draw (...)` and the terminations line.
    pub fn text(&self, out: &mut String) {
        let _ = write!(
            out,
            "{}: {}, {}, {}",
            count(self.games as u64, "game"),
            count(self.white_wins as u64, "white win"),
            count(self.black_wins as u64, "black win"),
            count(self.draws as u64, "draw"),
        );
        if self.unfinished > 0 {
            let _ = write!(
                out,
                " ({} not counted)",
                count(self.unfinished as u64, "unfinished record")
            );
        }
        out.push('\n');
        if !self.terminations.is_empty() {
            let parts: Vec<String> = self
                .terminations
                .iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect();
            let _ = writeln!(out, "Terminations: {}", parts.join(", "));
        }
    }
}

/// [`Totals`] kept row by row.
#[derive(Clone, Debug, Default)]
pub(super) struct TotalsTally {
    totals: Totals,
    counts: HashMap<Termination, usize>,
}

impl TotalsTally {
    pub(super) fn add(&mut self, row: &GameRow) {
        let totals = &mut self.totals;
        let Some(result) = row.result else {
            totals.unfinished += 1;
            return;
        };
        totals.games += 1;
        match result {
            GameResult::WhiteWins => totals.white_wins += 1,
            GameResult::BlackWins => totals.black_wins += 1,
            GameResult::Draw => totals.draws += 1,
        }
        if let Some(t) = row.termination {
            *self.counts.entry(t).or_default() += 1;
        }
    }

    pub(super) fn totals(&self) -> Totals {
        Totals {
            terminations: Termination::ALL
                .into_iter()
                .filter_map(|t| self.counts.get(&t).map(|&n| (t, n)))
                .collect(),
            ..self.totals.clone()
        }
    }
}
