//! Engine processes end to end: a flood of output in one game leaves every other game's clock
//! alone, and an engine started through a wrapper script that does not `exec` is gone with the
//! arena on every path (normal end, SIGTERM, SIGKILL).

mod common;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{csv_rows, wait_for_games, Scratch, BIN};

/// Games at once: twice the machine's cores, so the floods and the calm games compete for CPU.
fn twice_the_cores() -> usize {
    2 * std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// Two engines that print 100,000 scored `info` lines (about 9 MB) before every move, and two
/// calm engines that think until their own clock shows 50 ms left: at twice the cores in games
/// at once, no calm engine may lose on time, in its games against a flooder or against the
/// other calm engine. (Before each engine's output had its own reader thread, the floods
/// delayed the calm engines' `bestmove` stamps by 8 ms at the median and 44 ms at the 99th
/// percentile, and calm engines lost on time.) The arena's delay per move (charged thinking
/// time less the engine's own, which it reports) is printed.
#[test]
fn a_flooding_engine_costs_no_other_engine_its_time() {
    let s = Scratch::new("flood");
    s.write(
        "engines.toml",
        r#"
[engines.calm]
builtin = "faulty"
args = ["--reserve-ms", "50", "--say-think", "--seed", "1"]
[engines.calm2]
builtin = "faulty"
args = ["--reserve-ms", "50", "--say-think", "--seed", "2"]
[engines.flood1]
builtin = "faulty"
args = ["--flood-info", "100000", "--seed", "3"]
tc = "60s+0"
[engines.flood2]
builtin = "faulty"
args = ["--flood-info", "100000", "--seed", "4"]
tc = "60s+0"
"#,
    );
    let concurrency = twice_the_cores().to_string();
    let out = s.run(&[
        "gauntlet",
        "calm",
        "--vs",
        "flood1,flood2,calm2",
        "--tc",
        "300ms+100ms",
        "--games",
        "4",
        "--max-moves",
        "8",
        "--concurrency",
        &concurrency,
        "--seed",
        "1",
        "--out",
        "o",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let rows = csv_rows(&s.path("o/games.csv"));
    assert_eq!(rows.len(), 12);
    let calm = |name: &str| name.starts_with("calm");
    for row in &rows {
        let flagged = matches!(row["termination"].as_str(), "flag" | "both-flags");
        let loser = match row["result"].as_str() {
            "1-0" => Some(&row["black"]),
            "0-1" => Some(&row["white"]),
            _ => None,
        };
        assert!(
            !(flagged && loser.is_some_and(|l| calm(l))),
            "a calm engine lost on time: {row:?}"
        );
        if calm(&row["white"]) && calm(&row["black"]) {
            assert_eq!(row["termination"], "max-moves", "{row:?}");
        }
    }

    // The arena's delay: what it charged beyond the thinking time the engine measured itself.
    let mut delays_us: Vec<i64> = Vec::new();
    let events = std::fs::read_to_string(s.path("o/events.jsonl")).unwrap();
    for game in events.lines() {
        let game: serde_json::Value = serde_json::from_str(game).unwrap();
        let names = [
            game["white"].as_str().unwrap(),
            game["black"].as_str().unwrap(),
        ];
        for event in game["events"].as_array().unwrap() {
            let side = usize::from(event["side"] == "black");
            if event["event"] == "move" && calm(names[side]) {
                let own_us = event["info"]["nodes"].as_i64().unwrap();
                delays_us.push(event["think_us"].as_i64().unwrap() - own_us);
            }
        }
    }
    delays_us.sort_unstable();
    assert!(delays_us.len() >= 100, "{} calm moves", delays_us.len());
    assert!(
        delays_us[0] >= 0,
        "charged less than the engine thought: {delays_us:?}"
    );
    let at = |q: f64| delays_us[((delays_us.len() - 1) as f64 * q) as usize];
    println!(
        "arena delay per calm move (bestmove stamp and go delivery) at concurrency \
         {concurrency}, {} moves: median {} us, p99 {} us, max {} us",
        delays_us.len(),
        at(0.5),
        at(0.99),
        delays_us.last().unwrap()
    );
}

/// A wrapper script that starts the engine as its child and waits, as `run.sh` files that set
/// LD_LIBRARY_PATH often do.
fn wrapped_engines(s: &Scratch) {
    s.write(
        "wrapper.sh",
        &format!("#!/bin/sh\n\"{BIN}\" engine \"$@\"\necho wrapper done >&2\n"),
    );
    let wrapper = s.path("wrapper.sh");
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    s.write(
        "engines.toml",
        &format!(
            r#"
[engines.wrapped]
cmd = "{0}"
args = ["faulty", "--slow-move-ms", "20"]
[engines.wrapped2]
cmd = "{0}"
args = ["random"]
"#,
            wrapper.display()
        ),
    );
}

fn start_long_run(s: &Scratch) -> Child {
    common::long_gauntlet(s, "wrapped", "wrapped2")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// Engines are direct children, wrappers and the wrappers' children: all carry the marker.
fn wait_for_engines(s: &Scratch, at_least: usize) {
    let start = Instant::now();
    while s.leftovers().len() < at_least {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "engines never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_wrapped_engine_is_gone_when_the_run_ends() {
    let s = Scratch::new("wrapped-end");
    wrapped_engines(&s);
    let out = s.run(&[
        "gauntlet",
        "wrapped",
        "--vs",
        "wrapped2",
        "--tc",
        "60s+0",
        "--games",
        "2",
        "--max-moves",
        "5",
        "--out",
        "o",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(csv_rows(&s.path("o/games.csv")).len(), 2);
    common::assert_no_leftovers(&s);
}

#[test]
fn a_wrapped_engine_is_gone_after_sigterm() {
    let s = Scratch::new("wrapped-term");
    wrapped_engines(&s);
    let mut child = start_long_run(&s);
    wait_for_games(&s, "res/games.csv", 1);
    // SAFETY: signals the arena process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(143));
    common::assert_no_leftovers(&s);
}

/// `kill -9` gives the arena no chance to clean up: the engines' parent-death signal takes the
/// wrappers, and the janitor takes the wrappers' children.
#[test]
fn a_wrapped_engine_is_gone_after_the_arena_is_killed() {
    let s = Scratch::new("wrapped-kill");
    wrapped_engines(&s);
    let mut child = start_long_run(&s);
    wait_for_games(&s, "res/games.csv", 1);
    // 2 games x (wrapper + engine) x 2 sides, the arena and its janitor.
    wait_for_engines(&s, 10);
    child.kill().unwrap();
    child.wait().unwrap();
    let start = Instant::now();
    loop {
        let left = s.leftovers();
        if left.is_empty() {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "engines outlived a killed arena: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A plain `scancel` (or a hang-up of the whole session) signals the engines and the arena at
/// once: an engine that dies of that SIGTERM a moment before the arena hears its own is not an
/// engine crash. The games in progress are left unplayed, for `--resume`, like any other game
/// a stop interrupts.
#[test]
fn engines_terminated_with_the_arena_lose_no_game_by_crash() {
    let s = Scratch::new("term-together");
    s.write(
        "engines.toml",
        "[engines.minimax]\nbuiltin = \"minimax\"\n[engines.greedy]\nbuiltin = \"greedy\"\n",
    );
    let mut child = common::long_gauntlet(&s, "minimax", "greedy")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&s, "res/games.csv", 1);
    let engines: Vec<i32> = s
        .leftovers()
        .iter()
        .filter(|p| p.contains(" engine "))
        .map(|p| p.split(':').next().unwrap().parse().unwrap())
        .collect();
    assert!(engines.len() >= 2, "{:?}", s.leftovers());
    for pid in &engines {
        // SAFETY: signals engine processes this test's arena started.
        unsafe { libc::kill(*pid, libc::SIGTERM) };
    }
    // The arena hears its own signal later, as when a scheduler signals one process at a time.
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: signals the arena process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert_eq!(child.wait().unwrap().code(), Some(143));
    let rows = csv_rows(&s.path("res/games.csv"));
    assert!(!rows.is_empty());
    for row in &rows {
        assert_ne!(row["termination"], "engine-crash", "{row:?}");
    }
    common::assert_no_leftovers(&s);
}
