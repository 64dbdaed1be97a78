//! The referee's accessors, which the real-time loop (`game.rs`) reads between events, and
//! rulings that the tables of `tests.rs` leave open. Found by `cargo mutants`
//! (docs/contributing.md): each test here fails with a mutant of `referee.rs` that the tables
//! let live.

use crate::rules::test_position::position;
use shakmaty::Chess;

use super::illegal::IllegalKind;
use super::{Adjudication, Referee, RefereeSettings, Ruleset, Verdict};
use crate::event::{Event, Score, SearchInfo, Side, Termination};

fn referee(ruleset: Ruleset, fen: &str) -> Referee {
    let settings = RefereeSettings {
        ruleset,
        ..RefereeSettings::default()
    };
    Referee::new(settings, position(fen), Vec::new())
}

fn mv(side: Side, uci: &str) -> Event {
    Event::Move {
        t_us: 0,
        side,
        uci: uci.to_string(),
        think_us: 0,
        clock_us: 0,
        info: SearchInfo::default(),
    }
}

#[test]
fn the_referee_reports_its_settings() {
    let settings = RefereeSettings {
        ruleset: Ruleset::Uscf,
        max_moves: Some(7),
        claim_ms: 250,
        ..RefereeSettings::default()
    };
    let referee = Referee::new(settings.clone(), Chess::default(), Vec::new());
    assert_eq!(referee.ruleset(), Ruleset::Uscf);
    assert_eq!(referee.settings(), &settings);
}

