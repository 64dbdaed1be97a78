//! fastchess's lines in its cutechess format (`-output format=cutechess`, `--output-format
//! cutechess`, or the command line under the name `cutechess-cli`), as fastchess prints them
//! where cutechess-cli itself prints otherwise: the game lines and warnings as in fastchess's
//! own format, a `Score of` line every `--score-interval` games, the `Elo difference` line (a
//! ranking table with more than two engines) every `--rating-interval` games, then
//! `Finished match` and `Total Time`; no `Player:` block.

use super::fastchess::{closing, per_engine, say_finished, say_ruled, say_started};
use super::{Board, GameEnd, Output};
use crate::console::say;
use crate::event::GameRecord;
use crate::report::compat_console::{self as fmt, SprtNow};

pub struct Cutechess;

impl Output for Cutechess {
    fn game_started(&mut self, game: u64, total: usize, white: &str, black: &str) {
        say_started(game, total, white, black);
    }

    fn game_ruled(&mut self, record: &GameRecord) {
        say_ruled(record);
    }

    fn game_finished(&mut self, end: &GameEnd, _board: &Board) {
        say_finished(end);
    }

    fn score(&mut self, board: &Board, end: &GameEnd) {
        let (first, second) = board.pairing(&end.record.white, &end.record.black);
        let wdl = board
            .pair_wdl
            .get(&(first.clone(), second.clone()))
            .copied()
            .unwrap_or_default();
        say!("{}", fmt::cutechess_score(&first, &second, &wdl));
    }

    fn interval(&mut self, board: &Board) {
        for line in block(board) {
            say!("{line}");
        }
    }

    /// fastchess's stop at the SPRT's decision: the score line, the block, and its line.
    fn sprt_decided(&mut self, board: &Board, end: &GameEnd, _llr: f64) {
        self.score(board, end);
        self.interval(board);
        say!("{}", fmt::TOURNAMENT_FINISHED);
    }

    fn finished(&mut self, board: &Board, interrupted: bool) {
        closing(board, interrupted);
    }

    fn println(&self, _line: &str) {}
}

/// The `Elo difference` line of the match and its SPRT line, or the ranking table.
fn block(board: &Board) -> Vec<String> {
    if board.pair().is_none() {
        return fmt::cutechess_table(&per_engine(board, &board.engine_wdl));
    }
    let mut lines = vec![fmt::cutechess_elo(&board.wdl)];
    let now = board
        .llr()
        .zip(board.s.sprt.as_ref())
        .map(|(llr, sprt)| SprtNow { sprt, llr });
    lines.extend(now.map(fmt::cutechess_sprt));
    lines
}
