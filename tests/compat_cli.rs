//! The fastchess / cutechess-cli command line end to end: the real binary, given the command
//! lines fishtest's worker and OpenBench's client build (with real engines substituted: the
//! built-in ones, run through a script as their `cmd=`, and Stockfish where installed), plays
//! the games, prints the lines those managers parse, writes the files they read and its own
//! results folder. Every option of docs/fastchess.md's table is run here.

mod common;
#[path = "common/managers.rs"]
mod managers;

use std::collections::HashMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::*;
use managers::*;

/// An executable `name` in the scratch folder (or a folder in it) that runs a built-in engine,
/// as a `cmd=` of the managers' command lines names an engine binary.
fn engine_script(s: &Scratch, path: &str, builtin: &str) {
    let file = s.path(path);
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, format!("#!/bin/sh\nexec '{BIN}' engine {builtin}\n")).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// `blitz-arena ARGS` (the compat grammar) in the scratch folder, keeping the results folder
/// (`-out results/run`) for the test to read when it plays games.
fn compat(s: &Scratch, args: &[&str]) -> Output {
    s.run(&keep_results(args))
}

/// A command line that plays games gets blitz-arena's `-out results/run`: without it a compat
/// run, as fastchess, leaves no results folder.
fn keep_results<'a>(args: &[&'a str]) -> Vec<&'a str> {
    let mut args = args.to_vec();
    if args.contains(&"-engine") {
        args.extend(["-out", "results/run"]);
    }
    args
}

/// The binary under another name (a symlink in the scratch folder), as `make` or a user's
/// symlink installs it.
fn as_named(s: &Scratch, name: &str, args: &[&str]) -> Output {
    let link = s.path(name);
    if !link.exists() {
        std::os::unix::fs::symlink(BIN, &link).unwrap();
    }
    let mut renamed = Command::new(&link);
    renamed.args(keep_results(args)).current_dir(&s.dir);
    // The scratch folder's marker, so that leftover engines can be found.
    for (k, v) in s.command(&[]).get_envs() {
        if let Some(v) = v {
            renamed.env(k, v);
        }
    }
    renamed.output().unwrap()
}

#[track_caller]
fn ok(out: &Output) -> (String, String) {
    assert!(
        out.status.success(),
        "{:?}\n{}\n{}",
        out.status,
        stdout(out),
        stderr(out)
    );
    (stdout(out), stderr(out))
}

