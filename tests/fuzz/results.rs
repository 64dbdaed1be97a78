//! The results files read back by `--resume`, `merge`, `stats` and `adjudicate`: torn,
//! truncated and mutated `games.csv` and `events.jsonl` give the games they hold or a one-line
//! error, never a panic; a file torn by a kill gives exactly its complete games.

use blitz_arena::event::GameRecord;
use blitz_arena::report::{
    load_records, phase_times, read_rows, reconcile, GameRow, InjectionSummary, Rendered,
    ResultsDir, Summary, EVENTS_JSONL, GAMES_CSV, GAMES_PGN,
};
use proptest::prelude::*;
use proptest::sample::Index;

use super::{assert_one_line, check, mutated, mutated_one_of, Scratch};

/// A real run: 8 games of `gauntlet greedy --vs random,crasher` with illegal-move and
/// flag injection, from a two-game PGN book.
const EVENTS: &str = include_str!("corpus/results/events.jsonl");
const CSV: &str = include_str!("corpus/results/games.csv");
const PGN: &str = include_str!("corpus/results/games.pgn");

fn error_line(e: &anyhow::Error) {
    assert_one_line(&format!("{e:#}"));
}

/// Everything `stats` and the end of a run do with rows read back.
fn use_rows(scratch: &Scratch, rows: &[GameRow]) {
    let summary = Summary::from_rows(rows);
    let _ = summary.to_text();
    summary
        .write_csv(&scratch.path("summary.csv"))
        .expect("summary.csv is written");
}

/// Everything `--resume`, `merge` and the end of a run do with records read back: the
/// summary's phase times, the injection table, and each game rendered again for the files.
fn use_records(records: &[GameRecord]) {
    let rows: Vec<GameRow> = records.iter().map(GameRow::from_record).collect();
    let mut summary = Summary::from_rows(&rows);
    summary.with_phases(&phase_times(records));
    let _ = summary.to_text();
    let _ = InjectionSummary::from_records(records).to_text();
    for record in records {
        if let Ok(rendered) = Rendered::of(record) {
            let settings = blitz_arena::rules::RefereeSettings::default();
            let rules = blitz_arena::invariants::RunRules {
                settings: &settings,
                watchers: &blitz_arena::game::Watchers::default(),
            };
            let _ = blitz_arena::invariants::check(record, &rendered, rules);
        }
    }
}

