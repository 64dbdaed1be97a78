//! README's and docs/' surface end to end: each test runs the real binary the way README or a
//! page of docs/ shows it and checks what it promises. Scripted engines make every game exact.

mod common;

use std::collections::HashMap;

use blitz_arena::event::Side;
use common::*;

/// An engines.toml table for a script engine.
fn script(name: &str, moves: &str) -> String {
    format!("[engines.{name}]\nbuiltin = \"script\"\nargs = [\"--moves\", {moves:?}]\n")
}

/// The only row of `DIR/games.csv`.
fn only_row(s: &Scratch, dir: &str) -> HashMap<String, String> {
    let mut rows = csv_rows(&s.path(&format!("{dir}/games.csv")));
    assert_eq!(rows.len(), 1, "{dir}: one game");
    rows.remove(0)
}

/// `(result, termination, rule, plies)` of a row.
fn ruling(row: &HashMap<String, String>) -> (&str, &str, &str, &str) {
    (
        row["result"].as_str(),
        row["termination"].as_str(),
        row["rule"].as_str(),
        row["plies"].as_str(),
    )
}

/// "Exit codes: ... 3 `check` found an engine that does not work."
#[test]
fn check_exits_3_when_an_engine_does_not_work() {
    let s = Scratch::new("readme-check");
    s.write(
        "engines.toml",
        "[engines.random]\nbuiltin = \"random\"\n[engines.ghost]\ncmd = \"/nonexistent/engine\"\n",
    );
    let out = s.run(&["check"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("random: ok: blitz-arena random"), "{text}");
    assert!(
        text.contains(
            "ghost: FAILED: engines.toml:3:10: engine `ghost`: /nonexistent/engine not found"
        ),
        "{text}"
    );
    // The working engine alone passes.
    s.run_ok(&["check", "random"]);
    s.assert_no_engines_left();
}

/// "130/143 stopped by Ctrl-C/SIGTERM": finished games are on disk, games in progress are
/// not recorded, all engines are gone.
#[test]
fn sigterm_stops_a_run_cleanly_with_exit_143() {
    let s = Scratch::new("readme-sigterm");
    s.write(
        "engines.toml",
        "[engines.greedy]\nbuiltin = \"greedy\"\n[engines.random]\nbuiltin = \"random\"\n",
    );
    let child = long_gauntlet(&s, "greedy", "random")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_games(&s, "res/games.csv", 2);
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(143), "{}", stderr(&out));
    s.assert_no_engines_left();
    let rows = csv_rows(&s.path("res/games.csv"));
    assert!(rows.len() >= 2 && rows.len() < 200, "{} games", rows.len());
    assert_eq!(pgn_games(&s.path("res/games.pgn")).len(), rows.len());
    assert!(
        stderr(&out).contains(&format!(
            "interrupted: {} of 200 games finished and saved in res",
            rows.len()
        )),
        "{}",
        stderr(&out)
    );
}

