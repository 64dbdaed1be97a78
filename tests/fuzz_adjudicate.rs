//! `blitz-arena adjudicate` on damaged results: a mutated `events.jsonl` (and `run.json`) is
//! re-ruled under any ruleset, or refused with a one-line error; never a panic.
//!
//! `adjudicate` prints its report on stdout, which the test harness does not capture; so
//! stdout is pointed at /dev/null around each call. This binary holds one test, so nothing
//! else writes to stdout meanwhile. The budget is `PROPTEST_CASES` inputs (default 2000).

use std::fs::File;
use std::os::fd::AsRawFd;

use blitz_arena::app::adjudicate;
use blitz_arena::rules::Ruleset;
use proptest::prelude::*;
use proptest::sample::Index;
use proptest::test_runner::{Config, TestRunner};

const EVENTS: &str = include_str!("fuzz/corpus/results/events.jsonl");
const RUN_JSON: &str = include_str!("fuzz/corpus/results/run.json");

/// Runs `f` with the process's stdout sent to /dev/null.
fn quietly<T>(f: impl FnOnce() -> T) -> T {
    let null = File::create("/dev/null").unwrap();
    // SAFETY: plain fd calls on descriptors this function owns; stdout is restored below.
    let saved = unsafe { libc::dup(1) };
    assert!(saved >= 0);
    unsafe { libc::dup2(null.as_raw_fd(), 1) };
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    unsafe {
        libc::dup2(saved, 1);
        libc::close(saved);
    }
    out.unwrap_or_else(|p| std::panic::resume_unwind(p))
}

/// One edit of a record: a byte changed, a span dropped, or a JSON number made extreme.
fn edit(line: &str, at: Index, kind: u8, value: Index) -> String {
    const EXTREMES: [&str; 7] = [
        "0",
        "-1",
        "9223372036854775807",
        "-9223372036854775808",
        "18446744073709551615",
        "4294967295",
        "-2147483648",
    ];
    let mut bytes = line.as_bytes().to_vec();
    let i = at.index(bytes.len());
    match kind % 3 {
        0 => {
            let table = b"0123456789abcdefghnqrk-\",:{}[]";
            bytes[i] = table[value.index(table.len())];
        }
        1 => {
            let end = (i + value.index(24) + 1).min(bytes.len());
            bytes.drain(i..end);
        }
        _ => {
            // Replace the number that starts at or after `i`, if any.
            if let Some(start) = (i..bytes.len()).find(|&k| {
                bytes[k].is_ascii_digit() && k > 0 && matches!(bytes[k - 1], b':' | b',' | b'[')
            }) {
                let end = (start..bytes.len())
                    .find(|&k| !bytes[k].is_ascii_digit())
                    .unwrap_or(bytes.len());
                let value = EXTREMES[value.index(EXTREMES.len())].as_bytes();
                bytes.splice(start..end, value.iter().copied());
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn adjudicate_rerules_or_refuses_damaged_records_in_one_line() {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(2000);
    // A tmpfs when there is one: two files are written per input.
    let shm = std::path::Path::new("/dev/shm");
    let base = if shm.is_dir() {
        shm.to_path_buf()
    } else {
        std::env::temp_dir()
    };
    let dir = base.join(format!(
        "blitz-arena-fuzz-adjudicate-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let lines: Vec<&str> = EVENTS.lines().collect();
    let strategy = (
        proptest::collection::vec(any::<Index>(), 1..3),
        proptest::collection::vec(
            (any::<Index>(), any::<Index>(), any::<u8>(), any::<Index>()),
            0..4,
        ),
        proptest::option::of((any::<Index>(), any::<u8>(), any::<Index>())),
        any::<Index>(),
    );
    // A fixed seed unless PROPTEST_RNG_SEED says otherwise, as in tests/fuzz: repeatable runs.
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0x0b11_72a2);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed),
        ..Config::default()
    });
    let result = runner.run(&strategy, |(picked, edits, plan_edit, ruleset)| {
        let mut records: Vec<String> = picked
            .iter()
            .map(|i| lines[i.index(lines.len())].to_string())
            .collect();
        for (which, at, kind, value) in edits {
            let k = which.index(records.len());
            if !records[k].is_empty() {
                records[k] = edit(&records[k], at, kind, value);
            }
        }
        let plan = match plan_edit {
            Some((at, kind, value)) => edit(RUN_JSON, at, kind, value),
            None => RUN_JSON.to_string(),
        };
        let events_path = dir.join("events.jsonl");
        let _ = std::fs::remove_file(&events_path);
        std::fs::write(&events_path, records.join("\n") + "\n").unwrap();
        let _ = std::fs::remove_file(dir.join("run.json"));
        std::fs::write(dir.join("run.json"), plan).unwrap();
        let ruleset = Ruleset::ALL[ruleset.index(Ruleset::ALL.len())];
        if let Err(e) = quietly(|| adjudicate(&dir, ruleset)) {
            let message = format!("{e:#}");
            prop_assert!(!message.contains(['\n', '\r']), "{message:?}");
        }
        Ok(())
    });
    let _ = std::fs::remove_dir_all(&dir);
    if let Err(e) = result {
        panic!("{e}");
    }
}
