//! The summary as a whole: tables built from rows, printed and written to summary.csv.

use super::testing::{close, match_rows, record, row};
use super::*;
use crate::event::{GameRecord, GameResult, Termination};
use crate::report::phases::phase_times;
use crate::report::sprt::SprtStatus;

#[test]
fn standings_of_a_match() {
    let rows = match_rows();
    let s = Summary::from_rows(&rows);
    // Alpha wins games 1-6, draws 7 and 8, loses 9 and 10.
    let alpha = &s.engines[0];
    assert_eq!(alpha.name, "alpha");
    assert_eq!(
        alpha.results,
        Wdl {
            wins: 6,
            draws: 2,
            losses: 2
        }
    );
    assert_eq!(alpha.points, 7.0);
    assert!(close(alpha.elo, 147.19071411783776, 1e-12));
    assert!(close(alpha.los, 0.9213503964748575, 1e-14));
    let beta = &s.engines[1];
    assert_eq!(beta.name, "beta");
    assert!(close(beta.score, 0.3, 1e-15));
    assert!(close(beta.elo, -147.19071411783776, 1e-12));
    assert!(close(beta.elo_low, -504.03329224498987, 1e-9));
    // Beta lost on time in game 3 (flag, as black), alpha in game 9 (both flags, as white).
    assert_eq!(beta.time_losses, 1);
    assert_eq!(alpha.time_losses, 1);
    // Clocks: 100 s as white, 50 s as black; five games each way.
    assert_eq!(alpha.avg_ms_left, 75_000.0);
    assert_eq!(alpha.min_ms_left, 50_000);
    // 5 x 10 s + 5 x 30 s over 200 moves.
    assert_eq!(alpha.avg_ms_per_move, Some(1000.0));
    assert_eq!(s.totals.games, 10);
    assert_eq!(
        (s.totals.white_wins, s.totals.black_wins, s.totals.draws),
        (4, 4, 2)
    );
    assert_eq!(
        s.totals.terminations,
        vec![
            (Termination::Checkmate, 6),
            (Termination::Flag, 1),
            (Termination::BothFlags, 1),
            (Termination::Threefold, 2)
        ]
    );
    assert_eq!(s.pairings.len(), 1);
    let p = &s.pairings[0];
    assert_eq!((p.a.as_str(), p.b.as_str()), ("alpha", "beta"));
    assert_eq!(p.results, alpha.results);
}

#[test]
fn gauntlet_pairings_are_seen_from_the_gauntlet_engine() {
    use GameResult::*;
    // In finishing order: the opponents' white games finished first. The schedule gives
    // each encounter's first game to the gauntlet's engine as white.
    let rows = vec![
        row(3, "opp1", "hero", WhiteWins, Termination::Checkmate),
        row(4, "opp2", "hero", BlackWins, Termination::Checkmate),
        row(1, "hero", "opp1", WhiteWins, Termination::Checkmate),
        row(2, "hero", "opp2", WhiteWins, Termination::Checkmate),
    ];
    let s = Summary::from_rows(&rows);
    // The run's own order, when known, wins over the schedule's.
    let named = ["opp2".to_string()];
    let t = Summary::from_rows_ordered(&rows, &named);
    let labels: Vec<(&str, &str)> = t
        .pairings
        .iter()
        .map(|p| (p.a.as_str(), p.b.as_str()))
        .collect();
    assert_eq!(labels, [("opp2", "hero"), ("hero", "opp1")]);
    let p1 = &s.pairings[0];
    assert_eq!((p1.a.as_str(), p1.b.as_str()), ("hero", "opp1"));
    assert_eq!(
        p1.results,
        Wdl {
            wins: 1,
            draws: 0,
            losses: 1
        }
    );
    let p2 = &s.pairings[1];
    assert_eq!((p2.a.as_str(), p2.b.as_str()), ("hero", "opp2"));
    assert_eq!(p2.results.wins, 2);
    assert_eq!(p2.elo, f64::INFINITY);
    // Standings by score: hero 75 %, opp1 50 %, opp2 0 %.
    let names: Vec<&str> = s.engines.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["hero", "opp1", "opp2"]);
    assert_eq!(s.engines[2].elo, f64::NEG_INFINITY);
}

