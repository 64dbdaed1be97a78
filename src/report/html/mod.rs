//! `report.html`: one self-contained page (inline SVG drawn here, a few lines of inline script
//! that check the page, nothing fetched) of a run's standings, its match as it went, time
//! usage per engine, terminations and injections, and the clock chart and ruling of each game
//! worth looking at.
//!
//! A run rewrites it after finished games (at most once a second) and at the end, from what
//! [`HtmlReport`] keeps game by game and the run's [`Tally`]; `blitz-arena report` builds the
//! same from the folder's files ([`from_folders`]). Large runs are aggregated: the page holds
//! the sections of the first [`FIRST_GAMES`] games and of every game that ended on the clock or
//! holds a flag fall, an injection, an illegal move, a penalty or an engine fault, up to
//! [`MAX_SECTIONS`] in all.

mod board;
mod clocks;
mod injected;
mod overview;
mod page;
mod rows;
pub mod svg;
pub mod tally;
mod words;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::anyhow;

use self::rows::RowCounts;
use self::tally::{add_move_times, BinMemo, MoveTimes, Series};
use super::csv::{read_rows_reporting, torn_warning, GameRow};
use super::folder::{tmp_path, EVENTS_JSONL};
use super::{EventsIndex, Sprt, Tally};
use crate::event::{BySide, GameRecord};
use crate::vocabulary::Ruleset;

pub use clocks::{game_section, is_notable};

/// The report's file name in a results folder.
pub const REPORT_HTML: &str = "report.html";
/// Games shown in full whatever happened in them: the first ones of the run.
pub const FIRST_GAMES: usize = 30;
/// At most this many game sections on one page.
pub const MAX_SECTIONS: usize = 200;
/// A run rewrites its report at most this often (and always at its end).
pub const REWRITE_EVERY: Duration = Duration::from_secs(1);
/// ... and, as the page grows with the games (a microsecond a game), at most once in this many
/// times the last write took: the page costs the arena at most a twentieth of a core however
/// long the run (at 48,000 games a write took 59 ms on this project's machine).
const REWRITE_SHARE: u32 = 20;

/// Whether the page is due again, `since` its last write, which took `took`.
fn rewrite_due(since: Duration, took: Duration) -> bool {
    since >= REWRITE_EVERY.max(took * REWRITE_SHARE)
}

/// The same game re-ruled under every ruleset: (ruleset, ruling in words).
pub type Rerule = Box<dyn Fn(&GameRecord) -> Vec<(String, String)> + Send + Sync>;

/// What the report shows of a run's plan (`run.json`), built by the caller: the report needs
/// no more of the plan than this.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlanView {
    /// The players, in schedule order.
    pub engines: Vec<String>,
    /// The time control in words, per engine where they differ (`5 minutes, no increment`).
    pub tc: String,
    pub ruleset: Option<Ruleset>,
    pub seed: Option<u64>,
    /// `--sprt` as given.
    pub sprt: Option<String>,
    /// The SPRT counts games, not pairs (the plan's `sprt_by_games`).
    pub sprt_by_games: bool,
}

/// What the report keeps of a run's games, added one at a time.
pub struct HtmlReport {
    title: String,
    /// The plan's view, when the run's plan is known.
    plan: Option<PlanView>,
    /// What the first game recorded of the run (time control, ruleset, seed), for a report
    /// without a plan.
    first: Option<PlanView>,
    /// The engines in the order they got their colours (the plan's first): an engine has
    /// one colour on the whole page.
    colours: Vec<String>,
    /// The run's own SPRT; without one, the match's LLR is drawn for a default test.
    sprt_given: bool,
    series: Series,
    times: BTreeMap<String, MoveTimes>,
    bins: BinMemo,
    /// (game, its section), in the order added.
    sections: Vec<(u64, String)>,
    /// Games counted, and how many of them were notable (see [`is_notable`]).
    games: u64,
    notable: u64,
    rerule: Option<Rerule>,
    /// When the page was last written, and how long that took.
    last_write: Option<(Instant, Duration)>,
    /// The counts of the run's rows as of the last write.
    counts: RowCounts,
}

/// The test drawn for a two-engine match without `--sprt`: fishtest's usual bounds.
const DEFAULT_SPRT: &str = "elo0=0,elo1=5,alpha=0.05,beta=0.05";

