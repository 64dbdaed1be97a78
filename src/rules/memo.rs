//! A memo by position, shared by every game and every re-ruling in the process: the
//! mechanism behind the memo of each position's legal moves and dead-position answer
//! (`position_facts`). What it remembers must be a pure function of the position's [`Key`], so
//! remembering it changes no ruling.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Mutex, MutexGuard};

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, Board, Chess, Color, Position};

/// Everything chasolver is handed (see `material::chess_board`) but the en passant square:
/// the pieces, the side to move and the castling rights. shakmaty's legal moves are a function
/// of the same three and the legal en passant square, which the zobrist key the map is keyed
/// by covers: two positions with the same three things and the same zobrist key have the same
/// legal en passant square, since their keys differ by the values of their en passant files,
/// distinct and never zero (Polyglot's, `memo::tests`). Comparing the key's en passant square
/// too would cost a legal en passant test a lookup.
struct Key {
    board: Board,
    turn: Color,
    castling: Bitboard,
}

impl Key {
    fn of(pos: &Chess) -> Key {
        Key {
            board: pos.board().clone(),
            turn: pos.turn(),
            castling: pos.castles().castling_rights(),
        }
    }

    /// Whether `pos` has this key, compared where it lies (no copy of the board is made).
    fn is_of(&self, pos: &Chess) -> bool {
        self.board == *pos.board()
            && self.turn == pos.turn()
            && self.castling == pos.castles().castling_rights()
    }
}

/// A value and the key of the position it belongs to.
struct Entry<V> {
    key: Key,
    value: V,
}

/// A multiply-rotate hash of the zobrist key's word (the one rustc uses for its own tables):
/// SipHash cost more than the lookup saves. Keys come from games, not from an adversary.
#[derive(Default)]
struct Mix(u64);

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

/// Entries by the position's zobrist key (shakmaty's, with the legal en passant square: a
/// function of the three things of [`Key`] and that square). A hit is checked against the
/// whole key, so two positions that share a zobrist key never share a value: the later one
/// replaces the earlier.
type Map<V> = HashMap<Zobrist64, Entry<V>, BuildHasherDefault<Mix>>;

/// Values by position, forgotten all at once past `capacity` positions (a `HashMap` cannot be
/// built in a `static`: created on first use).
pub(super) struct PositionMemo<V> {
    map: Mutex<Option<Map<V>>>,
    capacity: usize,
}

impl<V> PositionMemo<V> {
    pub(super) const fn new(capacity: usize) -> PositionMemo<V> {
        PositionMemo {
            map: Mutex::new(None),
            capacity,
        }
    }

    /// `pos`'s value, as `read` reads it: `make(pos)` once per distinct position while the
    /// memo holds it. `zobrist` is `pos`'s zobrist key with the legal en passant square (the
    /// referee keeps it for repetitions). `make` runs without the lock: another game's thread
    /// never waits for it.
    pub(super) fn read<R>(
        &self,
        pos: &Chess,
        zobrist: Zobrist64,
        make: impl FnOnce(&Chess) -> V,
        read: impl FnOnce(&V) -> R,
    ) -> R {
        if let Some(entry) = self
            .lock()
            .as_ref()
            .and_then(|map| map.get(&zobrist))
            .filter(|entry| entry.key.is_of(pos))
        {
            return read(&entry.value);
        }
        let value = make(pos);
        let answer = read(&value);
        let entry = Entry {
            key: Key::of(pos),
            value,
        };
        let mut map = self.lock();
        let map = map.get_or_insert_with(Map::default);
        if map.len() >= self.capacity {
            map.clear();
        }
        map.insert(zobrist, entry);
        answer
    }

    /// Changes `pos`'s value with `change`, if the memo holds it (`zobrist` as for `read`).
    pub(super) fn update(&self, pos: &Chess, zobrist: Zobrist64, change: impl FnOnce(&mut V)) {
        if let Some(entry) = self
            .lock()
            .as_mut()
            .and_then(|map| map.get_mut(&zobrist))
            .filter(|entry| entry.key.is_of(pos))
        {
            change(&mut entry.value);
        }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Map<V>>> {
        // The memo holds only finished values: a thread that panicked left it consistent.
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::zobrist::{Zobrist64, ZobristValue};
    use shakmaty::File;

    /// `Key` leaves the en passant square to the zobrist key: two positions that differ only
    /// in it have keys that differ by the XOR of their files' values (or one file's value,
    /// when the other has none), never zero.
    #[test]
    fn the_en_passant_files_values_are_distinct_and_never_zero() {
        let values: Vec<Zobrist64> = File::ALL
            .into_iter()
            .map(Zobrist64::zobrist_for_en_passant_file)
            .collect();
        for (i, a) in values.iter().enumerate() {
            assert_ne!(*a, Zobrist64(0));
            for b in &values[i + 1..] {
                assert_ne!(a, b);
            }
        }
    }
}
