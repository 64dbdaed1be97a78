//! Syzygy tablebase adjudication end to end (`--tb`, `--tb-pieces`, `[run] tb`): the real
//! binary, built-in `script` engines (and Stockfish) from FEN openings that reach 3-5-piece
//! positions, and the real tables of tests/data/syzygy (generated with syzygy1/tb; see the
//! README there).

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use blitz_arena::event::Side;
use common::*;

fn tables() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/syzygy")
}

/// White's king takes the knight on b2: K+R against a bare king, a win for white.
const KNIGHT_HANGS: &str = "8/8/8/3k4/8/8/1n6/KR6 w - - 0 1";
/// The same with a black rook on h8: K+R against K+R, a draw.
const ROOK_EACH: &str = "7r/8/8/3k4/8/8/1n6/KR6 w - - 0 1";
/// Black's knight takes the pawn on b2, leaving K+B+N against K+N with white to move: a win
/// for white in 76 moves (152 plies to the next capture), a cursed win (fastchess's test
/// position).
const CURSED: &str = "8/8/8/8/n7/8/1P5B/2K1N2k b - - 0 1";

/// A scratch folder with two scripted engines, `white` and `black`, and a one-line book.
fn scripted(label: &str, fen: &str, white: &str, black: &str, run: &str) -> Scratch {
    let s = Scratch::new(label);
    let engine = |moves: &str| {
        if moves.is_empty() {
            "builtin = \"script\"\n".to_string()
        } else {
            format!("builtin = \"script\"\nargs = [\"--moves\", {moves:?}]\n")
        }
    };
    s.write(
        "engines.toml",
        &format!(
            "{run}\n[engines.white]\n{}\n[engines.black]\n{}",
            engine(white),
            engine(black)
        ),
    );
    s.write("book.fen", &format!("{fen}\n"));
    s
}

/// Plays the book's position once, white first, with `options`; returns the game's row.
fn play(s: &Scratch, options: &[&str]) -> HashMap<String, String> {
    let mut args = vec![
        "gauntlet",
        "white",
        "--vs",
        "black",
        "--openings",
        "book.fen",
        "--games",
        "1",
        "--seed",
        "1",
        "--out",
        "res",
    ];
    args.extend_from_slice(options);
    let out = s.run_ok(&args);
    s.assert_no_engines_left();
    let err = stderr(&out);
    assert!(
        err.contains("tablebases: ") || !options.contains(&"--tb"),
        "{err}"
    );
    csv_rows(&s.path("res/games.csv")).remove(0)
}

fn ending(row: &HashMap<String, String>) -> (&str, &str, &str) {
    (&row["result"], &row["termination"], &row["rule"])
}

#[test]
fn a_capture_into_the_tables_ends_the_game_with_their_win() {
    let s = scripted("tb-win", KNIGHT_HANGS, "a1b2", "", "");
    let tb = tables().display().to_string();
    let row = play(&s, &["--tc", "10s+0", "--tb", &tb]);
    assert_eq!(ending(&row), ("1-0", "tablebase", "arena: --tb"));
    assert_eq!(row["detail"], "tablebase: KRvK is a win for white");
    assert_eq!(row["plies"], "1");
    // The PGN: an adjudication, the verdict in the final comment.
    let games = pgn_games(&s.path("res/games.pgn"));
    let (tags, movetext) = &games[0];
    assert_eq!(tags["Termination"], "adjudication");
    assert_eq!(tags["RuleCited"], "arena: --tb");
    assert_eq!(tags["Result"], "1-0");
    assert!(
        movetext.contains("tablebase: KRvK is a win for white"),
        "{movetext}"
    );
    // The record holds the verdict as an event, and the plan the tables (for --resume).
    let events = std::fs::read_to_string(s.path("res/events.jsonl")).unwrap();
    assert!(
        events.contains(r#""event":"tablebase","t_us":"#)
            && events.contains(r#""material":"KRvK","wdl":"win","winner":"white"}"#),
        "{events}"
    );
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.path("res/run.json")).unwrap()).unwrap();
    assert_eq!(plan["tablebase"]["pieces"], 5);
    assert_eq!(plan["tablebase"]["paths"][0], tb.as_str());
    // Re-ruled under another ruleset, the record gives the same ending.
    let out = s.run_ok(&["adjudicate", "res", "--ruleset", "house"]);
    assert!(
        stdout(&out).contains("1 game, 0 rulings differ under house, 0 undetermined, 1 the same"),
        "{}",
        stdout(&out)
    );
    // The summary counts the termination.
    let summary = stdout(&s.run_ok(&["stats", "res"]));
    assert!(summary.contains("tablebase"), "{summary}");
}

