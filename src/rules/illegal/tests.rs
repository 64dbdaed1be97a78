//! Tests of classifying, standing and generating illegal moves.

use super::pieces::playable_moves;
use super::*;
use crate::rules::test_position::position as pos;
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, Role, Square};

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

#[test]
fn chess960_castling_is_the_king_onto_its_rook() {
    let p960 = |fen: &str| -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap()
    };
    // Position 616 after 1. e4 e5: the king on f1 beside its rook on g1.
    let p = p960("rbnqbkrn/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RBNQBKRN w GAga - 0 2");
    assert!(matches!(
        check(&p, "f1g1"),
        MoveCheck::Legal(Move::Castle { .. })
    ));
    // Queenside, pieces between: a bad castling, not a capture of its own rook.
    let i = expect_illegal(&p, "f1a1", IllegalKind::BadCastle);
    assert!(i.reason.contains("queenside castling"), "{}", i.reason);
    // Through an attacked square: the bishop on c5 hits g1.
    let p = p960("r1nqbkrn/pppp1ppp/8/2b1p3/4P3/8/PPPP3P/RBNQBKR1 w GAga - 0 4");
    expect_illegal(&p, "f1g1", IllegalKind::BadCastle);
    let mut rng = StdRng::seed_from_u64(1);
    let text = generate(&p, IllegalKind::BadCastle, &mut rng).unwrap();
    assert!(text == "f1g1" || text == "f1a1", "{text}");
}

#[track_caller]
fn expect_illegal(p: &Chess, text: &str, kind: IllegalKind) -> Illegal {
    match check(p, text) {
        MoveCheck::Illegal(i) => {
            assert_eq!(i.kind, kind, "{text}: {}", i.reason);
            assert_eq!(i.uci, text.trim());
            i
        }
        other => panic!("{text}: expected {kind}, got {other:?}"),
    }
}

#[track_caller]
fn expect_unplayable(p: &Chess, text: &str, contains: &str) {
    match check(p, text) {
        MoveCheck::Unplayable { reason } => {
            assert!(reason.contains(contains), "{text}: {reason}")
        }
        other => panic!("{text}: expected unplayable, got {other:?}"),
    }
}

