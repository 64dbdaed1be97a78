//! Opening books (EPD/FEN, PGN and Polyglot): any file gives openings or a one-line error naming the
//! file, never a panic; and a book of legal games or positions is read exactly.

use blitz_arena::openings::load_openings;
use proptest::prelude::*;
use proptest::sample::{select, Index};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Position};

use super::{assert_one_line, check, mutated_one_of, Scratch};

const PGN_BOOK: &str = r#"[Event "book"]
[Site "?"]
[ECO "C60"]
[Opening "Ruy Lopez"]
[Variation "Morphy Defence"]

1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 {the main line} 4. Ba4 (4. Bxc6 dxc6 5. O-O) Nf6 $1 5. O-O *

[Event "castling and promotion"]
[SetUp "1"]
[FEN "r3k2r/1P6/8/8/8/8/6p1/R3K2R w KQkq - 0 1"]

1. bxa8=Q+ Ke7 2. O-O-O gxh1=N 3. Qxh1 1/2-1/2

[Event "en passant"]

1. e4 Nf6 2. e5 d5 3. exd6 e.p. cxd6 ; comment to the end of the line
4. d4?! g6!? 1-0

1. d4 d5 2. c4 0-1
"#;

const EPD_BOOK: &str = "# a comment
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - id \"1. e4\"; c0 \"x; y\";
rnbqkb1r/pppppppp/5n2/8/3P4/8/PPP1PPPP/RNBQKBNR w KQkq - 1 2
r3k2r/8/8/8/8/8/8/R3K2R w KQkq - hmvc 3; fmvn 20;

4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1
";

const POLYGLOT_BOOK: &[u8] = include_bytes!("../data/polyglot/book.bin");

fn seeds() -> Vec<(Vec<u8>, &'static str)> {
    vec![
        (PGN_BOOK.as_bytes().to_vec(), "book.pgn"),
        (EPD_BOOK.as_bytes().to_vec(), "book.epd"),
        (EPD_BOOK.as_bytes().to_vec(), "book.fen"),
        (PGN_BOOK.as_bytes().to_vec(), "book.txt"),
        // A real Polyglot book (tests/data/polyglot/README.md), by name and by content.
        (POLYGLOT_BOOK.to_vec(), "book.bin"),
        (POLYGLOT_BOOK.to_vec(), "book"),
    ]
}

