//! End-to-end: the real `blitz-arena` binary, real engine processes, real clocks, real files.

mod common;

use std::time::{Duration, Instant};

use common::*;

/// `greedy` and `random` seeded: the games are the same in every run (minimax has no
/// randomness; at a fixed depth its moves do not depend on the clock).
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

#[test]
fn gauntlet_of_builtin_engines_writes_results_that_agree() {
    let s = Scratch::new("gauntlet");
    s.write("engines.toml", BUILTINS);
    // minimax searches to a fixed depth, so its strength does not depend on the machine's
    // load (tests/soak.rs checks its own time management on real clocks).
    let out = s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "greedy,random",
        "--tc",
        "3s+0.05s",
        "--depth",
        "3",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--seed",
        "11",
        "--out",
        "res",
    ]);
    s.assert_no_engines_left();

    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 8);
    let games = pgn_games(&s.path("res/games.pgn"));
    assert_eq!(games.len(), 8);
    let events = std::fs::read_to_string(s.path("res/events.jsonl")).unwrap();
    assert_eq!(events.lines().count(), 8);

    for row in &rows {
        // CSV and PGN agree on every result.
        let (tags, movetext) = games
            .iter()
            .find(|(t, _)| t["Round"] == row["game"])
            .expect("the game is in the PGN");
        assert_eq!(tags["Result"], row["result"], "game {}", row["game"]);
        assert_eq!(tags["White"], row["white"]);
        assert_eq!(tags["RuleCited"], row["rule"]);
        assert_eq!(tags["TimeControl"], "3+0.05");
        // A [%clk] on every move.
        let plies: usize = tags["PlyCount"].parse().unwrap();
        assert_eq!(plies.to_string(), row["plies"]);
        assert_eq!(
            movetext.matches("[%clk ").count(),
            plies,
            "game {}",
            row["game"]
        );
        assert_eq!(movetext.matches("[%emt ").count(), plies);
        assert!(movetext.trim_end().ends_with(&row["result"]));
        // Nobody crashed, stalled or played an illegal move.
        assert!(
            !["engine-crash", "engine-stall", "illegal-move"]
                .contains(&row["termination"].as_str()),
            "{row:?}"
        );
        assert_eq!(row["ruleset"], "fide");
        assert_eq!(row["seed"], "11");
    }
    // minimax at depth 3 scores clearly above the others, and never loses on time.
    let minimax = score_of(&rows, "minimax");
    assert!(minimax >= 6.5, "minimax scored only {minimax}/8");
    for row in &rows {
        assert_ne!(loser_on_time(row), Some("minimax"), "{row:?}");
    }
    let summary = stdout(&out);
    assert!(summary.contains("arena overhead"), "{summary}");
    // The printed standings are summary.csv's, and they count the games in games.csv.
    let printed = standings(&summary);
    assert_eq!(printed, summary_csv_standings(&s, "res"));
    let minimax_line = printed.iter().find(|r| r[0] == "minimax").expect("minimax");
    assert_eq!(minimax_line[1], "8");
    assert_eq!(minimax_line[5], format!("{minimax:.1}"));

    if python_chess() {
        let check = std::process::Command::new("python3")
            .arg("-c")
            .arg(
                "import chess.pgn, sys\n\
                 n = 0\n\
                 with open(sys.argv[1]) as f:\n\
                 \x20   while (g := chess.pgn.read_game(f)) is not None:\n\
                 \x20       assert not g.errors, g.errors\n\
                 \x20       nodes = list(g.mainline())\n\
                 \x20       assert len(nodes) == int(g.headers['PlyCount'])\n\
                 \x20       assert all(node.clock() is not None for node in nodes)\n\
                 \x20       n += 1\n\
                 print(n)",
            )
            .arg(s.path("res/games.pgn"))
            .output()
            .unwrap();
        assert!(check.status.success(), "python-chess: {}", stderr(&check));
        assert_eq!(stdout(&check).trim(), "8");
    } else {
        eprintln!("python-chess not installed: PGN checked by this test's own reader only");
    }

    // `stats` re-reads the folder and prints the same standings.
    let stats = s.run_ok(&["stats", "res"]);
    assert_eq!(standings(&stdout(&stats)), printed, "{}", stdout(&stats));
}

/// The Standings table of a printed summary: engine, games, W, D, L, points per line.
fn standings(text: &str) -> Vec<Vec<String>> {
    let table: Vec<Vec<String>> = text
        .lines()
        .skip_while(|l| *l != "Standings")
        .skip(2)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| {
            l.split_whitespace()
                .skip(1)
                .take(6)
                .map(String::from)
                .collect()
        })
        .collect();
    assert!(!table.is_empty(), "no standings in: {text}");
    table
}

