//! Generating an illegal move of a requested kind, for fault injection ([`generate`]).
//!
//! A move drawn uniformly from the candidates of the kind that [`check`] classifies as that
//! kind and [`play_illegal`] can stand on the board: `0000`; a legal queen promotion without
//! its letter; castling in the two-square form with the king on e1/e8 and the rook in the
//! corner (in Chess960: the king onto its own rook); every pseudo-legal move (all four
//! promotion letters) that exposes the king; a king step next to the other king (the kings
//! must be two squares apart, or already adjacent in an illegal position); every from → to of
//! one's own piece that breaks the piece's rules (without a letter; a pawn to its own first
//! rank is left out since it cannot stand).

use rand::seq::SliceRandom;
use shakmaty::{attacks, Chess, Move, Position, Role};

use super::castling::castling_attempts;
use super::classify::check;
use super::pieces::{last_rank, playable_moves, pseudo_targets};
use super::stand::play_illegal;
use super::{IllegalKind, MoveCheck};

/// Raw candidates for `kind` in `pos` (filtered by [`generate`]).
fn candidates(pos: &Chess, kind: IllegalKind) -> Vec<String> {
    let board = pos.board();
    let us = pos.turn();
    let ours = board.by_color(us);
    let mut out = Vec::new();
    match kind {
        IllegalKind::NoMove => out.push("0000".to_string()),
        IllegalKind::NoPromotion => {
            for m in playable_moves(pos) {
                if let Move::Normal {
                    from,
                    to,
                    promotion: Some(Role::Queen),
                    ..
                } = m
                {
                    out.push(format!("{from}{to}"));
                }
            }
        }
        IllegalKind::BadCastle => out = castling_attempts(pos),
        IllegalKind::KingsAdjacent => {
            if let (Some(k), Some(t)) = (board.king_of(us), board.king_of(!us)) {
                for sq in attacks::king_attacks(k) & attacks::king_attacks(t) & !ours {
                    out.push(format!("{k}{sq}"));
                }
            }
        }
        IllegalKind::KingExposed => {
            for from in ours {
                let piece = board.piece_at(from).expect("occupied");
                for to in pseudo_targets(pos, from, piece) {
                    if piece.role == Role::Pawn && to.rank() == last_rank(us) {
                        for letter in ['q', 'r', 'b', 'n'] {
                            out.push(format!("{from}{to}{letter}"));
                        }
                    } else {
                        out.push(format!("{from}{to}"));
                    }
                }
            }
        }
        IllegalKind::BadPieceMove => {
            let their_king = board.kings() & board.by_color(!us);
            for from in ours {
                let piece = board.piece_at(from).expect("occupied");
                let reachable = pseudo_targets(pos, from, piece);
                for to in !(ours | their_king | reachable) {
                    if piece.role == Role::Pawn && to.rank() == last_rank(!us) {
                        continue; // a pawn on its own first rank cannot stand
                    }
                    out.push(format!("{from}{to}"));
                }
            }
        }
    }
    out
}

/// A uniformly random illegal move (UCI text) of `kind` in `pos` that [`check`] classifies as
/// `kind` and [`play_illegal`] can stand on the board, or `None` if there is none (no pawn to
/// promote, no king and rook at home for a castling attempt, kings not two squares apart, ...).
pub fn generate(pos: &Chess, kind: IllegalKind, rng: &mut impl rand::Rng) -> Option<String> {
    let mut cands = candidates(pos, kind);
    // The first candidate of a uniform shuffle that passes is uniform among those that pass.
    cands.shuffle(rng);
    cands.into_iter().find(|text| match check(pos, text) {
        MoveCheck::Illegal(i) => i.kind == kind && play_illegal(pos, &i).is_ok(),
        _ => false,
    })
}
