//! End-to-end rulings (docs/rulesets.md) with real processes and real time: the `blitz-arena`
//! binary plays one game between two `script` engines (or a script and Stockfish) from a
//! one-line EPD, and the CSV row, the event record and the PGN must show the ruling each
//! ruleset gives. A scenario is played under every ruleset whose ruling it shows, the games at
//! once (the engines sleep through their scripted think times, so they do not disturb each
//! other's clocks).
//!
//! Timings: the games use 500 ms or 1 s clocks (10 s for Stockfish, done within 0.3 s) and
//! scripted think times far apart. The scenarios whose rulings hang on the order of instants
//! (late watchers, claims racing flags, both flags down, the FIDE minute) are tested exactly, in
//! virtual time, in src/game/tests.rs; these are the real-process smoke tests.

mod common;

use std::collections::HashMap;

use blitz_arena::event::{Claimable, Event, GameRecord, Side};
use common::*;

const WHITE: &str = "1-0";
const BLACK: &str = "0-1";
const DRAW: &str = "1/2-1/2";

/// An engines.toml table body for a script engine.
fn script(moves: &str) -> String {
    format!("builtin = \"script\"\nargs = [\"--moves\", {moves:?}]\n")
}

/// One game to set up: a position, the two engines, run options.
#[derive(Clone)]
struct Scenario {
    fen: &'static str,
    /// engines.toml table bodies of `w` (white) and `b` (black).
    white: String,
    black: String,
    tc: &'static str,
    seed: u64,
    options: Vec<String>,
}

impl Scenario {
    /// Two script engines on `fen` (white to move), 500 ms each, `--seed 1`.
    fn new(fen: &'static str, white_moves: &str, black_moves: &str) -> Scenario {
        Scenario {
            fen,
            white: script(white_moves),
            black: script(black_moves),
            tc: "500ms+0",
            seed: 1,
            options: Vec::new(),
        }
    }

    fn option(mut self, name: &str, value: &str) -> Scenario {
        self.options.push(name.to_string());
        self.options.push(value.to_string());
        self
    }

    fn tc(mut self, tc: &'static str) -> Scenario {
        self.tc = tc;
        self
    }

    fn seed(mut self, seed: u64) -> Scenario {
        self.seed = seed;
        self
    }

    /// Plays the game under `ruleset`, checks that the run left no process behind and that
    /// the CSV, the PGN and the event record agree.
    fn play(&self, ruleset: &str) -> Game {
        let s = Scratch::new(&format!("rulesets-{ruleset}"));
        s.write(
            "engines.toml",
            &format!("[engines.w]\n{}\n[engines.b]\n{}\n", self.white, self.black),
        );
        s.write("position.epd", &format!("{}\n", self.fen));
        let seed = self.seed.to_string();
        let mut args = vec![
            "gauntlet",
            "w",
            "--vs",
            "b",
            "--games",
            "1",
            "--openings",
            "position.epd",
            "--openings-order",
            "sequential",
            "--concurrency",
            "1",
            "--tc",
            self.tc,
            "--seed",
            &seed,
            "--ruleset",
            ruleset,
            "--out",
            "res",
        ];
        args.extend(self.options.iter().map(String::as_str));
        s.run_ok(&args);
        s.assert_no_engines_left();
        let mut rows = csv_rows(&s.path("res/games.csv"));
        assert_eq!(rows.len(), 1, "{ruleset}: one game");
        let row = rows.remove(0);
        let events = std::fs::read_to_string(s.path("res/events.jsonl")).unwrap();
        let record: GameRecord = serde_json::from_str(events.lines().next().unwrap()).unwrap();
        let mut pgn = pgn_games(&s.path("res/games.pgn"));
        assert_eq!(pgn.len(), 1, "{ruleset}: one PGN game");
        let (tags, movetext) = pgn.remove(0);
        let game = Game {
            ruleset: ruleset.to_string(),
            row,
            record,
            tags,
            movetext,
        };
        game.check_files_agree();
        game
    }

