//! An engine's process: spawned in its own process group, its output read by the arena's one
//! I/O thread (`pipes`), killed as a group and reaped on every path.
//!
//! The instant a line arrives is taken on that thread, as `read` returns, where no game's
//! work on the async runtime can delay it: a flood of output from one engine cannot make
//! another engine's `bestmove` look late. The I/O thread also drops the `info` lines the game
//! never reads before they cost anything.

use std::collections::VecDeque;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::lines::{Output, Splitter, Tail, ROOM_KEPT};
use super::{janitor, pipes, reaper, spawner};

/// How many lines may wait unread before the I/O thread stops reading the engine (it then
/// blocks on its own output: a flood cannot grow the arena's memory).
pub(super) const LINE_QUEUE: usize = 1024;

/// One line of engine output, stamped with the instant it was read.
#[derive(Debug)]
pub enum Line {
    Text {
        text: String,
        at: Instant,
    },
    /// A line longer than `MAX_LINE`, dropped, read at `at`; `bestmove`: it began as a
    /// `bestmove` line.
    Overlong {
        at: Instant,
        bestmove: bool,
    },
    /// The engine closed its output (it exited or crashed).
    Eof {
        at: Instant,
    },
}

/// The last `info` line with a score. The I/O thread keeps it here instead of sending every
/// info line on: an engine prints dozens a move, and waking the game for each would cost
/// more than everything else the arena does per move. It is kept as the engine's bytes, made
/// text once, when the `bestmove` is read (checking each report's UTF-8 was most of a
/// report's cost).
pub type InfoSlot = Arc<Mutex<Option<Vec<u8>>>>;

/// Every scored `info` line, and a count of the unscored ones, kept only while `on` (a compat
/// run, whose PV checks read each line): off, reading costs one atomic load per read more.
#[derive(Debug, Default)]
pub struct InfoLog {
    pub on: AtomicBool,
    pub lines: Mutex<SearchLines>,
}

/// The `info` lines an engine printed in one search, as the info log keeps them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLines {
    /// The scored ones, in the order they were read.
    pub scored: Vec<String>,
    /// How many other lines it printed before its `bestmove` (unscored `info` lines, and
    /// any other text).
    pub others: usize,
}

impl SearchLines {
    /// Every line of the search, its `bestmove` included.
    pub fn count(&self) -> usize {
        self.scored.len() + self.others + 1
    }
}

/// Where an engine's search reports go: the last one, and all of them while the log is on.
#[derive(Clone, Default)]
pub(super) struct Reports {
    pub last: InfoSlot,
    pub all: Arc<InfoLog>,
}

impl Reports {
    /// Whether every report is to be kept (read once per read of the engine's output).
    pub fn logging(&self) -> bool {
        self.all.on.load(Ordering::Relaxed)
    }

    /// A run of `info` lines: the last scored one kept as the search report (written over
    /// the one before, in its room: a search prints a dozen reports or thousands), the scored
    /// ones and the count of unscored ones added to the log.
    pub fn publish(&self, last: Option<&[u8]>, mut all: Vec<String>, unscored: usize) {
        if !all.is_empty() || unscored > 0 {
            let mut lines = self.all.lines.lock().unwrap_or_else(|e| e.into_inner());
            lines.scored.append(&mut all);
            lines.others += unscored;
        }
        if let Some(last) = last {
            let mut slot = self.last.lock().unwrap_or_else(|e| e.into_inner());
            match slot
                .as_mut()
                .filter(|report| report.capacity() <= ROOM_KEPT)
            {
                Some(report) => {
                    report.clear();
                    report.extend_from_slice(last);
                }
                None => *slot = Some(last.to_vec()),
            }
        }
    }
}

/// The end of an engine's stderr.
pub type StderrTail = Arc<Mutex<Tail>>;

/// Where the arena's commands to the engine go.
enum Input {
    Pipe(tokio::process::ChildStdin),
    /// An engine inside the arena's own process (tests): each line as a message.
    Memory(mpsc::UnboundedSender<String>),
}

/// The queue of an engine's lines, from its reader (the I/O thread, a task on the game's
/// thread, or an in-memory engine) to its game, holding at most `LINE_QUEUE` lines: the lines
/// and a waker for each side under one lock. (tokio's bounded channel, with its semaphore and
/// list of blocks, took about 720 instructions to send and receive a line; this takes about
/// 470, most of it waking the game.)
struct Queue {
    state: Mutex<QueueState>,
}

#[derive(Default)]
struct QueueState {
    lines: VecDeque<Line>,
    /// The game waits for a line.
    receiver: Option<Waker>,
    /// The reader waits for room.
    sender: Option<Waker>,
    sender_gone: bool,
    receiver_gone: bool,
}

