//! The plan of a run, stored as `run.json` in its results folder: everything that decides which
//! games are played and how, the opening book's positions included. `--resume` continues a run
//! from it (and checks every game on disk against it), and `merge` checks that the folders it
//! joins are shards of one run.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};
use serde::{Deserialize, Serialize};

use super::schedule::{self, Format, Pairing};
use crate::event::{GameRecord, OpeningRecord};
use crate::game::{SearchLimits, Watchers};
use crate::inject::InjectConfig;
use crate::openings::{self, Opening};
use crate::report::folder;
use crate::rules::RefereeSettings;
use crate::settings::{limits, EngineConfig, OpeningsOrder, Shard};
use crate::timecontrol::TimeControl;
use crate::vocabulary::Variant;

pub use crate::report::folder::RUN_JSON;

/// Everything that decides a run's games. Two plans that are `same_run` play the same games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunPlan {
    /// The blitz-arena version that wrote it.
    pub version: String,
    pub format: Format,
    /// The players, in schedule order, with their full launch configuration.
    pub engines: Vec<EngineConfig>,
    pub tc: TimeControl,
    pub games: u32,
    /// The opening book (absolute path, where it was when the run was planned) and a digest
    /// of its content.
    pub openings: Option<PathBuf>,
    pub openings_digest: Option<String>,
    /// The book's positions, as the games record them: the run, its resumption and `merge` go
    /// by these, so the book file may move or go. Absent in plans of older versions (which
    /// read the book from its path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book: Option<Vec<OpeningRecord>>,
    pub openings_order: OpeningsOrder,
    /// `--openings-start`: the schedule's first opening, 1-based, after the shuffle. A
    /// Polyglot book's lines are drawn from line N on, so its plan says 1.
    #[serde(default = "first_opening", skip_serializing_if = "is_first_opening")]
    pub openings_start: u64,
    /// `--one-game-per-opening`: each opening once, colours alternating (fastchess's
    /// `-games 1 -rounds N`); otherwise each opening twice with colours swapped.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub one_game_per_opening: bool,
    /// The games in fastchess's order (a run of the fastchess command line: round by round,
    /// each pairing's games of the round together; `schedule::fastchess_order`); otherwise
    /// game k of every pairing before game k+1 of any.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fastchess_order: bool,
    /// `--opening-plies` and `--book-depth`, as given: `book` holds the openings they made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opening_plies: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_depth: Option<u32>,
    /// `--variant`: standard chess or Chess960.
    #[serde(default, skip_serializing_if = "Variant::is_standard")]
    pub variant: Variant,
    pub settings: RefereeSettings,
    #[serde(default)]
    pub watchers: Watchers,
    #[serde(default)]
    pub inject: InjectConfig,
    pub limits: SearchLimits,
    pub time_margin_ms: u64,
    pub seed: u64,
    pub shard: Option<Shard>,
    /// `--sprt` as given (`elo0=0,elo1=5,alpha=0.05,beta=0.05`).
    pub sprt: Option<String>,
    /// The SPRT (and the results block) counts the games' wins, draws and losses, not pairs
    /// of games: each opening is played once (`--one-game-per-opening`), or the run is
    /// fastchess's with `-output format=cutechess` or `-report penta=false`, where fastchess
    /// counts games (its `report_penta` off). The run, `stats`, `merge` and report.html all
    /// read it from here.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sprt_by_games: bool,
    /// `--tb`, `--tb-pieces`: the tables' folders and the most pieces adjudicated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tablebase: Option<crate::tablebase::TablebaseSpec>,
    /// Not part of what decides the games: a resumed run may use another.
    pub concurrency: usize,
}

impl RunPlan {
    /// The whole schedule (all shards).
    pub fn full_schedule(&self, book_len: usize) -> Vec<Pairing> {
        schedule::build(
            self.format,
            self.engines.len(),
            self.games,
            schedule::Book {
                len: book_len,
                order: self.openings_order,
                start: self.openings_start,
                once: self.one_game_per_opening,
                fastchess: self.fastchess_order,
            },
            self.seed,
        )
    }

    /// This plan's part of the schedule: its shard, or all of it.
    pub fn schedule(&self, book_len: usize) -> Vec<Pairing> {
        let mut games = self.full_schedule(book_len);
        if let Some(shard) = self.shard {
            games.retain(|p| shard.holds(p.pair));
        }
        games
    }

