//! One game in real time: drives two engines, the clock and the watchers, and records what
//! happens as events. The referee decides what the events mean; this loop acts on its verdicts.
//!
//! Each step races the thinking engine's reply against the earliest timer: the running side's
//! flag fall (a deadline at the exact instant its time reaches zero), a watcher noticing a
//! fallen flag, a claim completing. While a flag is down and unnoticed, play goes on in real
//! time on a negative clock (docs/architecture.md, "The model").

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};
use tokio::time::Instant;

use crate::clock::{micros, Clock};
use crate::decimal;
use crate::engine::{timers, Reply, Seat};
use crate::event::{BySide, Claimable, Event, Fault, GameRecord, Injection, Side};
use crate::inject::{FlagPlan, GameInjector, IllegalInjection, InjectConfig};
use crate::openings::Opening;
use crate::pvcheck;
use crate::rules::illegal::{position_is_illegal, MoveCheck};
use crate::rules::{Checked, CheckedMove, Ending, Referee, RefereeSettings, Verdict};
use crate::settings::{FlagNoticeAfter, IllegalNoticeAfter};
use crate::timecontrol::TimeControl;
use crate::vocabulary::FlagMode;

mod ponder;
#[cfg(test)]
mod ponder_tests;
pub mod rerule;
#[cfg(test)]
mod scripted;
#[cfg(test)]
mod tests;
pub mod verdicts;

use verdicts::{Action, FlagNotice, IllegalNotice, Verdicts};

/// Fixed search limits sent with every `go` (the clock still runs and is recorded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchLimits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
}

/// The watchers: the arena's eyes for each side (docs/architecture.md, "The model"). Seeded per game.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Watchers {
    /// Mean delay before a fallen flag is noticed, in ms (exponential); 0 = at once.
    pub flag_notice_ms: f64,
    /// How long a claim takes to complete, in ms; the running clock keeps running.
    pub claim_ms: u64,
    /// Probability that a completed illegal move is noticed before the opponent moves.
    pub illegal_notice: f64,
    /// Exact flag notices per watcher, in place of the random delay (`--flag-notice-after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flag_notice_after: Option<FlagNoticeAfter>,
    /// Exact illegal-move notice, in place of the probability (`--illegal-notice-after`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub illegal_notice_after: Option<IllegalNoticeAfter>,
}

impl Default for Watchers {
    fn default() -> Self {
        Watchers {
            flag_notice_ms: 0.0,
            claim_ms: 0,
            illegal_notice: 1.0,
            flag_notice_after: None,
            illegal_notice_after: None,
        }
    }
}

/// Everything one game needs besides its two engines.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// 1-based number in the run's schedule.
    pub game: u64,
    /// 1-based number of its pair of games (colours swapped on one opening).
    pub pair: u64,
    /// Engine names, by side.
    pub names: BySide<String>,
    pub opening: Opening,
    /// Time controls, by side.
    pub tc: BySide<TimeControl>,
    pub settings: RefereeSettings,
    pub watchers: Watchers,
    pub inject: InjectConfig,
    pub limits: SearchLimits,
    pub time_margin: Duration,
    pub seed: u64,
    /// `--tb`: the Syzygy tables probed after every move.
    pub tablebase: Option<std::sync::Arc<crate::tablebase::Tablebases>>,
    /// A compat run: the engines' PVs are checked as each move is read, as fastchess checks
    /// them (`pvcheck`).
    pub pv_checks: Option<PvChecks>,
}

/// fastchess's checks of the PVs, on every move of a compat run.
#[derive(Clone, Debug)]
pub struct PvChecks {
    /// Where fastchess's warning lines go.
    pub sink: LineSink,
    /// `-check-mate-pvs`: a mate score's PV must be that mate, too.
    pub mate_pvs: bool,
}

/// Where a game's console lines go while it is played (fastchess's PV warnings): the run's
/// writer, which prints them in order with the lines it prints for the games.
#[derive(Clone)]
pub struct LineSink(pub Arc<dyn Fn(String) -> SinkSend + Send + Sync>);

/// The sink's send of one line, awaited before the game goes on.
pub type SinkSend = Pin<Box<dyn Future<Output = ()> + Send>>;

impl std::fmt::Debug for LineSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LineSink")
    }
}

/// A finished game. The engines it gave up on (they crashed or hung) are retired on their
/// seats ([`Seat::retire`]).
#[derive(Debug)]
pub struct Played {
    pub record: GameRecord,
    /// An engine could not be (re)started because the arena or the machine ran out of
    /// something (`engine::Shortage`), and why: the game is no result and is not recorded,
    /// and the run stops.
    pub shortage: Option<String>,
}

impl Played {
    /// Whether an engine of this game died of SIGTERM, SIGINT or SIGHUP: signals that stop
    /// programs from outside (a job scheduler's cancel signals every process of the job, a
    /// terminal's hang-up its whole session), usually the arena's own stop a moment later.
    pub fn engine_stopped_from_outside(&self) -> bool {
        const STOPS: [i32; 3] = [libc::SIGTERM, libc::SIGINT, libc::SIGHUP];
        self.record.events.iter().any(|event| {
            matches!(
                event,
                Event::EngineFault { fault: Fault::Crash { status: Some(code) }, .. }
                    if STOPS.iter().any(|signal| *code == 128 + signal)
            )
        })
    }
}

impl GameSetup {
    fn record(&self, started: String, events: Vec<Event>) -> GameRecord {
        GameRecord {
            game: self.game,
            pair: self.pair,
            white: self.names.white.clone(),
            black: self.names.black.clone(),
            opening: self.opening.record(),
            ruleset: self.settings.ruleset,
            tc_white: self.tc.white,
            tc_black: self.tc.black,
            seed: self.seed,
            started,
            time_margin_ms: self.time_margin.as_millis() as u64,
            events,
        }
    }

    fn referee(&self) -> Referee {
        Referee::after_opening(
            self.settings.clone(),
            self.opening.root.clone(),
            &self.opening.moves,
        )
        .expect("opening books are checked for legal moves when they are loaded")
    }

