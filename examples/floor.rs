//! The least a game manager can spend a move on: a yardstick for `benches/overhead.py`'s
//! ratio (docs/performance.md, "The floor"). It replays recorded games move by move to two
//! engine processes and does, each move, only what any manager that keeps real clocks must:
//! stamp the time, write `position` and `go` in one write, wait for the engine's output with
//! the mover's clock as the deadline (epoll), read until the `bestmove` line, stamp again
//! and charge the clock. With `--meter` it also reads the engine's CPU the way the arena's
//! CPU meter does at each `bestmove` (the process's CPU clock and each thread's `schedstat`).
//! It rules nothing, records nothing and checks no move: the moves sent are the record's,
//! whatever the engine answered. No async runtime, no allocation a move beyond the command's
//! growth.
//!
//! ```sh
//! cargo build --release --example floor
//! target/release/examples/floor GAMES [--tc-ms 60000] [--nodes N] [--meter] \
//!     [--option Name=Value]... -- ENGINE [ARG]...
//! ```
//!
//! GAMES holds a game a line: the start FEN, a tab, the moves in UCI separated by spaces.
//! Linux only (epoll, /proc).

use std::io::{BufRead, BufReader};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

struct Engine {
    child: Child,
    stdin: i32,
    stdout: i32,
    /// Its own epoll instance, watching its output alone.
    epoll: OwnedFd,
    /// Bytes read and not yet split into lines.
    pending: Vec<u8>,
    /// The engine's CPU clock and each of its threads' `schedstat` (as the arena's CPU meter
    /// reads them), with `--meter`.
    meter: Option<(libc::clockid_t, Vec<std::fs::File>)>,
}

struct Options {
    games: String,
    tc: Duration,
    nodes: Option<u64>,
    meter: bool,
    options: Vec<String>,
    engine: Vec<String>,
}

fn main() {
    let options = match parse_args(std::env::args().skip(1).collect()) {
        Ok(options) => options,
        Err(e) => {
            eprintln!("floor: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&options) {
        eprintln!("floor: {e}");
        std::process::exit(1);
    }
}

fn parse_args(args: Vec<String>) -> Result<Options, String> {
    let usage = "usage: floor GAMES [--tc-ms MS] [--nodes N] [--meter] [--option Name=Value]... -- ENGINE [ARG]...";
    let split = args.iter().position(|a| a == "--").ok_or(usage)?;
    let (ours, engine) = (&args[..split], &args[split + 1..]);
    if engine.is_empty() {
        return Err(usage.into());
    }
    let mut options = Options {
        games: String::new(),
        tc: Duration::from_secs(60),
        nodes: None,
        meter: false,
        options: Vec::new(),
        engine: engine.to_vec(),
    };
    let mut it = ours.iter();
    while let Some(arg) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--tc-ms" => {
                let ms = value()?.parse().map_err(|_| "--tc-ms: a number of ms")?;
                options.tc = Duration::from_millis(ms);
            }
            "--nodes" => options.nodes = Some(value()?.parse().map_err(|_| "--nodes: a number")?),
            "--meter" => options.meter = true,
            "--option" => options.options.push(value()?),
            games if options.games.is_empty() && !games.starts_with('-') => {
                options.games = games.to_string()
            }
            other => return Err(format!("unknown argument {other:?}; {usage}")),
        }
    }
    if options.games.is_empty() {
        return Err(usage.into());
    }
    Ok(options)
}

fn run(options: &Options) -> Result<(), String> {
    let file = std::fs::File::open(&options.games)
        .map_err(|e| format!("cannot read {}: {e}", options.games))?;
    let mut games = Vec::new();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| format!("{}: {e}", options.games))?;
        let (fen, moves) = line.split_once('\t').ok_or(format!(
            "{} line {}: want a FEN, a tab, the moves",
            options.games,
            n + 1
        ))?;
        games.push((fen.to_string(), moves.trim().to_string()));
    }
    let mut engines = [start(options)?, start(options)?];
    let go_tail = options
        .nodes
        .map_or(String::new(), |n| format!(" nodes {n}"));
    let mut command = String::with_capacity(4096);
    let mut plies = 0u64;
    for (index, (fen, moves)) in games.iter().enumerate() {
        for engine in engines.iter_mut() {
            send(engine, "ucinewgame\nisready\n")?;
            wait_for(engine, "readyok", Duration::from_secs(60))?;
        }
        let moves: Vec<&str> = moves.split_ascii_whitespace().collect();
        let black_first = fen.split_ascii_whitespace().nth(1) == Some("b");
        let mut clocks = [options.tc, options.tc];
        for ply in 0..moves.len() {
            // Colours swap from game to game, as the arena's pairs do.
            let white_moves = (ply % 2 == 0) != black_first;
            let side = usize::from(!white_moves);
            let engine = &mut engines[(side + index) % 2];
            command.clear();
            command.push_str("position fen ");
            command.push_str(fen);
            if ply > 0 {
                command.push_str(" moves");
                for m in &moves[..ply] {
                    command.push(' ');
                    command.push_str(m);
                }
            }
            use std::fmt::Write;
            let _ = writeln!(
                command,
                "\ngo wtime {} btime {}{go_tail}",
                clocks[0].as_millis(),
                clocks[1].as_millis()
            );
            let start = Instant::now();
            send(engine, &command)?;
            wait_for(engine, "bestmove", clocks[side])?;
            let think = start.elapsed();
            if let Some((clock, threads)) = &engine.meter {
                read_meter(*clock, threads);
            }
            clocks[side] = clocks[side].saturating_sub(think);
            plies += 1;
        }
    }
    for engine in engines.iter_mut() {
        let _ = send(engine, "quit\n");
        let _ = engine.child.wait();
    }
    println!("floor: {} games, {plies} plies", games.len());
    Ok(())
}