impl Queue {
    fn state(&self) -> std::sync::MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A new line queue: its reader's end and its game's.
pub(super) fn line_queue() -> (LineSender, LineReceiver) {
    let queue = Arc::new(Queue {
        state: Mutex::new(QueueState {
            lines: VecDeque::with_capacity(8),
            ..QueueState::default()
        }),
    });
    (LineSender(Arc::clone(&queue)), LineReceiver(queue))
}

/// The reader's end of a line queue: dropping it ends the lines.
pub(super) struct LineSender(Arc<Queue>);

/// A line queue's room is taken, or the game's end is gone.
pub(super) enum Refused {
    Full(Line),
    Gone,
}

impl LineSender {
    /// Queues `line` if there is room.
    pub fn try_send(&self, line: Line) -> Result<(), Refused> {
        let mut state = self.0.state();
        if state.receiver_gone {
            return Err(Refused::Gone);
        }
        if state.lines.len() >= LINE_QUEUE {
            return Err(Refused::Full(line));
        }
        state.lines.push_back(line);
        let waiting = state.receiver.take();
        drop(state);
        if let Some(game) = waiting {
            game.wake();
        }
        Ok(())
    }

    /// Waits until the queue has room for a line; an error once the game's end is gone.
    pub async fn room(&self) -> Result<(), Refused> {
        std::future::poll_fn(|cx| self.poll_room(cx)).await
    }

    /// [`LineSender::room`] as a poll.
    pub fn poll_room(&self, cx: &mut Context<'_>) -> Poll<Result<(), Refused>> {
        let mut state = self.0.state();
        if state.receiver_gone {
            return Poll::Ready(Err(Refused::Gone));
        }
        if state.lines.len() < LINE_QUEUE {
            return Poll::Ready(Ok(()));
        }
        register(&mut state.sender, cx.waker());
        Poll::Pending
    }

    /// Queues `line`, waiting for room (an in-memory engine); a line the game's end is gone
    /// for is dropped.
    pub async fn send(&self, mut line: Line) {
        while self.room().await.is_ok() {
            match self.try_send(line) {
                Err(Refused::Full(back)) => line = back,
                Ok(()) | Err(Refused::Gone) => return,
            }
        }
    }
}

impl Drop for LineSender {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.sender_gone = true;
        let waiting = state.receiver.take();
        drop(state);
        if let Some(game) = waiting {
            game.wake();
        }
    }
}

/// The game's end of a line queue: dropping it drops the lines queued and ends the reader's
/// sending.
pub(super) struct LineReceiver(Arc<Queue>);

impl LineReceiver {
    /// The next line; `None` once the reader's end is gone and every line is taken.
    fn poll_recv(&self, cx: &mut Context<'_>) -> Poll<Option<Line>> {
        // As tokio's own channels: a task that finds a line every time still yields now and
        // then to the others on its thread.
        let coop = std::task::ready!(tokio::task::coop::poll_proceed(cx));
        let mut state = self.0.state();
        let line = state.lines.pop_front();
        if let Some(line) = line {
            let waiting = state.sender.take();
            drop(state);
            if let Some(reader) = waiting {
                reader.wake();
            }
            coop.made_progress();
            return Poll::Ready(Some(line));
        }
        if state.sender_gone {
            return Poll::Ready(None);
        }
        register(&mut state.receiver, cx.waker());
        Poll::Pending
    }

    fn try_recv(&self) -> Result<Line, mpsc::error::TryRecvError> {
        let mut state = self.0.state();
        match state.lines.pop_front() {
            Some(line) => {
                let waiting = state.sender.take();
                drop(state);
                if let Some(reader) = waiting {
                    reader.wake();
                }
                Ok(line)
            }
            None if state.sender_gone => Err(mpsc::error::TryRecvError::Disconnected),
            None => Err(mpsc::error::TryRecvError::Empty),
        }
    }

    /// The lines queued.
    pub fn len(&self) -> usize {
        self.0.state().lines.len()
    }
}

impl Drop for LineReceiver {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.receiver_gone = true;
        let lines = std::mem::take(&mut state.lines);
        let waiting = state.sender.take();
        drop(state);
        drop(lines);
        if let Some(reader) = waiting {
            reader.wake();
        }
    }
}

/// Keeps `waker` in `slot` to be woken, unless the one there already wakes the same task.
fn register(slot: &mut Option<Waker>, waker: &Waker) {
    match slot {
        Some(kept) if kept.will_wake(waker) => {}
        _ => *slot = Some(waker.clone()),
    }
}

