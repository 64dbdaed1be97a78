//! `--output-format fastchess|cutechess` end to end: the real binary's stdout, fed to what
//! OpenBench's client and fishtest's worker apply to fastchess's output, must give them the
//! games, pentanomial counts, time losses and crashes the arena recorded in games.csv.
//!
//! The managers' parsers (fishtest's patterns as data, OpenBench's own `update_results` read
//! from a copy of its repository) are in common/managers.rs.

mod common;
#[path = "common/managers.rs"]
mod managers;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use common::*;
use managers::*;

const BUILTINS: &str = r#"
[engines.minimax]
builtin = "minimax"
[engines.greedy]
builtin = "greedy"
# Seeded, so that every run plays the same games and the same injections land.
options = { Seed = 1 }
[engines.crashy]
builtin = "faulty"
args = ["--crash-after", "4", "--seed", "2"]
"#;

/// Every line is one the tool prints; one Started and one Finished line per game, each
/// Finished line naming the game, players and result games.csv has.
fn assert_tool_lines(stdout: &str, rows: &[HashMap<String, String>]) {
    const SHAPES: [&str; 17] = [
        "Started game ",
        "Finished game ",
        "--------------------------------------------------",
        "Results of ",
        "Elo: ",
        "LOS: ",
        "Games: ",
        "Ptnml(0-2): [",
        "LLR: ",
        "SPRT (",
        "Finished match",
        "Total Time: ",
        "Score of ",
        "Player: ",
        "  Timeouts: ",
        "  Crashed: ",
        "Warning; Engine ",
    ];
    for line in stdout.lines() {
        assert!(
            line.is_empty() || SHAPES.iter().any(|s| line.starts_with(s)),
            "not a fastchess line: {line:?}\n{stdout}"
        );
    }
    let started = stdout
        .lines()
        .filter(|l| l.starts_with("Started game "))
        .count();
    assert_eq!(started, rows.len(), "{stdout}");
    for row in rows {
        let prefix = format!(
            "Finished game {} ({} vs {}): {} {{",
            row["game"], row["white"], row["black"], row["result"]
        );
        assert_eq!(
            stdout.lines().filter(|l| l.starts_with(&prefix)).count(),
            1,
            "{prefix}\n{stdout}"
        );
        let start = format!(
            "Started game {} of {} ({} vs {})",
            row["game"],
            rows.len(),
            row["white"],
            row["black"]
        );
        assert!(stdout.lines().any(|l| l == start), "{start}\n{stdout}");
    }
}

fn run(s: &Scratch, args: &[&str]) -> (String, Vec<HashMap<String, String>>) {
    let out = s.run_ok(args);
    let rows = csv_rows(&s.path("r/games.csv"));
    (stdout(&out), rows)
}

/// Time losses, in fastchess format: fishtest's and OpenBench's parsers count the games,
/// the pentanomial pairs and the time losses games.csv records.
#[test]
fn fishtest_and_openbench_read_the_games_from_fastchess_lines() {
    let s = Scratch::new("compat-fastchess");
    s.write("engines.toml", BUILTINS);
    let (stdout, rows) = run(
        &s,
        &[
            "gauntlet",
            "minimax",
            "--vs",
            "greedy",
            "--games",
            "8",
            "--tc",
            "10s+0.1s",
            "--depth",
            "2",
            "--inject-flag",
            "0.5",
            "--seed",
            "7",
            "--output-format",
            "fastchess",
            "--rating-interval",
            "1",
            "--out",
            "r",
        ],
    );
    assert_tool_lines(&stdout, &rows);
    let parsed = parse(&s, &stdout);
    let fish = parsed.fishtest;
    let penta = pentanomial(&rows, "minimax");
    let flags = rows
        .iter()
        .filter(|r| r["termination"].contains("flag") && r["result"] != "1/2-1/2")
        .count() as u32;
    assert!(flags > 0, "the injection made no time loss: {stdout}");
    assert_eq!(fish.time_losses, flags, "{stdout}");
    assert_eq!(fish.crashes, 0);
    // A block after every pair (rating interval 1); each passes fishtest's own assertion
    // (2 * pairs == games), and the last has every game.
    assert_eq!(fish.blocks.len(), 4, "{stdout}");
    for block in &fish.blocks {
        let pairs: f64 = block[5..].iter().sum();
        assert_eq!(2.0 * pairs, block[0], "{block:?}");
        assert_eq!(block[1] + block[2] + block[3], block[0], "{block:?}");
    }
    let last = fish.blocks.last().unwrap();
    let score: f64 = rows.iter().map(|r| points(r, "minimax")).sum();
    assert_eq!(last[0], 8.0);
    assert_eq!(last[4], score);
    let last_penta: Vec<u32> = last[5..].iter().map(|x| *x as u32).collect();
    assert_eq!(last_penta, penta);
    // `Finished match` comes after every game.
    let lines: Vec<&str> = stdout.lines().collect();
    let end = fish.finished_match.expect("no `Finished match` line");
    assert!(
        lines[..end]
            .iter()
            .filter(|l| l.starts_with("Finished game"))
            .count()
            == 8
    );
    if let Some(ob) = parsed.openbench {
        assert_eq!(ob.pentanomial, penta, "OpenBench's pentanomial: {stdout}");
        assert_eq!(ob.trinomial.iter().sum::<u32>(), 8);
        assert_eq!(ob.timelosses, flags);
        assert_eq!(ob.crashes, 0);
    }
}

/// An engine that crashes: the lines say `disconnects`, which both managers count as a crash.
#[test]
fn crashes_reach_the_managers_as_disconnects() {
    let s = Scratch::new("compat-crash");
    s.write("engines.toml", BUILTINS);
    let (stdout, rows) = run(
        &s,
        &[
            "gauntlet",
            "minimax",
            "--vs",
            "crashy",
            "--games",
            "4",
            "--tc",
            "10s+0.1s",
            "--depth",
            "1",
            "--output-format",
            "fastchess",
            "--out",
            "r",
        ],
    );
    assert_tool_lines(&stdout, &rows);
    let crashes = rows
        .iter()
        .filter(|r| r["termination"] == "engine-crash")
        .count() as u32;
    assert_eq!(crashes, 4, "{stdout}");
    assert!(stdout.contains("disconnects}"), "{stdout}");
    let parsed = parse(&s, &stdout);
    assert_eq!(parsed.fishtest.crashes, crashes);
    // The default rating interval (10 pairs) is not reached: one block, at the end.
    assert_eq!(parsed.fishtest.blocks.len(), 1, "{stdout}");
    if let Some(ob) = parsed.openbench {
        assert_eq!(ob.crashes, crashes);
        assert_eq!(ob.pentanomial, [0, 0, 0, 0, 2]);
    }
}

