//! Statistics over `games.csv` rows: standings (each engine against the field), pairings, and
//! the counts of results and terminations.
//!
//! Formulas (the usual ones of cutechess-cli, fastchess and the chessprogramming wiki):
//! - score `s = (W + D/2) / N`;
//! - Elo difference from a score, logistic model: `Elo(s) = -400 * log10(1/s - 1)`
//!   (`-inf` at 0 %, `inf` at 100 %);
//! - 95 % interval: the per-game variance of the score is the trinomial
//!   `var = (W (1-s)^2 + D (1/2-s)^2 + L (0-s)^2) / N`, the score's standard error is
//!   `sqrt(var) / sqrt(N)`, and the interval `s ± 1.95996 * sqrt(var/N)` is mapped through
//!   `Elo(.)` (a bound at or beyond 0 or 1 maps to `-inf`/`inf`);
//! - likelihood of superiority: `LOS = 1/2 * (1 + erf((W - L) / sqrt(2 (W + L))))`, computed as
//!   `1/2 * erfc(-(W - L) / sqrt(2 (W + L)))` to keep its precision near 0 and near 1; 50 %
//!   when no game was decisive;
//! - draw ratio `D / N`; average time per move = total think time / legal moves made.
//!
//! Pentanomial statistics (fishtest `server/fishtest/stats/stat_util.py` `get_elo` and
//! `LLRcalc.py`; fastchess `app/src/elo/elo_pentanomial.cpp`; M. Van den Bergh, "Comments on
//! normalized Elo", https://www.cantate.be/Fishtest/normalized_elo_practical.pdf). The two games
//! of a pair (same encounter, same opening, colours swapped: `pair` in `games.csv`) are one
//! sample; its score for the first engine is 0, 1/2, 1, 3/2 or 2 points, counted as
//! `[LL, LD, DD+WL, WD, WW]` (a win and a loss score 1 like two draws). With `n` pairs and
//! `x_i = i/4` the pair's mean score per game:
//! - score `s = sum_i c_i x_i / n` (the same as the trinomial score of the paired games);
//! - per-pair variance `var = sum_i c_i (x_i - s)^2 / n`; the standard error of `s` is
//!   `sqrt(var / n)`: it counts each pair once, so the correlation of the two games of an
//!   opening no longer inflates the interval as the trinomial variance does;
//! - Elo `Elo(s)`, and `± (Elo(s + 1.95996 se) - Elo(s - 1.95996 se)) / 2`, the half-width
//!   fishtest (`elo95`) and fastchess (`error_`) print;
//! - normalized Elo `nElo = (s - 1/2) / sqrt(2 var) * 800 / ln 10`: the score's distance from
//!   1/2 in per-game standard deviations (`sqrt(2 var)`: a pair's mean has half a game's
//!   variance), scaled so that nElo and Elo agree near 0 at the usual draw rates (fishtest's
//!   `nelo_divided_by_nt`); its `±` is the same map applied to `s ± 1.95996 se`;
//! - LOS `Phi((s - 1/2) / se)` (fastchess).
//!
//! fishtest's `get_elo` replaces zero counts by `1e-3` before computing these and clamps the
//! score to `[1e-3, 1 - 1e-3]`; fastchess (and this module) use the counts as they are, so a
//! clean sweep reads `inf` as in the trinomial columns. On samples without a zero count the two
//! agree exactly. The SPRT, whose logarithms need it, does regularize (see `sprt.rs`).
//!
//! Time statistics: time trouble is a game the engine ended with under 10 % of its base time
//! (the `tc_white`/`tc_black` columns; games whose time control has no base, or does not parse,
//! are not counted either way); think time by game phase (opening: moves 1-15, middlegame:
//! 16-40, endgame: 41 and later, by the move number on the board, book moves included) needs
//! the per-move times of `events.jsonl` (`phase_times`, `Summary::with_phases`).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::Path;

use super::csv::GameRow;
use super::phases::{Phase, PhaseTimes};
use super::sprt::{Sprt, SprtStatus, NELO_PER_T};
use crate::event::{GameResult, Side, Termination};
use crate::timecontrol::TimeControl;

/// The two-sided 95 % quantile of the normal distribution.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The error function, to about 1e-15 relative error.
///
/// For `|x| < 2`, the series `erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n 2^n x^(2n+1) / (2n+1)!!`
/// (Abramowitz-Stegun 7.1.6: positive terms, so no cancellation); beyond, `1 - erfc(x)`.
pub fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return -erf(-x);
    }
    if x < 2.0 {
        erf_series(x)
    } else {
        1.0 - erfc_continued_fraction(x)
    }
}

/// The complementary error function `1 - erf(x)`, with full relative precision for large `x`.
///
/// For `x >= 2`, the continued fraction (Abramowitz-Stegun 7.1.14)
/// `erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + 2/(x + ...)))))`,
/// evaluated by the modified Lentz method.
pub fn erfc(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if x < 0.0 {
        return 2.0 - erfc(-x);
    }
    if x < 2.0 {
        1.0 - erf_series(x)
    } else {
        erfc_continued_fraction(x)
    }
}

const FRAC_2_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

fn erf_series(x: f64) -> f64 {
    let x2 = x * x;
    let mut term = x;
    let mut sum = x;
    let mut n = 0.0;
    while term > sum * 1e-17 {
        n += 1.0;
        term *= 2.0 * x2 / (2.0 * n + 1.0);
        sum += term;
    }
    FRAC_2_SQRT_PI * (-x2).exp() * sum
}

fn erfc_continued_fraction(x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    if x > 27.3 {
        // exp(-x^2) underflows: erfc(27.3) < 1e-325.
        return 0.0;
    }
    let mut f = x;
    let mut c = f;
    let mut d = 0.0;
    for k in 1..10_000 {
        let a = k as f64 / 2.0;
        d = x + a * d;
        if d == 0.0 {
            d = TINY;
        }
        d = 1.0 / d;
        c = x + a / c;
        if c == 0.0 {
            c = TINY;
        }
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-16 {
            break;
        }
    }
    (-x * x).exp() / (f * std::f64::consts::PI.sqrt())
}

/// The Elo difference that the logistic model gives for a score `s` in [0, 1]:
/// `-400 * log10(1/s - 1)`; `-inf` at 0 and `inf` at 1.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / s - 1.0).log10()
    }
}

/// Wins, draws and losses from one side's point of view.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

impl Wdl {
    pub fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// The score `(W + D/2) / N`; NaN without games.
    pub fn score(&self) -> f64 {
        self.points() / self.games() as f64
    }

    pub fn elo(&self) -> f64 {
        elo_from_score(self.score())
    }

    /// The 95 % interval of the Elo difference (trinomial variance, see the module notes).
    pub fn elo_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        let margin = Z95 * var.sqrt() / n.sqrt();
        (elo_from_score(s - margin), elo_from_score(s + margin))
    }

    /// Likelihood of superiority: `1/2 (1 + erf((W-L) / sqrt(2 (W+L))))`.
    pub fn los(&self) -> f64 {
        let decisive = (self.wins + self.losses) as f64;
        if decisive == 0.0 {
            return 0.5;
        }
        let x = (self.wins as f64 - self.losses as f64) / (2.0 * decisive).sqrt();
        0.5 * erfc(-x)
    }

    pub fn draw_ratio(&self) -> f64 {
        self.draws as f64 / self.games() as f64
    }

    fn add(&mut self, points: f64) {
        if points == 1.0 {
            self.wins += 1;
        } else if points == 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }
}

