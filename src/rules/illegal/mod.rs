//! Illegal moves (docs/rulesets.md): classify what an engine sent ([`check`], in `classify`),
//! play it anyway when it stands ([`play_illegal`], in `stand`), and generate one of a
//! requested kind for fault injection ([`generate()`], in `generate`). Castling attempts
//! (`castling`), the pieces' own rules (`pieces`), king captures ([`king_capture()`]) and
//! illegal positions ([`position_is_illegal`], in `position`) serve them.

mod castling;
mod classify;
mod generate;
mod king_capture;
mod pieces;
mod position;
mod stand;
#[cfg(test)]
mod tests;

use shakmaty::Move;

pub use crate::vocabulary::IllegalKind;
pub use classify::check;
pub use generate::generate;
pub use king_capture::{king_capture, opponent_king_attacked};
pub use position::{arbiter_waits, kings_adjacent, position_is_illegal};
pub use stand::play_illegal;

/// What an illegal move does to the board if it stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoardEffect {
    /// Nothing moves; the turn passes (`0000`).
    Pass,
    /// The move as carried out on the board, not necessarily by the pieces' rules: a bad piece
    /// move is a `Move::Normal` from → to (`capture` is what stood on `to`), a bad castling a
    /// `Move::Castle`, a pawn reaching the last rank without a letter has
    /// `promotion: Some(Role::Queen)`.
    Move(Move),
}

/// A completed move that is not legal, as classified by [`check`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegal {
    pub kind: IllegalKind,
    /// The engine's text, trimmed.
    pub uci: String,
    /// Why it is illegal, for notes and PGN comments.
    pub reason: String,
    /// What it does to the board if it stands; see [`play_illegal`].
    pub board_effect: BoardEffect,
}

/// What an engine's `bestmove` text was, in a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveCheck {
    Legal(Move),
    Illegal(Illegal),
    /// Not a move at all (unparsable text, a drop, from == to, an empty from-square, the
    /// opponent's piece, taking one's own piece, taking the king): it cannot stand on any
    /// board.
    Unplayable {
        reason: String,
    },
}
