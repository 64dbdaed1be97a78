//! One actor per engine process: it owns the `Child`, talks UCI, races every wait against a
//! deadline, and kills and reaps the process when it is shut down or dropped.

mod process;
pub mod uci;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::process::Child;
use tokio::time::{sleep_until, timeout, Instant};

use crate::config::{EngineConfig, Launch};
use crate::event::SearchInfo;
pub use process::MAX_LINE;
use process::{Line, Process};
pub use uci::UciOption;

/// How long the arena waits for an engine at each step.
#[derive(Clone, Copy, Debug)]
pub struct Timeouts {
    /// From spawn to `uciok`.
    pub uciok: Duration,
    /// From `isready` to `readyok`.
    pub readyok: Duration,
    /// From `stop` to `bestmove`, once a flag has fallen.
    pub stop: Duration,
    /// From `quit` to the process exiting, before it is killed.
    pub quit: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            uciok: Duration::from_secs(10),
            readyok: Duration::from_secs(10),
            stop: Duration::from_secs(1),
            quit: Duration::from_millis(300),
        }
    }
}

/// Why an engine could not be used. Each message is one line that names the engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("engine {name}: cannot start {program}: {source}")]
    Spawn {
        name: String,
        program: String,
        source: std::io::Error,
    },
    #[error("engine {name}: no {expected} within {waited:?}{context}")]
    Timeout {
        name: String,
        expected: &'static str,
        waited: Duration,
        context: String,
    },
    #[error("engine {name}: exited{status}{context}")]
    Exited {
        name: String,
        status: String,
        context: String,
    },
    #[error("engine {name} has no UCI option {option:?} (it has: {known})")]
    UnknownOption {
        name: String,
        option: String,
        known: String,
    },
    #[error("engine {name}: UCI option {option:?} cannot be {value:?}: it takes {allowed}")]
    BadOptionValue {
        name: String,
        option: String,
        value: String,
        allowed: String,
    },
}

/// What an engine answered to `go`.
#[derive(Debug)]
pub enum Reply {
    /// A `bestmove` line: the move text as sent, when it was read, and the engine's last
    /// search report.
    BestMove {
        text: String,
        at: Instant,
        info: SearchInfo,
    },
    /// The deadline passed first.
    Deadline,
    /// The engine closed its output: it crashed or exited.
    Exited { at: Instant },
}

/// A running UCI engine, after a successful handshake.
pub struct Engine {
    name: String,
    id_name: Option<String>,
    author: Option<String>,
    options: Vec<UciOption>,
    process: Process,
    timeouts: Timeouts,
}

