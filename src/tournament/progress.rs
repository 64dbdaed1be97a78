//! Progress: an indicatif bar on a terminal, one plain line per finished game otherwise
//! (indicatif draws nothing when stderr is not a terminal, so logs need their own path).

use std::collections::BTreeMap;
use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::event::{GameRecord, Side};
use crate::report::GameRow;

pub struct Progress {
    bar: Option<ProgressBar>,
    total: usize,
    done: usize,
    /// Print a line per game even on a terminal (above the bar).
    verbose: bool,
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
        }
    }

    /// Reports one finished game; `rows` are all games finished so far, for the standings.
    pub fn game_finished(&mut self, record: &GameRecord, rows: &[GameRow], sprt: Option<&str>) {
        self.done += 1;
        let mut standings = standings(rows);
        if let Some(sprt) = sprt {
            standings.push_str(" | ");
            standings.push_str(sprt);
        }
        let line = match record.outcome() {
            Some(o) => format!(
                "game {}/{} (#{}): {} - {} {} {} ({}) | {}",
                self.done,
                self.total,
                record.game,
                record.white,
                record.black,
                o.result.as_str(),
                o.termination,
                o.rule,
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
            None => eprintln!("{line}"),
        }
    }

    /// Counts games a resumed run had already played.
    pub fn resume_from(&mut self, done: usize) {
        self.done = done;
        if let Some(bar) = &self.bar {
            bar.set_position(done as u64);
        }
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// Prints a line without tearing the bar.
    pub fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }
}

/// `minimax 5.5/7, greedy 1.0/4`: points over games, best first.
fn standings(rows: &[GameRow]) -> String {
    let mut table: BTreeMap<&str, (f64, u32)> = BTreeMap::new();
    for row in rows {
        let Some(result) = row.result else {
            continue;
        };
        let (w, b) = (result.points(Side::White), result.points(Side::Black));
        for (name, points) in [(row.white.as_str(), w), (row.black.as_str(), b)] {
            let entry = table.entry(name).or_default();
            entry.0 += points;
            entry.1 += 1;
        }
    }
    let mut list: Vec<_> = table.into_iter().collect();
    list.sort_by(|a, b| (b.1 .0 / b.1 .1 as f64).total_cmp(&(a.1 .0 / a.1 .1 as f64)));
    list.iter()
        .map(|(name, (points, games))| format!("{name} {points:.1}/{games}"))
        .collect::<Vec<_>>()
        .join(", ")
}
