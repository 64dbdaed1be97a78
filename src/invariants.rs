//! The arena's own safety net (issue 4): properties every ruled game must have, checked on
//! every game and reported as errors if ever broken. They are a user's proof that injected
//! faults were ruled as the rules say.

use crate::engine::Shortage;
use crate::event::{Claimable, Event, Fault, GameRecord, Outcome, Side, Termination};
use crate::game::rerule::{rerule, Rerule};
use crate::game::Watchers;
use crate::report::Rendered;
use crate::rules::{cite, RefereeSettings, Ruleset, Situation};
use crate::vocabulary::IllegalKind;

/// The run's options a ruling depends on: the referee's settings and the watchers.
#[derive(Clone, Copy, Debug)]
pub struct RunRules<'a> {
    pub settings: &'a RefereeSettings,
    pub watchers: &'a Watchers,
}

/// What is wrong with a game's ruling; empty when every invariant holds. `written` is the
/// game as it went into games.csv and games.pgn; `rules`, the run's options it was ruled with.
pub fn check(record: &GameRecord, written: &Rendered, rules: RunRules) -> Vec<String> {
    let mut broken = ruled(record, written);
    // 7. No game is charged to an engine that could not be started because the arena or the
    //    machine ran out of open files, processes or memory: that is the run's error.
    broken.extend(charged_a_shortage(record));
    let Some(outcome) = record.outcome() else {
        return broken;
    };
    // 5. Every game ends by a cited rule of its ruleset, or by an option the user gave.
    if let Some(why) = uncited(record, outcome.termination, outcome.rule, rules.settings) {
        broken.push(why);
    }
    // 6. Re-ruled from its events under the ruleset it was played under, with the run's
    //    options, the game gets the ruling it was played to (`adjudicate` reproduces play).
    if let Some(why) = rerules_otherwise(record, rules) {
        broken.push(why);
    }
    broken
}

/// Invariants 1-4: the ruling itself, and the files written of it.
fn ruled(record: &GameRecord, written: &Rendered) -> Vec<String> {
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

    broken.extend(illegal_claim_ruled_otherwise(record, &outcome));

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

/// Invariant 3: every noticed illegal move is ruled per the ruleset: the claim ends the game
/// (FIDE: a penalty the first time), and the offender does not win it (but under USCF 7d and
/// H20, and under FIDE a queen made of a pawn without its piece that mates). What broke, if
/// anything.
fn illegal_claim_ruled_otherwise(record: &GameRecord, outcome: &Outcome<'_>) -> Option<String> {
    // The last claim of an illegal move: the one the game's ending answers.
    let (i, by) = record
        .events
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, event)| match event {
            Event::Claim {
                by,
                what: Claimable::IllegalMove,
                ..
            } => Some((i, *by)),
            _ => None,
        })?;
    let next = record.events[i + 1..].iter().find(|e| {
        !matches!(
            e,
            Event::Notice { .. }
                | Event::Injected { .. }
                | Event::EngineFault { .. }
                // The opponent's engine stopped pondering as the game ended.
                | Event::Ponder { .. }
                | Event::PonderStopped { .. }
        )
    });
    match (record.ruleset, next) {
        (Ruleset::Fide, Some(Event::Penalty { side, .. })) if *side == by => None,
        (Ruleset::Fide, Some(Event::Penalty { .. })) => {
            Some("FIDE A4.2, 7.5.5: the penalty went to the offender".to_string())
        }
        (_, Some(Event::End { .. })) => {
            let offender = by.other();
            // USCF 7d: the kings-adjacent mover's claim; H20: the claimant's own flag fell
            // before the illegal move; FIDE 7.5.2 and 5.1.1: a pawn moved to the last rank
            // without its piece becomes a queen, and a mate that queen gives ends the game.
            let kind = record.events[..i].iter().rev().find_map(|e| match e {
                Event::IllegalMove { kind, .. } => Some(*kind),
                _ => None,
            });
            let queen_mates = record.ruleset == Ruleset::Fide
                && kind == Some(Some(IllegalKind::NoPromotion))
                && outcome.termination == Termination::Checkmate;
            let exempt = outcome.rule.contains("7d") || outcome.rule == "H20" || queen_mates;
            (outcome.result.winner() == Some(offender) && !exempt)
                .then(|| format!("{} won the claim of its own illegal move", offender.name()))
        }
        (_, other) => Some(format!(
            "a noticed illegal move was not ruled at its claim (next: {})",
            other.map_or("nothing".to_string(), |e| format!("{e:?}")
                .chars()
                .take(60)
                .collect())
        )),
    }
}

