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
