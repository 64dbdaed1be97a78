//! One thread reads every engine's stdout and stderr, however many engines run: the arena's
//! threads do not grow with its engines. (A game that has a thread of its own reads its
//! engines on that thread instead: `direct`.)
//!
//! The pipes are non-blocking and registered with one epoll set when the engine is spawned.
//! Each `epoll_wait` hands the thread every pipe that has output, and each of those is read
//! once, in turn: a line is stamped the instant its `read` returns, so a flood from one
//! engine delays another's stamp by at most one read of the flood (64 KiB, split and mostly
//! dropped), never by the game's work on the async runtime. Lines are split and filtered by
//! `lines`: `info` lines are not sent, the last scored one is kept in the engine's
//! `InfoSlot`, and stderr keeps only its tail.
//!
//! The engine's process is watched too, as a pidfd in the same set: once it has exited, what
//! it left in its pipes is read and its output ends there, even while a process it started
//! still holds the pipes open (docs/results.md).
//!
//! Backpressure: when an engine's line queue is full, the lines of the read that did not fit
//! wait here and its stdout leaves the epoll set, so the engine blocks on its own pipe and
//! the arena's memory stays bounded. The game's side of the queue ([`Watch::taken`]) asks
//! for the pipe back once it has read the queue down to half.

use std::collections::{HashMap, VecDeque};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tokio::time::Instant;

use super::lines::{Output, Splitter, ROOM_KEPT};
use super::process::{Line, LineSender, Refused, Reports, StderrTail, LINE_QUEUE};

mod direct;

pub use direct::read_on_this_thread;

/// The epoll data of the thread's own wake-up eventfd (engines' are `token << 2 | kind`).
const WAKE: u64 = u64::MAX;
/// The kinds of an engine's descriptors in the epoll data.
const STDOUT: u64 = 0;
const STDERR: u64 = 1;
/// Its process's pidfd, readable once the process has exited.
const EXIT: u64 = 2;
/// Events taken per `epoll_wait`.
const BATCH: usize = 256;
/// Bytes taken per `read`: a pipe's default capacity.
const READ: usize = 64 * 1024;

/// What the game's side asks of the thread.
enum Request {
    Watch(Box<Pipes>, u64),
    /// The game has read its queue down: deliver what waits and read the engine again.
    Resume(u64),
    /// The engine is gone: deregister and close its pipes.
    Close(u64),
    /// Answer once every earlier request is carried out.
    Settle(std::sync::mpsc::SyncSender<()>),
}

/// What the thread and the rest of the arena share.
struct Shared {
    epoll: OwnedFd,
    wake: OwnedFd,
    requests: Mutex<Vec<Request>>,
    next_token: AtomicU64,
    /// Engines whose pipes the thread holds.
    watched: AtomicUsize,
}

static SHARED: OnceLock<Arc<Shared>> = OnceLock::new();
static STARTING: Mutex<()> = Mutex::new(());

/// The I/O thread, started on first use; an error if it cannot be (out of threads or files:
/// the caller's error, and the next engine tries again).
fn shared() -> io::Result<&'static Arc<Shared>> {
    if let Some(shared) = SHARED.get() {
        return Ok(shared);
    }
    let _one = STARTING.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(shared) = SHARED.get() {
        return Ok(shared);
    }
    // SAFETY: plain system calls; each result is checked before it is owned.
    let (epoll, wake) = unsafe {
        let epoll = check(libc::epoll_create1(libc::EPOLL_CLOEXEC))?;
        let epoll = OwnedFd::from_raw_fd(epoll);
        let wake = check(libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK))?;
        (epoll, OwnedFd::from_raw_fd(wake))
    };
    let shared = Arc::new(Shared {
        epoll,
        wake,
        requests: Mutex::new(Vec::new()),
        next_token: AtomicU64::new(0),
        watched: AtomicUsize::new(0),
    });
    control(
        &shared.epoll,
        libc::EPOLL_CTL_ADD,
        shared.wake.as_raw_fd(),
        WAKE,
    )?;
    let thread = Arc::clone(&shared);
    std::thread::Builder::new()
        .name("engine-pipes".into())
        .spawn(move || run(&thread))?;
    Ok(SHARED.get_or_init(|| shared))
}

