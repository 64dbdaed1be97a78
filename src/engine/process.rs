//! Spawning an engine process and reading its output as bounded, timestamped lines.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;
use tokio::time::Instant;

/// The longest line the arena keeps; longer ones are discarded as they stream in, so an engine
/// printing a 100 MB line cannot exhaust memory.
pub const MAX_LINE: usize = 64 * 1024;

/// How many lines may wait unread before the reader stops reading (the engine then blocks on
/// its own output: a flood cannot grow the arena's memory).
const LINE_QUEUE: usize = 1024;

/// How many lines of an engine's stderr are kept, to explain a crash.
const STDERR_TAIL: usize = 8;

/// One line of engine output, stamped with the instant it was read.
#[derive(Debug)]
pub enum Line {
    Text {
        text: String,
        at: Instant,
    },
    /// A line longer than `MAX_LINE`, dropped.
    Overlong,
    /// The engine closed its output (it exited or crashed).
    Eof {
        at: Instant,
    },
}

/// The last `info` line with a score. The reader keeps it here instead of sending every
/// info line on: an engine prints dozens a move, and waking the game for each would cost
/// more than everything else the arena does per move.
pub type InfoSlot = Arc<Mutex<Option<String>>>;

/// A spawned engine process with its output split into lines.
pub struct Process {
    pub child: Child,
    pub stdin: ChildStdin,
    /// Every line except `info` lines.
    pub lines: mpsc::Receiver<Line>,
    pub last_info: InfoSlot,
    pub stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// Spawns `program` directly (never through a shell), in its own process group so a Ctrl-C
/// at the terminal reaches only the arena, and with a parent-death signal so it dies with the
/// arena even if the arena is killed with SIGKILL.
pub fn spawn(
    program: &Path,
    args: &[String],
    dir: Option<&Path>,
    env: &[(String, String)],
) -> std::io::Result<Process> {
    let mut command = Command::new(program);
    command
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .process_group(0);
    if let Some(dir) = dir {
        command.current_dir(dir);
    }
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: between fork and exec only async-signal-safe calls are made (prctl, getppid,
    // _exit), and no memory is allocated.
    unsafe {
        command.pre_exec(move || {
            // Linux: SIGKILL this child when the thread that spawned it dies. Engines are
            // spawned from the runtime's worker threads, which live as long as the arena.
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
    let mut child = command.spawn()?;
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let stderr = child.stderr.take().expect("stderr is piped");
    let (tx, lines) = mpsc::channel(LINE_QUEUE);
    let last_info = InfoSlot::default();
    tokio::spawn(read_lines(stdout, tx, Arc::clone(&last_info)));
    let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
    tokio::spawn(keep_tail(stderr, Arc::clone(&stderr_tail)));
    Ok(Process {
        child,
        stdin,
        lines,
        last_info,
        stderr_tail,
    })
}

/// Splits `output` into lines of at most `MAX_LINE` bytes, each stamped when its newline was
/// read. Invalid UTF-8 is replaced, never an error. `info` lines are not sent: the last one
/// with a score is kept in `last_info`, the others are dropped unread.
async fn read_lines(output: impl AsyncRead + Unpin, tx: mpsc::Sender<Line>, last_info: InfoSlot) {
    let mut reader = BufReader::with_capacity(64 * 1024, output);
    let mut line: Vec<u8> = Vec::with_capacity(256);
    let mut dropped = 0usize; // bytes of an overlong line seen so far
    loop {
        let buf = match reader.fill_buf().await {
            Ok([]) | Err(_) => break,
            Ok(buf) => buf,
        };
        let (chunk, complete) = match memchr(buf) {
            Some(i) => (&buf[..i], Some(i + 1)),
            None => (buf, None),
        };
        if dropped > 0 || line.len() + chunk.len() > MAX_LINE {
            dropped += line.len() + chunk.len();
            line.clear();
        } else {
            line.extend_from_slice(chunk);
        }
        let consumed = complete.unwrap_or(buf.len());
        reader.consume(consumed);
        if complete.is_some() {
            let at = Instant::now();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let message = if dropped > 0 {
                Some(Line::Overlong)
            } else if line.starts_with(b"info") {
                if contains(&line, b" score ") {
                    let text = String::from_utf8_lossy(&line).into_owned();
                    *last_info.lock().expect("info slot lock") = Some(text);
                }
                None
            } else {
                Some(Line::Text {
                    text: String::from_utf8_lossy(&line).into_owned(),
                    at,
                })
            };
            line.clear();
            dropped = 0;
            if let Some(message) = message {
                if tx.send(message).await.is_err() {
                    return; // the engine handle is gone
                }
            }
        }
    }
    let _ = tx.send(Line::Eof { at: Instant::now() }).await;
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

fn memchr(buf: &[u8]) -> Option<usize> {
    buf.iter().position(|&b| b == b'\n')
}

/// Keeps the last few lines of the engine's stderr.
async fn keep_tail(stderr: impl AsyncRead + Unpin, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut lines = BufReader::new(stderr).split(b'\n');
    while let Ok(Some(bytes)) = lines.next_segment().await {
        let mut text = String::from_utf8_lossy(&bytes[..bytes.len().min(300)]).into_owned();
        text.truncate(text.trim_end().len());
        let mut tail = tail.lock().expect("stderr tail lock");
        if tail.len() == STDERR_TAIL {
            tail.pop_front();
        }
        tail.push_back(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines_of(input: &'static [u8]) -> Vec<String> {
        lines_and_info(input).await.0
    }

    async fn lines_and_info(input: &'static [u8]) -> (Vec<String>, Option<String>) {
        let (tx, mut rx) = mpsc::channel(16);
        let info = InfoSlot::default();
        tokio::spawn(read_lines(input, tx, Arc::clone(&info)));
        let mut out = Vec::new();
        while let Some(line) = rx.recv().await {
            out.push(match line {
                Line::Text { text, .. } => text,
                Line::Overlong => "<overlong>".into(),
                Line::Eof { .. } => "<eof>".into(),
            });
        }
        let info = info.lock().unwrap().clone();
        (out, info)
    }

    #[tokio::test]
    async fn info_lines_are_kept_in_the_slot_not_sent() {
        let (lines, info) = lines_and_info(
            b"info depth 1 score cp 5 pv e2e4\ninfo depth 2 currmove e2e4\ninfo depth 2 score cp 9\nbestmove e2e4\n",
        )
        .await;
        assert_eq!(lines, ["bestmove e2e4", "<eof>"]);
        assert_eq!(info.as_deref(), Some("info depth 2 score cp 9"));
    }

    #[tokio::test]
    async fn splits_lines_and_strips_carriage_returns() {
        assert_eq!(
            lines_of(b"uciok\r\nreadyok\nbest").await,
            ["uciok", "readyok", "<eof>"]
        );
    }

    #[tokio::test]
    async fn overlong_lines_are_dropped_not_kept() {
        let mut big = vec![b'x'; 3 * MAX_LINE];
        big.extend_from_slice(b"\nbestmove e2e4\n");
        let big: &'static [u8] = Box::leak(big.into_boxed_slice());
        assert_eq!(
            lines_of(big).await,
            ["<overlong>", "bestmove e2e4", "<eof>"]
        );
    }

    #[tokio::test]
    async fn invalid_utf8_is_replaced() {
        assert_eq!(
            lines_of(b"id name \xff\xfe x\n").await,
            ["id name \u{fffd}\u{fffd} x", "<eof>"]
        );
    }
}
