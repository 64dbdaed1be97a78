//! The arena's own limits are never an engine's loss (issue 25): runs under a lowered limit of
//! open files. Before the first game the arena raises its soft limit to the hard one and
//! refuses, with one line saying what to lower, a concurrency whose engines do not fit; an
//! engine that cannot be started mid-run for want of open files stops the run, with every
//! finished game kept and resumable, and no game charged to an engine. Exact counts, no timing.

use std::process::{Command, Output};

mod common;
use common::{csv_rows, stderr, stdout, Scratch};

/// `blitz-arena ARGS` in the scratch folder, after `ulimit LIMIT` in a shell.
fn limited(s: &Scratch, limit: &str, args: &[&str]) -> Command {
    let arena = s.command(args);
    let mut shell = Command::new("sh");
    shell
        .arg("-c")
        .arg(format!("ulimit {limit} && exec \"$0\" \"$@\""))
        .arg(arena.get_program())
        .args(arena.get_args())
        .current_dir(&s.dir)
        .envs(arena.get_envs().filter_map(|(k, v)| Some((k, v?))));
    shell
}

fn run(command: &mut Command) -> Output {
    command.output().expect("sh runs")
}

/// The hard limit of open files the tests run under.
fn hard_limit() -> u64 {
    let out = run(Command::new("sh").args(["-c", "ulimit -Hn"]));
    stdout(&out).trim().parse().unwrap_or(u64::MAX)
}

fn gauntlet<'a>(vs: &'a str, games: &'a str, concurrency: &'a str, out: &'a str) -> Vec<&'a str> {
    vec![
        "gauntlet",
        "instant",
        "--vs",
        vs,
        "--games",
        games,
        "--concurrency",
        concurrency,
        "--max-moves",
        "2",
        "--out",
        out,
    ]
}

/// No game of the folder is charged to an engine: none ended by an engine's crash, none
/// records a start failure.
#[track_caller]
fn no_engine_charged(s: &Scratch, out: &str) {
    for row in csv_rows(&s.path(out).join("games.csv")) {
        assert_ne!(row["termination"], "engine-crash", "{row:?}");
    }
    let events = std::fs::read_to_string(s.path(out).join("events.jsonl")).unwrap();
    assert!(!events.contains("cannot start"), "{events}");
}

#[test]
fn a_concurrency_that_does_not_fit_the_open_files_is_refused_with_what_to_lower() {
    let s = Scratch::new("capacity-refused");
    // `ulimit -n` sets the hard limit too: raising cannot help.
    let refused = run(&mut limited(
        &s,
        "-n 64",
        &gauntlet("instant", "64", "64", "r"),
    ));
    let err = stderr(&refused);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    assert!(
        err.contains("--concurrency 64: 128 engines at once need about"),
        "{err}"
    );
    assert!(err.contains("open files"), "{err}");
    assert!(!s.path("r").exists(), "a refused run writes nothing");
    // The concurrency it names runs, every game played.
    let fit = err
        .split("lower --concurrency to ")
        .nth(1)
        .and_then(|t| t.trim().parse::<u32>().ok())
        .unwrap_or_else(|| panic!("no concurrency named: {err}"));
    assert!((1..64).contains(&fit), "{err}");
    let fit = fit.to_string();
    let played = run(&mut limited(
        &s,
        "-n 64",
        &gauntlet("instant", "64", &fit, "r"),
    ));
    assert!(played.status.success(), "{}", stderr(&played));
    assert_eq!(csv_rows(&s.path("r").join("games.csv")).len(), 64);
    no_engine_charged(&s, "r");
}

