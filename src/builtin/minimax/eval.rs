//! Static evaluation: material plus piece-square tables (the "simplified
//! evaluation function"), with middlegame/endgame tables for kings and pawns
//! blended by game phase, a bishop-pair bonus and a mop-up term that drives
//! a bare king to the edge so won endings are converted.

use shakmaty::{Bitboard, ByColor, Chess, Color, Position, Role, Square};

use crate::builtin::engine::value;

// Tables are written as seen from White, rank 8 first: index `sq ^ 56` for
// White, `sq` for Black.
#[rustfmt::skip]
const PAWN: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    50, 50, 50, 50, 50, 50, 50, 50,
    10, 10, 20, 30, 30, 20, 10, 10,
     5,  5, 10, 25, 25, 10,  5,  5,
     0,  0,  0, 20, 20,  0,  0,  0,
     5, -5,-10,  0,  0,-10, -5,  5,
     5, 10, 10,-20,-20, 10, 10,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
const PAWN_END: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
    90, 90, 90, 90, 90, 90, 90, 90,
    50, 50, 50, 50, 50, 50, 50, 50,
    30, 30, 30, 30, 30, 30, 30, 30,
    15, 15, 15, 15, 15, 15, 15, 15,
     5,  5,  5,  5,  5,  5,  5,  5,
     0,  0,  0,  0,  0,  0,  0,  0,
     0,  0,  0,  0,  0,  0,  0,  0,
];
#[rustfmt::skip]
const KNIGHT: [i32; 64] = [
    -50,-40,-30,-30,-30,-30,-40,-50,
    -40,-20,  0,  0,  0,  0,-20,-40,
    -30,  0, 10, 15, 15, 10,  0,-30,
    -30,  5, 15, 20, 20, 15,  5,-30,
    -30,  0, 15, 20, 20, 15,  0,-30,
    -30,  5, 10, 15, 15, 10,  5,-30,
    -40,-20,  0,  5,  5,  0,-20,-40,
    -50,-40,-30,-30,-30,-30,-40,-50,
];
#[rustfmt::skip]
const BISHOP: [i32; 64] = [
    -20,-10,-10,-10,-10,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5, 10, 10,  5,  0,-10,
    -10,  5,  5, 10, 10,  5,  5,-10,
    -10,  0, 10, 10, 10, 10,  0,-10,
    -10, 10, 10, 10, 10, 10, 10,-10,
    -10,  5,  0,  0,  0,  0,  5,-10,
    -20,-10,-10,-10,-10,-10,-10,-20,
];
#[rustfmt::skip]
const ROOK: [i32; 64] = [
     0,  0,  0,  0,  0,  0,  0,  0,
     5, 10, 10, 10, 10, 10, 10,  5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
    -5,  0,  0,  0,  0,  0,  0, -5,
     0,  0,  0,  5,  5,  0,  0,  0,
];
#[rustfmt::skip]
const QUEEN: [i32; 64] = [
    -20,-10,-10, -5, -5,-10,-10,-20,
    -10,  0,  0,  0,  0,  0,  0,-10,
    -10,  0,  5,  5,  5,  5,  0,-10,
     -5,  0,  5,  5,  5,  5,  0, -5,
      0,  0,  5,  5,  5,  5,  0, -5,
    -10,  5,  5,  5,  5,  5,  0,-10,
    -10,  0,  5,  0,  0,  0,  0,-10,
    -20,-10,-10, -5, -5,-10,-10,-20,
];
#[rustfmt::skip]
const KING: [i32; 64] = [
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -30,-40,-40,-50,-50,-40,-40,-30,
    -20,-30,-30,-40,-40,-30,-30,-20,
    -10,-20,-20,-20,-20,-20,-20,-10,
     20, 20,  0,  0,  0,  0, 20, 20,
     20, 30, 10,  0,  0, 10, 30, 20,
];
#[rustfmt::skip]
const KING_END: [i32; 64] = [
    -50,-40,-30,-20,-20,-30,-40,-50,
    -30,-20,-10,  0,  0,-10,-20,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 30, 40, 40, 30,-10,-30,
    -30,-10, 20, 30, 30, 20,-10,-30,
    -30,-30,  0,  0,  0,  0,-30,-30,
    -50,-30,-30,-30,-30,-30,-30,-50,
];