impl Engine {
    /// Spawns the engine, completes the UCI handshake, sets its configured options and waits
    /// until it is ready.
    pub async fn start(config: &EngineConfig, timeouts: Timeouts) -> Result<Engine, EngineError> {
        let (program, args) = launch_command(config);
        let env: Vec<(String, String)> = config
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let process =
            process::spawn(&program, &args, config.dir.as_deref(), &env).map_err(|source| {
                EngineError::Spawn {
                    name: config.name.clone(),
                    program: program.display().to_string(),
                    source,
                }
            })?;
        let mut engine = Engine {
            name: config.name.clone(),
            id_name: None,
            author: None,
            options: Vec::new(),
            process,
            timeouts,
        };
        engine.handshake().await?;
        for (option, value) in &config.options {
            engine.set_option(option, value).await?;
        }
        engine.wait_ready().await?;
        Ok(engine)
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The engine's own `id name`, if it sent one.
    pub fn id_name(&self) -> Option<&str> {
        self.id_name.as_deref()
    }

    pub fn author(&self) -> Option<&str> {
        self.author.as_deref()
    }

    pub fn options(&self) -> &[UciOption] {
        &self.options
    }

    async fn handshake(&mut self) -> Result<(), EngineError> {
        self.send("uci\n").await?;
        let deadline = Instant::now() + self.timeouts.uciok;
        loop {
            let text = self.expect_line(deadline, "uciok").await?;
            let text = text.trim();
            if text == "uciok" {
                return Ok(());
            }
            if let Some((key, value)) = uci::parse_id(text) {
                match key {
                    "name" => self.id_name = Some(value.to_string()),
                    _ => self.author = Some(value.to_string()),
                }
            } else if let Some(option) = uci::parse_option(text) {
                self.options.push(option);
            }
        }
    }

    async fn set_option(&mut self, option: &str, value: &str) -> Result<(), EngineError> {
        // UCI: option names are not case sensitive.
        let Some(known) = self
            .options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(option))
        else {
            return Err(EngineError::UnknownOption {
                name: self.name.clone(),
                option: option.to_string(),
                known: self
                    .options
                    .iter()
                    .map(|o| o.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        };
        let line = known
            .setoption(value)
            .map_err(|allowed| EngineError::BadOptionValue {
                name: self.name.clone(),
                option: known.name.clone(),
                value: value.to_string(),
                allowed,
            })?;
        self.send(&line).await
    }

    /// `isready` and wait for `readyok`, discarding anything else (a late `bestmove` from an
    /// earlier search, stray info lines).
    pub async fn wait_ready(&mut self) -> Result<(), EngineError> {
        self.send("isready\n").await?;
        let deadline = Instant::now() + self.timeouts.readyok;
        loop {
            if self.expect_line(deadline, "readyok").await?.trim() == "readyok" {
                return Ok(());
            }
        }
    }

    /// Prepares for a new game: `ucinewgame`, then `isready`.
    pub async fn new_game(&mut self) -> Result<(), EngineError> {
        self.send("ucinewgame\n").await?;
        self.wait_ready().await
    }

    /// Writes `position` and `go` in one write and returns the instant the write began: the
    /// mover's clock starts then. (Stamped after the write, the start could come later than
    /// the engine's own reading of `go` when the arena's thread is preempted, and a fast
    /// reply could be stamped before it; the write itself costs the mover a few µs.)
    pub async fn go(&mut self, position: &str, go: &str) -> Result<Instant, EngineError> {
        self.process
            .last_info
            .lock()
            .expect("info slot lock")
            .take();
        let mut text = String::with_capacity(position.len() + go.len() + 2);
        text.push_str(position);
        text.push('\n');
        text.push_str(go);
        text.push('\n');
        let start = Instant::now();
        self.send(&text).await?;
        Ok(start)
    }

    /// Waits for `bestmove` until `deadline`.
    pub async fn bestmove(&mut self, deadline: Instant) -> Reply {
        loop {
            let line = tokio::select! {
                biased;
                line = self.process.lines.recv() => line,
                () = sleep_until(deadline) => return Reply::Deadline,
            };
            match line {
                Some(Line::Text { text, at }) => {
                    if let Some(mv) = uci::parse_bestmove(&text) {
                        // The search report is parsed once, when the move arrives.
                        let last = self
                            .process
                            .last_info
                            .lock()
                            .expect("info slot lock")
                            .take();
                        let info = last.and_then(|l| uci::parse_info(&l)).unwrap_or_default();
                        return Reply::BestMove {
                            text: mv.to_string(),
                            at,
                            info,
                        };
                    }
                }
                Some(Line::Overlong) => {}
                Some(Line::Eof { at }) => return Reply::Exited { at },
                None => return Reply::Exited { at: Instant::now() },
            }
        }
    }

    /// Sends `stop` and waits for the `bestmove` that ends the search; false if the engine
    /// did not answer within the stop timeout (it has hung and must be restarted).
    pub async fn stop(&mut self) -> bool {
        if self.send("stop\n").await.is_err() {
            return false;
        }
        let deadline = Instant::now() + self.timeouts.stop;
        matches!(self.bestmove(deadline).await, Reply::BestMove { .. })
    }

    /// A one-line description of how the process ended, with the end of its stderr.
    pub async fn exit_report(&mut self) -> (Option<i32>, String) {
        let status = timeout(Duration::from_millis(500), self.process.child.wait()).await;
        let code = match &status {
            Ok(Ok(s)) => s.code().or_else(|| {
                use std::os::unix::process::ExitStatusExt;
                s.signal().map(|sig| 128 + sig)
            }),
            _ => None,
        };
        let mut report = match status {
            Ok(Ok(s)) => format!("exited with {s}"),
            _ => "closed its output".to_string(),
        };
        let tail = self.stderr_tail();
        if !tail.is_empty() {
            report.push_str(&format!("; stderr: {tail}"));
        }
        (code, report)
    }

    fn stderr_tail(&self) -> String {
        let tail = self.process.stderr_tail.lock().expect("stderr tail lock");
        tail.iter().cloned().collect::<Vec<_>>().join(" | ")
    }

    /// Asks the engine to quit, then kills it if it has not exited in time, and reaps it.
    pub async fn shutdown(mut self) {
        let _ = self.send("quit\n").await;
        if timeout(self.timeouts.quit, self.process.child.wait())
            .await
            .is_err()
        {
            kill_and_reap(&mut self.process.child).await;
        }
    }

    /// Kills the process at once and reaps it (a hung or crashed engine).
    pub async fn kill(mut self) {
        kill_and_reap(&mut self.process.child).await;
    }

    async fn send(&mut self, text: &str) -> Result<(), EngineError> {
        let stdin = &mut self.process.stdin;
        let result = async {
            stdin.write_all(text.as_bytes()).await?;
            stdin.flush().await
        }
        .await;
        match result {
            Ok(()) => Ok(()),
            Err(_) => Err(self.exited("").await),
        }
    }

    async fn exited(&mut self, context: &str) -> EngineError {
        let (_, report) = self.exit_report().await;
        EngineError::Exited {
            name: self.name.clone(),
            status: format!(" ({report})"),
            context: context.to_string(),
        }
    }

    /// The next line of text before `deadline`, or why there was none.
    async fn expect_line(
        &mut self,
        deadline: Instant,
        expected: &'static str,
    ) -> Result<String, EngineError> {
        loop {
            let line = tokio::select! {
                biased;
                line = self.process.lines.recv() => line,
                () = sleep_until(deadline) => {
                    let tail = self.stderr_tail();
                    return Err(EngineError::Timeout {
                        name: self.name.clone(),
                        expected,
                        waited: self.timeout_for(expected),
                        context: if tail.is_empty() { String::new() } else { format!("; stderr: {tail}") },
                    });
                }
            };
            match line {
                Some(Line::Text { text, .. }) => return Ok(text),
                Some(Line::Overlong) => continue,
                Some(Line::Eof { .. }) | None => {
                    return Err(self.exited(&format!(" while waiting for {expected}")).await)
                }
            }
        }
    }

    fn timeout_for(&self, expected: &str) -> Duration {
        if expected == "uciok" {
            self.timeouts.uciok
        } else {
            self.timeouts.readyok
        }
    }
}

async fn kill_and_reap(child: &mut Child) {
    let _ = child.start_kill();
    let _ = timeout(Duration::from_secs(2), child.wait()).await;
}

static BUILTIN_PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Sets the executable that runs the built-in engines (`PROGRAM engine NAME`); by default it
/// is the running executable. Tests that drive the library point it at the built binary.
pub fn set_builtin_program(program: PathBuf) {
    let _ = BUILTIN_PROGRAM.set(program);
}

/// The program and arguments that start an engine: a configured command, or this very
/// executable's `engine NAME` for a built-in engine.
pub fn launch_command(config: &EngineConfig) -> (PathBuf, Vec<String>) {
    match &config.launch {
        Launch::Program { cmd, args } => (cmd.clone(), args.clone()),
        Launch::Builtin { name, args } => {
            let program = BUILTIN_PROGRAM
                .get()
                .cloned()
                .or_else(|| std::env::current_exe().ok())
                .unwrap_or_else(|| PathBuf::from("blitz-arena"));
            let mut all = vec!["engine".to_string(), name.clone()];
            all.extend(args.iter().cloned());
            (program, all)
        }
    }
}
