//! The janitor: a tiny process forked from the arena that kills every engine's process group
//! when the arena dies, however it dies (`kill -9` included).
//!
//! Each engine runs in its own process group, and the arena kills the whole group when it
//! stops an engine, so an engine started through a wrapper script that does not `exec` goes
//! with its wrapper. Should the arena die, the janitor kills those groups: the engines and
//! their descendants. (Only if the janitor cannot be started is each engine given a
//! parent-death signal instead, which reaches the direct child alone.) It holds the read end
//! of a pipe whose only write end is the arena's: the arena writes each engine group's id as
//! the engine starts and its negation as the group is killed; end of file on the pipe means
//! the arena is gone, and the janitor kills every group still listed, then exits.
//!
//! What leaves an engine's group (a grandchild that calls `setsid`) is not in any group listed;
//! while the arena lives, `reaper` takes it. For the case the arena is killed, every engine is
//! started with the run's mark in its environment (`BLITZ_ARENA_RUN=`, unique to this arena),
//! which its descendants inherit: the janitor kills every process that carries it too. A
//! descendant that wipes its environment escapes this last net.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Mutex, OnceLock};

use crate::decimal;

/// How many engine groups the janitor can track at once (64 games at once use 128).
const SLOTS: usize = 4096;

struct Janitor {
    pipe: std::fs::File,
    pid: libc::pid_t,
    /// The value of [`MARK`] this arena's engines carry.
    mark: String,
}

/// The environment variable that marks an engine and what it starts as this arena's.
pub const MARK: &str = "BLITZ_ARENA_RUN";

/// The longest mark the janitor looks for (`pid.nanoseconds`, with room to spare).
const MARK_MAX: usize = 64;

static JANITOR: OnceLock<Option<Mutex<Janitor>>> = OnceLock::new();

fn janitor() -> Option<&'static Mutex<Janitor>> {
    JANITOR
        .get_or_init(|| start().ok().map(Mutex::new))
        .as_ref()
}

/// Whether the janitor runs (started on first use): then it kills every engine group should
/// the arena die, and engines need no parent-death signal.
pub fn runs() -> bool {
    janitor().is_some()
}

/// The janitor's pid, if it runs.
pub fn pid() -> Option<libc::pid_t> {
    let janitor = JANITOR.get()?.as_ref()?;
    Some(janitor.lock().unwrap_or_else(|e| e.into_inner()).pid)
}

/// Puts the run's mark in the environment `command` starts with (no mark if the janitor could
/// not start: there is then nobody to read it).
pub fn mark(command: &mut std::process::Command) {
    if let Some(janitor) = janitor() {
        let janitor = janitor.lock().unwrap_or_else(|e| e.into_inner());
        command.env(MARK, &janitor.mark);
    }
}

/// Lists `pgid` as an engine group to kill if the arena dies.
pub fn watch(pgid: libc::pid_t) {
    send(pgid);
}

/// The group `pgid` has been killed: forget it.
pub fn forget(pgid: libc::pid_t) {
    send(-pgid);
}

fn send(record: libc::pid_t) {
    if let Some(janitor) = janitor() {
        let mut janitor = janitor.lock().unwrap_or_else(|e| e.into_inner());
        // Four bytes: a pipe write that small is atomic. A failure means the janitor is gone;
        // engines are still killed by the arena itself on every path it controls.
        let _ = janitor.pipe.write_all(&record.to_ne_bytes());
    }
}

/// Ends the janitor and waits for it, so that no process of the arena outlives it. Called once
/// as the arena exits, after every engine is gone.
pub fn shutdown() {
    let Some(slot) = JANITOR.get() else { return };
    let Some(janitor) = slot else { return };
    let janitor = janitor.lock().unwrap_or_else(|e| e.into_inner());
    // Closing our write end is the janitor's signal to exit; `dup` lets us close it while the
    // static keeps its `File`.
    // SAFETY: plain syscalls on descriptors we own.
    unsafe {
        let fd = janitor.pipe.as_raw_fd();
        let devnull = libc::open(c"/dev/null".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
        if devnull >= 0 {
            libc::dup2(devnull, fd);
            libc::close(devnull);
        }
        let mut status = 0;
        libc::waitpid(janitor.pid, &mut status, 0);
    }
}

fn start() -> std::io::Result<Janitor> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills `fds`; O_CLOEXEC keeps the write end out of every engine, so the
    // janitor sees end of file exactly when the arena is gone.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: the descriptors were just created and are owned here.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mark = format!("{}.{nanos}", std::process::id());
    // What the janitor looks for in an environment: `\0BLITZ_ARENA_RUN=<mark>\0`, made before
    // the fork (the janitor allocates nothing).
    let needle = format!("\0{MARK}={mark}\0").into_bytes();
    assert!(needle.len() <= MARK_MAX);
    // SAFETY: the child runs only async-signal-safe calls (the arena may be multi-threaded):
    // no allocation, no locks, no Rust runtime; it never returns from `run`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: see above.
        unsafe { run(read.as_raw_fd(), &needle) }
    }
    drop(read);
    Ok(Janitor {
        pipe: std::fs::File::from(write),
        pid,
        mark,
    })
}