    /// The watchers' random choices for this game: a function of the run's seed and the game.
    fn rng(&self) -> StdRng {
        StdRng::seed_from_u64(self.seed ^ self.game.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
}

/// The `position` command: a base (the opening, or a FEN once an illegal move stood) and the
/// moves played since.
#[derive(Clone)]
struct PositionCommand {
    text: String,
    /// Moves after the base.
    moves: usize,
}

/// Moves a `position` command carries before an irreversible move makes it start again from
/// a FEN (a FEN costs a few µs to write; a move in the list, a few ns to parse).
const REBASE_AFTER: usize = 32;

impl PositionCommand {
    fn opening(opening: &Opening) -> PositionCommand {
        let mut command = PositionCommand {
            text: match &opening.root_fen {
                None => "position startpos".to_string(),
                Some(fen) => format!("position fen {fen}"),
            },
            moves: 0,
        };
        for m in &opening.moves {
            command.push(m);
        }
        command
    }

    fn fen(referee: &Referee) -> PositionCommand {
        PositionCommand {
            text: format!(
                "position fen {}",
                Fen::from_position(referee.position(), EnPassantMode::Legal)
            ),
            moves: 0,
        }
    }

    fn push(&mut self, uci: &str) {
        self.text
            .push_str(if self.moves > 0 { " " } else { " moves " });
        self.text.push_str(uci);
        self.moves += 1;
    }
}

fn end_event(t_us: i64, ending: &Ending, clock_us: BySide<i64>) -> Event {
    Event::End {
        t_us,
        result: ending.result,
        termination: ending.termination,
        rule: ending.rule.clone(),
        detail: ending.detail.clone(),
        white_clock_us: clock_us.white,
        black_clock_us: clock_us.black,
    }
}

fn utc_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The record of a game that could not be played because `side`'s engine could not be
/// started: that side loses (`engine-crash`).
pub fn forfeit(setup: &GameSetup, side: Side, detail: String) -> GameRecord {
    let mut referee = setup.referee();
    let fault = Event::EngineFault {
        t_us: 0,
        side,
        fault: Fault::StartFailed,
        detail,
    };
    let ending = referee
        .apply(&fault)
        .ending()
        .cloned()
        .expect("a start failure ends the game");
    let full = setup.tc.map(|tc| micros(tc.base));
    setup.record(utc_now(), vec![fault, end_event(0, &ending, full)])
}

fn go_command(setup: &GameSetup, clock: &Clock, side: Side, now: Instant) -> String {
    let mut go = String::with_capacity(64);
    write_go(&mut go, setup, clock, side, now);
    go
}

/// The `go` command for `side` at `now`, written over `go` (the game keeps one buffer for it:
/// no allocation a move).
fn write_go(go: &mut String, setup: &GameSetup, clock: &Clock, side: Side, now: Instant) {
    go.clear();
    // UCI has no negative times: a side past its flag is told 1 ms.
    let ms = |side: Side| (clock.left_us(side, now) / 1000).max(1).unsigned_abs();
    let tc = setup.tc[side];
    // Written number by number: `format!` here was a fiftieth of the arena's work per move.
    if tc.per_move {
        // A fixed time per move (fastchess's `st=`).
        go.push_str("go movetime ");
        push_number(go, tc.base.as_millis());
    } else {
        go.push_str("go wtime ");
        push_number(go, ms(Side::White).into());
        go.push_str(" btime ");
        push_number(go, ms(Side::Black).into());
        go.push_str(" winc ");
        push_number(go, setup.tc.white.increment.as_millis());
        go.push_str(" binc ");
        push_number(go, setup.tc.black.increment.as_millis());
    }
    // A repeating period: the moves left in the mover's period (UCI `movestogo`).
    if let Some(moves) = clock.moves_to_go(side) {
        go.push_str(&format!(" movestogo {moves}"));
    }
    if let Some(nodes) = setup.limits.nodes {
        go.push_str(&format!(" nodes {nodes}"));
    }
    if let Some(depth) = setup.limits.depth {
        go.push_str(&format!(" depth {depth}"));
    }
}

/// `n` in decimal, as `{n}` writes it.
fn push_number(out: &mut String, n: u128) {
    match u64::try_from(n) {
        Ok(n) => decimal::push(out, n),
        Err(_) => out.push_str(&n.to_string()),
    }
}

/// Something that happens at a known instant.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Timer {
    /// The running side's time reaches zero (plus the margin).
    Flag(Side),
    /// A watcher notices something.
    Notice(Side, Claimable),
    /// A claim completes.
    Claim(Side, Claimable),
    /// A move held back by a flag injection is released (the clock press happens now).
    Release,
}

/// An engine's reply held back by a flag injection: its clock runs on until `release`.
#[derive(Debug)]
struct Held {
    side: Side,
    text: String,
    info: crate::event::SearchInfo,
    release: Instant,
}

/// One game in progress.
struct Game<'a> {
    setup: &'a GameSetup,
    /// UTC time the game started, for the record.
    started_utc: String,
    referee: Referee,
    clock: Clock,
    position: PositionCommand,
    /// The last `go` command sent, its buffer kept for the next.
    go: String,
    events: Vec<Event>,
    t0: Instant,
    rng: StdRng,
    /// The side whose engine has an unanswered `go`.
    thinking: Option<Side>,
    notices: Vec<(Instant, Side, Claimable)>,
    /// The claim in progress: when it completes, by whom, what.
    claim: Option<(Instant, Side, Claimable)>,
    /// Claims noticed while another was in progress: each starts, in order, when the one before
    /// it completes and the game goes on.
    queued: Vec<(Side, Claimable)>,
    /// The last clock press: when, and by whom. The opponent's clock runs from then when its
    /// engine is not asked to move at once (a claim in progress, a game waiting).
    pressed: Option<(Instant, Side)>,
    notes: Vec<String>,
    /// An illegal move stood and the position command was rebuilt from a FEN.
    rebased: bool,
    /// The position command starts from a FEN of an illegal position (an unnoticed illegal
    /// move left the side not to move in check, or the kings next to each other).
    base_illegal: bool,
    /// The instant the game was decided (the move that mated, the claim that completed, the
    /// crash): the clocks at the end are read at this instant.
    ended_at: Option<Instant>,
    /// Fault injection (docs/architecture.md, "Fault injection").
    injector: GameInjector,
    /// Moves each side has completed in this game (legal or not), for the flag plan.
    moves_made: BySide<u32>,
    held: Option<Held>,
    /// The flag plan was carried out.
    flag_injected: bool,
    /// The one interpreter of the referee's verdicts, shared with the re-ruling (`verdicts.rs`).
    verdicts: Verdicts,
    /// Watchers that notice the opponent's fallen flag as their own side next moves
    /// (`--flag-notice-after press`).
    at_press: Vec<Side>,
    /// `--illegal-notice-after N`: the watcher that will notice the illegal move that stood,
    /// and the ply count at which it does (too late: the move stands).
    late_illegal: Option<(Side, u32)>,
    /// The move each side's last `bestmove` named to ponder on, until its opponent is asked
    /// to move.
    offered: BySide<Option<String>>,
    /// The `go ponder` in progress (`ponder.rs`).
    pondering: Option<ponder::Pondering>,
    /// A restart failed for want of the arena's resources (see [`Played::shortage`]).
    shortage: Option<String>,
    /// The search report of the last move played (`pvcheck::last_info_line`), for the next
    /// move's check of the mate scores' signs; none before the first move out of book.
    last_report: Option<String>,
    /// What the referee found the text of the `Move` being recorded to be, in this position
    /// (`Referee::check_legal`): set just before `record` and taken by it.
    checked: Option<Checked>,
}

