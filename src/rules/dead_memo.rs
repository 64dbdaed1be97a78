//! A memo of chasolver's dead-position test (FIDE 5.2.2), shared by every game and every
//! re-ruling in the process.
//!
//! The test is a pure function of the position, so remembering its answer changes no
//! ruling. It pays where positions come back: a game that repeats positions (most draws by
//! FIDE 9.2 repeat each one three times), and `report.html`, which rules each game it shows
//! again under every ruleset (five of the six ask the same test, positions the live game has
//! already asked about). A handful of blocked positions cost chasolver millions of
//! instructions each (its static analysis), a thousand times an ordinary move.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Mutex;

use shakmaty::{Bitboard, Board, Chess, Color, EnPassantMode, Position, Square};

/// Everything chasolver is handed (see `material::chess_board`): the pieces, the side to
/// move, the castling rights and the legal en passant square. Equal keys, equal answers.
/// shakmaty's legal moves are a function of the same four (`legal_memo`).
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) struct Key {
    board: Board,
    turn: Color,
    castling: Bitboard,
    ep: Option<Square>,
}

impl Key {
    pub(super) fn of(pos: &Chess) -> Key {
        Key {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
            ep: pos.ep_square(EnPassantMode::Legal),
        }
    }
}

/// Forgotten all at once past this many positions (about 10 MB).
const CAPACITY: usize = 100_000;

type Memo = HashMap<Key, bool, BuildHasherDefault<Mix>>;

/// The process's memo.
static MEMO: DeadMemo = DeadMemo::new();

/// Answers of the test by position (a `HashMap` cannot be built in a `static`: created on
/// first use).
struct DeadMemo(Mutex<Option<Memo>>);

/// A multiply-rotate hash of the key's words (the one rustc uses for its own tables): the
/// key is a few bitboards, and SipHash over them cost more than the lookup saves. Keys come
/// from games, not from an adversary.
#[derive(Default)]
pub(super) struct Mix(u64);

impl Hasher for Mix {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u8(&mut self, word: u8) {
        self.write_u64(u64::from(word));
    }

    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// `test(pos)`, remembered: asked once per distinct position while the memo holds it.
pub fn remembered(pos: &Chess, test: impl FnOnce(&Chess) -> bool) -> bool {
    MEMO.remembered(pos, test)
}

impl DeadMemo {
    const fn new() -> DeadMemo {
        DeadMemo(Mutex::new(None))
    }

    fn remembered(&self, pos: &Chess, test: impl FnOnce(&Chess) -> bool) -> bool {
        let key = Key::of(pos);
        if let Some(&dead) = self.lock().as_ref().and_then(|memo| memo.get(&key)) {
            return dead;
        }
        // Asked without the lock: another game's thread never waits for this test.
        let dead = test(pos);
        let mut memo = self.lock();
        let memo = memo.get_or_insert_with(Memo::default);
        if memo.len() >= CAPACITY {
            memo.clear();
        }
        memo.insert(key, dead);
        dead
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Memo>> {
        // The memo holds only finished answers: a thread that panicked left it consistent.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
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
