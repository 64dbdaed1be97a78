//! The overhead harness (`benches/overhead.py`) runs, so it cannot rot: a tiny configuration
//! of each arena-only part, with the real binary. Nothing here is timed; the figures are for
//! people, in docs/performance.md.

use std::process::Command;

mod common;
use common::Scratch;

#[test]
fn the_overhead_harness_runs_and_reports_every_table() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/benches/overhead.py"))
        .args([
            "--quick",
            "--only",
            "instant,sweep,growth,length",
            "--sweep-runs",
            "2",
            "--arena",
        ])
        .arg(env!("CARGO_BIN_EXE_blitz-arena"))
        // Only the arena: a fastchess on the machine is not what this checks.
        .args(["--fastchess", "", "--cutechess", ""])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}\n{err}");
    // The instant comparison: 2 games of the book's first opening, with their plies counted.
    let row = text
        .lines()
        .find(|l| l.starts_with("| blitz-arena | 2 | "))
        .unwrap_or_else(|| panic!("no arena row:\n{text}"));
    let plies: u64 = row.split('|').nth(3).unwrap().trim().parse().unwrap();
    assert!(plies > 0, "{row}");
    assert!(
        text.contains("per move between bestmove and the next go"),
        "{text}"
    );
    // The sweep: two runs at each concurrency, with 0 time losses in games without an
    // injection, then the median and range of their tails.
    assert!(
        text.contains("| concurrency | runs | flag detection, 99th percentile: median (range) |"),
        "{text}"
    );
    for c in [1, 2] {
        let lines = || text.lines().filter(|l| l.starts_with(&format!("| {c} | ")));
        let runs = lines().filter(|l| l.contains(" | 0 | ") && l.ends_with("flag fell |"));
        assert_eq!(runs.count(), 2, "concurrency {c}'s runs:\n{text}");
        let median =
            lines().filter(|l| l.starts_with(&format!("| {c} | 2 | ")) && l.ends_with(") |"));
        assert_eq!(median.count(), 1, "concurrency {c}'s median:\n{text}");
    }
    assert!(text.contains("## growth"), "{text}");
    assert!(text.contains("| 1-50 |"), "{text}");
    // The run length: 4 games then 16, 8 plies each, and the ratio of their CPU a move.
    for (games, plies) in [(4, 32), (16, 128)] {
        assert!(
            text.contains(&format!("| {games} | {plies} | ")),
            "{games} games:\n{text}"
        );
    }
    assert!(text.contains("CPU a move at 16 games over 4: "), "{text}");
}

/// The `ratio` configuration alternates the arena and fastchess on identical games, each going
/// first in every other round, and sums the rounds up; pinned to one CPU (`--pin`), as
/// docs/performance.md's steadiest figures are. The arena's own fastchess command line stands
/// in for fastchess here (the figures are not what this checks).
#[test]
fn the_ratio_alternates_the_tools_on_identical_games() {
    let root = env!("CARGO_MANIFEST_DIR");
    let arena = env!("CARGO_BIN_EXE_blitz-arena");
    let cpu = first_allowed_cpu();
    let out = Command::new("python3")
        .arg(format!("{root}/benches/overhead.py"))
        .args(["--only", "ratio", "--ratio-work", "instant", "--games", "4"])
        .args(["--pin", &cpu])
        .args([
            "--alternations",
            "3",
            "--arena",
            arena,
            "--fastchess",
            arena,
        ])
        .args(["--cutechess", ""])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (round, first) in [(1, "blitz-arena"), (2, "fastchess"), (3, "blitz-arena")] {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {round} | {first} | ")))
            .unwrap_or_else(|| panic!("no round {round}:\n{text}"));
        // The same games: the same plies for both tools.
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!(cells[3], cells[4], "{row}");
        assert!(cells[3].parse::<u32>().unwrap() > 0, "{row}");
    }
    assert!(
        text.contains(&format!(
            "pinned: every measured command and its engines on CPU {cpu}\n"
        )),
        "{text}"
    );
    // CPU time comes in ticks: rounds this short may not have one.
    assert!(
        text.lines().any(|l| l.starts_with("ratio instant: median ")
            || l == "ratio instant: no round was long enough to measure"),
        "{text}"
    );
    // The floor (examples/floor.rs, which `cargo test` builds beside the binary) replays each
    // round's games: its columns are in every row.
    if floor_built() {
        assert!(
            text.contains(" | floor / fastchess | floor with meter / fastchess |"),
            "{text}"
        );
        for round in 1..=3 {
            let row = text
                .lines()
                .find(|l| l.starts_with(&format!("| {round} | ")))
                .unwrap();
            assert_eq!(row.split('|').count(), 13, "{row}");
        }
    } else {
        eprintln!(
            "no {}: the floor columns were not checked",
            floor().display()
        );
    }
}