impl HtmlReport {
    /// A report of a run: its two engines (for the match charts; the first ones seen when
    /// None) and its SPRT.
    pub fn new(title: &str, engines: Option<(String, String)>, sprt: Option<Sprt>) -> HtmlReport {
        let (a, b) = engines.map_or((None, None), |(a, b)| (Some(a), Some(b)));
        HtmlReport {
            title: title.to_string(),
            sprt_given: sprt.is_some(),
            series: Series::new(
                a,
                b,
                sprt.unwrap_or_else(|| DEFAULT_SPRT.parse().expect("a valid test")),
            ),
            times: BTreeMap::new(),
            bins: BinMemo::default(),
            sections: Vec::new(),
            games: 0,
            notable: 0,
            rerule: None,
            last_write: None,
            counts: RowCounts::default(),
            plan: None,
            first: None,
            colours: Vec::new(),
        }
    }

    /// `name`'s colour on the page, given it when first seen.
    fn colour(&mut self, name: &str) -> &'static str {
        let i = match self.colours.iter().position(|c| c == name) {
            Some(i) => i,
            None => {
                self.colours.push(name.to_string());
                self.colours.len() - 1
            }
        };
        svg::PALETTE[i % svg::PALETTE.len()]
    }

    /// The colour `name` was given (every engine counted has one).
    fn colour_of(&self, name: &str) -> &'static str {
        let i = self.colours.iter().position(|c| c == name).unwrap_or(0);
        svg::PALETTE[i % svg::PALETTE.len()]
    }

    /// The report of the run planned in `plan`, titled by its folder.
    pub fn for_plan(plan: PlanView, dir: &Path) -> HtmlReport {
        let engines = match plan.engines.as_slice() {
            [a, b] => Some((a.clone(), b.clone())),
            _ => None,
        };
        let sprt = plan.sprt.as_deref().and_then(|s| s.parse().ok());
        let mut report = HtmlReport::new(&title_of(&[dir.to_path_buf()]), engines, sprt);
        report.series.by_games = plan.sprt_by_games;
        for name in &plan.engines {
            report.colour(name);
        }
        report.plan = Some(plan);
        report
    }

    /// Shows each game's section with its ruling under every ruleset.
    pub fn with_rerule(mut self, rerule: Rerule) -> HtmlReport {
        self.rerule = Some(rerule);
        self
    }

    /// Counts one finished game (`row` is its `games.csv` row).
    pub fn add(&mut self, record: &GameRecord, row: &GameRow) {
        self.add_row(row);
        if self.first.is_none() {
            self.first = Some(PlanView {
                engines: Vec::new(),
                tc: format!("{} ({})", record.tc_white, record.tc_white.in_words()),
                ruleset: Some(record.ruleset),
                seed: Some(record.seed),
                sprt: None,
                sprt_by_games: false,
            });
        }
        let colours = BySide::new(self.colour(&record.white), self.colour(&record.black));
        add_move_times(&mut self.times, &mut self.bins, record);
        let notable = is_notable(record);
        self.notable += u64::from(notable);
        let first = self.games as usize <= FIRST_GAMES;
        if (first || notable) && self.sections.len() < MAX_SECTIONS {
            let rulings = self.rerule.as_ref().map(|f| f(record)).unwrap_or_default();
            self.sections
                .push((record.game, game_section(record, &rulings, colours)));
        }
    }

    /// Counts a game whose event record is missing (only its row is known).
    pub fn add_row(&mut self, row: &GameRow) {
        self.colour(&row.white);
        self.colour(&row.black);
        self.games += 1;
        self.series.add(row);
    }

    /// The page, for the games counted so far; `tally` is the run's (the same games).
    pub fn render(&self, tally: &Tally) -> String {
        page::render(self, tally, &RowCounts::of(&tally.rows))
    }

    /// Writes `report.html` into `dir` (through a temporary file and a rename, so a browser
    /// never reads half a page).
    pub fn write(&mut self, dir: &Path, tally: &Tally) -> anyhow::Result<()> {
        self.write_to(&dir.join(REPORT_HTML), tally)
    }

    pub fn write_to(&mut self, path: &Path, tally: &Tally) -> anyhow::Result<()> {
        let start = Instant::now();
        self.counts.catch_up(&tally.rows);
        let html = page::render(self, tally, &self.counts);
        let tmp = tmp_path(path);
        let _ = std::fs::remove_file(&tmp);
        let written = super::folder::create_new(&tmp)
            .and_then(|mut f| f.write_all(html.as_bytes()))
            .and_then(|()| std::fs::rename(&tmp, path));
        self.last_write = Some((Instant::now(), start.elapsed()));
        written.map_err(|e| {
            // A full disk leaves no half-written temporary file behind.
            let _ = std::fs::remove_file(&tmp);
            anyhow!("cannot write {}: {e}", path.display())
        })
    }

    /// Writes the report unless it was written less than [`REWRITE_EVERY`] ago, or less than
    /// twenty times as long ago as that write took.
    pub fn write_after_game(&mut self, dir: &Path, tally: &Tally) -> anyhow::Result<()> {
        if self
            .last_write
            .is_some_and(|(at, took)| !rewrite_due(at.elapsed(), took))
        {
            return Ok(());
        }
        self.write(dir, tally)
    }
}

