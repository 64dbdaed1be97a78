//! The command line as README and docs/options.md write it: every command form runs; every
//! numeric option has a range that `--help` and docs/options.md show and that is enforced with
//! one line and exit code 2; a bad `[run]` value is a config error with its file:line; UCI
//! option values are checked against what the engine declares; the `faulty` example runs as
//! docs/engines.md shows it.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use blitz_arena::settings::limits;
use common::*;

const README: &str = include_str!("../README.md");
/// The options reference, which holds the table of every option with its range.
const OPTIONS: &str = include_str!("../docs/options.md");
const ENGINES: &str = include_str!("../docs/engines.md");

const BUILTINS: &str = r#"
[engines.instant]
builtin = "instant"
[engines.random]
builtin = "random"
[engines.greedy]
builtin = "greedy"
"#;

/// The arguments of a command README or docs/ show, checked to be there word for word.
fn readme_command(line: &str) -> Vec<&str> {
    assert!(
        [README, OPTIONS, ENGINES].iter().any(|p| p.contains(line)),
        "neither README nor docs/ shows: {line}"
    );
    line.strip_prefix("blitz-arena ")
        .expect("a blitz-arena command")
        .split_whitespace()
        .collect()
}

fn assert_ok(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        stderr(out)
    );
}

/// Exit code `code` and exactly one line on stderr that contains every needle.
fn assert_one_line(out: &Output, code: i32, needles: &[&str]) {
    let err = stderr(out);
    assert_eq!(out.status.code(), Some(code), "{err}");
    assert_eq!(err.trim().lines().count(), 1, "one line, got: {err}");
    for needle in needles {
        assert!(err.contains(needle), "{needle:?} not in: {err}");
    }
}

/// The single results folder a run without `--out` left under `results/`.
fn only_results_folder(s: &Scratch) -> std::path::PathBuf {
    let folders: Vec<_> = std::fs::read_dir(s.path("results"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders[0].clone()
}

#[test]
fn round_robin_runs_as_readme_writes_it() {
    let s = Scratch::new("round-robin");
    s.write("engines.toml", BUILTINS);
    let out = s.run(&readme_command(
        "blitz-arena round-robin instant greedy random --tc 10s+0.1s --games 2 --max-moves 20",
    ));
    assert_ok(&out);
    let dir = only_results_folder(&s);
    assert!(dir.to_string_lossy().ends_with("-round-robin"), "{dir:?}");
    let rows = csv_rows(&dir.join("games.csv"));
    assert_eq!(rows.len(), 6, "three pairings, two games each");
    // Every pair of engines met twice, once with each colour.
    let mut colours: BTreeMap<(String, String), usize> = BTreeMap::new();
    for row in &rows {
        *colours
            .entry((row["white"].clone(), row["black"].clone()))
            .or_default() += 1;
    }
    for (a, b) in [
        ("instant", "greedy"),
        ("instant", "random"),
        ("greedy", "random"),
    ] {
        assert_eq!(colours.get(&(a.into(), b.into())), Some(&1), "{colours:?}");
        assert_eq!(colours.get(&(b.into(), a.into())), Some(&1), "{colours:?}");
    }
    let text = stdout(&out);
    for engine in ["instant", "greedy", "random"] {
        assert!(text.contains(engine), "standings without {engine}: {text}");
    }
    assert!(text.contains("invariants: held in all 6 games"), "{text}");
    assert!(dir.join("summary.csv").exists());
}

/// Issue 26 item 3: the built-in engines answer to their names in a folder with no
/// engines.toml, as README's set-up runs them after `cargo install`; a roster matters only for
/// a name it would define, and then the one-line error names the option that points at one.
#[test]
fn the_built_in_engines_play_in_a_folder_without_a_roster() {
    let s = Scratch::new("no-roster");
    assert!(!s.path("engines.toml").exists());
    let out = s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "greedy,random",
        "--tc",
        "10s+0.1s",
        "--games",
        "2",
        "--max-moves",
        "5",
        "--depth",
        "2",
        "--out",
        "res",
    ]);
    assert!(
        stdout(&out).contains("invariants: held in all 4 games"),
        "{}",
        stdout(&out)
    );
    assert_eq!(csv_rows(&s.path("res/games.csv")).len(), 4);
    let check = s.run_ok(&["check", "minimax", "instant"]);
    for name in ["minimax", "instant"] {
        assert!(
            stdout(&check).contains(&format!("{name}: ok")),
            "{}",
            stdout(&check)
        );
    }
    // A name only a roster could define: one line saying how to name the roster, exit 2.
    let missing = s.run(&["gauntlet", "stockfish", "--vs", "greedy"]);
    assert_one_line(
        &missing,
        2,
        &[
            "unknown engine `stockfish`",
            "engines.toml not found",
            "--engines FILE",
        ],
    );
    let check = s.run(&["check"]);
    assert_one_line(&check, 1, &["engines.toml: cannot read", "--engines FILE"]);
    // A roster the user names must be there, built-in engines or not.
    let named = s.run(&[
        "gauntlet",
        "minimax",
        "--vs",
        "greedy",
        "--engines",
        "mine.toml",
    ]);
    assert_one_line(&named, 1, &["mine.toml: cannot read"]);
    // Beside a roster: its tables win, and the built-in names it does not define still play.
    s.write(
        "engines.toml",
        "[engines.greedy]\nbuiltin = \"faulty\"\nargs = [\"--crash-after\", \"0\"]\n",
    );
    s.run_ok(&[
        "gauntlet", "minimax", "--vs", "greedy", "--games", "2", "--out", "roster",
    ]);
    for row in csv_rows(&s.path("roster/games.csv")) {
        assert_eq!(row["termination"], "engine-crash", "{row:?}");
    }
    assert!(!s.path("results").exists());
    assert!(s.leftovers().is_empty(), "{:?}", s.leftovers());
}

