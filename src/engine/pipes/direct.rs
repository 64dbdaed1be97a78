//! An engine read on the game's own thread: where a lane of the tournament plays one game
//! (`tournament::lanes`), its engines' pipes are read on that lane, so a move wakes one
//! thread, not the I/O thread and then the game's.
//!
//! The stamp is as exact as the I/O thread's: the lane has nothing else to do while its
//! engines think, so a line is read as soon as the kernel wakes the lane, and stamped the
//! instant `read` returns. A flood stays on the flooding engine's own lane: its pipe is read
//! 64 KiB at a time and no further until the line queue has room, so the engine blocks on
//! its pipe.
//!
//! Who reads: the runtime's own wake-up. Each pipe's waker (`PipeWaker`) reads the pipe when
//! the runtime finds it readable, on the lane's thread, and stamps its lines then; a line
//! reaches the game's queue, which wakes the game. An `info` line (Stockfish prints about
//! eight a move) is kept as the search report without running the game at all, and a
//! move's `bestmove` costs one poll of one task, the game's (docs/performance.md). The game
//! also reads what the pipes hold when it starts to wait ([`TaskWatch::read_for_game`], from
//! `Lines::recv`). Only when the pipes are being read already, further up the same thread,
//! does a wake-up go to a reader instead (`Hub`): the game while it waits for this engine,
//! else a task of the engine's own.

use std::cell::Cell;
use std::io;
use std::os::fd::OwnedFd;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll, Wake, Waker};

use tokio::io::unix::{AsyncFd, AsyncFdReadyGuard};
use tokio::io::Interest;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{read, read_stderr_left, unread, Pipes, READ};
use crate::engine::process::StderrTail;

thread_local! {
    static DIRECT: Cell<bool> = const { Cell::new(false) };
}

/// Engines started on this thread from now on are read on its runtime, not by the I/O
/// thread. For a thread that runs one game at a time on a single-threaded runtime.
pub fn read_on_this_thread() {
    DIRECT.with(|direct| direct.set(true));
}

pub(super) fn on_this_thread() -> bool {
    DIRECT.with(Cell::get)
}

/// The game's side of an engine read on its thread: dropping it closes the pipes and ends
/// the reader task.
pub struct TaskWatch {
    task: JoinHandle<()>,
    shared: Arc<Shared>,
}

impl Drop for TaskWatch {
    fn drop(&mut self) {
        self.task.abort();
        // Closed now, not when the runtime next runs the aborted task.
        drop(self.shared.reader().take());
        self.shared
            .tail
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .close();
    }
}

impl TaskWatch {
    /// The game waits for the engine's lines: reads what its pipes hold now, and has the
    /// game (`cx`) rather than the task read them when a wake-up cannot (see `PipeWaker`),
    /// until the [`GameWaits`] made for this wait is dropped.
    pub fn read_for_game(&self, cx: &Context<'_>) {
        {
            let mut wakers = self.shared.hub.wakers();
            register(&mut wakers.game, cx.waker());
            wakers.game_waits = true;
            wakers.game_woken = false;
        }
        self.shared.read();
    }

    /// A wait of the game's for the engine's lines: see [`TaskWatch::read_for_game`].
    pub fn game_waits(&self) -> GameWaits<'_> {
        GameWaits { watch: self }
    }
}

/// While it lives the game waits for the engine's lines; dropped, the task reads again.
pub struct GameWaits<'a> {
    watch: &'a TaskWatch,
}

impl Drop for GameWaits<'_> {
    fn drop(&mut self) {
        let mut wakers = self.watch.shared.hub.wakers();
        wakers.game_waits = false;
        // The pipes woke the game, which stopped waiting before it read them (a timer came
        // first): the task reads them.
        if std::mem::take(&mut wakers.game_woken) {
            if let Some(task) = &wakers.task {
                task.wake_by_ref();
            }
        }
    }
}

