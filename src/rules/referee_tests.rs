//! The referee's accessors, which the real-time loop (`game.rs`) reads between events, and
//! rulings that the tables of `tests.rs` leave open. Found by `cargo mutants` (README,
//! "Development"): each test here fails with a mutant of `referee.rs` that the tables let live.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess};

use super::illegal::IllegalKind;
use super::{Referee, RefereeSettings, Ruleset, Verdict};
use crate::event::{Event, SearchInfo, Side};

fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .unwrap()
        .into_position(CastlingMode::Standard)
        .unwrap()
}

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
    assert_eq!(referee.last_move(), Some("e2e4"));
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
    assert_eq!(referee.last_move(), Some("a7a8q"));
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