/// The janitor's whole life. Async-signal-safe only.
unsafe fn run(input: libc::c_int, needle: &[u8]) -> ! {
    // Its own process group, deaf to the terminal's Ctrl-C (the arena handles that and stops
    // its engines itself), and holding no descriptor but its pipe: it must keep no engine's
    // pipe, and no test harness's stdout, open.
    libc::setpgid(0, 0);
    libc::signal(libc::SIGINT, libc::SIG_IGN);
    libc::signal(libc::SIGTERM, libc::SIG_IGN);
    libc::signal(libc::SIGHUP, libc::SIG_IGN);
    libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    libc::dup2(input, 0);
    if libc::syscall(libc::SYS_close_range, 1u32, u32::MAX, 0u32) != 0 {
        for fd in 1..4096 {
            libc::close(fd);
        }
    }
    let mut groups = [0 as libc::pid_t; SLOTS];
    let mut buf = [0u8; 4 * 256];
    let mut have = 0usize;
    loop {
        let n = libc::read(0, buf.as_mut_ptr().add(have).cast(), buf.len() - have);
        if n < 0 && *libc::__errno_location() == libc::EINTR {
            continue;
        }
        if n <= 0 {
            break; // the arena is gone
        }
        have += n as usize;
        let whole = have - have % 4;
        let mut i = 0;
        while i < whole {
            let record = libc::pid_t::from_ne_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]);
            if record > 0 {
                if let Some(slot) = groups.iter_mut().find(|g| **g == 0) {
                    *slot = record;
                }
            } else if let Some(slot) = groups.iter_mut().find(|g| **g == -record) {
                *slot = 0;
            }
            i += 4;
        }
        buf.copy_within(whole..have, 0);
        have -= whole;
    }
    for &group in groups.iter() {
        if group > 0 {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    // Then whatever carries the mark; again, for what was forked while it was looked for.
    for _ in 0..3 {
        kill_marked(needle);
    }
    libc::_exit(0)
}

/// SIGKILL to every process whose environment holds `needle` (`\0NAME=VALUE\0`). Reads
/// `/proc` with raw system calls into buffers on the stack: async-signal-safe.
unsafe fn kill_marked(needle: &[u8]) {
    let dir = libc::open(
        c"/proc".as_ptr(),
        libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
    );
    if dir < 0 {
        return;
    }
    let mut entries = [0u8; 8192];
    loop {
        let n = libc::syscall(
            libc::SYS_getdents64,
            dir,
            entries.as_mut_ptr(),
            entries.len(),
        );
        if n <= 0 {
            break;
        }
        let mut at = 0usize;
        while at + 19 < n as usize {
            // linux_dirent64: u64 inode, i64 offset, u16 record length, u8 type, name\0.
            let len = u16::from_ne_bytes([entries[at + 16], entries[at + 17]]) as usize;
            if len == 0 {
                break;
            }
            let name = &entries[at + 19..(at + len).min(n as usize)];
            if let Some(pid) = pid_of(name) {
                if environ_holds(pid, needle) {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            at += len;
        }
    }
    libc::close(dir);
}

/// A `/proc` entry's name (NUL-terminated) as a pid, if it is one.
fn pid_of(name: &[u8]) -> Option<libc::pid_t> {
    let mut pid: libc::pid_t = 0;
    for &b in name.iter().take_while(|&&b| b != 0) {
        if !b.is_ascii_digit() || pid > libc::pid_t::MAX / 10 - 1 {
            return None;
        }
        pid = pid * 10 + libc::pid_t::from(b - b'0');
    }
    (pid > 0).then_some(pid)
}

/// Whether `/proc/PID/environ` holds `needle`, read in pieces with the tail of each carried
/// over. Async-signal-safe.
unsafe fn environ_holds(pid: libc::pid_t, needle: &[u8]) -> bool {
    let mut path = [0u8; 40];
    let mut len = 0;
    let mut put = |bytes: &[u8]| {
        path[len..len + bytes.len()].copy_from_slice(bytes);
        len += bytes.len();
    };
    put(b"/proc/");
    let mut digits = [0u8; decimal::MAX_DIGITS];
    put(decimal::digits(pid.unsigned_abs().into(), &mut digits));
    put(b"/environ\0");
    let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    // The environment as read, after a NUL standing for the start of its first variable.
    let mut buf = [0u8; 4096 + MARK_MAX];
    let mut have = 1;
    let mut found = false;
    loop {
        let n = libc::read(fd, buf.as_mut_ptr().add(have).cast(), 4096);
        if n <= 0 {
            break;
        }
        have += n as usize;
        if buf[..have].windows(needle.len()).any(|w| w == needle) {
            found = true;
            break;
        }
        let keep = have.min(needle.len() - 1);
        buf.copy_within(have - keep..have, 0);
        have = keep;
    }
    libc::close(fd);
    found
}