/// The same columns from the engine rows of `DIR/summary.csv`.
fn summary_csv_standings(s: &Scratch, dir: &str) -> Vec<Vec<String>> {
    csv_rows(&s.path(&format!("{dir}/summary.csv")))
        .iter()
        .filter(|r| r["kind"] == "engine")
        .map(|r| {
            ["engine", "games", "wins", "draws", "losses", "points"]
                .iter()
                .map(|c| r[*c].clone())
                .collect()
        })
        .collect()
}

/// Every fault mode of the `faulty` engine gets the ruling a user expects under the
/// engine-testing convention (`online`: an illegal move loses at once), and the run goes on.
/// Every engine is seeded: unseeded, `crasher` once mated `random` on its third move, before
/// its crash (CI, session 41), so the games are the same in every run.
#[test]
fn faulty_engines_are_ruled_and_the_run_goes_on() {
    let s = Scratch::new("faulty");
    s.write(
        "engines.toml",
        r#"
[engines.random]
builtin = "random"
options = { Seed = 1 }
tc = "30s+0"          # time odds: its games end by its opponents' faults, never its own flag
[engines.crasher]
builtin = "faulty"
args = ["--crash-after", "3", "--seed", "2"]
[engines.hanger]
builtin = "faulty"
args = ["--hang-after", "3", "--seed", "3"]
[engines.deaf]
builtin = "faulty"
args = ["--ignore-stop-after", "3", "--seed", "4"]
[engines.illegal]
builtin = "faulty"
args = ["--illegal-after", "3", "--seed", "5"]
[engines.nuller]
builtin = "faulty"
args = ["--null-after", "3", "--seed", "6"]
[engines.sleeper]
builtin = "faulty"
args = ["--slow-move-ms", "1500", "--seed", "7"]
[engines.noisy]
builtin = "faulty"
args = ["--garbage", "--huge-line", "5000000", "--seed", "8"]
tc = "30s+0"          # time odds: it streams 5 MB a move
"#,
    );
    s.run_ok(&[
        "gauntlet",
        "random",
        "--vs",
        "crasher,hanger,deaf,illegal,nuller,sleeper,noisy",
        "--tc",
        "1s+0",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--ruleset",
        "online",
        "--out",
        "res",
    ]);
    s.assert_no_engines_left();
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 14, "every game was played and recorded");

    let expect = |opponent: &str, termination: &str, detail: &str| {
        let games: Vec<_> = rows
            .iter()
            .filter(|r| r["white"] == opponent || r["black"] == opponent)
            .collect();
        assert_eq!(games.len(), 2, "{opponent}");
        for row in games {
            assert_eq!(row["termination"], termination, "{opponent}: {row:?}");
            let winner = if row["white"] == opponent {
                "0-1"
            } else {
                "1-0"
            };
            assert_eq!(row["result"], winner, "{opponent} loses: {row:?}");
            assert!(
                row["detail"].contains(detail),
                "{opponent}: {:?} lacks {detail:?}",
                row["detail"]
            );
        }
    };
    expect("crasher", "engine-crash", "exit");
    expect("hanger", "engine-stall", "stop");
    expect("deaf", "engine-stall", "stop");
    expect("illegal", "illegal-move", "played");
    expect("nuller", "illegal-move", "0000");
    expect("sleeper", "flag", "flag fell");
    // Garbage and a 5 MB line do not disturb the game.
    for row in rows
        .iter()
        .filter(|r| r["white"] == "noisy" || r["black"] == "noisy")
    {
        assert!(
            !["engine-crash", "engine-stall", "illegal-move", "flag"]
                .contains(&row["termination"].as_str()),
            "{row:?}"
        );
    }
    // The PGN names what happened.
    let pgn = std::fs::read_to_string(s.path("res/games.pgn")).unwrap();
    assert!(pgn.contains("[Termination \"abandoned\"]"));
    assert!(pgn.contains("[Termination \"rules infraction\"]"));
    assert!(pgn.contains("[Termination \"time forfeit\"]"));
}

