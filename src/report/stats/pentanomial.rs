//! Pentanomial statistics: the two games of a pair (same encounter, same opening, colours
//! swapped: `pair` in `games.csv`) are one sample, and the table of them.
//!
//! Formulas (fishtest `server/fishtest/stats/stat_util.py` `get_elo` and `LLRcalc.py`;
//! fastchess `app/src/elo/elo_pentanomial.cpp`; M. Van den Bergh, "Comments on normalized
//! Elo", https://www.cantate.be/Fishtest/normalized_elo_practical.pdf). A pair's score for the
//! first engine is 0, 1/2, 1, 3/2 or 2 points, counted as `[LL, LD, DD+WL, WD, WW]` (a win and
//! a loss score 1 like two draws). With `n` pairs and `x_i = i/4` the pair's mean score per
//! game:
//! - score `s = sum_i c_i x_i / n` (the same as the trinomial score of the paired games);
//! - per-pair variance `var = sum_i c_i (x_i - s)^2 / n`; the standard error of `s` is
//!   `sqrt(var / n)`: it counts each pair once, so the correlation of the two games of an
//!   opening no longer inflates the interval as the trinomial variance does;
//! - Elo `Elo(s)`, and `± (Elo(s + 1.95996 se) - Elo(s - 1.95996 se)) / 2`, the half-width
//!   fishtest (`elo95`) and fastchess (`error_`) print; when every pair scored the same
//!   (`var = 0`) the sample has no spread and there is no interval (NaN, printed
//!   `n/a (no spread)`);
//! - normalized Elo `nElo = (s - 1/2) / sqrt(2 var) * 800 / ln 10`: the score's distance from
//!   1/2 in per-game standard deviations (`sqrt(2 var)`: a pair's mean has half a game's
//!   variance), scaled so that nElo and Elo agree near 0 at the usual draw rates (fishtest's
//!   `nelo_divided_by_nt`); its `±` is the same map applied to `s ± 1.95996 se`;
//! - LOS `Phi((s - 1/2) / se)` (fastchess).
//!
//! nElo and LOS divide by the sample's spread: without spread (one pair, or every pair scoring
//! the same) they cannot be estimated, and are NaN (`n/a (no spread)`): the formula would give
//! an LOS of 100 % for two won pairs, whose four games give a trinomial LOS of 97.7 %.
//!
//! fishtest's `get_elo` replaces zero counts by `1e-3` before computing these and clamps the
//! score to `[1e-3, 1 - 1e-3]`; fastchess (and this module) use the counts as they are, so a
//! clean sweep reads `inf` as in the trinomial columns. On samples without a zero count the two
//! agree exactly. The SPRT, whose logarithms need it, does regularize (see `report/sprt.rs`).

use std::collections::HashMap;
use std::fmt::Write as _;

use super::cells::{count, los_text, plus_minus, table, NO_SPREAD};
use super::elo::{elo_from_score, erfc, Z95};
use crate::event::Side;
use crate::report::csv::GameRow;
use crate::report::sprt::NELO_PER_T;

/// Pentanomial counts of the first engine of a pairing, `[LL, LD, DD+WL, WD, WW]`, and the
/// statistics fishtest and fastchess derive from them (see the module notes). Every value is
/// NaN without pairs; the interval, `nelo` and `los` are NaN when every pair scored the same
/// (no spread: they cannot be estimated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PentaStats {
    pub counts: [u32; 5],
    /// Finished games of the pairing left out of the counts: their pair is incomplete
    /// (the other game is unfinished or missing), unknown (`pair` 0), or inconsistent.
    pub unpaired: u32,
    pub pairs: u32,
    /// Points per game, 0..1.
    pub score: f64,
    /// The variance of a pair's mean score per game, per pair.
    pub variance: f64,
    pub elo: f64,
    /// Half the width of the 95 % interval (`elo ± elo_error`); NaN when every pair scored
    /// the same (no spread, no interval).
    pub elo_error: f64,
    /// Normalized Elo; NaN when every pair scored the same.
    pub nelo: f64,
    /// Half the width of the 95 % interval of `nelo`.
    pub nelo_error: f64,
    /// Likelihood of superiority, 0..1; NaN when every pair scored the same.
    pub los: f64,
}