/// An engine's output as lines: every line except `info` lines, in order.
pub struct Lines {
    rx: LineReceiver,
    /// A process's pipes, held by the I/O thread (none for an engine in the arena's process).
    pipes: Option<pipes::Watch>,
}

impl Lines {
    /// The next line; `None` once the engine's side is gone. Cancel-safe.
    pub async fn recv(&mut self) -> Option<Line> {
        let line = match self.pipes.as_ref().and_then(pipes::Watch::on_this_thread) {
            // Read on the game's thread: what the pipes hold is read now, and the queue wakes
            // the game when a line reaches it.
            Some(reader) => {
                let _waits = reader.game_waits();
                std::future::poll_fn(|cx| {
                    reader.read_for_game(cx);
                    self.rx.poll_recv(cx)
                })
                .await
            }
            None => std::future::poll_fn(|cx| self.rx.poll_recv(cx)).await,
        };
        self.taken();
        line
    }

    /// The next line if one is there.
    pub fn try_recv(&mut self) -> Result<Line, mpsc::error::TryRecvError> {
        let line = self.rx.try_recv();
        if line.is_ok() {
            self.taken();
        }
        line
    }

    fn taken(&self) {
        if let Some(pipes) = &self.pipes {
            pipes.taken(|| self.rx.len());
        }
    }
}

/// One `write(2)` of `bytes` to the engine's (non-blocking) input: how many went; 0 when
/// the pipe is full (or the call was interrupted), an error when the engine has closed it.
fn write_now(stdin: &tokio::process::ChildStdin, bytes: &[u8]) -> std::io::Result<usize> {
    use std::os::fd::AsRawFd;
    // SAFETY: writes at most `bytes.len()` bytes from `bytes` to a descriptor `stdin` owns.
    let n = unsafe { libc::write(stdin.as_raw_fd(), bytes.as_ptr().cast(), bytes.len()) };
    if n >= 0 {
        return Ok(n as usize);
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::EAGAIN | libc::EINTR) => Ok(0),
        _ => Err(error),
    }
}

/// A running engine: its input, its output as lines, and (for a real process) the child.
pub struct Process {
    input: Input,
    /// Every line except `info` lines.
    pub lines: Lines,
    pub last_info: InfoSlot,
    pub info_log: Arc<InfoLog>,
    pub stderr_tail: StderrTail,
    child: Option<Child>,
}

/// How a process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// `exit(code)`.
    Code(i32),
    /// Killed by a signal.
    Signal(i32),
}

impl ExitStatus {
    /// The shell's convention: the code, or 128 + the signal.
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Code(code) => code,
            ExitStatus::Signal(signal) => 128 + signal,
        }
    }
}

impl std::fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitStatus::Code(code) => write!(f, "exit status: {code}"),
            ExitStatus::Signal(signal) => write!(f, "signal: {signal} ({})", signal_name(*signal)),
        }
    }
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL",
        libc::SIGTERM => "SIGTERM",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGINT => "SIGINT",
        libc::SIGPIPE => "SIGPIPE",
        _ => "signal",
    }
}

/// Spawns `program` directly (never through a shell), in its own process group (a Ctrl-C at
/// the terminal reaches only the arena, and stopping the engine kills everything it started),
/// listed with the janitor, which kills its group even if the arena is killed with SIGKILL.
/// The process is started on the spawner thread (`spawner`), off the runtime.
pub async fn spawn(
    program: &Path,
    args: &[String],
    dir: Option<&Path>,
    env: &[(String, String)],
) -> std::io::Result<Process> {
    let mut command = std::process::Command::new(program);
    command
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let mut child = spawner::on_spawner(move || start(command).map(Started::new))
        .await?
        .take();
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let stdin = match tokio::process::ChildStdin::from_std(stdin) {
        Ok(stdin) => stdin,
        Err(e) => {
            kill_group(&mut child);
            return Err(e);
        }
    };
    let exit = match pidfd(&child) {
        Ok(exit) => exit,
        Err(e) => {
            kill_group(&mut child);
            return Err(e);
        }
    };
    let (tx, rx) = line_queue();
    let reports = Reports::default();
    let stderr_tail = StderrTail::default();
    let watch = pipes::watch(
        OwnedFd::from(stdout),
        OwnedFd::from(stderr),
        exit,
        tx,
        reports.clone(),
        Arc::clone(&stderr_tail),
    );
    let watch = match watch {
        Ok(watch) => watch,
        Err(e) => {
            kill_group(&mut child);
            return Err(e);
        }
    };
    Ok(Process {
        input: Input::Pipe(stdin),
        lines: Lines {
            rx,
            pipes: Some(watch),
        },
        last_info: reports.last,
        info_log: reports.all,
        stderr_tail,
        child: Some(child),
    })
}

