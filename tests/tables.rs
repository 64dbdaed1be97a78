//! What a user reads in the printed tables and in summary.csv: engines in a fixed order, the
//! same numbers in the run's tables, `stats DIR`, `merge` and summary.csv, and words and
//! numbers that say what they mean.

mod common;

use std::collections::HashMap;
use std::path::Path;

use common::*;

/// Seeded engines at a fixed depth: every game is a function of its schedule entry.
const ROSTER: &str = r#"
[engines.minimax]
builtin = "minimax"
[engines.random]
builtin = "random"
options = { Seed = 7 }
[engines.greedy]
builtin = "greedy"
options = { Seed = 11 }
"#;

/// A short seeded gauntlet of `vs` into `out`, with `extra` options.
fn gauntlet(s: &Scratch, vs: &str, out: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "gauntlet",
        "minimax",
        "--vs",
        vs,
        "--tc",
        "60+0",
        "--depth",
        "1",
        "--games",
        "4",
        "--seed",
        "5",
        "--max-moves",
        "25",
        "--concurrency",
        "2",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    s.run_ok(&args)
}

/// The header and rows of a games.csv, each row as column -> value.
fn read_games(path: &Path) -> (Vec<String>, Vec<HashMap<String, String>>) {
    let mut reader = csv::Reader::from_path(path).unwrap();
    let header = reader.headers().unwrap().iter().map(String::from).collect();
    (header, csv_rows(path))
}

fn write_games(path: &Path, header: &[String], rows: &[HashMap<String, String>]) {
    let mut w = csv::Writer::from_path(path).unwrap();
    w.write_record(header).unwrap();
    for row in rows {
        w.write_record(header.iter().map(|h| row[h].as_str()))
            .unwrap();
    }
    w.flush().unwrap();
}

/// The first cell (up to two spaces) of each line of the table titled `title` in `text`.
fn table_names(text: &str, title: &str) -> Vec<String> {
    table_lines(text, title)
        .iter()
        .map(|l| l.split("  ").next().unwrap().trim().to_string())
        .collect()
}

/// The body lines of the table whose title line starts with `title`.
fn table_lines<'a>(text: &'a str, title: &str) -> Vec<&'a str> {
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with(title))
        .skip(2)
        .take_while(|l| !l.trim().is_empty() && l.contains("  "))
        .collect();
    assert!(!lines.is_empty(), "no table {title:?} in:\n{text}");
    lines
}

/// Item 2 of issue 12: a pairing is always seen from the gauntlet's engine (the first named
/// in a round robin), in the order the engines were named, whichever game finished first.
#[test]
fn pairings_keep_the_first_named_engine_first_whatever_finished_first() {
    let s = Scratch::new("tables-order");
    s.write("engines.toml", ROSTER);
    let run = gauntlet(&s, "greedy", "match", &[]);
    let text = stdout(&run);
    assert_eq!(
        table_names(&text, "Pairings"),
        ["minimax vs greedy"],
        "{text}"
    );
    assert_eq!(table_names(&text, "Pentanomial"), ["minimax vs greedy"]);
    assert!(!text.contains("greedy vs minimax"), "{text}");

    // Whatever order the games finished in: here greedy's white games first.
    let (header, mut rows) = read_games(&s.path("match/games.csv"));
    rows.sort_by_key(|r| (r["white"] != "greedy", std::cmp::Reverse(r["game"].clone())));
    write_games(&s.path("shuffled.csv"), &header, &rows);
    let stats = stdout(&s.run_ok(&["stats", "shuffled.csv"]));
    assert_eq!(
        table_names(&stats, "Pairings"),
        ["minimax vs greedy"],
        "{stats}"
    );
    assert_eq!(table_names(&stats, "Pentanomial"), ["minimax vs greedy"]);
    // The folder itself, rows shuffled: the same tables as the run printed.
    write_games(&s.path("match/games.csv"), &header, &rows);
    let stats = stdout(&s.run_ok(&["stats", "match"]));
    assert!(text.starts_with(&stats), "run:\n{text}\nstats:\n{stats}");

    // A round robin: in the order named, each pairing from its first-named engine.
    let rr = s.run_ok(&[
        "round-robin",
        "random",
        "greedy",
        "minimax",
        "--tc",
        "60+0",
        "--depth",
        "1",
        "--games",
        "2",
        "--seed",
        "5",
        "--max-moves",
        "20",
        "--out",
        "rr",
    ]);
    let expected = ["random vs greedy", "random vs minimax", "greedy vs minimax"];
    assert_eq!(table_names(&stdout(&rr), "Pairings"), expected);
    let (header, mut rows) = read_games(&s.path("rr/games.csv"));
    rows.reverse();
    write_games(&s.path("rr.csv"), &header, &rows);
    let stats = stdout(&s.run_ok(&["stats", "rr.csv"]));
    assert_eq!(table_names(&stats, "Pairings"), expected, "{stats}");
    assert_eq!(table_names(&stats, "Pentanomial"), expected, "{stats}");
    let pairings: Vec<(String, String)> = csv_rows(&s.path("rr/summary.csv"))
        .into_iter()
        .filter(|r| r["kind"] == "pairing")
        .map(|r| (r["engine"].clone(), r["opponent"].clone()))
        .collect();
    let pairings: Vec<String> = pairings
        .iter()
        .map(|(a, b)| format!("{a} vs {b}"))
        .collect();
    assert_eq!(pairings, expected);
}

