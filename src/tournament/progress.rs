//! Progress: an indicatif bar on a terminal, one plain line per finished game otherwise
//! (indicatif draws nothing when stderr is not a terminal, so logs need their own path).

use std::collections::BTreeMap;
use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use super::compat_progress::{CompatConsole, CompatSettings};
use crate::console::note;
use crate::event::{GameRecord, Side};
use crate::report::compat_console::OutputFormat;
use crate::report::pgnout::CompatFiles;
use crate::report::GameRow;

pub struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    done: usize,
    /// Print a line per game even on a terminal (above the bar).
    verbose: bool,
    /// Points and games per engine so far, kept up to date game by game (a run of 100k games
    /// must not recount them all after each one).
    table: BTreeMap<String, (f64, u32)>,
    /// `--output-format fastchess|cutechess`: stdout carries that tool's lines instead.
    compat: Option<CompatConsole>,
    /// `--pgnout` / `--epdout`: each finished game appended in fastchess's formats.
    files: Option<CompatFiles>,
}

impl Progress {
    pub fn new(total: usize, verbose: bool) -> Progress {
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
        Progress {
            bar,
            total,
            done: 0,
            verbose,
            table: BTreeMap::new(),
            compat: None,
            files: None,
        }
    }

    /// Prints fastchess's or cutechess-cli's lines on stdout (native output: no change).
    pub fn with_output(mut self, settings: CompatSettings) -> Progress {
        if settings.format != OutputFormat::Native {
            self.compat = Some(CompatConsole::new(settings, self.total));
        }
        self
    }

    /// Appends each finished game to `--pgnout` / `--epdout`.
    pub fn with_files(mut self, files: Option<CompatFiles>) -> Progress {
        self.files = files;
        self
    }

    /// Whether stdout carries another tool's lines (the native summary then goes to stderr).
    pub fn is_compat(&self) -> bool {
        self.compat.is_some()
    }

    /// Reports a game that starts (only the compatible formats print it).
    pub fn game_started(&self, game: u64, white: &str, black: &str) {
        if let Some(compat) = &self.compat {
            compat.game_started(game, white, black);
        }
    }

    /// Reports one finished game (`row` is its games.csv row, for the standings).
    pub fn game_finished(&mut self, record: &GameRecord, row: &GameRow, sprt: Option<&str>) {
        self.done += 1;
        count(&mut self.table, row);
        // fastchess's order: the game's warnings, its PGN (and CRC line), `Finished game`.
        if let Some(compat) = &mut self.compat {
            compat.game_ruled(record);
        }
        if let Some(files) = &mut self.files {
            if let Err(e) = files.append(record) {
                note!("warning: {e:#}");
            }
        }
        if let Some(compat) = &mut self.compat {
            compat.game_finished(record, row);
        }
        let mut standings = standings(&self.table);
        if let Some(sprt) = sprt {
            standings.push_str(" | ");
            standings.push_str(sprt);
        }
        let line = match record.outcome() {
            Some(o) => format!(
                "game {}/{} (#{}): {} - {} {} {} ({}){} | {}",
                self.done,
                self.total,
                record.game,
                record.white,
                record.black,
                o.result.as_str(),
                o.termination,
                o.rule,
                starved_note(record),
                standings
            ),
            None => format!("game #{}: no result", record.game),
        };
        match &self.bar {
            Some(bar) => {
                if self.verbose {
                    bar.println(&line);
                }
                bar.set_message(standings);
                bar.inc(1);
            }
            // With another tool's lines on stdout, stdout has the game already (and a
            // second line saying "stall" would count twice where fishtest reads both).
            None if self.compat.is_some() => {}
            None => note!("{line}"),
        }
    }

    /// Counts games a resumed run had already played.
    pub fn resume_from(&mut self, rows: &[GameRow]) {
        self.done = rows.len();
        for row in rows {
            count(&mut self.table, row);
        }
        if let Some(compat) = &mut self.compat {
            compat.resume_from(rows);
        }
        let done = self.done;
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
        }
    }

    pub fn finish(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        if let Some(compat) = &mut self.compat {
            compat.finish();
        }
    }

    /// Prints a line without tearing the bar.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            // With another tool's lines on stdout, stdout has the game already (and a
            // second line saying "stall" would count twice where fishtest reads both).
            None if self.compat.is_some() => {}
            None => note!("{line}"),
        }
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

