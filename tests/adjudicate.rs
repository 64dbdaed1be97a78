//! End-to-end: `blitz-arena rules` and `blitz-arena adjudicate` on runs of the real binary with
//! built-in engines.

mod common;

use common::*;

const ENGINES: &str = r#"
[engines.random]
builtin = "random"
[engines.sleeper]
builtin = "faulty"
args = ["--slow-move-ms", "1500"]
[engines.knight]
builtin = "script"
args = ["--moves", "c2e3"]
[engines.rook]
builtin = "script"
args = ["--moves", "h2h3@3s"]     # thinks 3 s on a 1 s clock
[engines.jumper]
builtin = "script"
args = ["--moves", "e1e3 e2e4"]   # a king jumping two squares
"#;

fn adjudicate(s: &Scratch, results: &str, ruleset: &str) -> String {
    let out = s.run_ok(&["adjudicate", results, "--ruleset", ruleset]);
    assert!(stderr(&out).is_empty(), "{}", stderr(&out));
    stdout(&out)
}

fn gauntlet(s: &Scratch, args: &[&str]) {
    s.run_ok(&[&["gauntlet"], args].concat());
}

/// `sleeper` thinks 1.5 s on a 1 s clock: its flag falls at 1 s and its opponent's watcher
/// starts a 5 s claim. Meanwhile `sleeper` moves, the claimant's clock runs, and its own flag
/// falls at about 2.5 s, long before the claim completes at 6 s. FIDE: the first flag to fall
/// loses (6.9); online: the flag ends the game at once; USCF: the claim is void, a draw (7c,
/// 8c). (The same timeline is played exactly, in virtual time, in src/game/tests.rs.)
#[test]
fn flags_played_under_fide_re_ruled_under_online_and_uscf() {
    let s = Scratch::new("adjudicate-flags");
    s.write("engines.toml", ENGINES);
    gauntlet(
        &s,
        &[
            "random",
            "--vs",
            "sleeper",
            "--tc",
            "1s+0",
            "--games",
            "2",
            "--seed",
            "3",
            "--ruleset",
            "fide",
            "--claim-ms",
            "5000",
            "--out",
            "res",
        ],
    );
    let rows = csv_rows(&s.path("res/games.csv"));
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(
            (row["termination"].as_str(), row["rule"].as_str()),
            ("both-flags", "FIDE Laws 6.9"),
            "{row:?}"
        );
    }

    let online = adjudicate(&s, "res", "online");
    let lines: Vec<&str> = online.lines().collect();
    assert_eq!(
        lines[0],
        "re-ruling 2 games of res under online (recorded under fide; settings from res/run.json)"
    );
    // Game by game, in order, both rulings with their citations.
    assert_eq!(lines[1], "game 1: random (white) v sleeper (black)");
    assert!(
        lines[2].starts_with(
            "  recorded (fide): 1-0, both-flags (FIDE Laws 6.9): both flags down: black flag fell at 1.0"
        ),
        "{online}"
    );
    assert_eq!(
        at_t(lines[3]),
        "  under online:    1-0, flag (online: flag): black flag fell at T s: the server ends the \
         game at once"
    );
    assert_eq!(lines[4], "game 2: sleeper (white) v random (black)");
    assert!(lines[5].starts_with("  recorded (fide): 0-1, both-flags (FIDE Laws 6.9)"));
    assert_eq!(
        at_t(lines[6]),
        "  under online:    0-1, flag (online: flag): white flag fell at T s: the server ends the \
         game at once"
    );
    assert_eq!(
        lines[7],
        "2 games, 2 rulings differ under online, 0 undetermined, 0 the same"
    );
    assert_eq!(lines.len(), 8, "{online}");

    let uscf = adjudicate(&s, "res", "uscf");
    assert_eq!(
        uscf.matches("under uscf:      1/2-1/2, both-flags (USCF 7c, 8c): both flags down")
            .count(),
        2,
        "{uscf}"
    );
    // Each detail: the first flag, the notice and the claim, the claimant's own flag during it.
    for (first, claimant) in [("black", "white"), ("white", "black")] {
        assert!(
            at_t(&uscf).contains(&format!(
                "both flags down: {first} flag fell at T s; {claimant} noticed it at T s and \
                 claimed; {claimant} flag fell at T s, before its claim completed at T s"
            )),
            "{uscf}"
        );
    }
    assert!(
        uscf.ends_with("2 games, 2 rulings differ under uscf, 0 undetermined, 0 the same\n"),
        "{uscf}"
    );

    // Re-ruled under its own ruleset, every game is the same.
    let fide = adjudicate(&s, "res/events.jsonl", "fide");
    assert!(
        fide.ends_with("2 games, 0 rulings differ under fide, 0 undetermined, 2 the same\n"),
        "{fide}"
    );
    assert_eq!(fide.lines().count(), 2, "{fide}");
}