    /// Whether `other` plays the same games (the shard, concurrency and version aside).
    pub fn same_run(&self, other: &RunPlan) -> Result<(), String> {
        let strip = |p: &RunPlan| RunPlan {
            version: String::new(),
            shard: None,
            concurrency: 0,
            ..p.clone()
        };
        // The book is the same if its content is: where each shard found it does not matter.
        let (mut a, mut b) = (strip(self), strip(other));
        if a.openings_digest.is_some() && a.openings_digest == b.openings_digest {
            b.openings.clone_from(&a.openings);
            if a.book.is_none() || b.book.is_none() {
                (a.book, b.book) = (None, None);
            }
        }
        if a == b {
            return Ok(());
        }
        let differs = [
            ("format", a.format != b.format),
            ("engines", a.engines != b.engines),
            ("tc", a.tc != b.tc),
            ("games", a.games != b.games),
            (
                "openings",
                a.openings != b.openings
                    || a.openings_digest != b.openings_digest
                    || a.book != b.book,
            ),
            ("openings-order", a.openings_order != b.openings_order),
            ("openings-start", a.openings_start != b.openings_start),
            (
                "one-game-per-opening",
                a.one_game_per_opening != b.one_game_per_opening,
            ),
            ("schedule order", a.fastchess_order != b.fastchess_order),
            ("variant", a.variant != b.variant),
            (
                "opening-plies/book-depth",
                a.opening_plies != b.opening_plies || a.book_depth != b.book_depth,
            ),
            ("rules and adjudication", a.settings != b.settings),
            ("watchers", a.watchers != b.watchers),
            ("injection", a.inject != b.inject),
            ("nodes/depth", a.limits != b.limits),
            ("time-margin", a.time_margin_ms != b.time_margin_ms),
            ("seed", a.seed != b.seed),
            (
                "sprt",
                a.sprt != b.sprt || a.sprt_by_games != b.sprt_by_games,
            ),
        ];
        let names: Vec<&str> = differs
            .iter()
            .filter(|(_, d)| *d)
            .map(|(n, _)| *n)
            .collect();
        Err(format!("they differ in {}", names.join(", ")))
    }

    /// The opening book: the positions stored in the plan, or (a plan of an older version)
    /// the book file, which must not have changed since the run was planned.
    pub fn load_book(&self) -> anyhow::Result<Vec<Opening>> {
        if let Some(book) = &self.book {
            return book.iter().map(opening_of).collect();
        }
        let Some(path) = &self.openings else {
            return Ok(vec![Opening::startpos()]);
        };
        if let Some(expected) = &self.openings_digest {
            if &digest(path)? != expected {
                bail!(
                    "{}: the opening book changed since the run was planned; the remaining games would not be the planned ones",
                    path.display()
                );
            }
        }
        Ok(openings::load_openings(path)?)
    }

