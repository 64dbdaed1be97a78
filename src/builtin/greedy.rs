//! `greedy`: the move that wins the most material at once (most valuable
//! victim, then least valuable attacker; a promotion counts as the material
//! it adds), else a random legal move. Option `Seed` reproduces a run.

use std::sync::atomic::AtomicBool;

use rand::RngExt;
use shakmaty::{Move, Position};

use super::engine::{material_gain, value, Engine, Game, Limits, Out, Reply, Seeded, UciOption};

pub struct Greedy {
    seeded: Seeded,
}

impl Greedy {
    pub fn new() -> Self {
        Greedy {
            seeded: Seeded::new(0),
        }
    }
}

/// Higher is better: material won first, then the cheaper attacker (MVV-LVA).
fn key(m: Move) -> (i32, i32) {
    (material_gain(m), -value(m.role()))
}

impl Engine for Greedy {
    fn options(&self) -> Vec<UciOption> {
        vec![Seeded::OPTION]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        self.seeded.set_option(name, value)
    }

    fn new_game(&mut self) {
        self.seeded.reseed();
    }

    fn inline(&self) -> bool {
        true
    }

    fn go(&mut self, game: &Game, _: &Limits, _: &AtomicBool, _: &Out) -> Reply {
        let mut moves = game.pos.legal_moves();
        let Some(best) = moves.iter().map(|&m| key(m)).max() else {
            return Reply::Move(None);
        };
        // Nothing to win: every move is a candidate. Otherwise only the
        // best-scoring ones; ties are broken at random.
        if best.0 > 0 {
            moves.retain(|m| key(*m) == best);
        }
        let i = self.seeded.rng.random_range(0..moves.len());
        Reply::Move(Some(moves[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;
    use shakmaty::Chess;

    fn best(fen: &str) -> String {
        let game = Game {
            pos: crate::builtin::position(fen),
            ..Game::default()
        };
        let (out, _) = Out::buffer();
        let limits = Limits::new(std::time::Instant::now());
        match Greedy::new().go(&game, &limits, &AtomicBool::new(false), &out) {
            Reply::Move(Some(m)) => UciMove::from_standard(m).to_string(),
            other => panic!("unexpected reply {other:?}"),
        }
    }

    #[test]
    fn captures_by_material_gained() {
        // (position, the move, why)
        let cases = [
            (
                "4k3/8/8/3q4/2n5/1P6/8/K2R4 w - - 0 1",
                "d1d5",
                "the pawn can take a knight, the rook the queen: the most valuable capture",
            ),
            (
                "4k3/8/8/3r4/4P3/8/8/K2Q4 w - - 0 1",
                "e4d5",
                "queen and pawn both attack the rook: the least valuable attacker takes",
            ),
            (
                "4k3/1P6/8/8/8/2n5/1P6/K7 w - - 0 1",
                "b7b8q",
                "a queen promotion beats a minor capture",
            ),
            (
                "4k3/1P6/8/8/8/2q5/1P6/K7 w - - 0 1",
                "b2c3",
                "a queen capture beats promoting",
            ),
        ];
        for (fen, expected, why) in cases {
            assert_eq!(best(fen), expected, "{why}");
        }
    }

    #[test]
    fn without_captures_plays_some_legal_move() {
        let pos = Chess::default();
        let uci = best("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        let m = uci.parse::<UciMove>().expect("uci").to_move(&pos);
        assert!(m.is_ok(), "{uci}");
    }
}
