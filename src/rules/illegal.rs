//! Illegal moves (RULES.md §3, §5): classify what an engine sent, play it anyway when it
//! stands, and generate one of a requested kind for fault injection.
//!
//! # Classification ([`check`])
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
//!
//! # The board after a move that stands ([`play_illegal`])
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
//! without a king that panics later. Rule the opponent's reply with [`check`] (which calls a
//! king capture unplayable) or ask [`king_capture`] first, never `to_move` alone.
//!
//! # Generation ([`generate`])
//!
//! A move drawn uniformly from the candidates of the kind that [`check`] classifies as that
//! kind and [`play_illegal`] can stand on the board: `0000`; a legal queen promotion without
//! its letter; castling in the two-square form with the king on e1/e8 and the rook in the
//! corner; every pseudo-legal move (all four promotion letters) that exposes the king; a king
//! step next to the other king (the kings must be two squares apart, or already adjacent in an
//! illegal position); every from → to of one's own piece that breaks the piece's rules
//! (without a letter; a pawn to its own first rank is left out since it cannot stand).

use rand::seq::SliceRandom;
use shakmaty::uci::UciMove;
use shakmaty::{
    attacks, Bitboard, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, FromSetup, Move,
    Piece, Position, PositionError, PositionErrorKinds, Rank, Role, Setup, Square,
};

pub use crate::vocabulary::IllegalKind;

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

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

fn side_name(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "kingside",
        CastlingSide::QueenSide => "queenside",
    }
}

fn last_rank(color: Color) -> Rank {
    color.fold_wb(Rank::Eighth, Rank::First)
}

/// Whether `color`'s king is attacked (false if it has no single king).
fn in_check(board: &shakmaty::Board, color: Color) -> bool {
    board
        .king_of(color)
        .is_some_and(|k| board.attacks_to(k, !color, board.occupied()).any())
}

/// Legal moves that do not capture a king (in an illegal position shakmaty offers those).
fn playable_moves(pos: &Chess) -> impl Iterator<Item = Move> {
    pos.legal_moves()
        .into_iter()
        .filter(|m| m.capture() != Some(Role::King))
}