/// Where `cargo test` builds examples/floor.rs: beside the binary, under `examples/`.
fn floor() -> std::path::PathBuf {
    let arena = std::path::Path::new(env!("CARGO_BIN_EXE_blitz-arena"));
    arena.parent().unwrap().join("examples/floor")
}

fn floor_built() -> bool {
    floor().exists()
}

/// The floor replays recorded games to two engine processes: every ply is answered (it
/// stops with an error on a missing `bestmove`), with and without the CPU meter.
#[test]
fn the_floor_replays_recorded_games() {
    if !floor_built() {
        eprintln!(
            "no {}: cargo build --example floor; skipped",
            floor().display()
        );
        return;
    }
    let s = Scratch::new("floor");
    let games = s.path("games.txt");
    std::fs::write(
        &games,
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\te2e4 e7e5 g1f3 b8c6\n\
         rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\tc7c5 g1f3 d7d6\n",
    )
    .unwrap();
    for meter in [&[][..], &["--meter"][..]] {
        let out = Command::new(floor())
            .arg(&games)
            .args(meter)
            .args(["--", env!("CARGO_BIN_EXE_blitz-arena"), "engine", "instant"])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(text, "floor: 2 games, 7 plies\n");
    }
    // An engine that never answers: the mover's clock runs out and the floor says so.
    let out = Command::new(floor())
        .arg(&games)
        .args(["--tc-ms", "200", "--", "sh", "-c", MUTE])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "floor: no bestmove in time\n"
    );
    // A line that is not a game is refused, with its number.
    let bad = s.write("bad.txt", "startpos e2e4\n");
    let out = Command::new(floor())
        .arg(&bad)
        .args(["--", env!("CARGO_BIN_EXE_blitz-arena"), "engine", "instant"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "floor: {} line 1: want a FEN, a tab, the moves\n",
            bad.display()
        )
    );
}

/// An engine that answers the handshake and never moves.
const MUTE: &str =
    "while read l; do case $l in uci) echo uciok;; isready) echo readyok;; esac; done";

