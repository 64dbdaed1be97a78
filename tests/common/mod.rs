//! Shared helpers for the end-to-end tests: a scratch folder with an engines.toml, the real
//! `blitz-arena` binary, and readers for the files it writes.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

pub const BIN: &str = env!("CARGO_BIN_EXE_blitz-arena");

/// A scratch folder for one test.
pub struct Scratch {
    pub dir: PathBuf,
}

impl Scratch {
    pub fn new(label: &str) -> Scratch {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "blitz-arena-test-{label}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch { dir }
    }

    pub fn write(&self, name: &str, text: &str) -> PathBuf {
        let path = self.dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    /// A `blitz-arena ARGS` command in this folder; every process it starts inherits the
    /// marker, so leftovers can be found.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(BIN);
        command
            .args(args)
            .current_dir(&self.dir)
            .env(MARKER_VAR, self.marker());
        command
    }

    /// Runs `blitz-arena ARGS` in this folder.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().unwrap()
    }

    /// Runs `blitz-arena ARGS` in this folder and asserts that it exited 0.
    #[track_caller]
    pub fn run_ok(&self, args: &[&str]) -> Output {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "blitz-arena {}: {:?}\n{}{}",
            args.join(" "),
            out.status,
            stderr(&out),
            stdout(&out)
        );
        out
    }

    /// Asserts, the moment it is called, that no process started by this test's arena runs
    /// is alive (or a zombie): every engine is gone when the arena has exited.
    #[track_caller]
    pub fn assert_no_engines_left(&self) {
        let left = self.leftovers();
        assert!(left.is_empty(), "engines left running: {left:?}");
    }

    pub fn marker(&self) -> String {
        self.dir.file_name().unwrap().to_string_lossy().into_owned()
    }

    /// Live processes started by this test's arena runs.
    pub fn leftovers(&self) -> Vec<String> {
        processes_with(&format!("{MARKER_VAR}={}", self.marker()))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A failed run as README promises it: exit 1 (an error, not a usage error), one line on
/// stderr that contains `needle`, nothing on stdout.
#[track_caller]
pub fn assert_one_line_error(out: &Output, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(1), "exit 1 expected: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one line, got: {err}");
    assert!(err.contains(needle), "{needle:?} not in: {err}");
    assert_eq!(stdout(out), "", "nothing on stdout");
}

/// A bad command line as README promises it: exit 2, one line on stderr that contains
/// `needle`, nothing on stdout.
#[track_caller]
pub fn assert_usage_error(out: &Output, needle: &str) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(2), "exit 2 expected: {err}");
    assert_eq!(err.trim().lines().count(), 1, "one line, got: {err}");
    assert!(err.contains(needle), "{needle:?} not in: {err}");
    assert_eq!(stdout(out), "", "nothing on stdout");
}

/// The engine that lost a game on time (`flag` or `both-flags` with a winner), if any.
pub fn loser_on_time(row: &HashMap<String, String>) -> Option<&str> {
    if !["flag", "both-flags"].contains(&row["termination"].as_str()) {
        return None;
    }
    match row["result"].as_str() {
        "1-0" => Some(&row["black"]),
        "0-1" => Some(&row["white"]),
        _ => None,
    }
}

/// Whether CI is running the tests (`.ci/run` under `CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether Debian's engines `names` are installed in /usr/games. A test that needs them
/// returns when they are not, saying it skipped; under `CI=true` (where `.ci/run` installs
/// them) a missing engine fails the test instead.
#[track_caller]
pub fn debian_engines(names: &[&str]) -> bool {
    let missing: Vec<_> = names
        .iter()
        .filter(|e| !Path::new(&format!("/usr/games/{e}")).exists())
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        !in_ci(),
        "CI=true but not installed: {missing:?} (.ci/run installs stockfish glaurung toga2)"
    );
    eprintln!("SKIPPED: not installed: {missing:?} (apt-get install stockfish glaurung toga2)");
    false
}

