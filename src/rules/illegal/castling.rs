//! Castling attempts that are not legal: what counts as one (in Chess960 the king onto its
//! own rook, FIDE Guidelines III.3) and why it fails (FIDE 3.8.2).

use shakmaty::{
    attacks, Bitboard, CastlingMode, CastlingSide, Chess, Color, Position, Role, Square,
};

use super::pieces::last_rank;

fn side_name(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "kingside",
        CastlingSide::QueenSide => "queenside",
    }
}

/// A castling attempt: the king on its home square moving two files along the back rank, or
/// onto its own rook, with its own rook in that corner. Returns (king, rook, side).
pub(super) fn castling_attempt(
    pos: &Chess,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Option<(Square, Square, CastlingSide)> {
    let us = pos.turn();
    let board = pos.board();
    let back = last_rank(!us);
    // Chess960 (FIDE Laws, Guidelines III.3): the king on its back rank moving onto its own
    // rook there is a castling attempt, wherever the two stand.
    if pos.castles().mode() == CastlingMode::Chess960 {
        let on_back_rank = from.rank() == back && to.rank() == back;
        if promotion.is_none()
            && on_back_rank
            && board.piece_at(from) == Some(us.king())
            && board.piece_at(to) == Some(us.rook())
        {
            let side = if to.file() > from.file() {
                CastlingSide::KingSide
            } else {
                CastlingSide::QueenSide
            };
            return Some((from, to, side));
        }
        return None;
    }
    let home = king_home(us);
    if promotion.is_some() || from != home || board.piece_at(from) != Some(us.king()) {
        return None;
    }
    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        let corner = Square::from_coords(
            if side.is_king_side() {
                shakmaty::File::H
            } else {
                shakmaty::File::A
            },
            back,
        );
        if board.piece_at(corner) != Some(us.rook()) {
            continue;
        }
        if to == corner || to == side.king_to(us) {
            return Some((home, corner, side));
        }
    }
    None
}

/// Why a castling attempt is not legal (there may be several reasons).
pub(super) fn castle_fault(pos: &Chess, king: Square, rook: Square, side: CastlingSide) -> String {
    let us = pos.turn();
    let board = pos.board();
    let occ = board.occupied();
    let mut why = Vec::new();
    if !pos.castles().has(us, side) {
        why.push("no castling right (the king or the rook has moved)".to_string());
    }
    let between = attacks::between(king, rook);
    if (between & occ).any() {
        why.push("pieces stand between the king and the rook".to_string());
    }
    let without_king = occ.without(king);
    let king_to = side.king_to(us);
    if board.attacks_to(king, !us, occ).any() {
        why.push("castling out of check".to_string());
    }
    if (attacks::between(king, king_to))
        .into_iter()
        .any(|sq| board.attacks_to(sq, !us, without_king).any())
    {
        why.push("castling through an attacked square".to_string());
    }
    if board
        .attacks_to(king_to, !us, without_king.without(rook))
        .any()
    {
        why.push("castling into check".to_string());
    }
    if why.is_empty() {
        why.push("castling is not allowed here".to_string());
    }
    format!("{} castling: {}", side_name(side), why.join(", "))
}

/// Every castling attempt of the side to move, legal or not, as UCI text (for generating a bad
/// one): in Chess960 the king onto each of its own rooks on the back rank; otherwise the king
/// on e1/e8 two files either way (whether a rook stands in the corner is left to
/// [`castling_attempt`]).
pub(super) fn castling_attempts(pos: &Chess) -> Vec<String> {
    let us = pos.turn();
    let board = pos.board();
    let mut out = Vec::new();
    if pos.castles().mode() == CastlingMode::Chess960 {
        let back = Bitboard::from_rank(last_rank(!us));
        if let Some(king) = board.king_of(us).filter(|k| back.contains(*k)) {
            for rook in board.rooks() & board.by_color(us) & back {
                out.push(format!("{king}{rook}"));
            }
        }
        return out;
    }
    let home = king_home(us);
    if board.piece_at(home) == Some(us.king()) {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            out.push(format!("{home}{}", side.king_to(us)));
        }
    }
    out
}

/// The king's starting square in standard chess.
fn king_home(us: Color) -> Square {
    us.fold_wb(Square::E1, Square::E8)
}
