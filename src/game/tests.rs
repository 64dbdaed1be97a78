//! The real-time game loop under virtual time (`tokio::time::pause`): two scripted in-memory
//! engines answer after exact think times, so every instant in the record is exact to the
//! microsecond and no test depends on how busy the machine is.

use std::time::Duration;

use shakmaty::fen::Fen;
use shakmaty::EnPassantMode;

use super::scripted::{self, mv, Log, Step};
use super::*;
use crate::engine::{Engine, Process, Timeouts};
use crate::event::{GameResult, Termination};
use crate::rules::Ruleset;
use crate::settings::{EngineConfig, Launch};

pub(super) const MS: i64 = 1000;
const S: i64 = 1_000_000;

/// The `flag_notice_ms` mean that makes the first flag notice of game 1 under seed 1 come
/// `delay_ms` after the fall: the watchers' first exponential draw (`Game::schedule_notice`),
/// taken from the same seeded stream.
fn first_notice_after(delay_ms: f64) -> f64 {
    delay_ms / first_draw()
}

fn first_draw() -> f64 {
    let s = setup("4k3/8/8/8/8/8/8/4K3 w - - 0 1", 1000, Ruleset::Fide);
    -(1.0 - s.rng().random::<f64>()).ln()
}

/// When a notice scheduled `mean * draw` after `from_us` comes, rounded as the game rounds it.
fn notice_at(from_us: i64, mean_ms: f64) -> i64 {
    from_us + (mean_ms * first_draw() * 1000.0) as i64
}

fn opening(fen: &str) -> Opening {
    let root = crate::test_support::position(fen);
    Opening {
        name: "test".to_string(),
        root_fen: Some(Fen::from_position(&root, EnPassantMode::Legal).to_string()),
        root,
        moves: Vec::new(),
    }
}

pub(super) fn config(name: &str) -> EngineConfig {
    EngineConfig {
        name: name.to_string(),
        launch: Launch::Builtin {
            name: "script".to_string(),
            args: Vec::new(),
        },
        dir: None,
        env: Default::default(),
        options: Vec::new(),
        tc: None,
        ponder: false,
    }
}

/// Game 1 of a run with seed 1 from `fen`, `tc_ms` each, under `ruleset`.
pub(super) fn setup(fen: &str, tc_ms: u64, ruleset: Ruleset) -> GameSetup {
    let tc = TimeControl {
        base: Duration::from_millis(tc_ms),
        ..TimeControl::default()
    };
    GameSetup {
        game: 1,
        pair: 1,
        names: BySide::new("w".to_string(), "b".to_string()),
        opening: opening(fen),
        tc: BySide::both(tc),
        settings: RefereeSettings {
            ruleset,
            ..RefereeSettings::default()
        },
        watchers: Watchers::default(),
        inject: InjectConfig::default(),
        limits: SearchLimits::default(),
        time_margin: Duration::ZERO,
        seed: 1,
        tablebase: None,
        pv_checks: None,
    }
}

/// A seat for an in-process engine: a restart starts the `script` engine named `name`.
pub(super) fn seat(name: &str, engine: Engine) -> Seat {
    Seat::with_engine(config(name), Timeouts::default(), engine)
}

/// A played game, its engines' command logs, which seats it retired (by side), and helpers
/// to read its record.
pub(super) struct Game {
    pub(super) played: Played,
    pub(super) logs: BySide<Log>,
    pub(super) retired: BySide<bool>,
}

/// Plays `setup` between two scripted engines in virtual time.
async fn play_scripts(setup: &GameSetup, white: Vec<Step>, black: Vec<Step>) -> Game {
    let (w, wlog) = scripted::engine("w", white).await;
    let (b, blog) = scripted::engine("b", black).await;
    let (mut w, mut b) = (seat("w", w), seat("b", b));
    let played = play(setup, &mut w, &mut b).await;
    Game {
        played,
        logs: BySide::new(wlog, blog),
        retired: BySide::new(w.is_retired(), b.is_retired()),
    }
}

impl Game {
    pub(super) fn events(&self) -> &[Event] {
        &self.played.record.events
    }

    pub(super) fn ending(&self) -> (GameResult, Termination, String) {
        let o = self.played.record.outcome().expect("an End event");
        (o.result, o.termination, o.rule.to_string())
    }

    pub(super) fn end_clocks(&self) -> BySide<i64> {
        match self.events().last() {
            Some(Event::End {
                white_clock_us,
                black_clock_us,
                ..
            }) => BySide::new(*white_clock_us, *black_clock_us),
            other => panic!("the last event is not End: {other:?}"),
        }
    }