/// With so few open files that the engines cannot even start to be checked (`-n 16`), the
/// run is refused as it is with a few more (`-n 40`): the machine's limit, exit 2, not an
/// engine's failure; and the line's numbers add up: the limit less what is open and what the
/// arena keeps for its own is what it says is free.
#[test]
fn too_few_files_to_check_the_engines_is_the_same_refusal() {
    let s = Scratch::new("capacity-preflight");
    for limit in ["-n 16", "-n 40"] {
        let refused = run(&mut limited(&s, limit, &gauntlet("random", "2", "2", "r")));
        let err = stderr(&refused);
        assert_eq!(refused.status.code(), Some(2), "{limit}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(
            err.contains("--concurrency 2: 4 engines at once need about"),
            "{err}"
        );
        assert!(
            err.trim_end().ends_with("not even one game at a time fits"),
            "{err}"
        );
        assert!(!s.path("r").exists(), "a refused run writes nothing");
        // The number that follows `label` in the line.
        let after = |label: &str| -> u64 {
            let at = err
                .find(label)
                .unwrap_or_else(|| panic!("no {label:?}: {err}"))
                + label.len();
            let digits = err[at..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .unwrap();
            digits
                .parse()
                .unwrap_or_else(|_| panic!("no number after {label:?}: {err}"))
        };
        let free = after(" and ");
        let soft = after("(ulimit -n ");
        let open = after(&format!("(ulimit -n {soft}, "));
        let kept = after(&format!(", {open} open, "));
        assert_eq!(free, soft.saturating_sub(open + kept), "{err}");
    }
    s.assert_no_engines_left();
}

#[test]
fn a_low_soft_limit_is_raised_to_the_hard_one() {
    if hard_limit() < 1024 {
        eprintln!("the hard limit of open files is under 1024 here: skipped");
        return;
    }
    let s = Scratch::new("capacity-raised");
    // 32 games at once hold about 200 files: more than the soft limit of 40.
    let out = run(&mut limited(
        &s,
        "-Sn 40",
        &gauntlet("instant", "64", "32", "r"),
    ));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(csv_rows(&s.path("r").join("games.csv")).len(), 64);
    no_engine_charged(&s, "r");
}

#[test]
fn an_engine_that_cannot_start_mid_run_for_want_of_files_stops_the_run_unrecorded() {
    let s = Scratch::new("capacity-mid-run");
    // Game 2 is the first against instant#3: its engine starts then. Just before, the arena's
    // limit of open files (soft and hard) drops to the files it holds, as `prlimit --pid`
    // could from outside (the test hook); a spawn needs more.
    let args = gauntlet("instant,instant", "2", "1", "r");
    let stopped = s
        .command(&args)
        .env("BLITZ_ARENA_TEST_SQUEEZE_AT_GAME", "2")
        .output()
        .unwrap();
    let err = stderr(&stopped);
    assert_eq!(stopped.status.code(), Some(1), "{err}");
    // The run's own lines (its header, the games) come first; the error is one line, last.
    // (A warning may name the same cause, `os error 24`: report.html can meet the limit too.)
    let errors: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("blitz-arena: error"))
        .collect();
    assert_eq!(errors.len(), 1, "{err}");
    assert_eq!(err.trim().lines().last(), Some(errors[0]), "{err}");
    for needle in [
        "stopped: engine instant#3: cannot start",
        "Too many open files",
        "1 of 4 games finished and saved in r",
        "no engine lost it",
        "--resume r",
    ] {
        assert!(err.contains(needle), "{needle:?} not in: {err}");
    }
    let rows = csv_rows(&s.path("r").join("games.csv"));
    assert_eq!(rows.len(), 1, "only the finished game is kept");
    assert_eq!(rows[0]["game"], "1");
    no_engine_charged(&s, "r");
    s.assert_no_engines_left();

    // Resumed with the limit as it was, the run plays the rest.
    let resumed = s.run_ok(&[
        "gauntlet",
        "instant",
        "--vs",
        "instant,instant",
        "--resume",
        "r",
    ]);
    assert!(
        stdout(&resumed).contains("invariants: held in all 4 games"),
        "{}",
        stdout(&resumed)
    );
    assert_eq!(csv_rows(&s.path("r").join("games.csv")).len(), 4);
    no_engine_charged(&s, "r");
}
