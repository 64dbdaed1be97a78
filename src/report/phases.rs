//! Think time by game phase (opening: moves 1-15, middlegame: 16-40, endgame: 41 and later,
//! by the move number on the board, book moves included), from the `Move` events of
//! `events.jsonl`.

use std::collections::BTreeMap;

use crate::event::{BySide, Event, GameRecord, Side};

/// A phase of the game, by the move number on the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Moves 1 to 15.
    Opening,
    /// Moves 16 to 40.
    Middlegame,
    /// Move 41 and later.
    Endgame,
}

impl Phase {
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middlegame, Phase::Endgame];

    /// The phase of full move `number` (1-based).
    pub fn of_move(number: u32) -> Phase {
        match number {
            0..=15 => Phase::Opening,
            16..=40 => Phase::Middlegame,
            _ => Phase::Endgame,
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "opening",
            Phase::Middlegame => "middlegame",
            Phase::Endgame => "endgame",
        }
    }
}

/// One engine's legal moves and think time in each phase, indexed by `Phase::index`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PhaseTimes {
    pub moves: [u64; 3],
    pub think_us: [i64; 3],
}

impl PhaseTimes {
    /// Mean think time per move in `phase`, in ms; `None` without moves there.
    pub fn mean_ms(&self, phase: Phase) -> Option<f64> {
        let i = phase.index();
        (self.moves[i] > 0).then(|| self.think_us[i] as f64 / 1000.0 / self.moves[i] as f64)
    }
}

/// Think time by game phase, per engine, from the `Move` events of finished games (records cut
/// off before their end are left out, as in the summary). Move numbers are those on the board:
/// they start from the opening position's FEN move number and count the book moves.
pub fn phase_times(records: &[GameRecord]) -> BTreeMap<String, PhaseTimes> {
    let mut out = BTreeMap::new();
    for record in records {
        add_phase_times(&mut out, record);
    }
    out
}

/// Adds one game's moves to `phase_times` (a run adds each game as it ends, and keeps only
/// these totals).
pub fn add_phase_times(out: &mut BTreeMap<String, PhaseTimes>, record: &GameRecord) {
    if record.outcome().is_none() {
        return;
    }
    // The root position's side to move and full move number (FEN fields 2 and 6).
    let (black_first, first_move) = record.opening.fen.as_deref().map_or((false, 1), |fen| {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        let black = fields.get(1) == Some(&"b");
        let number = fields.get(5).and_then(|n| n.parse::<u32>().ok());
        (black, number.unwrap_or(1).max(1))
    });
    // Plies from the root, book moves included.
    let mut ply = record.opening.moves.len() as u32;
    // Counted by side, then added to each side's engine once a game, not once a move.
    let mut game = BySide::<PhaseTimes>::default();
    for event in &record.events {
        let Event::Move { side, think_us, .. } = event else {
            continue;
        };
        let number = first_move + (ply + u32::from(black_first)) / 2;
        let phase = Phase::of_move(number).index();
        game[*side].moves[phase] += 1;
        game[*side].think_us[phase] += think_us;
        ply += 1;
    }
    for side in Side::ALL {
        if game[side].moves.iter().any(|&n| n > 0) {
            let times = super::tally::by_name(out, record.engine(side));
            for phase in 0..3 {
                times.moves[phase] += game[side].moves[phase];
                times.think_us[phase] += game[side].think_us[phase];
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::event::{GameResult, OpeningRecord, Side, Termination};
    use crate::rules::Ruleset;
    use crate::timecontrol::TimeControl;

    /// A game between `w` and `b` of `plies` moves after `book` book moves from `fen`; white
    /// thinks 1 ms per ply index, black 1 s flat. Without `ended`, cut off before its end.
    pub fn record(
        game: u64,
        fen: Option<&str>,
        book: usize,
        plies: u32,
        ended: bool,
    ) -> GameRecord {
        let mut events = Vec::new();
        for ply in 0..plies {
            let side = if ply % 2 == 0 {
                Side::White
            } else {
                Side::Black
            };
            events.push(Event::Move {
                t_us: 0,
                side,
                uci: "e2e4".into(),
                // White thinks 1 ms per ply index, black 1 s flat.
                think_us: if side == Side::White {
                    1000 * i64::from(ply)
                } else {
                    1_000_000
                },
                clock_us: 0,
                info: Default::default(),
            });
        }
        if ended {
            events.push(Event::End {
                t_us: 0,
                result: GameResult::Draw,
                termination: Termination::MaxMoves,
                rule: String::new(),
                detail: String::new(),
                white_clock_us: 0,
                black_clock_us: 0,
            });
        }
        GameRecord {
            game,
            pair: 1,
            white: "w".into(),
            black: "b".into(),
            opening: OpeningRecord {
                name: "x".into(),
                fen: fen.map(str::to_string),
                moves: vec!["e2e4".into(); book],
                variant: Default::default(),
            },
            ruleset: Ruleset::Fide,
            tc_white: TimeControl::G5,
            tc_black: TimeControl::G5,
            seed: 1,
            started: String::new(),
            time_margin_ms: 0,
            events,
        }
    }

    #[test]
    fn think_time_by_phase_follows_the_move_number_on_the_board() {
        // From the start position, 45 moves each: white's moves are plies 0, 2, .., 88.
        let times = phase_times(&[record(1, None, 0, 90, true)]);
        let w = times["w"];
        assert_eq!(w.moves, [15, 25, 5]);
        // Moves 1-15: plies 0..=28, mean 14 ms; 16-40: plies 30..=78, mean 54 ms;
        // 41-45: plies 80..=88, mean 84 ms.
        assert_eq!(w.mean_ms(Phase::Opening), Some(14.0));
        assert_eq!(w.mean_ms(Phase::Middlegame), Some(54.0));
        assert_eq!(w.mean_ms(Phase::Endgame), Some(84.0));
        let b = times["b"];
        assert_eq!(b.moves, [15, 25, 5]);
        assert_eq!(b.mean_ms(Phase::Endgame), Some(1000.0));

        // Black to move at move 15, one book move (black's 15th): the game proper starts
        // with white's 16th move, in the middlegame; move 41 starts after 25 moves each.
        let fen = "4k3/8/8/8/8/8/8/4K3 b - - 0 15";
        let times = phase_times(&[record(2, Some(fen), 1, 52, true)]);
        assert_eq!(times["w"].moves, [0, 25, 1]);
        assert_eq!(times["b"].moves, [0, 25, 1]);
        // The same position with white to move at move 15: one opening move each.
        let fen = "4k3/8/8/8/8/8/8/4K3 w - - 0 15";
        let times = phase_times(&[record(3, Some(fen), 0, 2, true)]);
        assert_eq!(times["w"].moves, [1, 0, 0]);
        assert_eq!(times["b"].moves, [1, 0, 0]);
        assert_eq!(times["b"].mean_ms(Phase::Middlegame), None);
        // A record cut off before its end is left out.
        assert!(phase_times(&[record(4, None, 0, 10, false)]).is_empty());
        // An engine that played itself has both sides' moves; one with no move has no entry.
        let mut selfplay = record(5, None, 0, 4, true);
        selfplay.black = "w".into();
        let times = phase_times(&[selfplay]);
        assert_eq!(times.len(), 1);
        assert_eq!(times["w"].moves, [4, 0, 0]);
        assert_eq!(times["w"].think_us[0], 2_000 + 2 * 1_000_000);
        let mut no_moves = record(6, None, 0, 0, true);
        (no_moves.white, no_moves.black) = ("x".into(), "y".into());
        assert!(phase_times(&[no_moves]).is_empty());
    }
}
