//! The janitor: a tiny process forked from the arena that kills every engine's process group
//! when the arena dies, however it dies (`kill -9` included).
//!
//! Each engine runs in its own process group, and the arena kills the whole group when it
//! stops an engine, so an engine started through a wrapper script that does not `exec` goes
//! with its wrapper. The parent-death signal set on each engine reaches only the direct child;
//! the janitor covers its descendants. It holds the read end of a pipe whose only write end is
//! the arena's: the arena writes each engine group's id as the engine starts and its negation
//! as the group is killed; end of file on the pipe means the arena is gone, and the janitor
//! kills every group still listed, then exits.

use std::io::Write;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Mutex, OnceLock};

/// How many engine groups the janitor can track at once (64 games at once use 128).
const SLOTS: usize = 4096;

struct Janitor {
    pipe: std::fs::File,
    pid: libc::pid_t,
}

static JANITOR: OnceLock<Option<Mutex<Janitor>>> = OnceLock::new();

fn janitor() -> Option<&'static Mutex<Janitor>> {
    JANITOR
        .get_or_init(|| start().ok().map(Mutex::new))
        .as_ref()
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
    // SAFETY: the child runs only async-signal-safe calls (the arena may be multi-threaded):
    // no allocation, no locks, no Rust runtime; it never returns from `run`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        // SAFETY: see above.
        unsafe { run(read.as_raw_fd()) }
    }
    drop(read);
    Ok(Janitor {
        pipe: std::fs::File::from(write),
        pid,
    })
}

/// The janitor's whole life. Async-signal-safe only.
unsafe fn run(input: libc::c_int) -> ! {
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
    libc::_exit(0)
}
