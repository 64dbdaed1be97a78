//! What every built-in engine shares: the `Engine` trait the UCI loop drives,
//! the game and search limits it hands over, the reply it gets back, option
//! declarations, the line-oriented output and a seedable random source.

use std::io::{self, Write};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Instant;

use rand::rngs::StdRng;
use rand::SeedableRng;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Move, Role};

/// The position to search, with what came before it.
#[derive(Clone, Debug)]
pub struct Game {
    pub pos: Chess,
    /// Zobrist hashes (`EnPassantMode::Legal`) of the positions played before
    /// `pos`, oldest first. Only filled for engines that ask for it.
    pub history: Vec<u64>,
    /// How castling moves are written (`UCI_Chess960`).
    pub mode: CastlingMode,
    /// The whole `position` command was applied. False after a FEN that could not be set up
    /// (the start position was used instead) or an illegal move in the list (the moves stop
    /// before it): `pos` is then not the position the GUI meant.
    pub complete: bool,
}

impl Default for Game {
    fn default() -> Self {
        Game {
            pos: Chess::default(),
            history: Vec::new(),
            mode: CastlingMode::Standard,
            complete: true,
        }
    }
}

impl Game {
    /// A move in UCI notation for this game's castling mode.
    pub fn uci(&self, m: Move) -> UciMove {
        UciMove::from_move(m, self.mode)
    }
}

/// The parameters of one `go` command. Times are in milliseconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// When the `go` line was read: the engine's clock started then.
    pub start: Instant,
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    /// `go ponder`: the instant `ponderhit` was read, set by the UCI loop while the search
    /// runs. Until then the search has no time limit; from then on its clock runs.
    pub ponderhit: Arc<OnceLock<Instant>>,
}

impl Limits {
    pub fn new(start: Instant) -> Self {
        Limits {
            start,
            wtime: None,
            btime: None,
            winc: None,
            binc: None,
            movestogo: None,
            nodes: None,
            depth: None,
            movetime: None,
            infinite: false,
            ponder: false,
            ponderhit: Arc::default(),
        }
    }
}

/// What the engine answers to a `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// `bestmove <move>`, or `bestmove (none)` when there is no legal move.
    Move(Option<Move>),
    /// `bestmove <move> ponder <reply>`: the move, and the opponent's reply it expects (the
    /// move to ponder on).
    Ponder(Move, Move),
    /// `bestmove <text>` verbatim (used by `faulty` for illegal and null moves).
    Text(String),
    /// No `bestmove` at all (used by `faulty`).
    Silent,
}

/// What the UCI loop does when a `go` arrives (decided on the loop thread).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoAction {
    Search,
    /// Exit the process with status 101 without answering.
    Crash,
    /// Never read or write anything again; keep the process alive.
    Hang,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    Spin { default: i64, min: i64, max: i64 },
    Check { default: bool },
}

/// A UCI option an engine declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciOption {
    pub name: &'static str,
    pub kind: OptionKind,
}

impl UciOption {
    pub const fn spin(name: &'static str, default: i64, min: i64, max: i64) -> Self {
        UciOption {
            name,
            kind: OptionKind::Spin { default, min, max },
        }
    }

    pub const fn check(name: &'static str, default: bool) -> Self {
        UciOption {
            name,
            kind: OptionKind::Check { default },
        }
    }

    /// The `option name ...` line answered to `uci`.
    pub fn line(&self) -> String {
        match self.kind {
            OptionKind::Spin { default, min, max } => format!(
                "option name {} type spin default {default} min {min} max {max}",
                self.name
            ),
            OptionKind::Check { default } => {
                format!("option name {} type check default {default}", self.name)
            }
        }
    }

    /// Validates a `setoption` value against the declaration.
    pub fn parse_spin(&self, value: &str) -> Result<i64, String> {
        let OptionKind::Spin { min, max, .. } = self.kind else {
            return Err(format!("option {} is not a spin", self.name));
        };
        match value.trim().parse::<i64>() {
            Ok(v) if (min..=max).contains(&v) => Ok(v),
            _ => Err(format!(
                "option {}: expected an integer in {min}..={max}, got {value:?}",
                self.name
            )),
        }
    }
}

/// A built-in UCI engine, driven by the loop in `uci.rs`.
///
/// `go` runs on a worker thread unless `inline` says the engine answers so
/// fast that a thread would only add latency.
pub trait Engine: Send {
    /// The `id name` line's name, if not `blitz-arena <engine>`.
    fn id_name(&self) -> Option<String> {
        None
    }

    /// Options listed in answer to `uci`.
    fn options(&self) -> Vec<UciOption> {
        Vec::new()
    }