/// fastchess's cutechess format: a `Score of` line after every game, the Elo line at the end
/// (4 games: fastchess's rating interval of 10 games is not reached).
#[test]
fn cutechess_format_prints_its_score_lines() {
    let s = Scratch::new("compat-cutechess");
    s.write("engines.toml", BUILTINS);
    let (stdout, rows) = run(
        &s,
        &[
            "gauntlet",
            "minimax",
            "--vs",
            "greedy",
            "--games",
            "4",
            "--tc",
            "10s+0.1s",
            "--depth",
            "1",
            "--output-format",
            "cutechess",
            "--out",
            "r",
        ],
    );
    let scores: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("Score of minimax vs greedy: "))
        .collect();
    assert_eq!(scores.len(), 4, "{stdout}");
    let (w, l, d) = rows
        .iter()
        .fold((0, 0, 0), |(w, l, d), r| match points(r, "minimax") {
            p if p > 0.75 => (w + 1, l, d),
            p if p < 0.25 => (w, l + 1, d),
            _ => (w, l, d + 1),
        });
    let score = (w as f64 + d as f64 / 2.0) / 4.0;
    assert_eq!(
        *scores.last().unwrap(),
        format!("Score of minimax vs greedy: {w} - {l} - {d}  [{score:.3}] 4")
    );
    let elo = stdout
        .lines()
        .filter(|l| l.starts_with("Elo difference: "))
        .count();
    assert_eq!(elo, 1, "{stdout}");
    // fastchess's closing in this format too: `Finished match`, the time, an empty line.
    let closing: Vec<&str> = stdout.lines().rev().take(3).collect();
    assert_eq!(closing[0], "", "{stdout}");
    assert!(closing[1].starts_with("Total Time: "), "{stdout}");
    assert_eq!(closing[2], "Finished match", "{stdout}");
}

/// Stockfish against Glaurung at a fixed node count (one hour on the clock), in fastchess's
/// format: fishtest reads the final block.
#[test]
fn stockfish_at_fixed_nodes_in_fastchess_format() {
    if !debian_engines(&["stockfish", "glaurung"]) {
        return;
    }
    let s = Scratch::new("compat-sf");
    s.write(
        "engines.toml",
        "[engines.stockfish]\ncmd = \"/usr/games/stockfish\"\noptions = { Hash = 16, Threads = 1 }\n\
         [engines.glaurung]\ncmd = \"/usr/games/glaurung\"\n",
    );
    let (stdout, rows) = run(
        &s,
        &[
            "gauntlet",
            "stockfish",
            "--vs",
            "glaurung",
            "--games",
            "2",
            "--tc",
            "60+0",
            "--nodes",
            "3000",
            "--output-format",
            "fastchess",
            "--out",
            "r",
        ],
    );
    assert_tool_lines(&stdout, &rows);
    // fastchess names the time control in seconds and an option an engine was not given NULL.
    assert!(
        stdout.contains("Results of stockfish vs glaurung (3600, 1t - NULL, 16MB - NULL):"),
        "{stdout}"
    );
    let parsed = parse(&s, &stdout);
    let last = parsed.fishtest.blocks.last().expect("no results block");
    assert_eq!(last[0], 2.0);
    let penta: Vec<u32> = last[5..].iter().map(|x| *x as u32).collect();
    assert_eq!(penta, pentanomial(&rows, "stockfish"));
}

/// `--pgnout` and `--epdout`: python-chess reads every game of the fastchess-format PGN to its
/// end, with fastchess's Termination names and a `{score/depth time, n=.., sd=0, nps=..}` comment
/// on every move (the built-in engines report no seldepth); each EPD line is the final position
/// of its game.
#[test]
fn pgnout_and_epdout_are_read_back_by_python_chess() {
    if !python_chess() {
        eprintln!("SKIPPED: python-chess is not installed");
        return;
    }
    let s = Scratch::new("compat-pgnout");
    s.write("engines.toml", BUILTINS);
    let (_, rows) = run(
        &s,
        &[
            "gauntlet",
            "minimax",
            "--vs",
            "greedy",
            "--games",
            "4",
            "--tc",
            "10s+0.1s",
            "--depth",
            "2",
            "--inject-flag",
            "0.5",
            "--seed",
            "3",
            "--pgnout",
            "fc.pgn",
            "--pgnout-extras",
            "nodes,nps,seldepth",
            "--epdout",
            "fc.epd",
            "--out",
            "r",
        ],
    );
    let check = r#"
import chess.pgn, json, re, sys
games = []
with open(sys.argv[1]) as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        assert not g.errors, g.errors
        comments = [n.comment for n in g.mainline()]
        assert all(re.fullmatch(r"([+-]?(\d+\.\d\d|M\d+))?/\d+ \d+\.\d{3}s, n=\d+, sd=0, nps=\d+(, .+)?", c) for c in comments), comments
        b = g.end().board()
        games.append([g.headers["Round"], g.headers["Result"], g.headers["Termination"], len(comments), b.epd(hmvc=b.halfmove_clock, fmvn=b.fullmove_number)])
print(json.dumps(games))
"#;
    let games: Vec<(String, String, String, usize, String)> =
        serde_json::from_str(&python(check, [s.path("fc.pgn")])).unwrap();
    assert_eq!(games.len(), rows.len());
    // pgn-extract (Debian's package, where installed) checks every game too.
    let pgn_extract = Path::new("/usr/games/pgn-extract");
    if pgn_extract.exists() {
        let out = Command::new(pgn_extract)
            .arg("-r")
            .arg(s.path("fc.pgn"))
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stderr).into_owned();
        let n = rows.len();
        assert!(
            said.contains(&format!("{n} games matched out of {n}.")),
            "{said}"
        );
        assert!(!said.contains("Line "), "pgn-extract found errors: {said}");
    } else {
        eprintln!("SKIPPED the pgn-extract check: apt-get install pgn-extract");
    }
    let epd = std::fs::read_to_string(s.path("fc.epd")).unwrap();
    let epd: Vec<&str> = epd.lines().collect();
    assert_eq!(epd.len(), rows.len());
    for (k, (round, result, termination, _, final_epd)) in games.iter().enumerate() {
        // Both files have the games in the order they ended; the PGN's round is the pair's.
        let row = &rows[k];
        assert_eq!(round, &row["pair"]);
        assert_eq!(result, &row["result"]);
        let expected = match row["termination"].as_str() {
            "flag" | "both-flags" => "time forfeit",
            "checkmate"
            | "stalemate"
            | "threefold"
            | "fivefold"
            | "fifty-moves"
            | "seventy-five-moves"
            | "insufficient-material"
            | "dead-position" => "normal",
            "max-moves" | "adjudication" | "tablebase" => "adjudication",
            other => panic!("unexpected termination {other}"),
        };
        assert_eq!(termination, expected);
        // python-chess writes `hmvc 0; fmvn 8;` as fastchess does.
        assert_eq!(epd[k], final_epd, "game {round}");
    }
}

