//! What the report keeps of each finished game beyond its `games.csv` row, game by game so
//! that a run can rewrite its report after every game without reading its files again: think
//! time by move number per engine (binned), and the two-engine match's Elo and log-likelihood
//! ratio as games were played (thinned to at most a few hundred points).

use std::collections::BTreeMap;

use crate::event::{GameRecord, Side};
use crate::report::csv::GameRow;
use crate::report::stats::Wdl;
use crate::report::{PentaTally, Sprt, SprtCounts};

/// Move numbers kept apart; later moves count in the last one.
pub const MOVE_NUMBERS: usize = 80;
/// Think-time bins: below 1 µs, then ten per decade from 1 µs to 10^6 ms, then above. An
/// engine that answers in microseconds (the built-in ones, a book move) is drawn where it is,
/// not at the first bin's middle.
const BINS: usize = 92;
/// The first decade's start: 1 µs, 10^-3 ms.
const FIRST_DECADE: f64 = -3.0;

fn bin_of(ms: f64) -> usize {
    if ms < 10f64.powf(FIRST_DECADE) {
        0
    } else {
        (1 + ((ms.log10() - FIRST_DECADE) * 10.0).floor() as usize).min(BINS - 1)
    }
}

/// The middle of a bin, in ms (geometric); half a microsecond for the bin below 1 µs.
fn bin_middle(bin: usize) -> f64 {
    if bin == 0 {
        0.5 * 10f64.powf(FIRST_DECADE)
    } else {
        10f64.powf((bin as f64 - 0.5) / 10.0 + FIRST_DECADE)
    }
}

/// Every bin's middle ([`bin_middle`]), and its `{:.3}` text: a page asks for them hundreds of
/// times a write (three quantiles of each move number of each engine), each a power of ten.
fn middles() -> &'static [(f64, String); BINS] {
    static MIDDLES: std::sync::OnceLock<[(f64, String); BINS]> = std::sync::OnceLock::new();
    MIDDLES.get_or_init(|| {
        std::array::from_fn(|bin| {
            let ms = bin_middle(bin);
            (ms, format!("{ms:.3}"))
        })
    })
}

/// `ms` as `{:.3}` writes it, taken from [`middles`] when it is a bin's middle (as every
/// quantile of [`MoveTimes`] is).
pub fn ms_text(ms: f64) -> String {
    let bin = if ms.is_finite() && ms > 0.0 {
        bin_of(ms)
    } else {
        0
    };
    match middles().get(bin) {
        Some((middle, text)) if *middle == ms => text.clone(),
        _ => format!("{ms:.3}"),
    }
}

/// One engine's think times by its move number, binned (about ±12 % per bin).
#[derive(Clone, Debug)]
pub struct MoveTimes {
    counts: Vec<[u32; BINS]>,
}

impl Default for MoveTimes {
    fn default() -> MoveTimes {
        MoveTimes {
            counts: vec![[0; BINS]; MOVE_NUMBERS],
        }
    }
}

/// Think times already binned, by their value: an engine's moves take the same few
/// microseconds again and again, and a logarithm a move costs more than the rest of counting
/// it. Direct-mapped: a slot holds the last time that fell in it.
#[derive(Clone, Debug)]
pub struct BinMemo {
    slots: [(i64, u8); BinMemo::SLOTS],
}

impl Default for BinMemo {
    fn default() -> BinMemo {
        // -1 µs is no think time (they are never negative), so no slot matches at first.
        BinMemo {
            slots: [(-1, 0); BinMemo::SLOTS],
        }
    }
}

impl BinMemo {
    const SLOTS: usize = 256;

    /// `bin_of` the time `think_us`, in ms.
    fn bin(&mut self, think_us: i64) -> usize {
        let slot = &mut self.slots[think_us as usize % BinMemo::SLOTS];
        if slot.0 != think_us {
            *slot = (think_us, bin_of(think_us as f64 / 1000.0) as u8);
        }
        usize::from(slot.1)
    }
}

impl MoveTimes {
    pub fn add(&mut self, move_number: usize, think_us: i64) {
        self.add_binned(move_number, bin_of(think_us as f64 / 1000.0));
    }

    fn add_binned(&mut self, move_number: usize, bin: usize) {
        let i = move_number.clamp(1, MOVE_NUMBERS) - 1;
        self.counts[i][bin] += 1;
    }