/// The `instructions` configuration (the arena under callgrind) prints its table, with the
/// parts it names found in the profile, the median of two runs and their range, and
/// fastchess's count on the same games beside the arena's (the arena's own fastchess command
/// line stands in for it). Skipped where valgrind is not installed.
#[test]
fn the_instruction_count_names_the_parts_it_finds() {
    let have = |tool: &str| {
        Command::new(tool)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !have("valgrind") {
        eprintln!("valgrind is not installed (apt-get install valgrind): skipped");
        return;
    }
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("python3")
        .arg(format!("{root}/benches/overhead.py"))
        .args([
            "--quick",
            "--only",
            "instructions",
            "--cg-runs",
            "2",
            "--arena",
        ])
        .arg(env!("CARGO_BIN_EXE_blitz-arena"))
        .arg("--fastchess")
        .arg(env!("CARGO_BIN_EXE_blitz-arena"))
        .args(["--cutechess", ""])
        .arg("--floor")
        .arg(floor())
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let count = |label: &str| -> f64 {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {label} | ")))
            .unwrap_or_else(|| panic!("no row {label:?}:\n{text}"));
        // `22.0k`, or with runs' range `22.0k (21.9-22.1k)`: the median.
        let cell = row.rsplit('|').nth(1).unwrap().trim();
        cell.split(' ')
            .next()
            .unwrap()
            .trim_end_matches('k')
            .parse()
            .unwrap()
    };
    assert!(text.contains("; the median of 2 runs"), "{text}");
    // Every part was found (a renamed function would read 0), and is part of the whole.
    let all = count("all of the arena process");
    for part in [
        "&nbsp;&nbsp;the live referee",
        "the engines' output, read and split on the game's thread",
        "the dead-position test (every caller)",
        "&nbsp;&nbsp;its re-rulings under every ruleset",
        "&nbsp;&nbsp;the PGN",
        "&nbsp;&nbsp;the event record (JSON)",
    ] {
        let n = count(part);
        assert!(n > 0.0 && n < all, "{part}: {n}k of {all}k\n{text}");
    }
    assert_eq!(count("blitz-arena"), all, "{text}");
    assert!(count("fastchess") > 0.0, "{text}");
    assert!(
        text.contains("instructions instant: blitz-arena / fastchess "),
        "{text}"
    );
    // The floor replays the arena's games under callgrind, bare and with the CPU meter: each
    // counted, each less than the arena.
    if floor_built() {
        for floor in [count("bare"), count("with the CPU meter")] {
            assert!(0.0 < floor && floor < all, "{text}");
        }
        assert!(text.contains(" a move, the floor "), "{text}");
    } else {
        eprintln!(
            "no {}: the floor's count was not checked",
            floor().display()
        );
    }
}

/// `benches/concurrency.py` runs a level per concurrency and prints what the arena held, or
/// the arena's own line for a level it refuses (here: a concurrency whose engines cannot fit
/// the open files of `ulimit -n 64`).
#[test]
fn the_concurrency_table_has_a_row_per_level() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -n 64 && exec python3 \"$@\"")
        .arg("sh")
        .arg(format!("{root}/benches/concurrency.py"))
        .args(["--levels", "1,2,64", "--min-games", "2", "--arena"])
        .arg(env!("CARGO_BIN_EXE_blitz-arena"))
        .output()
        .expect("sh runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for c in [1, 2] {
        let row = text
            .lines()
            .find(|l| l.starts_with(&format!("| {c} | ")))
            .unwrap_or_else(|| panic!("no row for {c}:\n{text}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        // Games and plies counted, the arena's threads and open files read (their peaks
        // depend on when the samples fell: not checked), nobody lost on time.
        assert_eq!(cells[2], (2 * c).to_string(), "{row}");
        assert!(cells[3].parse::<u32>().unwrap() > 0, "{row}");
        assert!(cells[4].parse::<u32>().unwrap() > 0, "{row}");
        assert!(cells[6].parse::<u32>().unwrap() > 0, "{row}");
        assert_eq!(cells[11], "0", "{row}");
    }
    let refused = text
        .lines()
        .find(|l| l.starts_with("| 64 | refused or failed (exit 2): "))
        .unwrap_or_else(|| panic!("no refusal for 64:\n{text}"));
    assert!(refused.contains("lower --concurrency to"), "{refused}");
}

/// `benches/same_games.py` finds two runs of the same seeded games (benches/seeded.toml's
/// roster, at two games at once) the same, timings aside (the flags' instants in the rulings'
/// text too), and finds runs of other games different.
#[test]
fn same_games_compares_results_modulo_timings() {
    let s = Scratch::new("same-games");
    let roster = format!("{}/benches/seeded.toml", env!("CARGO_MANIFEST_DIR"));
    let run = |out: &str, seed: &str| {
        s.run_ok(&[
            "gauntlet",
            "r1",
            "--vs",
            "r2",
            "--engines",
            &roster,
            "--tc",
            "1s+0s",
            "--games",
            "4",
            "--concurrency",
            "2",
            "--inject-illegal",
            "0.05",
            // Flags whose instants the rulings' `detail` quote, different in every run.
            "--inject-flag",
            "0.5",
            "--seed",
            seed,
            "--out",
            out,
        ]);
    };
    run("a", "5");
    run("b", "5");
    run("c", "6");
    let compare = |x: &str, y: &str| {
        Command::new("python3")
            .arg(format!(
                "{}/benches/same_games.py",
                env!("CARGO_MANIFEST_DIR")
            ))
            .arg(s.path(x))
            .arg(s.path(y))
            .output()
            .expect("python3 runs")
    };
    let same = compare("a", "b");
    let text = String::from_utf8_lossy(&same.stdout);
    assert!(same.status.success(), "{text}");
    assert_eq!(text.matches(": same").count(), 3, "{text}");
    // The same games with every instant a ruling quotes moved: still the same games.
    std::fs::create_dir_all(s.path("moved")).unwrap();
    let mut moved = 0;
    for file in ["games.csv", "events.jsonl", "games.pgn"] {
        let text = std::fs::read_to_string(s.path("a").join(file)).unwrap();
        let at = |t: &str| t.find(" fell at ").map(|i| i + " fell at ".len());
        let mut out = String::new();
        let mut rest = text.as_str();
        while let Some(i) = at(rest) {
            let end = i + rest[i..].find(' ').unwrap();
            out.push_str(&rest[..i]);
            out.push_str("99.999");
            rest = &rest[end..];
            moved += 1;
        }
        out.push_str(rest);
        std::fs::write(s.path("moved").join(file), out).unwrap();
    }
    assert!(moved > 0, "no flag fell in these games");
    let same = compare("a", "moved");
    let text = String::from_utf8_lossy(&same.stdout);
    assert!(same.status.success(), "{text}");
    let other = compare("a", "c");
    let text = String::from_utf8_lossy(&other.stdout);
    assert_eq!(other.status.code(), Some(1), "{text}");
    assert!(text.contains("events.jsonl: DIFFERENT"), "{text}");
}

/// The first CPU this process may run on (`Cpus_allowed_list` of /proc/self/status).
fn first_allowed_cpu() -> String {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .expect("Cpus_allowed_list");
    list.trim()
        .split([',', '-'])
        .next()
        .expect("a CPU")
        .to_string()
}
