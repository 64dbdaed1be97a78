//! The UCI loop shared by every built-in engine.
//!
//! The loop thread reads commands; a `go` runs on the engine's search thread (unless the
//! engine is `inline`) with its own stop flag, so `stop`, `isready` and `quit`
//! are answered while it searches. The search thread lives as long as the engine, as a
//! real engine's thread pool does, so that the CPU it used and its wait for a core stay in
//! the process's live threads, where the arena measures them (docs/results.md). Nothing on the input can make it panic:
//! unknown commands and bad arguments are logged to stderr and skipped.

use std::io::BufRead;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position};

use super::engine::{log, Engine, Game, GoAction, Limits, Out, Reply};

/// Search threads recurse deeply; give them room.
const SEARCH_STACK: usize = 16 << 20;
/// How long `quit` waits for a running search to deliver its `bestmove`.
const QUIT_GRACE: Duration = Duration::from_secs(1);

/// Runs `engine` on `input`/`out` until `quit` or the end of the input.
pub fn run_loop(
    name: &str,
    engine: Box<dyn Engine>,
    mut input: impl BufRead,
    out: Out,
) -> anyhow::Result<()> {
    let mut session = Session::new(name, engine, out);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        // A read error is treated like the end of input: the arena is gone.
        let n = input.read_until(b'\n', &mut buf).unwrap_or(0);
        if n == 0 {
            session.quit();
            return Ok(());
        }
        let line = String::from_utf8_lossy(&buf);
        if !session.handle(&line)? {
            return Ok(());
        }
    }
}

/// The search under way on the search thread.
struct Worker {
    stop: Arc<AtomicBool>,
    /// Set at `ponderhit` (its `go ponder`'s [`Limits::ponderhit`]).
    ponderhit: Arc<std::sync::OnceLock<Instant>>,
}

/// One search: the engine and what it searches, handed to the search thread.
struct Job {
    engine: Box<dyn Engine>,
    game: Game,
    limits: Limits,
    stop: Arc<AtomicBool>,
}

/// The engine's one search thread: takes a [`Job`], writes its `bestmove`, hands the engine
/// back.
struct SearchThread {
    jobs: mpsc::Sender<Job>,
    done: mpsc::Receiver<Box<dyn Engine>>,
    thread: Thread,
}

impl SearchThread {
    fn start(out: Out) -> anyhow::Result<SearchThread> {
        let (jobs, inbox) = mpsc::channel::<Job>();
        let (outbox, done) = mpsc::channel();
        let handle = thread::Builder::new()
            .name("search".into())
            .stack_size(SEARCH_STACK)
            .spawn(move || {
                for job in inbox {
                    if outbox.send(search(job, &out)).is_err() {
                        return;
                    }
                }
            })
            .context("cannot start the search thread")?;
        Ok(SearchThread {
            jobs,
            done,
            thread: handle.thread().clone(),
        })
    }
}

/// Runs one job on the search thread; returns its engine.
fn search(mut job: Job, out: &Out) -> Box<dyn Engine> {
    let line = answer(job.engine.as_mut(), &job.game, &job.limits, &job.stop, out);
    // UCI: after `go infinite` the answer waits for `stop`, after `go ponder` for `stop` or
    // `ponderhit`.
    let wait_for_stop = job.limits.infinite || job.limits.ponder;
    while wait_for_stop
        && !job.stop.load(Ordering::Acquire)
        && !(job.limits.ponder && job.limits.ponderhit.get().is_some())
    {
        thread::park();
    }
    if let Some(l) = line {
        out.line(&l);
    }
    job.engine
}

struct Session {
    name: String,
    /// The engine while idle; `None` while a worker owns it.
    engine: Option<Box<dyn Engine>>,
    worker: Option<Worker>,
    /// Started at the first `go` of an engine that is not inline.
    search: Option<SearchThread>,
    /// The answer of an inline engine to `go infinite`, held until `stop`.
    pending: Option<String>,
    game: Game,
    wants_history: bool,
    inline: bool,
    out: Out,
}