/// What the game and the reader task share.
struct Shared {
    /// None once both pipes have ended, or the game has dropped its side.
    reader: Mutex<Option<Reader>>,
    hub: Arc<Hub>,
    /// The wakers each pipe is polled with, by its bit (`STDOUT`, `STDERR`, `EXIT`).
    wakers: [Waker; 3],
    tail: StderrTail,
}

impl Shared {
    fn reader(&self) -> MutexGuard<'_, Option<Reader>> {
        self.reader.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads what the pipes that woke the hub hold; whether both have ended.
    fn read(&self) -> bool {
        if self.hub.woken.load(Ordering::Acquire) == 0 {
            return false;
        }
        self.read_with(self.reader())
    }

    /// [`Shared::read`], unless the reader is held (by this thread further up, or another):
    /// `None` then.
    fn try_read(&self) -> Option<bool> {
        let reader = match self.reader.try_lock() {
            Ok(reader) => reader,
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => return None,
        };
        Some(self.read_with(reader))
    }

    fn read_with(&self, mut reader: MutexGuard<'_, Option<Reader>>) -> bool {
        let woken = self.hub.woken.swap(0, Ordering::AcqRel);
        if woken == 0 {
            return false;
        }
        let Some(pipes) = reader.as_mut() else {
            return true;
        };
        let mut todo = woken;
        let done = pipes.poll(&mut todo, &self.wakers).is_ready();
        if done {
            *reader = None;
        } else if todo != 0 {
            // Not looked at (stdout's lines wait for room): at the next read.
            self.hub.woken.fetch_or(todo, Ordering::AcqRel);
        }
        done
    }
}

/// The pipes' bits in `Hub::woken`.
const STDOUT: u8 = 1;
const STDERR: u8 = 2;
const EXIT: u8 = 4;

/// Who reads an engine's pipes when a wake-up finds them being read already: the game while
/// it waits for the engine's lines, else the reader task. Each pipe has a waker of its own
/// (`PipeWaker`), which marks it: a read looks only at the pipes that woke it (a look at a
/// pipe that has nothing costs about 130 instructions).
struct Hub {
    wakers: Mutex<Wakers>,
    /// The pipes woken since they were last looked at (all of them at first).
    woken: AtomicU8,
}

#[derive(Default)]
struct Wakers {
    game: Option<Waker>,
    game_waits: bool,
    /// The game was woken since it last read.
    game_woken: bool,
    task: Option<Waker>,
}

impl Hub {
    fn wakers(&self) -> MutexGuard<'_, Wakers> {
        self.wakers.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wakes whoever reads the pipes now: the game while it waits for their lines, else the
    /// reader task.
    fn wake(&self) {
        let mut wakers = self.wakers();
        if wakers.game_waits {
            if let Some(game) = &wakers.game {
                game.wake_by_ref();
                wakers.game_woken = true;
                return;
            }
        }
        if let Some(task) = &wakers.task {
            task.wake_by_ref();
        }
    }
}

/// The waker of one pipe (`pipe`, its bit).
///
/// The runtime calls it on the game's thread when the pipe has output, and it reads the pipe
/// there and then, stamping the lines as `read` returns: the game's task runs only when a
/// line reaches its queue (the queue wakes it), not for each `info` line an engine prints
/// while it thinks (Stockfish prints about eight a move; docs/performance.md). Only when the
/// pipes are being read already (further up this thread, or on another) does it wake their
/// reader instead, as the hub says.
struct PipeWaker {
    hub: Arc<Hub>,
    /// Weak: `Shared` holds this waker.
    shared: Weak<Shared>,
    pipe: u8,
}

impl PipeWaker {
    fn read_or_wake(&self) {
        self.hub.woken.fetch_or(self.pipe, Ordering::AcqRel);
        match self.shared.upgrade().and_then(|shared| shared.try_read()) {
            Some(false) => {}
            // Both pipes ended: the reader task ends too.
            Some(true) => {
                if let Some(task) = &self.hub.wakers().task {
                    task.wake_by_ref();
                }
            }
            None => self.hub.wake(),
        }
    }
}

