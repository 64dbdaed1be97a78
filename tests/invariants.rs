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

#[test]
fn a_corrupted_ruling_or_result_breaks_the_invariants_and_the_run_fails() {
    let s = Scratch::new("invariants");
    s.write("engines.toml", ENGINES);
    // (hook, ruleset, what the check must say)
    let cases = [
        (
            "offender-wins",
            "house",
            "game 1: white won the claim of its own illegal move",
        ),
        (
            "penalty-to-offender",
            "fide",
            "game 1: FIDE 7.5.5: the penalty went to the offender",
        ),
        ("pgn-result", "house", "game 1: the PGN does not end in 0-1"),
    ];
    for (tamper, ruleset, broken) in cases {
        let honest = play(&s, &format!("{tamper}-honest"), ruleset, None);
        assert!(honest.status.success(), "{tamper}: {}", stderr(&honest));
        assert!(
            stdout(&honest).contains("invariants: held in all 1 games"),
            "{tamper}: {}",
            stdout(&honest)
        );

        let out = play(&s, tamper, ruleset, Some(tamper));
        let text = stdout(&out);
        assert_eq!(out.status.code(), Some(1), "{tamper}: {}", stderr(&out));
        assert!(
            text.contains("invariants: BROKEN in 1 places:"),
            "{tamper}: {text}"
        );
        assert!(text.contains(broken), "{tamper}: {broken:?} not in: {text}");
        assert!(
            stderr(&out).contains("1 invariant violations: the arena ruled a game wrongly"),
            "{tamper}: {}",
            stderr(&out)
        );
    }

    // The tampered PGN is really what went to disk: it disagrees with games.csv.
    let row = &csv_rows(&s.path("pgn-result/games.csv"))[0];
    let (tags, _) = &pgn_games(&s.path("pgn-result/games.pgn"))[0];
    assert_eq!(row["result"], "0-1");
    assert_eq!(tags["Result"], "1-0");

    // A hook the arena does not know is a one-line error.
    let out = play(&s, "unknown", "house", Some("everything"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("BLITZ_ARENA_TEST_TAMPER=\"everything\""),
        "{}",
        stderr(&out)
    );
    s.assert_no_engines_left();
}
