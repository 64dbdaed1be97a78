//! The ruling matrix as a test table (issue 14.5). `tests/matrix.txt` holds scenarios (a FEN,
//! two scripts of moves with think times, run options with exact watcher timings) and, under
//! each, the cells of the matrix that `blitz-arena rules` prints which it proves, with the
//! expected result, termination and citation. This test:
//! - plays every cell row end to end: the real binary, two built-in `script` engines, real
//!   clocks (1 s, think times at least 400 ms from any instant a ruling hangs on), several games
//!   at once (the engines sleep through their think times);
//! - checks every non-empty cell `rules` prints has a row, or is listed as not producible with
//!   its reason, and that no row names a cell `rules` does not print;
//! - checks every game's detail against its ruling: each fallen flag named with its instant,
//!   the flags in the order they fell, the claim named;
//! - checks that docs/rulesets.md is exactly what the table and `rules` make of it
//!   (`UPDATE_DOCS=1 cargo test --test matrix` rewrites it).

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::process::Command;
use std::sync::Mutex;

use blitz_arena::event::{BySide, Side};
use blitz_arena::report::load_records;
use common::*;

const RULESETS: [&str; 6] = ["house", "generic", "wbca", "fide", "uscf", "online"];

/// One scenario of tests/matrix.txt.
#[derive(Debug, Default)]
struct Scenario {
    name: String,
    what: String,
    fen: String,
    white: String,
    black: String,
    black_tc: Option<String>,
    options: String,
}

/// One cell row: what a scenario must give under a ruleset.
#[derive(Debug)]
struct Cell {
    scenario: usize,
    ruleset: String,
    situation: String,
    expect: Expect,
}

#[derive(Debug)]
enum Expect {
    Game {
        result: String,
        termination: String,
        rule: String,
        checks: Vec<String>,
    },
    NotProducible(String),
}

fn table() -> (Vec<Scenario>, Vec<Cell>) {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/matrix.txt"))
            .unwrap();
    let mut scenarios: Vec<Scenario> = Vec::new();
    let mut cells = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("# ") || line == "#" {
            continue;
        }
        if let Some(head) = line.strip_prefix("## ") {
            let (name, what) = head.split_once(": ").unwrap_or((head, ""));
            scenarios.push(Scenario {
                name: name.to_string(),
                what: what.to_string(),
                ..Scenario::default()
            });
            continue;
        }
        let s = scenarios.last_mut().expect("a scenario first");
        if let Some((key, value)) = line.split_once(": ").filter(|(k, _)| !k.contains('|')) {
            let value = value.to_string();
            match key {
                "fen" => s.fen = value,
                "white" => s.white = value,
                "black" => s.black = value,
                "black tc" => s.black_tc = Some(value),
                "options" => s.options = value,
                _ => panic!("matrix.txt:{}: unknown key {key:?}", n + 1),
            }
            continue;
        }
        let fields: Vec<&str> = line.split(" | ").map(str::trim).collect();
        assert!(
            RULESETS.contains(&fields[0]),
            "matrix.txt:{}: unknown ruleset {:?}",
            n + 1,
            fields[0]
        );
        let expect = match fields.as_slice() {
            [_, _, why] => Expect::NotProducible(
                why.strip_prefix("not producible: ")
                    .unwrap_or_else(|| panic!("matrix.txt:{}: `not producible: REASON`", n + 1))
                    .to_string(),
            ),
            [_, _, result, termination, rule, rest @ ..] => Expect::Game {
                result: result.to_string(),
                termination: termination.to_string(),
                rule: rule.to_string(),
                checks: rest
                    .iter()
                    .flat_map(|r| r.split("; "))
                    .map(str::to_string)
                    .collect(),
            },
            _ => panic!("matrix.txt:{}: bad cell row", n + 1),
        };
        cells.push(Cell {
            scenario: scenarios.len() - 1,
            ruleset: fields[0].to_string(),
            situation: fields[1].to_string(),
            expect,
        });
    }
    (scenarios, cells)
}

/// The cells `blitz-arena rules RULESET` prints: (situation, ruling), in order; its
/// `sources:` entry, which says in words where the rulings its text does not make come from, is
/// no cell ([`printed_sources`]).
fn printed_cells(ruleset: &str) -> Vec<(String, String)> {
    printed_entries(ruleset)
        .into_iter()
        .filter(|(situation, _)| situation != SOURCES)
        .collect()
}