impl Session {
    fn new(name: &str, engine: Box<dyn Engine>, out: Out) -> Self {
        Session {
            name: name.to_string(),
            wants_history: engine.wants_history(),
            inline: engine.inline(),
            engine: Some(engine),
            worker: None,
            search: None,
            pending: None,
            game: Game::default(),
            out,
        }
    }

    /// Handles one input line; returns false on `quit`.
    fn handle(&mut self, line: &str) -> anyhow::Result<bool> {
        let tokens: Vec<&str> = line.split_whitespace().collect();
        // UCI: skip unknown leading tokens and parse the rest ("joho debug on").
        let Some(at) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
            if !tokens.is_empty() {
                log(&format!("{}: unknown command: {}", self.name, line.trim()));
            }
            return Ok(true);
        };
        let args = &tokens[at + 1..];
        match tokens[at] {
            "uci" => self.uci(),
            "isready" => self.out.line("readyok"),
            "setoption" => self.setoption(args),
            "ucinewgame" => {
                self.engine().new_game();
                self.game = Game {
                    mode: self.game.mode,
                    ..Game::default()
                };
            }
            "position" => {
                let (game, warnings) = parse_position(args, self.game.mode, self.wants_history);
                for w in warnings {
                    log(&format!("{}: {w}", self.name));
                }
                self.game = game;
            }
            "go" => self.go(parse_go(args, Instant::now()))?,
            "stop" => self.stop(),
            "ponderhit" => self.ponderhit(),
            "quit" => {
                self.quit();
                return Ok(false);
            }
            _ => {} // debug, register: nothing to do
        }
        Ok(true)
    }

    fn uci(&mut self) {
        // The search thread starts now, before the first `go` is measured.
        if !self.inline && self.search.is_none() {
            match SearchThread::start(self.out.clone()) {
                Ok(search) => self.search = Some(search),
                Err(e) => log(&format!("{}: {e:#}", self.name)),
            }
        }
        let send_uciok = self.engine().on_uci();
        let name = self
            .engine()
            .id_name()
            .unwrap_or_else(|| format!("blitz-arena {}", self.name));
        let mut lines = vec![
            format!("id name {name}"),
            "id author blitz-arena".to_string(),
        ];
        lines.extend(self.engine().options().iter().map(|o| o.line()));
        lines.push(CHESS960.line());
        for l in &lines {
            self.out.line(l);
        }
        let out = self.out.clone();
        self.engine().declare_more(&out);
        if send_uciok {
            self.out.line("uciok");
        }
    }

    fn setoption(&mut self, args: &[&str]) {
        let Some((name, value)) = parse_setoption(args) else {
            log(&format!("{}: bad setoption: {}", self.name, args.join(" ")));
            return;
        };
        let result = if name.eq_ignore_ascii_case(CHESS960.name) {
            match value.to_ascii_lowercase().as_str() {
                "true" => Ok(CastlingMode::Chess960),
                "false" => Ok(CastlingMode::Standard),
                _ => Err(format!("option {}: expected true or false", CHESS960.name)),
            }
            .map(|mode| self.game.mode = mode)
        } else {
            self.engine().set_option(&name, &value)
        };
        if let Err(e) = result {
            log(&format!("{}: setoption ignored: {e}", self.name));
        }
    }

    fn go(&mut self, limits: Limits) -> anyhow::Result<()> {
        // A `go` during a search (a protocol error) first ends that search.
        self.stop();
        match self.engine().on_go() {
            GoAction::Search => {}
            GoAction::Crash => {
                self.out.with(|_| Ok(()));
                std::process::exit(101);
            }
            GoAction::Hang => loop {
                thread::sleep(Duration::from_secs(3600));
            },
        }
        if !self.inline && self.search.is_none() {
            self.search = Some(SearchThread::start(self.out.clone())?);
        }
        let mut engine = self.engine.take().context("engine lost")?;
        let wait_for_stop = limits.infinite || limits.ponder;
        let ponderhit = limits.ponderhit.clone();
        if self.inline {
            // No thread, no copies: `instant` measures the arena's overhead.
            let line = answer(
                engine.as_mut(),
                &self.game,
                &limits,
                &AtomicBool::new(false),
                &self.out,
            );
            self.engine = Some(engine);
            match line {
                Some(l) if wait_for_stop => self.pending = Some(l),
                Some(l) => self.out.line(&l),
                None => {}
            }
            return Ok(());
        }
        let search = self.search.as_ref().context("no search thread")?;
        let stop = Arc::new(AtomicBool::new(false));
        let job = Job {
            engine,
            game: self.game.clone(),
            limits,
            stop: stop.clone(),
        };
        search
            .jobs
            .send(job)
            .map_err(|_| anyhow::anyhow!("the search thread is gone"))?;
        self.worker = Some(Worker { stop, ponderhit });
        Ok(())
    }

    /// `ponderhit`: the search pondering goes on as the engine's own, its clock running from
    /// now (an inline engine's held answer goes out at once).
    fn ponderhit(&mut self) {
        match (&self.worker, &self.search) {
            (Some(w), Some(search)) => {
                let _ = w.ponderhit.set(Instant::now());
                search.thread.unpark();
            }
            _ => self.stop(),
        }
    }

    /// Ends the running search (its `bestmove` is written by the worker).
    fn stop(&mut self) {
        if let (Some(w), Some(search)) = (&self.worker, &self.search) {
            w.stop.store(true, Ordering::Release);
            search.thread.unpark();
        }
        if let Some(l) = self.pending.take() {
            self.out.line(&l);
        }
    }

    /// Stops any search and waits (briefly) for its answer to go out.
    fn quit(&mut self) {
        self.stop();
        if let (Some(_), Some(search)) = (self.worker.take(), &self.search) {
            let _ = search.done.recv_timeout(QUIT_GRACE);
        }
    }

    /// The idle engine: stops and joins a running search first.
    fn engine(&mut self) -> &mut dyn Engine {
        self.stop();
        if let (Some(_), Some(search)) = (self.worker.take(), &self.search) {
            match search.done.recv() {
                Ok(engine) => self.engine = Some(engine),
                Err(_) => log(&format!("{}: search thread died", self.name)),
            }
        }
        // Only a panic that escaped `answer` (none can) would leave no engine.
        self.engine.get_or_insert_with(|| Box::new(Lost)).as_mut()
    }
}

