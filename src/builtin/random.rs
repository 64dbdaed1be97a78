//! `random`: a uniformly random legal move. Option `Seed` reproduces a run.

use std::sync::atomic::AtomicBool;

use rand::RngExt;
use shakmaty::Position;

use super::engine::{Engine, Game, Limits, Out, Reply, Seeded, UciOption};

pub struct Random {
    seeded: Seeded,
}

impl Random {
    pub fn new() -> Self {
        Random {
            seeded: Seeded::new(0),
        }
    }
}

impl Engine for Random {
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
        let moves = game.pos.legal_moves();
        if moves.is_empty() {
            return Reply::Move(None);
        }
        Reply::Move(Some(moves[self.seeded.rng.random_range(0..moves.len())]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Move};
    use std::collections::HashSet;

    fn play(engine: &mut Random, pos: &Chess) -> Option<Move> {
        let game = Game {
            pos: pos.clone(),
            ..Game::default()
        };
        let (out, _) = Out::buffer();
        let limits = Limits::new(std::time::Instant::now());
        match engine.go(&game, &limits, &AtomicBool::new(false), &out) {
            Reply::Move(m) => m,
            other => panic!("unexpected reply {other:?}"),
        }
    }

    #[test]
    fn plays_only_legal_moves_and_covers_them() {
        let mut engine = Random::new();
        engine.set_option("Seed", "1").expect("seed");
        let mut pos = Chess::default();
        let mut seen = HashSet::new();
        for _ in 0..1000 {
            let m = play(&mut engine, &Chess::default()).expect("a move");
            seen.insert(m);
        }
        assert_eq!(seen.len(), 20, "all 20 opening moves get played");
        for _ in 0..300 {
            let Some(m) = play(&mut engine, &pos) else {
                assert!(pos.legal_moves().is_empty());
                break;
            };
            assert!(pos.is_legal(m), "{m:?}");
            pos.play_unchecked(m);
        }
    }

    #[test]
    fn seed_reproduces_a_sequence() {
        let run = |seed: &str| {
            let mut e = Random::new();
            e.set_option("seed", seed).expect("option");
            (0..10)
                .map(|_| play(&mut e, &Chess::default()))
                .collect::<Vec<_>>()
        };
        assert_eq!(run("42"), run("42"));
        assert_ne!(run("42"), run("43"));
        let mut e = Random::new();
        assert!(e.set_option("Seed", "-1").is_err());
        assert!(e.set_option("Hash", "1").is_err());
    }
}