    fn flag(&self, side: Side) -> Option<i64> {
        self.played.record.flag_us(side)
    }

    fn times(&self, pred: impl Fn(&Event) -> bool) -> Vec<i64> {
        self.events()
            .iter()
            .filter(|e| pred(e))
            .map(Event::t_us)
            .collect()
    }

    fn notices(&self, by: Side, what: Claimable) -> Vec<i64> {
        self.times(|e| matches!(e, Event::Notice { by: b, what: w, .. } if *b == by && *w == what))
    }

    fn claims(&self, by: Side, what: Claimable) -> Vec<i64> {
        self.times(|e| matches!(e, Event::Claim { by: b, what: w, .. } if *b == by && *w == what))
    }

    /// The `go`s of `side`: (time, clock sent).
    fn gos(&self, side: Side) -> Vec<(i64, i64)> {
        self.events()
            .iter()
            .filter_map(|e| match e {
                Event::Go {
                    t_us,
                    side: s,
                    clock_us,
                    ..
                } if *s == side => Some((*t_us, *clock_us)),
                _ => None,
            })
            .collect()
    }

    fn faults(&self) -> Vec<&Event> {
        self.events()
            .iter()
            .filter(|e| matches!(e, Event::EngineFault { .. }))
            .collect()
    }

    fn detail(&self) -> String {
        self.played
            .record
            .outcome()
            .map(|o| o.detail.to_string())
            .unwrap_or_default()
    }
}

const DRAW: GameResult = GameResult::Draw;
pub(super) const WHITE: GameResult = GameResult::WhiteWins;
pub(super) const BLACK: GameResult = GameResult::BlackWins;