fn check(result: libc::c_int) -> io::Result<libc::c_int> {
    if result < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(result)
    }
}

/// `epoll_ctl` for reading `fd` (`EPOLL_CTL_ADD`) or no longer (`EPOLL_CTL_DEL`).
fn control(epoll: &OwnedFd, op: libc::c_int, fd: RawFd, data: u64) -> io::Result<()> {
    let mut event = libc::epoll_event {
        events: libc::EPOLLIN as u32,
        u64: data,
    };
    // SAFETY: `event` outlives the call; the kernel checks the descriptors.
    check(unsafe { libc::epoll_ctl(epoll.as_raw_fd(), op, fd, &mut event) }).map(drop)
}

impl Shared {
    fn request(&self, request: Request) {
        let mut requests = self.requests.lock().unwrap_or_else(|e| e.into_inner());
        let first = requests.is_empty();
        requests.push(request);
        drop(requests);
        if first {
            let one: u64 = 1;
            // SAFETY: writes 8 bytes from `one`. It cannot fail but by overflowing the
            // counter, which a pending wake-up makes harmless.
            unsafe { libc::write(self.wake.as_raw_fd(), (&one as *const u64).cast(), 8) };
        }
    }
}

/// The game's side of an engine's pipes: dropping it closes them.
pub enum Watch {
    /// Read by the I/O thread.
    Thread(ThreadWatch),
    /// Read on the game's own thread (`direct`).
    Task(direct::TaskWatch),
}

impl Watch {
    /// The pipes read on the game's own thread, which the game reads itself while it waits.
    pub fn on_this_thread(&self) -> Option<&direct::TaskWatch> {
        match self {
            Watch::Task(reader) => Some(reader),
            Watch::Thread(_) => None,
        }
    }

    /// The game has taken a line; `queued` counts those left.
    pub fn taken(&self, queued: impl FnOnce() -> usize) {
        if let Watch::Thread(watch) = self {
            watch.taken(queued);
        }
    }
}

/// An engine's pipes as the I/O thread holds them, seen from the game.
pub struct ThreadWatch {
    token: u64,
    /// The thread stopped reading the engine because its queue was full.
    paused: Arc<AtomicBool>,
    shared: &'static Shared,
}

impl ThreadWatch {
    /// The game has taken a line; `queued` counts those left. Once the queue is half empty,
    /// a paused engine is read again (half: a flood costs a wake-up per half queue, not per
    /// line).
    pub fn taken(&self, queued: impl FnOnce() -> usize) {
        if self.paused.load(Ordering::SeqCst)
            && queued() <= LINE_QUEUE / 2
            && self.paused.swap(false, Ordering::SeqCst)
        {
            self.shared.request(Request::Resume(self.token));
        }
    }
}

impl Drop for ThreadWatch {
    fn drop(&mut self) {
        self.shared.request(Request::Close(self.token));
    }
}

