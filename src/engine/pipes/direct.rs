//! An engine read on the game's own thread: where a lane of the tournament plays one game
//! (`tournament::lanes`), its engines' pipes are read by a task on that lane, so a move wakes
//! one thread, not the I/O thread and then the game's.
//!
//! The stamp is as exact as the I/O thread's: the lane has nothing else to do while its
//! engines think, so the task reads a line as soon as the kernel wakes the lane, and stamps it
//! the instant `read` returns. A flood stays on the flooding engine's own lane: the task reads
//! 64 KiB at a time and waits for room in the line queue, so the engine blocks on its pipe.

use std::cell::Cell;
use std::io;
use std::os::fd::OwnedFd;
use std::task::Poll;

use tokio::io::unix::{AsyncFd, AsyncFdReadyGuard};
use tokio::io::Interest;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::{read, read_stderr_left, unread, Pipes, READ};
use crate::engine::process::StderrTail;

thread_local! {
    static DIRECT: Cell<bool> = const { Cell::new(false) };
}

/// Engines started on this thread from now on are read by a task on its runtime, not by the
/// I/O thread. For a thread that runs one game at a time on a single-threaded runtime.
pub fn read_on_this_thread() {
    DIRECT.with(|direct| direct.set(true));
}

pub(super) fn on_this_thread() -> bool {
    DIRECT.with(Cell::get)
}

/// The game's side of a task reading an engine: dropping it ends the task and closes the pipes.
pub struct TaskWatch {
    task: JoinHandle<()>,
    tail: StderrTail,
}

impl Drop for TaskWatch {
    fn drop(&mut self) {
        self.task.abort();
        self.tail.lock().unwrap_or_else(|e| e.into_inner()).close();
    }
}

/// Starts the task that reads `pipes` on the current runtime.
pub(super) fn watch(mut pipes: Pipes) -> io::Result<TaskWatch> {
    let stdout = pipes.stdout.take().expect("stdout");
    let stderr = pipes.stderr.take().expect("stderr");
    let stdout = register(stdout)?;
    let stderr = register(stderr)?;
    let exit = pipes.exit.take().map(register).transpose()?;
    let tail = std::sync::Arc::clone(&pipes.tail);
    let task = tokio::spawn(read_engine(pipes, stdout, stderr, exit));
    Ok(TaskWatch { task, tail })
}

fn register(fd: OwnedFd) -> io::Result<AsyncFd<OwnedFd>> {
    // SAFETY: an `OwnedFd` is open and stays the same descriptor until the `AsyncFd` drops it.
    unsafe { AsyncFd::register_with_interest(fd, Interest::READABLE) }.map_err(io::Error::from)
}

/// Which pipe the runtime found readable.
enum Ready<'a> {
    Stdout(io::Result<AsyncFdReadyGuard<'a, OwnedFd>>),
    Stderr(io::Result<AsyncFdReadyGuard<'a, OwnedFd>>),
    /// The process has exited.
    Exit,
}

/// Reads both pipes to their end (or until the game drops its side).
///
/// The pipes are polled for readiness directly, stdout first: each keeps one waker in the
/// runtime's slot for it, where a `readable()` future each, raced in a `select!`, joined and
/// left the runtime's list of waiters at every read (a third of the reader's work a read).
/// A flood on stderr cannot hold stdout back, and stdout is read only as the game takes its
/// lines, so stderr is read whenever stdout has nothing. Once the process has exited (`exit`
/// is readable), each pipe ends with what it left there (`Pipes::on_exit`).
async fn read_engine(
    mut pipes: Pipes,
    stdout: AsyncFd<OwnedFd>,
    stderr: AsyncFd<OwnedFd>,
    mut exit: Option<AsyncFd<OwnedFd>>,
) {
    let mut buf = vec![0u8; READ];
    let (mut out_open, mut err_open) = (true, true);
    while out_open || err_open {
        let ready = std::future::poll_fn(|cx| {
            if out_open {
                if let Poll::Ready(ready) = stdout.poll_read_ready(cx) {
                    return Poll::Ready(Ready::Stdout(ready));
                }
            }
            if err_open {
                if let Poll::Ready(ready) = stderr.poll_read_ready(cx) {
                    return Poll::Ready(Ready::Stderr(ready));
                }
            }
            if let Some(exit) = &exit {
                if exit.poll_read_ready(cx).is_ready() {
                    return Poll::Ready(Ready::Exit);
                }
            }
            Poll::Pending
        })
        .await;
        match ready {
            Ready::Stdout(ready) => {
                let room = pipes.stdout_room(buf.len());
                let Some(n) = read_ready(ready, &mut buf[..room]) else {
                    continue;
                };
                pipes.stdout_read(&buf[..n], Instant::now());
                out_open = deliver(&mut pipes).await;
            }
            Ready::Exit => {
                exit = None;
                if err_open {
                    read_stderr_left(stderr.get_ref(), &pipes.tail, &mut buf);
                    err_open = false;
                }
                if out_open {
                    pipes.stdout_left = Some(unread(stdout.get_ref()));
                    if pipes.stdout_ended() {
                        pipes.stdout_read(&[], Instant::now());
                        out_open = deliver(&mut pipes).await;
                    }
                }
            }
            Ready::Stderr(ready) => {
                let Some(n) = read_ready(ready, &mut buf) else {
                    continue;
                };
                let mut tail = pipes.tail.lock().unwrap_or_else(|e| e.into_inner());
                if n > 0 {
                    tail.feed(&buf[..n]);
                } else {
                    tail.close();
                    err_open = false;
                }
            }
        }
    }
}

/// Delivers what was read, waiting for room in the game's queue (backpressure: the engine
/// waits on its pipe meanwhile); whether stdout is still to be read.
async fn deliver(pipes: &mut Pipes) -> bool {
    while !pipes.sink.flush() {
        if pipes.sink.tx.room().await.is_err() {
            pipes.sink.gone = true;
        }
    }
    !pipes.sink.gone && !pipes.stdout_ended()
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
