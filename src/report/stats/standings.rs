//! Each engine against the field: its results, time statistics and pairs, counted from the
//! `games.csv` rows, and the Standings table.
//!
//! Time trouble is a game the engine ended with under 10 % of its base time (the
//! `tc_white`/`tc_black` columns; games whose time control has no base, or does not parse, are
//! not counted either way). Average time per move = total think time / legal moves made.

use std::collections::HashMap;

use super::cells::{elo_text, interval_text, los_text, pct, table};
use super::elo::Wdl;
use super::pentanomial::PentaStats;
use crate::event::{GameResult, Side, Termination};
use crate::report::csv::GameRow;
use crate::report::phases::PhaseTimes;
use crate::timecontrol::TimeControl;

/// One engine against the field.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineStats {
    pub name: String,
    pub results: Wdl,
    pub games: u32,
    pub points: f64,
    /// 0..1.
    pub score: f64,
    pub elo: f64,
    /// The 95 % interval; NaN when every game scored the same (no spread, no interval).
    pub elo_low: f64,
    pub elo_high: f64,
    /// 0..1.
    pub los: f64,
    /// 0..1.
    pub draw_ratio: f64,
    /// Losses by `flag`, `both-flags` or `engine-stall`.
    pub time_losses: u32,
    /// The engine's clock at the end of its games, in ms.
    pub avg_ms_left: f64,
    pub min_ms_left: i64,
    pub moves: u64,
    pub think_ms: i64,
    /// Think time per legal move; `None` when it made no move.
    pub avg_ms_per_move: Option<f64>,
    /// Games it ended with under 10 % of its base time left (a fallen flag included).
    pub time_trouble: u32,
    /// Games whose time control gives a base time, the denominator of `time_trouble_share`.
    pub time_trouble_games: u32,
    /// `time_trouble / time_trouble_games`, 0..1; NaN when no game had a base time.
    pub time_trouble_share: f64,
    /// Its pentanomial counts against the field: its pairs with every opponent, from its side.
    pub penta: PentaStats,
    /// Think time by game phase; `None` until `Summary::with_phases` is given the events.
    pub phases: Option<PhaseTimes>,
}

/// Running totals of one engine.
#[derive(Clone, Debug)]
pub(super) struct Acc {
    results: Wdl,
    time_losses: u32,
    ms_left_sum: i64,
    min_ms_left: i64,
    moves: u64,
    think_ms: i64,
    time_trouble: u32,
    time_trouble_games: u32,
}

impl Default for Acc {
    fn default() -> Acc {
        Acc {
            results: Wdl::default(),
            time_losses: 0,
            ms_left_sum: 0,
            min_ms_left: i64::MAX,
            moves: 0,
            think_ms: 0,
            time_trouble: 0,
            time_trouble_games: 0,
        }
    }
}

impl Acc {
    /// Counts `side`'s game of `row`, which ended `result`; `base_us` is its base time
    /// ([`base_us`]).
    pub(super) fn add(
        &mut self,
        row: &GameRow,
        side: Side,
        result: GameResult,
        base_us: Option<i64>,
    ) {
        let points = result.points(side);
        self.results.add(points);
        if points == 0.0 && row.termination.is_some_and(Termination::is_time_forfeit) {
            self.time_losses += 1;
        }
        self.ms_left_sum += row.ms_left(side);
        self.min_ms_left = self.min_ms_left.min(row.ms_left(side));
        self.moves += row.moves(side) as u64;
        self.think_ms += row.think_ms(side);
        if let Some(base_us) = base_us {
            self.time_trouble_games += 1;
            // ms_left < base / 10, exactly.
            if row.ms_left(side).saturating_mul(10_000) < base_us {
                self.time_trouble += 1;
            }
        }
    }

    /// The engine's line of the standings (its `penta` empty, its `phases` unknown).
    pub(super) fn stats(&self, name: &str) -> EngineStats {
        let r = self.results;
        let (elo_low, elo_high) = r.elo_interval();
        EngineStats {
            name: name.to_string(),
            results: r,
            games: r.games(),
            points: r.points(),
            score: r.score(),
            elo: r.elo(),
            elo_low,
            elo_high,
            los: r.los(),
            draw_ratio: r.draw_ratio(),
            time_losses: self.time_losses,
            avg_ms_left: self.ms_left_sum as f64 / r.games() as f64,
            min_ms_left: self.min_ms_left,
            moves: self.moves,
            think_ms: self.think_ms,
            avg_ms_per_move: (self.moves > 0).then(|| self.think_ms as f64 / self.moves as f64),
            time_trouble: self.time_trouble,
            time_trouble_games: self.time_trouble_games,
            time_trouble_share: self.time_trouble as f64 / self.time_trouble_games as f64,
            penta: PentaStats::default(),
            phases: None,
        }
    }
}

/// The base time of the time control `tc` (a `tc_white`/`tc_black` cell), in µs; `None` when
/// it does not parse or has no base.
pub(super) fn base_us(tc: &str) -> Option<i64> {
    tc.parse::<TimeControl>()
        .ok()
        .map(|tc| tc.base.as_micros() as i64)
        .filter(|&us| us > 0)
}

/// The time control of `side` in `row`.
pub(super) fn tc_of(row: &GameRow, side: Side) -> &str {
    match side {
        Side::White => row.tc_white.as_str(),
        Side::Black => row.tc_black.as_str(),
    }
}

/// Standings order: by score, then points, then name.
pub(super) fn sort(engines: &mut [EngineStats]) {
    engines.sort_by(|x, y| {
        y.score
            .total_cmp(&x.score)
            .then(y.points.total_cmp(&x.points))
            .then(x.name.cmp(&y.name))
    });
}

/// Every engine of the finished games in `rows`, in standings order: by score, then points,
/// then name. Their `penta` is empty and their `phases` unknown: the caller adds them.
pub fn engines(rows: &[GameRow]) -> Vec<EngineStats> {
    let mut engines: HashMap<&str, Acc> = HashMap::new();
    // Base times by time-control text.
    let mut bases: HashMap<&str, Option<i64>> = HashMap::new();
    for row in rows {
        let Some(result) = row.result else {
            continue;
        };
        for side in Side::ALL {
            let tc = tc_of(row, side);
            let base = *bases.entry(tc).or_insert_with(|| base_us(tc));
            engines
                .entry(row.engine(side))
                .or_default()
                .add(row, side, result, base);
        }
    }
    let mut out: Vec<EngineStats> = engines.iter().map(|(name, acc)| acc.stats(name)).collect();
    sort(&mut out);
    out
}

/// The Standings table.
pub fn text(out: &mut String, engines: &[EngineStats]) {
    let header = [
        "#",
        "Engine",
        "Games",
        "W",
        "D",
        "L",
        "Points",
        "Score",
        "Elo",
        "95% interval",
        "LOS",
        "Draws",
    ];
    let rows: Vec<Vec<String>> = engines
        .iter()
        .enumerate()
        .map(|(i, e)| {
            vec![
                (i + 1).to_string(),
                e.name.clone(),
                e.games.to_string(),
                e.results.wins.to_string(),
                e.results.draws.to_string(),
                e.results.losses.to_string(),
                format!("{:.1}", e.points),
                pct(e.score),
                elo_text(e.elo),
                interval_text(e.elo_low, e.elo_high),
                los_text(e.los),
                pct(e.draw_ratio),
            ]
        })
        .collect();
    out.push_str("Standings\n");
    out.push_str(&table(&header, &[1], &rows));
}
