//! Chess960 end to end (`--variant chess960`): the built-in engines and Stockfish play from
//! tests/data/chess960/chess960.epd with `UCI_Chess960` set, castling is the king taking its
//! own rook, every PGN loads in python-chess as a Chess960 game, and a recorded run is
//! re-ruled exactly; an engine without the option is refused before any game.

mod common;

use std::path::Path;

use common::*;

fn book() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/chess960/chess960.epd")
        .display()
        .to_string()
}

/// Every game of `pgn` loads in python-chess as Chess960 (its `Variant` tag), and every move
/// is legal there; returns the number of games and of castling moves.
fn python_chess_reads(pgn: &Path) -> (usize, usize) {
    if !python_chess() {
        assert!(!in_ci(), "python-chess is needed (CI installs it)");
        eprintln!("skipped the python-chess check: not installed");
        return (0, 0);
    }
    let script = r#"
import sys, chess.pgn
games = castles = 0
with open(sys.argv[1]) as f:
    while True:
        game = chess.pgn.read_game(f)
        if game is None:
            break
        games += 1
        assert game.headers.get("Variant") == "Chess960", game.headers
        assert not game.errors, game.errors
        board = game.board()
        assert board.chess960
        for move in game.mainline_moves():
            assert move in board.legal_moves, (board.fen(), move)
            castles += board.is_castling(move)
            board.push(move)
print(games, castles)
"#;
    let text = python(script, [pgn]);
    let mut numbers = text.split_whitespace().map(|n| n.parse().unwrap());
    (numbers.next().unwrap(), numbers.next().unwrap())
}

