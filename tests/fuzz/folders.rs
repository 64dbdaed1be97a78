//! Hostile results folders (issue 24), through the real binary: one of a resumable run's
//! `games.csv`, `events.jsonl` or `run.json` truncated, mutated byte-wise, or replaced by a
//! symbolic link, a FIFO, a directory or a hard link to a file outside the folder, then read
//! by `stats`, `report`, `adjudicate` or `--resume`. Each command ends (a FIFO is never waited
//! on), never panics, never shows what a link points to, and either succeeds or exits
//! non-zero with one line that names the file; a refused command leaves the folder's bytes as
//! they were, and nothing outside the folder is written.
//!
//! Each case runs the binary (a resume plays its one game left), so the case count is small
//! ([`CASES`]); the `--ignored` twin tries many more.

use std::collections::BTreeMap;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use proptest::prelude::*;
use proptest::sample::Index;

use super::{apply, edit, Edit, Scratch};

const BIN: &str = env!("CARGO_BIN_EXE_blitz-arena");
/// Cases in the main suite.
const CASES: u32 = 24;
/// What a link points to: never to be shown.
const SECRET: &[u8] = b"SECRET-LINE,1,2\n{\"SECRET\":1}\n";
const FILES: [&str; 3] = ["games.csv", "events.jsonl", "run.json"];

/// What becomes of the file.
#[derive(Clone, Debug)]
enum Hazard {
    Truncate(Index),
    Mutate(Vec<Edit>),
    /// A symbolic link to the secret file, or to nothing.
    Symlink {
        dangling: bool,
    },
    Fifo,
    Directory,
    /// A hard link to the secret file.
    HardLink,
}

fn hazard() -> impl Strategy<Value = Hazard> {
    prop_oneof![
        1 => any::<Index>().prop_map(Hazard::Truncate),
        2 => proptest::collection::vec(edit(), 1..4).prop_map(Hazard::Mutate),
        1 => any::<bool>().prop_map(|dangling| Hazard::Symlink { dangling }),
        1 => Just(Hazard::Fifo),
        1 => Just(Hazard::Directory),
        1 => Just(Hazard::HardLink),
    ]
}

const COMMANDS: [&[&str]; 4] = [
    &["stats", "out"],
    &["report", "out"],
    &["adjudicate", "out", "--ruleset", "uscf"],
    &["gauntlet", "instant", "--vs", "random", "--resume", "out"],
];

/// The files of a finished run of 4 games, its last game taken out of `games.csv` (as if
/// killed), so that `--resume` has one game to play.
fn resumable() -> &'static BTreeMap<String, Vec<u8>> {
    static FOLDER: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    FOLDER.get_or_init(|| {
        let scratch = crate::common::Scratch::new("folders-template");
        crate::common::finished_folder(&scratch, "out");
        let mut files = BTreeMap::new();
        for name in ["games.csv", "events.jsonl", "games.pgn", "run.json"] {
            files.insert(
                name.to_string(),
                std::fs::read(scratch.path("out").join(name)).unwrap(),
            );
        }
        let csv = files.get_mut("games.csv").unwrap();
        let cut = csv[..csv.len() - 1]
            .iter()
            .rposition(|&b| b == b'\n')
            .unwrap()
            + 1;
        csv.truncate(cut);
        files
    })
}

/// Every entry under `dir`: its kind, and a plain file's bytes (a FIFO is never opened).
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, (String, Vec<u8>)> {
    let mut entries = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap().flatten() {
            let path = entry.path();
            let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
            let seen = if kind.is_dir() {
                pending.push(path.clone());
                ("dir".to_string(), Vec::new())
            } else if kind.is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                (
                    "link".to_string(),
                    target.into_os_string().into_encoded_bytes(),
                )
            } else if kind.is_fifo() {
                ("fifo".to_string(), Vec::new())
            } else {
                ("file".to_string(), std::fs::read(&path).unwrap())
            };
            entries.insert(path, seen);
        }
    }
    entries
}

/// Runs the binary in `dir`, failing the case if it has not ended within 30 s (a hang).
fn run_bounded(dir: &Path, args: &[&str]) -> Result<Output, TestCaseError> {
    let mut child = Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            let _ = child.wait();
            return Err(TestCaseError::fail(format!(
                "blitz-arena {}: still running after 30 s",
                args.join(" ")
            )));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(child.wait_with_output().unwrap())
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
}