#[track_caller]
fn stands(p: &Chess, text: &str, kind: IllegalKind) -> Chess {
    let i = expect_illegal(p, text, kind);
    play_illegal(p, &i).unwrap_or_else(|e| panic!("{text}: {e}"))
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

#[test]
fn kinds_parse_print_and_serialize() {
    for k in IllegalKind::ALL {
        assert_eq!(k.as_str().parse::<IllegalKind>().unwrap(), k);
        assert_eq!(k.to_string(), k.as_str());
        assert_eq!(serde_json::to_string(&k).unwrap(), format!("\"{k}\""));
        let back: IllegalKind = serde_json::from_str(&format!("\"{k}\"")).unwrap();
        assert_eq!(back, k);
        let v = <IllegalKind as clap::ValueEnum>::to_possible_value(&k).unwrap();
        assert_eq!(v.get_name(), k.as_str());
    }
    let e = "king-capture".parse::<IllegalKind>().unwrap_err();
    assert!(
        e.contains("king-exposed") && e.contains("bad-castle"),
        "{e}"
    );
    assert!(!e.contains('\n'));
}

#[test]
fn legal_moves_are_legal() {
    let p = pos(START);
    assert!(matches!(
        check(&p, "e2e4"),
        MoveCheck::Legal(Move::Normal { .. })
    ));
    assert!(matches!(check(&p, " g1f3\n"), MoveCheck::Legal(_)));
    let castle = pos("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let ks = Move::Castle {
        king: Square::E1,
        rook: Square::H1,
    };
    assert_eq!(check(&castle, "e1g1"), MoveCheck::Legal(ks));
    assert_eq!(check(&castle, "e1h1"), MoveCheck::Legal(ks));
    let promo = pos("8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    assert!(matches!(check(&promo, "e7e8n"), MoveCheck::Legal(_)));
}

#[test]
fn unplayable_texts() {
    let p = pos(START);
    expect_unplayable(&p, "", "not a UCI move");
    expect_unplayable(&p, "e2", "not a UCI move");
    expect_unplayable(&p, "bestmove", "not a UCI move");
    expect_unplayable(&p, "e2e4x", "not a UCI move");
    expect_unplayable(&p, "Q@e4", "drop");
    expect_unplayable(&p, "e2e2", "does not leave e2");
    expect_unplayable(&p, "e3e4", "no piece on e3");
    expect_unplayable(&p, "e7e5", "opponent's");
    expect_unplayable(&p, "a1a2", "its own piece on a2");
    expect_unplayable(&p, "d1e1", "its own piece on e1");
    // A king on f1 "castling" onto its rook is just taking its own rook.
    let k = pos("4k3/8/8/8/8/8/8/5K1R w - - 0 1");
    expect_unplayable(&k, "f1h1", "its own piece on h1");
    // 0000 with no legal move: mate or stalemate already ended the game.
    let mate = pos("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    expect_unplayable(&mate, "0000", "already over");
    let stalemate = pos("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    expect_unplayable(&stalemate, "(none)", "already over");
}

#[test]
fn king_exposed_pinned_piece_and_king_into_check() {
    let p = pos("4k3/4r3/8/8/8/8/4N3/4K3 w - - 3 7");
    let i = expect_illegal(&p, "e2c3", IllegalKind::KingExposed);
    assert!(
        i.reason.contains("puts its own king in check"),
        "{}",
        i.reason
    );
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "4k3/4r3/8/8/8/2N5/8/4K3 b - - 4 7");
    assert_eq!(
        position_is_illegal(&after),
        Some("the side not to move is in check")
    );
    assert!(king_capture(&after, "e7e1"));
    expect_unplayable(&after, "e7e1", "captures the opponent's king");
    // Black can also just play on: an ordinary move is legal.
    assert!(matches!(check(&after, "e8d8"), MoveCheck::Legal(_)));

    let k = pos("4k3/8/8/8/8/8/3r4/4K3 w - - 0 1");
    let i = expect_illegal(&k, "e1e2", IllegalKind::KingExposed);
    assert_eq!(
        i.board_effect,
        BoardEffect::Move(Move::Normal {
            role: Role::King,
            from: Square::E1,
            capture: None,
            to: Square::E2,
            promotion: None
        })
    );
}

#[test]
fn king_exposed_leaving_check() {
    let p = pos("4k3/8/8/8/8/8/P7/r3K3 w - - 0 1");
    let i = expect_illegal(&p, "a2a3", IllegalKind::KingExposed);
    assert!(i.reason.contains("still in check"), "{}", i.reason);
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "4k3/8/8/8/8/P7/8/r3K3 b - - 0 1");
    // A double step that leaves the king in check stands the same way.
    let after2 = stands(&p, "a2a4", IllegalKind::KingExposed);
    assert_eq!(fen(&after2), "4k3/8/8/8/P7/8/8/r3K3 b - - 0 1");
}

#[test]
fn both_kings_in_check_after_exposing_with_check() {
    let p = pos("4k3/8/8/8/8/8/7R/r3K3 w - - 0 1");
    let after = stands(&p, "h2h8", IllegalKind::KingExposed);
    assert_eq!(fen(&after), "4k2R/8/8/8/8/8/8/r3K3 b - - 1 1");
    assert_eq!(position_is_illegal(&after), Some("both kings are in check"));
    assert!(king_capture(&after, "a1e1"));
    assert!(!king_capture(&after, "e8d8"));
}

#[test]
fn kings_adjacent() {
    let p = pos("8/8/8/4k3/8/4K3/8/8 w - - 0 1");
    let i = expect_illegal(&p, "e3e4", IllegalKind::KingsAdjacent);
    assert!(i.reason.contains("next to the other king"));
    expect_illegal(&p, "e3d4", IllegalKind::KingsAdjacent);
    expect_illegal(&p, "e3f4", IllegalKind::KingsAdjacent);
    assert!(matches!(check(&p, "e3e2"), MoveCheck::Legal(_)));
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "8/8/8/4k3/4K3/8/8/8 b - - 1 1");
    assert_eq!(
        position_is_illegal(&after),
        Some("the kings stand next to each other")
    );
    assert!(king_capture(&after, "e5e4"));
    // The king two squares away (not a step) is a bad piece move, not kings-adjacent.
    let far = pos("8/8/8/4k3/8/8/4K3/8 w - - 0 1");
    expect_illegal(&far, "e2e4", IllegalKind::BadPieceMove);
}

#[test]
fn kings_adjacent_wins_over_king_exposed() {
    // e4 is next to the black king and also attacked by the rook on a4.
    let p = pos("8/8/8/4k3/r7/4K3/8/8 w - - 0 1");
    expect_illegal(&p, "e3e4", IllegalKind::KingsAdjacent);
    // d3 is neither next to the black king nor on the rook's rank.
    assert!(matches!(check(&p, "e3d3"), MoveCheck::Legal(_)));
    expect_illegal(&p, "e3f4", IllegalKind::KingsAdjacent);
    expect_illegal(&p, "e3d4", IllegalKind::KingsAdjacent);
}

#[test]
fn no_move_passes_the_turn() {
    let p = pos(START);
    let i = expect_illegal(&p, "0000", IllegalKind::NoMove);
    assert_eq!(i.board_effect, BoardEffect::Pass);
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 1 1"
    );
    let after2 = stands(&after, "(none)", IllegalKind::NoMove);
    assert_eq!(
        fen(&after2),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 2 2"
    );
    // En passant is lost by passing.
    let ep = pos("4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
    assert_eq!(fen(&ep), "4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1");
    let passed = stands(&ep, "0000", IllegalKind::NoMove);
    assert_eq!(fen(&passed), "4k3/8/8/8/3pP3/8/8/4K3 w - - 1 2");
    // Passing while in check leaves the side not to move in check, and keeps its rights.
    let checked = pos("4k3/8/8/8/8/8/4r3/R3K2R w KQ - 5 9");
    let after = stands(&checked, "0000", IllegalKind::NoMove);
    assert_eq!(fen(&after), "4k3/8/8/8/8/8/4r3/R3K2R b KQ - 6 9");
    assert_eq!(
        position_is_illegal(&after),
        Some("the side not to move is in check")
    );
}

#[test]
fn no_promotion_queens() {
    let p = pos("3r4/4P3/8/8/8/8/k7/4K3 w - - 7 30");
    let i = expect_illegal(&p, "e7e8", IllegalKind::NoPromotion);
    assert_eq!(
        i.board_effect,
        BoardEffect::Move(Move::Normal {
            role: Role::Pawn,
            from: Square::E7,
            capture: None,
            to: Square::E8,
            promotion: Some(Role::Queen)
        })
    );
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "3rQ3/8/8/8/8/8/k7/4K3 b - - 0 30");
    assert_eq!(position_is_illegal(&after), None);
    // Capturing promotion without the letter too.
    let after = stands(&p, "e7d8", IllegalKind::NoPromotion);
    assert_eq!(fen(&after), "3Q4/8/8/8/8/8/k7/4K3 b - - 0 30");
    // Black promotes on the first rank.
    let b = pos("4k3/8/8/8/8/8/p7/4K3 b - - 0 1");
    let after = stands(&b, "a2a1", IllegalKind::NoPromotion);
    assert_eq!(fen(&after), "4k3/8/8/8/8/8/8/q3K3 w - - 0 2");
}

