//! What a user reads must be true, end to end: the clocks after a flag fell, the console
//! through a closed pipe, and the PGN read by python-chess to the end of every game.

mod common;

use common::*;

/// `greedy` and `random` seeded, so that `--seed` fixes the games too, not only the
/// injections (minimax has no randomness).
const BUILTINS: &str = r#"
[engines.minimax]
builtin = "minimax"
[engines.greedy]
builtin = "greedy"
options = { Seed = 3 }
[engines.random]
builtin = "random"
options = { Seed = 7 }
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

/// Issue 12 item 4, as reported: `gauntlet ... 2>&1 | head -2`. The reader goes away after
/// two lines; the run must still play every game, write every file and exit 0.
#[test]
fn a_closed_console_pipe_stops_nothing() {
    use std::io::{BufRead, BufReader};
    let s = Scratch::new("closed-pipe");
    s.write("engines.toml", BUILTINS);
    let (reader, writer) = std::io::pipe().unwrap();
    let mut child = s
        .command(&[
            "gauntlet",
            "minimax",
            "--vs",
            "greedy,random",
            "--games",
            "4",
            "--tc",
            "2s+0.02s",
            "--out",
            "out",
        ])
        .stdout(writer.try_clone().unwrap())
        .stderr(writer)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(reader);
    for _ in 0..2 {
        let mut line = String::new();
        lines.read_line(&mut line).unwrap();
        assert!(!line.is_empty(), "the run printed fewer than two lines");
    }
    drop(lines); // `head -2` exits: the pipe's only reader is gone.
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    assert_eq!(csv_rows(&s.path("out/games.csv")).len(), 8);
    assert_eq!(pgn_games(&s.path("out/games.pgn")).len(), 8);
    let summary = std::fs::read_to_string(s.path("out/summary.csv")).unwrap();
    assert!(summary.contains("minimax"), "{summary}");
    assert_no_leftovers(&s);
}

/// python-chess's reading of a PGN file: per game, its PlyCount tag and the number of moves
/// of its mainline, or the errors it met.
fn python_chess_plies(pgn: &std::path::Path) -> Vec<(usize, usize)> {
    let script = r#"
import sys, chess.pgn
f = open(sys.argv[1])
while True:
    g = chess.pgn.read_game(f)
    if g is None: break
    if g.errors: print("ERRORS", g.errors); sys.exit(1)
    print(g.headers["PlyCount"], len(list(g.mainline_moves())))
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(pgn)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| {
            let (tag, read) = l.split_once(' ').unwrap();
            (tag.parse().unwrap(), read.parse().unwrap())
        })
        .collect()
}

/// Issue 12 items 6 and 7: unnoticed `0000` moves stand and are written as null moves, so
/// python-chess reads every game to its end: all its moves and the null moves, as PlyCount
/// says; and no movetext line starts a tag, so `^[Event` counts the games.
#[test]
fn python_chess_reads_every_game_with_unnoticed_null_moves_to_its_end() {
    if !python_chess() {
        eprintln!("python-chess not installed: skipped");
        return;
    }
    let s = Scratch::new("null-moves");
    s.write("engines.toml", BUILTINS);
    s.run_ok(&[
        "gauntlet",
        "random",
        "--vs",
        "greedy",
        "--tc",
        "10s+0",
        "--games",
        "12",
        "--max-moves",
        "30",
        "--inject-illegal",
        "0.05",
        "--illegal-kinds",
        "no-move",
        "--illegal-notice",
        "0",
        "--ruleset",
        "house",
        "--seed",
        "5",
        "--out",
        "out",
    ]);
    let rows = csv_rows(&s.path("out/games.csv"));
    let pgn = std::fs::read_to_string(s.path("out/games.pgn")).unwrap();
    assert_eq!(
        pgn.lines().filter(|l| l.starts_with("[Event ")).count(),
        rows.len()
    );
    let games = pgn_games(&s.path("out/games.pgn"));
    let read = python_chess_plies(&s.path("out/games.pgn"));
    assert_eq!(read.len(), rows.len());
    let mut nulls = 0;
    for ((tag, read), (tags, movetext)) in read.iter().zip(&games) {
        assert_eq!(tag, read, "game {}: {movetext}", tags["Round"]);
        let row = rows.iter().find(|r| r["game"] == tags["Round"]).unwrap();
        let plies: usize = row["plies"].parse().unwrap();
        let null = movetext.split_whitespace().filter(|t| *t == "--").count();
        nulls += null;
        // Where PGN cannot write a move (one that stood, or the next one that no longer fits
        // the board), the movetext stops and the rest is listed in a comment.
        if !movetext.contains("PGN cannot write it")
            && !movetext.contains("cannot be written in SAN")
        {
            // Every move the engines played, and each null move, is in the movetext.
            assert_eq!(*read, plies + null, "game {}: {movetext}", tags["Round"]);
        }
    }
    assert!(
        nulls >= 1,
        "no null move stood in 12 games: pick another seed"
    );
}

