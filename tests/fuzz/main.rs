//! Property tests ("fuzzing" on the stable toolchain) for everything an engine or a user hands
//! the arena: UCI lines, time controls, opening books, engines.toml and the results files.
//!
//! Each property runs `PROPTEST_CASES` inputs (default [`DEFAULT_CASES`], so that the whole
//! suite stays within seconds under `cargo test --release`). The million-input pass is
//! `PROPTEST_CASES=1000000 cargo test --release --test fuzz` (docs/contributing.md).
//! A failure prints the shrunk input; its fix gets a regression unit test beside the code.

#[path = "../common/mod.rs"]
mod common;
mod config;
mod folders;
mod handshake;
mod openings;
mod results;
mod timecontrol;
mod uci;

use proptest::prelude::*;
use proptest::sample::Index;

/// Inputs per property when `PROPTEST_CASES` is not set.
pub const DEFAULT_CASES: u32 = 2000;

/// The proptest settings of every suite: the case budget, and no regression files written
/// into the source tree (regressions become unit tests instead).
pub fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(DEFAULT_CASES);
    ProptestConfig {
        cases,
        failure_persistence: None,
        rng_seed: rng_seed(),
        ..ProptestConfig::default()
    }
}

/// The inputs' seed: fixed, so that a run of the suite (CI's included) is repeatable and a
/// failure can be replayed; `PROPTEST_RNG_SEED=N` explores other inputs (the million-input
/// pass should vary it).
pub fn rng_seed() -> proptest::test_runner::RngSeed {
    let seed = std::env::var("PROPTEST_RNG_SEED")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(0x0b11_72a2);
    proptest::test_runner::RngSeed::Fixed(seed)
}

/// A user-facing error must be one line: no line break of any kind.
pub fn assert_one_line(message: &str) {
    assert!(
        !message.contains(['\n', '\r']),
        "error message is not one line: {message:?}"
    );
}

/// Bytes that tend to break parsers, spliced into real inputs by [`mutated`].
const SPLICES: &[&[u8]] = &[
    b"\n",
    b"\r\n",
    b"\r",
    b"\0",
    b" ",
    b"\t",
    b"\"",
    b"\\n",
    b"\\u0000",
    b"'",
    b",",
    b";",
    b"=",
    b"[",
    b"]",
    b"{",
    b"}",
    b"#",
    b"-",
    b"+",
    b".",
    b"/",
    b"0",
    b"-1",
    b"255",
    b"256",
    b"300",
    b"65536",
    b"2147483648",
    b"-2147483649",
    b"9223372036854775807",
    b"9223372036854775808",
    b"18446744073709551615",
    b"18446744073709551616",
    b"99999999999999999999999999",
    b"1e308",
    b"1e999",
    b"NaN",
    b"inf",
    b"-0",
    b"0.5",
    b"null",
    b"true",
    b"\xef\xbb\xbf",
    b"\xff",
    b"\xc3",
    "é".as_bytes(),
    "½".as_bytes(),
];

/// One edit of a byte string; positions are taken modulo its length at the time.
#[derive(Clone, Debug)]
pub enum Edit {
    Delete(Index, u8),
    Insert(Index, Vec<u8>),
    Splice(Index, Index),
    Overwrite(Index, u8),
    Duplicate(Index, u8),
    Truncate(Index),
}

pub fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<Index>(), 1..16u8).prop_map(|(i, n)| Edit::Delete(i, n)),
        (any::<Index>(), proptest::collection::vec(any::<u8>(), 1..8))
            .prop_map(|(i, b)| Edit::Insert(i, b)),
        (any::<Index>(), any::<Index>()).prop_map(|(i, s)| Edit::Splice(i, s)),
        (any::<Index>(), any::<u8>()).prop_map(|(i, b)| Edit::Overwrite(i, b)),
        (any::<Index>(), 1..64u8).prop_map(|(i, n)| Edit::Duplicate(i, n)),
        any::<Index>().prop_map(Edit::Truncate),
    ]
}

/// Applies edits to a copy of `seed`.
pub fn apply(seed: &[u8], edits: &[Edit]) -> Vec<u8> {
    let mut data = seed.to_vec();
    for e in edits {
        let at = |i: &Index, data: &Vec<u8>| i.index(data.len() + 1);
        match e {
            Edit::Delete(i, n) => {
                let start = at(i, &data);
                let end = (start + usize::from(*n)).min(data.len());
                data.drain(start..end);
            }
            Edit::Insert(i, bytes) => {
                let start = at(i, &data);
                data.splice(start..start, bytes.iter().copied());
            }
            Edit::Splice(i, s) => {
                let start = at(i, &data);
                let bytes = SPLICES[s.index(SPLICES.len())];
                data.splice(start..start, bytes.iter().copied());
            }
            Edit::Overwrite(i, b) => {
                if !data.is_empty() {
                    let k = i.index(data.len());
                    data[k] = *b;
                }
            }
            Edit::Duplicate(i, n) => {
                let start = at(i, &data);
                let end = (start + usize::from(*n)).min(data.len());
                let chunk = data[start..end].to_vec();
                data.splice(end..end, chunk);
            }
            Edit::Truncate(i) => {
                let len = at(i, &data);
                data.truncate(len);
            }
        }
    }
    data
}

/// `seed` with one to `max` random edits: near-valid input.
pub fn mutated(seed: Vec<u8>, max: usize) -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(edit(), 1..=max).prop_map(move |edits| apply(&seed, &edits))
}

/// One of `seeds`, mutated.
pub fn mutated_one_of(seeds: Vec<Vec<u8>>, max: usize) -> impl Strategy<Value = Vec<u8>> {
    (any::<Index>(), proptest::collection::vec(edit(), 1..=max))
        .prop_map(move |(pick, edits)| apply(&seeds[pick.index(seeds.len())], &edits))
}

/// Runs `test` on `config().cases` inputs from `strategy`; a failure (an error or a panic)
/// fails the calling test with the shrunk input.
pub fn check<S: Strategy>(strategy: S, test: impl Fn(S::Value) -> Result<(), TestCaseError>) {
    let mut runner = proptest::test_runner::TestRunner::new(config());
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{e}");
    }
}

/// A scratch folder for one test, removed when dropped.
pub struct Scratch(pub std::path::PathBuf);

impl Scratch {
    pub fn new(label: &str) -> Scratch {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        // A tmpfs when there is one: these tests write a file per input, and on a disk
        // file system rewriting a file costs milliseconds.
        let shm = std::path::Path::new("/dev/shm");
        let base = if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!(
            "blitz-arena-fuzz-{label}-{}-{n}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    pub fn path(&self, name: &str) -> std::path::PathBuf {
        self.0.join(name)
    }

    /// Writes a file afresh (removed first: truncating a file in place can flush it to disk).
    pub fn write(&self, name: &str, bytes: &[u8]) -> std::path::PathBuf {
        let path = self.path(name);
        let _ = std::fs::remove_file(&path);
        std::fs::write(&path, bytes).unwrap();
        path
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