/// Why the game's ending is neither a rule of its ruleset nor an option the user gave.
fn uncited(
    record: &GameRecord,
    termination: Termination,
    rule: &str,
    settings: &RefereeSettings,
) -> Option<String> {
    let given = |s: Situation| cite(record.ruleset, s) == rule;
    let ok = match termination {
        Termination::MaxMoves => given(Situation::MaxMoves) && settings.max_moves.is_some(),
        Termination::Adjudication => {
            (given(Situation::DrawAdjudication) && settings.adjudication.draw.is_some())
                || (given(Situation::ResignAdjudication) && settings.adjudication.resign.is_some())
        }
        Termination::Tablebase => {
            given(Situation::Tablebase)
                && record
                    .events
                    .iter()
                    .any(|e| matches!(e, Event::Tablebase { .. }))
        }
        Termination::EngineCrash | Termination::EngineStall if given(Situation::EngineCrash) => {
            record
                .events
                .iter()
                .any(|e| matches!(e, Event::EngineFault { .. }))
        }
        _ => Situation::ALL.iter().any(|s| {
            !matches!(
                s,
                Situation::MaxMoves
                    | Situation::DrawAdjudication
                    | Situation::ResignAdjudication
                    | Situation::Tablebase
                    | Situation::EngineCrash
            ) && given(*s)
        }),
    };
    (!ok).then(|| {
        format!(
            "the game ended {termination} ({rule}), which is no rule of {} and no option given",
            record.ruleset
        )
    })
}

/// The start failure of an engine that the record charges to it although the arena or the
/// machine was short of resources.
fn charged_a_shortage(record: &GameRecord) -> Option<String> {
    record.events.iter().find_map(|event| match event {
        Event::EngineFault {
            side,
            fault: Fault::StartFailed,
            detail,
            ..
        } => Shortage::in_text(detail).map(|shortage| {
            format!(
                "{} is charged with a start failure that was the arena's: {} ({detail})",
                side.name(),
                shortage.what()
            )
        }),
        _ => None,
    })
}

/// A ruling in words: `1-0 flag (FIDE A4.3)`.
fn in_words(
    result: &str,
    termination: impl std::fmt::Display,
    rule: impl std::fmt::Display,
) -> String {
    format!("{result} {termination} ({rule})")
}

/// Why the game's record, re-ruled under its own ruleset, gives another ruling.
fn rerules_otherwise(record: &GameRecord, rules: RunRules) -> Option<String> {
    let outcome = record.outcome()?;
    let mut settings = rules.settings.clone();
    settings.ruleset = record.ruleset;
    // The rulings in words are written only when they differ.
    let played = || in_words(outcome.result.as_str(), outcome.termination, outcome.rule);
    match rerule(record, &settings, rules.watchers) {
        Rerule::Ended { ending, .. } => {
            let same = ending.result == outcome.result
                && ending.termination == outcome.termination
                && ending.rule == outcome.rule;
            (!same).then(|| {
                let again = in_words(ending.result.as_str(), ending.termination, ending.rule);
                format!(
                    "played {}, but re-ruled from its events under {} {again}",
                    played(),
                    record.ruleset
                )
            })
        }
        Rerule::Undetermined(why) => Some(format!(
            "played {}, but re-ruled from its events under {} undetermined: {why}",
            played(),
            record.ruleset
        )),
    }
}