/// K+N against K+R, the rook side flags (docs/watchers.md's example): a win under FIDE (a helpmate
/// exists), a draw under USCF and WBCA (a lone knight is not mating material), a win online.
#[test]
fn a_lone_knight_wins_on_time_under_fide_and_draws_under_uscf() {
    let s = Scratch::new("adjudicate-knight");
    s.write("engines.toml", ENGINES);
    s.write("kn-kr.fen", "8/8/8/4k3/8/8/2N4r/K7 b - - 0 1\n");
    gauntlet(
        &s,
        &[
            "knight",
            "--vs",
            "rook",
            "--openings",
            "kn-kr.fen",
            "--tc",
            "1s+0",
            "--games",
            "1",
            "--ruleset",
            "fide",
            "--out",
            "res",
        ],
    );
    let uscf = adjudicate(&s, "res", "uscf");
    assert_eq!(
        at_t(&uscf),
        "re-ruling 1 game of res under uscf (recorded under fide; settings from res/run.json)\n\
         game 1: knight (white) v rook (black)\n  \
         recorded (fide): 1-0, flag (FIDE A4.3): black flag fell at T s; white noticed it and \
         claimed at T s, white flag up\n  \
         under uscf:      1/2-1/2, flag (USCF 8d): black flag fell at T s; white noticed it and \
         claimed at T s, white flag up; white cannot mate\n\
         1 game, 1 ruling differs under uscf, 0 undetermined, 0 the same\n"
    );
    assert!(adjudicate(&s, "res", "wbca").contains("1/2-1/2, flag (WBCA 8f)"));
    let online = adjudicate(&s, "res", "online");
    assert!(
        online.ends_with("1 game, 0 rulings differ under online, 0 undetermined, 1 the same\n"),
        "{online}"
    );
}

/// A king that jumps two squares loses at once online. Under FIDE the move would have been
/// taken back and the game would have gone on: the record cannot say how it ended. Under USCF
/// the watcher notices at once (the defaults) and the offender loses, as online.
#[test]
fn an_illegal_move_that_lost_online_is_undetermined_under_fide() {
    let s = Scratch::new("adjudicate-illegal");
    s.write("engines.toml", ENGINES);
    gauntlet(
        &s,
        &[
            "jumper",
            "--vs",
            "random",
            "--tc",
            "1s+0",
            "--games",
            "2",
            "--seed",
            "1",
            "--ruleset",
            "online",
            "--out",
            "res",
        ],
    );
    let fide = adjudicate(&s, "res", "fide");
    assert!(
        fide.contains(
            "game 1: jumper (white) v random (black)\n  \
             recorded (online): 0-1, illegal-move (online: illegal move): white played \"e1e3\""
        ),
        "{fide}"
    );
    assert!(
        fide.contains(
            "  under fide:        undetermined: the game would have gone on: the illegal move \
             would be taken back and black given a minute (FIDE A4.2, 7.5.5); the record ends here\n"
        ),
        "{fide}"
    );
    assert!(
        fide.ends_with("2 games, 0 rulings differ under fide, 2 undetermined, 0 the same\n"),
        "{fide}"
    );
    let uscf = adjudicate(&s, "res", "uscf");
    assert!(
        uscf.ends_with("2 games, 0 rulings differ under uscf, 0 undetermined, 2 the same\n"),
        "{uscf}"
    );
}

