//! A seat at the board: one player's engine over a whole run, and the one owner of its life.
//! It starts the process on first use, keeps it across games (options are sent once), replaces
//! it when it crashed or hung, and kills it at the end. A game borrows the seat, plays through
//! [`Seat::engine`], asks for a fresh process with [`Seat::restart`] when the rules play on
//! after a crash, and marks one it gave up on with [`Seat::retire`]; it never starts or kills
//! a process itself (as fishnet has one owner of each engine process).

use crate::settings::EngineConfig;

use super::{Engine, EngineError, Timeouts};

pub struct Seat {
    config: EngineConfig,
    timeouts: Timeouts,
    engine: Option<Engine>,
    /// The engine crashed or hung: it is killed, and started afresh before it plays again.
    retired: bool,
}

impl Seat {
    /// A seat whose engine starts when it is first needed.
    pub fn new(config: EngineConfig, timeouts: Timeouts) -> Seat {
        Seat {
            config,
            timeouts,
            engine: None,
            retired: false,
        }
    }

    /// A seat for an engine already running (an in-process engine in tests, or one started by
    /// the caller); a restart starts `config`.
    pub fn with_engine(config: EngineConfig, timeouts: Timeouts, engine: Engine) -> Seat {
        Seat {
            engine: Some(engine),
            ..Seat::new(config, timeouts)
        }
    }

    /// The engine's name as the roster gives it.
    pub fn name(&self) -> &str {
        &self.config.name
    }

    /// The seat's running engine, started now if it has none or its last one was retired.
    pub async fn ready(&mut self) -> Result<&mut Engine, EngineError> {
        self.release().await;
        if self.engine.is_none() {
            self.engine = Some(Engine::start(&self.config, self.timeouts).await?);
        }
        Ok(self.engine.as_mut().expect("started above"))
    }

    /// The engine of a game in progress.
    ///
    /// # Panics
    /// If the seat has no engine: a game is only played on seats that are [`Seat::ready`].
    pub fn engine(&mut self) -> &mut Engine {
        self.engine
            .as_mut()
            .expect("a game is played on seats whose engines are ready")
    }

    /// Replaces the engine with a fresh process, prepared for a game (`ucinewgame`): the old
    /// one is killed. On failure the seat is left retired, with no engine.
    pub async fn restart(&mut self) -> Result<&mut Engine, EngineError> {
        if let Some(old) = self.engine.take() {
            old.kill().await;
        }
        self.retired = true;
        let mut fresh = Engine::start(&self.config, self.timeouts).await?;
        fresh.new_game().await?;
        self.retired = false;
        self.engine = Some(fresh);
        Ok(self.engine.as_mut().expect("set above"))
    }

    /// Marks the engine as spent (it crashed or did not answer): it is killed when the game
    /// ends, and a new one starts before the seat plays again.
    pub fn retire(&mut self) {
        self.retired = true;
    }

    /// Whether the engine was retired and not yet replaced.
    pub fn is_retired(&self) -> bool {
        self.retired
    }

    /// Kills a retired engine now (a hung search must not burn a core until the seat's next
    /// game); a healthy one is kept.
    pub async fn release(&mut self) {
        if self.retired {
            if let Some(engine) = self.engine.take() {
                engine.kill().await;
            }
            self.retired = false;
        }
    }

    /// Kills the engine at once (a game cut short: its engine's state is unknown).
    pub async fn kill(&mut self) {
        if let Some(engine) = self.engine.take() {
            engine.kill().await;
        }
        self.retired = false;
    }

    /// Ends the seat: a healthy engine is asked to quit, a retired one is killed.
    pub async fn shutdown(mut self) {
        self.release().await;
        if let Some(engine) = self.engine.take() {
            engine.shutdown().await;
        }
    }
}
