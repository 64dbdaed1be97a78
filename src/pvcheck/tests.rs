use super::*;

fn start() -> Chess {
    Chess::default()
}

fn from_fen(fen: &str) -> Chess {
    crate::test_support::position(fen)
}

fn at_start(line: &str) -> Option<PvWarning> {
    check(&start(), &[], line, true)
}

#[test]
fn a_line_without_a_pv_or_with_a_legal_one_is_fine() {
    assert_eq!(at_start("info depth 1 score cp 10"), None);
    assert_eq!(at_start("info depth 1 score cp 10 pv e2e4 e7e5"), None);
    assert_eq!(at_start("info string score mate 3 pv e2e4"), None);
}

#[test]
fn a_pv_move_that_is_not_legal_is_named() {
    assert_eq!(
        at_start("info depth 1 score cp 10 pv e2e4 e2e5"),
        Some(PvWarning::IllegalMove("e2e5".into()))
    );
    // The PV ends at the first word that is not a UCI move.
    assert_eq!(
        at_start("info depth 1 score cp 10 pv e2e4 string e2e5"),
        None
    );
}

#[test]
fn a_mate_score_needs_a_pv_of_the_mate_s_length_ending_in_mate() {
    // Fool's mate: black mates in 1 after f3 e5 g4; from the start white is mated in 2.
    let mated_in_2 = "info depth 4 score mate -2 pv f2f3 e7e5 g2g4 d8h4";
    assert_eq!(at_start(mated_in_2), None);
    assert_eq!(
        at_start("info depth 1 score mate 3 pv e2e4"),
        Some(PvWarning::IncompleteMate)
    );
    assert_eq!(
        at_start("info depth 1 score mate -1 pv f2f3 e7e5 g2g4"),
        Some(PvWarning::TooLongMate)
    );
    assert_eq!(
        at_start("info depth 1 score mate -1 pv f2f3 e7e5"),
        Some(PvWarning::NoMateAtEnd)
    );
    // A bound is no announced mate.
    assert_eq!(
        at_start("info depth 1 score mate 3 lowerbound pv e2e4"),
        None
    );
}

#[test]
fn a_pv_that_plays_on_after_the_game_ended_is_named() {
    assert_eq!(
        at_start("info depth 1 score cp 10 pv f2f3 e7e5 g2g4 d8h4 a2a3"),
        Some(PvWarning::AfterCheckmate("a2a3".into()))
    );
    let stalemate = from_fen("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    assert_eq!(
        check(&stalemate, &[], "info score cp 0 pv h8g8", true),
        Some(PvWarning::AfterStalemate("h8g8".into()))
    );
    let fifty = from_fen("7k/8/6K1/8/8/8/8/R7 w - - 100 80");
    assert_eq!(
        check(&fifty, &[], "info score cp 500 pv a1a2", true),
        Some(PvWarning::AfterFiftyMoves("a1a2".into()))
    );
}

