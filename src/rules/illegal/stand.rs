//! The board after an illegal move that stands ([`play_illegal`]).
//!
//! The move is carried out as its [`BoardEffect`] says: the piece goes from → to and takes
//! what stands there; a pawn that reaches the last rank without a letter becomes a queen
//! (FIDE 7.5.2, WBCA 17, USCF 16); a promotion letter on any other move is ignored; a bad
//! castling puts king and rook on their castled squares; `0000` passes the turn. The turn
//! flips, the halfmove clock and fullmove number advance, castling rights are lost by a king
//! or rook that moves or a rook that is taken, and a double step sets the en-passant square
//! (dropped when it is not a valid one, for example after a pawn jumped over a piece).
//!
//! The result may be a position shakmaty refuses to set up: the side not to move in check
//! (king exposed, kings adjacent). `PositionError` in shakmaty 0.30.1 cannot ignore
//! `OPPOSITE_CHECK`, so such a position is made with `Position::play_unchecked` from the
//! position before (shakmaty's own move code keeps rights and clocks) and checked through a
//! `Setup`; what cannot stand on a board at all (a pawn on the first or last rank, a second
//! king, castling onto occupied squares) is an `Err`, and the arena then rules the move
//! noticed. Callers get the FEN with `shakmaty::fen::Fen::from_position(&pos,
//! EnPassantMode::Legal)`.
//!
//! **Caution for callers:** in such a position shakmaty's `legal_moves()` and
//! `UciMove::to_move` accept capturing the king, and playing that move leaves a position
//! without a king that panics later. Rule the opponent's reply with [`check`](super::check)
//! (which calls a king capture unplayable) or ask [`king_capture`](super::king_capture())
//! first, never `to_move` alone.

use shakmaty::{
    CastlingMode, CastlingSide, Chess, Color, EnPassantMode, FromSetup, Move, Position,
    PositionError, PositionErrorKinds, Role, Setup, Square,
};

use super::pieces::role_name;
use super::position::pawn_on_back_rank;
use super::{BoardEffect, Illegal};

/// Checks that `m` can be carried out on `pos`'s board without corrupting it.
fn validate_effect(pos: &Chess, m: Move) -> Result<(), String> {
    let board = pos.board();
    let us = pos.turn();
    let ours = |sq: Square, role: Role| board.piece_at(sq) == Some(role.of(us));
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            if !ours(from, role) {
                return Err(format!(
                    "no {} of the side to move on {from}",
                    role_name(role)
                ));
            }
            if from == to {
                return Err(format!("the piece does not leave {from}"));
            }
            match board.piece_at(to) {
                Some(p) if p.color == us => return Err(format!("{to} holds its own piece")),
                Some(p) if p.role == Role::King => return Err(format!("{to} holds the king")),
                _ => {}
            }
            if capture != board.role_at(to) {
                return Err(format!("the capture on {to} does not match the board"));
            }
            if promotion.is_some() && role != Role::Pawn {
                return Err(format!("a {} is not promoted", role_name(role)));
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            if !ours(from, Role::Pawn)
                || board.occupied().contains(to)
                || board.piece_at(taken) != Some((!us).pawn())
            {
                return Err(format!("en passant {from}{to} does not fit the board"));
            }
        }
        Move::Castle { king, rook } => {
            if !ours(king, Role::King) || !ours(rook, Role::Rook) || king.rank() != rook.rank() {
                return Err("castling needs the king and a rook on one rank".to_string());
            }
            let side = CastlingSide::from_queen_side(rook < king);
            let king_to = Square::from_coords(side.king_to_file(), king.rank());
            let rook_to = Square::from_coords(side.rook_to_file(), king.rank());
            let free = board.occupied().without(king).without(rook);
            for sq in [king_to, rook_to] {
                if free.contains(sq) {
                    return Err(format!("castling cannot be carried out: {sq} is occupied"));
                }
            }
        }
        Move::Put { .. } => return Err("a drop is not a chess move".to_string()),
    }
    Ok(())
}

