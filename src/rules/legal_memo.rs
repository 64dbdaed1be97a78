//! A memo of the legal moves by position, shared by every game and every re-ruling in the
//! process.
//!
//! The referee generates a position's legal moves once after each move (for the mate and
//! stalemate tests and the next move's check). A finished game is ruled again from its
//! events: once under its own ruleset (the invariant that it gets the same ruling), and, for
//! the games `report.html` shows, under every ruleset: seven times the same positions. The
//! moves are a pure function of the position (`memo::Key`: the pieces, the side to
//! move, the castling rights and the legal en passant square), so remembering them changes no
//! ruling; a re-ruling copies them instead of generating them again.

use shakmaty::{Chess, Move, Position};

use super::memo::PositionMemo;

/// Forgotten all at once past this many positions (a few MB: a position holds about 30
/// moves): the games being played and the one being ruled again fit many times over.
const CAPACITY: usize = 16_384;

/// The process's memo.
static MEMO: LegalMemo = LegalMemo::new();

/// Legal moves by position.
struct LegalMemo(PositionMemo<Box<[Move]>>);

/// Appends `pos`'s legal moves to `out`, in shakmaty's order, generated once per distinct
/// position while the memo holds it.
pub fn legal_moves(pos: &Chess, out: &mut Vec<Move>) {
    MEMO.legal_moves(pos, out, |pos| pos.legal_moves().into_iter().collect());
}

impl LegalMemo {
    const fn new() -> LegalMemo {
        LegalMemo(PositionMemo::new(CAPACITY))
    }

    fn legal_moves(
        &self,
        pos: &Chess,
        out: &mut Vec<Move>,
        generate: impl FnOnce(&Chess) -> Box<[Move]>,
    ) {
        self.0
            .read(pos, generate, |moves| out.extend_from_slice(moves));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_position::position as pos;

    fn generated(memo: &LegalMemo, p: &Chess, asked: &mut usize) -> Vec<Move> {
        let mut out = Vec::new();
        memo.legal_moves(p, &mut out, |p| {
            *asked += 1;
            p.legal_moves().into_iter().collect()
        });
        out
    }

    #[test]
    fn a_position_is_generated_once_and_its_moves_kept_in_order() {
        let memo = LegalMemo::new();
        let p = pos("r3k2r/ppp2ppp/2n2q2/3pP3/8/8/PPP2PPP/R3K2R w KQkq d6 0 9");
        let mut asked = 0;
        let first = generated(&memo, &p, &mut asked);
        let again = generated(&memo, &p, &mut asked);
        assert_eq!(asked, 1);
        let shakmaty: Vec<Move> = p.legal_moves().into_iter().collect();
        assert_eq!(first, shakmaty);
        assert_eq!(again, shakmaty);
        // The same pieces without the en passant capture or the castling rights are other
        // positions, with other moves.
        for other in [
            "r3k2r/ppp2ppp/2n2q2/3pP3/8/8/PPP2PPP/R3K2R w KQkq - 0 9",
            "r3k2r/ppp2ppp/2n2q2/3pP3/8/8/PPP2PPP/R3K2R w kq d6 0 9",
        ] {
            let p = pos(other);
            let moves = generated(&memo, &p, &mut asked);
            assert_eq!(moves, p.legal_moves().into_iter().collect::<Vec<_>>());
        }
        assert_eq!(asked, 3);
    }
}