/// Item 3 of issue 12: `stats DIR` prints the tables the run printed (think time by phase
/// included), `merge` too, and summary.csv holds the numbers of the printed tables, a row per
/// engine and a row per pairing.
#[test]
fn stats_merge_and_summary_csv_hold_what_the_run_printed() {
    let s = Scratch::new("tables-same");
    s.write("engines.toml", ROSTER);
    let run = stdout(&gauntlet(&s, "greedy,random", "whole", &[]));
    assert!(run.contains("Think time per move by phase"), "{run}");
    let stats = stdout(&s.run_ok(&["stats", "whole"]));
    assert!(run.starts_with(&stats), "run:\n{run}\nstats:\n{stats}");

    let csv = csv_rows(&s.path("whole/summary.csv"));
    let engines: Vec<&HashMap<String, String>> =
        csv.iter().filter(|r| r["kind"] == "engine").collect();
    let pairings: Vec<&HashMap<String, String>> =
        csv.iter().filter(|r| r["kind"] == "pairing").collect();
    assert_eq!((engines.len(), pairings.len()), (3, 2), "{csv:?}");
    // Standings: # Engine Games W D L Points.
    for (line, row) in table_lines(&run, "Standings").iter().zip(&engines) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        let want = [&row["rank"], &row["engine"], &row["games"], &row["wins"]];
        assert_eq!(cells[..4], want.map(String::as_str), "{line}");
        assert_eq!(
            cells[4..7],
            [&row["draws"], &row["losses"], &row["points"]].map(String::as_str)
        );
        assert!(!row["opening_ms_per_move"].is_empty(), "{row:?}");
    }
    // Pairings: A vs B Games W D L Points.
    for (line, row) in table_lines(&run, "Pairings").iter().zip(&pairings) {
        let cells: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(
            cells[..3],
            [row["engine"].as_str(), "vs", row["opponent"].as_str()]
        );
        let want = ["games", "wins", "draws", "losses", "points"].map(|c| row[c].as_str());
        assert_eq!(cells[3..8], want, "{line}");
    }
    // Pentanomial: A vs B [LL, LD, DD+WL, WD, WW] Pairs.
    for (line, row) in table_lines(&run, "Pentanomial").iter().zip(&pairings) {
        let counts = [
            "penta_ll",
            "penta_ld",
            "penta_dd_wl",
            "penta_wd",
            "penta_ww",
        ]
        .map(|c| row[c].as_str())
        .join(", ");
        let want = format!("[{counts}]  ");
        assert!(line.contains(&want), "{line} does not hold {want}");
        let pairs = line
            .split(']')
            .nth(1)
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap();
        assert_eq!(pairs, row["penta_pairs"]);
    }

    // Shards merged: the merged folder's tables are those `stats` prints of it, and its
    // summary.csv has the think times by phase.
    for k in ["1/2", "2/2"] {
        let out = format!("shard{}", &k[..1]);
        gauntlet(&s, "greedy,random", &out, &["--shard", k]);
    }
    let merged = stdout(&s.run_ok(&["merge", "shard1", "shard2", "--out", "merged"]));
    let stats = stdout(&s.run_ok(&["stats", "merged"]));
    assert!(
        merged.starts_with(&stats),
        "merge:\n{merged}\nstats:\n{stats}"
    );
    assert!(stats.contains("Think time per move by phase"), "{stats}");
    for row in csv_rows(&s.path("merged/summary.csv")) {
        if row["kind"] == "engine" {
            assert!(!row["opening_ms_per_move"].is_empty(), "{row:?}");
        }
    }
}

