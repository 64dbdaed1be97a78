//! End-to-end with Debian's engines (`.ci/run` installs stockfish, glaurung and toga2).
//! Where an engine is not installed, its test says so and does nothing.

mod common;

use std::path::Path;

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

fn installed(engines: &[&str]) -> bool {
    let missing: Vec<_> = engines
        .iter()
        .filter(|e| !Path::new(&format!("/usr/games/{e}")).exists())
        .collect();
    if !missing.is_empty() {
        eprintln!(
            "not installed: {missing:?} (apt-get install stockfish glaurung toga2); test skipped"
        );
    }
    missing.is_empty()
}

#[test]
fn stockfish_against_glaurung_and_toga_at_five_seconds() {
    if !installed(&["stockfish", "glaurung", "toga2"]) {
        return;
    }
    let s = Scratch::new("sf");
    s.write("engines.toml", ROSTER);
    let out = s.run(&[
        "gauntlet",
        "stockfish",
        "--vs",
        "glaurung,toga2",
        "--tc",
        "5s+0.05s",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "3",
        "--out",
        "res",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        s.leftovers().is_empty(),
        "engines left running: {:?}",
        s.leftovers()
    );
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_ne!(row["termination"], "engine-crash", "{row:?}");
        assert_ne!(row["termination"], "engine-stall", "{row:?}");
        if row["termination"] == "flag" {
            let loser = if row["result"] == "1-0" {
                &row["black"]
            } else {
                &row["white"]
            };
            assert_ne!(loser, "stockfish", "Stockfish lost on time: {row:?}");
        }
    }
}

/// With `--nodes`, Stockfish (one thread) plays the same moves every run, whatever the clock.
#[test]
fn fixed_nodes_make_stockfish_games_reproducible() {
    if !installed(&["stockfish"]) {
        return;
    }
    let s = Scratch::new("sfnodes");
    s.write("engines.toml", ROSTER);
    let moves = |out: &str| {
        let run = s.run(&[
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
        assert!(run.status.success(), "{}", stderr(&run));
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
    if !installed(&["stockfish", "glaurung", "toga2"]) {
        return;
    }
    let s = Scratch::new("sfcheck");
    s.write("roster.toml", ROSTER);
    let out = s.run(&["check", "--engines", "roster.toml"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("stockfish: ok: Stockfish"), "{text}");
    assert!(text.contains("glaurung: ok: Glaurung"), "{text}");
    assert!(text.contains("toga2: ok: Toga II"), "{text}");
    assert!(text.contains("option Hash"), "{text}");
    assert!(s.leftovers().is_empty(), "{:?}", s.leftovers());
}