/// Runs the engine's `go`, turning a panic into the first legal move so a
/// bug never leaves the arena without an answer. Returns the `bestmove` line.
fn answer(
    engine: &mut dyn Engine,
    game: &Game,
    limits: &Limits,
    stop: &AtomicBool,
    out: &Out,
) -> Option<String> {
    let reply = panic::catch_unwind(AssertUnwindSafe(|| engine.go(game, limits, stop, out)))
        .unwrap_or_else(|_| {
            log("search panicked; answering the first legal move");
            Reply::Move(game.pos.legal_moves().first().copied())
        });
    match reply {
        Reply::Move(Some(m)) => Some(format!("bestmove {}", game.uci(m))),
        Reply::Move(None) => Some("bestmove (none)".to_string()),
        Reply::Ponder(m, reply) => Some(format!(
            "bestmove {} ponder {}",
            game.uci(m),
            game.uci(reply)
        )),
        Reply::Text(t) => Some(format!("bestmove {t}")),
        Reply::Silent => None,
    }
}

/// Stands in for an engine lost to a crashed thread: plays the first move.
struct Lost;

impl Engine for Lost {
    fn go(&mut self, game: &Game, _: &Limits, _: &AtomicBool, _: &Out) -> Reply {
        Reply::Move(game.pos.legal_moves().first().copied())
    }
}

const COMMANDS: &[&str] = &[
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
];

const CHESS960: super::engine::UciOption = super::engine::UciOption::check("UCI_Chess960", false);

/// `setoption name <name...> [value <value...>]` -> (name, value).
pub fn parse_setoption(args: &[&str]) -> Option<(String, String)> {
    let rest = args.strip_prefix(&["name"])?;
    let split = rest.iter().position(|t| *t == "value");
    let (name, value) = match split {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &[][..]),
    };
    if name.is_empty() {
        return None;
    }
    Some((name.join(" "), value.join(" ")))
}

