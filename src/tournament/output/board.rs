//! What every output counts of a run as its games finish, and when a line of the compatible
//! formats is due: the games of the first engine against the second, complete pairs per engine,
//! time losses and crashes, and each engine's points for the native standings.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use super::OutputSettings;
use crate::event::{GameRecord, GameResult, Side};
use crate::report::compat_console::{self as fmt, PairStats, Wdl};
use crate::report::{GameRow, SprtCounts};

pub struct Board {
    pub s: OutputSettings,
    /// The games the run plays in all.
    pub total: usize,
    pub started_at: Instant,
    /// Games finished so far (a resumed run's included).
    pub finished: usize,
    /// First game of each pair whose second game has not finished: (seed, pair) -> row.
    waiting: HashMap<(u64, u64), GameRow>,
    /// Complete pairs per engine, from its side.
    pub per_engine: BTreeMap<String, PairStats>,
    /// Complete pairs of the first engine against the second, from the first's side.
    pub h2h: PairStats,
    /// Every game of the first engine against the second, from the first's side.
    pub wdl: Wdl,
    /// Every game per engine, from its side.
    pub engine_wdl: BTreeMap<String, Wdl>,
    /// Every game of each pairing, from the side of its engine that comes first in the list.
    pub pair_wdl: HashMap<(String, String), Wdl>,
    /// Time losses and crashes per engine, in the order they first happened (fastchess's
    /// `Player:` block).
    pub players: Vec<(String, u32, u32)>,
    /// Points and games per engine so far, kept up to date game by game (a run of 100k games
    /// must not recount them all after each one).
    pub points: BTreeMap<String, (f64, u32)>,
    /// `finished` when the last results block was printed.
    pub block_at: Option<usize>,
    /// The SPRT has decided.
    pub sprt_done: bool,
}

impl Board {
    pub fn new(settings: OutputSettings, total: usize) -> Board {
        Board {
            s: settings,
            total,
            started_at: Instant::now(),
            finished: 0,
            waiting: HashMap::new(),
            per_engine: BTreeMap::new(),
            h2h: PairStats::default(),
            wdl: Wdl::default(),
            engine_wdl: BTreeMap::new(),
            pair_wdl: HashMap::new(),
            players: Vec::new(),
            points: BTreeMap::new(),
            block_at: None,
            sprt_done: false,
        }
    }

    /// The engines of a two-engine match (the SPRT's pair), None with more engines.
    pub fn pair(&self) -> Option<(&str, &str)> {
        match self.s.engines.as_slice() {
            [a, b] => Some((a, b)),
            _ => None,
        }
    }

    /// Counts a ruled game's time loss or crash for the `Player:` block.
    pub fn tally(&mut self, record: &GameRecord) {
        let Some((name, timeouts, crashed)) = fmt::player_fault(record) else {
            return;
        };
        match self.players.iter_mut().find(|(n, ..)| n == name) {
            Some(entry) => {
                entry.1 += timeouts;
                entry.2 += crashed;
            }
            None => self.players.push((name.to_string(), timeouts, crashed)),
        }
    }

    /// The results block every N pairs (with pentanomial counts) or games; 0: only at the end;
    /// fastchess's 10 by default, in either format (cutechess-cli's command line gives 0).
    fn rating_interval(&self) -> u64 {
        u64::from(self.s.rating_interval.unwrap_or(10))
    }

    pub fn all_played(&self) -> bool {
        self.finished >= self.total
    }

    /// Whether the score line is due after the game just counted.
    pub fn score_due(&self) -> bool {
        let every = self.s.score_interval.unwrap_or(1).max(1) as usize;
        self.finished % every == 0 || self.all_played()
    }

    /// Whether the results block is due after the game just counted (`completed_pair`: the
    /// pair's number when that game completed it). fastchess counts its rating interval in
    /// pairs, by the pair's number, and prints once that pair is complete; without pentanomial
    /// counts, in games.
    pub fn interval_due(&self, completed_pair: Option<u64>) -> bool {
        let interval = self.rating_interval();
        let due = if self.s.penta {
            completed_pair.is_some_and(|p| interval > 0 && p % interval == 0)
        } else {
            interval > 0 && self.finished as u64 % interval == 0
        };
        due || self.all_played()
    }

    /// The SPRT's log-likelihood ratio now: over the complete pairs of the first engine
    /// against the second where the results are counted in pairs, else over their games, as
    /// fastchess tests (`getLLR(stats, report_penta)`).
    pub fn llr(&self) -> Option<f64> {
        let sprt = self.s.sprt.as_ref()?;
        Some(sprt.llr_counts(if self.s.penta {
            SprtCounts::Pairs(self.h2h.ptnml())
        } else {
            SprtCounts::Games([self.wdl.losses, self.wdl.draws, self.wdl.wins])
        }))
    }