/// `--pgnout-extras seldepth`: each move's comment carries fastchess's `sd=`, the `seldepth`
/// of the engine's last scored `info` line (faulty's third flood line: depth 3, seldepth 7,
/// cp -28), after `n=` and before `nps=` whatever the order asked; an engine that reports none
/// (greedy prints no `info`) gets `sd=0`, as fastchess writes it. events.jsonl records the
/// seldepth of faulty's moves and leaves the key out of greedy's.
#[test]
fn pgnout_writes_the_selective_depth() {
    if !python_chess() {
        eprintln!("SKIPPED: python-chess is not installed");
        return;
    }
    let s = Scratch::new("compat-seldepth");
    s.write(
        "engines.toml",
        r#"
[engines.flooder]
builtin = "faulty"
args = ["--flood-info", "3", "--seed", "5"]
[engines.greedy]
builtin = "greedy"
options = { Seed = 1 }
"#,
    );
    let (_, rows) = run(
        &s,
        &[
            "gauntlet",
            "flooder",
            "--vs",
            "greedy",
            "--games",
            "2",
            "--tc",
            "10s+0.1s",
            "--pgnout",
            "fc.pgn",
            "--pgnout-extras",
            "nps,seldepth,nodes",
            "--out",
            "r",
        ],
    );
    assert_eq!(rows.len(), 2);
    let check = r#"
import chess.pgn, json, re, sys
counts = [0, 0]
with open(sys.argv[1]) as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        assert not g.errors, g.errors
        for n in g.mainline():
            mover = g.headers["White"] if n.parent.board().turn else g.headers["Black"]
            if mover == "flooder":
                counts[0] += 1
                shape = r"-0\.28/3 \d+\.\d{3}s, n=2000, sd=7, nps=1000000(, .+)?"
            else:
                counts[1] += 1
                shape = r"/0 \d+\.\d{3}s, n=0, sd=0, nps=0(, .+)?"
            assert re.fullmatch(shape, n.comment), (mover, n.comment)
print(json.dumps(counts))
"#;
    let counts: Vec<usize> = serde_json::from_str(&python(check, [s.path("fc.pgn")])).unwrap();
    assert!(counts[0] > 0 && counts[1] > 0, "{counts:?}");
    // events.jsonl: faulty's moves record seldepth 7; greedy's record no info at all.
    let events = std::fs::read_to_string(s.path("r/events.jsonl")).unwrap();
    let mut flooder_moves = 0;
    for line in events.lines() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        for e in game["events"].as_array().unwrap() {
            if e["event"] != "move" {
                continue;
            }
            let white = e["side"] == "white";
            let mover = if white {
                &game["white"]
            } else {
                &game["black"]
            };
            if mover == "flooder" {
                flooder_moves += 1;
                assert_eq!(e["info"]["seldepth"], 7, "{e}");
                assert_eq!(e["info"]["depth"], 3, "{e}");
            } else {
                assert!(e["info"].get("seldepth").is_none(), "{e}");
            }
        }
    }
    assert_eq!(flooder_moves, counts[0]);
}

/// A UCI engine that prints no `info` line: it answers `go` with its first legal move after
/// 0.2 to 0.9 ms, a different wait each move, so its think times fall all over the
/// millisecond.
const SCORELESS_PY: &str = r#"
import sys, time, chess
board, n = chess.Board(), 0
for line in sys.stdin:
    t = line.split()
    if not t:
        continue
    if t[0] == "uci":
        print("id name scoreless\nuciok")
    elif t[0] == "isready":
        print("readyok")
    elif t[0] == "position":
        board = chess.Board() if t[1] == "startpos" else chess.Board(" ".join(t[2:8]))
        for m in t[t.index("moves") + 1:] if "moves" in t else []:
            board.push_uci(m)
    elif t[0] == "go":
        n += 1
        time.sleep((2 + n % 8) / 10000)
        print("bestmove " + min(m.uci() for m in board.legal_moves))
    elif t[0] == "quit":
        break
    sys.stdout.flush()
"#;

/// Moves whose engine sent no score (a Python engine and `random` print no `info` at all)
/// get fastchess's comment for them through its own command line: an empty score, depth 0,
/// and the think time in whole milliseconds cut down (fastchess counts a move's time as a
/// whole number of milliseconds), so a move of 1.7 ms reads `/0 0.001s`, not `0.002s`. Each
/// comment is checked against the move's `think_us` in events.jsonl.
#[test]
fn pgnout_comments_without_a_score_are_fastchess_s() {
    if !python_chess() {
        eprintln!("SKIPPED: python-chess is not installed");
        return;
    }
    let s = Scratch::new("compat-noscore");
    let engine = s.write("scoreless.py", SCORELESS_PY);
    let out = s.run(&[
        "-engine",
        "cmd=python3",
        &format!("args={}", engine.display()),
        "name=py",
        "-engine",
        &format!("cmd={BIN}"),
        "args=engine random",
        "option.Seed=3",
        "name=rnd",
        "-each",
        "tc=10+0.1",
        "-rounds",
        "1",
        "-repeat",
        "-maxmoves",
        "30",
        "-pgnout",
        "file=fc.pgn",
        "-out",
        "r",
    ]);
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    let pgn = std::fs::read_to_string(s.path("fc.pgn")).unwrap();
    let mut written: Vec<Vec<String>> = pgn
        .split("[Event ")
        .skip(1)
        .map(|game| {
            game.split('{')
                .skip(1)
                .map(|c| c.split('}').next().unwrap().to_string())
                .collect()
        })
        .collect();
    let events = std::fs::read_to_string(s.path("r/events.jsonl")).unwrap();
    let (mut expected, mut rounding_differs) = (Vec::new(), false);
    for line in events.lines() {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        let mut comments = Vec::new();
        for e in game["events"].as_array().unwrap() {
            if e["event"] != "move" {
                continue;
            }
            // No score, depth or nodes: only the CPU the arena measured, if anything.
            let info = e["info"].as_object().map(|i| i.keys().collect::<Vec<_>>());
            assert!(info.is_none_or(|keys| keys == ["cpu"]), "{e}");
            let us = e["think_us"].as_i64().unwrap();
            rounding_differs |= us % 1000 >= 500;
            comments.push(format!("/0 {}.{:03}s", us / 1_000_000, us / 1000 % 1000));
        }
        expected.push(comments);
    }
    // The last move's comment also gives the ending: `/0 0.000s, Draw by adjudication`.
    for game in &mut written {
        let last = game.last_mut().unwrap();
        let (comment, ending) = last.split_once(", ").unwrap_or_else(|| panic!("{last}"));
        assert!(!ending.is_empty());
        *last = comment.to_string();
    }
    written.sort();
    expected.sort();
    assert_eq!(written.len(), 2);
    assert_eq!(written, expected);
    // Some move's time was past a half millisecond, where rounding would have written more.
    assert!(rounding_differs, "{expected:?}");
}

