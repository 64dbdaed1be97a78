//! The referee, table-driven: every cell of the ruling matrix (docs/rulesets.md) for every
//! ruleset.
//!
//! A case is a start position (FEN), a recorded event list with exact µs times, as the
//! real-time loop (`game.rs`) writes it, and for each of the six rulesets the rulings the
//! referee must give: every verdict that is not `Continue`, in order, up to and including the
//! end of the game (result, termination and the cited rule), and optionally the position and
//! the ply count when the events run out. After the end the referee must repeat its ending.
//!
//! Where a ruleset makes the loop record other events (WBCA and USCF never call a promotion
//! without its piece illegal, so no watcher notices it), that ruleset's row has its own list.
//! Events after the end are kept in the shared lists: they are what the other rulesets go on
//! to see (a FIDE penalty and the retaken move), and the referee must ignore them.

use crate::rules::test_position::position;
use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode};

use super::illegal::{IllegalKind, MoveCheck};
use super::{
    Adjudication, DrawAdjudication, Referee, RefereeSettings, ResignAdjudication, Ruleset, Verdict,
};
use crate::event::Side::{Black as B, White as W};
use crate::event::{Claimable, Event, Fault, GameResult, Score, SearchInfo, Side, Termination};
use GameResult::{BlackWins, Draw, WhiteWins};
use Ruleset::{Fide, Generic, House, Online, Uscf, Wbca};
use Termination::{
    BothFlags, Checkmate, DeadPosition, EngineCrash, EngineStall, FiftyMoves, Fivefold, Flag,
    IllegalMove, InsufficientMaterial, MaxMoves, SeventyFiveMoves, Stalemate, Threefold,
};

// ---------------------------------------------------------------------------------------------
// Positions

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// After 1.e4, black to move.
const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
/// White K+R against a bare king.
const KR_K_BLACK_TO_MOVE: &str = "7k/8/8/8/8/8/R7/K7 b - - 0 1";
const KR_K_WHITE_TO_MOVE: &str = "7k/8/8/8/8/8/R7/K7 w - - 0 1";
/// White K+N against K+R (README's example of mating material), black to move.
const KN_KR: &str = "8/8/8/4k3/8/8/2N4r/K7 b - - 0 1";
/// White mates with Ra8.
const MATE_IN_ONE: &str = "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1";
/// White stalemates with Qf7.
const STALEMATE_IN_ONE: &str = "7k/8/6Q1/8/8/8/8/K7 w - - 0 1";
/// White's a-pawn reaches the last rank with a7a8; black keeps a pawn.
const PROMOTION: &str = "4k3/P6p/8/8/8/8/8/4K3 w - - 0 1";
const QUEENED: &str = "Q3k3/7p/8/8/8/8/8/4K3 b - - 0 1";

// ---------------------------------------------------------------------------------------------
// Events, as the real-time loop records them (times in µs since the start)

/// Seconds in µs.
const fn s(x: i64) -> i64 {
    x * 1_000_000
}

/// Milliseconds in µs.
const fn ms(x: i64) -> i64 {
    x * 1_000
}

const FLAG: Claimable = Claimable::Flag;
const ILLEGAL: Claimable = Claimable::IllegalMove;
const KING: Claimable = Claimable::KingCapture;

/// The side's clock starts (its `go`); the referee does not read the clock value.
fn go(t_us: i64, side: Side) -> Event {
    Event::Go {
        t_us,
        side,
        clock_us: 0,
        ponderhit: false,
    }
}

/// A legal move read at `t_us`.
fn mv(t_us: i64, side: Side, uci: &str) -> Event {
    Event::Move {
        t_us,
        side,
        uci: uci.to_string(),
        think_us: 0,
        clock_us: 0,
        info: SearchInfo::default(),
    }
}

/// A legal move with the engine's score (for adjudication); at time 0.
fn scored(side: Side, uci: &str, cp: i32) -> Event {
    Event::Move {
        t_us: 0,
        side,
        uci: uci.to_string(),
        think_us: 0,
        clock_us: 0,
        info: SearchInfo {
            score: Some(Score::Cp(cp)),
            ..SearchInfo::default()
        },
    }
}

/// A completed illegal move; `kind` is what the classifier says (checked when it is applied).
fn illegal(t_us: i64, side: Side, uci: &str, kind: IllegalKind) -> Event {
    Event::IllegalMove {
        t_us,
        side,
        uci: uci.to_string(),
        think_us: 0,
        clock_us: 0,
        reason: String::new(),
        kind: Some(kind),
    }
}

fn flag(t_us: i64, side: Side) -> Event {
    Event::FlagFall { t_us, side }
}

fn notice(t_us: i64, by: Side, what: Claimable) -> Event {
    Event::Notice { t_us, by, what }
}

fn claim(t_us: i64, by: Side, what: Claimable) -> Event {
    Event::Claim { t_us, by, what }
}

fn unnoticed(t_us: i64, by: Side) -> Event {
    Event::Unnoticed { t_us, by }
}

/// The Penalty event the loop records after a Penalty verdict.
fn penalty(t_us: i64, side: Side, add_us: i64) -> Event {
    Event::Penalty {
        t_us,
        side,
        add_us,
        rule: String::new(),
    }
}

fn fault(t_us: i64, side: Side, fault: Fault) -> Event {
    Event::EngineFault {
        t_us,
        side,
        fault,
        detail: "test".to_string(),
    }
}

