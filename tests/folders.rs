//! Results folders that cannot be corrupted: a run writes only into a folder of its own, holds
//! it locked while it runs, never writes through a symbolic link, resumes only its own games,
//! says what it repaired, and leaves nothing when stopped before its first game.

mod common;

use std::collections::BTreeSet;
use std::os::unix::fs::PermissionsExt;
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use common::*;

const ENGINES: &str = r#"
[engines.instant]
builtin = "instant"
[engines.random]
builtin = "random"
options = { Seed = 3 }
[engines.greedy]
builtin = "greedy"
"#;

/// A quick run of `games` games per pairing (see `quick_gauntlet`), with `extra` arguments.
fn quick(s: &Scratch, first: &str, second: &str, games: &str, extra: &[&str]) -> Output {
    let mut args = quick_gauntlet(first, second, games);
    args.extend_from_slice(extra);
    s.run(&args)
}

fn ok(out: &Output) {
    assert!(out.status.success(), "{}", stderr(out));
}

/// Exit code 1 and a single line on stderr; returns the line.
fn refused(out: &Output) -> String {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    err.trim_end().to_string()
}

fn read(s: &Scratch, name: &str) -> Vec<u8> {
    std::fs::read(s.path(name)).unwrap()
}

/// Game numbers in a games.csv, each checked to appear once.
fn game_numbers(s: &Scratch, csv: &str) -> BTreeSet<u64> {
    let rows = csv_rows(&s.path(csv));
    let games: BTreeSet<u64> = rows.iter().map(|r| r["game"].parse().unwrap()).collect();
    assert_eq!(games.len(), rows.len(), "a game listed twice in {csv}");
    games
}

/// Waits for a child for at most `limit`; kills it (and fails) if it is still running.
fn wait_at_most(child: &mut Child, limit: Duration, what: &str) -> Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what}: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    let mut stderr = Vec::new();
    if let Some(mut pipe) = child.stderr.take() {
        std::io::Read::read_to_end(&mut pipe, &mut stderr).unwrap();
    }
    Output {
        status,
        stdout: Vec::new(),
        stderr,
    }
}

#[test]
fn a_new_run_refuses_a_folder_holding_files_it_did_not_create() {
    let s = Scratch::new("foreign");
    s.write("engines.toml", ENGINES);
    std::fs::create_dir(s.path("res")).unwrap();
    s.write("res/events.jsonl", "{\"not\": \"ours\"}\n");
    let line = refused(&quick(&s, "instant", "random", "2", &["--out", "res"]));
    assert!(
        line.contains("res") && line.contains("no run.json"),
        "{line}"
    );
    assert_eq!(read(&s, "res/events.jsonl"), b"{\"not\": \"ours\"}\n");
    assert!(!s.path("res/games.csv").exists());
    // An empty folder is fine.
    std::fs::create_dir(s.path("empty")).unwrap();
    ok(&quick(&s, "instant", "random", "2", &["--out", "empty"]));
    assert_eq!(game_numbers(&s, "empty/games.csv").len(), 2);
}

#[test]
fn a_folder_with_results_but_no_plan_gets_the_same_advice_from_a_new_run_and_resume() {
    let s = Scratch::new("noplan");
    s.write("engines.toml", ENGINES);
    std::fs::create_dir(s.path("res")).unwrap();
    let header = "game,pair,white,black,opening,ruleset,tc_white,tc_black,result,termination,\
                  rule,plies,white_ms_left,black_ms_left,white_flag_ms,black_flag_ms,\
                  illegal_moves,injected,duration_ms,seed,white_moves,black_moves,\
                  white_think_ms,black_think_ms,started,detail\n";
    s.write("res/games.csv", header);
    let new = refused(&quick(&s, "instant", "random", "2", &["--out", "res"]));
    let resume = refused(&s.run(&["gauntlet", "instant", "--vs", "random", "--resume", "res"]));
    assert_eq!(new, resume);
    assert!(new.contains("no run.json"), "{new}");
    assert!(
        new.contains("no finished game") && new.contains("rm -r res"),
        "{new}"
    );
    assert_eq!(read(&s, "res/games.csv"), header.as_bytes());
}

