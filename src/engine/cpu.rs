//! What an engine's processes get of the CPU while it thinks, read from the kernel at its
//! `go` and at its `bestmove` (Linux), so that a move or a time loss can be marked starved
//! when the machine, not the engine, was short of CPU (`CpuUse::starved`).
//!
//! Two numbers for each process of the engine:
//! - the CPU time its threads ran: the process's CPU clock (`clock_gettime` on the clock
//!   `clock_getcpuclockid` names), exact to the nanosecond and summed over all its threads,
//!   those that have exited included: one system call;
//! - the time its threads were ready to run but waited for a core, the run-queue delay (the
//!   second field of `/proc/PID/task/TID/schedstat`, kept by kernels built with
//!   `CONFIG_SCHED_INFO`, which distributions' are): the starvation signal itself. A thread
//!   that exits during the search takes its wait with it (the wait is then under-counted,
//!   never over-counted).
//!
//! The processes are the engine and the descendants it has at the first reading (a wrapper
//! script that does not `exec` its engine has started it by then: the handshake is over); a
//! process started later is not followed. Reading /proc does not block on a device: it is
//! done inline, a few microseconds a reading.

use crate::event::CpuUse;

/// One process of the engine.
struct Member {
    pid: libc::pid_t,
    /// Its CPU clock.
    clock: libc::clockid_t,
}

/// The engine's readings, taken at `go` and at `bestmove`.
pub struct CpuMeter {
    leader: libc::pid_t,
    /// Found at the first reading.
    members: Option<Vec<Member>>,
    /// The reading at the last `go` (or `ponderhit`).
    at_go: Option<Sample>,
}

/// The engine's counters at one instant.
#[derive(Debug, Clone, PartialEq)]
struct Sample {
    run_ns: u64,
    /// Each live thread's run-queue delay so far, by thread id; `None` when not kept.
    waits: Option<Vec<(u32, u64)>>,
}

impl CpuMeter {
    pub fn new(pid: u32) -> CpuMeter {
        CpuMeter {
            leader: pid as libc::pid_t,
            members: None,
            at_go: None,
        }
    }

    /// The engine is sent `go` (or `ponderhit`): its search starts now.
    pub fn start(&mut self) {
        self.at_go = self.sample();
    }

    /// The engine's `bestmove` was read: what it got of the CPU since the last [`start`].
    ///
    /// [`start`]: CpuMeter::start
    pub fn since_go(&mut self) -> Option<CpuUse> {
        let start = self.at_go.take()?;
        let end = self.sample()?;
        Some(use_between(&start, &end))
    }

    fn sample(&mut self) -> Option<Sample> {
        let members = self
            .members
            .get_or_insert_with(|| group_members(self.leader));
        let mut run_ns = 0;
        let mut waits = Some(Vec::new());
        for member in members.iter() {
            run_ns += clock_ns(member.clock)?;
            if let Some(list) = &mut waits {
                if !read_waits(member.pid, list) {
                    waits = None;
                }
            }
        }
        Some(Sample { run_ns, waits })
    }
}

/// The CPU used between two readings. A thread born between them counts its whole wait.
fn use_between(start: &Sample, end: &Sample) -> CpuUse {
    let wait_ns = match (&start.waits, &end.waits) {
        (Some(before), Some(after)) => Some(
            after
                .iter()
                .map(|(tid, ns)| {
                    let earlier = before.iter().find(|(t, _)| t == tid).map_or(0, |b| b.1);
                    ns.saturating_sub(earlier)
                })
                .sum::<u64>(),
        ),
        _ => None,
    };
    CpuUse {
        run_us: (end.run_ns.saturating_sub(start.run_ns) / 1000) as i64,
        wait_us: wait_ns.map(|ns| (ns / 1000) as i64),
    }
}