#[test]
fn bad_results_get_one_clear_line() {
    let s = Scratch::new("adjudicate-bad");
    let run = |results: &str| s.run(&["adjudicate", results, "--ruleset", "uscf"]);
    assert_one_line_error(&run("nowhere"), "nowhere: no such results folder or file");
    std::fs::create_dir_all(s.path("empty")).unwrap();
    assert_one_line_error(
        &run("empty"),
        "empty: not a results folder (no events.jsonl)",
    );

    // A real record, then torn copies of it.
    s.write("engines.toml", ENGINES);
    gauntlet(
        &s,
        &[
            "jumper",
            "--vs",
            "random",
            "--tc",
            "1s+0",
            "--games",
            "1",
            "--ruleset",
            "online",
            "--out",
            "res",
        ],
    );
    let events = std::fs::read_to_string(s.path("res/events.jsonl")).unwrap();
    std::fs::create_dir_all(s.path("torn")).unwrap();
    s.write("torn/events.jsonl", &format!("{events}{}", &events[..40]));
    assert_one_line_error(&run("torn"), "line 2 is cut off");
    s.write("garbled.jsonl", &format!("{{\"game\": 1}}\n{events}"));
    assert_one_line_error(
        &run("garbled.jsonl"),
        "garbled.jsonl: line 1 is not a game record of events.jsonl (column 11: missing field",
    );
    s.write("notes.txt", "hello\n");
    assert_one_line_error(
        &run("notes.txt"),
        "notes.txt: line 1 is not a game record of events.jsonl (column 1: expected value)",
    );
    s.write("none.jsonl", "");
    assert_one_line_error(&run("none.jsonl"), "no games recorded");
    std::fs::write(s.path("res/run.json"), "{").unwrap();
    assert_one_line_error(&run("res"), "run.json: not a valid run plan");

    // An unknown ruleset is clap's usage error, naming the choices.
    let out = s.run(&["adjudicate", "res", "--ruleset", "blitz"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("invalid value 'blitz' for '--ruleset <RULESET>'")
            && stderr(&out).contains("[possible values: house, generic, wbca, fide, uscf, online]"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rules_prints_every_ruling_with_its_citation() {
    let s = Scratch::new("rules");
    let out = s.run_ok(&["rules", "uscf"]);
    let uscf = stdout(&out);
    assert!(uscf.starts_with("uscf: US Chess rulebook chapter 11, Blitz (USCF 1..18)\n"));
    for needle in [
        "  flag falls, claimed: the claimant wins if it has mating material (USCF 7c), else draw \
         (USCF 8d)",
        "  claimant's own flag falls during its claim: the claim is void: draw (USCF 7c, 8c)",
        "  both flags down before a claim: draw (USCF 8c)",
        "(USCF 7d)",
        "the illegal mover loses (USCF 7e)",
        "(USCF 16)",
        "  mating material: at least two minor pieces",
        "watchers: engines claim nothing, a watcher per side does; defaults: --flag-notice-ms 0",
        "not simulated (human-only): one hand for move and clock (USCF 4)",
    ] {
        assert!(uscf.contains(needle), "{needle:?} not in:\n{uscf}");
    }
    assert!(!uscf.contains("fide:") && !uscf.contains("H13"), "{uscf}");

    let out = s.run_ok(&["rules"]);
    let all = stdout(&out);
    for ruleset in ["house", "generic", "wbca", "fide", "uscf", "online"] {
        assert_eq!(
            all.lines()
                .filter(|l| l.starts_with(&format!("{ruleset}: ")))
                .count(),
            1,
            "{ruleset}"
        );
    }
    for needle in [
        "(USCF 7c)",
        "(USCF 8c)",
        "(USCF 7d)",
        "(USCF 7e)",
        "(USCF 16)",
        "(WBCA 8d)",
        "(FIDE A4.2, 7.5.5)",
        "(FIDE A4.4)",
        "(H13)",
        "(H14)",
        "(online: flag)",
    ] {
        assert!(all.contains(needle), "{needle:?} not in:\n{all}");
    }
    assert!(all.lines().all(|l| l.chars().count() <= 100), "{all}");

    let out = s.run(&["rules", "blitz"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("[possible values: house, generic, wbca, fide, uscf, online]"),
        "{}",
        stderr(&out)
    );
}

/// `text` with every instant of a detail (`at 1.001 s`) written `at T s`: real-time games
/// move instants by a few ms.
fn at_t(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find("at ") {
        out.push_str(&rest[..i + 3]);
        rest = &rest[i + 3..];
        let number = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if number > 0 && rest[number..].starts_with(" s") {
            out.push('T');
            rest = &rest[number..];
        }
    }
    out.push_str(rest);
    out
}

/// Issue 23.5: a game played with `--inject-flag-mode at-mate` (the mater's flag falls 200 ms
/// before its mating move, its opponent's notice deferred until the mate) and re-ruled under
/// the ruleset it was played under gets the ruling it was played to: the mate under FIDE
/// (6.9, 6.8), the mated side's claim under the house rules (H13). The re-ruling used to
/// supply a claim at the flag's instant and rule FIDE's game a loss on time.
#[test]
fn an_at_mate_injection_is_re_ruled_as_it_was_played() {
    let s = Scratch::new("adjudicate-at-mate");
    s.write(
        "engines.toml",
        &format!(
            "{ENGINES}\n[engines.mater]\nbuiltin = \"script\"\nargs = [\"--moves\", \"a1a8\"]\n"
        ),
    );
    s.write("mate.fen", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1\n");
    for (ruleset, played) in [
        ("fide", ("1-0", "checkmate", "FIDE Laws 5.1.1, 6.8")),
        ("house", ("0-1", "flag", "H13")),
    ] {
        let out = format!("res-{ruleset}");
        gauntlet(
            &s,
            &[
                "mater",
                "--vs",
                "random",
                "--openings",
                "mate.fen",
                "--tc",
                "1s+0",
                "--games",
                "1",
                "--inject-flag",
                "1",
                "--inject-flag-mode",
                "at-mate",
                "--flag-overshoot-ms",
                "200..200",
                "--ruleset",
                ruleset,
                "--out",
                &out,
            ],
        );
        let row = &csv_rows(&s.path(&format!("{out}/games.csv")))[0];
        assert_eq!(
            (
                row["result"].as_str(),
                row["termination"].as_str(),
                row["rule"].as_str()
            ),
            played,
            "{row:?}"
        );
        let again = adjudicate(&s, &out, ruleset);
        assert!(
            again.ends_with(&format!(
                "1 game, 0 rulings differ under {ruleset}, 0 undetermined, 1 the same\n"
            )),
            "{again}"
        );
    }
}
