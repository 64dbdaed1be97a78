//! The lines against the exact bytes fastchess and cutechess-cli print (blocks copied from real
//! runs: fishtest's `worker/games.py` quotes one; the others were printed by fastchess 1.x
//! here, `-each tc=inf nodes=3000`, Stockfish against Glaurung).

use super::*;
use crate::event::{GameResult as R, Termination as T};

#[test]
fn started_and_finished_lines_are_the_tools_own() {
    assert_eq!(started(3, 8, "sf", "gl"), "Started game 3 of 8 (sf vs gl)");
    let line = finished(1, "sf", "gl", Some((R::WhiteWins, T::Checkmate)), 0);
    assert_eq!(line, "Finished game 1 (sf vs gl): 1-0 {White mates}");
    let cut = finished(7, "a", "b", None, 0);
    assert_eq!(cut, "Finished game 7 (a vs b): * {Game interrupted}");
}

#[test]
fn every_termination_has_the_closest_tool_text() {
    // fastchess's texts in either of its formats: its cutechess format too says
    // `(12ms overrun)`, where cutechess-cli itself says only `loses on time`.
    let cases = [
        (R::BlackWins, T::Checkmate, "Black mates"),
        (R::WhiteWins, T::Flag, "Black loses on time (12ms overrun)"),
        (
            R::BlackWins,
            T::BothFlags,
            "White loses on time (12ms overrun)",
        ),
        (R::Draw, T::Flag, "Draw by timeout"),
        (R::WhiteWins, T::IllegalMove, "Black makes an illegal move"),
        (R::Draw, T::IllegalMove, "Draw by adjudication"),
        (R::BlackWins, T::EngineCrash, "White disconnects"),
        (R::Draw, T::EngineCrash, "Draw by disconnection"),
        (R::WhiteWins, T::EngineStall, "Black's connection stalls"),
        (R::Draw, T::EngineStall, "Draw by stalled connection"),
        (R::Draw, T::Stalemate, "Draw by stalemate"),
        (
            R::Draw,
            T::InsufficientMaterial,
            "Draw by insufficient mating material",
        ),
        (
            R::Draw,
            T::DeadPosition,
            "Draw by insufficient mating material",
        ),
        (R::Draw, T::Threefold, "Draw by 3-fold repetition"),
        (R::Draw, T::Fivefold, "Draw by 3-fold repetition"),
        (R::Draw, T::FiftyMoves, "Draw by fifty moves rule"),
        (R::Draw, T::SeventyFiveMoves, "Draw by fifty moves rule"),
        (R::Draw, T::MaxMoves, "Draw by adjudication"),
        (R::WhiteWins, T::Adjudication, "White wins by adjudication"),
        (R::Draw, T::Adjudication, "Draw by adjudication"),
        (
            R::BlackWins,
            T::Tablebase,
            "Black wins by adjudication: SyzygyTB",
        ),
        (R::Draw, T::Tablebase, "Draw by adjudication: SyzygyTB"),
    ];
    for (result, termination, text) in cases {
        assert_eq!(reason(result, termination, 12), text, "{termination:?}");
    }
    // Every termination is mapped (the list above names each of them).
    for t in Termination::ALL {
        assert!(cases.iter().any(|c| c.1 == t), "{t:?} untested");
    }
}