/// A pidfd of the engine's process, which becomes readable when it exits: how its exit is
/// noticed while a process it left behind holds its pipes open. None where the kernel has no
/// pidfds (before Linux 5.3): its exit is then noticed when its pipes close. Out of open files
/// is an error (the run's, `resources`).
fn pidfd(child: &Child) -> std::io::Result<Option<OwnedFd>> {
    use std::os::fd::FromRawFd;
    // SAFETY: pidfd_open(2) of our own child, not yet reaped (its pid cannot name another
    // process); the descriptor it returns (close-on-exec) is owned from here.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, child.id() as libc::pid_t, 0) };
    if fd >= 0 {
        // SAFETY: a descriptor pidfd_open(2) just returned, owned by nothing else.
        return Ok(Some(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) }));
    }
    let error = std::io::Error::last_os_error();
    match super::Shortage::of(&error) {
        Some(_) => Err(error),
        None => Ok(None),
    }
}

/// The interpreter named by the `#!` line of the script `program`, if it is not there (what
/// an exec's "No such file or directory" means of a script that exists). Reads the line's
/// first 256 bytes at most (the kernel reads no more), without waiting on a FIFO.
pub(super) fn missing_interpreter(program: &Path) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(program)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut head = [0u8; 256];
    let n = file.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let interpreter = line
        .split(|&b| b == b' ' || b == b'\t')
        .find(|word| !word.is_empty())?;
    let interpreter = String::from_utf8_lossy(interpreter).into_owned();
    (!Path::new(&interpreter).exists()).then_some(interpreter)
}

/// An engine just started, on its way back to the game that asked for it: killed as a group
/// and reaped if that game is gone before it arrives (its start was cancelled).
struct Started(Option<Child>);

impl Started {
    fn new(child: Child) -> Started {
        Started(Some(child))
    }

    fn take(mut self) -> Child {
        self.0.take().expect("taken once")
    }
}

impl Drop for Started {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            kill_group(&mut child);
        }
    }
}

/// Starts `command` as an engine, with its pid on the reaper's list before any sweep can see
/// it and its group listed with the janitor, which kills the group should the arena die
/// (`kill -9` included). Runs on the spawner thread.
///
/// Started so, the standard library uses `posix_spawn` (a `vfork`: nothing of the arena's
/// memory is copied). Only when the janitor could not be started is the engine given a Linux
/// parent-death signal instead, which needs a step between `fork` and `exec`: a full `fork`,
/// whose copy of the arena's page tables, and every write the arena's threads make while the
/// child has not yet run `exec`, cost more than the rest of starting an engine at 1,024 games
/// at once (docs/performance.md).
fn start(mut command: std::process::Command) -> std::io::Result<Child> {
    if !janitor::runs() {
        let parent = std::process::id() as libc::pid_t;
        // SAFETY: between fork and exec only async-signal-safe calls are made (prctl,
        // getppid, _exit), and no memory is allocated.
        unsafe {
            command.pre_exec(move || {
                // Linux: SIGKILL this child when the thread that spawned it dies: the spawner
                // thread, which lives as long as the arena.
                if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // The parent may have died before prctl took effect.
                if libc::getppid() != parent {
                    libc::_exit(1);
                }
                Ok(())
            });
        }
    }
    // The run's mark, for the janitor to find what leaves the group should the arena die.
    janitor::mark(&mut command);
    let spawning = reaper::spawning();
    let child = command.spawn()?;
    spawning.register(child.id() as libc::pid_t);
    janitor::watch(child.id() as libc::pid_t);
    drop(spawning);
    Ok(child)
}

/// The other end of an in-memory engine: what the arena wrote, line by line, and a way to
/// answer. Lines are stamped with the runtime's clock when they are said, so under
/// `tokio::time::pause` a whole game runs in virtual time, exactly.
pub struct MemoryEngine {
    pub commands: mpsc::UnboundedReceiver<String>,
    tx: LineSender,
    splitter: Splitter,
    reports: Reports,
}

impl MemoryEngine {
    /// Sends `text` (one or more lines) as the engine's output, through the same filter a
    /// process's output goes through.
    pub async fn say(&mut self, text: &str) {
        let at = Instant::now();
        let mut out = Vec::new();
        let mut bytes = text.as_bytes().to_vec();
        if !text.ends_with('\n') {
            bytes.push(b'\n');
        }
        let reports = &self.reports;
        let logging = reports.logging();
        self.splitter.feed(&bytes, |output| match output {
            Output::Report(text) => {
                let all = if logging {
                    vec![Output::text(text)]
                } else {
                    Vec::new()
                };
                reports.publish(Some(text), all, 0);
            }
            Output::Unscored => reports.publish(None, Vec::new(), usize::from(logging)),
            Output::Text(text) => out.push(Line::Text {
                text: Output::text(text),
                at,
            }),
            Output::Overlong { bestmove } => out.push(Line::Overlong { at, bestmove }),
        });
        for line in out {
            self.tx.send(line).await;
        }
    }

