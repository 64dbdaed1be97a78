//! One actor per engine process: it owns the `Child`, talks UCI, races every wait against a
//! deadline, and kills and reaps the process when it is shut down or dropped.

mod cpu;
pub mod janitor;
mod lines;
mod pipes;
mod process;
pub mod reaper;
mod resources;
mod seat;
pub mod spawner;
pub mod timers;
pub mod uci;

use std::path::PathBuf;
use std::pin::Pin;
use std::sync::OnceLock;
use std::time::Duration;

use tokio::time::{sleep_until, Instant};

use crate::event::SearchInfo;
use crate::settings::{defined_name, EngineConfig, Launch};
pub use lines::MAX_LINE;
pub use pipes::{read_on_this_thread, settle as settle_pipes, watched as engines_watched};
use process::Line;
pub use process::{ExitStatus, MemoryEngine, Process, SearchLines};
pub use resources::{Shortage, FILES_PER_ENGINE, THREADS_PER_ENGINE};
pub use seat::Seat;
pub use uci::{OptionFlaw, UciOption};

/// The UCI option that switches an engine to Chess960 castling (king takes own rook).
pub const CHESS960_OPTION: &str = "UCI_Chess960";

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
    /// The message says the cause, which is not also its `source`: a printer that follows
    /// the chain of causes (`{:#}`) would say it twice.
    #[error("engine {name}: cannot start {program}: {cause}")]
    Spawn {
        name: String,
        program: String,
        cause: std::io::Error,
    },
    /// A script whose `#!` line names an interpreter that is not there: the kernel's "No
    /// such file or directory" would seem to be about the script.
    #[error("engine {name}: cannot start {program}: its interpreter {interpreter} (the #! line) was not found")]
    NoInterpreter {
        name: String,
        program: String,
        interpreter: String,
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
    /// `--variant chess960` with an engine that does not declare `UCI_Chess960`.
    #[error("engine {name} cannot play Chess960: it does not declare the UCI option UCI_Chess960 (drop --variant chess960, or use an engine that has it)")]
    NoChess960 { name: String },
    /// `hint` is `: did you mean "Threads"?` for a near name, else how to list the options.
    #[error("engine {name} has no UCI option {option:?}{hint}")]
    UnknownOption {
        name: String,
        option: String,
        hint: String,
    },
    #[error("engine {name}: UCI option {option:?} cannot be {value:?}: it takes {allowed}")]
    BadOptionValue {
        name: String,
        option: String,
        value: String,
        allowed: String,
    },
    /// An option declared with an empty range (`flaw`): no value can be set.
    #[error("engine {name}: UCI option {option:?} cannot be {value:?}: {flaw}, so no value fits (leave {option} out of its options)")]
    NoValueFits {
        name: String,
        option: String,
        value: String,
        flaw: String,
    },
    #[error("engine {name} fails its handshake: {what} (an engine may declare at most {max} options)", max = uci::MAX_OPTIONS)]
    DeclaresTooMuch { name: String, what: String },
    #[error("engine {name} fails its handshake: its {what}")]
    BadId { name: String, what: String },
}

impl EngineError {
    /// The engine could not be started because the arena or the machine ran out of
    /// something: the run's trouble, not the engine's.
    pub fn shortage(&self) -> Option<Shortage> {
        match self {
            EngineError::Spawn { cause, .. } => Shortage::of(cause),
            _ => None,
        }
    }
}

/// The declared name nearest to a mistyped `option` (UCI names are case-insensitive): one
/// at most a third of its length of edits away (at least 1, at most 3), else none.
fn nearest<'a>(option: &str, declared: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let typed = option.to_ascii_lowercase();
    let allowed = (typed.chars().count() / 3).clamp(1, 3);
    declared
        .map(|name| (edit_distance(&typed, &name.to_ascii_lowercase()), name))
        .filter(|(distance, _)| *distance <= allowed)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// Levenshtein distance in characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let substitute = diagonal + usize::from(ca != *cb);
            diagonal = row[j + 1];
            row[j + 1] = substitute.min(row[j] + 1).min(diagonal + 1);
        }
    }
    row[b.len()]
}