#[test]
fn a_draw_in_the_tables_and_tb_pieces_from_the_run_table() {
    let tb = tables().display().to_string();
    let s = scripted("tb-draw", ROOK_EACH, "a1b2", "h8h7", "");
    let row = play(&s, &["--tc", "10s+0", "--tb", &tb]);
    assert_eq!(ending(&row), ("1/2-1/2", "tablebase", "arena: --tb"));
    assert_eq!(row["detail"], "tablebase: KRvKR is a draw");
    // `[run] tb` with `tb-pieces = 3`: four pieces are left to the engines, and the game goes
    // on to --max-moves.
    let run = format!("[run]\ntb = {tb:?}\ntb-pieces = 3\n");
    let s = scripted("tb-pieces", ROOK_EACH, "a1b2", "h8h7", &run);
    let out = s.run_ok(&[
        "gauntlet",
        "white",
        "--vs",
        "black",
        "--openings",
        "book.fen",
        "--games",
        "1",
        "--tc",
        "10s+0",
        "--max-moves",
        "1",
        "--out",
        "res",
    ]);
    assert!(
        stderr(&out).contains("positions of at most 3 pieces are adjudicated"),
        "{}",
        stderr(&out)
    );
    let row = csv_rows(&s.path("res/games.csv")).remove(0);
    assert_eq!(ending(&row), ("1/2-1/2", "max-moves", "arena: --max-moves"));
    s.assert_no_engines_left();
}

#[test]
fn a_cursed_win_is_a_draw_under_the_fifty_move_rule() {
    let tb = tables().display().to_string();
    // Black moves first: its knight takes the pawn, and white has the cursed win.
    let s = scripted("tb-cursed", CURSED, "", "a4b2", "");
    let row = play(&s, &["--tc", "10s+0", "--tb", &tb]);
    assert_eq!(ending(&row), ("1/2-1/2", "tablebase", "arena: --tb"));
    assert_eq!(
        row["detail"],
        "tablebase: KBNvKN is a cursed win for white: a draw under the 50-move rule"
    );
    assert_eq!(row["plies"], "1");
}

/// FIDE: white's flag fell at 1 s and black's watcher never notices it; at 1.5 s white takes
/// the knight, a win for white by the tables. The flag still counts: black's claim, completed
/// at the adjudication, with a bare king, is a draw (FIDE 6.9); under house rules black wins
/// (H3.1, H10). `adjudicate` re-rules the recorded game to the same house ruling.
#[test]
fn a_flag_that_fell_before_the_adjudication_still_counts() {
    let tb = tables().display().to_string();
    let options = |ruleset| {
        [
            "--tc",
            "1s+0",
            "--flag-notice-after",
            "never",
            "--ruleset",
            ruleset,
        ]
    };
    let s = scripted("tb-flag", KNIGHT_HANGS, "a1b2@1500ms", "", "");
    let mut args = options("fide").to_vec();
    args.extend(["--tb", &tb]);
    let row = play(&s, &args);
    assert_eq!(ending(&row), ("1/2-1/2", "flag", "FIDE A4.3"));
    assert_eq!(flag_on_clock_ms(&s.path("res"), Side::White), Some(1000));
    // The detail's instants are the game's, from its start: the first `go` is written a
    // little after it (a millisecond or more on a loaded machine), so only their seconds and
    // tenths are exact here; the flag on the clock is (above).
    let detail = &row["detail"];
    assert!(
        detail.starts_with("white flag fell at 1.0")
            && detail.contains("; not claimed before the tablebase adjudication at 1.5")
            && detail.contains(
                "(KRvK is a win for white): the flag counts, black flag up; black cannot mate"
            ),
        "{detail}"
    );
    let out = s.run_ok(&["adjudicate", "res", "--ruleset", "house"]);
    let text = stdout(&out);
    assert!(
        text.contains("under house:") && text.contains("0-1, flag (H3.1, H10)"),
        "{text}"
    );
    // Played under house rules, the same.
    let s = scripted("tb-flag-house", KNIGHT_HANGS, "a1b2@1500ms", "", "");
    let mut args = options("house").to_vec();
    args.extend(["--tb", &tb]);
    let row = play(&s, &args);
    assert_eq!(ending(&row), ("0-1", "flag", "H3.1, H10"));
}

