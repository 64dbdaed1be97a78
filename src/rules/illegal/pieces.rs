//! How the pieces move by their own rules (pseudo-legally, FIDE 3.1-3.8), and why a move
//! breaks them.

use shakmaty::{attacks, Bitboard, Chess, Color, Move, Piece, Position, Rank, Role, Square};

pub(super) fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

pub(super) fn last_rank(color: Color) -> Rank {
    color.fold_wb(Rank::Eighth, Rank::First)
}

/// The rank a pawn starts on, from which it may step two squares (FIDE 3.7.2).
fn pawn_home_rank(color: Color) -> Rank {
    color.fold_wb(Rank::Second, Rank::Seventh)
}

/// Whether `color`'s king is attacked (false if it has no single king).
pub(super) fn in_check(board: &shakmaty::Board, color: Color) -> bool {
    board
        .king_of(color)
        .is_some_and(|k| board.attacks_to(k, !color, board.occupied()).any())
}

/// Legal moves that do not capture a king (in an illegal position shakmaty offers those).
pub(super) fn playable_moves(pos: &Chess) -> impl Iterator<Item = Move> {
    pos.legal_moves()
        .into_iter()
        .filter(|m| m.capture() != Some(Role::King))
}

/// The en-passant square, if a pawn of the side to move could take on it (pseudo-legally).
pub(super) fn ep_target(pos: &Chess) -> Option<Square> {
    let sq = pos.maybe_ep_square()?;
    let board = pos.board();
    let us = pos.turn();
    let pushed = Square::from_coords(sq.file(), us.fold_wb(Rank::Fifth, Rank::Fourth));
    let theirs = board.by_color(!us) & board.pawns();
    (sq.rank() == us.fold_wb(Rank::Sixth, Rank::Third)
        && !board.occupied().contains(sq)
        && theirs.contains(pushed))
    .then_some(sq)
}

/// The squares the piece on `from` can move to by its rules (pseudo-legally), castling aside;
/// never a square of one's own piece or the other king.
pub(super) fn pseudo_targets(pos: &Chess, from: Square, piece: Piece) -> Bitboard {
    let board = pos.board();
    let occ = board.occupied();
    let us = piece.color;
    let them = board.by_color(!us);
    let targets = match piece.role {
        Role::Pawn => {
            let mut t = attacks::pawn_attacks(us, from) & them;
            if let Some(ep) = ep_target(pos) {
                if attacks::pawn_attacks(us, from).contains(ep) {
                    t.add(ep);
                }
            }
            let step = us.fold_wb(8, -8);
            if let Some(one) = from.offset(step).filter(|s| !occ.contains(*s)) {
                t.add(one);
                if from.rank() == pawn_home_rank(us) {
                    if let Some(two) = one.offset(step).filter(|s| !occ.contains(*s)) {
                        t.add(two);
                    }
                }
            }
            t
        }
        _ => attacks::attacks(from, piece, occ) & !board.by_color(us),
    };
    targets & !(board.kings() & them)
}

/// Why a move of `piece` from → to breaks the piece's rules (it is not in [`pseudo_targets`]).
pub(super) fn rule_breach(pos: &Chess, from: Square, to: Square, piece: Piece) -> String {
    let occ = pos.board().occupied();
    let name = role_name(piece.role);
    match piece.role {
        Role::Pawn => {
            let us = piece.color;
            let forward = us.fold_wb(to.rank() > from.rank(), to.rank() < from.rank());
            let ranks = from.rank().distance(to.rank());
            let files = from.file().distance(to.file());
            if !forward {
                if ranks == 0 {
                    "a pawn does not move sideways".into()
                } else {
                    "a pawn does not move backwards".into()
                }
            } else if files == 0 && (ranks == 1 || ranks == 2) {
                if occ.contains(to) {
                    "a pawn does not capture straight ahead".into()
                } else if ranks == 2 && from.rank() != pawn_home_rank(us) {
                    "a pawn steps two squares only from its starting square".into()
                } else {
                    "a pawn does not jump over a piece".into()
                }
            } else if files == 1 && ranks == 1 {
                "a pawn moves diagonally only to capture".into()
            } else {
                "a pawn moves one square forward (two from its starting square)".into()
            }
        }
        Role::Knight => "a knight moves two squares one way and one the other".into(),
        Role::King => "a king moves one square".into(),
        role => {
            let lines = attacks::attacks(from, piece, Bitboard::EMPTY);
            if lines.contains(to) {
                format!("a {name} does not pass through pieces")
            } else {
                let how = match role {
                    Role::Bishop => "diagonally",
                    Role::Rook => "along ranks and files",
                    _ => "along ranks, files and diagonals",
                };
                format!("a {name} moves {how}")
            }
        }
    }
}