#[test]
fn a_repetition_counts_the_game_s_own_positions() {
    // Knights out and back twice: the start position a third time before the fifth move.
    let pv = "info score cp 0 pv g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8 e2e4";
    assert_eq!(at_start(pv), Some(PvWarning::AfterThreefold("e2e4".into())));
    // The game itself went out and back once: the PV repeats once more.
    let mut pos = start();
    let mut history = Vec::new();
    for m in ["g1f3", "g8f6", "f3g1", "f6g8"] {
        history.push(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
        let m = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(m);
    }
    let pv = "info score cp 0 pv g1f3 g8f6 f3g1 f6g8 e2e4";
    assert_eq!(
        check(&pos, &history, pv, true),
        Some(PvWarning::AfterThreefold("e2e4".into()))
    );
    assert_eq!(check(&pos, &[], pv, true), None);
}

#[test]
fn bare_kings_are_never_over_for_fastchess_but_their_moves_must_be_legal() {
    let kings = from_fen("8/8/8/4k3/8/8/8/4K3 w - - 0 1");
    assert_eq!(
        check(&kings, &[], "info score cp 0 pv e1e2 e5e4", true),
        None
    );
    assert_eq!(
        check(&kings, &[], "info score cp 0 pv e1e2 e5e3", true),
        Some(PvWarning::IllegalMove("e5e3".into()))
    );
}

#[test]
fn castling_is_written_as_the_game_writes_it() {
    let pos = from_fen("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    assert_eq!(check(&pos, &[], "info score cp 0 pv e1g1", true), None);
    assert_eq!(
        check(&pos, &[], "info score cp 0 pv e1h1", true),
        Some(PvWarning::IllegalMove("e1h1".into()))
    );
}

#[test]
fn the_report_is_fastchess_s_four_lines() {
    let line = "info depth 1 score mate 3 pv e2e4";
    let got = report(
        &PvWarning::IncompleteMate,
        "bad",
        line,
        None,
        &["d2d4", "d7d5"],
    );
    assert_eq!(
        got,
        "Warning; Incomplete mating PV - from bad\nInfo; info depth 1 score mate 3 pv e2e4\n\
         Position; startpos\nMoves; d2d4 d7d5"
    );
    let got = report(
        &PvWarning::IllegalMove("e2e5".into()),
        "bad",
        "info pv e2e5",
        Some("8/8/8/4k3/8/8/8/4K3 w - - 0 1"),
        &[],
    );
    assert_eq!(
        got,
        "Warning; Illegal PV move - move e2e5 from bad\nInfo; info pv e2e5\n\
         Position; fen 8/8/8/4k3/8/8/8/4K3 w - - 0 1\nMoves; "
    );
}

#[test]
fn without_check_mate_pvs_the_moves_are_checked_but_not_the_mate_s_length() {
    let check = |line| check(&start(), &[], line, false);
    assert_eq!(check("info depth 1 score mate 3 pv e2e4"), None);
    assert_eq!(
        check("info depth 1 score mate 3 pv e2e4 e2e4"),
        Some(PvWarning::IllegalMove("e2e4".into()))
    );
    assert_eq!(
        check("info score cp 0 pv f2f3 e7e5 g2g4 d8h4 a2a3"),
        Some(PvWarning::AfterCheckmate("a2a3".into()))
    );
}

fn lines(text: &[&str]) -> Vec<String> {
    text.iter().map(|l| l.to_string()).collect()
}

#[test]
fn the_bestmove_must_begin_the_last_first_pv_unless_it_is_a_bound() {
    let mismatch = |l: &[&str], best| {
        bestmove_mismatch(&lines(l), best).map(|(w, line)| (w.text("e"), line.to_string()))
    };
    let search = [
        "info depth 1 score cp 5 pv d2d4",
        "info depth 2 score cp 9 pv e2e4 e7e5",
    ];
    assert_eq!(mismatch(&search, "e2e4"), None);
    assert_eq!(
        mismatch(&search, "d2d4"),
        Some((
            "Warning; Bestmove does not match beginning of last PV - move d2d4 from e".into(),
            search[1].to_string()
        ))
    );
    // The last line of the first PV is read: a second PV after it, a line without a PV, or a
    // bound is never passed over for an earlier line.
    let multi = [
        "info depth 2 multipv 1 score cp 9 pv e2e4",
        "info depth 2 multipv 2 score cp 5 pv d2d4",
    ];
    assert_eq!(mismatch(&multi, "e2e4"), None);
    assert!(mismatch(&multi, "d2d4").is_some());
    assert_eq!(
        mismatch(
            &["info depth 1 score cp 5 pv d2d4", "info depth 2 score cp 9"],
            "e2e4"
        ),
        None
    );
    let bound = [
        "info depth 1 score cp 5 pv d2d4",
        "info depth 2 score cp 9 lowerbound pv e2e4",
    ];
    assert_eq!(mismatch(&bound, "c2c4"), None);
    assert_eq!(mismatch(&[], "e2e4"), None);
}

#[test]
fn the_search_report_is_the_last_exact_first_pv_line() {
    let l = lines(&[
        "info depth 1 score cp 5 pv d2d4",
        "info depth 2 multipv 2 score cp 3 pv e2e4",
        "info depth 2 score cp 9 lowerbound pv e2e4",
        "info string score cp 1",
    ]);
    assert_eq!(last_info_line(&l), Some("info depth 1 score cp 5 pv d2d4"));
    assert_eq!(
        last_info_line(&l[1..]),
        Some("info depth 2 score cp 9 lowerbound pv e2e4")
    );
    assert_eq!(last_info_line(&l[3..]), None);
    assert_eq!(mate_score("info score mate 3 pv e2e4"), Some(3));
    assert_eq!(mate_score("info score mate 3 score cp 2"), None);
    assert_eq!(mate_score("info score mate x"), None);
}

#[test]
fn two_mates_claimed_on_consecutive_moves_are_fastchess_s_four_lines() {
    let them = Mover {
        name: "a",
        white: true,
        report: "info depth 5 score mate 2 pv e2e4",
    };
    let us = Mover {
        name: "b",
        white: false,
        report: "info depth 4 score mate 3",
    };
    assert_eq!(
        sign_mismatch(&them, &us, None, &["e2e4", "e7e5"]).as_deref(),
        Some(
            "Warning; Sign mismatch in mate scores 2 and 3 from a (White) and b (Black)\n\
             Infos; info depth 5 score mate 2 pv e2e4 ; info depth 4 score mate 3\n\
             Position; startpos\nMoves; e2e4 e7e5"
        )
    );
    let mated = Mover {
        report: "info score mate -1",
        ..them
    };
    let also_mated = Mover {
        report: "info score mate -4",
        ..us
    };
    assert!(sign_mismatch(&mated, &also_mated, None, &[]).is_some());
    // One mates, the other is mated: the scores agree.
    assert_eq!(sign_mismatch(&mated, &us, None, &[]), None);
    let cp = Mover {
        report: "info score cp 900",
        ..us
    };
    assert_eq!(sign_mismatch(&them, &cp, None, &[]), None);
    assert_eq!(
        sign_mismatch(&them, &Mover { report: "", ..us }, None, &[]),
        None
    );
}