impl Default for PentaStats {
    /// No pairs.
    fn default() -> PentaStats {
        PentaStats::from_counts([0; 5], 0)
    }
}

impl PentaStats {
    pub fn from_counts(counts: [u32; 5], unpaired: u32) -> PentaStats {
        let pairs: u32 = counts.iter().sum();
        let n = f64::from(pairs);
        let mean = |f: &dyn Fn(f64) -> f64| {
            (0..5)
                .map(|i| f64::from(counts[i]) * f(i as f64 / 4.0))
                .sum::<f64>()
                / n
        };
        let score = mean(&|x| x);
        let variance = mean(&|x| (x - score).powi(2));
        let se = (variance / n).sqrt();
        let (low, high) = (score - Z95 * se, score + Z95 * se);
        let nelo = |s: f64| (s - 0.5) / (2.0 * variance).sqrt() * NELO_PER_T;
        // Without spread there is no interval (rather than a misleading `± 0.0`).
        let error = |f: &dyn Fn(f64) -> f64| {
            if variance > 0.0 {
                (f(high) - f(low)) / 2.0
            } else {
                f64::NAN
            }
        };
        let los = if se > 0.0 {
            0.5 * erfc(-(score - 0.5) / (se * std::f64::consts::SQRT_2))
        } else {
            f64::NAN
        };
        PentaStats {
            counts,
            unpaired,
            pairs,
            score,
            variance,
            elo: elo_from_score(score),
            elo_error: error(&elo_from_score),
            nelo: if variance > 0.0 {
                nelo(score)
            } else {
                f64::NAN
            },
            nelo_error: error(&nelo),
            los,
        }
    }

    /// Whether the pairs show a spread, so that an interval, nElo and LOS can be estimated.
    pub fn has_spread(&self) -> bool {
        self.variance > 0.0
    }

    /// The same pairs from the other engine's side.
    pub fn flipped(&self) -> PentaStats {
        let mut counts = self.counts;
        counts.reverse();
        PentaStats::from_counts(counts, self.unpaired)
    }

    /// Adds more pairs.
    pub fn add(&mut self, counts: [u32; 5], unpaired: u32) {
        for (c, d) in self.counts.iter_mut().zip(counts) {
            *c += d;
        }
        *self = PentaStats::from_counts(self.counts, self.unpaired + unpaired);
    }
}

/// The pentanomial counts of `a` against `b`: `[LL, LD, DD+WL, WD, WW]` from `a`'s side, and
/// the number of finished games between them that are not part of a complete pair.
///
/// A pair is identified by the run's `seed` and the game's `pair` number (so that runs merged
/// from shards pair up, and separate runs do not mix); it counts when it holds exactly two
/// finished games between `a` and `b`, with the same opening, `a` white in one and black in the
/// other. Finished games with `pair` 0 (unknown), whose partner is unfinished or missing, or
/// whose pair number holds anything else, are `unpaired`. Unfinished rows are ignored.
pub fn pentanomial(rows: &[GameRow], a: &str, b: &str) -> ([u32; 5], u32) {
    let mut tally = PentaTally::new(a, b);
    for row in rows {
        tally.add(row);
    }
    tally.counts()
}

/// [`pentanomial`] kept game by game: the counts of the rows added so far, in any order, at a
/// constant cost a game (a run's SPRT reads them after every game, over tens of thousands).
#[derive(Clone, Debug, Default)]
pub struct PentaTally {
    a: String,
    b: String,
    counts: [u32; 5],
    unpaired: u32,
    /// The finished games between `a` and `b` of each pair so far, by run seed and pair.
    pairs: HashMap<(u64, u64), Vec<PairGame>>,
}

/// What a pair's count needs of one of its games.
#[derive(Clone, Debug)]
struct PairGame {
    a_white: bool,
    opening: String,
    /// `a`'s half points: 0, 1 or 2.
    half_points: usize,
}

/// What a pair's games add to the counts.
enum Share {
    /// A complete pair: its cell, `a`'s half points in both games.
    Cell(usize),
    /// Anything else: its games, unpaired.
    Unpaired(u32),
}

