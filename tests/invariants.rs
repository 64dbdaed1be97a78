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

/// FIDE 7.5.2 and 5.1.1 end to end: black's pawn sent to h1 without its piece is an illegal
/// move, noticed and claimed, and becomes a queen, which mates. Black wins by the mate: the
/// run holds its invariants (an offender winning at the claim of its own illegal move is
/// otherwise a broken ruling) and re-rules the same.
#[test]
fn a_pawn_without_its_piece_whose_queen_mates_wins_under_fide() {
    let s = Scratch::new("invariants-queen-mates");
    s.write(
        "engines.toml",
        r#"
[engines.pawn]
builtin = "script"
args = ["--moves", "h2h1"]
[engines.king]
builtin = "script"
args = ["--moves", "f1e1"]
"#,
    );
    // Black to move: h2h1=Q is mate (the king on f1 has e1, e2, f2, g1 and g2, all taken).
    s.write("mate.epd", "8/8/8/8/8/5k2/7p/5K2 b - -\n");
    let out = s.run(&[
        "gauntlet",
        "king",
        "--vs",
        "pawn",
        "--games",
        "1",
        "--tc",
        "60+0",
        "--ruleset",
        "fide",
        "--openings",
        "mate.epd",
        "--out",
        "res",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("invariants: held in all 1 games"),
        "{}",
        stdout(&out)
    );
    let row = &csv_rows(&s.path("res/games.csv"))[0];
    assert_eq!(
        (
            &row["white"][..],
            &row["result"][..],
            &row["termination"][..],
            &row["rule"][..]
        ),
        ("king", "0-1", "checkmate", "FIDE Laws 5.1.1"),
        "{row:?}"
    );
    let events = std::fs::read_to_string(s.path("res/events.jsonl")).unwrap();
    assert!(events.contains(r#""kind":"no-promotion""#), "{events}");
    assert!(events.contains(r#""what":"illegal-move""#), "{events}");
    let again = s.run(&["adjudicate", "res", "--ruleset", "fide"]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(
        stdout(&again).contains("0 rulings differ"),
        "{}",
        stdout(&again)
    );
}
