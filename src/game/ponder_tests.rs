//! Pondering under virtual time: the exact clock arithmetic of a ponderhit and of a miss, a
//! flag and a mate while an engine ponders, and a ponderer that hangs or dies.

use std::time::Duration;

use super::scripted::{self, mv, Step};
use super::tests::{seat, setup, Game, BLACK, MS, WHITE};
use super::*;
use crate::event::Termination;
use crate::rules::Ruleset;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Plays `setup` in virtual time: white's engine may ponder, black's may not.
async fn play_pondering(setup: &GameSetup, white: Vec<Step>, black: Vec<Step>) -> Game {
    let (w, wlog) = scripted::pondering_engine("w", white).await;
    let (b, blog) = scripted::engine("b", black).await;
    let (mut w, mut b) = (seat("w", w), seat("b", b));
    let played = play(setup, &mut w, &mut b).await;
    Game {
        played,
        logs: BySide::new(wlog, blog),
        retired: BySide::new(w.is_retired(), b.is_retired()),
    }
}

/// What white's engine was asked and did, in order, times in µs.
fn white_trace(g: &Game) -> Vec<String> {
    g.events()
        .iter()
        .filter_map(|e| match e {
            Event::Go {
                t_us,
                side: Side::White,
                clock_us,
                ponderhit,
            } => Some(match ponderhit {
                true => format!("ponderhit {t_us} {clock_us}"),
                false => format!("go {t_us} {clock_us}"),
            }),
            Event::Ponder {
                t_us,
                side: Side::White,
                ponder,
            } => Some(format!("ponder {t_us} {ponder}")),
            Event::Move {
                t_us,
                side: Side::White,
                uci,
                think_us,
                clock_us,
                ..
            } => Some(format!("move {t_us} {uci} {think_us} {clock_us}")),
            Event::PonderStopped {
                t_us,
                side: Side::White,
                line,
            } => Some(format!("stopped {t_us} {line}")),
            Event::Discarded {
                t_us,
                side: Side::White,
                line,
            } => Some(format!("discarded {t_us} {line}")),
            _ => None,
        })
        .collect()
}

fn tc_1s() -> GameSetup {
    setup(START, 1000, Ruleset::Fide)
}

/// A hit: white ponders on e7e5 from its move (100 ms) until black plays it (300 ms), on
/// black's time; its clock starts at the ponderhit and it is charged only the 30 ms after.
#[tokio::test(start_paused = true)]
async fn a_ponderhit_starts_the_clock_at_the_hit_and_the_ponder_time_is_free() {
    let g = play_pondering(
        &tc_1s(),
        vec![mv("e2e4 ponder e7e5", 100), mv("g1f3", 30)],
        vec![mv("e7e5", 200), mv("b8c6", 5000)],
    )
    .await;
    assert_eq!(
        white_trace(&g),
        [
            format!("go 0 {}", 1000 * MS),
            format!("move {} e2e4 {} {}", 100 * MS, 100 * MS, 900 * MS),
            format!("ponder {} e7e5", 100 * MS),
            format!("ponderhit {} {}", 300 * MS, 900 * MS),
            format!("move {} g1f3 {} {}", 330 * MS, 30 * MS, 870 * MS),
        ]
    );
    // Black's flag falls 800 ms after its go at 330 ms.
    assert_eq!(g.ending().1, Termination::Flag);
    assert_eq!(g.ending().0, WHITE);
    assert_eq!(g.end_clocks(), BySide::new(870 * MS, 0));
    let log = &g.logs.white;
    assert_eq!(
        log.starting_with("go ponder"),
        ["go ponder wtime 900 btime 1000 winc 0 binc 0"]
    );
    assert!(log
        .starting_with("position")
        .contains(&format!("position fen {START} moves e2e4 e7e5")));
    assert_eq!(log.starting_with("ponderhit").len(), 1);
    assert!(log.starting_with("stop").is_empty());
    assert_eq!(g.retired, BySide::new(false, false));
}

