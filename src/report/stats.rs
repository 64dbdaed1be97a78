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

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context;

use super::csv::GameRow;
use crate::event::{GameResult, Side, Termination};

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
        };

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
            });
        }
        summary
    }

    /// The summary as aligned tables for a terminal.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.games == 0 {
            out.push_str("No finished games.\n");
        } else {
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
                "Time losses",
                "Avg left",
                "Min left",
                "Per move",
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
                        e.time_losses.to_string(),
                        secs(e.avg_ms_left, 1),
                        secs(e.min_ms_left as f64, 1),
                        e.avg_ms_per_move.map_or("-".to_string(), |m| secs(m, 2)),
                    ]
                })
                .collect();
            out.push_str("Standings\n");
            out.push_str(&table(&header, &[1], &rows));

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

    /// Writes `summary.csv`: one row per engine, in standings order, plain numbers (Elo bounds
    /// may be `inf`/`-inf`; empty where a value does not exist). Replaces the file atomically.
    pub fn write_csv(&self, path: &Path) -> anyhow::Result<()> {
        let mut w = ::csv::WriterBuilder::new()
            .terminator(::csv::Terminator::Any(b'\n'))
            .from_writer(Vec::new());
        w.write_record(SUMMARY_COLUMNS)?;
        for (i, e) in self.engines.iter().enumerate() {
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
            ])?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| anyhow::anyhow!("cannot write summary.csv: {}", e.error()))?;
        let tmp = path.with_extension("csv.tmp");
        std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }
}

/// The columns of `summary.csv`.
pub const SUMMARY_COLUMNS: [&str; 17] = [
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
        assert_eq!(
            lines[1],
            "1,perfect,1,1,0,0,1.0,100.00,inf,inf,inf,84.1345,0.00,0,100000,100000,500.0"
        );
        assert_eq!(
            lines[2],
            "2,alpha,10,6,2,2,7.0,70.00,147.2,-33.4,504.0,92.1350,20.00,1,75000,50000,1000.0"
        );
        assert_eq!(lines.len(), 5);
        assert!(lines[4].starts_with("4,hopeless,1,0,0,1,0.0,0.00,-inf,-inf,-inf,"));
        assert!(!dir.join("summary.csv.tmp").exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
