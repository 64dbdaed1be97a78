//! `instant`: the first legal move, at once. It measures the arena's own
//! overhead per move, so it does as little as possible: no thread, no info
//! lines, no heap allocation in the search (the move list lives on the stack).

use std::sync::atomic::AtomicBool;

use shakmaty::Position;

use super::engine::{Engine, Game, Limits, Out, Reply};

pub struct Instant;

impl Engine for Instant {
    fn inline(&self) -> bool {
        true
    }

    fn go(&mut self, game: &Game, _: &Limits, _: &AtomicBool, _: &Out) -> Reply {
        Reply::Move(game.pos.legal_moves().first().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Move, Role, Square};

    #[test]
    fn plays_the_first_legal_move() {
        let game = Game::default();
        let (out, buf) = Out::buffer();
        let reply = Instant.go(
            &game,
            &Limits::new(std::time::Instant::now()),
            &AtomicBool::new(false),
            &out,
        );
        let first = Chess::default().legal_moves()[0];
        assert_eq!(reply, Reply::Move(Some(first)));
        assert!(matches!(
            first,
            Move::Normal {
                role: Role::Pawn,
                from: Square::A2,
                ..
            }
        ));
        assert!(buf.lock().expect("buffer").is_empty(), "no info output");
    }
}
