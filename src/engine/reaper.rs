//! The reaper: what an engine starts that leaves the engine's process group (a grandchild
//! that calls `setsid`, a daemon that forks twice) goes with the engine all the same.
//!
//! Killing an engine's process group takes everything that stayed in the group. A process
//! that made a session or group of its own escapes that, and once its parent dies it would be
//! adopted by init and outlive the run. So the arena makes itself a child subreaper (Linux,
//! `PR_SET_CHILD_SUBREAPER`): an orphan among an engine's descendants becomes the arena's
//! child. The arena's only children are its engines and the janitor; any other child is such
//! an orphan, and [`sweep`] kills it (its group too) and reaps it. The sweep runs after each
//! engine is killed (it also reaps the killed group's members, zombies adopted the same way)
//! and once more as the arena exits. Were the arena killed with SIGKILL, the janitor kills
//! what carries the run's mark in its environment (see `janitor`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Set by [`enable`]: only the arena's own process sweeps (a test binary has other children).
static ENABLED: AtomicBool = AtomicBool::new(false);

/// The engines alive, by pid: the arena's children that are not orphans.
static ENGINES: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

/// Makes this process a child subreaper and turns the sweeps on. Called once by the arena's
/// `main`, before any engine starts; elsewhere a no-op.
pub fn enable() {
    #[cfg(target_os = "linux")]
    // SAFETY: a plain prctl on this process.
    let on = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) } == 0;
    #[cfg(not(target_os = "linux"))]
    let on = false;
    ENABLED.store(on, Ordering::SeqCst);
}

/// The list of live engines, locked: held across an engine's spawn, so that a sweep never
/// takes a child just forked for its orphan.
pub fn engines() -> MutexGuard<'static, Vec<libc::pid_t>> {
    ENGINES.lock().unwrap_or_else(|e| e.into_inner())
}

/// The engine `pid` is reaped: off the list.
pub fn gone(pid: libc::pid_t) {
    engines().retain(|&p| p != pid);
}

/// Kills and reaps every child of the arena that is neither a live engine nor the janitor,
/// with whatever group it leads, until none is left (a killed orphan's own orphans come to
/// the arena in turn). Blocks for at most a few seconds, only on a process the kernel holds.
pub fn sweep() {
    if !ENABLED.load(Ordering::SeqCst) {
        return;
    }
    let engines = engines();
    let janitor = super::janitor::pid();
    for _ in 0..16 {
        let orphans: Vec<libc::pid_t> = children(std::process::id() as libc::pid_t)
            .into_iter()
            .filter(|pid| !engines.contains(pid) && Some(*pid) != janitor)
            .collect();
        if orphans.is_empty() {
            return;
        }
        for &pid in &orphans {
            // SAFETY: kill(2); the pid is our child, not yet reaped, so it names that process
            // (and, negated, the group it leads if it leads one).
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
                libc::kill(pid, libc::SIGKILL);
            }
        }
        for pid in orphans {
            reap(pid);
        }
    }
}

/// Waits for our child `pid`, at most two seconds.
fn reap(pid: libc::pid_t) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let mut status = 0;
        // SAFETY: waitpid on our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r != 0 || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// The children of every thread of the process `pid`, from `/proc/PID/task/TID/children`.
/// The sweep reads the arena's own (an orphan is adopted by one of the subreaper's threads):
/// its threads, not every process on the machine, so a sweep costs the same whatever else
/// runs (at the end of a run with 2,048 engines, each of their sweeps used to read every
/// `/proc/PID/stat` there was).
pub(super) fn children(pid: libc::pid_t) -> Vec<libc::pid_t> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|text| {
            text.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<_>>()
        })
        .collect()
}
