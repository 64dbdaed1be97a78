//! One game in real time: drives two engines and the clock, and records what happens as
//! events. The referee decides what the events mean; this loop only asks it.

use std::time::Duration;

use shakmaty::uci::UciMove;
use tokio::time::Instant;

use crate::clock::{micros, Clock};
use crate::engine::{Engine, Reply};
use crate::event::{Event, Fault, GameRecord, Side};
use crate::openings::Opening;
use crate::rules::{Ending, Referee, RefereeSettings};
use crate::timecontrol::TimeControl;

/// Fixed search limits sent with every `go` (the clock still runs and is recorded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SearchLimits {
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
}

/// Everything one game needs besides its two engines.
#[derive(Clone, Debug)]
pub struct GameSetup {
    /// 1-based number in the run's schedule.
    pub game: u64,
    /// 1-based number of its pair of games (colours swapped on one opening).
    pub pair: u64,
    /// Engine names, white first.
    pub names: [String; 2],
    pub opening: Opening,
    /// Time controls, white first.
    pub tc: [TimeControl; 2],
    pub settings: RefereeSettings,
    pub limits: SearchLimits,
    pub time_margin: Duration,
    pub seed: u64,
}

/// A finished game, and which engines must be restarted before their next game (they
/// crashed or hung).
#[derive(Debug)]
pub struct Played {
    pub record: GameRecord,
    pub restart: [bool; 2],
}