/// Hands an engine's stdout and stderr to the I/O thread: stdout's lines go to `tx` (the
/// last scored `info` line to `reports`, and each while its log is on), stderr's end to `tail`.
/// `exit`, the process's pidfd (none where the kernel has none), ends both once it exits.
pub(super) fn watch(
    stdout: OwnedFd,
    stderr: OwnedFd,
    exit: Option<OwnedFd>,
    tx: LineSender,
    reports: Reports,
    tail: StderrTail,
) -> io::Result<Watch> {
    for fd in [&stdout, &stderr] {
        // SAFETY: fcntl on descriptors this function owns.
        unsafe {
            let flags = check(libc::fcntl(fd.as_raw_fd(), libc::F_GETFL))?;
            check(libc::fcntl(
                fd.as_raw_fd(),
                libc::F_SETFL,
                flags | libc::O_NONBLOCK,
            ))?;
        }
    }
    let (out, err) = (stdout.as_raw_fd(), stderr.as_raw_fd());
    let pid = exit.as_ref().map(AsRawFd::as_raw_fd);
    let paused = Arc::new(AtomicBool::new(false));
    let pipes = Pipes {
        stdout: Some(stdout),
        stderr: Some(stderr),
        exit,
        stdout_left: None,
        armed: true,
        splitter: Splitter::default(),
        sink: Sink {
            tx,
            pending: VecDeque::new(),
            reports,
            gone: false,
            spare: Vec::new(),
        },
        paused: Arc::clone(&paused),
        tail,
    };
    if direct::on_this_thread() {
        return direct::watch(pipes).map(Watch::Task);
    }
    let shared = shared()?;
    let token = shared.next_token.fetch_add(1, Ordering::Relaxed);
    // Registered while they are still this function's: once the thread holds them it may
    // close them (the process's exit ends both pipes). Until they are in its table it skips
    // them (they stay ready: level-triggered); on an error here they are closed, which takes
    // them out of the epoll set.
    control(&shared.epoll, libc::EPOLL_CTL_ADD, out, token << 2 | STDOUT)?;
    control(&shared.epoll, libc::EPOLL_CTL_ADD, err, token << 2 | STDERR)?;
    if let Some(pid) = pid {
        control(&shared.epoll, libc::EPOLL_CTL_ADD, pid, token << 2 | EXIT)?;
    }
    shared.request(Request::Watch(Box::new(pipes), token));
    Ok(Watch::Thread(ThreadWatch {
        token,
        paused,
        shared,
    }))
}

/// Waits until the I/O thread has carried out every request made before (tests: the pipes
/// of the engines dropped before are closed).
pub fn settle() {
    let Some(shared) = SHARED.get() else { return };
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    shared.request(Request::Settle(tx));
    let _ = rx.recv();
}

/// Engines whose pipes the I/O thread holds.
pub fn watched() -> usize {
    SHARED
        .get()
        .map_or(0, |shared| shared.watched.load(Ordering::SeqCst))
}

/// A stdout item waiting for room in the queue, in order.
enum Item {
    Line(Line),
    /// A run of `info` lines, published once the lines read before it are delivered.
    Report(InfoRun),
}

/// A run of `info` lines read in a row: the last scored one (the search report), and while
/// the info log is on every scored one and the count of the unscored ones.
#[derive(Default)]
struct InfoRun {
    /// The last scored line's bytes (made text once, as the run is delivered).
    last: Option<Vec<u8>>,
    all: Vec<String>,
    unscored: usize,
}

impl InfoRun {
    /// Keeps `line` as the run's last scored line (and, while the info log is on, among all),
    /// in `room` if the run has none yet.
    fn scored(&mut self, line: &[u8], logging: bool, room: &mut Vec<u8>) {
        let kept = self.last.get_or_insert_with(|| std::mem::take(room));
        kept.clear();
        kept.extend_from_slice(line);
        if logging {
            self.all.push(Output::text(line));
        }
    }

    /// The run so far as an item to deliver, if it holds anything; the run starts anew.
    fn take(&mut self) -> Option<Item> {
        (self.last.is_some() || self.unscored > 0).then(|| Item::Report(std::mem::take(self)))
    }
}

/// Where an engine's stdout goes.
struct Sink {
    tx: LineSender,
    /// What did not fit the queue: at most one read's lines and its end of file.
    pending: VecDeque<Item>,
    reports: Reports,
    /// The game dropped its end: nothing more is read.
    gone: bool,
    /// The room of the last run's report, for the next run's (a search prints a report a
    /// read: this keeps a read of one from allocating).
    spare: Vec<u8>,
}

impl Sink {
    fn put(&mut self, item: Item) {
        if self.pending.is_empty() {
            if let Some(item) = self.deliver(item) {
                self.pending.push_back(item);
            }
        } else {
            self.pending.push_back(item);
        }
    }

