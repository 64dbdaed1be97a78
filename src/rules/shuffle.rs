//! A cheap proof, for most positions, that the dead-position test (FIDE 5.2.2) would find
//! the position alive: the answer chasolver's fast test gives, without asking it.
//!
//! chasolver's fast test (`is_unwinnable_fast`, chasolver 3.0) answers "unwinnable" for the
//! intended winner only when one of these holds; otherwise it answers "not unwinnable":
//!
//! 1. the position has exactly one legal move and the forced line it starts repeats;
//! 2. every line of its bounded search (4 plies, or 7 when only pawns and bishops are left)
//!    reaches a position where the winner's material is insufficient (its own definition,
//!    `insufficient` below) or a position without a legal move that is not the loser mated;
//! 3. the pawn structure is blocked, as it measures it: at least `max(1, pawns / 2 - 2)` of
//!    the winner's pawns with an enemy pawn or the enemy king straight in front (every later
//!    phase is gated by this count), and either only pawns and bishops are left besides the
//!    kings (a deeper search) or every pawn has an enemy pawn on its file, as it measures it
//!    (its static analysis and the phases after it).
//!
//! None can hold when the side to move has two legal moves or more besides castling (not 1),
//! the winner's material is sufficient and its pawns are not blocked in that measure, or a
//! knight, rook or queen is on the board and a pawn stands alone on its file (not 3), and
//! there is a line of quiet moves that can go on for ever (not 2): a shuffle (a quiet move of
//! a piece that is not a pawn by the side to move, a quiet move of such a piece by the other
//! side, and both moves back, each legal in turn), from the position or, when the side to move
//! is in check, after one quiet move out of check. Quiet moves capture nothing and promote nothing,
//! so the material stays as it was on every ply; a shuffle ends on the pieces it started from,
//! with the same side to move, so it can be played again for as many plies as the search
//! looks, and each of its moves is legal whenever its turn comes round (a move that is neither
//! castling nor en passant is legal or not by the pieces and the side to move alone), so no
//! position of the line lacks a move. The search asks only whether one such line exists, so
//! the order in which it tries moves does not matter.
//!
//! chasolver answers for one intended winner at a time (black's question on the board
//! mirrored); a position is dead only when it answers "unwinnable" for both, so a proof for
//! either side is a proof that the position is not dead. The proof's moves avoid castling and
//! en passant, the two moves whose legality depends on more than the pieces (and the two on
//! which chasolver's `chess` crate and shakmaty could differ in Chess960).

use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Rank, Role};

/// How many first moves, and replies to each, are tried before the proof gives up and the
/// position goes to chasolver (a shuffle is almost always found at the first try).
const TRIES: usize = 4;

/// Whether the shuffle proof shows chasolver's fast test would find `pos` alive for one side
/// at least. `legal` holds `pos`'s legal moves. `false` proves nothing: ask chasolver.
pub(super) fn proves_alive(pos: &Chess, legal: &[Move]) -> bool {
    let board = pos.board();
    let open = || lonely_pawns(board) && !only_pawns_and_bishops(board);
    let provable = |winner| !insufficient(board, winner) && (!blocked(board, winner) || open());
    // Two moves besides castling: chasolver's `chess` crate may not see a Chess960 castling.
    let choices = legal.iter().filter(|m| !m.is_castle()).nth(1).is_some();
    if !choices || !(provable(Color::White) || provable(Color::Black)) {
        return false;
    }
    shuffle_exists(pos, legal)
}

/// chasolver's `insufficient_white_material` for `winner`: a bare king; a king and knight
/// when the other side has no minor piece, rook or pawn; a king and bishops when every bishop
/// on the board stands on one colour and there is no knight and no pawn. (Mirroring the board
/// swaps the squares' colours, but "every bishop on one colour" is the same on both boards.)
fn insufficient(board: &Board, winner: Color) -> bool {
    let ours = board.by_color(winner);
    let theirs = board.by_color(!winner);
    if ours.count() == 1 {
        return true;
    }
    let minors = board.knights() | board.bishops();
    if ours.count() == 2
        && (ours & board.knights()).any()
        && (theirs & (minors | board.rooks() | board.pawns())).is_empty()
    {
        return true;
    }
    let our_bishops = ours & board.bishops();
    if our_bishops.any() {
        let colour = if (our_bishops & Bitboard::DARK_SQUARES).any() {
            Bitboard::DARK_SQUARES
        } else {
            Bitboard::LIGHT_SQUARES
        };
        if ours.count() == our_bishops.count() + 1
            && (board.bishops() & !colour).is_empty()
            && board.knights().is_empty()
            && board.pawns().is_empty()
        {
            return true;
        }
    }
    false
}