fn start(options: &Options) -> Result<Engine, String> {
    let child = Command::new(&options.engine[0])
        .args(&options.engine[1..])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", options.engine[0]))?;
    let stdin = child.stdin.as_ref().expect("piped").as_raw_fd();
    let stdout = child.stdout.as_ref().expect("piped").as_raw_fd();
    // SAFETY: epoll_create1 takes no pointer.
    let epoll = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if epoll < 0 {
        return Err(format!("epoll: {}", std::io::Error::last_os_error()));
    }
    // SAFETY: a new descriptor, owned by nothing else.
    let epoll = unsafe { OwnedFd::from_raw_fd(epoll) };
    let mut event = libc::epoll_event {
        events: libc::EPOLLIN as u32,
        u64: 0,
    };
    // SAFETY: the event is a valid epoll_event; both descriptors are open.
    if unsafe { libc::epoll_ctl(epoll.as_raw_fd(), libc::EPOLL_CTL_ADD, stdout, &mut event) } != 0 {
        return Err(format!("epoll_ctl: {}", std::io::Error::last_os_error()));
    }
    let mut engine = Engine {
        child,
        stdin,
        stdout,
        epoll,
        pending: Vec::with_capacity(65536),
        meter: None,
    };
    send(&mut engine, "uci\n")?;
    wait_for(&mut engine, "uciok", Duration::from_secs(60))?;
    for option in &options.options {
        let (name, value) = option
            .split_once('=')
            .ok_or(format!("--option {option}: Name=Value"))?;
        send(
            &mut engine,
            &format!("setoption name {name} value {value}\n"),
        )?;
    }
    if options.meter {
        // The threads are looked up once the engine is ready, as the arena's meter does at
        // its first `go`.
        send(&mut engine, "isready\n")?;
        wait_for(&mut engine, "readyok", Duration::from_secs(60))?;
        engine.meter = Some(meter_files(engine.child.id() as libc::pid_t)?);
    }
    Ok(engine)
}

/// The engine process's CPU clock and its threads' `schedstat` files.
fn meter_files(pid: libc::pid_t) -> Result<(libc::clockid_t, Vec<std::fs::File>), String> {
    let mut clock: libc::clockid_t = 0;
    // SAFETY: clock_getcpuclockid writes one clockid_t.
    unsafe { libc::clock_getcpuclockid(pid, &mut clock) };
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).map_err(|e| format!("{e}"))?;
    let threads = tasks
        .flatten()
        .map(|task| std::fs::File::open(task.path().join("schedstat")))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("schedstat: {e}"))?;
    Ok((clock, threads))
}

fn send(engine: &mut Engine, text: &str) -> Result<(), String> {
    let mut bytes = text.as_bytes();
    while !bytes.is_empty() {
        // SAFETY: writes from a live slice to an open pipe.
        let n = unsafe { libc::write(engine.stdin, bytes.as_ptr().cast(), bytes.len()) };
        if n < 0 {
            return Err(format!("write: {}", std::io::Error::last_os_error()));
        }
        bytes = &bytes[n as usize..];
    }
    Ok(())
}

/// Reads the engine's output until a line starting with `word`, waiting at most `limit`
/// (a flag: the run stops, as this yardstick has no rules to apply).
fn wait_for(engine: &mut Engine, word: &str, limit: Duration) -> Result<(), String> {
    let deadline = Instant::now() + limit;
    loop {
        // The lines already read: pass over each, stop at the one wanted.
        let mut start = 0;
        while let Some(end) = memchr::memchr(b'\n', &engine.pending[start..]) {
            let found = engine.pending[start..].starts_with(word.as_bytes());
            start += end + 1;
            if found {
                engine.pending.drain(..start);
                return Ok(());
            }
        }
        engine.pending.drain(..start);
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!("no {word} in time"));
        }
        let mut event = libc::epoll_event { events: 0, u64: 0 };
        let timeout = left.as_millis().clamp(1, i32::MAX as u128) as i32;
        // SAFETY: room for one event.
        if unsafe { libc::epoll_wait(engine.epoll.as_raw_fd(), &mut event, 1, timeout) } <= 0 {
            continue; // the deadline (checked above) or EINTR
        }
        engine.pending.reserve(65536);
        let room = engine.pending.spare_capacity_mut();
        // SAFETY: reads into the vector's spare room, at most its length.
        let n = unsafe { libc::read(engine.stdout, room.as_mut_ptr().cast(), room.len()) };
        if n <= 0 {
            return Err("the engine closed its output".into());
        }
        // SAFETY: the read filled n bytes of the spare room.
        unsafe { engine.pending.set_len(engine.pending.len() + n as usize) };
    }
}

fn read_meter(clock: libc::clockid_t, threads: &[std::fs::File]) {
    use std::os::unix::fs::FileExt;
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    let mut buf = [0u8; 128];
    for schedstat in threads {
        let _ = schedstat.read_at(&mut buf, 0);
        std::hint::black_box(&buf);
    }
    std::hint::black_box(ts.tv_nsec);
}
