//! End-to-end, with real engine processes: an engine that sends a stray `bestmove` after its
//! move (issue 8.2), an engine that dies while idle between games (issue 8.5), and one that
//! exits while a process it forked holds its pipes open.

mod common;

use blitz_arena::event::{Event, GameRecord, Side};
use common::*;

fn records(s: &Scratch) -> Vec<GameRecord> {
    std::fs::read_to_string(s.path("res/events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn gauntlet(s: &Scratch, engine: &str) {
    let out = s.run(&[
        "gauntlet",
        engine,
        "--vs",
        "random",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--tc",
        "10s+0.1s",
        "--max-moves",
        "5",
        "--seed",
        "1",
        "--out",
        "res",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(s.leftovers().is_empty(), "{:?}", s.leftovers());
}

/// Every move of `faulty --stray-bestmove-after 0` comes twice. The second is never taken as
/// the answer to the next `go`: no illegal move, every game goes its 5 moves, and the record
/// shows each stray as discarded (the last of a game may come after the game and is not).
#[test]
fn a_stray_bestmove_is_discarded_not_played() {
    let s = Scratch::new("faults-stray");
    s.write(
        "engines.toml",
        "[engines.stray]\nbuiltin = \"faulty\"\nargs = [\"--stray-bestmove-after\", \"0\", \"--seed\", \"1\"]\n\
         [engines.random]\nbuiltin = \"random\"\noptions = { Seed = 1 }\n",
    );
    gauntlet(&s, "stray");
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(
            (row["termination"].as_str(), row["illegal_moves"].as_str()),
            ("max-moves", "0"),
            "{row:?}"
        );
    }
    for record in records(&s) {
        let side = if record.white == "stray" {
            Side::White
        } else {
            Side::Black
        };
        let moves: Vec<String> = record
            .moves()
            .filter(|m| m.0 == side)
            .map(|m| format!("bestmove {}", m.1))
            .collect();
        let discarded: Vec<String> = record
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Discarded { side: s, line, .. } if *s == side => Some(line.clone()),
                _ => None,
            })
            .collect();
        assert!(
            discarded.len() + 1 >= moves.len() && moves.starts_with(&discarded),
            "each stray repeats its move: {discarded:?} {moves:?}"
        );
    }
    let pgn = std::fs::read_to_string(s.path("res/games.pgn")).unwrap();
    assert!(pgn.contains("stray \"bestmove"), "{pgn}");
}

/// `faulty --exit-on-newgame 2` plays game 1 and dies when game 2 is announced, while idle.
/// The arena restarts it and game 2 is played; the detail says so.
#[test]
fn an_engine_that_died_idle_is_restarted_for_its_next_game() {
    let s = Scratch::new("faults-idle");
    s.write(
        "engines.toml",
        "[engines.mortal]\nbuiltin = \"faulty\"\nargs = [\"--exit-on-newgame\", \"2\", \"--seed\", \"1\"]\n\
         [engines.random]\nbuiltin = \"random\"\noptions = { Seed = 1 }\n",
    );
    gauntlet(&s, "mortal");
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 2);
    let second = rows.iter().find(|r| r["game"] == "2").unwrap();
    assert_eq!(second["termination"], "max-moves", "{second:?}");
    assert_eq!(second["plies"], "10", "{second:?}");
    assert!(
        second["detail"].contains("engine had died while idle")
            && second["detail"].contains("restarted"),
        "{second:?}"
    );
    let first = rows.iter().find(|r| r["game"] == "1").unwrap();
    assert!(!first["detail"].contains("died"), "{first:?}");
}

/// The same engine behind a launcher that starts it only twice (the arena's check before the
/// run, and the run): game 2 is forfeited with 0 moves, and the detail says the engine died
/// and its restart failed.
#[test]
fn an_engine_that_died_idle_forfeits_when_its_restart_fails() {
    let s = Scratch::new("faults-idle-norestart");
    let launcher = format!(
        "n=$(($(cat starts 2>/dev/null || echo 0) + 1)); echo $n > starts; \
         if [ $n -gt 2 ]; then echo cannot start again >&2; exit 3; fi; \
         exec {BIN} engine faulty --exit-on-newgame 2"
    );
    s.write(
        "engines.toml",
        &format!(
            "[engines.mortal]\ncmd = \"/bin/sh\"\nargs = [\"-c\", {launcher:?}]\n\
             [engines.random]\nbuiltin = \"random\"\n"
        ),
    );
    gauntlet(&s, "mortal");
    let rows = csv_rows(&s.path("res/games.csv"));
    let second = rows.iter().find(|r| r["game"] == "2").unwrap();
    assert_eq!(
        (second["termination"].as_str(), second["plies"].as_str()),
        ("engine-crash", "0"),
        "{second:?}"
    );
    assert_eq!(
        second["result"], "1-0",
        "mortal is black in game 2: {second:?}"
    );
    assert!(
        second["detail"].contains("exited with exit status: 101")
            && second["detail"].contains("restart failed")
            && second["detail"].contains("cannot start again"),
        "{second:?}"
    );
}

/// A UCI engine that, on `go`, forks a process that sleeps for two minutes (holding the pipes
/// it inherited), says so on stderr and exits with status 0.
const FORKER: &str = r#"#!/usr/bin/env python3
import os, sys, time
for line in sys.stdin:
    cmd = line.split()[:1]
    if cmd == ["uci"]: print("id name forker\nuciok", flush=True)
    elif cmd == ["isready"]: print("readyok", flush=True)
    elif cmd == ["go"]:
        if os.fork() == 0:
            time.sleep(120)
            os._exit(0)
        print("leaving", file=sys.stderr, flush=True)
        os._exit(0)
    elif cmd == ["quit"]: break
"#;

/// An engine that forks on `go` and exits at once, its fork holding its stdout and stderr open
/// (asleep for two minutes): its exit is noticed by the process's own end, not by its pipes,
/// so the game is ruled `engine-crash` with the status and what it wrote to stderr, at once,
/// not after its 60 s clock as a stall; the fork is killed with the engine's group.
#[test]
fn an_engine_that_exits_while_its_fork_holds_its_pipes_is_ruled_a_crash_at_once() {
    let s = Scratch::new("faults-forked-exit");
    let engine = s.write("forker.py", FORKER);
    std::fs::set_permissions(&engine, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    s.write(
        "engines.toml",
        &format!(
            "[engines.forker]\ncmd = {:?}\n[engines.random]\nbuiltin = \"random\"\n",
            engine.display().to_string()
        ),
    );
    let started = std::time::Instant::now();
    let out = s.run(&[
        "gauntlet",
        "forker",
        "--vs",
        "random",
        "--games",
        "1",
        "--concurrency",
        "1",
        "--tc",
        "60s+0s",
        "--out",
        "res",
    ]);
    let took = started.elapsed();
    assert!(out.status.success(), "{}", stderr(&out));
    s.assert_no_engines_left();
    let rows = csv_rows(&s.path("res/games.csv"));
    let row = &rows[0];
    assert_eq!(row["termination"], "engine-crash", "{row:?}");
    assert!(
        row["detail"].contains("exited with exit status: 0")
            && row["detail"].contains("stderr: leaving"),
        "{row:?}"
    );
    assert!(
        took < std::time::Duration::from_secs(20),
        "the run took {took:?} against a 60 s clock"
    );
}
