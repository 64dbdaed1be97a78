//! Pondering, as cutechess does it and as over the board: after its move, an engine that may
//! ponder (`ponder = true`, `--ponder`) and named a move to ponder on (`bestmove X ponder Y`)
//! is sent `position ... X Y` and `go ponder` once the opponent has been asked to move. It
//! thinks on the opponent's time: its own clock does not run. When it is its turn:
//!
//! - the opponent played Y (the board is the one it pondered): `ponderhit`, and its clock
//!   starts at the instant that line is written, as a `go`'s would;
//! - anything else (another move, an illegal move that stood, a retaken move): `stop`, its
//!   answer is read and discarded (`PonderStopped`; within the stop timeout: an engine that does not answer
//!   has hung and is ruled a stall), then the new position and a plain `go`.
//!
//! A game that ends while an engine ponders stops it the same way (`finish`). An engine that
//! sent its `bestmove` while pondering (against UCI) has it discarded and is sent a plain `go`.

use shakmaty::fen::Fen;
use shakmaty::{EnPassantMode, Position};
use tokio::time::Instant;

use super::{go_command, Engines, Flow, Game};
use crate::engine::{EngineError, Reply};
use crate::event::{Event, Fault, Side};
use crate::rules::illegal::MoveCheck;

/// A `go ponder` in progress.
#[derive(Debug)]
pub(super) struct Pondering {
    /// The side whose engine ponders (the side not to move).
    side: Side,
    /// The opponent's move it ponders on, as sent.
    mv: String,
    /// The board it ponders (its FEN): a ponderhit only if this is the board on its turn.
    fen: String,
}

/// How the ponder search of the side to move ended, when it was asked to move.
pub(super) enum Resolved {
    /// It was not pondering: a plain `go`.
    NotPondering,
    /// The opponent played the move it pondered on: `ponderhit` was written at this instant.
    Hit(Instant),
    /// It pondered on another move: it was stopped and its answer discarded; a plain `go`.
    Missed,
    /// It did not answer `stop` (recorded as a stall): what the loop does next.
    Stalled(Flow),
    /// Its pipe is closed: it died while pondering.
    Died(EngineError),
}

fn fen(position: &shakmaty::Chess) -> String {
    Fen::from_position(position, EnPassantMode::Legal).to_string()
}

impl Game<'_> {
    /// `side`'s `bestmove` was read: the move it would ponder on, if it named one.
    pub(super) fn offer_ponder_move(&mut self, side: Side, engines: &mut Engines<'_>) {
        self.offered[side] = engines[side].engine().ponder_move().map(str::to_string);
    }

    /// `turn` was just asked to move: its opponent's engine ponders on the move it named, if it
    /// may ponder and that move is legal on the board.
    pub(super) async fn start_pondering(&mut self, turn: Side, engines: &mut Engines<'_>) {
        self.offered[turn] = None;
        let side = turn.other();
        let Some(offered) = self.offered[side].take() else {
            return;
        };
        if self.pondering.is_some()
            || !engines[side].engine().ponders()
            || self.referee.position_is_illegal()
        {
            return;
        }
        let MoveCheck::Legal(m) = self.referee.check_move(&offered) else {
            return;
        };
        let mv = crate::rules::uci_text(self.referee.position(), m);
        let mut after = self.referee.position().clone();
        after.play_unchecked(m);
        let mut position = self.position.clone();
        position.push(&mv);
        // The clocks as they are now: the opponent's runs.
        let go = go_command(self.setup, &self.clock, side, Instant::now()).replacen(
            "go",
            "go ponder",
            1,
        );
        // An engine whose pipe is closed died while it was not its turn: that is found, and
        // ruled, when it is next asked to move, as without pondering.
        if let Ok(at) = engines[side].engine().go(&position.text, &go).await {
            let t_us = self.us(at);
            self.events.push(Event::Ponder {
                t_us,
                side,
                ponder: mv.clone(),
            });
            self.pondering = Some(Pondering {
                side,
                mv,
                fen: fen(&after),
            });
        }
    }

    /// `turn` is to be asked to move: if its engine ponders, a hit is answered by `ponderhit`
    /// and a miss by `stop`.
    pub(super) async fn resolve_ponder(
        &mut self,
        turn: Side,
        engines: &mut Engines<'_>,
    ) -> Resolved {
        let Some(pondering) = self.pondering.take_if(|p| p.side == turn) else {
            return Resolved::NotPondering;
        };
        if engines[turn].engine().answered_early() {
            // It sent its `bestmove` while pondering (against UCI): discarded, and the engine,
            // idle, is asked to move afresh, as cutechess does.
            self.record_strays(turn, engines);
            return Resolved::Missed;
        }
        if fen(self.referee.position()) == pondering.fen {
            return match engines[turn].engine().ponderhit().await {
                Ok(at) => Resolved::Hit(at),
                Err(e) => Resolved::Died(e),
            };
        }
        match self.stop_pondering(&pondering, engines).await {
            Ok(()) => Resolved::Missed,
            Err(Some(e)) => Resolved::Died(e),
            Err(None) => {
                engines[turn].retire();
                let now = Instant::now();
                let verdict = self.record(Event::EngineFault {
                    t_us: self.us(now),
                    side: turn,
                    fault: Fault::Stall,
                    detail: format!(
                        "no bestmove within {:?} after stop (pondering {}, not played)",
                        engines[turn].engine().timeouts().stop,
                        pondering.mv
                    ),
                });
                Resolved::Stalled(match self.act(verdict, now) {
                    Some(ending) => Flow::Over(ending),
                    None => Flow::Again,
                })
            }
        }
    }

    /// The game is over while an engine ponders: it is stopped, so it is in step for its next
    /// game; one that does not answer, or died, is restarted (the game is decided already).
    pub(super) async fn stop_pondering_at_end(&mut self, engines: &mut Engines<'_>) {
        let Some(pondering) = self.pondering.take() else {
            return;
        };
        let side = pondering.side;
        if let Err(e) = self.stop_pondering(&pondering, engines).await {
            engines[side].retire();
            let why = match e {
                Some(e) => e.to_string(),
                None => "it did not answer stop".to_string(),
            };
            self.notes
                .push(format!("{}'s engine, pondering: {why}", side.name()));
        }
    }

    /// `stop` to a pondering engine and its answer, read and recorded (`PonderStopped`). `Err(None)`
    /// when it did not answer within the stop timeout; `Err(Some)` when it is gone.
    async fn stop_pondering(
        &mut self,
        pondering: &Pondering,
        engines: &mut Engines<'_>,
    ) -> Result<(), Option<EngineError>> {
        let side = pondering.side;
        let reply = engines[side].engine().stop_search().await;
        self.record_strays(side, engines);
        match reply {
            Reply::BestMove { text, at, .. } => {
                let t_us = self.us(at);
                self.events.push(Event::PonderStopped {
                    t_us,
                    side,
                    line: format!("bestmove {text}"),
                });
                Ok(())
            }
            Reply::Deadline => Err(None),
            Reply::Exited { .. } => {
                engines[side].retire();
                let (_, report) = engines[side].engine().exit_report().await;
                Err(Some(EngineError::Exited {
                    name: engines[side].engine().name().to_string(),
                    status: format!(" ({report})"),
                    context: " while pondering".to_string(),
                }))
            }
        }
    }
}
