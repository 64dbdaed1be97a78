//! What an engine's processes get of the CPU while it thinks, read from the kernel at its
//! `go` and at its `bestmove` (Linux), so that a move or a time loss can be marked starved
//! when the machine, not the engine, was short of CPU (`CpuUse::starved`). An engine that
//! waited idle since its last `bestmove` is not read at `go`: that reading serves.
//!
//! For each process of the engine:
//! - the CPU time its threads ran: the process's CPU clock (`clock_gettime` on the clock
//!   `clock_getcpuclockid` names), exact to the nanosecond and summed over all its threads,
//!   those that have exited included: one system call;
//! - each live thread's time on a CPU and time ready to run but waiting for a core, the
//!   run-queue delay (`/proc/PID/task/TID/schedstat`, kept by kernels built with
//!   `CONFIG_SCHED_INFO`, as distributions' are): the starvation signal itself.
//!
//! A thread that exits during the search (an engine that starts a thread per `go`, as the
//! built-in ones do) takes its wait with it: the CPU time the process clock counts beyond its
//! live threads' is then recorded as `ended_us`, with the machine's CPU pressure over the
//! search (`/proc/pressure/cpu`, the time some task waited for a core) standing in for the
//! engine's own wait.
//!
//! The processes are the engine and the descendants it has at the first reading (a wrapper
//! script that does not `exec` its engine has started it by then: the handshake is over); a
//! process started later is not followed. Reading /proc does not block on a device: it is
//! done inline, a few microseconds a reading.

use std::fs::File;
use std::os::unix::fs::FileExt;

use super::reaper::children;
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
    /// Each known thread's `schedstat`, kept open and read again from its start (the kernel
    /// makes the line anew at each read): one `pread` a thread a reading.
    threads: Vec<ThreadFile>,
    /// Look the threads up again at the next `go`: first, and after a search in which
    /// threads came or went.
    rescan: bool,
    /// `/proc/pressure/cpu`, kept open the same way; `None` without PSI.
    pressure: Option<File>,
    /// The reading at the last `go` (or `ponderhit`).
    at_go: Option<Sample>,
    /// The reading at the last `bestmove`, which stands for the next `go`'s when the engine
    /// was idle in between.
    at_bestmove: Option<Sample>,
    /// The threads' list of a reading done with, filled again by the next one: a reading a
    /// move allocates nothing.
    spare: Vec<Thread>,
}

struct ThreadFile {
    tid: u32,
    file: File,
}

/// The engine's counters at one instant.
#[derive(Debug, Clone, PartialEq)]
struct Sample {
    run_ns: u64,
    /// Each live thread's time on a CPU and run-queue delay so far, by thread id; `None`
    /// when the kernel does not keep them.
    threads: Option<Vec<Thread>>,
    /// The machine's CPU pressure so far (`some total`, µs); `None` without PSI.
    pressure_us: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Thread {
    tid: u32,
    ran_ns: u64,
    waited_ns: u64,
}

impl CpuMeter {
    pub fn new(pid: u32) -> CpuMeter {
        CpuMeter {
            leader: pid as libc::pid_t,
            members: None,
            threads: Vec::new(),
            rescan: true,
            pressure: File::open("/proc/pressure/cpu").ok(),
            at_go: None,
            at_bestmove: None,
            spare: Vec::new(),
        }
    }

    /// The engine is sent `go` (or `ponderhit`): its search starts now.
    pub fn start(&mut self) {
        // The pressure is wanted only where threads come and go: read it then (and at the
        // first search), not at every move of an engine whose threads stay.
        let rescan = std::mem::take(&mut self.rescan);
        if rescan {
            self.scan();
        }
        self.at_go = self.sample(rescan);
        self.at_bestmove = None;
    }

    /// The engine was sent something that may set it working: the next `go` reads anew.
    pub fn not_idle(&mut self) {
        self.at_bestmove = None;
    }

