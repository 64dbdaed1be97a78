//! fastchess's lines on stdout (`--output-format fastchess`, the fastchess command line's
//! default): its game lines and warnings, its results block (pentanomial, or wins, draws and
//! losses with `-games 1`; a ranking table with more than two engines), the SPRT's decision, the
//! `Player:` block, `Finished match` and `Total Time`.

use std::collections::BTreeMap;

use super::{Board, GameEnd, Output};
use crate::console::say;
use crate::event::GameRecord;
use crate::report::compat_console as fmt;

pub struct Fastchess;

impl Output for Fastchess {
    fn game_started(&mut self, game: u64, total: usize, white: &str, black: &str) {
        say_started(game, total, white, black);
    }

    fn game_ruled(&mut self, record: &GameRecord) {
        say_ruled(record);
    }

    fn game_finished(&mut self, end: &GameEnd, _board: &Board) {
        say_finished(end);
    }

    fn interval(&mut self, board: &Board) {
        for line in block(board) {
            say!("{line}");
        }
    }

    /// fastchess stops a match the moment its SPRT decides: the block (a second time when the
    /// game's rating interval printed it already), then the decision.
    fn sprt_decided(&mut self, board: &Board, _end: &GameEnd, llr: f64) {
        let Some(sprt) = &board.s.sprt else {
            return;
        };
        self.interval(board);
        say!("{}", fmt::fastchess_sprt_done(sprt, llr >= sprt.bounds().1));
    }

    fn finished(&mut self, board: &Board, interrupted: bool) {
        for line in fmt::player_block(&board.players) {
            say!("{line}");
        }
        closing(board, interrupted);
    }

    fn println(&self, _line: &str) {}
}

/// `Started game 3 of 10 (A vs B)`, in either format.
pub fn say_started(game: u64, total: usize, white: &str, black: &str) {
    say!("{}", fmt::started(game, total, white, black));
}

/// The warnings fastchess prints when a game is ruled, in either format.
pub fn say_ruled(record: &GameRecord) {
    for line in fmt::ruling_warnings(record) {
        say!("{line}");
    }
}

/// Prints the game's [`finished_line`], in either format.
pub fn say_finished(end: &GameEnd) {
    say!("{}", finished_line(end));
}

/// `Finished game 3 (A vs B): 1-0 {White mates}`.
fn finished_line(end: &GameEnd) -> String {
    let record = end.record;
    let ending = fmt::fastchess_ending(record);
    let overrun_ms = ending.map_or(0, |e| e.2);
    let ending = ending.map(|(result, termination, _)| (result, termination));
    fmt::finished(
        record.game,
        &record.white,
        &record.black,
        ending,
        overrun_ms,
    )
}

/// What fastchess's `main` prints once the tournament is over, in either format: the
/// interruption (Ctrl-C), `Finished match`, the run's time and an empty line.
pub fn closing(board: &Board, interrupted: bool) {
    if interrupted {
        say!("{}", fmt::INTERRUPTED);
    }
    say!("{}", fmt::FINISHED_MATCH);
    say!("{}", fmt::total_time(board.started_at.elapsed().as_secs()));
    say!("");
}

/// The results block: the match's, or the ranking table with more than two engines.
fn block(board: &Board) -> Vec<String> {
    let s = &board.s;
    let now = board
        .llr()
        .and_then(|llr| s.sprt.as_ref().map(|sprt| fmt::SprtNow { sprt, llr }));
    match board.pair() {
        Some((first, second)) if !s.penta => {
            fmt::fastchess_h2h_wdl(first, second, &s.label, &board.wdl, now)
        }
        Some((first, second)) => fmt::fastchess_h2h(first, second, &s.label, &board.h2h, now),
        None if !s.penta => fmt::fastchess_table_wdl(&per_engine(board, &board.engine_wdl)),
        None => fmt::fastchess_table(&per_engine(board, &board.per_engine), None),
    }
}

/// Each engine's counts in `counts`, in the run's order of engines (none yet: zero), in
/// either format.
pub fn per_engine<T: Copy + Default>(
    board: &Board,
    counts: &BTreeMap<String, T>,
) -> Vec<(String, T)> {
    board
        .s
        .engines
        .iter()
        .map(|e| (e.clone(), counts.get(e).copied().unwrap_or_default()))
        .collect()
}