    /// Delivers `item`, or gives it back if the queue is full.
    fn deliver(&mut self, item: Item) -> Option<Item> {
        match item {
            Item::Report(run) => {
                self.reports
                    .publish(run.last.as_deref(), run.all, run.unscored);
                if let Some(bytes) = run.last.filter(|b| b.capacity() <= ROOM_KEPT) {
                    self.spare = bytes;
                }
                None
            }
            Item::Line(line) => match self.tx.try_send(line) {
                Ok(()) => None,
                Err(Refused::Full(line)) => Some(Item::Line(line)),
                Err(Refused::Gone) => {
                    self.gone = true;
                    None
                }
            },
        }
    }

    /// Delivers what waits, in order; whether all of it went.
    fn flush(&mut self) -> bool {
        while let Some(item) = self.pending.pop_front() {
            if let Some(item) = self.deliver(item) {
                self.pending.push_front(item);
                return false;
            }
        }
        true
    }
}

/// One engine's pipes, as the I/O thread holds them.
struct Pipes {
    /// None once it is closed.
    stdout: Option<OwnedFd>,
    stderr: Option<OwnedFd>,
    /// The process's pidfd, until its exit is seen.
    exit: Option<OwnedFd>,
    /// Once the process has exited: the bytes it left in stdout, still to be read. What a
    /// process it left behind writes after is not the engine's output.
    stdout_left: Option<usize>,
    /// stdout is in the epoll set (it is not while lines wait for room).
    armed: bool,
    splitter: Splitter,
    sink: Sink,
    paused: Arc<AtomicBool>,
    tail: StderrTail,
}

/// `read(2)` into `buf`: `Some(0)` at the end of the output (or on an error), `None` when
/// nothing is there after all.
fn read(fd: &OwnedFd, buf: &mut [u8]) -> Option<usize> {
    loop {
        // SAFETY: reads at most `buf.len()` bytes into `buf`.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Some(n as usize);
        }
        match io::Error::last_os_error().raw_os_error() {
            Some(libc::EINTR) => continue,
            Some(libc::EAGAIN) => return None,
            _ => return Some(0),
        }
    }
}

/// The bytes waiting in a pipe (`FIONREAD`); 0 on an error.
fn unread(fd: &OwnedFd) -> usize {
    let mut n: libc::c_int = 0;
    // SAFETY: FIONREAD writes one int to `n`.
    let ok = unsafe { libc::ioctl(fd.as_raw_fd(), libc::FIONREAD, &mut n) } == 0;
    if ok {
        usize::try_from(n).unwrap_or(0)
    } else {
        0
    }
}

/// What an exited process left in its stderr, read into `tail`, which is then closed.
fn read_stderr_left(fd: &OwnedFd, tail: &StderrTail, buf: &mut [u8]) {
    let mut left = unread(fd);
    let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
    while left > 0 {
        let room = left.min(buf.len());
        match read(fd, &mut buf[..room]) {
            Some(n) if n > 0 => {
                tail.feed(&buf[..n]);
                left -= n;
            }
            _ => break,
        }
    }
    tail.close();
}

impl Pipes {
    /// One read of stdout, stamped as it returns, its lines delivered or kept.
    fn read_stdout(&mut self, epoll: &OwnedFd, token: u64, buf: &mut [u8]) {
        let Some(fd) = &self.stdout else { return };
        let room = self.stdout_room(buf.len());
        let Some(n) = read(fd, &mut buf[..room]) else {
            return;
        };
        self.stdout_read(&buf[..n], Instant::now());
        if self.stdout_ended() {
            self.close_stdout(epoll);
        }
        self.drain(epoll, token);
    }

    /// How much the next read of stdout may take: once the process has exited, no more than
    /// it left there.
    fn stdout_room(&self, buf: usize) -> usize {
        self.stdout_left.map_or(buf, |left| left.min(buf))
    }

