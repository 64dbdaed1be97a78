//! `summary.csv`: the numbers of the printed tables, one row per engine (Standings, Time,
//! think time by phase, and its pairs against the field) and one row per pairing (Pairings
//! and Pentanomial), plain numbers.

use std::path::Path;

use super::cells::csv_number;
use super::pairings::PairingStats;
use super::pentanomial::PentaStats;
use super::sprt::SprtOutcome;
use super::standings::EngineStats;
use crate::report::phases::Phase;

/// The columns of `summary.csv`. `kind` is `engine` (one engine against the field, `rank` its
/// place in the standings) or `pairing` (`engine` against `opponent`, from `engine`'s side,
/// in the order of the printed Pairings table). After the per-game statistics, the
/// pentanomial counts (`penta_ll` .. `penta_ww`, from `engine`'s side) and the statistics
/// derived from them, the time-trouble games (under 10 % of the base time left) and their
/// share of the games with a known base time, the mean think time per move by phase (empty
/// when the events were not at hand), and the SPRT's LLR over every finished game on the
/// tested engine's rows. A value that does not exist is empty: a pairing row has no time
/// columns; a figure its sample cannot estimate, because every game (or pair) scored the same,
/// is empty (the interval's bounds; with the pairs, `penta_elo_error`, `nelo`, `nelo_error`
/// and `penta_los_pct`), never a certainty such as an LOS of 100 %.
pub const SUMMARY_COLUMNS: [&str; 37] = [
    "kind",
    "rank",
    "engine",
    "opponent",
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
    "penta_pairs",
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

/// The pentanomial columns, `penta_pairs` .. `penta_los_pct`.
fn penta_cells(p: &PentaStats) -> Vec<String> {
    vec![
        p.pairs.to_string(),
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
    ]
}

/// Writes `summary.csv` at `path`, replacing the file atomically.
pub fn write(
    path: &Path,
    engines: &[EngineStats],
    pairings: &[PairingStats],
    sprt: Option<&SprtOutcome>,
) -> anyhow::Result<()> {
    let mut w = ::csv::WriterBuilder::new()
        .terminator(::csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(SUMMARY_COLUMNS)?;
    let llr_of = |engine: &str, opponent: Option<&str>| match sprt {
        Some(s) if s.engine == engine && opponent.is_none_or(|o| s.opponent == o) => {
            csv_number(s.llr, 4)
        }
        _ => String::new(),
    };
    for (i, e) in engines.iter().enumerate() {
        let phase = |phase: Phase| {
            e.phases
                .and_then(|p| p.mean_ms(phase))
                .map_or(String::new(), |m| format!("{m:.1}"))
        };
        let mut record = vec![
            "engine".to_string(),
            (i + 1).to_string(),
            e.name.clone(),
            String::new(),
            e.games.to_string(),
            e.results.wins.to_string(),
            e.results.draws.to_string(),
            e.results.losses.to_string(),
            format!("{:.1}", e.points),
            csv_number(e.score * 100.0, 2),
            csv_number(e.elo, 1),
            csv_number(e.elo_low, 1),
            csv_number(e.elo_high, 1),
            csv_number(e.los * 100.0, 4),
            csv_number(e.draw_ratio * 100.0, 2),
            e.time_losses.to_string(),
            format!("{:.0}", e.avg_ms_left),
            e.min_ms_left.to_string(),
            e.avg_ms_per_move
                .map_or(String::new(), |m| format!("{m:.1}")),
        ];
        record.extend(penta_cells(&e.penta));
        record.extend([
            e.time_trouble.to_string(),
            csv_number(e.time_trouble_share * 100.0, 2),
            phase(Phase::Opening),
            phase(Phase::Middlegame),
            phase(Phase::Endgame),
            llr_of(&e.name, None),
        ]);
        crate::report::csv_cell::write_record(&mut w, &record)?;
    }
    for p in pairings {
        let r = &p.results;
        let mut record = vec![
            "pairing".to_string(),
            String::new(),
            p.a.clone(),
            p.b.clone(),
            r.games().to_string(),
            r.wins.to_string(),
            r.draws.to_string(),
            r.losses.to_string(),
            format!("{:.1}", p.points),
            csv_number(p.score * 100.0, 2),
            csv_number(p.elo, 1),
            csv_number(p.elo_low, 1),
            csv_number(p.elo_high, 1),
            csv_number(p.los * 100.0, 4),
            csv_number(r.draw_ratio() * 100.0, 2),
        ];
        // Time losses, clocks and time per move are per engine only.
        record.extend(std::iter::repeat_n(String::new(), 4));
        record.extend(penta_cells(&p.penta));
        record.extend(std::iter::repeat_n(String::new(), 5));
        record.push(llr_of(&p.a, Some(&p.b)));
        crate::report::csv_cell::write_record(&mut w, &record)?;
    }
    let bytes = w
        .into_inner()
        .map_err(|e| anyhow::anyhow!("cannot write summary.csv: {}", e.error()))?;
    crate::report::folder::replace(path, &bytes)
}