/// Issue 12 item 7: a crashed engine's stderr full of tag lines goes into the PGN comments
/// without ever starting a line: `^[Event` counts exactly the games, and python-chess reads
/// them all.
#[test]
fn a_crashed_engines_tag_lines_never_start_a_pgn_line() {
    let s = Scratch::new("evil-stderr");
    let evil = s.write(
        "evil.sh",
        "#!/bin/sh\n\
         while read -r line; do\n\
           case \"$line\" in\n\
             uci) echo 'id name evil'; echo uciok;;\n\
             isready) echo readyok;;\n\
             go*) i=0; while [ $i -lt 20 ]; do echo \"[Event \\\"evil $i\\\"] [Site \\\"x\\\"]\" >&2; i=$((i+1)); done; exit 3;;\n\
             quit) exit 0;;\n\
           esac\n\
         done\n",
    );
    std::fs::set_permissions(&evil, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    s.write(
        "engines.toml",
        &format!(
            "{BUILTINS}[engines.evil]\ncmd = {:?}\n",
            evil.display().to_string()
        ),
    );
    s.run_ok(&[
        "gauntlet", "random", "--vs", "evil", "--tc", "10s+0", "--games", "2", "--out", "out",
    ]);
    let rows = csv_rows(&s.path("out/games.csv"));
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter().all(|r| r["termination"] == "engine-crash"),
        "{rows:?}"
    );
    assert!(
        rows.iter().any(|r| r["detail"].contains("[Event")),
        "{rows:?}"
    );
    let pgn = std::fs::read_to_string(s.path("out/games.pgn")).unwrap();
    assert_eq!(
        pgn.lines().filter(|l| l.starts_with("[Event")).count(),
        2,
        "{pgn}"
    );
    if python_chess() {
        let read = python_chess_plies(&s.path("out/games.pgn"));
        assert_eq!(read.len(), 2);
    }
}

/// `-pgnout`'s file as fastchess's front end takes it: two engines, two games.
fn compat_pgnout(file: &str) -> Vec<String> {
    let mut args: Vec<String> = ["-engine", &format!("cmd={BIN}"), "args=engine instant"]
        .map(String::from)
        .to_vec();
    args.extend(
        [
            "name=a",
            "-engine",
            &format!("cmd={BIN}"),
            "args=engine random",
        ]
        .map(String::from),
    );
    args.extend(
        [
            "name=b",
            "-each",
            "tc=10+0.1",
            "-maxmoves",
            "8",
            "-rounds",
            "1",
        ]
        .map(String::from),
    );
    args.extend(["-pgnout".to_string(), format!("file={file}")]);
    args
}

/// A disk that takes no more (`/dev/full`): the games are played and kept in the results
/// folder, the file's trouble is said once and counted, and the run fails (exit 1), so a
/// script never takes a `--pgnout` that misses games for a finished run.
#[test]
fn a_pgnout_the_disk_refuses_fails_the_run_and_every_game_is_kept() {
    if !std::path::Path::new("/dev/full").exists() {
        eprintln!("no /dev/full here: skipped");
        return;
    }
    let s = Scratch::new("pgnout-full");
    let mut args = quick_gauntlet("instant", "random", "4");
    args.extend([
        "--pgnout",
        "/dev/full",
        "--epdout",
        "/dev/full",
        "--out",
        "res",
    ]);
    let out = s.run(&args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    // Once a file, at its first failure; then counted.
    let warning = "warning: cannot write /dev/full: No space left on device";
    assert_eq!(err.matches(warning).count(), 2, "{err}");
    let last = err.trim_end().lines().last().unwrap();
    let lost = "4 of 4 games were not written to /dev/full (No space left on device (os error 28))";
    assert_eq!(
        last,
        format!("blitz-arena: error: {lost}; {lost}; every game played is in res/games.pgn")
    );
    assert_eq!(pgn_games(&s.path("res/games.pgn")).len(), 4);

    // fastchess's front end keeps its folder in the temporary folder, which it removes after
    // a run that went well; a later run's sweep leaves it alone.
    let tmp = s.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let args = compat_pgnout("/dev/full");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = s.command(&args).env("TMPDIR", &tmp).output().unwrap();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let kept: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let last = err.trim_end().lines().last().unwrap();
    assert!(
        last.ends_with(&format!(
            "the run's folder {} is kept (remove it when done)",
            kept[0].display()
        )),
        "{last}"
    );
    assert_eq!(pgn_games(&kept[0].join("games.pgn")).len(), 2);
    let args = compat_pgnout("fine.pgn");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = s.command(&args).env("TMPDIR", &tmp).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(pgn_games(&s.path("fine.pgn")).len(), 2);
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(left, kept, "the kept folder stays; the good run's went");
    s.assert_no_engines_left();
}

/// A `--pgnout` / `--epdout` that cannot be opened is a bad command line: said before any
/// engine starts, and no results folder is made.
#[test]
fn a_pgnout_that_cannot_be_opened_is_refused_before_the_run() {
    let s = Scratch::new("pgnout-missing");
    for flag in ["--pgnout", "--epdout"] {
        let mut args = quick_gauntlet("instant", "random", "2");
        args.extend([flag, "no-such-folder/x.txt", "--out", "res"]);
        let out = s.run(&args);
        let said = "cannot open no-such-folder/x.txt: No such file or directory";
        assert_usage_error(&out, said);
        assert!(!s.path("res").exists());
    }
    let tmp = s.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut args = compat_pgnout("no-such-folder/x.pgn");
    for append in [None, Some("append=false")] {
        args.extend(append.map(String::from));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = s.command(&args).env("TMPDIR", &tmp).output().unwrap();
        assert_usage_error(
            &out,
            "cannot open no-such-folder/x.pgn: No such file or directory",
        );
        assert_eq!(std::fs::read_dir(&tmp).unwrap().count(), 0);
    }
}
