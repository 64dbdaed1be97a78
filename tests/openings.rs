//! Opening books end to end: a real Polyglot book (made by Debian's `polyglot make-book`,
//! tests/data/polyglot/README.md) read as python-chess reads it, and runs of the real arena
//! with `--openings book.bin --book-depth`, `--openings-start` and `--opening-plies`.

mod common;

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use blitz_arena::openings::polyglot::{self, PolyglotBook};
use common::*;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

const ENGINES: &str = r#"
[engines.instant]
builtin = "instant"

[engines.random]
builtin = "random"
"#;

fn book_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/polyglot/book.bin")
}

/// Every position the book's moves reach from the start position, with its key and entries
/// (raw move, weight, the move in UCI), as blitz-arena reads them: one line each,
/// `FEN<TAB>key<TAB>raw:weight:uci ...`.
fn positions_in_book(book: &PolyglotBook) -> Vec<String> {
    let mut lines = Vec::new();
    let mut seen = HashSet::new();
    let mut queue = VecDeque::from([Chess::default()]);
    while let Some(pos) = queue.pop_front() {
        if !seen.insert(polyglot::key(&pos)) {
            continue;
        }
        let entries = book.entries(&pos);
        if entries.is_empty() {
            continue;
        }
        let mut fields = Vec::new();
        for e in entries {
            let m = polyglot::legal_move(&pos, e.raw_move).expect("a book move is legal");
            fields.push(format!(
                "{}:{}:{}",
                e.raw_move,
                e.weight,
                m.to_uci(CastlingMode::Standard)
            ));
            let mut next = pos.clone();
            next.play_unchecked(m);
            queue.push_back(next);
        }
        lines.push(format!(
            "{}\t{:016x}\t{}",
            Fen::from_position(&pos, EnPassantMode::Legal),
            polyglot::key(&pos),
            fields.join(" ")
        ));
    }
    lines
}

/// python-chess's `chess.polyglot` reads the same keys, moves and weights, in the same order,
/// for every position of the book reached from the start.
#[test]
fn the_book_reads_as_python_chess_reads_it() {
    if !python_chess() {
        assert!(!in_ci(), "python-chess is needed (CI installs it)");
        eprintln!("skipped: python-chess is not installed");
        return;
    }
    let data = std::fs::read(book_path()).unwrap();
    let book = PolyglotBook::from_bytes(&book_path(), &data).unwrap();
    let ours = positions_in_book(&book);
    // The book's lines: castling both ways and an en-passant capture are in it.
    let all = ours.join("\n");
    for uci in [":e1g1", ":e8g8", ":e5d6"] {
        assert!(all.contains(uci), "{uci} not in the book walk");
    }
    let s = Scratch::new("polyglot-python");
    let ours_file = s.write("ours.txt", &(ours.join("\n") + "\n"));
    let script = r#"
import sys, chess, chess.polyglot
book, ours = sys.argv[1], sys.argv[2]
count = 0
with chess.polyglot.open_reader(book) as reader:
    for line in open(ours):
        fen, key, entries = line.rstrip("\n").split("\t")
        board = chess.Board(fen)
        theirs = "%016x" % chess.polyglot.zobrist_hash(board)
        assert theirs == key, (fen, key, theirs)
        found = " ".join("%d:%d:%s" % (e.raw_move, e.weight, e.move.uci())
                         for e in reader.find_all(board, minimum_weight=0))
        assert found == entries, (fen, entries, found)
        count += sum(1 for _ in entries.split())
print(count)
"#;
    let checked: usize = python(script, [book_path(), ours_file.clone()])
        .trim()
        .parse()
        .unwrap();
    assert!(ours.len() > 50, "only {} positions", ours.len());
    assert!(checked >= ours.len(), "{checked} entries checked");
}

/// The openings each game of a run records (games in order): events.jsonl's `opening.moves`.
fn recorded_openings(dir: &Path) -> Vec<(String, Vec<String>)> {
    let text = std::fs::read_to_string(dir.join("events.jsonl")).unwrap();
    let mut games: Vec<(u64, String, Vec<String>)> = text
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let moves = v["opening"]["moves"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| m.as_str().unwrap().to_string())
                .collect();
            (
                v["game"].as_u64().unwrap(),
                v["opening"]["name"].as_str().unwrap().to_string(),
                moves,
            )
        })
        .collect();
    games.sort();
    games.into_iter().map(|(_, n, m)| (n, m)).collect()
}