impl Game<'_> {
    fn us(&self, at: Instant) -> i64 {
        micros(at.saturating_duration_since(self.t0))
    }

    /// Records an event and asks the referee what it means.
    fn record(&mut self, event: Event) -> Verdict {
        let plies = self.referee.plies();
        let carries_its_move = matches!(event, Event::Move { .. } | Event::Unnoticed { .. });
        let verdict = self.referee.apply_checked(&event, self.checked.take());
        // A move the rules played themselves (a pawn sent without its piece becomes a queen:
        // WBCA 17, USCF 16, FIDE 7.5.2) goes to the engines too. A `Move` is sent by the
        // caller; an illegal move that stands rebuilds the position from its FEN.
        if !carries_its_move && self.referee.plies() > plies {
            if let Some(uci) = self.referee.last_move() {
                self.position.push(&uci);
            }
        }
        self.events.push(event);
        verdict
    }

    /// The earliest pending timer.
    fn next_timer(&self) -> Option<(Instant, Timer)> {
        let mut next: Option<(Instant, Timer)> = None;
        let mut consider = |at: Instant, timer: Timer| {
            if next.is_none_or(|(t, _)| at < t) {
                next = Some((at, timer));
            }
        };
        if let Some(side) = self.clock.running() {
            if !self.referee.flag_fell(side) {
                if let Some(at) = self.clock.flag_deadline() {
                    consider(at, Timer::Flag(side));
                }
            }
        }
        for &(at, by, what) in &self.notices {
            consider(at, Timer::Notice(by, what));
        }
        if let Some((at, by, what)) = self.claim {
            consider(at, Timer::Claim(by, what));
        }
        if let Some(held) = &self.held {
            consider(held.release, Timer::Release);
        }
        next
    }

    /// Handles a timer at its instant; `Some` ending when the game is over.
    fn fire(&mut self, at: Instant, timer: Timer) -> Option<Ending> {
        let t_us = self.us(at);
        match timer {
            Timer::Flag(side) => {
                let verdict = self.record(Event::FlagFall { t_us, side });
                self.act(verdict, at)
            }
            Timer::Notice(by, what) => {
                self.notices
                    .retain(|n| !(n.0 == at && n.1 == by && n.2 == what));
                self.record(Event::Notice { t_us, by, what });
                self.claim_or_queue(at, by, what);
                None
            }
            Timer::Release => {
                let held = self.held.take().expect("a held move");
                // `at-mate`: the flag's notice was deferred until the mating move is made.
                for side in self.verdicts.released() {
                    self.schedule_notice(side, at);
                }
                self.on_reply(held.side, held.text, None, at, held.info)
            }
            Timer::Claim(by, what) => {
                self.claim = None;
                let verdict = self.record(Event::Claim { t_us, by, what });
                let ending = self.act(verdict, at);
                if ending.is_none() && self.claim.is_none() && !self.queued.is_empty() {
                    let (by, what) = self.queued.remove(0);
                    self.start_claim(at, by, what);
                }
                ending
            }
        }
    }

    /// The position command becomes the FEN of the position on the board (after an illegal move
    /// stood, or was taken back).
    fn rebase(&mut self) {
        self.position = PositionCommand::fen(&self.referee);
        self.rebased = true;
        self.base_illegal = position_is_illegal(self.referee.position()).is_some();
    }

    /// Starts a claim noticed at `at`, or queues it behind the claim in progress.
    ///
    /// Fix: a notice during another claim used to be dropped, and an illegal move noticed
    /// during a flag claim replaced that claim. When the claim that ran then let the game go on
    /// (FIDE 7.5.5: a minute and the move again), the fallen flag was never claimed: the
    /// referee knows it fell, so no flag timer is set again, and the flagged engine played on
    /// for the rest of the game on a negative clock (or, hung, until the 24 h fallback).
    fn claim_or_queue(&mut self, at: Instant, by: Side, what: Claimable) {
        let active = self.claim.map(|(_, b, w)| (b, w));
        if active.is_none() {
            self.start_claim(at, by, what);
        } else if active != Some((by, what)) && !self.queued.contains(&(by, what)) {
            self.queued.push((by, what));
        }
    }

    fn start_claim(&mut self, at: Instant, by: Side, what: Claimable) {
        let done = at + Duration::from_millis(self.setup.watchers.claim_ms);
        self.claim = Some((done, by, what));
    }

    /// The opponent's watcher notices `side`'s fallen flag after an exponential delay from
    /// `from` (docs/architecture.md, "The model").
    fn schedule_notice(&mut self, side: Side, from: Instant) {
        let watcher = side.other();
        let delay = match FlagNotice::of(&self.setup.watchers, watcher) {
            // `--flag-notice-after`: an exact notice, no random draw.
            FlagNotice::After(ms) => Duration::from_millis(ms),
            FlagNotice::AtPress => return self.at_press.push(watcher),
            FlagNotice::Never => return,
            FlagNotice::Drawn { mean_ms } => {
                let delay_ms = -mean_ms * (1.0 - self.rng.random::<f64>()).ln();
                Duration::from_micros((delay_ms * 1000.0) as u64)
            }
        };
        self.notices.push((from + delay, watcher, Claimable::Flag));
    }

    /// An engine's `bestmove` arrived: injections first (an illegal move in its place, a flag
    /// fall on purpose), then the move is made, or held back until its release.
    fn arrive(
        &mut self,
        side: Side,
        mut text: String,
        at: Instant,
        info: crate::event::SearchInfo,
    ) -> Option<Ending> {
        let t_us = self.us(at);
        // What the move is, found once: `on_reply` rules the same text in the same position,
        // unless an injected illegal move takes its place.
        let mut check = Some(self.referee.check_legal(&text));
        if matches!(check, Some(CheckedMove::Legal(_))) {
            match self.injector.replace_move(self.referee.position()) {
                Some(IllegalInjection::Injected { kind, uci }) => {
                    self.events.push(Event::Injected {
                        t_us,
                        side,
                        what: Injection::Illegal {
                            kind,
                            replaced: text.clone(),
                            sent: uci.clone(),
                        },
                    });
                    text = uci;
                    check = None;
                }
                Some(IllegalInjection::NotPossible) => {
                    self.events.push(Event::Injected {
                        t_us,
                        side,
                        what: Injection::IllegalNotPossible {
                            replaced: text.clone(),
                        },
                    });
                }
                None => {}
            }
        }
        if let Some(release) = self.hold_until(side, &text, at) {
            let overshoot_ms = release
                .saturating_duration_since(self.clock.flag_deadline().unwrap_or(release))
                .as_millis() as u64;
            let mode = match self.injector.flag_plan() {
                Some(FlagPlan::Both { .. }) => FlagMode::Both,
                Some(FlagPlan::AtMate { .. }) => FlagMode::AtMate,
                _ => FlagMode::Stall,
            };
            self.events.push(Event::Injected {
                t_us,
                side,
                what: Injection::Flag { mode, overshoot_ms },
            });
            self.verdicts.injected(side, mode);
            self.held = Some(Held {
                side,
                text,
                info,
                release,
            });
            return None;
        }
        self.on_reply(side, text, check, at, info)
    }

    /// Whether the flag plan holds this move back, and until when.
    fn hold_until(&mut self, side: Side, text: &str, at: Instant) -> Option<Instant> {
        let deadline = self.clock.flag_deadline()?;
        if self.referee.flag_fell(side) || at >= deadline {
            return None; // its flag is down already
        }
        let ms = |n: u64| Duration::from_millis(n);
        // `both`, second half: held until its own flag falls.
        if self.verdicts.second_staller() == Some(side) {
            return Some(deadline + ms(1));
        }
        if self.flag_injected {
            return None;
        }
        let move_number = self.moves_made[side] + 1;
        let release = match self.injector.flag_plan()? {
            FlagPlan::Stall {
                side: s,
                at_move,
                overshoot_ms,
            } if s == side && move_number == at_move => deadline + ms(overshoot_ms),
            FlagPlan::Both {
                first,
                at_move,
                gap_ms,
            } if first == side && move_number == at_move => {
                // The second flag falls `gap_ms` after the first: the opponent's clock starts at
                // the release and runs out after its time left, so the gap cannot be shorter
                // than that; the decision itself depends on the plan only, so a seed replays it.
                let opponent_left_ms = (self.clock.left_us(side.other(), at) / 1000).max(0) as u64;
                deadline + ms(gap_ms.saturating_sub(opponent_left_ms))
            }
            FlagPlan::AtMate { overshoot_ms } => {
                let MoveCheck::Legal(m) = self.referee.check_move(text) else {
                    return None;
                };
                let mut after = self.referee.position().clone();
                after.play_unchecked(m);
                if !after.is_checkmate() {
                    return None;
                }
                deadline + ms(overshoot_ms)
            }
            _ => return None,
        };
        self.flag_injected = true;
        Some(release)
    }

    /// `--illegal-notice-after N`: the watcher notices the illegal move that stood N plies
    /// after it, and claims; too late, so the move stands (the referee rules nothing).
    fn notice_late_illegal(&mut self, at: Instant) {
        let Some((by, at_ply)) = self.late_illegal else {
            return;
        };
        if self.referee.plies() < at_ply {
            return;
        }
        self.late_illegal = None;
        let t_us = self.us(at);
        self.record(Event::Notice {
            t_us,
            by,
            what: Claimable::IllegalMove,
        });
        self.claim_or_queue(at, by, Claimable::IllegalMove);
    }

    /// A flag plan that never found its moment is recorded as not possible.
    fn flag_plan_not_carried_out(&mut self, at: Instant) {
        let Some(plan) = self.injector.flag_plan() else {
            return;
        };
        if self.flag_injected {
            return;
        }
        let (side, mode, why) = match plan {
            FlagPlan::Stall { side, at_move, .. } => (
                side,
                FlagMode::Stall,
                format!("the game ended before {}'s move {at_move}", side.name()),
            ),
            FlagPlan::Both { first, at_move, .. } => (
                first,
                FlagMode::Both,
                format!("the game ended before {}'s move {at_move}", first.name()),
            ),
            FlagPlan::AtMate { .. } => (
                Side::White,
                FlagMode::AtMate,
                "no move gave mate".to_string(),
            ),
        };
        let t_us = self.us(at);
        self.events.push(Event::Injected {
            t_us,
            side,
            what: Injection::FlagNotPossible { mode, why },
        });
    }

    /// Acts on a verdict given at `at`, as the one interpreter of verdicts says (`verdicts.rs`).
    fn act(&mut self, verdict: Verdict, at: Instant) -> Option<Ending> {
        let cannot_stand = self.referee.pending_cannot_stand();
        match self
            .verdicts
            .act(verdict, &self.setup.watchers, cannot_stand)
        {
            Action::Continue => None,
            Action::End(ending) => {
                // Fix: the clocks stop when the game is decided (a claim completing stops the
                // clocks, docs/architecture.md, "The model"), not when the loop has finished stopping the engine that
                // was thinking; the end clocks used to include that (1-5 ms, more for a slow
                // `stop`), and a claimant's clock started at the press ran on meanwhile.
                self.ended_at.get_or_insert(at);
                Some(ending)
            }
            Action::WatchFlags(sides) => {
                for side in sides {
                    self.schedule_notice(side, at);
                }
                None
            }
            Action::Illegal { by, notice } => {
                let noticed = match notice {
                    IllegalNotice::Now => true,
                    IllegalNotice::Stands => false,
                    IllegalNotice::Late { plies } => {
                        self.late_illegal = Some((by, self.referee.plies() + 1 + plies));
                        false
                    }
                    IllegalNotice::Drawn(p) => self.rng.random_bool(p),
                };
                let t_us = self.us(at);
                if noticed {
                    self.record(Event::Notice {
                        t_us,
                        by,
                        what: Claimable::IllegalMove,
                    });
                    self.claim_or_queue(at, by, Claimable::IllegalMove);
                    None
                } else {
                    let verdict = self.record(Event::Unnoticed { t_us, by });
                    if verdict == Verdict::Continue {
                        // The illegal move stands: engines are told the position by FEN.
                        self.rebase();
                    }
                    // A move that stands is a move: the tables follow it too.
                    let verdict = self.tablebase_verdict(verdict, at);
                    self.act(verdict, at)
                }
            }
            Action::Penalty {
                side,
                add_us,
                rule,
                retake,
            } => {
                let t_us = self.us(at);
                self.record(Event::Penalty {
                    t_us,
                    side,
                    add_us,
                    rule: rule.to_string(),
                });
                self.clock.add(side, add_us);
                if retake {
                    // The position before the illegal move; the offender moves again, its
                    // clock starting with its `go`.
                    if self.clock.running().is_some() {
                        self.clock.stop(at);
                    }
                    self.pressed = None;
                    if self.rebased {
                        self.rebase();
                    }
                }
                None
            }
        }
    }

    /// Handles the thinking engine's `bestmove` read at `at`; `check` is what the referee found
    /// `text` to be in the current position (`Referee::check_legal`), when it was asked already.
    fn on_reply(
        &mut self,
        side: Side,
        text: String,
        check: Option<CheckedMove>,
        at: Instant,
        info: crate::event::SearchInfo,
    ) -> Option<Ending> {
        let turn = self.clock.stop(at).unwrap_or(crate::clock::Turn {
            side,
            think_us: 0,
            left_us: self.clock.left_us(side, at),
        });
        self.pressed = Some((at, side));
        self.moves_made[side] += 1;
        // `--flag-notice-after press`: this side's watcher notices the fallen flag now.
        if let Some(i) = self.at_press.iter().position(|s| *s == side) {
            self.at_press.remove(i);
            self.notices.push((at, side, Claimable::Flag));
        }
        let t_us = self.us(at);
        if self.referee.is_king_capture(&text) {
            // Capturing the king the opponent left in check is a claim of the illegal move
            // (docs/architecture.md, "Fault injection").
            self.notes
                .push(format!("{} captured the king with {text}", side.name()));
            let verdict = self.record(Event::Claim {
                t_us,
                by: side,
                what: Claimable::KingCapture,
            });
            return self.act(verdict, at);
        }
        let check = check.unwrap_or_else(|| self.referee.check_legal(&text));
        let event = match check {
            CheckedMove::Legal(checked) => {
                // What the referee found the move's text to be: not checked again.
                self.checked = Some(checked);
                let uci = crate::rules::uci_text_in(self.referee.position(), checked.get(), text);
                Event::Move {
                    t_us,
                    side,
                    uci,
                    think_us: turn.think_us,
                    clock_us: turn.left_us,
                    info,
                }
            }
            CheckedMove::Illegal(illegal) => Event::IllegalMove {
                t_us,
                side,
                uci: text,
                think_us: turn.think_us,
                clock_us: turn.left_us,
                reason: illegal.reason.clone(),
                kind: Some(illegal.kind),
            },
            CheckedMove::Unplayable { reason } => Event::IllegalMove {
                t_us,
                side,
                uci: text,
                think_us: turn.think_us,
                clock_us: turn.left_us,
                reason,
                kind: None,
            },
        };
        let verdict = self.record(event);
        // `record` keeps the event last: a legal move goes to the engines from there.
        if let Some(Event::Move { uci, .. }) = self.events.last() {
            self.position.push(uci);
            if self.position.moves >= REBASE_AFTER && self.referee.position().halfmoves() == 0 {
                // A capture or pawn move: no earlier position can recur (FIDE 9.2.3), so the
                // engines are told this one by FEN and the moves since, not the whole game:
                // a move late in a long game costs what an early one does.
                self.position = PositionCommand::fen(&self.referee);
            }
        }
        self.notice_late_illegal(at);
        if self.base_illegal && position_is_illegal(self.referee.position()).is_none() {
            // Fix: the position command used to keep the illegal position an unnoticed illegal
            // move left as its base (`position fen <illegal> moves ...`) after a legal reply had
            // made the position legal again. Engines cannot set that up: the `script` engine
            // answered `0000` (an illegal move of its own), Stockfish crashes (and, the illegal
            // move no longer claimable, lost by `engine-crash`). Engines are now told the legal
            // position on the board by its own FEN.
            self.rebase();
        }
        let verdict = self.tablebase_verdict(verdict, at);
        self.act(verdict, at)
    }
}