/// Pentanomial counts of the first engine of a pairing, `[LL, LD, DD+WL, WD, WW]`, and the
/// statistics fishtest and fastchess derive from them (see the module notes). Every value is
/// NaN without pairs; `nelo` is NaN when every pair scored exactly 1 point (zero variance).
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
    /// Half the width of the 95 % interval (`elo ± elo_error`).
    pub elo_error: f64,
    /// Normalized Elo; infinite when every pair scored the same other than 1 point.
    pub nelo: f64,
    /// Half the width of the 95 % interval of `nelo`.
    pub nelo_error: f64,
    /// Likelihood of superiority, 0..1.
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
        let los = if pairs == 0 {
            f64::NAN
        } else if se > 0.0 {
            0.5 * erfc(-(score - 0.5) / (se * std::f64::consts::SQRT_2))
        } else if score > 0.5 {
            1.0
        } else if score < 0.5 {
            0.0
        } else {
            0.5
        };
        PentaStats {
            counts,
            unpaired,
            pairs,
            score,
            variance,
            elo: elo_from_score(score),
            elo_error: (elo_from_score(high) - elo_from_score(low)) / 2.0,
            nelo: nelo(score),
            nelo_error: (nelo(high) - nelo(low)) / 2.0,
            los,
        }
    }

    /// The same pairs from the other engine's side.
    pub fn flipped(&self) -> PentaStats {
        let mut counts = self.counts;
        counts.reverse();
        PentaStats::from_counts(counts, self.unpaired)
    }

    fn add(&mut self, counts: [u32; 5], unpaired: u32) {
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
                // Half points: 0..=4.
                let half_points = (2.0 * (points(g1) + points(g2))).round() as usize;
                counts[half_points.min(4)] += 1;
            }
            _ => unpaired += games.len() as u32,
        }
    }
    (counts, unpaired)
}

/// The state of an SPRT on a two-engine match, from the tested engine's side.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtOutcome {
    pub sprt: Sprt,
    /// The tested engine.
    pub engine: String,
    pub opponent: String,
    /// Pentanomial counts from `engine`'s side.
    pub penta: [u32; 5],
    pub llr: f64,
    pub status: SprtStatus,
}

/// One engine against the field.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineStats {
    pub name: String,
    pub results: Wdl,
    pub games: u32,
    pub points: f64,
    /// 0..1.
    pub score: f64,
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    /// 0..1.
    pub los: f64,
    /// 0..1.
    pub draw_ratio: f64,
    /// Losses by `flag`, `both-flags` or `engine-stall`.
    pub time_losses: u32,
    /// The engine's clock at the end of its games, in ms.
    pub avg_ms_left: f64,
    pub min_ms_left: i64,
    pub moves: u64,
    pub think_ms: i64,
    /// Think time per legal move; `None` when it made no move.
    pub avg_ms_per_move: Option<f64>,
    /// Games it ended with under 10 % of its base time left (a fallen flag included).
    pub time_trouble: u32,
    /// Games whose time control gives a base time, the denominator of `time_trouble_share`.
    pub time_trouble_games: u32,
    /// `time_trouble / time_trouble_games`, 0..1; NaN when no game had a base time.
    pub time_trouble_share: f64,
    /// Its pentanomial counts against the field: its pairs with every opponent, from its side.
    pub penta: PentaStats,
    /// Think time by game phase; `None` until `Summary::with_phases` is given the events.
    pub phases: Option<PhaseTimes>,
}

/// One pairing, `a` against `b`, the results from `a`'s side.
#[derive(Clone, Debug, PartialEq)]
pub struct PairingStats {
    pub a: String,
    pub b: String,
    pub results: Wdl,
    pub points: f64,
    pub score: f64,
    pub elo: f64,
    pub elo_low: f64,
    pub elo_high: f64,
    pub los: f64,
    /// The paired games, from `a`'s side.
    pub penta: PentaStats,
}

/// Everything `stats` prints and `summary.csv` holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// Finished games counted.
    pub games: usize,
    /// Rows without a result (records cut off before their end), not counted.
    pub unfinished: usize,
    pub white_wins: usize,
    pub black_wins: usize,
    pub draws: usize,
    /// Games per termination, in the order of `Termination::ALL`, zero counts left out.
    pub terminations: Vec<(Termination, usize)>,
    /// Standings: by score, then points, then name.
    pub engines: Vec<EngineStats>,
    /// Pairings, in the order they first appear; `a` is the engine with more games overall (the
    /// gauntlet's engine), or the one that appeared first.
    pub pairings: Vec<PairingStats>,
    /// Whether the engines' `phases` were computed (`with_phases`).
    pub phases_known: bool,
    /// The SPRT of a two-engine match, when `with_sprt` was called.
    pub sprt: Option<SprtOutcome>,
}

#[derive(Default)]
struct Acc {
    first_seen: usize,
    results: Wdl,
    time_losses: u32,
    ms_left_sum: i64,
    min_ms_left: i64,
    moves: u64,
    think_ms: i64,
    time_trouble: u32,
    time_trouble_games: u32,
    penta: PentaStats,
}

