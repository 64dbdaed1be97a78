//! What the referee asks of every position, remembered by position and shared by every game
//! and every re-ruling in the process: its legal moves and, once asked, whether it is dead
//! (FIDE 5.2.2).
//!
//! The referee generates a position's legal moves once after each move (for the mate and
//! stalemate tests and the next move's check), then asks the dead-position test. A finished
//! game is ruled again from its events: once under its own ruleset (the invariant that it gets
//! the same ruling), and, for the games `report.html` shows, under every ruleset: seven times
//! the same positions, each answered by one lookup. Both answers are pure functions of the
//! position (`memo::Key`: the pieces, the side to move, the castling rights and the legal en
//! passant square), so remembering them changes no ruling. A few blocked positions cost
//! chasolver millions of instructions each; a game that repeats positions asks it once.

use std::sync::Arc;

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, Move, Position, Role, Square};

use super::memo::PositionMemo;

/// Forgotten all at once past this many positions (a few MB: a position holds about 30
/// moves): the games being played and the ones being ruled again fit many times over.
const CAPACITY: usize = 16_384;

/// The process's memo.
static MEMO: FactsMemo = FactsMemo::new();

/// A position's facts.
struct Facts {
    legal: Arc<LegalMoves>,
    /// The dead-position test's answer, once asked.
    dead: Option<bool>,
}

/// A position's legal moves, in shakmaty's order, and each one's key: made once, and shared
/// by the memo and every referee that stands on the position (a lookup hands out the list,
/// it does not copy it).
#[derive(Debug, Default)]
pub struct LegalMoves {
    moves: Box<[Move]>,
    keys: Box<[MoveKey]>,
}

impl LegalMoves {
    pub fn new(moves: Box<[Move]>) -> LegalMoves {
        LegalMoves {
            keys: moves.iter().map(MoveKey::of).collect(),
            moves,
        }
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// The move whose key is `key` (none for castling's).
    pub fn find(&self, key: MoveKey) -> Option<Move> {
        if key == MoveKey::NONE {
            return None;
        }
        let i = self.keys.iter().position(|&k| k == key)?;
        Some(self.moves[i])
    }
}

/// A move's squares and promotion as one number: a move's text is found among the legal
/// moves with one comparison a move. (A `match` on each `Move` cost some 15 instructions a
/// legal move, 600 a check in a middlegame position, and a move is checked once when it is
/// played and once at each re-ruling (`Referee::check_legal`, handed to `apply_checked`); the
/// keys are made once a position, here.) Castling has none: it is left to `illegal::check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveKey(u16);

impl MoveKey {
    /// What no move is: castling's key.
    const NONE: MoveKey = MoveKey(u16::MAX);

    pub fn new(from: Square, to: Square, promotion: Option<Role>) -> MoveKey {
        let promotion = promotion.map_or(0, |role| role as u16);
        MoveKey(from as u16 | (to as u16) << 6 | promotion << 12)
    }

    /// The key of a move's UCI text (`e2e4`, `e7e8q`; ASCII whitespace around it aside): its
    /// squares and promotion as shakmaty's `UciMove::from_ascii` reads them. `None` for text
    /// that names no squares (the null move `0000`, a drop, no move at all) and for text with
    /// other whitespace around it (`str::trim` cost more than the lookup): the referee then
    /// asks `illegal::check`, which reads any text.
    pub fn of_uci(text: &str) -> Option<MoveKey> {
        let bytes = text.as_bytes();
        // Engines send no whitespace around a move: trimmed only where there is some.
        let bytes = match bytes {
            [first, .., last] if !first.is_ascii_whitespace() && !last.is_ascii_whitespace() => {
                bytes
            }
            _ => bytes.trim_ascii(),
        };
        let (squares, promotion) = match *bytes {
            [a, b, c, d] => ([a, b, c, d], 0),
            [a, b, c, d, p] => ([a, b, c, d], Role::from_char(char::from(p))? as u16),
            _ => return None,
        };
        // A square as `Square::from_ascii` reads it (file `a`-`h`, rank `1`-`8`), as a number
        // (a1 = 0, b1 = 1, ... h8 = 63): subtractions, not `File::from_char`'s and
        // `Rank::from_char`'s matches (half the instructions of a move's check).
        let square = |file: u8, rank: u8| {
            let (file, rank) = (file.wrapping_sub(b'a'), rank.wrapping_sub(b'1'));
            (file < 8 && rank < 8).then_some(u16::from(rank) << 3 | u16::from(file))
        };
        let from = square(squares[0], squares[1])?;
        let to = square(squares[2], squares[3])?;
        Some(MoveKey(from | to << 6 | promotion << 12))
    }

    pub fn of(m: &Move) -> MoveKey {
        match *m {
            Move::Normal {
                from,
                to,
                promotion,
                ..
            } => MoveKey::new(from, to, promotion),
            Move::EnPassant { from, to } => MoveKey::new(from, to, None),
            Move::Castle { .. } | Move::Put { .. } => MoveKey::NONE,
        }
    }
}

struct FactsMemo(PositionMemo<Facts>);

/// `pos`'s legal moves, generated once per distinct position while the memo holds it, and
/// the dead-position test's answer if it was asked before. `zobrist` is `pos`'s zobrist key
/// with the legal en passant square, as the referee keeps it for repetitions: the memo finds
/// the position by it.
pub fn legal_moves(pos: &Chess, zobrist: Zobrist64) -> (Arc<LegalMoves>, Option<bool>) {
    MEMO.legal_moves(pos, zobrist, |pos| pos.legal_moves().into_iter().collect())
}

/// Remembers the dead-position test's answer for `pos` (whose zobrist key is `zobrist`, as
/// for [`legal_moves`]) beside its legal moves (forgotten with them).
pub fn remember_dead(pos: &Chess, zobrist: Zobrist64, dead: bool) {
    MEMO.0.update(pos, zobrist, |facts| facts.dead = Some(dead));
}

impl FactsMemo {
    const fn new() -> FactsMemo {
        FactsMemo(PositionMemo::new(CAPACITY))
    }