    /// Plays the game under each ruleset (at once) and checks each ruling: `(ruleset, result,
    /// termination, rule)`. Returns the games in the same order.
    fn rule_each(&self, expected: &[(&str, &str, &str, &str)]) -> Vec<Game> {
        let games: Vec<Game> = std::thread::scope(|scope| {
            let runs: Vec<_> = expected
                .iter()
                .map(|&(ruleset, ..)| scope.spawn(move || self.play(ruleset)))
                .collect();
            runs.into_iter()
                .map(|run| run.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
        for (game, &(_, result, termination, rule)) in games.iter().zip(expected) {
            game.expect(result, termination, rule);
        }
        games
    }
}

/// One finished game: its CSV row, its event record and its PGN.
struct Game {
    ruleset: String,
    row: HashMap<String, String>,
    record: GameRecord,
    tags: HashMap<String, String>,
    movetext: String,
}

impl Game {
    /// The event record, one line per event (times in ms), for failure messages.
    fn events(&self) -> String {
        let mut text = String::new();
        for event in &self.record.events {
            let mut value = serde_json::to_value(event).unwrap();
            let map = value.as_object_mut().unwrap();
            map.remove("t_us");
            let name = map.remove("event").unwrap();
            text.push_str(&format!(
                "  {:9.3} ms {} {}\n",
                event.t_us() as f64 / 1000.0,
                name.as_str().unwrap(),
                value
            ));
        }
        text
    }

    /// Panics with `what`, the ruleset, the CSV row's ruling and the event list.
    #[track_caller]
    fn fail(&self, what: &str) -> ! {
        panic!(
            "{}: {what}\nrow: {} {} ({}) {:?}\nevents:\n{}",
            self.ruleset,
            self.row["result"],
            self.row["termination"],
            self.row["rule"],
            self.row["detail"],
            self.events()
        )
    }

    #[track_caller]
    fn check(&self, ok: bool, what: &str) {
        if !ok {
            self.fail(what);
        }
    }

    #[track_caller]
    fn expect(&self, result: &str, termination: &str, rule: &str) {
        let got = (
            self.row["result"].as_str(),
            self.row["termination"].as_str(),
            self.row["rule"].as_str(),
        );
        if got != (result, termination, rule) {
            self.fail(&format!(
                "expected {result} {termination} ({rule}), got {} {} ({})",
                got.0, got.1, got.2
            ));
        }
    }

    fn check_files_agree(&self) {
        let outcome = self.record.outcome().expect("the record has its end");
        self.check(
            outcome.result.as_str() == self.row["result"]
                && outcome.termination.as_str() == self.row["termination"]
                && outcome.rule == self.row["rule"],
            "the CSV row and the End event differ",
        );
        self.check(
            self.tags["Result"] == self.row["result"] && self.tags["RuleCited"] == self.row["rule"],
            &format!("the PGN tags differ from the CSV: {:?}", self.tags),
        );
        self.check(
            self.tags["Ruleset"] == self.ruleset && self.row["ruleset"] == self.ruleset,
            "ruleset",
        );
        self.check(
            self.tags["Termination"] == outcome.termination.pgn_tag(),
            "PGN Termination tag",
        );
        self.check(
            self.movetext.trim_end().ends_with(&self.row["result"]),
            "PGN movetext ends with the result",
        );
        self.check(
            self.row["illegal_moves"] == self.record.illegal_moves().to_string(),
            "illegal_moves column",
        );
        for (side, column) in [
            (Side::White, "white_flag_ms"),
            (Side::Black, "black_flag_ms"),
        ] {
            let from_events = self
                .record
                .flag_us(side)
                .map(|us| us.div_euclid(1000).to_string())
                .unwrap_or_default();
            self.check(self.row[column] == from_events, column);
        }
    }

    /// A CSV column as a number (`None` when empty).
    fn ms(&self, column: &str) -> Option<i64> {
        let text = &self.row[column];
        (!text.is_empty()).then(|| {
            text.parse()
                .unwrap_or_else(|_| self.fail(&format!("{column} = {text:?}")))
        })
    }

    /// The events matching `pred`, in order.
    fn find(&self, pred: impl Fn(&Event) -> bool) -> Vec<&Event> {
        self.record.events.iter().filter(|e| pred(e)).collect()
    }

    /// The time (µs) of the `n`-th (0-based) event matching `pred`.
    #[track_caller]
    fn t(&self, n: usize, what: &str, pred: impl Fn(&Event) -> bool) -> i64 {
        self.find(pred)
            .get(n)
            .map(|e| e.t_us())
            .unwrap_or_else(|| self.fail(&format!("no {what} (#{n})")))
    }

    /// The `n`-th `go` of `side`: (time, clock sent), µs.
    #[track_caller]
    fn go(&self, side: Side, n: usize) -> (i64, i64) {
        let gos = self.find(|e| matches!(e, Event::Go { side: s, .. } if *s == side));
        match gos.get(n) {
            Some(Event::Go { t_us, clock_us, .. }) => (*t_us, *clock_us),
            _ => self.fail(&format!("no go #{n} for {}", side.name())),
        }
    }

    #[track_caller]
    fn flag(&self, side: Side) -> i64 {
        self.record
            .flag_us(side)
            .unwrap_or_else(|| self.fail(&format!("{}'s flag did not fall", side.name())))
    }

    fn notices(&self, by: Side, what: Claimable) -> Vec<i64> {
        self.find(|e| matches!(e, Event::Notice { by: b, what: w, .. } if *b == by && *w == what))
            .iter()
            .map(|e| e.t_us())
            .collect()
    }

    /// When `by`'s watcher missed an illegal move (µs).
    fn unnoticed(&self, by: Side) -> Vec<i64> {
        self.find(|e| matches!(e, Event::Unnoticed { by: b, .. } if *b == by))
            .iter()
            .map(|e| e.t_us())
            .collect()
    }

    fn claims(&self, by: Side, what: Claimable) -> Vec<i64> {
        self.find(|e| matches!(e, Event::Claim { by: b, what: w, .. } if *b == by && *w == what))
            .iter()
            .map(|e| e.t_us())
            .collect()
    }

    /// The penalties: (side, µs added, rule).
    fn penalties(&self) -> Vec<(Side, i64, String)> {
        self.record
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Penalty {
                    side, add_us, rule, ..
                } => Some((*side, *add_us, rule.clone())),
                _ => None,
            })
            .collect()
    }

    /// The legal moves of `side`, in order.
    fn moves(&self, side: Side) -> Vec<&str> {
        self.record
            .moves()
            .filter(|m| m.0 == side)
            .map(|m| m.1)
            .collect()
    }

    /// The think time (µs) of every move `side` sent, legal or not.
    fn think_us(&self, side: Side) -> i64 {
        self.record
            .events
            .iter()
            .filter_map(|e| match e {
                Event::Move {
                    side: s, think_us, ..
                }
                | Event::IllegalMove {
                    side: s, think_us, ..
                } if *s == side => Some(*think_us),
                _ => None,
            })
            .sum()
    }

    /// Checks a clock column of the CSV (ms, floored) against a clock in µs.
    #[track_caller]
    fn check_clock(&self, column: &str, expected_us: i64, what: &str) {
        let got = self.ms(column);
        self.check(
            got.is_some_and(|ms| (ms - expected_us.div_euclid(1000)).abs() <= 1),
            &format!("{column} = {got:?}, expected {expected_us} us: {what}"),
        );
    }
}

/// `a` and `b` are the same instant, give or take the µs rounding of two event times.
fn same_instant(a: i64, b: i64) -> bool {
    (a - b).abs() <= 1
}

// 1. A flag falls and is noticed at once (default watchers): K+N against K+R, the side with
// the rook flags. Only WBCA and USCF look at material tables that say a lone knight cannot
// mate; FIDE and generic find a helpmate; house wins whatever the material; online's lichess
// rule draws K+N only against a bare king or queens.
#[test]
fn a_flag_noticed_at_once_knight_against_rook() {
    let sc = Scenario::new("r3k3/8/8/8/8/8/8/4K1N1 w - - 0 1", "g1f3@50ms", "a8a1@5s");
    let games = sc.rule_each(&[
        ("house", WHITE, "flag", "H3.1, H10"),
        ("generic", WHITE, "flag", "G§2"),
        ("wbca", DRAW, "flag", "WBCA 8f"),
        ("fide", WHITE, "flag", "FIDE A4.3"),
        ("uscf", DRAW, "flag", "USCF 8d"),
        ("online", WHITE, "flag", "online: flag"),
    ]);
    for g in &games {
        let (go, sent) = g.go(Side::Black, 0);
        g.check(sent == 500_000, "black is told its full 500 ms");
        let fell = g.flag(Side::Black);
        g.check(
            same_instant(fell, go + 500_000),
            "the flag falls the instant black's 500 ms are used up",
        );
        // The claim completes at the fall and stops the clocks there.
        g.check(g.ms("black_ms_left") == Some(0), "black's clock stops at 0");
        g.check_clock(
            "white_ms_left",
            500_000 - g.think_us(Side::White),
            "white used its 50 ms",
        );
        g.check(g.ms("white_flag_ms").is_none(), "white's flag is up");
        if g.ruleset != "online" {
            g.check(
                g.notices(Side::White, Claimable::Flag) == [fell]
                    && g.claims(Side::White, Claimable::Flag) == [fell],
                "white notices and claims at the fall",
            );
        }
        if g.row["result"] == DRAW {
            g.check(
                g.row["detail"].contains("white cannot mate"),
                "the draw says why",
            );
        }
    }
}

/// Checks a noticed illegal move of white's: black notices it at once and claims at once.
#[track_caller]
fn check_noticed_at_once(g: &Game) {
    let moved = g.t(0, "illegal move", |e| {
        matches!(e, Event::IllegalMove { .. })
    });
    if g.ruleset == "online" {
        g.check(
            g.notices(Side::Black, Claimable::IllegalMove).is_empty(),
            "online rules at once",
        );
        return;
    }
    g.check(
        g.notices(Side::Black, Claimable::IllegalMove).first() == Some(&moved)
            && g.claims(Side::Black, Claimable::IllegalMove).first() == Some(&moved),
        "black notices and claims at the clock press",
    );
}

/// FIDE 7.5.5: the first illegal move gives black a minute and white moves again; the second
/// ends the game. Checks the penalty, the second `go` and black's clock.
#[track_caller]
fn check_fide_second_illegal_move(g: &Game, rule: &str) {
    g.check(g.row["illegal_moves"] == "2", "two illegal moves");
    g.check(
        g.penalties() == [(Side::Black, 60_000_000, rule.to_string())],
        "one penalty: black +60 s",
    );
    let claim = g.claims(Side::Black, Claimable::IllegalMove)[0];
    let (again, clock) = g.go(Side::White, 1);
    g.check(again >= claim, "white moves again after the claim");
    let first = match g.find(|e| matches!(e, Event::IllegalMove { .. }))[0] {
        Event::IllegalMove { think_us, .. } => *think_us,
        _ => unreachable!(),
    };
    g.check(
        clock == 500_000 - first,
        "white's clock goes on from where it stopped",
    );
    // The claims complete at the clock presses: black's clock never ran.
    g.check_clock("black_ms_left", 60_500_000, "black has the added minute");
}

// 5. A completed illegal move, noticed (`--illegal-notice 1`, the default). The claimant has
// mating material (a rook): the offender loses everywhere but FIDE, where the first illegal
// move costs a minute and the second loses.
#[test]
fn a_noticed_illegal_move_when_the_claimant_can_mate() {
    let sc = Scenario::new(
        "3rk3/8/8/8/8/8/8/4K2R w - - 0 1",
        "e1d2@20ms e1d1@20ms",
        "e8e7@20ms",
    );
    let games = sc.rule_each(&[
        ("house", BLACK, "illegal-move", "H3.4, H18, H19"),
        ("generic", BLACK, "illegal-move", "G§3"),
        ("wbca", BLACK, "illegal-move", "WBCA 14"),
        ("fide", BLACK, "illegal-move", "FIDE A4.2, 7.5.5"),
        ("uscf", BLACK, "illegal-move", "USCF 7d"),
        ("online", BLACK, "illegal-move", "online: illegal move"),
    ]);
    for g in &games {
        check_noticed_at_once(g);
        g.check(g.moves(Side::Black).is_empty(), "black never moved");
        if g.ruleset == "fide" {
            check_fide_second_illegal_move(g, "FIDE A4.2, 7.5.5");
        } else {
            g.check(g.row["illegal_moves"] == "1", "one illegal move");
            g.check(g.penalties().is_empty(), "no penalty");
            g.check(
                g.ms("black_ms_left") == Some(500),
                "black's clock untouched",
            );
        }
    }
}

// 5b. The claimant has a bare king: a draw where mating material counts (generic, WBCA, USCF;
// FIDE at the second illegal move), a loss under house and online.
#[test]
fn a_noticed_illegal_move_when_the_claimant_cannot_mate() {
    let sc = Scenario::new(
        "4k3/8/8/8/8/8/8/4K2R w - - 0 1",
        "h1g2@20ms h1g2@20ms",
        "e8e7@20ms",
    );
    let games = sc.rule_each(&[
        ("house", BLACK, "illegal-move", "H3.4, H18, H19"),
        ("generic", DRAW, "illegal-move", "G§3"),
        ("wbca", DRAW, "illegal-move", "WBCA 14, 8f"),
        ("fide", DRAW, "illegal-move", "FIDE A4.2, 7.5.5"),
        ("uscf", DRAW, "illegal-move", "USCF 7d, 8d"),
        ("online", BLACK, "illegal-move", "online: illegal move"),
    ]);
    for g in &games {
        check_noticed_at_once(g);
        if g.row["result"] == DRAW {
            g.check(g.row["detail"].contains("black cannot mate"), "says why");
        }
        if g.ruleset == "fide" {
            check_fide_second_illegal_move(g, "FIDE A4.2, 7.5.5");
        }
    }
}

// 6. An illegal move not noticed (`--illegal-notice 0`) stands; play goes on from the position
// it left, which the engines are told by FEN (the scripts' `first-legal` fallback plays on).
#[test]
fn an_unnoticed_illegal_move_stands_and_play_goes_on() {
    // A rook moving like a bishop: the position stays legal.
    let sc = Scenario::new("4k3/8/8/8/8/8/8/4K2R w - - 0 1", "h1g2@20ms", "")
        .option("--illegal-notice", "0")
        .option("--max-moves", "2");
    let mut expected: Vec<_> = ["house", "generic", "wbca", "fide", "uscf"]
        .into_iter()
        .map(|r| (r, DRAW, "max-moves", "arena: --max-moves"))
        .collect();
    // Online: an illegal move is noticed at once whatever the watcher says.
    expected.push(("online", BLACK, "illegal-move", "online: illegal move"));
    let games = sc.rule_each(&expected);
    for g in games.iter().filter(|g| g.ruleset != "online") {
        let moved = g.t(0, "illegal move", |e| {
            matches!(e, Event::IllegalMove { .. })
        });
        g.check(g.unnoticed(Side::Black) == [moved], "black did not notice");
        g.check(g.row["illegal_moves"] == "1", "no other illegal move");
        g.check(
            g.moves(Side::Black).len() == 2 && g.moves(Side::White).len() == 1,
            "both engines went on playing legal moves",
        );
        g.check(
            g.movetext.contains("h1g2"),
            "the PGN names the illegal move",
        );
    }
}

// 6b. The illegal move left the side not to move in check (its king steps into the rook's file,
// unnoticed); black's legal reply makes the position legal again, and white must be able to set
// it up: a `position fen` of the legal position, not the illegal one plus moves (game.rs fix).
#[test]
fn after_an_unnoticed_king_exposure_the_engines_get_the_legal_position_back() {
    let sc = Scenario::new("3rk3/8/8/8/8/8/8/4K2R w - - 0 1", "e1d2@20ms", "e8e7@20ms")
        .option("--illegal-notice", "0")
        .option("--max-moves", "2");
    let expected: Vec<_> = ["house", "generic", "wbca", "fide", "uscf"]
        .into_iter()
        .map(|r| (r, DRAW, "max-moves", "arena: --max-moves"))
        .collect();
    for g in &sc.rule_each(&expected) {
        g.check(
            g.row["illegal_moves"] == "1",
            "white's first-legal found a move",
        );
        let white = g.moves(Side::White);
        g.check(
            white.len() == 1 && white[0].starts_with("d2"),
            "white's king steps out of the rook's check",
        );
        g.check(g.moves(Side::Black).len() == 2, "black played on");
    }
}

// 6c. FIDE A.5.4: white's king steps next to black's (unnoticed: both kings in check); black's
// reply leaves them next to each other, so the position is still illegal after the next move:
// a draw.
#[test]
fn fide_an_illegal_position_that_persists_after_the_next_move_is_a_draw() {
    let sc = Scenario::new("8/7p/8/4k3/8/4K3/8/7R w - - 0 1", "e3e4@20ms", "h7h6@20ms")
        .option("--illegal-notice", "0")
        .option("--max-moves", "3");
    let g = &sc.rule_each(&[("fide", DRAW, "illegal-move", "FIDE A4.4")])[0];
    g.check(
        g.row["illegal_moves"] == "2",
        "two illegal moves, both unnoticed",
    );
    g.check(
        g.row["detail"].contains("still illegal after black's move"),
        "the detail says why",
    );
}

// 6d. House, both illegal moves unnoticed: white's king steps next to black's, black's h6 leaves
// them there. Neither script can set up that position (`first-legal` answers `0000`, which
// stands unnoticed too), so they pass, thousands of times, until a flag falls with a few µs
// left. The last `bestmove` often arrives a moment after the fall, before the loop wakes: the
// game is ruled by the flag, at once. (game.rs fix: the idle engine was sent `stop`, waited for
// for a second and the game ruled `engine-stall`.)
#[test]
fn a_reply_just_after_the_flag_is_not_a_hung_engine() {
    let sc = Scenario::new("8/7p/8/4k3/8/4K3/8/7R w - - 0 1", "e3e4@20ms", "h7h6@20ms")
        .tc("200ms+0")
        .option("--illegal-notice", "0");
    let g = sc.play("house");
    g.check(g.row["termination"] == "flag", "ruled by the flag");
    g.check(g.row["rule"] == "H3.1, H10", "H3.1, H10");
    g.check(
        g.find(|e| matches!(e, Event::EngineFault { .. }))
            .is_empty(),
        "no engine fault",
    );
    // How many passes fit in 200 ms depends on the machine's load (79 beside a CPU hog, over
    // 1000 alone): the two king moves and at least one pass each.
    g.check(
        g.find(|e| matches!(e, Event::Move { .. })).is_empty() && g.record.illegal_moves() >= 4,
        "they passed until a flag fell",
    );
    let fell = g
        .record
        .flag_us(Side::White)
        .or(g.record.flag_us(Side::Black))
        .unwrap();
    let end = g.record.outcome().unwrap().t_us;
    // A healthy engine taken for hung would be given the 1 s stop timeout first.
    g.check(
        end - fell < 1_000_000,
        "the game ends as the flag is claimed",
    );
}

// 6e. A king capture as the claim: white's king steps into the rook's file, unnoticed, and
// black takes it. House, USCF, generic: a valid claim; WBCA 16: not allowed, ruled as the claim
// it stands for; FIDE: the capture is itself an illegal move (white +1 min, black moves again;
// its second capture loses).
#[test]
fn a_king_capture_is_the_claim() {
    let sc = Scenario::new(
        "3rk3/8/8/8/8/8/8/4K2R w - - 0 1",
        "e1d2@20ms",
        "d8d2@20ms d8d2@20ms",
    )
    .option("--illegal-notice", "0");
    let games = sc.rule_each(&[
        ("house", BLACK, "illegal-move", "H17, H18"),
        ("generic", BLACK, "illegal-move", "G§3"),
        ("wbca", BLACK, "illegal-move", "WBCA 14"),
        ("uscf", BLACK, "illegal-move", "USCF 7d"),
        ("fide", WHITE, "illegal-move", "FIDE A4.2, 7.5.5"),
    ]);
    for g in &games {
        let captures = g.claims(Side::Black, Claimable::KingCapture);
        g.check(
            !captures.is_empty(),
            "black's capture is recorded as its claim",
        );
        g.check(
            g.row["detail"].contains("captured the king with d8d2"),
            "the notes name the capture",
        );
        if g.ruleset == "fide" {
            g.check(captures.len() == 2, "black captured twice");
            g.check(
                g.penalties() == [(Side::White, 60_000_000, "FIDE A4.2, 7.5.5".to_string())],
                "white +60 s for black's first capture",
            );
        }
    }
}

// 6f. USCF 7d: a player who moved its king next to the other king and then claims that the
// opponent left its king in check loses. White's Ke4 (next to Ke5) and black's h6 (leaving its
// king in check) are both illegal; white claims — by its watcher, or by taking the king.
#[test]
fn uscf_the_side_that_put_the_kings_together_loses_its_claim() {
    let fen = "8/7p/8/4k3/8/4K3/8/7R w - - 0 1";
    // With --seed 2 and --illegal-notice 0.5 the first watcher misses, the second notices.
    let by_watcher = Scenario::new(fen, "e3e4@20ms e4e5@20ms", "h7h6@20ms")
        .option("--illegal-notice", "0.5")
        .seed(2);
    let g = &by_watcher.rule_each(&[("uscf", BLACK, "illegal-move", "USCF 7d")])[0];
    g.check(
        g.unnoticed(Side::Black).len() == 1
            && g.notices(Side::White, Claimable::IllegalMove).len() == 1,
        "--seed 2: black misses Ke4, white notices h6 (the watchers' draws changed?)",
    );
    g.check(
        g.row["detail"].contains("moved its king next to the other king"),
        "the detail says why",
    );
    // Black takes white's king instead: a valid claim of white's Ke4.
    let black_takes = Scenario::new(fen, "e3e4@20ms", "e5e4@20ms").option("--illegal-notice", "0");
    let g = &black_takes.rule_each(&[("uscf", BLACK, "illegal-move", "USCF 7d")])[0];
    g.check(
        g.claims(Side::Black, Claimable::KingCapture).len() == 1,
        "black's capture is its claim",
    );
}

// 6f, continued: white claims by taking black's king. House H17: a valid claim; USCF 7d: white
// moved its king next to black's, so it loses.
#[test]
fn uscf_taking_the_king_after_putting_the_kings_together_loses() {
    let sc = Scenario::new(
        "8/7p/8/4k3/8/4K3/8/7R w - - 0 1",
        "e3e4@20ms e4e5@20ms",
        "h7h6@20ms",
    )
    .option("--illegal-notice", "0");
    for g in &sc.rule_each(&[
        ("house", WHITE, "illegal-move", "H17, H18"),
        ("uscf", BLACK, "illegal-move", "USCF 7d"),
    ]) {
        g.check(
            g.claims(Side::White, Claimable::KingCapture).len() == 1,
            "white's capture is its claim",
        );
    }
}

// 7. A promotion sent without its piece (`e7e8`). WBCA 17: the pawn becomes a queen and the
// game goes on; USCF 16: a queen too, and the mover's clock is charged the claim time (200 ms);
// FIDE 7.5.2: a queen, but an illegal move (black +1 min); house, generic, online: an illegal
// move that loses. White then moves the queen (proving it is one) and flags on its third move;
// black's rook wins on time.
#[test]
fn a_promotion_without_its_piece() {
    let sc = Scenario::new(
        "k7/4P3/8/8/8/8/7r/K7 w - - 0 1",
        "e7e8@50ms e8e5@20ms a1b1@5s",
        "a8b7@50ms b7c6@20ms",
    )
    .option("--claim-ms", "200");
    let games = sc.rule_each(&[
        ("house", BLACK, "illegal-move", "H26, H19"),
        ("generic", BLACK, "illegal-move", "G§3"),
        ("online", BLACK, "illegal-move", "online: illegal move"),
        ("wbca", BLACK, "flag", "WBCA 7c"),
        ("uscf", BLACK, "flag", "USCF 7c"),
        ("fide", BLACK, "flag", "FIDE A4.3"),
    ]);
    for g in &games {
        g.check(g.row["illegal_moves"] == "1", "e7e8 is recorded as sent");
        let promoted = g.t(
            0,
            "e7e8",
            |e| matches!(e, Event::IllegalMove { uci, .. } if uci == "e7e8"),
        );
        if ["house", "generic", "online"].contains(&g.ruleset.as_str()) {
            g.check(g.moves(Side::White).is_empty(), "the game ends there");
            continue;
        }
        g.check(
            g.moves(Side::White) == ["e8e5"],
            "the pawn became a queen, and the queen moved",
        );
        g.check(
            g.movetext.contains("1. e8=Q") && g.movetext.contains("Qe5"),
            "the PGN writes the queen promotion it became",
        );
        g.check(
            g.tags["PlyCount"] == g.row["plies"],
            "the PGN and the CSV count the queen move",
        );
        let (go, clock) = g.go(Side::White, 2);
        g.check(
            same_instant(g.flag(Side::White), go + clock),
            "white flags when its time is up",
        );
        match g.ruleset.as_str() {
            "wbca" => {
                g.check(g.penalties().is_empty(), "WBCA: no penalty");
                g.check(
                    g.notices(Side::Black, Claimable::IllegalMove).is_empty(),
                    "WBCA: not illegal, nothing to notice",
                );
                g.check(clock == 500_000 - g.think_us(Side::White), "no charge");
            }
            "uscf" => {
                let penalty = g.find(|e| matches!(e, Event::Penalty { .. }));
                g.check(
                    g.penalties() == [(Side::White, -200_000, "USCF 16".to_string())]
                        && penalty[0].t_us() == promoted,
                    "USCF 16: white is charged the 200 ms claim at the press",
                );
                g.check(clock == 300_000 - g.think_us(Side::White), "charged 200 ms");
            }
            _ => {
                let claim = g.claims(Side::Black, Claimable::IllegalMove);
                g.check(
                    claim.len() == 1 && same_instant(claim[0], promoted + 200_000),
                    "FIDE: black claims the illegal move (200 ms)",
                );
                g.check(
                    g.penalties()
                        == [(
                            Side::Black,
                            60_000_000,
                            "FIDE A4.2, 7.5.2, 7.5.5".to_string(),
                        )],
                    "FIDE: black +60 s",
                );
                g.check(clock == 500_000 - g.think_us(Side::White), "no charge");
                g.check(
                    g.ms("black_ms_left").unwrap() > 60_000,
                    "black keeps its minute",
                );
            }
        }
    }
}

// 8. `0000` while legal moves exist: an illegal move under every ruleset.
#[test]
fn a_null_move_is_illegal_everywhere() {
    let sc = Scenario::new(
        "3rk3/8/8/8/8/8/8/4K2R w - - 0 1",
        "0000@20ms 0000@20ms",
        "e8e7@20ms",
    );
    let games = sc.rule_each(&[
        ("house", BLACK, "illegal-move", "H16"),
        ("generic", BLACK, "illegal-move", "G§3"),
        ("wbca", BLACK, "illegal-move", "WBCA 14"),
        // 7.5.3 says pressing the clock without a move is an illegal move; 7.5.5 decides.
        ("fide", BLACK, "illegal-move", "FIDE A4.2, 7.5.5"),
        ("uscf", BLACK, "illegal-move", "USCF 7d"),
        ("online", BLACK, "illegal-move", "online: illegal move"),
    ]);
    for g in &games {
        check_noticed_at_once(g);
        g.check(
            g.row["detail"].contains("no move made (0000)"),
            "the detail says what was sent",
        );
        if g.ruleset == "fide" {
            check_fide_second_illegal_move(g, "FIDE A4.2, 7.5.5");
        }
    }
}

// 9. Stockfish is handed the illegal position an unnoticed illegal move left (white's king in
// the rook's file, black to move) and crashes: the arena takes the crash as its claim (docs/architecture.md, "Fault injection") (a
// noticed illegal move, not `engine-crash`) and restarts it; no process is left behind.
#[test]
fn stockfish_crashing_on_an_illegal_position_is_its_claim() {
    if !debian_engines(&["stockfish"]) {
        return;
    }
    let sc = Scenario {
        fen: "3rk3/8/8/8/8/8/8/4K2R w - - 0 1",
        white: script("e1d2@20ms"),
        black: "cmd = \"/usr/games/stockfish\"\noptions = { Hash = 16, Threads = 1 }\n".to_string(),
        // Time enough for Stockfish to reach depth 9 however loaded the machine is.
        tc: "10s+0",
        seed: 1,
        // Stockfish 15.1 crashes on this position from depth 9 on; at lower depths it plays a
        // rook move and leaves the king en prise. Depth 12 is quick once it is restarted.
        options: ["--illegal-notice", "0", "--depth", "12", "--max-moves", "2"]
            .map(String::from)
            .to_vec(),
    };
    let games = sc.rule_each(&[
        ("house", BLACK, "illegal-move", "H3.4, H18, H19"),
        ("uscf", BLACK, "illegal-move", "USCF 7d"),
        // FIDE 7.5.5: the position before e1d2 is restored, black +1 min, white moves again,
        // and the restarted Stockfish plays on.
        ("fide", DRAW, "max-moves", "arena: --max-moves"),
    ]);
    for g in &games {
        g.check(
            g.find(|e| matches!(e, Event::EngineFault { .. }))
                .is_empty(),
            "no engine fault: the crash is a claim",
        );
        let claims = g.find(|e| {
            matches!(
                e,
                Event::Claim {
                    by: Side::Black,
                    ..
                }
            )
        });
        g.check(claims.len() == 1, "black's claim");
        let crashed = g.row["detail"].contains("crashed on the illegal position");
        let captured = !g.claims(Side::Black, Claimable::KingCapture).is_empty();
        g.check(
            crashed || captured,
            "Stockfish crashed (or took the king): its claim",
        );
        if g.ruleset == "fide" {
            g.check(
                g.penalties() == [(Side::Black, 60_000_000, "FIDE A4.2, 7.5.5".to_string())],
                "black +60 s",
            );
            g.check(
                g.moves(Side::Black).len() == 2,
                "the restarted Stockfish played on",
            );
            g.check(
                g.moves(Side::White).len() == 2 && g.row["illegal_moves"] == "1",
                "white moved again, legally",
            );
        }
    }
}