#[test]
fn missing_letter_loses_to_other_flaws() {
    // The pawn is pinned along the 7th rank: its queen promotion would expose the king,
    // so king-exposed; if it stands, the pawn still becomes a queen.
    let p = pos("8/K3P2r/8/8/8/8/8/7k w - - 0 1");
    let after = stands(&p, "e7e8", IllegalKind::KingExposed);
    assert_eq!(fen(&after), "4Q3/K6r/8/8/8/8/8/7k b - - 0 1");
    // A pawn sliding diagonally onto an empty last-rank square: bad piece move, queened.
    let q = pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    let after = stands(&q, "b7c8", IllegalKind::BadPieceMove);
    assert_eq!(fen(&after), "2Q1k3/8/8/8/8/8/8/4K3 b - - 0 1");
}

#[test]
fn bad_promotion_letters() {
    let p = pos("4k3/1P6/8/8/8/8/4P3/4K1N1 w - - 0 1");
    let i = expect_illegal(&p, "e2e4q", IllegalKind::BadPieceMove);
    assert!(i.reason.contains("only on the last rank"), "{}", i.reason);
    // Stands as the plain pawn move.
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "4k3/1P6/8/8/4P3/8/8/4K1N1 b - - 0 1");
    let i = expect_illegal(&p, "g1f3q", IllegalKind::BadPieceMove);
    assert!(i.reason.contains("only a pawn"), "{}", i.reason);
    let i = expect_illegal(&p, "b7b8k", IllegalKind::BadPieceMove);
    assert!(play_illegal(&p, &i)
        .unwrap_err()
        .contains("exactly one king"));
    let i = expect_illegal(&p, "b7b8p", IllegalKind::BadPieceMove);
    assert!(play_illegal(&p, &i)
        .unwrap_err()
        .contains("first or last rank"));
}