/// The number of complete lines (newline included) in the first `len` bytes.
fn complete_lines(text: &str, len: usize) -> usize {
    text.as_bytes()[..len]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

// A kill can cut a file at any byte: the torn-file tests try every cut point of a real run's
// games.csv (2,036) and of its first two events.jsonl records (7,400), plus the bytes around
// every line end of the whole events.jsonl, whatever the case budget.

#[test]
fn a_games_csv_torn_anywhere_reads_exactly_its_complete_rows() {
    let scratch = Scratch::new("results-torn-csv");
    let path = scratch.write(GAMES_CSV, CSV.as_bytes());
    let all = read_rows(&path).unwrap();
    assert_eq!(all.len(), 8);
    for len in 0..=CSV.len() {
        scratch.write(GAMES_CSV, &CSV.as_bytes()[..len]);
        let rows = read_rows(&path).unwrap_or_else(|e| panic!("cut at {len}: {e:#}"));
        let complete = complete_lines(CSV, len).saturating_sub(1);
        assert_eq!(rows[..], all[..complete], "cut at {len}");
    }
}

#[test]
fn an_events_jsonl_torn_anywhere_reads_exactly_its_complete_records() {
    let scratch = Scratch::new("results-torn-jsonl");
    let path = scratch.write(EVENTS_JSONL, EVENTS.as_bytes());
    let all = load_records(&path).unwrap();
    assert_eq!(all.len(), 8);
    let two_records = EVENTS.match_indices('\n').nth(1).unwrap().0 + 1;
    let line_ends = EVENTS
        .match_indices('\n')
        .flat_map(|(i, _)| [i - 1, i, i + 1])
        .filter(|&i| i <= EVENTS.len());
    for len in (0..=two_records).chain(line_ends) {
        scratch.write(EVENTS_JSONL, &EVENTS.as_bytes()[..len]);
        let records = load_records(&path).unwrap_or_else(|e| panic!("cut at {len}: {e:#}"));
        // A line cut just before its newline is whole, and is read.
        let whole_last = len < EVENTS.len() && EVENTS.as_bytes()[len] == b'\n';
        let complete = complete_lines(EVENTS, len) + usize::from(whole_last);
        assert_eq!(records[..], all[..complete], "cut at {len}");
    }
}

#[test]
fn a_mutated_games_csv_reads_or_fails_in_one_line() {
    let scratch = Scratch::new("results-mutated-csv");
    let header_and_rows: Vec<Vec<u8>> = {
        let lines: Vec<&str> = CSV.split_inclusive('\n').collect();
        let mut seeds = vec![CSV.as_bytes().to_vec()];
        for row in &lines[1..] {
            seeds.push(format!("{}{row}", lines[0]).into_bytes());
        }
        seeds
    };
    check(mutated_one_of(header_and_rows, 8), |bytes| {
        let path = scratch.write(GAMES_CSV, &bytes);
        match read_rows(&path) {
            Ok(rows) => use_rows(&scratch, &rows),
            Err(e) => error_line(&e),
        }
        Ok(())
    });
}

#[test]
fn a_mutated_events_jsonl_reads_or_fails_in_one_line() {
    let scratch = Scratch::new("results-mutated-jsonl");
    let lines: Vec<Vec<u8>> = EVENTS
        .split_inclusive('\n')
        .map(|l| l.as_bytes().to_vec())
        .collect();
    check(mutated_one_of(lines, 8), |bytes| {
        let path = scratch.write(EVENTS_JSONL, &bytes);
        match load_records(&path) {
            Ok(records) => use_records(&records),
            Err(e) => error_line(&e),
        }
        Ok(())
    });
}

/// Numbers in a record swapped for extreme ones: a record that parses but holds what no
/// run writes (clocks of i64::MIN, a move number of u64::MAX).
#[test]
fn records_with_extreme_numbers_are_used_without_panic() {
    let lines: Vec<&str> = EVENTS.lines().collect();
    let extremes = [
        "0",
        "-1",
        "1",
        "9223372036854775807",
        "-9223372036854775808",
        "18446744073709551615",
        "4294967295",
        "2147483647",
        "-2147483648",
    ];
    check(
        (
            any::<Index>(),
            proptest::collection::vec((any::<Index>(), any::<Index>()), 1..6),
        ),
        |(line, swaps)| {
            let line = lines[line.index(lines.len())];
            // The spans of the numbers in the line.
            let bytes = line.as_bytes();
            let mut spans = Vec::new();
            let mut i = 0;
            while i < bytes.len() {
                if bytes[i].is_ascii_digit()
                    || (bytes[i] == b'-' && i + 1 < bytes.len() && bytes[i + 1].is_ascii_digit())
                {
                    let start = i;
                    i += 1;
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                    // Only JSON numbers, not digits inside strings.
                    if start > 0 && matches!(bytes[start - 1], b':' | b'[' | b',') {
                        spans.push(start..i);
                    }
                } else {
                    i += 1;
                }
            }
            let mut chosen: Vec<(std::ops::Range<usize>, &str)> = swaps
                .iter()
                .map(|(s, v)| {
                    (
                        spans[s.index(spans.len())].clone(),
                        extremes[v.index(extremes.len())],
                    )
                })
                .collect();
            chosen.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
            chosen.dedup_by_key(|(r, _)| r.start);
            let mut text = line.to_string();
            for (range, value) in chosen {
                text.replace_range(range, value);
            }
            if let Ok(record) = serde_json::from_str::<GameRecord>(&text) {
                use_records(&[record]);
            }
            Ok(())
        },
    );
}

/// A results folder an interrupted run left behind: each file cut anywhere, or damaged.
/// Opening it for a resume repairs or refuses it in one line; never a panic.
#[test]
fn a_damaged_results_folder_is_repaired_or_refused_in_one_line() {
    let scratch = Scratch::new("results-folder");
    let file = |text: &'static str| {
        prop_oneof![
            3 => (0..=text.len()).prop_map(move |n| text.as_bytes()[..n].to_vec()),
            1 => mutated(text.as_bytes().to_vec(), 4),
        ]
    };
    check(
        (file(EVENTS), file(PGN), file(CSV)),
        |(events, pgn, csv)| {
            let dir = scratch.path("run");
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            scratch.write(&format!("run/{EVENTS_JSONL}"), &events);
            scratch.write(&format!("run/{GAMES_PGN}"), &pgn);
            scratch.write(&format!("run/{GAMES_CSV}"), &csv);
            let opened = ResultsDir::create(&dir).map(|r| {
                for repair in r.repairs() {
                    assert_one_line(repair);
                }
            });
            if let Err(e) = opened {
                error_line(&e);
                return Ok(());
            }
            match reconcile(&dir, |_| Ok(()), |_, _| ()) {
                Ok(reconciled) => {
                    for repair in &reconciled.repairs {
                        assert_one_line(repair);
                    }
                    // The folder now holds exactly those games, and reads back.
                    let rows =
                        read_rows(&dir).map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
                    let records =
                        load_records(&dir).map_err(|e| TestCaseError::fail(format!("{e:#}")))?;
                    let games: Vec<u64> = records.iter().map(|r| r.game).collect();
                    let row_games: Vec<u64> = rows.iter().map(|r| r.game).collect();
                    prop_assert_eq!(&games, &row_games);
                    let tallied: Vec<u64> = reconciled.tally.rows.iter().map(|r| r.game).collect();
                    prop_assert_eq!(&games, &tallied);
                }
                Err(e) => error_line(&e),
            }
            Ok(())
        },
    );
}