fn run_args<'a>(book: &'a str, out: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "gauntlet",
        "instant",
        "--vs",
        "random",
        "--tc",
        "60s+1s",
        "--max-moves",
        "20",
        "--concurrency",
        "2",
        "--openings",
        book,
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    args
}

/// `--openings book.bin --book-depth 6`: every pair of games plays one line drawn from the
/// book (weighted, seeded by --seed: the same seed draws the same lines), colours swapped;
/// each line is at most 6 plies, every move of it is in the book, and a resumed or repeated
/// run replays exactly these.
#[test]
fn a_polyglot_book_gives_each_pair_a_seeded_line() {
    let s = Scratch::new("polyglot-run");
    s.write("engines.toml", ENGINES);
    let book = book_path().display().to_string();
    let extra = ["--book-depth", "6", "--games", "8", "--seed", "5"];
    s.run_ok(&run_args(&book, "a", &extra));
    s.run_ok(&run_args(&book, "b", &extra));
    assert_no_leftovers(&s);
    let a = recorded_openings(&s.path("a"));
    assert_eq!(a.len(), 8);
    assert_eq!(
        a,
        recorded_openings(&s.path("b")),
        "the same seed, the same lines"
    );
    let data = std::fs::read(book_path()).unwrap();
    let polyglot_book = PolyglotBook::from_bytes(&book_path(), &data).unwrap();
    for pair in a.chunks(2) {
        assert_eq!(pair[0], pair[1], "both games of a pair play one line");
        let (name, moves) = &pair[0];
        assert!(name.starts_with('#'), "{name}");
        assert!(!moves.is_empty() && moves.len() <= 6, "{moves:?}");
        // Each move is one of the book's moves in the position before it.
        let mut pos = Chess::default();
        for uci in moves {
            let listed: Vec<String> = polyglot_book
                .entries(&pos)
                .iter()
                .map(|e| {
                    let m = polyglot::legal_move(&pos, e.raw_move).unwrap();
                    m.to_uci(CastlingMode::Standard).to_string()
                })
                .collect();
            assert!(listed.contains(uci), "{uci} not among {listed:?}");
            let m = uci
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&pos)
                .unwrap();
            pos.play_unchecked(m);
        }
    }
    let lines: HashSet<&Vec<String>> = a.iter().map(|(_, m)| m).collect();
    assert!(lines.len() > 1, "four pairs drew a single line: {lines:?}");
    // The plan holds the lines drawn, and the options they were drawn with.
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.path("a/run.json")).unwrap()).unwrap();
    assert_eq!(plan["book_depth"], 6);
    assert_eq!(plan["book"].as_array().unwrap().len(), 4);
    // Another seed draws other lines.
    s.run_ok(&run_args(
        &book,
        "c",
        &["--book-depth", "6", "--games", "8", "--seed", "6"],
    ));
    assert_ne!(a, recorded_openings(&s.path("c")));
    // --openings-start 3: the lines drawn start at line #3, which is line #3 of seed 5.
    s.run_ok(&run_args(
        &book,
        "d",
        &[
            "--book-depth",
            "6",
            "--games",
            "2",
            "--seed",
            "5",
            "--openings-order",
            "sequential",
            "--openings-start",
            "3",
        ],
    ));
    let d = recorded_openings(&s.path("d"));
    assert_eq!(d[0].0, "#3");
    let third = a.iter().find(|(n, _)| n == "#3").unwrap();
    assert_eq!(&d[0], third);
    assert_no_leftovers(&s);
}