    /// Handles `setoption`; `name` is matched case-insensitively by the engine.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let _ = value;
        Err(format!("unknown option {name:?}"))
    }

    /// Handles `ucinewgame`.
    fn new_game(&mut self) {}

    /// True when `go` is so cheap that it is answered on the loop thread.
    fn inline(&self) -> bool {
        false
    }

    /// True when the engine wants `Game::history` filled (repetition checks).
    fn wants_history(&self) -> bool {
        false
    }

    /// Called on `uci` before the id lines; returns whether to send `uciok`.
    fn on_uci(&mut self) -> bool {
        true
    }

    /// Called on `uci` after the engine's own option lines, before `uciok`: for lines of
    /// its own (the faulty engine's declaration flood).
    fn declare_more(&mut self, _out: &Out) {}

    /// Called on the loop thread for every `go`, before any search starts.
    fn on_go(&mut self) -> GoAction {
        GoAction::Search
    }

    /// Chooses the reply. Must return promptly once `stop` is set.
    fn go(&mut self, game: &Game, limits: &Limits, stop: &AtomicBool, out: &Out) -> Reply;
}

/// The engine's side of the pipe: whole lines, flushed at once, shared by the
/// loop thread and the search thread. Write errors are ignored: they mean the
/// arena has gone, and the loop then sees the end of its input.
#[derive(Clone)]
pub struct Out(Arc<Mutex<Box<dyn Write + Send>>>);

impl Out {
    pub fn stdout() -> Out {
        Out(Arc::new(Mutex::new(Box::new(io::stdout()))))
    }

    /// Writes `s` and a newline in one write, then flushes: text of several lines (the
    /// `faulty` engine's doubled `bestmove`) reaches the pipe at once, as one atomic write.
    pub fn line(&self, s: &str) {
        let mut text = String::with_capacity(s.len() + 1);
        text.push_str(s);
        text.push('\n');
        self.with(|w| w.write_all(text.as_bytes()));
    }

    /// Runs `f` with the output locked (so nothing interleaves), then flushes.
    pub fn with(&self, f: impl FnOnce(&mut dyn Write) -> io::Result<()>) {
        let mut w = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let _ = f(&mut **w).and_then(|()| w.flush());
    }

    /// An `Out` writing into a shared buffer, for tests.
    #[cfg(test)]
    pub fn buffer() -> (Out, Arc<Mutex<Vec<u8>>>) {
        struct Shared(Arc<Mutex<Vec<u8>>>);
        impl Write for Shared {
            fn write(&mut self, b: &[u8]) -> io::Result<usize> {
                let mut v = self.0.lock().unwrap_or_else(|e| e.into_inner());
                v.extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let buf = Arc::new(Mutex::new(Vec::new()));
        (
            Out(Arc::new(Mutex::new(Box::new(Shared(buf.clone()))))),
            buf,
        )
    }
}

/// Logs one line to stderr, never panicking (unlike `eprintln!`).
pub fn log(msg: &str) {
    let _ = writeln!(io::stderr().lock(), "{msg}");
}

/// Material values in centipawns, shared by `greedy` and `minimax`.
pub const fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 20_000,
    }
}

/// Material gained by a move: what it captures plus what a promotion adds.
pub fn material_gain(m: Move) -> i32 {
    let captured = m.capture().map_or(0, value);
    let promoted = m.promotion().map_or(0, |r| value(r) - value(Role::Pawn));
    captured + promoted
}

/// The `Seed` option: 0 draws a seed from the OS, anything else reproduces.
pub struct Seeded {
    pub seed: u64,
    pub rng: StdRng,
}

impl Seeded {
    pub const OPTION: UciOption = UciOption::spin("Seed", 0, 0, 2_147_483_647);

    pub fn new(seed: u64) -> Self {
        Seeded {
            seed,
            rng: Self::make(seed),
        }
    }

    /// Restarts the sequence (on `setoption` and `ucinewgame`), so that a
    /// game with a fixed seed is reproduced move for move.
    pub fn reseed(&mut self) {
        self.rng = Self::make(self.seed);
    }

    fn make(seed: u64) -> StdRng {
        if seed == 0 {
            rand::make_rng()
        } else {
            StdRng::seed_from_u64(seed)
        }
    }

    /// Handles `setoption name Seed value N`.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        if !name.eq_ignore_ascii_case(Self::OPTION.name) {
            return Err(format!("unknown option {name:?}"));
        }
        self.seed = Self::OPTION.parse_spin(value)? as u64;
        self.reseed();
        Ok(())
    }
}
