//! Hostile files, tampered records and hostile engines (issue 24): nothing the arena reads can
//! hang it or leak through it, nothing it writes lands outside its folder, a tampered record is
//! refused rather than rewritten, and an engine can neither exhaust the arena nor outlive it.

mod common;

use std::ffi::CString;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;

const ENGINES: &str = r#"
[engines.instant]
builtin = "instant"
[engines.random]
builtin = "random"
options = { Seed = 3 }
"#;

/// A finished run of 4 games in `out`, with this file's roster.
fn finished_run(s: &Scratch, out: &str) {
    s.write("engines.toml", ENGINES);
    finished_folder(s, out);
}

/// Runs `blitz-arena ARGS`, failing the test if it has not exited within 30 s (a hang).
fn run_bounded(s: &Scratch, args: &[&str]) -> Output {
    let mut child: Child = s
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("blitz-arena {}: still running after 30 s", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Exit 1 and one line on stderr that contains `needle`; returns the line.
#[track_caller]
fn refused(out: &Output, needle: &str) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "exit 1 expected: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains(needle), "{needle:?} not in: {err}");
    err.trim_end().to_string()
}

fn mkfifo(path: &Path) {
    let c = CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

#[test]
fn a_fifo_in_a_results_folder_is_refused_and_never_waited_on() {
    for name in ["games.csv", "events.jsonl", "run.json"] {
        let s = Scratch::new("fifo");
        finished_run(&s, "out");
        let path = s.path("out").join(name);
        std::fs::remove_file(&path).unwrap();
        mkfifo(&path);
        for args in [
            vec!["gauntlet", "instant", "--vs", "random", "--resume", "out"],
            vec!["stats", "out"],
            vec!["report", "out"],
            vec!["adjudicate", "out", "--ruleset", "uscf"],
            vec!["merge", "out", "--out", "merged"],
        ] {
            if name != "events.jsonl" && args[0] == "adjudicate" {
                continue; // adjudicate reads only the events (and the plan, if readable)
            }
            let out = run_bounded(&s, &args);
            if name == "run.json" && ["stats", "report"].contains(&args[0]) {
                // These need no plan: the games are counted, the FIFO left unread.
                assert!(out.status.success(), "{}", stderr(&out));
                continue;
            }
            let line = refused(&out, name);
            assert!(
                line.contains("not a plain file"),
                "{args:?} on a FIFO {name}: {line}"
            );
            assert!(
                std::fs::symlink_metadata(&path)
                    .unwrap()
                    .file_type()
                    .is_fifo(),
                "{name} left as it was"
            );
        }
    }
}

/// A FIFO named as the roster or the opening book is refused in one line before anything
/// starts, never waited on; a symbolic link to a plain book is followed, as a user's own file.
#[test]
fn a_fifo_as_the_roster_or_the_book_is_refused_and_never_waited_on() {
    let s = Scratch::new("fifo-inputs");
    s.write("engines.toml", ENGINES);
    mkfifo(&s.path("book.epd"));
    mkfifo(&s.path("fifo.toml"));
    let with_book = |book: &str| {
        let args = ["gauntlet", "instant", "--vs", "random", "--openings", book];
        let rest = ["--games", "2", "--max-moves", "4", "--out", "r"];
        run_bounded(&s, &[&args[..], &rest[..]].concat())
    };
    refused(
        &with_book("book.epd"),
        "book.epd: cannot read: not a plain file",
    );
    let roster = run_bounded(&s, &["check", "instant", "--engines", "fifo.toml"]);
    refused(&roster, "fifo.toml: cannot read: not a plain file");
    assert!(!s.path("r").exists());
    s.write(
        "real.epd",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n",
    );
    std::os::unix::fs::symlink(s.path("real.epd"), s.path("link.epd")).unwrap();
    let linked = with_book("link.epd");
    assert!(linked.status.success(), "{}", stderr(&linked));
    s.assert_no_engines_left();
}

#[test]
fn a_symbolic_link_in_a_results_folder_is_not_followed_and_its_target_never_shown() {
    for name in ["games.csv", "events.jsonl"] {
        let s = Scratch::new("symlink");
        finished_run(&s, "out");
        let secret = s.write("secret", "SECRET-LINE,1,2\nmore\n");
        let path = s.path("out").join(name);
        std::fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&secret, &path).unwrap();
        for args in [
            vec!["stats", "out"],
            vec!["gauntlet", "instant", "--vs", "random", "--resume", "out"],
        ] {
            let out = run_bounded(&s, &args);
            let line = refused(&out, "symbolic link");
            assert!(!line.contains("SECRET"), "{line}");
            assert!(!stdout(&out).contains("SECRET"));
        }
    }
}

#[test]
fn a_hard_link_as_the_lock_file_is_refused_and_the_linked_file_untouched() {
    let s = Scratch::new("hardlink");
    s.write("engines.toml", ENGINES);
    let precious = s.write("precious", "keep me\n");
    std::fs::create_dir(s.path("out")).unwrap();
    std::fs::hard_link(&precious, s.path("out/run.lock")).unwrap();
    let out = run_bounded(
        &s,
        &[
            quick_gauntlet("instant", "random", "2"),
            vec!["--out", "out"],
        ]
        .concat(),
    );
    refused(&out, "run.lock");
    assert_eq!(std::fs::read_to_string(&precious).unwrap(), "keep me\n");
}

/// A finished run's folder, interrupted as if killed: its last game removed from games.csv,
/// so that `--resume` has one game to play and every other one to keep.
fn resumable_run(s: &Scratch) {
    finished_run(s, "out");
    let csv = s.path("out/games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.pop();
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
}

fn resume(s: &Scratch) -> Output {
    run_bounded(
        s,
        &["gauntlet", "instant", "--vs", "random", "--resume", "out"],
    )
}

#[test]
fn resume_refuses_a_record_whose_result_was_edited_and_leaves_the_folder_untouched() {
    let s = Scratch::new("tampered-result");
    resumable_run(&s);
    let events = s.path("out/events.jsonl");
    let text = std::fs::read_to_string(&events).unwrap();
    let (from, to) = if text.contains(r#""result":"1/2-1/2""#) {
        (r#""result":"1/2-1/2""#, r#""result":"1-0""#)
    } else if text.contains(r#""result":"1-0""#) {
        (r#""result":"1-0""#, r#""result":"0-1""#)
    } else {
        (r#""result":"0-1""#, r#""result":"1-0""#)
    };
    std::fs::write(&events, text.replacen(from, to, 1)).unwrap();
    let before = folder_contents(&s.path("out"));
    let line = refused(&resume(&s), "events.jsonl");
    assert!(line.contains("game "), "{line}");
    let mut after = folder_contents(&s.path("out"));
    after.retain(|p, _| !p.ends_with("run.lock"));
    let mut before = before;
    before.retain(|p, _| !p.ends_with("run.lock"));
    assert_eq!(before, after, "the folder is left untouched");
}

#[test]
fn resume_refuses_a_games_csv_row_whose_colours_were_swapped() {
    let s = Scratch::new("tampered-row");
    resumable_run(&s);
    let csv = s.path("out/games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut cells: Vec<&str> = lines[1].split(',').collect();
    cells.swap(2, 3);
    lines[1] = cells.join(",");
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let line = refused(&resume(&s), "games.csv");
    assert!(line.contains("game "), "{line}");
    assert_eq!(
        std::fs::read_to_string(&csv).unwrap(),
        lines.join("\n") + "\n"
    );
}

#[test]
fn resume_keeps_an_untampered_folder() {
    let s = Scratch::new("untampered");
    resumable_run(&s);
    let out = resume(&s);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(csv_rows(&s.path("out/games.csv")).len(), 4);
}

/// `--engines FILE` given to a resumed run is not read (its engines come from run.json), and
/// the run says so rather than seeming to take it.
#[test]
fn resume_says_that_it_does_not_read_the_engines_file_given() {
    let s = Scratch::new("resume-engines");
    resumable_run(&s);
    s.write(
        "other.toml",
        "[engines.instant]\ncmd = \"/nowhere/instant\"\n",
    );
    let out = run_bounded(
        &s,
        &[
            "gauntlet",
            "instant",
            "--vs",
            "random",
            "--resume",
            "out",
            "--engines",
            "other.toml",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let warned = stderr(&out);
    assert!(
        warned.contains("warning: --engines other.toml is not read")
            && warned.contains("out/run.json"),
        "{warned}"
    );
    assert_eq!(csv_rows(&s.path("out/games.csv")).len(), 4);
}

/// A run.json edited past the ranges a new run is held to (a schedule of 2^32 games would
/// not fit in memory; an empty book indexes nothing) is refused by every command that goes by
/// the plan, in one line naming the field, and the folder is left as it was.
#[test]
fn a_run_json_past_its_ranges_is_refused_by_every_command_that_reads_it() {
    let s = Scratch::new("plan-ranges");
    resumable_run(&s);
    let plan_path = s.path("out/run.json");
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&plan_path).unwrap()).unwrap();
    for (field, value, says) in [
        (
            "games",
            serde_json::json!(4294967295u64),
            "games: 4294967295 is out of range",
        ),
        ("book", serde_json::json!([]), "book: it holds no position"),
        ("engines", serde_json::json!([]), "it names 0 engine(s)"),
    ] {
        let mut edited = plan.clone();
        edited[field] = value;
        std::fs::write(&plan_path, serde_json::to_string(&edited).unwrap()).unwrap();
        let before = folder_contents(&s.path("out"));
        for args in [
            &["gauntlet", "instant", "--vs", "random", "--resume", "out"][..],
            &["merge", "out", "--out", "merged"],
            &["adjudicate", "out", "--ruleset", "fide"],
        ] {
            let line = refused(&run_bounded(&s, args), "run.json: not a valid run plan: ");
            assert!(line.contains(says), "{args:?}: {line}");
            let mut after = folder_contents(&s.path("out"));
            after.retain(|p, _| !p.ends_with("run.lock"));
            let mut before = before.clone();
            before.retain(|p, _| !p.ends_with("run.lock"));
            assert_eq!(before, after, "{args:?} left the folder as it was");
            assert!(!s.path("merged").exists());
        }
    }
}

const GREEDY_DECLARER: &str = r#"
[engines.instant]
builtin = "instant"
[engines.declarer]
builtin = "faulty"
args = ["--declare-options", "3000"]
"#;

#[test]
fn an_engine_that_declares_too_much_fails_its_handshake_in_check_and_before_a_run() {
    let s = Scratch::new("declarer");
    s.write("engines.toml", GREEDY_DECLARER);
    let out = run_bounded(&s, &["check", "declarer"]);
    assert!(!out.status.success());
    let all = stderr(&out) + &stdout(&out);
    assert!(all.contains("declarer fails its handshake"), "{all}");
    assert!(all.contains("before uciok"), "{all}");
    let out = run_bounded(
        &s,
        &[
            "gauntlet", "instant", "--vs", "declarer", "--games", "2", "--out", "out",
        ],
    );
    refused(&out, "declarer fails its handshake");
    assert!(!s.path("out/games.csv").exists(), "no run started");
    s.assert_no_engines_left();
}

/// A long run in `res` (many games at a slow clock), started in the background.
fn long_run(s: &Scratch) -> Child {
    s.write("engines.toml", ENGINES);
    long_run_against(s, "random")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// 400 short games of instant against `opponent` at 60s+0, one at a time, into `res`: a run
/// still going whenever a test stops it; the caller sets its stdio and spawns it.
fn long_run_against(s: &Scratch, opponent: &str) -> std::process::Command {
    s.command(&[
        "gauntlet",
        "instant",
        "--vs",
        opponent,
        "--games",
        "400",
        "--tc",
        "60s+0",
        "--max-moves",
        "30",
        "--concurrency",
        "1",
        "--out",
        "res",
    ])
}

#[test]
fn sighup_stops_a_run_as_cleanly_as_sigterm() {
    let s = Scratch::new("sighup");
    let child = long_run(&s);
    wait_for_games(&s, "res/games.csv", 1);
    // SAFETY: signals the arena process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(129), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("stopping: finishing the files"),
        "{}",
        stderr(&out)
    );
    let text = std::fs::read_to_string(s.path("res/games.csv")).unwrap();
    assert!(text.ends_with('\n'), "no torn row");
    s.assert_no_engines_left();
}

/// Whether process `pid` catches signal `sig` (its `SigCgt` mask in /proc): the arena has set
/// its handler.
fn catches(pid: u32, sig: i32) -> bool {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigCgt:"))
        .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
        .is_some_and(|mask| mask & (1 << (sig - 1)) != 0)
}

/// Each signal gives its own exit code in every phase of a run: here while the engines are
/// still shaking hands (an engine that takes 5 s to say `uciok`), which stops before the
/// first game and leaves no folder.
#[test]
fn a_signal_during_the_handshake_exits_with_its_own_code() {
    let s = Scratch::new("signal-handshake");
    s.write(
        "engines.toml",
        "[engines.slow]\nbuiltin = \"faulty\"\nargs = [\"--slow-start\", \"5000\"]\n",
    );
    for (sig, code) in [
        (libc::SIGTERM, 143),
        (libc::SIGHUP, 129),
        (libc::SIGINT, 130),
    ] {
        let child = s
            .command(&["gauntlet", "slow", "--vs", "random", "--out", "res"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let start = Instant::now();
        while !(catches(pid, libc::SIGTERM) && catches(pid, libc::SIGHUP)) {
            assert!(start.elapsed() < Duration::from_secs(30), "no handlers set");
            std::thread::sleep(Duration::from_millis(5));
        }
        // SAFETY: signals the arena process this test started.
        unsafe { libc::kill(pid as i32, sig) };
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        assert!(!s.path("res").exists());
        // Not even an engine whose start was in flight when the signal came is left: the
        // arena waits for the starts it handed over before it exits.
        s.assert_no_engines_left();
    }
}

#[test]
fn report_refuses_a_folder_a_live_run_holds() {
    let s = Scratch::new("report-live");
    let mut child = long_run(&s);
    wait_for_games(&s, "res/games.csv", 1);
    let out = run_bounded(&s, &["report", "res"]);
    // SAFETY: signals the arena process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    child.wait().unwrap();
    refused(&out, "in use by a running blitz-arena run");
}

/// `report --out` never replaces a run's data: a name of one of a results folder's files is
/// refused (exit 2), and the files are as they were.
#[test]
fn report_never_writes_over_a_results_folders_files() {
    let s = Scratch::new("report-out");
    finished_run(&s, "out");
    let before = folder_contents(&s.path("out"));
    for name in [
        "games.csv",
        "events.jsonl",
        "games.pgn",
        "run.json",
        "summary.csv",
        "run.lock",
    ] {
        let target = format!("out/{name}");
        let out = run_bounded(&s, &["report", "out", "--out", &target]);
        assert_usage_error(&out, "the name of a results folder's own file");
    }
    assert_eq!(folder_contents(&s.path("out")), before);
    let elsewhere = run_bounded(&s, &["report", "out", "--out", "page.html"]);
    assert!(elsewhere.status.success(), "{}", stderr(&elsewhere));
}

/// `stats` and `report` count a folder whose events.jsonl was cut short from games.csv, and
/// say so on stderr, one warning line each: what was dropped, how many games lack a record;
/// and a folder whose run.json is no plan without it, saying so.
#[test]
fn stats_and_report_warn_of_an_events_jsonl_cut_short_and_a_run_json_that_is_no_plan() {
    let s = Scratch::new("events-cut");
    finished_run(&s, "out");
    // `stats` and `report` of the folder, each run to its end and asked for its warning line.
    let warned = || {
        [
            &["stats", "out"][..],
            &["report", "out", "--out", "page.html"],
        ]
        .map(|args| {
            let out = run_bounded(&s, args);
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
            let err = stderr(&out);
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
            err
        })
    };
    let events = s.path("out/events.jsonl");
    let text = std::fs::read(&events).unwrap();
    let first = text.iter().position(|&b| b == b'\n').unwrap() + 1;
    // The first game's record whole, the second's cut in the middle.
    std::fs::write(&events, &text[..first + 100]).unwrap();
    for err in warned() {
        assert!(
            err.contains("events.jsonl: dropped a half-written last line (100 bytes)"),
            "{err}"
        );
        assert!(
            err.contains("3 of the 4 games of games.csv have no record here"),
            "{err}"
        );
    }
    // A run.json that is no plan, the events whole again: the games are counted without the
    // plan, and that is said.
    std::fs::write(&events, &text).unwrap();
    std::fs::write(s.path("out/run.json"), "{}").unwrap();
    for err in warned() {
        assert!(
            err.contains("run.json: not a valid run plan: ")
                && err.contains("; counted without it"),
            "{err}"
        );
    }
}

#[test]
fn stats_says_what_it_dropped_and_what_it_counted_twice() {
    let s = Scratch::new("stats-notes");
    finished_run(&s, "out");
    let csv = s.path("out/games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let second = text.lines().nth(2).unwrap().to_string();
    std::fs::write(&csv, format!("{text}{second}\n5,3,inst")).unwrap();
    let out = s.run_ok(&["stats", "out"]);
    let err = stderr(&out);
    assert!(
        err.contains("dropped a half-written last line (8 bytes)"),
        "{err}"
    );
    assert!(
        err.contains("1 row repeats a game number already listed"),
        "{err}"
    );
}

/// An executable script `name` in the scratch folder: `sh` running `body`.
fn script(s: &Scratch, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = s.write(name, &format!("#!/bin/sh\n{body}\n"));
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The engine `name`, the script `body`, in engines.toml beside the built-in engines.
fn script_engine(s: &Scratch, name: &str, body: &str) {
    script(s, name, body);
    s.write(
        "engines.toml",
        &format!(
            "{ENGINES}[engines.{name}]\ncmd = \"{}\"\n",
            s.path(name).display()
        ),
    );
}

/// Whether a spreadsheet would take `cell` for a formula (OWASP's list of starts), a plain
/// number aside.
fn formula_like(cell: &str) -> bool {
    let number = {
        let digits = cell.trim_start_matches(['+', '-']);
        digits == "inf"
            || (!digits.is_empty()
                && digits.parse::<f64>().is_ok()
                && !digits.contains(['e', 'E', 'n', 'N']))
    };
    cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && !number
}

/// Every cell of the CSV file `path` (header included) that a spreadsheet would run.
fn formula_cells(path: &Path) -> Vec<String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .unwrap();
    let mut found = Vec::new();
    for record in reader.records() {
        found.extend(
            record
                .unwrap()
                .iter()
                .filter(|c| formula_like(c))
                .map(str::to_string),
        );
    }
    found
}

const FORMULA_BOOK: &str =
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"=cmd|' /C calc'!A0\";\n";

#[test]
fn no_csv_cell_the_arena_writes_starts_a_formula_and_each_reads_back_as_it_was() {
    let s = Scratch::new("csv-formulas");
    script(&s, "a", &format!("exec '{BIN}' engine instant"));
    script(&s, "b", &format!("exec '{BIN}' engine random"));
    s.write("book.epd", FORMULA_BOOK);
    let out = run_bounded(
        &s,
        &[
            "-engine",
            "cmd=./a",
            "name=@SUM(1+1)",
            "-engine",
            "cmd=./b",
            "name=-2+3",
            "-each",
            "tc=10+0.1",
            "-rounds",
            "1",
            "-games",
            "2",
            "-maxmoves",
            "8",
            "-openings",
            "file=book.epd",
            "format=epd",
            "-out",
            "results/run",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    for file in ["games.csv", "summary.csv"] {
        let path = s.path(&format!("results/run/{file}"));
        assert_eq!(formula_cells(&path), Vec::<String>::new(), "{file}");
    }
    let rows = csv_rows(&s.path("results/run/games.csv"));
    assert_eq!(rows[0]["opening"], "'=cmd|' /C calc'!A0");
    assert!(rows.iter().any(|r| r["white"] == "'@SUM(1+1)"));
    // Read back by the arena, each cell is what it was.
    let shown = stdout(&s.run_ok(&["stats", "results/run"]));
    assert!(
        shown.contains("@SUM(1+1)") && !shown.contains("'@SUM"),
        "{shown}"
    );
    assert!(
        shown.contains("-2+3") && !shown.contains("'-2+3"),
        "{shown}"
    );
}

#[test]
fn resume_keeps_games_whose_csv_cells_were_neutralised() {
    let s = Scratch::new("csv-formulas-resume");
    s.write("engines.toml", ENGINES);
    s.write("book.epd", FORMULA_BOOK);
    let args = [
        quick_gauntlet("instant", "random", "4"),
        vec!["--openings", "book.epd", "--out", "out"],
    ]
    .concat();
    s.run_ok(&args);
    let csv = s.path("out/games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.contains(",'=cmd|"), "{text}");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.pop();
    std::fs::write(&csv, lines.join("\n") + "\n").unwrap();
    let out = run_bounded(
        &s,
        &["gauntlet", "instant", "--vs", "random", "--resume", "out"],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = csv_rows(&csv);
    assert_eq!(rows.len(), 4);
    assert!(rows.iter().all(|r| r["opening"].starts_with("'=cmd|")));
}

#[test]
fn a_control_character_in_an_engine_name_is_refused_from_every_path() {
    let s = Scratch::new("control-names");
    script(&s, "a", &format!("exec '{BIN}' engine instant"));
    script(&s, "b", &format!("exec '{BIN}' engine random"));
    // name= on the fastchess-style command line: never into the `Started game` lines.
    let out = run_bounded(
        &s,
        &[
            "-engine",
            "cmd=./a",
            "name=x\nStarted game 9 of 9 (a vs b)",
            "-engine",
            "cmd=./b",
            "name=b",
            "-each",
            "tc=10+0.1",
            "-rounds",
            "1",
            "-games",
            "2",
        ],
    );
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("control character"), "{err}");
    assert!(!stdout(&out).contains("Started game"), "{}", stdout(&out));
    // An EPD opening's id.
    s.write("engines.toml", ENGINES);
    s.write(
        "esc.epd",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"a\x1b[2Jb\";\n",
    );
    let out = run_bounded(
        &s,
        &[
            "gauntlet",
            "instant",
            "--vs",
            "random",
            "--games",
            "2",
            "--openings",
            "esc.epd",
            "--out",
            "o2",
        ],
    );
    let line = refused(&out, "control character");
    assert!(line.contains("esc.epd:1"), "{line}");
    assert!(!s.path("o2").exists());
    // The `id name` an engine reports.
    script_engine(
        &s,
        "evil",
        "while read -r line; do case \"$line\" in\n\
         uci) printf 'id name evil\\033]0;pwned\\007\\nuciok\\n';;\n\
         isready) echo readyok;;\n quit) exit 0;;\n esac; done",
    );
    let out = run_bounded(&s, &["check", "evil"]);
    let all = stderr(&out) + &stdout(&out);
    assert!(!out.status.success(), "{all}");
    assert!(all.contains("control character"), "{all}");
    assert!(!all.contains('\x1b') && !all.contains('\x07'), "{all:?}");
    s.assert_no_engines_left();
}

/// engines.toml with `escaper`: an engine behind a script that first starts two sleepers that
/// leave its process group, one still its child (`setsid sleep`, holding the engine's pipes),
/// one orphaned at once (by a subshell that exits).
fn escaper(s: &Scratch) {
    script_engine(
        s,
        "escaper",
        &format!(
            "setsid sleep 300 &\n(setsid sleep 301 </dev/null >/dev/null 2>&1 &)\n\
             exec '{BIN}' engine random"
        ),
    );
}

/// Waits up to 10 s for every process of this test's runs to be gone.
#[track_caller]
fn assert_all_gone_soon(s: &Scratch) {
    let start = Instant::now();
    loop {
        let left = s.leftovers();
        if left.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "processes outlived the arena: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_grandchild_that_leaves_its_engine_s_group_does_not_outlive_the_run() {
    let s = Scratch::new("setsid");
    escaper(&s);
    let out = run_bounded(
        &s,
        &[
            quick_gauntlet("instant", "escaper", "4"),
            vec!["--out", "out"],
        ]
        .concat(),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    // At once: the arena reaped them before it exited.
    s.assert_no_engines_left();
    let out = run_bounded(&s, &["check", "escaper"]);
    assert!(out.status.success(), "{}", stderr(&out));
    s.assert_no_engines_left();
}

/// The pids of live processes whose command line is `sleep SECONDS`.
fn sleepers(seconds: &str) -> Vec<i32> {
    let wanted = format!("sleep\0{seconds}\0");
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| {
            let pid: i32 = e.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            (cmdline == wanted.as_bytes()).then_some(pid)
        })
        .collect()
}

/// An orphan that leaves its engine's group and clears its environment (so it carries none of
/// the run's marks, which the janitor kills by) becomes the arena's child, the arena being a
/// subreaper, and the arena's sweep kills it: none is left once the run is over.
#[test]
fn an_orphan_without_the_run_s_mark_is_swept_by_the_arena() {
    let s = Scratch::new("orphan-unmarked");
    // A duration no other process sleeps: the test finds its orphan by it.
    let nap = format!("3{:06}.5", std::process::id() % 1_000_000);
    script_engine(
        &s,
        "leaver",
        &format!(
            "(setsid env -i sleep {nap} </dev/null >/dev/null 2>&1 &)\n\
             exec '{BIN}' engine random"
        ),
    );
    let out = run_bounded(
        &s,
        &[
            quick_gauntlet("instant", "leaver", "2"),
            vec!["--out", "out"],
        ]
        .concat(),
    );
    let left = sleepers(&nap);
    for &pid in &left {
        // SAFETY: kill(2) on a process this test's engine started.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(left.is_empty(), "the orphan outlived the arena: {left:?}");
    s.assert_no_engines_left();
}

#[test]
fn a_grandchild_that_leaves_its_engine_s_group_does_not_outlive_a_killed_arena() {
    let s = Scratch::new("setsid-kill");
    escaper(&s);
    let mut child = long_run_against(&s, "escaper")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&s, "res/games.csv", 1);
    child.kill().unwrap();
    child.wait().unwrap();
    assert_all_gone_soon(&s);
}

/// Runs `f` with a 256 KiB tmpfs mounted at `dir` (root only: else it says SKIPPED and
/// returns false), and unmounts it after. A whole 2-game folder with its report takes about
/// 64 KiB, so it fits once the filler is gone: at 64 KiB a resume sometimes could not write
/// its report.
fn with_small_disk(dir: &Path, f: impl FnOnce()) -> bool {
    // SAFETY: a plain getter.
    if unsafe { libc::geteuid() } != 0 {
        eprintln!("SKIPPED: mounting a small tmpfs needs root");
        return false;
    }
    std::fs::create_dir_all(dir).unwrap();
    let mounted = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=256k", "tmpfs"])
        .arg(dir)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("SKIPPED: cannot mount a tmpfs here");
        return false;
    }
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    let _ = std::process::Command::new("umount").arg(dir).status();
    if let Err(panic) = result {
        std::panic::resume_unwind(panic);
    }
    true
}

/// Fills the file system of `dir` but for `free` bytes (in whole pages), with `dir/filler`.
fn fill_but(dir: &Path, free: u64) {
    use std::io::Write;
    let filler = dir.join("filler");
    let _ = std::fs::remove_file(&filler);
    let mut file = std::fs::File::create(&filler).unwrap();
    while file.write_all(&[0u8; 4096]).is_ok() {}
    let len = file.metadata().unwrap().len();
    file.set_len(len.saturating_sub(free)).unwrap();
}

#[test]
fn a_full_disk_at_the_start_leaves_the_folder_resumable_or_absent() {
    let s = Scratch::new("full-disk");
    s.write("engines.toml", ENGINES);
    let disk = s.path("disk");
    with_small_disk(&disk, || {
        for free in [0u64, 4096, 8192, 12288, 16384, 24576] {
            fill_but(&disk, free);
            let out_dir = disk.join("out");
            let out = run_bounded(
                &s,
                &[
                    quick_gauntlet("instant", "random", "2"),
                    vec!["--out", "disk/out"],
                ]
                .concat(),
            );
            let err = stderr(&out);
            let left: Vec<String> = std::fs::read_dir(&out_dir)
                .map(|d| {
                    d.flatten()
                        .map(|e| e.file_name().to_string_lossy().into_owned())
                        .collect()
                })
                .unwrap_or_default();
            assert!(
                !left.iter().any(|n| n.ends_with(".tmp")),
                "{free} bytes free: {left:?}; {err}"
            );
            if out.status.success() {
                assert_eq!(csv_rows(&out_dir.join("games.csv")).len(), 2);
            } else if out_dir.exists() {
                // Resumable once there is room again.
                std::fs::remove_file(disk.join("filler")).unwrap();
                let resumed = run_bounded(
                    &s,
                    &[
                        "gauntlet", "instant", "--vs", "random", "--resume", "disk/out",
                    ],
                );
                assert!(
                    resumed.status.success(),
                    "{free} bytes free: {left:?}; {err}; resume: {}",
                    stderr(&resumed)
                );
            }
            let _ = std::fs::remove_dir_all(&out_dir);
        }
    });
}

#[test]
fn a_bestmove_line_over_the_limit_is_ruled_as_such_not_as_a_stall() {
    let s = Scratch::new("huge-bestmove");
    script_engine(
        &s,
        "huge",
        "while read -r line; do case \"$line\" in\n\
         uci) echo 'id name huge'; echo uciok;;\n\
         isready) echo readyok;;\n\
         go*) printf 'bestmove '; head -c 10000000 /dev/zero | tr '\\0' a; echo;;\n\
         quit) exit 0;;\n esac; done",
    );
    let out = run_bounded(
        &s,
        &[
            "gauntlet",
            "instant",
            "--vs",
            "huge",
            "--games",
            "2",
            "--tc",
            "2s+0",
            "--ruleset",
            "online",
            "--out",
            "out",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let rows = csv_rows(&s.path("out/games.csv"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let loser = if row["white"] == "huge" { "0-1" } else { "1-0" };
        assert_eq!(row["result"], loser, "{row:?}");
        assert_eq!(row["termination"], "illegal-move", "{row:?}");
        assert!(!row["detail"].contains("stop"), "{row:?}");
    }
    let events = std::fs::read_to_string(s.path("out/events.jsonl")).unwrap();
    assert!(events.contains("64 KiB line limit"), "{events}");
    s.assert_no_engines_left();
}

#[test]
fn stats_says_how_many_rows_are_not_games_of_the_folder_s_plan() {
    let s = Scratch::new("stats-out-of-plan");
    finished_run(&s, "out");
    let csv = s.path("out/games.csv");
    let text = std::fs::read_to_string(&csv).unwrap();
    let first = text.lines().nth(1).unwrap();
    // Game 99 (the plan has 4), and game 1 with its colours swapped.
    let mut cells: Vec<&str> = first.split(',').collect();
    cells[0] = "99";
    let beyond = cells.join(",");
    let mut cells: Vec<&str> = first.split(',').collect();
    cells.swap(2, 3);
    let swapped = cells.join(",");
    std::fs::write(&csv, format!("{text}{beyond}\n{swapped}\n")).unwrap();
    let out = s.run_ok(&["stats", "out"]);
    let err = stderr(&out);
    assert!(
        err.contains("2 rows are not games of its plan (run.json"),
        "{err}"
    );
    // Without the plan there is nothing to say it against.
    std::fs::remove_file(s.path("out/run.json")).unwrap();
    let err = stderr(&s.run_ok(&["stats", "out"]));
    assert!(!err.contains("not games of its plan"), "{err}");
}

#[test]
fn an_error_quoting_a_huge_or_control_laden_value_is_one_short_line() {
    let s = Scratch::new("hostile-one-line");
    let value = "x".repeat(3_000_000);
    s.write(
        "big.toml",
        &format!("[engines.big]\nbuiltin = \"{value}\"\n"),
    );
    let args = ["gauntlet", "big", "--vs", "big", "--engines", "big.toml"];
    let line = refused(&run_bounded(&s, &args), "big.toml:2:11: engine `big`");
    assert!(line.len() < 2_100, "{} bytes", line.len());
    assert!(line.contains(" characters left out ...]"), "{line}");
    assert!(line.ends_with("(known: random, instant, greedy, minimax, faulty, script)"));

    // A newline or a terminal's escape sequence in a name is shown, not obeyed.
    let book = "a\nb\u{1b}[2J.epd";
    let args = ["gauntlet", "instant", "--vs", "instant", "--openings", book];
    refused(&run_bounded(&s, &args), "a\\nb\\u{1b}[2J.epd: cannot read");
}

/// `script`, run by `sh -e` in this test's folder inside a user and mount namespace of its
/// own, where a small tmpfs stands for a full disk (`$BIN` is blitz-arena; its engines carry
/// the test's marker). None where the machine allows no such namespace: the test says so.
fn in_own_mounts(s: &Scratch, script: &str) -> Option<Output> {
    let probe = std::process::Command::new("unshare")
        .args(["-rm", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!("no user and mount namespaces here (unshare -rm): skipped");
        return None;
    }
    let arena = s.command(&[]);
    let mut command = std::process::Command::new("unshare");
    command
        .args(["-rm", "sh", "-ec", script])
        .current_dir(&s.dir)
        .env("BIN", BIN);
    for (key, value) in arena.get_envs() {
        if let Some(value) = value {
            command.env(key, value);
        }
    }
    Some(command.output().unwrap())
}

/// A disk that fills part-way: the run stops with one line that says how many games it kept
/// and how to go on, and `--resume` finishes the run from the folder; a disk full before the
/// first game ends leaves no folder; a `--pgnout` file on a full disk holds whole games only,
/// as many as the error line says.
#[test]
fn a_full_disk_stops_the_run_with_what_it_kept_and_nothing_torn() {
    let s = Scratch::new("full-disk");
    s.write("engines.toml", ENGINES);
    let gauntlet = r#""$BIN" gauntlet instant --vs random --games 10 --max-moves 40 --tc 10s+0.1s --seed 3 --concurrency 2"#;
    let script = format!(
        r#"mkdir tiny small pgn kept
mount -t tmpfs -o size=16k tmpfs tiny
mount -t tmpfs -o size=96k tmpfs small
mount -t tmpfs -o size=16k tmpfs pgn
set +e
{gauntlet} --out tiny/res 2>tiny.err; echo $? >tiny.code
ls -A tiny >tiny.left
{gauntlet} --out small/res 2>small.err; echo $? >small.code
cp -r small/res kept/res
{gauntlet} --out whole --pgnout pgn/fc.pgn 2>pgn.err; echo $? >pgn.code
cp pgn/fc.pgn kept/fc.pgn
"#
    );
    let Some(out) = in_own_mounts(&s, &script) else {
        return;
    };
    assert!(out.status.success(), "{}", stderr(&out));
    let read = |name: &str| std::fs::read_to_string(s.path(name)).unwrap();
    let last_line = |name: &str| read(name).trim_end().lines().last().unwrap().to_string();
    // Full before the first game ended: no folder left.
    assert_eq!(read("tiny.code").trim(), "1");
    assert!(
        last_line("tiny.err").ends_with(
            "No space left on device (os error 28): no game was finished; tiny/res removed"
        ),
        "{}",
        read("tiny.err")
    );
    assert_eq!(read("tiny.left").trim(), "");
    // Full part-way: the line says what was kept, and --resume finishes the run from it.
    assert_eq!(read("small.code").trim(), "1");
    let said = last_line("small.err");
    let kept = game_numbers_in(&s.path("kept/res/games.csv"));
    assert!(!kept.is_empty() && kept.len() < 10, "{kept:?}");
    let saved = format!(
        ": {} of 10 games finished and saved in small/res; once that is fixed, continue with --resume small/res",
        kept.len()
    );
    assert!(said.ends_with(&saved), "{said}");
    s.run_ok(&[
        "gauntlet", "instant", "--vs", "random", "--resume", "kept/res",
    ]);
    let all = game_numbers_in(&s.path("kept/res/games.csv"));
    assert_eq!(all, (1..=10).collect::<Vec<u64>>());
    // The --pgnout file: whole games only, and the count of those it lacks is right.
    assert_eq!(read("pgn.code").trim(), "1");
    let said = last_line("pgn.err");
    let games = pgn_games(&s.path("kept/fc.pgn"));
    for (tags, moves) in &games {
        assert!(moves.trim_end().ends_with(&tags["Result"]), "torn: {moves}");
    }
    let whole = games.len();
    assert!(whole < 10, "the disk was not full");
    let lacks = format!("{} of 10 games were not written to pgn/fc.pgn", 10 - whole);
    assert!(said.contains(&lacks), "{said}");
    s.assert_no_engines_left();
}

/// The game numbers in a games.csv, in its order.
fn game_numbers_in(csv: &Path) -> Vec<u64> {
    let text = std::fs::read_to_string(csv).unwrap();
    let mut games: Vec<u64> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().parse().unwrap())
        .collect();
    games.sort_unstable();
    games
}
