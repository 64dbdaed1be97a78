//! A memo of chasolver's dead-position test (FIDE 5.2.2), shared by every game and every
//! re-ruling in the process.
//!
//! The test is a pure function of the position, so remembering its answer changes no
//! ruling. It pays where positions come back: a game that repeats positions (most draws by
//! FIDE 9.2 repeat each one three times), and `report.html`, which rules each game it shows
//! again under every ruleset (five of the six ask the same test, positions the live game has
//! already asked about). A handful of blocked positions cost chasolver millions of
//! instructions each (its static analysis), a thousand times an ordinary move.

use shakmaty::Chess;

use super::memo::PositionMemo;

/// Forgotten all at once past this many positions (about 10 MB).
const CAPACITY: usize = 100_000;

/// The process's memo.
static MEMO: DeadMemo = DeadMemo::new();

/// Answers of the test by position.
struct DeadMemo(PositionMemo<bool>);

/// `test(pos)`, remembered: asked once per distinct position while the memo holds it.
pub fn remembered(pos: &Chess, test: impl FnOnce(&Chess) -> bool) -> bool {
    MEMO.remembered(pos, test)
}

impl DeadMemo {
    const fn new() -> DeadMemo {
        DeadMemo(PositionMemo::new(CAPACITY))
    }

    fn remembered(&self, pos: &Chess, test: impl FnOnce(&Chess) -> bool) -> bool {
        self.0.read(pos, test, |&dead| dead)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_position::position as pos;

    #[test]
    fn a_position_is_tested_once_and_its_answer_kept() {
        let memo = DeadMemo::new();
        let p = pos("8/8/3k4/8/8/2NK4/8/7R w - - 0 1");
        let mut asked = 0;
        assert!(!memo.remembered(&p, |_| {
            asked += 1;
            false
        }));
        assert!(!memo.remembered(&p, |_| {
            asked += 1;
            true
        }));
        assert_eq!(asked, 1);
        // The same pieces with the other side to move are another position.
        let black = pos("8/8/3k4/8/8/2NK4/8/7R b - - 0 1");
        assert!(memo.remembered(&black, |_| true));
    }

    #[test]
    fn castling_rights_and_en_passant_are_part_of_the_position() {
        let with = pos("r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1");
        let without = pos("r3k3/8/8/8/8/8/8/4K2R w - - 0 1");
        let memo = DeadMemo::new();
        assert!(memo.remembered(&with, |_| true));
        assert!(!memo.remembered(&without, |_| false));
        // A legal en passant capture makes another position.
        let ep = pos("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
        let no_ep = pos("4k3/8/8/3pP3/8/8/8/4K3 w - - 0 1");
        assert!(memo.remembered(&ep, |_| true));
        assert!(!memo.remembered(&no_ep, |_| false));
    }
}