impl Wake for PipeWaker {
    fn wake(self: Arc<Self>) {
        self.read_or_wake();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.read_or_wake();
    }
}

/// Keeps `waker` in `slot`, unless the one there already wakes the same task.
fn register(slot: &mut Option<Waker>, waker: &Waker) {
    match slot {
        Some(kept) if kept.will_wake(waker) => {}
        _ => *slot = Some(waker.clone()),
    }
}

/// Starts reading `pipes` on the current runtime.
pub(super) fn watch(mut pipes: Pipes) -> io::Result<TaskWatch> {
    let stdout = pipes.stdout.take().expect("stdout");
    let stderr = pipes.stderr.take().expect("stderr");
    let stdout = register_fd(stdout)?;
    let stderr = register_fd(stderr)?;
    let exit = pipes.exit.take().map(register_fd).transpose()?;
    let tail = Arc::clone(&pipes.tail);
    let hub = Arc::new(Hub {
        wakers: Mutex::default(),
        woken: AtomicU8::new(STDOUT | STDERR | EXIT),
    });
    let reader = Reader {
        pipes,
        stdout,
        stderr,
        exit,
        out_open: true,
        err_open: true,
        delivering: false,
        buf: vec![0u8; READ],
    };
    let shared = Arc::new_cyclic(|shared: &Weak<Shared>| {
        let waker = |pipe| {
            Waker::from(Arc::new(PipeWaker {
                hub: Arc::clone(&hub),
                shared: Weak::clone(shared),
                pipe,
            }))
        };
        Shared {
            reader: Mutex::new(Some(reader)),
            wakers: [waker(STDOUT), waker(STDERR), waker(EXIT)],
            hub,
            tail,
        }
    });
    let task = tokio::spawn(read_engine(Arc::clone(&shared)));
    Ok(TaskWatch { task, shared })
}

fn register_fd(fd: OwnedFd) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: an `OwnedFd` is open and stays the same descriptor until the `AsyncFd` drops it.
    unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.map_err(io::Error::from)
}