/// `--openings-start N` on a PGN book starts at its N-th game; `--opening-plies N` plays at
/// most N plies of each.
#[test]
fn openings_start_and_opening_plies_on_a_pgn_book() {
    let s = Scratch::new("pgn-start-plies");
    // `[run] opening-plies` as well as the command line.
    s.write(
        "engines.toml",
        &format!("[run]\nopening-plies = 3\n{ENGINES}"),
    );
    s.write(
        "book.pgn",
        "[Opening \"one\"]\n\n1. e4 e5 2. Nf3 Nc6 *\n\n\
         [Opening \"two\"]\n\n1. d4 d5 2. c4 e6 *\n\n\
         [Opening \"three\"]\n\n1. c4 e5 2. Nc3 Nf6 *\n",
    );
    let extra = [
        "--games",
        "4",
        "--openings-order",
        "sequential",
        "--openings-start",
        "2",
    ];
    s.run_ok(&run_args("book.pgn", "out", &extra));
    let games = recorded_openings(&s.path("out"));
    let expected = |name: &str, moves: &[&str]| {
        (
            name.to_string(),
            moves.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        games,
        [
            expected("two", &["d2d4", "d7d5", "c2c4"]),
            expected("two", &["d2d4", "d7d5", "c2c4"]),
            expected("three", &["c2c4", "e7e5", "b1c3"]),
            expected("three", &["c2c4", "e7e5", "b1c3"]),
        ]
    );
    // The plan keeps the start: a resumed run goes on from the same opening.
    let plan: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(s.path("out/run.json")).unwrap()).unwrap();
    assert_eq!(plan["openings_start"], 2);
    assert_eq!(plan["opening_plies"], 3);
    assert_no_leftovers(&s);
}

/// An option for another kind of book, or without a book, is a usage error naming both.
#[test]
fn book_options_for_another_format_are_refused() {
    let s = Scratch::new("book-option-errors");
    s.write("engines.toml", ENGINES);
    s.write(
        "book.epd",
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n",
    );
    let book = book_path().display().to_string();
    for (extra, says) in [
        (
            vec!["--openings", "book.epd", "--book-depth", "4"],
            "--book-depth limits",
        ),
        (
            vec!["--openings", "book.epd", "--opening-plies", "4"],
            "is an EPD/FEN book",
        ),
        (
            vec!["--openings", &book, "--opening-plies", "4"],
            "--book-depth",
        ),
        (vec!["--book-depth", "4"], "needs an opening book"),
        (vec!["--openings-start", "2"], "needs an opening book"),
    ] {
        let mut args = vec!["gauntlet", "instant", "--vs", "random", "--out", "x"];
        args.extend(extra);
        assert_usage_error(&s.run(&args), says);
    }
    // A file that is not a Polyglot book, named .bin: one line, exit 1.
    s.write("bad.bin", "not a book\n");
    let out = s.run(&[
        "gauntlet",
        "instant",
        "--vs",
        "random",
        "--openings",
        "bad.bin",
    ]);
    assert_one_line_error(&out, "not a Polyglot book");
    assert!(!s.path("x").exists());
}

/// A Polyglot run's shards draw the same lines as the whole run, and merge into it; the
/// lines live in run.json, so a resumed run needs no book file and cannot change its depth.
#[test]
fn polyglot_shards_merge_and_resume_without_the_book() {
    let s = Scratch::new("polyglot-shards");
    // `[run] book-depth` as well as the command line.
    s.write("engines.toml", &format!("[run]\nbook-depth = 4\n{ENGINES}"));
    std::fs::copy(book_path(), s.path("book.bin")).unwrap();
    let extra = ["--games", "8", "--seed", "9"];
    s.run_ok(&run_args("book.bin", "whole", &extra));
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let out = format!("shard{k}");
        let mut with_shard = extra.to_vec();
        with_shard.extend(["--shard", &shard]);
        s.run_ok(&run_args("book.bin", &out, &with_shard));
    }
    s.run_ok(&["merge", "shard1", "shard2", "--out", "merged"]);
    let whole = recorded_openings(&s.path("whole"));
    assert_eq!(whole.len(), 8);
    assert_eq!(recorded_openings(&s.path("merged")), whole);
    assert!(whole.iter().all(|(_, moves)| moves.len() <= 4), "{whole:?}");
    std::fs::remove_file(s.path("book.bin")).unwrap();
    let resume = ["gauntlet", "instant", "--vs", "random", "--resume", "whole"];
    s.run_ok(&resume);
    let mut changed = resume.to_vec();
    changed.extend(["--book-depth", "5"]);
    assert_usage_error(&s.run(&changed), "drop --book-depth");
    assert_no_leftovers(&s);
}