    /// Moves counted at move number `n` (1-based).
    pub fn count(&self, n: usize) -> u32 {
        self.counts[n - 1].iter().sum()
    }

    /// The `q` quantile (0 to 1) of the think times at move number `n`, in ms; None without
    /// moves.
    pub fn quantile(&self, n: usize, q: f64) -> Option<f64> {
        let bins = &self.counts[n - 1];
        let total: u32 = bins.iter().sum();
        if total == 0 {
            return None;
        }
        let rank = (q * total as f64).ceil().max(1.0) as u32;
        let mut seen = 0;
        for (bin, &c) in bins.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Some(middles()[bin].0);
            }
        }
        None
    }

    /// The last move number with moves.
    pub fn last(&self) -> usize {
        (1..=MOVE_NUMBERS)
            .rev()
            .find(|&n| self.count(n) > 0)
            .unwrap_or(0)
    }
}

/// Think times of every engine's moves in `record`, by move number.
pub fn add_move_times(
    times: &mut BTreeMap<String, MoveTimes>,
    memo: &mut BinMemo,
    record: &GameRecord,
) {
    // Each side's engine is looked up once a game, not once a move.
    for side in Side::ALL {
        let mut mine = record.moves().filter(|(s, ..)| *s == side).peekable();
        if mine.peek().is_none() {
            continue;
        }
        let engine = crate::report::tally::by_name(times, record.engine(side));
        for (number, (_, _, think_us, _)) in (1..).zip(mine) {
            engine.add_binned(number, memo.bin(think_us));
        }
    }
}

/// The match of two engines after `games` games: `a`'s Elo and its 95 % interval, and the
/// SPRT's log-likelihood ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub games: u64,
    pub elo: f64,
    pub low: f64,
    pub high: f64,
    pub llr: f64,
}

/// A two-engine match as it went: points taken every `every` games, thinned by half whenever
/// there are more than [`Series::MAX_POINTS`].
#[derive(Clone, Debug)]
pub struct Series {
    pub a: Option<String>,
    pub b: Option<String>,
    pub sprt: Sprt,
    /// The SPRT counts games, not pairs (the plan's `sprt_by_games`).
    pub by_games: bool,
    wdl: [u32; 3],
    /// `a`'s pairs against `b`, counted as the summary counts them.
    pairs: PentaTally,
    games: u64,
    every: u64,
    pub points: Vec<Point>,
    /// A game between other engines was counted: not a two-engine match.
    pub mixed: bool,
    /// The counts of the last LLR computed, and that LLR: a game that completes no pair
    /// leaves the pentanomial counts as they were, and its point's LLR with them.
    last_llr: Option<(SprtCounts, f64)>,
}

impl Series {
    pub const MAX_POINTS: usize = 400;

    pub fn new(a: Option<String>, b: Option<String>, sprt: Sprt) -> Series {
        let pairs = PentaTally::new(
            a.as_deref().unwrap_or_default(),
            b.as_deref().unwrap_or_default(),
        );
        Series {
            a,
            b,
            sprt,
            by_games: false,
            wdl: [0; 3],
            pairs,
            games: 0,
            every: 1,
            points: Vec::new(),
            mixed: false,
            last_llr: None,
        }
    }

    pub fn add(&mut self, row: &GameRow) {
        let Some(result) = row.result else {
            return;
        };
        if self.a.is_none() {
            self.a = Some(row.white.clone());
            self.b = Some(row.black.clone());
            self.pairs = PentaTally::new(&row.white, &row.black);
        }
        let (a, b) = (
            self.a.as_deref().unwrap_or(""),
            self.b.as_deref().unwrap_or(""),
        );
        let side = match (
            row.white == a && row.black == b,
            row.black == a && row.white == b,
        ) {
            (true, _) => Side::White,
            (_, true) => Side::Black,
            _ => {
                self.mixed = true;
                return;
            }
        };
        let points = result.points(side);
        self.wdl[if points == 1.0 {
            0
        } else if points == 0.5 {
            1
        } else {
            2
        }] += 1;
        self.pairs.add(row);
        self.games += 1;
        if self.games % self.every == 0 {
            let now = self.now();
            self.last_llr = Some((self.counts(), now.llr));
            self.points.push(now);
            if self.points.len() > Self::MAX_POINTS {
                let kept: Vec<Point> = self.points.iter().skip(1).step_by(2).copied().collect();
                self.points = kept;
                self.every *= 2;
            }
        }
    }