/// A miss: black plays d7d5, not e7e5. White is stopped at black's move, its answer is
/// discarded, and it is sent the new position and a plain go; its clock starts at that go.
#[tokio::test(start_paused = true)]
async fn a_miss_stops_the_ponder_search_and_the_clock_starts_at_the_new_go() {
    let g = play_pondering(
        &tc_1s(),
        vec![mv("e2e4 ponder e7e5", 100), mv("g1f3", 30), mv("b1c3", 40)],
        vec![mv("d7d5", 200), mv("b8c6", 5000)],
    )
    .await;
    assert_eq!(
        white_trace(&g),
        [
            format!("go 0 {}", 1000 * MS),
            format!("move {} e2e4 {} {}", 100 * MS, 100 * MS, 900 * MS),
            format!("ponder {} e7e5", 100 * MS),
            format!("stopped {} bestmove g1f3", 300 * MS),
            format!("go {} {}", 300 * MS, 900 * MS),
            format!("move {} b1c3 {} {}", 340 * MS, 40 * MS, 860 * MS),
        ]
    );
    assert_eq!((g.ending().0, g.ending().1), (WHITE, Termination::Flag));
    assert_eq!(g.end_clocks(), BySide::new(860 * MS, 0));
    let log = &g.logs.white;
    assert_eq!(log.starting_with("stop").len(), 1);
    assert!(log.starting_with("ponderhit").is_empty());
    assert!(log
        .starting_with("position")
        .contains(&format!("position fen {START} moves e2e4 d7d5")));
    assert_eq!(g.retired, BySide::new(false, false));
}

/// Black's flag falls while white ponders: the flag decides, white's clock never ran after
/// its move, and white is stopped at the end (its answer discarded).
#[tokio::test(start_paused = true)]
async fn a_flag_falling_while_the_opponent_ponders_ends_the_game_and_stops_the_ponderer() {
    let g = play_pondering(
        &tc_1s(),
        vec![mv("e2e4 ponder e7e5", 100), mv("g1f3", 30)],
        vec![mv("e7e5", 5000)],
    )
    .await;
    assert_eq!((g.ending().0, g.ending().1), (WHITE, Termination::Flag));
    assert_eq!(g.played.record.flag_us(Side::Black), Some(1100 * MS));
    assert_eq!(g.end_clocks(), BySide::new(900 * MS, 0));
    assert_eq!(
        white_trace(&g),
        [
            format!("go 0 {}", 1000 * MS),
            format!("move {} e2e4 {} {}", 100 * MS, 100 * MS, 900 * MS),
            format!("ponder {} e7e5", 100 * MS),
            format!("stopped {} bestmove g1f3", 1100 * MS),
        ]
    );
    assert_eq!(g.logs.white.starting_with("stop").len(), 1);
    assert_eq!(g.retired, BySide::new(false, false));
}

/// A hit, then a mate while white ponders on the mating move: the game ends at the mate,
/// white is stopped, and the clocks are those of the mate.
#[tokio::test(start_paused = true)]
async fn a_mate_while_the_opponent_ponders_ends_the_game_and_stops_the_ponderer() {
    let g = play_pondering(
        &tc_1s(),
        vec![
            mv("f2f3 ponder e7e5", 100),
            mv("g2g4 ponder d8h4", 50),
            mv("a2a3", 10),
        ],
        vec![mv("e7e5", 200), mv("d8h4", 100)],
    )
    .await;
    assert_eq!(
        (g.ending().0, g.ending().1),
        (BLACK, Termination::Checkmate)
    );
    assert_eq!(
        white_trace(&g),
        [
            format!("go 0 {}", 1000 * MS),
            format!("move {} f2f3 {} {}", 100 * MS, 100 * MS, 900 * MS),
            format!("ponder {} e7e5", 100 * MS),
            format!("ponderhit {} {}", 300 * MS, 900 * MS),
            format!("move {} g2g4 {} {}", 350 * MS, 50 * MS, 850 * MS),
            format!("ponder {} d8h4", 350 * MS),
            format!("stopped {} bestmove a2a3", 450 * MS),
        ]
    );
    assert_eq!(g.end_clocks(), BySide::new(850 * MS, 700 * MS));
    assert_eq!(g.retired, BySide::new(false, false));
}

/// A ponderer that does not answer `stop` on a miss has hung: a stall, ruled as any stall
/// (it loses, engine-stall), and it is restarted. No clock ran while the arena waited.
#[tokio::test(start_paused = true)]
async fn a_ponderer_that_ignores_stop_on_a_miss_is_a_stalled_engine() {
    let g = play_pondering(
        &tc_1s(),
        vec![mv("e2e4 ponder e7e5", 100), Step::Hang],
        vec![mv("d7d5", 200)],
    )
    .await;
    assert_eq!(
        (g.ending().0, g.ending().1),
        (BLACK, Termination::EngineStall)
    );
    let stall = g
        .events()
        .iter()
        .find(|e| matches!(e, Event::EngineFault { .. }))
        .expect("a fault");
    assert_eq!(stall.t_us(), 1300 * MS, "{stall:?}");
    assert_eq!(g.end_clocks(), BySide::new(900 * MS, 800 * MS));
    assert_eq!(g.retired, BySide::new(true, false));
}