/// Lays out the folder in `scratch/out` with `file` made hostile; returns the secret file.
fn lay_out(scratch: &Scratch, file: &str, hazard: &Hazard) -> PathBuf {
    let secret = scratch.write("secret", SECRET);
    let dir = scratch.path("out");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in resumable() {
        if name != file {
            std::fs::write(dir.join(name), bytes).unwrap();
        }
    }
    let path = dir.join(file);
    let bytes = &resumable()[file];
    match hazard {
        Hazard::Truncate(at) => std::fs::write(&path, &bytes[..at.index(bytes.len() + 1)]).unwrap(),
        Hazard::Mutate(edits) => std::fs::write(&path, apply(bytes, edits)).unwrap(),
        Hazard::Symlink { dangling: false } => std::os::unix::fs::symlink(&secret, &path).unwrap(),
        Hazard::Symlink { dangling: true } => {
            std::os::unix::fs::symlink(scratch.path("nowhere"), &path).unwrap()
        }
        Hazard::Fifo => mkfifo(&path),
        Hazard::Directory => std::fs::create_dir(&path).unwrap(),
        Hazard::HardLink => std::fs::hard_link(&secret, &path).unwrap(),
    }
    secret
}

fn hostile_folders(cases: u32) {
    let strategy = (0..FILES.len(), hazard(), 0..COMMANDS.len());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: super::rng_seed(),
        ..ProptestConfig::default()
    });
    let outcome = runner.run(&strategy, |(file, hazard, command)| {
        let (file, args) = (FILES[file], COMMANDS[command]);
        let scratch = Scratch::new("folders");
        let secret = lay_out(&scratch, file, &hazard);
        let before = snapshot(&scratch.0);
        let out = run_bounded(&scratch.0, args)?;
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        prop_assert!(!stderr.contains("panicked"), "{stderr}");
        if matches!(hazard, Hazard::Symlink { .. }) {
            // A hard link's bytes are the folder file's own; a symbolic link's are not.
            prop_assert!(!stdout.contains("SECRET") && !stderr.contains("SECRET"));
        }
        prop_assert_eq!(
            std::fs::read(&secret).unwrap(),
            SECRET,
            "the file outside was written"
        );
        let plain = matches!(
            hazard,
            Hazard::Truncate(_) | Hazard::Mutate(_) | Hazard::HardLink
        );
        if out.status.success() {
            // What cannot be read is never taken for a missing or empty file (adjudicate
            // reads no games.csv; stats and report need no plan).
            let unread = (file == "games.csv" && args[0] == "adjudicate")
                || (file == "run.json" && ["stats", "report"].contains(&args[0]));
            prop_assert!(
                plain || unread,
                "{file} as {hazard:?} was accepted: {stderr}"
            );
            return Ok(());
        }
        prop_assert_eq!(out.status.code(), Some(1), "{}", stderr);
        // One line says why; warnings of what was repaired or dropped on the way may precede it.
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.starts_with("warning: "))
            .collect();
        prop_assert_eq!(errors.len(), 1, "one line: {}", stderr);
        let line = errors[0];
        // A games.csv cut to nothing holds no game: the folder is named for holding none.
        let empty = plain && line.ends_with("no games in out");
        prop_assert!(line.contains(file) || empty, "{file} not named: {line}");
        let mut after = snapshot(&scratch.0);
        let mut before = before;
        for entries in [&mut before, &mut after] {
            entries.retain(|p, _| !p.ends_with("run.lock"));
        }
        prop_assert!(before == after, "a refused {} changed the folder", args[0]);
        Ok(())
    });
    if let Err(e) = outcome {
        panic!("{e} (seed: PROPTEST_RNG_SEED={:?})", super::rng_seed());
    }
}

#[test]
fn hostile_results_folders_are_read_or_refused_in_one_line_naming_the_file() {
    hostile_folders(CASES);
}

#[test]
#[ignore = "runs the binary on every case: run on its own"]
fn hostile_results_folders_are_read_or_refused_in_one_line_naming_the_file_many() {
    hostile_folders(600);
}