/// chasolver's gate on its later phases (`nb_blocked_pawns` against `max(1, pawns / 2 - 2)`,
/// pawns of both sides), for `winner`'s pawns moving up the board (white) or down (black).
fn blocked(board: &Board, winner: Color) -> bool {
    let pawns = u64::from(board.pawns() & board.by_color(winner));
    let stoppers = u64::from((board.pawns() | board.kings()) & board.by_color(!winner));
    let in_front = match winner {
        Color::White => pawns << 8,
        Color::Black => pawns >> 8,
    };
    let blocked = (in_front & stoppers).count_ones();
    let total = board.pawns().count() as i32;
    blocked >= (total / 2 - 2).max(1) as u32
}

/// chasolver's `has_lonely_pawns`: the files of white's pawns (but those on the seventh rank)
/// are not the files of black's pawns (but those on the second). The same on the mirrored
/// board: the two sets trade places.
fn lonely_pawns(board: &Board) -> bool {
    let files = |pawns: Bitboard| {
        pawns
            .into_iter()
            .fold(0u8, |f, sq| f | 1 << sq.file() as u8)
    };
    let white = board.pawns() & board.white() & !Bitboard::from_rank(Rank::Seventh);
    let black = board.pawns() & board.black() & !Bitboard::from_rank(Rank::Second);
    files(white) != files(black)
}

/// chasolver's `only_pawns_and_bishops`: no knight, rook or queen on the board.
fn only_pawns_and_bishops(board: &Board) -> bool {
    (board.knights() | board.rooks() | board.queens()).is_empty()
}

/// A line of quiet moves that can go on for ever: a shuffle from `pos`, or, when the side to
/// move is in check (a piece that leaves, or blocks, cannot go back), a quiet move out of
/// check and a shuffle from there.
fn shuffle_exists(pos: &Chess, legal: &[Move]) -> bool {
    let quiet = || legal.iter().copied().filter(is_quiet_piece_move);
    if shuffle_from(pos, quiet()) {
        return true;
    }
    if !pos.is_check() {
        return false;
    }
    quiet().take(TRIES).any(|first| {
        let mut after = pos.clone();
        after.play_unchecked(first);
        shuffle_from(&after, legal_quiet_piece_moves(&after))
    })
}

/// A quiet move of a piece that is not a pawn by each side (the side to move's among
/// `firsts`, its legal ones), then both moves back, each legal in turn.
fn shuffle_from(pos: &Chess, firsts: impl Iterator<Item = Move>) -> bool {
    for first in firsts.take(TRIES) {
        let mut after_first = pos.clone();
        after_first.play_unchecked(first);
        let first_back = back(&first);
        for reply in legal_quiet_piece_moves(&after_first).take(TRIES) {
            let mut after_reply = after_first.clone();
            after_reply.play_unchecked(reply);
            if !after_reply.is_legal(first_back) {
                continue;
            }
            after_reply.play_unchecked(first_back);
            if after_reply.is_legal(back(&reply)) {
                return true;
            }
        }
    }
    false
}

/// The side to move's legal quiet moves of pieces that are not pawns.
fn legal_quiet_piece_moves(pos: &Chess) -> impl Iterator<Item = Move> + '_ {
    quiet_piece_moves(pos).filter(|m| pos.is_legal(*m))
}

/// The side to move's quiet moves of pieces that are not pawns, legal or not (fewer
/// instructions than generating every legal move, when the first one or two will do).
fn quiet_piece_moves(pos: &Chess) -> impl Iterator<Item = Move> + '_ {
    let board = pos.board();
    let ours = board.by_color(pos.turn());
    let empty = !board.occupied();
    [
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ]
    .into_iter()
    .flat_map(move |role| {
        (board.by_role(role) & ours)
            .into_iter()
            .flat_map(move |from| {
                (board.attacks_from(from) & empty)
                    .into_iter()
                    .map(move |to| Move::Normal {
                        role,
                        from,
                        capture: None,
                        to,
                        promotion: None,
                    })
            })
    })
}