    /// The engine is sent `go` after waiting idle since its last `bestmove` (it does not
    /// ponder): its threads neither ran nor waited for a core in between, so the reading
    /// taken at that `bestmove` is this one's, and no /proc file is read at `go` (half the
    /// meter's cost a move; an engine that works on after its `bestmove` has that work
    /// counted in its next move). Its threads are looked up anew, with a fresh reading, when
    /// they came or went in the last search.
    pub fn start_after_idle(&mut self) {
        match self.at_bestmove.take() {
            Some(reading) if !self.rescan => self.at_go = Some(reading),
            _ => self.start(),
        }
    }

    /// The engine's `bestmove` was read: what it got of the CPU since the last [`start`].
    ///
    /// [`start`]: CpuMeter::start
    pub fn since_go(&mut self) -> Option<CpuUse> {
        let start = self.at_go.take()?;
        let end = self.sample(start.pressure_us.is_some())?;
        let cpu = use_between(&start, &end);
        self.rescan = cpu.ended_us.is_some();
        self.at_bestmove = Some(end);
        if let Some(threads) = start.threads {
            self.spare = threads;
        }
        Some(cpu)
    }

    /// Finds the engine's processes (once) and their threads.
    fn scan(&mut self) {
        let members = self
            .members
            .get_or_insert_with(|| group_members(self.leader));
        self.threads.clear();
        for member in members.iter() {
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", member.pid)) else {
                continue;
            };
            for task in tasks.flatten() {
                let tid = task.file_name().to_str().and_then(|t| t.parse().ok());
                let file = File::open(task.path().join("schedstat"));
                if let (Some(tid), Ok(file)) = (tid, file) {
                    self.threads.push(ThreadFile { tid, file });
                }
            }
        }
    }

    fn sample(&mut self, pressure: bool) -> Option<Sample> {
        let mut run_ns = 0;
        for member in self.members.as_deref().unwrap_or_default() {
            run_ns += clock_ns(member.clock)?;
        }
        let mut buf = [0u8; 128];
        let mut threads = std::mem::take(&mut self.spare);
        threads.clear();
        let mut kept = !self.threads.is_empty();
        for t in &self.threads {
            // A thread that has exited reads as an error: it is left out.
            let Some(text) = read_from_start(&t.file, &mut buf) else {
                continue;
            };
            match parse_schedstat(text) {
                Some((ran_ns, waited_ns)) => threads.push(Thread {
                    tid: t.tid,
                    ran_ns,
                    waited_ns,
                }),
                None => kept = false,
            }
        }
        let pressure_us = self
            .pressure
            .as_ref()
            .filter(|_| pressure)
            .and_then(|f| read_from_start(f, &mut [0u8; 256]).and_then(parse_pressure));
        Some(Sample {
            run_ns,
            threads: kept.then_some(threads),
            pressure_us,
        })
    }
}

/// A /proc file's text, read again from its start.
fn read_from_start<'a>(file: &File, buf: &'a mut [u8]) -> Option<&'a [u8]> {
    let n = file.read_at(buf, 0).ok()?;
    Some(&buf[..n])
}

/// CPU time of threads that ended during a search below this is noise (a live thread's
/// counters lag its process clock by up to a scheduler tick).
const ENDED_MIN_NS: u64 = 1_000_000;