/// The entry of `rules RULESET` that is no cell of the matrix.
const SOURCES: &str = "sources";

/// What `rules RULESET` says of where its rulings come from.
fn printed_sources(ruleset: &str) -> String {
    printed_entries(ruleset)
        .into_iter()
        .find(|(situation, _)| situation == SOURCES)
        .map(|(_, text)| text)
        .unwrap_or_else(|| panic!("`rules {ruleset}` prints no sources"))
}

/// Every entry `rules RULESET` prints under its heading: (name, text), in order.
fn printed_entries(ruleset: &str) -> Vec<(String, String)> {
    let out = Command::new(BIN).args(["rules", ruleset]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let mut cells: Vec<(String, String)> = Vec::new();
    for line in text.lines().skip(1) {
        if let Some(more) = line.strip_prefix("      ") {
            let last = cells.last_mut().expect("a cell before its continuation");
            last.1.push(' ');
            last.1.push_str(more.trim());
        } else if let Some(cell) = line.strip_prefix("  ") {
            let (situation, ruling) = cell.split_once(": ").unwrap_or((cell, ""));
            cells.push((
                situation.trim_end_matches(':').to_string(),
                ruling.to_string(),
            ));
        } else if line.is_empty() {
            break;
        }
    }
    cells
}

/// A cell with nothing to prove: no ruling (`none`), or a situation that cannot arise under
/// the ruleset (`n/a: ...`, `never: ...`).
fn is_empty_cell(ruling: &str) -> bool {
    ruling == "none" || ruling.starts_with("n/a") || ruling.starts_with("never:")
}

/// What a game gave: its games.csv row and its PGN, whitespace collapsed.
struct Played {
    row: HashMap<String, String>,
    pgn: String,
    /// How long each side's clock ran before its flag fell (`flag_on_clock_ms`).
    flag_on_clock_ms: BySide<Option<i64>>,
}

/// Plays `scenario` once under `ruleset` into `res/` of a new scratch folder, which it
/// returns; the error is the run's own when it fails.
fn run_scenario(scenario: &Scenario, ruleset: &str) -> Result<Scratch, String> {
    let s = Scratch::new(&format!("matrix-{}-{ruleset}", scenario.name));
    let engine = |moves: &str, tc: Option<&String>| {
        let mut table = "builtin = \"script\"\n".to_string();
        if moves != "-" {
            table.push_str(&format!("args = [\"--moves\", {moves:?}]\n"));
        }
        if let Some(tc) = tc {
            table.push_str(&format!("tc = {tc:?}\n"));
        }
        table
    };
    s.write(
        "engines.toml",
        &format!(
            "[engines.white]\n{}\n[engines.black]\n{}",
            engine(&scenario.white, None),
            engine(&scenario.black, scenario.black_tc.as_ref())
        ),
    );
    s.write("position.fen", &format!("{}\n", scenario.fen));
    let mut args = vec![
        "gauntlet",
        "white",
        "--vs",
        "black",
        "--openings",
        "position.fen",
        "--games",
        "1",
        "--ruleset",
        ruleset,
        "--seed",
        "1",
        "--out",
        "res",
    ];
    // A path into the repository's test data (`--tb tests/data/syzygy`) is relative to it.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let options: Vec<String> = scenario
        .options
        .split_whitespace()
        .map(|o| {
            if o.starts_with("tests/data/") {
                root.join(o).display().to_string()
            } else {
                o.to_string()
            }
        })
        .collect();
    args.extend(options.iter().map(String::as_str));
    let out = s.run(&args);
    if !out.status.success() {
        return Err(format!("the run failed: {}", stderr(&out).trim()));
    }
    Ok(s)
}

fn play(scenario: &Scenario, ruleset: &str) -> Result<Played, String> {
    let s = run_scenario(scenario, ruleset)?;
    let rows = csv_rows(&s.path("res/games.csv"));
    let pgn = std::fs::read_to_string(s.path("res/games.pgn")).unwrap();
    load_records(&s.path("res")).map_err(|e| format!("{e:#}"))?;
    let flag_on_clock_ms = BySide::from_fn(|side| flag_on_clock_ms(&s.path("res"), side));
    s.assert_no_engines_left();
    Ok(Played {
        row: rows.into_iter().next().ok_or("no game in games.csv")?,
        pgn: pgn.split_whitespace().collect::<Vec<_>>().join(" "),
        flag_on_clock_ms,
    })
}

/// What is wrong with a game against its cell row, if anything.
fn verdict(cell: &Cell, played: &Played) -> Vec<String> {
    let Expect::Game {
        result,
        termination,
        rule,
        checks,
    } = &cell.expect
    else {
        return Vec::new();
    };
    let row = &played.row;
    let mut wrong = Vec::new();
    let got = (
        row["result"].as_str(),
        row["termination"].as_str(),
        row["rule"].as_str(),
    );
    if got != (result.as_str(), termination.as_str(), rule.as_str()) {
        wrong.push(format!(
            "got {got:?}, expected {result} {termination} {rule:?}"
        ));
    }
    for check in checks {
        let ok = if let Some(text) = check.strip_prefix("detail~") {
            row["detail"].contains(text)
        } else if let Some(text) = check.strip_prefix("pgn~") {
            played.pgn.contains(text)
        } else if let Some((side, value)) = check.split_once("_flag_ms=").and_then(|(side, v)| {
            let side = [Side::White, Side::Black]
                .into_iter()
                .find(|s| s.name() == side)?;
            Some((side, v))
        }) {
            played.flag_on_clock_ms[side] == value.parse::<i64>().ok()
        } else if let Some((column, value)) = check.split_once('=') {
            row[column] == value
        } else if let Some((column, n)) = check.split_once('>') {
            // An empty column (a flag that did not fall) fails the check.
            row[column]
                .parse::<f64>()
                .is_ok_and(|v| v > n.parse::<f64>().unwrap())
        } else if let Some((column, n)) = check.split_once('<') {
            row[column]
                .parse::<f64>()
                .is_ok_and(|v| v < n.parse::<f64>().unwrap())
        } else {
            panic!("bad check {check:?}")
        };
        if !ok {
            wrong.push(format!("check {check:?} failed"));
        }
    }
    wrong.extend(detail_against_ruling(row));
    wrong
}

/// Issue 14.4: a detail states the facts its ruling rests on. A game ended by a flag names
/// every flag that fell, with its instant, in the order they fell, and the claim that decided
/// it (online: the server, no claim).
fn detail_against_ruling(row: &HashMap<String, String>) -> Vec<String> {
    let detail = &row["detail"];
    let mut wrong = Vec::new();
    if !matches!(row["termination"].as_str(), "flag" | "both-flags") {
        return wrong;
    }
    let mut fell: Vec<(f64, &str)> = ["white", "black"]
        .into_iter()
        .filter_map(|side| {
            let ms = &row[&format!("{side}_flag_ms")];
            (!ms.is_empty()).then(|| (ms.parse().unwrap(), side))
        })
        .filter(|(ms, _)| *ms <= row["duration_ms"].parse::<f64>().unwrap())
        .collect();
    fell.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut last = 0;
    for (ms, side) in &fell {
        let named = format!(
            "{side} flag fell at {:.1}",
            (ms / 1000.0 * 10.0).floor() / 10.0
        );
        let at = detail
            .find(&named)
            .or_else(|| detail.find(&format!("{side} flag at")));
        match at {
            Some(at) if at >= last => last = at,
            Some(_) => wrong.push(format!(
                "detail names {side}'s flag out of order: {detail:?}"
            )),
            None => wrong.push(format!(
                "detail does not name {side}'s flag at {ms} ms: {detail:?}"
            )),
        }
    }
    if fell.len() == 2 && row["termination"] != "both-flags" && row["rule"] != "H13" {
        wrong.push(format!(
            "two flags fell but the termination is {}",
            row["termination"]
        ));
    }
    // A flag ends the game online at once, and a mate after one's own flag (G§2) ends it
    // without a claim; every other flag ruling is a claim's.
    let unclaimed =
        row["rule"].starts_with("online") || detail.contains("a mate given after its own flag");
    if !unclaimed && !detail.contains("claimed") {
        wrong.push(format!("detail does not say who claimed: {detail:?}"));
    }
    wrong
}

/// For each cell `rules` prints, by (ruleset, position in its list): the rows that prove it.
type Covered = BTreeMap<(usize, usize), Vec<usize>>;

/// The cells of `rules`, each with its rows, and what is wrong with the table.
fn coverage(cells: &[Cell]) -> (Covered, Vec<String>) {
    let mut problems = Vec::new();
    let mut covered = BTreeMap::new();
    for (r, ruleset) in RULESETS.iter().enumerate() {
        let printed = printed_cells(ruleset);
        for (c, (situation, ruling)) in printed.iter().enumerate() {
            let rows: Vec<usize> = (0..cells.len())
                .filter(|&i| cells[i].ruleset == *ruleset && cells[i].situation == *situation)
                .collect();
            if rows.is_empty() && !is_empty_cell(ruling) {
                problems.push(format!(
                    "{ruleset} / {situation}: no scenario row ({ruling})"
                ));
            }
            if !rows.is_empty() && is_empty_cell(ruling) {
                problems.push(format!("{ruleset} / {situation}: a row for an empty cell"));
            }
            covered.insert((r, c), rows);
        }
        for cell in cells.iter().filter(|c| c.ruleset == *ruleset) {
            if !printed.iter().any(|(s, _)| *s == cell.situation) {
                problems.push(format!(
                    "{ruleset} / {}: `rules {ruleset}` prints no such cell",
                    cell.situation
                ));
            }
        }
    }
    (covered, problems)
}

#[test]
fn every_cell_of_the_matrix_is_proven_by_a_scenario_or_listed_as_not_producible() {
    let (_, cells) = table();
    let (_, problems) = coverage(&cells);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_scenario_row_plays_to_its_ruling() {
    let (scenarios, cells) = table();
    let only = std::env::var("MATRIX_ONLY").ok();
    let todo: Mutex<Vec<usize>> = Mutex::new(
        (0..cells.len())
            .filter(|&i| matches!(cells[i].expect, Expect::Game { .. }))
            .filter(|&i| {
                only.as_ref()
                    .is_none_or(|o| scenarios[cells[i].scenario].name == *o)
            })
            .rev()
            .collect(),
    );
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..6 {
            scope.spawn(|| loop {
                let Some(i) = todo.lock().unwrap().pop() else {
                    break;
                };
                let cell = &cells[i];
                let scenario = &scenarios[cell.scenario];
                let (wrong, detail) = match play(scenario, &cell.ruleset) {
                    Ok(played) => (verdict(cell, &played), played.row["detail"].clone()),
                    Err(e) => (vec![e], String::new()),
                };
                if !wrong.is_empty() {
                    failures.lock().unwrap().push(format!(
                        "{} / {} (scenario {}): {}\n  detail: {detail}",
                        cell.ruleset,
                        cell.situation,
                        scenario.name,
                        wrong.join("; "),
                    ));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// docs/rulesets.md: for each ruleset, each cell `rules` prints, with the scenario rows that
/// prove it.
fn rulesets_page() -> String {
    let (scenarios, cells) = table();
    let mut page = String::from(
        "# The rulings and the games that prove them\n\n\
         This page is generated from `blitz-arena rules` and `tests/matrix.txt` by\n\
         `UPDATE_DOCS=1 cargo test --test matrix`, and `cargo test` fails when it differs from\n\
         them. Each cell of the ruling matrix (a situation under a ruleset) is shown with the\n\
         ruling `rules` prints and the scenario that proves it: `cargo test --test matrix` plays\n\
         each one, end to end, with two built-in `script` engines, and checks the result, the\n\
         termination and the citation in `games.csv`. The scenarios are listed at the end; to\n\
         replay one, put its two scripts in an engines.toml as `white` and `black` (`builtin =\n\
         \"script\"`, `args = [\"--moves\", \"...\"]`), its FEN in a book, and run\n\
         `blitz-arena gauntlet white --vs black --openings BOOK --games 1 --ruleset RULESET\n\
         OPTIONS`. A cell marked — has no ruling to prove (`none`, `n/a`).\n\n\
         Exact watcher timings make every race a scenario whose outcome does not depend on a\n\
         random stream: `--flag-notice-after` (a fallen flag noticed a fixed time after it fell,\n\
         as the watcher's own side next moves, or never; per side) and `--illegal-notice-after`\n\
         (an illegal move noticed after a number of plies, or never), beside the fixed\n\
         `--claim-ms`.\n\n\
         A citation names the ruleset's own text first: `FIDE A4.3` is Appendix A as the `fide`\n\
         ruleset's text has it (the 2018 numbering, A1-A5), `FIDE Laws 5.1.1` an article of the\n\
         full FIDE Laws the appendix is part of. Each ruleset's Sources line says, with the\n\
         sentence of its text it rests on, where a ruling its text does not make comes from; a\n\
         ruling that reads a doubtful sentence quotes it in its cell.\n",
    );
    let (covered, _) = coverage(&cells);
    for (r, ruleset) in RULESETS.iter().enumerate() {
        page.push_str(&format!(
            "\n## {ruleset}\n\nSources: {}.\n\n| situation | ruling | proven by |\n|---|---|---|\n",
            printed_sources(ruleset)
        ));
        for (c, (situation, ruling)) in printed_cells(ruleset).iter().enumerate() {
            let rows = &covered[&(r, c)];
            let proof = if rows.is_empty() {
                "—".to_string()
            } else {
                rows.iter()
                    .map(|&i| match &cells[i].expect {
                        Expect::Game {
                            result,
                            termination,
                            rule,
                            checks,
                        } => format!(
                            "[{}](#scenario-{}): {result} {termination} ({rule}){}",
                            scenarios[cells[i].scenario].name,
                            scenarios[cells[i].scenario].name,
                            checks_in_words(checks)
                        ),
                        Expect::NotProducible(why) => format!("not producible: {why}"),
                    })
                    .collect::<Vec<_>>()
                    .join("<br>")
            };
            page.push_str(&format!(
                "| {situation} | {} | {proof} |\n",
                ruling.replace('|', "\\|")
            ));
        }
    }
    page.push_str("\n## The scenarios\n");
    for s in scenarios.iter().filter(|s| !s.fen.is_empty()) {
        page.push_str(&format!(
            "\n### scenario-{}\n\n{}.\n\n- FEN: `{}`\n- white: `{}`\n- black: {}{}\n- options: `{}`\n",
            s.name,
            s.what,
            s.fen,
            s.white,
            if s.black == "-" {
                "no script: the first legal move, at once".to_string()
            } else {
                format!("`{}`", s.black)
            },
            s.black_tc
                .as_ref()
                .map(|tc| format!("\n- black's own time control: `{tc}`"))
                .unwrap_or_default(),
            s.options
        ));
    }
    page
}

/// A row's further checks, for the page: `; PGN: "e8=Q"; black_ms_left > 50000`.
fn checks_in_words(checks: &[String]) -> String {
    checks
        .iter()
        .map(|c| {
            if let Some(t) = c.strip_prefix("detail~") {
                format!("; detail: “{t}”")
            } else if let Some(t) = c.strip_prefix("pgn~") {
                format!("; PGN: “{t}”")
            } else {
                let c = c
                    .replace('=', " = ")
                    .replace('>', " > ")
                    .replace('<', " < ");
                format!("; `{c}`")
            }
        })
        .collect()
}

#[test]
fn docs_rulesets_md_shows_each_cell_with_its_scenario() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rulesets.md");
    let page = rulesets_page();
    if std::env::var_os("UPDATE_DOCS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, &page).unwrap();
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        written == page,
        "docs/rulesets.md differs from `rules` and tests/matrix.txt: run \
         UPDATE_DOCS=1 cargo test --test matrix, and read the difference"
    );
}

/// `adjudicate` re-rules a run under the watchers it was played with: with exact timings, a
/// flag the record never saw noticed (online ended the game at once) is not assumed noticed at
/// once under house, but 1000 ms after it fell, as `--flag-notice-after black=1000` says.
#[test]
fn adjudicate_goes_by_the_exact_watcher_timings() {
    let (scenarios, _) = table();
    let own_flag = scenarios.iter().find(|s| s.name == "own-flag").unwrap();
    let s = run_scenario(own_flag, "online").unwrap();
    let out = s.run_ok(&["adjudicate", "res", "--ruleset", "house"]);
    let text = stdout(&out);
    assert!(
        text.contains(
            "black's watcher would notice white's fallen flag 1000 ms after it fell and claim, \
             its claim taking 800 ms"
        ),
        "{text}"
    );
    s.assert_no_engines_left();
}
