//! Each pairing, from its first engine's side (see `order`): its results, and the Pairings
//! table, followed by the pentanomial table of the same pairings.

use std::collections::HashMap;

use super::cells::{elo_text, interval_text, los_text, pct, table};
use super::elo::Wdl;
use super::pentanomial::{self, pentanomial, PentaStats};
use crate::report::csv::GameRow;

/// One pairing, `a` against `b`, the results from `a`'s side.
#[derive(Clone, Debug, PartialEq)]
pub struct PairingStats {
    pub a: String,
    pub b: String,
    pub results: Wdl,
    pub points: f64,
    pub score: f64,
    pub elo: f64,
    /// The 95 % interval; NaN when every game scored the same (no spread, no interval).
    pub elo_low: f64,
    pub elo_high: f64,
    pub los: f64,
    /// The paired games, from `a`'s side.
    pub penta: PentaStats,
}

/// The pairings of the finished games in `rows`, each from the side of its engine that comes
/// first in `order`, listed in that order (`a` by `order`, then `b` by `order`).
pub fn pairings(rows: &[GameRow], order: &[String]) -> Vec<PairingStats> {
    let rank: HashMap<&str, usize> = order
        .iter()
        .enumerate()
        .map(|(i, name)| (name.as_str(), i))
        .collect();
    let rank_of = |name: &str| rank.get(name).copied().unwrap_or(usize::MAX);
    let mut results: HashMap<(usize, usize), Wdl> = HashMap::new();
    for row in rows {
        let Some(result) = row.result else {
            continue;
        };
        let (white, black) = (rank_of(&row.white), rank_of(&row.black));
        let (key, side) = if white <= black {
            ((white, black), crate::event::Side::White)
        } else {
            ((black, white), crate::event::Side::Black)
        };
        results.entry(key).or_default().add(result.points(side));
    }
    let mut keys: Vec<(usize, usize)> = results.keys().copied().collect();
    keys.sort_unstable();
    keys.into_iter()
        .map(|(i, j)| {
            let (a, b) = (&order[i], &order[j]);
            pairing(a, b, results[&(i, j)], pentanomial(rows, a, b))
        })
        .collect()
}

/// The pairing of `a` against `b`, whose games ended `r` and whose pairs counted `penta`
/// (`pentanomial`), from `a`'s side.
pub(super) fn pairing(a: &str, b: &str, r: Wdl, penta: ([u32; 5], u32)) -> PairingStats {
    let (elo_low, elo_high) = r.elo_interval();
    PairingStats {
        a: a.to_string(),
        b: b.to_string(),
        results: r,
        points: r.points(),
        score: r.score(),
        elo: r.elo(),
        elo_low,
        elo_high,
        los: r.los(),
        penta: PentaStats::from_counts(penta.0, penta.1),
    }
}

/// The Pairings table, then the pentanomial table of the same pairings.
pub fn text(out: &mut String, pairings: &[PairingStats]) {
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
    let rows: Vec<Vec<String>> = pairings
        .iter()
        .map(|p| {
            vec![
                label(p),
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
    let lines: Vec<(String, PentaStats)> = pairings.iter().map(|p| (label(p), p.penta)).collect();
    pentanomial::text(out, &lines);
}

/// `a vs b`.
pub fn label(p: &PairingStats) -> String {
    format!("{} vs {}", p.a, p.b)
}
