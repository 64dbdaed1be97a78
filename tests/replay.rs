//! End-to-end: seeded fault injection replays (issue 8.6). Two runs with the same `--seed`,
//! the same deterministic engines (`script` engines playing the first legal move at once) and
//! illegal-move and flag injection, at concurrency 2, give the same games: the same injections
//! and the same rulings, whatever the timing of each run.

mod common;

use std::collections::HashMap;

use common::*;

/// Columns that measure time (and so differ between runs); `injected` keeps its items with
/// their instants removed.
const TIMING: [&str; 14] = [
    "white_ms_left",
    "black_ms_left",
    "white_flag_ms",
    "black_flag_ms",
    "white_think_ms",
    "black_think_ms",
    "duration_ms",
    "started",
    "detail",
    "white_cpu_ms",
    "black_cpu_ms",
    "white_starved",
    "black_starved",
    "starved_time_loss",
];

fn run(s: &Scratch, out: &str) -> Vec<Vec<(String, String)>> {
    let result = s.run(&[
        "gauntlet",
        "a",
        "--vs",
        "b",
        "--games",
        "8",
        "--concurrency",
        "2",
        "--tc",
        "1s+0",
        "--max-moves",
        "15",
        "--seed",
        "42",
        "--inject-illegal",
        "0.1",
        "--inject-flag",
        "0.5",
        "--flag-overshoot-ms",
        "0..100",
        "--out",
        out,
    ]);
    assert!(result.status.success(), "{}", stderr(&result));
    let mut rows = csv_rows(&s.path(&format!("{out}/games.csv")));
    rows.sort_by_key(|r| r["game"].parse::<u64>().unwrap());
    rows.into_iter().map(without_timing).collect()
}

fn without_timing(row: HashMap<String, String>) -> Vec<(String, String)> {
    let mut kept: Vec<(String, String)> = row
        .into_iter()
        .filter(|(k, _)| !TIMING.contains(&k.as_str()))
        .map(|(k, v)| {
            if k == "injected" {
                // `what@side:ms; ...` -> `what@side; ...`
                let items: Vec<&str> = v
                    .split("; ")
                    .map(|item| item.rsplit_once(':').map_or(item, |(head, _)| head))
                    .collect();
                (k, items.join("; "))
            } else {
                (k, v)
            }
        })
        .collect();
    kept.sort();
    kept
}

#[test]
fn the_same_seed_gives_the_same_injections_and_rulings() {
    let s = Scratch::new("replay");
    s.write(
        "engines.toml",
        "[engines.a]\nbuiltin = \"script\"\nargs = [\"--moves\", \"\"]\n\
         [engines.b]\nbuiltin = \"script\"\nargs = [\"--moves\", \"\"]\n",
    );
    let (first, second) = std::thread::scope(|scope| {
        let a = scope.spawn(|| run(&s, "one"));
        let b = scope.spawn(|| run(&s, "two"));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(first.len(), 8);
    let injected = |rows: &[Vec<(String, String)>]| {
        rows.iter()
            .flat_map(|r| r.iter().filter(|(k, _)| k == "injected"))
            .filter(|(_, v)| !v.is_empty())
            .count()
    };
    assert!(
        injected(&first) >= 4,
        "most games carry an injection: {first:?}"
    );
    for (a, b) in first.iter().zip(&second) {
        assert_eq!(a, b, "the same game, two runs");
    }
}
