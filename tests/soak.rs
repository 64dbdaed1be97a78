//! Soak tests: strength and time-loss checks on real clocks, with engines managing their own
//! time or moving just before their flag. They depend on having the machine's cores, so
//! `cargo test` skips them and `.ci/run` runs them on their own, one at a time, after the rest
//! of the suite:
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
/// `random` (both seeded) and never loses on time, one game at a time.
#[test]
#[ignore = "soak: .ci/run runs it alone"]
fn minimax_never_loses_on_time_at_three_seconds() {
    let s = Scratch::new("soak-minimax");
    s.write(
        "engines.toml",
        "[engines.minimax]\nbuiltin = \"minimax\"\n[engines.greedy]\nbuiltin = \"greedy\"\n\
         options = { Seed = 3 }\n[engines.random]\nbuiltin = \"random\"\noptions = { Seed = 7 }\n",
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

/// Two engines that print 100,000 scored `info` lines (about 12 MB) before every move, and two
/// calm engines that think until their own clock shows 50 ms left: at twice the cores in games
/// at once, no calm engine may lose on time, in its games against a flooder or against the
/// other calm engine. (Before each engine's output had its own reader thread, the floods
/// delayed the calm engines' `bestmove` stamps by 8 ms at the median and 44 ms at the 99th
/// percentile, and calm engines lost on time.) The arena's delay per move (charged thinking
/// time less the engine's own, which it reports) is printed. A calm engine moves 50 ms before
/// its flag, so this needs the machine's cores: on a loaded machine (load average 2.5 on two
/// cores) one run in three lost a game on time. Twice the cores in games at once share the one
/// I/O thread; as many as the cores each read their engines on a thread of their own.
#[test]
#[ignore = "soak: .ci/run runs it alone"]
fn a_flooding_engine_costs_no_other_engine_its_time() {
    flood_soak(2 * blitz_arena::tournament::cores());
}

/// The same with a thread for each game (`--concurrency` the cores): a flood is read on its
/// own game's thread.
#[test]
#[ignore = "soak: .ci/run runs it alone"]
fn a_flooding_engine_on_its_own_thread_costs_no_other_engine_its_time() {
    flood_soak(blitz_arena::tournament::cores());
}

fn flood_soak(concurrency: usize) {
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
    let concurrency = concurrency.to_string();
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
    assert!(out.status.success(), "{}", stderr(&out));
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

/// Runs `command` (its output thrown away) and returns whether it succeeded and the most
/// memory it held at once (peak resident set, KB), as the kernel counted it.
// The child is reaped by `wait4`, which std's `wait` cannot stand in for (it returns no rusage).
#[allow(clippy::zombie_processes)]
fn peak_rss_kb(mut command: std::process::Command) -> (bool, i64) {
    use std::process::Stdio;
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value for wait4 to fill in.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: wait4 on the pid of a child this function spawned and nobody else waits for.
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    assert_eq!(pid, child.id() as i32);
    (
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        usage.ru_maxrss,
    )
}

/// Resuming a large folder holds no more than the run that wrote it: the kept games are
/// checked one record at a time, never all read at once, nor read twice. (Before the folder
/// was streamed, a resume of 40,000 games held twice what their run did.) Generous: resume may
/// hold a quarter more than the run.
#[test]
#[ignore = "soak: .ci/run runs it alone"]
fn resuming_a_large_folder_holds_no_more_than_its_run() {
    let s = Scratch::new("soak-resume-rss");
    let games = "40000";
    let run = s.command(&[
        "gauntlet",
        "instant",
        "--vs",
        "random",
        "--games",
        games,
        "--max-moves",
        "5",
        "--tc",
        "10s+0.1s",
        "--seed",
        "1",
        "--concurrency",
        "2",
        "--out",
        "big",
    ]);
    let (ok, run_kb) = peak_rss_kb(run);
    assert!(ok, "the run failed");
    // One game left to play: the last row of games.csv goes.
    let csv = s.path("big/games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let cut = text.trim_end().rfind('\n').unwrap() + 1;
    std::fs::write(&csv, &text[..cut]).unwrap();
    let resume = s.command(&["gauntlet", "instant", "--vs", "random", "--resume", "big"]);
    let (ok, resume_kb) = peak_rss_kb(resume);
    assert!(ok, "the resume failed");
    println!("peak RSS: run of {games} games {run_kb} KB, its resume {resume_kb} KB");
    assert!(
        resume_kb * 4 <= run_kb * 5,
        "resume held {resume_kb} KB, its run {run_kb} KB"
    );
    assert_eq!(csv_rows(&csv).len(), 40000);
}