impl Summary {
    pub fn from_rows(rows: &[GameRow]) -> Summary {
        let mut engines: HashMap<&str, Acc> = HashMap::new();
        // Pairings keyed by (engine seen first, engine seen second) as met in the rows.
        let mut pairs: Vec<(&str, &str, Wdl)> = Vec::new();
        let mut counts: HashMap<Termination, usize> = HashMap::new();
        let mut summary = Summary {
            games: 0,
            unfinished: 0,
            white_wins: 0,
            black_wins: 0,
            draws: 0,
            terminations: Vec::new(),
            engines: Vec::new(),
            pairings: Vec::new(),
            phases_known: false,
            sprt: None,
        };
        // Base times by time-control text; `None` when it does not parse or has no base.
        let mut bases: HashMap<&str, Option<i64>> = HashMap::new();

        for row in rows {
            let Some(result) = row.result else {
                summary.unfinished += 1;
                continue;
            };
            summary.games += 1;
            match result {
                GameResult::WhiteWins => summary.white_wins += 1,
                GameResult::BlackWins => summary.black_wins += 1,
                GameResult::Draw => summary.draws += 1,
            }
            if let Some(t) = row.termination {
                *counts.entry(t).or_default() += 1;
            }
            for side in [Side::White, Side::Black] {
                let seen = engines.len();
                let acc = engines.entry(row.engine(side)).or_insert_with(|| Acc {
                    first_seen: seen,
                    min_ms_left: i64::MAX,
                    ..Acc::default()
                });
                let points = result.points(side);
                acc.results.add(points);
                if points == 0.0 && row.termination.is_some_and(Termination::is_time_forfeit) {
                    acc.time_losses += 1;
                }
                acc.ms_left_sum += row.ms_left(side);
                acc.min_ms_left = acc.min_ms_left.min(row.ms_left(side));
                acc.moves += row.moves(side) as u64;
                acc.think_ms += row.think_ms(side);
                let tc = match side {
                    Side::White => row.tc_white.as_str(),
                    Side::Black => row.tc_black.as_str(),
                };
                let base_us = *bases.entry(tc).or_insert_with(|| {
                    tc.parse::<TimeControl>()
                        .ok()
                        .map(|tc| tc.base.as_micros() as i64)
                        .filter(|&us| us > 0)
                });
                if let Some(base_us) = base_us {
                    acc.time_trouble_games += 1;
                    // ms_left < base / 10, exactly.
                    if row.ms_left(side).saturating_mul(10_000) < base_us {
                        acc.time_trouble += 1;
                    }
                }
            }
            let (white, black) = (row.white.as_str(), row.black.as_str());
            match pairs
                .iter_mut()
                .find(|(a, b, _)| (*a, *b) == (white, black) || (*a, *b) == (black, white))
            {
                Some((a, _, wdl)) => {
                    let side = if *a == white {
                        Side::White
                    } else {
                        Side::Black
                    };
                    wdl.add(result.points(side));
                }
                None => {
                    let mut wdl = Wdl::default();
                    wdl.add(result.points(Side::White));
                    pairs.push((white, black, wdl));
                }
            }
        }

        summary.terminations = Termination::ALL
            .into_iter()
            .filter_map(|t| counts.get(&t).map(|&n| (t, n)))
            .collect();

        for (name, acc) in &engines {
            let r = acc.results;
            let (elo_low, elo_high) = r.elo_interval();
            summary.engines.push(EngineStats {
                name: name.to_string(),
                results: r,
                games: r.games(),
                points: r.points(),
                score: r.score(),
                elo: r.elo(),
                elo_low,
                elo_high,
                los: r.los(),
                draw_ratio: r.draw_ratio(),
                time_losses: acc.time_losses,
                avg_ms_left: acc.ms_left_sum as f64 / r.games() as f64,
                min_ms_left: acc.min_ms_left,
                moves: acc.moves,
                think_ms: acc.think_ms,
                avg_ms_per_move: (acc.moves > 0).then(|| acc.think_ms as f64 / acc.moves as f64),
                time_trouble: acc.time_trouble,
                time_trouble_games: acc.time_trouble_games,
                time_trouble_share: acc.time_trouble as f64 / acc.time_trouble_games as f64,
                penta: PentaStats::from_counts([0; 5], 0),
                phases: None,
            });
        }
        summary.engines.sort_by(|x, y| {
            y.score
                .total_cmp(&x.score)
                .then(y.points.total_cmp(&x.points))
                .then(x.name.cmp(&y.name))
        });

        for (first, second, wdl) in pairs {
            // Orient the pairing from the engine with more games (a gauntlet's engine).
            let key = |name: &str| {
                let acc = &engines[name];
                (std::cmp::Reverse(acc.results.games()), acc.first_seen)
            };
            let (a, b, r) = if key(second) < key(first) {
                let flipped = Wdl {
                    wins: wdl.losses,
                    draws: wdl.draws,
                    losses: wdl.wins,
                };
                (second, first, flipped)
            } else {
                (first, second, wdl)
            };
            let (elo_low, elo_high) = r.elo_interval();
            let (counts, unpaired) = pentanomial(rows, a, b);
            let penta = PentaStats::from_counts(counts, unpaired);
            for (name, p) in [(a, penta), (b, penta.flipped())] {
                if let Some(acc) = engines.get_mut(name) {
                    acc.penta.add(p.counts, p.unpaired);
                }
            }
            summary.pairings.push(PairingStats {
                a: a.to_string(),
                b: b.to_string(),
                results: r,
                points: r.points(),
                score: r.score(),
                elo: r.elo(),
                elo_low,
                elo_high,
                los: r.los(),
                penta,
            });
        }
        for e in &mut summary.engines {
            e.penta = engines[e.name.as_str()].penta;
        }
        summary
    }

    /// Adds think time by game phase (the `phase_times` of the run's records) to every
    /// engine, for the text and `summary.csv`; without it they say that phases need the events.
    pub fn with_phases(&mut self, times: &BTreeMap<String, PhaseTimes>) {
        for e in &mut self.engines {
            e.phases = Some(times.get(&e.name).copied().unwrap_or_default());
        }
        self.phases_known = true;
    }

    /// Adds the state of `sprt` for `engine`'s match: the one pairing it plays, seen from its
    /// side. Returns false (and adds nothing) when `engine` does not play exactly one pairing.
    pub fn with_sprt(&mut self, sprt: &Sprt, engine: &str) -> bool {
        let mut pairings = self
            .pairings
            .iter()
            .filter(|p| p.a == engine || p.b == engine);
        let (Some(p), None) = (pairings.next(), pairings.next()) else {
            return false;
        };
        let (opponent, penta) = if p.a == engine {
            (&p.b, p.penta)
        } else {
            (&p.a, p.penta.flipped())
        };
        let llr = sprt.llr(penta.counts);
        self.sprt = Some(SprtOutcome {
            sprt: *sprt,
            engine: engine.to_string(),
            opponent: opponent.clone(),
            penta: penta.counts,
            llr,
            status: sprt.decide(llr),
        });
        true
    }

