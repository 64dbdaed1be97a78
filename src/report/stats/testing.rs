//! Rows for the statistics' tests (records with per-move times: `report::phases::tests`).

pub use crate::report::phases::tests::record;

use crate::event::{GameResult, Termination};
use crate::report::csv::GameRow;
use crate::rules::Ruleset;

pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1e-300)
}

pub fn row(
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
        rule: "FIDE Laws 5.1.1".into(),
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
        white_cpu_ms: None,
        black_cpu_ms: None,
        white_starved: 0,
        black_starved: 0,
        starved_time_loss: None,
    }
}

/// alpha vs beta: 6 wins, 2 draws, 2 losses for alpha, colours alternating.
pub fn match_rows() -> Vec<GameRow> {
    use GameResult::*;
    use Termination::*;
    let alpha = [
        WhiteWins, BlackWins, WhiteWins, BlackWins, WhiteWins, BlackWins, Draw, Draw, BlackWins,
        WhiteWins,
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