    /// A check of a game found on disk against this plan: it must be the game the plan
    /// schedules under its number (this shard's), with the same pair, engines and colours,
    /// opening, rules, time controls and seed. The error says what differs.
    pub fn game_check<'a>(
        &'a self,
        book: &'a [Opening],
    ) -> impl Fn(&GameRecord) -> Result<(), String> + 'a {
        let schedule: std::collections::HashMap<u64, Pairing> = self
            .schedule(book.len())
            .into_iter()
            .map(|p| (p.game, p))
            .collect();
        move |record: &GameRecord| {
            let Some(p) = schedule.get(&record.game) else {
                return Err(format!(
                    "the plan has no game {}{}",
                    record.game,
                    self.shard
                        .map(|s| format!(" in shard {s}"))
                        .unwrap_or_default()
                ));
            };
            let (white, black) = (&self.engines[p.white], &self.engines[p.black]);
            let opening = book[p.opening].record();
            let tc = |e: &EngineConfig| e.tc.unwrap_or(self.tc);
            let differs = [
                ("pair", record.pair.to_string(), p.pair.to_string()),
                ("white", record.white.clone(), white.name.clone()),
                ("black", record.black.clone(), black.name.clone()),
                ("opening", record.opening.name.clone(), opening.name.clone()),
                (
                    "opening position",
                    format!(
                        "{:?} {:?} {:?}",
                        record.opening.fen, record.opening.moves, record.opening.variant
                    ),
                    format!(
                        "{:?} {:?} {:?}",
                        opening.fen, opening.moves, opening.variant
                    ),
                ),
                (
                    "ruleset",
                    record.ruleset.to_string(),
                    self.settings.ruleset.to_string(),
                ),
                (
                    "white's tc",
                    record.tc_white.to_string(),
                    tc(white).to_string(),
                ),
                (
                    "black's tc",
                    record.tc_black.to_string(),
                    tc(black).to_string(),
                ),
                ("seed", record.seed.to_string(), self.seed.to_string()),
            ];
            match differs.iter().find(|(_, found, planned)| found != planned) {
                Some((what, found, planned)) => {
                    Err(format!("its {what} is {found}, the plan's is {planned}"))
                }
                None => Ok(()),
            }
        }
    }

    pub fn save(&self, dir: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a plan serialises");
        folder::replace(&dir.join(RUN_JSON), (text + "\n").as_bytes())
    }

    pub fn load(dir: &Path) -> anyhow::Result<RunPlan> {
        folder::check_is_folder(dir)?;
        let path = dir.join(RUN_JSON);
        let text = match folder::open_read(&path)
            .and_then(|f| std::io::read_to_string(std::io::BufReader::new(f)))
        {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let files = folder::arena_files(dir);
                if !files.is_empty() {
                    return Err(folder::no_plan_error(dir, &files));
                }
                bail!(
                    "{}: not a blitz-arena results folder (no {RUN_JSON})",
                    dir.display()
                )
            }
            Err(e) => bail!("{}: cannot read: {e}", path.display()),
        };
        let plan: RunPlan = serde_json::from_str(&text)
            .map_err(|e| anyhow!("{}: not a valid run plan: {e}", path.display()))?;
        plan.check_limits()
            .map_err(|why| anyhow!("{}: not a valid run plan: {why}", path.display()))?;
        Ok(plan)
    }

    /// The plan's numbers within the ranges a new run's are held to (`settings::limits`), and
    /// what a schedule needs (two engines, a book with a position): a run.json edited or
    /// damaged past them would ask for a schedule larger than memory, or index nothing.
    fn check_limits(&self) -> Result<(), String> {
        /// `v` within `limit`, else why, named by the option.
        fn within<T>(limit: limits::Limit<T>, v: T) -> Result<(), String>
        where
            T: Copy + PartialOrd + std::fmt::Display + std::str::FromStr,
        {
            limit
                .check(v)
                .map(drop)
                .map_err(|why| format!("{}: {why}", limit.option))
        }
        if self.engines.len() < 2 {
            return Err(format!(
                "it names {} engine(s); a run plays two or more",
                self.engines.len()
            ));
        }
        within(limits::GAMES, self.games)?;
        let encounters = self.format.encounters(self.engines.len() as u64);
        let total = encounters.saturating_mul(u64::from(self.games));
        if total > limits::RUN_GAMES {
            return Err(format!(
                "{total} games; a run holds at most {}",
                limits::RUN_GAMES
            ));
        }
        if self.book.as_ref().is_some_and(Vec::is_empty) {
            return Err("book: it holds no position".to_string());
        }
        within(limits::OPENINGS_START, self.openings_start)?;
        if let Some(plies) = self.opening_plies {
            within(limits::OPENING_PLIES, plies)?;
        }
        if let Some(depth) = self.book_depth {
            within(limits::BOOK_DEPTH, depth)?;
        }
        within(limits::TIME_MARGIN, self.time_margin_ms)?;
        within(limits::CONCURRENCY, self.concurrency)
    }
}

fn first_opening() -> u64 {
    1
}

fn is_first_opening(start: &u64) -> bool {
    *start == 1
}

/// An opening as a plan stores it -> the opening the games start from.
fn opening_of(record: &OpeningRecord) -> anyhow::Result<Opening> {
    let root = record
        .root()
        .map_err(|e| anyhow!("{}: {e}", record.fen.as_deref().unwrap_or_default()))
        .context("run.json: a stored opening is not a legal position")?;
    Ok(Opening {
        name: record.name.clone(),
        root,
        root_fen: record.fen.clone(),
        moves: record.moves.clone(),
    })
}

/// A short digest of a file's content (FNV-1a, 64 bits): enough to notice that an opening book
/// changed between a run and its resumption.
pub fn digest(path: &Path) -> anyhow::Result<String> {
    let bytes = crate::files::read_named(path)
        .with_context(|| format!("{}: cannot read", path.display()))?;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    Ok(format!("fnv1a64:{hash:016x}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_schedule_into_disjoint_slices_of_whole_pairs() {
        let all = schedule::build(
            Format::Gauntlet,
            4,
            10,
            schedule::Book {
                len: 7,
                order: OpeningsOrder::Random,
                start: 1,
                once: false,
                fastchess: false,
            },
            3,
        );
        let shards: Vec<Vec<Pairing>> = (1..=3)
            .map(|k| {
                let shard = Shard { index: k, count: 3 };
                all.iter()
                    .filter(|p| shard.holds(p.pair))
                    .copied()
                    .collect()
            })
            .collect();
        let mut joined: Vec<u64> = shards.iter().flatten().map(|p| p.game).collect();
        joined.sort();
        assert_eq!(joined, all.iter().map(|p| p.game).collect::<Vec<_>>());
        for shard in &shards {
            assert!(shard.len() >= all.len() / 3 - 2);
            for p in shard {
                assert_eq!(
                    shard.iter().filter(|q| q.pair == p.pair).count(),
                    2,
                    "pairs stay whole"
                );
            }
        }
    }
}
