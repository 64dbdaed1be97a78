//! Soak tests: strength and time-loss checks on real clocks, with engines managing their own
//! time. They depend on having the machine's cores, so `cargo test` skips them and `.ci/run`
//! runs them on their own, one at a time, after the rest of the suite:
//! `cargo test --release --test soak -- --ignored --test-threads=1`.

mod common;

use common::*;

/// Stockfish (one thread, with the move overhead engine testers give it on a shared machine)
/// at 5s+0.05s never loses on time to Glaurung or Toga II, one game at a time.
#[test]
#[ignore = "soak: .ci/run runs it alone"]
fn stockfish_never_loses_on_time_to_glaurung_and_toga_at_five_seconds() {
    if !debian_engines(&["stockfish", "glaurung", "toga2"]) {
        return;
    }
    let s = Scratch::new("soak-sf");
    s.write(
        "engines.toml",
        r#"
[engines.stockfish]
cmd = "/usr/games/stockfish"
options = { Hash = 16, Threads = 1, "Move Overhead" = 200 }
[engines.glaurung]
cmd = "/usr/games/glaurung"
[engines.toga2]
cmd = "/usr/games/toga2"
options = { Hash = 16 }
"#,
    );
    s.run_ok(&[
        "gauntlet",
        "stockfish",
        "--vs",
        "glaurung,toga2",
        "--tc",
        "5s+0.05s",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--seed",
        "3",
        "--out",
        "res",
    ]);
    s.assert_no_engines_left();
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_ne!(row["termination"], "engine-crash", "{row:?}");
        assert_ne!(row["termination"], "engine-stall", "{row:?}");
        assert_ne!(
            loser_on_time(row),
            Some("stockfish"),
            "Stockfish lost on time: {row:?}"
        );
    }
}

/// `minimax` with its own time management at 3s+0.05s scores clearly above `greedy` and
/// `random` and never loses on time, one game at a time.
#[test]
#[ignore = "soak: .ci/run runs it alone"]
fn minimax_never_loses_on_time_at_three_seconds() {
    let s = Scratch::new("soak-minimax");
    s.write(
        "engines.toml",
        "[engines.minimax]\nbuiltin = \"minimax\"\n[engines.greedy]\nbuiltin = \"greedy\"\n\
         [engines.random]\nbuiltin = \"random\"\n",
    );
    s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "greedy,random",
        "--tc",
        "3s+0.05s",
        "--games",
        "4",
        "--concurrency",
        "1",
        "--seed",
        "11",
        "--out",
        "res",
    ]);
    s.assert_no_engines_left();
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 8);
    let minimax = score_of(&rows, "minimax");
    assert!(minimax >= 6.5, "minimax scored only {minimax}/8");
    for row in &rows {
        assert_ne!(
            loser_on_time(row),
            Some("minimax"),
            "minimax lost on time: {row:?}"
        );
    }
}