/// A test hook (issue 15), not a feature: when the environment variable [`Tamper::VAR`] names
/// one of these, `gauntlet` and `round-robin` corrupt every game it applies to after the
/// referee has ruled it, so that end-to-end tests (tests/invariants.rs) can watch [`check`]
/// catch a wrong ruling and the run exit non-zero. Unset, it does nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tamper {
    /// A game that ended at the claim of an illegal move is given to the offender.
    OffenderWins,
    /// A FIDE penalty for an illegal move (+1 min to the claimant, 7.5.5) goes to the offender.
    PenaltyToOffender,
    /// The PGN is written with another result than the CSV row and the record.
    PgnResult,
    /// The game ends by no rule: the arena's old fallback when it had nothing left to wait
    /// for, `1/2-1/2 max-moves (arena: nothing left to wait for)`.
    Uncited,
}

impl Tamper {
    pub const VAR: &'static str = "BLITZ_ARENA_TEST_TAMPER";

    /// The hook the environment asks for, if any.
    pub fn from_env() -> anyhow::Result<Option<Tamper>> {
        let Ok(value) = std::env::var(Self::VAR) else {
            return Ok(None);
        };
        Ok(Some(match value.as_str() {
            "offender-wins" => Tamper::OffenderWins,
            "penalty-to-offender" => Tamper::PenaltyToOffender,
            "pgn-result" => Tamper::PgnResult,
            "uncited" => Tamper::Uncited,
            other => anyhow::bail!(
                "{}={other:?}: expected offender-wins, penalty-to-offender, pgn-result or \
                 uncited",
                Self::VAR
            ),
        }))
    }

    /// Corrupts the ruling in `record` (after the referee).
    pub fn ruling(self, record: &mut GameRecord) {
        if self == Tamper::Uncited {
            if let Some(Event::End {
                result,
                termination,
                rule,
                ..
            }) = record.events.last_mut()
            {
                *result = crate::event::GameResult::Draw;
                *termination = Termination::MaxMoves;
                *rule = "arena: nothing left to wait for".to_string();
            }
            return;
        }
        let Some(i) = record.events.iter().rposition(|e| {
            matches!(
                e,
                Event::Claim {
                    what: Claimable::IllegalMove,
                    ..
                }
            )
        }) else {
            return;
        };
        let Event::Claim { by, .. } = record.events[i] else {
            unreachable!()
        };
        let next = record.events[i + 1..].iter_mut().find(|e| {
            !matches!(
                e,
                Event::Notice { .. }
                    | Event::Injected { .. }
                    | Event::Ponder { .. }
                    | Event::PonderStopped { .. }
            )
        });
        match (self, next) {
            (Tamper::OffenderWins, Some(Event::End { result, .. })) => {
                *result = crate::event::GameResult::win_for(by.other());
            }
            (Tamper::PenaltyToOffender, Some(Event::Penalty { side, .. })) => {
                *side = by.other();
            }
            _ => {}
        }
    }

