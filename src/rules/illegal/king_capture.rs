//! Taking the opponent's king, possible only after an illegal move stood (house H17/H18,
//! USCF 7d).

use shakmaty::uci::UciMove;
use shakmaty::{attacks, Chess, Position, Role};

/// Whether the engine's move takes the opponent's king: the mover's piece on the from-square
/// attacks the king on the to-square by its rules. Possible only in an illegal position (the
/// side not to move in check, after an illegal move stood). House H17/H18 and USCF 7d count it
/// as a claim; [`check`](super::check) calls it unplayable.
pub fn king_capture(pos: &Chess, text: &str) -> bool {
    // A move that takes the king attacks it: where the opponent's king is not attacked (every
    // position the rules of chess allow), no text takes it, and none is read.
    if !opponent_king_attacked(pos) {
        return false;
    }
    let board = pos.board();
    let us = pos.turn();
    let Ok(UciMove::Normal { from, to, .. }) = UciMove::from_ascii(text.trim().as_bytes()) else {
        return false;
    };
    let Some(piece) = board.piece_at(from).filter(|p| p.color == us) else {
        return false;
    };
    if board.piece_at(to) != Some((!us).king()) {
        return false;
    }
    let reach = match piece.role {
        Role::Pawn => attacks::pawn_attacks(us, from),
        _ => attacks::attacks(from, piece, board.occupied()),
    };
    reach.contains(to)
}

/// Whether the king of the side not to move is attacked: never in a position the rules of
/// chess allow, so never after a legal move.
pub fn opponent_king_attacked(pos: &Chess) -> bool {
    let board = pos.board();
    let us = pos.turn();
    (board.kings() & board.by_color(!us))
        .into_iter()
        .any(|king| board.attacks_to(king, us, board.occupied()).any())
}