/// Waits until `csv` (relative to the scratch folder) holds at least `n` games.
pub fn wait_for_games(s: &Scratch, csv: &str, n: usize) {
    let start = std::time::Instant::now();
    let lines = || std::fs::read_to_string(s.path(csv)).map_or(0, |t| t.lines().count());
    while lines() < n + 1 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "no games finished"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Every file under `dir` (recursively) with its bytes, to show that a folder did not change.
pub fn folder_contents(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                files.insert(path.clone(), std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// The score of `engine` over `rows` of games.csv (a win 1, a draw 1/2).
pub fn score_of(rows: &[HashMap<String, String>], engine: &str) -> f64 {
    rows.iter()
        .map(|r| {
            match (
                r["result"].as_str(),
                r["white"] == engine,
                r["black"] == engine,
            ) {
                ("1-0", true, _) | ("0-1", _, true) => 1.0,
                ("1/2-1/2", true, _) | ("1/2-1/2", _, true) => 0.5,
                _ => 0.0,
            }
        })
        .sum()
}

/// games.csv as a list of column -> value maps.
pub fn csv_rows(path: &Path) -> Vec<HashMap<String, String>> {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let headers = reader.headers().unwrap().clone();
    reader
        .records()
        .map(|r| {
            let r = r.unwrap();
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// The games of a PGN file, each as (tags, movetext).
pub fn pgn_games(path: &Path) -> Vec<(HashMap<String, String>, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut games = Vec::new();
    let mut tags = HashMap::new();
    let mut movetext = String::new();
    for line in text.lines() {
        // A tag line; a wrapped `[%clk ...]` comment is movetext.
        if let Some(tag) = line.strip_prefix('[').filter(|t| !t.starts_with('%')) {
            if !movetext.is_empty() {
                games.push((std::mem::take(&mut tags), std::mem::take(&mut movetext)));
            }
            let (name, value) = tag.split_once(' ').unwrap();
            let value = value.trim_end_matches(']').trim_matches('"');
            tags.insert(name.to_string(), value.to_string());
        } else if !line.trim().is_empty() {
            movetext.push_str(line);
            movetext.push(' ');
        }
    }
    if !movetext.is_empty() {
        games.push((tags, movetext));
    }
    games
}

const MARKER_VAR: &str = "BLITZ_ARENA_TEST_MARKER";

/// Processes (alive or zombie) whose environment holds `marker`.
pub fn processes_with(marker: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(environ) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if environ
            .split(|&b| b == 0)
            .any(|var| var == marker.as_bytes())
        {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let status = std::fs::read_to_string(entry.path().join("status")).unwrap_or_default();
            let state = status
                .lines()
                .find(|l| l.starts_with("State:"))
                .unwrap_or("")
                .to_string();
            found.push(format!(
                "{}: {} ({state})",
                entry.file_name().to_string_lossy(),
                String::from_utf8_lossy(&cmdline).replace('\0', " ")
            ));
        }
    }
    found
}

/// Whether python-chess is importable (CI installs it).
pub fn python_chess() -> bool {
    Command::new("python3")
        .args(["-c", "import chess.pgn"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// `python3 -c SCRIPT ARGS...`: what it printed. A script that fails fails the test, with
/// what it printed on stderr (an assertion's message).
#[track_caller]
pub fn python<A: AsRef<std::ffi::OsStr>>(
    script: &str,
    args: impl IntoIterator<Item = A>,
) -> String {
    let out = Command::new("python3")
        .args(["-c", script])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    stdout(&out)
}

/// No process started by this test's arena runs is left: asserted the instant the arena has
/// exited, since the arena kills and reaps every engine before it exits.
pub fn assert_no_leftovers(s: &Scratch) {
    let left = s.leftovers();
    assert!(left.is_empty(), "processes left behind: {left:?}");
}

/// How long `side`'s clock ran, in ms, from its first `go` to the fall of its flag in the
/// first game recorded in the results folder `dir`; `None` if it did not fall. games.csv's
/// `SIDE_flag_ms` counts from the game's start, which adds the arena's start-up before that
/// `go` (on no clock, and longer on a loaded machine), so a test of the clock compares this.
pub fn flag_on_clock_ms(dir: &Path, side: blitz_arena::event::Side) -> Option<i64> {
    use blitz_arena::event::Event;
    let records = blitz_arena::report::load_records(dir).unwrap();
    let record = records.first()?;
    let go_us = record.events.iter().find_map(|e| match e {
        Event::Go { t_us, side: s, .. } if *s == side => Some(*t_us),
        _ => None,
    })?;
    Some((record.flag_us(side)? - go_us).div_euclid(1000))
}

/// The small quick run several suites start from: `white` against `vs`, `games` games of at
/// most 8 moves at 10s+0.1s, seed 5, two at once; the caller adds `--out` and the rest.
pub fn quick_gauntlet<'a>(white: &'a str, vs: &'a str, games: &'a str) -> Vec<&'a str> {
    vec![
        "gauntlet",
        white,
        "--vs",
        vs,
        "--games",
        games,
        "--max-moves",
        "8",
        "--tc",
        "10s+0.1s",
        "--seed",
        "5",
        "--concurrency",
        "2",
    ]
}

/// A finished quick run of 4 games, instant against random, in `out` (see [`quick_gauntlet`]).
pub fn finished_folder(s: &Scratch, out: &str) {
    let mut args = quick_gauntlet("instant", "random", "4");
    args.extend(["--out", out]);
    s.run_ok(&args);
}

/// A gauntlet long enough to be caught in the middle (200 games at 1s+0, two at once, into
/// `res/`), for the signal, lock and kill tests; the caller sets its stdio and spawns it.
pub fn long_gauntlet(s: &Scratch, engine: &str, opponent: &str) -> Command {
    s.command(&[
        "gauntlet",
        engine,
        "--vs",
        opponent,
        "--tc",
        "1s+0",
        "--games",
        "200",
        "--concurrency",
        "2",
        "--out",
        "res",
    ])
}

/// Every `.rs` file under `dir`, at any depth, appended to `out`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