    pub fn games(&self) -> u64 {
        self.games
    }

    /// `a`'s pentanomial counts `[LL, LD, DD+WL, WD, WW]` so far, and its finished games not in
    /// a complete pair.
    pub fn pairs(&self) -> ([u32; 5], u32) {
        self.pairs.counts()
    }

    /// `a`'s pentanomial counts so far.
    pub fn penta(&self) -> [u32; 5] {
        self.pairs.counts().0
    }

    /// `a`'s wins, draws and losses so far.
    pub fn wdl(&self) -> Wdl {
        let [wins, draws, losses] = self.wdl;
        Wdl {
            wins,
            draws,
            losses,
        }
    }

    /// The state after every game counted so far (no interval, NaN bounds, while every game
    /// scored the same: see `Wdl::elo_interval`).
    pub fn now(&self) -> Point {
        let counts = self.counts();
        self.point(match self.last_llr {
            Some((before, llr)) if before == counts => llr,
            _ => self.sprt.llr_counts(counts),
        })
    }

    /// What the test counts so far: `a`'s games or its pairs.
    fn counts(&self) -> SprtCounts {
        let wdl = self.wdl();
        if self.by_games {
            SprtCounts::Games([wdl.losses, wdl.draws, wdl.wins])
        } else {
            SprtCounts::Pairs(self.penta())
        }
    }

    /// The state after every game counted so far, its LLR being `llr`.
    fn point(&self, llr: f64) -> Point {
        let wdl = self.wdl();
        let (low, high) = wdl.elo_interval();
        Point {
            games: self.games,
            elo: wdl.elo(),
            low,
            high,
            llr,
        }
    }