impl PentaTally {
    pub fn new(a: &str, b: &str) -> PentaTally {
        PentaTally {
            a: a.to_string(),
            b: b.to_string(),
            ..PentaTally::default()
        }
    }

    /// Counts one row; rows between other engines, and unfinished ones, count nothing.
    pub fn add(&mut self, row: &GameRow) {
        let (a, b) = (self.a.as_str(), self.b.as_str());
        let between = (row.white == a && row.black == b) || (row.white == b && row.black == a);
        let Some(result) = row.result.filter(|_| between && a != b) else {
            return;
        };
        if row.pair == 0 {
            self.unpaired += 1;
            return;
        }
        let a_white = row.white == a;
        let side = if a_white { Side::White } else { Side::Black };
        let game = PairGame {
            a_white,
            opening: row.opening.clone(),
            half_points: (2.0 * result.points(side)).round() as usize,
        };
        let games = self.pairs.entry((row.seed, row.pair)).or_default();
        let before = (!games.is_empty()).then(|| share(games));
        games.push(game);
        let after = share(games);
        if let Some(before) = before {
            self.apply(before, false);
        }
        self.apply(after, true);
    }

    /// `[LL, LD, DD+WL, WD, WW]` from `a`'s side, and the finished games not in a complete
    /// pair.
    pub fn counts(&self) -> ([u32; 5], u32) {
        (self.counts, self.unpaired)
    }

    fn apply(&mut self, share: Share, add: bool) {
        let (cell, by) = match share {
            Share::Cell(i) => (&mut self.counts[i], 1),
            Share::Unpaired(n) => (&mut self.unpaired, n),
        };
        if add {
            *cell += by;
        } else {
            *cell -= by;
        }
    }
}

/// A pair counts when it holds exactly two games with the same opening, `a` white in one and
/// black in the other.
fn share(games: &[PairGame]) -> Share {
    match games {
        [g1, g2] if g1.a_white != g2.a_white && g1.opening == g2.opening => {
            Share::Cell((g1.half_points + g2.half_points).min(4))
        }
        _ => Share::Unpaired(games.len() as u32),
    }
}