/// Without `--out`, results go to `results/<UTC time>-gauntlet/`.
#[test]
fn the_default_results_folder_is_named_by_the_utc_time() {
    let s = Scratch::new("readme-out");
    s.write(
        "engines.toml",
        &format!("{}{}", script("w", "e2e4"), script("b", "e7e5")),
    );
    let before = chrono::Utc::now().naive_utc();
    let out = s.run_ok(&[
        "gauntlet",
        "w",
        "--vs",
        "b",
        "--games",
        "1",
        "--max-moves",
        "1",
    ]);
    let after = chrono::Utc::now().naive_utc();
    let folders: Vec<String> = std::fs::read_dir(s.path("results"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    let name = &folders[0];
    let time = name.strip_suffix("-gauntlet").expect(name);
    let time = chrono::NaiveDateTime::parse_from_str(time, "%Y%m%dT%H%M%SZ").expect(name);
    let second = chrono::Duration::seconds(1);
    assert!(
        before - second <= time && time <= after,
        "{name}: not between {before} and {after} UTC"
    );
    assert!(
        stdout(&out).contains(&format!("results: results/{name}")),
        "{}",
        stdout(&out)
    );
    assert_eq!(only_row(&s, &format!("results/{name}"))["plies"], "2");
}

/// `--time-margin MS` tolerates MS past zero before a flag counts, and the run says so.
#[test]
fn a_time_margin_tolerates_a_late_move() {
    let s = Scratch::new("readme-margin");
    s.write(
        "engines.toml",
        &format!(
            "{}{}",
            script("slow", "e2e4@1300ms"),
            script("fast", "e7e5")
        ),
    );
    let run = |margin: &str, out: &str| {
        s.run_ok(&[
            "gauntlet",
            "slow",
            "--vs",
            "fast",
            "--tc",
            "1s+0",
            "--games",
            "1",
            "--max-moves",
            "2",
            "--time-margin",
            margin,
            "--out",
            out,
        ])
    };
    // 300 ms late: a flag without a margin, ...
    run("0", "strict");
    let strict = only_row(&s, "strict");
    assert_eq!(
        ruling(&strict),
        ("0-1", "flag", "FIDE A4.3", "0"),
        "{strict:?}"
    );
    assert_eq!(flag_on_clock_ms(&s.path("strict"), Side::White), Some(1000));
    // ... tolerated within 3000 ms: the move stands and the game goes on (a margin far past
    // the 300 ms, so that no load on the machine makes the script's move later than it).
    let out = run("3000", "margin");
    let row = only_row(&s, "margin");
    assert_eq!(
        ruling(&row),
        ("1/2-1/2", "max-moves", "arena: --max-moves", "4"),
        "{row:?}"
    );
    assert_eq!(row["white_flag_ms"], "");
    let left: i64 = row["white_ms_left"].parse().unwrap();
    assert!((-3000..=-300).contains(&left), "{row:?}");
    assert!(
        stderr(&out).contains("time margin 3000 ms (off the rules)"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains(
            "time margin: 3000 ms tolerated past zero before a flag counted (off the rules)"
        ),
        "{}",
        stdout(&out)
    );
}

/// `--claim-draws never`: nobody claims threefold repetition; fivefold ends the game itself.
#[test]
fn claim_draws_never_plays_on_to_fivefold() {
    let s = Scratch::new("readme-claims");
    let shuffle = |a: &str, b: &str| format!("{a}{b} {b}{a} ").repeat(4);
    s.write(
        "engines.toml",
        &format!(
            "{}{}",
            script("w", shuffle("g1", "f3").trim()),
            script("b", shuffle("g8", "f6").trim())
        ),
    );
    let run = |claims: &str| {
        s.run_ok(&[
            "gauntlet",
            "w",
            "--vs",
            "b",
            "--tc",
            "1m",
            "--games",
            "1",
            "--claim-draws",
            claims,
            "--out",
            claims,
        ]);
        only_row(&s, claims)
    };
    let always = run("always");
    assert_eq!(
        ruling(&always),
        ("1/2-1/2", "threefold", "FIDE Laws 9.2", "8"),
        "{always:?}"
    );
    let never = run("never");
    assert_eq!(
        ruling(&never),
        ("1/2-1/2", "fivefold", "FIDE Laws 9.6.1", "16"),
        "{never:?}"
    );
}

/// `G/5;d2`: the first 2 s of every move are free.
#[test]
fn a_delay_time_control_charges_only_time_past_the_delay() {
    let s = Scratch::new("readme-delay");
    // Fool's mate: white thinks 100 ms, then 2.5 s; black answers at once.
    s.write(
        "engines.toml",
        &format!(
            "{}{}",
            script("fool", "f2f3@100ms g2g4@2500ms"),
            script("mater", "e7e5 d8h4")
        ),
    );
    s.run_ok(&[
        "gauntlet", "fool", "--vs", "mater", "--tc", "G/5;d2", "--games", "1", "--out", "res",
    ]);
    let row = only_row(&s, "res");
    assert_eq!(
        ruling(&row),
        ("0-1", "checkmate", "FIDE Laws 5.1.1", "4"),
        "{row:?}"
    );
    assert_eq!(
        (row["tc_white"].as_str(), row["tc_black"].as_str()),
        ("G/5;d2", "G/5;d2")
    );
    // Only the 0.5 s past the delay of the 2.5 s move was charged (at least that: a script
    // sleeps at least its time); without the delay 2.6 s would have been, leaving 297400.
    // The 1.4 s between is the slack a loaded machine may add to the script's answers.
    let white: i64 = row["white_ms_left"].parse().unwrap();
    assert!((297_900..=299_500).contains(&white), "{row:?}");
    assert_eq!(row["black_ms_left"], "300000", "{row:?}");
    let (tags, _) = &pgn_games(&s.path("res/games.pgn"))[0];
    assert_eq!(tags["TimeControl"], "300");
}

/// `-v` prints a line per game above the progress bar on a terminal; without it the
/// terminal shows only the bar.
#[test]
fn verbose_prints_a_line_per_game_on_a_terminal() {
    let s = Scratch::new("readme-verbose");
    s.write(
        "engines.toml",
        &format!("{}{}", script("w", "e2e4"), script("b", "e7e5")),
    );
    // `script` (util-linux) runs the arena on a pseudo-terminal.
    let on_terminal = |extra: &str, out: &str| {
        let line =
            format!("{BIN} gauntlet w --vs b --games 2 --max-moves 1 --out {out} {extra} 2>&1");
        let run = std::process::Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .current_dir(&s.dir)
            .output()
            .expect("util-linux `script`");
        assert!(run.status.success(), "{}", stdout(&run));
        stdout(&run)
    };
    let verbose = on_terminal("-v", "verbose");
    // The games run at once: `game K/2` counts them as they finish, `(#N)` names each.
    for line in ["game 1/2 (#", "game 2/2 (#", "(#1): w - b", "(#2): b - w"] {
        assert!(verbose.contains(line), "{line:?} not in: {verbose}");
    }
    let quiet = on_terminal("", "quiet");
    assert!(!quiet.contains("game 1/2"), "{quiet}");
    assert!(quiet.contains("2/2 games"), "the progress bar: {quiet}");
}

/// An engine's own `tc` gives time odds, and `tc_white`/`tc_black` say who had which.
#[test]
fn time_odds_show_in_the_tc_columns() {
    let s = Scratch::new("readme-odds");
    s.write(
        "engines.toml",
        "[engines.random]\nbuiltin = \"random\"\n[engines.greedy]\nbuiltin = \"greedy\"\n\
         tc = \"30s+0\"\n",
    );
    s.run_ok(&[
        "gauntlet",
        "random",
        "--vs",
        "greedy",
        "--tc",
        "1m",
        "--games",
        "2",
        "--max-moves",
        "2",
        "--out",
        "res",
    ]);
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let tc = |side: &str| match row[side].as_str() {
            "greedy" => "30s+0",
            _ => "1+0",
        };
        assert_eq!(row["tc_white"], tc("white"), "{row:?}");
        assert_eq!(row["tc_black"], tc("black"), "{row:?}");
        let left = |side: &str| row[&format!("{side}_ms_left")].parse::<i64>().unwrap();
        let (white_base, black_base) = if row["white"] == "greedy" {
            (30_000, 60_000)
        } else {
            (60_000, 30_000)
        };
        assert!(left("white") <= white_base && left("white") > white_base - 5_000);
        assert!(left("black") <= black_base && left("black") > black_base - 5_000);
    }
}

/// `--openings-order random` (the default) shuffles the book by `--seed`; each opening is
/// still played twice, colours swapped; the same seed gives the same order.
#[test]
fn a_book_in_random_order_is_a_seeded_shuffle() {
    let s = Scratch::new("readme-shuffle");
    s.write(
        "engines.toml",
        "[engines.random]\nbuiltin = \"random\"\n[engines.greedy]\nbuiltin = \"greedy\"\n",
    );
    let names = ["a", "b", "c", "d", "e", "f"];
    let firsts = ["a2a3", "b2b3", "c2c3", "d2d3", "e2e3", "f2f3"];
    let book: String = names
        .iter()
        .zip(firsts)
        .map(|(name, first)| {
            format!("[Event \"{name}\"]\n[Opening \"{name}\"]\n\n1. {first} *\n\n")
        })
        .collect();
    s.write("book.pgn", &book);
    let runs = std::cell::Cell::new(0);
    let order = |seed: &str, order: &str| -> Vec<String> {
        runs.set(runs.get() + 1);
        let out = format!("{order}-{seed}-{}", runs.get());
        s.run_ok(&[
            "gauntlet",
            "random",
            "--vs",
            "greedy",
            "--openings",
            "book.pgn",
            "--openings-order",
            order,
            "--games",
            "12",
            "--max-moves",
            "1",
            "--seed",
            seed,
            "--out",
            &out,
        ]);
        let mut rows = csv_rows(&s.path(&format!("{out}/games.csv")));
        rows.sort_by_key(|r| r["game"].parse::<u32>().unwrap());
        // Each pair of games is one opening, colours swapped.
        for pair in rows.chunks(2) {
            assert_eq!(pair[0]["opening"], pair[1]["opening"], "{pair:?}");
            assert_eq!(pair[0]["white"], pair[1]["black"], "{pair:?}");
        }
        rows.iter()
            .step_by(2)
            .map(|r| r["opening"].clone())
            .collect()
    };
    assert_eq!(order("1", "sequential"), names);
    let shuffled = order("1", "random");
    assert_ne!(shuffled, names, "seed 1 shuffles the book");
    let mut sorted = shuffled.clone();
    sorted.sort();
    assert_eq!(sorted, names, "every opening once: {shuffled:?}");
    assert_eq!(
        order("1", "random"),
        shuffled,
        "the same seed, the same order"
    );
    assert_ne!(
        order("2", "random"),
        shuffled,
        "another seed, another order"
    );
}

/// A command engine runs in its `dir` (relative to engines.toml) with its `env` added.
#[test]
fn a_command_engine_gets_its_dir_and_env() {
    use std::os::unix::fs::PermissionsExt;
    let s = Scratch::new("readme-dir-env");
    std::fs::create_dir_all(s.path("conf/work")).unwrap();
    // An engine that notes where it runs and what FOO is, then plays as `random`.
    let engine = s.write(
        "engine.sh",
        &format!("#!/bin/sh\necho \"$(pwd) FOO=$FOO\" >> seen.txt\nexec {BIN} engine random\n"),
    );
    std::fs::set_permissions(&engine, std::fs::Permissions::from_mode(0o755)).unwrap();
    s.write(
        "conf/engines.toml",
        &format!(
            "[engines.noted]\ncmd = {:?}\ndir = \"work\"\nenv = {{ FOO = \"1\" }}\n\
             [engines.random]\nbuiltin = \"random\"\n",
            engine.display().to_string()
        ),
    );
    s.run_ok(&[
        "gauntlet",
        "noted",
        "--vs",
        "random",
        "--engines",
        "conf/engines.toml",
        "--games",
        "1",
        "--max-moves",
        "1",
        "--out",
        "res",
    ]);
    let seen = std::fs::read_to_string(s.path("conf/work/seen.txt")).expect("it ran in conf/work");
    let work = std::fs::canonicalize(s.path("conf/work")).unwrap();
    // Once per start of the engine.
    assert!(!seen.is_empty());
    for line in seen.lines() {
        assert_eq!(line, format!("{} FOO=1", work.display()));
    }
    assert_eq!(only_row(&s, "res")["plies"], "2");
}

/// docs/watchers.md, "The claimant's own flag falls while its claim completes: exact
/// timings": the shell block run exactly as written (in an empty folder, `blitz-arena` on the
/// PATH), and each ruling and detail of the table under it, its instants within 0.1 s (the
/// tenth the page gives).
#[test]
fn readme_exact_timing_race_runs_as_written() {
    const HEADING: &str =
        "**The claimant's own flag falls while its claim completes: exact timings.**";
    let doc = page("docs/watchers.md");
    let after = &doc[doc.find(HEADING).expect("docs/watchers.md has the example")..];
    let block = after
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("\n```")
        .next()
        .unwrap();
    let table: Vec<&str> = after
        .split("\n\n")
        .find(|p| p.starts_with("| ruleset | result | rule |"))
        .unwrap()
        .lines()
        .skip(2)
        .collect();

    let s = Scratch::new("readme-race");
    let bin_dir = std::path::Path::new(BIN).parent().unwrap();
    let path = format!("{}:{}", bin_dir.display(), std::env::var("PATH").unwrap());
    let out = std::process::Command::new("sh")
        .args(["-ec", block])
        .current_dir(&s.dir)
        .env("PATH", path)
        .env("BLITZ_ARENA_TEST_MARKER", s.marker())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    s.assert_no_engines_left();

    // The instants of a detail, and the detail with each written `T`.
    fn instants(text: &str) -> (String, Vec<f64>) {
        let mut masked = String::new();
        let mut found = Vec::new();
        for word in text.split(' ') {
            match word.parse::<f64>() {
                Ok(t) if word.contains('.') => {
                    found.push(t);
                    masked.push_str("T ");
                }
                _ => {
                    masked.push_str(word);
                    masked.push(' ');
                }
            }
        }
        (masked, found)
    }
    let cell = |line: &str, i: usize| {
        line.split(" | ")
            .nth(i)
            .unwrap()
            .trim_matches(['|', ' ', '`'])
            .to_string()
    };
    for line in table {
        let ruleset = cell(line, 0);
        let row = only_row(&s, &format!("race-{ruleset}"));
        assert_eq!(row["result"], cell(line, 1), "{ruleset}: {row:?}");
        assert_eq!(row["rule"], cell(line, 2), "{ruleset}: {row:?}");
        let promised = cell(line, 3);
        if promised.starts_with("both flags down") {
            let (want, want_t) = instants(&promised);
            let (got, got_t) = instants(&row["detail"]);
            assert_eq!(got, want, "{ruleset}");
            // Black's flag instant follows the moment white's reply arrived (a script that
            // sleeps 1.5 s, late by whatever the machine's load adds): the page gives it to the
            // tenth of a second, and the ruling rests on the 300 ms between the flag and the
            // claim, the slack a loaded machine may take. The other instants are timers'.
            for (g, w) in got_t.iter().zip(&want_t) {
                assert!(
                    (-0.1..0.3).contains(&(g - w)),
                    "{ruleset}: {g} s, docs/watchers.md says {w} s"
                );
            }
        } else {
            // "the same facts": the detail of the line above it, read under another ruleset.
            assert!(
                row["detail"].starts_with("both flags down: white flag fell at 1.0"),
                "{row:?}"
            );
        }
    }
}

// ---- Every example of README and docs/, run as written --------------------------------------

/// The pages whose code blocks are run: README, every page of docs/ and deploy/README.md.
const PAGES: [(&str, &str); 12] = [
    ("README.md", include_str!("../README.md")),
    (
        "docs/architecture.md",
        include_str!("../docs/architecture.md"),
    ),
    (
        "docs/contributing.md",
        include_str!("../docs/contributing.md"),
    ),
    ("docs/engines.md", include_str!("../docs/engines.md")),
    ("docs/fastchess.md", include_str!("../docs/fastchess.md")),
    ("docs/options.md", include_str!("../docs/options.md")),
    (
        "docs/performance.md",
        include_str!("../docs/performance.md"),
    ),
    ("docs/play.md", include_str!("../docs/play.md")),
    ("docs/results.md", include_str!("../docs/results.md")),
    ("docs/rulesets.md", include_str!("../docs/rulesets.md")),
    ("docs/watchers.md", include_str!("../docs/watchers.md")),
    ("deploy/README.md", include_str!("../deploy/README.md")),
];

/// The text of one of `PAGES`.
fn page(name: &str) -> &'static str {
    PAGES.iter().find(|(n, _)| *n == name).expect(name).1
}

/// A fenced code block of a page: the page, its language and its text.
struct Block {
    page: &'static str,
    lang: &'static str,
    text: &'static str,
}

fn code_blocks() -> Vec<Block> {
    let mut blocks = Vec::new();
    for (page, text) in PAGES {
        let mut rest = text;
        while let Some(open) = rest.find("\n```") {
            let after = &rest[open + 4..];
            let (lang, body) = after.split_once('\n').unwrap();
            let close = body.find("\n```").expect("a closed code block");
            blocks.push(Block {
                page,
                lang: lang.trim(),
                text: &body[..close + 1],
            });
            rest = &body[close + 4..];
        }
    }
    blocks
}

/// Every page of docs/ is one whose blocks run: a new page cannot go untested.
#[test]
fn every_docs_page_has_its_examples_run() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/docs");
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            let name = format!("docs/{name}");
            assert!(
                PAGES.iter().any(|(n, _)| *n == name),
                "{name}: add it to PAGES in tests/readme.rs"
            );
        }
    }
}