/// `position startpos|fen <FEN> [moves ...]` -> the game, plus warnings.
///
/// A bad FEN gives the start position; moves are applied up to the first
/// one that is malformed or illegal.
pub fn parse_position(
    args: &[&str],
    mode: CastlingMode,
    with_history: bool,
) -> (Game, Vec<String>) {
    let mut warnings = Vec::new();
    let moves_at = args.iter().position(|t| *t == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let pos = match setup {
        ["startpos", ..] => Chess::default(),
        ["fen", fen @ ..] if !fen.is_empty() => match parse_fen(&fen.join(" "), mode) {
            Ok(pos) => pos,
            Err(e) => {
                warnings.push(format!(
                    "bad FEN {:?} ({e}); using the start position",
                    fen.join(" ")
                ));
                return (
                    Game {
                        mode,
                        complete: false,
                        ..Game::default()
                    },
                    warnings,
                );
            }
        },
        _ => {
            warnings.push(format!("bad position command: {}", args.join(" ")));
            return (
                Game {
                    mode,
                    complete: false,
                    ..Game::default()
                },
                warnings,
            );
        }
    };
    let mut game = Game {
        pos,
        history: Vec::new(),
        mode,
        complete: true,
    };
    for (i, text) in moves.iter().enumerate() {
        let m = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&game.pos).ok());
        let Some(m) = m else {
            warnings.push(format!(
                "illegal move {text:?} (move {} of the position command); ignoring it and the {} after it",
                i + 1,
                moves.len() - i - 1
            ));
            break;
        };
        if with_history {
            game.history.push(hash(&game.pos));
        }
        game.pos.play_unchecked(m);
    }
    game.complete = warnings.is_empty();
    (game, warnings)
}

