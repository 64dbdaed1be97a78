//! The referee's shortcut for a move it already knows to be legal finds exactly what
//! `illegal::check` finds.

use std::sync::Arc;

use crate::rules::test_position::position as pos;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position, Square};

use super::super::illegal::{self, MoveCheck};
use super::{LegalMoves, Referee, RefereeSettings};

/// Every text a move could be written as: each from-to pair with and without a promotion
/// letter, the legal moves in both castling notations, and some junk.
fn texts(p: &Chess) -> Vec<String> {
    let mut all = Vec::new();
    for from in Square::ALL {
        for to in Square::ALL {
            all.push(format!("{from}{to}"));
            if matches!(to.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth) {
                for letter in ["q", "r", "b", "n", "k", "p"] {
                    all.push(format!("{from}{to}{letter}"));
                }
            }
        }
    }
    for m in p.legal_moves() {
        all.push(UciMove::from_standard(m).to_string());
        all.push(format!(" {} ", UciMove::from_chess960(m)));
    }
    all.extend(["0000", "(none)", "", "e2", "e2e4e", "P@e4"].map(String::from));
    all
}

fn assert_agrees(p: &Chess) {
    let mut referee = Referee::new(RefereeSettings::default(), p.clone(), Vec::new());
    referee.legal = Arc::new(LegalMoves::new(p.legal_moves().into_iter().collect()));
    referee.legal_known = true;
    let mut found = 0;
    for text in texts(p) {
        if let Some(m) = referee.known_legal(&text) {
            found += 1;
            match illegal::check(p, &text) {
                MoveCheck::Legal(checked) => assert_eq!(checked, m, "{text} in {}", fen(p)),
                other => panic!(
                    "{text} in {}: known legal, but check says {other:?}",
                    fen(p)
                ),
            }
        }
    }
    // Only castling is left to `check`.
    let castles = p.legal_moves().iter().filter(|m| m.is_castle()).count();
    assert!(found >= p.legal_moves().len() - castles, "{}", fen(p));
}

fn fen(p: &Chess) -> String {
    Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string()
}

#[test]
fn special_moves_agree() {
    for f in [
        // Promotions with and without captures, and an en passant capture.
        "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
        "r3k2r/1P4P1/8/8/3pP3/8/1p4p1/R3K2R b KQkq e3 0 1",
        // A pinned piece, a king in check.
        "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1",
        "4k3/4r3/8/8/8/8/3PP3/4K1N1 w - - 0 1",
        // No move at all.
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    ] {
        assert_agrees(&pos(f));
    }
}

/// Chess960: castling is the king onto its own rook, which may stand one square away, and the
/// king may stand anywhere on the back rank.
#[test]
fn chess960_king_moves_agree() {
    use shakmaty::{fen::Fen, CastlingMode};
    for f in [
        // King on f1, rooks on e1 and g1: both castlings are a king step onto a rook.
        "4rkr1/8/8/8/8/8/8/4RKR1 w EGeg - 0 1",
        // King on b1 beside its rook on a1; the other rook on h1.
        "rk5r/pppppppp/8/8/8/8/PPPPPPPP/RK5R w AHah - 0 1",
        // King on e1 with rooks on d1 and f1.
        "3rkr2/8/8/8/8/8/8/3RKR2 w DFdf - 0 1",
    ] {
        let p: Chess = f
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Chess960)
            .unwrap();
        assert_agrees(&p);
    }
}

#[test]
fn moves_of_played_out_games_agree() {
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..6 {
        let mut p = Chess::default();
        for _ in 0..120 {
            assert_agrees(&p);
            let moves = p.legal_moves();
            if moves.is_empty() {
                break;
            }
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            p.play_unchecked(moves[(seed % moves.len() as u64) as usize]);
        }
    }
}