/// Every line fastchess prints on stdout in its own output format, as the format string of
/// its source (Disservin/fastchess at commit 74deac23aadc6718fa0f8e24ac95d16392d79444:
/// `output_fastchess.hpp`, `match.cpp`, `uci_engine.cpp`, `tournament.cpp`, `main.cpp`,
/// `file_writer.hpp`, `roundrobin.cpp`), and whether blitz-arena prints it: a compat run's
/// stdout may hold only lines of this table marked printed.
const FASTCHESS_LINES: &[(&str, bool)] = &[
    ("Started game {} of {} ({} vs {})", true),
    ("Finished game {} ({} vs {}): {} {{{}}}", true),
    ("File {} has CRC32: {:#x}", true),
    ("Warning; Illegal move {} played by {}", true),
    (
        "Warning; Move does not match uci move format, lowercase and 4/5 chars. Move {} played by {}",
        true,
    ),
    ("Warning; Engine {} is not responsive", true),
    ("Warning; {} doesn't have option {}", true),
    ("Warning; Invalid value for option {}; {}", true),
    ("--------------------------------------------------", true),
    ("Results of {} vs {} ({}, {}, {}{}):", true),
    ("Elo: {}, nElo: {}", true),
    ("LOS: {}, DrawRatio: {:.2f} %{}", true),
    (
        "Games: {}, Wins: {}, Losses: {}, Draws: {}, Points: {:.1f} ({:.2f} %)",
        true,
    ),
    ("Ptnml(0-2): {}, {}", true),
    ("LLR: {:.2f} ({:.1f}%) {} {}", true),
    ("SPRT ({}) completed - {} was accepted", true),
    ("{:<4} {:<{}} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>20}", true),
    ("", true),
    ("Player: {}", true),
    ("  Timeouts: {}", true),
    ("  Crashed: {}", true),
    ("Tournament was interrupted.", true),
    ("Finished match", true),
    ("Total Time: {:02}:{:02}:{:02} (hours:minutes:seconds)", true),
    // No tournament file is saved to resume from (`-config file=` is not read).
    (
        "Tournament was interrupted. To resume the tournament, run: {} -config file={}",
        false,
    ),
    // The principal variations are checked on every move (src/pvcheck.rs), each warning
    // followed by the info line, the start position and the moves; the mate's length only
    // with `-check-mate-pvs`.
    ("Warning; Illegal PV move - move {} from {}", true),
    ("Warning; Incomplete mating PV - from {}", true),
    ("Warning; Too long mating PV - from {}", true),
    ("Warning; Mating PV does not end with checkmate - from {}", true),
    ("Warning; PV continues after checkmate - move {} from {}", true),
    ("Warning; PV continues after stalemate - move {} from {}", true),
    ("Warning; PV continues after threefold repetition - move {} from {}", true),
    ("Warning; PV continues after fifty-move rule - move {} from {}", true),
    ("Info; {}", true),
    ("Position; {}{}", true),
    ("Moves; {}", true),
    ("Warning; Bestmove does not match beginning of last PV - move {} from {}", true),
    ("Warning; Sign mismatch in mate scores {} and {} from {} ({}) and {} ({})", true),
    ("Infos; {} ; {}", true),
    // A move's score (src/pvcheck/score.rs): a search that printed lines but no score, or a
    // score that cannot be read.
    ("Warning; No info line available to extract score from engine {}", true),
    ("Warning; Could not extract score from engine {}: {}", true),
    // A run whose engine cannot start stops before its first game, with blitz-arena's line.
    ("Fatal; {} engine startup failure: \"{}\"", false),
    ("Warning; Engine {} didn't respond to uci.", false),
    // A crashed or stalled engine is always started anew (-recover is always on).
    (
        "Game {} stalled / disconnected and no recover option set for engine, stopping tournament.",
        false,
    ),
    ("Resuming from {} games, ignoring {} append=false.", false),
];

/// fastchess's texts of how a game ended (`match.hpp`), inside `Finished game`'s braces.
const FASTCHESS_ENDINGS: &[&str] = &[
    "{} mates",
    "{} loses on time ({}ms overrun)",
    "{} makes an illegal move",
    "{} disconnects",
    "{}'s connection stalls",
    "{} wins by adjudication",
    "{} wins by adjudication: SyzygyTB",
    "Draw by adjudication",
    "Draw by adjudication: SyzygyTB",
    "Draw by insufficient mating material",
    "Draw by 3-fold repetition",
    "Draw by fifty moves rule",
    "Draw by stalemate",
    "Game interrupted",
];

/// Whether `line` is what the fmt format string `format` prints: `{{` and `}}` are braces,
/// any other `{...}` stands for some text (at least one character, or none for `{}` at the
/// end of a results header's optional book).
fn fits(format: &str, line: &str) -> bool {
    let mut pieces = vec![String::new()];
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.peek() == Some(&'{') => {
                chars.next();
                pieces.last_mut().unwrap().push('{');
            }
            '}' if chars.peek() == Some(&'}') => {
                chars.next();
                pieces.last_mut().unwrap().push('}');
            }
            '{' => {
                let mut depth = 1;
                for c in chars.by_ref() {
                    depth += match c {
                        '{' => 1,
                        '}' => -1,
                        _ => 0,
                    };
                    if depth == 0 {
                        break;
                    }
                }
                pieces.push(String::new());
            }
            c => pieces.last_mut().unwrap().push(c),
        }
    }
    if pieces.len() == 1 {
        return line == pieces[0];
    }
    let (first, last) = (&pieces[0], pieces.last().unwrap());
    let Some(mut rest) = line.strip_prefix(first.as_str()) else {
        return false;
    };
    let Some(middle) = rest.strip_suffix(last.as_str()) else {
        return false;
    };
    rest = middle;
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece.as_str()) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

/// Asserts that every stdout line is one fastchess prints (and blitz-arena is marked to), and
/// that every `Finished game` names one of fastchess's endings.
#[track_caller]
fn assert_fastchess_lines(stdout: &str) {
    for line in stdout.lines() {
        let format = FASTCHESS_LINES
            .iter()
            .find(|(f, _)| fits(f, line))
            .unwrap_or_else(|| panic!("not a fastchess line: {line:?}\n{stdout}"));
        assert!(format.1, "a line marked not printed: {line:?}");
        if line.starts_with("Finished game ") {
            let ending = &line[line.rfind(" {").unwrap() + 2..line.len() - 1];
            assert!(
                FASTCHESS_ENDINGS.iter().any(|f| fits(f, ending)),
                "not a fastchess ending: {ending:?}"
            );
        }
    }
}

#[test]
fn the_line_table_reads_fastchess_formats() {
    assert!(fits(
        "Finished game {} ({} vs {}): {} {{{}}}",
        "Finished game 3 (a vs b): 1-0 {White mates}"
    ));
    assert!(!fits(
        "Finished game {} ({} vs {}): {} {{{}}}",
        "Finished game 3 (a vs b): 1-0 White mates"
    ));
    assert!(fits(
        "Total Time: {:02}:{:02}:{:02} (hours:minutes:seconds)",
        "Total Time: 00:00:05 (hours:minutes:seconds)"
    ));
    assert!(fits("", ""));
    assert!(!fits("Finished match", "Finished match!"));
    assert!(fits(
        "{} loses on time ({}ms overrun)",
        "White loses on time (59ms overrun)"
    ));
}

/// A faulty engine on the clock `tc` against `random` on a long one, through the fastchess
/// command line as fishtest's worker gives it (no -concurrency, no -out), one opening with
/// each colour. Returns stdout and the
/// files the run left in the scratch folder (its temporary folder is one of them).
fn faulty_match(s: &Scratch, faulty: &str, tc: &str) -> (String, Vec<String>) {
    let tmp = s.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    // Both seeded: the games are the same in every run, so no mate comes before the fault.
    let args = format!("engine faulty {faulty} --seed 2");
    let out = s
        .command(&[
            "-engine",
            &format!("cmd={BIN}"),
            &format!("args={args}"),
            "name=bad",
            &format!("tc={tc}"),
            // Its opponent's clock is long: on a loaded machine a 0.5 s one can fall too.
            "-engine",
            &format!("cmd={BIN}"),
            "args=engine random",
            "option.Seed=1",
            "name=rnd",
            "tc=10+0.1",
            "-rounds",
            "1",
            "-repeat",
            "-recover",
            "-pgnout",
            "file=games.pgn",
            "-crc32",
            "pgn=true",
        ])
        .env("TMPDIR", &tmp)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}\n{}", stdout(&out), stderr(&out));
    s.assert_no_engines_left();
    let mut left: Vec<String> = walk(&s.dir)
        .into_iter()
        .map(|p| p.strip_prefix(&s.dir).unwrap().display().to_string())
        .collect();
    left.sort();
    (stdout(&out), left)
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(walk(&path));
        }
        found.push(path);
    }
    found
}