#[test]
fn missing_or_unreadable_tables_stop_the_run_before_it_starts() {
    let s = scripted("tb-bad", KNIGHT_HANGS, "a1b2", "", "");
    let gauntlet = |extra: &[&str]| {
        let mut args = vec!["gauntlet", "white", "--vs", "black", "--out", "res"];
        args.extend_from_slice(extra);
        s.run(&args)
    };
    assert_usage_error(
        &gauntlet(&["--tb", "/no/such/tables"]),
        "--tb: /no/such/tables: no such folder",
    );
    let file = tables().join("KRvK.rtbw").display().to_string();
    assert_usage_error(&gauntlet(&["--tb", &file]), "KRvK.rtbw: not a folder");
    // A second folder that is missing, after a good one.
    let two = format!("{};/no/such/tables", tables().display());
    assert_usage_error(
        &gauntlet(&["--tb", &two]),
        "/no/such/tables: no such folder",
    );
    let empty = s.path("empty");
    std::fs::create_dir(&empty).unwrap();
    assert_usage_error(
        &gauntlet(&["--tb", &empty.display().to_string()]),
        "--tb: no Syzygy WDL table (*.rtbw) in",
    );
    // A table file that is not one.
    let bad = s.path("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(bad.join("KQvK.rtbw"), [0u8; 80]).unwrap();
    assert_usage_error(
        &gauntlet(&["--tb", &bad.display().to_string()]),
        "KQvK.rtbw: not a Syzygy WDL table",
    );
    let tb = tables().display().to_string();
    assert_usage_error(
        &gauntlet(&["--tb", &tb, "--tb-pieces", "2"]),
        "2 is out of range: give a number from 3 to 7",
    );
    assert_usage_error(&gauntlet(&["--tb-pieces", "4"]), "--tb-pieces limits --tb");
    assert_usage_error(&gauntlet(&["--tb", ":"]), "bad --tb");
    // A resumed run keeps the tables it was planned with.
    let resume = s.run(&[
        "gauntlet", "white", "--vs", "black", "--resume", "old", "--tb", &tb,
    ]);
    assert_usage_error(&resume, "drop --tb");
    assert!(!s.path("res").exists(), "no results folder");
    s.assert_no_engines_left();
    // engines.toml's `[run] tb`, relative to the file's folder.
    let s = scripted(
        "tb-bad-toml",
        KNIGHT_HANGS,
        "a1b2",
        "",
        "[run]\ntb = \"tables\"\n",
    );
    let out = s.run(&["gauntlet", "white", "--vs", "black", "--out", "res"]);
    let missing = s.path("tables").display().to_string();
    assert_usage_error(&out, &format!("--tb: {missing}: no such folder"));
    assert!(!s.path("res").exists(), "no results folder");
}

/// `--resume` opens the tables the run was planned with (run.json), and says so when they
/// are gone.
#[test]
fn a_resumed_run_opens_its_planned_tables() {
    let s = scripted("tb-resume", KNIGHT_HANGS, "a1b2", "", "");
    let copy = s.path("tables");
    std::fs::create_dir(&copy).unwrap();
    std::fs::copy(tables().join("KRvK.rtbw"), copy.join("KRvK.rtbw")).unwrap();
    let row = play(&s, &["--tc", "10s+0", "--tb", "tables"]);
    assert_eq!(row["detail"], "tablebase: KRvK is a win for white");
    let resume = ["gauntlet", "white", "--vs", "black", "--resume", "res"];
    let out = s.run_ok(&resume);
    let planned = format!(
        "tablebases: {} | positions of at most 3 pieces",
        copy.display()
    );
    assert!(stderr(&out).contains(&planned), "{}", stderr(&out));
    std::fs::remove_dir_all(&copy).unwrap();
    assert_usage_error(
        &s.run(&resume),
        &format!(
            "--tb: {}: no such folder (the run was planned with these tables)",
            copy.display()
        ),
    );
}

/// Stockfish plays white from K+Q against K+Q, in check from the queen on b2: every legal
/// move takes it, leaving K+Q against K, a win for white in the tables.
#[test]
fn stockfish_takes_the_queen_and_the_tables_end_the_game() {
    if !debian_engines(&["stockfish"]) {
        return;
    }
    let s = Scratch::new("tb-stockfish");
    s.write(
        "engines.toml",
        "[engines.stockfish]\ncmd = \"/usr/games/stockfish\"\noptions = { Hash = 16, Threads = 1 }\n\
         [engines.random]\nbuiltin = \"random\"\n",
    );
    s.write("book.fen", "8/8/8/3k4/8/8/1q6/KQ6 w - - 0 1\n");
    let tb = tables().display().to_string();
    s.run_ok(&[
        "gauntlet",
        "stockfish",
        "--vs",
        "random",
        "--openings",
        "book.fen",
        "--games",
        "2",
        "--tc",
        "60+0",
        "--nodes",
        "20000",
        "--tb",
        &tb,
        "--out",
        "res",
    ]);
    s.assert_no_engines_left();
    for row in csv_rows(&s.path("res/games.csv")) {
        // Both colours: whoever has white takes the queen at once.
        assert_eq!(ending(&row), ("1-0", "tablebase", "arena: --tb"), "{row:?}");
        assert_eq!(row["detail"], "tablebase: KQvK is a win for white");
        assert_eq!(row["plies"], "1");
    }
}