    /// The summary as aligned tables for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.games == 0 {
            out.push_str("No finished games.\n");
        } else {
            self.standings_text(&mut out);
            self.time_text(&mut out);
            self.pairings_text(&mut out);
            out.push('\n');
        }
        let _ = write!(
            out,
            "{} game{}: {} white wins, {} black wins, {} draws",
            self.games,
            if self.games == 1 { "" } else { "s" },
            self.white_wins,
            self.black_wins,
            self.draws
        );
        if self.unfinished > 0 {
            let _ = write!(
                out,
                " ({} unfinished record{} not counted)",
                self.unfinished,
                if self.unfinished == 1 { "" } else { "s" }
            );
        }
        out.push('\n');
        if !self.terminations.is_empty() {
            let parts: Vec<String> = self
                .terminations
                .iter()
                .map(|(t, n)| format!("{t} {n}"))
                .collect();
            let _ = writeln!(out, "Terminations: {}", parts.join(", "));
        }
        out
    }

    fn standings_text(&self, out: &mut String) {
        let header = [
            "#",
            "Engine",
            "Games",
            "W",
            "D",
            "L",
            "Points",
            "Score",
            "Elo",
            "95% interval",
            "LOS",
            "Draws",
        ];
        let rows: Vec<Vec<String>> = self
            .engines
            .iter()
            .enumerate()
            .map(|(i, e)| {
                vec![
                    (i + 1).to_string(),
                    e.name.clone(),
                    e.games.to_string(),
                    e.results.wins.to_string(),
                    e.results.draws.to_string(),
                    e.results.losses.to_string(),
                    format!("{:.1}", e.points),
                    pct(e.score),
                    elo_text(e.elo),
                    interval_text(e.elo_low, e.elo_high),
                    los_text(e.los),
                    pct(e.draw_ratio),
                ]
            })
            .collect();
        out.push_str("Standings\n");
        out.push_str(&table(&header, &[1], &rows));
    }

    fn time_text(&self, out: &mut String) {
        let header = [
            "Engine",
            "Time losses",
            "Trouble",
            "Avg left",
            "Min left",
            "Per move",
        ];
        let rows: Vec<Vec<String>> = self
            .engines
            .iter()
            .map(|e| {
                vec![
                    e.name.clone(),
                    e.time_losses.to_string(),
                    pct(e.time_trouble_share),
                    secs(e.avg_ms_left, 1),
                    secs(e.min_ms_left as f64, 1),
                    e.avg_ms_per_move.map_or("-".to_string(), |m| secs(m, 2)),
                ]
            })
            .collect();
        out.push_str("\nTime (trouble: games ended with under 10% of the base time left)\n");
        out.push_str(&table(&header, &[0], &rows));

        if !self.phases_known {
            out.push_str(
                "Think time by game phase: not shown (it needs events.jsonl; \
                 games.csv has no per-move times)\n",
            );
            return;
        }
        let header = ["Engine", "Opening", "Middlegame", "Endgame"];
        let rows: Vec<Vec<String>> = self
            .engines
            .iter()
            .map(|e| {
                let mut row = vec![e.name.clone()];
                for phase in Phase::ALL {
                    let mean = e.phases.and_then(|p| p.mean_ms(phase));
                    row.push(mean.map_or("-".to_string(), |m| secs(m, 2)));
                }
                row
            })
            .collect();
        out.push_str(
            "\nThink time per move by phase (opening: moves 1-15, middlegame: 16-40, \
             endgame: 41+)\n",
        );
        out.push_str(&table(&header, &[0], &rows));
    }

    fn pairings_text(&self, out: &mut String) {
        let header = [
            "Pairing",
            "Games",
            "W",
            "D",
            "L",
            "Points",
            "Score",
            "Elo",
            "95% interval",
            "LOS",
        ];
        let rows: Vec<Vec<String>> = self
            .pairings
            .iter()
            .map(|p| {
                vec![
                    format!("{} vs {}", p.a, p.b),
                    p.results.games().to_string(),
                    p.results.wins.to_string(),
                    p.results.draws.to_string(),
                    p.results.losses.to_string(),
                    format!("{:.1}", p.points),
                    pct(p.score),
                    elo_text(p.elo),
                    interval_text(p.elo_low, p.elo_high),
                    los_text(p.los),
                ]
            })
            .collect();
        out.push_str("\nPairings (W/D/L from the first engine's side)\n");
        out.push_str(&table(&header, &[0], &rows));

        let unpaired: u32 = self.pairings.iter().map(|p| p.penta.unpaired).sum();
        if self.pairings.iter().all(|p| p.penta.pairs == 0) {
            let _ = writeln!(
                out,
                "Pentanomial: no complete pair of games ({unpaired} unpaired game{})",
                if unpaired == 1 { "" } else { "s" }
            );
        } else {
            let header = [
                "Pairing",
                "[LL, LD, DD+WL, WD, WW]",
                "Pairs",
                "Elo",
                "nElo",
                "LOS",
            ];
            let rows: Vec<Vec<String>> = self
                .pairings
                .iter()
                .map(|p| {
                    let c = p.penta.counts;
                    vec![
                        format!("{} vs {}", p.a, p.b),
                        format!("[{}, {}, {}, {}, {}]", c[0], c[1], c[2], c[3], c[4]),
                        p.penta.pairs.to_string(),
                        plus_minus(p.penta.elo, p.penta.elo_error),
                        plus_minus(p.penta.nelo, p.penta.nelo_error),
                        if p.penta.los.is_nan() {
                            "-".to_string()
                        } else {
                            los_text(p.penta.los)
                        },
                    ]
                })
                .collect();
            out.push_str(
                "\nPentanomial (pairs of games: one opening, colours swapped; \
                 first engine's side)\n",
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

        if let Some(s) = &self.sprt {
            let (lower, upper) = s.sprt.bounds();
            let _ = writeln!(
                out,
                "\nSPRT {} vs {}: nElo [{}, {}], alpha {}, beta {}\n\
                 LLR {} in ({:+.2}, {:+.2}): {}",
                s.engine,
                s.opponent,
                s.sprt.elo0,
                s.sprt.elo1,
                s.sprt.alpha,
                s.sprt.beta,
                if s.llr.is_nan() {
                    "-".to_string()
                } else {
                    format!("{:+.2}", s.llr)
                },
                lower,
                upper,
                s.status
            );
        }
    }

    /// Writes `summary.csv`: one row per engine, in standings order, plain numbers (Elo bounds
    /// may be `inf`/`-inf`; empty where a value does not exist). Replaces the file atomically.
    pub fn write_csv(&self, path: &Path) -> anyhow::Result<()> {
        let mut w = ::csv::WriterBuilder::new()
            .terminator(::csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record(SUMMARY_COLUMNS)?;
        for (i, e) in self.engines.iter().enumerate() {
            let phase = |phase: Phase| {
                e.phases
                    .and_then(|p| p.mean_ms(phase))
                    .map_or(String::new(), |m| format!("{m:.1}"))
            };
            let llr = match &self.sprt {
                Some(s) if s.engine == e.name => csv_number(s.llr, 4),
                _ => String::new(),
            };
            let p = &e.penta;
            w.write_record([
                (i + 1).to_string(),
                e.name.clone(),
                e.games.to_string(),
                e.results.wins.to_string(),
                e.results.draws.to_string(),
                e.results.losses.to_string(),
                format!("{:.1}", e.points),
                format!("{:.2}", e.score * 100.0),
                csv_number(e.elo, 1),
                csv_number(e.elo_low, 1),
                csv_number(e.elo_high, 1),
                format!("{:.4}", e.los * 100.0),
                format!("{:.2}", e.draw_ratio * 100.0),
                e.time_losses.to_string(),
                format!("{:.0}", e.avg_ms_left),
                e.min_ms_left.to_string(),
                e.avg_ms_per_move
                    .map_or(String::new(), |m| format!("{m:.1}")),
                p.counts[0].to_string(),
                p.counts[1].to_string(),
                p.counts[2].to_string(),
                p.counts[3].to_string(),
                p.counts[4].to_string(),
                p.unpaired.to_string(),
                csv_number(p.elo, 1),
                csv_number(p.elo_error, 1),
                csv_number(p.nelo, 1),
                csv_number(p.nelo_error, 1),
                csv_number(p.los * 100.0, 4),
                e.time_trouble.to_string(),
                csv_number(e.time_trouble_share * 100.0, 2),
                phase(Phase::Opening),
                phase(Phase::Middlegame),
                phase(Phase::Endgame),
                llr,
            ])?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| anyhow::anyhow!("cannot write summary.csv: {}", e.error()))?;
        super::folder::replace(path, &bytes)
    }
}

/// The columns of `summary.csv`: one row per engine. After the per-game statistics, its
/// pentanomial counts against the field (`penta_ll` .. `penta_ww`, from its side) and the
/// statistics derived from them, its time-trouble games (under 10 % of the base time left) and
/// their share of the games with a known base time, its mean think time per move by phase
/// (empty when the events were not at hand), and the SPRT's LLR on the tested engine's row.
pub const SUMMARY_COLUMNS: [&str; 34] = [
    "rank",
    "engine",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
    "score_pct",
    "elo",
    "elo_low",
    "elo_high",
    "los_pct",
    "draw_pct",
    "time_losses",
    "avg_ms_left",
    "min_ms_left",
    "avg_ms_per_move",
    "penta_ll",
    "penta_ld",
    "penta_dd_wl",
    "penta_wd",
    "penta_ww",
    "unpaired_games",
    "penta_elo",
    "penta_elo_error",
    "nelo",
    "nelo_error",
    "penta_los_pct",
    "time_trouble",
    "time_trouble_pct",
    "opening_ms_per_move",
    "middlegame_ms_per_move",
    "endgame_ms_per_move",
    "sprt_llr",
];

fn csv_number(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        String::new()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:.decimals$}")
    }
}