/// The games of the only results folder under `results/`.
fn results_rows(s: &Scratch) -> Vec<HashMap<String, String>> {
    let dirs: Vec<_> = std::fs::read_dir(s.path("results"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(dirs.len(), 1, "one results folder");
    csv_rows(&dirs[0].path().join("games.csv"))
}

fn warnings(err: &str) -> Vec<&str> {
    err.lines()
        .filter(|l| l.starts_with("blitz-arena: warning: "))
        .collect()
}

/// fishtest's worker/games.py command line (official-stockfish/fishtest, `run_games`), with
/// two built-in engines under fishtest's names: the games, fishtest's parse of the results
/// block, the PGN it uploads, one warning line per option the arena does not need.
#[test]
fn fishtest_command_line_runs_as_fastchess() {
    let s = Scratch::new("compat-fishtest");
    engine_script(&s, "stockfish-new", "minimax");
    engine_script(&s, "stockfish-base", "greedy");
    s.write(
        "book.epd",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n\
         rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n",
    );
    let args = [
        "-testEnv",
        "-recover",
        "-repeat",
        "-games",
        "2",
        "-rounds",
        "2",
        "-ratinginterval",
        "1",
        "-scoreinterval",
        "1",
        "-autosaveinterval",
        "0",
        "-report",
        "penta=true",
        "-pgnout",
        "file=batch.pgn",
        "append=false",
        "-crc32",
        "pgn=true",
        "-site",
        "https://tests.stockfishchess.org/tests/view/1",
        "-event",
        "Batch 7: New-abc vs Base-abc",
        "-srand",
        "42",
        "-resign",
        "movecount=3",
        "score=600",
        "-draw",
        "movenumber=34",
        "movecount=8",
        "score=20",
        "-variant",
        "standard",
        "-concurrency",
        "2",
        "-openings",
        "file=book.epd",
        "format=epd",
        "order=random",
        "plies=16",
        "start=1",
        "-check-mate-pvs",
        "-engine",
        "name=New-abc",
        "tc=2+0.02",
        "cmd=stockfish-new",
        "dir=.",
        "option.Hash=16",
        "-engine",
        "name=Base-abc",
        "tc=2+0.02",
        "cmd=stockfish-base",
        "dir=.",
        "-each",
        "proto=uci",
        "-maxmoves",
        "20",
    ];
    // A previous batch's PGN is replaced (append=false).
    s.write("batch.pgn", "[Event \"old\"]\n\n1. e4 *\n\n");
    let (out, err) = ok(&compat(&s, &args));
    s.assert_no_engines_left();
    let rows = results_rows(&s);
    assert_eq!(rows.len(), 4);
    // fishtest's parse: a block per pair, the last one holding all four games, its own
    // consistency check (games == 2 * pairs) holding.
    let parsed = parse(&s, &out);
    let last = parsed.fishtest.blocks.last().expect("a results block");
    assert_eq!(last[0], 4.0, "{out}");
    let pairs: f64 = last[5..].iter().sum();
    assert_eq!(last[0], 2.0 * pairs);
    assert_eq!(parsed.fishtest.blocks.len(), 2, "a block per pair: {out}");
    assert!(
        out.contains("Results of New-abc vs Base-abc (2+0.02, NULL, 16MB - NULL, book.epd):"),
        "{out}"
    );
    let pgn = pgn_games(&s.path("batch.pgn"));
    assert_eq!(pgn.len(), 4, "only this batch's games");
    for (tags, _) in &pgn {
        assert_eq!(tags["Event"], "Batch 7: New-abc vs Base-abc");
        assert_eq!(
            tags["Site"],
            "https://tests.stockfishchess.org/tests/view/1"
        );
    }
    // One warning line per option it does not need, naming it.
    let w = warnings(&err);
    for option in [
        "-testEnv",
        "-recover",
        "-autosaveinterval 0",
        "plies=16: ignored: an EPD book's positions have no moves to cut",
    ] {
        assert!(
            w.iter().any(|l| l.contains(option)),
            "no warning for {option}: {err}"
        );
    }
    // -check-mate-pvs is carried out, not ignored: the engines' PVs are checked, and minimax's
    // pass (every mate it announces comes with its whole line), so fishtest stops on none.
    assert!(!w.iter().any(|l| l.contains("-check-mate-pvs")), "{err}");
    assert!(!out.contains("Warning;"), "{out}");
    assert_eq!(w.len(), 4, "{err}");
    // fishtest uploads the PGN only if the last CRC line matches zlib.crc32 of the file.
    let crc_lines: Vec<&str> = out.lines().filter(|l| l.contains("has CRC32:")).collect();
    assert_eq!(crc_lines.len(), 4, "one per game: {out}");
    let crc_line = crc_lines[3];
    assert!(
        crc_line.starts_with("File batch.pgn has CRC32: 0x"),
        "{crc_line}"
    );
    let zlib = python(
        "import sys, zlib; print(hex(zlib.crc32(open(sys.argv[1], 'rb').read())))",
        [s.path("batch.pgn")],
    );
    assert_eq!(crc_line.split_whitespace().last().unwrap(), zlib.trim());
}

/// fishtest reads fastchess's stderr with its stdout and counts every line that says "stall"
/// or "disconnect" as a crash, "on time" as a time loss: the arena's own lines on stderr must
/// not count a game twice.
#[test]
fn fishtest_counts_each_stall_once_over_stdout_and_stderr() {
    let s = Scratch::new("compat-stall");
    s.write(
        "hangs",
        &format!("#!/bin/sh\nexec '{BIN}' engine faulty --hang-after 2 --seed 2\n"),
    );
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(s.path("hangs"), std::fs::Permissions::from_mode(0o755)).unwrap();
    engine_script(&s, "gr", "greedy");
    let args = [
        "-engine",
        "cmd=./hangs",
        "name=h",
        "-engine",
        "cmd=./gr",
        "name=g",
        // Seeded: the games are the same in every run, so no mate comes before the hang.
        "option.Seed=1",
        "-each",
        "tc=1+0.01",
        "-rounds",
        "1",
        "-games",
        "2",
        "-concurrency",
        "2",
    ];
    // fastchess's ruling (the compat default, `online`; tests/data/fastchess/hang.out): an
    // engine that answers neither its move nor `isready` stalls, counted once as a crash.
    let (out, err) = ok(&compat(&s, &args));
    s.assert_no_engines_left();
    assert!(err.contains("ruleset online"), "{err}");
    let parsed = parse(&s, &format!("{out}{err}"));
    assert_eq!(parsed.fishtest.time_losses, 0, "{out}{err}");
    assert_eq!(parsed.fishtest.crashes, 2, "{out}{err}");
    assert!(out.contains("  Crashed: 2\n"), "{out}");
    std::fs::remove_dir_all(s.path("results")).unwrap();
    // A native ruleset by its option: FIDE's watcher sees the flag, the engine never answers
    // `stop`: a stall, counted once as a crash.
    let mut fide = args.to_vec();
    fide.extend(["-ruleset", "fide"]);
    let (out, err) = ok(&compat(&s, &fide));
    s.assert_no_engines_left();
    assert!(err.contains("ruleset fide"), "{err}");
    let rows = results_rows(&s);
    let stalls = rows
        .iter()
        .filter(|r| r["termination"] == "engine-stall")
        .count();
    assert_eq!(stalls, 2, "{rows:?}");
    let parsed = parse(&s, &format!("{out}{err}"));
    assert_eq!(parsed.fishtest.crashes, 2, "{out}{err}");
    assert!(err.contains("summary.csv (blitz-arena stats"), "{err}");
}

/// OpenBench's Client/worker.py command line (`build_runner_command`), run as `fastchess-ob`
/// as OpenBench names its runner: OpenBench's own `update_results` reads the pairs.
#[test]
fn openbench_command_line_runs_as_fastchess_ob() {
    let s = Scratch::new("compat-openbench");
    engine_script(&s, "Engines/Dev-1", "minimax");
    engine_script(&s, "Engines/Base-1", "greedy");
    std::fs::create_dir_all(s.path("Books")).unwrap();
    std::fs::create_dir_all(s.path("PGNs")).unwrap();
    s.write(
        "Books/book.epd",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
    );
    let command = "-recover -variant standard -testEnv -concurrency 2 -rounds 2 -games 2 \
        -resign movecount=3 score=400 -draw movenumber=40 movecount=8 score=10 \
        -engine dir=Engines/ cmd=./Dev-1 proto=uci tc=2.00+0.02 timemargin=250 option.Hash=8 name=Eng-dev \
        -engine dir=Engines/ cmd=./Base-1 proto=uci tc=2.00+0.02 timemargin=250 name=Eng-base \
        -openings file=Books/book.epd format=epd order=random start=3 -srand 99 \
        -pgnout file=PGNs/1.2.3.0.pgn seldepth=true nodes=true match_line=^info_string_pgncomment \
        -maxmoves 20";
    let args: Vec<&str> = command.split_whitespace().collect();
    let (out, err) = ok(&as_named(&s, "fastchess-ob", &args));
    s.assert_no_engines_left();
    let rows = results_rows(&s);
    assert_eq!(rows.len(), 4);
    let parsed = parse(&s, &out);
    if let Some(ob) = parsed.openbench {
        assert_eq!(ob.pentanomial.iter().sum::<u32>(), 2, "{out}");
        assert_eq!(ob.pentanomial, pentanomial(&rows, "Eng-dev"));
    }
    let pgn = pgn_games(&s.path("PGNs/1.2.3.0.pgn"));
    assert_eq!(pgn.len(), 4);
    assert!(pgn.iter().all(|(h, _)| h.contains_key("Termination")));
    assert!(err.contains("time margin 250 ms"), "{err}");
    assert!(
        warnings(&err).iter().any(|l| l.contains("match_line")),
        "{err}"
    );
    // seldepth=true is honoured, no warning: fastchess's `sd=` follows `n=` although asked
    // first (the built-in engines report no seldepth: 0, as fastchess writes it).
    assert!(
        !err.lines()
            .any(|l| l.contains("warning") && l.contains("seldepth")),
        "{err}"
    );
    for (_, movetext) in &pgn {
        assert!(movetext.contains(", n=0, sd=0"), "{movetext}");
        assert!(!movetext.contains("sd=0, n="), "{movetext}");
    }
}

/// Invoked as `cutechess-cli`: cutechess's defaults (one game, one round), fastchess's lines in
/// its cutechess format, its
/// positional `-pgnout FILE`, `-epdout`, three engines as a round robin, `-maxmoves`.
#[test]
fn cutechess_cli_command_line_runs_with_its_lines() {
    let s = Scratch::new("compat-cutechess");
    for (name, builtin) in [("a", "greedy"), ("b", "random"), ("c", "instant")] {
        engine_script(&s, name, builtin);
    }
    let args = [
        "-engine",
        "cmd=./a",
        "name=A",
        "-engine",
        "cmd=./b",
        "name=B",
        "-engine",
        "cmd=./c",
        "name=C",
        "-each",
        "tc=2+0.02",
        "proto=uci",
        "-games",
        "2",
        "-repeat",
        "-maxmoves",
        "10",
        "-pgnout",
        "games.pgn",
        "min",
        "-epdout",
        "games.epd",
        "-concurrency",
        "2",
    ];
    let (out, err) = ok(&as_named(&s, "cutechess-cli", &args));
    s.assert_no_engines_left();
    let rows = results_rows(&s);
    assert_eq!(rows.len(), 6, "3 pairings x 2 games");
    assert!(
        out.lines().any(|l| l.starts_with("Started game 1 of 6")),
        "{out}"
    );
    // fastchess's cutechess format (as its cutechess-cli build prints it): a score line per
    // game for its pairing, the ranking table of three engines at the end (cutechess-cli's
    // default rating interval, 0), `Finished match` and the total time.
    let scores = out.lines().filter(|l| l.starts_with("Score of ")).count();
    assert_eq!(scores, 6, "{out}");
    for pairing in [
        "Score of A vs B: ",
        "Score of A vs C: ",
        "Score of B vs C: ",
    ] {
        assert!(out.contains(pairing), "{pairing}\n{out}");
    }
    let tables: Vec<usize> = out
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("Rank Name "))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(tables.len(), 1, "{out}");
    let closing: Vec<&str> = out.lines().skip(tables[0] + 4).collect();
    assert_eq!(closing[0], "Finished match", "{out}");
    assert!(closing[1].starts_with("Total Time: "), "{out}");
    assert_eq!(pgn_games(&s.path("games.pgn")).len(), 6);
    assert_eq!(
        std::fs::read_to_string(s.path("games.epd"))
            .unwrap()
            .lines()
            .count(),
        6
    );
    assert!(err.contains("round-robin: A, B, C"), "{err}");
}

/// `tc=inf` with `nodes=` and `depth=` (OpenBench's N= and D= tests), `-output
/// format=cutechess`, `-ratinginterval`, `-scoreinterval`, `-sprt`, `-tb`/`-tbpieces`,
/// `-openings order=sequential`, a per-engine time control, `-wait`, `-event`.
#[test]
fn fixed_nodes_sprt_tablebases_and_output_options() {
    let s = Scratch::new("compat-options");
    engine_script(&s, "mm", "minimax");
    engine_script(&s, "gr", "greedy");
    s.write(
        "book.epd",
        // White's king takes the rook that checks it: KRvK, which the tables hold.
        "4k3/8/8/8/8/8/4r3/R3K3 w - - 0 1\n",
    );
    let tb = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy");
    let tb = tb.to_str().unwrap();
    let args = [
        "-engine",
        "cmd=./mm",
        "name=mm",
        "-engine",
        "cmd=./gr",
        "name=gr",
        "-each",
        "tc=inf",
        "nodes=2000",
        "depth=3",
        "-rounds",
        "2",
        "-output",
        "format=cutechess",
        "-ratinginterval",
        "2",
        "-scoreinterval",
        "2",
        "-sprt",
        "elo0=0",
        "elo1=10",
        "alpha=0.05",
        "beta=0.05",
        "model=normalized",
        "-tb",
        tb,
        "-tbpieces",
        "3",
        "-tbadjudicate",
        "BOTH",
        "-openings",
        "file=book.epd",
        "order=sequential",
        "-wait",
        "100",
        "-concurrency",
        "1",
    ];
    let (out, err) = ok(&compat(&s, &args));
    s.assert_no_engines_left();
    let rows = results_rows(&s);
    assert_eq!(rows.len(), 4);
    assert!(
        rows.iter().all(|r| r["termination"] == "tablebase"),
        "{rows:?}"
    );
    let score_lines = out
        .lines()
        .filter(|l| l.starts_with("Score of mm vs gr:"))
        .count();
    assert_eq!(score_lines, 2, "every 2 games: {out}");
    assert!(out.contains("SPRT: llr"), "{out}");
    assert!(err.contains("tablebases: "), "{err}");
    for w in ["-wait 100", "tc=inf"] {
        assert!(
            warnings(&err).iter().any(|l| l.contains(w)),
            "no warning for {w}: {err}"
        );
    }
    // The limits are the run's: sent with every go.
    let dir = std::fs::read_dir(s.path("results"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let plan: String = std::fs::read_to_string(dir.join("run.json"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert!(
        plan.contains(r#""limits":{"nodes":2000,"depth":3}"#),
        "{plan}"
    );
}

/// Engines with different clocks keep them (time odds); `-srand` makes the book's order
/// the same in two runs; `-openings order=random` shuffles it.
#[test]
fn per_engine_time_controls_and_seeded_books() {
    let s = Scratch::new("compat-odds");
    engine_script(&s, "gr", "greedy");
    engine_script(&s, "rn", "random");
    s.write(
        "book.epd",
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\n4k3/8/8/8/8/8/3P4/4K3 w - - 0 1\n4k3/8/8/8/8/8/2P5/4K3 w - - 0 1\n",
    );
    let run = || {
        let args = [
            "-engine",
            "cmd=./gr",
            "name=gr",
            "tc=3+0.1",
            "-engine",
            "cmd=./rn",
            "name=rn",
            "tc=1:00+1",
            "-rounds",
            "3",
            "-openings",
            "file=book.epd",
            "order=random",
            "-srand",
            "11",
            "-maxmoves",
            "4",
            "-concurrency",
            "1",
        ];
        let (_, err) = ok(&compat(&s, &args));
        let rows = results_rows(&s);
        std::fs::remove_dir_all(s.path("results")).unwrap();
        (err, rows)
    };
    let (err, first) = run();
    assert!(
        err.contains(
            "tc 3s+0.1s = 3 seconds + 0.1 seconds a move, rn 1+1 = 1 minute + 1 second a move"
        ),
        "{err}"
    );
    let (_, second) = run();
    let fens = |rows: &[HashMap<String, String>]| -> Vec<String> {
        rows.iter().map(|r| r["opening"].clone()).collect()
    };
    assert_eq!(fens(&first), fens(&second), "-srand seeds the book's order");
    s.assert_no_engines_left();
}

/// `tc=4/10+0` (OpenBench's X/Y+Z): 10 s for every 4 moves, refilled after each 4th move.
/// Both engines seeded: the game reaches white's fifth move (an early mate would end it before
/// the period it checks).
#[test]
fn repeating_periods_refill_the_clock() {
    let s = Scratch::new("compat-periods");
    engine_script(&s, "gr", "greedy");
    engine_script(&s, "rn", "random");
    let args = [
        "-engine",
        "cmd=./gr",
        "name=gr",
        "option.Seed=1",
        "-engine",
        "cmd=./rn",
        "name=rn",
        "option.Seed=2",
        "-each",
        "tc=4/10+0",
        "-rounds",
        "1",
        "-games",
        "1",
        "-maxmoves",
        "6",
        "-pgnout",
        "file=p.pgn",
    ];
    let (_, err) = ok(&compat(&s, &args));
    s.assert_no_engines_left();
    assert!(
        err.contains("tc 4/10s+0 = 10 seconds for every 4 moves, no increment"),
        "{err}"
    );
    let dir = std::fs::read_dir(s.path("results"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let game: serde_json::Value = serde_json::from_str(events.lines().next().unwrap()).unwrap();
    // White's clock as each of its `go` was sent: the 5th starts a new period.
    let white_go: Vec<i64> = game["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event"] == "go" && e["side"] == "white")
        .map(|e| e["clock_us"].as_i64().unwrap())
        .collect();
    assert!(white_go.len() >= 5, "{white_go:?}");
    assert!(
        white_go[3] <= 10_000_000 && white_go[4] > white_go[3] + 5_000_000,
        "{white_go:?}"
    );
    let pgn = pgn_games(&s.path("p.pgn"));
    assert_eq!(pgn[0].0["TimeControl"], "4/10");
}

/// `st=0.5` (OpenBench's MT= tests): half a second for every move, none carried over; the
/// engines are sent `go movetime 500`.
#[test]
fn a_fixed_time_per_move() {
    let s = Scratch::new("compat-st");
    engine_script(&s, "gr", "greedy");
    engine_script(&s, "rn", "random");
    let args = [
        "-engine",
        "cmd=./gr",
        "name=gr",
        "-engine",
        "cmd=./rn",
        "name=rn",
        "-each",
        "st=0.5",
        "timemargin=250",
        "-rounds",
        "1",
        "-maxmoves",
        "5",
        "-pgnout",
        "file=st.pgn",
    ];
    let (out, err) = ok(&compat(&s, &args));
    s.assert_no_engines_left();
    assert!(
        err.contains("tc 0.5s/move = 0.5 seconds a move, fixed"),
        "{err}"
    );
    assert!(
        out.contains("Results of gr vs rn (0.5/move, NULL, NULL):"),
        "{out}"
    );
    let dir = std::fs::read_dir(s.path("results"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let events = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    for line in events.lines() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        for e in game["events"].as_array().unwrap() {
            if e["event"] == "go" {
                assert_eq!(e["clock_us"], 500_000, "every move starts with 0.5 s: {e}");
            }
        }
    }
    assert_eq!(pgn_games(&s.path("st.pgn"))[0].0["TimeControl"], "0.5/move");
}

/// Stockfish at fixed nodes under fishtest's grammar, with its real options (Threads, Hash).
#[test]
fn stockfish_under_the_fastchess_grammar() {
    if !debian_engines(&["stockfish"]) {
        return;
    }
    let s = Scratch::new("compat-stockfish");
    let args = [
        "-engine",
        "cmd=/usr/games/stockfish",
        "name=sf1",
        "-engine",
        "cmd=/usr/games/stockfish",
        "name=sf2",
        "-each",
        "proto=uci",
        "tc=inf",
        "nodes=3000",
        "option.Threads=1",
        "option.Hash=16",
        "-rounds",
        "1",
        "-games",
        "2",
        "-concurrency",
        "2",
        "-pgnout",
        "file=sf.pgn",
        "nodes=true",
        "seldepth=true",
        "-maxmoves",
        "40",
    ];
    let (out, _) = ok(&compat(&s, &args));
    s.assert_no_engines_left();
    assert_eq!(results_rows(&s).len(), 2);
    let parsed = parse(&s, &out);
    assert_eq!(parsed.fishtest.blocks.last().unwrap()[0], 2.0, "{out}");
    // fastchess labels a tc=inf match by its node limit.
    assert!(
        out.contains("Results of sf1 vs sf2 (3000 nodes, 1t, 16MB):"),
        "{out}"
    );
    let pgn = std::fs::read_to_string(s.path("sf.pgn")).unwrap();
    assert!(
        pgn.contains(" n="),
        "nodes in the move comments: {}",
        &pgn[..pgn.len().min(800)]
    );
    // Stockfish's seldepth, from its last info line, in every move's comment.
    let selective: Vec<Option<u32>> = pgn
        .split('{')
        .skip(1)
        .map(|comment| {
            let sd = comment.split_once(", sd=")?.1;
            sd.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok()
        })
        .collect();
    assert!(selective.len() > 10, "{}", &pgn[..pgn.len().min(800)]);
    assert!(
        selective.iter().all(|sd| sd.is_some_and(|sd| sd > 0)),
        "{selective:?}: {}",
        &pgn[..pgn.len().min(800)]
    );
}

/// The rest of the table: `-tournament gauntlet` with three engines, `-pgnout notation=`,
/// `-epdout file= append=false`, `-resign twosided=`, `-report penta=true` and the warning
/// of `-engine restart=`.
#[test]
fn a_gauntlet_of_three_and_the_remaining_options() {
    let s = Scratch::new("compat-rest");
    for (name, builtin) in [("a", "greedy"), ("b", "random"), ("c", "instant")] {
        engine_script(&s, name, builtin);
    }
    s.write("old.epd", "stale line\n");
    let args = [
        "-tournament",
        "gauntlet",
        "-engine",
        "cmd=./a",
        "name=A",
        "restart=on",
        "-engine",
        "cmd=./b",
        "name=B",
        "-engine",
        "cmd=./c",
        "name=C",
        "-each",
        "tc=2+0.02",
        "-rounds",
        "1",
        "-maxmoves",
        "6",
        "-pgnout",
        "file=g.pgn",
        "notation=uci",
        "-epdout",
        "file=old.epd",
        "append=false",
        "-resign",
        "movecount=3",
        "score=600",
        "twosided=true",
        "-report",
        "penta=true",
    ];
    let (out, err) = ok(&compat(&s, &args));
    s.assert_no_engines_left();
    assert!(err.contains("gauntlet: A vs B, C | 4 games"), "{err}");
    assert_eq!(results_rows(&s).len(), 4);
    assert!(out.contains("Started game 1 of 4"), "{out}");
    let epd = std::fs::read_to_string(s.path("old.epd")).unwrap();
    assert_eq!(epd.lines().count(), 4, "emptied first: {epd}");
    assert!(!epd.contains("stale"));
    // UCI notation: squares, no SAN piece letters.
    let (_, moves) = &pgn_games(&s.path("g.pgn"))[0];
    let first = moves.split_whitespace().nth(1).unwrap();
    assert!(
        first.len() >= 4 && first.as_bytes()[0].is_ascii_lowercase(),
        "{moves}"
    );
    assert!(
        warnings(&err).iter().any(|l| l.contains("restart=on")),
        "no warning for restart=on: {err}"
    );
    for (bad, says) in [
        (&["-debug"][..], "events.jsonl"),
        (
            &["-engine", "conf=sf", "-engine", "conf=sf2"][..],
            "engines.json",
        ),
    ] {
        assert_usage_error(&compat(&s, bad), says);
    }
}

/// The books and the variant: `-openings ... start= plies=` on a PGN book, cutechess-cli's
/// `-each book=FILE bookdepth=N` (a Polyglot book; depth in full moves), `-variant
/// fischerandom` with a Chess960 book, and cutechess-cli's bare `ponder`.
#[test]
fn books_variants_and_pondering() {
    let s = Scratch::new("compat-books");
    engine_script(&s, "mm", "minimax");
    engine_script(&s, "gr", "greedy");
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    std::fs::copy(format!("{data}/polyglot/book.bin"), s.path("book.bin")).unwrap();
    std::fs::copy(
        format!("{data}/chess960/chess960.epd"),
        s.path("chess960.epd"),
    )
    .unwrap();
    s.write(
        "lines.pgn",
        "[Event \"a\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n\n[Event \"b\"]\n\n1. d4 d5 2. c4 e6 3. Nc3 Nf6 *\n\n",
    );
    let engines = [
        "-engine",
        "cmd=./mm",
        "name=mm",
        "-engine",
        "cmd=./gr",
        "name=gr",
        "-each",
        "tc=10+0.1",
        "-maxmoves",
        "12",
        "-rounds",
        "1",
        "-srand",
        "7",
    ];
    let run = |name: &str, more: &[&str]| {
        let pgnout = format!("file={name}.pgn");
        let mut args = engines.to_vec();
        args.extend_from_slice(more);
        args.extend_from_slice(&["-pgnout", &pgnout]);
        let (_, err) = ok(&compat(&s, &args));
        s.assert_no_engines_left();
        assert!(warnings(&err).is_empty(), "{err}");
        let games = pgn_games(&s.path(&format!("{name}.pgn")));
        assert_eq!(games.len(), 2, "{name}");
        std::fs::remove_dir_all(s.path("results")).unwrap();
        games
    };
    // A PGN book from its second game, cut at 4 plies: both games start after 1. d4 d5 2. c4 e6,
    // written from the start position as fastchess writes a book's moves.
    for (tags, moves) in run(
        "pgn",
        &[
            "-openings",
            "file=lines.pgn",
            "format=pgn",
            "order=sequential",
            "start=2",
            "plies=4",
        ],
    ) {
        assert!(!tags.contains_key("FEN"), "{tags:?}");
        assert!(
            moves.starts_with("1. d4 {book} d5 {book} 2. c4 {book} e6 {book} 3. "),
            "{moves}"
        );
        let book = moves.matches("{book}").count();
        assert_eq!(book, 4, "{moves}");
        let plies: usize = tags["PlyCount"].parse().unwrap();
        assert_eq!(plies, moves.matches(" {").count(), "{tags:?} {moves}");
    }
    // A Polyglot book, 1 full move deep: each game starts after two plies from the book.
    for (tags, moves) in run("bin", &["-each", "book=book.bin", "bookdepth=1"]) {
        assert!(!tags.contains_key("FEN"), "{tags:?}");
        let words: Vec<&str> = moves.split(' ').collect();
        assert_eq!(
            (words[0], words[2], words[4]),
            ("1.", "{book}", "{book}"),
            "{moves}"
        );
        assert!(
            words[5] == "2." && !words[7].starts_with("{book"),
            "{moves}"
        );
    }
    // Chess960.
    for (tags, _) in run(
        "960",
        &["-variant", "fischerandom", "-openings", "file=chess960.epd"],
    ) {
        assert_eq!(tags["Variant"], "Chess960", "{tags:?}");
    }
    // Pondering: minimax ponders (greedy declares no Ponder: a warning says so).
    let mut args = engines.to_vec();
    args.extend_from_slice(&["-each", "ponder"]);
    let (_, err) = ok(&compat(&s, &args));
    s.assert_no_engines_left();
    assert!(
        err.contains("engine gr has no UCI option Ponder: it plays without pondering"),
        "{err}"
    );
    let dirs: Vec<_> = std::fs::read_dir(s.path("results"))
        .unwrap()
        .flatten()
        .collect();
    let events = std::fs::read_to_string(dirs[0].path().join("events.jsonl")).unwrap();
    assert!(
        events.contains("\"ponder\""),
        "minimax pondered: {}",
        &events[..events.len().min(2000)]
    );
    // Engines that name different books, and a depth without a book, are refused.
    for (bad, says) in [
        (
            &[
                "-engine",
                "cmd=./mm",
                "book=book.bin",
                "-engine",
                "cmd=./gr",
                "-each",
                "tc=1+0",
            ][..],
            "engines differ in book=",
        ),
        (
            &[
                "-engine",
                "cmd=./mm",
                "-engine",
                "cmd=./gr",
                "-each",
                "tc=1+0",
                "bookdepth=2",
            ][..],
            "bookdepth= needs book=FILE",
        ),
    ] {
        let out = compat(&s, bad);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    }
}

/// Errors: an unknown option is a bad command line (exit 2, one line); an engine without
/// `cmd=` is an error (exit 1, one line); forms the arena's clock lacks say so (exit 2).
#[test]
fn bad_command_lines_are_one_line_errors() {
    let s = Scratch::new("compat-errors");
    engine_script(&s, "gr", "greedy");
    let e = [
        "-engine", "cmd=./gr", "name=a", "-engine", "cmd=./gr", "name=b", "-each", "tc=1+0",
    ];
    let with = |more: &[&str]| {
        let mut args = e.to_vec();
        args.extend_from_slice(more);
        compat(&s, &args)
    };
    assert_usage_error(&with(&["-bogus", "1"]), "unknown option -bogus");
    assert_usage_error(&with(&["-concurrency"]), "-concurrency: expects a value");
    assert_one_line_error(
        &with(&["-each", "st=0.1"]),
        "tc= and st= cannot go together",
    );
    assert_usage_error(&with(&["-each", "proto=xboard"]), "only uci");
    assert_one_line_error(
        &compat(
            &s,
            &[
                "-engine", "name=a", "tc=1+0", "-engine", "cmd=./gr", "tc=1+0",
            ],
        ),
        "engine a: no cmd=",
    );
    assert_one_line_error(
        &compat(
            &s,
            &[
                "-engine",
                "cmd=./nope",
                "tc=1+0",
                "-engine",
                "cmd=./gr",
                "tc=1+0",
            ],
        ),
        "not found",
    );
    assert!(!s.path("results").exists(), "nothing written");
    s.assert_no_engines_left();
}

/// A count given a number too large for it says so and gives the largest it takes (it said
/// "is not a count"), as the native `--games` does.
#[test]
fn a_count_too_large_says_so_and_gives_the_largest() {
    let s = Scratch::new("compat-too-large");
    engine_script(&s, "gr", "greedy");
    let e = [
        "-engine", "cmd=./gr", "name=a", "-engine", "cmd=./gr", "name=b", "-each", "tc=1+0",
    ];
    let huge = "99999999999999999999";
    for (option, largest) in [
        ("-rounds", "1000000"),
        ("-games", "1000000"),
        ("-ratinginterval", "4294967295"),
    ] {
        let mut args = e.to_vec();
        args.extend_from_slice(&[option, huge]);
        assert_usage_error(
            &compat(&s, &args),
            &format!("{option} {huge}: {huge} is too large: at most {largest}"),
        );
    }
    let mut args = e.to_vec();
    args.extend_from_slice(&["-rounds", "1000001"]);
    assert_usage_error(&compat(&s, &args), "1000001 is too large: at most 1000000");
    // Not numbers at all are still not counts.
    for bad in ["0", "-3", "ten", "2.5"] {
        let mut args = e.to_vec();
        args.extend_from_slice(&["-rounds", bad]);
        assert_usage_error(&compat(&s, &args), "is not a count (1 or more)");
    }
    let native = s.run(&["gauntlet", "a", "--vs", "b", "--games", huge]);
    assert_usage_error(
        &native,
        &format!("{huge} is out of range: give a number from 1 to 1000000"),
    );
    assert!(!s.path("results").exists(), "nothing written");
}

/// `-version` (and `--version` under the name `fastchess`) prints what OpenBench's client
/// reads: the first `N.N.N` is blitz-arena's version. `-help` lists the options.
#[test]
fn version_and_help_as_openbench_reads_them() {
    let s = Scratch::new("compat-version");
    let version = format!("blitz-arena {}", env!("CARGO_PKG_VERSION"));
    for out in [
        compat(&s, &["-version"]),
        as_named(&s, "fastchess", &["--version"]),
        as_named(&s, "fastchess", &["-v"]),
    ] {
        let (text, _) = ok(&out);
        assert!(text.starts_with(&version), "{text}");
        // OpenBench's get_version: re.search(r'\d+\.\d+(\.\d+)?', stdout).group()
        let first = text
            .split(|c: char| !(c.is_ascii_digit() || c == '.'))
            .find(|w| w.matches('.').count() == 2)
            .unwrap();
        assert_eq!(first, env!("CARGO_PKG_VERSION"));
    }
    let (help, _) = ok(&compat(&s, &["-help"]));
    assert!(
        help.contains("-engine") && help.contains("-testEnv"),
        "{help}"
    );
    // What is refused is not listed among the options that map.
    let (maps, refused) = help
        .split_once("Refused, with one line saying what to give instead:")
        .expect(&help);
    for option in ["-log", "-debug"] {
        assert!(!maps.split_whitespace().any(|w| w == option), "{help}");
        assert!(refused.split_whitespace().any(|w| w == option), "{help}");
    }
    // blitz-arena's own --help is unchanged.
    let (native, _) = ok(&compat(&s, &["--help"]));
    assert!(native.contains("round-robin"), "{native}");
}

/// SIGINT stops a compat run as it stops fastchess: the games finished are kept, the engines
/// are gone, `Finished match` is printed, and the exit code is fastchess's 1.
#[test]
fn sigint_stops_a_compat_run_with_exit_1() {
    let s = Scratch::new("compat-sigint");
    engine_script(&s, "gr", "greedy");
    engine_script(&s, "rn", "random");
    let child = s
        .command(&[
            "-engine",
            "cmd=./gr",
            "name=gr",
            "-engine",
            "cmd=./rn",
            "name=rn",
            "-each",
            "tc=1+0",
            "-rounds",
            "200",
            "-concurrency",
            "2",
            "-out",
            "results/run",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        let games = std::fs::read_dir(s.path("results"))
            .ok()
            .and_then(|mut d| d.next())
            .and_then(|e| std::fs::read_to_string(e.ok()?.path().join("games.csv")).ok())
            .map_or(0, |t| t.lines().count().saturating_sub(1));
        if games >= 2 {
            break;
        }
        assert!(start.elapsed().as_secs() < 120, "no games in 2 minutes");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    s.assert_no_engines_left();
    // fastchess's line for Ctrl-C, then the line the managers wait for.
    assert!(
        stdout(&out).contains("\nTournament was interrupted.\nFinished match\n"),
        "{}",
        stdout(&out)
    );
    let rows = results_rows(&s);
    assert!(rows.len() >= 2 && rows.len() < 400);
}

/// A copy of the repository's Makefile in the scratch folder, with a `cargo` first on PATH
/// that "builds" by copying this test's binary to `target/release/blitz-arena` (a real build
/// would wait for the lock this test run holds) and records its arguments and the commit the
/// Makefile passes. Returns `make ARGS`'s output, run as the managers run it.
fn make(s: &Scratch, args: &[&str]) -> Option<Output> {
    let root = env!("CARGO_MANIFEST_DIR");
    std::fs::copy(format!("{root}/Makefile"), s.path("Makefile")).unwrap();
    let fake = s.path("fakebin/cargo");
    std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
    std::fs::write(
        &fake,
        format!(
            "#!/bin/sh\necho \"$* sha=$BLITZ_ARENA_GIT_SHA date=$BLITZ_ARENA_GIT_DATE\" >> cargo.log\n\
             mkdir -p target/release && cp '{BIN}' target/release/blitz-arena\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        s.path("fakebin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("make")
        .args(args)
        .env("PATH", path)
        // cargo's test runner sets CARGO, which the managers' shells do not have.
        .env_remove("CARGO")
        .current_dir(&s.dir)
        .output();
    match out {
        Ok(out) => Some(out),
        Err(_) => {
            eprintln!("SKIPPED: make is not installed");
            None
        }
    }
}

/// OpenBench's client (`build_fastchess_in_dir`, `server_configure_match_runner`): `make -j
/// CXX=g++` in the unpacked repository, `fastchess --version` read for its first `N.N.N`, the
/// binary moved to `fastchess-ob`, which then plays. On Windows the copy is `fastchess.exe`.
#[test]
fn the_makefile_builds_fastchess_as_openbench_runs_it() {
    let s = Scratch::new("compat-make");
    let Some(out) = make(&s, &["-j", "CXX=g++"]) else {
        return;
    };
    ok(&out);
    let log = std::fs::read_to_string(s.path("cargo.log")).unwrap();
    assert!(log.starts_with("build --release --locked"), "{log}");
    let version = Command::new(s.path("fastchess"))
        .arg("--version")
        .output()
        .unwrap();
    let (text, _) = ok(&version);
    // OpenBench's get_version: re.search(r'\d+\.\d+(\.\d+)?', stdout).group()
    let first = text
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .find(|w| w.contains('.'))
        .unwrap();
    assert_eq!(first, env!("CARGO_PKG_VERSION"), "{text}");
    std::fs::rename(s.path("fastchess"), s.path("fastchess-ob")).unwrap();
    // At its next start the client reads the version of the fastchess-ob it kept.
    let kept = Command::new(s.path("fastchess-ob"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(ok(&kept).0, text);
    engine_script(&s, "Engines/gr", "greedy");
    let played = Command::new(s.path("fastchess-ob"))
        .args([
            "-recover",
            "-variant",
            "standard",
            "-testEnv",
            "-concurrency",
            "1",
            "-rounds",
            "1",
            "-games",
            "2",
            "-engine",
            "dir=Engines/",
            "cmd=./gr",
            "proto=uci",
            "tc=2+0.02",
            "name=a",
            "-engine",
            "dir=Engines/",
            "cmd=./gr",
            "proto=uci",
            "tc=2+0.02",
            "name=b",
            "-maxmoves",
            "5",
        ])
        .current_dir(&s.dir)
        .output()
        .unwrap();
    let (text, _) = ok(&played);
    assert!(text.contains("Started game 1 of 2 (a vs b)"), "{text}");
    assert!(text.contains("Finished match"), "{text}");
    assert!(!s.path("results").exists(), "no results folder left");
    // Windows: the binary is blitz-arena.exe, OpenBench looks for fastchess.exe.
    let plan = make(&s, &["-n", "-j", "CXX=g++", "OS=Windows_NT"]).unwrap();
    assert!(
        stdout(&plan).contains("cp target/release/blitz-arena.exe fastchess.exe"),
        "{}",
        stdout(&plan)
    );
}

/// fishtest's worker (`setup_fastchess`): `make tests` with its GIT_SHA and GIT_DATE, then
/// `fastchess-tests` (here: two games of the built-in engines through the fastchess command
/// line), `make clean`, `make`; the commit is in the version line's build.
#[test]
fn make_tests_builds_a_check_that_plays() {
    let s = Scratch::new("compat-make-tests");
    let fishtest = ["CXX=g++", "GIT_SHA=58072f23", "GIT_DATE=01010101"];
    let Some(out) = make(&s, &[&["-j2", "tests"][..], &fishtest].concat()) else {
        return;
    };
    ok(&out);
    let log = std::fs::read_to_string(s.path("cargo.log")).unwrap();
    assert!(log.contains("sha=58072f23 date=01010101"), "{log}");
    let check = Command::new(s.path("fastchess-tests"))
        .current_dir(&s.dir)
        .output()
        .unwrap();
    let (text, _) = ok(&check);
    assert!(text.starts_with("fastchess-tests: two games"), "{text}");
    assert!(text.contains("Games: 2, Wins: "), "{text}");
    assert!(text.contains("Finished match"), "{text}");
    ok(&make(&s, &["clean"]).unwrap());
    assert!(!s.path("fastchess-tests").exists());
    ok(&make(&s, &[&["-j2"][..], &fishtest].concat()).unwrap());
    assert!(s.path("fastchess").exists());
    s.assert_no_engines_left();
}

/// docs/fastchess.md's table names every option the compat front end knows.
#[test]
fn docs_list_every_compat_option() {
    let section = include_str!("../docs/fastchess.md");
    let mut names: Vec<String> = blitz_arena::compat::OPTIONS
        .iter()
        .map(|(n, _)| format!("`-{n}"))
        .collect();
    names.extend(
        blitz_arena::compat::IGNORED
            .iter()
            .map(|(n, _)| format!("`-{n}")),
    );
    names.extend(
        blitz_arena::compat::WARN_KEYS
            .iter()
            .map(|(n, _)| format!("{n}=")),
    );
    for name in names {
        assert!(
            section.contains(&name),
            "docs/fastchess.md's table lacks {name}"
        );
    }
}

/// `-config file=`: the `config.json` fastchess (commit 74deac23) wrote after `fastchess
/// -engine cmd=./gr name=gr -engine cmd=./rn name=rn args="x y" option.Hash=16 -each
/// tc=1+0.01 -rounds 2 -maxmoves 20 -pgnout file=out.pgn -sprt elo0=0 elo1=5 alpha=0.05
/// beta=0.05 -draw movenumber=30 movecount=8 score=8` (tests/data/fastchess-config/config.json). It
/// holds the 4 games played, so it is refused (the arena cannot take up fastchess's counts);
/// with `stats=false` it plays that match anew, and an option after it changes it.
#[test]
fn a_fastchess_config_file_plays_its_match() {
    let s = Scratch::new("compat-config");
    engine_script(&s, "gr", "greedy");
    engine_script(&s, "rn", "random");
    let recorded = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/fastchess-config/config.json"
    );
    std::fs::copy(recorded, s.path("config.json")).unwrap();
    assert_usage_error(
        &compat(&s, &["-config", "file=config.json"]),
        "it holds 4 games fastchess played (a match to resume); blitz-arena cannot take up fastchess's counts: add stats=false",
    );
    let (out, err) = ok(&compat(
        &s,
        &[
            "-config",
            "file=config.json",
            "stats=false",
            "-out",
            "results/run",
        ],
    ));
    s.assert_no_engines_left();
    assert!(out.contains("Started game 4 of 4 (rn vs gr)"), "{out}");
    // The file's SPRT, UCI option (the built-in engine has no Hash), engines and limits.
    assert!(out.contains("LLR: "), "{out}");
    assert!(
        out.contains("Warning; rn doesn't have option Hash"),
        "{out}"
    );
    let rows = results_rows(&s);
    assert_eq!(rows.len(), 4);
    assert!(rows
        .iter()
        .all(|r| r["plies"].parse::<u32>().unwrap() <= 40));
    assert!(err.contains("tc 1s+0.01s"), "{err}");
    assert_eq!(pgn_games(&s.path("out.pgn")).len(), 4);
    // An option after -config changes the file's match.
    let (out, _) = ok(&compat(
        &s,
        &["-config", "file=config.json", "stats=false", "-rounds", "1"],
    ));
    assert!(out.contains("Started game 2 of 2"), "{out}");
    assert!(!out.contains("of 4"), "{out}");
    assert_usage_error(
        &compat(&s, &["-config", "file=nope.json"]),
        "-config file=nope.json: cannot read",
    );
}

/// `-quick cmd=A cmd=B book=FILE` is fastchess's: A against B at 10+0.1 from the book, draws
/// adjudicated, cutechess's lines (here one round, as an option after it may ask).
#[test]
fn quick_plays_as_fastchess_quick() {
    let s = Scratch::new("compat-quick");
    engine_script(&s, "gr", "greedy");
    engine_script(&s, "rn", "random");
    s.write(
        "book.epd",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n",
    );
    let (out, err) = ok(&compat(
        &s,
        &[
            "-quick",
            "cmd=./gr",
            "cmd=./rn",
            "book=book.epd",
            "-rounds",
            "1",
            "-maxmoves",
            "10",
            "-out",
            "results/run",
        ],
    ));
    s.assert_no_engines_left();
    assert!(err.contains("tc 10s+0.1s"), "{err}");
    assert!(out.contains("Started game 2 of 2 (./rn vs ./gr)"), "{out}");
    assert!(out.contains("Score of ./gr vs ./rn: "), "{out}");
    let rows = results_rows(&s);
    assert_eq!(rows.len(), 2);
    for (bad, says) in [
        (
            &["-quick", "cmd=./gr", "book=book.epd"][..],
            "exactly two cmd=",
        ),
        (&["-quick", "cmd=./gr", "cmd=./rn"][..], "book=FILE"),
        (
            &["-quick", "cmd=./gr", "cmd=./rn", "book=book.bin"][..],
            "name a .pgn or .epd file",
        ),
    ] {
        assert_usage_error(&compat(&s, bad), says);
    }
}

/// `--compliance CMD [ARGS]` checks the engine's UCI handshake as `blitz-arena check` does:
/// exit 0 with its id, exit 1 when it fails (fastchess's codes), exit 2 without an engine.
#[test]
fn compliance_checks_an_engine() {
    let s = Scratch::new("compat-compliance");
    engine_script(&s, "gr", "greedy");
    let (out, _) = ok(&s.run(&["--compliance", "./gr"]));
    assert!(out.starts_with("gr: ok: "), "{out}");
    let (out, _) = ok(&s.run(&["--compliance", BIN, "engine random"]));
    assert!(out.contains(": ok: "), "{out}");
    let failed = s.run(&["--compliance", "./nope"]);
    assert_eq!(failed.status.code(), Some(1), "{}", stderr(&failed));
    assert!(
        stdout(&failed).contains("nope: FAILED"),
        "{}",
        stdout(&failed)
    );
    assert_usage_error(&s.run(&["--compliance"]), "--compliance CMD [ARGS]");
    s.assert_no_engines_left();
}

/// Options the arena does not carry out are refused (exit 2, one line) with what to give
/// instead: `-log`, `-report` with anything but `penta=`, `-sprt model=logistic|bayesian`.
#[test]
fn refused_options_say_what_to_give_instead() {
    let s = Scratch::new("compat-refused");
    engine_script(&s, "gr", "greedy");
    let e = [
        "-engine", "cmd=./gr", "name=a", "-engine", "cmd=./gr", "name=b", "-each", "tc=1+0",
    ];
    let with = |more: &[&str]| {
        let mut args = e.to_vec();
        args.extend_from_slice(more);
        compat(&s, &args)
    };
    let sprt = ["-sprt", "elo0=0", "elo1=5", "alpha=0.05", "beta=0.05"];
    for (more, says) in [
        (&["-log", "file=log.txt", "level=trace"][..], "-out DIR"),
        (
            &["-report", "pairs=no"][..],
            "expected penta=true or penta=false",
        ),
        (
            &[sprt.as_slice(), &["model=logistic"]].concat()[..],
            "give model=normalized",
        ),
        (
            &[sprt.as_slice(), &["model=bayesian"]].concat()[..],
            "give model=normalized",
        ),
    ] {
        assert_usage_error(&with(more), says);
    }
    assert!(!s.path("results").exists(), "nothing written");
    assert!(!s.path("log.txt").exists());
}

/// A compat run's results folder is made in the temporary folder and removed at its end; a run
/// killed with SIGKILL cannot remove it, so the next compat run does. Only that: a live run's
/// folder, a symbolic link named as a dead run's folder (and what it points to) and another
/// name are left alone.
#[test]
fn a_killed_compat_runs_folder_is_removed_by_the_next_run() {
    use std::io::BufRead;
    let s = Scratch::new("compat-sweep");
    let tmp = s.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let engine = format!("cmd={BIN}");
    // A run that cannot end by itself: its first engine never answers, on a 1000 s clock.
    let mut child = s
        .command(&[
            "-engine",
            &engine,
            "args=engine faulty --hang-after 0",
            "name=hang",
            "-engine",
            &engine,
            "args=engine random",
            "name=rnd",
            "-each",
            "tc=1000+0",
            "-rounds",
            "1",
        ])
        .env("TMPDIR", &tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Its folder is made before its first game starts.
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    while !lines
        .next()
        .expect("the run prints until its first game starts")
        .unwrap()
        .starts_with("Started game 1 ")
    {}
    let pid = child.id();
    child.kill().unwrap();
    child.wait().unwrap();
    let names = || {
        let mut names: Vec<String> = std::fs::read_dir(&tmp)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    };
    let left = names();
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(
        left[0].starts_with(&format!("blitz-arena-compat-{pid}-")),
        "{left:?}"
    );
    let keep = [
        format!("blitz-arena-compat-{}-1", std::process::id()),
        format!("blitz-arena-compat-{pid}-2"),
        "blitz-arena-compat-x-1".to_string(),
    ];
    std::fs::create_dir(tmp.join(&keep[0])).unwrap();
    std::fs::create_dir(s.path("target")).unwrap();
    s.write("target/file", "kept");
    std::os::unix::fs::symlink(s.path("target"), tmp.join(&keep[1])).unwrap();
    std::fs::create_dir(tmp.join(&keep[2])).unwrap();
    let out = s
        .command(&[
            "-engine",
            &engine,
            "args=engine random",
            "name=a",
            "-engine",
            &engine,
            "args=engine random",
            "name=b",
            "-each",
            "tc=10+0.1",
            "-games",
            "1",
            "-rounds",
            "1",
        ])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    let (_, err) = ok(&out);
    let removed = format!(
        "blitz-arena: {} removed: left by a compat run that is gone",
        tmp.join(&left[0]).display()
    );
    let mut keep = keep.to_vec();
    keep.sort();
    assert_eq!(names(), keep, "{err}");
    assert!(err.lines().any(|l| l == removed), "{err}");
    assert_eq!(
        std::fs::read_to_string(s.path("target/file")).unwrap(),
        "kept"
    );
}