/// A flag noticed at once (default watchers): K+N against K+R, black (the rook) thinks 5 s on
/// 500 ms. Its flag falls exactly 500 ms after its `go`, is noticed and claimed at that
/// instant, and the clocks stop there.
#[tokio::test(start_paused = true)]
async fn a_flag_falls_the_instant_the_time_is_up_and_is_claimed_at_once() {
    for (ruleset, result, rule) in [
        (Ruleset::House, WHITE, "H3.1, H10"),
        (Ruleset::Generic, WHITE, "G§2"),
        (Ruleset::Wbca, DRAW, "WBCA 8f"),
        (Ruleset::Fide, WHITE, "FIDE A4.3"),
        (Ruleset::Uscf, DRAW, "USCF 8d"),
        (Ruleset::Online, WHITE, "online: flag"),
    ] {
        let s = setup("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 500, ruleset);
        let g = play_scripts(&s, vec![mv("g1f3", 50)], vec![mv("a8a1", 5000)]).await;
        assert_eq!(g.ending(), (result, Termination::Flag, rule.to_string()));
        assert_eq!(g.gos(Side::Black), [(50 * MS, 500 * MS)], "{ruleset:?}");
        assert_eq!(g.flag(Side::Black), Some(550 * MS), "{ruleset:?}");
        assert_eq!(g.flag(Side::White), None);
        if ruleset != Ruleset::Online {
            assert_eq!(g.notices(Side::White, Claimable::Flag), [550 * MS]);
            assert_eq!(g.claims(Side::White, Claimable::Flag), [550 * MS]);
        }
        assert_eq!(g.end_clocks(), BySide::new(450 * MS, 0), "{ruleset:?}");
        // Black was still thinking: it is stopped, answers, and is kept for the next game.
        assert_eq!(g.logs.black.starting_with("stop").len(), 1);
        assert_eq!(g.retired, BySide::new(false, false));
        if result == DRAW {
            assert!(g.detail().contains("white cannot mate"), "{}", g.detail());
        }
    }
}

/// White mates 200 ms after its own flag fell, unnoticed: its 1 s flag falls at 1 s, it mates
/// at 1.2 s, black's watcher would notice at 1.7 s.
#[tokio::test(start_paused = true)]
async fn a_mate_given_after_the_own_flag_fell_unnoticed() {
    for (ruleset, result, termination, rule) in [
        (Ruleset::House, BLACK, Termination::Flag, "H13"),
        (Ruleset::Generic, DRAW, Termination::Flag, "G§2"),
        (Ruleset::Wbca, WHITE, Termination::Checkmate, "WBCA 7a"),
        (
            Ruleset::Fide,
            WHITE,
            Termination::Checkmate,
            "FIDE Laws 5.1.1, 6.8",
        ),
        (Ruleset::Uscf, WHITE, Termination::Checkmate, "USCF 7a, 8c"),
        (
            Ruleset::Online,
            DRAW,
            Termination::Flag,
            "online: insufficient material",
        ),
    ] {
        let mut s = setup("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", 1000, ruleset);
        s.watchers.flag_notice_ms = first_notice_after(700.0);
        let g = play_scripts(&s, vec![mv("b1b8", 1200)], vec![mv("h8g8", 5000)]).await;
        assert_eq!(g.ending(), (result, termination, rule.to_string()));
        assert_eq!(g.flag(Side::White), Some(S));
        if ruleset == Ruleset::Online {
            // The server sees the flag at 1 s; white is stopped before it mates.
            assert_eq!(g.played.record.moves().count(), 0);
            continue;
        }
        let mate: Vec<_> = g.played.record.moves().map(|m| m.0).collect();
        assert_eq!(mate, [Side::White]);
        assert_eq!(g.flag(Side::Black), None);
        if ruleset == Ruleset::House {
            // H13: black, its flag up, claims as its watcher notices, 700 ms after the fall;
            // its clock ran from the mate to the claim.
            let notice = notice_at(S, s.watchers.flag_notice_ms);
            assert_eq!(g.notices(Side::Black, Claimable::Flag), [notice]);
            assert_eq!(g.claims(Side::Black, Claimable::Flag), [notice]);
            assert_eq!(
                g.end_clocks(),
                BySide::new(-200 * MS, S - (notice - 1200 * MS))
            );
        } else {
            assert!(g.notices(Side::Black, Claimable::Flag).is_empty());
            assert_eq!(g.end_clocks(), BySide::new(-200 * MS, S));
        }
    }
}

/// House: the mated side's own flag falls first. Black's clock runs from the mate (1.2 s) and
/// its flag falls at 2.2 s: while it claims (noticed at 1.7 s, a 1 s claim: H14), or before its
/// watcher notices at 2.7 s (both flags down: H8).
#[tokio::test(start_paused = true)]
async fn house_the_mated_side_loses_its_claim_when_its_own_flag_falls_first() {
    for (notice_ms, claim_ms, rule) in [(700.0, 1000, "H14"), (1700.0, 0, "H8, H25")] {
        let mut s = setup("7k/8/6K1/8/8/8/8/1Q6 w - - 0 1", 1000, Ruleset::House);
        s.watchers.flag_notice_ms = first_notice_after(notice_ms);
        s.watchers.claim_ms = claim_ms;
        let g = play_scripts(&s, vec![mv("b1b8", 1200)], vec![mv("h8g8", 5000)]).await;
        assert_eq!(g.ending(), (DRAW, Termination::BothFlags, rule.to_string()));
        let notice = notice_at(S, s.watchers.flag_notice_ms);
        assert!((notice - S - (notice_ms as i64) * MS).abs() <= 1);
        assert_eq!(g.notices(Side::Black, Claimable::Flag), [notice], "{rule}");
        assert_eq!(g.flag(Side::Black), Some(2200 * MS), "{rule}");
        let claim = notice + claim_ms as i64 * MS;
        assert_eq!(g.claims(Side::Black, Claimable::Flag), [claim], "{rule}");
    }
}

/// Both flags down before either is claimed: white flags at 500 ms and moves at 600 ms, black
/// flags at 1100 ms; black's slow watcher notices white's flag only at 500 + 1276 ms.
#[tokio::test(start_paused = true)]
async fn both_flags_down_before_a_claim() {
    for (fen, ruleset, result, termination, rule) in [
        (
            "r3k3/8/8/8/8/8/8/4K2R w - - 0 1",
            Ruleset::House,
            DRAW,
            Termination::BothFlags,
            "H8, H25",
        ),
        (
            "r3k3/8/8/8/8/8/8/4K2R w - - 0 1",
            Ruleset::Generic,
            DRAW,
            Termination::BothFlags,
            "G§2",
        ),
        (
            "r3k3/8/8/8/8/8/8/4K2R w - - 0 1",
            Ruleset::Wbca,
            DRAW,
            Termination::BothFlags,
            "WBCA 8c",
        ),
        // The digital clock shows white's flag fell first; black can mate.
        (
            "r3k3/8/8/8/8/8/8/4K2R w - - 0 1",
            Ruleset::Fide,
            BLACK,
            Termination::BothFlags,
            "FIDE Laws 6.9",
        ),
        // Subject to 6.9: a bare king cannot mate, so white's earlier flag draws.
        (
            "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
            Ruleset::Fide,
            DRAW,
            Termination::BothFlags,
            "FIDE A4.3",
        ),
        (
            "r3k3/8/8/8/8/8/8/4K2R w - - 0 1",
            Ruleset::Uscf,
            DRAW,
            Termination::BothFlags,
            "USCF 8c",
        ),
        (
            "r3k3/8/8/8/8/8/8/4K2R w - - 0 1",
            Ruleset::Online,
            BLACK,
            Termination::Flag,
            "online: flag",
        ),
    ] {
        let mut s = setup(fen, 500, ruleset);
        s.watchers.flag_notice_ms = 500.0;
        let g = play_scripts(&s, vec![mv("e1d2", 600)], vec![mv("e8d7", 5000)]).await;
        assert_eq!(g.ending(), (result, termination, rule.to_string()));
        assert_eq!(g.flag(Side::White), Some(500 * MS));
        if ruleset == Ruleset::Online {
            continue;
        }
        assert_eq!(g.gos(Side::Black), [(600 * MS, 500 * MS)]);
        assert_eq!(g.flag(Side::Black), Some(1100 * MS));
        if ruleset == Ruleset::Wbca {
            // WBCA 8c: drawn as the second flag falls, before any watcher notices.
            assert!(g.notices(Side::Black, Claimable::Flag).is_empty());
            continue;
        }
        let notice = notice_at(500 * MS, 500.0);
        assert_eq!(g.notices(Side::Black, Claimable::Flag), [notice]);
        assert_eq!(g.claims(Side::Black, Claimable::Flag), [notice]);
        // White's watcher (1128 ms after 1100 ms) has not noticed yet.
        assert!(g.notices(Side::White, Claimable::Flag).is_empty());
        assert_eq!(g.end_clocks(), BySide::new(-100 * MS, 1100 * MS - notice));
    }
}

/// The claimant's own flag falls before its claim completes: on 1 s clocks white flags at 1 s
/// and moves at 1.1 s; black notices white's flag at 1.6 s while thinking, its claim takes
/// 1 s, and its own flag falls at 2.1 s.
#[tokio::test(start_paused = true)]
async fn the_claimants_own_flag_falls_during_its_claim() {
    for (ruleset, result, rule) in [
        (Ruleset::House, DRAW, "H11"),
        (Ruleset::Generic, DRAW, "G§2"),
        (Ruleset::Wbca, DRAW, "WBCA 8c"),
        (Ruleset::Fide, BLACK, "FIDE Laws 6.9"),
        (Ruleset::Uscf, DRAW, "USCF 7c, 8c"),
    ] {
        let mut s = setup("r3k3/8/8/8/8/8/8/4K2R w - - 0 1", 1000, ruleset);
        s.watchers.flag_notice_ms = first_notice_after(600.0);
        s.watchers.claim_ms = 1000;
        let g = play_scripts(&s, vec![mv("e1d2", 1100)], vec![mv("e8d7", 5000)]).await;
        assert_eq!(
            g.ending(),
            (result, Termination::BothFlags, rule.to_string())
        );
        assert_eq!(g.flag(Side::White), Some(S));
        let notice = notice_at(S, s.watchers.flag_notice_ms);
        assert_eq!(g.notices(Side::Black, Claimable::Flag), [notice]);
        assert_eq!(g.flag(Side::Black), Some(2100 * MS));
        assert_eq!(g.claims(Side::Black, Claimable::Flag), [notice + S]);
        // Black's clock ran on during its claim, and stopped when it completed.
        assert_eq!(
            g.end_clocks(),
            BySide::new(-100 * MS, 2100 * MS - (notice + S)),
            "{ruleset:?}"
        );
        if ruleset != Ruleset::Fide {
            assert!(
                g.detail()
                    .contains("black flag fell at 2.100 s, before its claim completed"),
                "{}",
                g.detail()
            );
        }
    }
}

/// A flag claim in progress is not cancelled by an illegal move noticed meanwhile: black starts
/// claiming white's flag at 500 ms (a 500 ms claim); white, on its negative clock, plays an
/// illegal move at 550 ms, which black notices too. The flag claim completes at 1 s and decides.
#[tokio::test(start_paused = true)]
async fn a_flag_claim_in_progress_completes_when_an_illegal_move_is_noticed_meanwhile() {
    for (ruleset, rule) in [
        (Ruleset::House, "H3.1, H10"),
        (Ruleset::Fide, "FIDE A4.3"),
        (Ruleset::Uscf, "USCF 7c"),
    ] {
        let mut s = setup("3rk3/8/8/8/8/8/8/4K2R w - - 0 1", 500, ruleset);
        s.watchers.claim_ms = 500;
        let g = play_scripts(
            &s,
            vec![mv("e1d2", 550), mv("e1f1", 1000)],
            vec![mv("e8e7", 20)],
        )
        .await;
        assert_eq!(g.ending(), (BLACK, Termination::Flag, rule.to_string()));
        assert_eq!(g.notices(Side::Black, Claimable::Flag), [500 * MS]);
        assert_eq!(g.notices(Side::Black, Claimable::IllegalMove), [550 * MS]);
        assert_eq!(g.times(|e| matches!(e, Event::Claim { .. })), [S]);
        assert!(g.times(|e| matches!(e, Event::Penalty { .. })).is_empty());
        // Black's clock ran from white's illegal move to the claim.
        assert_eq!(g.end_clocks(), BySide::new(-50 * MS, 50 * MS));
    }
}

/// FIDE 7.5.5: a first illegal move gives black a minute and white moves again from the position
/// before it; black replies with its extra minute; white then flags on its own time.
#[tokio::test(start_paused = true)]
async fn fide_a_first_illegal_move_costs_a_minute_and_the_game_goes_on() {
    let s = setup("3rk3/8/8/8/8/8/8/4K2R w - - 0 1", 500, Ruleset::Fide);
    let g = play_scripts(
        &s,
        vec![mv("e1d2", 20), mv("e1f2", 20), mv("f2g3", 5000)],
        vec![mv("e8e7", 20)],
    )
    .await;
    assert_eq!(
        g.ending(),
        (BLACK, Termination::Flag, "FIDE A4.3".to_string())
    );
    let penalties: Vec<_> = g
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::Penalty {
                t_us, side, add_us, ..
            } => Some((*t_us, *side, *add_us)),
            _ => None,
        })
        .collect();
    assert_eq!(penalties, [(20 * MS, Side::Black, 60 * S)]);
    // White moves again at once, its clock going on from where it stopped.
    assert_eq!(
        g.gos(Side::White),
        [(0, 500 * MS), (20 * MS, 480 * MS), (60 * MS, 460 * MS)]
    );
    assert_eq!(g.gos(Side::Black), [(40 * MS, 60_500 * MS)]);
    assert_eq!(g.flag(Side::White), Some(520 * MS));
    assert_eq!(g.end_clocks(), BySide::new(0, 60_480 * MS));
    // Black was told the position before the illegal move, plus white's legal move.
    let positions = g.logs.black.starting_with("position");
    assert!(positions[0].ends_with("moves e1f2"), "{positions:?}");
}