fn title_of(dirs: &[PathBuf]) -> String {
    dirs.iter()
        .map(|d| {
            std::path::absolute(d)
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| d.display().to_string())
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The report of the results folders `dirs` (a run, or the shards of one), read from their
/// files: `games.csv` decides which games count, `events.jsonl` gives their records; `plan` is
/// the view of the run's plan (of the first folder's `run.json`, when there is one).
/// The third value holds a warning line for each folder whose files were damaged (a torn
/// line, records missing), as `stats` warns of them.
pub fn from_folders(
    dirs: &[PathBuf],
    plan: Option<PlanView>,
    rerule: Option<Rerule>,
) -> anyhow::Result<(HtmlReport, Tally, Vec<String>)> {
    let mut report = match plan {
        Some(plan) => HtmlReport::for_plan(plan, &dirs[0]),
        None => HtmlReport::new("", None, None),
    };
    report.title = title_of(dirs);
    report.rerule = rerule;
    let mut tally = Tally::default();
    let mut warnings = Vec::new();
    for dir in dirs {
        let (rows, torn) = read_rows_reporting(dir)?;
        warnings.extend(torn_warning(dir, torn));
        let listed = rows.len();
        let mut missing = 0;
        let events = dir.join(EVENTS_JSONL);
        // A link by that name, even one to nothing, is refused by the scan, never taken for a
        // missing file (`exists` would follow it).
        let index = if events.symlink_metadata().is_ok() {
            Some(EventsIndex::scan(&events)?)
        } else {
            None
        };
        for row in rows {
            match index
                .as_ref()
                .map(|i| i.record(row.game))
                .transpose()?
                .flatten()
            {
                Some(record) => {
                    report.add(&record, &row);
                    tally.add(&record, row);
                }
                None => {
                    missing += usize::from(index.is_some());
                    report.add_row(&row);
                    tally.rows.push(row);
                }
            }
        }
        if let Some(damage) = index.and_then(|i| i.damage(listed, missing)) {
            warnings.push(format!("{}: {damage}", dir.display()));
        }
    }
    Ok((report, tally, warnings))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameResult, Side, Termination};
    use crate::report::pgn::tests::{flag_game, Builder};

    /// The page of a run of `records`.
    fn page_of(name: &str, records: impl IntoIterator<Item = GameRecord>) -> String {
        let mut report = HtmlReport::new(name, None, None);
        let mut tally = Tally::default();
        for record in records {
            let row = GameRow::from_record(&record);
            report.add(&record, &row);
            tally.add(&record, row);
        }
        report.render(&tally)
    }

    /// Game `game` of alpha and beta: two moves each, then a draw at the move limit.
    fn two_moves_each(game: u64) -> GameRecord {
        Builder::new(game, "alpha", "beta")
            .moves(Side::White, 0, "d2d4 d7d5 c2c4 e7e6")
            .end(
                GameResult::Draw,
                Termination::MaxMoves,
                "",
                "2 moves played",
            )
    }

    /// A page is rewritten once a second while it is quick to write, and no more than a
    /// twentieth of the time once it grows slow.
    #[test]
    fn a_slow_page_is_rewritten_less_often() {
        let ms = Duration::from_millis;
        assert!(!rewrite_due(ms(999), ms(10)));
        assert!(rewrite_due(ms(1000), ms(10)));
        assert!(rewrite_due(ms(1000), ms(50)));
        assert!(!rewrite_due(ms(1999), ms(100)));
        assert!(rewrite_due(ms(2000), ms(100)));
        assert!(!rewrite_due(ms(9000), ms(500)));
    }

    /// An engine that answers in microseconds has its think time drawn in microseconds: the
    /// chart's medians are its moves' 30 µs (the bin's middle, 0.028 ms), not half a
    /// millisecond (the axis's labels: `svg`'s tests).
    #[test]
    fn microsecond_moves_are_drawn_as_microseconds() {
        let mut record = two_moves_each(1);
        for event in &mut record.events {
            if let crate::event::Event::Move { think_us, .. } = event {
                *think_us = 30;
            }
        }
        let html = page_of("quick", [record]);
        assert!(
            html.contains(r#"data-engine="alpha" data-medians-ms="0.028 0.028""#),
            "{html}"
        );
        assert!(!html.contains(r#"data-medians-ms="0.500"#), "{html}");
    }

    /// When every game ended with the clocks they started with (a max-moves run of engines
    /// that answer at once), each engine's box plot is drawn inside the chart's frame, where
    /// it can be seen, not on the frame's right edge; and the axis reaches a tick past it.
    #[test]
    fn clocks_that_all_end_alike_are_drawn_inside_the_frame() {
        let html = page_of("alike", (1..=4).map(two_moves_each));
        let chart = &html[html.find(r#"data-chart="time-left""#).unwrap()..];
        let chart = &chart[..chart.find("</svg>").unwrap()];
        let number = |text: &str, attribute: &str| -> f64 {
            let at = text.find(&format!(" {attribute}=\"")).unwrap() + attribute.len() + 3;
            text[at..].split('"').next().unwrap().parse().unwrap()
        };
        let right = number(chart, "x") + number(chart, "width");
        let mut boxes = 0;
        for g in chart.split(r#"<g class="timeleft""#).skip(1) {
            let rect = &g[g.find("<rect").unwrap()..];
            let (x, width) = (number(rect, "x"), number(rect, "width"));
            assert!(
                x + width < right - 10.0,
                "box at {x}+{width}, frame ends at {right}"
            );
            boxes += 1;
        }
        assert_eq!(boxes, 2, "{chart}");
        let last_tick = chart
            .split(r#"text-anchor="middle">"#)
            .filter_map(|t| t.split('<').next()?.parse::<f64>().ok())
            .fold(f64::MIN, f64::max);
        let left_s = number(chart, "data-max-ms") / 1000.0;
        assert!(
            last_tick >= left_s,
            "ticks end at {last_tick}, clocks at {left_s}"
        );
    }

    /// A page written during a run, from counts kept as the games came, is the page of all
    /// the games so far counted afresh (but for the minute it was written).
    #[test]
    fn a_page_written_game_by_game_is_the_page_of_the_games_so_far() {
        let without_time = |page: &str| {
            let at = page.find(" · written ").unwrap();
            format!("{}{}", &page[..at], &page[at + 40..])
        };
        let dir =
            std::env::temp_dir().join(format!("blitz-arena-html-running-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut report = HtmlReport::new("running", None, None);
        let mut tally = Tally::default();
        for game in [3, 1, 2, 6, 4, 5, 9, 7, 8, 10] {
            let record = if game % 3 == 0 {
                flag_game(game)
            } else {
                two_moves_each(game)
            };
            let row = GameRow::from_record(&record);
            report.add(&record, &row);
            tally.add(&record, row);
            report.write(&dir, &tally).unwrap();
            let written = std::fs::read_to_string(dir.join(REPORT_HTML)).unwrap();
            assert_eq!(without_time(&written), without_time(&report.render(&tally)));
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A large run's page stays small: a bounded number of game sections, whatever the run.
    #[test]
    fn a_large_run_shows_a_bounded_number_of_games() {
        let html = page_of("big", (1..=2000).map(flag_game));
        assert_eq!(
            html.matches(r#"<section class="game""#).count(),
            MAX_SECTIONS
        );
        assert!(html.len() < 2_000_000, "{} bytes", html.len());
        assert!(html.contains(r#"data-shown="200" data-games="2000""#));
    }
}
