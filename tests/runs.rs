//! Runs that outlive their process: resume after a kill, shards merged into one run.

mod common;

use std::collections::BTreeMap;

use common::*;

/// Seeded engines at a fixed depth: every game is a function of its schedule entry, so runs
/// that play the same schedule must produce the same games.
const DETERMINISTIC: &str = r#"
[engines.minimax]
builtin = "minimax"
[engines.random]
builtin = "random"
options = { Seed = 7 }
[engines.greedy]
builtin = "greedy"
options = { Seed = 11 }
"#;

const RUN: &[&str] = &[
    "gauntlet",
    "minimax",
    "--vs",
    "random,greedy",
    "--tc",
    "60+0",
    "--depth",
    "2",
    "--games",
    "12",
    "--seed",
    "5",
    "--max-moves",
    "40",
    "--concurrency",
    "2",
];

/// game number -> (white, black, opening, result, termination, plies)
fn games(
    s: &Scratch,
    dir: &str,
) -> BTreeMap<u64, (String, String, String, String, String, String)> {
    csv_rows(&s.path(&format!("{dir}/games.csv")))
        .into_iter()
        .map(|r| {
            (
                r["game"].parse().unwrap(),
                (
                    r["white"].clone(),
                    r["black"].clone(),
                    r["opening"].clone(),
                    r["result"].clone(),
                    r["termination"].clone(),
                    r["plies"].clone(),
                ),
            )
        })
        .collect()
}

fn run_with(s: &Scratch, extra: &[&str]) -> std::process::Output {
    let mut args = RUN.to_vec();
    args.extend_from_slice(extra);
    s.run_ok(&args)
}

#[test]
fn a_killed_run_resumes_to_the_same_games_as_an_uninterrupted_one() {
    let s = Scratch::new("resume");
    s.write("engines.toml", DETERMINISTIC);
    run_with(&s, &["--out", "whole"]);
    let whole = games(&s, "whole");
    assert_eq!(whole.len(), 24);

    let mut args = RUN.to_vec();
    args.extend_from_slice(&["--out", "killed"]);
    let mut child = s
        .command(&args)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&s, "killed/games.csv", 5);
    child.kill().unwrap();
    child.wait().unwrap();
    let before = games(&s, "killed").len();
    assert!(before < 24, "killed before the end");
    // A half-written line, as a kill in the middle of a write leaves it.
    let mut csv = std::fs::read_to_string(s.path("killed/games.csv")).unwrap();
    csv.push_str("99,50,minimax,ran");
    std::fs::write(s.path("killed/games.csv"), csv).unwrap();

    let resumed = s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "random,greedy",
        "--resume",
        "killed",
    ]);
    assert!(
        stderr(&resumed).contains(&format!(
            "resuming: {before} games already played; engines, options and book as run.json holds them"
        )),
        "{}",
        stderr(&resumed)
    );
    assert_eq!(
        games(&s, "killed"),
        whole,
        "the same games, none lost, none repeated"
    );
    assert_eq!(pgn_games(&s.path("killed/games.pgn")).len(), 24);
    assert_eq!(
        std::fs::read_to_string(s.path("killed/events.jsonl"))
            .unwrap()
            .lines()
            .count(),
        24
    );
    s.assert_no_engines_left();

    // A finished run resumed plays nothing more; a changed plan is refused.
    s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "random,greedy",
        "--resume",
        "killed",
    ]);
    assert_eq!(games(&s, "killed").len(), 24);
    let changed = s.run(&[
        "gauntlet",
        "minimax",
        "--vs",
        "random,greedy",
        "--resume",
        "killed",
        "--tc",
        "1+0",
    ]);
    // Options that cannot go together are a bad command line: exit 2.
    assert_usage_error(&changed, "drop --tc");
    // A new run into a folder that holds one is refused, and leaves the folder as it was.
    let before = folder_contents(&s.path("killed"));
    let reused = s.run(&["gauntlet", "minimax", "--vs", "random", "--out", "killed"]);
    assert_one_line_error(&reused, "--resume killed");
    assert_eq!(
        folder_contents(&s.path("killed")),
        before,
        "the folder is unchanged"
    );
}

