//! A scripted UCI engine inside the test process, for tests of the game loop under
//! `tokio::time::pause`: it answers each `go` with the next step of its script after an exact
//! think time, so a whole game runs in virtual time, to the microsecond.
//!
//! It declares the `Ponder` option. A `go ponder` takes the next step but holds it: a
//! `ponderhit` starts it then (its think time counts from the ponderhit), a `stop` answers its
//! move at once (a `Hang` never answers; a `Crash` runs from the `go ponder`).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::{sleep_until, Instant};

use crate::engine::{Engine, MemoryEngine, Process, Timeouts};

/// What the engine does with one `go`.
#[derive(Clone, Debug)]
pub enum Step {
    /// `bestmove UCI` after thinking `think`; a `stop` answers at once.
    Move(&'static str, Duration),
    /// `bestmove UCI` after `think`, whatever `stop` says.
    IgnoreStop(&'static str, Duration),
    /// `bestmove UCI` after `think`, and a second, stray `bestmove` `after` that.
    Twice(&'static str, Duration, Duration),
    /// Never answers, `stop` included (a hung search); `isready` is still answered.
    Hang,
    /// Exits after `after`, without answering.
    Crash(Duration),
    /// `bestmove UCI` after `think`, even after `go ponder` (against UCI).
    Early(&'static str, Duration),
}

/// `bestmove UCI` after `ms` milliseconds.
pub fn mv(uci: &'static str, ms: u64) -> Step {
    Step::Move(uci, Duration::from_millis(ms))
}

/// Every command the engine received, with the instant it was read.
#[derive(Clone, Default)]
pub struct Log(Arc<Mutex<Vec<(Instant, String)>>>);

impl Log {
    fn push(&self, line: &str) {
        self.0
            .lock()
            .unwrap()
            .push((Instant::now(), line.to_string()));
    }

    /// The commands received that start with `prefix`.
    pub fn starting_with(&self, prefix: &str) -> Vec<String> {
        self.0
            .lock()
            .unwrap()
            .iter()
            .filter(|(_, l)| l.starts_with(prefix))
            .map(|(_, l)| l.clone())
            .collect()
    }
}

/// Starts a scripted engine and completes the arena's handshake with it.
pub async fn engine(name: &str, steps: Vec<Step>) -> (Engine, Log) {
    engine_with(name, steps, &[]).await
}

/// [`engine`], told it may ponder (`setoption name Ponder value true`).
pub async fn pondering_engine(name: &str, steps: Vec<Step>) -> (Engine, Log) {
    engine_with(name, steps, &[("Ponder".to_string(), "true".to_string())]).await
}

async fn engine_with(name: &str, steps: Vec<Step>, options: &[(String, String)]) -> (Engine, Log) {
    let (process, peer) = Process::in_memory();
    let log = Log::default();
    tokio::spawn(respond(peer, name.to_string(), steps, log.clone()));
    let engine = Engine::connect(name, process, Timeouts::default(), options)
        .await
        .expect("the scripted engine completes its handshake");
    (engine, log)
}

/// An answer due at a known instant.
enum Due {
    BestMove {
        text: &'static str,
        obeys_stop: bool,
        stray_after: Option<Duration>,
    },
    Stray(&'static str),
    Crash,
}

async fn respond(mut peer: MemoryEngine, name: String, steps: Vec<Step>, log: Log) {
    let mut next = 0;
    let mut due: Option<(Instant, Due)> = None;
    // The step a `go ponder` holds until `ponderhit` or `stop`.
    let mut pondering: Option<Step> = None;
    loop {
        let command = match due.as_ref().map(|d| d.0) {
            Some(at) => tokio::select! {
                biased;
                command = peer.commands.recv() => command,
                () = sleep_until(at) => {
                    let (_, what) = due.take().expect("an answer is due");
                    match what {
                        Due::BestMove { text, stray_after, .. } => {
                            peer.say(&format!("bestmove {text}")).await;
                            due = stray_after.map(|d| (Instant::now() + d, Due::Stray(text)));
                        }
                        Due::Stray(text) => peer.say(&format!("bestmove {text}")).await,
                        Due::Crash => return peer.exit().await,
                    }
                    continue;
                }
            },
            None => peer.commands.recv().await,
        };
        let Some(command) = command else {
            return; // the arena dropped the engine
        };
        log.push(&command);
        match command.split_whitespace().next().unwrap_or("") {
            "uci" => {
                let ponder = "option name Ponder type check default false";
                peer.say(&format!("id name {name}\n{ponder}\nuciok")).await;
            }
            "isready" => peer.say("readyok").await,
            "ucinewgame" => next = 0,
            "go" | "ponderhit" => {
                let step = if command.starts_with("ponderhit") {
                    match pondering.take() {
                        Some(step) => step,
                        None => continue, // a ponderhit with no ponder search: ignored
                    }
                } else {
                    next += 1;
                    steps.get(next - 1).cloned().unwrap_or(Step::Hang)
                };
                if command.split_whitespace().any(|t| t == "ponder")
                    && !matches!(step, Step::Crash(_) | Step::Early(..))
                {
                    pondering = Some(step);
                    continue;
                }
                let now = Instant::now();
                due = match step {
                    Step::Move(text, think) | Step::Early(text, think) => Some((
                        now + think,
                        Due::BestMove {
                            text,
                            obeys_stop: true,
                            stray_after: None,
                        },
                    )),
                    Step::IgnoreStop(text, think) => Some((
                        now + think,
                        Due::BestMove {
                            text,
                            obeys_stop: false,
                            stray_after: None,
                        },
                    )),
                    Step::Twice(text, think, after) => Some((
                        now + think,
                        Due::BestMove {
                            text,
                            obeys_stop: true,
                            stray_after: Some(after),
                        },
                    )),
                    Step::Hang => None,
                    Step::Crash(after) => Some((now + after, Due::Crash)),
                };
            }
            "stop" if pondering.is_some() => match pondering.take() {
                Some(Step::Move(text, _) | Step::Twice(text, _, _)) => {
                    peer.say(&format!("bestmove {text}")).await;
                }
                Some(Step::IgnoreStop(text, think)) => {
                    let answer = Due::BestMove {
                        text,
                        obeys_stop: false,
                        stray_after: None,
                    };
                    due = Some((Instant::now() + think, answer));
                }
                _ => {}
            },
            "stop" => {
                if let Some((
                    at,
                    Due::BestMove {
                        obeys_stop: true, ..
                    },
                )) = &mut due
                {
                    *at = Instant::now();
                }
            }
            "quit" => return,
            _ => {}
        }
    }
}