/// The reader task: reads whenever the hub wakes it (the game does not wait), until both
/// pipes have ended.
async fn read_engine(shared: Arc<Shared>) {
    std::future::poll_fn(|cx| {
        register(&mut shared.hub.wakers().task, cx.waker());
        if shared.read() {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    })
    .await;
}

/// Which pipe the runtime found readable.
enum Ready<'a> {
    Stdout(io::Result<AsyncFdReadyGuard<'a, OwnedFd>>),
    Stderr(io::Result<AsyncFdReadyGuard<'a, OwnedFd>>),
    /// The process has exited.
    Exit,
}

/// An engine's pipes as its game's thread holds them.
struct Reader {
    pipes: Pipes,
    stdout: AsyncFd<OwnedFd>,
    stderr: AsyncFd<OwnedFd>,
    /// The process's pidfd, until its exit is seen.
    exit: Option<AsyncFd<OwnedFd>>,
    out_open: bool,
    err_open: bool,
    /// stdout's last read is still being delivered: nothing more is read until it is.
    delivering: bool,
    buf: Vec<u8>,
}

impl Reader {
    /// Reads both pipes as far as they go now; ready once both have ended (or the game has
    /// dropped its side of the queue).
    ///
    /// The pipes are polled for readiness directly, stdout first: each keeps one waker in the
    /// runtime's slot for it, where a `readable()` future each, raced in a `select!`, joined
    /// and left the runtime's list of waiters at every read (a third of the reader's work a
    /// read). A flood on stderr cannot hold stdout back, and stdout is read only as the game
    /// takes its lines, so stderr is read whenever stdout has nothing. Once the process has
    /// exited (`exit` is readable), each pipe ends with what it left there (`Pipes::on_exit`).
    fn poll(&mut self, todo: &mut u8, wakers: &[Waker; 3]) -> Poll<()> {
        let Reader {
            pipes,
            stdout,
            stderr,
            exit,
            out_open,
            err_open,
            delivering,
            buf,
        } = self;
        let [out_waker, err_waker, exit_waker] = wakers;
        let mut out_cx = Context::from_waker(out_waker);
        loop {
            if *delivering {
                // Waits for room with stdout's waker: stdout is read again once there is.
                std::task::ready!(poll_deliver(pipes, &mut out_cx));
                *delivering = false;
                *out_open = !pipes.sink.gone && !pipes.stdout_ended();
            }
            if !*out_open && !*err_open {
                return Poll::Ready(());
            }
            // A pipe that had nothing is not looked at again (its waker is with the
            // runtime); one found ready is, until it has nothing.
            let ready = if let Some(ready) = look(*out_open, STDOUT, todo, || {
                stdout.poll_read_ready(&mut out_cx)
            }) {
                Ready::Stdout(ready)
            } else if let Some(ready) = look(*err_open, STDERR, todo, || {
                stderr.poll_read_ready(&mut Context::from_waker(err_waker))
            }) {
                *todo &= !STDOUT;
                Ready::Stderr(ready)
            } else if look(exit.is_some(), EXIT, todo, || {
                exit.as_ref()
                    .expect("exit")
                    .poll_read_ready(&mut Context::from_waker(exit_waker))
            })
            .is_some()
            {
                *todo &= !(STDOUT | STDERR);
                Ready::Exit
            } else {
                *todo = 0;
                return Poll::Pending;
            };
            match ready {
                Ready::Stdout(ready) => {
                    let room = pipes.stdout_room(buf.len());
                    let Some(n) = read_ready(ready, &mut buf[..room]) else {
                        continue;
                    };
                    pipes.stdout_read(&buf[..n], Instant::now());
                    *delivering = true;
                }
                Ready::Exit => {
                    *exit = None;
                    if *err_open {
                        read_stderr_left(stderr.get_ref(), &pipes.tail, buf);
                        *err_open = false;
                    }
                    if *out_open {
                        pipes.stdout_left = Some(unread(stdout.get_ref()));
                        if pipes.stdout_ended() {
                            pipes.stdout_read(&[], Instant::now());
                            *delivering = true;
                        }
                    }
                }
                Ready::Stderr(ready) => {
                    let Some(n) = read_ready(ready, buf) else {
                        continue;
                    };
                    let mut tail = pipes.tail.lock().unwrap_or_else(|e| e.into_inner());
                    if n > 0 {
                        tail.feed(&buf[..n]);
                    } else {
                        tail.close();
                        *err_open = false;
                    }
                }
            }
        }
    }
}

/// `poll` of a pipe that is `open` and among the pipes `todo`: what it found ready.
fn look<T>(
    open: bool,
    pipe: u8,
    todo: &u8,
    poll: impl FnOnce() -> Poll<io::Result<T>>,
) -> Option<io::Result<T>> {
    if !open || todo & pipe == 0 {
        return None;
    }
    match poll() {
        Poll::Ready(ready) => Some(ready),
        Poll::Pending => None,
    }
}

/// Delivers what was read, waiting for room in the game's queue (backpressure: the engine
/// waits on its pipe meanwhile).
fn poll_deliver(pipes: &mut Pipes, cx: &mut Context<'_>) -> Poll<()> {
    while !pipes.sink.flush() {
        match pipes.sink.tx.poll_room(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(Err(_)) => pipes.sink.gone = true,
            Poll::Ready(Ok(())) => {}
        }
    }
    Poll::Ready(())
}

/// One read of a pipe the runtime found readable: `Some(n)` bytes (0 at its end, on an error,
/// or when the runtime is shutting down), `None` when nothing was there after all.
fn read_ready(ready: io::Result<AsyncFdReadyGuard<'_, OwnedFd>>, buf: &mut [u8]) -> Option<usize> {
    let Ok(mut ready) = ready else {
        return Some(0);
    };
    let n = read(ready.get_inner(), buf);
    // Nothing there, or a read shorter than asked for, which emptied the pipe: the next write
    // wakes the runtime again (an epoll edge).
    if n.is_none_or(|n| n < buf.len()) {
        ready.clear_ready();
    }
    n
}
