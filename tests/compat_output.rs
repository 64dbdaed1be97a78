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
args = ["--crash-after", "4"]
"#;

/// Every line is one the tool prints; one Started and one Finished line per game, each
/// Finished line naming the game, players and result games.csv has.
fn assert_tool_lines(stdout: &str, rows: &[HashMap<String, String>]) {
    const SHAPES: [&str; 13] = [
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

/// cutechess-cli's format: a `Score of` line after every game, the Elo line at the end.
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
    assert_eq!(stdout.lines().last(), Some("Finished match"));
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
        let row = rows.iter().find(|r| &r["game"] == round).unwrap();
        assert_eq!(result, &row["result"]);
        let expected = match row["termination"].as_str() {
            "flag" | "both-flags" => "time forfeit",
            "checkmate" | "stalemate" | "threefold" | "fifty-moves" | "insufficient-material" => {
                "normal"
            }
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