#[test]
fn text_report_is_aligned_and_never_says_nan() {
    let mut rows = match_rows();
    rows.push(row(
        11,
        "perfect",
        "hopeless",
        GameResult::WhiteWins,
        Termination::IllegalMove,
    ));
    let mut unfinished = row(12, "a", "b", GameResult::Draw, Termination::Checkmate);
    unfinished.result = None;
    rows.push(unfinished);
    let text = Summary::from_rows(&rows).to_text();
    assert!(!text.contains("NaN"), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Standings");
    assert!(lines[1].starts_with("#  Engine    Games  W  D  L  Points   Score"));
    assert!(
        lines[2].starts_with(
            "1  perfect       1  1  0  0     1.0  100.0%     inf  n/a (no spread)  84.13%"
        ),
        "{text}"
    );
    assert!(
        lines[3].contains(
            "alpha        10  6  2  2     7.0   70.0%  +147.2  [-33.4, +504.0]  92.14%  20.0%"
        ),
        "{text}"
    );
    assert!(
        lines[5].contains("  -inf  n/a (no spread)  15.87%"),
        "{text}"
    );
    // Columns line up: "Elo" header ends where every Elo value ends.
    let end = lines[1].find("Elo").unwrap() + 3;
    for line in &lines[2..6] {
        assert!(
            line[..end].ends_with("inf") || line[..end].ends_with(".2"),
            "{line}"
        );
    }
    assert!(text.contains(
        "11 games: 5 white wins, 4 black wins, 2 draws (1 unfinished record not counted)\n"
    ));
    assert!(text.contains(
        "Terminations: checkmate 6, flag 1, both-flags 1, illegal-move 1, threefold 2\n"
    ));
    assert!(text.contains("alpha vs beta"));
    // A one-game line has no spread, so no interval: its cell says so.
    assert!(
        lines[2].contains("  inf  n/a (no spread)  84.13%"),
        "{text}"
    );
    assert_eq!(
        Summary::from_rows(&[]).to_text(),
        "No finished games.\n0 games: 0 white wins, 0 black wins, 0 draws\n"
    );
}

#[test]
fn summary_csv_has_a_row_per_engine_and_a_row_per_pairing() {
    let mut rows = match_rows();
    rows.push(row(
        11,
        "perfect",
        "hopeless",
        GameResult::WhiteWins,
        Termination::Checkmate,
    ));
    let dir = std::env::temp_dir().join(format!("blitz-arena-stats-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("summary.csv");
    Summary::from_rows(&rows).write_csv(&path).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], SUMMARY_COLUMNS.join(","));
    // The per-game columns first; then the pentanomial, time trouble, phases (not known
    // here) and the SPRT (none). One game has no spread: no interval bounds.
    assert_eq!(
        lines[1],
        "engine,1,perfect,,1,1,0,0,1.0,100.00,inf,,,84.1345,0.00,0,100000,100000,500.0,\
         0,0,0,0,0,0,1,,,,,,0,0.00,,,,"
    );
    assert_eq!(
        lines[2],
        "engine,2,alpha,,10,6,2,2,7.0,70.00,147.2,-33.4,504.0,92.1350,20.00,1,75000,50000,\
         1000.0,5,1,0,1,0,3,0,147.2,inf,122.8,215.3,86.8224,0,0.00,,,,"
    );
    assert!(lines[4].starts_with("engine,4,hopeless,,1,0,0,1,0.0,0.00,-inf,,,"));
    // Then the pairings, as the Pairings and Pentanomial tables show them.
    assert_eq!(
        lines[5],
        "pairing,,alpha,beta,10,6,2,2,7.0,70.00,147.2,-33.4,504.0,92.1350,20.00,,,,,\
         5,1,0,1,0,3,0,147.2,inf,122.8,215.3,86.8224,,,,,,"
    );
    assert!(lines[6].starts_with("pairing,,perfect,hopeless,1,1,0,0,1.0,100.00,inf,,,"));
    assert_eq!(lines.len(), 7);
    for line in &lines {
        assert_eq!(line.split(',').count(), SUMMARY_COLUMNS.len(), "{line}");
    }
    assert!(!dir.join("summary.csv.tmp").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}
/// A game between `a` and `b` in pair `pair`; `a_points` 1, 0.5 or 0; `a` white if asked.
fn game(pair: u64, a_white: bool, a_points: f64) -> GameRow {
    let result = if a_points == 0.5 {
        GameResult::Draw
    } else if (a_points == 1.0) == a_white {
        GameResult::WhiteWins
    } else {
        GameResult::BlackWins
    };
    let (w, b) = if a_white { ("a", "b") } else { ("b", "a") };
    let mut r = row(2 * pair, w, b, result, Termination::Checkmate);
    r.pair = pair;
    r
}

#[test]
fn pentanomial_counts_pairs_from_the_first_engines_side() {
    let mut rows = vec![
        game(1, true, 1.0),
        game(1, false, 0.5), // WD
        game(2, false, 1.0),
        game(2, true, 0.0), // WL: 1 point
        game(3, true, 0.5),
        game(3, false, 0.5), // DD: 1 point
        game(4, true, 0.0),
        game(4, false, 0.0), // LL
        game(5, false, 0.5),
        game(5, true, 0.5), // DD
        game(6, true, 1.0), // its partner never finished
        game(6, false, 1.0),
        game(7, true, 0.5), // its partner is missing
        game(0, true, 1.0), // no pair number
        game(8, true, 1.0), // the same colours twice: not a pair
        game(8, true, 1.0),
    ];
    rows[11].result = None;
    // Another engine's games and other runs' pairs do not mix in.
    let mut other = row(99, "a", "c", GameResult::WhiteWins, Termination::Checkmate);
    other.pair = 1;
    rows.push(other);
    let mut rerun = game(1, true, 1.0);
    rerun.seed = 2;
    let mut rerun2 = game(1, false, 1.0);
    rerun2.seed = 2;
    rows.extend([rerun, rerun2]); // WW in run 2's pair 1
    assert_eq!(pentanomial(&rows, "a", "b"), ([1, 0, 3, 1, 1], 5));
    assert_eq!(pentanomial(&rows, "b", "a"), ([1, 1, 3, 0, 1], 5));
    assert_eq!(pentanomial(&rows, "a", "c"), ([0; 5], 1));
    assert_eq!(pentanomial(&rows, "a", "nobody"), ([0; 5], 0));

    let s = Summary::from_rows(&rows);
    let ab = s.pairings.iter().find(|p| p.b == "b").unwrap();
    assert_eq!(ab.a, "a");
    assert_eq!(ab.penta.counts, [1, 0, 3, 1, 1]);
    assert_eq!(ab.penta.unpaired, 5);
    // Engine "a" against the field adds its "c" game as unpaired; "b" sees mirrored pairs.
    let a = s.engines.iter().find(|e| e.name == "a").unwrap();
    assert_eq!((a.penta.counts, a.penta.unpaired), ([1, 0, 3, 1, 1], 6));
    let b = s.engines.iter().find(|e| e.name == "b").unwrap();
    assert_eq!((b.penta.counts, b.penta.unpaired), ([1, 1, 3, 0, 1], 5));
    let text = s.to_text();
    assert!(
        text.contains("a vs b   [1, 0, 3, 1, 1]              6  +29.0 ± 186.2"),
        "{text}"
    );
    assert!(
        text.contains("6 finished games are not in a complete pair, left out of these counts\n"),
        "{text}"
    );
}

#[test]
fn the_pentanomial_of_a_match_agrees_with_its_games() {
    // match_rows: pairs 1-3 won twice by alpha, pair 4 drawn twice, pair 5 lost twice.
    let s = Summary::from_rows(&match_rows());
    let p = &s.pairings[0].penta;
    assert_eq!((p.counts, p.pairs, p.unpaired), ([1, 0, 1, 0, 3], 5, 0));
    // Paired or not, the score is the games' score.
    assert!(close(p.score, s.pairings[0].score, 1e-15));
    assert!(close(p.elo, s.pairings[0].elo, 1e-12));
    assert_eq!(s.engines[1].penta.counts, [3, 0, 1, 0, 1]);
}

#[test]
fn time_trouble_is_under_a_tenth_of_the_base_time() {
    use GameResult::*;
    let mut rows = Vec::new();
    // 5+0: 300 s base, trouble below 30 s.
    for (white_left, black_left) in [(29_999, 30_000), (-5, 150_000), (100, 0)] {
        let mut r = row(
            rows.len() as u64 + 1,
            "x",
            "y",
            Draw,
            Termination::Threefold,
        );
        r.white_ms_left = white_left;
        r.black_ms_left = black_left;
        rows.push(r);
    }
    // 10 s + 0.1 s for x: 1 s is the limit; y's time control does not parse.
    let mut r = row(4, "x", "y", WhiteWins, Termination::Checkmate);
    r.tc_white = "10s+0.1s".into();
    r.tc_black = "??".into();
    r.white_ms_left = 999;
    r.black_ms_left = 1;
    rows.push(r);
    // No base time at all (increment only): not counted either way.
    let mut r = row(5, "y", "x", WhiteWins, Termination::Checkmate);
    r.tc_white = "0+1".into();
    r.tc_black = "0+1".into();
    r.white_ms_left = 0;
    r.black_ms_left = 0;
    rows.push(r);
    let s = Summary::from_rows(&rows);
    let x = s.engines.iter().find(|e| e.name == "x").unwrap();
    assert_eq!((x.time_trouble, x.time_trouble_games), (4, 4));
    assert_eq!(x.time_trouble_share, 1.0);
    let y = s.engines.iter().find(|e| e.name == "y").unwrap();
    // 30 000 is exactly a tenth: not under it. 0 is.
    assert_eq!((y.time_trouble, y.time_trouble_games), (1, 3));
    assert!(close(y.time_trouble_share, 1.0 / 3.0, 1e-15));
    let text = s.to_text();
    assert!(text.contains("33.3%"), "{text}");
}

#[test]
fn phases_and_sprt_reach_the_text_and_the_csv() {
    let rows = match_rows();
    let mut s = Summary::from_rows(&rows);
    let text = s.to_text();
    assert!(
        text.contains("Think time by game phase: not shown"),
        "{text}"
    );
    assert!(!text.contains("SPRT"), "{text}");

    // The records of the match: alpha and beta by their colours in `match_rows`.
    let records: Vec<GameRecord> = (1..=10)
        .map(|g| {
            let mut r = record(g, None, 0, 90, true);
            (r.white, r.black) = if g % 2 == 1 {
                ("alpha".into(), "beta".into())
            } else {
                ("beta".into(), "alpha".into())
            };
            r
        })
        .collect();
    s.with_phases(&phase_times(&records));
    let sprt: Sprt = "elo0=0,elo1=5,alpha=0.05,beta=0.05".parse().unwrap();
    assert!(s.with_sprt(&sprt, "alpha", true));
    let outcome = s.sprt.as_ref().unwrap();
    assert_eq!(outcome.penta, [1, 0, 1, 0, 3]);
    assert!(close(outcome.llr, sprt.llr([1, 0, 1, 0, 3]), 1e-15));
    assert!(outcome.llr > 0.0);
    assert_eq!(outcome.status, SprtStatus::Continue);

    let text = s.to_text();
    // Alpha: 14, 54, 84 ms as white, 1 s as black, 5 games each way: 507, 527, 542 ms.
    assert!(
        text.contains("alpha     0.51s       0.53s    0.54s"),
        "{text}"
    );
    assert!(text.contains("Pentanomial (pairs of games"), "{text}");
    assert!(
        text.contains(
            "alpha vs beta  [1, 0, 1, 0, 3]              5  +147.2 ± inf  +122.8 ± 215.3  86.82%\n"
        ),
        "{text}"
    );
    assert!(text.contains("SPRT alpha vs beta: nElo [0, 5], alpha 0.05, beta 0.05\n"));
    assert!(text.contains(&format!(
        "LLR {:+.2} over 10 games, bounds (-2.94, +2.94): continue\n",
        outcome.llr
    )));
    assert!(!text.contains("Stopped"), "{text}");
    // A run that stopped at a bound says where, and why its LLR differs from the summary's.
    let mut stopped = s.clone();
    stopped.with_sprt_stop(SprtStatus::AcceptH1, 2.95, 8);
    let text = stopped.to_text();
    assert!(
        text.contains(
            "Stopped: H1 accepted at LLR +2.95 after 8 games (the last LLR shown while the games ran);\n\
             the 2 games in progress then finished and count in the LLR above\n"
        ),
        "{text}"
    );
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "too wide: {line}");
    }
    stopped.with_sprt_stop(SprtStatus::AcceptH1, outcome.llr, 10);
    assert!(stopped.to_text().contains("after 10 games, as above\n"));
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "too wide: {line}");
    }

    // From beta's side: mirrored counts, and a negative LLR.
    let mut t = s.clone();
    assert!(t.with_sprt(&sprt, "beta", true));
    assert_eq!(t.sprt.as_ref().unwrap().penta, [3, 0, 1, 0, 1]);
    assert!(t.sprt.as_ref().unwrap().llr < 0.0);
    // Not an engine of exactly one pairing: nothing.
    assert!(!t.with_sprt(&sprt, "gamma", true));

    let dir = std::env::temp_dir().join(format!("blitz-arena-phases-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("summary.csv");
    s.write_csv(&path).unwrap();
    let csv = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[1].starts_with("engine,1,alpha,,"));
    assert!(
        lines[1].ends_with(&format!(
            ",5,1,0,1,0,3,0,147.2,inf,122.8,215.3,86.8224,0,0.00,507.0,527.0,542.0,{:.4}",
            outcome.llr
        )),
        "{}",
        lines[1]
    );
    assert!(
        lines[2]
            .ends_with(",5,3,0,1,0,1,0,-147.2,inf,-122.8,215.3,13.1776,0,0.00,507.0,527.0,542.0,"),
        "{}",
        lines[2]
    );
    // The pairing's row carries the LLR too: the SPRT is of that pairing.
    assert!(
        lines[3].starts_with("pairing,,alpha,beta,10,"),
        "{}",
        lines[3]
    );
    assert!(
        lines[3].ends_with(&format!(",{:.4}", outcome.llr)),
        "{}",
        lines[3]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_gauntlet_without_pairs_says_so_in_one_line() {
    use GameResult::*;
    let mut rows = vec![
        row(1, "opp1", "hero", WhiteWins, Termination::Checkmate),
        row(2, "hero", "opp2", WhiteWins, Termination::Checkmate),
    ];
    for r in &mut rows {
        r.pair = 0;
    }
    let text = Summary::from_rows(&rows).to_text();
    assert!(
        text.contains("Pentanomial: no complete pair of games (2 unpaired games)\n"),
        "{text}"
    );
}

/// The summary kept row by row is the summary of the rows so far, after every row, whatever
/// order the games finished in: three engines, unfinished games, incomplete pairs, a
/// self-play game, losses on time, starved moves and time controls without a base.
#[test]
fn the_running_summary_is_the_summary_of_the_rows_so_far() {
    use GameResult::*;
    use Termination::*;
    let names = ["gamma", "alpha", "beta"];
    let results = [WhiteWins, Draw, BlackWins, WhiteWins, BlackWins, Draw, Draw];
    let mut rows = Vec::new();
    for g in 1..=40u64 {
        let (i, j) = ((g / 2 % 3) as usize, ((g / 2 + 1) % 3) as usize);
        let (w, b) = if g % 2 == 1 {
            (names[i], names[j])
        } else {
            (names[j], names[i])
        };
        let result = results[(g as usize * 5) % results.len()];
        let term = if g % 7 == 0 { Flag } else { Checkmate };
        let mut r = row(g, w, b, result, term);
        if g % 11 == 0 {
            r.result = None;
            r.termination = None;
        }
        if g % 13 == 0 {
            r.opening = "e2e4".into();
            r.black = r.white.clone();
        }
        if g % 5 == 0 {
            r.tc_black = "moves".into();
            r.black_starved = 2;
            r.black_cpu_ms = Some(10);
            r.starved_time_loss = Some(crate::event::Side::Black);
        }
        r.white_ms_left = (g as i64 * 7919) % 120_000 - 1_000;
        rows.push(r);
    }
    // Finished out of order: every 7th game of the 40, round and round.
    let order: Vec<usize> = (0..40).map(|k| k * 7 % 40).collect();
    let mut running = RunningSummary::default();
    let mut so_far = Vec::new();
    for i in order {
        running.add(&rows[i]);
        so_far.push(rows[i].clone());
        assert_eq!(running.rows(), so_far.len());
        assert_eq!(
            format!("{:?}", running.summary()),
            format!("{:?}", Summary::from_rows(&so_far)),
            "after {} rows",
            so_far.len()
        );
    }
}