    /// Counts one finished game; returns its pair's number when this game completed the pair.
    pub fn count(&mut self, row: &GameRow) -> Option<u64> {
        self.finished += 1;
        let result = row.result?;
        self.add_points(row, result);
        self.add_wdl(row, result);
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

    /// Adds one game to each engine's and its pairing's wins, draws and losses.
    fn add_wdl(&mut self, row: &GameRow, result: GameResult) {
        for (name, side) in [(&row.white, Side::White), (&row.black, Side::Black)] {
            let entry = self.engine_wdl.entry(name.clone()).or_default();
            entry.add(result.points(side));
        }
        let index = |name: &str| self.s.engines.iter().position(|e| e == name);
        if let (Some(w), Some(b)) = (index(&row.white), index(&row.black)) {
            if w != b {
                let key = self.pairing(&row.white, &row.black);
                let first = if w < b { Side::White } else { Side::Black };
                self.pair_wdl
                    .entry(key)
                    .or_default()
                    .add(result.points(first));
            }
        }
    }

    /// A pairing's engines, the one that comes first in the list first.
    pub fn pairing(&self, a: &str, b: &str) -> (String, String) {
        let index = |name: &str| self.s.engines.iter().position(|e| e == name);
        if index(a) <= index(b) {
            (a.to_string(), b.to_string())
        } else {
            (b.to_string(), a.to_string())
        }
    }

    /// Adds one game to the points-and-games table.
    fn add_points(&mut self, row: &GameRow, result: GameResult) {
        let (w, b) = (result.points(Side::White), result.points(Side::Black));
        for (name, points) in [(&row.white, w), (&row.black, b)] {
            let entry = self.points.entry(name.clone()).or_default();
            entry.0 += points;
            entry.1 += 1;
        }
    }

    /// `minimax 5.5/7, greedy 1.0/4`: points over games, best first.
    pub fn standings(&self) -> String {
        let mut list: Vec<_> = self.points.iter().collect();
        list.sort_by(|a, b| (b.1 .0 / b.1 .1 as f64).total_cmp(&(a.1 .0 / a.1 .1 as f64)));
        list.iter()
            .map(|(name, (points, games))| format!("{name} {points:.1}/{games}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameResult as R, Termination as T};
    use crate::report::compat_console::{MatchLabel, OutputFormat};
    use crate::report::stats::testing::row;

    fn board(format: OutputFormat, penta: bool, rating: Option<u32>, total: usize) -> Board {
        Board::new(
            OutputSettings {
                format,
                rating_interval: rating,
                score_interval: None,
                engines: vec!["a".into(), "b".into()],
                label: MatchLabel::default(),
                sprt: None,
                penta,
            },
            total,
        )
    }

    /// fastchess's cadence: its rating interval counts pairs (once the pair is complete) with
    /// pentanomial counts, games without; the last game always prints.
    #[test]
    fn the_results_block_is_due_as_fastchess_counts() {
        let mut pairs = board(OutputFormat::Fastchess, true, Some(2), 8);
        let mut due = Vec::new();
        for game in 1..=8 {
            let (w, b) = if game % 2 == 1 {
                ("a", "b")
            } else {
                ("b", "a")
            };
            let completed = pairs.count(&row(game, w, b, R::WhiteWins, T::Checkmate));
            due.push(pairs.interval_due(completed));
        }
        assert_eq!(due, [false, false, false, true, false, false, false, true]);
        // Two wins with each colour: a won one game of each pair, and lost the other.
        assert_eq!(pairs.h2h.ptnml(), [0, 0, 4, 0, 0]);
        assert_eq!(pairs.standings(), "a 4.0/8, b 4.0/8");

        let mut games = board(OutputFormat::Cutechess, false, None, 25);
        let due: Vec<u64> = (1..=25)
            .filter(|&game| {
                let completed = games.count(&row(game, "a", "b", R::Draw, T::Stalemate));
                games.interval_due(completed)
            })
            .collect();
        // fastchess's default, 10 games, and the last.
        assert_eq!(due, [10, 20, 25]);
        assert_eq!(games.pair_wdl[&("a".into(), "b".into())].draws, 25);
        assert!(games.score_due());
    }

    /// A pairing's score is counted from the side of its engine that comes first in the list,
    /// whichever colour it had.
    #[test]
    fn a_pairing_is_scored_from_its_first_engines_side() {
        let mut b = board(OutputFormat::Cutechess, false, None, 4);
        b.count(&row(1, "b", "a", R::WhiteWins, T::Checkmate));
        b.count(&row(2, "a", "b", R::WhiteWins, T::Checkmate));
        assert_eq!(b.pairing("b", "a"), ("a".to_string(), "b".to_string()));
        let wdl = b.pair_wdl[&b.pairing("b", "a")];
        assert_eq!((wdl.wins, wdl.losses, wdl.draws), (1, 1, 0));
        assert_eq!(b.engine_wdl["b"].wins, 1);
    }
}
