//! Illegal positions (FIDE A4.4): what makes one, and when the arbiter waits.

use shakmaty::{attacks, Bitboard, Board, Chess, Color, Position};

use super::pieces::in_check;

/// FIDE A4.4: is the position illegal, and why? Checks, in order: a pawn on the first or last
/// rank, a side without exactly one king, kings next to each other, both kings in check, the
/// side not to move in check.
pub fn position_is_illegal(pos: &Chess) -> Option<&'static str> {
    let board = pos.board();
    if pawn_on_back_rank(board) {
        return Some("a pawn stands on the first or last rank");
    }
    if Color::ALL.into_iter().any(|c| board.king_of(c).is_none()) {
        return Some("a side does not have exactly one king");
    }
    if kings_adjacent(pos) {
        return Some("the kings stand next to each other");
    }
    let mover_checked = in_check(board, pos.turn());
    let other_checked = in_check(board, !pos.turn());
    if mover_checked && other_checked {
        return Some("both kings are in check");
    }
    if other_checked {
        return Some("the side not to move is in check");
    }
    None
}

/// Whether the two kings stand next to each other (USCF 7d, WBCA 16).
pub fn kings_adjacent(pos: &Chess) -> bool {
    let board = pos.board();
    match (board.king_of(Color::White), board.king_of(Color::Black)) {
        (Some(white), Some(black)) => attacks::king_attacks(white).contains(black),
        _ => false,
    }
}

/// FIDE A4.4: a position in which the arbiter waits for the next move: both kings in check
/// (kings next to each other check each other), or a pawn on the first or last rank.
pub fn arbiter_waits(pos: &Chess) -> bool {
    let board = pos.board();
    pawn_on_back_rank(board) || (in_check(board, Color::White) && in_check(board, Color::Black))
}

/// A pawn on the first or last rank, where none can stand (FIDE 3.7: a pawn moves only
/// forward and is exchanged on reaching the last rank).
pub(super) fn pawn_on_back_rank(board: &Board) -> bool {
    (board.pawns() & Bitboard::BACKRANKS).any()
}