/// Why `program` could not be started: a script's missing interpreter by name, else the
/// system's error.
fn spawn_error(name: &str, program: &std::path::Path, cause: std::io::Error) -> EngineError {
    let (name, shown) = (name.to_string(), program.display().to_string());
    match cause.kind() {
        std::io::ErrorKind::NotFound => match process::missing_interpreter(program) {
            Some(interpreter) => EngineError::NoInterpreter {
                name,
                program: shown,
                interpreter,
            },
            None => EngineError::Spawn {
                name,
                program: shown,
                cause,
            },
        },
        _ => EngineError::Spawn {
            name,
            program: shown,
            cause,
        },
    }
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

/// The move text recorded for a `bestmove` line longer than [`MAX_LINE`].
fn overlong_bestmove() -> String {
    format!(
        "(a bestmove line over the {} KiB line limit)",
        MAX_LINE / 1024
    )
}

/// Where `part`, a slice of `line` (`uci::parse_bestmove`'s move), lies in it.
fn move_span(line: &str, part: &str) -> std::ops::Range<usize> {
    let start = part.as_ptr() as usize - line.as_ptr() as usize;
    debug_assert!(
        start + part.len() <= line.len(),
        "{part:?} is not in {line:?}"
    );
    start..start + part.len()
}

/// `line` cut down to `span` in place: the move text of a `bestmove` line without a new
/// allocation a move. A long line's room is given back, since the game keeps every move:
/// an engine that pads its `bestmove` lines must not make the arena hold the padding.
fn keep_span(line: String, span: std::ops::Range<usize>) -> String {
    assert!(line.is_char_boundary(span.start) && line.is_char_boundary(span.end));
    let mut line = line.into_bytes();
    line.copy_within(span.clone(), 0);
    line.truncate(span.len());
    // SAFETY: `span` lies on the line's character boundaries (asserted): the bytes kept are
    // whole characters of a `str`, moved to its start. (`String::drain` cost twice this.)
    let mut line = unsafe { String::from_utf8_unchecked(line) };
    if line.capacity() > KEPT_ROOM {
        line.shrink_to_fit();
    }
    line
}

/// The room a move's text may keep of its `bestmove` line (`bestmove e7e8q ponder a2a1q` is 29).
const KEPT_ROOM: usize = 64;

/// The search report in `slot`, parsed (invalid UTF-8 replaced, never an error), and
/// forgotten.
fn take_report(slot: &mut Option<Vec<u8>>) -> SearchInfo {
    let info = slot
        .as_deref()
        .and_then(|report| uci::parse_info(&lines::Output::as_text(report)));
    forget_report(slot);
    info.unwrap_or_default()
}

/// Forgets the last search's report, keeping its room for the next unless it grew past
/// [`lines::ROOM_KEPT`].
fn forget_report(slot: &mut Option<Vec<u8>>) {
    match slot {
        Some(report) if report.capacity() <= lines::ROOM_KEPT => report.clear(),
        _ => *slot = None,
    }
}

/// A running UCI engine, after a successful handshake.
pub struct Engine {
    name: String,
    id_name: Option<String>,
    author: Option<String>,
    options: Vec<UciOption>,
    process: Process,
    timeouts: Timeouts,
    /// When the last `go` was written: a `bestmove` read before then cannot answer it.
    go_at: Option<Instant>,
    /// `bestmove` lines read before the `go` they would answer, discarded (when, and the text).
    stray: Vec<(Instant, String)>,
    /// The move its last `bestmove` said it would ponder on (`bestmove X ponder Y`).
    ponder_move: Option<String>,
    /// It was sent `setoption name Ponder value true`: the arena lets it ponder.
    ponders: bool,
    /// When it closed its output, if that was read by [`Engine::answered_early`].
    closed_at: Option<Instant>,
    /// Its processes' CPU time and run-queue wait at each `go` and `bestmove` (none for an
    /// engine inside the arena's own process).
    cpu: Option<cpu::CpuMeter>,
    /// Every `info` line is kept (scored) or counted (unscored) for the search it reports on
    /// (a compat run's PV checks).
    logs_info: bool,
    /// Those of the search its last `bestmove` ended, until taken.
    search_lines: SearchLines,
    /// Lines other than `info` and `bestmove` read during the current search, while the info
    /// log is on.
    other_lines: usize,
    /// The last `position` and `go` written, its room kept for the next.
    command: String,
    /// The timer [`Engine::bestmove`] waits against, kept and moved from move to move by a
    /// game with a thread of its own (`timers::Due::worth_keeping`).
    due: Option<Pin<Box<timers::Due>>>,
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
        let process = process::spawn(&program, &args, config.dir.as_deref(), &env)
            .await
            .map_err(|cause| spawn_error(&config.name, &program, cause))?;
        // On any error below the engine is dropped, which kills its group and reaps it.
        let mut engine = Engine::connect(&config.name, process, timeouts, &config.options).await?;
        // `ponder = true`: an engine that declares the `Ponder` option is told it may ponder
        // (UCI); one that does not plays without pondering, as cutechess has it.
        if config.ponder && !engine.ponders && engine.declares("Ponder") {
            engine.set_option("Ponder", "true").await?;
        }
        Ok(engine)
    }

    /// Completes the UCI handshake with an engine already running (a spawned process, or an
    /// in-memory engine in tests), sets `options` and waits until it is ready.
    pub async fn connect(
        name: &str,
        process: Process,
        timeouts: Timeouts,
        options: &[(String, String)],
    ) -> Result<Engine, EngineError> {
        let mut engine = Engine {
            name: name.to_string(),
            id_name: None,
            author: None,
            options: Vec::new(),
            process,
            timeouts,
            go_at: None,
            stray: Vec::new(),
            ponder_move: None,
            ponders: false,
            logs_info: false,
            search_lines: SearchLines::default(),
            other_lines: 0,
            command: String::new(),
            closed_at: None,
            due: None,
            cpu: None,
        };
        engine.cpu = engine.process.pid().map(cpu::CpuMeter::new);
        engine.handshake().await?;
        for (option, value) in options {
            engine.set_option(option, value).await?;
        }
        engine.wait_ready().await?;
        Ok(engine)
    }

    pub fn timeouts(&self) -> Timeouts {
        self.timeouts
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

    /// Whether the engine declared the UCI option `name` (not case sensitive).
    pub fn declares(&self, name: &str) -> bool {
        self.declared(name).is_some()
    }

    /// The engine's declaration of the UCI option `name`; UCI option names are not case
    /// sensitive.
    fn declared(&self, name: &str) -> Option<&UciOption> {
        self.options
            .iter()
            .find(|o| o.name.eq_ignore_ascii_case(name))
    }

    /// Whether the engine was told it may ponder (`setoption name Ponder value true`).
    pub fn ponders(&self) -> bool {
        self.ponders
    }

    /// The move the engine's last `bestmove` said it would ponder on.
    pub fn ponder_move(&self) -> Option<&str> {
        self.ponder_move.as_deref()
    }

    async fn handshake(&mut self) -> Result<(), EngineError> {
        self.send("uci\n").await?;
        let deadline = Instant::now() + self.timeouts.uciok;
        let mut declared = uci::Declarations::default();
        loop {
            let text = self.expect_line(deadline, "uciok").await?;
            let text = text.trim();
            if text == "uciok" {
                return Ok(());
            }
            // Bounded before it is parsed: a combo's values are counted on the raw line.
            let raw_vars = text.matches(" var ").count();
            if raw_vars > uci::MAX_VARS && text.starts_with("option ") {
                return Err(self.declares_too_much(format!(
                    "an option lists {raw_vars} values, more than {}",
                    uci::MAX_VARS
                )));
            }
            let option = uci::parse_option(text);
            if let Err(what) = declared.admit(text, option.as_ref()) {
                return Err(self.declares_too_much(what));
            }
            if let Some(option) = option {
                self.options.push(option);
            } else if let Some((key, value)) = uci::parse_id(text) {
                let what = format!("id {key}");
                crate::settings::control_character(&what, value).map_err(|what| {
                    EngineError::BadId {
                        name: self.name.clone(),
                        what,
                    }
                })?;
                match key {
                    "name" => self.id_name = Some(value.to_string()),
                    _ => self.author = Some(value.to_string()),
                }
            }
        }
    }

    fn declares_too_much(&self, what: String) -> EngineError {
        EngineError::DeclaresTooMuch {
            name: self.name.clone(),
            what,
        }
    }

    async fn set_option(&mut self, option: &str, value: &str) -> Result<(), EngineError> {
        let Some(known) = self.declared(option) else {
            if option.eq_ignore_ascii_case(CHESS960_OPTION) {
                return Err(EngineError::NoChess960 {
                    name: self.name.clone(),
                });
            }
            let declared = self.options.iter().map(|o| o.name.as_str());
            let hint = match nearest(option, declared) {
                Some(near) => format!(": did you mean {near:?}?"),
                // `check` takes the name the engine is defined under, not a copy's `NAME#2`.
                None => format!(
                    " (`blitz-arena check {}` lists the {} it declares)",
                    defined_name(&self.name),
                    self.options.len()
                ),
            };
            return Err(EngineError::UnknownOption {
                name: self.name.clone(),
                option: option.to_string(),
                hint,
            });
        };
        if let Some(flaw @ uci::OptionFlaw::EmptyRange { .. }) = &known.flaw {
            return Err(EngineError::NoValueFits {
                name: self.name.clone(),
                option: known.name.clone(),
                value: value.to_string(),
                flaw: flaw.to_string(),
            });
        }
        let line = known
            .setoption(value)
            .map_err(|allowed| EngineError::BadOptionValue {
                name: self.name.clone(),
                option: known.name.clone(),
                value: value.to_string(),
                allowed,
            })?;
        if known.name.eq_ignore_ascii_case("Ponder") {
            self.ponders = value.eq_ignore_ascii_case("true");
        }
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
        forget_report(&mut self.process.last_info.lock().expect("info slot lock"));
        if self.logs_info {
            *self.process.info_log.lines.lock().expect("info log lock") = SearchLines::default();
            self.other_lines = 0;
        }
        let mut text = std::mem::take(&mut self.command);
        text.clear();
        text.push_str(position);
        text.push('\n');
        text.push_str(go);
        text.push('\n');
        if let Some(meter) = &mut self.cpu {
            // An engine that may ponder has been searching since its last `bestmove`.
            if self.ponders {
                meter.start();
            } else {
                meter.start_after_idle();
            }
        }
        let start = Instant::now();
        self.go_at = Some(start);
        let sent = self.send(&text).await;
        self.command = text;
        sent.map(|()| start)
    }

    /// From now on every scored `info` line is kept for the search it reports on, the other
    /// lines counted, and [`Engine::take_search_lines`] hands over those of the last search
    /// (fastchess checks the PV of each, and warns of a search that printed no score).
    pub fn log_search_lines(&mut self) {
        self.logs_info = true;
        self.process
            .info_log
            .on
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The `info` lines of the search the last `bestmove` ended, the scored ones in the order
    /// they were read (empty unless [`Engine::log_search_lines`] was called).
    pub fn take_search_lines(&mut self) -> SearchLines {
        std::mem::take(&mut self.search_lines)
    }

    /// The `bestmove` lines discarded since the last call because they were read before the
    /// `go` they would answer (an engine that sent two for one search): when, and the text.
    pub fn take_stray(&mut self) -> Vec<(Instant, String)> {
        std::mem::take(&mut self.stray)
    }

    /// Waits for `bestmove` until `deadline`.
    pub async fn bestmove(&mut self, deadline: Instant) -> Reply {
        if let Some(at) = self.closed_at {
            return Reply::Exited { at };
        }
        let mut due = match self.due.take() {
            Some(mut due) => {
                due.as_mut().reset(deadline);
                due
            }
            None => Box::pin(timers::sleep_until(deadline)),
        };
        let reply = self.read_bestmove(due.as_mut()).await;
        if due.worth_keeping() {
            self.due = Some(due);
        }
        reply
    }

    async fn read_bestmove(&mut self, mut due: Pin<&mut timers::Due>) -> Reply {
        loop {
            let line = tokio::select! {
                biased;
                line = self.process.lines.recv() => line,
                () = due.as_mut() => return Reply::Deadline,
            };
            match line {
                Some(Line::Text { text, at }) => {
                    if let Some(mv) = uci::parse_bestmove(&text) {
                        // A `bestmove` read before the current `go` was written answers an
                        // earlier search (cutechess and fastchess ignore it too).
                        if self.go_at.is_some_and(|go| at < go) {
                            self.stray.push((at, text));
                            continue;
                        }
                        // The search report is made text and parsed once, when the move
                        // arrives (invalid UTF-8 replaced, never an error).
                        let mut info =
                            take_report(&mut self.process.last_info.lock().expect("info slot"));
                        if self.logs_info {
                            let mut lines = self.process.info_log.lines.lock().expect("info log");
                            self.search_lines = std::mem::take(&mut *lines);
                            self.search_lines.others += std::mem::take(&mut self.other_lines);
                        }
                        info.cpu = self.cpu.as_mut().and_then(cpu::CpuMeter::since_go);
                        let moved = move_span(&text, mv);
                        // Kept only for an engine that may ponder: most never do, and
                        // this runs at every move.
                        if self.ponders {
                            self.ponder_move = uci::parse_ponder(&text).map(str::to_string);
                        }
                        return Reply::BestMove {
                            text: keep_span(text, moved),
                            at,
                            info,
                        };
                    }
                    // Any other line of the search counts among its lines (fastchess).
                    if self.logs_info && self.go_at.is_none_or(|go| at >= go) {
                        self.other_lines += 1;
                    }
                }
                // A `bestmove` line over the limit is a move that cannot be read: the clock
                // is pressed when it is read, and the move is ruled as no UCI move, saying why.
                Some(Line::Overlong { at, bestmove: true })
                    if self.go_at.is_none_or(|go| at >= go) =>
                {
                    return Reply::BestMove {
                        text: overlong_bestmove(),
                        at,
                        info: SearchInfo::default(),
                    };
                }
                Some(Line::Overlong { .. }) => {}
                Some(Line::Eof { at }) => return Reply::Exited { at },
                None => return Reply::Exited { at: Instant::now() },
            }
        }
    }

    /// `ponderhit`: the move the engine pondered on was played, its search goes on as its own
    /// (UCI). Returns the instant the write began: its clock starts then, as with [`Engine::go`],
    /// and a `bestmove` read before it (sent while pondering, against UCI) answers nothing.
    pub async fn ponderhit(&mut self) -> Result<Instant, EngineError> {
        if let Some(meter) = &mut self.cpu {
            meter.start();
        }
        let start = Instant::now();
        self.go_at = Some(start);
        self.send("ponderhit\n").await?;
        Ok(start)
    }

    /// Whether the engine has already sent a `bestmove` that is not yet read: one sent while
    /// pondering, against UCI (cutechess ignores it too). It is kept as a stray, discarded;
    /// other lines read meanwhile are dropped, as [`Engine::bestmove`] drops them.
    pub fn answered_early(&mut self) -> bool {
        while let Ok(line) = self.process.lines.try_recv() {
            match line {
                Line::Text { text, at } if uci::parse_bestmove(&text).is_some() => {
                    self.stray.push((at, text));
                    return true;
                }
                Line::Eof { at } => {
                    self.closed_at = Some(at);
                    return false;
                }
                Line::Text { .. } | Line::Overlong { .. } => {}
            }
        }
        false
    }

    /// Sends `stop` and waits until the stop timeout for the `bestmove` that ends the search:
    /// `Deadline` when it did not answer (it has hung), `Exited` when it is gone.
    pub async fn stop_search(&mut self) -> Reply {
        if self.send("stop\n").await.is_err() {
            return Reply::Exited { at: Instant::now() };
        }
        let deadline = Instant::now() + self.timeouts.stop;
        self.bestmove(deadline).await
    }

    /// Sends `stop` and waits for the `bestmove` that ends the search; false if the engine
    /// did not answer within the stop timeout (it has hung and must be restarted).
    pub async fn stop(&mut self) -> bool {
        matches!(self.stop_search().await, Reply::BestMove { .. })
    }

    /// A one-line description of how the process ended, with the end of its stderr.
    pub async fn exit_report(&mut self) -> (Option<i32>, String) {
        let status = self.process.exit_status(Duration::from_millis(500)).await;
        let mut report = match status {
            Some(s) => format!("exited with {s}"),
            None => "closed its output".to_string(),
        };
        let tail = match status {
            // Lines it wrote before it exited may still be in the pipe.
            Some(_) => {
                self.process
                    .stderr_tail_at_end(Duration::from_millis(500))
                    .await
            }
            None => self.process.stderr_tail(),
        };
        if !tail.is_empty() {
            report.push_str(&format!("; stderr: {tail}"));
        }
        (status.map(ExitStatus::code), report)
    }

    /// Asks the engine to quit, waits a moment for it to exit, then kills whatever is left of
    /// its process group and reaps it.
    pub async fn shutdown(mut self) {
        if self.send("quit\n").await.is_ok() {
            self.process.exit_status(self.timeouts.quit).await;
        }
        self.process.kill().await;
    }

    /// Kills the engine's process group at once and reaps it (a hung or crashed engine).
    pub async fn kill(mut self) {
        self.process.kill().await;
    }

    async fn send(&mut self, text: &str) -> Result<(), EngineError> {
        // Any command but `go` may set the engine working (`ucinewgame` clears its hash):
        // it is no longer idle since its last `bestmove`.
        if let Some(meter) = &mut self.cpu {
            meter.not_idle();
        }
        match self.process.write(text).await {
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
                    let tail = self.process.stderr_tail();
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
                Some(Line::Overlong { .. }) => continue,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mistyped_option_is_matched_to_the_nearest_declared_name() {
        let declared = [
            "Debug Log File",
            "Threads",
            "Hash",
            "Clear Hash",
            "Move Overhead",
        ];
        let near = |typed| nearest(typed, declared.iter().copied());
        assert_eq!(near("Thread"), Some("Threads"));
        assert_eq!(near("threads"), Some("Threads"));
        assert_eq!(near("Hsh"), Some("Hash"));
        assert_eq!(near("MoveOverhead"), Some("Move Overhead"));
        assert_eq!(near("Contempt"), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    /// An in-memory engine that completes the handshake, then hands its end to the test.
    async fn connected() -> (Engine, MemoryEngine) {
        let (process, mut peer) = Process::in_memory();
        let handshake = tokio::spawn(async move {
            assert_eq!(peer.commands.recv().await.as_deref(), Some("uci"));
            peer.say("id name Mem\noption name Hash type spin default 16 min 1 max 64\nuciok")
                .await;
            assert_eq!(peer.commands.recv().await.as_deref(), Some("isready"));
            peer.say("readyok").await;
            peer
        });
        let engine = Engine::connect("mem", process, Timeouts::default(), &[])
            .await
            .unwrap();
        (engine, handshake.await.unwrap())
    }

    /// A `bestmove` line is cut down to its move in place, whatever surrounds the move, and
    /// a line without one to the empty text.
    #[test]
    fn a_bestmove_line_is_cut_down_to_its_move() {
        for (line, mv) in [
            ("bestmove e2e4", "e2e4"),
            ("bestmove e7e8q ponder a7a8n", "e7e8q"),
            ("  bestmove\u{b}g1f3\t ponder (none)  ", "g1f3"),
            ("bestmove 0000", "0000"),
            ("bestmove (none)", "(none)"),
            ("bestmove ♞é4 ponder x", "♞é4"),
            ("bestmove", ""),
            ("bestmove   ", ""),
        ] {
            let text = line.to_string();
            let span = move_span(&text, uci::parse_bestmove(&text).unwrap());
            assert_eq!(keep_span(text, span), mv, "{line:?}");
        }
        // A padded line keeps no more room than its move needs.
        let padded = format!("bestmove e2e4 {}", "x".repeat(60_000));
        let span = move_span(&padded, uci::parse_bestmove(&padded).unwrap());
        let kept = keep_span(padded, span);
        assert_eq!(kept, "e2e4");
        assert!(kept.capacity() <= KEPT_ROOM, "{}", kept.capacity());
    }

    #[test]
    fn a_report_is_read_once_from_its_bytes_and_its_room_kept_when_small() {
        let mut slot = Some(b"info depth 7 score cp -12 nodes 5000 string \xff\xfe".to_vec());
        let info = take_report(&mut slot);
        assert_eq!((info.depth, info.nodes), (Some(7), Some(5000)));
        assert_eq!(info.score, Some(crate::event::Score::Cp(-12)));
        // Forgotten: nothing is read twice, and the room stays for the next report.
        assert!(slot
            .as_ref()
            .is_some_and(|r| r.is_empty() && r.capacity() > 0));
        assert_eq!(take_report(&mut slot), SearchInfo::default());
        // A report past the room kept leaves nothing behind it.
        let mut long = b"info depth 1 score cp 0 pv".to_vec();
        while long.len() <= lines::ROOM_KEPT {
            long.extend_from_slice(b" e2e4 e7e5");
        }
        let mut slot = Some(long);
        assert_eq!(take_report(&mut slot).depth, Some(1));
        assert_eq!(slot, None);
        assert_eq!(take_report(&mut None), SearchInfo::default());
    }

    #[tokio::test(start_paused = true)]
    async fn the_reply_is_stamped_when_the_engine_says_it() {
        let (mut engine, mut peer) = connected().await;
        assert_eq!(engine.id_name(), Some("Mem"));
        let go = engine
            .go("position startpos", "go wtime 1000 btime 1000")
            .await
            .unwrap();
        assert_eq!(
            peer.commands.recv().await.as_deref(),
            Some("position startpos")
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
        peer.say("info depth 3 score cp 17 nodes 900 pv e2e4\nbestmove e2e4 ponder e7e5")
            .await;
        match engine.bestmove(go + Duration::from_secs(1)).await {
            Reply::BestMove { text, at, info } => {
                assert_eq!(text, "e2e4");
                assert_eq!(at - go, Duration::from_millis(250));
                assert_eq!(info.depth, Some(3));
            }
            other => panic!("{other:?}"),
        }
    }

    /// Issue: an engine that sent an extra `bestmove` after its move had that line taken as
    /// its answer to the next `go`, with no thinking time.
    #[tokio::test(start_paused = true)]
    async fn a_bestmove_read_before_its_go_is_discarded_not_taken_as_the_answer() {
        let (mut engine, mut peer) = connected().await;
        let go = engine.go("position startpos", "go").await.unwrap();
        tokio::time::sleep(Duration::from_millis(10)).await;
        peer.say("bestmove e2e4\nbestmove e2e4").await;
        assert!(matches!(
            engine.bestmove(go + Duration::from_secs(1)).await,
            Reply::BestMove { .. }
        ));
        tokio::time::sleep(Duration::from_millis(10)).await;
        let go = engine
            .go("position startpos moves e2e4 e7e5", "go")
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        peer.say("bestmove g1f3").await;
        match engine.bestmove(go + Duration::from_secs(1)).await {
            Reply::BestMove { text, at, .. } => {
                assert_eq!(text, "g1f3");
                assert_eq!(at - go, Duration::from_millis(300));
            }
            other => panic!("{other:?}"),
        }
        let stray = engine.take_stray();
        assert_eq!(stray.len(), 1);
        assert_eq!(stray[0].1, "bestmove e2e4");
        assert!(stray[0].0 < go);
    }

    /// `-check-mate-pvs` checks every scored `info` line of a search, not only the last: once
    /// asked, the engine hands over those of the search its `bestmove` ended, and none before.
    #[tokio::test(start_paused = true)]
    async fn every_scored_info_line_of_a_search_is_kept_once_asked() {
        let (mut engine, mut peer) = connected().await;
        let go = engine.go("position startpos", "go").await.unwrap();
        peer.say("info depth 1 score cp 5 pv d2d4\nbestmove d2d4")
            .await;
        assert!(matches!(
            engine.bestmove(go + Duration::from_secs(1)).await,
            Reply::BestMove { .. }
        ));
        assert_eq!(
            engine.take_search_lines(),
            SearchLines::default(),
            "not asked"
        );
        engine.log_search_lines();
        peer.say("info depth 9 score cp 1 pv a2a3").await; // before the go: another search's
        let go = engine.go("position startpos", "go").await.unwrap();
        peer.say("info depth 1 score mate 2 pv e2e4\ninfo depth 2 currmove e2e4\ninfo string x")
            .await;
        peer.say("info depth 2 score cp 9 pv e2e4 e7e5\nbestmove e2e4")
            .await;
        match engine.bestmove(go + Duration::from_secs(1)).await {
            Reply::BestMove { info, .. } => assert_eq!(info.depth, Some(2)),
            other => panic!("{other:?}"),
        }
        let lines = engine.take_search_lines();
        assert_eq!(
            lines.scored,
            [
                "info depth 1 score mate 2 pv e2e4",
                "info depth 2 score cp 9 pv e2e4 e7e5"
            ]
        );
        // `info depth 2 currmove e2e4` and `info string x`; the bestmove makes five.
        assert_eq!((lines.others, lines.count()), (2, 5));
        assert_eq!(engine.take_search_lines(), SearchLines::default(), "taken");
    }

    #[tokio::test(start_paused = true)]
    async fn the_deadline_comes_first_when_the_engine_is_silent() {
        let (mut engine, _peer) = connected().await;
        let go = engine.go("position startpos", "go").await.unwrap();
        let deadline = go + Duration::from_millis(700);
        assert!(matches!(engine.bestmove(deadline).await, Reply::Deadline));
        assert_eq!(Instant::now(), deadline);
    }

    #[tokio::test(start_paused = true)]
    async fn an_engine_that_exits_is_reported_as_exited() {
        let (mut engine, peer) = connected().await;
        let go = engine.go("position startpos", "go").await.unwrap();
        tokio::time::sleep(Duration::from_millis(40)).await;
        peer.exit().await;
        match engine.bestmove(go + Duration::from_secs(1)).await {
            Reply::Exited { at } => assert_eq!(at - go, Duration::from_millis(40)),
            other => panic!("{other:?}"),
        }
    }

    #[tokio::test(start_paused = true)]
    async fn no_uciok_within_the_timeout_is_a_one_line_error() {
        let (process, _peer) = Process::in_memory();
        let e = Engine::connect("mute", process, Timeouts::default(), &[])
            .await
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "engine mute: no uciok within 10s");
    }
}
