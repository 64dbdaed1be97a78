//! The arena's own safety net (issue 4): properties every ruled game must have, checked on
//! every game and reported as errors if ever broken. They are a user's proof that injected
//! faults were ruled as the rules say.

use crate::event::{Claimable, Event, GameRecord, Side, Termination};
use crate::report::Rendered;
use crate::rules::Ruleset;

/// What is wrong with a game's ruling; empty when every invariant holds. `written` is the
/// game as it went into games.csv and games.pgn.
pub fn check(record: &GameRecord, written: &Rendered) -> Vec<String> {
    let mut broken = Vec::new();
    let Some(outcome) = record.outcome() else {
        return vec!["the game has no ending".to_string()];
    };
    let winner = outcome.result.winner();
    let fell = |side: Side| record.flag_us(side);

    // 1. A side whose flag fell first, and whose fall was validly claimed (the claimant's own
    //    flag up when the claim completed), never wins.
    let first = match (fell(Side::White), fell(Side::Black)) {
        (Some(w), Some(b)) => Some(if w <= b { Side::White } else { Side::Black }),
        (Some(_), None) => Some(Side::White),
        (None, Some(_)) => Some(Side::Black),
        (None, None) => None,
    };
    if let Some(first) = first {
        let validly_claimed = record.events.iter().any(|e| match e {
            Event::Claim {
                t_us,
                by,
                what: Claimable::Flag,
            } => *by == first.other() && fell(*by).is_none_or(|t| t > *t_us),
            _ => false,
        });
        let online_fall = record.ruleset == Ruleset::Online;
        if (validly_claimed || online_fall) && winner == Some(first) {
            broken.push(format!(
                "{} won although its flag fell first and was claimed",
                first.name()
            ));
        }
    }

    // 2. A game won on time is not won by a side whose own flag is down, except under FIDE,
    //    where the first of two fallen flags loses.
    if matches!(
        outcome.termination,
        Termination::Flag | Termination::BothFlags | Termination::EngineStall
    ) {
        if let Some(w) = winner {
            if let Some(own) = fell(w) {
                let loser_first = fell(w.other()).is_some_and(|t| t < own);
                if !(record.ruleset == Ruleset::Fide && loser_first) {
                    broken.push(format!("{} won on time with its own flag down", w.name()));
                }
            }
        }
    }

    // 3. Every noticed illegal move is ruled per the ruleset: the claim ends the game (FIDE:
    //    a penalty the first time), and the offender does not win it (but under USCF 7d).
    let mut claimed = None;
    for (i, event) in record.events.iter().enumerate() {
        if let Event::Claim {
            by,
            what: Claimable::IllegalMove,
            ..
        } = event
        {
            claimed = Some((i, *by));
        }
    }
    if let Some((i, by)) = claimed {
        let next = record.events[i + 1..].iter().find(|e| {
            !matches!(
                e,
                Event::Notice { .. } | Event::Injected { .. } | Event::EngineFault { .. }
            )
        });
        match (record.ruleset, next) {
            (Ruleset::Fide, Some(Event::Penalty { side, .. })) if *side == by => {}
            (Ruleset::Fide, Some(Event::Penalty { .. })) => {
                broken.push("FIDE 7.5.5: the penalty went to the offender".to_string());
            }
            (_, Some(Event::End { .. })) => {
                let offender = by.other();
                if winner == Some(offender) && !outcome.rule.contains("7d") {
                    broken.push(format!(
                        "{} won the claim of its own illegal move",
                        offender.name()
                    ));
                }
            }
            (_, other) => broken.push(format!(
                "a noticed illegal move was not ruled at its claim (next: {})",
                other.map_or("nothing".to_string(), |e| format!("{e:?}")
                    .chars()
                    .take(60)
                    .collect())
            )),
        }
    }

    // 4. The CSV row and the PGN as written agree with the event record on the result.
    if written.row.result != Some(outcome.result) {
        broken.push(format!(
            "games.csv says {:?}, the record {:?}",
            written.row.result, outcome.result
        ));
    }
    let pgn = &written.pgn;
    let tag = format!("[Result \"{}\"]", outcome.result.as_str());
    if !pgn.contains(&tag) || !pgn.trim_end().ends_with(outcome.result.as_str()) {
        broken.push(format!(
            "the PGN does not end in {}",
            outcome.result.as_str()
        ));
    }
    broken
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::GameResult;

    /// The checks over the game as `ResultsDir::append` would write it.
    fn checked(record: &GameRecord) -> Vec<String> {
        check(record, &Rendered::of(record).unwrap())
    }
    use crate::event::OpeningRecord;
    use crate::timecontrol::TimeControl;

    fn record(ruleset: Ruleset, events: Vec<Event>) -> GameRecord {
        GameRecord {
            game: 1,
            pair: 1,
            white: "a".into(),
            black: "b".into(),
            opening: OpeningRecord {
                name: "startpos".into(),
                fen: None,
                moves: vec![],
            },
            ruleset,
            tc_white: TimeControl::G5,
            tc_black: TimeControl::G5,
            seed: 1,
            started: "2026-11-20T00:00:00Z".into(),
            time_margin_ms: 0,
            events,
        }
    }

    fn end(result: GameResult, termination: Termination, rule: &str) -> Event {
        Event::End {
            t_us: 10,
            result,
            termination,
            rule: rule.into(),
            detail: String::new(),
            white_clock_us: 0,
            black_clock_us: 0,
        }
    }

    #[test]
    fn a_claimed_first_flag_that_wins_is_caught() {
        let events = vec![
            Event::FlagFall {
                t_us: 1,
                side: Side::White,
            },
            Event::Claim {
                t_us: 2,
                by: Side::Black,
                what: Claimable::Flag,
            },
            end(GameResult::WhiteWins, Termination::Flag, "FIDE 6.9"),
        ];
        let broken = checked(&record(Ruleset::Fide, events));
        assert!(
            broken.iter().any(|b| b.contains("fell first")),
            "{broken:?}"
        );
    }

    #[test]
    fn a_correct_flag_ruling_passes() {
        let events = vec![
            Event::FlagFall {
                t_us: 1,
                side: Side::White,
            },
            Event::Claim {
                t_us: 2,
                by: Side::Black,
                what: Claimable::Flag,
            },
            end(GameResult::BlackWins, Termination::Flag, "FIDE 6.9"),
        ];
        assert_eq!(
            checked(&record(Ruleset::Fide, events)),
            Vec::<String>::new()
        );
    }

    #[test]
    fn fide_first_of_two_flags_may_lose_to_a_flagged_winner() {
        let events = vec![
            Event::FlagFall {
                t_us: 1,
                side: Side::White,
            },
            Event::FlagFall {
                t_us: 5,
                side: Side::Black,
            },
            Event::Claim {
                t_us: 6,
                by: Side::Black,
                what: Claimable::Flag,
            },
            end(GameResult::BlackWins, Termination::BothFlags, "FIDE 6.9"),
        ];
        assert!(checked(&record(Ruleset::Fide, events.clone())).is_empty());
        // The same under USCF is a broken ruling (8c: a draw).
        let broken = checked(&record(Ruleset::Uscf, events));
        assert!(
            broken.iter().any(|b| b.contains("own flag down")),
            "{broken:?}"
        );
    }

    #[test]
    fn an_illegal_move_claim_that_does_not_end_the_game_is_caught() {
        let events = vec![
            Event::IllegalMove {
                t_us: 1,
                side: Side::White,
                uci: "e2e5".into(),
                think_us: 1,
                clock_us: 1,
                reason: "no".into(),
                kind: None,
            },
            Event::Claim {
                t_us: 2,
                by: Side::Black,
                what: Claimable::IllegalMove,
            },
            Event::Go {
                t_us: 3,
                side: Side::Black,
                clock_us: 1,
            },
            end(
                GameResult::Draw,
                Termination::MaxMoves,
                "arena: --max-moves",
            ),
        ];
        let broken = checked(&record(Ruleset::Uscf, events));
        assert!(
            broken.iter().any(|b| b.contains("not ruled at its claim")),
            "{broken:?}"
        );
    }
}
