//! `report.html` in a real browser: headless Chromium (Debian's `chromium`, which `.ci/run`
//! installs) loads the report of a real run; the page must raise no console error, pass its
//! own check, and its charts must hold the run's numbers, read back from the DOM.

mod common;

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;

use common::*;

const ENGINES: &str = r#"
[engines.minimax]
builtin = "minimax"
[engines.random]
builtin = "random"
options = { Seed = 7 }
"#;

/// A short real run with flag falls and illegal moves injected (into `run/`); under USCF an
/// illegal move ends the game, so no game waits out a minute's penalty.
fn injection_run(s: &Scratch) {
    s.write("engines.toml", ENGINES);
    s.run_ok(&[
        "gauntlet",
        "minimax",
        "--vs",
        "random",
        "--tc",
        "400ms+10ms",
        "--depth",
        "2",
        "--games",
        "12",
        "--seed",
        "9",
        "--inject-flag",
        "1",
        "--inject-illegal",
        "0.01",
        "--ruleset",
        "uscf",
        "--max-moves",
        "40",
        "--concurrency",
        "2",
        "--out",
        "run",
    ]);
}

fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"].into_iter().find(|c| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

/// Headless Chromium with the flags that keep it off the network, a fresh profile.
fn headless(s: &Scratch, browser: &str) -> Command {
    let profile = s.path(&format!("profile-{}", std::process::id()));
    let mut command = Command::new(browser);
    command.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
    ]);
    command.arg(format!("--user-data-dir={}", profile.display()));
    command
}

/// The page as the browser built it (`--dump-dom`), and what the browser logged.
fn load(s: &Scratch, browser: &str, page: &Path) -> (String, String) {
    let out = headless(s, browser)
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    (stdout(&out), stderr(&out))
}

/// The attributes of every element whose opening tag contains `needle`.
fn elements(dom: &str, needle: &str) -> Vec<HashMap<String, String>> {
    let mut found = Vec::new();
    let mut rest = dom;
    while let Some(i) = rest.find(needle) {
        let start = rest[..i].rfind('<').unwrap();
        let end = i + rest[i..].find('>').unwrap();
        found.push(attributes(&rest[start..end]));
        rest = &rest[end..];
    }
    found
}

fn attributes(tag: &str) -> HashMap<String, String> {
    let mut map = HashMap::new();
    let mut rest = tag;
    while let Some(eq) = rest.find("=\"") {
        let name = rest[..eq]
            .rsplit(|c: char| c.is_whitespace())
            .next()
            .unwrap()
            .to_string();
        let value_end = eq + 2 + rest[eq + 2..].find('"').unwrap();
        let value = rest[eq + 2..value_end]
            .replace("&quot;", "\"")
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&amp;", "&");
        map.insert(name, value);
        rest = &rest[value_end + 1..];
    }
    map
}