/// Phase weights: 24 with all pieces on the board, 0 with none.
const fn phase_weight(role: Role) -> i32 {
    match role {
        Role::Knight | Role::Bishop => 1,
        Role::Rook => 2,
        Role::Queen => 4,
        Role::Pawn | Role::King => 0,
    }
}
const FULL_PHASE: i32 = 24;

/// The evaluation in centipawns from the side to move's point of view.
pub fn evaluate(pos: &Chess) -> i32 {
    let board = pos.board();
    let mut mg = ByColor::<i32>::default();
    let mut eg = ByColor::<i32>::default();
    let mut phase = 0;
    let mut material = ByColor::<i32>::default();
    for color in Color::ALL {
        let ours = board.by_color(color);
        for role in Role::ALL {
            let pieces = ours & board.by_role(role);
            for sq in pieces {
                let i = if color.is_white() {
                    sq as usize ^ 56
                } else {
                    sq as usize
                };
                let (m, e) = match role {
                    Role::Pawn => (PAWN[i], PAWN_END[i]),
                    Role::Knight => (KNIGHT[i], KNIGHT[i]),
                    Role::Bishop => (BISHOP[i], BISHOP[i]),
                    Role::Rook => (ROOK[i], ROOK[i]),
                    Role::Queen => (QUEEN[i], QUEEN[i]),
                    Role::King => (KING[i], KING_END[i]),
                };
                mg[color] += m;
                eg[color] += e;
            }
            if role != Role::King {
                let n = pieces.count() as i32;
                material[color] += n * value(role);
                phase += n * phase_weight(role);
            }
        }
        if (ours & board.bishops()).count() >= 2 {
            mg[color] += 30;
            eg[color] += 50;
        }
    }
    let phase = phase.min(FULL_PHASE);
    let mg_score = mg.white - mg.black;
    let eg_score = eg.white - eg.black + mop_up(pos, material);
    let white = material.white - material.black
        + (mg_score * phase + eg_score * (FULL_PHASE - phase)) / FULL_PHASE;
    if pos.turn().is_white() {
        white
    } else {
        -white
    }
}

/// With a clear material edge and no pawns left for the defender, reward
/// pushing its king to the edge and bringing ours close: that is how a
/// lone king gets mated. From White's point of view.
fn mop_up(pos: &Chess, material: ByColor<i32>) -> i32 {
    let board = pos.board();
    let diff = material.white - material.black;
    if diff.abs() < value(Role::Rook) {
        return 0;
    }
    let strong = if diff > 0 { Color::White } else { Color::Black };
    if (board.by_color(!strong) & board.pawns()) != Bitboard::EMPTY {
        return 0;
    }
    let (Some(ours), Some(theirs)) = (board.king_of(strong), board.king_of(!strong)) else {
        return 0;
    };
    let bonus = 10 * center_distance(theirs) + 4 * (14 - manhattan(ours, theirs));
    if strong.is_white() {
        bonus
    } else {
        -bonus
    }
}

fn center_distance(sq: Square) -> i32 {
    let f = sq.file() as i32;
    let r = sq.rank() as i32;
    (3 - f).max(f - 4) + (3 - r).max(r - 4)
}

fn manhattan(a: Square, b: Square) -> i32 {
    (a.file() as i32 - b.file() as i32).abs() + (a.rank() as i32 - b.rank() as i32).abs()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(fen: &str) -> i32 {
        evaluate(&crate::builtin::position(fen))
    }

    #[test]
    fn start_position_is_balanced_and_symmetric() {
        assert_eq!(
            eval("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
            0
        );
        let w = eval("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let b = eval("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(w, b, "mirror images score the same for the side to move");
        assert!(w < 0, "after 1.e4 Black (to move) is worse: {w}");
    }

    #[test]
    fn material_dominates() {
        assert!(eval("4k3/8/8/8/8/8/8/Q3K3 w - - 0 1") > 800);
        assert!(eval("4k3/8/8/8/8/8/8/Q3K3 b - - 0 1") < -800);
    }

    #[test]
    fn mop_up_prefers_the_cornered_king() {
        let corner = eval("7k/8/8/8/8/8/8/1Q2K3 w - - 0 1");
        let center = eval("8/8/8/4k3/8/8/8/1Q2K3 w - - 0 1");
        assert!(corner > center, "{corner} vs {center}");
    }
}
