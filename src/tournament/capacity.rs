//! Before the first game: the arena raises its own limit of open files as far as it may, and
//! checks that the games it will play at once fit the open files, processes and memory there
//! are; if they do not, one line says what to lower. An engine the arena could not start for
//! want of them would otherwise lose a game it never played (issue 25).
//!
//! The check counts the engines the arena will hold at once, each as the arena holds it
//! (`engine::FILES_PER_ENGINE`, `engine::THREADS_PER_ENGINE`) with its own threads and
//! memory at their least: every player's once while they are checked before the first game,
//! then each worker's seats (a worker keeps the engine of every player it has met, so at most
//! the players, or two a game it plays). What the machine gives to others while the run goes
//! on is not foreseen: an engine that cannot be started then stops the run, with every
//! finished game kept (`Outcome::shortage`).

use crate::engine::{FILES_PER_ENGINE, THREADS_PER_ENGINE};
use crate::settings::EngineConfig;

/// Open files besides the engines': a spawn's pipes while it runs, the results files and
/// report.html as they are written, the runtime's own.
const SPARE_FILES: u64 = 16;

/// The least memory an engine process takes, KiB (the built-in engines: about 5.6 MB
/// resident each), plus its `Hash` option where it has one; and the arena's own per engine
/// (its line queue, a read's lines waiting for room in it, and the line being split).
const ENGINE_KIB: u64 = 6 * 1024;
const ARENA_KIB_PER_ENGINE: u64 = 256;

/// One resource the engines at once draw on.
#[derive(Debug, PartialEq)]
struct Budget {
    /// "open files", "processes and threads", "MB of memory".
    what: &'static str,
    /// What the heaviest engine takes.
    per_engine: u64,
    free: u64,
    /// Where `free` comes from, and how to get more.
    from: String,
}

/// Raises the soft limit of open files to the hard one (if not yet), then checks that `games`
/// games of `engines`, `concurrency` at once, fit what is free; the line to print if not.
pub fn check(engines: &[EngineConfig], concurrency: usize, games: usize) -> Result<(), String> {
    raise_open_files();
    let shape = Shape {
        players: engines.len() as u64,
        games: games as u64,
    };
    let budgets = [files(engines), tasks(engines), memory(engines)];
    match budgets
        .iter()
        .flatten()
        .find_map(|b| refusal(b, shape, concurrency as u64))
    {
        Some(line) => Err(line),
        None => Ok(()),
    }
}

/// The run's players and games.
#[derive(Clone, Copy, Debug)]
struct Shape {
    players: u64,
    games: u64,
}

impl Shape {
    /// The most engines the arena holds at once with `concurrency` workers: every player's
    /// while they are checked, then each worker's seats.
    fn engines(self, concurrency: u64) -> u64 {
        let concurrency = concurrency.clamp(1, self.games.max(1));
        let per_worker = self.games.div_ceil(concurrency);
        let seats = self.players.min(2 * per_worker);
        self.players.max(concurrency * seats)
    }
}

/// The line refusing `concurrency`, if its engines do not fit `budget`.
fn refusal(budget: &Budget, shape: Shape, concurrency: u64) -> Option<String> {
    let need = |c: u64| budget.per_engine.saturating_mul(shape.engines(c));
    if need(concurrency) <= budget.free {
        return None;
    }
    let lower = match (1..concurrency).rev().find(|c| need(*c) <= budget.free) {
        Some(fit) => format!("lower --concurrency to {fit}"),
        None => "not even one game at a time fits".to_string(),
    };
    Some(format!(
        "--concurrency {concurrency}: {engines} engines at once need about {need} {what} ({per} each) and {free} are free ({from}): {lower}",
        engines = shape.engines(concurrency),
        need = need(concurrency),
        what = budget.what,
        per = budget.per_engine,
        free = budget.free,
        from = budget.from,
    ))
}

/// An engine's own threads: its `Threads` option (1 if not given) and its main thread.
fn engine_threads(engine: &EngineConfig) -> u64 {
    option(engine, "Threads").unwrap_or(1).max(1) + 1
}