fn pct(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else {
        format!("{:.1}%", x * 100.0)
    }
}

/// LOS with two decimals; values that would round to 0 or 100 without being so are marked.
fn los_text(x: f64) -> String {
    let p = x * 100.0;
    if p > 99.995 && p < 100.0 {
        ">99.99%".to_string()
    } else if p < 0.005 && p > 0.0 {
        "<0.01%".to_string()
    } else {
        format!("{p:.2}%")
    }
}

fn elo_text(x: f64) -> String {
    if x.is_nan() {
        "-".to_string()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:+.1}")
    }
}

/// `+12.3 ± 20.1`; the `±` part is left out when it does not exist.
fn plus_minus(value: f64, error: f64) -> String {
    if error.is_nan() || !value.is_finite() {
        elo_text(value)
    } else if error.is_infinite() {
        format!("{} ± inf", elo_text(value))
    } else {
        format!("{} ± {error:.1}", elo_text(value))
    }
}

fn interval_text(low: f64, high: f64) -> String {
    format!("[{}, {}]", elo_text(low), elo_text(high))
}

fn secs(ms: f64, decimals: usize) -> String {
    format!("{:.decimals$}s", ms / 1000.0)
}

/// An aligned table: columns in `left` are left-aligned, the others right-aligned.
fn table(header: &[&str], left: &[usize], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let cells = std::iter::once(header.iter().map(|h| h.to_string()).collect::<Vec<_>>())
        .chain(rows.iter().cloned());
    for row in cells {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            let pad = w - cell.chars().count();
            if left.contains(&i) {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            } else {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Event, GameRecord};
    use crate::report::phases::{phase_times, Phase};
    use crate::rules::Ruleset;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    #[test]
    fn erf_matches_known_values() {
        // Reference values: erf/erfc to 16 digits (C99 libm, checked against tables).
        let cases = [
            (0.0, 0.0, 1.0),
            (0.1, 0.1124629160182849, 0.8875370839817152),
            (0.5, 0.5204998778130465, 0.4795001221869535),
            (1.0, 0.8427007929497149, 0.15729920705028513),
            (1.5, 0.9661051464753108, 0.033894853524689274),
            (2.0, 0.9953222650189527, 0.004677734981047265),
            (2.5, 0.999593047982555, 0.0004069520174449589),
            (3.0, 0.9999779095030014, 2.2090496998585438e-05),
            (4.0, 0.9999999845827421, 1.541725790028002e-08),
            (5.0, 0.9999999999984626, 1.5374597944280351e-12),
            (6.0, 1.0, 2.1519736712498916e-17),
            (10.0, 1.0, 2.088487583762545e-45),
        ];
        for (x, e, c) in cases {
            assert!(close(erf(x), e, 1e-14), "erf({x}) = {} not {e}", erf(x));
            assert!(close(erfc(x), c, 1e-13), "erfc({x}) = {} not {c}", erfc(x));
            assert!(close(erf(-x), -e, 1e-14));
            assert!(close(erfc(-x), 2.0 - c, 1e-14));
        }
        assert!(erf(f64::NAN).is_nan());
        assert_eq!(erf(f64::INFINITY), 1.0);
        assert_eq!(erfc(40.0), 0.0);
    }

    #[test]
    fn elo_of_a_score() {
        assert!(close(elo_from_score(0.7), 147.19071411783776, 1e-12));
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(close(elo_from_score(0.3), -147.19071411783776, 1e-12));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
    }

    #[test]
    fn six_two_two() {
        let r = Wdl {
            wins: 6,
            draws: 2,
            losses: 2,
        };
        assert_eq!(r.score(), 0.7);
        assert!(close(r.elo(), 147.19071411783776, 1e-12));
        // var = (6*0.09 + 2*0.04 + 2*0.49)/10 = 0.16, se = 0.4/sqrt(10) = 0.126491;
        // s ± 1.959964*se = [0.452077, 0.947923] -> Elo [-33.399, +504.033].
        let (lo, hi) = r.elo_interval();
        assert!(close(lo, -33.39935000168885, 1e-9), "{lo}");
        assert!(close(hi, 504.03329224498987, 1e-9), "{hi}");
        // LOS = 0.5 (1 + erf(4 / sqrt(16))) = 0.5 (1 + erf 1).
        assert!(close(r.los(), 0.9213503964748575, 1e-14));
        assert_eq!(r.draw_ratio(), 0.2);
    }

    #[test]
    fn los_keeps_its_precision_near_one_and_zero() {
        let r = Wdl {
            wins: 100,
            draws: 0,
            losses: 40,
        };
        // 1 - LOS = 0.5 erfc(60/sqrt(280)) = 1.9794283829780205e-07.
        assert!(close(1.0 - r.los(), 1.9794283829780205e-07, 1e-8));
        let r = Wdl {
            wins: 40,
            draws: 0,
            losses: 100,
        };
        assert!(close(r.los(), 1.9794283829780205e-07, 1e-12));
        assert_eq!(Wdl::default().los(), 0.5);
        assert_eq!(
            Wdl {
                wins: 3,
                draws: 4,
                losses: 3
            }
            .los(),
            0.5
        );
    }

    pub(crate) fn row(
        game: u64,
        white: &str,
        black: &str,
        result: GameResult,
        termination: Termination,
    ) -> GameRow {
        GameRow {
            game,
            pair: game.div_ceil(2),
            white: white.into(),
            black: black.into(),
            opening: "startpos".into(),
            ruleset: Ruleset::Fide,
            tc_white: "5+0".into(),
            tc_black: "5+0".into(),
            result: Some(result),
            termination: Some(termination),
            rule: "FIDE 5.1.1".into(),
            plies: 40,
            white_ms_left: 100_000,
            black_ms_left: 50_000,
            white_flag_ms: None,
            black_flag_ms: None,
            illegal_moves: 0,
            injected: String::new(),
            duration_ms: 300_000,
            seed: 1,
            white_moves: 20,
            black_moves: 20,
            white_think_ms: 10_000,
            black_think_ms: 30_000,
            started: String::new(),
            detail: String::new(),
        }
    }

    /// alpha vs beta: 6 wins, 2 draws, 2 losses for alpha, colours alternating.
    fn match_rows() -> Vec<GameRow> {
        use GameResult::*;
        use Termination::*;
        let alpha = [
            WhiteWins, BlackWins, WhiteWins, BlackWins, WhiteWins, BlackWins, Draw, Draw,
            BlackWins, WhiteWins,
        ];
        // Games 1..10; alpha is white in odd games. Results from the board.
        let mut rows = Vec::new();
        for (i, r) in alpha.into_iter().enumerate() {
            let g = i as u64 + 1;
            let (w, b) = if g % 2 == 1 {
                ("alpha", "beta")
            } else {
                ("beta", "alpha")
            };
            let term = match (g, r) {
                (_, Draw) => Threefold,
                (3, _) => Flag,
                (9, _) => BothFlags,
                _ => Checkmate,
            };
            rows.push(row(g, w, b, r, term));
        }
        rows
    }

    #[test]
    fn standings_of_a_match() {
        let rows = match_rows();
        let s = Summary::from_rows(&rows);
        // Alpha wins games 1-6, draws 7 and 8, loses 9 and 10.
        let alpha = &s.engines[0];
        assert_eq!(alpha.name, "alpha");
        assert_eq!(
            alpha.results,
            Wdl {
                wins: 6,
                draws: 2,
                losses: 2
            }
        );
        assert_eq!(alpha.points, 7.0);
        assert!(close(alpha.elo, 147.19071411783776, 1e-12));
        assert!(close(alpha.los, 0.9213503964748575, 1e-14));
        let beta = &s.engines[1];
        assert_eq!(beta.name, "beta");
        assert!(close(beta.score, 0.3, 1e-15));
        assert!(close(beta.elo, -147.19071411783776, 1e-12));
        assert!(close(beta.elo_low, -504.03329224498987, 1e-9));
        // Beta lost on time in game 3 (flag, as black), alpha in game 9 (both flags, as white).
        assert_eq!(beta.time_losses, 1);
        assert_eq!(alpha.time_losses, 1);
        // Clocks: 100 s as white, 50 s as black; five games each way.
        assert_eq!(alpha.avg_ms_left, 75_000.0);
        assert_eq!(alpha.min_ms_left, 50_000);
        // 5 x 10 s + 5 x 30 s over 200 moves.
        assert_eq!(alpha.avg_ms_per_move, Some(1000.0));
        assert_eq!(s.games, 10);
        assert_eq!((s.white_wins, s.black_wins, s.draws), (4, 4, 2));
        assert_eq!(
            s.terminations,
            vec![
                (Termination::Checkmate, 6),
                (Termination::Flag, 1),
                (Termination::BothFlags, 1),
                (Termination::Threefold, 2)
            ]
        );
        assert_eq!(s.pairings.len(), 1);
        let p = &s.pairings[0];
        assert_eq!((p.a.as_str(), p.b.as_str()), ("alpha", "beta"));
        assert_eq!(p.results, alpha.results);
    }

    #[test]
    fn gauntlet_pairings_are_seen_from_the_gauntlet_engine() {
        use GameResult::*;
        let rows = vec![
            row(1, "opp1", "hero", WhiteWins, Termination::Checkmate),
            row(2, "hero", "opp1", WhiteWins, Termination::Checkmate),
            row(3, "opp2", "hero", BlackWins, Termination::Checkmate),
            row(4, "hero", "opp2", WhiteWins, Termination::Checkmate),
        ];
        let s = Summary::from_rows(&rows);
        let p1 = &s.pairings[0];
        assert_eq!((p1.a.as_str(), p1.b.as_str()), ("hero", "opp1"));
        assert_eq!(
            p1.results,
            Wdl {
                wins: 1,
                draws: 0,
                losses: 1
            }
        );
        let p2 = &s.pairings[1];
        assert_eq!((p2.a.as_str(), p2.b.as_str()), ("hero", "opp2"));
        assert_eq!(p2.results.wins, 2);
        assert_eq!(p2.elo, f64::INFINITY);
        // Standings by score: hero 75 %, opp1 50 %, opp2 0 %.
        let names: Vec<&str> = s.engines.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["hero", "opp1", "opp2"]);
        assert_eq!(s.engines[2].elo, f64::NEG_INFINITY);
    }

    #[test]
    fn text_report_is_aligned_and_never_says_nan() {
        let mut rows = match_rows();
        rows.push(row(
            11,
            "perfect",
            "hopeless",
            GameResult::WhiteWins,
            Termination::IllegalMove,
        ));
        let mut unfinished = row(12, "a", "b", GameResult::Draw, Termination::Checkmate);
        unfinished.result = None;
        rows.push(unfinished);
        let text = Summary::from_rows(&rows).to_text();
        assert!(!text.contains("NaN"), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Standings");
        assert!(lines[1].starts_with("#  Engine    Games  W  D  L  Points   Score"));
        assert!(
            lines[2].starts_with(
                "1  perfect       1  1  0  0     1.0  100.0%     inf       [inf, inf]  84.13%"
            ),
            "{text}"
        );
        assert!(
            lines[3].contains(
                "alpha        10  6  2  2     7.0   70.0%  +147.2  [-33.4, +504.0]  92.14%  20.0%"
            ),
            "{text}"
        );
        assert!(
            lines[5].contains("  -inf     [-inf, -inf]  15.87%"),
            "{text}"
        );
        // Columns line up: "Elo" header ends where every Elo value ends.
        let end = lines[1].find("Elo").unwrap() + 3;
        for line in &lines[2..6] {
            assert!(
                line[..end].ends_with("inf") || line[..end].ends_with(".2"),
                "{line}"
            );
        }
        assert!(text.contains(
            "11 games: 5 white wins, 4 black wins, 2 draws (1 unfinished record not counted)\n"
        ));
        assert!(text.contains(
            "Terminations: checkmate 6, flag 1, both-flags 1, illegal-move 1, threefold 2\n"
        ));
        assert!(text.contains("alpha vs beta"));
        assert_eq!(
            Summary::from_rows(&[]).to_text(),
            "No finished games.\n0 games: 0 white wins, 0 black wins, 0 draws\n"
        );
    }

    #[test]
    fn summary_csv_has_one_row_per_engine() {
        let mut rows = match_rows();
        rows.push(row(
            11,
            "perfect",
            "hopeless",
            GameResult::WhiteWins,
            Termination::Checkmate,
        ));
        let dir = std::env::temp_dir().join(format!("blitz-arena-stats-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("summary.csv");
        Summary::from_rows(&rows).write_csv(&path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], SUMMARY_COLUMNS.join(","));
        // Existing columns first; then the pentanomial, time trouble, phases (not known
        // here) and the SPRT (none).
        assert_eq!(
            lines[1],
            "1,perfect,1,1,0,0,1.0,100.00,inf,inf,inf,84.1345,0.00,0,100000,100000,500.0,\
             0,0,0,0,0,1,,,,,,0,0.00,,,,"
        );
        assert_eq!(
            lines[2],
            "2,alpha,10,6,2,2,7.0,70.00,147.2,-33.4,504.0,92.1350,20.00,1,75000,50000,1000.0,\
             1,0,1,0,3,0,147.2,inf,122.8,215.3,86.8224,0,0.00,,,,"
        );
        assert_eq!(lines.len(), 5);
        assert!(lines[4].starts_with("4,hopeless,1,0,0,1,0.0,0.00,-inf,-inf,-inf,"));
        assert!(!dir.join("summary.csv.tmp").exists());
        std::fs::remove_dir_all(&dir).unwrap();
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

    #[test]
    fn pentanomial_elo_of_small_samples() {
        // Five drawn pairs: Elo 0 exactly, no spread; nElo is 0/0 and reported as missing.
        let p = PentaStats::from_counts([0, 0, 5, 0, 0], 0);
        assert_eq!((p.score, p.elo, p.elo_error), (0.5, 0.0, 0.0));
        assert!(p.nelo.is_nan());
        assert_eq!(p.los, 0.5);
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
        // A clean sweep.
        let p = PentaStats::from_counts([0, 0, 0, 0, 2], 0);
        assert_eq!((p.elo, p.nelo, p.los), (f64::INFINITY, f64::INFINITY, 1.0));
    }

    /// A game between `a` and `b` in pair `pair`; `a_points` 1, 0.5 or 0; `a` white if asked.
    fn game(pair: u64, a_white: bool, a_points: f64) -> GameRow {
        let result = if a_points == 0.5 {
            GameResult::Draw
        } else if (a_points == 1.0) == a_white {
            GameResult::WhiteWins
        } else {
            GameResult::BlackWins
        };
        let (w, b) = if a_white { ("a", "b") } else { ("b", "a") };
        let mut r = row(2 * pair, w, b, result, Termination::Checkmate);
        r.pair = pair;
        r
    }

    #[test]
    fn pentanomial_counts_pairs_from_the_first_engines_side() {
        let mut rows = vec![
            game(1, true, 1.0),
            game(1, false, 0.5), // WD
            game(2, false, 1.0),
            game(2, true, 0.0), // WL: 1 point
            game(3, true, 0.5),
            game(3, false, 0.5), // DD: 1 point
            game(4, true, 0.0),
            game(4, false, 0.0), // LL
            game(5, false, 0.5),
            game(5, true, 0.5), // DD
            game(6, true, 1.0), // its partner never finished
            game(6, false, 1.0),
            game(7, true, 0.5), // its partner is missing
            game(0, true, 1.0), // no pair number
            game(8, true, 1.0), // the same colours twice: not a pair
            game(8, true, 1.0),
        ];
        rows[11].result = None;
        // Another engine's games and other runs' pairs do not mix in.
        let mut other = row(99, "a", "c", GameResult::WhiteWins, Termination::Checkmate);
        other.pair = 1;
        rows.push(other);
        let mut rerun = game(1, true, 1.0);
        rerun.seed = 2;
        let mut rerun2 = game(1, false, 1.0);
        rerun2.seed = 2;
        rows.extend([rerun, rerun2]); // WW in run 2's pair 1
        assert_eq!(pentanomial(&rows, "a", "b"), ([1, 0, 3, 1, 1], 5));
        assert_eq!(pentanomial(&rows, "b", "a"), ([1, 1, 3, 0, 1], 5));
        assert_eq!(pentanomial(&rows, "a", "c"), ([0; 5], 1));
        assert_eq!(pentanomial(&rows, "a", "nobody"), ([0; 5], 0));

        let s = Summary::from_rows(&rows);
        let ab = s.pairings.iter().find(|p| p.b == "b").unwrap();
        assert_eq!(ab.a, "a");
        assert_eq!(ab.penta.counts, [1, 0, 3, 1, 1]);
        assert_eq!(ab.penta.unpaired, 5);
        // Engine "a" against the field adds its "c" game as unpaired; "b" sees mirrored pairs.
        let a = s.engines.iter().find(|e| e.name == "a").unwrap();
        assert_eq!((a.penta.counts, a.penta.unpaired), ([1, 0, 3, 1, 1], 6));
        let b = s.engines.iter().find(|e| e.name == "b").unwrap();
        assert_eq!((b.penta.counts, b.penta.unpaired), ([1, 1, 3, 0, 1], 5));
        let text = s.to_text();
        assert!(
            text.contains("a vs b   [1, 0, 3, 1, 1]              6  +29.0 ± 186.2"),
            "{text}"
        );
        assert!(
            text.contains(
                "6 finished games are not in a complete pair, left out of these counts\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_pentanomial_of_a_match_agrees_with_its_games() {
        // match_rows: pairs 1-3 won twice by alpha, pair 4 drawn twice, pair 5 lost twice.
        let s = Summary::from_rows(&match_rows());
        let p = &s.pairings[0].penta;
        assert_eq!((p.counts, p.pairs, p.unpaired), ([1, 0, 1, 0, 3], 5, 0));
        // Paired or not, the score is the games' score.
        assert!(close(p.score, s.pairings[0].score, 1e-15));
        assert!(close(p.elo, s.pairings[0].elo, 1e-12));
        assert_eq!(s.engines[1].penta.counts, [3, 0, 1, 0, 1]);
    }

    #[test]
    fn time_trouble_is_under_a_tenth_of_the_base_time() {
        use GameResult::*;
        let mut rows = Vec::new();
        // 5+0: 300 s base, trouble below 30 s.
        for (white_left, black_left) in [(29_999, 30_000), (-5, 150_000), (100, 0)] {
            let mut r = row(
                rows.len() as u64 + 1,
                "x",
                "y",
                Draw,
                Termination::Threefold,
            );
            r.white_ms_left = white_left;
            r.black_ms_left = black_left;
            rows.push(r);
        }
        // 10 s + 0.1 s for x: 1 s is the limit; y's time control does not parse.
        let mut r = row(4, "x", "y", WhiteWins, Termination::Checkmate);
        r.tc_white = "10s+0.1s".into();
        r.tc_black = "??".into();
        r.white_ms_left = 999;
        r.black_ms_left = 1;
        rows.push(r);
        // No base time at all (increment only): not counted either way.
        let mut r = row(5, "y", "x", WhiteWins, Termination::Checkmate);
        r.tc_white = "0+1".into();
        r.tc_black = "0+1".into();
        r.white_ms_left = 0;
        r.black_ms_left = 0;
        rows.push(r);
        let s = Summary::from_rows(&rows);
        let x = s.engines.iter().find(|e| e.name == "x").unwrap();
        assert_eq!((x.time_trouble, x.time_trouble_games), (4, 4));
        assert_eq!(x.time_trouble_share, 1.0);
        let y = s.engines.iter().find(|e| e.name == "y").unwrap();
        // 30 000 is exactly a tenth: not under it. 0 is.
        assert_eq!((y.time_trouble, y.time_trouble_games), (1, 3));
        assert!(close(y.time_trouble_share, 1.0 / 3.0, 1e-15));
        let text = s.to_text();
        assert!(text.contains("33.3%"), "{text}");
    }

    fn record(game: u64, fen: Option<&str>, book: usize, plies: u32, ended: bool) -> GameRecord {
        use crate::event::OpeningRecord;
        let mut events = Vec::new();
        for ply in 0..plies {
            let side = if ply % 2 == 0 {
                Side::White
            } else {
                Side::Black
            };
            events.push(Event::Move {
                t_us: 0,
                side,
                uci: "e2e4".into(),
                // White thinks 1 ms per ply index, black 1 s flat.
                think_us: if side == Side::White {
                    1000 * i64::from(ply)
                } else {
                    1_000_000
                },
                clock_us: 0,
                info: Default::default(),
            });
        }
        if ended {
            events.push(Event::End {
                t_us: 0,
                result: GameResult::Draw,
                termination: Termination::MaxMoves,
                rule: String::new(),
                detail: String::new(),
                white_clock_us: 0,
                black_clock_us: 0,
            });
        }
        GameRecord {
            game,
            pair: 1,
            white: "w".into(),
            black: "b".into(),
            opening: OpeningRecord {
                name: "x".into(),
                fen: fen.map(str::to_string),
                moves: vec!["e2e4".into(); book],
            },
            ruleset: Ruleset::Fide,
            tc_white: TimeControl::G5,
            tc_black: TimeControl::G5,
            seed: 1,
            started: String::new(),
            time_margin_ms: 0,
            events,
        }
    }

    #[test]
    fn think_time_by_phase_follows_the_move_number_on_the_board() {
        // From the start position, 45 moves each: white's moves are plies 0, 2, .., 88.
        let times = phase_times(&[record(1, None, 0, 90, true)]);
        let w = times["w"];
        assert_eq!(w.moves, [15, 25, 5]);
        // Moves 1-15: plies 0..=28, mean 14 ms; 16-40: plies 30..=78, mean 54 ms;
        // 41-45: plies 80..=88, mean 84 ms.
        assert_eq!(w.mean_ms(Phase::Opening), Some(14.0));
        assert_eq!(w.mean_ms(Phase::Middlegame), Some(54.0));
        assert_eq!(w.mean_ms(Phase::Endgame), Some(84.0));
        let b = times["b"];
        assert_eq!(b.moves, [15, 25, 5]);
        assert_eq!(b.mean_ms(Phase::Endgame), Some(1000.0));

        // Black to move at move 15, one book move (black's 15th): the game proper starts
        // with white's 16th move, in the middlegame; move 41 starts after 25 moves each.
        let fen = "4k3/8/8/8/8/8/8/4K3 b - - 0 15";
        let times = phase_times(&[record(2, Some(fen), 1, 52, true)]);
        assert_eq!(times["w"].moves, [0, 25, 1]);
        assert_eq!(times["b"].moves, [0, 25, 1]);
        // The same position with white to move at move 15: one opening move each.
        let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 15";
        let times = phase_times(&[record(3, Some(fen), 0, 2, true)]);
        assert_eq!(times["w"].moves, [1, 0, 0]);
        assert_eq!(times["b"].moves, [1, 0, 0]);
        assert_eq!(times["b"].mean_ms(Phase::Middlegame), None);
        // A record cut off before its end is left out.
        assert!(phase_times(&[record(4, None, 0, 10, false)]).is_empty());
    }

    #[test]
    fn phases_and_sprt_reach_the_text_and_the_csv() {
        let rows = match_rows();
        let mut s = Summary::from_rows(&rows);
        let text = s.to_text();
        assert!(
            text.contains("Think time by game phase: not shown"),
            "{text}"
        );
        assert!(!text.contains("SPRT"), "{text}");

        // The records of the match: alpha and beta by their colours in `match_rows`.
        let records: Vec<GameRecord> = (1..=10)
            .map(|g| {
                let mut r = record(g, None, 0, 90, true);
                (r.white, r.black) = if g % 2 == 1 {
                    ("alpha".into(), "beta".into())
                } else {
                    ("beta".into(), "alpha".into())
                };
                r
            })
            .collect();
        s.with_phases(&phase_times(&records));
        let sprt: Sprt = "elo0=0,elo1=5,alpha=0.05,beta=0.05".parse().unwrap();
        assert!(s.with_sprt(&sprt, "alpha"));
        let outcome = s.sprt.as_ref().unwrap();
        assert_eq!(outcome.penta, [1, 0, 1, 0, 3]);
        assert!(close(outcome.llr, sprt.llr([1, 0, 1, 0, 3]), 1e-15));
        assert!(outcome.llr > 0.0);
        assert_eq!(outcome.status, SprtStatus::Continue);

        let text = s.to_text();
        // Alpha: 14, 54, 84 ms as white, 1 s as black, 5 games each way: 507, 527, 542 ms.
        assert!(
            text.contains("alpha     0.51s       0.53s    0.54s"),
            "{text}"
        );
        assert!(text.contains("Pentanomial (pairs of games"), "{text}");
        assert!(
            text.contains(
                "alpha vs beta  [1, 0, 1, 0, 3]              5  +147.2 ± inf  +122.8 ± 215.3  86.82%\n"
            ),
            "{text}"
        );
        assert!(text.contains("SPRT alpha vs beta: nElo [0, 5], alpha 0.05, beta 0.05\n"));
        assert!(text.contains(&format!(
            "LLR {:+.2} in (-2.94, +2.94): continue\n",
            outcome.llr
        )));
        for line in text.lines() {
            assert!(line.chars().count() <= 100, "too wide: {line}");
        }

        // From beta's side: mirrored counts, and a negative LLR.
        let mut t = s.clone();
        assert!(t.with_sprt(&sprt, "beta"));
        assert_eq!(t.sprt.as_ref().unwrap().penta, [3, 0, 1, 0, 1]);
        assert!(t.sprt.as_ref().unwrap().llr < 0.0);
        // Not an engine of exactly one pairing: nothing.
        assert!(!t.with_sprt(&sprt, "gamma"));

        let dir = std::env::temp_dir().join(format!("blitz-arena-phases-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("summary.csv");
        s.write_csv(&path).unwrap();
        let csv = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert!(lines[1].starts_with("1,alpha,"));
        assert!(
            lines[1].ends_with(&format!(
                ",1,0,1,0,3,0,147.2,inf,122.8,215.3,86.8224,0,0.00,507.0,527.0,542.0,{:.4}",
                outcome.llr
            )),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].ends_with(
                ",3,0,1,0,1,0,-147.2,inf,-122.8,215.3,13.1776,0,0.00,507.0,527.0,542.0,"
            ),
            "{}",
            lines[2]
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_gauntlet_without_pairs_says_so_in_one_line() {
        use GameResult::*;
        let mut rows = vec![
            row(1, "opp1", "hero", WhiteWins, Termination::Checkmate),
            row(2, "hero", "opp2", WhiteWins, Termination::Checkmate),
        ];
        for r in &mut rows {
            r.pair = 0;
        }
        let text = Summary::from_rows(&rows).to_text();
        assert!(
            text.contains("Pentanomial: no complete pair of games (2 unpaired games)\n"),
            "{text}"
        );
    }
}
