//! The invariant check seen to fail: each run corrupts its games after the referee through the
//! test hook `BLITZ_ARENA_TEST_TAMPER` (src/invariants.rs, `Tamper`), and the arena must say
//! "invariants: BROKEN" and exit non-zero. The same run untouched holds every invariant.

mod common;

use common::*;

const ENGINES: &str = r#"
[engines.jumper]
builtin = "script"
args = ["--moves", "e1e3 e2e4"]   # a king jumping two squares, then a legal move
[engines.random]
builtin = "random"
options = { Seed = 1 }
"#;

/// `jumper` against `random` under `ruleset`, with the tamper hook set to `tamper` (or not).
fn play(s: &Scratch, out: &str, ruleset: &str, tamper: Option<&str>) -> std::process::Output {
    let mut command = s.command(&[
        "gauntlet",
        "jumper",
        "--vs",
        "random",
        "--games",
        "1",
        "--tc",
        "60+0",
        "--max-moves",
        "3",
        "--ruleset",
        ruleset,
        "--out",
        out,
    ]);
    match tamper {
        Some(tamper) => command.env("BLITZ_ARENA_TEST_TAMPER", tamper),
        None => command.env_remove("BLITZ_ARENA_TEST_TAMPER"),
    };
    command.output().unwrap()
}

/// Runs the same game honestly, then with `tamper`, and checks that only the tampered run
/// says the invariants broke (`broken` is the check's line) and exits 1. A tampered ruling
/// breaks a second invariant too: re-ruled from its events, the game gets its true ruling.
fn assert_caught(tamper: &str, ruleset: &str, broken: &str) -> Scratch {
    let places = if tamper == "pgn-result" { 1 } else { 2 };
    let s = Scratch::new(&format!("invariants-{tamper}"));
    s.write("engines.toml", ENGINES);
    let honest = play(&s, "honest", ruleset, None);
    assert!(honest.status.success(), "{}", stderr(&honest));
    assert!(
        stdout(&honest).contains("invariants: held in all 1 games"),
        "{}",
        stdout(&honest)
    );

    let out = play(&s, "res", ruleset, Some(tamper));
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        text.contains(&format!("invariants: BROKEN in {places} places:")),
        "{text}"
    );
    assert!(text.contains(broken), "{broken:?} not in: {text}");
    if places == 2 {
        assert!(
            text.contains("but re-ruled from its events under"),
            "{text}"
        );
    }
    assert!(
        stderr(&out).contains(&format!(
            "{places} invariant violations: the arena ruled a game wrongly"
        )),
        "{}",
        stderr(&out)
    );
    s.assert_no_engines_left();
    s
}

#[test]
fn an_offender_winning_its_own_illegal_move_claim_is_caught() {
    assert_caught(
        "offender-wins",
        "house",
        "game 1: white won the claim of its own illegal move",
    );
}

#[test]
fn a_fide_penalty_credited_to_the_offender_is_caught() {
    assert_caught(
        "penalty-to-offender",
        "fide",
        "game 1: FIDE A4.2, 7.5.5: the penalty went to the offender",
    );
}

#[test]
fn a_pgn_that_disagrees_with_the_csv_is_caught() {
    let s = assert_caught("pgn-result", "house", "game 1: the PGN does not end in 0-1");
    // The tampered PGN is really what went to disk: it disagrees with games.csv.
    let row = &csv_rows(&s.path("res/games.csv"))[0];
    let (tags, _) = &pgn_games(&s.path("res/games.pgn"))[0];
    assert_eq!(row["result"], "0-1");
    assert_eq!(tags["Result"], "1-0");
}

/// Issue 23.2: every game ends by a rule of its ruleset or by an option the user gave; the
/// arena's old fallback (`max-moves (arena: nothing left to wait for)`, with no --max-moves
/// behind it) breaks that.
#[test]
fn a_game_ended_by_no_rule_is_caught() {
    assert_caught(
        "uncited",
        "house",
        "game 1: the game ended max-moves (arena: nothing left to wait for), which is no rule \
         of house and no option given",
    );
}

#[test]
fn an_unknown_tamper_hook_is_a_one_line_error() {
    let s = Scratch::new("invariants-unknown");
    s.write("engines.toml", ENGINES);
    let out = play(&s, "res", "house", Some("everything"));
    assert_one_line_error(&out, "BLITZ_ARENA_TEST_TAMPER=\"everything\"");
}