/// Scripted castling both ways from position 518 (the standard array, Shredder-FEN `HAha`):
/// in Chess960 the record (and every engine) gets `e1h1` and `e8a8`, the king taking its rook;
/// in standard chess the same castling is `e1g1` and `e8c8`.
#[test]
fn castling_is_the_king_taking_its_rook() {
    let s = Scratch::new("960-castling");
    s.write(
        "engines.toml",
        r#"
[engines.w]
builtin = "script"
args = ["--moves", "g1f3 e2e3 f1e2 e1h1 d2d3"]
[engines.b]
builtin = "script"
args = ["--moves", "b8c6 d7d6 c8e6 d8d7 e8a8"]
"#,
    );
    s.write(
        "start.epd",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - id \"960-518\";\n",
    );
    let run = |variant: &str, out: &str| {
        s.run_ok(&[
            "gauntlet",
            "w",
            "--vs",
            "b",
            "--variant",
            variant,
            "--openings",
            "start.epd",
            "--games",
            "1",
            "--max-moves",
            "5",
            "--ruleset",
            "online",
            "--out",
            out,
        ])
    };
    run("chess960", "c960");
    let row = &csv_rows(&s.path("c960/games.csv"))[0];
    assert_eq!(row["termination"], "max-moves", "{row:?}");
    assert_eq!(row["illegal_moves"], "0", "{row:?}");
    let events = std::fs::read_to_string(s.path("c960/events.jsonl")).unwrap();
    assert!(events.contains(r#""uci":"e1h1""#), "{events}");
    assert!(events.contains(r#""uci":"e8a8""#), "{events}");
    assert!(events.contains(r#""variant":"chess960""#), "{events}");
    let pgn = std::fs::read_to_string(s.path("c960/games.pgn")).unwrap();
    assert!(pgn.contains("[Variant \"Chess960\"]"), "{pgn}");
    // Words, not lines: where the PGN wraps depends on its comments (a starved move has one).
    let words: Vec<&str> = pgn.split_whitespace().collect();
    assert!(words.contains(&"O-O") && words.contains(&"O-O-O"), "{pgn}");
    let (games, castles) = python_chess_reads(&s.path("c960/games.pgn"));
    assert!(
        games == 0 || (games, castles) == (1, 2),
        "{games} {castles}"
    );
    // In standard chess the same castling is recorded (and sent on) as the king's two steps.
    s.run_ok(&[
        "gauntlet",
        "w",
        "--vs",
        "b",
        "--openings",
        "start.epd",
        "--games",
        "1",
        "--max-moves",
        "5",
        "--ruleset",
        "online",
        "--out",
        "standard",
    ]);
    let events = std::fs::read_to_string(s.path("standard/events.jsonl")).unwrap();
    assert!(events.contains(r#""uci":"e1g1""#), "{events}");
    assert!(events.contains(r#""uci":"e8c8""#), "{events}");
    assert!(!events.contains("chess960"), "{events}");
    assert_no_leftovers(&s);
}

/// The built-in engines play the test book (`[run] variant`) with illegal moves injected: every game is ruled,
/// loads in python-chess as Chess960, and re-rules to the same result from events.jsonl.
#[test]
fn builtin_engines_play_chess960_and_the_record_re_rules_exactly() {
    let s = Scratch::new("960-builtin");
    s.write(
        "engines.toml",
        "[run]\nvariant = \"chess960\"\n[engines.minimax]\nbuiltin = \"minimax\"\n[engines.greedy]\nbuiltin = \"greedy\"\n[engines.random]\nbuiltin = \"random\"\n",
    );
    let book = book();
    let out = s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "greedy,random",
        "--openings",
        &book,
        "--games",
        "6",
        "--depth",
        "2",
        "--max-moves",
        "60",
        "--tc",
        "60s+0.1s",
        "--inject-illegal",
        "0.05",
        "--seed",
        "4",
        "--concurrency",
        "2",
        "--out",
        "res",
    ]);
    assert!(
        stdout(&out).contains("invariants: held in all 12 games"),
        "{}",
        stdout(&out)
    );
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 12);
    assert!(
        rows.iter().all(|r| r["opening"].starts_with("960-")),
        "{rows:?}"
    );
    let (games, _) = python_chess_reads(&s.path("res/games.pgn"));
    assert!(games == 0 || games == 12);
    let plan = std::fs::read_to_string(s.path("res/run.json")).unwrap();
    assert!(plan.contains(r#""variant": "chess960""#), "{plan}");
    assert!(plan.contains("UCI_Chess960"), "{plan}");
    let again = s.run_ok(&["adjudicate", "res", "--ruleset", "fide"]);
    assert!(
        stdout(&again).contains("12 games, 0 rulings differ under fide"),
        "{}",
        stdout(&again)
    );
    assert_no_leftovers(&s);
}

/// Stockfish declares UCI_Chess960: it plays the book against minimax without an illegal move.
#[test]
fn stockfish_plays_chess960() {
    if !debian_engines(&["stockfish"]) {
        return;
    }
    let s = Scratch::new("960-stockfish");
    s.write(
        "engines.toml",
        "[engines.stockfish]\ncmd = \"/usr/games/stockfish\"\noptions = { Hash = 16, Threads = 1 }\n[engines.minimax]\nbuiltin = \"minimax\"\n",
    );
    let book = book();
    s.run_ok(&[
        "gauntlet",
        "stockfish",
        "--vs",
        "minimax",
        "--variant",
        "chess960",
        "--openings",
        &book,
        "--games",
        "4",
        "--nodes",
        "5000",
        "--depth",
        "3",
        "--max-moves",
        "60",
        "--tc",
        "60+0",
        "--seed",
        "2",
        "--concurrency",
        "2",
        "--out",
        "res",
    ]);
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(row["illegal_moves"], "0", "{row:?}");
        assert!(
            [
                "checkmate",
                "max-moves",
                "stalemate",
                "insufficient-material",
                "dead-position",
                "threefold",
                "fivefold",
                "fifty-moves",
                "seventy-five-moves"
            ]
            .contains(&row["termination"].as_str()),
            "{row:?}"
        );
    }
    let (games, _) = python_chess_reads(&s.path("res/games.pgn"));
    assert!(games == 0 || games == 4);
    assert_no_leftovers(&s);
}

/// An engine that does not declare UCI_Chess960 is refused with one line, before any game;
/// `--variant chess960` without a book, or with a Polyglot book, is a usage error.
#[test]
fn chess960_needs_engines_that_declare_it_and_a_book() {
    let s = Scratch::new("960-refused");
    let engine = s.write(
        "plain.py",
        "import sys\nfor line in sys.stdin:\n    c = line.strip()\n    if c == 'uci':\n        print('id name plain', flush=True)\n        print('uciok', flush=True)\n    elif c == 'isready':\n        print('readyok', flush=True)\n    elif c == 'quit':\n        break\n",
    );
    s.write(
        "engines.toml",
        &format!(
            "[engines.plain]\ncmd = \"python3\"\nargs = [{:?}]\n[engines.random]\nbuiltin = \"random\"\n",
            engine.display().to_string()
        ),
    );
    let book = book();
    let out = s.run(&[
        "gauntlet",
        "random",
        "--vs",
        "plain",
        "--variant",
        "chess960",
        "--openings",
        &book,
        "--out",
        "res",
    ]);
    assert_one_line_error(&out, "engine plain cannot play Chess960");
    assert!(!s.path("res").exists());
    let out = s.run(&[
        "gauntlet",
        "random",
        "--vs",
        "plain",
        "--variant",
        "chess960",
    ]);
    assert_usage_error(&out, "needs a book of Chess960 start positions");
    let polyglot = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/polyglot/book.bin");
    let out = s.run(&[
        "gauntlet",
        "random",
        "--vs",
        "plain",
        "--variant",
        "chess960",
        "--openings",
        &polyglot.display().to_string(),
    ]);
    assert_usage_error(&out, "holds standard chess only");
    assert_no_leftovers(&s);
}
