//! What fishtest's worker and OpenBench's client do with fastchess's output, applied to the
//! real binary's stdout (shared by tests/compat_output.rs and tests/compat_cli.rs).
//!
//! Their own parsing functions are copied, unchanged and with their commit, into
//! tests/data/managers/ (OpenBench's Client/worker.py `run_and_parse_runner` and
//! `MatchRunner.update_results`, fishtest's worker/games.py `parse_fastchess_output`), and
//! run from there: [`managers`] runs both over a recorded stdout as the clients run them over
//! a live process (tests/data/managers/drive.py); [`parse`] applies fishtest's patterns line by
//! line and OpenBench's `update_results` to every `Finished game` line.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use super::common::{python, Scratch};

/// fishtest, worker/games.py, `pattern_WLD` (official-stockfish/fishtest, commit
/// b8eecff220b562a0dc2c4e68d1fa02521e06d72c).
pub const FISHTEST_WLD: &str =
    r"Games: ([0-9]+), Wins: ([0-9]+), Losses: ([0-9]+), Draws: ([0-9]+), Points: ([0-9.]+) \(";
/// fishtest, worker/games.py, `pattern_ptnml` (same commit).
pub const FISHTEST_PTNML: &str =
    r"Ptnml\(0-2\): \[([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+)\]";

/// Applies fishtest's per-line checks (its regexes and substring tests, passed in as data) and,
/// when given OpenBench's worker.py, OpenBench's own `update_results` to every line.
pub const PARSE: &str = r#"
import ast, json, re, sys
out_path, wld, ptnml, worker = sys.argv[1], re.compile(sys.argv[2]), re.compile(sys.argv[3]), sys.argv[4]
lines = open(out_path, "rb").read().decode("ascii").splitlines()
fish = {"blocks": [], "crashes": 0, "time_losses": 0, "finished_match": None}
got_wld = got_ptnml = None
for i, line in enumerate(lines):
    line = line.strip()
    if "Finished match" in line and fish["finished_match"] is None:
        fish["finished_match"] = i
    if "disconnect" in line or "stall" in line:
        fish["crashes"] += 1
    if "on time" in line or "timeout" in line:
        fish["time_losses"] += 1
    m = wld.search(line)
    if m:
        got_wld = [int(m.group(k)) for k in range(1, 5)] + [float(m.group(5))]
    m = ptnml.search(line)
    if m:
        got_ptnml = [int(m.group(k)) for k in range(1, 6)]
    if got_wld is not None and got_ptnml is not None:
        fish["blocks"].append(got_wld + got_ptnml)
        got_wld = got_ptnml = None
ob = None
if worker:
    tree = ast.parse(open(worker).read())
    runner = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "MatchRunner")
    fn = next(n for n in runner.body if isinstance(n, ast.FunctionDef) and n.name == "update_results")
    fn.decorator_list = []
    scope = {}
    exec(compile(ast.Module(body=[fn], type_ignores=[]), worker, "exec"), scope)
    ob = {"trinomial": [0, 0, 0], "pentanomial": [0, 0, 0, 0, 0], "games": {},
          "crashes": 0, "timelosses": 0, "illegals": 0}
    for line in lines:
        line = line.strip()
        if "Finished game" in line:
            scope["update_results"](ob, line)
print(json.dumps({"fishtest": fish, "openbench": ob}))
"#;

/// The copied functions of both managers, and drive.py that runs them.
pub fn managers_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/managers")
}

/// OpenBench's Client/worker.py, as far as it is copied (tests/data/managers/).
pub fn openbench_worker() -> PathBuf {
    managers_dir().join("openbench_worker.py")
}

#[derive(Debug, serde::Deserialize)]
pub struct Parsed {
    pub fishtest: Fishtest,
    /// Always there (kept an `Option` for the callers written when it could be skipped).
    pub openbench: Option<OpenBench>,
}

#[derive(Debug, serde::Deserialize)]
pub struct Fishtest {
    /// games, wins, losses, draws, points, then the five pentanomial counts.
    pub blocks: Vec<Vec<f64>>,
    pub crashes: u32,
    pub time_losses: u32,
    pub finished_match: Option<usize>,
}

#[derive(Debug, serde::Deserialize)]
pub struct OpenBench {
    pub pentanomial: [u32; 5],
    pub trinomial: [u32; 3],
    pub crashes: u32,
    pub timelosses: u32,
}

pub fn parse(s: &Scratch, stdout: &str) -> Parsed {
    if !python3() {
        panic!("python3 is needed to apply the managers' parsers");
    }
    let out_path = s.write("stdout.txt", stdout);
    let worker = openbench_worker().display().to_string();
    let args = [
        out_path.display().to_string(),
        FISHTEST_WLD.to_string(),
        FISHTEST_PTNML.to_string(),
        worker,
    ];
    serde_json::from_str(&python(PARSE, args)).unwrap()
}

pub fn python3() -> bool {
    Command::new("python3").arg("-V").output().is_ok()
}

/// The first engine's points in a games.csv row.
pub fn points(row: &HashMap<String, String>, engine: &str) -> f64 {
    let white = row["white"] == engine;
    match (row["result"].as_str(), white) {
        ("1-0", true) | ("0-1", false) => 1.0,
        ("1/2-1/2", _) => 0.5,
        _ => 0.0,
    }
}

/// The pentanomial counts (0..=4 half points per pair) of `engine`, from games.csv.
pub fn pentanomial(rows: &[HashMap<String, String>], engine: &str) -> [u32; 5] {
    let mut pairs: HashMap<&str, f64> = HashMap::new();
    for row in rows {
        *pairs.entry(&row["pair"]).or_default() += points(row, engine);
    }
    let mut penta = [0; 5];
    for total in pairs.values() {
        penta[(total * 2.0).round() as usize] += 1;
    }
    penta
}

/// What OpenBench's client counted (its batches summed).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct OpenBenchCounts {
    pub trinomial: [u32; 3],
    pub pentanomial: [u32; 5],
    pub crashes: u32,
    pub timelosses: u32,
    pub illegals: u32,
    pub batches: u32,
}

/// What fishtest's worker made of the output: the stats it would send, how
/// `parse_fastchess_output` ended (`ok`, or the exception it raised), the messages it posted to
/// the run's event log and the CRC32 it read.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct FishtestOutcome {
    pub stats: serde_json::Value,
    pub outcome: String,
    pub posted: Vec<String>,
    pub crc: Option<String>,
}

#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Managers {
    pub openbench: OpenBenchCounts,
    pub fishtest: FishtestOutcome,
}

/// Runs OpenBench's `run_and_parse_runner` and fishtest's `parse_fastchess_output` (the copies
/// in tests/data/managers/) over `stdout` (and `stderr`, which fishtest reads too), `new` and
/// `base` being the engines fishtest's worker names, `games` the games it asked for.
pub fn managers(
    s: &Scratch,
    name: &str,
    stdout: &str,
    stderr: &str,
    (new, base): (&str, &str),
    games: usize,
) -> Managers {
    if !python3() {
        panic!("python3 is needed to run the managers' parsers");
    }
    let out = s.write(&format!("{name}.stdout"), stdout);
    let err = s.write(&format!("{name}.stderr"), stderr);
    let run = Command::new("python3")
        .arg(managers_dir().join("drive.py"))
        .arg(&out)
        .arg(&err)
        .args([new, base, &games.to_string()])
        .output()
        .expect("python3");
    assert!(
        run.status.success(),
        "drive.py: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}