/// The pentanomial table: one line per pairing (its label and its pairs, from the first
/// engine's side), or one line saying there is no complete pair.
pub fn text(out: &mut String, lines: &[(String, PentaStats)]) {
    let unpaired: u32 = lines.iter().map(|(_, p)| p.unpaired).sum();
    if lines.iter().all(|(_, p)| p.pairs == 0) {
        let _ = writeln!(
            out,
            "Pentanomial: no complete pair of games ({})",
            count(unpaired, "unpaired game")
        );
        return;
    }
    let header = [
        "Pairing",
        "[LL, LD, DD+WL, WD, WW]",
        "Pairs",
        "Elo",
        "nElo",
        "LOS",
    ];
    let rows: Vec<Vec<String>> = lines
        .iter()
        .map(|(label, p)| {
            let c = p.counts;
            vec![
                label.clone(),
                format!("[{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4]),
                p.pairs.to_string(),
                plus_minus(p.elo, p.elo_error),
                if p.pairs == 0 || p.has_spread() {
                    plus_minus(p.nelo, p.nelo_error)
                } else {
                    NO_SPREAD.to_string()
                },
                if p.pairs == 0 || p.has_spread() {
                    los_text(p.los)
                } else {
                    NO_SPREAD.to_string()
                },
            ]
        })
        .collect();
    out.push_str(
        "\nPentanomial (pairs of games: one opening, colours swapped; first engine's side)\n",
    );
    out.push_str(&table(&header, &[0, 1], &rows));
    if unpaired > 0 {
        let _ = writeln!(
            out,
            "{unpaired} finished game{} not in a complete pair, left out of these counts",
            if unpaired == 1 { " is" } else { "s are" }
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    /// fastchess `Stats(ll, ld, wl, dd, wd, ww)` as pentanomial counts.
    fn fastchess(ll: u32, ld: u32, wl: u32, dd: u32, wd: u32, ww: u32) -> [u32; 5] {
        [ll, ld, wl + dd, wd, ww]
    }

    /// doctest's `Approx(expected).epsilon(0.01)`, as fastchess's tests use it.
    fn approx(value: f64, expected: f64) -> bool {
        (value - expected).abs() < 0.01 * (1.0 + value.abs().max(expected.abs()))
    }

    /// The `EloPentanomial` cases of fastchess's `tests/elo_test.cpp` (published to two
    /// decimals), pinned to 1e-9 against an independent python3 implementation of the formulas
    /// in the module notes.
    #[test]
    fn pentanomial_elo_matches_fastchess_test_vectors() {
        // (counts, published Elo, ±, nElo, ±, LOS text), (python Elo, ±, nElo, ±)
        let cases = [
            (
                fastchess(34, 54, 31, 32, 64, 75),
                (55.58, 27.65, 57.94, 28.28, Some("100.00 %")),
                [
                    55.579_780_420_445_9,
                    27.653_429_506_393_5,
                    57.935_599_938_124_3,
                    28.275_376_243_408_7,
                ],
            ),
            (
                fastchess(332, 433, 457, 41, 333, 334),
                (-8.64, 10.33, -9.17, 10.96, Some("5.05 %")),
                [
                    -8.642_667_267_969_01,
                    10.334_194_424_393_1,
                    -9.172_914_270_047_18,
                    10.960_458_877_511_2,
                ],
            ),
            (
                fastchess(7895, 8757, 5485, 200, 568, 9999),
                (-21.04, 2.95, -19.01, 2.65, None),
                [
                    -21.043_520_578_172_9,
                    2.945_280_868_527_82,
                    -19.012_834_278_884,
                    2.654_501_916_502_47,
                ],
            ),
        ];
        for (counts, (elo, err, nelo, nerr, los), reference) in cases {
            let p = PentaStats::from_counts(counts, 0);
            let got = [p.elo, p.elo_error, p.nelo, p.nelo_error];
            for (g, e) in got.iter().zip([elo, err, nelo, nerr]) {
                assert!(approx(*g, e), "{counts:?}: {got:?}");
            }
            for (g, r) in got.iter().zip(reference) {
                assert!(close(*g, r, 1e-9), "{counts:?}: {g} not {r}");
            }
            if let Some(los) = los {
                assert_eq!(format!("{:.2} %", p.los * 100.0), los);
            }
            assert_eq!(p.pairs, counts.iter().sum::<u32>());
        }
    }

    /// The counts as first written, over all the rows at once: the reference the tally is held
    /// to.
    fn counted_at_once(rows: &[GameRow], a: &str, b: &str) -> ([u32; 5], u32) {
        let mut counts = [0u32; 5];
        let mut unpaired = 0u32;
        let mut pairs: HashMap<(u64, u64), Vec<&GameRow>> = HashMap::new();
        for row in rows {
            let between = (row.white == a && row.black == b) || (row.white == b && row.black == a);
            if !between || a == b || row.result.is_none() {
                continue;
            }
            if row.pair == 0 {
                unpaired += 1;
            } else {
                pairs.entry((row.seed, row.pair)).or_default().push(row);
            }
        }
        for games in pairs.values() {
            let points = |row: &GameRow| match (row.result, row.side_of(a)) {
                (Some(result), Some(side)) => result.points(side),
                _ => 0.0,
            };
            match games.as_slice() {
                [g1, g2] if g1.white == g2.black && g1.opening == g2.opening => {
                    counts[((2.0 * (points(g1) + points(g2))).round() as usize).min(4)] += 1;
                }
                _ => unpaired += games.len() as u32,
            }
        }
        (counts, unpaired)
    }

    /// Game by game, the tally holds the counts of every row so far, whatever their order and
    /// however odd: pairs of one game, of three, with the same colours twice or two openings,
    /// other engines' games, unfinished games, pair 0, two runs' seeds.
    #[test]
    fn the_tally_counts_what_all_the_rows_count_after_every_game() {
        use crate::event::{GameResult, Termination};
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(25);
        for _ in 0..200 {
            let mut rows: Vec<GameRow> = Vec::new();
            let mut tally = PentaTally::new("a", "b");
            let mut mirrored = PentaTally::new("b", "a");
            for game in 1..=rng.random_range(1..60u64) {
                let names = ["a", "b", "c"];
                let white = names[rng.random_range(0..3)];
                let black = names[rng.random_range(0..3)];
                let result = [
                    GameResult::WhiteWins,
                    GameResult::Draw,
                    GameResult::BlackWins,
                ][rng.random_range(0..3)];
                let mut row = crate::report::stats::testing::row(
                    game,
                    white,
                    black,
                    result,
                    Termination::Checkmate,
                );
                row.pair = rng.random_range(0..12);
                row.seed = rng.random_range(1..3);
                row.opening = ["startpos", "e4"][rng.random_range(0..2)].into();
                if rng.random_bool(0.1) {
                    row.result = None;
                }
                tally.add(&row);
                mirrored.add(&row);
                rows.push(row);
                assert_eq!(tally.counts(), counted_at_once(&rows, "a", "b"), "{rows:?}");
                assert_eq!(mirrored.counts(), counted_at_once(&rows, "b", "a"));
            }
        }
        let mut same = PentaTally::new("a", "a");
        same.add(&crate::report::stats::testing::row(
            1,
            "a",
            "a",
            GameResult::Draw,
            Termination::Checkmate,
        ));
        assert_eq!(same.counts(), ([0; 5], 0));
    }

    #[test]
    fn pentanomial_elo_of_small_samples() {
        // Five drawn pairs: Elo 0 exactly, no spread; nElo is 0/0 and reported as missing.
        let p = PentaStats::from_counts([0, 0, 5, 0, 0], 0);
        assert_eq!((p.score, p.elo), (0.5, 0.0));
        assert!(p.elo.is_sign_positive() && p.elo_error.is_nan());
        assert!(p.nelo.is_nan() && p.los.is_nan() && !p.has_spread());
        // A win and a loss also score 1 point: the same counts, the same Elo.
        // [0, 3, 10, 4, 1]: s = 39/72; var = 0.036458...; python reference values.
        let p = PentaStats::from_counts([0, 3, 10, 4, 1], 2);
        assert_eq!(p.pairs, 18);
        assert_eq!(p.unpaired, 2);
        assert!(close(p.score, 39.0 / 72.0, 1e-15));
        assert!(close(p.elo, 29.020_266_859_444_8, 1e-9));
        assert!(close(p.elo_error, 62.398_460_266_046_9, 1e-9));
        assert!(close(p.nelo, 53.610_474_742_178_4, 1e-9));
        assert!(close(p.nelo_error, 113.493_539_095_314, 1e-9));
        assert!(close(p.los, 0.822_730_260_113_25, 1e-9));
        // The other side: mirrored counts, opposite Elo.
        let q = p.flipped();
        assert_eq!(q.counts, [1, 4, 10, 3, 0]);
        assert!(close(q.elo, -p.elo, 1e-12) && close(q.nelo, -p.nelo, 1e-12));
        assert!(close(q.elo_error, p.elo_error, 1e-12));
        // The interval reaching past 100 %: Elo is finite, its error is not.
        let p = PentaStats::from_counts([1, 0, 1, 0, 3], 0);
        assert!(close(p.elo, 147.190_714_117_838, 1e-12));
        assert_eq!(p.elo_error, f64::INFINITY);
        assert!(close(p.nelo, 122.837_029_274_275, 1e-12));
        // No pairs: nothing to say.
        let p = PentaStats::from_counts([0; 5], 3);
        assert!(p.elo.is_nan() && p.nelo.is_nan() && p.los.is_nan());
        // A clean sweep of two pairs: its Elo is infinite, but nothing says how sure that is
        // (the four games' trinomial LOS is 97.7 %): no interval, nElo or LOS, never 100 %.
        let p = PentaStats::from_counts([0, 0, 0, 0, 2], 0);
        assert_eq!(p.elo, f64::INFINITY);
        assert!(p.elo_error.is_nan() && p.nelo.is_nan() && p.los.is_nan());
        let mut text = String::new();
        super::text(&mut text, &[("a vs b".into(), p)]);
        assert!(
            text.contains("inf ± n/a (no spread)  n/a (no spread)  n/a (no spread)"),
            "{text}"
        );
    }
}