#[test]
fn the_last_move_is_the_one_on_the_board() {
    let mut referee = referee(
        Ruleset::Fide,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    assert_eq!(referee.last_move(), None);
    assert_eq!(referee.apply(&mv(Side::White, "e2e4")), Verdict::Continue);
    assert_eq!(referee.last_move().as_deref(), Some("e2e4"));
    // WBCA 17: a pawn sent to the last rank without its piece becomes a queen; the engines
    // must be told the move the rules played.
    let mut referee = referee_wbca_promotion();
    let verdict = referee.apply(&Event::IllegalMove {
        t_us: 0,
        side: Side::White,
        uci: "a7a8".to_string(),
        think_us: 0,
        clock_us: 0,
        reason: String::new(),
        kind: Some(IllegalKind::NoPromotion),
    });
    assert_eq!(verdict, Verdict::Continue);
    assert_eq!(referee.last_move().as_deref(), Some("a7a8q"));
}

fn referee_wbca_promotion() -> Referee {
    referee(Ruleset::Wbca, "4k3/P6p/8/8/8/8/8/4K3 w - - 0 1")
}

#[test]
fn only_an_ending_verdict_has_an_ending() {
    assert_eq!(Verdict::Continue.ending(), None);
    assert_eq!(Verdict::FlagDown { side: Side::White }.ending(), None);
}

#[test]
fn a_standing_illegal_move_makes_no_illegal_position_by_itself() {
    // 1.e2e5?? (a pawn moving three squares) stands unnoticed: black may still claim it, but
    // the position on the board is one chess allows, so engines need not be warned of it.
    let mut referee = referee(
        Ruleset::Fide,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    let verdict = referee.apply(&Event::IllegalMove {
        t_us: 1,
        side: Side::White,
        uci: "e2e5".to_string(),
        think_us: 0,
        clock_us: 0,
        reason: String::new(),
        kind: Some(IllegalKind::BadPieceMove),
    });
    assert_eq!(
        verdict,
        Verdict::IllegalCompleted {
            offender: Side::White
        }
    );
    referee.apply(&Event::Unnoticed {
        t_us: 2,
        by: Side::Black,
    });
    assert!(referee.can_claim_standing_illegal(Side::Black));
    assert!(!referee.position_is_illegal());
    assert!(!referee.flag_fell(Side::White));
    referee.apply(&Event::FlagFall {
        t_us: 3,
        side: Side::White,
    });
    assert!(referee.flag_fell(Side::White) && !referee.flag_fell(Side::Black));
}

/// Plays `ucis` from `referee`'s position, white first, and returns the ply at which the game
/// ended (1-based) and its termination, if it ended.
fn play_until_end(referee: &mut Referee, ucis: &str) -> Option<(usize, Termination, String)> {
    let mut side = Side::White;
    for (i, uci) in ucis.split_whitespace().enumerate() {
        if let Some(ending) = referee.apply(&mv(side, uci)).ending() {
            return Some((i + 1, ending.termination, ending.rule.clone()));
        }
        side = side.other();
    }
    None
}

/// Qe8+ Kh7 Qe4+ Kh8, repeated, after one quiet move each (Kh1 and ...Ra3).
const PERPETUAL_AFTER_QUIET: &str = "7k/6p1/7p/8/8/8/r7/4Q1K1 w - - 0 1";
const QUIET_THEN_CHECKS: &str = "g1h1 a2a3 e1e8 h8h7 e8e4 h7h8 e4e8 h8h7 e8e4 h7h8 e4e8 \
     h8h7 e8e4 h7h8 e4e8 h8h7 e8e4 h7h8 e4e8";

#[test]
fn wbca_draws_a_fourfold_repetition_only_by_perpetual_check() {
    // WBCA 8d. The start position's fourth occurrence comes by knight moves, no check: the
    // game goes on to the fifth, which ends it (FIDE 9.6.1, in force under every ruleset).
    let mut wbca = referee(
        Ruleset::Wbca,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    );
    let shuffle = "g1f3 g8f6 f3g1 f6g8 ".repeat(4);
    let (ply, termination, _) = play_until_end(&mut wbca, &shuffle).expect("an ending");
    assert_eq!((ply, termination), (16, Termination::Fivefold));

    // Every white move since the position after Qe8+ first occurred gave check, though white's
    // first move of the game (Kh1) did not: the fourth occurrence (ply 15) is a draw.
    let mut wbca = referee(Ruleset::Wbca, PERPETUAL_AFTER_QUIET);
    let (ply, termination, rule) = play_until_end(&mut wbca, QUIET_THEN_CHECKS).expect("an ending");
    assert_eq!(
        (ply, termination, rule.as_str()),
        (15, Termination::Threefold, "WBCA 8d")
    );
}

fn with_draw_adjudication(spec: &str) -> Referee {
    let settings = RefereeSettings {
        ruleset: Ruleset::Fide,
        adjudication: Adjudication {
            draw: Some(spec.parse().unwrap()),
            resign: None,
        },
        ..RefereeSettings::default()
    };
    Referee::new(
        settings,
        position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"),
        Vec::new(),
    )
}

/// A move reported with a level score (0 cp).
fn level(side: Side, uci: &str) -> Event {
    let mut event = mv(side, uci);
    if let Event::Move { info, .. } = &mut event {
        info.score = Some(Score::Cp(0));
    }
    event
}

/// The ply (1-based) at which draw adjudication ends a game of level scores.
fn adjudicated_at(referee: &mut Referee) -> usize {
    let line = "g1f3 g8f6 b1c3 b8c6 e2e3 e7e6 d2d3 d7d6 c1d2 c8d7";
    let mut side = Side::White;
    for (i, uci) in line.split_whitespace().enumerate() {
        if referee.apply(&level(side, uci)).ending().is_some() {
            return i + 1;
        }
        side = side.other();
    }
    panic!("not adjudicated in {line}");
}

#[test]
fn draw_adjudication_counts_full_moves_and_both_sides_scores() {
    // cutechess: not before full move `movenumber` (3: ply 6), and `movecount` moves of
    // both engines, 2 plies each.
    assert_eq!(
        adjudicated_at(&mut with_draw_adjudication(
            "movenumber=3,movecount=1,score=10"
        )),
        6
    );
    assert_eq!(
        adjudicated_at(&mut with_draw_adjudication(
            "movenumber=0,movecount=3,score=10"
        )),
        6
    );
}

/// `--flag-always-loses` (fastchess's ruling): a flag falls against a bare king, and the game
/// is lost on time all the same; without it `online` draws it (lichess's material rule).
#[test]
fn a_flag_always_loses_when_asked_whatever_the_material() {
    let fen = "4k3/8/8/8/8/8/8/Q3K3 w - - 0 1";
    let rule = |flag_always_loses: bool| {
        let settings = RefereeSettings {
            ruleset: Ruleset::Online,
            flag_always_loses,
            ..RefereeSettings::default()
        };
        let mut referee = Referee::new(settings, position(fen), Vec::new());
        match referee.apply(&Event::FlagFall {
            t_us: 1,
            side: Side::White,
        }) {
            Verdict::End(ending) => (ending.result, ending.termination),
            other => panic!("{other:?}"),
        }
    };
    use crate::event::GameResult;
    assert_eq!(rule(true), (GameResult::BlackWins, Termination::Flag));
    assert_eq!(rule(false), (GameResult::Draw, Termination::Flag));
}

#[test]
fn the_repetition_key_kept_move_by_move_is_the_positions_own() {
    // The key after a move is updated from the one before it where shakmaty can; it must
    // be the key of the position itself, through captures, promotions, castling and en
    // passant. Seeded random games, each move checked against the key computed afresh.
    use shakmaty::{EnPassantMode, Position};
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    let (mut plies, mut incremental) = (0, 0);
    for _ in 0..200 {
        let mut referee = referee(
            Ruleset::Fide,
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        );
        for _ in 0..300 {
            let pos: Chess = referee.position().clone();
            let moves = pos.legal_moves();
            let m = moves[next(moves.len())];
            let side = Side::from(pos.turn());
            incremental += usize::from(
                pos.update_zobrist_hash::<shakmaty::zobrist::Zobrist64>(
                    pos.zobrist_hash(EnPassantMode::Legal),
                    m,
                    EnPassantMode::Legal,
                )
                .is_some(),
            );
            let text = super::uci_text(&pos, m);
            let verdict = referee.apply(&mv(side, &text));
            plies += 1;
            let key = referee.position().zobrist_hash(EnPassantMode::Legal);
            assert_eq!(referee.history().last(), Some(&key), "after {text}");
            if !matches!(verdict, Verdict::Continue) {
                break;
            }
        }
    }
    // Most moves take the incremental path, and many do not.
    assert!(
        incremental > plies / 2 && incremental < plies,
        "{incremental} of {plies}"
    );
}

/// The key of the position after a move, from the key before it and what the move changes
/// (`key_moved`, `key_rights`), is the key `zobrist_hash` makes of the whole position: after
/// every legal move of every position of random games, castling, en passant and promotions
/// among them, in standard chess and in Chess960.
#[test]
fn the_key_after_a_move_is_the_key_of_the_position_after_it() {
    use super::referee::{key_moved, key_rights};
    use shakmaty::fen::Fen;
    use shakmaty::zobrist::Zobrist64;
    use shakmaty::{CastlingMode, EnPassantMode, Position};
    let key = |p: &Chess| p.zobrist_hash::<Zobrist64>(EnPassantMode::Legal);
    let starts = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            CastlingMode::Standard,
        ),
        (
            "r3k2r/1pp2ppp/8/pP1pP3/8/8/P1PP1PPP/R3K2R w KQkq a6 0 9",
            CastlingMode::Standard,
        ),
        (
            "4k3/1P4P1/8/2pP4/8/8/1p4p1/R3K2R w KQ c6 0 1",
            CastlingMode::Standard,
        ),
        (
            "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1",
            CastlingMode::Chess960,
        ),
        (
            "1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
            CastlingMode::Chess960,
        ),
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 33) as usize % n
    };
    let mut compared = 0;
    for (fen, mode) in starts {
        for _game in 0..20 {
            let mut pos: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
            for _ply in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &m in &moves {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    if let Some(moved) = key_moved(&pos, key(&pos), m) {
                        assert_eq!(moved ^ key_rights(&after), key(&after), "{fen} {m:?}");
                        compared += 1;
                    } else {
                        assert!(m.is_castle(), "{m:?}");
                    }
                }
                pos.play_unchecked(moves[next(moves.len())]);
            }
        }
    }
    assert!(compared > 100_000, "{compared}");
}
