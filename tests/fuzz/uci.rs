//! What an engine prints: `bestmove`, `info`, `id` and `option` lines, and the move text the
//! referee reads from a `bestmove`. Nothing an engine prints may panic the arena, and a
//! well-formed `bestmove` must be read exactly.

use blitz_arena::engine::uci::{parse_bestmove, parse_id, parse_info, parse_option};
use blitz_arena::event::Score;
use blitz_arena::rules::illegal::{self, MoveCheck};
use proptest::prelude::*;
use proptest::sample::{select, Index};
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position};

use super::{check, mutated_one_of};

/// Real lines from Stockfish, Glaurung and Toga II, and a few near the edges of UCI.
const CORPUS: &str = include_str!("corpus/uci.txt");

/// Tokens of UCI output, valid and not, for lines assembled token by token.
const TOKENS: &[&str] = &[
    "info",
    "bestmove",
    "ponder",
    "id",
    "name",
    "author",
    "option",
    "type",
    "spin",
    "check",
    "combo",
    "button",
    "string",
    "default",
    "min",
    "max",
    "var",
    "depth",
    "seldepth",
    "multipv",
    "score",
    "cp",
    "mate",
    "lowerbound",
    "upperbound",
    "wdl",
    "nodes",
    "nps",
    "hashfull",
    "tbhits",
    "time",
    "pv",
    "currmove",
    "currmovenumber",
    "refutation",
    "currline",
    "cpuload",
    "e2e4",
    "e7e8q",
    "0000",
    "(none)",
    "0",
    "1",
    "-1",
    "20",
    "255",
    "256",
    "300",
    "-300",
    "127",
    "128",
    "-129",
    "2147483648",
    "-2147483649",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551616",
    "1e9",
    "x",
    "true",
    "",
    "\t",
    "\r",
];

/// Every parser an engine's line goes through, none of which may panic.
fn parse_everything(line: &str) {
    if let Some(mv) = parse_bestmove(line) {
        assert!(!mv.contains(char::is_whitespace), "{line:?} -> {mv:?}");
    }
    if let Some((key, value)) = parse_id(line) {
        assert!(matches!(key, "name" | "author"), "{line:?}");
        assert_eq!(value, value.trim(), "{line:?}");
    }
    let _ = parse_info(line);
    if let Some(option) = parse_option(line) {
        assert!(!option.name.is_empty(), "{line:?}");
    }
}

#[test]
fn arbitrary_bytes_never_panic() {
    check(proptest::collection::vec(any::<u8>(), 0..200), |bytes| {
        parse_everything(&String::from_utf8_lossy(&bytes));
        Ok(())
    });
}

#[test]
fn mutated_engine_lines_never_panic() {
    let seeds = CORPUS.lines().map(|l| l.as_bytes().to_vec()).collect();
    check(mutated_one_of(seeds, 6), |bytes| {
        parse_everything(&String::from_utf8_lossy(&bytes));
        Ok(())
    });
}

#[test]
fn lines_assembled_from_uci_tokens_never_panic() {
    // Tokens after a line's first word, joined by spaces or run together (`depth300`).
    let line = (
        select(&["info", "bestmove", "option", "id", ""][..]),
        proptest::collection::vec(select(TOKENS), 0..24),
        select(&[" ", " ", ""][..]),
    )
        .prop_map(|(first, tokens, sep)| format!("{first} {}", tokens.join(sep)));
    check(line, |line| {
        parse_everything(&line);
        Ok(())
    });
}

/// A position reached by random legal moves from the start, and one legal move in it. The
/// walk stops before a move that would end the game, so there is always a move to pick (and
/// no input is rejected, which a million-input run could not afford).
fn position_and_move() -> impl Strategy<Value = (Chess, shakmaty::Move)> {
    (
        proptest::collection::vec(any::<Index>(), 0..120),
        any::<Index>(),
    )
        .prop_map(|(path, pick)| {
            let mut pos = Chess::default();
            for i in path {
                let moves = pos.legal_moves();
                let mut next = pos.clone();
                next.play_unchecked(moves[i.index(moves.len())]);
                if next.legal_moves().is_empty() {
                    break;
                }
                pos = next;
            }
            let moves = pos.legal_moves();
            let m = moves[pick.index(moves.len())];
            (pos, m)
        })
}

/// Whitespace an engine may put between tokens (the line splitter has removed the newline).
fn gap() -> impl Strategy<Value = &'static str> {
    select(&[" ", "  ", "\t", " \t "][..])
}

#[test]
fn a_legal_bestmove_reads_back_as_the_same_move() {
    let tail = prop_oneof![
        Just(String::new()),
        Just(" ponder e7e5".to_string()),
        Just(" ponder".to_string()),
        Just(" ponder (none)".to_string()),
        Just("\r".to_string()),
        Just(" ".to_string()),
    ];
    check(
        (position_and_move(), gap(), gap(), tail),
        |((pos, m), lead, sep, tail)| {
            let uci = UciMove::from_standard(m).to_string();
            let line = format!("{}bestmove{sep}{uci}{tail}", lead.trim_start_matches(' '));
            let text = parse_bestmove(&line);
            prop_assert_eq!(text, Some(uci.as_str()), "line {:?}", line);
            match illegal::check(&pos, text.unwrap()) {
                MoveCheck::Legal(read) => prop_assert_eq!(read, m),
                other => prop_assert!(false, "{uci} read as {other:?} in {pos:?}"),
            }
            prop_assert!(!illegal::king_capture(&pos, text.unwrap()));
            Ok(())
        },
    );
}