#[test]
fn fastchess_block_matches_a_real_one_byte_for_byte() {
    // fishtest worker/games.py (commit b8eecff2) quotes this block of a real fastchess run.
    let stats = PairStats {
        wins: 248,
        losses: 266,
        draws: 166,
        ww: 37,
        wd: 55,
        wl: 119,
        dd: 25,
        ld: 61,
        ll: 43,
    };
    let label = MatchLabel {
        tc: "0.601+0.006".into(),
        threads: "1t".into(),
        hash: "16MB".into(),
        book: "UHO_Lichess_4852_v1.epd".into(),
    };
    let lines = fastchess_h2h("New-e443b2459e", "Base-e443b2459e", &label, &stats, None);
    let expected = "\
--------------------------------------------------
Results of New-e443b2459e vs Base-e443b2459e (0.601+0.006, 1t, 16MB, UHO_Lichess_4852_v1.epd):
Elo: -9.20 +/- 20.93, nElo: -11.50 +/- 26.11
LOS: 19.41 %, DrawRatio: 42.35 %, PairsRatio: 0.88
Games: 680, Wins: 248, Losses: 266, Draws: 166, Points: 331.0 (48.68 %)
Ptnml(0-2): [43, 61, 144, 55, 37], WL/DD Ratio: 4.76
--------------------------------------------------";
    assert_eq!(lines.join("\n"), expected);
}

#[test]
fn fastchess_block_with_sprt_and_node_limit() {
    // fastchess printed, after 8 games all won by the first engine:
    let mut stats = PairStats::default();
    for _ in 0..4 {
        stats.add_pair(1.0, 1.0);
    }
    let label = MatchLabel {
        tc: fastchess_tc(0.0, 0.0, Some(3000)),
        threads: "1t - 2t".into(),
        hash: "16MB - 32MB".into(),
        book: String::new(),
    };
    let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
    let lines = fastchess_h2h(
        "sf",
        "gl",
        &label,
        &stats,
        Some(SprtNow {
            sprt: &sprt,
            llr: 0.08,
        }),
    );
    assert_eq!(
        lines[1],
        "Results of sf vs gl (3000 nodes, 1t - 2t, 16MB - 32MB):"
    );
    assert_eq!(
        lines[4],
        "Games: 8, Wins: 8, Losses: 0, Draws: 0, Points: 8.0 (100.00 %)"
    );
    assert!(lines[5].starts_with("Ptnml(0-2): [0, 0, 0, 0, 4], WL/DD Ratio: "));
    assert_eq!(lines[6], "LLR: 0.08 (2.7%) (-2.94, 2.94) [0.00, 5.00]");
    assert_eq!(lines.len(), 8);
}

#[test]
fn pairs_count_from_each_side() {
    let mut s = PairStats::default();
    s.add_pair(1.0, 0.0);
    s.add_pair(0.5, 0.5);
    s.add_pair(0.0, 0.5);
    s.add_pair(1.0, 0.5);
    assert_eq!(s.ptnml(), [0, 1, 2, 1, 0]);
    assert_eq!((s.wins, s.losses, s.draws), (2, 2, 4));
    let m = s.mirrored();
    assert_eq!(m.ptnml(), [0, 1, 2, 1, 0]);
    assert_eq!((m.wl, m.dd, m.ld, m.wd), (1, 1, 1, 1));
}

#[test]
fn cutechess_lines() {
    let wdl = Wdl {
        wins: 3,
        losses: 1,
        draws: 2,
    };
    assert_eq!(
        cutechess_score("A", "B", &wdl),
        "Score of A vs B: 3 - 1 - 2  [0.667] 6"
    );
    let even = Wdl {
        wins: 2,
        losses: 2,
        draws: 4,
    };
    // No game yet: 0/0, which on x86 carries the sign bit, as in fastchess.
    assert_eq!(
        cutechess_score("A", "B", &Wdl::default()),
        "Score of A vs B: 0 - 0 - 0  [-nan] 0"
    );
    // fastchess's own line in its cutechess format (tests/data/fastchess/cuteclean.out and
    // cutetimeloss.out): two decimals, its Elo from wins, draws and losses, its `nan`s.
    let wdl = |wins, losses, draws| Wdl {
        wins,
        losses,
        draws,
    };
    assert_eq!(
        cutechess_elo(&wdl(3, 1, 8)),
        "Elo difference: 58.45 +/- 116.28, LOS: 85.19 %, DrawRatio: 66.67 %"
    );
    assert_eq!(
        cutechess_elo(&wdl(1, 0, 1)),
        "Elo difference: 190.85 +/- nan, LOS: 92.14 %, DrawRatio: 50.00 %"
    );
    assert_eq!(
        cutechess_elo(&wdl(0, 4, 0)),
        "Elo difference: -inf +/- -nan, LOS: 0.00 %, DrawRatio: 0.00 %"
    );
    assert_eq!(
        cutechess_elo(&even),
        "Elo difference: -0.00 +/- 186.24, LOS: 50.00 %, DrawRatio: 50.00 %"
    );
    let sprt = Sprt::new(0.0, 5.0, 0.05, 0.05).unwrap();
    assert_eq!(
        cutechess_sprt(SprtNow {
            sprt: &sprt,
            llr: 3.0
        }),
        "SPRT: llr 3.00 (101.9%), lbound -2.94, ubound 2.94 - H1 was accepted"
    );
    assert_eq!(
        fastchess_sprt_done(&sprt, false),
        "SPRT ([0.00, 5.00]) completed - H0 was accepted"
    );
}