impl Game<'_> {
    /// `--tb`: a move that leaves a position the Syzygy tables hold ends the game with their
    /// verdict, recorded as an event for the referee to rule (`tablebase.rs`).
    fn tablebase_verdict(&mut self, verdict: Verdict, at: Instant) -> Verdict {
        let Some(tables) = &self.setup.tablebase else {
            return verdict;
        };
        if verdict != Verdict::Continue
            || self.referee.waiting()
            || self.referee.position_is_illegal()
        {
            return verdict;
        }
        match tables.probe(self.referee.position()) {
            Some((material, wdl)) => self.record(Event::Tablebase {
                t_us: self.us(at),
                material,
                verdict: wdl,
            }),
            None => verdict,
        }
    }
}

/// What the loop does after a phase.
enum Flow {
    /// On to the next phase.
    Next,
    /// Back to asking for a move (nothing to wait for yet).
    Again,
    /// The game is over.
    Over(Ending),
}

impl Game<'_> {
    fn new(setup: &GameSetup) -> Game<'_> {
        Game {
            setup,
            started_utc: utc_now(),
            referee: setup.referee(),
            clock: Clock::new(setup.tc.white, setup.tc.black).with_margin(setup.time_margin),
            position: PositionCommand::opening(&setup.opening),
            go: String::with_capacity(64),
            events: Vec::with_capacity(256),
            t0: Instant::now(),
            rng: setup.rng(),
            thinking: None,
            notices: Vec::new(),
            claim: None,
            queued: Vec::new(),
            pressed: None,
            notes: Vec::new(),
            rebased: false,
            base_illegal: false,
            ended_at: None,
            injector: GameInjector::new(&setup.inject, setup.seed, setup.game),
            moves_made: BySide::default(),
            held: None,
            flag_injected: false,
            verdicts: Verdicts::default(),
            at_press: Vec::new(),
            late_illegal: None,
            offered: BySide::default(),
            pondering: None,
            shortage: None,
            last_report: None,
            checked: None,
        }
    }

    /// Phase 1: asks the side to move for its move, unless a claim is in progress (the clocks
    /// are being stopped), a move is held back, or the game waits for a watcher.
    async fn ask_for_move(&mut self, engines: &mut Engines<'_>) -> Flow {
        let turn = self.referee.turn();
        if self.thinking.is_some()
            || self.held.is_some()
            || self.referee.waiting()
            || self.claim.is_some()
        {
            if self.clock.running().is_none() {
                // Nobody is asked to move, but the clock the last press started runs.
                if let Some((at, presser)) = self.pressed {
                    self.clock.start(presser.other(), at);
                }
            }
            return Flow::Next;
        }
        let asked = match self.resolve_ponder(turn, engines).await {
            ponder::Resolved::Hit(at) => Ok((at, true)),
            ponder::Resolved::Stalled(flow) => return flow,
            ponder::Resolved::Died(e) => Err(e),
            ponder::Resolved::NotPondering | ponder::Resolved::Missed => {
                write_go(&mut self.go, self.setup, &self.clock, turn, Instant::now());
                let engine = engines[turn].engine();
                if self.setup.pv_checks.is_some() {
                    engine.log_search_lines();
                }
                let sent = engine.go(&self.position.text, &self.go).await;
                sent.map(|started| (started, false))
            }
        };
        match asked {
            Ok((started, ponderhit)) => {
                match self.clock.running() {
                    // Its clock already runs (it started at the press while the engine was
                    // not asked to move).
                    Some(running) if running == turn => {}
                    Some(_) => {
                        self.clock.stop(started);
                        self.clock.start(turn, started);
                    }
                    None => self.clock.start(turn, started),
                }
                let t_us = self.us(started);
                let clock_us = self.clock.left_us(turn, started);
                self.events.push(Event::Go {
                    t_us,
                    side: turn,
                    clock_us,
                    ponderhit,
                });
                self.thinking = Some(turn);
                self.start_pondering(turn, engines).await;
                Flow::Next
            }
            Err(e) => {
                // The engine died while it was not its turn; its pipe is closed.
                engines[turn].retire();
                let (status, _) = engines[turn].engine().exit_report().await;
                let t_us = self.us(Instant::now());
                let verdict = self.record(Event::EngineFault {
                    t_us,
                    side: turn,
                    fault: Fault::Crash { status },
                    detail: e.to_string(),
                });
                match self.act(verdict, Instant::now()) {
                    Some(ending) => Flow::Over(ending),
                    None => Flow::Again,
                }
            }
        }
    }

    /// Phase 2: waits for the thinking engine's reply or the next timer, whichever comes
    /// first; `Err` when there is nothing left to wait for.
    async fn wait(&mut self, engines: &mut Engines<'_>) -> Result<Reply, Ending> {
        let next = self.next_timer();
        match self.thinking {
            Some(side) => {
                let deadline = next.map_or_else(
                    || Instant::now() + Duration::from_secs(86_400),
                    |(at, _)| at,
                );
                let reply = engines[side].engine().bestmove(deadline).await;
                if matches!(reply, Reply::BestMove { .. }) {
                    timers::after_due().await;
                }
                self.record_strays(side, engines);
                if let (Some(checks), Reply::BestMove { text, at, .. }) =
                    (&self.setup.pv_checks, &reply)
                {
                    self.check_pvs(side, engines, checks, text, *at).await;
                }
                Ok(reply)
            }
            None => match next {
                Some((at, _)) => {
                    timers::sleep_until(at).await;
                    Ok(Reply::Deadline)
                }
                // H10, H13: the game waits for the mated side's watcher after a mate by a
                // flagged side, and nothing is left that it could notice: the mate stands.
                None if self.referee.waiting() => {
                    let at = Instant::now();
                    let by = self.referee.turn();
                    let verdict = self.record(Event::Unnoticed {
                        t_us: self.us(at),
                        by,
                    });
                    match self.act(verdict, at) {
                        Some(ending) => Err(ending),
                        None => Ok(Reply::Deadline),
                    }
                }
                None => Err(Ending {
                    result: crate::event::GameResult::Draw,
                    termination: crate::event::Termination::MaxMoves,
                    rule: "arena: nothing left to wait for".to_string(),
                    detail: "no engine to move and no pending flag, notice or claim".to_string(),
                }),
            },
        }
    }

    /// The checks fastchess makes as it reads a move (`pvcheck`), in its order, each printed as
    /// fastchess prints it, before the move is ruled (so before a time loss's or an illegal
    /// move's lines): the PV of each scored `info` line of the search `side`'s `bestmove`
    /// (`text`, read `at`) just ended; for a legal move, the last PV's first move against the
    /// `bestmove`; and for a legal move in time, the signs of this move's and the previous
    /// move's mate scores.
    async fn check_pvs(
        &mut self,
        side: Side,
        engines: &mut Engines<'_>,
        checks: &PvChecks,
        text: &str,
        at: Instant,
    ) {
        let search = engines[side].engine().take_search_lines();
        // Before the PV checks, as fastchess reads the move's score first.
        let score = pvcheck::score_warning(&search.scored, search.count(), &self.setup.names[side]);
        let lines = search.scored;
        let history = self.referee.history();
        let before = &history[..history.len().saturating_sub(1)];
        let pos = self.referee.position();
        let mut warnings: Vec<(pvcheck::PvWarning, &str)> = lines
            .iter()
            .filter_map(|l| Some((pvcheck::check(pos, before, l, checks.mate_pvs)?, l.as_str())))
            .collect();
        let legal = pvcheck::legal_move(pos, pos.castles().mode(), text).is_some();
        if legal {
            warnings.extend(pvcheck::bestmove_mismatch(&lines, text));
        }
        let report = pvcheck::last_info_line(&lines).unwrap_or_default();
        let in_time = self.clock.flag_deadline().is_none_or(|flag| at < flag);
        let previous = self.last_report.replace(report.to_string());
        let previous = previous.filter(|_| legal && in_time);
        let signs = previous.as_deref().is_some_and(|p| {
            pvcheck::mate_score(p).is_some() && pvcheck::mate_score(report).is_some()
        });
        if score.is_none() && warnings.is_empty() && !signs {
            return;
        }
        let name = &self.setup.names[side];
        let root = self.setup.opening.root_fen.as_deref();
        let mut moves = self.moves_played();
        let mut out: Vec<String> = score.into_iter().collect();
        out.extend(
            warnings
                .iter()
                .map(|(w, line)| pvcheck::report(w, name, line, root, &moves)),
        );
        if let Some(previous) = previous.as_deref().filter(|_| signs) {
            moves.push(text);
            let them = pvcheck::Mover {
                name: &self.setup.names[side.other()],
                white: side.other() == Side::White,
                report: previous,
            };
            let us = pvcheck::Mover {
                name,
                white: side == Side::White,
                report,
            };
            out.extend(pvcheck::sign_mismatch(&them, &us, root, &moves));
        }
        for line in out {
            (checks.sink.0)(line).await;
        }
    }

    /// The moves played from the opening's root: the book's, then the game's.
    fn moves_played(&self) -> Vec<&str> {
        let book = self.setup.opening.moves.iter().map(String::as_str);
        let played = self.events.iter().filter_map(|e| match e {
            Event::Move { uci, .. } => Some(uci.as_str()),
            _ => None,
        });
        book.chain(played).collect()
    }

    /// Records the `bestmove` lines `side`'s engine sent before the `go` they would answer
    /// (issue 8.2): discarded, each placed in the record at the instant it was read.
    fn record_strays(&mut self, side: Side, engines: &mut Engines<'_>) {
        for (at, line) in engines[side].engine().take_stray() {
            let t_us = self.us(at);
            let index = self
                .events
                .iter()
                .rposition(|e| e.t_us() <= t_us)
                .map_or(0, |i| i + 1);
            self.events
                .insert(index, Event::Discarded { t_us, side, line });
        }
    }

    /// Phase 3: fires the timers due before the reply was read (or by now), in order.
    async fn fire_due_timers(
        &mut self,
        reply: &Reply,
        engines: &mut Engines<'_>,
    ) -> Option<Ending> {
        let reply_at = match reply {
            Reply::BestMove { at, .. } | Reply::Exited { at } => Some(*at),
            Reply::Deadline => None,
        };
        while let Some((at, timer)) = self.next_timer() {
            let due = match reply_at {
                Some(r) => at <= r,
                None => at <= Instant::now(),
            };
            if !due {
                break;
            }
            if let Some(ending) = self.fire(at, timer) {
                // Fix: the thinking engine's reply was already read (a timer due before it
                // ended the game: a flag that fell just before the `bestmove` arrived). The
                // engine is idle, so it must not be sent `stop` and waited for: it used to be,
                // and after a second without an answer the game was ruled `engine-stall` (and
                // the healthy engine restarted) instead of by the flag. An engine that exited
                // is restarted.
                if let Some(side) = self.thinking {
                    match reply {
                        Reply::BestMove { .. } => self.thinking = None,
                        Reply::Exited { .. } => {
                            self.thinking = None;
                            engines[side].retire();
                        }
                        Reply::Deadline => {}
                    }
                }
                return Some(ending);
            }
            // A claim started by the thinking side: its engine stops to claim.
            if let (Some(side), Some((_, by, _))) = (self.thinking, self.claim) {
                if side == by && reply_at.is_none() {
                    if !engines[side].engine().stop().await {
                        engines[side].retire();
                    }
                    self.record_strays(side, engines);
                    self.thinking = None;
                    if self.clock.running().is_none() {
                        self.clock.start(side, at);
                    }
                }
            }
        }
        None
    }

    /// Phase 4: acts on the thinking engine's reply: its move, or its crash.
    async fn act_on_reply(&mut self, reply: Reply, engines: &mut Engines<'_>) -> Option<Ending> {
        let side = self.thinking?;
        match reply {
            Reply::Deadline => None,
            Reply::BestMove { text, at, info } => {
                self.thinking = None;
                self.offer_ponder_move(side, engines);
                if self.claim.is_some_and(|c| c.1 == side) {
                    // It claims rather than moves; the move it sent meanwhile is ignored.
                    return None;
                }
                self.arrive(side, text, at, info)
            }
            Reply::Exited { at } => self.on_crash(side, at, engines).await,
        }
    }

    /// The thinking engine closed its output at `at`.
    async fn on_crash(
        &mut self,
        side: Side,
        at: Instant,
        engines: &mut Engines<'_>,
    ) -> Option<Ending> {
        self.thinking = None;
        self.clock.stop(at);
        self.pressed = None;
        engines[side].retire();
        let (status, report) = engines[side].engine().exit_report().await;
        let t_us = self.us(at);
        if !self.referee.can_claim_standing_illegal(side) {
            let verdict = self.record(Event::EngineFault {
                t_us,
                side,
                fault: Fault::Crash { status },
                detail: report,
            });
            return self.act(verdict, at);
        }
        // An engine that crashes on the illegal position it was handed has noticed the
        // illegal move: its claim (docs/architecture.md, "Fault injection").
        self.notes.push(format!(
            "{} crashed on the illegal position ({report}): taken as its claim",
            side.name()
        ));
        let verdict = self.record(Event::Claim {
            t_us,
            by: side,
            what: Claimable::IllegalMove,
        });
        if let Some(ending) = self.act(verdict, at) {
            return Some(ending);
        }
        // The rules play on (FIDE 7.5.5): the engine is restarted within the game.
        let failed = match engines[side].restart().await {
            Ok(_) => return None,
            Err(e) => e,
        };
        if failed.shortage().is_some() {
            self.shortage = Some(failed.to_string());
        }
        self.notes
            .push(format!("{} could not be restarted: {failed}", side.name()));
        let verdict = self.record(Event::EngineFault {
            t_us: self.us(Instant::now()),
            side,
            fault: Fault::StartFailed,
            detail: format!("restart after a crash on an illegal position failed: {failed}"),
        });
        self.act(verdict, at)
    }

    /// Phase 5: stops an engine still thinking and writes the end of the record.
    async fn finish(mut self, mut ending: Ending, engines: &mut Engines<'_>) -> Played {
        // An engine still thinking is stopped, so it is in step for its next game; one that
        // ignores `stop` has hung and is replaced.
        if let Some(side) = self.thinking.take() {
            let answered = engines[side].engine().stop().await;
            self.record_strays(side, engines);
            if !answered {
                engines[side].retire();
                let t_us = self.us(Instant::now());
                self.record(Event::EngineFault {
                    t_us,
                    side,
                    fault: Fault::Stall,
                    detail: "no bestmove after stop".to_string(),
                });
                if let Some(refined) = self.referee.ending() {
                    ending = refined.clone();
                }
            }
        }
        self.stop_pondering_at_end(engines).await;
        if !self.notes.is_empty() {
            let notes = self.notes.join("; ");
            ending.detail = if ending.detail.is_empty() {
                notes
            } else {
                format!("{}; {notes}", ending.detail)
            };
        }
        let now = Instant::now();
        let stopped = self.ended_at.unwrap_or(now);
        self.flag_plan_not_carried_out(stopped);
        let clocks = BySide::from_fn(|side| self.clock.left_us(side, stopped));
        let t_us = self.us(now);
        self.events.push(end_event(t_us, &ending, clocks));
        Played {
            record: self.setup.record(self.started_utc.clone(), self.events),
            shortage: self.shortage,
        }
    }
}

