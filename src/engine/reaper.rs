//! The reaper: what an engine starts that leaves the engine's process group (a grandchild
//! that calls `setsid`, a daemon that forks twice) goes with the engine all the same.
//!
//! Killing an engine's process group takes everything that stayed in the group. A process
//! that made a session or group of its own escapes that, and once its parent dies it would be
//! adopted by init and outlive the run. So the arena makes itself a child subreaper (Linux,
//! `PR_SET_CHILD_SUBREAPER`): an orphan among an engine's descendants becomes the arena's
//! child. The arena's only children are its engines and the janitor; any other child is such
//! an orphan, and [`sweep`] kills it (its group too) and reaps it. A sweep runs after each
//! engine is killed (it also reaps the killed group's members, zombies adopted the same way;
//! the kills that wait while a sweep runs share the next one) and once more as the arena
//! exits. Were the arena killed with SIGKILL, the janitor kills what carries the run's mark
//! in its environment (see `janitor`).

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

/// Set by [`enable`]: only the arena's own process sweeps (a test binary has other children).
static ENABLED: AtomicBool = AtomicBool::new(false);

/// The engines alive, by pid: the arena's children that are not orphans. Held only for a
/// moment (a push, a removal, a copy), so that a worker thread never waits on a sweep.
static ENGINES: Mutex<Vec<libc::pid_t>> = Mutex::new(Vec::new());

/// Held for reading across each engine's spawn, from the fork until its pid is on
/// [`ENGINES`]; a sweep takes it for writing to tell orphans from engines, so a child just
/// forked is never taken for an orphan. Spawns do not wait for each other.
static SPAWNING: RwLock<()> = RwLock::new(());

/// The sweeps: one at a time, and one for all the kills that waited for it.
static SWEEPS: Coalesced = Coalesced::new();

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

/// Held across an engine's spawn: its pid goes on the list with [`Spawning::register`]
/// before the guard is dropped, so that a sweep never takes a child just forked for its
/// orphan.
pub struct Spawning {
    _held: RwLockReadGuard<'static, ()>,
}

impl Spawning {
    /// The engine `pid` is alive: on the list.
    pub fn register(&self, pid: libc::pid_t) {
        engines().push(pid);
    }
}

/// Taken before an engine is forked (see [`Spawning`]).
pub fn spawning() -> Spawning {
    Spawning {
        _held: SPAWNING.read().unwrap_or_else(|e| e.into_inner()),
    }
}

fn engines() -> MutexGuard<'static, Vec<libc::pid_t>> {
    ENGINES.lock().unwrap_or_else(|e| e.into_inner())
}

/// The engine `pid` is reaped: off the list.
pub fn gone(pid: libc::pid_t) {
    engines().retain(|&p| p != pid);
}

/// A ticket for a sweep after now: [`sweep_since`] with it returns once a sweep that started
/// after this call has run.
pub fn ticket() -> u64 {
    SWEEPS.ticket()
}

/// Kills and reaps every child of the arena that is neither a live engine nor the janitor
/// (see [`sweep_since`]), with a sweep that starts now or later.
pub fn sweep() {
    sweep_since(ticket());
}

/// Kills and reaps every child of the arena that is neither a live engine nor the janitor,
/// with whatever group it leads, until none is left (a killed orphan's own orphans come to
/// the arena in turn), unless a sweep that started after `ticket` was taken has already run:
/// when many engines are killed at once (the end of a run with 1,024 games at once), the
/// kills that wait while one sweep runs are all covered by the next, not one sweep each.
/// Blocks for at most a few seconds, only on a process the kernel holds.
pub fn sweep_since(ticket: u64) {
    if !ENABLED.load(Ordering::SeqCst) {
        return;
    }
    SWEEPS.run_since(ticket, sweep_now);
}