/// Issue 26 item 9: a negative number or an `m:ss` time control, and a mistyped UCI option, are one
/// line that says what to write instead.
#[test]
fn a_mistyped_value_gets_one_line_saying_what_to_write() {
    let s = Scratch::new("typos");
    s.write(
        "engines.toml",
        "[engines.mm]\nbuiltin = \"minimax\"\noptions = { Hsh = 16 }\n\
         [engines.far]\nbuiltin = \"minimax\"\noptions = { Contempt = 1 }\n",
    );
    let tc = |value: &str| s.run(&["gauntlet", "minimax", "--vs", "greedy", "--tc", value]);
    assert_one_line(
        &tc("-1"),
        2,
        &["--tc", "times must be zero or positive", "5+0, 3+2"],
    );
    assert_one_line(
        &tc("5:00"),
        2,
        &["--tc", "5 minutes is 5+0 or 5m", "G/5;d2"],
    );
    // Every numeric option: its own range, never clap's `-- -1` (which would not set it).
    for (option, range) in [
        ("--games", "from 1 to 1000000"),
        ("--concurrency", "from 1 to 1024"),
        ("--max-moves", "from 1 to 10000"),
        ("--seed", "from 0 to"),
    ] {
        let out = s.run(&["gauntlet", "minimax", "--vs", "greedy", option, "-1"]);
        assert_one_line(&out, 2, &[option, "-1 is out of range", range]);
        assert!(!stderr(&out).contains("-- -1"), "{}", stderr(&out));
    }
    let near = s.run(&["gauntlet", "mm", "--vs", "greedy", "--games", "2"]);
    assert_one_line(
        &near,
        1,
        &[r#"engines.toml:3:13: engine mm has no UCI option "Hsh": did you mean "Hash"?"#],
    );
    let far = s.run(&["gauntlet", "far", "--vs", "greedy", "--games", "2"]);
    assert_one_line(
        &far,
        1,
        &[
            r#"engines.toml:6:13: engine far has no UCI option "Contempt" (`blitz-arena check far` lists the"#,
        ],
    );
    if debian_engines(&["stockfish"]) {
        s.write(
            "engines.toml",
            "[engines.sf]\ncmd = \"/usr/games/stockfish\"\noptions = { Thread = 1 }\n",
        );
        let sf = s.run(&["gauntlet", "sf", "--vs", "greedy", "--games", "2"]);
        assert_one_line(
            &sf,
            1,
            &["engines.toml:3:13: ", r#"did you mean "Threads"?"#],
        );
        // A value the engine does not take, at its option's place.
        s.write(
            "engines.toml",
            "[engines.sf]\ncmd = \"/usr/games/stockfish\"\n\noptions = { Threads = 0 }\n",
        );
        let sf = s.run(&["gauntlet", "sf", "--vs", "greedy", "--games", "2"]);
        assert_one_line(
            &sf,
            1,
            &[r#"engines.toml:4:13: engine sf: UCI option "Threads" cannot be "0""#],
        );
    }
    assert!(!s.path("results").exists());
}

/// Runs `blitz-arena engine ARGS` with `input` on stdin.
fn engine_session(s: &Scratch, args: &[&str], input: &str) -> Output {
    let mut child = s
        .command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn every_command_readme_lists_runs_in_the_form_it_shows() {
    let s = Scratch::new("commands");
    s.write("engines.toml", BUILTINS);

    // The synopsis: each subcommand README lists exists and has help.
    let synopsis = README
        .split("## Commands")
        .nth(1)
        .and_then(|rest| rest.split("```").nth(1))
        .expect("README's command synopsis");
    let subcommands: Vec<&str> = synopsis
        .lines()
        .filter_map(|l| l.strip_prefix("blitz-arena "))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(
        subcommands,
        [
            "gauntlet",
            "round-robin",
            "check",
            "rules",
            "stats",
            "adjudicate",
            "merge",
            "report",
            "engine"
        ]
    );
    for sub in &subcommands {
        let help = s.run(&[sub, "--help"]);
        assert_ok(&help);
        assert!(stdout(&help).contains("Usage: blitz-arena"), "{sub}");
    }

    // gauntlet ENGINE --vs OPP[,OPP...], as two shards of one run ...
    let shard = |k: &str| {
        let out_dir = format!("shard{k}");
        let shard = format!("{k}/2");
        s.run(&[
            "gauntlet",
            "instant",
            "--vs",
            "random,greedy",
            "--tc",
            "10s+0",
            "--games",
            "2",
            "--max-moves",
            "5",
            "--seed",
            "3",
            "--shard",
            &shard,
            "--out",
            &out_dir,
        ])
    };
    assert_ok(&shard("1"));
    assert_ok(&shard("2"));
    // ... merge DIR... --out DIR ...
    assert_ok(&s.run(&["merge", "shard1", "shard2", "--out", "all"]));
    assert_eq!(csv_rows(&s.path("all/games.csv")).len(), 4);
    // ... stats RESULTS... ...
    let stats = s.run(&["stats", "all", "shard1/games.csv"]);
    assert_ok(&stats);
    assert!(stdout(&stats).contains("instant"), "{}", stdout(&stats));
    // ... adjudicate RESULTS --ruleset NAME.
    assert_ok(&s.run(&["adjudicate", "all", "--ruleset", "house"]));
    // ... report DIR... [--out FILE].
    assert_ok(&s.run(&["report", "shard1", "shard2", "--out", "all.html"]));
    assert!(s.path("all.html").exists());

    // check [ENGINE...] [--engines FILE]
    let check = s.run(&["check"]);
    assert_ok(&check);
    for engine in ["instant", "random", "greedy"] {
        assert!(
            stdout(&check).contains(&format!("{engine}: ok")),
            "{}",
            stdout(&check)
        );
    }
    std::fs::rename(s.path("engines.toml"), s.path("roster.toml")).unwrap();
    let check = s.run(&["check", "random", "--engines", "roster.toml"]);
    assert_ok(&check);
    assert!(stdout(&check).contains("option Seed"), "{}", stdout(&check));

    // rules [RULESET]
    let all = s.run(&["rules"]);
    assert_ok(&all);
    let one = s.run(&["rules", "online"]);
    assert_ok(&one);
    assert!(stdout(&one).len() < stdout(&all).len());

    // engine NAME [ARGS]
    let session = "uci\nisready\nposition startpos\ngo movetime 50\n";
    for args in [
        &["engine", "instant"][..],
        &["engine", "faulty", "--seed", "3"],
    ] {
        let out = engine_session(&s, args, session);
        assert_ok(&out);
        let text = stdout(&out);
        for reply in ["uciok", "readyok", "bestmove "] {
            assert!(text.contains(reply), "{args:?}: {reply} not in {text}");
        }
    }
    assert!(s.leftovers().is_empty(), "{:?}", s.leftovers());
}

/// A numeric option, a value just inside its range and values outside it.
struct Case {
    flag: &'static str,
    range: String,
    inside: String,
    outside: &'static [&'static str],
}

fn cases() -> Vec<Case> {
    fn case<T: Copy + PartialOrd + std::fmt::Display + std::str::FromStr>(
        limit: limits::Limit<T>,
        inside: T,
        outside: &'static [&'static str],
    ) -> Case {
        Case {
            flag: limit.option,
            range: limit.range_text(),
            inside: inside.to_string(),
            outside,
        }
    }
    vec![
        case(
            limits::GAMES,
            limits::GAMES.max,
            &["0", "1000001", "4294967295"],
        ),
        case(limits::CONCURRENCY, 1, &["0", "1025"]),
        case(limits::OPENINGS_START, 1_000_000_000, &["0", "1000000001"]),
        case(limits::OPENING_PLIES, 10_000, &["0", "10001"]),
        case(limits::BOOK_DEPTH, 1, &["0", "10001"]),
        case(limits::SEED, u64::MAX, &["18446744073709551616", "x"]),
        case(limits::MAX_MOVES, 1, &["0", "10001"]),
        case(limits::NODES, 1, &["0", "1000000000001"]),
        case(limits::DEPTH, 255, &["0", "256"]),
        case(
            limits::TIME_MARGIN,
            600_000,
            &["600001", "9223372036854775"],
        ),
        case(limits::FLAG_NOTICE_MS, 600_000.0, &["600001", "NaN", "inf"]),
        case(limits::CLAIM_MS, 600_000, &["600001"]),
        case(limits::ILLEGAL_NOTICE, 0.0, &["1.5"]),
        case(limits::INJECT_ILLEGAL, 1.0, &["1.5"]),
        case(limits::INJECT_FLAG, 1.0, &["1.01"]),
    ]
}

/// What `--help` says about one option (clap wraps its lines).
fn help_of(help: &str, flag: &str) -> String {
    let words: Vec<&str> = help.split_whitespace().collect();
    let start = words
        .iter()
        .position(|w| *w == format!("--{flag}"))
        .unwrap_or_else(|| panic!("--{flag} not in --help"));
    let end = words[start + 1..]
        .iter()
        .position(|w| w.starts_with("--"))
        .map_or(words.len(), |n| start + 1 + n);
    words[start..end].join(" ")
}

/// The row for `--flag` of a page's option table.
fn option_row(page: &'static str, flag: &str) -> Option<&'static str> {
    page.lines().find(|l| {
        l.starts_with(&format!("| `--{flag} ")) || l.starts_with(&format!("| `--{flag}`"))
    })
}

/// docs/options.md's row of the option table for `--flag`, which states its range.
fn readme_row(flag: &str) -> &'static str {
    option_row(OPTIONS, flag)
        .unwrap_or_else(|| panic!("docs/options.md's option table has no row for --{flag}"))
}

/// The last cell of a table row.
fn last_cell(row: &str) -> &str {
    row.trim_end_matches('|')
        .rsplit(" | ")
        .next()
        .unwrap()
        .trim()
}

/// README's short table of the options people use first: each is in docs/options.md's table,
/// with the same default.
#[test]
fn readme_s_first_options_are_the_reference_s() {
    let rows: Vec<&str> = README.lines().filter(|l| l.starts_with("| `--")).collect();
    assert_eq!(rows.len(), 10, "the ten options people use first: {rows:?}");
    for row in rows {
        let flag = row[3..].split([' ', '`']).next().unwrap();
        let full = readme_row(flag.trim_start_matches("--"));
        assert_eq!(last_cell(row), last_cell(full), "the default of {flag}");
    }
}

#[test]
fn every_numeric_option_has_a_range_that_help_and_readme_show_and_the_arena_enforces() {
    let s = Scratch::new("ranges");
    s.write("engines.toml", BUILTINS);
    let help = stdout(&s.run(&["gauntlet", "--help"]));
    for case in cases() {
        let flag = format!("--{}", case.flag);
        assert!(
            help_of(&help, case.flag).contains(&case.range),
            "--help of {flag} does not say {}: {}",
            case.range,
            help_of(&help, case.flag)
        );
        assert!(
            readme_row(case.flag).contains(&case.range),
            "docs/options.md's row for {flag} does not say {}",
            case.range
        );
        // In range: parsed, and the run then stops at the unknown engine (exit 2).
        let inside = s.run(&["gauntlet", "nobody", "--vs", "random", &flag, &case.inside]);
        assert_one_line(&inside, 2, &["unknown engine `nobody`"]);
        for value in case.outside {
            let out = s.run(&["gauntlet", "instant", "--vs", "random", &flag, value]);
            assert_one_line(&out, 2, &[&flag, &case.range]);
        }
    }
    // The values with a structure: each number in range.
    for (flag, value, says) in [
        ("--tc", "20000000m", "time is too large"),
        ("--tc", "0+0", "no time at all"),
        (
            "--flag-overshoot-ms",
            "0..18446744073709551615",
            "0 to 600000",
        ),
        ("--flag-overshoot-ms", "0..600001", "0 to 600000"),
        ("--flag-gap-ms", "0..600001", "0 to 600000"),
        ("--shard", "5/4", "1 <= K <= N"),
        ("--shard", "1/10001", "1 to 10000"),
        (
            "--draw-adjudication",
            "movecount=0",
            "movecount=0: must be from 1 to 10000",
        ),
        ("--draw-adjudication", "score=100001", "from 0 to 100000"),
        (
            "--resign-adjudication",
            "movecount=4294967295",
            "from 1 to 10000",
        ),
        (
            "--sprt",
            "elo0=0,elo1=5,alpha=0,beta=0.05",
            "alpha must be between 0 and 1",
        ),
    ] {
        let out = s.run(&["gauntlet", "instant", "--vs", "random", flag, value]);
        assert_one_line(&out, 2, &[flag, says]);
    }
    for (flag, says) in [
        ("tc", "0 to 1000000000000 ms"),
        ("flag-overshoot-ms", "0 to 600000"),
        ("flag-gap-ms", "0 to 600000"),
        ("shard", "1 to 10000"),
        ("draw-adjudication", "1 to 10000"),
        ("resign-adjudication", "0 to 100000"),
        ("sprt", "-200 to 200"),
    ] {
        assert!(help_of(&help, flag).contains(says), "--help of --{flag}");
        assert!(
            readme_row(flag).contains(says),
            "docs/options.md's row of --{flag}"
        );
    }
    assert!(!s.path("results").exists(), "no run started");
}

#[test]
fn a_bad_command_line_exits_2_and_any_other_error_1() {
    let s = Scratch::new("exit-codes");
    s.write("engines.toml", BUILTINS);
    let gauntlet = |extra: &[&str]| {
        let mut args = vec!["gauntlet", "instant", "--vs", "random", "--tc", "10s+0"];
        args.extend_from_slice(extra);
        s.run(&args)
    };
    // Values clap reads.
    assert_one_line(&gauntlet(&["--games", "0"]), 2, &["--games"]);
    assert_one_line(&gauntlet(&["--concurrency", "0"]), 2, &["--concurrency"]);
    assert_one_line(
        &gauntlet(&["--inject-illegal", "1.5"]),
        2,
        &["--inject-illegal"],
    );
    assert_one_line(&gauntlet(&["--colour", "blue"]), 2, &["--colour"]);
    assert_one_line(&s.run(&["gauntlet", "instant"]), 2, &["--vs"]);
    // --vs is comma-separated: a second name after a space is not an opponent.
    assert_one_line(&gauntlet(&["greedy"]), 2, &["'greedy'"]);
    // Options that cannot go together, and runs that cannot be played as asked.
    assert_one_line(
        &s.run(&[
            "round-robin",
            "instant",
            "random",
            "greedy",
            "--sprt",
            "elo0=0,elo1=5,alpha=0.05,beta=0.05",
        ]),
        2,
        &["--sprt", "two engines"],
    );
    assert_one_line(
        &s.run(&[
            "gauntlet", "instant", "--vs", "random", "--resume", "nowhere", "--tc", "1+0",
        ]),
        2,
        &["drop --tc"],
    );
    assert_one_line(
        &s.run(&[
            "round-robin",
            "instant",
            "random",
            "greedy",
            "--games",
            "400000",
        ]),
        2,
        &[
            "3 pairings x 400000 games is 1200000 games",
            "at most 1000000",
        ],
    );
    // A shard that holds no game: 2 games are one pair, so shard 4/4 would play nothing.
    assert_one_line(
        &gauntlet(&["--games", "2", "--shard", "4/4", "--out", "empty"]),
        2,
        &["--shard 4/4 holds no games", "use at most 1 shard"],
    );
    assert!(!s.path("empty").exists());
    // An engine engines.toml does not define, wherever it is named.
    assert_one_line(
        &s.run(&["gauntlet", "instant", "--vs", "random,nobody"]),
        2,
        &["unknown engine `nobody`", "engines.toml defines"],
    );
    assert_one_line(
        &s.run(&["round-robin", "nobody", "random"]),
        2,
        &["unknown engine `nobody`"],
    );
    assert_one_line(
        &s.run(&["check", "nobody"]),
        2,
        &["unknown engine `nobody`"],
    );
    // Everything else is 1.
    let missing = gauntlet(&["--engines", "missing.toml"]);
    assert_one_line(&missing, 1, &["missing.toml: cannot read: No such file"]);
    assert_eq!(
        stderr(&missing).matches("No such file").count(),
        1,
        "said once"
    );
    assert_one_line(
        &gauntlet(&["--openings", "missing.epd"]),
        1,
        &["missing.epd"],
    );
    assert_one_line(&s.run(&["stats", "nowhere"]), 1, &["nowhere"]);
    assert!(!s.path("results").exists(), "no run started");
}

#[test]
fn a_bad_run_table_value_is_a_config_error_with_its_line() {
    let s = Scratch::new("run-table");
    for (line, says) in [
        (
            "max-moves = 0",
            "run.max-moves: 0 is out of range: give a number from 1 to 10000",
        ),
        (
            "games = 4294967295",
            "run.games: 4294967295 is out of range",
        ),
        ("games = -2", "run.games: -2 is out of range"),
        ("concurrency = 2.5", "run.concurrency: 2.5 is out of range"),
        ("time-margin = 9223372036854775", "run.time-margin"),
        (
            "flag-notice-ms = \"slow\"",
            "run.flag-notice-ms: expected a number from 0 to 600000",
        ),
        (
            "inject-illegal = 1.5",
            "run.inject-illegal: 1.5 is out of range",
        ),
        (
            "flag-overshoot-ms = \"0..18446744073709551615\"",
            "run.flag-overshoot-ms",
        ),
        ("flag-gap-ms = \"0..600001\"", "run.flag-gap-ms"),
        ("shard = \"1/10001\"", "run.shard"),
        (
            "draw-adjudication = \"movecount=0\"",
            "run.draw-adjudication: movecount=0",
        ),
        ("sprt = \"elo0=5,elo1=0,alpha=0.05,beta=0.05\"", "run.sprt"),
    ] {
        s.write("engines.toml", &format!("[run]\n{line}\n{BUILTINS}"));
        let out = s.run(&["gauntlet", "instant", "--vs", "random"]);
        assert_one_line(&out, 1, &["engines.toml:2:", says]);
    }
    assert!(!s.path("results").exists(), "no run started");
}

/// `check` on a roster, and a gauntlet between two of its engines.
fn check_and_play(s: &Scratch, good: &str, bad: &str) -> (Output, Output) {
    let check = s.run(&["check", good, bad]);
    // Short games, should a broken build let it play.
    let play = s.run(&[
        "gauntlet",
        good,
        "--vs",
        bad,
        "--tc",
        "10s+0",
        "--max-moves",
        "2",
        "--out",
        "never",
    ]);
    assert!(!s.path("never").exists(), "no results folder");
    (check, play)
}

/// `check` said engine `bad` FAILED with `says`, led by its option's place in engines.toml.
#[track_caller]
fn assert_failed_at_its_line(check: &Output, bad: &str, says: &str) {
    let text = stdout(check);
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{bad}: FAILED: engines.toml:")))
        .unwrap_or_else(|| panic!("no FAILED line with a place for {bad}:\n{text}"));
    assert!(line.ends_with(says), "{line}");
}

#[test]
fn uci_option_values_are_checked_against_the_declared_type_and_range() {
    let s = Scratch::new("uci-options");
    s.write(
        "engines.toml",
        r#"
[engines.fine]
builtin = "minimax"
options = { Hash = 1024, MoveOverhead = 0 }
[engines.big-hash]
builtin = "minimax"
options = { Hash = 2048 }
[engines.word-seed]
builtin = "random"
options = { Seed = "lots" }
[engines.maybe-960]
builtin = "script"
args = ["--moves", "e2e4"]
options = { UCI_Chess960 = "maybe" }
"#,
    );
    for (bad, says) in [
        (
            "big-hash",
            r#"engine big-hash: UCI option "Hash" cannot be "2048": it takes a whole number from 1 to 1024"#,
        ),
        (
            "word-seed",
            r#"engine word-seed: UCI option "Seed" cannot be "lots": it takes a whole number from 0 to 2147483647"#,
        ),
        (
            "maybe-960",
            r#"engine maybe-960: UCI option "UCI_Chess960" cannot be "maybe": it takes true or false"#,
        ),
    ] {
        let (check, play) = check_and_play(&s, "fine", bad);
        assert_eq!(check.status.code(), Some(3), "{}", stdout(&check));
        assert!(stdout(&check).contains("fine: ok"), "{}", stdout(&check));
        assert_failed_at_its_line(&check, bad, says);
        assert_one_line(&play, 1, &[says]);
    }
    assert!(s.leftovers().is_empty(), "{:?}", s.leftovers());
}

/// A python3 engine that declares spins it cannot take: an empty range, a default outside
/// its range, a default that is not a number; and one it can.
const FLAWED_DECLARER: &str = r#"import sys
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "uci":
        print("id name Flawed")
        print("id author blitz-arena tests")
        print("option name Hash type spin default abc min 1 max 0")
        print("option name Threads type spin default 0 min 1 max 8")
        print("option name Depth type spin default x min 1 max 8")
        print("option name Move Overhead type spin default 10 min 0 max 5000")
        print("uciok", flush=True)
    elif words[0] == "isready":
        print("readyok", flush=True)
    elif words[0] == "go":
        print("bestmove e2e4", flush=True)
    elif words[0] == "quit":
        break
"#;

#[test]
fn check_warns_of_an_option_the_engine_declares_but_cannot_take() {
    let s = Scratch::new("flawed-options");
    s.write("flawed.py", FLAWED_DECLARER);
    s.write(
        "engines.toml",
        r#"
[engines.flawed]
cmd = "python3"
args = ["flawed.py"]
options = { Threads = 2, "Move Overhead" = 20 }
[engines.flawed-hash]
cmd = "python3"
args = ["flawed.py"]
options = { Hash = 1 }
"#,
    );
    // The engine works: check passes, and warns of each flawed option below its line.
    let check = s.run(&["check", "flawed"]);
    let text = stdout(&check);
    assert_eq!(check.status.code(), Some(0), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "flawed: ok: Flawed by blitz-arena tests",
        "{text}"
    );
    for (line, says) in lines[1..4].iter().zip([
        r#"  warning: UCI option "Hash": the engine declares min 1 above max 0; no value can be set"#,
        r#"  warning: UCI option "Threads": the engine declares default 0, outside min 1 max 8;"#,
        r#"  warning: UCI option "Depth": the engine declares default "x", which is not a whole number;"#,
    ]) {
        assert!(line.starts_with(says), "{line:?} is not {says:?}:\n{text}");
    }
    assert!(!text.contains(r#""Move Overhead": the engine"#), "{text}");
    assert!(
        text.contains("option Hash                     spin default abc min 1 max 0"),
        "{text}"
    );
    // Setting the option with no value in its range says so, not "from 1 to 0".
    let says = r#"engine flawed-hash: UCI option "Hash" cannot be "1": the engine declares min 1 above max 0, so no value fits (leave Hash out of its options)"#;
    let (check, play) = check_and_play(&s, "flawed", "flawed-hash");
    assert_eq!(check.status.code(), Some(3), "{}", stdout(&check));
    assert_failed_at_its_line(&check, "flawed-hash", says);
    assert_one_line(&play, 1, &[says]);
    assert!(s.leftovers().is_empty(), "{:?}", s.leftovers());
}

#[test]
fn stockfish_and_glaurung_option_values_are_checked() {
    let (sf, glaurung) = ("/usr/games/stockfish", "/usr/games/glaurung");
    if !Path::new(sf).exists() || !Path::new(glaurung).exists() {
        eprintln!("skipped: {sf} or {glaurung} is not installed");
        return;
    }
    let s = Scratch::new("uci-options-real");
    s.write(
        "engines.toml",
        &format!(
            r#"
[engines.sf]
cmd = "{sf}"
options = {{ Hash = 16, Threads = 1, Ponder = false, "Clear Hash" = true, SyzygyPath = "/tmp" }}
[engines.sf-lots]
cmd = "{sf}"
options = {{ Hash = "lots" }}
[engines.sf-huge]
cmd = "{sf}"
options = {{ Hash = 99999999999 }}
[engines.sf-threads]
cmd = "{sf}"
options = {{ Threads = 0 }}
[engines.glaurung]
cmd = "{glaurung}"
options = {{ "King Safety Curve" = "Linear" }}
[engines.glaurung-cubic]
cmd = "{glaurung}"
options = {{ "King Safety Curve" = "Cubic" }}
"#
        ),
    );
    for (good, bad, says) in [
        (
            "sf",
            "sf-lots",
            r#"UCI option "Hash" cannot be "lots": it takes a whole number from 1 to 33554432"#,
        ),
        (
            "sf",
            "sf-huge",
            r#"UCI option "Hash" cannot be "99999999999": it takes a whole number from 1 to 33554432"#,
        ),
        (
            "sf",
            "sf-threads",
            r#"UCI option "Threads" cannot be "0": it takes a whole number from 1 to 1024"#,
        ),
        (
            "glaurung",
            "glaurung-cubic",
            r#"UCI option "King Safety Curve" cannot be "Cubic": it takes one of: Quadratic, Linear"#,
        ),
    ] {
        let (check, play) = check_and_play(&s, good, bad);
        assert_eq!(check.status.code(), Some(3), "{}", stdout(&check));
        assert!(
            stdout(&check).contains(&format!("{good}: ok")),
            "{}",
            stdout(&check)
        );
        assert_failed_at_its_line(&check, bad, &format!("engine {bad}: {says}"));
        assert_one_line(&play, 1, &[says]);
    }
    assert!(s.leftovers().is_empty(), "{:?}", s.leftovers());
}

#[test]
fn the_faulty_example_runs_as_docs_engines_md_shows_it() {
    let s = Scratch::new("faulty-example");
    let toml = ENGINES
        .split("cat > faulty.toml <<'TOML'\n")
        .nth(1)
        .and_then(|rest| rest.split("TOML\n").next())
        .expect("docs/engines.md's faulty.toml");
    s.write("faulty.toml", toml);
    let fide = s.run(&readme_command(
        "blitz-arena gauntlet random --vs cheater --engines faulty.toml --tc 10s+0 --games 2 --max-moves 20 --ruleset fide --out faulty-fide",
    ));
    assert_ok(&fide);
    // FIDE A4.2, 7.5.5: the first illegal move is taken back and the opponent gets a minute; the
    // game goes on (with these seeds, to the --max-moves draw).
    let rows = csv_rows(&s.path("faulty-fide/games.csv"));
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row["illegal_moves"], "1", "{row:?}");
        assert_eq!(row["termination"], "max-moves", "{row:?}");
        let random_left: i64 = if row["white"] == "random" {
            row["white_ms_left"].parse().unwrap()
        } else {
            row["black_ms_left"].parse().unwrap()
        };
        assert!(random_left > 60_000, "random got its minute: {row:?}");
    }
    let house = s.run(&readme_command(
        "blitz-arena gauntlet random --vs cheater --engines faulty.toml --tc 10s+0 --games 2 --ruleset house --out faulty-house",
    ));
    assert_ok(&house);
    let rows = csv_rows(&s.path("faulty-house/games.csv"));
    assert_eq!(rows.len(), 2);
    for row in rows {
        assert_eq!(row["termination"], "illegal-move", "{row:?}");
        assert!(row["rule"].contains("H3.4"), "{row:?}");
        let random_won = (row["white"] == "random" && row["result"] == "1-0")
            || (row["black"] == "random" && row["result"] == "0-1");
        assert!(random_won, "{row:?}");
    }
    // `engine faulty --help` lists the flags and what each ruleset does.
    let help = s.run(&["engine", "faulty", "--help"]);
    assert_ok(&help);
    let text = stdout(&help);
    for flag in [
        "--crash-after",
        "--hang-after",
        "--ignore-stop-after",
        "--illegal-after",
        "--null-after",
        "--slow-move-ms",
        "--garbage",
        "--huge-line",
        "--slow-start",
        "--no-uciok",
        "--seed",
    ] {
        assert!(text.contains(flag), "{flag} not in: {text}");
    }
    for ruling in [
        "FIDE A4.2, 7.5.5",
        "H3.4",
        "G§3",
        "WBCA 14",
        "USCF 7d",
        "online",
    ] {
        assert!(text.contains(ruling), "{ruling} not in: {text}");
    }
}

/// Issue 12 item 11: every help the README sends a user to describes its command, `help
/// --help` included; a built-in engine's bad name or flag is a bad command line (exit 2).
#[test]
fn every_help_describes_its_command_and_engine_flags_are_command_line_values() {
    let s = Scratch::new("helps");
    let help = s.run(&["help", "--help"]);
    assert_eq!(help.status.code(), Some(0), "{}", stderr(&help));
    assert!(
        stdout(&help).contains("Usage: blitz-arena help"),
        "{}",
        stdout(&help)
    );
    let engine = stdout(&s.run_ok(&["engine", "faulty", "--help"]));
    for flag in ["--crash-after N", "--null-after N", "--exit-on-newgame N"] {
        assert!(engine.contains(flag), "{flag} not in: {engine}");
    }
    let script = stdout(&s.run_ok(&["engine", "script", "--help"]));
    for flag in [
        "--moves",
        "--file PATH",
        "--then",
        "--stall-at N",
        "--crash-at N",
        "--ignore-stop",
        "--name NAME",
    ] {
        assert!(script.contains(flag), "{flag} not in: {script}");
    }
    let stats = stdout(&s.run_ok(&["stats", "--help"]));
    assert!(stats.contains("the standings"), "{stats}");
    let no_input = |args: &[&str]| s.command(args).stdin(Stdio::null()).output().unwrap();
    assert_one_line(&no_input(&["engine", "nosuch"]), 2, &["unknown engine"]);
    assert_one_line(
        &no_input(&["engine", "faulty", "--crash-after", "x"]),
        2,
        &["--crash-after"],
    );
    assert_one_line(
        &no_input(&["engine", "script", "--moves", "e2e4@2x"]),
        2,
        &["bad time"],
    );
    s.write("engines.toml", BUILTINS);
    assert_one_line(
        &s.run(&["gauntlet", "instant", "--vs", "random", "--max-moves", "0"]),
        2,
        &["--max-moves", "1 to 10000"],
    );
}

/// Issue 12 item 11: a book line whose game is already over is skipped with one warning
/// naming the line; the rest of the book is played.
#[test]
fn a_book_line_whose_game_is_over_is_skipped_with_a_warning() {
    let s = Scratch::new("book-over");
    s.write("engines.toml", BUILTINS);
    s.write(
        "book.epd",
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 id \"start\";\n",
    );
    let out = s.run_ok(&[
        "gauntlet",
        "instant",
        "--vs",
        "random",
        "--tc",
        "10s+0",
        "--games",
        "2",
        "--max-moves",
        "5",
        "--openings",
        "book.epd",
        "--out",
        "out",
    ]);
    let warnings: Vec<String> = stderr(&out)
        .lines()
        .filter(|l| l.contains("warning"))
        .map(String::from)
        .collect();
    assert_eq!(warnings.len(), 1, "{}", stderr(&out));
    assert!(
        warnings[0].contains("book.epd:1: the game is already over (checkmate)"),
        "{warnings:?}"
    );
    let rows = csv_rows(&s.path("out/games.csv"));
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["opening"] == "start"), "{rows:?}");
}