/// The lines of game 1 (the faulty engine white) from its `Started` line to its `Finished`
/// line, the PGN's CRC line replaced by `CRC`.
fn game_one(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with("Started game 1 "))
        .take_while(|l| !l.starts_with("Started game 2 "))
        .map(|l| {
            if l.starts_with("File games.pgn has CRC32: 0x") {
                "CRC".to_string()
            } else {
                l.to_string()
            }
        })
        .collect()
}

/// Each fault an engine can commit is ruled as fastchess rules it (the game ends, the
/// offender loses) and printed with fastchess's lines, in fastchess's order: the warning, the
/// PGN's CRC line, `Finished game`; the time losses and crashes counted in the `Player:`
/// block. The run leaves only the PGN it was asked for.
#[test]
fn faults_are_ruled_and_printed_as_fastchess() {
    let s = Scratch::new("compat-faults");
    // (faulty's flags, the clock, game 1's lines (`*` ends a line's known start), the PGN's
    // Termination, the Player block's time losses and crashes of `bad`).
    type Case<'a> = (&'a str, &'a str, &'a [&'a str], &'a str, Option<(u32, u32)>);
    let cases: &[Case] = &[
        (
            "--illegal-after 3",
            "10+0.1",
            &[
                "Started game 1 of 2 (bad vs rnd)",
                "Warning; Illegal move *",
                "CRC",
                "Finished game 1 (bad vs rnd): 0-1 {White makes an illegal move}",
            ],
            "illegal move",
            None,
        ),
        (
            "--null-after 3",
            "10+0.1",
            &[
                "Started game 1 of 2 (bad vs rnd)",
                "Warning; Move does not match uci move format, lowercase and 4/5 chars. Move 0000 played by bad",
                "Warning; Illegal move 0000 played by bad",
                "CRC",
                "Finished game 1 (bad vs rnd): 0-1 {White makes an illegal move}",
            ],
            "illegal move",
            None,
        ),
        (
            "--crash-after 3",
            "10+0.1",
            &[
                "Started game 1 of 2 (bad vs rnd)",
                "CRC",
                "Finished game 1 (bad vs rnd): 0-1 {White disconnects}",
            ],
            "abandoned",
            Some((0, 2)),
        ),
        (
            "--slow-move-ms 700",
            "0.5+0",
            &[
                "Started game 1 of 2 (bad vs rnd)",
                "CRC",
                "Finished game 1 (bad vs rnd): 0-1 {White loses on time (*",
            ],
            "time forfeit",
            Some((2, 0)),
        ),
        // An engine that no longer answers at all: fastchess's `isready` after the move timed
        // out, and the one before its restart, go unanswered; the connection stalls.
        (
            "--hang-after 3",
            "0.5+0",
            &[
                "Started game 1 of 2 (bad vs rnd)",
                "Warning; Engine bad is not responsive",
                "Warning; Engine bad is not responsive",
                "CRC",
                "Finished game 1 (bad vs rnd): 0-1 {White's connection stalls}",
            ],
            "abandoned",
            Some((0, 2)),
        ),
    ];
    for (faulty, tc, lines, termination, players) in cases {
        let _ = std::fs::remove_dir_all(&s.dir);
        std::fs::create_dir_all(&s.dir).unwrap();
        let (out, left) = faulty_match(&s, faulty, tc);
        assert_fastchess_lines(&out);
        let game = game_one(&out);
        assert_eq!(game.len(), lines.len(), "{faulty}:\n{out}");
        for (got, want) in game.iter().zip(lines.iter()) {
            match want.strip_suffix('*') {
                Some(start) => assert!(got.starts_with(start), "{faulty}: {got:?}\n{out}"),
                None => assert_eq!(got, want, "{faulty}:\n{out}"),
            }
        }
        assert!(
            out.contains("Finished game 2 (rnd vs bad): 1-0 {Black"),
            "{faulty}:\n{out}"
        );
        let games = pgn_games(&s.path("games.pgn"));
        assert_eq!(games.len(), 2, "{faulty}");
        for (tags, _) in &games {
            assert_eq!(tags["Termination"], *termination, "{faulty}");
            // fastchess's round is the pair's; its tags of the game's time.
            assert_eq!(tags["Round"], "1", "{faulty}");
            assert!(tags["GameDuration"].starts_with("00:00:0"), "{tags:?}");
            assert!(tags["GameEndTime"].ends_with(" +0000"), "{tags:?}");
        }
        let block: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("Player: "))
            .take(3)
            .collect();
        match players {
            Some((timeouts, crashed)) => assert_eq!(
                block,
                [
                    "Player: bad".to_string(),
                    format!("  Timeouts: {timeouts}"),
                    format!("  Crashed: {crashed}")
                ],
                "{faulty}:\n{out}"
            ),
            None => assert!(block.is_empty(), "{faulty}:\n{out}"),
        }
        assert!(
            out.contains("\nFinished match\nTotal Time: "),
            "{faulty}:\n{out}"
        );
        // Only the PGN fastchess was asked for, and the (empty) temporary folder.
        assert_eq!(left, ["games.pgn", "tmp"], "{faulty}");
    }
}