/// Loads the bytes as a book called `name`; an error must be one line naming the file.
fn load_and_check(scratch: &Scratch, name: &str, bytes: &[u8]) -> Result<(), TestCaseError> {
    let path = scratch.write(name, bytes);
    match load_openings(&path) {
        Ok(openings) => {
            prop_assert!(!openings.is_empty());
            for o in &openings {
                // What the arena does next with an opening: the position after its moves.
                let after = o.position_after();
                prop_assert!(!after.is_game_over(), "{:?}", o.name);
                let _ = o.record();
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert_one_line(&message);
            prop_assert!(message.contains(&*path.to_string_lossy()), "{}", message);
        }
    }
    Ok(())
}

#[test]
fn arbitrary_bytes_load_or_fail_in_one_line() {
    let scratch = Scratch::new("openings-bytes");
    check(
        (
            proptest::collection::vec(any::<u8>(), 0..400),
            select(&["book.pgn", "book.epd", "book", "book.bin"][..]),
        ),
        |(bytes, name)| load_and_check(&scratch, name, &bytes),
    );
}

#[test]
fn mutated_books_load_or_fail_in_one_line() {
    let scratch = Scratch::new("openings-mutated");
    let books = seeds();
    let names: Vec<&'static str> = books.iter().map(|(_, n)| *n).collect();
    let texts: Vec<Vec<u8>> = books.into_iter().map(|(b, _)| b).collect();
    check(
        (mutated_one_of(texts, 8), any::<Index>()),
        |(bytes, name)| load_and_check(&scratch, names[name.index(names.len())], &bytes),
    );
}

/// PGN movetext tokens, valid and not, for books assembled token by token.
#[test]
fn assembled_pgn_loads_or_fails_in_one_line() {
    let scratch = Scratch::new("openings-assembled");
    let token = select(
        &[
            "1.",
            "2...",
            "e4",
            "e5",
            "Nf3",
            "Nc6",
            "Bb5",
            "O-O",
            "O-O-O",
            "0-0",
            "Qxh7#",
            "exd6",
            "e.p.",
            "e8=Q",
            "e8Q",
            "Kxe8",
            "--",
            "Z0",
            "@",
            "{",
            "}",
            "{c}",
            "(",
            ")",
            "(1. d4)",
            ";x\n",
            "$1",
            "$999999999999",
            "!",
            "?",
            "!!",
            "*",
            "1-0",
            "0-1",
            "1/2-1/2",
            "½-½",
            "\n",
            "\n\n",
            "[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n",
            "[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\"]\n",
            "[Variant \"Chess960\"]\n",
            "[Event \"x\"]\n",
            "[Opening \"",
            "\"]\n",
            "%escape\n",
            "\u{feff}",
        ][..],
    );
    check(
        (
            proptest::collection::vec(token, 0..40),
            select(&["book.pgn", "book"][..]),
        ),
        |(tokens, name)| load_and_check(&scratch, name, tokens.join(" ").as_bytes()),
    );
}

/// A game of random legal moves from the start position, cut at a random length.
fn random_game() -> impl Strategy<Value = (Chess, Vec<shakmaty::Move>)> {
    proptest::collection::vec(any::<Index>(), 0..80).prop_map(|path| {
        let root = Chess::default();
        let mut pos = root.clone();
        let mut moves = Vec::new();
        for i in path {
            let legal = pos.legal_moves();
            if legal.is_empty() {
                break;
            }
            let m = legal[i.index(legal.len())];
            pos.play_unchecked(m);
            moves.push(m);
        }
        (root, moves)
    })
}

/// Writes a game as PGN movetext: move numbers, SAN with check marks, and now and then a
/// comment, a NAG or a variation that the book must skip.
fn movetext(root: &Chess, moves: &[shakmaty::Move], decorate: &[u8]) -> String {
    let mut pos = root.clone();
    let mut out = String::new();
    for (k, m) in moves.iter().enumerate() {
        let d = decorate.get(k).copied().unwrap_or(0);
        if pos.turn().is_white() {
            out.push_str(&format!("{}. ", pos.fullmoves()));
        } else if k == 0 || d % 7 == 1 {
            out.push_str(&format!("{}... ", pos.fullmoves()));
        }
        let san = SanPlus::from_move(pos.clone(), *m);
        out.push_str(&format!("{san} "));
        match d % 7 {
            2 => out.push_str("{a comment} "),
            3 => out.push_str("$2 "),
            4 => out.push_str("(1. a3 h6) "),
            5 => out.push('\n'),
            _ => {}
        }
        pos.play_unchecked(*m);
    }
    out
}

#[test]
fn a_pgn_book_of_legal_games_is_read_move_for_move() {
    let scratch = Scratch::new("openings-pgn");
    check(
        proptest::collection::vec(
            (random_game(), proptest::collection::vec(any::<u8>(), 80)),
            1..4,
        ),
        |games| {
            let mut text = String::new();
            let mut expected = Vec::new();
            let mut ends_game = false;
            for (n, ((root, moves), decorate)) in games.iter().enumerate() {
                text.push_str(&format!(
                    "[Event \"game {}\"]\n[Opening \"O{}\"]\n\n",
                    n + 1,
                    n
                ));
                text.push_str(&movetext(root, moves, decorate));
                text.push_str("*\n\n");
                let mut pos = root.clone();
                for m in moves {
                    pos.play_unchecked(*m);
                }
                ends_game |= pos.is_game_over();
                let ucis: Vec<String> = moves
                    .iter()
                    .map(|m| UciMove::from_standard(*m).to_string())
                    .collect();
                expected.push((format!("O{n}"), ucis));
            }
            let path = scratch.write("legal.pgn", text.as_bytes());
            match load_openings(&path) {
                Ok(openings) => {
                    prop_assert!(!ends_game, "a book opening that ends the game was taken");
                    let read: Vec<(String, Vec<String>)> =
                        openings.into_iter().map(|o| (o.name, o.moves)).collect();
                    prop_assert_eq!(read, expected, "{}", text);
                }
                Err(e) => {
                    prop_assert!(ends_game, "{e}\n{text}");
                    assert_one_line(&e.to_string());
                }
            }
            Ok(())
        },
    );
}

#[test]
fn an_epd_book_of_legal_positions_is_read_position_for_position() {
    let scratch = Scratch::new("openings-epd");
    check(
        proptest::collection::vec((random_game(), any::<bool>()), 1..5),
        |positions| {
            let mut text = String::new();
            let mut expected = Vec::new();
            for (n, ((root, moves), full_fen)) in positions.iter().enumerate() {
                let mut pos = root.clone();
                for m in moves {
                    pos.play_unchecked(*m);
                }
                // A line whose game is already over is skipped (with a warning).
                let over = pos.is_game_over();
                let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                if *full_fen {
                    // A FEN line is named by its line number.
                    text.push_str(&format!("{fen}\n"));
                    if !over {
                        expected.push((format!("#{}", n + 1), fen));
                    }
                } else {
                    // An EPD line: four fields, the counters as operations, an `id`.
                    let fields: Vec<&str> = fen.split(' ').collect();
                    text.push_str(&format!(
                        "{} hmvc {}; fmvn {}; id \"pos {n}\";\n",
                        fields[..4].join(" "),
                        fields[4],
                        fields[5]
                    ));
                    if !over {
                        expected.push((format!("pos {n}"), fen));
                    }
                }
            }
            let path = scratch.write("legal.epd", text.as_bytes());
            match load_openings(&path) {
                Ok(openings) => {
                    let read: Vec<(String, String)> = openings
                        .iter()
                        .map(|o| {
                            let fen = Fen::from_position(&o.root, EnPassantMode::Legal);
                            (o.name.clone(), fen.to_string())
                        })
                        .collect();
                    prop_assert_eq!(read, expected, "{}", text);
                    for o in &openings {
                        prop_assert!(o.moves.is_empty());
                    }
                }
                Err(e) => {
                    // Only a book whose every line is over has no position.
                    prop_assert!(expected.is_empty(), "{e}\n{text}");
                    assert_one_line(&e.to_string());
                }
            }
            Ok(())
        },
    );
}