/// Legal moves, alternating sides from `first`, one a second from `t0`.
fn moves(t0: i64, first: Side, ucis: &str) -> Vec<Event> {
    let mut side = first;
    ucis.split_whitespace()
        .enumerate()
        .map(|(i, uci)| {
            let e = mv(t0 + s(i as i64), side, uci);
            side = side.other();
            e
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Rulings

/// A verdict that is not `Continue`, in a form the tables can spell out.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Ruling {
    FlagDown(Side),
    Illegal(Side),
    Penalty(Side, i64, &'static str, bool),
    End(GameResult, Termination, &'static str),
}
use Ruling::{End, FlagDown, Illegal, Penalty};

fn ruling(v: &Verdict) -> Option<Ruling> {
    Some(match v {
        Verdict::Continue => return None,
        Verdict::FlagDown { side } => FlagDown(*side),
        Verdict::IllegalCompleted { offender } => Illegal(*offender),
        Verdict::Penalty {
            side,
            add_us,
            rule,
            retake,
        } => Penalty(*side, *add_us, rule, *retake),
        // Leaked: a test process compares a few hundred short strings.
        Verdict::End(e) => End(
            e.result,
            e.termination,
            Box::leak(e.rule.clone().into_boxed_str()),
        ),
    })
}

/// What a ruleset must make of the events.
#[derive(Clone, Debug)]
struct Expect {
    rulings: Vec<Ruling>,
    /// The position once the events have run out (only for a game still on).
    fen: Option<&'static str>,
    /// Plies of the game when the events have run out or the game ended.
    plies: Option<u32>,
}

fn expect(rulings: impl IntoIterator<Item = Ruling>) -> Expect {
    Expect {
        rulings: rulings.into_iter().collect(),
        fen: None,
        plies: None,
    }
}

impl Expect {
    fn at(mut self, fen: &'static str) -> Expect {
        self.fen = Some(fen);
        self
    }

    fn plies(mut self, plies: u32) -> Expect {
        self.plies = Some(plies);
        self
    }
}

fn fen_of(referee: &Referee) -> String {
    Fen::from_position(referee.position(), EnPassantMode::Legal).to_string()
}

fn referee(ruleset: Ruleset, fen: &str, settings: &RefereeSettings) -> Referee {
    Referee::new(
        RefereeSettings {
            ruleset,
            ..settings.clone()
        },
        position(fen),
        Vec::new(),
    )
}

/// Feeds `events` to `referee`: the rulings up to the end, and checks that the events are
/// ones the loop can record (a Move is legal, an IllegalMove carries the classifier's kind)
/// and that the referee repeats its ending after the end.
fn feed(referee: &mut Referee, events: &[Event], what: &str) -> Vec<Ruling> {
    let mut rulings = Vec::new();
    let mut ended: Option<Verdict> = None;
    for (i, event) in events.iter().enumerate() {
        if ended.is_none() {
            match event {
                Event::Move { uci, .. } => assert!(
                    matches!(referee.check_move(uci), MoveCheck::Legal(_)),
                    "{what}: event {i}: {uci} is not legal in {}",
                    fen_of(referee)
                ),
                Event::IllegalMove { uci, kind, .. } => {
                    let classified = match referee.check_move(uci) {
                        MoveCheck::Illegal(illegal) => Some(illegal.kind),
                        MoveCheck::Unplayable { .. } => None,
                        MoveCheck::Legal(_) => panic!("{what}: event {i}: {uci} is legal"),
                    };
                    assert_eq!(
                        *kind,
                        classified,
                        "{what}: event {i}: {uci} in {}",
                        fen_of(referee)
                    );
                }
                _ => {}
            }
        }
        let verdict = referee.apply(event);
        match &ended {
            Some(end) => assert_eq!(&verdict, end, "{what}: event {i} after the end"),
            None => {
                rulings.extend(ruling(&verdict));
                if matches!(verdict, Verdict::End(_)) {
                    ended = Some(verdict);
                }
            }
        }
    }
    rulings
}

fn check(
    what: &str,
    ruleset: Ruleset,
    fen: &str,
    settings: &RefereeSettings,
    events: &[Event],
    expected: &Expect,
) {
    let what = format!("{what} [{ruleset}]");
    let mut r = referee(ruleset, fen, settings);
    let rulings = feed(&mut r, events, &what);
    assert_eq!(rulings, expected.rulings, "{what}");
    if let Some(fen) = expected.fen {
        assert_eq!(fen_of(&r), fen, "{what}: the position");
    }
    if let Some(plies) = expected.plies {
        assert_eq!(r.plies(), plies, "{what}: plies");
    }
}

/// One situation under all six rulesets, in `Ruleset::ALL` order, each with its events.
fn table(
    situation: &str,
    fen: &str,
    settings: RefereeSettings,
    rows: [(Ruleset, &[Event], Expect); 6],
) {
    let order: Vec<Ruleset> = rows.iter().map(|row| row.0).collect();
    assert_eq!(
        order,
        Ruleset::ALL,
        "{situation}: one row per ruleset, in order"
    );
    for (ruleset, events, expected) in &rows {
        check(situation, *ruleset, fen, &settings, events, expected);
    }
}

fn defaults() -> RefereeSettings {
    RefereeSettings::default()
}

fn claim_ms(ms: u64) -> RefereeSettings {
    RefereeSettings {
        claim_ms: ms,
        ..RefereeSettings::default()
    }
}

fn no_draw_claims() -> RefereeSettings {
    RefereeSettings {
        claim_draws: false,
        ..RefereeSettings::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Flag falls, noticed and claimed while the claimant's flag is up

#[test]
fn flag_claimed_with_mating_material() {
    // Black (a bare king) thinks; its flag falls at 10 s; white's watcher notices it 2 s later
    // and its claim takes 500 ms on black's running clock.
    let ev = [
        go(0, B),
        flag(s(10), B),
        notice(s(12), W, FLAG),
        claim(ms(12_500), W, FLAG),
    ];
    table(
        "flag claimed with mating material",
        KR_K_BLACK_TO_MOVE,
        claim_ms(500),
        [
            (
                House,
                &ev,
                expect([FlagDown(B), End(WhiteWins, Flag, "H3.1, H10")]),
            ),
            (
                Generic,
                &ev,
                expect([FlagDown(B), End(WhiteWins, Flag, "G§2")]),
            ),
            (
                Wbca,
                &ev,
                expect([FlagDown(B), End(WhiteWins, Flag, "WBCA 7c")]),
            ),
            (
                Fide,
                &ev,
                expect([FlagDown(B), End(WhiteWins, Flag, "FIDE A4.3")]),
            ),
            (
                Uscf,
                &ev,
                expect([FlagDown(B), End(WhiteWins, Flag, "USCF 7c")]),
            ),
            // Noticed at once whatever the watcher: the flag fall itself ends the game.
            (Online, &ev, expect([End(WhiteWins, Flag, "online: flag")])),
        ],
    );
}

#[test]
fn flag_claimed_by_a_bare_king() {
    let ev = [
        go(0, W),
        flag(s(10), W),
        notice(s(10), B, FLAG),
        claim(s(10), B, FLAG),
    ];
    table(
        "flag claimed without mating material",
        KR_K_WHITE_TO_MOVE,
        defaults(),
        [
            // H3: a flag loses whatever the material.
            (
                House,
                &ev,
                expect([FlagDown(W), End(BlackWins, Flag, "H3.1, H10")]),
            ),
            (Generic, &ev, expect([FlagDown(W), End(Draw, Flag, "G§2")])),
            (Wbca, &ev, expect([FlagDown(W), End(Draw, Flag, "WBCA 8f")])),
            (
                Fide,
                &ev,
                expect([FlagDown(W), End(Draw, Flag, "FIDE A4.3")]),
            ),
            (Uscf, &ev, expect([FlagDown(W), End(Draw, Flag, "USCF 8d")])),
            (
                Online,
                &ev,
                expect([End(Draw, Flag, "online: insufficient material")]),
            ),
        ],
    );
}

#[test]
fn flag_of_the_rook_side_claimed_by_a_lone_knight() {
    // README's example: K+N v K+R, the rook side flags. A lone knight is not mating material
    // for WBCA 7c.1 and USCF 7c; a helpmate exists (FIDE 6.9, G§2); lichess: the rook can
    // block, so the knight can win.
    let ev = [
        go(0, B),
        flag(s(10), B),
        notice(s(10), W, FLAG),
        claim(s(10), W, FLAG),
    ];
    table(
        "K+N v K+R, the rook side flags",
        KN_KR,
        defaults(),
        [
            (
                House,
                &ev,
                expect([FlagDown(B), End(WhiteWins, Flag, "H3.1, H10")]),
            ),
            (
                Generic,
                &ev,
                expect([FlagDown(B), End(WhiteWins, Flag, "G§2")]),
            ),
            (Wbca, &ev, expect([FlagDown(B), End(Draw, Flag, "WBCA 8f")])),
            (
                Fide,
                &ev,
                expect([FlagDown(B), End(WhiteWins, Flag, "FIDE A4.3")]),
            ),
            (Uscf, &ev, expect([FlagDown(B), End(Draw, Flag, "USCF 8d")])),
            (Online, &ev, expect([End(WhiteWins, Flag, "online: flag")])),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Two flags

#[test]
fn claimants_own_flag_falls_before_its_claim_completes() {
    // White's flag falls at 1 s; white moves on. Black's watcher notices at 1.5 s, while
    // black's clock runs; black's flag falls at 1.7 s, 300 ms before its claim completes.
    // (White's watcher notices it too, but a claim is already in progress.)
    let ev = [
        go(0, W),
        flag(s(1), W),
        mv(ms(1_200), W, "e2e4"),
        go(ms(1_200), B),
        notice(ms(1_500), B, FLAG),
        flag(ms(1_700), B),
        notice(ms(1_700), W, FLAG),
        claim(s(2), B, FLAG),
    ];
    table(
        "claimant's own flag falls before its claim completes",
        START,
        claim_ms(500),
        [
            (
                House,
                &ev,
                expect([FlagDown(W), FlagDown(B), End(Draw, BothFlags, "H11")]),
            ),
            (
                Generic,
                &ev,
                expect([FlagDown(W), FlagDown(B), End(Draw, BothFlags, "G§2")]),
            ),
            (
                Wbca,
                &ev,
                expect([FlagDown(W), FlagDown(B), End(Draw, BothFlags, "WBCA 8c")]),
            ),
            // The clock shows white's flag fell first: white loses (black can mate).
            (
                Fide,
                &ev,
                expect([
                    FlagDown(W),
                    FlagDown(B),
                    End(BlackWins, BothFlags, "FIDE Laws 6.9"),
                ]),
            ),
            // The claim is void.
            (
                Uscf,
                &ev,
                expect([
                    FlagDown(W),
                    FlagDown(B),
                    End(Draw, BothFlags, "USCF 7c, 8c"),
                ]),
            ),
            (Online, &ev, expect([End(BlackWins, Flag, "online: flag")])),
        ],
    );
}

#[test]
fn both_flags_down_before_either_is_claimed() {
    // White's flag falls at 1 s, black's at 2 s; nobody noticed. Then one watcher claims.
    let fell = [
        go(0, W),
        flag(s(1), W),
        mv(ms(1_200), W, "e2e4"),
        go(ms(1_200), B),
        flag(s(2), B),
        mv(ms(2_100), B, "e7e5"),
        go(ms(2_100), W),
    ];
    for claimant in [B, W] {
        let mut ev = fell.to_vec();
        ev.extend([notice(s(3), claimant, FLAG), claim(s(3), claimant, FLAG)]);
        let both = |end| expect([FlagDown(W), FlagDown(B), end]);
        table(
            &format!("both flags down, {} claims", claimant.name()),
            START,
            defaults(),
            [
                (House, &ev, both(End(Draw, BothFlags, "H8, H25"))),
                (Generic, &ev, both(End(Draw, BothFlags, "G§2"))),
                // WBCA 8c: drawn the moment the second flag falls unclaimed.
                (
                    Wbca,
                    &ev,
                    expect([FlagDown(W), End(Draw, BothFlags, "WBCA 8c")]),
                ),
                // The first flag to fall loses, whoever claims.
                (Fide, &ev, both(End(BlackWins, BothFlags, "FIDE Laws 6.9"))),
                (Uscf, &ev, both(End(Draw, BothFlags, "USCF 8c"))),
                (Online, &ev, expect([End(BlackWins, Flag, "online: flag")])),
            ],
        );
    }
}

#[test]
fn both_flags_down_and_the_first_to_fall_faces_a_bare_king() {
    // White (K+R) flags first; black's flag falls later. FIDE: white lost on time, but a bare
    // king cannot mate: a draw (6.9).
    let ev = [
        go(0, W),
        flag(s(1), W),
        mv(ms(1_200), W, "a2b2"),
        go(ms(1_200), B),
        flag(s(2), B),
        mv(ms(2_100), B, "h8g8"),
        go(ms(2_100), W),
        notice(s(3), B, FLAG),
        claim(s(3), B, FLAG),
    ];
    let both = |end| expect([FlagDown(W), FlagDown(B), end]);
    table(
        "both flags down, the winner on the clock is a bare king",
        KR_K_WHITE_TO_MOVE,
        defaults(),
        [
            (House, &ev, both(End(Draw, BothFlags, "H8, H25"))),
            (Generic, &ev, both(End(Draw, BothFlags, "G§2"))),
            // WBCA 8c: drawn the moment the second flag falls unclaimed.
            (
                Wbca,
                &ev,
                expect([FlagDown(W), End(Draw, BothFlags, "WBCA 8c")]),
            ),
            (Fide, &ev, both(End(Draw, BothFlags, "FIDE A4.3"))),
            (Uscf, &ev, both(End(Draw, BothFlags, "USCF 8c"))),
            (
                Online,
                &ev,
                expect([End(Draw, Flag, "online: insufficient material")]),
            ),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Mate by a side whose flag had fallen unnoticed (the `at-mate` flag injection, docs/architecture.md)

/// White's flag falls at 5 s; white mates 200 ms later.
fn mate_after_own_flag() -> Vec<Event> {
    vec![go(0, W), flag(s(5), W), mv(ms(5_200), W, "a1a8")]
}

/// How the rulesets other than house rule [`mate_after_own_flag`], whatever follows.
fn mate_after_own_flag_rows(ev: &[Event], house: Expect) -> [(Ruleset, &[Event], Expect); 6] {
    [
        (House, ev, house),
        // G§2 note: the mater's flag had already fallen: a draw.
        (Generic, ev, expect([FlagDown(W), End(Draw, Flag, "G§2")])),
        (
            Wbca,
            ev,
            expect([FlagDown(W), End(WhiteWins, Checkmate, "WBCA 7a")]),
        ),
        (
            Fide,
            ev,
            expect([
                FlagDown(W),
                End(WhiteWins, Checkmate, "FIDE Laws 5.1.1, 6.8"),
            ]),
        ),
        (
            Uscf,
            ev,
            expect([FlagDown(W), End(WhiteWins, Checkmate, "USCF 7a, 8c")]),
        ),
        // The flag ended the game before the mate; black's pawns can still mate (lichess).
        (Online, ev, expect([End(BlackWins, Flag, "online: flag")])),
    ]
}

#[test]
fn mate_given_after_the_maters_flag_fell_unnoticed() {
    // H13: the mated side notices the flag at 6 s, its own flag up, and claims the win.
    let mut ev = mate_after_own_flag();
    ev.extend([notice(s(6), B, FLAG), claim(s(6), B, FLAG)]);
    table(
        "mate 200 ms after the mater's flag fell",
        MATE_IN_ONE,
        defaults(),
        mate_after_own_flag_rows(&ev, expect([FlagDown(W), End(BlackWins, Flag, "H13")])),
    );
}

#[test]
fn mated_sides_flag_falls_while_it_claims() {
    // H14: black's clock runs while the game waits for its watcher; its flag falls at 6.3 s,
    // during its 500 ms claim.
    let mut ev = mate_after_own_flag();
    ev.extend([
        notice(s(6), B, FLAG),
        flag(ms(6_300), B),
        claim(ms(6_500), B, FLAG),
    ]);
    table(
        "mate after own flag; the mated side's flag falls while it claims",
        MATE_IN_ONE,
        claim_ms(500),
        mate_after_own_flag_rows(
            &ev,
            expect([FlagDown(W), FlagDown(B), End(Draw, BothFlags, "H14")]),
        ),
    );
}

#[test]
fn mated_sides_flag_falls_before_it_notices() {
    // H8: both flags were down before anyone claimed; whoever claims first.
    for claimant in [B, W] {
        let mut ev = mate_after_own_flag();
        ev.extend([
            flag(s(6), B),
            notice(s(7), claimant, FLAG),
            claim(s(7), claimant, FLAG),
        ]);
        table(
            &format!(
                "mate after own flag; both flags down; {} claims",
                claimant.name()
            ),
            MATE_IN_ONE,
            defaults(),
            mate_after_own_flag_rows(
                &ev,
                expect([FlagDown(W), FlagDown(B), End(Draw, BothFlags, "H8, H25")]),
            ),
        );
    }
}

#[test]
fn mate_with_both_flags_down() {
    // Black's flag falls at 1 s, white's at 2 s, nobody notices; white mates at 2.2 s. USCF 8c:
    // a mate before both flags were noticed stands.
    let ev = [
        go(0, B),
        flag(s(1), B),
        mv(ms(1_100), B, "h5f4"),
        go(ms(1_100), W),
        flag(s(2), W),
        mv(ms(2_200), W, "a1a8"),
        notice(s(3), B, FLAG),
        claim(s(3), B, FLAG),
    ];
    let down = |end| expect([FlagDown(B), FlagDown(W), end]);
    table(
        "mate with both flags down",
        "6k1/5ppp/8/7n/8/8/8/R5K1 b - - 0 1",
        defaults(),
        [
            (House, &ev, down(End(Draw, BothFlags, "H8, H25"))),
            (Generic, &ev, down(End(Draw, Flag, "G§2"))),
            // WBCA 8c: drawn when the second flag fell; the mate after it changes nothing.
            (
                Wbca,
                &ev,
                expect([FlagDown(B), End(Draw, BothFlags, "WBCA 8c")]),
            ),
            (
                Fide,
                &ev,
                down(End(WhiteWins, Checkmate, "FIDE Laws 5.1.1, 6.8")),
            ),
            (Uscf, &ev, down(End(WhiteWins, Checkmate, "USCF 7a, 8c"))),
            (Online, &ev, expect([End(WhiteWins, Flag, "online: flag")])),
        ],
    );
}

#[test]
fn house_game_waits_for_the_mated_sides_watcher() {
    let mut r = referee(House, MATE_IN_ONE, &defaults());
    let rulings = feed(&mut r, &mate_after_own_flag(), "house wait");
    assert_eq!(rulings, [FlagDown(W)]);
    assert!(r.waiting(), "no engine is asked to move");
    assert_eq!(r.ending(), None);
    // Without a fallen flag the mate ends the game at once.
    let mut r = referee(House, MATE_IN_ONE, &defaults());
    let rulings = feed(&mut r, &[go(0, W), mv(s(1), W, "a1a8")], "house mate");
    assert_eq!(rulings, [End(WhiteWins, Checkmate, "H3.2")]);
    assert!(!r.waiting());
}

// ---------------------------------------------------------------------------------------------
// Stalemate while a flag is down or claimed

#[test]
fn stalemate_while_a_flag_is_down() {
    let ev = [go(0, W), flag(s(5), W), mv(ms(5_100), W, "g6f7")];
    let down = |rule| expect([FlagDown(W), End(Draw, Stalemate, rule)]);
    table(
        "stalemate with the stalemating side's flag down",
        STALEMATE_IN_ONE,
        defaults(),
        [
            (House, &ev, down("H2 (FIDE Laws 5.2.1)")),
            (Generic, &ev, down("G§2")),
            (Wbca, &ev, down("WBCA 8a")),
            (Fide, &ev, down("FIDE Laws 5.2.1")),
            (Uscf, &ev, down("USCF 8a")),
            // The flag ends the game first; the bare king cannot win on it.
            (
                Online,
                &ev,
                expect([End(Draw, Flag, "online: insufficient material")]),
            ),
        ],
    );
}

#[test]
fn stalemate_while_a_flag_is_claimed() {
    // WBCA 8a: "even if a fallen flag is claimed simultaneously". Black's claim (300 ms) is in
    // progress when white's stalemating move is read.
    let ev = [
        go(0, W),
        flag(s(5), W),
        notice(s(5), B, FLAG),
        mv(ms(5_100), W, "g6f7"),
        claim(ms(5_300), B, FLAG),
    ];
    let down = |rule| expect([FlagDown(W), End(Draw, Stalemate, rule)]);
    table(
        "stalemate during a flag claim",
        STALEMATE_IN_ONE,
        claim_ms(300),
        [
            (House, &ev, down("H2 (FIDE Laws 5.2.1)")),
            (Generic, &ev, down("G§2")),
            (Wbca, &ev, down("WBCA 8a")),
            (Fide, &ev, down("FIDE Laws 5.2.1")),
            (Uscf, &ev, down("USCF 8a")),
            (
                Online,
                &ev,
                expect([End(Draw, Flag, "online: insufficient material")]),
            ),
        ],
    );
}

#[test]
fn stalemate() {
    let ev = [go(0, W), mv(s(1), W, "g6f7")];
    let stalemate = |rule| expect([End(Draw, Stalemate, rule)]).plies(1);
    table(
        "stalemate",
        STALEMATE_IN_ONE,
        defaults(),
        [
            (House, &ev, stalemate("H2 (FIDE Laws 5.2.1)")),
            (Generic, &ev, stalemate("G§2")),
            (Wbca, &ev, stalemate("WBCA 8a")),
            (Fide, &ev, stalemate("FIDE Laws 5.2.1")),
            (Uscf, &ev, stalemate("USCF 8a")),
            (Online, &ev, stalemate("FIDE Laws 5.2.1")),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Completed illegal moves, noticed

/// `side` plays `uci` at 1 s, its opponent notices and claims at once; FIDE gives the minute
/// and `side` plays `uci` again at 2 s, noticed and claimed again.
fn illegal_twice(side: Side, uci: &str, kind: IllegalKind) -> Vec<Event> {
    let by = side.other();
    vec![
        go(0, side),
        illegal(s(1), side, uci, kind),
        notice(s(1), by, ILLEGAL),
        claim(s(1), by, ILLEGAL),
        penalty(s(1), by, s(60)),
        go(s(1), side),
        illegal(s(2), side, uci, kind),
        notice(s(2), by, ILLEGAL),
        claim(s(2), by, ILLEGAL),
    ]
}

#[test]
fn illegal_move_noticed_claimant_can_mate() {
    let ev = illegal_twice(W, "e2e5", IllegalKind::BadPieceMove);
    let lost = |rule| expect([Illegal(W), End(BlackWins, IllegalMove, rule)]);
    table(
        "illegal move noticed, the claimant can mate",
        START,
        defaults(),
        [
            (House, &ev, lost("H3.4, H18, H19")),
            (Generic, &ev, lost("G§3")),
            (Wbca, &ev, lost("WBCA 14")),
            // 1st: taken back, the opponent gets a minute, the offender moves again; 2nd: lost.
            (
                Fide,
                &ev,
                expect([
                    Illegal(W),
                    Penalty(B, s(60), "FIDE A4.2, 7.5.5", true),
                    Illegal(W),
                    End(BlackWins, IllegalMove, "FIDE A4.2, 7.5.5"),
                ]),
            ),
            (Uscf, &ev, lost("USCF 7d")),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

#[test]
fn fide_first_illegal_move_is_taken_back() {
    // The position before the illegal move; the offender is to move again.
    let ev = &illegal_twice(W, "e2e5", IllegalKind::BadPieceMove)[..5];
    let mut r = referee(Fide, START, &defaults());
    let rulings = feed(&mut r, ev, "fide retake");
    assert_eq!(
        rulings,
        [Illegal(W), Penalty(B, s(60), "FIDE A4.2, 7.5.5", true)]
    );
    assert_eq!(fen_of(&r), START);
    assert_eq!(r.turn(), W);
    assert_eq!(r.plies(), 0);
    // Its legal move then plays on.
    assert_eq!(r.apply(&mv(s(2), W, "e2e4")), Verdict::Continue);
}

#[test]
fn illegal_move_noticed_claimant_is_a_bare_king() {
    // White (K+R) moves its rook diagonally; black has only its king.
    let ev = illegal_twice(W, "a2b3", IllegalKind::BadPieceMove);
    let drawn = |rule| expect([Illegal(W), End(Draw, IllegalMove, rule)]);
    table(
        "illegal move noticed, the claimant cannot mate",
        KR_K_WHITE_TO_MOVE,
        defaults(),
        [
            (
                House,
                &ev,
                expect([Illegal(W), End(BlackWins, IllegalMove, "H3.4, H18, H19")]),
            ),
            (Generic, &ev, drawn("G§3")),
            (Wbca, &ev, drawn("WBCA 14, 8f")),
            (
                Fide,
                &ev,
                expect([
                    Illegal(W),
                    Penalty(B, s(60), "FIDE A4.2, 7.5.5", true),
                    Illegal(W),
                    End(Draw, IllegalMove, "FIDE A4.2, 7.5.5"),
                ]),
            ),
            (Uscf, &ev, drawn("USCF 7d, 8d")),
            // The engine-testing convention: the offender loses whatever the material.
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

#[test]
fn illegal_move_of_the_rook_side_claimed_by_a_lone_knight() {
    // Black's rook moves diagonally; white has K+N.
    let ev = illegal_twice(B, "h2g1", IllegalKind::BadPieceMove);
    let won = |rule| expect([Illegal(B), End(WhiteWins, IllegalMove, rule)]);
    let drawn = |rule| expect([Illegal(B), End(Draw, IllegalMove, rule)]);
    table(
        "K+N v K+R, the rook side plays an illegal move",
        KN_KR,
        defaults(),
        [
            (House, &ev, won("H3.4, H18, H19")),
            (Generic, &ev, won("G§3")),
            (Wbca, &ev, drawn("WBCA 14, 8f")),
            (
                Fide,
                &ev,
                expect([
                    Illegal(B),
                    Penalty(W, s(60), "FIDE A4.2, 7.5.5", true),
                    Illegal(B),
                    End(WhiteWins, IllegalMove, "FIDE A4.2, 7.5.5"),
                ]),
            ),
            (Uscf, &ev, drawn("USCF 7d, 8d")),
            (
                Online,
                &ev,
                expect([End(WhiteWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

#[test]
fn text_that_is_no_move_is_noticed_whatever_the_watcher() {
    // An unplayable text cannot stand: an Unnoticed still rules it noticed.
    let ev = [
        go(0, W),
        Event::IllegalMove {
            t_us: s(1),
            side: W,
            uci: "e1e8".to_string(),
            think_us: 0,
            clock_us: 0,
            reason: String::new(),
            kind: None,
        },
        unnoticed(s(1), B),
    ];
    let lost = |rule| expect([Illegal(W), End(BlackWins, IllegalMove, rule)]);
    table(
        "unplayable text",
        START,
        defaults(),
        [
            (House, &ev, lost("H3.4, H18, H19")),
            (Generic, &ev, lost("G§3")),
            (Wbca, &ev, lost("WBCA 14")),
            (
                Fide,
                &ev,
                expect([Illegal(W), Penalty(B, s(60), "FIDE A4.2, 7.5.5", true)]).at(START),
            ),
            (Uscf, &ev, lost("USCF 7d")),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Completed illegal moves, not noticed

#[test]
fn illegal_move_not_noticed_stands() {
    let ev = [
        go(0, W),
        illegal(s(1), W, "e2e5", IllegalKind::BadPieceMove),
        unnoticed(s(1), B),
        go(s(1), B),
        mv(s(2), B, "e7e6"),
    ];
    let after = "rnbqkbnr/pppp1ppp/4p3/4P3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2";
    let stands = || expect([Illegal(W)]).at(after).plies(2);
    table(
        "illegal move not noticed",
        START,
        defaults(),
        [
            (House, &ev, stands()),
            (Generic, &ev, stands()),
            (Wbca, &ev, stands()),
            (Fide, &ev, stands()),
            (Uscf, &ev, stands()),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

/// White, in check from the rook on e8, plays Qd4+ anyway: both kings in check.
const BOTH_IN_CHECK: &str = "4r2k/p7/8/8/8/8/8/3QK3 w - - 0 1";

#[test]
fn illegal_position_persists_after_the_next_move() {
    // FIDE A4.4: the arbiter sees both kings in check and waits for the next move; black's
    // reply is itself an illegal move that stands (its king stays in check): still illegal.
    let ev = [
        go(0, W),
        illegal(s(1), W, "d1d4", IllegalKind::KingExposed),
        unnoticed(s(1), B),
        go(s(1), B),
        illegal(s(2), B, "a7a6", IllegalKind::KingExposed),
        unnoticed(s(2), W),
        go(s(2), W),
    ];
    let after = "4r2k/8/p7/8/3Q4/8/8/4K3 w - - 0 2";
    let stands = || expect([Illegal(W), Illegal(B)]).at(after);
    table(
        "illegal position persists after the next move",
        BOTH_IN_CHECK,
        defaults(),
        [
            (House, &ev, stands()),
            (Generic, &ev, stands()),
            (Wbca, &ev, stands()),
            (
                Fide,
                &ev,
                expect([Illegal(W), Illegal(B), End(Draw, IllegalMove, "FIDE A4.4")]),
            ),
            (Uscf, &ev, stands()),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

#[test]
fn illegal_position_cured_by_the_next_move() {
    // The same, but black answers the check with a legal move: the position is legal again
    // (white to move in check), the game goes on and the illegal move can no longer be claimed.
    let ev = [
        go(0, W),
        illegal(s(1), W, "d1d4", IllegalKind::KingExposed),
        unnoticed(s(1), B),
        go(s(1), B),
        mv(s(2), B, "h8g8"),
        go(s(2), W),
    ];
    let after = "4r1k1/p7/8/8/3Q4/8/8/4K3 w - - 2 2";
    let stands = || expect([Illegal(W)]).at(after).plies(2);
    table(
        "illegal position cured by the next move",
        BOTH_IN_CHECK,
        defaults(),
        [
            (House, &ev, stands()),
            (Generic, &ev, stands()),
            (Wbca, &ev, stands()),
            (Fide, &ev, stands()),
            (Uscf, &ev, stands()),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
    for ruleset in Ruleset::ALL.into_iter().filter(|r| *r != Online) {
        let mut r = referee(ruleset, BOTH_IN_CHECK, &defaults());
        feed(&mut r, &ev[..3], "before the reply");
        assert!(r.position_is_illegal(), "{ruleset}");
        assert!(r.can_claim_standing_illegal(B), "{ruleset}");
        assert!(!r.can_claim_standing_illegal(W), "{ruleset}");
        feed(&mut r, &ev[3..], "after the reply");
        assert!(!r.position_is_illegal(), "{ruleset}");
        assert!(!r.can_claim_standing_illegal(B), "{ruleset}");
        // A late claim (a crash) has nothing to claim any more.
        assert_eq!(
            r.apply(&claim(s(3), B, ILLEGAL)),
            Verdict::Continue,
            "{ruleset}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Claims by capturing the king, and crashes on an illegal position

/// White's knight on e2 is pinned by the rook on e7.
const PINNED_KNIGHT: &str = "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1";
/// After the pinned knight went to c3 and stood.
const KING_EN_PRISE: &str = "4k3/4r3/8/8/8/2N5/8/4K3 b - - 1 1";

/// White exposes its king with Nc3 at 1 s; black does not notice.
fn king_left_in_check() -> Vec<Event> {
    vec![
        go(0, W),
        illegal(s(1), W, "e2c3", IllegalKind::KingExposed),
        unnoticed(s(1), B),
        go(s(1), B),
    ]
}

#[test]
fn king_capture_as_a_claim() {
    // Black's engine answers e7e1 (checked below): the loop records it as black's claim. FIDE:
    // that capture is itself illegal, so black moves again, a minute to white; a second
    // capture is black's second illegal move.
    let mut ev = king_left_in_check();
    ev.extend([
        claim(s(2), B, KING),
        penalty(s(2), W, s(60)),
        go(s(2), B),
        claim(s(3), B, KING),
    ]);
    let won = |rule| expect([Illegal(W), End(BlackWins, IllegalMove, rule)]);
    table(
        "king capture",
        PINNED_KNIGHT,
        defaults(),
        [
            (House, &ev, won("H17, H18")),
            // No rule of its own: the capture is the claim (docs/architecture.md, "Fault
            // injection").
            (Generic, &ev, won("G§3")),
            // "Neither player can play King takes King": the arena claims instead.
            (Wbca, &ev, won("WBCA 14")),
            (
                Fide,
                &ev,
                expect([
                    Illegal(W),
                    Penalty(W, s(60), "FIDE A4.2, 7.5.5", true),
                    End(WhiteWins, IllegalMove, "FIDE A4.2, 7.5.5"),
                ]),
            ),
            (Uscf, &ev, won("USCF 7d")),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
    let mut r = referee(Fide, PINNED_KNIGHT, &defaults());
    feed(&mut r, &king_left_in_check(), "king capture");
    assert_eq!(fen_of(&r), KING_EN_PRISE);
    assert!(r.is_king_capture("e7e1"));
    assert!(!r.is_king_capture("e7e2"));
    // FIDE: after the first capture the illegal position stays and black is to move again.
    assert_eq!(
        ruling(&r.apply(&claim(s(2), B, KING))),
        Some(Penalty(W, s(60), "FIDE A4.2, 7.5.5", true))
    );
    assert_eq!(fen_of(&r), KING_EN_PRISE);
    assert!(r.can_claim_standing_illegal(B));
    // Elsewhere the detail says the king was captured, not the illegal move's text.
    let mut r = referee(House, PINNED_KNIGHT, &defaults());
    feed(&mut r, &king_left_in_check(), "king capture");
    let e = r.apply(&claim(s(2), B, KING)).ending().cloned().unwrap();
    assert_eq!(e.detail, "black captured the king white left in check");
}

#[test]
fn crash_on_an_illegal_position_is_a_claim() {
    // Black's engine crashes on the position it was handed: the loop records its claim.
    // FIDE: the position before the illegal move is restored, white moves again.
    let mut ev = king_left_in_check();
    ev.extend([
        claim(s(2), B, ILLEGAL),
        penalty(s(2), B, s(60)),
        go(s(2), W),
        mv(s(3), W, "e1d1"),
    ]);
    let won = |rule| expect([Illegal(W), End(BlackWins, IllegalMove, rule)]);
    table(
        "crash on an illegal position",
        PINNED_KNIGHT,
        defaults(),
        [
            (House, &ev, won("H3.4, H18, H19")),
            (Generic, &ev, won("G§3")),
            (Wbca, &ev, won("WBCA 14")),
            (
                Fide,
                &ev,
                expect([Illegal(W), Penalty(B, s(60), "FIDE A4.2, 7.5.5", true)])
                    .at("4k3/4r3/8/8/8/8/4N3/3K4 b - - 1 1")
                    .plies(1),
            ),
            (Uscf, &ev, won("USCF 7d")),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// USCF 7d: the side that moved its king next to the other king later claims

/// White's king steps next to black's (unnoticed); black does not move its king away but its
/// rook, leaving its king in check by the white king.
fn kings_adjacent_then_rook_move() -> Vec<Event> {
    vec![
        go(0, W),
        illegal(s(1), W, "d4e4", IllegalKind::KingsAdjacent),
        unnoticed(s(1), B),
        go(s(1), B),
        illegal(s(2), B, "h1h2", IllegalKind::KingExposed),
    ]
}
const KINGS_TWO_APART: &str = "8/8/8/8/3K1k2/8/8/R6r w - - 0 1";

#[test]
fn king_moved_next_to_the_king_then_claims() {
    let mut ev = kings_adjacent_then_rook_move();
    ev.extend([notice(s(2), W, ILLEGAL), claim(s(2), W, ILLEGAL)]);
    let won = |rule| expect([Illegal(W), Illegal(B), End(WhiteWins, IllegalMove, rule)]);
    table(
        "the king-adjacent mover claims",
        KINGS_TWO_APART,
        defaults(),
        [
            (House, &ev, won("H3.4, H18, H19")),
            (Generic, &ev, won("G§3")),
            (Wbca, &ev, won("WBCA 14")),
            (
                Fide,
                &ev,
                expect([
                    Illegal(W),
                    Illegal(B),
                    Penalty(W, s(60), "FIDE A4.2, 7.5.5", true),
                ]),
            ),
            // The claimant loses.
            (
                Uscf,
                &ev,
                expect([
                    Illegal(W),
                    Illegal(B),
                    End(BlackWins, IllegalMove, "USCF 7d"),
                ]),
            ),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

#[test]
fn king_moved_next_to_the_king_then_captures_it() {
    // Black's rook move stands too; white's engine then takes the king (its claim).
    let mut ev = kings_adjacent_then_rook_move();
    ev.extend([unnoticed(s(2), W), go(s(2), W), claim(s(3), W, KING)]);
    let won = |rule| expect([Illegal(W), Illegal(B), End(WhiteWins, IllegalMove, rule)]);
    table(
        "the king-adjacent mover captures the king",
        KINGS_TWO_APART,
        defaults(),
        [
            (House, &ev, won("H17, H18")),
            (Generic, &ev, won("G§3")),
            (Wbca, &ev, won("WBCA 14")),
            // Kings next to each other are both in check: the arbiter waited for black's move,
            // after which the position is still illegal (A4.4).
            (
                Fide,
                &ev,
                expect([Illegal(W), Illegal(B), End(Draw, IllegalMove, "FIDE A4.4")]),
            ),
            (
                Uscf,
                &ev,
                expect([
                    Illegal(W),
                    Illegal(B),
                    End(BlackWins, IllegalMove, "USCF 7d"),
                ]),
            ),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

#[test]
fn kings_adjacent_claimed_by_the_other_side() {
    // USCF 7d only strikes the side that moved its king: black, noticing at once, wins.
    let ev = [
        go(0, W),
        illegal(s(1), W, "d4e4", IllegalKind::KingsAdjacent),
        notice(s(1), B, ILLEGAL),
        claim(s(1), B, ILLEGAL),
    ];
    let mut r = referee(Uscf, KINGS_TWO_APART, &defaults());
    assert_eq!(
        feed(&mut r, &ev, "kings adjacent, noticed"),
        [Illegal(W), End(BlackWins, IllegalMove, "USCF 7d")]
    );
    assert!(r.ending().unwrap().detail.contains("claimed by black"));
}

// ---------------------------------------------------------------------------------------------
// USCF 7e: a flag claim and an illegal-move claim at the same moment

/// Black's flag falls at 2 s (unnoticed); black moves; white's king steps two squares at 3 s.
fn flag_then_illegal_move() -> Vec<Event> {
    vec![
        go(0, B),
        flag(s(2), B),
        mv(ms(2_100), B, "e7e5"),
        go(ms(2_100), W),
        illegal(s(3), W, "e1e3", IllegalKind::BadPieceMove),
    ]
}

#[test]
fn flag_claim_and_illegal_move_claim_at_the_same_moment() {
    // Both watchers start their claims at 3 s; white's flag claim is the one that completes.
    let mut ev = flag_then_illegal_move();
    ev.extend([
        notice(s(3), B, ILLEGAL),
        notice(s(3), W, FLAG),
        claim(s(3), W, FLAG),
    ]);
    let on_time = |rule| expect([FlagDown(B), Illegal(W), End(WhiteWins, Flag, rule)]);
    table(
        "simultaneous claims, the flag claim completes",
        AFTER_E4,
        defaults(),
        [
            (House, &ev, on_time("H3.1, H10")),
            (Generic, &ev, on_time("G§2")),
            (Wbca, &ev, on_time("WBCA 7c")),
            (Fide, &ev, on_time("FIDE A4.3")),
            (
                Uscf,
                &ev,
                expect([
                    FlagDown(B),
                    Illegal(W),
                    End(BlackWins, IllegalMove, "USCF 7e"),
                ]),
            ),
            (Online, &ev, expect([End(WhiteWins, Flag, "online: flag")])),
        ],
    );
    // Or the illegal-move claim completes.
    let mut ev = flag_then_illegal_move();
    ev.extend([
        notice(s(3), B, ILLEGAL),
        notice(s(3), W, FLAG),
        claim(s(3), B, ILLEGAL),
    ]);
    let lost = |rule| expect([FlagDown(B), Illegal(W), End(BlackWins, IllegalMove, rule)]);
    table(
        "simultaneous claims, the illegal-move claim completes",
        AFTER_E4,
        defaults(),
        [
            // H20: black's own flag fell before white's illegal move: black loses.
            (
                House,
                &ev,
                expect([FlagDown(B), Illegal(W), End(WhiteWins, Flag, "H20")]),
            ),
            (Generic, &ev, lost("G§3")),
            (Wbca, &ev, lost("WBCA 14")),
            (
                Fide,
                &ev,
                expect([
                    FlagDown(B),
                    Illegal(W),
                    Penalty(B, s(60), "FIDE A4.2, 7.5.5", true),
                ]),
            ),
            (Uscf, &ev, lost("USCF 7e")),
            (Online, &ev, expect([End(WhiteWins, Flag, "online: flag")])),
        ],
    );
}

#[test]
fn flag_claim_after_the_illegal_move_claim() {
    // White's watcher notices black's flag 100 ms after black's claim of white's illegal move
    // started (200 ms): the illegal-move claim came first (USCF 7e, then 7d).
    let mut ev = flag_then_illegal_move();
    ev.extend([
        notice(s(3), B, ILLEGAL),
        notice(ms(3_100), W, FLAG),
        claim(ms(3_200), B, ILLEGAL),
    ]);
    let lost = |rule| expect([FlagDown(B), Illegal(W), End(BlackWins, IllegalMove, rule)]);
    table(
        "the flag claim comes after the illegal-move claim",
        AFTER_E4,
        claim_ms(200),
        [
            // H20: black's own flag fell before white's illegal move: black loses.
            (
                House,
                &ev,
                expect([FlagDown(B), Illegal(W), End(WhiteWins, Flag, "H20")]),
            ),
            (Generic, &ev, lost("G§3")),
            (Wbca, &ev, lost("WBCA 14")),
            (
                Fide,
                &ev,
                expect([
                    FlagDown(B),
                    Illegal(W),
                    Penalty(B, s(60), "FIDE A4.2, 7.5.5", true),
                ]),
            ),
            (Uscf, &ev, lost("USCF 7d")),
            (Online, &ev, expect([End(WhiteWins, Flag, "online: flag")])),
        ],
    );
}

#[test]
fn uscf_7e_simultaneous_claims_against_a_bare_king() {
    // The illegal mover loses, but a claimant that cannot mate only draws (USCF 8d).
    let ev = [
        go(0, W),
        flag(s(2), W),
        mv(ms(2_100), W, "a2a3"),
        go(ms(2_100), B),
        illegal(s(3), B, "h8h6", IllegalKind::BadPieceMove),
        notice(s(3), W, ILLEGAL),
        notice(s(3), B, FLAG),
        claim(s(3), B, FLAG),
    ];
    let mut r = referee(Uscf, KR_K_WHITE_TO_MOVE, &defaults());
    assert_eq!(
        feed(&mut r, &ev, "7e, bare king"),
        [
            FlagDown(W),
            Illegal(B),
            End(WhiteWins, IllegalMove, "USCF 7e")
        ]
    );
    let ev = [
        go(0, B),
        flag(s(2), B),
        mv(ms(2_100), B, "h8g8"),
        go(ms(2_100), W),
        illegal(s(3), W, "a2b3", IllegalKind::BadPieceMove),
        notice(s(3), B, ILLEGAL),
        notice(s(3), W, FLAG),
        claim(s(3), W, FLAG),
    ];
    let mut r = referee(Uscf, KR_K_BLACK_TO_MOVE, &defaults());
    assert_eq!(
        feed(&mut r, &ev, "7e, bare-king claimant"),
        [
            FlagDown(B),
            Illegal(W),
            End(Draw, IllegalMove, "USCF 7e, 8d")
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// A pawn on the last rank without a piece named; no move at all

#[test]
fn promotion_without_a_piece_noticed() {
    let sent = [go(0, W), illegal(s(1), W, "a7a8", IllegalKind::NoPromotion)];
    // Where it is an illegal move the opponent notices and claims (500 ms).
    let mut noticed = sent.to_vec();
    noticed.extend([notice(s(1), B, ILLEGAL), claim(ms(1_500), B, ILLEGAL)]);
    table(
        "promotion without a piece",
        PROMOTION,
        claim_ms(500),
        [
            (
                House,
                &noticed,
                expect([Illegal(W), End(BlackWins, IllegalMove, "H26, H19")]),
            ),
            (
                Generic,
                &noticed,
                expect([Illegal(W), End(BlackWins, IllegalMove, "G§3")]),
            ),
            // Not illegal: the pawn becomes a queen, play goes on.
            (Wbca, &sent, expect([]).at(QUEENED).plies(1)),
            // Illegal, but the pawn becomes a queen: the move stands, a minute to black.
            (
                Fide,
                &noticed,
                expect([
                    Illegal(W),
                    Penalty(B, s(60), "FIDE A4.2, 7.5.2, 7.5.5", false),
                ])
                .at(QUEENED)
                .plies(1),
            ),
            // Improper: a queen, and the mover's clock is charged the claim time.
            (
                Uscf,
                &sent,
                expect([Penalty(W, -ms(500), "USCF 16", false)])
                    .at(QUEENED)
                    .plies(1),
            ),
            (
                Online,
                &noticed,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

#[test]
fn promotion_without_a_piece_not_noticed() {
    let sent = [go(0, W), illegal(s(1), W, "a7a8", IllegalKind::NoPromotion)];
    let mut ev = sent.to_vec();
    ev.push(unnoticed(s(1), B));
    let stands = || expect([Illegal(W)]).at(QUEENED).plies(1);
    table(
        "promotion without a piece, not noticed",
        PROMOTION,
        claim_ms(500),
        [
            (House, &ev, stands()),
            (Generic, &ev, stands()),
            (Wbca, &sent, expect([]).at(QUEENED)),
            (Fide, &ev, stands()),
            (
                Uscf,
                &sent,
                expect([Penalty(W, -ms(500), "USCF 16", false)]).at(QUEENED),
            ),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
}

#[test]
fn promotion_without_a_piece_that_mates() {
    // WBCA 17 / USCF 16: the queen it becomes mates; the game ends there, no penalty.
    let fen = "k7/2P5/1K6/8/8/8/8/8 w - - 0 1";
    let ev = [go(0, W), illegal(s(1), W, "c7c8", IllegalKind::NoPromotion)];
    for (ruleset, rule) in [(Wbca, "WBCA 7a"), (Uscf, "USCF 7a")] {
        check(
            "no-promotion mate",
            ruleset,
            fen,
            &claim_ms(500),
            &ev,
            &expect([End(WhiteWins, Checkmate, rule)]),
        );
    }
}

#[test]
fn no_move_while_legal_moves_exist() {
    let ev = [
        go(0, W),
        illegal(s(1), W, "0000", IllegalKind::NoMove),
        notice(s(1), B, ILLEGAL),
        claim(s(1), B, ILLEGAL),
    ];
    let lost = |rule| expect([Illegal(W), End(BlackWins, IllegalMove, rule)]);
    table(
        "0000 while legal moves exist",
        START,
        defaults(),
        [
            (House, &ev, lost("H16")),
            (Generic, &ev, lost("G§3")),
            (Wbca, &ev, lost("WBCA 14")),
            (
                Fide,
                &ev,
                expect([Illegal(W), Penalty(B, s(60), "FIDE A4.2, 7.5.5", true)]).at(START),
            ),
            (Uscf, &ev, lost("USCF 7d")),
            (
                Online,
                &ev,
                expect([End(BlackWins, IllegalMove, "online: illegal move")]),
            ),
        ],
    );
    // Not noticed, it stands as a pass.
    let ev = [
        go(0, W),
        illegal(s(1), W, "0000", IllegalKind::NoMove),
        unnoticed(s(1), B),
    ];
    let mut r = referee(Generic, START, &defaults());
    assert_eq!(feed(&mut r, &ev, "0000 unnoticed"), [Illegal(W)]);
    assert_eq!(r.turn(), B);
    assert_eq!(
        fen_of(&r),
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 1 1"
    );
    // Without a legal move `0000` is no illegal move: the game was over.
    let r = referee(Fide, "7k/5Q2/8/8/8/8/8/K7 b - - 0 1", &defaults());
    assert!(matches!(r.check_move("0000"), MoveCheck::Unplayable { .. }));
}

// ---------------------------------------------------------------------------------------------
// Repetitions, 50 and 75 moves

const SHUFFLE: &str = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8";

#[test]
fn threefold_repetition() {
    // The start position occurs for the third time after 8 plies.
    let ev = moves(s(1), W, SHUFFLE);
    let claimed = |rule| expect([End(Draw, Threefold, rule)]).plies(8);
    table(
        "threefold",
        START,
        defaults(),
        [
            (House, &ev, claimed("H21")),
            (Generic, &ev, claimed("G§2")),
            // Only a fourfold repetition by perpetual check.
            (
                Wbca,
                &ev,
                expect([])
                    .at("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 8 5")
                    .plies(8),
            ),
            (Fide, &ev, claimed("FIDE Laws 9.2")),
            (Uscf, &ev, claimed("USCF 8")),
            (Online, &ev, claimed("FIDE Laws 9.2")),
        ],
    );
}

#[test]
fn threefold_without_draw_claims_and_fivefold() {
    // `claim_draws = never`: nobody claims; the fifth occurrence ends the game (FIDE 9.6.1).
    let ev = moves(s(1), W, &format!("{SHUFFLE} {SHUFFLE}"));
    let fivefold = |rule| expect([End(Draw, Fivefold, rule)]).plies(16);
    table(
        "fivefold",
        START,
        no_draw_claims(),
        [
            (House, &ev, fivefold("H2 (FIDE Laws 9.6.1)")),
            (Generic, &ev, fivefold("G§2 (FIDE Laws 9.6.1)")),
            (Wbca, &ev, fivefold("FIDE Laws 9.6.1")),
            (Fide, &ev, fivefold("FIDE Laws 9.6.1")),
            (Uscf, &ev, fivefold("FIDE Laws 9.6.1")),
            // Automatic at the third occurrence whatever the watchers.
            (
                Online,
                &ev,
                expect([End(Draw, Threefold, "FIDE Laws 9.2")]).plies(8),
            ),
        ],
    );
}

/// Qe8+ Kh7 Qe4+ Kh8, repeated: every white move checks.
const PERPETUAL: &str = "7k/6p1/7p/8/8/8/r7/4Q1K1 w - - 0 1";

fn perpetual_check(cycles: usize) -> Vec<Event> {
    let line = format!("e1e8{}", " h8h7 e8e4 h7h8 e4e8".repeat(cycles));
    moves(s(1), W, &line)
}

#[test]
fn fourfold_repetition_by_perpetual_check() {
    // The position after Qe8+ occurs at plies 1, 5, 9 and 13.
    let ev = perpetual_check(4);
    let threefold = |rule| expect([End(Draw, Threefold, rule)]).plies(9);
    table(
        "perpetual check",
        PERPETUAL,
        defaults(),
        [
            (House, &ev, threefold("H21")),
            (Generic, &ev, threefold("G§2")),
            (
                Wbca,
                &ev,
                expect([End(Draw, Threefold, "WBCA 8d")]).plies(13),
            ),
            (Fide, &ev, threefold("FIDE Laws 9.2")),
            (Uscf, &ev, threefold("USCF 8")),
            (Online, &ev, threefold("FIDE Laws 9.2")),
        ],
    );
    let mut r = referee(Wbca, PERPETUAL, &defaults());
    let ending = r.apply_all(&ev).unwrap();
    assert!(
        ending.detail.contains("perpetual check"),
        "{}",
        ending.detail
    );
    // Without draw claims the fifth occurrence (ply 17) ends it.
    let fivefold = |rule| expect([End(Draw, Fivefold, rule)]).plies(17);
    table(
        "perpetual check, no draw claims",
        PERPETUAL,
        no_draw_claims(),
        [
            (House, &ev, fivefold("H2 (FIDE Laws 9.6.1)")),
            (Generic, &ev, fivefold("G§2 (FIDE Laws 9.6.1)")),
            (Wbca, &ev, fivefold("FIDE Laws 9.6.1")),
            (Fide, &ev, fivefold("FIDE Laws 9.6.1")),
            (Uscf, &ev, fivefold("FIDE Laws 9.6.1")),
            (Online, &ev, threefold("FIDE Laws 9.2")),
        ],
    );
}

#[test]
fn fifty_move_rule() {
    let fen = "7k/8/8/8/8/8/R7/K7 w - - 99 80";
    let ev = [go(0, W), mv(s(1), W, "a2b2")];
    let fifty = |rule| expect([End(Draw, FiftyMoves, rule)]);
    table(
        "50 moves",
        fen,
        defaults(),
        [
            (House, &ev, fifty("H2 (FIDE Laws 9.3)")),
            (Generic, &ev, fifty("G§2")),
            // WBCA has no 50-move rule.
            (Wbca, &ev, expect([])),
            (Fide, &ev, fifty("FIDE Laws 9.3")),
            (Uscf, &ev, fifty("USCF 8")),
            (Online, &ev, fifty("FIDE Laws 9.3")),
        ],
    );
    table(
        "50 moves, no draw claims",
        fen,
        no_draw_claims(),
        [
            (House, &ev, expect([])),
            (Generic, &ev, expect([])),
            (Wbca, &ev, expect([])),
            (Fide, &ev, expect([])),
            (Uscf, &ev, expect([])),
            // Automatic at 100 plies.
            (Online, &ev, fifty("FIDE Laws 9.3")),
        ],
    );
}

#[test]
fn seventy_five_move_rule() {
    let fen = "7k/8/8/8/8/8/R7/K7 w - - 149 80";
    let ev = [go(0, W), mv(s(1), W, "a2b2")];
    let seventy_five = |rule| expect([End(Draw, SeventyFiveMoves, rule)]);
    for settings in [defaults(), no_draw_claims()] {
        table(
            "75 moves",
            fen,
            settings,
            [
                (House, &ev, seventy_five("H2 (FIDE Laws 9.6.2)")),
                (Generic, &ev, seventy_five("G§2 (FIDE Laws 9.6.2)")),
                (Wbca, &ev, seventy_five("FIDE Laws 9.6.2")),
                (Fide, &ev, seventy_five("FIDE Laws 9.6.2")),
                (Uscf, &ev, seventy_five("FIDE Laws 9.6.2")),
                (Online, &ev, seventy_five("FIDE Laws 9.6.2")),
            ],
        );
    }
}

#[test]
fn mate_on_the_hundredth_ply_beats_the_fifty_move_rule() {
    // FIDE 9.3 / 9.6.2: unless the last move resulted in checkmate.
    for halfmoves in [99, 149] {
        let fen = format!("6k1/5ppp/8/8/8/8/8/R5K1 w - - {halfmoves} 80");
        let ev = [go(0, W), mv(s(1), W, "a1a8")];
        let mate = |rule| expect([End(WhiteWins, Checkmate, rule)]);
        table(
            "mate on the last ply",
            &fen,
            defaults(),
            [
                (House, &ev, mate("H3.2")),
                (Generic, &ev, mate("G§2")),
                (Wbca, &ev, mate("WBCA 7a")),
                (Fide, &ev, mate("FIDE Laws 5.1.1")),
                (Uscf, &ev, mate("USCF 7a")),
                (Online, &ev, mate("FIDE Laws 5.1.1")),
            ],
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Dead positions

#[test]
fn dead_position_locked_pawn_chain() {
    // g3-g4 locks the chain: no king can cross, no pawn can move (helpmate search: dead).
    let ev = [go(0, W), mv(s(1), W, "g3g4")];
    let dead = |rule| expect([End(Draw, DeadPosition, rule)]);
    table(
        "locked pawn chain",
        "8/8/1k6/p1p1p1p1/P1P1P3/1K4P1/8/8 w - - 0 1",
        defaults(),
        [
            (House, &ev, dead("H2 (FIDE Laws 5.2.2)")),
            (Generic, &ev, dead("G§2")),
            (Wbca, &ev, dead("FIDE Laws 5.2.2")),
            (Fide, &ev, dead("FIDE Laws 5.2.2")),
            (Uscf, &ev, dead("FIDE Laws 5.2.2")),
            // lichess's rule sees pawns on both sides: play on.
            (
                Online,
                &ev,
                expect([]).at("8/8/1k6/p1p1p1p1/P1P1P1P1/1K6/8/8 b - - 0 1"),
            ),
        ],
    );
}

#[test]
fn bishops_of_one_colour() {
    // Bxb5 leaves K+B v K+B, both bishops on light squares.
    let ev = [go(0, W), mv(s(1), W, "d3b5")];
    let dead = |rule| expect([End(Draw, InsufficientMaterial, rule)]);
    table(
        "K+B v K+B, one colour",
        "8/8/8/1n1bk3/8/3BK3/8/8 w - - 0 1",
        defaults(),
        [
            (House, &ev, dead("H2 (FIDE Laws 5.2.2)")),
            (Generic, &ev, dead("G§2")),
            (Wbca, &ev, dead("FIDE Laws 5.2.2")),
            (Fide, &ev, dead("FIDE Laws 5.2.2")),
            (Uscf, &ev, dead("FIDE Laws 5.2.2")),
            (Online, &ev, dead("FIDE Laws 5.2.2")),
        ],
    );
}

#[test]
fn insufficient_material() {
    // Kxa2 leaves K+N v K.
    let ev = [go(0, W), mv(s(1), W, "a1a2")];
    let dead = |rule| expect([End(Draw, InsufficientMaterial, rule)]);
    table(
        "K+N v K",
        "7k/8/8/8/8/8/r7/KN6 w - - 0 1",
        defaults(),
        [
            (House, &ev, dead("H2 (FIDE Laws 5.2.2)")),
            (Generic, &ev, dead("G§2")),
            (Wbca, &ev, dead("FIDE Laws 5.2.2")),
            (Fide, &ev, dead("FIDE Laws 5.2.2")),
            (Uscf, &ev, dead("FIDE Laws 5.2.2")),
            (Online, &ev, dead("FIDE Laws 5.2.2")),
        ],
    );
}

// ---------------------------------------------------------------------------------------------
// Online: flags and illegal moves are noticed at once

#[test]
fn online_needs_no_watcher() {
    // Whatever the watchers would do (notice late, never notice), the fall or the illegal move
    // is the end; nothing after it changes the ruling.
    let mut r = referee(Online, START, &defaults());
    assert_eq!(
        feed(&mut r, &[go(0, W), flag(s(300), W)], "online flag"),
        [End(BlackWins, Flag, "online: flag")]
    );
    for late in [
        notice(s(301), B, FLAG),
        claim(s(302), B, FLAG),
        flag(s(303), B),
        fault(s(304), W, Fault::Crash { status: None }),
    ] {
        assert_eq!(
            ruling(&r.apply(&late)),
            Some(End(BlackWins, Flag, "online: flag"))
        );
    }
    for kind in IllegalKind::ALL {
        let (fen, uci) = match kind {
            IllegalKind::KingExposed => (PINNED_KNIGHT, "e2c3"),
            IllegalKind::KingsAdjacent => (KINGS_TWO_APART, "d4e4"),
            IllegalKind::NoMove => (START, "0000"),
            IllegalKind::NoPromotion => (PROMOTION, "a7a8"),
            IllegalKind::BadPieceMove => (START, "g1e3"),
            IllegalKind::BadCastle => ("4k3/8/8/8/8/8/8/R3K2R w - - 0 1", "e1g1"),
        };
        let mut r = referee(Online, fen, &defaults());
        let ev = [go(0, W), illegal(s(1), W, uci, kind), unnoticed(s(1), B)];
        assert_eq!(
            feed(&mut r, &ev, &format!("online {kind}")),
            [End(BlackWins, IllegalMove, "online: illegal move")],
            "{kind}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Claims with nothing to claim

#[test]
fn claims_with_nothing_to_claim_change_nothing() {
    for ruleset in Ruleset::ALL {
        let mut r = referee(ruleset, START, &defaults());
        for e in [
            go(0, W),
            claim(s(1), B, FLAG),
            claim(s(1), B, ILLEGAL),
            mv(s(2), W, "e2e4"),
            claim(s(3), W, ILLEGAL),
        ] {
            assert_eq!(r.apply(&e), Verdict::Continue, "{ruleset}: {e:?}");
        }
    }
}

#[test]
fn nobody_claims_its_own_illegal_move() {
    // The offender's claim of its own illegal move, pending or standing, is no claim: the
    // invariant "no offender wins its own illegal-move claim" starts here.
    // (Online servers refuse an illegal move: nothing is ever pending there.)
    for ruleset in Ruleset::ALL.into_iter().filter(|r| *r != Online) {
        let mut r = referee(ruleset, START, &defaults());
        let pending = [
            go(0, W),
            illegal(s(1), W, "e2e5", IllegalKind::BadPieceMove),
            claim(s(1), W, ILLEGAL),
        ];
        for e in &pending[..2] {
            r.apply(e);
        }
        assert_eq!(
            r.apply(&pending[2]),
            Verdict::Continue,
            "{ruleset}: pending"
        );
        r.apply(&unnoticed(s(1), B));
        assert!(r.can_claim_standing_illegal(B), "{ruleset}: it stands");
        assert_eq!(
            r.apply(&claim(s(1), W, ILLEGAL)),
            Verdict::Continue,
            "{ruleset}: standing"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Unit tests of the referee outside the blitz rulings

trait ApplyAll {
    /// Applies events until the game ends; the ending, if it did.
    fn apply_all(&mut self, events: &[Event]) -> Option<super::Ending>;
    /// Plays legal moves (UCI) for the side to move, alternating.
    fn play(&mut self, moves: &str) -> Option<super::Ending>;
}

impl ApplyAll for Referee {
    fn apply_all(&mut self, events: &[Event]) -> Option<super::Ending> {
        events.iter().find_map(|e| self.apply(e).ending().cloned())
    }

    fn play(&mut self, moves: &str) -> Option<super::Ending> {
        moves.split_whitespace().find_map(|m| {
            let side = self.turn();
            self.apply(&mv(0, side, m)).ending().cloned()
        })
    }
}

#[test]
fn fools_mate_is_checkmate() {
    let mut r = referee(Fide, START, &defaults());
    let e = r.play("f2f3 e7e5 g2g4 d8h4").unwrap();
    assert_eq!(
        (e.result, e.termination, e.rule.as_str()),
        (BlackWins, Checkmate, "FIDE Laws 5.1.1")
    );
    assert_eq!(r.plies(), 4);
}

#[test]
fn threefold_is_claimed_at_once_and_fivefold_needs_no_claim() {
    let e = referee(Fide, START, &defaults()).play(SHUFFLE).unwrap();
    assert_eq!(
        (e.termination, e.rule.as_str()),
        (Threefold, "FIDE Laws 9.2")
    );
    let mut r = referee(Fide, START, &no_draw_claims());
    assert!(r.play(SHUFFLE).is_none());
    let e = r.play(SHUFFLE).unwrap();
    assert_eq!(
        (e.termination, e.rule.as_str()),
        (Fivefold, "FIDE Laws 9.6.1")
    );
    assert_eq!(r.plies(), 16);
}

#[test]
fn fifty_move_rule_is_claimed_and_seventy_five_is_automatic() {
    let e = referee(Fide, "7k/8/8/8/8/8/R7/K7 w - - 99 80", &defaults())
        .play("a2b2")
        .unwrap();
    assert_eq!(e.termination, FiftyMoves);
    let mut r = referee(Fide, "7k/8/8/8/8/8/R7/K7 w - - 99 80", &no_draw_claims());
    assert!(r.play("a2b2 h8g8").is_none());
    let e = referee(Fide, "7k/8/8/8/8/8/R7/K7 w - - 149 80", &no_draw_claims())
        .play("a2b2")
        .unwrap();
    assert_eq!(e.termination, SeventyFiveMoves);
    // A capture resets the count.
    let mut r = referee(Fide, "7k/8/8/8/8/8/r7/KR6 w - - 149 80", &no_draw_claims());
    assert!(r.play("a1a2").is_none());
}

#[test]
fn max_moves_counts_full_moves_of_the_game() {
    let settings = RefereeSettings {
        max_moves: Some(2),
        ..defaults()
    };
    let mut r = referee(Fide, START, &settings);
    assert!(r.play("e2e4 e7e5 g1f3").is_none());
    let e = r.play("b8c6").unwrap();
    assert_eq!(
        (e.result, e.termination, e.rule.as_str()),
        (Draw, MaxMoves, "arena: --max-moves")
    );
    // Opening moves do not count.
    let opening: Vec<String> = ["e2e4", "e7e5"].map(String::from).to_vec();
    let mut r = Referee::after_opening(
        RefereeSettings {
            max_moves: Some(1),
            ..defaults()
        },
        Chess::default(),
        &opening,
    )
    .unwrap();
    assert!(r.play("g1f3").is_none());
    assert_eq!(r.play("b8c6").unwrap().termination, MaxMoves);
}

#[test]
fn crash_loses() {
    for ruleset in Ruleset::ALL {
        for f in [Fault::Crash { status: Some(101) }, Fault::StartFailed] {
            let mut r = referee(ruleset, START, &defaults());
            let e = r.apply_all(&[fault(s(6), B, f)]).unwrap();
            assert_eq!(
                (e.result, e.termination, e.rule.as_str()),
                (WhiteWins, EngineCrash, "arena: engine crash"),
                "{ruleset}"
            );
        }
    }
}

#[test]
fn stall_after_flag_becomes_engine_stall() {
    // The engine hangs after its flag fell and before anyone claimed.
    let mut r = referee(Fide, START, &defaults());
    let e = r
        .apply_all(&[go(0, W), flag(s(5), W), fault(s(6), W, Fault::Stall)])
        .unwrap();
    assert_eq!((e.result, e.termination), (BlackWins, EngineStall));
    // The flag was claimed first, then the engine did not answer `stop`: refined.
    let mut r = referee(Fide, START, &defaults());
    let ev = [
        go(0, W),
        flag(s(5), W),
        notice(s(5), B, FLAG),
        claim(s(5), B, FLAG),
    ];
    assert_eq!(r.apply_all(&ev).unwrap().termination, Flag);
    let e = r.apply_all(&[fault(s(6), W, Fault::Stall)]).unwrap();
    assert_eq!(
        (e.result, e.termination, e.rule.as_str()),
        (BlackWins, EngineStall, "FIDE A4.3")
    );
    assert!(e.detail.contains("did not answer stop"), "{}", e.detail);
    // Against a bare king the stall is still a draw on the flag (FIDE 6.9).
    let mut r = referee(Fide, KR_K_WHITE_TO_MOVE, &defaults());
    let e = r
        .apply_all(&[go(0, W), flag(s(5), W), fault(s(6), W, Fault::Stall)])
        .unwrap();
    assert_eq!((e.result, e.termination), (Draw, EngineStall));
}

#[test]
fn draw_adjudication_follows_cutechess() {
    let settings = RefereeSettings {
        adjudication: Adjudication {
            draw: Some("movenumber=2,movecount=2,score=10".parse().unwrap()),
            resign: None,
        },
        ..defaults()
    };
    let mut r = referee(Fide, START, &settings);
    let ev = [
        scored(W, "g1f3", 5),
        scored(B, "g8f6", -5),
        scored(W, "b1c3", 10),
        scored(B, "b8c6", 0),
    ];
    for e in &ev[..3] {
        assert_eq!(r.apply(e), Verdict::Continue);
    }
    let e = r.apply(&ev[3]).ending().cloned().unwrap();
    assert_eq!(
        (e.result, e.termination, e.rule.as_str()),
        (
            Draw,
            Termination::Adjudication,
            "arena: --draw-adjudication"
        )
    );
    // A score outside the window restarts the count.
    let mut r = referee(Fide, START, &settings);
    let ev = [
        scored(W, "g1f3", 5),
        scored(B, "g8f6", 11),
        scored(W, "b1c3", 5),
        scored(B, "b8c6", 5),
        scored(W, "e2e4", 5),
    ];
    assert!(r.apply_all(&ev).is_none());
    assert!(r.apply_all(&[scored(B, "e7e5", 5)]).is_some());
}

#[test]
fn resign_adjudication_follows_cutechess() {
    let settings = RefereeSettings {
        adjudication: Adjudication {
            draw: None,
            resign: Some("movecount=2,score=500".parse().unwrap()),
        },
        ..defaults()
    };
    let mut r = referee(Fide, START, &settings);
    // A score above the threshold resets the streak.
    let ev = [
        scored(W, "g1f3", -600),
        scored(B, "g8f6", 600),
        scored(W, "b1c3", -100),
        scored(B, "b8c6", 600),
        scored(W, "f3g1", -700),
        scored(B, "f6g8", 600),
    ];
    assert!(r.apply_all(&ev).is_none());
    let e = r.apply_all(&[scored(W, "g1f3", -700)]).unwrap();
    assert_eq!(
        (e.result, e.termination, e.rule.as_str()),
        (
            BlackWins,
            Termination::Adjudication,
            "arena: --resign-adjudication"
        )
    );
    // Two-sided: the opponent must have reported the win for as long.
    let settings = RefereeSettings {
        adjudication: Adjudication {
            draw: None,
            resign: Some("movecount=2,score=500,twosided=true".parse().unwrap()),
        },
        ..defaults()
    };
    let mut r = referee(Fide, START, &settings);
    let ev = [
        scored(W, "g1f3", -600),
        scored(B, "g8f6", 100),
        scored(W, "b1c3", -600),
        scored(B, "b8c6", 600),
    ];
    assert!(r.apply_all(&ev).is_none());
    assert!(r.apply_all(&[scored(W, "e2e4", -600)]).is_none());
    assert!(r.apply_all(&[scored(B, "e7e5", 600)]).is_none());
    let e = r.apply_all(&[scored(W, "d2d4", -600)]).unwrap();
    assert_eq!(e.result, BlackWins);
}

#[test]
fn adjudication_options_parse_and_reject_unknown_keys() {
    let d: DrawAdjudication = "movenumber=40,movecount=8,score=10".parse().unwrap();
    assert_eq!((d.movenumber, d.movecount, d.score), (40, 8, 10));
    // Defaults for what is not given.
    let d: DrawAdjudication = "score=5".parse().unwrap();
    assert_eq!((d.movenumber, d.movecount, d.score), (40, 8, 5));
    let r: ResignAdjudication = "movecount=3 score=1000 twosided=true".parse().unwrap();
    assert_eq!((r.movecount, r.score, r.twosided), (3, 1000, true));
    assert!(!"".parse::<ResignAdjudication>().unwrap().twosided);
    assert!("movecount=x"
        .parse::<ResignAdjudication>()
        .unwrap_err()
        .contains("not a number"));
    assert!("moves=3"
        .parse::<DrawAdjudication>()
        .unwrap_err()
        .contains("unknown key"));
    assert!("movecount"
        .parse::<DrawAdjudication>()
        .unwrap_err()
        .contains("KEY=VALUE"));
}

#[test]
fn opening_moves_count_for_repetition() {
    let opening: Vec<String> = "g1f3 g8f6 f3g1 f6g8".split(' ').map(String::from).collect();
    let mut r = Referee::after_opening(defaults(), Chess::default(), &opening).unwrap();
    assert_eq!(r.plies(), 0);
    let e = r.play("g1f3 g8f6 f3g1 f6g8").unwrap();
    assert_eq!(e.termination, Threefold);
    assert_eq!(r.plies(), 4);
    // An irreversible book move forgets what came before it.
    let opening: Vec<String> = "g1f3 g8f6 f3g1 f6g8 e2e4"
        .split(' ')
        .map(String::from)
        .collect();
    let mut r = Referee::after_opening(defaults(), Chess::default(), &opening).unwrap();
    assert!(r.play("g8f6 g1f3 f6g8 f3g1").is_none());
    // An illegal book move is refused.
    let bad = vec!["e2e5".to_string()];
    assert!(Referee::after_opening(defaults(), Chess::default(), &bad).is_err());
}

// ---------------------------------------------------------------------------------------------
// Details: the facts a ruling rests on, in order (issue 14.4)

/// The detail of the ending `events` lead to under `ruleset`.
fn detail_of(ruleset: Ruleset, fen: &str, settings: RefereeSettings, events: &[Event]) -> String {
    let mut r = referee(ruleset, fen, &settings);
    for event in events {
        r.apply(event);
    }
    r.ending().expect("the events end the game").detail.clone()
}

#[test]
fn a_house_mate_after_the_maters_flag_names_the_maters_flag_and_the_claim() {
    // H13: white's flag fell at 5 s, white mated at 5.2 s, black noticed and claimed at 6 s.
    let mut ev = mate_after_own_flag();
    ev.extend([notice(s(6), B, FLAG), claim(s(6), B, FLAG)]);
    assert_eq!(
        detail_of(House, MATE_IN_ONE, defaults(), &ev),
        "white flag fell at 5.000 s unnoticed; white mated black at 5.200 s; black noticed it and \
         claimed at 6.000 s"
    );
    // H14: black's own flag fell during its claim: named after the notice, before completion.
    let mut ev = mate_after_own_flag();
    ev.extend([
        notice(s(6), B, FLAG),
        flag(ms(6_300), B),
        claim(ms(6_500), B, FLAG),
    ]);
    assert_eq!(
        detail_of(House, MATE_IN_ONE, claim_ms(500), &ev),
        "white flag fell at 5.000 s unnoticed; white mated black at 5.200 s; black noticed it at \
         6.000 s and claimed; black flag fell at 6.300 s, before its claim completed at 6.500 s"
    );
    // H8: both flags down before white (the mater) claims black's: both named, in order.
    let mut ev = mate_after_own_flag();
    ev.extend([flag(s(6), B), notice(s(7), W, FLAG), claim(s(7), W, FLAG)]);
    assert_eq!(
        detail_of(House, MATE_IN_ONE, defaults(), &ev),
        "white flag fell at 5.000 s unnoticed; white mated black at 5.200 s; black flag fell at \
         6.000 s; white noticed it and claimed at 7.000 s"
    );
    // A claim that takes 500 ms: when it was noticed and when it completed.
    let mut ev = mate_after_own_flag();
    ev.extend([notice(s(6), B, FLAG), claim(ms(6_500), B, FLAG)]);
    assert_eq!(
        detail_of(House, MATE_IN_ONE, claim_ms(500), &ev),
        "white flag fell at 5.000 s unnoticed; white mated black at 5.200 s; black noticed it at \
         6.000 s and claimed; the claim completed at 6.500 s"
    );
    // Black's own flag falls at the instant it notices white's: before the claim, not during it.
    let mut ev = mate_after_own_flag();
    ev.extend([flag(s(6), B), notice(s(6), B, FLAG), claim(s(6), B, FLAG)]);
    assert_eq!(
        detail_of(House, MATE_IN_ONE, defaults(), &ev),
        "white flag fell at 5.000 s unnoticed; white mated black at 5.200 s; black flag fell at \
         6.000 s; black noticed it and claimed at 6.000 s"
    );
    // H8, black (the mated side) claiming: its own flag fell before its notice, so it is named
    // before the claim, not as a flag that fell during it.
    let mut ev = mate_after_own_flag();
    ev.extend([flag(s(6), B), notice(s(7), B, FLAG), claim(s(7), B, FLAG)]);
    assert_eq!(
        detail_of(House, MATE_IN_ONE, defaults(), &ev),
        "white flag fell at 5.000 s unnoticed; white mated black at 5.200 s; black flag fell at \
         6.000 s; black noticed it and claimed at 7.000 s"
    );
}

#[test]
fn a_both_flags_detail_names_both_flags_in_the_order_they_fell() {
    // Black's flag at 1 s, white's at 2 s; white's watcher notices black's at 3 s.
    let ev = [
        go(0, B),
        flag(s(1), B),
        mv(ms(1_100), B, "e7e5"),
        go(ms(1_100), W),
        flag(s(2), W),
        notice(s(3), W, FLAG),
        claim(s(3), W, FLAG),
    ];
    for ruleset in [House, Generic, Fide, Uscf] {
        assert_eq!(
            detail_of(ruleset, AFTER_E4, defaults(), &ev),
            "both flags down: black flag fell at 1.000 s, white flag at 2.000 s; white noticed \
             it and claimed at 3.000 s",
            "{ruleset}"
        );
    }
    // WBCA 8c: drawn as the second flag falls, before any claim.
    assert_eq!(
        detail_of(Wbca, AFTER_E4, defaults(), &ev),
        "both flags down: black flag fell at 1.000 s, white flag at 2.000 s, and no win was \
         claimed"
    );
}

#[test]
fn a_move_no_board_can_hold_says_it_counts_as_noticed() {
    // A pawn sent back onto its own first rank (issue 14.3): the reason every record carries.
    let pos = position("4k2r/8/8/8/8/8/4P3/K7 w - - 0 1");
    let MoveCheck::Illegal(i) = super::illegal::check(&pos, "e2e1") else {
        panic!("e2e1 is an illegal move");
    };
    assert_eq!(
        i.reason,
        "e2e1: a pawn does not move backwards; no board can hold it, so it counts as noticed \
         (a pawn would be on the first or last rank)"
    );
    // The referee will not let it stand, whatever the watcher said.
    let mut r = referee(Fide, "4k2r/8/8/8/8/8/4P3/K7 w - - 0 1", &defaults());
    r.apply(&illegal(0, W, "e2e1", IllegalKind::BadPieceMove));
    assert!(r.pending_cannot_stand());
    // A king jump can stand.
    let mut r = referee(Fide, "4k2r/8/8/8/8/8/4P3/K7 w - - 0 1", &defaults());
    r.apply(&illegal(0, W, "a1a3", IllegalKind::BadPieceMove));
    assert!(!r.pending_cannot_stand());
}