/// The engine and its descendants, each with its CPU clock; those whose clock cannot be had
/// are left out.
fn group_members(leader: libc::pid_t) -> Vec<Member> {
    let mut members = Vec::new();
    let mut todo = vec![leader];
    while let Some(pid) = todo.pop() {
        let mut clock: libc::clockid_t = 0;
        // SAFETY: clock_getcpuclockid writes one clockid_t to the pointer it is given.
        if unsafe { libc::clock_getcpuclockid(pid, &mut clock) } == 0 {
            members.push(Member { pid, clock });
        }
        if members.len() >= 64 {
            break; // a fork bomb is not an engine
        }
        todo.extend(children(pid));
    }
    members
}

/// The children of every thread of `pid` (`/proc/PID/task/TID/children`).
fn children(pid: libc::pid_t) -> Vec<libc::pid_t> {
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

/// A process's CPU time so far, in ns; `None` once it has gone.
fn clock_ns(clock: libc::clockid_t) -> Option<u64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec to the pointer it is given.
    if unsafe { libc::clock_gettime(clock, &mut ts) } != 0 {
        return None;
    }
    Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

/// Appends each thread of `pid` with its run-queue delay; false when the kernel keeps none.
fn read_waits(pid: libc::pid_t, list: &mut Vec<(u32, u64)>) -> bool {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return false;
    };
    let mut any = false;
    for task in tasks.flatten() {
        let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        // A thread that has just exited has no file: it is skipped.
        if let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) {
            match parse_wait(&text) {
                Some(ns) => {
                    list.push((tid, ns));
                    any = true;
                }
                None => return false,
            }
        }
    }
    any
}

/// The run-queue delay of a `schedstat` line: `ran_ns waited_ns timeslices`.
fn parse_wait(text: &str) -> Option<u64> {
    text.split_whitespace().nth(1)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedstat_lines_give_their_wait() {
        assert_eq!(parse_wait("31574539 61200909 86\n"), Some(61_200_909));
        assert_eq!(parse_wait("0 0 0"), Some(0));
        assert_eq!(parse_wait("12"), None);
        assert_eq!(parse_wait(""), None);
    }

    /// Threads are matched by id: a thread born during the search counts its whole wait, one
    /// that exited takes its wait with it, and no count runs backwards.
    #[test]
    fn use_between_two_readings() {
        let start = Sample {
            run_ns: 5_000_000,
            waits: Some(vec![(10, 1_000_000), (11, 9_000_000)]),
        };
        let end = Sample {
            run_ns: 45_000_000,
            waits: Some(vec![(10, 61_000_000), (12, 2_000_000)]),
        };
        assert_eq!(
            use_between(&start, &end),
            CpuUse {
                run_us: 40_000,
                wait_us: Some(62_000)
            }
        );
        let unkept = Sample {
            run_ns: 4_000_000,
            waits: None,
        };
        assert_eq!(
            use_between(&start, &unkept),
            CpuUse {
                run_us: 0,
                wait_us: None
            }
        );
    }

    /// A real process that spins: its CPU clock and its waits are read, and a wrapper shell
    /// that does not `exec` counts its child's CPU.
    #[test]
    fn a_spinning_child_of_a_wrapper_is_measured() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("/bin/sh")
            .args(["-c", "sh -c 'while :; do :; done'; :"])
            .process_group(0)
            .spawn()
            .unwrap();
        // The wrapper has forked its child once /proc lists it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while children(child.id() as i32).is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let mut meter = CpuMeter::new(child.id());
        meter.start();
        let members = meter.members.as_ref().unwrap().len();
        // The child spins until it has run 30 ms more, however busy the machine is.
        let mut used = None;
        while std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
            let start = meter.at_go.clone();
            let cpu = meter.since_go().unwrap();
            meter.at_go = start;
            if cpu.run_us >= 30_000 {
                used = Some(cpu);
                break;
            }
        }
        // SAFETY: kill(2) with a negative pid signals the wrapper's process group.
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        let _ = child.wait();
        assert_eq!(members, 2, "the wrapper and its child");
        let used = used.expect("the spinning child's CPU was counted");
        assert!(used.wait_us.is_some(), "this kernel keeps run-queue delays");
    }
}