#[test]
fn bad_input_gets_one_clear_line_and_no_game_starts() {
    let s = Scratch::new("bad");
    s.write(
        "engines.toml",
        r#"
[engines.random]
builtin = "random"
[engines.ghost]
cmd = "/nonexistent/engine"
[engines.picky]
builtin = "random"
options = { NoSuchOption = 3 }
"#,
    );
    let run = |extra: &[&str]| {
        let mut args = vec!["gauntlet", "random", "--vs"];
        args.extend_from_slice(extra);
        s.run(&args)
    };
    // Found only when the engine is looked for or started, yet named by its line.
    assert_one_line_error(
        &run(&["ghost", "--out", "r1"]),
        "engines.toml:4:10: engine `ghost`: /nonexistent/engine",
    );
    assert_usage_error(&run(&["nobody", "--out", "r2"]), "random");
    assert_one_line_error(
        &run(&["picky", "--out", "r3"]),
        "engines.toml:8:13: engine picky has no UCI option \"NoSuchOption\"",
    );
    assert_one_line_error(
        &run(&["random", "--out", "/proc/no/such/dir"]),
        "/proc/no/such/dir",
    );
    let bad_tc = run(&["random", "--tc", "5+x"]);
    assert_eq!(bad_tc.status.code(), Some(2));
    assert!(stderr(&bad_tc).contains("bad time control"));
    let unknown_flag = run(&["random", "--colour", "blue"]);
    assert_eq!(unknown_flag.status.code(), Some(2));
    for dir in ["r1", "r2", "r3"] {
        assert!(
            !s.path(dir).exists(),
            "{dir}: no results folder for a run that never started"
        );
    }

    s.write(
        "broken.toml",
        "[engines.a]\nbuiltin = \"random\"\ncmd = = 3\n",
    );
    assert_one_line_error(
        &s.run(&["gauntlet", "a", "--vs", "a", "--engines", "broken.toml"]),
        "broken.toml:3",
    );
    s.assert_no_engines_left();
}

#[test]
fn an_engine_that_never_says_uciok_stops_the_run_before_it_starts() {
    let s = Scratch::new("uciok");
    s.write("engines.toml", "[engines.random]\nbuiltin = \"random\"\n[engines.mute]\nbuiltin = \"faulty\"\nargs = [\"--no-uciok\"]\n");
    let out = s.run(&["gauntlet", "random", "--vs", "mute", "--out", "res"]);
    assert_one_line_error(&out, "uciok");
    assert!(!s.path("res").exists());
    s.assert_no_engines_left();
}

#[test]
fn check_lists_ids_and_options() {
    let s = Scratch::new("check");
    s.write("engines.toml", BUILTINS);
    let out = s.run_ok(&["check", "minimax", "random"]);
    let text = stdout(&out);
    assert!(text.contains("minimax: ok: blitz-arena minimax"), "{text}");
    assert!(text.contains("option Hash"), "{text}");
    assert!(text.contains("random: ok"), "{text}");
}