    /// The engine exits: the arena reads end of file.
    pub async fn exit(self) {
        self.tx.send(Line::Eof { at: Instant::now() }).await;
    }
}

impl Process {
    /// An engine that lives in the arena's own process, for tests of the game loop under
    /// virtual time: the arena talks to it exactly as to a process.
    pub fn in_memory() -> (Process, MemoryEngine) {
        let (commands_tx, commands) = mpsc::unbounded_channel();
        let (tx, rx) = line_queue();
        let reports = Reports::default();
        let process = Process {
            input: Input::Memory(commands_tx),
            lines: Lines { rx, pipes: None },
            last_info: Arc::clone(&reports.last),
            info_log: Arc::clone(&reports.all),
            stderr_tail: StderrTail::default(),
            child: None,
        };
        let peer = MemoryEngine {
            commands,
            tx,
            splitter: Splitter::default(),
            reports,
        };
        (process, peer)
    }

    /// The engine's process id (it leads its process group); none for an engine inside the
    /// arena's own process.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Writes `text` to the engine; an error means the engine has closed its input.
    pub async fn write(&mut self, text: &str) -> std::io::Result<()> {
        match &mut self.input {
            Input::Pipe(stdin) => {
                // The engine reads its input between searches, so the pipe almost always has
                // room: one `write(2)` here, and the runtime's write future and readiness
                // tracking only for what does not fit.
                let written = write_now(stdin, text.as_bytes())?;
                if written < text.len() {
                    stdin.write_all(&text.as_bytes()[written..]).await?;
                }
                Ok(())
            }
            Input::Memory(tx) => {
                for line in text.lines() {
                    tx.send(line.to_string())
                        .map_err(|_| std::io::Error::from(std::io::ErrorKind::BrokenPipe))?;
                }
                Ok(())
            }
        }
    }

    /// The end of the engine's stderr, lines joined with ` | `.
    /// The end of the engine's stderr once it has been read to its end, waiting up to
    /// `within` for that (an engine that has just exited may have lines still in the pipe;
    /// a process it left behind may hold the pipe open, hence the bound).
    pub async fn stderr_tail_at_end(&self, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let closed = self
                .stderr_tail
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_closed();
            if closed || Instant::now() >= deadline {
                return self.stderr_tail();
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
    }

    pub fn stderr_tail(&self) -> String {
        self.stderr_tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .joined()
    }

    /// How the process ended, if it has ended within `within` (it is not reaped yet, so its
    /// group id cannot be reused before `kill` has killed the group).
    pub async fn exit_status(&self, within: Duration) -> Option<ExitStatus> {
        let child = self.child.as_ref()?;
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = peek_exit(child.id() as libc::pid_t) {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// Kills the engine's whole process group and reaps the engine, waiting at most a moment
    /// (a SIGKILLed process is gone within microseconds unless the kernel holds it).
    pub async fn kill(&mut self) {
        let Some(child) = self.child.as_mut() else {
            return;
        };
        signal_group(child);
        let deadline = Instant::now() + Duration::from_secs(2);
        while !matches!(child.try_wait(), Ok(Some(_)) | Err(_)) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        reaper::gone(child.id() as libc::pid_t);
        self.child = None;
        // What left the group is killed and reaped off the runtime (it reads /proc), by a
        // sweep that starts after this kill (one sweep serves every kill that waited for it).
        let ticket = reaper::ticket();
        let _ = tokio::task::spawn_blocking(move || reaper::sweep_since(ticket)).await;
    }
}

impl Drop for Process {
    /// Every path that loses an engine (a failed handshake, a cancelled game, a panic) kills
    /// its group and reaps it here, so no engine outlives the arena, not even as a zombie.
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            kill_group(child);
        }
    }
}

/// SIGKILL to the group, then reap, blocking for at most two seconds.
fn kill_group(child: &mut Child) {
    signal_group(child);
    let deadline = std::time::Instant::now() + Duration::from_secs(2);
    while !matches!(child.try_wait(), Ok(Some(_)) | Err(_)) && std::time::Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_micros(200));
    }
    reaper::gone(child.id() as libc::pid_t);
    reaper::sweep();
}