fn option(engine: &EngineConfig, name: &str) -> Option<u64> {
    engine
        .options
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .and_then(|(_, value)| value.trim().parse().ok())
}

/// What the heaviest engine takes.
fn heaviest(engines: &[EngineConfig], each: impl Fn(&EngineConfig) -> u64) -> u64 {
    engines.iter().map(each).max().unwrap_or(0)
}

/// The arena's open files: the engine's pipes and the `schedstat` of each of its threads.
fn files(engines: &[EngineConfig]) -> Option<Budget> {
    let (soft, hard) = rlimit(libc::RLIMIT_NOFILE)?;
    let open = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
    let per_engine = heaviest(engines, |e| FILES_PER_ENGINE as u64 + engine_threads(e));
    let raise = if soft < hard {
        "the hard limit is higher but could not be raised".to_string()
    } else {
        "the hard limit; only root can raise it".to_string()
    };
    Some(Budget {
        what: "open files",
        per_engine,
        free: soft.saturating_sub(open + SPARE_FILES),
        from: format!(
            "ulimit -n {soft}, {open} open, {SPARE_FILES} kept for the arena's own, {raise}"
        ),
    })
}

/// Processes and threads: the engines' (the arena reads them all with one thread). The user's limit (`ulimit
/// -u`, which root is not held to) and the system's (`kernel.threads-max`).
fn tasks(engines: &[EngineConfig]) -> Option<Budget> {
    let per_engine = heaviest(engines, |e| THREADS_PER_ENGINE as u64 + engine_threads(e));
    let mut budgets = Vec::new();
    let max: Option<u64> = read_number("/proc/sys/kernel/threads-max");
    // The 4th field of /proc/loadavg: "running/existing" tasks of the whole system.
    let loadavg = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let existing = loadavg
        .split_whitespace()
        .nth(3)
        .and_then(|f| f.split('/').nth(1)?.parse::<u64>().ok());
    if let (Some(max), Some(existing)) = (max, existing) {
        budgets.push((
            max.saturating_sub(existing),
            format!("kernel.threads-max {max}, {existing} running"),
        ));
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if let (false, Some((soft, _))) = (root, rlimit(libc::RLIMIT_NPROC)) {
        let mine = user_tasks();
        budgets.push((
            soft.saturating_sub(mine),
            format!("ulimit -u {soft}, {mine} running"),
        ));
    }
    let (free, from) = budgets.into_iter().min_by_key(|(free, _)| *free)?;
    Some(Budget {
        what: "processes and threads",
        per_engine,
        free: free.saturating_sub(SPARE_FILES),
        from: format!("{from}, {SPARE_FILES} kept for the arena's own"),
    })
}

/// Memory, in MB: what the kernel says is available (and the cgroup's room under its limit).
fn memory(engines: &[EngineConfig]) -> Option<Budget> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok()?;
    let available_kib: u64 = meminfo
        .lines()
        .find_map(|l| l.strip_prefix("MemAvailable:"))?
        .split_whitespace()
        .next()?
        .parse()
        .ok()?;
    let mut free = available_kib / 1024;
    let mut from = "MemAvailable".to_string();
    if let Some(room) = cgroup_memory_room() {
        if room < free {
            (free, from) = (room, "the cgroup's memory.max".to_string());
        }
    }
    let per_engine_kib = |e: &EngineConfig| {
        ENGINE_KIB + ARENA_KIB_PER_ENGINE + option(e, "Hash").unwrap_or(0) * 1024
    };
    Some(Budget {
        what: "MB of memory",
        per_engine: heaviest(engines, per_engine_kib).div_ceil(1024),
        free,
        from,
    })
}

/// MB the arena's cgroup (v2) may still take under its `memory.max`, if it has one.
fn cgroup_memory_room() -> Option<u64> {
    let cgroup = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = cgroup.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = std::path::Path::new("/sys/fs/cgroup").join(path.trim_start_matches('/'));
    let max: u64 = read_number(dir.join("memory.max"))?;
    let current: u64 = read_number(dir.join("memory.current"))?;
    Some(max.saturating_sub(current) / (1024 * 1024))
}

