//! Elo from a score, and a side's wins, draws and losses with the statistics of one
//! trinomial sample (the usual formulas of cutechess-cli, fastchess and the chessprogramming
//! wiki):
//! - score `s = (W + D/2) / N`;
//! - Elo difference from a score, logistic model: `Elo(s) = -400 * log10(1/s - 1)`
//!   (`-inf` at 0 %, `inf` at 100 %);
//! - 95 % interval: the per-game variance of the score is the trinomial
//!   `var = (W (1-s)^2 + D (1/2-s)^2 + L (0-s)^2) / N`, the score's standard error is
//!   `sqrt(var) / sqrt(N)`, and the interval `s ± 1.95996 * sqrt(var/N)` is mapped through
//!   `Elo(.)` (a bound at or beyond 0 or 1 maps to `-inf`/`inf`). When every game scored the
//!   same (`var = 0`) the sample shows no spread and there is no interval: both bounds are NaN;
//! - likelihood of superiority: `LOS = 1/2 * (1 + erf((W - L) / sqrt(2 (W + L))))`, computed as
//!   `1/2 * erfc(-(W - L) / sqrt(2 (W + L)))` to keep its precision near 0 and near 1; 50 %
//!   when no game was decisive;
//! - draw ratio `D / N`.

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
/// `-400 * log10(1/s - 1)`; `-inf` at 0 and `inf` at 1, and `+0.0` (never `-0.0`) at 1/2.
pub fn elo_from_score(s: f64) -> f64 {
    if s <= 0.0 {
        f64::NEG_INFINITY
    } else if s >= 1.0 {
        f64::INFINITY
    } else {
        // Adding +0.0 turns the -0.0 of -400 * log10(1) into +0.0.
        -400.0 * (1.0 / s - 1.0).log10() + 0.0
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

    /// The same games from the other side's point of view.
    pub fn flipped(self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
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

    /// The 95 % interval of the Elo difference (trinomial variance, see the module notes);
    /// NaN bounds when every game scored the same, or without games.
    pub fn elo_interval(&self) -> (f64, f64) {
        let n = self.games() as f64;
        let s = self.score();
        let var = (self.wins as f64 * (1.0 - s).powi(2)
            + self.draws as f64 * (0.5 - s).powi(2)
            + self.losses as f64 * s.powi(2))
            / n;
        if var.is_nan() || var == 0.0 {
            return (f64::NAN, f64::NAN);
        }
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

    /// Counts one game that scored `points` (1, 1/2 or 0) for this side.
    pub fn add(&mut self, points: f64) {
        if points == 1.0 {
            self.wins += 1;
        } else if points == 0.0 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_sample_without_spread_has_no_interval_and_an_even_score_is_plus_zero() {
        let draws = Wdl {
            wins: 0,
            draws: 3,
            losses: 0,
        };
        assert!(draws.elo().is_sign_positive() && draws.elo() == 0.0);
        let (lo, hi) = draws.elo_interval();
        assert!(lo.is_nan() && hi.is_nan());
        let sweep = Wdl {
            wins: 4,
            draws: 0,
            losses: 0,
        };
        assert!(sweep.elo_interval().0.is_nan());
        assert!(elo_from_score(0.5).is_sign_positive());
    }
}