#[test]
fn numbers_print_as_cpp_fmt_prints_them() {
    assert_eq!(fixed(f64::INFINITY, 2), "inf");
    assert_eq!(fixed(-f64::INFINITY, 2), "-inf");
    assert_eq!(fixed(f64::NAN, 2), "nan");
    assert_eq!(fixed(-f64::NAN, 2), "-nan");
    assert_eq!(fixed(-0.0, 2), "-0.00");
    assert_eq!(
        total_time(3725),
        "Total Time: 01:02:05 (hours:minutes:seconds)"
    );
    assert_eq!(fastchess_tc(8.0, 0.08, None), "8+0.08");
    assert_eq!(fastchess_tc(10.0, 0.0, None), "10");
    assert_eq!(fastchess_period_tc(Some(40), 60.0, 0.6), "40/60+0.6");
    assert_eq!(fastchess_period_tc(None, 60.0, 0.0), "60");
    let st: crate::timecontrol::TimeControl = "0.5/move".parse().unwrap();
    assert_eq!(fastchess_time(&st), "0.5/move");
}

#[test]
fn an_all_draws_block_says_los_minus_nan_as_fastchess_on_x86() {
    let mut stats = PairStats::default();
    stats.add_pair(0.5, 0.5);
    let label = MatchLabel {
        tc: "2+0.02".into(),
        threads: "NULL".into(),
        hash: "NULL".into(),
        book: String::new(),
    };
    let lines = fastchess_h2h("a", "b", &label, &stats, None);
    // -400 * log10(1) is -0 in C++ as in Rust: fastchess prints `-0.00` too.
    assert_eq!(lines[2], "Elo: -0.00 +/- 0.00, nElo: -nan +/- -nan");
    assert_eq!(
        lines[3],
        "LOS: -nan %, DrawRatio: 100.00 %, PairsRatio: -nan"
    );
}

#[test]
fn fault_warnings_and_the_player_block_as_fastchess_prints_them() {
    assert!(is_uci_move("e7e8q") && is_uci_move("a2h8"));
    assert!(!is_uci_move("0000") && !is_uci_move("e7e8k") && !is_uci_move("E2E4"));
    assert_eq!(
        illegal_move_warnings("b1h8", "sf"),
        ["Warning; Illegal move b1h8 played by sf"]
    );
    assert_eq!(
        illegal_move_warnings("0000", "sf"),
        [
            "Warning; Move does not match uci move format, lowercase and 4/5 chars. Move 0000 played by sf",
            "Warning; Illegal move 0000 played by sf"
        ]
    );
    assert_eq!(
        illegal_move_warnings("", "sf")[1],
        "Warning; Illegal move <none> played by sf"
    );
    assert_eq!(not_responsive("sf"), "Warning; Engine sf is not responsive");
    assert!(player_block(&[]).is_empty());
    assert_eq!(
        player_block(&[("sf".into(), 2, 1)]),
        ["", "Player: sf", "  Timeouts: 2", "  Crashed: 1", ""]
    );
}
