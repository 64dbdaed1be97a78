//! What an engine costs the arena (its open files and threads, which `tournament::capacity`
//! adds up before the first game), and the one test of whether a failure to start an engine
//! is the arena's or the machine's: out of open files (EMFILE, ENFILE), processes or threads
//! (EAGAIN) or memory (ENOMEM). Such a failure says nothing about the engine, so it is the
//! run's error, never a game's result (an invariant checks that no recorded game says
//! otherwise).

use std::io;

/// Open files the arena holds for each running engine besides one per engine thread: its
/// stdin, stdout and stderr pipes, the pidfd that tells its exit (`process`) and
/// `/proc/pressure/cpu` (`cpu::CpuMeter` keeps each thread's `schedstat` open too).
pub const FILES_PER_ENGINE: usize = 5;

/// The arena's own threads for each running engine: none (one I/O thread reads every
/// engine's output, `engine::pipes`).
pub const THREADS_PER_ENGINE: usize = 0;

/// What the arena or the machine ran out of when an engine could not be started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shortage {
    /// EMFILE: the arena's own limit of open files.
    OpenFiles,
    /// ENFILE: the system's table of open files.
    SystemFiles,
    /// EAGAIN: processes or threads (a fork or a thread refused).
    Processes,
    /// ENOMEM.
    Memory,
}

impl Shortage {
    /// The shortage behind an error starting an engine process, if it is one.
    pub fn of(e: &io::Error) -> Option<Shortage> {
        e.raw_os_error().and_then(Shortage::of_errno)
    }

    fn of_errno(errno: i32) -> Option<Shortage> {
        match errno {
            libc::EMFILE => Some(Shortage::OpenFiles),
            libc::ENFILE => Some(Shortage::SystemFiles),
            libc::EAGAIN => Some(Shortage::Processes),
            libc::ENOMEM => Some(Shortage::Memory),
            _ => None,
        }
    }

    /// The shortage named in a recorded start failure: the `(os error N)` that follows
    /// "cannot start" in an [`super::EngineError::Spawn`] message.
    pub fn in_text(detail: &str) -> Option<Shortage> {
        let after = &detail[detail.find("cannot start ")?..];
        after.split("(os error ").skip(1).find_map(|rest| {
            let errno = rest.split(')').next()?.parse().ok()?;
            Shortage::of_errno(errno)
        })
    }

    /// What ran out, and what the user can do about it.
    pub fn what(self) -> &'static str {
        match self {
            Shortage::OpenFiles => "the arena is out of open files (raise `ulimit -n`)",
            Shortage::SystemFiles => "the system is out of open files",
            Shortage::Processes => "the machine refused a process or thread (see `ulimit -u`)",
            Shortage::Memory => "the machine is out of memory",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_arenas_and_the_machines_shortages_are_shortages() {
        let os = io::Error::from_raw_os_error;
        assert_eq!(Shortage::of(&os(libc::EMFILE)), Some(Shortage::OpenFiles));
        assert_eq!(Shortage::of(&os(libc::ENFILE)), Some(Shortage::SystemFiles));
        assert_eq!(Shortage::of(&os(libc::EAGAIN)), Some(Shortage::Processes));
        assert_eq!(Shortage::of(&os(libc::ENOMEM)), Some(Shortage::Memory));
        // A missing or unrunnable engine is the engine's (its roster entry's) fault.
        for errno in [libc::ENOENT, libc::EACCES, libc::ENOEXEC] {
            assert_eq!(Shortage::of(&os(errno)), None);
        }
        assert_eq!(Shortage::of(&io::Error::other("no errno")), None);
    }

    #[test]
    fn a_recorded_start_failure_is_read_back() {
        let emfile = format!(
            "engine b: cannot start /bin/b: {}",
            io::Error::from_raw_os_error(libc::EMFILE)
        );
        assert_eq!(Shortage::in_text(&emfile), Some(Shortage::OpenFiles));
        let missing = format!(
            "engine b: cannot start /bin/b: {}",
            io::Error::from_raw_os_error(libc::ENOENT)
        );
        assert_eq!(Shortage::in_text(&missing), None);
        // An engine's own output that happens to name an errno is not a start failure.
        assert_eq!(
            Shortage::in_text("engine b: exited with code 1 (stderr: (os error 24))"),
            None
        );
    }
}