    /// `bytes`, read from stdout at `at` (none: its end), split and delivered; the end of the
    /// output, once it is read or the process has exited and what it left is read.
    fn stdout_read(&mut self, bytes: &[u8], at: Instant) {
        if !bytes.is_empty() {
            self.split(bytes, at);
        }
        if let Some(left) = &mut self.stdout_left {
            *left = left.saturating_sub(bytes.len());
        }
        if bytes.is_empty() || self.stdout_left == Some(0) {
            self.sink.put(Item::Line(Line::Eof { at }));
            self.stdout_left = Some(0);
        }
    }

    /// Its end of file is delivered or waits to be.
    fn stdout_ended(&self) -> bool {
        self.stdout_left == Some(0)
    }

    /// The process has exited: stderr ends with what it left there, and stdout once what it
    /// left there is read (at once if it left nothing).
    fn on_exit(&mut self, epoll: &OwnedFd, token: u64, buf: &mut [u8]) {
        self.close_exit(epoll);
        if let Some(fd) = &self.stderr {
            read_stderr_left(fd, &self.tail, buf);
            self.close_stderr(epoll);
        }
        let Some(fd) = &self.stdout else { return };
        self.stdout_left = Some(unread(fd));
        if self.stdout_left == Some(0) {
            self.stdout_read(&[], Instant::now());
            self.close_stdout(epoll);
            self.drain(epoll, token);
        }
    }

    fn close_exit(&mut self, epoll: &OwnedFd) {
        if let Some(fd) = self.exit.take() {
            let _ = control(epoll, libc::EPOLL_CTL_DEL, fd.as_raw_fd(), 0);
        }
    }

    fn split(&mut self, bytes: &[u8], at: Instant) {
        let sink = &mut self.sink;
        // Of a run of scored `info` lines only the last is kept: one copy per read at most
        // (and one per line while the info log is on, which also counts the unscored ones).
        let mut run = InfoRun::default();
        let logging = sink.reports.logging();
        self.splitter.feed(bytes, |output| match output {
            Output::Report(bytes) => run.scored(bytes, logging, &mut sink.spare),
            Output::Unscored => run.unscored += usize::from(logging),
            Output::Text(bytes) => {
                // The run of `info` lines belongs to the search before this line (a
                // `bestmove` reads it).
                if let Some(item) = run.take() {
                    sink.put(item);
                }
                let text = Output::text(bytes);
                sink.put(Item::Line(Line::Text { text, at }));
            }
            Output::Overlong { bestmove } => {
                sink.put(Item::Line(Line::Overlong { at, bestmove }));
            }
        });
        if let Some(item) = run.take() {
            sink.put(item);
        }
    }

    /// After a read or a resume: stdout is read again if nothing waits, else it leaves the
    /// epoll set until the game has read its queue down.
    fn drain(&mut self, epoll: &OwnedFd, token: u64) {
        if self.sink.gone {
            self.sink.pending.clear();
            self.close_stdout(epoll);
            return;
        }
        if self.sink.flush() {
            return self.arm(epoll, token);
        }
        self.disarm(epoll);
        self.paused.store(true, Ordering::SeqCst);
        // The game may have read the queue down before it could see `paused`.
        if self.sink.flush() {
            self.paused.store(false, Ordering::SeqCst);
            self.arm(epoll, token);
        }
    }

    fn arm(&mut self, epoll: &OwnedFd, token: u64) {
        if let (Some(fd), false) = (&self.stdout, self.armed) {
            let data = token << 2 | STDOUT;
            self.armed = control(epoll, libc::EPOLL_CTL_ADD, fd.as_raw_fd(), data).is_ok();
        }
    }

    fn disarm(&mut self, epoll: &OwnedFd) {
        if let (Some(fd), true) = (&self.stdout, self.armed) {
            let _ = control(epoll, libc::EPOLL_CTL_DEL, fd.as_raw_fd(), 0);
            self.armed = false;
        }
    }