/// SIGKILL to the engine's process group (its pid: it leads its group), and off the janitor's
/// list. The leader is not reaped yet, so the group id still names this group.
fn signal_group(child: &Child) {
    let pgid = child.id() as libc::pid_t;
    // SAFETY: kill(2) with a negative pid signals the process group.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
    janitor::forget(pgid);
}

/// The exit status of `pid` if it has exited, without reaping it.
fn peek_exit(pid: libc::pid_t) -> Option<ExitStatus> {
    // SAFETY: waitid fills `info`; WNOWAIT leaves the child waitable.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
        if libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) != 0 {
            return None;
        }
        if info.si_pid() == 0 {
            return None; // still running
        }
        let status = info.si_status();
        Some(if info.si_code == libc::CLD_EXITED {
            ExitStatus::Code(status)
        } else {
            ExitStatus::Signal(status)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `script` run by `sh`, as an engine.
    async fn sh(script: &str) -> Process {
        spawn(
            Path::new("/bin/sh"),
            &["-c".into(), script.into()],
            None,
            &[],
        )
        .await
        .unwrap()
    }

    /// `script` run by `sh`, its output read to its end: the process, and its lines other
    /// than `info`.
    async fn lines_of(script: &str) -> (Process, Vec<String>) {
        let mut process = sh(script).await;
        let mut got = Vec::new();
        while let Some(line) = process.lines.recv().await {
            match line {
                Line::Text { text, .. } => got.push(text),
                Line::Overlong { .. } => got.push("<overlong>".into()),
                Line::Eof { .. } => break,
            }
        }
        (process, got)
    }

    #[tokio::test]
    async fn lines_from_a_real_process_are_filtered_and_end_with_eof() {
        let script = "printf 'info depth 1 score cp 5\\ninfo depth 2 nodes 9\\nbestmove e2e4\\n'";
        let (mut process, got) = lines_of(script).await;
        assert_eq!(got, ["bestmove e2e4"]);
        assert_eq!(
            process.last_info.lock().unwrap().as_deref(),
            Some(&b"info depth 1 score cp 5"[..])
        );
        assert_eq!(
            process.exit_status(Duration::from_secs(5)).await,
            Some(ExitStatus::Code(0))
        );
        process.kill().await;
    }

    /// The search report is written over the one before in its room: a shorter report read
    /// later leaves nothing of the longer ones (one with bytes that are not UTF-8 among them),
    /// an unscored line changes nothing, and the room of a very long report is not kept.
    /// (The pauses make separate reads likely; read together, the lines give the same report.)
    #[tokio::test]
    async fn each_report_replaces_the_last_whole() {
        let script = concat!(
            "printf 'info depth 11 score cp 1 pv'; for i in $(seq 2000); do printf ' e2e4'; done; ",
            "printf '\\n'; sleep 0.05; ",
            "printf 'info depth 12 score cp 123 nodes 99999 pv e2e4 e7e5\\n'; sleep 0.05; ",
            "printf 'info depth 13 score cp 7 string \\377\\377\\n'; sleep 0.05; ",
            "printf 'info depth 1 score cp 5\\n'; sleep 0.05; ",
            "printf 'info depth 2 nodes 9\\n'; sleep 0.05; ",
            "printf 'bestmove e2e4\\n'",
        );
        let (mut process, got) = lines_of(script).await;
        assert_eq!(got, ["bestmove e2e4"]);
        {
            let slot = process.last_info.lock().unwrap();
            let report = slot.as_ref().expect("a report");
            assert_eq!(report, b"info depth 1 score cp 5");
            assert!(report.capacity() <= ROOM_KEPT, "{}", report.capacity());
        }
        process.kill().await;
    }

    /// On a lane (the game's own thread reads its engines), the `info` lines of a search are
    /// read and kept as they come without running the game: its wait for `bestmove` is polled
    /// when it starts and when the move arrives, not once for each of the 40 lines an engine
    /// printed apart (the pauses make each its own read; before, each woke the game).
    #[tokio::test]
    async fn info_lines_read_on_the_game_s_thread_do_not_wake_the_game() {
        super::pipes::read_on_this_thread();
        let mut process = sh(concat!(
            "for i in $(seq 40); do echo \"info depth $i score cp $i\"; sleep 0.005; done; ",
            "echo bestmove e2e4",
        ))
        .await;
        let mut polls = 0;
        let line = {
            let mut recv = std::pin::pin!(process.lines.recv());
            std::future::poll_fn(|cx| {
                polls += 1;
                std::future::Future::poll(recv.as_mut(), cx)
            })
            .await
        };
        assert!(
            matches!(&line, Some(Line::Text { text, .. }) if text == "bestmove e2e4"),
            "{line:?}"
        );
        assert!(polls <= 3, "the game was polled {polls} times");
        assert_eq!(
            process.last_info.lock().unwrap().as_deref(),
            Some(&b"info depth 40 score cp 40"[..])
        );
        process.kill().await;
    }

    #[tokio::test]
    async fn the_exit_status_names_the_signal() {
        let process = sh("kill -SEGV $$").await;
        let status = process.exit_status(Duration::from_secs(5)).await.unwrap();
        assert_eq!(status, ExitStatus::Signal(libc::SIGSEGV));
        assert_eq!(status.code(), 139);
        assert_eq!(status.to_string(), "signal: 11 (SIGSEGV)");
    }

    /// A wrapper script that does not `exec` its engine: killing the engine kills the
    /// grandchild too, and the wrapper is reaped.
    #[tokio::test]
    async fn kill_takes_the_whole_group_and_reaps_the_leader() {
        let mut process = sh("sleep 1000 & echo $!; wait").await;
        let grandchild: i32 = match process.lines.recv().await {
            Some(Line::Text { text, .. }) => text.trim().parse().unwrap(),
            other => panic!("{other:?}"),
        };
        let leader = process.child.as_ref().unwrap().id() as i32;
        assert!(alive(grandchild));
        process.kill().await;
        assert!(!alive(leader), "the wrapper was reaped");
        for _ in 0..200 {
            if !alive(grandchild) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("the wrapper's child {grandchild} outlived the kill");
    }

    #[tokio::test]
    async fn dropping_a_process_kills_and_reaps_it_at_once() {
        let process = spawn(Path::new("/bin/sleep"), &["1000".into()], None, &[])
            .await
            .unwrap();
        let pid = process.child.as_ref().unwrap().id() as i32;
        drop(process);
        assert!(!alive(pid), "no zombie is left for init");
    }

    #[tokio::test]
    async fn a_stderr_flood_without_newlines_keeps_a_bounded_tail() {
        stderr_flood().await;
    }

    /// The same, read by a task on the game's own thread (a lane).
    #[tokio::test]
    async fn a_stderr_flood_read_on_the_game_s_thread_keeps_a_bounded_tail() {
        super::pipes::read_on_this_thread();
        stderr_flood().await;
    }

    async fn stderr_flood() {
        let mut process = sh("head -c 50000000 /dev/zero | tr '\\0' x >&2; echo done").await;
        while let Some(line) = process.lines.recv().await {
            if matches!(line, Line::Eof { .. }) {
                break;
            }
        }
        // The tail is whole once the I/O thread has read stderr to its end.
        assert_eq!(
            process.stderr_tail_at_end(Duration::from_secs(60)).await,
            "x".repeat(300)
        );
    }

    /// An engine that prints far more lines than the queue holds while the game reads none:
    /// the I/O thread stops reading it once the queue is full, and every line still arrives,
    /// in order, once the game reads them, then the end of file.
    #[tokio::test]
    async fn a_full_queue_pauses_the_engine_and_loses_no_line() {
        full_queue().await;
    }

    /// The same, read by a task on the game's own thread (a lane): it waits for room in the
    /// queue, and the engine waits on its pipe.
    #[tokio::test]
    async fn a_full_queue_read_on_the_game_s_thread_pauses_the_engine_and_loses_no_line() {
        super::pipes::read_on_this_thread();
        full_queue().await;
    }

    async fn full_queue() {
        let mut process = sh("seq 1 200000; echo done >&2").await;
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        while process.lines.rx.len() < LINE_QUEUE {
            assert!(
                std::time::Instant::now() < deadline,
                "the queue never filled"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        // 200,000 lines are 1.3 MB: more than the queue, one read and the pipe hold.
        assert!(
            process.exit_status(Duration::ZERO).await.is_none(),
            "the engine was not held back"
        );
        let mut expected = 1;
        loop {
            match process.lines.recv().await.unwrap() {
                Line::Text { text, .. } => {
                    assert_eq!(text, expected.to_string());
                    expected += 1;
                }
                Line::Eof { .. } => break,
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(expected, 200_001);
        assert_eq!(
            process.stderr_tail_at_end(Duration::from_secs(10)).await,
            "done"
        );
        process.kill().await;
    }

    /// An engine that exits while a process it started holds its pipes open (here `sleep`):
    /// its output ends at its exit, after the lines it wrote, with its stderr, long before
    /// the pipes close; killing it takes the process it left behind.
    #[tokio::test]
    async fn an_engine_s_output_ends_when_it_exits_though_its_child_holds_the_pipes() {
        exit_with_a_child_left().await;
    }

    /// The same, read by a task on the game's own thread (a lane).
    #[tokio::test]
    async fn an_engine_read_on_the_game_s_thread_ends_when_it_exits_though_its_child_holds_the_pipes(
    ) {
        super::pipes::read_on_this_thread();
        exit_with_a_child_left().await;
    }

    async fn exit_with_a_child_left() {
        let mut process = sh("sleep 1000 & echo $!; echo bye; echo gone >&2; exit 3").await;
        let started = std::time::Instant::now();
        let mut got = Vec::new();
        loop {
            let line = tokio::time::timeout(Duration::from_secs(20), process.lines.recv()).await;
            match line.expect("the exit was not noticed") {
                Some(Line::Text { text, .. }) => got.push(text),
                Some(Line::Eof { .. }) | None => break,
                Some(Line::Overlong { .. }) => panic!("overlong"),
            }
        }
        assert!(started.elapsed() < Duration::from_secs(20));
        assert_eq!(got.get(1).map(String::as_str), Some("bye"), "{got:?}");
        let child: i32 = got[0].parse().unwrap();
        assert_eq!(
            process.exit_status(Duration::ZERO).await,
            Some(ExitStatus::Code(3))
        );
        assert_eq!(process.stderr_tail_at_end(Duration::ZERO).await, "gone");
        assert!(alive(child));
        process.kill().await;
        for _ in 0..200 {
            if !alive(child) {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        panic!("the engine's child {child} outlived the kill");
    }

    /// A start whose game is gone before the engine arrives (its future dropped, as a
    /// cancelled run drops it) does not leave the engine running.
    #[tokio::test]
    async fn an_engine_started_for_a_game_that_is_gone_is_killed() {
        let pid = Arc::new(Mutex::new(None));
        let seen = Arc::clone(&pid);
        let starting = spawner::on_spawner(move || {
            let mut command = std::process::Command::new("/bin/sleep");
            command.arg("1000").process_group(0);
            let child = start(command)?;
            *seen.lock().unwrap() = Some(child.id() as i32);
            // The game gives up meanwhile.
            std::thread::sleep(Duration::from_millis(300));
            Ok(Started::new(child))
        });
        assert!(tokio::time::timeout(Duration::from_millis(50), starting)
            .await
            .is_err());
        for _ in 0..500 {
            if let Some(pid) = *pid.lock().unwrap() {
                if !alive(pid) {
                    return;
                }
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the engine of a start given up is still running");
    }

    /// A command longer than the pipe holds goes whole: the first `write(2)` takes what fits,
    /// the rest waits for the engine to read (here `wc`, which reads only to count).
    #[tokio::test]
    async fn a_command_longer_than_the_pipe_arrives_whole() {
        let mut process = sh("wc -c").await;
        let text = "position startpos moves e2e4\n".repeat(20_000); // 580,000 bytes
        process.write(&text).await.unwrap();
        process.input = Input::Memory(mpsc::unbounded_channel().0); // closes the pipe
        let mut counted = None;
        while let Some(line) = process.lines.recv().await {
            if let Line::Text { text, .. } = line {
                counted = Some(text);
            }
        }
        assert_eq!(counted.as_deref().map(str::trim), Some("580000"));
        process.kill().await;
    }

    /// An engine gone: writing to its input is an error, not a hang or a crash of the arena.
    #[tokio::test]
    async fn writing_to_an_engine_that_exited_is_an_error() {
        let (mut process, _) = lines_of("exit 0").await;
        assert_eq!(
            process.exit_status(Duration::from_secs(5)).await,
            Some(ExitStatus::Code(0))
        );
        assert!(process.write("isready\n").await.is_err());
        process.kill().await;
    }

    /// The interpreter a script's `#!` line names, only when it is missing: spaces before it
    /// and arguments after it are not part of its name; a file without `#!` has none.
    #[test]
    fn a_missing_interpreter_is_found_on_the_script_s_first_line() {
        let dir = std::env::temp_dir().join(format!("blitz-arena-shebang-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases = [
            (
                "#! /usr/bin/nonexistent-python -u\nx\n",
                Some("/usr/bin/nonexistent-python"),
            ),
            ("#!/bin/sh\nexit 1\n", None),
            ("\x7fELF", None),
        ];
        for (i, (text, missing)) in cases.into_iter().enumerate() {
            let path = dir.join(i.to_string());
            std::fs::write(&path, text).unwrap();
            assert_eq!(missing_interpreter(&path).as_deref(), missing, "{text:?}");
        }
        assert_eq!(missing_interpreter(&dir.join("none")), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Whether `pid` exists and is not a zombie.
    fn alive(pid: i32) -> bool {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => !stat
                .rsplit(')')
                .next()
                .is_some_and(|rest| rest.trim_start().starts_with('Z')),
            Err(_) => false,
        }
    }
}
