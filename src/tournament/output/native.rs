//! blitz-arena's own progress: an indicatif bar on a terminal, one plain line per finished game
//! otherwise (indicatif draws nothing when stderr is not a terminal, so logs need their own
//! path). The summary that closes the run is `app::run`'s, on stdout.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use super::{Board, GameEnd, Output};
use crate::console::note;
use crate::event::GameRecord;

pub struct Native {
    bar: Option<ProgressBar>,
    /// Print a line per game even on a terminal (above the bar).
    verbose: bool,
}

impl Native {
    pub fn new(total: usize, verbose: bool) -> Native {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(total as u64);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30.cyan/blue} {pos}/{len} games  {elapsed_precise} ETA {eta}  {msg}",
                )
                .expect("a valid template")
                .progress_chars("=> "),
            );
            bar
        });
        Native { bar, verbose }
    }
}

impl Output for Native {
    fn game_finished(&mut self, end: &GameEnd, board: &Board) {
        let mut standings = board.standings();
        if let Some(sprt) = end.sprt {
            standings.push_str(" | ");
            standings.push_str(sprt);
        }
        let line = game_line(end.record, board.finished, board.total, &standings);
        match &self.bar {
            Some(bar) => {
                if self.verbose {
                    bar.println(&line);
                }
                bar.set_message(standings);
                bar.inc(1);
            }
            None => note!("{line}"),
        }
    }

    fn resumed(&mut self, board: &Board) {
        if let Some(bar) = &self.bar {
            bar.set_position(board.finished as u64);
        }
    }

    fn finished(&mut self, _board: &Board, _interrupted: bool) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => note!("{line}"),
        }
    }
}

/// `game 3/8 (#5): a - b 1-0 flag (FIDE 6.9) | a 2.0/3, b 1.0/3`: one finished game.
fn game_line(record: &GameRecord, done: usize, total: usize, standings: &str) -> String {
    match record.outcome() {
        Some(o) => format!(
            "game {done}/{total} (#{}): {} - {} {} {} ({}){} | {standings}",
            record.game,
            record.white,
            record.black,
            o.result.as_str(),
            o.termination,
            o.rule,
            starved_note(record),
        ),
        None => format!("game #{}: no result", record.game),
    }
}

/// `, white's last move was starved of CPU (40 ms of CPU in 310 ms, ...)` after a time loss
/// whose last move was starved: the result stands, the user is told why it came.
fn starved_note(record: &GameRecord) -> String {
    match record.starved_time_loss() {
        Some((side, cpu, think_us)) => format!(
            ", {}'s last move was starved of CPU ({})",
            side.name(),
            cpu.describe(think_us)
        ),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::Side;

    /// The line of a time loss after a starved move says so; others say nothing more.
    #[test]
    fn a_time_loss_after_a_starved_move_is_explained() {
        use crate::event::{GameResult, Termination};
        use crate::report::pgn::tests::Builder;
        let lost = |cpu: (i64, i64)| {
            Builder::new(1, "a", "b")
                .moves(Side::White, 300, "e2e4")
                .cpu(cpu.0, cpu.1)
                .moves(Side::Black, 300, "e7e5")
                .flag(Side::White, 0)
                .end(GameResult::BlackWins, Termination::Flag, "FIDE A4.3", "")
        };
        assert_eq!(
            starved_note(&lost((40, 260))),
            ", white's last move was starved of CPU (40 ms of CPU in 300 ms, 260 ms waiting for a core)"
        );
        assert_eq!(starved_note(&lost((295, 3))), "");
        let line = game_line(&lost((40, 260)), 1, 2, "b 1.0/1, a 0.0/1");
        assert!(line.starts_with("game 1/2 (#1): a - b 0-1 "), "{line}");
        assert!(line.ends_with(" | b 1.0/1, a 0.0/1"), "{line}");
    }
}