    fn close_stdout(&mut self, epoll: &OwnedFd) {
        self.disarm(epoll);
        self.stdout = None;
    }

    /// One read of stderr into its tail; at its end the tail is closed.
    fn read_stderr(&mut self, epoll: &OwnedFd, buf: &mut [u8]) {
        let Some(fd) = &self.stderr else { return };
        let Some(n) = read(fd, buf) else { return };
        let mut tail = self.tail.lock().unwrap_or_else(|e| e.into_inner());
        if n > 0 {
            tail.feed(&buf[..n]);
            return;
        }
        tail.close();
        drop(tail);
        self.close_stderr(epoll);
    }

    fn close_stderr(&mut self, epoll: &OwnedFd) {
        if let Some(fd) = self.stderr.take() {
            let _ = control(epoll, libc::EPOLL_CTL_DEL, fd.as_raw_fd(), 0);
        }
    }

    /// Both outputs are read to their end and every line delivered.
    fn done(&self) -> bool {
        self.stdout.is_none() && self.stderr.is_none() && self.sink.pending.is_empty()
    }
}

/// The I/O thread: waits for output on every engine's pipes and for requests, forever.
fn run(shared: &Shared) {
    let mut engines: HashMap<u64, Box<Pipes>> = HashMap::new();
    let mut buf = vec![0u8; READ];
    let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; BATCH];
    loop {
        // SAFETY: the kernel writes at most BATCH events into `events`.
        let n = unsafe {
            libc::epoll_wait(
                shared.epoll.as_raw_fd(),
                events.as_mut_ptr(),
                BATCH as libc::c_int,
                -1,
            )
        };
        let Ok(n) = usize::try_from(n) else {
            continue; // EINTR
        };
        let mut woken = false;
        for event in &events[..n] {
            let data = event.u64;
            if data == WAKE {
                woken = true;
                continue;
            }
            // An engine closed earlier in this batch, or not yet in the table: skipped.
            let token = data >> 2;
            let Some(pipes) = engines.get_mut(&token) else {
                continue;
            };
            match data & 3 {
                STDOUT => pipes.read_stdout(&shared.epoll, token, &mut buf),
                STDERR => pipes.read_stderr(&shared.epoll, &mut buf),
                _ => pipes.on_exit(&shared.epoll, token, &mut buf),
            }
            if pipes.done() {
                engines.remove(&token);
            }
        }
        if woken {
            serve(shared, &mut engines);
        }
        shared.watched.store(engines.len(), Ordering::SeqCst);
    }
}

/// Carries out the requests made since the last wake-up, in order.
fn serve(shared: &Shared, engines: &mut HashMap<u64, Box<Pipes>>) {
    let mut count = [0u8; 8];
    // SAFETY: reads the eventfd's 8-byte counter (resets it) before the requests are taken,
    // so a request made after the take wakes the thread again.
    unsafe { libc::read(shared.wake.as_raw_fd(), count.as_mut_ptr().cast(), 8) };
    let requests = std::mem::take(&mut *shared.requests.lock().unwrap_or_else(|e| e.into_inner()));
    for request in requests {
        match request {
            Request::Watch(pipes, token) => {
                engines.insert(token, pipes);
            }
            Request::Resume(token) => {
                if let Some(pipes) = engines.get_mut(&token) {
                    pipes.drain(&shared.epoll, token);
                    if pipes.done() {
                        engines.remove(&token);
                    }
                }
            }
            Request::Close(token) => {
                if let Some(mut pipes) = engines.remove(&token) {
                    pipes.close_stdout(&shared.epoll);
                    pipes.close_stderr(&shared.epoll);
                    pipes.close_exit(&shared.epoll);
                    pipes.tail.lock().unwrap_or_else(|e| e.into_inner()).close();
                }
            }
            Request::Settle(done) => {
                shared.watched.store(engines.len(), Ordering::SeqCst);
                let _ = done.send(());
            }
        }
    }
}
