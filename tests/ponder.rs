//! Pondering end to end, with real engine processes: the built-in `minimax` and Debian's
//! Stockfish ponder through whole games (`go ponder`, `ponderhit`, `stop` on a miss), every
//! game is ruled, `adjudicate` re-rules the record the same, and no process is left.

mod common;

use blitz_arena::event::{BySide, Event, GameRecord, Side};
use common::*;

fn records(s: &Scratch) -> Vec<GameRecord> {
    std::fs::read_to_string(s.path("res/events.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// What pondering did in one game, per side (white first).
#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct Tally {
    /// `go ponder` sent.
    pondered: usize,
    /// `ponderhit` sent.
    hits: usize,
    /// Stopped: a miss, or the game ended while it pondered.
    stopped: usize,
}

/// Checks the record's pondering is consistent, and counts it. Each `go ponder` ends in
/// exactly one of: a ponderhit (the opponent played the move pondered), a stop; a ponderhit
/// exactly when the opponent's move was the move pondered on.
fn tally(record: &GameRecord) -> BySide<Tally> {
    let mut tally = BySide::<Tally>::default();
    let mut pondering: BySide<Option<String>> = BySide::default();
    let mut last_move: Option<String> = None;
    for event in &record.events {
        match event {
            Event::Ponder { side, ponder, .. } => {
                assert!(pondering[*side].is_none(), "{record:?}");
                pondering[*side] = Some(ponder.clone());
                tally[*side].pondered += 1;
            }
            Event::Move { uci, .. } => last_move = Some(uci.clone()),
            Event::Go {
                side, ponderhit, ..
            } => {
                let pondered = pondering[*side].take();
                if *ponderhit {
                    assert_eq!(pondered, last_move, "game {}", record.game);
                    tally[*side].hits += 1;
                } else {
                    assert!(
                        pondered.is_none(),
                        "game {}: a go while pondering",
                        record.game
                    );
                }
            }
            Event::PonderStopped { side, .. } => {
                let pondered = pondering[*side].take();
                assert!(pondered.is_some(), "game {}", record.game);
                tally[*side].stopped += 1;
            }
            _ => {}
        }
    }
    assert_eq!(
        pondering,
        BySide::default(),
        "game {}: not stopped",
        record.game
    );
    tally
}

fn assert_ruled_by_the_board(s: &Scratch, games: usize) {
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), games);
    for row in &rows {
        assert!(
            [
                "checkmate",
                "stalemate",
                "max-moves",
                "threefold",
                "fivefold",
                "insufficient-material",
                "fifty-moves",
                "seventy-five-moves",
                "dead-position"
            ]
            .contains(&row["termination"].as_str()),
            "{row:?}"
        );
    }
}

/// Re-ruling the record under the ruleset it was played under changes nothing.
fn assert_rerules_the_same(s: &Scratch, games: usize) {
    let out = s.run_ok(&["adjudicate", "--ruleset", "fide", "res"]);
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains(&format!("{games} games, 0 rulings differ under fide")),
        "{text}"
    );
}

/// `--ponder`: two `minimax` processes ponder on each other's time through whole games at a
/// fixed depth. Both ponder on every move they name a reply for, hits occur (the same engine
/// predicts its own replies), every ponder ends in a ponderhit exactly when its move was
/// played, or in a stop; an engine without the `Ponder` option is warned about and does not
/// ponder.
#[test]
fn minimax_ponders_through_whole_games() {
    let s = Scratch::new("ponder");
    s.write(
        "engines.toml",
        &format!(
            "{}[engines.b]\nbuiltin = \"minimax\"\n[engines.random]\nbuiltin = \"random\"\noptions = {{ Seed = 7 }}\n",
            wrapped("a", &format!("{BIN} engine minimax"))
        ),
    );
    let out = s.run_ok(&[
        "gauntlet",
        "a",
        "--vs",
        "b,random",
        "--ponder",
        "--tc",
        "60+0",
        "--depth",
        "3",
        "--max-moves",
        "20",
        "--games",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "1",
        "--out",
        "res",
    ]);
    s.assert_no_engines_left();
    let err = stderr(&out);
    assert!(
        err.contains("warning: engine random has no UCI option Ponder: it plays without pondering"),
        "{err}"
    );
    assert!(!err.contains("warning: engine a "), "{err}");
    assert_ruled_by_the_board(&s, 4);
    let mut hits = 0;
    let mut a = Tally::default();
    for record in records(&s) {
        let t = tally(&record);
        for side in [Side::White, Side::Black] {
            let name = if side == Side::White {
                &record.white
            } else {
                &record.black
            };
            let t = t[side];
            if name == "random" {
                assert_eq!(t, Tally::default(), "game {}", record.game);
            } else {
                assert!(
                    t.pondered > 0,
                    "game {}: {name} never pondered",
                    record.game
                );
                hits += t.hits;
                if name == "a" {
                    a.pondered += t.pondered;
                    a.hits += t.hits;
                    a.stopped += t.stopped;
                }
            }
        }
    }
    assert!(hits > 0, "no ponderhit in any game");
    // What engine a's processes read is what the record says they were sent.
    assert_eq!(read_by(&s, "a", "go ponder "), a.pondered);
    assert_eq!(read_by(&s, "a", "ponderhit"), a.hits);
    assert_eq!(read_by(&s, "a", "stop"), a.stopped);
    // The summary's ponderhit rate, engines in name order (random never pondered).
    let line = format!(
        "pondering: a {} ponderhits of {} ponder searches",
        a.hits, a.pondered
    );
    let summary = stdout(&out);
    assert!(summary.contains(&line), "{summary}");
    assert!(!summary.contains("random 0 of"), "{summary}");
    assert_rerules_the_same(&s, 4);
    // A resumed run ponders as it was planned (run.json): --ponder cannot change that.
    let resumed = s.run(&[
        "gauntlet", "a", "--vs", "b,random", "--resume", "res", "--ponder",
    ]);
    assert_usage_error(&resumed, "drop --ponder");
}