/// The CPU used between two readings. A thread born between them counts whole.
fn use_between(start: &Sample, end: &Sample) -> CpuUse {
    let run_ns = end.run_ns.saturating_sub(start.run_ns);
    let (wait_us, ended_ns) = match (&start.threads, &end.threads) {
        (Some(before), Some(after)) => {
            let (mut ran, mut waited) = (0u64, 0u64);
            for t in after {
                let b = before.iter().find(|b| b.tid == t.tid);
                ran += t.ran_ns.saturating_sub(b.map_or(0, |b| b.ran_ns));
                waited += t.waited_ns.saturating_sub(b.map_or(0, |b| b.waited_ns));
            }
            (Some((waited / 1000) as i64), run_ns.saturating_sub(ran))
        }
        _ => (None, 0),
    };
    // Most of it, or a noticeable part: the wait measured misses theirs.
    let ended = ended_ns >= ENDED_MIN_NS.max(run_ns / 4);
    CpuUse {
        run_us: (run_ns / 1000) as i64,
        wait_us,
        ended_us: ended.then_some((ended_ns / 1000) as i64),
        pressure_us: match (ended, start.pressure_us, end.pressure_us) {
            (true, Some(a), Some(b)) => Some(b.saturating_sub(a) as i64),
            _ => None,
        },
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

/// A `schedstat` line: `ran_ns waited_ns timeslices`. Read byte by byte: this runs for every
/// thread at every reading.
fn parse_schedstat(text: &[u8]) -> Option<(u64, u64)> {
    let (ran, rest) = number(text)?;
    let (waited, _) = number(rest.strip_prefix(b" ")?)?;
    Some((ran, waited))
}

/// The machine's CPU pressure so far: the `total` (µs) of the `some` line of
/// `/proc/pressure/cpu`, the time at least one task waited for a core.
fn parse_pressure(text: &[u8]) -> Option<u64> {
    // `some avg10=... avg60=... avg300=... total=N`: the total is the line's last field.
    let line = text.strip_prefix(b"some ")?;
    let line = &line[..line.iter().position(|&b| b == b'\n').unwrap_or(line.len())];
    let at = line.iter().rposition(|&b| b == b' ')? + 1;
    number(line[at..].strip_prefix(b"total=")?).map(|(n, _)| n)
}

/// The decimal number at the start of `text` (at most 19 digits, which a `u64` holds), and
/// what follows it. This runs twice a thread at every reading, on numbers of ten digits and
/// more (nanoseconds): eight digits are read at a time while eight are there (a digit at a
/// time cost about 100 instructions a number).
fn number(text: &[u8]) -> Option<(u64, &[u8])> {
    let mut n = 0u64;
    let mut at = 0;
    // Sixteen digits at most this way, and three at most below: nineteen.
    while at < 16 {
        let Some(chunk) = text.get(at..at + 8) else {
            break;
        };
        let chunk = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        if !eight_digits(chunk) {
            break;
        }
        n = n * 100_000_000 + value_of_eight(chunk);
        at += 8;
    }
    while let Some(&b) = text.get(at) {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        if at == 19 {
            return None;
        }
        n = n * 10 + u64::from(digit);
        at += 1;
    }
    (at > 0).then(|| (n, &text[at..]))
}

/// Whether the eight bytes of `chunk` are all ASCII digits: each byte's high nibble is 3, and
/// stays 3 with 6 added (a low nibble of at most 9).
fn eight_digits(chunk: u64) -> bool {
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    ((chunk & HIGH) | (((chunk.wrapping_add(0x0606_0606_0606_0606)) & HIGH) >> 4))
        == 0x3333_3333_3333_3333
}

/// The value of eight ASCII digits, the first in the lowest byte: adjacent digits combined
/// into pairs (times 10 * 2^8 + 1), pairs into fours (times 100 * 2^16 + 1), fours into the
/// eight (times 10000 * 2^32 + 1), each step in every lane at once.
fn value_of_eight(chunk: u64) -> u64 {
    let pairs = ((chunk & 0x0F0F_0F0F_0F0F_0F0F).wrapping_mul(2561)) >> 8;
    let fours = ((pairs & 0x00FF_00FF_00FF_00FF).wrapping_mul(6_553_601)) >> 16;
    ((fours & 0x0000_FFFF_0000_FFFF).wrapping_mul(42_949_672_960_001)) >> 32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_go_after_an_idle_wait_reads_nothing_and_any_other_command_makes_it_read() {
        // This test's own process stands for the engine.
        let mut meter = CpuMeter::new(std::process::id());
        meter.start();
        assert!(meter.since_go().is_some());
        let at_bestmove = meter.at_bestmove.clone().expect("kept");
        meter.start_after_idle();
        assert_eq!(
            meter.at_go.as_ref(),
            Some(&at_bestmove),
            "the bestmove's reading"
        );
        assert!(meter.since_go().is_some());
        let at_bestmove = meter.at_bestmove.clone().expect("kept");
        // Work until the process's CPU clock has moved on.
        let clock = meter.members.as_ref().expect("found")[0].clock;
        while clock_ns(clock).expect("a clock") <= at_bestmove.run_ns {
            std::hint::black_box(0);
        }
        meter.not_idle();
        meter.start_after_idle();
        let at_go = meter.at_go.as_ref().expect("read");
        assert!(at_go.run_ns > at_bestmove.run_ns, "a fresh reading");
    }

    /// Eight digits at a time read what a digit at a time reads, whatever the digits, their
    /// count and what follows them.
    #[test]
    fn numbers_are_read_as_digit_by_digit() {
        fn slow(text: &[u8]) -> Option<(u64, &[u8])> {
            let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
            if digits == 0 || digits > 19 {
                return None;
            }
            let n = std::str::from_utf8(&text[..digits]).ok()?.parse().ok()?;
            Some((n, &text[digits..]))
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for length in 0..=24 {
            for round in 0..200 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let mut text: Vec<u8> = (0..length)
                    .map(|i| b'0' + ((seed >> (i % 16 * 4)) % 10) as u8)
                    .collect();
                // What follows: nothing, a space, a byte next to the digits, or more digits.
                text.extend_from_slice(match round % 5 {
                    0 => b"",
                    1 => b" 12 9\n",
                    2 => b"/",
                    3 => b":",
                    _ => b"7",
                });
                assert_eq!(
                    number(&text),
                    slow(&text),
                    "{:?}",
                    String::from_utf8_lossy(&text)
                );
            }
        }
    }

    #[test]
    fn schedstat_and_pressure_lines_are_read() {
        assert_eq!(
            parse_schedstat(b"31574539 61200909 86\n"),
            Some((31_574_539, 61_200_909))
        );
        assert_eq!(parse_schedstat(b"0 0 0"), Some((0, 0)));
        assert_eq!(parse_schedstat(b"12"), None);
        assert_eq!(parse_schedstat(b""), None);
        assert_eq!(parse_schedstat(b"99999999999999999999 1 1"), None);
        let psi = b"some avg10=98.06 avg60=98.36 avg300=98.75 total=2414476427\n\
                   full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
        assert_eq!(parse_pressure(psi), Some(2_414_476_427));
        assert_eq!(parse_pressure(b"full total=3\n"), None);
        assert_eq!(parse_pressure(b"some avg10=1.00\nfull total=3\n"), None);
    }

    fn thread(tid: u32, ran_ms: u64, waited_ms: u64) -> Thread {
        Thread {
            tid,
            ran_ns: ran_ms * 1_000_000,
            waited_ns: waited_ms * 1_000_000,
        }
    }

    /// Threads are matched by id: a thread born during the search counts whole, and no count
    /// runs backwards. CPU the live threads do not account for ran in threads that ended:
    /// recorded, with the machine's pressure.
    #[test]
    fn use_between_two_readings() {
        let start = Sample {
            run_ns: 5_000_000,
            threads: Some(vec![thread(10, 1, 1), thread(11, 4, 9)]),
            pressure_us: Some(1_000),
        };
        let end = Sample {
            run_ns: 45_000_000,
            threads: Some(vec![thread(10, 31, 61), thread(12, 10, 2)]),
            pressure_us: Some(91_000),
        };
        assert_eq!(
            use_between(&start, &end),
            CpuUse {
                run_us: 40_000,
                wait_us: Some(62_000),
                ended_us: None,
                pressure_us: None,
            }
        );
        // A search thread born and ended between the readings: only the process clock saw it.
        let ended = Sample {
            run_ns: 65_000_000,
            ..end.clone()
        };
        assert_eq!(
            use_between(&start, &ended),
            CpuUse {
                run_us: 60_000,
                wait_us: Some(62_000),
                ended_us: Some(20_000),
                pressure_us: Some(90_000),
            }
        );
        let unkept = Sample {
            run_ns: 4_000_000,
            threads: None,
            pressure_us: None,
        };
        assert_eq!(
            use_between(&start, &unkept),
            CpuUse {
                run_us: 0,
                wait_us: None,
                ended_us: None,
                pressure_us: None,
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
        while children(child.id() as libc::pid_t).is_empty() && std::time::Instant::now() < deadline
        {
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