/// Item 9 of issue 12: the injection table counts games in its `Rulings (games)` column.
#[test]
fn the_rulings_column_counts_games() {
    let s = Scratch::new("tables-rulings");
    s.write("engines.toml", ROSTER);
    let out = stdout(&gauntlet(
        &s,
        "greedy",
        "res",
        &["--inject-illegal", "0.2", "--illegal-kinds", "no-move"],
    ));
    let rows = csv_rows(&s.path("res/games.csv"));
    let touched = rows.iter().filter(|r| !r["injected"].is_empty()).count();
    let injected: usize = rows
        .iter()
        .map(|r| r["injected"].split("; ").filter(|i| !i.is_empty()).count())
        .sum();
    assert!(injected > touched, "some game has two injections: {rows:?}");
    let lines = table_lines(&out, "Injections");
    let header = out.lines().find(|l| l.starts_with("Ruleset")).unwrap();
    assert!(header.contains("Count  Games  Rulings (games)"), "{header}");
    let cells: Vec<&str> = lines[0].split_whitespace().collect();
    assert_eq!(cells[..2], ["fide", "illegal:no-move"], "{out}");
    assert_eq!(cells[2], injected.to_string(), "{out}");
    assert_eq!(cells[3], touched.to_string(), "{out}");
    // The rulings add up to the games. A citation may hold ", " itself (FIDE A4.2, 7.5.5):
    // each ruling ends with its count after the parenthesis.
    let ruled: usize = lines[0]
        .split(") ")
        .skip(1)
        .map(|r| {
            r.split(',')
                .next()
                .unwrap()
                .trim()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(ruled, touched, "{out}");
}

/// A games.csv of `pairs` pairs between `a` and `b` made from a real row, each pair scored by
/// `a` as the two results given (1, 0.5 or 0 points each).
fn synthetic(
    template: &HashMap<String, String>,
    start_pair: u64,
    a: &str,
    b: &str,
    pairs: &[(f64, f64)],
) -> Vec<HashMap<String, String>> {
    let mut rows = Vec::new();
    for (i, (first, second)) in pairs.iter().enumerate() {
        let pair = start_pair + i as u64;
        for (k, points) in [(0, first), (1, second)] {
            let mut row = template.clone();
            let (white, black) = if k == 0 { (a, b) } else { (b, a) };
            let white_points = if k == 0 { *points } else { 1.0 - points };
            row.insert("game".into(), (2 * pair - 1 + k).to_string());
            row.insert("pair".into(), pair.to_string());
            row.insert("white".into(), white.into());
            row.insert("black".into(), black.into());
            let (result, termination) = match white_points {
                1.0 => ("1-0", "checkmate"),
                0.0 => ("0-1", "checkmate"),
                _ => ("1/2-1/2", "threefold"),
            };
            row.insert("result".into(), result.into());
            row.insert("termination".into(), termination.into());
            rows.push(row);
        }
    }
    rows
}

/// Item 9 of issue 12: no `-0.0` Elo, no `± 0.0` or `[+0.0, +0.0]` where the sample has no
/// spread (the cell says so: there is no interval), `1 draw`, and one rule for a likelihood
/// of superiority near certainty.
#[test]
fn numbers_and_words_say_what_they_mean() {
    let s = Scratch::new("tables-words");
    s.write("engines.toml", ROSTER);
    gauntlet(&s, "greedy", "res", &[]);
    let (header, rows) = read_games(&s.path("res/games.csv"));
    let template = &rows[0];

    // Every game drawn: Elo 0, and no interval (every pair scored the same).
    let draws = synthetic(template, 1, "alpha", "beta", &[(0.5, 0.5), (0.5, 0.5)]);
    write_games(&s.path("draws.csv"), &header, &draws);
    let text = stdout(&s.run_ok(&["stats", "draws.csv"]));
    assert!(!text.contains("-0.0"), "{text}");
    assert!(
        !text.contains("± 0.0") && !text.contains("+0.0, +0.0"),
        "{text}"
    );
    assert!(text.contains("0.0 ± n/a (no spread)"), "{text}");
    assert!(text.contains("  0.0  n/a (no spread)  50.00%"), "{text}");
    assert!(
        text.contains("4 games: 0 white wins, 0 black wins, 4 draws"),
        "{text}"
    );

    // One drawn game: singular words.
    write_games(&s.path("one.csv"), &header, &draws[..1]);
    let text = stdout(&s.run_ok(&["stats", "one.csv"]));
    assert!(
        text.contains("1 game: 0 white wins, 0 black wins, 1 draw\n"),
        "{text}"
    );
    assert!(!text.contains("-0.0"), "{text}");

    // Near-certain superiority: a near sweep says >99.99%; a clean one has no spread, so its
    // pentanomial LOS cannot be estimated and says so (issue 26 item 8), never 100 %.
    let mut rows = synthetic(template, 1, "hero", "opp1", &[(1.0, 1.0); 15]);
    let mut near = vec![(1.0, 1.0); 14];
    near.push((1.0, 0.5));
    rows.extend(synthetic(template, 16, "hero", "opp2", &near));
    write_games(&s.path("sweep.csv"), &header, &rows);
    let text = stdout(&s.run_ok(&["stats", "sweep.csv"]));
    let penta = table_lines(&text, "Pentanomial");
    assert!(penta[1].ends_with(">99.99%"), "{text}");
    assert!(
        penta[0].ends_with("n/a (no spread)  n/a (no spread)"),
        "{text}"
    );
    assert!(
        !text.contains("100.00%") && !text.contains(" 0.00%"),
        "{text}"
    );
}

/// Item 9 of issue 12: the LLR the run stopped at (printed on stderr as games finish) and the
/// summary's LLR (over every finished game, those in progress at the stop included) are each
/// labelled, so a user sees why they differ.
#[test]
fn the_sprt_stop_and_the_summary_name_their_llrs() {
    let s = Scratch::new("tables-sprt");
    s.write("engines.toml", ROSTER);
    let run = s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "random",
        "--tc",
        "60+0",
        "--depth",
        "1",
        "--max-moves",
        "40",
        "--games",
        "400",
        "--sprt",
        "elo0=0,elo1=200,alpha=0.2,beta=0.2",
        "--seed",
        "3",
        "--concurrency",
        "2",
        "--out",
        "res",
    ]);
    let (out, err) = (stdout(&run), stderr(&run));
    let played = csv_rows(&s.path("res/games.csv")).len();
    // The last LLR on the progress lines is where the test stopped.
    let progress: Vec<&str> = err.lines().filter(|l| l.contains("LLR ")).collect();
    let stop_line = progress
        .iter()
        .find(|l| {
            let llr: f64 = l
                .split("LLR ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
                .parse()
                .unwrap();
            llr.abs() >= 1.39
        })
        .unwrap_or_else(|| panic!("no bound crossed: {err}"));
    let stop_llr = stop_line
        .split("LLR ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    let stop_games: usize = stop_line
        .split("game ")
        .nth(1)
        .unwrap()
        .split('/')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let summary_llr = out
        .split("\nLLR ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert!(
        out.contains(&format!(
            "H1 accepted at LLR {stop_llr} after {stop_games} games"
        )),
        "stop at {stop_llr} after {stop_games}:\n{out}"
    );
    assert!(
        out.contains(&format!("LLR {summary_llr} over {played} games")),
        "{out}"
    );
    if stop_games < played {
        let more = played - stop_games;
        assert!(
            out.contains(&format!(
                "{more} game{} in progress",
                if more == 1 { "" } else { "s" }
            )),
            "{out}"
        );
    }
}