/// The position's Zobrist hash as used by the engines.
pub fn hash(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

fn parse_fen(fen: &str, mode: CastlingMode) -> Result<Chess, String> {
    let fen = Fen::from_ascii(fen.as_bytes()).map_err(|e| e.to_string())?;
    // Be lenient with what EPD files often get wrong; reject the rest.
    // (Each `ignore_*` drops one kind of error and keeps the others.)
    let mut result = fen.into_position::<Chess>(mode);
    if let Err(e) = result {
        result = e.ignore_invalid_ep_square();
    }
    if let Err(e) = result {
        result = e.ignore_invalid_castling_rights();
    }
    if let Err(e) = result {
        result = e.ignore_impossible_check();
    }
    result.map_err(|e| e.to_string())
}

/// `go [wtime N] [btime N] ...` -> limits. Unknown tokens are skipped,
/// negative times count as 0, bad numbers are ignored with a warning.
pub fn parse_go(args: &[&str], start: Instant) -> Limits {
    let mut l = Limits::new(start);
    let mut it = args.iter().peekable();
    while let Some(&tok) = it.next() {
        let mut number = || -> Option<u64> {
            let v = it.next()?;
            match v.parse::<i64>() {
                Ok(n) => Some(n.max(0) as u64),
                Err(_) => {
                    log(&format!("go: bad value {v:?} for {tok}"));
                    None
                }
            }
        };
        match tok {
            "wtime" => l.wtime = number(),
            "btime" => l.btime = number(),
            "winc" => l.winc = number(),
            "binc" => l.binc = number(),
            "movestogo" => l.movestogo = number().map(|n| n.min(u32::MAX as u64) as u32),
            "nodes" => l.nodes = number(),
            "depth" => l.depth = number().map(|n| n.min(u32::MAX as u64) as u32),
            "movetime" => l.movetime = number(),
            "mate" => {
                number();
            }
            "infinite" => l.infinite = true,
            "ponder" => l.ponder = true,
            // searchmoves and anything unknown: skipped
            _ => {}
        }
    }
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;

    fn fen_of(game: &Game) -> String {
        Fen::from_position(&game.pos, EnPassantMode::Legal).to_string()
    }

    fn pos(cmd: &str) -> (Game, Vec<String>) {
        let args: Vec<&str> = cmd.split_whitespace().collect();
        parse_position(&args, CastlingMode::Standard, true)
    }

    #[test]
    fn position_startpos_with_moves() {
        let (g, w) = pos("startpos moves e2e4 e7e5 g1f3");
        assert!(w.is_empty());
        assert_eq!(
            fen_of(&g),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2"
        );
        assert_eq!(g.history.len(), 3);
        assert_eq!(g.history[0], hash(&Chess::default()));
    }

    #[test]
    fn position_fen_with_castling_and_promotion() {
        let (g, w) = pos("fen r3k2r/P7/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1 e8c8 a7a8q");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(fen_of(&g), "Q1kr3r/8/8/8/8/8/8/R4RK1 b - - 0 2");
    }

    #[test]
    fn position_fen_without_counters() {
        let (g, w) = pos("fen 8/8/8/8/8/8/k7/4K2R w K -");
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(fen_of(&g), "8/8/8/8/8/8/k7/4K2R w K - 0 1");
    }

    #[test]
    fn position_stops_at_the_first_illegal_move() {
        let (g, w) = pos("startpos moves e2e4 e2e4 e7e5");
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("\"e2e4\""), "{w:?}");
        assert_eq!(
            fen_of(&g),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
        );
        let (g, w) = pos("startpos moves e2e4 zz99");
        assert_eq!(w.len(), 1);
        assert_eq!(g.history.len(), 1);
    }

    #[test]
    fn position_bad_fen_falls_back_to_startpos() {
        for cmd in ["fen not/a/fen w - - 0 1 moves e2e4", "fen", "", "banana"] {
            let (g, w) = pos(cmd);
            assert_eq!(w.len(), 1, "{cmd}");
            assert_eq!(g.pos, Chess::default(), "{cmd}");
        }
    }

    #[test]
    fn go_parses_every_limit() {
        let t = Instant::now();
        let args: Vec<&str> = "wtime 1000 btime -5 winc 10 binc 20 movestogo 7 nodes 500 depth 3 movetime 99 searchmoves e2e4 infinite"
            .split_whitespace()
            .collect();
        let l = parse_go(&args, t);
        assert_eq!(l.wtime, Some(1000));
        assert_eq!(l.btime, Some(0));
        assert_eq!((l.winc, l.binc), (Some(10), Some(20)));
        assert_eq!(l.movestogo, Some(7));
        assert_eq!(l.nodes, Some(500));
        assert_eq!(l.depth, Some(3));
        assert_eq!(l.movetime, Some(99));
        assert!(l.infinite && !l.ponder);
        let l = parse_go(&["depth", "x", "nodes"], t);
        assert_eq!(l, Limits::new(t));
    }

    #[test]
    fn setoption_names_and_values_with_spaces() {
        assert_eq!(
            parse_setoption(&["name", "Move", "Overhead", "value", "10", "0"]),
            Some(("Move Overhead".into(), "10 0".into()))
        );
        assert_eq!(
            parse_setoption(&["name", "Clear", "Hash"]),
            Some(("Clear Hash".into(), String::new()))
        );
        assert_eq!(parse_setoption(&["value", "3"]), None);
        assert_eq!(parse_setoption(&["name", "value", "3"]), None);
    }

    /// Feeds `input` to a session and returns everything it wrote.
    fn session_output(engine: Box<dyn Engine>, input: &str) -> String {
        let (out, buf) = Out::buffer();
        run_loop("test", engine, input.as_bytes(), out).expect("loop");
        let bytes = buf.lock().expect("buffer").clone();
        String::from_utf8_lossy(&bytes).into_owned()
    }

    #[test]
    fn handshake_and_bestmove_inline() {
        let out = session_output(
            Box::new(crate::builtin::instant::Instant),
            "garbage\nuci\nisready\nposition startpos moves e2e4\ngo wtime 100 btime 100\nquit\n",
        );
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(
            lines,
            [
                "id name blitz-arena test",
                "id author blitz-arena",
                "option name UCI_Chess960 type check default false",
                "uciok",
                "readyok",
                "bestmove a7a6"
            ]
        );
    }

    #[test]
    fn infinite_waits_for_stop_inline_and_threaded() {
        let input = "position fen 7k/8/8/8/8/8/8/K7 w - - 0 1\ngo infinite\nisready\nstop\n";
        let out = session_output(Box::new(crate::builtin::instant::Instant), input);
        assert_eq!(out, "readyok\nbestmove a1b1\n");
        let out = session_output(Box::new(crate::builtin::minimax::Minimax::new()), input);
        let ready = out.find("readyok").expect("readyok");
        let best = out.find("bestmove").expect("bestmove");
        assert!(ready < best, "{out}");
    }

    /// `go ponder`: no answer until `ponderhit` (the search has no time limit while it
    /// ponders), then the search ends on its own clock, with no `stop`, and names the move to
    /// ponder on next; a `stop` while pondering answers at once.
    #[test]
    fn minimax_ponders_until_ponderhit_then_searches_on_its_own_clock() {
        let (out, buf) = Out::buffer();
        let text = || String::from_utf8_lossy(&buf.lock().expect("buffer")).into_owned();
        let engine = crate::builtin::create("minimax", &[]).expect("engine");
        let mut s = Session::new("test", engine, out);
        for line in [
            "setoption name Ponder value true",
            "position startpos moves e2e4 e7e5",
            "go ponder wtime 1000 btime 1000",
        ] {
            assert!(s.handle(line).expect("ok"));
        }
        // Far past its budget (at most a quarter of its 1 s): it ponders on, silent.
        thread::sleep(Duration::from_millis(600));
        assert!(!text().contains("bestmove"), "{}", text());
        assert!(s.handle("ponderhit").expect("ok"));
        let deadline = Instant::now() + Duration::from_secs(30);
        while !text().contains("bestmove") && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        let out = text();
        let best = out.lines().find(|l| l.starts_with("bestmove")).expect(&out);
        let words: Vec<&str> = best.split_whitespace().collect();
        // The move to ponder on is named when the search got past depth 1 (on a starved
        // machine it may not have); a search to depth 3 always names it.
        assert!(
            matches!(words[..], ["bestmove", _] | ["bestmove", _, "ponder", _]),
            "{best}"
        );
        assert!(s.handle("position startpos moves e2e4 e7e5").expect("ok"));
        assert!(s.handle("go depth 3").expect("ok"));
        let deadline = Instant::now() + Duration::from_secs(30);
        while text().matches("bestmove").count() < 2 && Instant::now() < deadline {
            thread::sleep(Duration::from_millis(5));
        }
        let out = text();
        let best = out
            .lines()
            .filter(|l| l.starts_with("bestmove"))
            .nth(1)
            .expect(&out);
        let words: Vec<&str> = best.split_whitespace().collect();
        assert!(matches!(words[..], ["bestmove", _, "ponder", _]), "{best}");
        // A miss: stop answers at once.
        assert!(s.handle("position startpos moves e2e4 c7c5").expect("ok"));
        assert!(s.handle("go ponder wtime 1000 btime 1000").expect("ok"));
        assert!(s.handle("stop").expect("ok"));
        s.quit();
        assert_eq!(text().matches("bestmove").count(), 3, "{}", text());
    }

    #[test]
    fn mated_side_answers_none() {
        let input = "position startpos moves f2f3 e7e5 g2g4 d8h4\ngo depth 3\nisready\n";
        for engine in crate::builtin::NAMES {
            if *engine == "faulty" {
                continue;
            }
            let e = crate::builtin::create(engine, &[]).expect("engine");
            let out = session_output(e, input);
            assert!(out.contains("bestmove (none)\n"), "{engine}: {out}");
        }
    }

    #[test]
    fn chess960_option_changes_castling_notation() {
        let castle = shakmaty::Move::Castle {
            king: shakmaty::Square::E1,
            rook: shakmaty::Square::H1,
        };
        let (out, _) = Out::buffer();
        let engine = crate::builtin::create("instant", &[]).expect("engine");
        let mut s = Session::new("test", engine, out);
        let fen = "position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1h1";
        for (opt, expected) in [("false", "e1g1"), ("true", "e1h1"), ("nonsense", "e1h1")] {
            assert!(s
                .handle(&format!("setoption name UCI_Chess960 value {opt}"))
                .expect("ok"));
            assert_eq!(s.game.uci(castle).to_string(), expected);
            assert!(s.handle(fen).expect("ok"));
            assert_eq!(fen_of(&s.game), "4k3/8/8/8/8/8/8/5RK1 b - - 1 1");
        }
    }
}