/// Issue 12 item 12: `--tc 10+0.1` keeps the FIDE/PGN meaning (ten minutes), `--help` says
/// so with units, and every run starts by saying its time control in words.
#[test]
fn the_time_control_is_minutes_plus_seconds_and_said_in_words() {
    let s = Scratch::new("tc-words");
    s.write("engines.toml", BUILTINS);
    let help = stdout(&s.run_ok(&["gauntlet", "--help"]));
    assert!(
        help.contains("10+0.1 is 10 minutes plus 0.1 s a move"),
        "{help}"
    );
    let out = s.run_ok(&[
        "gauntlet",
        "instant",
        "--vs",
        "random",
        "--tc",
        "10+0.1",
        "--games",
        "2",
        "--max-moves",
        "2",
        "--out",
        "out",
    ]);
    let first = stderr(&out).lines().next().unwrap_or("").to_string();
    assert!(
        first.contains("tc 10+0.1 = 10 minutes + 0.1 seconds a move"),
        "{first}"
    );
    let rows = csv_rows(&s.path("out/games.csv"));
    // Two plies at most of a ten-minute game: nearly ten minutes are left.
    assert!(rows
        .iter()
        .all(|r| r["white_ms_left"].parse::<i64>().unwrap() > 590_000));
}

/// An engine that cannot be started says why once, in one statement: a script whose `#!`
/// interpreter is missing is named as such (the kernel's "No such file or directory" would
/// seem to be about the script), and another cause (a file that is no program: "Exec format
/// error") is said once, by `check` (which lists every cause) as by a run.
#[test]
fn an_engine_that_cannot_start_says_why_once() {
    let s = Scratch::new("cannot-start");
    let executable = |name: &str, text: &str| {
        let path = s.write(name, text);
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        path.display().to_string()
    };
    let script = executable("bad.sh", "#!/usr/bin/nonexistent-python\nprint('uciok')\n");
    let plain = executable("plain.bin", "not a program\n");
    s.write(
        "engines.toml",
        &format!("[engines.bad]\ncmd = {script:?}\n[engines.plain]\ncmd = {plain:?}\n"),
    );
    let interpreter = format!(
        "engine bad: cannot start {script}: its interpreter /usr/bin/nonexistent-python \
         (the #! line) was not found"
    );
    let exec_format = format!("engine plain: cannot start {plain}: Exec format error (os error 8)");
    let check = s.run(&["check", "bad", "plain"]);
    assert_eq!(
        stdout(&check).lines().collect::<Vec<_>>(),
        [
            format!("bad: FAILED: {interpreter}"),
            format!("plain: FAILED: {exec_format}")
        ],
        "{}",
        stderr(&check)
    );
    for (engine, says) in [("bad", &interpreter), ("plain", &exec_format)] {
        let run = s.run(&["gauntlet", engine, "--vs", "random", "--out", "never"]);
        assert_eq!(stderr(&run), format!("blitz-arena: error: {says}\n"));
        assert_eq!(run.status.code(), Some(1));
    }
    assert!(!s.path("never").exists());
}