fn read_number(path: impl AsRef<std::path::Path>) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// Tasks (processes and their threads) of the arena's real user, as `ulimit -u` counts them.
fn user_tasks() -> u64 {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: getuid has no preconditions.
    let uid = unsafe { libc::getuid() };
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return 0;
    };
    dir.flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter(|e| e.metadata().is_ok_and(|m| m.uid() == uid))
        .map(|e| std::fs::read_dir(e.path().join("task")).map_or(0, |t| t.count() as u64))
        .sum()
}

/// (soft, hard); `None` when unlimited.
fn rlimit(resource: libc::__rlimit_resource_t) -> Option<(u64, u64)> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given.
    if unsafe { libc::getrlimit(resource, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    Some((limit.rlim_cur, limit.rlim_max))
}

/// The soft limit of open files up to the hard one: the default soft limit (often 1,024) is
/// kept low for programs that `select`, which the arena does not.
pub fn raise_open_files() {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit read and write the struct they are given.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = limit.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// A test hook (as `invariants::Tamper`), not a feature: when this variable names a game, the
/// worker about to play it first lowers the arena's limit of open files, soft and hard, to the
/// files it has open, as `prlimit --pid` could from outside; so tests/capacity.rs can watch
/// an engine fail to start mid-run for want of them, exactly.
pub const SQUEEZE_VAR: &str = "BLITZ_ARENA_TEST_SQUEEZE_AT_GAME";

/// The game [`SQUEEZE_VAR`] names, if any.
pub fn squeeze_at() -> Option<u64> {
    std::env::var(SQUEEZE_VAR).ok()?.trim().parse().ok()
}

/// Lowers the limit of open files, soft and hard, to the files open now.
pub fn squeeze_open_files() {
    let open = std::fs::read_dir("/proc/self/fd").map_or(0, |d| d.count()) as u64;
    let limit = libc::rlimit {
        rlim_cur: open,
        rlim_max: open,
    };
    // SAFETY: setrlimit reads the struct it is given.
    unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &limit) };
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(per_engine: u64, free: u64) -> Budget {
        Budget {
            what: "open files",
            per_engine,
            free,
            from: "ulimit -n 1024, 20 open".to_string(),
        }
    }

    const TWO: Shape = Shape {
        players: 2,
        games: 2048,
    };

    #[test]
    fn engines_that_fit_pass_and_others_are_refused_with_what_to_lower() {
        assert_eq!(refusal(&budget(6, 1000), TWO, 83), None);
        assert_eq!(
            refusal(&budget(6, 1000), TWO, 1024).as_deref(),
            Some("--concurrency 1024: 2048 engines at once need about 12288 open files (6 each) and 1000 are free (ulimit -n 1024, 20 open): lower --concurrency to 83")
        );
        assert!(refusal(&budget(6, 11), TWO, 1)
            .unwrap()
            .ends_with(": not even one game at a time fits"));
    }

    #[test]
    fn every_player_is_counted_once_and_each_worker_keeps_the_players_it_meets() {
        let shape = |players, games| Shape { players, games };
        // The check before the first game starts every player at once.
        assert_eq!(shape(9, 16).engines(1), 9);
        // Two players: two engines a worker.
        assert_eq!(TWO.engines(1024), 2048);
        // Ten players, 64 workers of 16 games each: each meets everyone, in time.
        assert_eq!(shape(10, 1024).engines(64), 640);
        // A worker of one game holds two engines; more workers than games do not count.
        assert_eq!(shape(10, 8).engines(8), 16);
        assert_eq!(shape(10, 8).engines(64), 16);
    }

    #[test]
    fn an_engine_counts_its_threads() {
        let engine = |threads: Option<&str>| EngineConfig {
            options: threads
                .map(|t| vec![("threads".to_string(), t.to_string())])
                .unwrap_or_default(),
            ..EngineConfig::builtin("instant")
        };
        let engines = [engine(None), engine(Some("4"))];
        // Pipes and pressure (4), and the schedstat of 4 search threads and the main one.
        assert_eq!(heaviest(&engines, |e| 4 + engine_threads(e)), 4 + 5);
    }
}
