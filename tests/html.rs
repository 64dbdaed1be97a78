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
        "--window-size=1400,1000",
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

/// The inner text of the first element whose opening tag contains `needle` (up to its first
/// child tag).
fn text_of<'a>(dom: &'a str, needle: &str) -> &'a str {
    let i = dom
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in the page"));
    let start = i + dom[i..].find('>').unwrap() + 1;
    let end = start + dom[start..].find('<').unwrap();
    &dom[start..end]
}

/// The markup from the element whose opening tag contains `needle` to the first `close` after
/// it.
fn block<'a>(dom: &'a str, needle: &str, close: &str) -> &'a str {
    let i = dom
        .find(needle)
        .unwrap_or_else(|| panic!("no {needle} in the page"));
    let start = if needle.starts_with('<') {
        i
    } else {
        dom[..i].rfind('<').unwrap()
    };
    let end = start + dom[start..].find(close).unwrap();
    &dom[start..end]
}

/// The page's own measures of its layout, read from `#selfcheck`.
fn layout(dom: &str) -> HashMap<String, String> {
    elements(dom, r#"id="selfcheck""#).remove(0)
}

/// The board part of the FEN after the first `plies` half-moves (all of them when None) of
/// game number `game` (its `Round`) of a PGN file, and its number of half-moves (python-chess).
fn board_after(pgn: &Path, game: &str, plies: Option<usize>) -> (String, usize) {
    let out = python(
        "import sys, chess.pgn\n\
         f = open(sys.argv[1])\n\
         g = chess.pgn.read_game(f)\n\
         while g.headers['Round'] != sys.argv[2]: g = chess.pgn.read_game(f)\n\
         moves = list(g.mainline_moves())\n\
         n = int(sys.argv[3]) if sys.argv[3] else len(moves)\n\
         b = g.board()\n\
         for m in moves[:n]: b.push(m)\n\
         print(b.board_fen(), len(moves))",
        [
            pgn.display().to_string(),
            game.to_string(),
            plies.map_or(String::new(), |n| n.to_string()),
        ],
    );
    let (board, n) = out.trim().split_once(' ').unwrap();
    (board.to_string(), n.parse().unwrap())
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

/// Issue 26 item 6: what the page of a real run shows, checked in the browser: its header,
/// its summary box, its words, its colours, its layout at 1400 px and at 400 px, the
/// injections chart, the clock lines, and each game's board stepping through its moves.
#[test]
fn the_report_says_what_a_reader_needs_and_nothing_of_the_code() {
    let Some(browser) = chromium() else {
        assert!(!in_ci(), "CI=true but chromium is missing");
        eprintln!("SKIPPED: chromium is not installed (apt-get install chromium)");
        return;
    };
    let s = Scratch::new("html-reader");
    injection_run(&s);
    let page = s.path("run/report.html");
    let (dom, log) = load(&s, browser, &page);
    assert!(!log.contains("CONSOLE"), "console output: {log}");

    // The header: a phone can read it; what was played, under which rules and seed; the page's
    // own check out of sight unless it failed.
    assert!(dom.contains(r#"<meta name="viewport" content="width=device-width,initial-scale=1">"#));
    assert_eq!(
        text_of(&dom, r#"class="tc""#),
        "0.4s+0.01s (0.4 seconds + 0.01 seconds a move)"
    );
    assert_eq!(text_of(&dom, r#"class="ruleset""#), "uscf");
    assert_eq!(text_of(&dom, r#"class="seed""#), "9");
    let check = layout(&dom);
    assert_eq!(check["data-status"], "ok");
    assert!(
        check.contains_key("hidden") || dom.contains(r#"id="selfcheck" data-status="ok" hidden"#),
        "{check:?}"
    );
    assert!(!dom.contains("page check: ok"));

    // The summary box, as summary.csv and the LLR chart say.
    let pairing = csv_rows(&s.path("run/summary.csv"))
        .into_iter()
        .find(|r| r["kind"] == "pairing")
        .unwrap();
    let summary = &elements(&dom, r#"class="summarybox""#)[0];
    for (attr, column) in [
        ("data-games", "games"),
        ("data-wins", "wins"),
        ("data-draws", "draws"),
        ("data-losses", "losses"),
        ("data-elo", "elo"),
        ("data-elo-low", "elo_low"),
        ("data-elo-high", "elo_high"),
    ] {
        assert_eq!(summary[attr], pairing[column], "{attr}");
    }
    let penta: Vec<&str> = [
        "penta_ll",
        "penta_ld",
        "penta_dd_wl",
        "penta_wd",
        "penta_ww",
    ]
    .iter()
    .map(|c| pairing[*c].as_str())
    .collect();
    assert_eq!(summary["data-penta"], penta.join(" "));
    let llr = &elements(&dom, r#"data-chart="llr-vs-games""#)[0];
    assert_eq!(summary["data-llr"], llr["data-llr"]);
    assert_eq!(summary["data-upper"], "2.9444");
    let summary_html = block(&dom, r#"class="summarybox""#, "</div></div>");
    for row in ["Games", "Pentanomial", "Elo", "LLR", "Time control"] {
        assert!(
            summary_html.contains(&format!("<th>{row}</th>")),
            "{summary_html}"
        );
    }

    // Words, never the code's names or debug text.
    for code in [
        "Some(",
        "{ status",
        "Crash",
        "IllegalMove",
        "KingCapture",
        "notices Flag",
        "claims Flag",
        "[, ]",
    ] {
        assert!(!dom.contains(code), "the page shows {code:?}");
    }
    assert!(
        dom.contains("watcher notices black's fallen flag")
            || dom.contains("watcher notices white's fallen flag")
    );
    // LOS as the console writes it: never 100.0 % or 0.0 %.
    assert!(!dom.contains(r#"<td class="los">100"#) && !dom.contains(r#"<td class="los">0.0"#));
    // Bars say what they count, in English, and no label is cut off.
    for engine in csv_rows(&s.path("run/summary.csv"))
        .iter()
        .filter(|r| r["kind"] == "engine")
    {
        let n: u32 = engine["time_losses"].parse().unwrap();
        let words = if n == 1 {
            "1 loss on time".to_string()
        } else {
            format!("{n} losses on time")
        };
        assert!(dom.contains(&format!(">{words}<")), "{words}");
    }
    assert_eq!(
        check["data-clipped"], "0",
        "clipped: {}",
        check["data-clipped-texts"]
    );
    // No label straddles its chart's frame.
    assert_eq!(
        check["data-crossing"], "0",
        "crossing the frame: {}",
        check["data-crossing-texts"]
    );

    // One colour per engine on the whole page: the summary box, the tables, the games.
    let mut colours: HashMap<String, String> = HashMap::new();
    for el in elements(&dom, "data-colour-of=") {
        let colour = el["style"].split(':').nth(1).unwrap().to_string();
        let seen = colours
            .entry(el["data-colour-of"].clone())
            .or_insert(colour.clone());
        assert_eq!(*seen, colour, "{}", el["data-colour-of"]);
    }
    assert_eq!(colours.len(), 2);
    assert_ne!(colours["minimax"], colours["random"]);

    // Injections: each ruling in one colour; those that could not be made listed apart.
    let chart = block(&dom, r#"data-chart="injections""#, "</svg>");
    let mut fills: HashMap<(String, String), String> = HashMap::new();
    for rect in elements(chart, "data-ruled=") {
        let key = (rect["data-termination"].clone(), rect["data-rule"].clone());
        let fill = fills.entry(key.clone()).or_insert(rect["fill"].clone());
        assert_eq!(*fill, rect["fill"], "{key:?}");
    }
    assert!(!fills.is_empty());
    assert!(!chart.contains(":not-possible"), "{chart}");

    // Both clock lines start at the start (x 56.0 is the plot's left edge, time 0).
    for line in elements(&dom, "data-moves=") {
        assert!(line["d"].starts_with("M56.0,"), "{line:?}");
    }

    // Every game's board: its moves as games.pgn has them, the final position once the page's
    // script ran; `#game-N-ply-K` shows the position after K half-moves, with both clocks.
    let rows = csv_rows(&s.path("run/games.csv"));
    let pgn = s.path("run/games.pgn");
    for row in &rows {
        let game = &row["game"];
        let board = &elements(&dom, &format!(r#"class="replay" data-game="{game}""#))[0];
        let (fen, plies) = board_after(&pgn, game, None);
        assert_eq!(board["data-plies"], plies.to_string(), "game {game}");
        assert_eq!(board["data-ply"], plies.to_string(), "game {game}");
        assert_eq!(board["data-board"], fen, "game {game}");
    }
    let deep = format!("file://{}#game-1-ply-2", page.display());
    let out = headless(&s, browser)
        .arg("--dump-dom")
        .arg(deep)
        .output()
        .unwrap();
    let dom2 = stdout(&out);
    let board = block(&dom2, r#"class="replay" data-game="1""#, "</ol>");
    let attrs = &elements(board, "data-plies=")[0];
    assert_eq!(attrs["data-ply"], "2");
    assert_eq!(attrs["data-board"], board_after(&pgn, "1", Some(2)).0);
    assert_eq!(elements(board, "data-piece=").len(), 32);
    assert!(board.contains(r#"class="mv now" data-ply="2""#), "{board}");
    for side in ["white", "black"] {
        let clock = text_of(board, &format!(r#"class="clk" data-side="{side}""#));
        assert!(clock.starts_with(&format!("{side}: ")), "{clock}");
        let time = text_of(
            block(board, &format!(r#"data-side="{side}""#), "</div>"),
            r#"class="time""#,
        );
        assert!(time.starts_with("0:00."), "{side}: {time}");
    }

    // The layout: charts as wide as a 1400 px page, nothing wider than a 400 px one.
    assert!(
        check["data-widest-plot"].parse::<u32>().unwrap() > 1000,
        "{check:?}"
    );
    assert_eq!(check["data-page-overflow"], "0", "{check:?}");
    let narrow = s.write(
        "narrow.html",
        &std::fs::read_to_string(&page).unwrap().replacen(
            "</head>",
            "<style>html{width:400px}</style></head>",
            1,
        ),
    );
    let (dom, _) = load(&s, browser, &narrow);
    let check = layout(&dom);
    assert_eq!(check["data-page-width"], "400");
    assert_eq!(check["data-page-overflow"], "0", "{check:?}");
    assert_eq!(
        check["data-clipped"], "0",
        "{}",
        check["data-clipped-texts"]
    );
}

/// Issue 26 items 6 and 8: one pair of games, both won by the same engine, has an infinite Elo
/// and nothing to estimate an interval, a normalized Elo or a pentanomial LOS from: the console,
/// summary.csv and the report say n/a with the reason, never a certainty, and the report draws
/// the infinite Elo at the axis's end and no interval.
#[test]
fn too_few_games_say_so_in_the_console_the_csv_and_the_report() {
    let Some(browser) = chromium() else {
        assert!(!in_ci(), "CI=true but chromium is missing");
        eprintln!("SKIPPED: chromium is not installed (apt-get install chromium)");
        return;
    };
    let s = Scratch::new("html-few");
    s.write("engines.toml", ENGINES);
    let out = s.run_ok(&[
        "gauntlet", "minimax", "--vs", "random", "--tc", "10+0.1", "--depth", "2", "--games", "2",
        "--seed", "3", "--out", "few",
    ]);
    let text = stdout(&out);
    let rows = csv_rows(&s.path("few/games.csv"));
    assert!(
        rows.iter().all(|r| r["termination"] == "checkmate"),
        "minimax mates random in both games: {text}"
    );
    // The console: the pair's LOS and nElo cannot be estimated; the four games' trinomial LOS
    // can (92.14 %).
    let penta = text
        .lines()
        .find(|l| l.starts_with("minimax vs random  [0, 0, 0, 0, 1]"))
        .unwrap();
    assert!(
        penta.ends_with("inf ± n/a (no spread)  n/a (no spread)  n/a (no spread)"),
        "{text}"
    );
    assert!(
        !text.contains(">99.99%") && !text.contains("100.00%"),
        "{text}"
    );
    assert!(text.contains("inf  n/a (no spread)  92.14%"), "{text}");
    // summary.csv: empty where there is nothing to say.
    for row in csv_rows(&s.path("few/summary.csv")) {
        for column in [
            "elo_low",
            "elo_high",
            "penta_elo_error",
            "nelo",
            "nelo_error",
            "penta_los_pct",
        ] {
            assert_eq!(row[column], "", "{column} of {row:?}");
        }
        assert!(
            row["los_pct"] == "92.1350" || row["los_pct"] == "7.8650",
            "{row:?}"
        );
    }
    // The report.
    let (dom, log) = load(&s, browser, &s.path("few/report.html"));
    assert!(!log.contains("CONSOLE"), "console output: {log}");
    assert_eq!(layout(&dom)["data-status"], "ok");
    for (engine, edge) in [("minimax", "M888.0,"), ("random", "M56.0,")] {
        let mark = block(
            &dom,
            &format!(r#"<g class="elo" data-engine="{engine}""#),
            "</g>",
        );
        let g = &elements(mark, r#"class="elo""#)[0];
        assert_eq!(g["data-interval"], "none", "{engine}");
        assert!(
            !mark.contains(r#"class="interval""#) && !mark.contains(r#"class="point""#),
            "{mark}"
        );
        let arrow = &elements(mark, r#"class="infinite""#)[0];
        assert!(arrow["d"].starts_with(edge), "{engine}: {arrow:?}");
        let row = block(&dom, &format!(r#"<tr data-engine="{engine}""#), "</tr>");
        assert_eq!(text_of(row, r#"class="interval""#), "n/a (no spread)");
        let los = text_of(row, r#"class="los""#);
        assert!(los == "92.14%" || los == "7.86%", "{engine}: {los}");
    }
    assert!(!dom.contains("[, ]"));
    // No band on the match chart: no game so far had a spread.
    assert!(!dom.contains(r#"data-series="elo-low""#));
    let summary = block(&dom, r#"class="summarybox""#, "</div></div>");
    assert!(
        summary.contains("inf, 95 % interval n/a (no spread) · LOS 92.14%"),
        "{summary}"
    );
    assert!(summary.contains("inf ± n/a (no spread)"), "{summary}");
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
    let (mut report, tally, _) =
        blitz_arena::report::html::from_folders(&dirs, None, None).unwrap();
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