/// A move of a piece that is not a pawn, capturing nothing: a normal move, so neither
/// castling nor en passant, and never a promotion.
fn is_quiet_piece_move(m: &Move) -> bool {
    matches!(
        m,
        Move::Normal {
            role,
            capture: None,
            ..
        } if *role != Role::Pawn
    )
}

/// The move that takes the piece back, capturing nothing (`is_legal` compares the whole move,
/// so a square taken in the meantime makes it illegal).
fn back(m: &Move) -> Move {
    Move::Normal {
        role: m.role(),
        from: m.to(),
        capture: None,
        to: m.from().expect("a normal move has a from square"),
        promotion: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_position::position as pos;
    use rand::{RngExt, SeedableRng};

    /// chasolver's own answer for `winner`, on the board its FEN parser makes.
    fn chasolver_unwinnable(p: &Chess, winner: Color) -> bool {
        use shakmaty::{fen::Fen, EnPassantMode};
        use std::str::FromStr;
        let fen = Fen::from_position(p, EnPassantMode::Legal).to_string();
        let board = chess::Board::from_str(&fen).expect("chess parses shakmaty's FEN");
        let winner = match winner {
            Color::White => chess::Color::White,
            Color::Black => chess::Color::Black,
        };
        chasolver::is_unwinnable_fast(&board, winner)
    }

    fn proves(p: &Chess) -> bool {
        let legal: Vec<Move> = p.legal_moves().into_iter().collect();
        proves_alive(p, &legal)
    }

    /// Wherever the proof says alive, chasolver says so too, for each side the proof allows: over
    /// seeded random games (captures, promotions, castling, en passant, checks, bare kings),
    /// and the proof answers most positions.
    #[test]
    fn where_the_shuffle_proves_a_position_alive_chasolver_agrees() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let (mut positions, mut proved) = (0, 0);
        for _ in 0..150 {
            let mut p = Chess::default();
            for _ in 0..300 {
                let legal: Vec<Move> = p.legal_moves().into_iter().collect();
                if legal.is_empty() || p.is_insufficient_material() {
                    break;
                }
                positions += 1;
                if proves_alive(&p, &legal) {
                    proved += 1;
                    let board = p.board();
                    let open = lonely_pawns(board) && !only_pawns_and_bishops(board);
                    for winner in [Color::White, Color::Black] {
                        if !insufficient(board, winner) && (!blocked(board, winner) || open) {
                            assert!(
                                !chasolver_unwinnable(&p, winner),
                                "{winner:?} in {}",
                                shakmaty::fen::Fen::from_position(
                                    &p,
                                    shakmaty::EnPassantMode::Legal
                                )
                            );
                        }
                    }
                }
                p.play_unchecked(legal[rng.random_range(0..legal.len())]);
            }
        }
        assert!(positions > 20_000, "{positions}");
        // The rest are mostly endgames with every pawn blocked or opposed, left to chasolver.
        assert!(proved * 10 > positions * 9, "{proved} of {positions}");
    }

    /// The replica of chasolver's material test agrees with chasolver on material alone.
    #[test]
    fn insufficient_material_is_chasolvers() {
        for (fen, white_insufficient) in [
            ("8/8/8/4k3/8/8/8/K7 w - - 0 1", true),
            ("8/8/8/4k3/8/8/2N5/K7 w - - 0 1", true),
            ("8/8/8/4k3/4p3/8/2N5/K7 w - - 0 1", false),
            ("8/8/8/4k3/4q3/8/2N5/K7 w - - 0 1", true),
            ("8/8/8/4k3/8/8/3B4/K7 w - - 0 1", true),
            ("8/8/8/3bk3/8/8/3B4/K7 w - - 0 1", false),
            ("8/8/8/4k3/5b2/8/3B4/K7 w - - 0 1", true),
            ("8/8/8/4k3/8/8/2BB4/K7 w - - 0 1", false),
            ("8/8/8/4k3/8/8/2NN4/K7 w - - 0 1", false),
            ("8/8/8/4k3/8/8/8/K6R w - - 0 1", false),
        ] {
            let p = pos(fen);
            assert_eq!(
                insufficient(p.board(), Color::White),
                white_insufficient,
                "{fen}"
            );
        }
    }

    /// Blocked structures, insufficient material and forced moves are left to chasolver,
    /// and chasolver finds the dead ones dead.
    #[test]
    fn what_the_proof_cannot_show_is_left_to_chasolver() {
        // A locked chain (dead, FIDE 5.2.2): four blocked pawns of each side, eight pawns.
        let locked = pos("8/8/1k6/p1p1p1p1/P1P1P1P1/1K6/8/8 w - - 0 1");
        assert!(blocked(locked.board(), Color::White));
        assert!(blocked(locked.board(), Color::Black));
        assert!(!proves(&locked));
        // Dead positions with pieces that can shuffle: the blocked count leaves them to
        // chasolver, which finds them dead for both sides.
        for fen in [
            "8/8/1k6/p1p1p1p1/P1P1P1P1/1K6/8/8 w - - 0 1",
            "8/8/1k1b4/p1p1p1p1/P1P1P1P1/1K6/8/8 w - - 0 1",
            "8/8/1k6/p1p1p1p1/P1P1P1P1/1K6/8/8 b - - 0 1",
            "4k3/8/8/p1p1p1p1/P1P1P1P1/8/8/4K3 w - - 0 1",
        ] {
            let p = pos(fen);
            assert!(!proves(&p), "{fen}");
            for winner in [Color::White, Color::Black] {
                assert!(chasolver_unwinnable(&p, winner), "{fen} {winner:?}");
            }
        }
        // Bishops on one colour: insufficient for both.
        let bishops = pos("8/8/8/3bk3/8/3BK3/8/8 w - - 0 1");
        assert!(!proves(&bishops));
        // One legal move (the pawn's), however much material: chasolver plays it first.
        let forced = pos("7k/8/6Q1/p7/8/8/8/K7 b - - 0 1");
        assert_eq!(forced.legal_moves().len(), 1);
        assert!(!proves(&forced));
        // An open middlegame is proved alive.
        let open = pos("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9");
        assert!(proves(&open));
    }

    /// A blocked structure is still proved alive when a knight, rook or queen is on the board
    /// and a pawn has no enemy pawn on its file (chasolver's later phases do not run); not
    /// when every pawn is opposed, nor with only pawns and bishops.
    #[test]
    fn a_blocked_pair_with_a_lone_pawn_and_a_rook_is_proved_alive() {
        // e4/e5 blocked; white's a-pawn alone on its file; rooks.
        let open = pos("r3k3/8/8/4p3/P3P3/8/8/R3K3 w - - 0 1");
        assert!(blocked(open.board(), Color::White));
        assert!(lonely_pawns(open.board()));
        assert!(proves(&open));
        assert!(!chasolver_unwinnable(&open, Color::White));
        // Every pawn opposed: left to chasolver.
        let opposed = pos("r3k3/p7/8/4p3/P3P3/8/8/R3K3 w - - 0 1");
        assert!(!lonely_pawns(opposed.board()));
        assert!(!proves(&opposed));
        // Only pawns and bishops: left to chasolver.
        let bishops = pos("2b1k3/8/8/4p3/P3P3/8/8/2B1K3 w - - 0 1");
        assert!(!proves(&bishops));
        // A white pawn on the seventh rank and a black one on the second do not count.
        let seventh = pos("4k3/P7/8/4p3/4P3/8/p7/R3K3 w - - 0 1");
        assert!(!lonely_pawns(seventh.board()));
    }

    /// One blocked pawn counts once few pawns are left (`max(1, pawns / 2 - 2)`), and black's
    /// pawns are blocked looking down the board.
    #[test]
    fn the_blocked_count_follows_chasolvers_threshold() {
        let one_pair = pos("8/8/4k3/4p3/4P3/4K3/8/8 w - - 0 1");
        assert!(blocked(one_pair.board(), Color::White));
        assert!(blocked(one_pair.board(), Color::Black));
        // Sixteen pawns need six blocked; the opening position has none.
        assert!(!blocked(Chess::default().board(), Color::White));
        // A pawn stopped by the enemy king counts for white; black's pawn is free.
        let king = pos("8/8/4k3/4P3/8/8/p7/4K3 w - - 0 1");
        assert!(blocked(king.board(), Color::White));
        assert!(!blocked(king.board(), Color::Black));
    }
}
