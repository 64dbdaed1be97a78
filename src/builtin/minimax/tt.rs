//! The transposition table: one always-replace slot per index, 16 bytes per
//! entry. Each search starts a new generation and sees only its own entries,
//! so a search depends on nothing but its position and limits (determinism).

use shakmaty::Move;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The score is at least this (a beta cutoff).
    Lower,
    /// The score is at most this (no move raised alpha).
    Upper,
}

#[derive(Clone, Copy, Default)]
struct Slot {
    key: u64,
    mv: u16,
    score: i16,
    depth: i8,
    bound: u8,
    generation: u16,
}

#[derive(Clone, Copy, Debug)]
pub struct Entry {
    /// The best move found, packed (see `pack`); 0 when none.
    pub mv: u16,
    pub score: i32,
    pub depth: i32,
    pub bound: Bound,
}

pub struct Tt {
    slots: Vec<Slot>,
    generation: u16,
}

impl Tt {
    /// A table of at most `mb` MiB (a power of two number of entries).
    pub fn new(mb: usize) -> Tt {
        let want = (mb.max(1) << 20) / std::mem::size_of::<Slot>();
        let len = 1usize << want.ilog2();
        Tt {
            slots: vec![Slot::default(); len],
            generation: 0,
        }
    }

    /// Forgets every entry (in O(1), except once per 65535 searches).
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    fn index(&self, key: u64) -> usize {
        (key as usize) & (self.slots.len() - 1)
    }

    pub fn probe(&self, key: u64) -> Option<Entry> {
        let s = self.slots[self.index(key)];
        (s.key == key && s.generation == self.generation).then(|| Entry {
            mv: s.mv,
            score: i32::from(s.score),
            depth: i32::from(s.depth),
            bound: match s.bound {
                0 => Bound::Exact,
                1 => Bound::Lower,
                _ => Bound::Upper,
            },
        })
    }

    pub fn store(&mut self, key: u64, mv: Option<Move>, score: i32, depth: i32, bound: Bound) {
        let i = self.index(key);
        self.slots[i] = Slot {
            key,
            mv: mv.map_or(0, pack),
            score: score.clamp(i32::from(i16::MIN), i32::from(i16::MAX)) as i16,
            depth: depth.clamp(0, i32::from(i8::MAX)) as i8,
            bound: bound as u8,
            generation: self.generation,
        };
    }
}

/// A move as from, to and promotion (castling: king to rook square); never 0
/// for a real move since from != to.
pub fn pack(m: Move) -> u16 {
    let from = m.from().map_or(0, |s| s as u16);
    let to = m.to() as u16;
    let promo = m.promotion().map_or(0, |r| r as u16);
    from | (to << 6) | (promo << 12)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn stores_probes_and_forgets_old_searches() {
        let mut tt = Tt::new(1);
        assert_eq!(tt.slots.len(), (1 << 20) / 16);
        tt.new_search();
        let m = Chess::default().legal_moves()[3];
        tt.store(12345, Some(m), -250, 7, Bound::Lower);
        let e = tt.probe(12345).expect("hit");
        assert_eq!(
            (e.mv, e.score, e.depth, e.bound),
            (pack(m), -250, 7, Bound::Lower)
        );
        assert!(tt.probe(12346).is_none());
        tt.new_search();
        assert!(tt.probe(12345).is_none(), "a new search starts empty");
    }

    #[test]
    fn packed_moves_are_distinct() {
        let moves = Chess::default().legal_moves();
        let mut packed: Vec<u16> = moves.iter().map(|&m| pack(m)).collect();
        packed.sort_unstable();
        packed.dedup();
        assert_eq!(packed.len(), moves.len());
        assert!(!packed.contains(&0));
    }
}