/// The run's warning when more engine threads may think at once than the machine has cores
/// (`None` when they fit). In a game one engine thinks at a time, so a game needs the threads
/// of its thinking engine (the UCI `Threads` option the roster sets, 1 without it); with
/// pondering both engines of a game think at once.
pub fn oversubscribed(
    engines: &[crate::settings::EngineConfig],
    concurrency: usize,
    cores: usize,
) -> Option<String> {
    let threads = |e: &crate::settings::EngineConfig| {
        e.options
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("Threads"))
            .and_then(|(_, value)| value.trim().parse::<usize>().ok())
            .unwrap_or(1)
            .max(1)
    };
    let most = engines.iter().map(threads).max()?;
    let per_game = if engines.iter().any(|e| e.ponder) {
        2 * most
    } else {
        most
    };
    let wanted = concurrency.saturating_mul(per_game);
    (wanted > cores).then(|| {
        format!(
            "warning: {concurrency} games at once x {per_game} engine thread{} thinking = {wanted} threads on {cores} cores: engines will be short of CPU, and moves starved of it are marked (lower --concurrency)",
            if per_game == 1 { "" } else { "s" }
        )
    })
}

/// Adds one game to the points-and-games table.
fn count(table: &mut BTreeMap<String, (f64, u32)>, row: &GameRow) {
    let Some(result) = row.result else {
        return;
    };
    let (w, b) = (result.points(Side::White), result.points(Side::Black));
    for (name, points) in [(&row.white, w), (&row.black, b)] {
        let entry = table.entry(name.clone()).or_default();
        entry.0 += points;
        entry.1 += 1;
    }
}

/// `minimax 5.5/7, greedy 1.0/4`: points over games, best first.
fn standings(table: &BTreeMap<String, (f64, u32)>) -> String {
    let mut list: Vec<_> = table.iter().collect();
    list.sort_by(|a, b| (b.1 .0 / b.1 .1 as f64).total_cmp(&(a.1 .0 / a.1 .1 as f64)));
    list.iter()
        .map(|(name, (points, games))| format!("{name} {points:.1}/{games}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{EngineConfig, Launch};

    fn engine(threads: Option<&str>, ponder: bool) -> EngineConfig {
        EngineConfig {
            name: "e".into(),
            launch: Launch::Builtin {
                name: "random".into(),
                args: Vec::new(),
            },
            dir: None,
            env: Default::default(),
            options: threads
                .map(|t| vec![("threads".to_string(), t.to_string())])
                .unwrap_or_default(),
            tc: None,
            ponder,
        }
    }

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
    }

    #[test]
    fn the_warning_counts_the_threads_that_think_at_once() {
        let one = [engine(None, false), engine(None, false)];
        // One engine of each game thinks at a time: 2 games fill 2 cores.
        assert_eq!(oversubscribed(&one, 2, 2), None);
        assert_eq!(
            oversubscribed(&one, 3, 2).unwrap(),
            "warning: 3 games at once x 1 engine thread thinking = 3 threads on 2 cores: engines will be short of CPU, and moves starved of it are marked (lower --concurrency)"
        );
        let four = [engine(Some("4"), false), engine(None, false)];
        assert!(oversubscribed(&four, 2, 8).is_none());
        assert!(oversubscribed(&four, 3, 8)
            .unwrap()
            .contains("= 12 threads on 8 cores"));
        // Pondering: both engines of a game think at once.
        let ponder = [engine(None, true), engine(None, false)];
        assert!(oversubscribed(&ponder, 2, 4).is_none());
        assert!(oversubscribed(&ponder, 2, 3)
            .unwrap()
            .contains("x 2 engine threads"));
        assert_eq!(oversubscribed(&[], 2, 1), None);
    }
}
