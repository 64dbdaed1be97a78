//! End-to-end with Debian's engines (`.ci/run` installs stockfish, glaurung and toga2). Where
//! an engine is not installed, its test says it skipped; under `CI=true` it fails instead.
//! Real-clock strength and time-loss checks are in tests/soak.rs.

mod common;

use common::*;

const ROSTER: &str = r#"
[engines.stockfish]
cmd = "/usr/games/stockfish"
options = { Hash = 16, Threads = 1 }
[engines.glaurung]
cmd = "/usr/games/glaurung"
[engines.toga2]
cmd = "/usr/games/toga2"
options = { Hash = 16 }
"#;

/// At a fixed depth (Toga II ignores `go nodes`) the three engines play whole games through
/// the arena: every game ends by the rules of chess or `--max-moves`, never by a crash, a
/// stall, an illegal move or a flag, whatever the load on the machine.
#[test]
fn stockfish_against_glaurung_and_toga_at_a_fixed_depth() {
    if !debian_engines(&["stockfish", "glaurung", "toga2"]) {
        return;
    }
    let s = Scratch::new("sf");
    s.write("engines.toml", ROSTER);
    s.run_ok(&[
        "gauntlet",
        "stockfish",
        "--vs",
        "glaurung,toga2",
        "--tc",
        "60+0",
        "--depth",
        "4",
        "--max-moves",
        "20",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "3",
        "--out",
        "res",
    ]);
    s.assert_no_engines_left();
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert!(
            ![
                "engine-crash",
                "engine-stall",
                "illegal-move",
                "flag",
                "both-flags"
            ]
            .contains(&row["termination"].as_str()),
            "{row:?}"
        );
        assert!(row["plies"].parse::<u32>().unwrap() > 0, "{row:?}");
    }
    let opponents: std::collections::BTreeSet<&str> = rows
        .iter()
        .flat_map(|r| [r["white"].as_str(), r["black"].as_str()])
        .collect();
    assert_eq!(
        opponents.into_iter().collect::<Vec<_>>(),
        ["glaurung", "stockfish", "toga2"]
    );
}

/// With `--nodes`, Stockfish (one thread) plays the same moves every run, whatever the clock.
#[test]
fn fixed_nodes_make_stockfish_games_reproducible() {
    if !debian_engines(&["stockfish"]) {
        return;
    }
    let s = Scratch::new("sfnodes");
    s.write("engines.toml", ROSTER);
    let moves = |out: &str| {
        s.run_ok(&[
            "gauntlet",
            "stockfish",
            "--vs",
            "stockfish",
            "--tc",
            "60+0",
            "--nodes",
            "1500",
            "--games",
            "2",
            "--concurrency",
            "2",
            "--max-moves",
            "30",
            "--out",
            out,
        ]);
        let mut games: Vec<(String, String)> = pgn_games(&s.path(&format!("{out}/games.pgn")))
            .into_iter()
            .map(|(tags, text)| {
                // The moves without their clock comments.
                let bare: String = text
                    .split('{')
                    .map(|part| part.split_once('}').map_or(part, |(_, rest)| rest))
                    .collect();
                (
                    tags["Round"].clone(),
                    bare.split_whitespace().collect::<Vec<_>>().join(" "),
                )
            })
            .collect();
        games.sort();
        games
    };
    let first = moves("a");
    assert_eq!(first.len(), 2);
    assert!(
        first.iter().all(|(_, m)| m.contains("10.")),
        "real games were played: {first:?}"
    );
    assert_eq!(first, moves("b"));
    let rows = csv_rows(&s.path("a/games.csv"));
    assert_eq!(
        rows[0]["black"].as_str().max(rows[0]["white"].as_str()),
        "stockfish#2",
        "a name given twice is told apart"
    );
    for row in &rows {
        assert!(
            !["engine-crash", "engine-stall", "illegal-move", "flag"]
                .contains(&row["termination"].as_str()),
            "{row:?}"
        );
        assert!(
            row["plies"].parse::<u32>().unwrap() <= 60,
            "--max-moves 30 holds: {row:?}"
        );
    }
}

#[test]
fn check_names_debians_engines_and_their_options() {
    if !debian_engines(&["stockfish", "glaurung", "toga2"]) {
        return;
    }
    let s = Scratch::new("sfcheck");
    s.write("roster.toml", ROSTER);
    let out = s.run_ok(&["check", "--engines", "roster.toml"]);
    let text = stdout(&out);
    assert!(text.contains("stockfish: ok: Stockfish"), "{text}");
    assert!(text.contains("glaurung: ok: Glaurung"), "{text}");
    assert!(text.contains("toga2: ok: Toga II"), "{text}");
    assert!(text.contains("option Hash"), "{text}");
    s.assert_no_engines_left();
}