#[test]
fn the_report_of_a_real_run_opens_cleanly_and_its_charts_hold_the_runs_numbers() {
    let Some(browser) = chromium() else {
        assert!(
            !in_ci(),
            "CI=true but chromium is missing (apt-get install chromium)"
        );
        eprintln!("SKIPPED: chromium is not installed (apt-get install chromium)");
        return;
    };
    let s = Scratch::new("html");
    injection_run(&s);
    // The run wrote its own report; `report` writes the same from the files.
    assert!(s.path("run/report.html").exists());
    let out = s.run_ok(&["report", "run", "--out", "again.html"]);
    assert!(
        stdout(&out).contains("report of 12 games"),
        "{}",
        stdout(&out)
    );

    let (dom, log) = load(&s, browser, &s.path("run/report.html"));
    // No console message at all (the page's check logs an error when it fails), no script
    // error, and the page's own check passed.
    assert!(!log.contains("CONSOLE"), "console output: {log}");
    let check = &elements(&dom, r#"id="selfcheck""#)[0];
    assert_eq!(check["data-status"], "ok", "{check:?}");
    let rows = csv_rows(&s.path("run/games.csv"));
    assert_eq!(rows.len(), 12);
    assert_eq!(check["data-sections"], "12", "every game of a small run");

    // Standings: each engine's Elo, its interval and games, as summary.csv says.
    let summary: Vec<_> = csv_rows(&s.path("run/summary.csv"))
        .into_iter()
        .filter(|row| row["kind"] == "engine")
        .collect();
    let bars = elements(&dom, r#"class="elo""#);
    assert_eq!(bars.len(), summary.len());
    for engine in &summary {
        let bar = bars
            .iter()
            .find(|b| b["data-engine"] == engine["engine"])
            .unwrap();
        for (attr, column) in [
            ("data-elo", "elo"),
            ("data-elo-low", "elo_low"),
            ("data-elo-high", "elo_high"),
            ("data-games", "games"),
        ] {
            assert_eq!(bar[attr], engine[column], "{attr} of {}", engine["engine"]);
        }
    }
    // The match against games ends at the run's last game.
    let elo = &elements(&dom, r#"data-chart="elo-vs-games""#)[0];
    assert_eq!(elo["data-games"], "12");
    assert_eq!(elo["data-elo"], summary[0]["elo"]);
    let llr = &elements(&dom, r#"data-chart="llr-vs-games""#)[0];
    assert_eq!(llr["data-upper"], "2.9444");

    // Terminations: one bar per (ruleset, termination), counting games.csv's rows.
    let mut counts: HashMap<String, usize> = HashMap::new();
    for row in &rows {
        *counts.entry(row["termination"].clone()).or_default() += 1;
    }
    let endings = elements(&dom, "data-termination=");
    for (termination, n) in &counts {
        let bar = endings
            .iter()
            .find(|b| b.get("data-count").is_some() && &b["data-termination"] == termination)
            .unwrap_or_else(|| panic!("no bar for {termination}"));
        assert_eq!(bar["data-count"], n.to_string(), "{termination}");
    }
    // Injections: the bars count every item of games.csv's `injected` column.
    let injected: usize = rows
        .iter()
        .map(|r| r["injected"].split("; ").filter(|i| !i.is_empty()).count())
        .sum();
    let drawn: usize = elements(&dom, "data-injection=")
        .iter()
        .filter_map(|b| b.get("data-count"))
        .map(|n| n.parse::<usize>().unwrap())
        .sum();
    assert!(injected > 0, "the run injected something");
    assert_eq!(drawn, injected);

    // Each game: its ruling, its moves per side, and its flag falls where they happened.
    let mut flags = 0;
    for row in &rows {
        let game = &row["game"];
        let section = elements(&dom, &format!(r#"id="game-{game}""#));
        assert_eq!(section.len(), 1, "game {game} has a section");
        let section = &section[0];
        for (attr, column) in [
            ("data-result", "result"),
            ("data-termination", "termination"),
            ("data-rule", "rule"),
        ] {
            assert_eq!(section[attr], row[column], "game {game}: {attr}");
        }
        let start = dom.find(&format!(r#"id="game-{game}""#)).unwrap();
        let end = dom[start..].find("</section>").unwrap() + start;
        let html = &dom[start..end];
        for side in ["white", "black"] {
            let line = elements(html, &format!(r#"data-side="{side}" data-engine="#));
            assert_eq!(line[0]["data-moves"], row[&format!("{side}_moves")]);
            let marks: Vec<_> = elements(html, r#"data-kind="flag""#)
                .into_iter()
                .filter(|m| m["data-side"] == side)
                .collect();
            match row[&format!("{side}_flag_ms")].as_str() {
                "" => assert!(marks.is_empty(), "game {game}: no {side} flag"),
                ms => {
                    flags += 1;
                    assert_eq!(marks.len(), 1, "game {game}: {side}'s flag is marked");
                    assert_eq!(marks[0]["data-t-ms"], ms, "game {game}: when it fell");
                }
            }
        }
        // The same game under each of the six rulesets, side by side.
        assert_eq!(elements(html, "<tr data-ruleset=").len(), 6, "game {game}");
    }
    assert!(flags > 0, "the run has flag falls to show");
}

#[test]
fn report_refuses_what_it_cannot_read() {
    let s = Scratch::new("html-errors");
    let missing = s.run(&["report", "nowhere"]);
    assert_one_line_error(&missing, "nowhere: no such results folder");
    std::fs::create_dir_all(s.path("a")).unwrap();
    std::fs::create_dir_all(s.path("b")).unwrap();
    let two = s.run(&["report", "a", "b"]);
    assert_usage_error(&two, "--out FILE");
    let empty = s.run(&["report", "a"]);
    assert_eq!(empty.status.code(), Some(1), "{}", stderr(&empty));
    assert_eq!(
        stderr(&empty).trim().lines().count(),
        1,
        "{}",
        stderr(&empty)
    );
}

/// The cost of rewriting a run's report, measured on a results folder:
/// `BLITZ_REPORT_DIR=DIR cargo test --release --test html -- --ignored --nocapture`.
#[test]
#[ignore]
fn measure_report_generation() {
    let Ok(dir) = std::env::var("BLITZ_REPORT_DIR") else {
        eprintln!("set BLITZ_REPORT_DIR to a results folder");
        return;
    };
    let dirs = [std::path::PathBuf::from(dir)];
    let start = std::time::Instant::now();
    let (mut report, tally) = blitz_arena::report::html::from_folders(&dirs, None, None).unwrap();
    let read = start.elapsed();
    let start = std::time::Instant::now();
    let rounds = 10;
    for _ in 0..rounds {
        report.write(&dirs[0], &tally).unwrap();
    }
    let write = start.elapsed() / rounds;
    eprintln!(
        "{} games: read from the files in {read:?}; report.html rendered and written in {write:?} (mean of {rounds})",
        tally.rows.len()
    );
}
