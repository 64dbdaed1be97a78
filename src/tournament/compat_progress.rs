//! The run's progress on stdout in fastchess's or cutechess-cli's format (`--output-format`):
//! decides when each line is due, as those tools do, and counts what their blocks show. The
//! lines themselves come from `report::compat_console`.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use crate::console::say;
use crate::event::{Event, GameRecord, GameResult, Termination};
use crate::report::compat_console::{
    self as fmt, MatchLabel, OutputFormat, PairStats, SprtNow, Wdl,
};
use crate::report::{GameRow, Sprt};

/// What the compatible output needs to know about the run.
#[derive(Clone, Debug)]
pub struct CompatSettings {
    pub format: OutputFormat,
    /// Results block every N pairs (fastchess) or games (cutechess); 0: only at the end;
    /// None: the tool's default (fastchess 10, cutechess 0).
    pub rating_interval: Option<u32>,
    /// cutechess's score line every N games (default 1).
    pub score_interval: Option<u32>,
    /// The engines, the first two being the match (or SPRT) pair.
    pub engines: Vec<String>,
    pub label: MatchLabel,
    pub sprt: Option<Sprt>,
    /// Each opening is played twice with colours swapped, so fastchess reports pentanomial
    /// counts; otherwise (`-games 1`) wins, draws and losses, its rating interval in games.
    pub penta: bool,
}

pub struct CompatConsole {
    s: CompatSettings,
    total: usize,
    started_at: Instant,
    finished: usize,
    /// First game of each pair whose second game has not finished: (seed, pair) -> row.
    waiting: HashMap<(u64, u64), GameRow>,
    /// Complete pairs per engine, from its side.
    per_engine: BTreeMap<String, PairStats>,
    /// Complete pairs of the first engine against the second, from the first's side.
    h2h: PairStats,
    /// Every game of the first engine against the second, from the first's side.
    wdl: Wdl,
    /// `finished` when the last results block was printed.
    block_at: Option<usize>,
    sprt_done: bool,
    /// Time losses and crashes per engine, in the order they first happened (fastchess's
    /// `Player:` block).
    players: Vec<(String, u32, u32)>,
}

impl CompatConsole {
    pub fn new(settings: CompatSettings, total: usize) -> CompatConsole {
        CompatConsole {
            s: settings,
            total,
            started_at: Instant::now(),
            finished: 0,
            waiting: HashMap::new(),
            per_engine: BTreeMap::new(),
            h2h: PairStats::default(),
            wdl: Wdl::default(),
            block_at: None,
            sprt_done: false,
            players: Vec::new(),
        }
    }

    fn rating_interval(&self) -> u32 {
        self.s.rating_interval.unwrap_or(match self.s.format {
            OutputFormat::Fastchess => 10,
            _ => 0,
        })
    }

    pub fn game_started(&self, game: u64, white: &str, black: &str) {
        say!("{}", fmt::started(game, self.total, white, black));
    }

    /// Counts games a resumed run had already played, printing nothing.
    pub fn resume_from(&mut self, rows: &[GameRow]) {
        for row in rows {
            self.count(row);
        }
    }

    /// What fastchess prints while a game is ruled, before the game's PGN is written (and its
    /// CRC line printed) and before `Finished game`: an illegal move's warnings, and the
    /// warnings for an engine that stalls (it does not answer fastchess's `isready`, twice).
    /// Counts the engine's time loss, or its crash or stall, for the `Player:` block.
    pub fn game_ruled(&mut self, record: &GameRecord) {
        let Some((result, termination, _)) = fmt::fastchess_ending(record) else {
            return;
        };
        let Some(side) = fmt::loser(result) else {
            return;
        };
        let name = record.engine(side).to_string();
        let mut lines = Vec::new();
        match termination {
            Termination::IllegalMove => {
                let uci = record.events.iter().rev().find_map(|e| match e {
                    Event::IllegalMove { side: s, uci, .. } if *s == side => Some(uci.as_str()),
                    _ => None,
                });
                lines.extend(fmt::illegal_move_warnings(uci.unwrap_or(""), &name));
            }
            Termination::EngineStall => {
                lines.extend([fmt::not_responsive(&name), fmt::not_responsive(&name)]);
                self.tally(&name, 0, 1);
            }
            Termination::EngineCrash => self.tally(&name, 0, 1),
            Termination::Flag | Termination::BothFlags => self.tally(&name, 1, 0),
            _ => {}
        }
        if self.s.format == OutputFormat::Fastchess {
            for line in lines {
                say!("{line}");
            }
        }
    }

    fn tally(&mut self, name: &str, timeouts: u32, crashed: u32) {
        match self.players.iter_mut().find(|(n, ..)| n == name) {
            Some(entry) => {
                entry.1 += timeouts;
                entry.2 += crashed;
            }
            None => self.players.push((name.to_string(), timeouts, crashed)),
        }
    }