/// A UCI option the engine does not declare, or a value it does not take: fastchess's warning
/// on stdout (which fishtest's worker reads as an error of the run), and the games are played
/// without it, where blitz-arena's own commands stop before the first game.
#[test]
fn options_an_engine_does_not_take_are_warned_and_dropped() {
    let s = Scratch::new("compat-options");
    let out = s.run(&[
        "-engine",
        &format!("cmd={BIN}"),
        "args=engine random",
        "name=New",
        "option.ThreatBySafePawn=3",
        "option.Seed=many",
        "-engine",
        &format!("cmd={BIN}"),
        "args=engine random",
        "name=Base",
        "option.Seed=4",
        "-each",
        "tc=10+0.1",
        "-rounds",
        "1",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines = stdout(&out);
    assert_fastchess_lines(&lines);
    let first: Vec<&str> = lines.lines().take(3).collect();
    assert_eq!(
        first,
        [
            "Warning; New doesn't have option ThreatBySafePawn",
            "Warning; Invalid value for option Seed; many",
            "Started game 1 of 2 (New vs Base)"
        ],
        "{lines}"
    );
    assert!(lines.contains("Games: 2, "), "{lines}");
    s.assert_no_engines_left();
    // Nothing written: no -pgnout, and no results folder.
    assert_eq!(walk(&s.dir), Vec::<std::path::PathBuf>::new());
}

/// tests/data/fastchess/: what the real fastchess printed for each case, and its command line.
fn fastchess_data() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fastchess")
}

/// A recorded command line (commands.txt: `CASE: fastchess ARGS`, `$BA` for blitz-arena),
/// split as the shell splits it (double quotes group words).
fn recorded_command(case: &str) -> Vec<String> {
    let all = std::fs::read_to_string(fastchess_data().join("commands.txt")).unwrap();
    let line = all
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{case}: fastchess ")))
        .unwrap_or_else(|| panic!("no command line for {case}"));
    let mut words = Vec::new();
    let (mut word, mut quoted, mut any) = (String::new(), false, false);
    for c in line.replace("$BA", BIN).chars() {
        match c {
            '"' => (quoted, any) = (!quoted, true),
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => (word, any) = (word + &c.to_string(), true),
        }
    }
    if any {
        words.push(word);
    }
    words
}

/// The kind of a stdout line: the fastchess format string it fits (FASTCHESS_LINES), with
/// a `Finished game` line's result and ending (`1-0 White loses on time ({}ms overrun)`);
/// a line fitting none is its own kind.
fn line_kind(line: &str) -> String {
    if line.starts_with("Finished game ") {
        let braces = line.rfind(" {").unwrap();
        let ending = &line[braces + 2..line.len() - 1];
        let result = line[..braces].rsplit(' ').next().unwrap();
        let format =
            FASTCHESS_ENDINGS
                .iter()
                .find(|f| fits(f, ending))
                .map_or(ending.to_string(), |f| {
                    let colour = ["White", "Black"]
                        .into_iter()
                        .find(|c| ending.starts_with(c));
                    f.replacen("{}", colour.unwrap_or("{}"), 1)
                });
        return format!("Finished game: {result} {format}");
    }
    FASTCHESS_LINES
        .iter()
        .find(|(f, _)| fits(f, line))
        .map_or(line.to_string(), |(f, _)| f.to_string())
}

/// How many lines of each kind `stdout` has.
fn line_kinds(stdout: &str) -> std::collections::BTreeMap<String, usize> {
    let mut kinds = std::collections::BTreeMap::new();
    for line in stdout.lines() {
        *kinds.entry(line_kind(line)).or_default() += 1;
    }
    kinds
}

/// blitz-arena's compat mode on a recorded fastchess command line, in a folder holding the
/// same books: its stdout, stderr, and its exit code and the files it left in the folder (as
/// the recording's CASE.files has them). Its temporary folder is inside the scratch folder,
/// so that a results folder left behind would show.
fn arena_on(case: &str) -> (String, String, String) {
    let s = Scratch::new(&format!("parity-{case}"));
    let (out, files, _) = arena_in(&s, case);
    (stdout(&out), stderr(&out), files)
}

/// [`arena_on`] in `s`: the run's output, its exit code and files as CASE.files has them, and
/// the `-pgnout` file it wrote (`games.pgn`), if any.
fn arena_in(s: &Scratch, case: &str) -> (std::process::Output, String, Option<String>) {
    const BOOKS: [&str; 3] = ["openings.epd", "nomate.epd", "book.pgn"];
    for book in BOOKS {
        std::fs::copy(fastchess_data().join(book), s.path(book)).unwrap();
    }
    let tmp = s.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let args = recorded_command(case);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = s.command(&args).env("TMPDIR", &tmp).output().unwrap();
    s.assert_no_engines_left();
    let mut files: Vec<String> = walk(&s.dir)
        .into_iter()
        .map(|p| format!("./{}", p.strip_prefix(&s.dir).unwrap().display()))
        .filter(|p| p != "./tmp" && !BOOKS.iter().any(|b| *p == format!("./{b}")))
        .collect();
    files.sort();
    let code = out.status.code().unwrap_or(-1);
    let files = format!("exit {code}\n{}", files.join("\n"));
    let pgn = std::fs::read_to_string(s.path("games.pgn")).ok();
    (out, files, pgn)
}

/// fastchess's `-pgnout` from a PGN book starts each game at the book's own position and
/// writes the book's moves, each commented `{book}`, then the engines' (`PlyCount` counts
/// both); the engines' `id` lines are its `EngineWhiteName` tags and the like. The real
/// fastchess's file (tests/data/fastchess/pgnbook.pgn) and blitz-arena's on
/// the same command line have the same movetext and tags (`Event` included), save the tags
/// that say when, and the think times.
#[test]
fn pgnout_writes_a_pgn_books_moves_as_fastchess_does() {
    let s = Scratch::new("parity-pgnbook");
    let (out, _, pgn) = arena_in(&s, "pgnbook");
    assert!(out.status.success(), "{}", stderr(&out));
    let recorded = std::fs::read_to_string(fastchess_data().join("pgnbook.pgn")).unwrap();
    let ours = comparable_pgn(&pgn.expect("the -pgnout file"));
    assert!(
        ours.contains("1. e4 {book} e5 {book} 2. Nf3 {book} Nc6 {book} 3. "),
        "{ours}"
    );
    assert!(
        ours.contains("1. d4 {book} d5 {book} 2. c4 {book} "),
        "{ours}"
    );
    assert_eq!(ours, comparable_pgn(&recorded));
}

/// A PGN without the tags that say when it was played, each think time `T`.
fn comparable_pgn(pgn: &str) -> String {
    const DROPPED: [&str; 4] = ["Date", "GameDuration", "GameStartTime", "GameEndTime"];
    let mut out = String::new();
    for line in pgn.lines() {
        let tag = line.strip_prefix('[').and_then(|t| t.split(' ').next());
        if tag.is_some_and(|t| DROPPED.contains(&t)) {
            continue;
        }
        // `0.123s` (think time) to `Ts`.
        let mut rest = line;
        while let Some(dot) = rest.find('.') {
            let (head, tail) = rest.split_at(dot);
            let int = head.len() - head.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            let frac = tail[1..].bytes().take_while(u8::is_ascii_digit).count();
            if int > 0 && frac == 3 && tail[1 + frac..].starts_with('s') {
                out.push_str(&head[..head.len() - int]);
                out.push('T');
                rest = &tail[1 + frac..];
            } else {
                out.push_str(head);
                out.push('.');
                rest = &tail[1..];
            }
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// One case of the parity with the real fastchess (tests/data/fastchess/README.md): blitz-arena
/// on fastchess's command line gives OpenBench's and fishtest's own parsers the counts they
/// read from fastchess's recorded output, prints every kind of line fastchess printed as many
/// times, and leaves only files fastchess left. `names` are the engines as fishtest's worker
/// names them (New, Base), `games` the games it asked for.
fn parity(case: &str, names: (&str, &str), games: usize) -> String {
    let data = fastchess_data();
    let recorded = std::fs::read_to_string(data.join(format!("{case}.out"))).unwrap();
    let recorded_files = std::fs::read_to_string(data.join(format!("{case}.files"))).unwrap();
    let (out, err, files) = arena_on(case);
    // Every line is one of fastchess's, both tools' (the table is checked against the recording).
    assert_fastchess_lines(&recorded);
    assert_fastchess_lines(&out);
    let s = Scratch::new(&format!("parity-{case}-managers"));
    let theirs = managers(&s, "fastchess", &recorded, "", names, games);
    let ours = managers(&s, "arena", &out, &err, names, games);
    let context = format!("{case}: blitz-arena printed\n{out}\nfastchess printed\n{recorded}");
    // OpenBench: games, trinomial and pentanomial, crashes, time losses, illegal moves.
    assert_eq!(ours.openbench, theirs.openbench, "OpenBench, {context}");
    // fishtest: the stats it would send, how its parser ended (the line that stopped it, by
    // kind: the illegal move differs), and what it posted to the event log.
    assert_eq!(
        ours.fishtest.stats, theirs.fishtest.stats,
        "fishtest, {context}"
    );
    let kind_of_outcome = |o: &str| match o.split_once(": fastchess says: '") {
        Some((exception, line)) => format!("{exception}: {}", line_kind(&line[..line.len() - 1])),
        None => o.to_string(),
    };
    assert_eq!(
        kind_of_outcome(&ours.fishtest.outcome),
        kind_of_outcome(&theirs.fishtest.outcome),
        "fishtest, {context}"
    );
    assert_eq!(
        ours.fishtest.posted, theirs.fishtest.posted,
        "fishtest's posts, {context}"
    );
    assert_eq!(
        ours.fishtest.crc.is_some(),
        theirs.fishtest.crc.is_some(),
        "{context}"
    );
    // Every kind of line fastchess printed, as often.
    let (ours_kinds, theirs_kinds) = (line_kinds(&out), line_kinds(&recorded));
    for (kind, n) in &theirs_kinds {
        assert_eq!(ours_kinds.get(kind), Some(n), "lines {kind:?}, {context}");
    }
    // Only files fastchess left: all of them but its config.json autosave (blitz-arena writes
    // none; -config file= does not resume from one).
    let expected: Vec<&str> = recorded_files
        .lines()
        .filter(|l| *l != "./config.json")
        .collect();
    assert_eq!(files.lines().collect::<Vec<_>>(), expected, "{case}: {err}");
    out
}

#[test]
fn parity_clean_match() {
    parity("clean", ("New", "Base"), 12);
}

/// The overrun of a time loss is how far past zero the loser's clock was when its move came, at
/// most the 100 ms fastchess waits past the flag: `faulty --slow-move-ms 900` on 0.5 s moves
/// 400 ms late, so fastchess (and blitz-arena) state 100 ms (fastchess's own delay aside).
#[track_caller]
fn assert_overruns_are_fastchess_wait(out: &str, losses: usize) {
    let overruns: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_once(" loses on time (").map(|(_, rest)| rest))
        .collect();
    assert_eq!(overruns, vec!["100ms overrun)}"; losses], "{out}");
}

#[test]
fn parity_one_game_per_round() {
    parity("rounds", ("New", "Base"), 4);
}

#[test]
fn parity_illegal_move() {
    parity("illegal", ("bad", "rnd"), 4);
}

#[test]
fn parity_null_move() {
    parity("null", ("bad", "rnd"), 4);
}

#[test]
fn parity_crash() {
    parity("crash", ("bad", "rnd"), 4);
}

#[test]
fn parity_hang() {
    parity("hang", ("bad", "rnd"), 4);
}

#[test]
fn parity_time_loss() {
    let out = parity("timeloss", ("bad", "rnd"), 4);
    assert_overruns_are_fastchess_wait(&out, 4);
}

#[test]
fn parity_flag_against_a_bare_king() {
    // fastchess rules the time loss in game 1 although the opponent has a bare king.
    let out = parity("flagnomate", ("bad", "rnd"), 2);
    assert!(out.contains("Finished game 1 (bad vs rnd): 0-1 {White loses on time"));
    assert_overruns_are_fastchess_wait(&out, 2);
}

/// A stdout with what no two runs print alike (tests/data/fastchess/README.md) made constant:
/// each PGN's CRC32 and the total time.
fn steady(stdout: &str) -> String {
    stdout
        .lines()
        .map(|l| {
            if l.starts_with("File games.pgn has CRC32: 0x") {
                "File games.pgn has CRC32: CRC"
            } else if l.starts_with("Total Time: ") {
                "Total Time: TIME"
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// One case of the parity with the real fastchess's `-output format=cutechess`: blitz-arena on
/// the same command line prints the same lines, byte for byte (the CRCs and the total time
/// aside), and leaves only the files fastchess left.
fn cutechess_parity(case: &str) {
    let data = fastchess_data();
    let recorded = std::fs::read_to_string(data.join(format!("{case}.out"))).unwrap();
    let recorded_files = std::fs::read_to_string(data.join(format!("{case}.files"))).unwrap();
    let (out, err, files) = arena_on(case);
    assert_eq!(
        steady(&out),
        steady(&recorded),
        "{case}: blitz-arena printed\n{out}\nfastchess printed\n{recorded}\nstderr:\n{err}"
    );
    let expected: Vec<&str> = recorded_files
        .lines()
        .filter(|l| *l != "./config.json")
        .collect();
    assert_eq!(files.lines().collect::<Vec<_>>(), expected, "{case}: {err}");
}

/// A clean match in cutechess's format: a `Score of` line after every game, counting every
/// game (fastchess reports no pentanomial counts in this format), the `Elo difference` line
/// every 2 games (`-ratinginterval` counts games here) with two decimals and fastchess's
/// `nan`, then `Finished match` and `Total Time` as in fastchess's own format.
#[test]
fn parity_cutechess_clean_match() {
    cutechess_parity("cuteclean");
}

/// Time losses in cutechess's format: fastchess's own ending text (`(100ms overrun)`), its
/// default rating interval (10 games: one `Elo difference` line, after the last game) and its
/// `-inf +/- -nan` for an engine that lost every game.
#[test]
fn parity_cutechess_time_loss() {
    cutechess_parity("cutetimeloss");
}

/// `-check-mate-pvs`: `faulty --short-mate-pv 3` announces a mate in 2 with its move alone as
/// the PV at its 4th move of each game, then a sound line (so the line checked is not the last,
/// the one blitz-arena keeps as the search report); blitz-arena prints fastchess's four lines for it word
/// for word, between the game's `Started` and `Finished` lines as fastchess does (they are
/// printed as the move is read), and fishtest's worker stops on the first as on fastchess's.
#[test]
fn parity_incomplete_mating_pv() {
    let out = parity("matepv", ("bad", "rnd"), 4);
    let recorded = std::fs::read_to_string(fastchess_data().join("matepv.out")).unwrap();
    let game_lines = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| {
                [
                    "Started game",
                    "Finished game",
                    "Warning;",
                    "Info;",
                    "Position;",
                    "Moves;",
                ]
                .iter()
                .any(|p| l.starts_with(p))
            })
            .map(str::to_string)
            .collect()
    };
    assert_eq!(game_lines(&out), game_lines(&recorded), "{out}");
    assert_eq!(
        out.matches("Warning; Incomplete mating PV - from bad")
            .count(),
        4
    );
}

// Parity with fastchess's SPRT and its schedule with three engines (tests/data/fastchess:
// `cutesprt`, `gamesprt`, `trinomial`, `trisprt`, `three`, `threeonce`).

/// `-sprt` in `-output format=cutechess`: fastchess tests the games' wins, draws and losses
/// there (no pentanomial counts in that format), so `greedy` against `random` stops after game
/// 45 at LLR 2.98, where the pairs' LLR would still be under the bound. blitz-arena stops at the
/// same game with the same lines, and prints no game that was in progress at the decision.
#[test]
fn parity_cutechess_sprt_stops_at_fastchess_game() {
    cutechess_parity("cutesprt");
    let recorded = std::fs::read_to_string(fastchess_data().join("cutesprt.out")).unwrap();
    assert!(recorded.contains(
        "SPRT: llr 2.98 (101.2%), lbound -2.94, ubound 2.94 - H1 was accepted\nTournament finished\n"
    ));
    assert!(recorded.contains("Score of New vs Base: 12 - 0 - 33  [0.633] 45\n"));
    assert!(!recorded.contains("Started game 46 "));
}

/// blitz-arena on a recorded fastchess command line in fastchess's format prints the same lines
/// byte for byte (CRCs and time aside), its `Started game N of M (A vs B)` lines first
/// compared on their own; returns what fastchess printed.
fn same_lines(case: &str) -> String {
    let recorded = std::fs::read_to_string(fastchess_data().join(format!("{case}.out"))).unwrap();
    let started = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.starts_with("Started game "))
            .map(str::to_string)
            .collect()
    };
    let (out, err, _) = arena_on(case);
    assert_eq!(started(&out), started(&recorded), "{out}\n{err}");
    assert_eq!(
        steady(&out),
        steady(&recorded),
        "{case}: blitz-arena printed\n{out}\nfastchess printed\n{recorded}\nstderr:\n{err}"
    );
    recorded
}

/// `-sprt` with `-games 1`: no pentanomial counts, so fastchess tests the games here too; it
/// stops after game 40 at LLR 2.95, the game its rating interval (10 games) printed the block
/// after, and prints the block again with the decision.
#[test]
fn parity_one_game_per_round_sprt_stops_at_fastchess_game() {
    let recorded = same_lines("gamesprt");
    let block_and_decision = "LLR: 2.95 (100.1%) (-2.94, 2.94) [0.00, 50.00]\n\
        --------------------------------------------------\n\
        SPRT ([0.00, 50.00]) completed - H1 was accepted\n";
    assert!(recorded.contains(block_and_decision), "{recorded}");
    assert_eq!(recorded.matches("Games: 40, Wins: 13,").count(), 2);
    assert!(!recorded.contains("Started game 41 "));
}

/// `-report penta=false` with two games an opening: fastchess prints the results block
/// without `Ptnml`, its Elo and draw ratio on the games, and the rating interval counted in
/// games; blitz-arena the same lines.
#[test]
fn parity_trinomial_report() {
    let recorded = same_lines("trinomial");
    assert!(!recorded.contains("Ptnml"), "{recorded}");
    assert_eq!(recorded.matches("Results of New vs Base").count(), 6);
}

/// `-report penta=false` with an SPRT: fastchess tests the games' wins, draws and losses and
/// stops after game 45 at LLR 2.98 (the pairs' LLR would not yet decide), as blitz-arena does.
#[test]
fn parity_trinomial_sprt_stops_at_fastchess_game() {
    let recorded = same_lines("trisprt");
    assert!(recorded.contains("LLR: 2.98 (101.2%) (-2.94, 2.94) [0.00, 50.00]\n"));
    assert!(recorded.contains("SPRT ([0.00, 50.00]) completed - H1 was accepted\n"));
    assert!(!recorded.contains("Started game 46 "));
}

/// `-repeat -rounds 2` with three engines: fastchess plays round by round, each pairing's two
/// games together (New-Base twice, New-rnd twice, Base-rnd twice, then round 2) on its openings
/// and colours, so blitz-arena plays the same games and prints the same ranking table.
#[test]
fn parity_three_engines_in_fastchess_order() {
    let recorded = same_lines("three");
    assert_eq!(recorded.matches("Started game ").count(), 12);
}

/// `-games 1 -rounds 3` with three engines: one game per pairing a round, white by the game's
/// number (New has black against rnd in game 2), and a ranking table of every game without
/// `Ptnml` counts.
#[test]
fn parity_three_engines_one_game_a_round() {
    let recorded = same_lines("threeonce");
    assert!(recorded.contains("Started game 2 of 9 (rnd vs New)\n"));
}

/// A case whose every line blitz-arena prints as fastchess printed it, byte for byte (the CRCs
/// and the total time aside), besides what `parity` asks.
fn parity_exact(case: &str, names: (&str, &str), games: usize) {
    let out = parity(case, names, games);
    let recorded = std::fs::read_to_string(fastchess_data().join(format!("{case}.out"))).unwrap();
    assert_eq!(
        steady(&out),
        steady(&recorded),
        "{case}: blitz-arena printed\n{out}"
    );
}

/// Without `-check-mate-pvs`, fastchess still plays out every PV: `faulty --illegal-pv-after 3`
/// shows its move twice as the PV at its 4th move of each game, and blitz-arena prints
/// fastchess's `Illegal PV move` for the second with its `Info;`, `Position;`, `Moves;` lines,
/// where fastchess prints them; fishtest's worker stops on the first, as on fastchess's.
#[test]
fn parity_illegal_pv_move() {
    parity_exact("illegalpv", ("bad", "rnd"), 4);
}

/// `faulty --wrong-pv-after 3` plays another move than its PV begins with at its 4th move:
/// fastchess's `Bestmove does not match beginning of last PV`, on every move, as fastchess.
#[test]
fn parity_bestmove_not_the_pv_s_first_move() {
    parity_exact("wrongpv", ("bad", "rnd"), 4);
}

/// Two `faulty --claim-mate-after 3` announce a mate in 1 on consecutive moves: fastchess's
/// `Sign mismatch in mate scores 1 and 1 from ...`, its `Infos;` line with both engines'
/// reports, and the moves up to the second claim.
#[test]
fn parity_mate_claimed_by_both_engines() {
    parity_exact("matesign", ("bad", "bad2"), 4);
}

/// `faulty --unscored-after 3 --bad-score-after 5` prints, at its 4th move, an `info` line
/// without a score and no scored one, and at its 6th a score that cannot be read: fastchess's
/// `No info line available to extract score` and `Could not extract score ...: Invalid score
/// value: x`, on which fishtest's worker stops as on fastchess's.
#[test]
fn parity_a_move_without_a_readable_score() {
    parity_exact("noscore", ("bad", "rnd"), 4);
}

/// A compat run with `-games 1` tests its SPRT on the games' wins, draws and losses, as
/// fastchess does; the folder it keeps (`-out`) says so, and `stats`, `merge` and report.html
/// test it the same way: the LLR of the run's own summary.csv, not a pentanomial LLR of no
/// pairs (which read 0.00, "continue", for a run that had accepted H1).
#[test]
fn stats_merge_and_report_test_a_compat_run_s_sprt_as_it_ran() {
    let s = Scratch::new("compat-sprt-by-games");
    std::fs::copy(
        fastchess_data().join("openings.epd"),
        s.path("openings.epd"),
    )
    .unwrap();
    let mut args = recorded_command("gamesprt");
    args.retain(|a| !a.starts_with("-pgnout") && !a.starts_with("file=games") && a != "-crc32");
    args.retain(|a| a != "pgn=true");
    args.extend(["-out", "kept"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    s.run_ok(&args);
    let summary = std::fs::read_to_string(s.path("kept/summary.csv")).unwrap();
    let mut lines = summary.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "sprt_llr").unwrap();
    let first = lines.next().unwrap().split(',').collect::<Vec<_>>();
    assert_eq!(first[2], "New", "{summary}");
    let llr: f64 = first[column].parse().unwrap();
    assert!(llr >= 2.94, "the run accepted H1: {summary}");

    let stats = stdout(&s.run_ok(&["stats", "kept"]));
    assert!(
        stats.contains(&format!("LLR {llr:+.2} over ")),
        "stats, run's LLR {llr}:\n{stats}"
    );
    assert!(stats.contains("H1 accepted"), "{stats}");

    s.run_ok(&["merge", "kept", "--out", "merged"]);
    let merged = std::fs::read_to_string(s.path("merged/summary.csv")).unwrap();
    let merged_first = merged
        .lines()
        .nth(1)
        .unwrap()
        .split(',')
        .collect::<Vec<_>>();
    assert_eq!(merged_first[column], first[column], "merge:\n{merged}");

    s.run_ok(&["report", "kept", "--out", "again.html"]);
    for page in ["kept/report.html", "again.html"] {
        let html = std::fs::read_to_string(s.path(page)).unwrap();
        let bx = &html[html.find(r#"id="overview""#).expect("the summary box")..];
        let at = bx.find("data-llr=\"").unwrap() + "data-llr=\"".len();
        let shown: f64 = bx[at..at + bx[at..].find('"').unwrap()].parse().unwrap();
        assert!((shown - llr).abs() < 1e-3, "{page}: {shown} against {llr}");
    }
}