    /// The points to draw: the thinned ones and the latest state.
    pub fn drawn(&self) -> Vec<Point> {
        let mut points = self.points.clone();
        if self.games > 0 && points.last().is_none_or(|p| p.games != self.games) {
            points.push(self.now());
        }
        points
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::stats::pentanomial;
    use crate::report::Summary;

    /// A bin's middle's text is `{:.3}` of it, and so is that of any other number.
    #[test]
    fn a_middle_is_written_as_the_formatter_writes_it() {
        for bin in 0..BINS {
            let ms = bin_middle(bin);
            assert_eq!(ms_text(ms), format!("{ms:.3}"), "{bin}");
            assert_eq!(middles()[bin].0, ms);
        }
        for ms in [0.0, -1.0, 0.0004, 1.5, 1e9, f64::NAN, f64::INFINITY] {
            assert_eq!(ms_text(ms), format!("{ms:.3}"));
        }
    }

    #[test]
    fn quantiles_come_from_the_bins() {
        let mut t = MoveTimes::default();
        for ms in [10, 20, 30, 40, 1000] {
            t.add(1, ms * 1000);
        }
        let median = t.quantile(1, 0.5).unwrap();
        assert!((median - 30.0).abs() / 30.0 < 0.13, "{median}");
        assert!(t.quantile(2, 0.5).is_none());
        t.add(500, 1);
        assert_eq!(t.count(MOVE_NUMBERS), 1);
        assert_eq!(t.last(), MOVE_NUMBERS);
    }

    /// Moves of microseconds are binned as finely as slow ones: a median of 30 µs is drawn
    /// at 0.03 ms, not at the middle of a bin below 1 ms. No time at all is below 1 µs, and
    /// a move of weeks falls in the last bin.
    #[test]
    fn quantiles_of_microsecond_moves_are_microseconds() {
        let mut t = MoveTimes::default();
        for us in [10, 20, 30, 40, 50] {
            t.add(1, us);
        }
        let median = t.quantile(1, 0.5).unwrap();
        assert!((median - 0.03).abs() / 0.03 < 0.13, "{median}");
        t.add(2, 0);
        assert_eq!(t.quantile(2, 0.5), Some(0.0005));
        t.add(3, i64::MAX);
        assert!(t.quantile(3, 0.5).unwrap() > 1e6);
        for ms in [1e-3, 0.5, 1.0, 999.0, 1e6 - 1.0] {
            let bin = bin_of(ms);
            assert!(bin > 0 && bin < BINS - 1, "{ms} ms: bin {bin}");
            let middle = bin_middle(bin);
            assert!(
                (middle / ms).log10().abs() < 0.1,
                "{ms} ms: middle {middle}"
            );
        }
    }

    #[test]
    fn move_times_count_each_engines_moves_by_its_own_move_number() {
        use crate::report::phases::tests::record;
        // Three moves each: white thinks 0, 2 and 4 ms, black 1 s.
        let mut times = BTreeMap::new();
        add_move_times(
            &mut times,
            &mut BinMemo::default(),
            &record(1, None, 0, 6, true),
        );
        let w = &times["w"];
        assert_eq!([1, 2, 3, 4].map(|n| w.count(n)), [1, 1, 1, 0]);
        let b = &times["b"];
        assert_eq!(b.last(), 3);
        let median = b.quantile(3, 0.5).unwrap();
        assert!((median - 1000.0).abs() / 1000.0 < 0.13, "{median}");
        // An engine that played itself counts both sides' moves; no move, no entry.
        let mut selfplay = record(2, None, 0, 2, true);
        selfplay.black = "w".into();
        add_move_times(&mut times, &mut BinMemo::default(), &selfplay);
        assert_eq!(times["w"].count(1), 3);
        assert_eq!(times.len(), 2);
        let mut no_moves = record(3, None, 0, 0, true);
        (no_moves.white, no_moves.black) = ("x".into(), "y".into());
        add_move_times(&mut times, &mut BinMemo::default(), &no_moves);
        assert_eq!(times.len(), 2);
    }

    fn row(game: u64, pair: u64, white: &str, black: &str, result: &str) -> GameRow {
        let csv = format!(
            "{}\n{game},{pair},{white},{black},startpos,fide,5+0,5+0,{result},checkmate,FIDE 5.1.1,10,1,1,,,0,,1,1,5,5,1,1,,,,,0,0,\n",
            crate::report::COLUMNS.join(",")
        );
        // A folder of its own per call: tests run in parallel and ask for the same game
        // numbers.
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(
            "blitz-arena-html-series-{}-{call}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("games.csv"), csv).unwrap();
        let rows = crate::report::read_rows(&dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        rows.into_iter().next().unwrap()
    }

    #[test]
    fn the_running_match_agrees_with_the_summary_of_its_games() {
        let results = [
            "1-0", "1-0", "1/2-1/2", "0-1", "0-1", "1/2-1/2", "1-0", "0-1",
        ];
        let rows: Vec<GameRow> = results
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let game = i as u64 + 1;
                let (w, b) = if game % 2 == 1 {
                    ("a", "b")
                } else {
                    ("b", "a")
                };
                row(game, game.div_ceil(2), w, b, r)
            })
            .collect();
        let sprt: Sprt = "elo0=0,elo1=5,alpha=0.05,beta=0.05".parse().unwrap();
        let mut series = Series::new(Some("a".into()), Some("b".into()), sprt);
        for r in &rows {
            series.add(r);
        }
        let (penta, _) = pentanomial(&rows, "a", "b");
        assert_eq!(series.penta(), penta);
        let summary = Summary::from_rows(&rows);
        let a = summary.engines.iter().find(|e| e.name == "a").unwrap();
        let now = series.now();
        assert!((now.elo - a.elo).abs() < 1e-9 || (now.elo.is_nan() && a.elo.is_nan()));
        assert!((now.low - a.elo_low).abs() < 1e-9, "{now:?} {a:?}");
        assert!((now.high - a.elo_high).abs() < 1e-9, "{now:?} {a:?}");
        assert!((now.llr - sprt.llr(penta)).abs() < 1e-12);
    }

    #[test]
    fn a_long_match_keeps_a_bounded_number_of_points() {
        let sprt: Sprt = "elo0=0,elo1=5,alpha=0.05,beta=0.05".parse().unwrap();
        let mut series = Series::new(Some("a".into()), Some("b".into()), sprt);
        let r = row(1, 1, "a", "b", "1-0");
        for game in 1..=5000u64 {
            let mut r = r.clone();
            r.game = game;
            r.pair = game.div_ceil(2);
            series.add(&r);
        }
        assert!(series.points.len() <= Series::MAX_POINTS);
        assert_eq!(series.drawn().last().unwrap().games, 5000);
        let games: Vec<u64> = series.points.iter().map(|p| p.games).collect();
        assert!(games.windows(2).all(|w| w[1] - w[0] == games[1] - games[0]));
    }
}
