//! Classifying an engine's move text (docs/rulesets.md): legal, which kind of illegal, or
//! no move at all ([`check`]).
//!
//! The text is trimmed, then ruled in this order; the first rule that applies decides:
//!
//! 1. `0000` or `(none)`: [`IllegalKind::NoMove`] if the side to move has a legal move
//!    (one that does not capture a king); otherwise [`MoveCheck::Unplayable`] (the game was
//!    already over by mate or stalemate).
//! 2. [`MoveCheck::Unplayable`]: not UCI text, a drop (`Q@e4`), from == to, an empty
//!    from-square, the opponent's piece, a move onto the opponent's king (see
//!    [`king_capture`]: callers that let a king capture count as a claim, H17/H18 and USCF
//!    7d, ask that first), or a move onto one's own piece that is not a castling attempt.
//! 3. [`MoveCheck::Legal`]: what shakmaty's `UciMove::to_move` accepts (`e1g1` and `e1h1`
//!    are both castling).
//! 4. [`IllegalKind::NoPromotion`]: a pawn move to the last rank without a letter that
//!    would be legal with `q`. Any other flaw wins over the missing letter.
//! 5. [`IllegalKind::BadCastle`]: a castling attempt (in Chess960: the king moving onto its
//!    own rook on the back rank, FIDE Guidelines III.3), that is the king on e1/e8 moving two
//!    files along its back rank (`e1g1`, `e1c1`) or onto its own rook (`e1h1`, `e1a1`, UCI 960
//!    form) while its own rook stands on that corner: no castling right (the king or the rook
//!    has moved), pieces in between, castling out of, through or into check. A king on e1
//!    stepping two files with no rook in the corner is a bad piece move, not a castling.
//! 6. The move follows the piece's rules on this board (pseudo-legal: pushes, captures,
//!    en passant, promotion letters `nbrq` only on the last rank) but the mover's king is
//!    attacked afterwards: [`IllegalKind::KingsAdjacent`] if it is a king step onto a square
//!    next to the other king, else [`IllegalKind::KingExposed`].
//! 7. Anything else is [`IllegalKind::BadPieceMove`]: a piece moving against its rules, a
//!    slider passing through a piece, a pawn moving backwards or diagonally onto an empty
//!    square, a promotion letter on a move that is not a promotion or naming `k`/`p`. A bad
//!    piece move that also exposes the king is still a bad piece move.

use shakmaty::uci::UciMove;
use shakmaty::{attacks, CastlingSide, Chess, Move, Piece, Position, Role, Square};

use super::castling::{castle_fault, castling_attempt};
use super::king_capture::king_capture;
use super::pieces::{
    ep_target, in_check, last_rank, playable_moves, pseudo_targets, role_name, rule_breach,
};
use super::stand::play_illegal;
use super::{BoardEffect, Illegal, IllegalKind, MoveCheck};

fn unplayable(reason: String) -> MoveCheck {
    MoveCheck::Unplayable { reason }
}

fn illegal(kind: IllegalKind, uci: &str, reason: String, board_effect: BoardEffect) -> MoveCheck {
    MoveCheck::Illegal(Illegal {
        kind,
        uci: uci.to_string(),
        reason,
        board_effect,
    })
}

/// The move as carried out on the board (see [`BoardEffect::Move`]).
fn effect_move(pos: &Chess, from: Square, to: Square, role: Role, promotion: Option<Role>) -> Move {
    let us = pos.turn();
    if role == Role::Pawn
        && ep_target(pos) == Some(to)
        && attacks::pawn_attacks(us, from).contains(to)
    {
        return Move::EnPassant { from, to };
    }
    let promotion = (role == Role::Pawn && to.rank() == last_rank(us))
        .then(|| promotion.unwrap_or(Role::Queen));
    Move::Normal {
        role,
        from,
        capture: pos.board().role_at(to),
        to,
        promotion,
    }
}

/// Classifies an engine's `bestmove` text in `pos` (see the module documentation for the
/// order of the rules). An illegal move no board can hold (a pawn sent back onto its own first
/// rank, a castle onto occupied squares) cannot stand unnoticed: its reason says that it counts
/// as noticed (docs/rulesets.md, "a move no board can hold"), as text that is no move at all does.
pub fn check(pos: &Chess, text: &str) -> MoveCheck {
    const NOTICED: &str = "no board can hold it, so it counts as noticed";
    match classify(pos, text) {
        MoveCheck::Illegal(mut i) => {
            if let Err(why) = play_illegal(pos, &i) {
                let why = why
                    .strip_prefix(&format!("{} cannot stand: ", i.uci))
                    .or_else(|| why.strip_prefix(&format!("{}: ", i.uci)))
                    .unwrap_or(&why);
                i.reason = format!("{}; {NOTICED} ({why})", i.reason);
            }
            MoveCheck::Illegal(i)
        }
        MoveCheck::Unplayable { reason } => unplayable(format!("{reason}; {NOTICED}")),
        legal => legal,
    }
}

fn classify(pos: &Chess, text: &str) -> MoveCheck {
    let uci = text.trim();
    if uci == "0000" || uci == "(none)" {
        return no_move(pos, uci);
    }
    let parsed = match UciMove::from_ascii(uci.as_bytes()) {
        Ok(parsed) => parsed,
        Err(_) => return unplayable(format!("{uci:?} is not a UCI move")),
    };
    let (from, to, promotion) = match parsed {
        UciMove::Normal {
            from,
            to,
            promotion,
        } => (from, to, promotion),
        UciMove::Put { .. } => return unplayable(format!("{uci}: a drop is not a chess move")),
        UciMove::Null => unreachable!("0000 is handled above"),
    };
    let piece = match moving_piece(pos, uci, from, to) {
        Ok(piece) => piece,
        Err(unplayable) => return unplayable,
    };
    let castle = castling_attempt(pos, from, to, promotion);
    if pos.board().by_color(pos.turn()).contains(to) && castle.is_none() {
        return unplayable(format!("{uci}: it takes its own piece on {to}"));
    }
    if let Ok(m) = parsed.to_move(pos) {
        return MoveCheck::Legal(m);
    }
    illegal_move(pos, uci, (from, to, promotion), piece, castle)
}