/// A long gauntlet of fast engines, started in the background, for the signal tests.
fn start_long_run(s: &Scratch) -> std::process::Child {
    s.write("engines.toml", BUILTINS);
    long_gauntlet(s, "greedy", "random")
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

#[test]
fn ctrl_c_keeps_finished_games_and_leaves_no_engine_behind() {
    let s = Scratch::new("sigint");
    let mut child = start_long_run(&s);
    wait_for_games(&s, "res/games.csv", 2);
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    let rows = csv_rows(&s.path("res/games.csv"));
    assert!(rows.len() >= 2 && rows.len() < 200);
    assert_eq!(
        pgn_games(&s.path("res/games.pgn")).len(),
        rows.len(),
        "PGN and CSV hold the same games"
    );
    assert!(s.path("res/summary.csv").exists());
    s.assert_no_engines_left();
}

#[test]
fn engines_die_with_the_arena_even_on_sigkill() {
    let s = Scratch::new("sigkill");
    let mut child = start_long_run(&s);
    wait_for_games(&s, "res/games.csv", 1);
    assert!(!s.leftovers().is_empty(), "engines are running");
    child.kill().unwrap();
    child.wait().unwrap();
    let start = Instant::now();
    while !s.leftovers().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(5),
            "engines outlived the arena: {:?}",
            s.leftovers()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    // Every line that made it to disk is a whole game.
    let rows = csv_rows(&s.path("res/games.csv"));
    assert!(!rows.is_empty());
}

#[test]
fn epd_and_pgn_books_set_up_every_game_and_run_table_options_apply() {
    let s = Scratch::new("books");
    s.write(
        "engines.toml",
        r#"
[run]
tc = "2s+0.02s"
games = 4
concurrency = 2
openings-order = "sequential"
seed = 9

[engines.greedy]
builtin = "greedy"
[engines.random]
builtin = "random"
"#,
    );
    s.write(
        "book.epd",
        "# two positions\n\
         rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id \"open game\";\n\
         rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\n",
    );
    let out = s.run_ok(&[
        "gauntlet",
        "greedy",
        "--vs",
        "random",
        "--openings",
        "book.epd",
        "--out",
        "epd",
    ]);
    assert!(
        stderr(&out).contains("tc 2s+0.02s") && stderr(&out).contains("seed 9"),
        "[run] applies: {}",
        stderr(&out)
    );
    let rows = csv_rows(&s.path("epd/games.csv"));
    assert_eq!(rows.len(), 4);
    let mut openings: Vec<&str> = rows.iter().map(|r| r["opening"].as_str()).collect();
    openings.sort();
    assert_eq!(
        openings,
        ["#3", "#3", "open game", "open game"],
        "each opening twice, colours swapped"
    );
    for (tags, _) in pgn_games(&s.path("epd/games.pgn")) {
        assert_eq!(tags["SetUp"], "1");
        assert!(tags["FEN"].contains("/4P3/"), "{tags:?}");
    }

    s.write(
        "book.pgn",
        "[Event \"book\"]\n[ECO \"C50\"]\n[Opening \"Italian\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bc4 *\n\n\
         [Event \"book\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\"]\n\n1. e3 Kd7 *\n",
    );
    // The command line wins over [run].
    s.run_ok(&[
        "gauntlet",
        "greedy",
        "--vs",
        "random",
        "--openings",
        "book.pgn",
        "--games",
        "2",
        "--out",
        "pgn",
    ]);
    let games = pgn_games(&s.path("pgn/games.pgn"));
    assert_eq!(games.len(), 2);
    for (tags, _) in &games {
        // The position after the book moves: black to move after 3. Bc4.
        assert_eq!(
            tags["FEN"],
            "r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3"
        );
        assert!(tags["Opening"].contains("Italian"), "{tags:?}");
    }
    let events = std::fs::read_to_string(s.path("pgn/events.jsonl")).unwrap();
    assert!(
        events.contains("\"moves\":[\"e2e4\",\"e7e5\",\"g1f3\",\"b8c6\",\"f1c4\"]"),
        "the book moves are in the record"
    );

    s.write(
        "bad.epd",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\nnot a fen\n",
    );
    assert_one_line_error(
        &s.run(&[
            "gauntlet",
            "greedy",
            "--vs",
            "random",
            "--openings",
            "bad.epd",
        ]),
        "bad.epd:2",
    );
}

/// `--resign-adjudication`: an engine whose own score stays at or below `-score` for
/// `movecount` moves loses; a score above the threshold does not count. (Both engines report
/// scores: a move without one breaks every streak.)
#[test]
fn resign_adjudication_gives_the_game_to_the_opponent_of_a_losing_engine() {
    let s = Scratch::new("resign");
    s.write(
        "engines.toml",
        r#"
[engines.gloomy]
builtin = "script"
args = ["--moves", "g1f3:cp=-200 f3g1:cp=-400 g1f3:cp=-350 f3g1:cp=-500"]
[engines.level]
builtin = "script"
args = ["--moves", "g8f6:cp=0 f6g8:cp=0 g8f6:cp=0 f6g8:cp=0"]
"#,
    );
    s.run_ok(&[
        "gauntlet",
        "gloomy",
        "--vs",
        "level",
        "--tc",
        "60+0",
        "--games",
        "1",
        "--resign-adjudication",
        "movecount=2,score=300",
        "--out",
        "res",
    ]);
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    // -200 does not count; -400 and -350 are two moves at or below -300: after white's third
    // move (ply 5) black wins.
    assert_eq!(
        (
            row["result"].as_str(),
            row["termination"].as_str(),
            row["rule"].as_str(),
            row["plies"].as_str()
        ),
        ("0-1", "adjudication", "arena: --resign-adjudication", "5"),
        "{row:?}"
    );
    assert!(
        row["detail"].contains("white scored -300 cp or worse for 2 moves"),
        "{row:?}"
    );
}

/// `--draw-adjudication`: once both engines' scores stay within `score` cp for `movecount`
/// moves each after move `movenumber`, the game is a draw.
#[test]
fn draw_adjudication_ends_dead_level_games() {
    let s = Scratch::new("draw-adjudication");
    s.write(
        "engines.toml",
        r#"
[engines.white]
builtin = "script"
args = ["--moves", "g1f3:cp=300 f3g1:cp=20 g1f3:cp=-30 f3g1:cp=0 g1f3:cp=0"]
[engines.black]
builtin = "script"
args = ["--moves", "g8f6:cp=-300 f6g8:cp=10 g8f6:cp=40 f6g8:cp=0 g8f6:cp=0"]
"#,
    );
    s.run_ok(&[
        "gauntlet",
        "white",
        "--vs",
        "black",
        "--tc",
        "60+0",
        "--games",
        "1",
        "--draw-adjudication",
        "movenumber=1,movecount=2,score=50",
        "--out",
        "res",
    ]);
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 1);
    let row = &rows[0];
    // Plies 1-2 are 300 cp apart; plies 3-6 are all within 50 cp: two moves each.
    assert_eq!(
        (
            row["result"].as_str(),
            row["termination"].as_str(),
            row["rule"].as_str(),
            row["plies"].as_str()
        ),
        ("1/2-1/2", "adjudication", "arena: --draw-adjudication", "6"),
        "{row:?}"
    );
}