/// README is a front door: at most 250 lines; the rest is in docs/.
#[test]
fn readme_is_at_most_250_lines() {
    let lines = page("README.md").lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines: move some into docs/"
    );
}

/// A roster of the built-in engines and, when `real`, Debian's engines, as README tells a user
/// to write it. The test's own: no test reads the repository's engines.toml, which README
/// tells users to edit.
fn roster(real: bool) -> String {
    let mut text = String::from(
        "[engines.minimax]\nbuiltin = \"minimax\"\n[engines.greedy]\nbuiltin = \"greedy\"\n\
         [engines.random]\nbuiltin = \"random\"\n[engines.instant]\nbuiltin = \"instant\"\n",
    );
    if real {
        text.push_str(
            "[engines.stockfish]\ncmd = \"/usr/games/stockfish\"\n\
             options = { Hash = 16, Threads = 1 }\n\
             [engines.glaurung]\ncmd = \"/usr/games/glaurung\"\n\
             [engines.toga2]\ncmd = \"/usr/games/toga2\"\noptions = { Hash = 16 }\n",
        );
    }
    text
}

/// The lines of a block but those that install something (the install step is the build this
/// test runs from; the Debian packages are there when `debian_engines` says so).
fn without_installs(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("cargo install") && !l.starts_with("sudo apt-get install"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A shell in the scratch folder, with `blitz-arena` on its PATH as the README's install step
/// puts it there.
fn shell(s: &Scratch, script: &str) -> std::process::Command {
    let bin = s.path("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let link = bin.join("blitz-arena");
    if !link.exists() {
        std::os::unix::fs::symlink(BIN, &link).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut command = s.command(&[]);
    command
        .env("PATH", path)
        .arg0_shell(script)
        .stdin(std::process::Stdio::null());
    command
}

trait ArgShell {
    fn arg0_shell(&mut self, script: &str) -> &mut Self;
}

impl ArgShell for std::process::Command {
    /// Turns the `blitz-arena` command into `bash -euc SCRIPT`.
    fn arg0_shell(&mut self, script: &str) -> &mut Self {
        let mut bash = std::process::Command::new("bash");
        bash.args(["-euc", script]);
        for (k, v) in self.get_envs() {
            match v {
                Some(v) => bash.env(k, v),
                None => bash.env_remove(k),
            };
        }
        if let Some(dir) = self.get_current_dir() {
            bash.current_dir(dir);
        }
        *self = bash;
        self
    }
}

/// Runs `script` to its end; it must succeed.
#[track_caller]
fn run_to_end(s: &Scratch, script: &str) -> std::process::Output {
    let out = shell(s, script).output().unwrap();
    assert!(
        out.status.success(),
        "README example failed ({:?}):\n{script}\n{}{}",
        out.status,
        stdout(&out),
        stderr(&out)
    );
    out
}

/// Kills a started example if the test fails while it runs.
struct Running(std::process::Child);

impl Drop for Running {
    fn drop(&mut self) {
        unsafe { libc::kill(self.0.id() as i32, libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

/// Starts a long example (hundreds of games) as written, lets it run until `ready` (its first
/// game saved in a `games.csv` under `dir`, or with `planned_only` its plan written), stops it
/// with SIGTERM as README says one may, and checks it stopped cleanly (exit 143, no engine
/// left). Returns its stderr.
#[track_caller]
fn start_and_stop(s: &Scratch, script: &str, dir: &str) -> String {
    stop_when(s, script, dir, false)
}

#[track_caller]
fn stop_when(s: &Scratch, script: &str, dir: &str, planned_only: bool) -> String {
    // `exec`: the arena replaces the shell, so the signal reaches it.
    let child = shell(s, &format!("exec {script}"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut running = Running(child);
    let child = &mut running.0;
    let start = std::time::Instant::now();
    let games = || -> usize {
        let Ok(entries) = std::fs::read_dir(s.path(dir)) else {
            return 0;
        };
        let mut csvs: Vec<std::path::PathBuf> = entries
            .flatten()
            .map(|e| e.path().join("games.csv"))
            .collect();
        csvs.push(s.path(dir).join("games.csv"));
        csvs.iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .map(|t| t.lines().count().saturating_sub(1))
            .sum()
    };
    let ready = || {
        if planned_only {
            s.path(dir).join("run.json").exists()
        } else {
            games() > 0
        }
    };
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("README example ended before its first game: {status:?}\n{script}");
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "no game finished in 2 minutes: {script}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let status = child.wait().unwrap();
    let mut err = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(143), "{script}\n{err}");
    assert!(planned_only || games() >= 1);
    s.assert_no_engines_left();
    err
}

/// Every code block of README and docs/ runs as written (a block no policy below knows fails
/// the test, so a new example cannot go untested). Short examples run to their end; examples
/// of hundreds of games are started as written and stopped after their first game; the install
/// step is the build this test runs from; the Kubernetes manifest needs a cluster, and the
/// commands in it are the Slurm script's, which runs here. Real engines are used where they are
/// installed.
#[test]
fn every_example_of_readme_and_docs_runs_as_written() {
    let real = debian_engines(&["stockfish", "glaurung", "toga2"]);
    let mut worked_examples = Scratch::new("readme-worked");
    let mut ran = 0;
    for block in &code_blocks() {
        let s = Scratch::new("readme-example");
        if run_block(block, &s, real, &mut worked_examples) {
            ran += 1;
        }
    }
    assert!(ran >= 12, "only {ran} examples ran");
}

/// Runs one block by its policy; false when it could not run here (and says why in the code).
fn run_block(block: &Block, s: &Scratch, real: bool, worked: &mut Scratch) -> bool {
    let text = block.text;
    if text.starts_with("# build and install `blitz-arena`") {
        // README's set-up: install (this build), then a gauntlet in a folder with no roster.
        let out = run_to_end(s, &without_installs(text));
        let err = stderr(&out);
        assert!(
            err.lines()
                .next()
                .unwrap_or("")
                .contains("tc 5s+0.05s = 5 seconds + 0.05 seconds a move"),
            "{err}"
        );
        assert_eq!(only_results_rows(s), 4);
        assert!(text.contains("cargo install --locked --path ."), "{text}");
        return true;
    }
    // Every other example runs beside a roster, as the page it is on says.
    s.write("engines.toml", &roster(real));
    if text.starts_with("sudo apt-get install stockfish glaurung toga2") {
        // README's real engines: the roster uncommented as README says.
        if !real {
            return false;
        }
        let out = run_to_end(s, &without_installs(text));
        for engine in ["stockfish", "glaurung", "toga2"] {
            assert!(stdout(&out).contains(&format!("{engine}: ok")), "{engine}");
        }
        assert_eq!(only_results_rows(s), 4);
    } else if block.lang.is_empty() && text.starts_with("blitz-arena gauntlet ENGINE") {
        // The command synopsis: every command it lists has its help.
        for line in text.lines() {
            let command = line.split_whitespace().nth(1).unwrap();
            s.run_ok(&[command, "--help"]);
        }
    } else if block.lang == "toml" {
        // The engines.toml example: `check` starts every engine it names.
        if !real {
            return false;
        }
        s.write("engines.toml", text);
        s.run_ok(&["check"]);
    } else if text.starts_with("cargo test --release\n") {
        // README's test command is what CI runs.
        let ci = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/.ci/run")).unwrap();
        assert!(ci.lines().any(|l| l == text.trim()), "{ci}");
        return false;
    } else if !run_worked_or_long(block, s, worked) && !run_other(block, s) {
        panic!(
            "{} example with no test: add it to tests/readme.rs:\n{text}",
            block.page
        );
    }
    true
}

/// The examples of docs/watchers.md and docs/results.md; false if `block` is none of them.
fn run_worked_or_long(block: &Block, s: &Scratch, worked: &mut Scratch) -> bool {
    let text = block.text;
    if text.starts_with("mkdir ex && cd ex") {
        // The worked examples share one folder: the second adds to the first's roster.
        *worked = Scratch::new("readme-worked");
        run_to_end(worked, text);
    } else if text.starts_with("cat >> engines.toml") {
        run_to_end(worked, &format!("cd ex\n{text}"));
        let row = only_row(worked, "ex/mate-house");
        assert_eq!(ruling(&row).0, "0-1", "{row:?}");
    } else if text.contains("--games 200") || text.contains("--games 2000") {
        start_and_stop(s, text.trim(), "results");
    } else if text.contains("--resume results/20261120T221500Z-gauntlet") {
        // An interrupted run in that folder first, then the example finishes it.
        let dir = "results/20261120T221500Z-gauntlet";
        s.run_ok(&[
            "gauntlet",
            "minimax",
            "--vs",
            "greedy,random",
            "--tc",
            "2s+0.02s",
            "--games",
            "2",
            "--max-moves",
            "10",
            "--shard",
            "1/2",
            "--out",
            dir,
        ]);
        let before = csv_rows(&s.path(&format!("{dir}/games.csv"))).len();
        // Drop the shard's last game, as a kill would have.
        let csv = std::fs::read_to_string(s.path(&format!("{dir}/games.csv"))).unwrap();
        let kept: Vec<&str> = csv.lines().take(before).collect();
        std::fs::write(s.path(&format!("{dir}/games.csv")), kept.join("\n") + "\n").unwrap();
        run_to_end(s, text);
        assert_eq!(csv_rows(&s.path(&format!("{dir}/games.csv"))).len(), before);
    } else if text.starts_with("cat > faulty.toml") {
        run_to_end(s, text);
        let fide = csv_rows(&s.path("faulty-fide/games.csv"));
        assert!(fide.iter().all(|r| r["illegal_moves"] == "1"), "{fide:?}");
        let house = csv_rows(&s.path("faulty-house/games.csv"));
        assert!(
            house.iter().all(|r| r["termination"] == "illegal-move"),
            "{house:?}"
        );
    } else if text.contains("echo 'r3k3/8/8/8/8/8/8/R3K3 w - - 0 1' > race.fen") {
        // Run as written, its table checked, by `readme_exact_timing_race_runs_as_written`.
    } else {
        return false;
    }
    true
}

/// The examples of docs/play.md, docs/fastchess.md, docs/performance.md and deploy/README.md;
/// false if `block` is none of them.
fn run_other(block: &Block, s: &Scratch) -> bool {
    let text = block.text;
    if text.contains("--openings book.bin --book-depth 8") {
        // The repository's Polyglot book, as the example names it.
        let book = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/polyglot/book.bin");
        std::fs::copy(book, s.path("book.bin")).unwrap();
        run_to_end(s, text);
        let mut rows = csv_rows(&s.path("polyglot/games.csv"));
        assert_eq!(rows.len(), 4);
        rows.sort_by_key(|r| r["game"].parse::<u32>().unwrap());
        for pair in rows.chunks(2) {
            // One line per pair, named by its number, colours swapped.
            assert_eq!(pair[0]["opening"], pair[1]["opening"], "{pair:?}");
            assert!(pair[0]["opening"].starts_with('#'), "{pair:?}");
            assert_eq!(pair[0]["white"], pair[1]["black"], "{pair:?}");
        }
        let plan = std::fs::read_to_string(s.path("polyglot/run.json")).unwrap();
        let plan: serde_json::Value = serde_json::from_str(&plan).unwrap();
        for line in plan["book"].as_array().unwrap() {
            let plies = line["moves"].as_array().unwrap().len();
            assert!((1..=8).contains(&plies), "{line}");
        }
    } else if text.contains("--variant chess960 --openings chess960.epd") {
        // The repository's Chess960 positions, as the example names them.
        let book = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/chess960/chess960.epd"
        );
        std::fs::copy(book, s.path("chess960.epd")).unwrap();
        run_to_end(s, text);
        let rows = csv_rows(&s.path("c960/games.csv"));
        assert_eq!(rows.len(), 4);
        assert!(
            rows.iter().all(|r| r["opening"].starts_with("960-")),
            "{rows:?}"
        );
        let pgn = std::fs::read_to_string(s.path("c960/games.pgn")).unwrap();
        assert_eq!(pgn.matches("[Variant \"Chess960\"]").count(), 4, "{pgn}");
    } else if text.starts_with("blitz-arena -engine cmd=blitz-arena") {
        // fastchess's command line, its lines on stdout, its PGN, and no results folder left
        // behind (fastchess leaves none).
        let out = run_to_end(s, text);
        let lines = stdout(&out);
        assert!(
            lines.contains("Started game 1 of 4 (minimax vs greedy)"),
            "{lines}"
        );
        assert!(lines.contains("Games: 4, Wins: "), "{lines}");
        assert!(lines.contains("Finished match"), "{lines}");
        assert_eq!(pgn_games(&s.path("games.pgn")).len(), 4);
        assert!(!s.path("results").exists());
    } else if text.starts_with("make") {
        run_make_example(s, text);
    } else if block.lang == "json" && text.contains("fastchess_min_version") {
        // OpenBench's server configuration: the minimum version is this build's.
        assert!(
            text.contains(&format!(
                "\"fastchess_min_version\" : \"{}\"",
                env!("CARGO_PKG_VERSION")
            )),
            "{text}"
        );
    } else if block.lang == "yaml" {
        // Needs a Kubernetes cluster: its two commands are the Slurm script's; tests/slurm.rs
        // validates the manifest against the API schema.
        assert!(text
            .contains("exec blitz-arena gauntlet stockfish --vs glaurung,toga2 --resume \"$out\""));
    } else if text.starts_with("#!/bin/bash\n# A gauntlet as a Slurm job array") {
        // deploy/slurm/gauntlet.sh: tests/slurm.rs checks that deploy/README.md's copy is that
        // file and runs it on a one-node Slurm cluster (sbatch, scancel, resume, merge).
    } else if block.lang == "text" {
        // Output shown to the reader, not a command.
    } else if text.starts_with("cargo build --release\npython3 benches/overhead.py") {
        // The full harness takes 20-40 minutes; tests/benches.rs runs it with `--quick`.
    } else if text.starts_with("cargo build --release --example floor\npython3 benches/overhead.py")
    {
        // The ratio with the floor needs fastchess and some minutes: tests/benches.rs runs it
        // on four games with the arena standing in for fastchess, the floor's columns
        // included, and runs the floor itself.
    } else {
        return false;
    }
    true
}

/// The build is this test's binary: each `make` line's plan is checked (it builds it and
/// copies it to ./fastchess or ./fastchess-tests, or removes them), and the binary runs under
/// those names as the other lines are written.
fn run_make_example(s: &Scratch, text: &str) {
    for line in text.lines().filter(|l| l.starts_with("make")) {
        let plan = std::process::Command::new("make")
            .arg("-n")
            .args(line.split_whitespace().skip(1))
            .env_remove("CARGO")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output();
        let Ok(plan) = plan else {
            eprintln!("SKIPPED the Makefile's plan: make is not installed");
            break;
        };
        let plan = stdout(&plan);
        let expected = if line.contains(" clean") {
            "rm -f fastchess fastchess-tests"
        } else if line.contains(" tests") {
            "cp target/release/blitz-arena fastchess-tests"
        } else {
            "cp target/release/blitz-arena fastchess"
        };
        assert!(plan.contains(expected), "{line}: {plan}");
        assert!(
            line.contains(" clean") || plan.contains("cargo build --release"),
            "{plan}"
        );
    }
    for name in ["fastchess", "fastchess-tests"] {
        std::os::unix::fs::symlink(BIN, s.path(name)).unwrap();
    }
    let script: String = text
        .lines()
        .filter(|l| !l.starts_with("make"))
        .collect::<Vec<_>>()
        .join("\n");
    let out = stdout(&run_to_end(s, &script));
    let version = format!("blitz-arena {} ", env!("CARGO_PKG_VERSION"));
    assert!(
        out.lines().last().unwrap_or("").starts_with(&version),
        "{out}"
    );
    if script.contains("./fastchess-tests") {
        assert!(out.contains("Games: 2, Wins: "), "{out}");
    }
}

/// The number of games in the only folder under `results/`.
fn only_results_rows(s: &Scratch) -> usize {
    let dirs: Vec<_> = std::fs::read_dir(s.path("results"))
        .unwrap()
        .flatten()
        .collect();
    assert_eq!(dirs.len(), 1);
    csv_rows(&dirs[0].path().join("games.csv")).len()
}
