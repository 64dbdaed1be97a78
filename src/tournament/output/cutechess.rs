//! cutechess-cli's lines on stdout (`--output-format cutechess`, `-output format=cutechess`,
//! or the command line under the name `cutechess-cli`): the game lines, a `Score of` line
//! every `--score-interval` games and the `Elo difference` line every `--rating-interval`.

use super::fastchess::finished_line;
use super::{Board, GameEnd, Output};
use crate::console::say;
use crate::report::compat_console::{self as fmt, OutputFormat, SprtNow};

pub struct Cutechess;

impl Output for Cutechess {
    fn game_started(&mut self, game: u64, total: usize, white: &str, black: &str) {
        say!("{}", fmt::started(game, total, white, black));
    }

    fn game_finished(&mut self, end: &GameEnd, _board: &Board) {
        say!("{}", finished_line(OutputFormat::Cutechess, end));
    }

    fn score(&mut self, board: &Board) {
        if let Some((first, second)) = board.pair() {
            say!("{}", fmt::cutechess_score(first, second, &board.wdl));
        }
    }

    fn interval(&mut self, board: &Board) {
        if board.pair().is_none() {
            return;
        }
        say!("{}", fmt::cutechess_elo(&board.wdl));
        let now = board
            .llr()
            .zip(board.s.sprt.as_ref())
            .map(|(llr, sprt)| SprtNow { sprt, llr });
        if let Some(now) = now {
            say!("{}", fmt::cutechess_sprt(now));
        }
    }

    fn finished(&mut self, _board: &Board, _interrupted: bool) {
        say!("{}", fmt::FINISHED_MATCH);
    }

    fn println(&self, _line: &str) {}
}