/// `0000` or `(none)`: no move made while there is one, or the game was already over.
fn no_move(pos: &Chess, uci: &str) -> MoveCheck {
    if playable_moves(pos).next().is_some() {
        illegal(
            IllegalKind::NoMove,
            uci,
            format!("no move made ({uci}) while legal moves exist"),
            BoardEffect::Pass,
        )
    } else {
        unplayable(format!(
            "{uci}: there is no legal move, the game is already over"
        ))
    }
}

/// The mover's piece on `from`, or why the text moves nothing of the mover's: no piece leaves
/// a square, an empty square, the opponent's piece, or a move onto the opponent's king.
fn moving_piece(pos: &Chess, uci: &str, from: Square, to: Square) -> Result<Piece, MoveCheck> {
    let us = pos.turn();
    if from == to {
        return Err(unplayable(format!(
            "{uci}: the piece does not leave {from}"
        )));
    }
    let board = pos.board();
    let Some(piece) = board.piece_at(from) else {
        return Err(unplayable(format!("{uci}: there is no piece on {from}")));
    };
    if piece.color != us {
        return Err(unplayable(format!(
            "{uci}: the piece on {from} is the opponent's"
        )));
    }
    if board.piece_at(to) == Some((!us).king()) {
        return Err(if king_capture(pos, uci) {
            unplayable(format!("{uci} captures the opponent's king"))
        } else {
            unplayable(format!(
                "{uci}: the {} on {from} cannot reach the king on {to}, and a king is never taken",
                role_name(piece.role)
            ))
        });
    }
    Ok(piece)
}

/// Which kind of illegal move a move of the mover's `piece` is that shakmaty refuses (rules
/// 4 to 7 of the module documentation).
fn illegal_move(
    pos: &Chess,
    uci: &str,
    (from, to, promotion): (Square, Square, Option<Role>),
    piece: Piece,
    castle: Option<(Square, Square, CastlingSide)>,
) -> MoveCheck {
    let us = pos.turn();
    let role = piece.role;
    let reaches_last = role == Role::Pawn && to.rank() == last_rank(us);
    if reaches_last && promotion.is_none() {
        let queened = UciMove::Normal {
            from,
            to,
            promotion: Some(Role::Queen),
        };
        if let Ok(m) = queened.to_move(pos) {
            return illegal(
                IllegalKind::NoPromotion,
                uci,
                format!("{uci}: the pawn reaches the last rank but no piece is named"),
                BoardEffect::Move(m),
            );
        }
    }

    if let Some((king, rook, side)) = castle {
        return illegal(
            IllegalKind::BadCastle,
            uci,
            format!("{uci}: {}", castle_fault(pos, king, rook, side)),
            BoardEffect::Move(Move::Castle { king, rook }),
        );
    }

    let effect = effect_move(pos, from, to, role, promotion);
    let bad_piece_move = |why: String| {
        illegal(
            IllegalKind::BadPieceMove,
            uci,
            format!("{uci}: {why}"),
            BoardEffect::Move(effect),
        )
    };
    if let Some(why) = promotion_fault(role, reaches_last, promotion) {
        return bad_piece_move(why);
    }
    if !pseudo_targets(pos, from, piece).contains(to) {
        return bad_piece_move(rule_breach(pos, from, to, piece));
    }

    let mut after = pos.clone();
    after.play_unchecked(effect);
    let their_king = pos.board().king_of(!us);
    if role == Role::King && their_king.is_some_and(|k| attacks::king_attacks(to).contains(k)) {
        return illegal(
            IllegalKind::KingsAdjacent,
            uci,
            format!("{uci}: the king steps next to the other king"),
            BoardEffect::Move(effect),
        );
    }
    if in_check(after.board(), us) {
        let why = if pos.is_check() {
            "the king is still in check after it"
        } else {
            "it puts its own king in check"
        };
        return illegal(
            IllegalKind::KingExposed,
            uci,
            format!("{uci}: {why}"),
            BoardEffect::Move(effect),
        );
    }
    // Follows the rules and leaves the king safe, yet shakmaty refuses it: only in a position
    // that is itself illegal. Call it a bad piece move rather than guess.
    bad_piece_move("not legal in this position".to_string())
}

/// What is wrong with a move's promotion letter, if anything: only a pawn reaching the last
/// rank is promoted, and only to a knight, bishop, rook or queen.
fn promotion_fault(role: Role, reaches_last: bool, promotion: Option<Role>) -> Option<String> {
    let letter_ok = match promotion {
        None => true,
        Some(p) => {
            reaches_last && matches!(p, Role::Knight | Role::Bishop | Role::Rook | Role::Queen)
        }
    };
    if letter_ok {
        None
    } else if role != Role::Pawn {
        Some(format!(
            "only a pawn is promoted, not a {}",
            role_name(role)
        ))
    } else if reaches_last {
        Some("a pawn is promoted to a knight, bishop, rook or queen".to_string())
    } else {
        Some("a pawn is promoted only on the last rank".to_string())
    }
}
