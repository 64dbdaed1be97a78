//! What a user reads must be true, end to end: the clocks after a flag fell, the console
//! through a closed pipe, and the PGN read by python-chess to the end of every game.

mod common;

use common::*;

const BUILTINS: &str = r#"
[engines.minimax]
builtin = "minimax"
[engines.greedy]
builtin = "greedy"
[engines.random]
builtin = "random"
"#;

/// The reproduction of issue 12 item 8: every game gets a flag that falls exactly at zero
/// (overshoot 0..0) and is never noticed, so the game goes on; the flagged side must earn no
/// increment from then on, and its clock at the end is at or below zero.
#[test]
fn no_increment_is_earned_once_a_flag_has_fallen() {
    let s = Scratch::new("flag-increment");
    s.write("engines.toml", BUILTINS);
    s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "greedy",
        "--tc",
        "1s+0.5s",
        "--inject-flag",
        "1",
        "--flag-overshoot-ms",
        "0..0",
        "--flag-notice-ms",
        "100000",
        "--depth",
        "2",
        "--games",
        "4",
        "--seed",
        "3",
        "--out",
        "out",
    ]);
    let rows = csv_rows(&s.path("out/games.csv"));
    assert_eq!(rows.len(), 4);
    let mut flagged = 0;
    for row in &rows {
        for side in ["white", "black"] {
            if row[&format!("{side}_flag_ms")].is_empty() {
                continue;
            }
            flagged += 1;
            let left: i64 = row[&format!("{side}_ms_left")].parse().unwrap();
            assert!(
                left <= 0,
                "game {}: {side}'s flag fell but it ended with {left} ms (increments after the flag)",
                row["game"]
            );
        }
    }
    assert!(flagged >= 1, "no flag fell: {rows:?}");
}

/// Issue 12 item 4, as reported: `gauntlet ... 2>&1 | head -2`. The reader goes away after
/// two lines; the run must still play every game, write every file and exit 0.
#[test]
fn a_closed_console_pipe_stops_nothing() {
    use std::io::{BufRead, BufReader};
    let s = Scratch::new("closed-pipe");
    s.write("engines.toml", BUILTINS);
    let (reader, writer) = std::io::pipe().unwrap();
    let mut child = s
        .command(&[
            "gauntlet",
            "minimax",
            "--vs",
            "greedy,random",
            "--games",
            "4",
            "--tc",
            "2s+0.02s",
            "--out",
            "out",
        ])
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(reader);
    for _ in 0..2 {
        let mut line = String::new();
        lines.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the run printed fewer than two lines");
    }
    drop(lines); // `head -2` exits: the pipe's only reader is gone.
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_eq!(csv_rows(&s.path("out/games.csv")).len(), 8);
    assert_eq!(pgn_games(&s.path("out/games.pgn")).len(), 8);
    let summary = std::fs::read_to_string(s.path("out/summary.csv")).unwrap();
    assert!(summary.contains("minimax"), "{summary}");
    assert_no_leftovers(&s);
}