fn sweep_now() {
    let janitor = super::janitor::pid();
    for _ in 0..16 {
        // Read without a lock: /proc is slow with thousands of children.
        let children = children(std::process::id() as libc::pid_t);
        let orphans: Vec<libc::pid_t> = {
            // No spawn is between its fork and its registration now.
            let _no_spawn = SPAWNING.write().unwrap_or_else(|e| e.into_inner());
            let engines: HashSet<libc::pid_t> = engines().iter().copied().collect();
            children
                .into_iter()
                .filter(|pid| !engines.contains(pid) && Some(*pid) != janitor)
                // An engine reaped since the list was read is no child any more (and its pid
                // may be another process's by now): only our children are killed.
                .filter(|&pid| is_our_child(pid))
                .collect()
        };
        if orphans.is_empty() {
            return;
        }
        for &pid in &orphans {
            // SAFETY: kill(2); the pid is our child, not yet reaped (only sweeps reap an
            // orphan, one at a time), so it names that process (and, negated, the group it
            // leads if it leads one).
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

/// Work that runs one call at a time, where a call is satisfied by any run that started after
/// its ticket was taken.
struct Coalesced {
    started: AtomicU64,
    running: Mutex<()>,
}

impl Coalesced {
    const fn new() -> Coalesced {
        Coalesced {
            started: AtomicU64::new(0),
            running: Mutex::new(()),
        }
    }

    fn ticket(&self) -> u64 {
        self.started.load(Ordering::SeqCst)
    }

    /// Runs `work` unless a run that started after `ticket` was taken has ended; true if it
    /// ran.
    fn run_since(&self, ticket: u64, work: impl FnOnce()) -> bool {
        let _one_at_a_time = self.running.lock().unwrap_or_else(|e| e.into_inner());
        if self.started.load(Ordering::SeqCst) > ticket {
            return false; // it started after the ticket, and it has ended: we hold `running`
        }
        self.started.fetch_add(1, Ordering::SeqCst);
        work();
        true
    }
}

/// Whether `pid` is a child of this process, alive or not yet reaped (waitid with WNOWAIT
/// reaps nothing).
fn is_our_child(pid: libc::pid_t) -> bool {
    // SAFETY: a zeroed siginfo_t is a valid out-parameter for waitid.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    // SAFETY: waitid(2) with WNOHANG | WNOWAIT only reports; it reaps nothing.
    unsafe {
        libc::waitid(
            libc::P_PID,
            pid as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        ) == 0
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::sync::{mpsc, Arc, Barrier};

    #[test]
    fn a_run_that_started_after_the_ticket_serves_it() {
        let sweeps = Coalesced::new();
        let ticket = sweeps.ticket();
        assert!(sweeps.run_since(ticket, || {}));
        assert!(!sweeps.run_since(ticket, || panic!("served by the run above")));
        assert!(sweeps.run_since(sweeps.ticket(), || {}));
    }

    #[test]
    fn the_kills_that_wait_for_a_sweep_share_the_next_one() {
        let sweeps = Arc::new(Coalesced::new());
        let runs = Arc::new(AtomicUsize::new(0));
        let (running, is_running) = mpsc::channel();
        let tickets_taken = Arc::new(Barrier::new(2));
        let first = {
            let (sweeps, runs, tickets_taken) = (
                Arc::clone(&sweeps),
                Arc::clone(&runs),
                Arc::clone(&tickets_taken),
            );
            std::thread::spawn(move || {
                sweeps.run_since(sweeps.ticket(), || {
                    runs.fetch_add(1, Ordering::SeqCst);
                    running.send(()).unwrap();
                    tickets_taken.wait();
                })
            })
        };
        is_running.recv().unwrap();
        // Ten kills while the first sweep runs: that sweep may have missed what they left.
        let tickets: Vec<u64> = (0..10).map(|_| sweeps.ticket()).collect();
        tickets_taken.wait();
        let waiting: Vec<_> = tickets
            .into_iter()
            .map(|ticket| {
                let (sweeps, runs) = (Arc::clone(&sweeps), Arc::clone(&runs));
                std::thread::spawn(move || {
                    sweeps.run_since(ticket, || {
                        runs.fetch_add(1, Ordering::SeqCst);
                    })
                })
            })
            .collect();
        assert!(first.join().unwrap());
        let ran = waiting
            .into_iter()
            .map(|w| w.join().unwrap())
            .filter(|&ran| ran)
            .count();
        assert_eq!(ran, 1, "one sweep after the first serves all ten");
        assert_eq!(runs.load(Ordering::SeqCst), 2);
    }
}