/// What the engine processes read, from the `tee` each is started behind (`wrapped`): the
/// number of lines starting with `prefix`, over every `NAME-PID.in` file of the scratch folder.
/// (Stockfish's own `Debug Log File` is no witness: its threads write it unsynchronised, and it
/// loses or doubles lines.)
fn read_by(s: &Scratch, name: &str, prefix: &str) -> usize {
    std::fs::read_dir(&s.dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let file = p.file_name().unwrap().to_string_lossy().into_owned();
            file.starts_with(&format!("{name}-")) && file.ends_with(".in")
        })
        .map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .filter(|l| l.starts_with(prefix))
                .count()
        })
        .sum()
}

/// An engines.toml table that runs `command` behind a `tee` into `NAME-PID.in`.
fn wrapped(name: &str, command: &str) -> String {
    format!(
        "[engines.{name}]\ncmd = \"/bin/sh\"\nargs = [\"-c\", \"tee {name}-$$.in | exec {command}\"]\n"
    )
}

/// Stockfish (`ponder = true` in engines.toml) against minimax (no pondering): what Stockfish
/// read shows it was sent exactly the `go ponder`, `ponderhit` and `stop` lines the record
/// says.
#[test]
fn stockfish_ponders_and_its_log_matches_the_record() {
    if !debian_engines(&["stockfish"]) {
        return;
    }
    let s = Scratch::new("ponder-sf");
    s.write(
        "engines.toml",
        &format!(
            "{}options = {{ Hash = 16, Threads = 1 }}\nponder = true\n\
             [engines.minimax]\nbuiltin = \"minimax\"\n",
            wrapped("stockfish", "/usr/games/stockfish")
        ),
    );
    s.run_ok(&[
        "gauntlet",
        "stockfish",
        "--vs",
        "minimax",
        "--tc",
        "60+0",
        "--nodes",
        "3000",
        "--max-moves",
        "20",
        "--games",
        "2",
        "--concurrency",
        "1",
        "--seed",
        "2",
        "--out",
        "res",
    ]);
    s.assert_no_engines_left();
    assert_ruled_by_the_board(&s, 2);
    let mut sf = Tally::default();
    for record in records(&s) {
        let t = tally(&record);
        let mine = if record.white == "stockfish" {
            Side::White
        } else {
            Side::Black
        };
        let theirs = mine.other();
        assert_eq!(t[theirs], Tally::default(), "game {}", record.game);
        sf.pondered += t[mine].pondered;
        sf.hits += t[mine].hits;
        sf.stopped += t[mine].stopped;
    }
    assert!(sf.pondered > 0 && sf.hits > 0, "{sf:?}");
    let sent = |prefix: &str| read_by(&s, "stockfish", prefix);
    // The check before the run, and the game's process.
    assert_eq!(sent("setoption name Ponder value true"), 2);
    assert_eq!(sent("go ponder "), sf.pondered);
    assert_eq!(sent("ponderhit"), sf.hits);
    // Every stop it was sent ended a ponder search (its own moves are never stopped here).
    assert_eq!(sent("stop"), sf.stopped);
    assert_rerules_the_same(&s, 2);
}

/// `check` says which engines configured to ponder cannot (no `Ponder` option); it is a
/// warning, not a failure.
#[test]
fn check_warns_of_an_engine_that_cannot_ponder() {
    let s = Scratch::new("ponder-check");
    s.write(
        "engines.toml",
        "[engines.minimax]\nbuiltin = \"minimax\"\nponder = true\n\
         [engines.random]\nbuiltin = \"random\"\nponder = true\n",
    );
    let out = s.run_ok(&["check"]);
    let text = stdout(&out);
    let warning =
        "  warning: ponder = true, but it has no UCI option Ponder: it plays without pondering";
    let lines: Vec<&str> = text.lines().collect();
    let after = |name: &str| {
        let i = lines
            .iter()
            .position(|l| l.starts_with(&format!("{name}: ok")))
            .unwrap_or_else(|| panic!("{text}"));
        lines[i + 1]
    };
    assert_eq!(after("random"), warning, "{text}");
    assert_ne!(after("minimax"), warning, "{text}");
    assert_eq!(text.matches("warning").count(), 1, "{text}");
    s.assert_no_engines_left();
}

/// The pondering line docs/play.md shows is what its run prints: two `minimax` engines `a`
/// and `b` with the options the page gives. Node-limited searches make it the same every run.
#[test]
fn the_pondering_line_of_docs_play_is_what_its_run_prints() {
    let page = include_str!("../docs/play.md")
        .split_whitespace()
        .collect::<Vec<_>>();
    let page = page.join(" ");
    let between = |start: &str| -> &str {
        let from = page.find(start).unwrap_or_else(|| panic!("no {start:?}")) + start.len();
        &page[from..from + page[from..].find('`').unwrap()]
    };
    let line = between("as cutechess's ponderhit rate: `");
    let options = between("(two `minimax` engines `a` and `b`, `");
    let s = Scratch::new("docs-ponder");
    s.write(
        "engines.toml",
        "[engines.a]\nbuiltin = \"minimax\"\n[engines.b]\nbuiltin = \"minimax\"\n",
    );
    let mut args = vec!["gauntlet", "a", "--vs", "b", "--out", "res"];
    args.extend(options.split(' '));
    let out = s.run_ok(&args);
    assert!(stdout(&out).contains(line), "{line}\n{}", stdout(&out));
}