    /// Corrupts the game as it is about to be written to the results folder.
    pub fn rendering(self, written: &mut Rendered) {
        if self != Tamper::PgnResult {
            return;
        }
        let Some(result) = written.row.result else {
            return;
        };
        let other = if result.as_str() == "1-0" {
            "0-1"
        } else {
            "1-0"
        };
        let pgn = &mut written.pgn;
        *pgn = pgn.replace(
            &format!("[Result \"{}\"]", result.as_str()),
            &format!("[Result \"{other}\"]"),
        );
        if let Some(at) = pgn.rfind(result.as_str()) {
            pgn.replace_range(at..at + result.as_str().len(), other);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::GameResult;

    /// The checks over the game as `ResultsDir::append` would write it.
    fn checked(record: &GameRecord) -> Vec<String> {
        ruled(record, &Rendered::of(record).unwrap())
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
                variant: Default::default(),
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
    fn flag_rulings_are_checked() {
        let fall = |t_us, side| Event::FlagFall { t_us, side };
        let claim = |t_us, by| Event::Claim {
            t_us,
            by,
            what: Claimable::Flag,
        };
        let white_flag_claimed = || vec![fall(1, Side::White), claim(2, Side::Black)];
        let both_flags = || {
            vec![
                fall(1, Side::White),
                fall(5, Side::Black),
                claim(6, Side::Black),
            ]
        };
        let black_wins = |termination| end(GameResult::BlackWins, termination, "FIDE A4.3");
        // (ruleset, events, what the check says: None when it holds, else a part of it)
        let cases = [
            (
                Ruleset::Fide,
                [
                    white_flag_claimed(),
                    vec![end(GameResult::WhiteWins, Termination::Flag, "FIDE A4.3")],
                ]
                .concat(),
                Some("white won although its flag fell first and was claimed"),
            ),
            (
                Ruleset::Fide,
                [white_flag_claimed(), vec![black_wins(Termination::Flag)]].concat(),
                None,
            ),
            // FIDE: the first of two fallen flags loses, to a side whose flag is down too.
            (
                Ruleset::Fide,
                [both_flags(), vec![black_wins(Termination::BothFlags)]].concat(),
                None,
            ),
            // The same under USCF is a broken ruling (8c: a draw).
            (
                Ruleset::Uscf,
                [both_flags(), vec![black_wins(Termination::BothFlags)]].concat(),
                Some("black won on time with its own flag down"),
            ),
            // FIDE: flags that fell at the same instant: neither fell first, so neither wins.
            (
                Ruleset::Fide,
                vec![
                    fall(5, Side::White),
                    fall(5, Side::Black),
                    claim(6, Side::Black),
                    black_wins(Termination::BothFlags),
                ],
                Some("black won on time with its own flag down"),
            ),
        ];
        for (ruleset, events, expected) in cases {
            let broken = checked(&record(ruleset, events.clone()));
            match expected {
                None => assert_eq!(broken, Vec::<String>::new(), "{ruleset:?} {events:?}"),
                Some(what) => assert!(
                    broken.iter().any(|b| b == what),
                    "{ruleset:?} {events:?}: {broken:?}"
                ),
            }
        }
    }

    fn fall(t_us: i64, side: Side) -> Event {
        Event::FlagFall { t_us, side }
    }

    fn claim(t_us: i64, by: Side, what: Claimable) -> Event {
        Event::Claim { t_us, by, what }
    }

    fn illegal_move(t_us: i64, side: Side) -> Event {
        Event::IllegalMove {
            t_us,
            side,
            uci: "e2e5".into(),
            think_us: 1,
            clock_us: 1,
            reason: "no".into(),
            kind: None,
        }
    }

    /// A pawn moved to the last rank without its piece.
    fn no_promotion(t_us: i64, side: Side) -> Event {
        Event::IllegalMove {
            t_us,
            side,
            uci: "h7h8".into(),
            think_us: 1,
            clock_us: 1,
            reason: "h7h8: the pawn reaches the last rank but no piece is named".into(),
            kind: Some(IllegalKind::NoPromotion),
        }
    }

    fn penalty(side: Side) -> Event {
        Event::Penalty {
            t_us: 3,
            side,
            add_us: 60_000_000,
            rule: "FIDE A4.2, 7.5.5".into(),
        }
    }

    /// `check` on `events`: `None` when every invariant must hold, else a broken one, in full.
    fn assert_check(ruleset: Ruleset, events: Vec<Event>, expected: Option<&str>) {
        let broken = checked(&record(ruleset, events.clone()));
        match expected {
            None => assert_eq!(broken, Vec::<String>::new(), "{ruleset:?} {events:?}"),
            Some(what) => assert!(
                broken.iter().any(|b| b == what),
                "{ruleset:?} {events:?}: {broken:?}"
            ),
        }
    }

    #[test]
    fn a_flag_claim_counts_only_while_the_claimants_own_flag_is_up() {
        let white_mates = || end(GameResult::WhiteWins, Termination::Checkmate, "FIDE A4.3");
        let first_won = Some("white won although its flag fell first and was claimed");
        // Black claimed before its own flag fell: white, whose flag fell first, may not win.
        let valid = vec![
            fall(1, Side::White),
            claim(2, Side::Black, Claimable::Flag),
            fall(5, Side::Black),
            white_mates(),
        ];
        assert_check(Ruleset::Fide, valid, first_won);
        // Black's flag was down when its claim completed (at the same µs): the claim is void.
        let void = vec![
            fall(1, Side::White),
            fall(3, Side::Black),
            claim(3, Side::Black, Claimable::Flag),
            white_mates(),
        ];
        assert_check(Ruleset::Fide, void, None);
        // Online, a fallen flag loses without a claim.
        assert_check(
            Ruleset::Online,
            vec![fall(1, Side::White), white_mates()],
            first_won,
        );
    }

    #[test]
    fn illegal_move_claims_are_checked() {
        let claimed = || {
            vec![
                illegal_move(1, Side::White),
                claim(2, Side::Black, Claimable::IllegalMove),
            ]
        };
        let ended = |result, rule: &str| end(result, Termination::IllegalMove, rule);
        let notice = Event::Notice {
            t_us: 2,
            by: Side::White,
            what: Claimable::Flag,
        };
        let cases = [
            // The claimant wins, with what the loop records in between skipped.
            (
                Ruleset::Uscf,
                [
                    claimed(),
                    vec![notice, ended(GameResult::BlackWins, "USCF 7d")],
                ]
                .concat(),
                None,
            ),
            (
                Ruleset::Uscf,
                [claimed(), vec![ended(GameResult::WhiteWins, "USCF 11")]].concat(),
                Some("white won the claim of its own illegal move"),
            ),
            // USCF 7d: a claimant that moved its king next to the other king loses its claim.
            (
                Ruleset::Uscf,
                [claimed(), vec![ended(GameResult::WhiteWins, "USCF 7d")]].concat(),
                None,
            ),
            // FIDE 7.5.5: the first illegal move gives the claimant a minute, not the offender.
            (
                Ruleset::Fide,
                [
                    claimed(),
                    vec![penalty(Side::Black), ended(GameResult::Draw, "arena")],
                ]
                .concat(),
                None,
            ),
            (
                Ruleset::Fide,
                [
                    claimed(),
                    vec![penalty(Side::White), ended(GameResult::Draw, "arena")],
                ]
                .concat(),
                Some("FIDE A4.2, 7.5.5: the penalty went to the offender"),
            ),
            // FIDE 7.5.2, 5.1.1: white's pawn sent to the last rank without its piece becomes
            // a queen, and the queen mates: white wins at the claim, by the mate.
            (
                Ruleset::Fide,
                vec![
                    no_promotion(1, Side::White),
                    claim(2, Side::Black, Claimable::IllegalMove),
                    end(
                        GameResult::WhiteWins,
                        Termination::Checkmate,
                        "FIDE Laws 5.1.1",
                    ),
                ],
                None,
            ),
            // Any other illegal move that would mate is not a mate.
            (
                Ruleset::Fide,
                [
                    claimed(),
                    vec![end(
                        GameResult::WhiteWins,
                        Termination::Checkmate,
                        "FIDE Laws 5.1.1",
                    )],
                ]
                .concat(),
                Some("white won the claim of its own illegal move"),
            ),
        ];
        for (ruleset, events, expected) in cases {
            assert_check(ruleset, events, expected);
        }
    }

    #[test]
    fn a_start_failure_that_was_the_arenas_is_never_charged_to_an_engine() {
        let forfeit = |errno| {
            let detail = format!(
                "engine b: cannot start /bin/b: {}",
                std::io::Error::from_raw_os_error(errno)
            );
            let fault = Event::EngineFault {
                t_us: 0,
                side: Side::Black,
                fault: Fault::StartFailed,
                detail,
            };
            let end = end(GameResult::WhiteWins, Termination::EngineCrash, "FIDE 6.9");
            record(Ruleset::Fide, vec![fault, end])
        };
        assert_eq!(charged_a_shortage(&forfeit(libc::ENOENT)), None);
        for errno in [libc::EMFILE, libc::ENFILE, libc::EAGAIN, libc::ENOMEM] {
            let broken = charged_a_shortage(&forfeit(errno)).expect("caught");
            assert!(
                broken.starts_with("black is charged with a start failure that was the arena's"),
                "{broken}"
            );
        }
    }

    #[test]
    fn a_pgn_that_disagrees_in_its_tag_or_its_last_word_is_caught() {
        let game = record(
            Ruleset::Fide,
            vec![end(
                GameResult::WhiteWins,
                Termination::Checkmate,
                "FIDE Laws 5.1.1",
            )],
        );
        let good = Rendered::of(&game).unwrap();
        assert_eq!(ruled(&game, &good), Vec::<String>::new());
        let broken = Some("the PGN does not end in 1-0".to_string());
        let mut tag = Rendered::of(&game).unwrap();
        tag.pgn = tag.pgn.replace("[Result \"1-0\"]", "[Result \"0-1\"]");
        assert_eq!(ruled(&game, &tag).first(), broken.as_ref());
        let mut last = Rendered::of(&game).unwrap();
        let at = last.pgn.rfind("1-0").unwrap();
        last.pgn.replace_range(at..at + 3, "0-1");
        assert_eq!(ruled(&game, &last).first(), broken.as_ref());
    }

    #[test]
    fn tamper_hooks_break_exactly_what_they_name() {
        let claimed = || {
            vec![
                illegal_move(1, Side::White),
                claim(2, Side::Black, Claimable::IllegalMove),
            ]
        };
        let black_wins = end(GameResult::BlackWins, Termination::IllegalMove, "USCF 11");
        let mut game = record(
            Ruleset::Uscf,
            [claimed(), vec![black_wins.clone()]].concat(),
        );
        let untouched = game.clone();
        Tamper::PenaltyToOffender.ruling(&mut game);
        assert_eq!(game, untouched);
        Tamper::OffenderWins.ruling(&mut game);
        assert_eq!(game.outcome().unwrap().result, GameResult::WhiteWins);
        assert!(checked(&game).contains(&"white won the claim of its own illegal move".to_string()));

        let mut game = record(
            Ruleset::Fide,
            [claimed(), vec![penalty(Side::Black), black_wins]].concat(),
        );
        Tamper::OffenderWins.ruling(&mut game);
        assert_eq!(checked(&game), Vec::<String>::new());
        Tamper::PenaltyToOffender.ruling(&mut game);
        assert!(matches!(
            game.events[2],
            Event::Penalty {
                side: Side::White,
                ..
            }
        ));

        // A game without an illegal-move claim is left alone.
        let mut game = record(
            Ruleset::Fide,
            vec![end(
                GameResult::WhiteWins,
                Termination::Checkmate,
                "FIDE Laws 5.1.1",
            )],
        );
        let untouched = game.clone();
        Tamper::OffenderWins.ruling(&mut game);
        assert_eq!(game, untouched);

        // Only `PgnResult` touches the rendering, and it flips both the tag and the last word.
        let mut written = Rendered::of(&game).unwrap();
        Tamper::OffenderWins.rendering(&mut written);
        assert_eq!(written.pgn, Rendered::of(&game).unwrap().pgn);
        Tamper::PgnResult.rendering(&mut written);
        assert!(written.pgn.contains("[Result \"0-1\"]"), "{}", written.pgn);
        assert!(written.pgn.trim_end().ends_with("0-1"), "{}", written.pgn);
        let black = record(
            Ruleset::Fide,
            vec![end(
                GameResult::BlackWins,
                Termination::Checkmate,
                "FIDE Laws 5.1.1",
            )],
        );
        let mut written = Rendered::of(&black).unwrap();
        Tamper::PgnResult.rendering(&mut written);
        assert!(written.pgn.trim_end().ends_with("1-0"), "{}", written.pgn);
    }

    /// Found by a `--ponder` run with `--inject-illegal`: the game ended at the claim of a
    /// second illegal move, and the claimant's engine, pondering, was stopped before the end
    /// was written. Its `ponder-stopped` is not the ruling.
    #[test]
    fn a_ponderer_stopped_after_the_claim_that_ends_the_game_is_no_violation() {
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
            Event::PonderStopped {
                t_us: 3,
                side: Side::Black,
                line: "bestmove e7e5".into(),
            },
            end(GameResult::BlackWins, Termination::IllegalMove, "USCF 11d"),
        ];
        let broken = checked(&record(Ruleset::Uscf, events));
        assert!(
            !broken.iter().any(|b| b.contains("not ruled at its claim")),
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
                ponderhit: false,
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