/// A ponderer that dies while pondering is found dead at its ponderhit and loses by
/// engine-crash, as an engine that died while it was not its turn always has.
#[tokio::test(start_paused = true)]
async fn a_ponderer_that_dies_while_pondering_loses_by_crash_at_its_turn() {
    let g = play_pondering(
        &tc_1s(),
        vec![
            mv("e2e4 ponder e7e5", 100),
            Step::Crash(Duration::from_millis(50)),
        ],
        vec![mv("e7e5", 200)],
    )
    .await;
    assert_eq!(
        (g.ending().0, g.ending().1),
        (BLACK, Termination::EngineCrash)
    );
    assert_eq!(g.retired, BySide::new(true, false));
    assert!(!g.events().iter().any(|e| matches!(
        e,
        Event::Go {
            ponderhit: true,
            ..
        }
    )));
}

/// An engine that names a ponder move but was not told it may ponder (no `ponder = true`) is
/// never sent `go ponder`.
#[tokio::test(start_paused = true)]
async fn an_engine_not_told_to_ponder_never_ponders() {
    let (w, wlog) = scripted::engine("w", vec![mv("e2e4 ponder e7e5", 100)]).await;
    let (b, _) = scripted::engine("b", vec![mv("e7e5", 5000)]).await;
    let (mut w, mut b) = (seat("w", w), seat("b", b));
    let played = play(&tc_1s(), &mut w, &mut b).await;
    assert!(wlog.starting_with("go ponder").is_empty());
    assert!(!played
        .record
        .events
        .iter()
        .any(|e| matches!(e, Event::Ponder { .. })));
}

/// An illegal move while white ponders: white's watcher notices it and claims (FIDE 7.5.5:
/// a minute added to white's clock, black moves again) while white ponders on; black's
/// retaken move is the one pondered on, on the same board, so it is a ponderhit.
#[tokio::test(start_paused = true)]
async fn an_illegal_move_while_the_opponent_ponders_is_claimed_and_the_retaken_move_can_hit() {
    let g = play_pondering(
        &tc_1s(),
        vec![mv("e2e4 ponder e7e5", 100), mv("g1f3", 30)],
        vec![mv("e7e4", 200), mv("e7e5", 100), mv("b8c6", 5000)],
    )
    .await;
    let minute = 60_000 * MS;
    assert_eq!(
        white_trace(&g),
        [
            format!("go 0 {}", 1000 * MS),
            format!("move {} e2e4 {} {}", 100 * MS, 100 * MS, 900 * MS),
            format!("ponder {} e7e5", 100 * MS),
            format!("ponderhit {} {}", 400 * MS, 900 * MS + minute),
            format!("move {} g1f3 {} {}", 430 * MS, 30 * MS, 870 * MS + minute),
        ]
    );
    assert!(g.events().iter().any(|e| matches!(
        e,
        Event::IllegalMove {
            side: Side::Black,
            ..
        }
    )));
    // Black's flag: 1000 - 200 - 100 ms left at its go at 430 ms.
    assert_eq!((g.ending().0, g.ending().1), (WHITE, Termination::Flag));
    assert_eq!(g.played.record.flag_us(Side::Black), Some(1130 * MS));
    assert_eq!(g.logs.white.starting_with("ponderhit").len(), 1);
}

/// An engine that answers while pondering (against UCI) has its `bestmove` discarded, and
/// at its turn, a hit or not, it is idle: it gets a plain `go`, as in cutechess, and its clock
/// starts there.
#[tokio::test(start_paused = true)]
async fn a_bestmove_sent_while_pondering_is_discarded_and_a_plain_go_follows() {
    let g = play_pondering(
        &tc_1s(),
        vec![
            mv("e2e4 ponder e7e5", 100),
            Step::Early("d2d4", Duration::from_millis(50)),
            mv("g1f3", 30),
        ],
        vec![mv("e7e5", 200), mv("b8c6", 5000)],
    )
    .await;
    assert_eq!(
        white_trace(&g),
        [
            format!("go 0 {}", 1000 * MS),
            format!("move {} e2e4 {} {}", 100 * MS, 100 * MS, 900 * MS),
            format!("ponder {} e7e5", 100 * MS),
            format!("discarded {} bestmove d2d4", 150 * MS),
            format!("go {} {}", 300 * MS, 900 * MS),
            format!("move {} g1f3 {} {}", 330 * MS, 30 * MS, 870 * MS),
        ]
    );
    assert!(g.logs.white.starting_with("ponderhit").is_empty());
    assert!(g.logs.white.starting_with("stop").is_empty());
    assert_eq!((g.ending().0, g.ending().1), (WHITE, Termination::Flag));
}