    pub fn game_finished(&mut self, record: &GameRecord, row: &GameRow) {
        let ending = fmt::fastchess_ending(record);
        let overrun_ms = ending.map_or(0, |e| e.2);
        let ending = ending.map(|(result, termination, _)| (result, termination));
        say!(
            "{}",
            fmt::finished(
                self.s.format,
                record.game,
                &record.white,
                &record.black,
                ending,
                overrun_ms
            )
        );
        let completed_pair = self.count(row);
        let all_played = self.finished >= self.total;
        let interval = self.rating_interval() as usize;
        match self.s.format {
            OutputFormat::Cutechess => {
                let score_every = self.s.score_interval.unwrap_or(1).max(1) as usize;
                if self.two_engines() && (self.finished % score_every == 0 || all_played) {
                    say!("{}", self.score_line());
                }
                if (interval > 0 && self.finished % interval == 0) || all_played {
                    self.block();
                }
            }
            _ => {
                // fastchess counts its rating interval in pairs, by the pair's number, and
                // prints once that pair is complete (in games without pentanomial counts).
                let due = if self.s.penta {
                    completed_pair.is_some_and(|p| interval > 0 && p % interval as u64 == 0)
                } else {
                    interval > 0 && self.finished % interval == 0
                };
                if due || all_played {
                    self.block();
                }
            }
        }
        self.check_sprt();
    }

    /// After the last game: the final block if the last game did not print one, then the
    /// line the managers wait for.
    pub fn finish(&mut self) {
        if self.block_at != Some(self.finished) && self.finished > 0 {
            self.block();
        }
        if self.s.format == OutputFormat::Fastchess {
            for line in fmt::player_block(&self.players) {
                say!("{line}");
            }
            // Stopped before every game was played, and not by the SPRT: Ctrl-C.
            if self.finished < self.total && !self.sprt_done {
                say!("{}", fmt::INTERRUPTED);
            }
        }
        say!("{}", fmt::FINISHED_MATCH);
        if self.s.format == OutputFormat::Fastchess {
            say!("{}", fmt::total_time(self.started_at.elapsed().as_secs()));
            say!("");
        }
    }

    fn two_engines(&self) -> bool {
        self.s.engines.len() == 2
    }

    fn score_line(&self) -> String {
        fmt::cutechess_score(&self.s.engines[0], &self.s.engines[1], &self.wdl)
    }

    fn sprt_now(&self) -> Option<SprtNow<'_>> {
        let sprt = self.s.sprt.as_ref()?;
        Some(SprtNow {
            sprt,
            llr: sprt.llr(self.h2h.ptnml()),
        })
    }

    fn block(&mut self) {
        self.block_at = Some(self.finished);
        let lines = match (self.s.format, self.two_engines()) {
            (OutputFormat::Cutechess, true) => {
                let mut lines = vec![fmt::cutechess_elo(&self.wdl)];
                lines.extend(self.sprt_now().map(fmt::cutechess_sprt));
                lines
            }
            (_, true) if !self.s.penta => fmt::fastchess_h2h_wdl(
                &self.s.engines[0],
                &self.s.engines[1],
                &self.s.label,
                &self.wdl,
            ),
            (_, true) => fmt::fastchess_h2h(
                &self.s.engines[0],
                &self.s.engines[1],
                &self.s.label,
                &self.h2h,
                self.sprt_now(),
            ),
            (_, false) => {
                let engines: Vec<_> = self
                    .s
                    .engines
                    .iter()
                    .map(|e| {
                        (
                            e.clone(),
                            self.per_engine.get(e).copied().unwrap_or_default(),
                        )
                    })
                    .collect();
                fmt::fastchess_table(&engines, None)
            }
        };
        for line in lines {
            say!("{line}");
        }
    }

    /// fastchess stops a match the moment its SPRT decides: the block, then the decision.
    fn check_sprt(&mut self) {
        let Some(now) = self.sprt_now() else {
            return;
        };
        if self.sprt_done || !now.sprt.decide(now.llr).is_finished() {
            return;
        }
        let done = fmt::fastchess_sprt_done(now.sprt, now.llr >= now.sprt.bounds().1);
        self.sprt_done = true;
        if self.s.format == OutputFormat::Fastchess {
            if self.block_at != Some(self.finished) {
                self.block();
            }
            say!("{done}");
        }
    }

    /// Counts one finished game; returns its pair's number when this game completed the pair.
    fn count(&mut self, row: &GameRow) -> Option<u64> {
        self.finished += 1;
        let result = row.result?;
        let (first, second) = match self.s.engines.as_slice() {
            [a, b, ..] => (a.as_str(), b.as_str()),
            _ => ("", ""),
        };
        if let Some(side) = row.side_of(first) {
            if row.side_of(second).is_some() && first != second {
                self.wdl.add(result.points(side));
            }
        }
        if row.pair == 0 {
            return None;
        }
        let key = (row.seed, row.pair);
        let Some(earlier) = self.waiting.remove(&key) else {
            self.waiting.insert(key, row.clone());
            return None;
        };
        let earlier_result = earlier.result?;
        let engine = &row.white;
        let points = |r: GameResult, g: &GameRow| match g.side_of(engine) {
            Some(side) => r.points(side),
            None => 0.0,
        };
        let mut pair = PairStats::default();
        pair.add_pair(points(earlier_result, &earlier), points(result, row));
        let other = &row.black;
        self.per_engine
            .entry(engine.clone())
            .or_default()
            .add(&pair);
        self.per_engine
            .entry(other.clone())
            .or_default()
            .add(&pair.mirrored());
        if engine == first && other == second {
            self.h2h.add(&pair);
        } else if engine == second && other == first {
            self.h2h.add(&pair.mirrored());
        }
        Some(row.pair)
    }
}