/// A `bestmove` read at the very instant the flag falls: the flag rules (it was due first), at
/// that instant, and the engine is neither taken for a hung engine nor replaced.
#[tokio::test(start_paused = true)]
async fn a_reply_at_the_instant_of_the_flag_loses_on_time_and_is_no_fault() {
    let s = setup("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 500, Ruleset::House);
    let g = play_scripts(&s, vec![mv("g1f3", 500)], vec![]).await;
    assert_eq!(
        g.ending(),
        (BLACK, Termination::Flag, "H3.1, H10".to_string())
    );
    assert_eq!(g.flag(Side::White), Some(500 * MS));
    assert!(g.faults().is_empty(), "{:?}", g.faults());
    assert_eq!(g.played.record.moves().count(), 0);
    assert_eq!(g.retired, BySide::new(false, false));
    assert_eq!(g.played.record.outcome().unwrap().t_us, 500 * MS);
}

/// An engine that hangs past its flag and ignores `stop`: the flag rules, the engine gets the
/// stop timeout (1 s) to answer, and is then recorded as stalled and marked for a restart.
#[tokio::test(start_paused = true)]
async fn a_hung_engine_is_stalled_one_second_after_stop() {
    let s = setup("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 500, Ruleset::Fide);
    let g = play_scripts(&s, vec![mv("g1f3", 100)], vec![Step::Hang]).await;
    let (result, termination, _) = g.ending();
    assert_eq!((result, termination), (WHITE, Termination::EngineStall));
    assert_eq!(g.flag(Side::Black), Some(600 * MS));
    assert_eq!(g.faults().len(), 1);
    assert_eq!(g.faults()[0].t_us(), 1600 * MS);
    assert_eq!(g.retired, BySide::new(false, true));
    // The clocks stop when the claim decided the game, not when the stall was given up on.
    assert_eq!(g.end_clocks(), BySide::new(400 * MS, 0));
}

/// An engine that ignores `stop` but answers within the stop timeout is not hung.
#[tokio::test(start_paused = true)]
async fn an_engine_that_answers_late_after_stop_is_kept() {
    let s = setup("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 500, Ruleset::Fide);
    let g = play_scripts(
        &s,
        vec![mv("g1f3", 100)],
        vec![Step::IgnoreStop("a8a1", Duration::from_millis(1400))],
    )
    .await;
    assert_eq!(
        g.ending(),
        (WHITE, Termination::Flag, "FIDE A4.3".to_string())
    );
    assert!(g.faults().is_empty());
    assert_eq!(g.retired, BySide::new(false, false));
    assert_eq!(g.played.record.outcome().unwrap().t_us, 1500 * MS);
}

/// An engine that exits while thinking loses by `engine-crash` at the instant its output
/// closed, and is marked for a restart.
#[tokio::test(start_paused = true)]
async fn an_engine_that_crashes_while_thinking_loses_at_the_crash() {
    let s = setup("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 500, Ruleset::Fide);
    let g = play_scripts(
        &s,
        vec![mv("g1f3", 100)],
        vec![Step::Crash(Duration::from_millis(250))],
    )
    .await;
    let (result, termination, _) = g.ending();
    assert_eq!((result, termination), (WHITE, Termination::EngineCrash));
    assert_eq!(g.faults().len(), 1);
    assert_eq!(g.faults()[0].t_us(), 350 * MS);
    assert_eq!(g.retired, BySide::new(false, true));
    assert_eq!(g.end_clocks(), BySide::new(400 * MS, 250 * MS));
}

/// Think times, clocks and increments are exact: each move's think time is the time from its
/// `go` to its `bestmove`, and the increment is added after the move.
#[tokio::test(start_paused = true)]
async fn clocks_charge_exactly_the_think_time_and_add_the_increment() {
    let mut s = setup("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 1000, Ruleset::Fide);
    for tc in &mut s.tc {
        tc.increment = Duration::from_millis(100);
    }
    s.settings.max_moves = Some(2);
    let g = play_scripts(
        &s,
        vec![mv("g1f3", 300), mv("f3g1", 250)],
        vec![mv("a8a7", 120), mv("a7a8", 7)],
    )
    .await;
    let moves: Vec<_> = g
        .played
        .record
        .moves()
        .map(|(side, uci, think, clock)| (side, uci.to_string(), think, clock))
        .collect();
    assert_eq!(
        moves,
        [
            (Side::White, "g1f3".to_string(), 300 * MS, 800 * MS),
            (Side::Black, "a8a7".to_string(), 120 * MS, 980 * MS),
            (Side::White, "f3g1".to_string(), 250 * MS, 650 * MS),
            (Side::Black, "a7a8".to_string(), 7 * MS, 1073 * MS),
        ]
    );
    assert_eq!(
        g.gos(Side::Black),
        [(300 * MS, 1000 * MS), (670 * MS, 980 * MS)]
    );
    let go = &g.logs.black.starting_with("go")[1];
    assert_eq!(go, "go wtime 650 btime 980 winc 100 binc 100");
}

/// A stray `bestmove` (issue 8.2): white sends its move twice, the second 10 ms after the
/// first, before its next `go`. The second is no answer to that `go`: the record says it was
/// discarded, at the instant it was read; the referee ignores it, the PGN shows it as a
/// comment, and white's next move is the one it thinks 100 ms for.
#[tokio::test(start_paused = true)]
async fn a_stray_bestmove_is_discarded_and_recorded() {
    let mut s = setup("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 1000, Ruleset::Fide);
    s.settings.max_moves = Some(2);
    let g = play_scripts(
        &s,
        vec![
            Step::Twice(
                "g1f3",
                Duration::from_millis(100),
                Duration::from_millis(10),
            ),
            mv("f3g1", 100),
        ],
        vec![mv("a8a7", 50), mv("a7a8", 50)],
    )
    .await;
    assert_eq!(
        g.ending(),
        (
            DRAW,
            Termination::MaxMoves,
            "arena: --max-moves".to_string()
        )
    );
    let discarded: Vec<_> = g
        .events()
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e, Event::Discarded { .. }))
        .collect();
    assert_eq!(discarded.len(), 1, "{:?}", g.events());
    let (index, event) = discarded[0];
    assert_eq!(
        *event,
        Event::Discarded {
            t_us: 110 * MS,
            side: Side::White,
            line: "bestmove g1f3".to_string()
        }
    );
    // In time order: after black's go at 100 ms, before black's move at 150 ms.
    assert!(
        matches!(g.events()[index - 1], Event::Go { t_us, side: Side::Black, .. } if t_us == 100 * MS)
    );
    let moves: Vec<_> = g
        .played
        .record
        .moves()
        .map(|(side, uci, think, _)| (side, uci.to_string(), think))
        .collect();
    assert_eq!(
        moves,
        [
            (Side::White, "g1f3".to_string(), 100 * MS),
            (Side::Black, "a8a7".to_string(), 50 * MS),
            (Side::White, "f3g1".to_string(), 100 * MS),
            (Side::Black, "a7a8".to_string(), 50 * MS),
        ]
    );
    assert_eq!(g.played.record.illegal_moves(), 0);
    let pgn = crate::report::game_pgn(&g.played.record);
    let words = pgn.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words.contains(
            "{white's stray \"bestmove g1f3\" at 0.11s discarded: read before the go it would \
             answer} 1... Ra7"
        ),
        "{pgn}"
    );
}

/// An engine that died while idle between games, and cannot be restarted: its side forfeits
/// with 0 moves, and the detail says it died and that the restart failed (issue 8.5).
#[tokio::test(start_paused = true)]
async fn an_engine_dead_between_games_forfeits_only_when_its_restart_fails() {
    let s = setup("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", 1000, Ruleset::Fide);
    let (w, _) = scripted::engine("w", vec![mv("g1f3", 10)]).await;
    let (process, peer) = Process::in_memory();
    let responder = tokio::spawn(async move {
        let mut peer = peer;
        // A handshake, then death while idle.
        while let Some(line) = peer.commands.recv().await {
            match line.as_str() {
                "uci" => peer.say("uciok").await,
                "isready" => {
                    peer.say("readyok").await;
                    return peer.exit().await;
                }
                _ => {}
            }
        }
    });
    let b = Engine::connect("b", process, Timeouts::default(), &[])
        .await
        .expect("handshake");
    responder.await.unwrap();
    let mut unstartable = config("b");
    unstartable.launch = Launch::Program {
        cmd: "/nonexistent/engine".into(),
        args: Vec::new(),
    };
    let (mut w, mut b) = (
        seat("w", w),
        Seat::with_engine(unstartable, Timeouts::default(), b),
    );
    let played = play(&s, &mut w, &mut b).await;
    let o = played.record.outcome().unwrap();
    assert_eq!((o.result, o.termination), (WHITE, Termination::EngineCrash));
    assert_eq!(played.record.moves().count(), 0);
    assert!(o.detail.contains("engine b: exited"), "{}", o.detail);
    assert!(
        o.detail
            .contains("restart failed: engine b: cannot start /nonexistent/engine"),
        "{}",
        o.detail
    );
    assert_eq!([w.is_retired(), b.is_retired()], [false, true]);
}

/// A 1.5 s move on a 1 s clock against a 2 s claim (the timeline `blitz-arena adjudicate`'s
/// end-to-end test records): white's flag falls at 1 s and black starts claiming; white moves
/// at 1.5 s, black's clock runs, its own flag falls at 2.5 s, before the claim completes at
/// 3 s. FIDE: the first flag to fall loses (6.9). The record, re-ruled: online, the flag ends
/// the game at once; USCF, the claim is void, a draw (7c, 8c).
#[tokio::test(start_paused = true)]
async fn a_slow_move_against_a_long_claim_rerules_under_online_and_uscf() {
    let mut s = setup("r3k3/8/8/8/8/8/8/4K2R w - - 0 1", 1000, Ruleset::Fide);
    s.watchers.claim_ms = 2000;
    let g = play_scripts(&s, vec![mv("e1d2", 1500)], vec![mv("e8d7", 5000)]).await;
    assert_eq!(
        g.ending(),
        (BLACK, Termination::BothFlags, "FIDE Laws 6.9".to_string())
    );
    assert_eq!(g.flag(Side::White), Some(S));
    assert_eq!(g.flag(Side::Black), Some(2500 * MS));
    assert_eq!(g.claims(Side::Black, Claimable::Flag), [3 * S]);
    let rerule = |ruleset: Ruleset| {
        let mut settings = s.settings.clone();
        settings.ruleset = ruleset;
        let mut referee =
            Referee::after_opening(settings, s.opening.root.clone(), &s.opening.moves).unwrap();
        for event in g.events() {
            if let Verdict::End(ending) = referee.apply(event) {
                return (ending.result, ending.termination, ending.rule);
            }
        }
        panic!("no ending under {ruleset:?}");
    };
    assert_eq!(
        rerule(Ruleset::Online),
        (BLACK, Termination::Flag, "online: flag".to_string())
    );
    assert_eq!(
        rerule(Ruleset::Uscf),
        (DRAW, Termination::BothFlags, "USCF 7c, 8c".to_string())
    );
}

/// `--inject-flag-mode both` gives both flags under every ruleset that has watchers (issue
/// 8.7), `generic` included, whenever the game reaches the planned move: here the plan of a
/// seed whose move comes within the scripts' moves.
#[tokio::test(start_paused = true)]
async fn injected_both_flags_fall_under_every_ruleset_with_watchers() {
    let mut inject = InjectConfig {
        flag: 1.0,
        flag_mode: FlagMode::Both,
        ..InjectConfig::default()
    };
    inject.gap_ms = crate::settings::MsRange {
        low: 1500,
        high: 1500,
    };
    let seed = (1..)
        .find(|&seed| {
            matches!(
                GameInjector::new(&inject, seed, 1).flag_plan(),
                Some(FlagPlan::Both { at_move: 1..=2, .. })
            )
        })
        .unwrap();
    for (ruleset, rule) in [
        (Ruleset::House, "H8, H25"),
        (Ruleset::Generic, "G§2"),
        (Ruleset::Wbca, "WBCA 8c"),
        (Ruleset::Fide, "FIDE Laws 6.9"),
        (Ruleset::Uscf, "USCF 8c"),
    ] {
        let mut s = setup("r3k3/8/8/8/8/8/8/4K2R w - - 0 1", 1000, ruleset);
        s.inject = inject.clone();
        s.seed = seed;
        let white = ["e1d1", "d1e1", "e1d1", "d1e1"].map(|m| mv(m, 10));
        let black = ["e8d8", "d8e8", "e8d8", "d8e8"].map(|m| mv(m, 10));
        let g = play_scripts(&s, white.to_vec(), black.to_vec()).await;
        let (_, termination, cited) = g.ending();
        assert_eq!(
            (termination, cited.as_str()),
            (Termination::BothFlags, rule),
            "{ruleset:?}: {:?}",
            g.events()
        );
        let (first, second) = match (g.flag(Side::White), g.flag(Side::Black)) {
            (Some(w), Some(b)) => (w.min(b), w.max(b)),
            flags => panic!("{ruleset:?}: flags {flags:?}"),
        };
        assert_eq!(second - first, 1500 * MS, "{ruleset:?}: the gap");
    }
}

/// After a capture or a pawn move no earlier position can recur (FIDE 9.2.3): once the
/// `position` command carries `REBASE_AFTER` moves, the next such move makes it start again
/// from a FEN, so it does not grow with the game.
#[tokio::test(start_paused = true)]
async fn a_long_position_command_starts_again_from_a_fen_after_an_irreversible_move() {
    let mut s = setup("k7/8/8/8/3P4/8/8/K7 w - - 0 1", 5000, Ruleset::Fide);
    // 32 book moves: the kings walk (no position recurs), white along ranks 1-3, black 8-6.
    let white = [
        "a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "h2", "g2", "f2", "e2", "d2", "c2", "b2",
        "a2", "a3",
    ];
    let black = [
        "a8", "b8", "c8", "d8", "e8", "f8", "g8", "h8", "h7", "g7", "f7", "e7", "d7", "c7", "b7",
        "a7", "a6",
    ];
    for k in 0..16 {
        s.opening
            .moves
            .push(format!("{}{}", white[k], white[k + 1]));
        s.opening
            .moves
            .push(format!("{}{}", black[k], black[k + 1]));
    }
    assert_eq!(s.opening.moves.len(), REBASE_AFTER);
    let g = play_scripts(
        &s,
        vec![mv("d4d5", 20), mv("a3b3", 20)],
        vec![mv("a6b6", 20), mv("b6c6", 5000)],
    )
    .await;
    let black = g.logs.black.starting_with("position");
    assert_eq!(
        black[..2],
        [
            "position fen 8/8/k7/3P4/8/K7/8/8 b - - 0 17".to_string(),
            "position fen 8/8/k7/3P4/8/K7/8/8 b - - 0 17 moves a6b6 a3b3".to_string(),
        ],
    );
    // Before it, the whole game from the opening.
    let white = g.logs.white.starting_with("position");
    assert!(white[0].ends_with(" moves a1b1 a8b8 b1c1 b8c8 c1d1 c8d8 d1e1 d8e8 e1f1 e8f8 f1g1 f8g8 g1h1 g8h8 h1h2 h8h7 h2g2 h7g7 g2f2 g7f7 f2e2 f7e7 e2d2 e7d7 d2c2 d7c7 c2b2 c7b7 b2a2 b7a7 a2a3 a7a6"), "{white:?}");
}

#[test]
fn numbers_in_go_commands_are_written_as_format_writes_them() {
    for n in [
        0,
        1,
        9,
        10,
        999,
        60_000,
        u128::from(u64::MAX),
        u128::from(u64::MAX) + 1,
        u128::MAX,
    ] {
        let mut text = String::new();
        push_number(&mut text, n);
        assert_eq!(text, format!("{n}"));
    }
}