impl GameSetup {
    fn record(&self, started: String, events: Vec<Event>) -> GameRecord {
        GameRecord {
            game: self.game,
            pair: self.pair,
            white: self.names[0].clone(),
            black: self.names[1].clone(),
            opening: self.opening.record(),
            ruleset: self.settings.ruleset,
            tc_white: self.tc[0],
            tc_black: self.tc[1],
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

    /// The `position` command for the game's start: the opening's root and book moves.
    fn position_command(&self) -> String {
        let mut command = match &self.opening.root_fen {
            None => "position startpos".to_string(),
            Some(fen) => format!("position fen {fen}"),
        };
        if !self.opening.moves.is_empty() {
            command.push_str(" moves");
            for m in &self.opening.moves {
                command.push(' ');
                command.push_str(m);
            }
        }
        command
    }
}

fn end_event(t_us: i64, ending: &Ending, clock_us: [i64; 2]) -> Event {
    Event::End {
        t_us,
        result: ending.result,
        termination: ending.termination,
        rule: ending.rule.clone(),
        detail: ending.detail.clone(),
        white_clock_us: clock_us[0],
        black_clock_us: clock_us[1],
    }
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
        .expect("a start failure ends the game")
        .clone();
    let full = [micros(setup.tc[0].base), micros(setup.tc[1].base)];
    setup.record(utc_now(), vec![fault, end_event(0, &ending, full)])
}

fn utc_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn go_command(setup: &GameSetup, clock: &Clock, now: Instant) -> String {
    // UCI has no negative times: a side past its flag (within --time-margin) is told 1 ms.
    let ms = |side: Side| (clock.left_us(side, now) / 1000).max(1);
    let mut go = format!(
        "go wtime {} btime {} winc {} binc {}",
        ms(Side::White),
        ms(Side::Black),
        setup.tc[0].increment.as_millis(),
        setup.tc[1].increment.as_millis()
    );
    if let Some(nodes) = setup.limits.nodes {
        go.push_str(&format!(" nodes {nodes}"));
    }
    if let Some(depth) = setup.limits.depth {
        go.push_str(&format!(" depth {depth}"));
    }
    go
}

/// Plays one game between two started engines, white first.
pub async fn play(setup: &GameSetup, white: &mut Engine, black: &mut Engine) -> Played {
    let mut restart = [false; 2];
    for (side, engine) in [(Side::White, &mut *white), (Side::Black, &mut *black)] {
        if let Err(e) = engine.new_game().await {
            restart[side.index()] = true;
            return Played {
                record: forfeit(setup, side, e.to_string()),
                restart,
            };
        }
    }

    let started_utc = utc_now();
    let mut referee = setup.referee();
    let mut clock = Clock::new(setup.tc[0], setup.tc[1]).with_margin(setup.time_margin);
    let mut position = setup.position_command();
    let mut moves_sent = !setup.opening.moves.is_empty();
    let mut events = Vec::with_capacity(256);
    let t0 = Instant::now();
    let us = |at: Instant| micros(at.saturating_duration_since(t0));

    let ending = loop {
        let side = referee.turn();
        let engine = match side {
            Side::White => &mut *white,
            Side::Black => &mut *black,
        };
        let go = go_command(setup, &clock, Instant::now());
        let started = match engine.go(&position, &go).await {
            Ok(at) => at,
            Err(e) => {
                // The engine died while it was not its turn; its pipe is closed.
                restart[side.index()] = true;
                let (status, _) = engine.exit_report().await;
                let fault = Event::EngineFault {
                    t_us: us(Instant::now()),
                    side,
                    fault: Fault::Crash { status },
                    detail: e.to_string(),
                };
                events.push(fault.clone());
                break referee.apply(&fault).cloned();
            }
        };
        clock.start(side, started);
        events.push(Event::Go {
            t_us: us(started),
            side,
            clock_us: clock.left_us(side, started),
        });
        let deadline = clock.flag_deadline().expect("the mover's clock runs");

        match engine.bestmove(deadline).await {
            Reply::BestMove { text, at, info } if at <= deadline => {
                let turn = clock.stop(at).expect("the mover's clock runs");
                let event = match referee.check_move(&text) {
                    Ok(m) => {
                        // Sent on in standard notation, whatever form the engine used.
                        let uci = UciMove::from_standard(m).to_string();
                        position.push_str(if moves_sent { " " } else { " moves " });
                        position.push_str(&uci);
                        moves_sent = true;
                        Event::Move {
                            t_us: us(at),
                            side,
                            uci,
                            think_us: turn.think_us,
                            clock_us: turn.left_us,
                            info,
                        }
                    }
                    Err(reason) => Event::IllegalMove {
                        t_us: us(at),
                        side,
                        uci: text,
                        think_us: turn.think_us,
                        clock_us: turn.left_us,
                        reason,
                    },
                };
                events.push(event);
                if let Some(ending) = referee.apply(events.last().expect("just pushed")) {
                    break Some(ending.clone());
                }
            }
            Reply::BestMove { at, .. } => {
                // The move came, but after the flag fell (the read instant is exact).
                clock.stop(at);
                let flag = Event::FlagFall {
                    t_us: us(deadline),
                    side,
                };
                events.push(flag.clone());
                let mut ending = referee.apply(&flag).cloned();
                if let Some(e) = &mut ending {
                    e.detail.push_str(&format!(
                        "; bestmove read {} ms after the flag",
                        (at - deadline).as_millis()
                    ));
                }
                break ending;
            }
            Reply::Deadline => {
                clock.stop(deadline);
                let flag = Event::FlagFall {
                    t_us: us(deadline),
                    side,
                };
                events.push(flag.clone());
                referee.apply(&flag);
                // Let the engine finish its search so it is in step for its next game; one
                // that ignores `stop` has hung and is replaced.
                if !engine.stop().await {
                    restart[side.index()] = true;
                    let stall = Event::EngineFault {
                        t_us: us(Instant::now()),
                        side,
                        fault: Fault::Stall,
                        detail: "no bestmove after stop".to_string(),
                    };
                    events.push(stall.clone());
                    referee.apply(&stall);
                }
                break referee.ending().cloned();
            }
            Reply::Exited { at } => {
                clock.stop(at);
                restart[side.index()] = true;
                let (status, report) = engine.exit_report().await;
                let fault = Event::EngineFault {
                    t_us: us(at),
                    side,
                    fault: Fault::Crash { status },
                    detail: report,
                };
                events.push(fault.clone());
                break referee.apply(&fault).cloned();
            }
        }
    };
    let ending = ending.expect("every branch that leaves the loop ends the game");
    let now = Instant::now();
    let clocks = [
        clock.left_us(Side::White, now),
        clock.left_us(Side::Black, now),
    ];
    events.push(end_event(us(now), &ending, clocks));
    Played {
        record: setup.record(started_utc, events),
        restart,
    }
}