#[test]
fn resume_refuses_games_that_belong_to_another_plan() {
    let s = Scratch::new("otherplan");
    s.write("engines.toml", ENGINES);
    ok(&quick(&s, "instant", "random", "3", &["--out", "mine"]));
    // The same engines, the other way round: the same game numbers, other colours.
    ok(&quick(&s, "random", "instant", "3", &["--out", "theirs"]));
    for name in ["games.csv", "events.jsonl", "games.pgn"] {
        std::fs::copy(
            s.path(&format!("theirs/{name}")),
            s.path(&format!("mine/{name}")),
        )
        .unwrap();
    }
    let before = read(&s, "mine/games.csv");
    let out = s.run(&["gauntlet", "instant", "--vs", "random", "--resume", "mine"]);
    let line = refused(&out);
    assert!(
        line.contains("is not the game this run's plan schedules"),
        "{line}"
    );
    // Colours swapped: the first game read names who plays white.
    assert!(
        line.contains("its white is instant, the plan's is random")
            || line.contains("its white is random, the plan's is instant"),
        "{line}"
    );
    assert_eq!(read(&s, "mine/games.csv"), before, "files intact");
    assert!(!s.path("mine/games.csv.tmp").exists());
}

/// A run that lasts long enough to be caught in the middle.
fn start_long_run(s: &Scratch) -> Child {
    long_gauntlet(s, "greedy", "random")
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn a_folder_in_use_is_refused_with_the_holder_named_and_left_intact() {
    let s = Scratch::new("locked");
    s.write("engines.toml", ENGINES);
    let mut first = start_long_run(&s);
    wait_for_games(&s, "res/games.csv", 1);
    let holder = format!("pid {}", first.id());
    for args in [
        &["gauntlet", "greedy", "--vs", "random", "--resume", "res"][..],
        &["gauntlet", "greedy", "--vs", "random", "--out", "res"][..],
    ] {
        let mut second = s.command(args).stderr(Stdio::piped()).spawn().unwrap();
        let out = wait_at_most(&mut second, Duration::from_secs(20), "the second run");
        let line = refused(&out);
        assert!(line.contains("res"), "{line}");
        assert!(line.contains(&holder), "{line}");
        assert!(line.contains("in use by another blitz-arena run"), "{line}");
    }
    unsafe { libc::kill(first.id() as i32, libc::SIGINT) };
    assert_eq!(first.wait().unwrap().code(), Some(130));
    // The first run's files are whole: one header, every game once, the same games in the
    // PGN, and the folder resumes.
    let csv = String::from_utf8(read(&s, "res/games.csv")).unwrap();
    assert_eq!(csv.matches("game,pair,white").count(), 1);
    let games = game_numbers(&s, "res/games.csv");
    assert_eq!(pgn_games(&s.path("res/games.pgn")).len(), games.len());
    let stats = s.run(&["stats", "res"]);
    ok(&stats);
    assert!(
        stdout(&stats).contains(&format!(
            "{} game{}: ",
            games.len(),
            if games.len() == 1 { "" } else { "s" }
        )),
        "{}",
        stdout(&stats)
    );
}

#[test]
fn two_new_runs_started_together_never_share_a_folder() {
    let s = Scratch::new("together");
    s.write("engines.toml", ENGINES);
    let start = |extra: &[&str]| {
        let mut args = vec![
            "gauntlet",
            "instant",
            "--vs",
            "random",
            "--games",
            "20",
            "--max-moves",
            "8",
            "--tc",
            "10s+0.1s",
            "--concurrency",
            "2",
        ];
        args.extend_from_slice(extra);
        s.command(&args)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    // Default names: two folders, each with its own games.
    let mut a = start(&["--seed", "1"]);
    let mut b = start(&["--seed", "2"]);
    ok(&wait_at_most(&mut a, Duration::from_secs(60), "run a"));
    ok(&wait_at_most(&mut b, Duration::from_secs(60), "run b"));
    let folders: Vec<_> = std::fs::read_dir(s.path("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(folders.len(), 2, "{folders:?}");
    for folder in &folders {
        let games = game_numbers(&s, &format!("results/{folder}/games.csv"));
        assert_eq!(games, (1..=20).collect(), "{folder}");
    }
    // The same --out: one run plays, the other stops with one line.
    let mut a = start(&["--seed", "1", "--out", "same"]);
    let mut b = start(&["--seed", "2", "--out", "same"]);
    let outs = [
        wait_at_most(&mut a, Duration::from_secs(60), "run a"),
        wait_at_most(&mut b, Duration::from_secs(60), "run b"),
    ];
    let codes: Vec<_> = outs.iter().map(|o| o.status.code()).collect();
    assert!(
        codes.contains(&Some(0)) && codes.contains(&Some(1)),
        "{codes:?}"
    );
    let loser = outs.iter().find(|o| o.status.code() == Some(1)).unwrap();
    assert!(refused(loser).contains("same"));
    let csv = String::from_utf8(read(&s, "same/games.csv")).unwrap();
    assert_eq!(csv.matches("game,pair,white").count(), 1);
    assert_eq!(game_numbers(&s, "same/games.csv"), (1..=20).collect());
}

#[test]
fn resume_never_writes_through_a_symbolic_link() {
    let s = Scratch::new("symlink");
    s.write("engines.toml", ENGINES);
    ok(&quick(&s, "instant", "random", "2", &["--out", "res"]));
    let outside = s.write("outside.txt", "precious\n");
    for name in [
        "games.csv.tmp",
        "events.jsonl.tmp",
        "games.pgn.tmp",
        "run.json.tmp",
    ] {
        std::os::unix::fs::symlink(&outside, s.path(&format!("res/{name}"))).unwrap();
    }
    let before = game_numbers(&s, "res/games.csv");
    ok(&s.run(&["gauntlet", "instant", "--vs", "random", "--resume", "res"]));
    assert_eq!(
        String::from_utf8_lossy(&read(&s, "outside.txt")),
        "precious\n",
        "the file outside the folder is untouched"
    );
    assert_eq!(game_numbers(&s, "res/games.csv"), before);
    for name in ["games.csv", "events.jsonl", "games.pgn", "run.json"] {
        let meta = s.path(&format!("res/{name}")).symlink_metadata().unwrap();
        assert!(meta.file_type().is_file(), "{name} is a plain file");
    }
}

#[test]
fn torn_lines_are_reported_when_a_run_is_resumed() {
    let s = Scratch::new("torn");
    s.write("engines.toml", ENGINES);
    ok(&quick(&s, "instant", "random", "2", &["--out", "res"]));
    // A kill in the middle of writing a third game left half a line in each file.
    let append = |name: &str, bytes: &[u8]| {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(s.path(name))
            .unwrap();
        f.write_all(bytes).unwrap();
    };
    append("res/events.jsonl", b"{\"game\":3,\"pair\":2,\"whi");
    append("res/games.csv", b"3,2,instant,rand");
    append("res/games.pgn", b"[Event \"blitz-arena\"]\n[Site");
    let out = s.run(&["gauntlet", "instant", "--vs", "random", "--resume", "res"]);
    ok(&out);
    let err = stderr(&out);
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(warnings.len(), 3, "one line per file: {err}");
    assert!(
        err.contains("games.csv: dropped a half-written last line (16 bytes)"),
        "{err}"
    );
    assert!(
        err.contains("events.jsonl: dropped a half-written last line (23 bytes)"),
        "{err}"
    );
    assert!(err.contains("games.pgn: dropped 27 bytes"), "{err}");
    assert_eq!(game_numbers(&s, "res/games.csv").len(), 2);
}

#[test]
fn merge_goes_by_the_positions_in_the_plan_when_the_book_has_moved() {
    let s = Scratch::new("bookmoved");
    s.write("engines.toml", ENGINES);
    s.write(
        "book.epd",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 id \"e4\";\n\
         rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1 id \"d4\";\n",
    );
    for k in 1..=2 {
        let (shard, out) = (format!("{k}/2"), format!("shard{k}"));
        ok(&quick(
            &s,
            "instant",
            "random",
            "4",
            &["--openings", "book.epd", "--shard", &shard, "--out", &out],
        ));
    }
    std::fs::rename(s.path("book.epd"), s.path("moved.epd")).unwrap();
    let merged = s.run(&["merge", "shard1", "shard2", "--out", "merged"]);
    ok(&merged);
    assert_eq!(game_numbers(&s, "merged/games.csv"), (1..=4).collect());
    let openings: BTreeSet<String> = csv_rows(&s.path("merged/games.csv"))
        .into_iter()
        .map(|r| r["opening"].clone())
        .collect();
    assert_eq!(openings.len(), 2, "{openings:?}");
    // The merged folder has the report a run writes, over all four games.
    let html = std::fs::read_to_string(s.path("merged/report.html")).expect("merged/report.html");
    assert!(
        html.contains(r#"data-games="4""#),
        "the report counts the 4 merged games"
    );
    // A shard resumes without the book file too.
    ok(&s.run(&[
        "gauntlet", "instant", "--vs", "random", "--resume", "shard1",
    ]));
}

#[test]
fn ctrl_c_during_the_handshakes_stops_at_once_and_leaves_nothing() {
    let s = Scratch::new("handshake");
    let script = s.write("mute.sh", "#!/bin/sh\nexec sleep 100\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    s.write(
        "engines.toml",
        &format!(
            "{ENGINES}\n[engines.mute]\ncmd = \"{}\"\n",
            script.display()
        ),
    );
    for out in [None, Some("res")] {
        let mut args = vec!["gauntlet", "mute", "--vs", "instant"];
        if let Some(out) = out {
            args.extend_from_slice(&["--out", out]);
        }
        let mut child = s.command(&args).stderr(Stdio::piped()).spawn().unwrap();
        std::thread::sleep(Duration::from_millis(700));
        unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
        let stopped = Instant::now();
        let result = wait_at_most(&mut child, Duration::from_secs(5), "the arena after Ctrl-C");
        assert!(
            stopped.elapsed() < Duration::from_secs(2),
            "took {:?}",
            stopped.elapsed()
        );
        assert_eq!(result.status.code(), Some(130), "{}", stderr(&result));
        assert!(!s.path("res").exists(), "no folder left");
        assert!(!s.path("results").exists(), "no folder left");
    }
    let start = Instant::now();
    while !s.leftovers().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "{:?}",
            s.leftovers()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn stats_report_and_merge_refuse_a_folder_named_twice() {
    let s = Scratch::new("twice");
    s.write("engines.toml", ENGINES);
    finished_folder(&s, "r1");
    std::os::unix::fs::symlink("r1", s.path("link")).unwrap();
    let before = folder_contents(&s.path("r1"));
    // `r1` alone is counted; named twice, by any spelling, it would be counted twice.
    ok(&s.run(&["stats", "r1"]));
    for (a, b) in [
        ("r1", "r1"),
        ("r1", "./r1"),
        ("r1", "link"),
        ("link", "r1/"),
    ] {
        let said = format!("{a} and {b} are the same results folder: name each folder once");
        for args in [
            vec!["stats", a, b],
            vec!["report", a, b, "--out", "page.html"],
            vec!["report", a, b],
            vec!["merge", a, b, "--out", "merged"],
        ] {
            let out = s.run(&args);
            assert_usage_error(&out, &said);
        }
    }
    // A folder's games.csv is that folder; any other file named twice is refused too.
    for (a, b) in [
        ("r1/games.csv", "link/games.csv"),
        ("r1", "r1/games.csv"),
        ("link/games.csv", "./r1/"),
    ] {
        let out = s.run(&["stats", a, b]);
        assert_usage_error(&out, &format!("{a} and {b} are the same results folder"));
    }
    std::fs::copy(s.path("r1/games.csv"), s.path("rows.csv")).unwrap();
    let out = s.run(&["stats", "rows.csv", "./rows.csv"]);
    assert_usage_error(
        &out,
        "rows.csv and ./rows.csv are the same results file: name each file once",
    );
    // Nothing was written, and the folder is as it was.
    assert!(!s.path("page.html").exists() && !s.path("merged").exists());
    assert_eq!(folder_contents(&s.path("r1")), before);
}

#[test]
fn a_failing_merge_says_only_its_error_and_a_merge_that_succeeds_its_warnings() {
    let s = Scratch::new("mergewarn");
    s.write("engines.toml", ENGINES);
    for k in 1..=2 {
        let (shard, out) = (format!("{k}/2"), format!("shard{k}"));
        ok(&quick(
            &s,
            "instant",
            "random",
            "4",
            &["--shard", &shard, "--out", &out],
        ));
    }
    // shard1: a half-written last line in games.csv, which merge warns of and leaves out.
    let mut csv = read(&s, "shard1/games.csv");
    csv.extend_from_slice(b"9,5,instant,ran");
    std::fs::write(s.path("shard1/games.csv"), csv).unwrap();
    // cut: shard2 with its last record cut in half (a warning), so its last game has none.
    std::fs::create_dir(s.path("cut")).unwrap();
    for name in ["run.json", "games.csv", "games.pgn"] {
        std::fs::copy(
            s.path(&format!("shard2/{name}")),
            s.path(&format!("cut/{name}")),
        )
        .unwrap();
    }
    let events = String::from_utf8(read(&s, "shard2/events.jsonl")).unwrap();
    let last = events.trim_end().rfind('\n').unwrap() + 1;
    s.write("cut/events.jsonl", &events[..last + 40]);
    let failed = s.run(&["merge", "shard1", "cut", "--out", "merged"]);
    assert_one_line_error(&failed, "but not in its events.jsonl");
    assert!(!s.path("merged").exists(), "no half-made merged folder");
    // edited: shard2 whose last record's result was changed, found as that game is copied,
    // after the games before it were written: the merged folder goes again.
    std::fs::create_dir(s.path("edited")).unwrap();
    for name in ["run.json", "games.csv", "games.pgn"] {
        let from = s.path(&format!("shard2/{name}"));
        std::fs::copy(from, s.path(&format!("edited/{name}"))).unwrap();
    }
    let (head, last) = events.trim_end().rsplit_once('\n').unwrap();
    let result = [
        "\"result\":\"1-0\"",
        "\"result\":\"0-1\"",
        "\"result\":\"1/2-1/2\"",
    ];
    let from = result.iter().find(|r| last.contains(*r)).unwrap();
    let to = result.iter().find(|r| !last.contains(*r)).unwrap();
    s.write(
        "edited/events.jsonl",
        &format!("{head}\n{}\n", last.replace(from, to)),
    );
    let failed = s.run(&["merge", "shard1", "edited", "--out", "merged"]);
    assert_one_line_error(&failed, "is not the game the run's plan schedules");
    assert!(!s.path("merged").exists(), "no half-made merged folder");
    let merged = s.run(&["merge", "shard1", "shard2", "--out", "merged"]);
    ok(&merged);
    assert!(
        stderr(&merged).contains("warning: shard1: games.csv: left out a half-written last line"),
        "{}",
        stderr(&merged)
    );
    assert_eq!(game_numbers(&s, "merged/games.csv"), (1..=4).collect());
}

#[test]
fn a_file_named_as_a_results_folder_is_said_to_be_one_and_a_missing_folder_missing() {
    let s = Scratch::new("not-a-folder");
    s.write("afile", "hi\n");
    let said = "afile: not a results folder (a file; name the folder that holds games.csv)";
    for args in [
        vec!["report", "afile"],
        vec!["merge", "afile", "--out", "merged"],
        vec!["round-robin", "instant", "random", "--resume", "afile"],
    ] {
        assert_one_line_error(&s.run(&args), said);
    }
    for args in [
        vec!["report", "nowhere"],
        vec!["merge", "nowhere", "--out", "merged"],
    ] {
        assert_one_line_error(&s.run(&args), "nowhere: no such results folder");
    }
    // A FIFO is never opened (it would block), and is not missing either.
    let status = std::process::Command::new("mkfifo")
        .arg(s.path("fifo"))
        .status()
        .unwrap();
    assert!(status.success());
    assert_one_line_error(
        &s.run(&["report", "fifo"]),
        "fifo: not a results folder (a special file; name the folder that holds games.csv)",
    );
    assert_one_line_error(
        &s.run(&["adjudicate", "fifo", "--ruleset", "uscf"]),
        "fifo: not a results folder or file (a special file; name the results folder, or its events.jsonl)",
    );
    assert!(!s.path("merged").exists());
}

/// A `summary.csv` the folder will not take (here a folder stands in its place): the run
/// prints its standings all the same, then fails with one line saying its games are saved.
#[test]
fn a_summary_the_folder_will_not_take_still_prints_the_standings() {
    let s = Scratch::new("summary-blocked");
    s.write("engines.toml", ENGINES);
    finished_folder(&s, "r1");
    std::fs::remove_file(s.path("r1/summary.csv")).unwrap();
    std::fs::create_dir_all(s.path("r1/summary.csv/x")).unwrap();
    let out = s.run(&["gauntlet", "instant", "--vs", "random", "--resume", "r1"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(stdout(&out).starts_with("Standings\n"), "{}", stdout(&out));
    let last = err.trim_end().lines().last().unwrap();
    assert!(
        last.starts_with("blitz-arena: error: cannot write r1/summary.csv: ")
            && last.ends_with(
                "; the 4 finished games are saved in r1 (the tables above are its summary)"
            ),
        "{last}"
    );
    assert_eq!(game_numbers(&s, "r1/games.csv").len(), 4);
}

/// A report.html the folder will not take (a folder stands in its place) is warned of once in
/// a run, though the run writes it after games and at its end; the games are all played.
#[test]
fn a_report_the_folder_will_not_take_is_warned_of_once() {
    let s = Scratch::new("report-blocked");
    s.write("engines.toml", ENGINES);
    let mut args = quick_gauntlet("instant", "random", "8");
    args.extend(["--out", "r1"]);
    s.run_ok(&args);
    // The folder as a run stopped after its first game leaves it: one row, one record.
    let keep_first = |name: &str, lines: usize| {
        let text = std::fs::read_to_string(s.path(name)).unwrap();
        let kept: String = text.split_inclusive('\n').take(lines).collect();
        std::fs::write(s.path(name), kept).unwrap();
    };
    keep_first("r1/games.csv", 2);
    keep_first("r1/events.jsonl", 1);
    std::fs::remove_file(s.path("r1/report.html")).unwrap();
    std::fs::create_dir_all(s.path("r1/report.html/x")).unwrap();
    let out = s.run(&["gauntlet", "instant", "--vs", "random", "--resume", "r1"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(
        err.matches("cannot write r1/report.html").count(),
        1,
        "{err}"
    );
    assert_eq!(game_numbers(&s, "r1/games.csv").len(), 8);
}