    fn legal_moves(
        &self,
        pos: &Chess,
        zobrist: Zobrist64,
        generate: impl FnOnce(&Chess) -> Box<[Move]>,
    ) -> (Arc<LegalMoves>, Option<bool>) {
        self.0.read(
            pos,
            zobrist,
            |pos| Facts {
                legal: Arc::new(LegalMoves::new(generate(pos))),
                dead: None,
            },
            |facts| (Arc::clone(&facts.legal), facts.dead),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_position::position as pos;
    use shakmaty::EnPassantMode;

    fn zobrist(p: &Chess) -> Zobrist64 {
        p.zobrist_hash(EnPassantMode::Legal)
    }

    fn generated(memo: &FactsMemo, p: &Chess, asked: &mut usize) -> (Vec<Move>, Option<bool>) {
        let (legal, dead) = memo.legal_moves(p, zobrist(p), |p| {
            *asked += 1;
            p.legal_moves().into_iter().collect()
        });
        // Each move is found by its own key (castling by none).
        for &m in legal.moves() {
            let found = legal.find(MoveKey::of(&m));
            assert_eq!(found, (!m.is_castle()).then_some(m), "{m:?}");
        }
        (legal.moves().to_vec(), dead)
    }

    #[test]
    fn a_position_is_generated_once_and_its_moves_kept_in_order() {
        let memo = FactsMemo::new();
        let p = pos("r3k2r/ppp2ppp/2n2q2/3pP3/8/8/PPP2PPP/R3K2R w KQkq d6 0 9");
        let mut asked = 0;
        let (first, _) = generated(&memo, &p, &mut asked);
        let (again, _) = generated(&memo, &p, &mut asked);
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
            let (moves, _) = generated(&memo, &p, &mut asked);
            assert_eq!(moves, p.legal_moves().into_iter().collect::<Vec<_>>());
        }
        assert_eq!(asked, 3);
    }

    #[test]
    fn positions_that_share_a_zobrist_key_never_share_their_facts() {
        let memo = FactsMemo::new();
        let one = pos("8/8/3k4/8/8/2NK4/8/7R w - - 0 1");
        let other = pos("r3k2r/ppp2ppp/2n2q2/3pP3/8/8/PPP2PPP/R3K2R w KQkq d6 0 9");
        let mut asked = 0;
        let mut moves = |p: &Chess| {
            let (legal, _) = memo.legal_moves(p, Zobrist64(7), |p| {
                asked += 1;
                p.legal_moves().into_iter().collect()
            });
            legal.moves().to_vec()
        };
        for p in [&one, &other, &one] {
            assert_eq!(moves(p), p.legal_moves().into_iter().collect::<Vec<_>>());
        }
        assert_eq!(asked, 3);
        // The dead answer goes to the position that has the key's whole key, and to no other.
        memo.0
            .update(&other, Zobrist64(7), |facts| facts.dead = Some(true));
        assert_eq!(
            memo.legal_moves(&one, Zobrist64(7), |_| unreachable!()).1,
            None
        );
    }

    #[test]
    fn a_texts_key_is_that_of_the_squares_shakmaty_reads_in_it() {
        use shakmaty::uci::UciMove;
        for text in [
            "e2e4", "e7e8q", "e7e8N", "a1h8", " g1f3\n", "e1g1", "e7e8p", "e7e8k", "0000", "Q@e4",
            "e2e9", "i2e4", "e2e", "e2e4qq", "", "e2 e4", "E2E4", "h8a1", "e0e1", "`1a1",
        ] {
            let shakmaty = match UciMove::from_ascii(text.trim().as_bytes()) {
                Ok(UciMove::Normal {
                    from,
                    to,
                    promotion,
                }) => Some(MoveKey::new(from, to, promotion)),
                _ => None,
            };
            assert_eq!(MoveKey::of_uci(text), shakmaty, "{text:?}");
        }
    }

    #[test]
    fn the_dead_answer_is_kept_beside_the_moves_of_its_own_position() {
        let memo = FactsMemo::new();
        let white = pos("8/8/3k4/8/8/2NK4/8/7R w - - 0 1");
        let black = pos("8/8/3k4/8/8/2NK4/8/7R b - - 0 1");
        let mut asked = 0;
        // Not asked yet.
        assert_eq!(generated(&memo, &white, &mut asked).1, None);
        memo.0
            .update(&white, zobrist(&white), |facts| facts.dead = Some(false));
        assert_eq!(generated(&memo, &white, &mut asked).1, Some(false));
        // The same pieces with the other side to move are another position.
        assert_eq!(generated(&memo, &black, &mut asked).1, None);
        // A position the memo does not hold is not added by its answer.
        let other = pos("8/8/3k4/8/8/2NK4/8/6R1 w - - 0 1");
        memo.0
            .update(&other, zobrist(&other), |facts| facts.dead = Some(true));
        assert_eq!(generated(&memo, &other, &mut asked).1, None);
        assert_eq!(asked, 3);
    }
}
