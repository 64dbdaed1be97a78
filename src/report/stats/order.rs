//! The fixed order of the engines, which every table of pairings follows: a pairing is seen
//! from the engine that comes first (the gauntlet's engine, the first named in a round robin),
//! and pairings are listed in that order, whatever order the games finished in.

use crate::report::csv::GameRow;

/// The engines of `rows` in their fixed order: those of `named` (the run's engines, in the
/// order the command line named them) first; then any other, in the order it first appears
/// in the schedule (by game number, white before black: the schedule plays an encounter's
/// first game with its first engine as white), never in the order the games finished.
pub fn engine_order(rows: &[GameRow], named: &[String]) -> Vec<String> {
    let mut order: Vec<String> = Vec::new();
    for name in named {
        if !order.contains(name) {
            order.push(name.clone());
        }
    }
    let mut by_game: Vec<&GameRow> = rows.iter().collect();
    by_game.sort_by_key(|r| r.game);
    for row in by_game {
        for name in [&row.white, &row.black] {
            if !order.contains(name) {
                order.push(name.clone());
            }
        }
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameResult, Termination};
    use crate::report::stats::testing::row;

    #[test]
    fn named_engines_first_then_by_game_number() {
        let rows = [
            row(4, "c", "a", GameResult::Draw, Termination::Threefold),
            row(2, "b", "c", GameResult::Draw, Termination::Threefold),
            row(3, "d", "b", GameResult::Draw, Termination::Threefold),
        ];
        assert_eq!(engine_order(&rows, &[]), ["b", "c", "d", "a"]);
        let named = ["a".to_string(), "d".to_string()];
        assert_eq!(engine_order(&rows, &named), ["a", "d", "b", "c"]);
    }
}