#[test]
fn no_move_answers_are_read_as_sent() {
    check(
        (select(&["0000", "(none)"][..]), gap(), position_and_move()),
        |(answer, sep, (pos, _))| {
            let line = format!("bestmove{sep}{answer}");
            prop_assert_eq!(parse_bestmove(&line), Some(answer));
            // Legal moves exist, so a null move is an illegal move, never a panic or a pass.
            prop_assert!(matches!(
                illegal::check(&pos, answer),
                MoveCheck::Illegal(_)
            ));
            Ok(())
        },
    );
}

/// Move text as a careless or hostile engine writes it: squares, promotions, junk.
fn move_text() -> impl Strategy<Value = String> {
    let square = "[a-j][0-9]";
    prop_oneof![
        proptest::string::string_regex(&format!("{square}{square}[qrbnkpQRBNKP]?"))
            .unwrap()
            .boxed(),
        proptest::string::string_regex("[a-hA-H1-8@=+#xO0-]{0,7}")
            .unwrap()
            .boxed(),
        any::<String>().boxed(),
    ]
}

#[test]
fn any_move_text_in_any_position_is_ruled_without_panic() {
    check((position_and_move(), move_text()), |((pos, _), text)| {
        let _ = illegal::king_capture(&pos, &text);
        match illegal::check(&pos, &text) {
            MoveCheck::Legal(m) => {
                // A move read as legal is the move the text names.
                prop_assert_eq!(UciMove::from_standard(m).to_string(), text.trim());
            }
            MoveCheck::Illegal(_) | MoveCheck::Unplayable { .. } => {}
        }
        Ok(())
    });
}

#[test]
fn info_values_in_range_are_read_exactly() {
    check(
        (
            any::<u32>(),
            prop_oneof![
                (-1_000_000..=1_000_000i32).prop_map(Score::Cp),
                (-127..=127i32).prop_map(Score::Mate),
            ],
            any::<u64>(),
            select(&["", " lowerbound", " upperbound", " wdl 300 600 100"][..]),
            any::<bool>(),
        ),
        |(depth, score, nodes, bound, reorder)| {
            let score_text = match score {
                Score::Cp(v) => format!("score cp {v}{bound}"),
                Score::Mate(v) => format!("score mate {v}{bound}"),
            };
            let line = if reorder {
                format!("info {score_text} nodes {nodes} seldepth 3 depth {depth} pv e2e4 e7e5")
            } else {
                format!("info depth {depth} seldepth 40 multipv 1 {score_text} nodes {nodes} nps 1000 time 3 pv e2e4")
            };
            let info = parse_info(&line).expect("an info line with a score");
            prop_assert_eq!(info.depth, Some(depth), "{}", line);
            prop_assert_eq!(info.score, Some(score), "{}", line);
            prop_assert_eq!(info.nodes, Some(nodes), "{}", line);
            Ok(())
        },
    );
}

/// A number anywhere from far below i64 to far above u64, often near the edges of the
/// integer types.
fn number() -> impl Strategy<Value = i128> {
    prop_oneof![
        any::<i64>().prop_map(i128::from),
        any::<u64>().prop_map(i128::from),
        any::<i128>(),
        (-3..=3i128, select(&[0, 8, 16, 31, 32, 63, 64][..]))
            .prop_map(|(d, bits)| (1i128 << bits) + d),
        (-3..=3i128, select(&[0, 8, 16, 31, 32, 63, 64][..]))
            .prop_map(|(d, bits)| -(1i128 << bits) + d),
    ]
}

#[test]
fn info_values_out_of_range_never_turn_into_other_values() {
    check(
        (number(), number(), number(), any::<bool>()),
        |(depth, value, nodes, mate)| {
            let kind = if mate { "mate" } else { "cp" };
            let line = format!("info depth {depth} score {kind} {value} nodes {nodes}");
            let info = parse_info(&line);
            let depth_read = info.as_ref().and_then(|i| i.depth);
            let nodes_read = info.as_ref().and_then(|i| i.nodes);
            // A number is read as itself or dropped, never wrapped into another.
            if let Some(d) = depth_read {
                prop_assert_eq!(i128::from(d), depth);
            }
            if let Some(n) = nodes_read {
                prop_assert_eq!(i128::from(n), nodes);
            }
            // Scores beyond what the arena stores are clamped, keeping their sign.
            if let Some(score) = info.and_then(|i| i.score) {
                let (read, limit) = match score {
                    Score::Cp(v) => (i128::from(v), 1_000_000),
                    Score::Mate(v) => (i128::from(v), 127),
                };
                prop_assert_eq!(read, value.clamp(-limit, limit));
            }
            Ok(())
        },
    );
}
