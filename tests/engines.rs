//! Engine processes end to end: a flood of output breaks no game and is not recorded, and an
//! engine started through a wrapper script that does not `exec` is gone with the arena on every
//! path (normal end, SIGTERM, SIGKILL). Nothing here depends on how busy the machine is; that a
//! flood costs the other games no time on short clocks is a soak test (tests/soak.rs).

mod common;

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{csv_rows, wait_for_games, Scratch, BIN};

/// Two engines that print 100,000 scored `info` lines (about 12 MB) before every move, against
/// an engine that reports its own thinking time, two games at once: every game is played to
/// its end, the floods are read and dropped (the record keeps the one `info` line a move
/// needs), and no engine is charged less than it thought. All exact: the clocks are long
/// enough that no load makes anyone lose on time. That the floods cost the other games no time
/// on short clocks needs a quiet machine: tests/soak.rs.
#[test]
fn a_flooding_engine_breaks_no_game_and_is_not_recorded() {
    let s = Scratch::new("flood");
    s.write(
        "engines.toml",
        r#"
[engines.calm]
builtin = "faulty"
args = ["--say-think", "--seed", "1"]
[engines.flood1]
builtin = "faulty"
args = ["--flood-info", "100000", "--seed", "3"]
[engines.flood2]
builtin = "faulty"
args = ["--flood-info", "100000", "--seed", "4"]
"#,
    );
    let out = s.run(&[
        "gauntlet",
        "calm",
        "--vs",
        "flood1,flood2",
        "--tc",
        "10m+0",
        "--games",
        "2",
        "--max-moves",
        "4",
        "--concurrency",
        "2",
        "--seed",
        "1",
        "--out",
        "o",
    ]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let rows = csv_rows(&s.path("o/games.csv"));
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(row["termination"], "max-moves", "{row:?}");
        assert_eq!(row["plies"], "8", "{row:?}");
    }
    // 16 moves of the floods printed about 140 MB; the record holds a line or so a move.
    let record = std::fs::metadata(s.path("o/events.jsonl")).unwrap().len();
    assert!(record < 200_000, "events.jsonl has {record} bytes");
    let mut calm_moves = 0;
    for (name, own_us, charged_us) in think_times(&s) {
        if name == "calm" {
            calm_moves += 1;
            assert!(
                charged_us >= own_us,
                "charged {charged_us} us for {own_us} us of thinking"
            );
        }
    }
    assert_eq!(calm_moves, 16);
}

/// Each move of a results folder's `o/events.jsonl`: the mover, the thinking time it reported
/// as `nodes` (`--say-think`; 0 if none) and the time it was charged, in µs.
fn think_times(s: &Scratch) -> Vec<(String, i64, i64)> {
    let events = std::fs::read_to_string(s.path("o/events.jsonl")).unwrap();
    let mut moves = Vec::new();
    for game in events.lines() {
        let game: serde_json::Value = serde_json::from_str(game).unwrap();
        let names = [
            game["white"].as_str().unwrap(),
            game["black"].as_str().unwrap(),
        ];
        for event in game["events"].as_array().unwrap() {
            if event["event"] == "move" {
                let side = usize::from(event["side"] == "black");
                moves.push((
                    names[side].to_string(),
                    event["info"]["nodes"].as_i64().unwrap_or(0),
                    event["think_us"].as_i64().unwrap(),
                ));
            }
        }
    }
    moves
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

/// `kill -9` gives the arena no chance to clean up: the janitor kills the engines' groups, the
/// wrappers and the wrappers' children.
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