/// A move that changes nothing on the board but passes the turn, as shakmaty 0.30.1's
/// `play_unchecked` carries it out: the king "promotes" to a king on its own square. Clears
/// the en-passant square, keeps castling rights, advances the clocks (resetting the halfmove
/// clock if `zeroing`).
fn pass_move(pos: &Chess, zeroing: bool) -> Result<Move, String> {
    let king = pos
        .board()
        .king_of(pos.turn())
        .ok_or("the side to move does not have exactly one king")?;
    Ok(Move::Normal {
        role: Role::Knight,
        from: king,
        capture: zeroing.then_some(Role::Knight),
        to: king,
        promotion: Some(Role::King),
    })
}

/// The position of `setup`, despite invalid castling rights or en-passant square (dropped),
/// an impossible check or too much material.
fn setup_position(setup: Setup, mode: CastlingMode) -> Result<Chess, String> {
    Chess::from_setup(setup, mode)
        .or_else(PositionError::ignore_invalid_castling_rights)
        .or_else(PositionError::ignore_invalid_ep_square)
        .or_else(PositionError::ignore_impossible_check)
        .or_else(PositionError::ignore_too_much_material)
        .map_err(|e| e.to_string())
}

/// The position after an illegal move that stands (see the module documentation). `Err` when
/// the result cannot stand on a board (a pawn on the first or last rank, not exactly one king
/// a side, castling onto occupied squares) or `illegal` does not fit `pos`.
pub fn play_illegal(pos: &Chess, illegal: &Illegal) -> Result<Chess, String> {
    let m = match illegal.board_effect {
        BoardEffect::Pass => pass_move(pos, false)?,
        BoardEffect::Move(m) => {
            validate_effect(pos, m).map_err(|e| format!("{}: {e}", illegal.uci))?;
            m
        }
    };
    let mut after = pos.clone();
    after.play_unchecked(m);
    let setup = after.to_setup(EnPassantMode::Always);

    let board = &setup.board;
    if pawn_on_back_rank(board) {
        return Err(format!(
            "{} cannot stand: a pawn would be on the first or last rank",
            illegal.uci
        ));
    }
    for color in Color::ALL {
        if board.king_of(color).is_none() {
            return Err(format!(
                "{} cannot stand: {color} would not have exactly one king",
                illegal.uci
            ));
        }
    }

    // Chess960 positions keep their castling mode (king takes rook).
    let mode = pos.castles().mode();
    let err = match Chess::from_setup(setup.clone(), mode) {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    let kinds = err.kinds();
    let tolerated = PositionErrorKinds::INVALID_CASTLING_RIGHTS
        | PositionErrorKinds::INVALID_EP_SQUARE
        | PositionErrorKinds::IMPOSSIBLE_CHECK
        | PositionErrorKinds::TOO_MUCH_MATERIAL
        | PositionErrorKinds::OPPOSITE_CHECK;
    let cannot = |e: String| format!("{} cannot stand: {e}", illegal.uci);
    if !(kinds - tolerated).is_empty() {
        return Err(cannot(err.to_string()));
    }
    if !kinds.contains(PositionErrorKinds::OPPOSITE_CHECK) {
        return setup_position(setup, mode).map_err(cannot);
    }
    // The side not to move is in check: no Setup gives that position. The one play_unchecked
    // made is it, unless its en-passant square or castling rights are invalid ...
    if !kinds.intersects(
        PositionErrorKinds::INVALID_EP_SQUARE | PositionErrorKinds::INVALID_CASTLING_RIGHTS,
    ) {
        return Ok(after);
    }
    // ... then set it up with the mover still to move (valid unless the other king is in
    // check too) and pass the turn.
    let mut before = setup.clone();
    before.turn = !setup.turn;
    before.ep_square = None;
    before.halfmoves = setup.halfmoves.saturating_sub(1);
    if setup.turn == Color::White {
        before.fullmoves = std::num::NonZeroU32::new(setup.fullmoves.get().saturating_sub(1))
            .unwrap_or(setup.fullmoves);
    }
    let mut p = setup_position(before, mode).map_err(cannot)?;
    p.play_unchecked(pass_move(&p, setup.halfmoves == 0)?);
    Ok(p)
}