#[test]
fn bad_castles() {
    // No right: the king or rook has moved.
    let p = pos("r3k2r/8/8/8/8/8/8/R3K2R w kq - 0 1");
    let i = expect_illegal(&p, "e1g1", IllegalKind::BadCastle);
    assert!(i.reason.contains("no castling right"), "{}", i.reason);
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    // The UCI 960 form is a castling attempt too.
    let after = stands(&p, "e1a1", IllegalKind::BadCastle);
    assert_eq!(fen(&after), "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");

    // Through an attacked square (f1 attacked by the rook on f2).
    let p = pos("4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1");
    let i = expect_illegal(&p, "e1g1", IllegalKind::BadCastle);
    assert!(i.reason.contains("through"), "{}", i.reason);
    // Into check: g1 is attacked by the rook on g8.
    let p = pos("4k1r1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    let i = expect_illegal(&p, "e1g1", IllegalKind::BadCastle);
    assert!(i.reason.contains("into check"), "{}", i.reason);
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "4k1r1/8/8/8/8/8/8/R4RK1 b - - 1 1");
    assert_eq!(
        position_is_illegal(&after),
        Some("the side not to move is in check")
    );
    // Out of check.
    let p = pos("4r1k1/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    let i = expect_illegal(&p, "e1c1", IllegalKind::BadCastle);
    assert!(i.reason.contains("out of check"), "{}", i.reason);
    // Castling into a square next to the other king (also through its attack).
    let p = pos("8/8/8/8/8/8/6k1/4K2R w K - 0 1");
    expect_illegal(&p, "e1g1", IllegalKind::BadCastle);

    // Pieces in between: from the start, g1 is occupied, so it cannot stand.
    let p = pos(START);
    let i = expect_illegal(&p, "e1g1", IllegalKind::BadCastle);
    assert!(i.reason.contains("between"), "{}", i.reason);
    assert!(play_illegal(&p, &i).unwrap_err().contains("g1 is occupied"));
    // Only b1 in the way: the rook jumps it, and it can stand.
    let p = pos("4k3/8/8/8/8/8/8/RN2K3 w Q - 0 1");
    let after = stands(&p, "e1c1", IllegalKind::BadCastle);
    assert_eq!(fen(&after), "4k3/8/8/8/8/8/8/1NKR4 b - - 1 1");
    // Black castles with no rook in the corner: the king just steps two squares.
    let p = pos("4k3/8/8/8/8/8/8/4K3 b - - 0 1");
    expect_illegal(&p, "e8g8", IllegalKind::BadPieceMove);
}

#[test]
fn bad_piece_moves() {
    let p = pos(START);
    // A knight moving like a bishop.
    let i = expect_illegal(&p, "g1e3", IllegalKind::BadPieceMove);
    assert!(i.reason.contains("knight"), "{}", i.reason);
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppppppp/8/8/8/4N3/PPPPPPPP/RNBQKB1R b KQkq - 1 1"
    );
    // A bishop sliding through its own pawn.
    let i = expect_illegal(&p, "f1c4", IllegalKind::BadPieceMove);
    assert!(i.reason.contains("through pieces"), "{}", i.reason);
    // A pawn three squares, a pawn sideways, a rook diagonally.
    expect_illegal(&p, "e2e5", IllegalKind::BadPieceMove);
    let r = pos("4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    let i = expect_illegal(&r, "a1b2", IllegalKind::BadPieceMove);
    assert!(i.reason.contains("along ranks and files"), "{}", i.reason);

    // A pawn backwards.
    let p = pos("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    let i = expect_illegal(&p, "e4e3", IllegalKind::BadPieceMove);
    assert!(i.reason.contains("backwards"), "{}", i.reason);
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(
        fen(&after),
        "rnbqkbnr/pppp1ppp/8/4p3/8/4P3/PPPP1PPP/RNBQKBNR b KQkq - 0 2"
    );
    // A pawn capturing straight ahead, a pawn diagonally onto an empty square.
    expect_illegal(&p, "e4e5", IllegalKind::BadPieceMove);
    let i = expect_illegal(&p, "d2e3", IllegalKind::BadPieceMove);
    assert!(
        i.reason.contains("diagonally only to capture"),
        "{}",
        i.reason
    );
    // A pawn backwards onto its first rank cannot stand.
    let b = pos("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1");
    let i = expect_illegal(&b, "b2b1", IllegalKind::BadPieceMove);
    assert!(play_illegal(&b, &i)
        .unwrap_err()
        .contains("first or last rank"));
    // A pinned knight moving like a bishop: bad piece move beats king exposed.
    let pinned = pos("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
    let after = stands(&pinned, "e2c4", IllegalKind::BadPieceMove);
    assert_eq!(
        position_is_illegal(&after),
        Some("the side not to move is in check")
    );
    // A capture by a bad move takes the piece and its castling right.
    let cap = pos("r3k2r/8/8/8/8/8/8/4K1N1 w kq - 0 1");
    let after = stands(&cap, "g1h8", IllegalKind::BadPieceMove);
    assert_eq!(fen(&after), "r3k2N/8/8/8/8/8/8/4K3 b q - 0 1");
}

#[test]
fn pawn_jumping_over_a_piece_sets_no_en_passant_square() {
    let p = pos("4k3/8/8/8/3p4/4n3/4P3/4K3 w - - 0 1");
    let i = expect_illegal(&p, "e2e4", IllegalKind::BadPieceMove);
    assert!(i.reason.contains("jump"), "{}", i.reason);
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "4k3/8/8/8/3pP3/4n3/8/4K3 b - - 0 1");
    assert_eq!(after.maybe_ep_square(), None);
    // The same while the king is in check: shakmaty cannot set up that position directly.
    let p = pos("4k3/8/8/8/3p4/4n3/4P3/r3K3 w - - 0 1");
    let after = stands(&p, "e2e4", IllegalKind::BadPieceMove);
    assert_eq!(fen(&after), "4k3/8/8/8/3pP3/4n3/8/r3K3 b - - 0 1");
    assert_eq!(after.maybe_ep_square(), None);
    assert_eq!(
        position_is_illegal(&after),
        Some("the side not to move is in check")
    );
}

#[test]
fn en_passant_exposing_the_king() {
    // The classic: taking en passant opens the 5th rank to the rook.
    let p = pos("8/8/8/K2pP2r/8/8/8/4k3 w - d6 0 2");
    let i = expect_illegal(&p, "e5d6", IllegalKind::KingExposed);
    assert_eq!(
        i.board_effect,
        BoardEffect::Move(Move::EnPassant {
            from: Square::E5,
            to: Square::D6
        })
    );
    let after = play_illegal(&p, &i).unwrap();
    assert_eq!(fen(&after), "8/8/3P4/K6r/8/8/8/4k3 b - - 0 2");
}

#[test]
fn unplayable_wins_over_everything() {
    // A pinned knight "moving" onto its own queen: unplayable, not bad-piece-move.
    let p = pos("4k3/4r3/8/8/8/8/4N3/3QK3 w - - 0 1");
    expect_unplayable(&p, "e2d1", "own piece");
    // A bad piece move onto the other king is no capture: unplayable, and not a claim.
    let q = pos("4k3/8/8/8/8/8/8/4K1N1 w - - 0 1");
    assert!(!king_capture(&q, "g1e8"));
    expect_unplayable(&q, "g1e8", "cannot reach the king");
}

#[test]
fn king_capture_only_by_the_rules() {
    let p = pos(START);
    assert!(!king_capture(&p, "e2e4"));
    assert!(!king_capture(&p, "garbage"));
    assert!(!king_capture(&p, "0000"));
    // The king steps into a pawn's attack; the pawn takes it diagonally, not straight.
    let p = pos("4k3/8/8/8/8/3p4/8/3K4 w - - 0 1");
    let after = stands(&p, "d1e2", IllegalKind::KingExposed);
    assert!(king_capture(&after, "d3e2"));
    assert!(!king_capture(&after, "d3d2"));
    expect_unplayable(&after, "d3e2", "captures the opponent's king");
    // The rook on e7 takes the king; the bishop on h4 is blocked by the pawn on g3.
    let p = pos("4k3/4r3/8/8/7b/6P1/4N3/4K3 w - - 0 1");
    let after = stands(&p, "e2c3", IllegalKind::KingExposed);
    assert!(king_capture(&after, "e7e1"));
    assert!(!king_capture(&after, "h4e1"));
    expect_unplayable(&after, "h4e1", "cannot reach the king");
    // White to move cannot "take" its own king, nor move Black's pieces.
    assert!(!king_capture(&p, "e2e1"));
    assert!(!king_capture(&after, "c3e1"));
}

#[test]
fn position_is_illegal_cases() {
    assert_eq!(position_is_illegal(&pos(START)), None);
    // The side to move in check is a normal position.
    assert_eq!(
        position_is_illegal(&pos("4k3/8/8/8/8/8/8/r3K3 w - - 0 1")),
        None
    );
    // A pawn on the last rank, made by play_unchecked.
    let mut p = pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1");
    p.play_unchecked(Move::Normal {
        role: Role::Pawn,
        from: Square::B7,
        capture: None,
        to: Square::B8,
        promotion: None,
    });
    assert_eq!(
        position_is_illegal(&p),
        Some("a pawn stands on the first or last rank")
    );
}

/// Random games with a seeded generator; now and then an illegal move stands, so that
/// illegal positions are covered too. At every position, every legal move is `Legal`,
/// and every kind is generated, classified back as that kind, and played.
#[test]
fn generate_check_round_trip_over_random_games() {
    let mut rng = StdRng::seed_from_u64(0x1_11E6A1);
    let mut positions = 0;
    let mut generated = [0usize; 6];
    let mut illegal_positions = 0;
    let mut p = Chess::new();
    let mut plies = 0;
    while positions < 2500 {
        positions += 1;
        if position_is_illegal(&p).is_some() {
            illegal_positions += 1;
        }
        let legal: Vec<Move> = playable_moves(&p).collect();
        for m in &legal {
            let text = m.to_uci(CastlingMode::Standard).to_string();
            assert_eq!(check(&p, &text), MoveCheck::Legal(*m), "{} {text}", fen(&p));
        }
        let mut stood = Vec::new();
        for (n, kind) in IllegalKind::ALL.into_iter().enumerate() {
            let Some(text) = generate(&p, kind, &mut rng) else {
                match kind {
                    IllegalKind::NoMove => assert!(legal.is_empty()),
                    IllegalKind::BadPieceMove => panic!("no bad piece move in {}", fen(&p)),
                    IllegalKind::NoPromotion => {
                        assert!(!legal.iter().any(|m| m.promotion() == Some(Role::Queen)))
                    }
                    _ => {}
                }
                continue;
            };
            generated[n] += 1;
            let i = expect_illegal(&p, &text, kind);
            let after = play_illegal(&p, &i).unwrap_or_else(|e| panic!("{} {text}: {e}", fen(&p)));
            assert_eq!(after.turn(), !p.turn());
            assert!(!king_capture(&p, &text));
            let fen_after = fen(&after);
            assert!(fen_after.parse::<Fen>().is_ok(), "{fen_after}");
            match kind {
                IllegalKind::KingExposed | IllegalKind::KingsAdjacent => {
                    assert!(position_is_illegal(&after).is_some(), "{fen_after}")
                }
                IllegalKind::NoPromotion if position_is_illegal(&p).is_none() => {
                    assert_eq!(position_is_illegal(&after), None, "{fen_after}")
                }
                _ => {}
            }
            stood.push(after);
        }
        plies += 1;
        let next = if !stood.is_empty() && rng.random_range(0..100) < 10 {
            Some(stood.swap_remove(rng.random_range(0..stood.len())))
        } else if !legal.is_empty() {
            let mut q = p.clone();
            q.play_unchecked(legal[rng.random_range(0..legal.len())]);
            Some(q)
        } else {
            None
        };
        match next {
            Some(q) if plies < 160 && q.board().king_of(q.turn()).is_some() => p = q,
            _ => {
                p = Chess::new();
                plies = 0;
            }
        }
    }
    for (n, kind) in IllegalKind::ALL.into_iter().enumerate() {
        assert!(generated[n] > 20, "{kind}: only {} generated", generated[n]);
    }
    assert!(illegal_positions > 20, "{illegal_positions}");
}