#[test]
fn three_shards_merged_equal_the_unsharded_run() {
    let s = Scratch::new("shards");
    s.write("engines.toml", DETERMINISTIC);
    run_with(&s, &["--out", "whole"]);
    // The shards run as separate processes, at the same time, as on separate machines.
    let children: Vec<_> = (1..=3)
        .map(|k| {
            let mut args = RUN.to_vec();
            let shard = format!("{k}/3");
            let out = format!("shard{k}");
            args.extend_from_slice(&["--shard", &shard, "--out", &out]);
            s.command(&args).output()
        })
        .collect();
    for child in children {
        let out = child.unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
    }
    let parts: Vec<usize> = (1..=3)
        .map(|k| games(&s, &format!("shard{k}")).len())
        .collect();
    assert_eq!(
        parts.iter().sum::<usize>(),
        24,
        "disjoint slices covering the schedule: {parts:?}"
    );
    assert!(
        parts.iter().all(|&n| n >= 6),
        "every shard has work: {parts:?}"
    );

    s.run_ok(&["merge", "shard1", "shard2", "shard3", "--out", "merged"]);
    assert_eq!(games(&s, "merged"), games(&s, "whole"));
    // The statistics of all games: the same standings as the unsharded run.
    let standings = |dir: &str| -> Vec<Vec<String>> {
        csv_rows(&s.path(&format!("{dir}/summary.csv")))
            .into_iter()
            .map(|r| {
                [
                    "engine", "games", "wins", "draws", "losses", "points", "elo",
                ]
                .iter()
                .map(|c| r[*c].clone())
                .collect()
            })
            .collect()
    };
    assert_eq!(standings("merged"), standings("whole"));
    // `stats` over the shard folders reads the same games.
    let stats = s.run_ok(&["stats", "shard1", "shard2", "shard3"]);
    assert!(stdout(&stats).contains("24 games"), "{}", stdout(&stats));

    // Folders of different runs are not merged.
    let mut other: Vec<&str> = RUN
        .iter()
        .map(|a| if *a == "5" { "6" } else { a })
        .collect();
    other.extend_from_slice(&["--out", "other", "--shard", "1/3"]);
    s.run_ok(&other);
    let bad = s.run(&["merge", "shard2", "other", "--out", "bad"]);
    assert_one_line_error(&bad, "seed");
}

#[test]
fn an_sprt_match_stops_by_itself_when_a_bound_is_crossed() {
    let s = Scratch::new("sprt");
    s.write("engines.toml", DETERMINISTIC);
    let out = s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "random",
        "--tc",
        "60+0",
        "--depth",
        "2",
        "--max-moves",
        "60",
        "--games",
        "400",
        "--sprt",
        "elo0=0,elo1=100,alpha=0.05,beta=0.05",
        "--seed",
        "3",
        "--concurrency",
        "2",
        "--out",
        "res",
    ]);
    let played = games(&s, "res").len();
    assert!(played < 100, "stopped early: {played} of 400 games");
    let text = stdout(&out);
    assert!(text.contains("H1 accepted"), "{text}");
    assert!(text.contains("LLR +"), "{text}");
    // The LLR is printed as games finish.
    assert!(stderr(&out).contains("LLR "), "{}", stderr(&out));
    let bad = s.run(&[
        "gauntlet",
        "minimax",
        "--vs",
        "random,greedy",
        "--sprt",
        "elo0=0,elo1=5,alpha=0.05,beta=0.05",
    ]);
    assert!(
        stderr(&bad).contains("exactly two engines"),
        "{}",
        stderr(&bad)
    );
    let bad = s.run(&[
        "gauntlet",
        "minimax",
        "--vs",
        "random",
        "--sprt",
        "elo0=5,elo1=0,alpha=0.05,beta=0.05",
    ]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}