/// The seats of a game's two engines, by side.
type Engines<'e> = BySide<&'e mut Seat>;

/// Prepares both engines for a new game. An engine that died while idle since its last game
/// is restarted (issue 8.5), and the game's notes say so; only when the restart fails does
/// its side forfeit the game, and the detail says why.
async fn new_game(setup: &GameSetup, engines: &mut Engines<'_>) -> Result<Vec<String>, Played> {
    let mut notes = Vec::new();
    for side in Side::ALL {
        let Err(e) = engines[side].engine().new_game().await else {
            continue;
        };
        match engines[side].restart().await {
            Ok(_) => {
                notes.push(format!(
                    "{}'s engine had died while idle ({e}): restarted",
                    side.name()
                ));
            }
            Err(again) => {
                let detail = format!("{e}; restart failed: {again}");
                return Err(Played {
                    record: forfeit(setup, side, detail),
                    shortage: again.shortage().map(|_| again.to_string()),
                });
            }
        }
    }
    Ok(notes)
}

/// Plays one game on two seats whose engines are ready, white first: a loop of phases (ask for
/// a move, wait for the reply or the next timer, fire the timers due, act on the reply) until
/// the game is over, then finish the record.
pub async fn play(setup: &GameSetup, white: &mut Seat, black: &mut Seat) -> Played {
    let mut engines: Engines = BySide::new(white, black);
    let notes = match new_game(setup, &mut engines).await {
        Ok(notes) => notes,
        Err(forfeited) => return forfeited,
    };
    // A game about to start lets the games whose timers are due go first, as a move does: no
    // clock runs until its first `go`.
    timers::after_due().await;
    let mut game = Game::new(setup);
    game.notes = notes;
    let ending = loop {
        match game.ask_for_move(&mut engines).await {
            Flow::Next => {}
            Flow::Again => continue,
            Flow::Over(ending) => break ending,
        }
        let reply = match game.wait(&mut engines).await {
            Ok(reply) => reply,
            Err(ending) => break ending,
        };
        if let Some(ending) = game.fire_due_timers(&reply, &mut engines).await {
            break ending;
        }
        if let Some(ending) = game.act_on_reply(reply, &mut engines).await {
            break ending;
        }
    };
    game.finish(ending, &mut engines).await
}