/// The en-passant square, if a pawn of the side to move could take on it (pseudo-legally).
fn ep_target(pos: &Chess) -> Option<Square> {
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
fn pseudo_targets(pos: &Chess, from: Square, piece: Piece) -> Bitboard {
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
                if from.rank() == us.fold_wb(Rank::Second, Rank::Seventh) {
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
fn rule_breach(pos: &Chess, from: Square, to: Square, piece: Piece) -> String {
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
                } else if ranks == 2 && from.rank() != us.fold_wb(Rank::Second, Rank::Seventh) {
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

/// A castling attempt: the king on its home square moving two files along the back rank, or
/// onto its own rook, with its own rook in that corner. Returns (king, rook, side).
fn castling_attempt(
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
    let home = us.fold_wb(Square::E1, Square::E8);
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
fn castle_fault(pos: &Chess, king: Square, rook: Square, side: CastlingSide) -> String {
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
/// as noticed (RULES.md §3), as text that is no move at all does.
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
    let us = pos.turn();
    if uci == "0000" || uci == "(none)" {
        return if playable_moves(pos).next().is_some() {
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
        };
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
    if from == to {
        return unplayable(format!("{uci}: the piece does not leave {from}"));
    }
    let board = pos.board();
    let Some(piece) = board.piece_at(from) else {
        return unplayable(format!("{uci}: there is no piece on {from}"));
    };
    if piece.color != us {
        return unplayable(format!("{uci}: the piece on {from} is the opponent's"));
    }
    if let Some(target) = board.piece_at(to) {
        if target == (!us).king() {
            return if king_capture(pos, uci) {
                unplayable(format!("{uci} captures the opponent's king"))
            } else {
                unplayable(format!(
                    "{uci}: the {} on {from} cannot reach the king on {to}, and a king is never taken",
                    role_name(piece.role)
                ))
            };
        }
    }
    let castle = castling_attempt(pos, from, to, promotion);
    if board.by_color(us).contains(to) && castle.is_none() {
        return unplayable(format!("{uci}: it takes its own piece on {to}"));
    }
    if let Ok(m) = parsed.to_move(pos) {
        return MoveCheck::Legal(m);
    }

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
    let letter_ok = match promotion {
        None => true,
        Some(p) => {
            reaches_last && matches!(p, Role::Knight | Role::Bishop | Role::Rook | Role::Queen)
        }
    };
    if !letter_ok {
        let why = if role != Role::Pawn {
            format!("only a pawn is promoted, not a {}", role_name(role))
        } else if reaches_last {
            "a pawn is promoted to a knight, bishop, rook or queen".to_string()
        } else {
            "a pawn is promoted only on the last rank".to_string()
        };
        return illegal(
            IllegalKind::BadPieceMove,
            uci,
            format!("{uci}: {why}"),
            BoardEffect::Move(effect),
        );
    }
    if !pseudo_targets(pos, from, piece).contains(to) {
        return illegal(
            IllegalKind::BadPieceMove,
            uci,
            format!("{uci}: {}", rule_breach(pos, from, to, piece)),
            BoardEffect::Move(effect),
        );
    }

    let mut after = pos.clone();
    after.play_unchecked(effect);
    let their_king = board.king_of(!us);
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
    illegal(
        IllegalKind::BadPieceMove,
        uci,
        format!("{uci}: not legal in this position"),
        BoardEffect::Move(effect),
    )
}

/// Whether the engine's move takes the opponent's king: the mover's piece on the from-square
/// attacks the king on the to-square by its rules. Possible only in an illegal position (the
/// side not to move in check, after an illegal move stood). House H17/H18 and USCF 7d count it
/// as a claim; [`check`] calls it unplayable.
pub fn king_capture(pos: &Chess, text: &str) -> bool {
    let Ok(UciMove::Normal { from, to, .. }) = UciMove::from_ascii(text.trim().as_bytes()) else {
        return false;
    };
    let board = pos.board();
    let us = pos.turn();
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

/// FIDE A.5.4: is the position illegal, and why? Checks, in order: a pawn on the first or last
/// rank, a side without exactly one king, kings next to each other, both kings in check, the
/// side not to move in check.
pub fn position_is_illegal(pos: &Chess) -> Option<&'static str> {
    let board = pos.board();
    if (board.pawns() & Bitboard::BACKRANKS).any() {
        return Some("a pawn stands on the first or last rank");
    }
    let (Some(white), Some(black)) = (board.king_of(Color::White), board.king_of(Color::Black))
    else {
        return Some("a side does not have exactly one king");
    };
    if attacks::king_attacks(white).contains(black) {
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

/// FIDE A.5.4: a position in which the arbiter waits for the next move: both kings in check
/// (kings next to each other check each other), or a pawn on the first or last rank.
pub fn arbiter_waits(pos: &Chess) -> bool {
    let board = pos.board();
    (board.pawns() & Bitboard::BACKRANKS).any()
        || (in_check(board, Color::White) && in_check(board, Color::Black))
}

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
    if (board.pawns() & Bitboard::BACKRANKS).any() {
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
        IllegalKind::BadCastle if pos.castles().mode() == CastlingMode::Chess960 => {
            // Chess960: the king onto one of its own rooks on the back rank.
            let back = Bitboard::from_rank(last_rank(!us));
            if let Some(king) = board.king_of(us).filter(|k| back.contains(*k)) {
                for rook in board.rooks() & ours & back {
                    out.push(format!("{king}{rook}"));
                }
            }
        }
        IllegalKind::BadCastle => {
            let home = us.fold_wb(Square::E1, Square::E8);
            if board.piece_at(home) == Some(us.king()) {
                for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
                    out.push(format!("{home}{}", side.king_to(us)));
                }
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};
    use shakmaty::fen::Fen;

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

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
                let after =
                    play_illegal(&p, &i).unwrap_or_else(|e| panic!("{} {text}: {e}", fen(&p)));
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
}
