//! `adjudicate RESULTS --ruleset NAME`: re-rules every recorded game under another ruleset and
//! shows the games whose ruling differs.
//!
//! Each game's recorded events are fed in order to a fresh referee with the run's settings
//! (`run.json`, or the defaults) and the other ruleset, and its verdicts are acted on as the
//! live game acts on them (`game::rerule`, `game::verdicts`).

use std::path::Path;

use anyhow::bail;

use super::{say, Finish};
use crate::event::GameRecord;
use crate::game::rerule::{rerule, Rerule};
use crate::game::Watchers;
use crate::report::{self, EventsIndex, EVENTS_JSONL};
use crate::rules::{RefereeSettings, Ruleset};
use crate::tournament::plan::{RunPlan, RUN_JSON};

/// How a recorded game's ruling compares under another ruleset.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Comparison {
    Same,
    Differs,
    Undetermined,
}

/// `adjudicate RESULTS --ruleset NAME`.
pub fn adjudicate(results: &Path, ruleset: Ruleset) -> anyhow::Result<Finish> {
    // The records are read one at a time from their index, never all at once: memory holds
    // the index, not the run (a 100,000-game folder re-rules in 32 MB resident; loading every
    // record took 1.1 GB).
    let (index, plan, plan_path) = load(results)?;
    let (mut settings, watchers) = match &plan {
        Some(plan) => (plan.settings.clone(), plan.watchers),
        None => (RefereeSettings::default(), Watchers::default()),
    };
    settings.ruleset = ruleset;
    let recorded: Vec<&str> = index.rulesets.iter().map(|r| r.as_str()).collect();
    say!(
        "re-ruling {} {} of {} under {ruleset} (recorded under {}; settings {})",
        index.len(),
        if index.len() == 1 { "game" } else { "games" },
        results.display(),
        recorded.join(", "),
        match &plan {
            Some(_) => format!("from {}", plan_path.display()),
            None => format!("by default: no {RUN_JSON}"),
        }
    );
    let (mut differ, mut undetermined) = (0, 0);
    for game in index.games() {
        let Some(record) = index.record(game)? else {
            continue;
        };
        let rerule = rerule(&record, &settings, &watchers);
        let (comparison, lines) = report_game(&record, ruleset, &rerule);
        match comparison {
            Comparison::Same => continue,
            Comparison::Differs => differ += 1,
            Comparison::Undetermined => undetermined += 1,
        }
        for line in lines {
            say!("{line}");
        }
    }
    say!("{}", summary(index.len(), differ, undetermined, ruleset));
    Ok(Finish::Done)
}

/// A recorded game ruled under each of the six rulesets, in words: (ruleset, ruling), for the
/// HTML report's side-by-side table. The run's settings come from its plan when given.
pub(crate) fn under_every_ruleset(
    record: &GameRecord,
    plan: Option<&RunPlan>,
) -> Vec<(String, String)> {
    let (settings, watchers) = match plan {
        Some(plan) => (plan.settings.clone(), plan.watchers),
        None => (RefereeSettings::default(), Watchers::default()),
    };
    Ruleset::ALL
        .iter()
        .map(|&ruleset| {
            let mut settings = settings.clone();
            settings.ruleset = ruleset;
            let text = match rerule(record, &settings, &watchers) {
                Rerule::Ended { ending, assumed } => {
                    let mut text = ruling(
                        ending.result.as_str(),
                        ending.termination.as_str(),
                        &ending.rule,
                        &ending.detail,
                    );
                    if !assumed.is_empty() {
                        text.push_str(&format!(" (assumed: {})", assumed.join("; ")));
                    }
                    text
                }
                Rerule::Undetermined(why) => format!("undetermined: {why}"),
            };
            (ruleset.to_string(), text)
        })
        .collect()
}

/// The games of `results` (a results folder or an events file), and the run's plan when
/// there is one beside them.
fn load(results: &Path) -> anyhow::Result<(EventsIndex, Option<RunPlan>, std::path::PathBuf)> {
    let (dir, file) = if results.is_dir() {
        (results.to_path_buf(), results.join(EVENTS_JSONL))
    } else if results.is_file() {
        let dir = results
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        (dir.to_path_buf(), results.to_path_buf())
    } else if results.exists() {
        // A FIFO or a device: never opened (a FIFO would block).
        bail!(
            "{}: not a results folder or file (a special file; name the results folder, or its {EVENTS_JSONL})",
            results.display()
        );
    } else {
        bail!("{}: no such results folder or file", results.display());
    };
    match std::fs::symlink_metadata(&file) {
        Err(_) => bail!(
            "{}: not a results folder (no {EVENTS_JSONL})",
            results.display()
        ),
        // A FIFO, a device or a folder in its place: never opened (a FIFO would block).
        Ok(meta) if !meta.is_file() && !meta.is_symlink() => bail!(
            "{} is not a plain file; a results folder's files must be plain files",
            file.display()
        ),
        Ok(_) => {}
    }
    let index = EventsIndex::scan(&file)?;
    let torn = report::folder::open_read(&file)
        .and_then(|f| report::folder::torn_tail_len(&f))
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", file.display()))?;
    if torn > 0 {
        bail!(
            "{}: line {} is cut off (a run still writing, or killed mid-write); wait for the \
             run to finish, or --resume it, which repairs the file",
            file.display(),
            index.lines
        );
    }
    check_lines(&file)?;
    if index.is_empty() {
        bail!("{}: no games recorded", file.display());
    }
    let plan_path = dir.join(RUN_JSON);
    // A link by that name, even one to nothing, is refused by `load`, never taken for a
    // missing plan.
    let plan = if plan_path.symlink_metadata().is_ok() {
        Some(RunPlan::load(&dir)?)
    } else {
        None
    };
    Ok((index, plan, plan_path))
}

/// Every line of an events file must be a whole record (the index reads only its game number
/// and ruleset): each is parsed and dropped, one at a time. An error names the first bad line.
fn check_lines(file: &Path) -> anyhow::Result<()> {
    use std::io::BufRead;
    let cannot = |e: std::io::Error| anyhow::anyhow!("cannot read {}: {e}", file.display());
    let reader = std::io::BufReader::new(report::folder::open_read(file).map_err(cannot)?);
    for (i, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(cannot)?;
        if line.trim_ascii().is_empty() {
            continue;
        }
        if let Err(e) = serde_json::from_slice::<GameRecord>(&line) {
            bail!("{}", report::results::bad_record_line(file, i + 1, &e));
        }
    }
    Ok(())
}

/// The summary line.
fn summary(games: usize, differ: usize, undetermined: usize, ruleset: Ruleset) -> String {
    format!(
        "{games} {}, {differ} {} under {ruleset}, {undetermined} undetermined, {} the same",
        if games == 1 { "game" } else { "games" },
        if differ == 1 {
            "ruling differs"
        } else {
            "rulings differ"
        },
        games - differ - undetermined
    )
}

/// `result, termination (rule): detail`
fn ruling(result: &str, termination: &str, rule: &str, detail: &str) -> String {
    let mut text = format!("{result}, {termination} ({rule})");
    if !detail.is_empty() {
        text.push_str(": ");
        text.push_str(detail);
    }
    text
}

/// How a game compares, and the lines that say so (none when it is the same).
fn report_game(
    record: &GameRecord,
    ruleset: Ruleset,
    rerule: &Rerule,
) -> (Comparison, Vec<String>) {
    let recorded = record.outcome();
    let comparison = match (rerule, &recorded) {
        (Rerule::Undetermined(_), _) => Comparison::Undetermined,
        (Rerule::Ended { ending, .. }, Some(o))
            if o.result == ending.result && o.termination == ending.termination =>
        {
            Comparison::Same
        }
        (Rerule::Ended { .. }, _) => Comparison::Differs,
    };
    if comparison == Comparison::Same {
        return (comparison, Vec::new());
    }
    let was = format!("recorded ({}):", record.ruleset);
    let now = format!("under {ruleset}:");
    let width = was.len().max(now.len());
    let mut lines = vec![format!(
        "game {}: {} (white) v {} (black)",
        record.game, record.white, record.black
    )];
    lines.push(format!(
        "  {was:<width$} {}",
        match &recorded {
            Some(o) => ruling(o.result.as_str(), o.termination.as_str(), o.rule, o.detail),
            None => "no ending in the record".to_string(),
        }
    ));
    match rerule {
        Rerule::Ended { ending, assumed } => {
            lines.push(format!(
                "  {now:<width$} {}",
                ruling(
                    ending.result.as_str(),
                    ending.termination.as_str(),
                    &ending.rule,
                    &ending.detail
                )
            ));
            if !assumed.is_empty() {
                lines.push(format!("  {:<width$} {}", "assumed:", assumed.join("; ")));
            }
        }
        Rerule::Undetermined(why) => lines.push(format!("  {now:<width$} undetermined: {why}")),
    }
    (comparison, lines)
}

/// Does a kept game's record rule as it says? Its events, ruled again under its own ruleset
/// with the run's settings, must end as its `End` says (result and termination): a record
/// edited by hand is refused by `--resume` and `merge` rather than rewritten from.
pub(crate) fn ruling_holds(record: &GameRecord, plan: &RunPlan) -> Result<(), String> {
    let Some(outcome) = record.outcome() else {
        return Err("its record has no ending".to_string());
    };
    let mut settings = plan.settings.clone();
    settings.ruleset = record.ruleset;
    match rerule(record, &settings, &plan.watchers) {
        Rerule::Ended { ending, .. }
            if ending.result == outcome.result && ending.termination == outcome.termination =>
        {
            Ok(())
        }
        Rerule::Ended { ending, .. } => Err(format!(
            "its events rule {} {}, its record says {} {}",
            ending.result.as_str(),
            ending.termination.as_str(),
            outcome.result.as_str(),
            outcome.termination.as_str()
        )),
        Rerule::Undetermined(why) => Err(format!("its events do not rule: {why}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Claimable, Event, Fault, Side};
    use crate::event::{GameResult, Termination};
    use crate::report::pgn::tests::Builder;
    use crate::rules::illegal::IllegalKind;
    use crate::rules::Ending;
    use Side::{Black, White};

    fn settings(ruleset: Ruleset) -> RefereeSettings {
        RefereeSettings {
            ruleset,
            ..RefereeSettings::default()
        }
    }

    /// Re-rules `record` under `ruleset` with default watchers, and the report's lines.
    fn under(record: &GameRecord, ruleset: Ruleset) -> (Rerule, Comparison, Vec<String>) {
        under_with(record, ruleset, &Watchers::default())
    }

    fn under_with(
        record: &GameRecord,
        ruleset: Ruleset,
        watchers: &Watchers,
    ) -> (Rerule, Comparison, Vec<String>) {
        let rerule = rerule(record, &settings(ruleset), watchers);
        let (comparison, lines) = report_game(record, ruleset, &rerule);
        (rerule, comparison, lines)
    }

    fn ending(rerule: &Rerule) -> &Ending {
        match rerule {
            Rerule::Ended { ending, .. } => ending,
            Rerule::Undetermined(why) => panic!("undetermined: {why}"),
        }
    }

    fn claim(t_us: i64, by: Side, what: Claimable) -> [Event; 2] {
        [
            Event::Notice { t_us, by, what },
            Event::Claim { t_us, by, what },
        ]
    }

    /// Scholar's mate, recorded under FIDE: a mate is a mate under every ruleset.
    #[test]
    fn a_checkmate_is_the_same_ruling_everywhere() {
        let record = crate::report::pgn::tests::scholars_mate();
        for ruleset in Ruleset::ALL {
            let (rerule, comparison, lines) = under(&record, ruleset);
            assert_eq!(comparison, Comparison::Same, "{ruleset}: {rerule:?}");
            assert!(lines.is_empty());
            assert_eq!(ending(&rerule).result, GameResult::WhiteWins);
        }
    }

    /// K+N against K+R, Black (the rook) flags and White claims at once.
    fn knight_v_rook_flag(ruleset: Ruleset, result: GameResult, rule: &str) -> GameRecord {
        let mut b = Builder::new(7, "knight", "rook")
            .opening("kn-kr", Some("8/8/8/4k3/8/8/2N4r/K7 w - - 0 1"), &[])
            .mv(White, "c2e3", 100)
            .flag(Black, 0);
        let t = b.record.events.last().unwrap().t_us();
        for e in claim(t, White, Claimable::Flag) {
            b = b.event(e);
        }
        b.record.ruleset = ruleset;
        b.end(
            result,
            Termination::Flag,
            rule,
            "black flag fell; claimed by white",
        )
    }

    #[test]
    fn a_knight_wins_on_time_under_fide_and_draws_under_uscf() {
        let record = knight_v_rook_flag(Ruleset::Fide, GameResult::WhiteWins, "FIDE A4.3");
        let (rerule, comparison, lines) = under(&record, Ruleset::Uscf);
        assert_eq!(comparison, Comparison::Differs);
        let e = ending(&rerule);
        assert_eq!(
            (e.result, e.termination, e.rule.as_str()),
            (GameResult::Draw, Termination::Flag, "USCF 8d")
        );
        assert_eq!(
            lines,
            vec![
                "game 7: knight (white) v rook (black)".to_string(),
                "  recorded (fide): 1-0, flag (FIDE A4.3): black flag fell; claimed by white"
                    .to_string(),
                "  under uscf:      1/2-1/2, flag (USCF 8d): black flag fell at 300.100 s; white \
                 noticed it and claimed at 300.100 s, white flag up; white cannot mate"
                    .to_string(),
            ]
        );
        // WBCA 7c.1 agrees with USCF; generic's helpmate search and house rules with FIDE.
        assert_eq!(under(&record, Ruleset::Wbca).1, Comparison::Differs);
        assert_eq!(under(&record, Ruleset::Generic).1, Comparison::Same);
        assert_eq!(under(&record, Ruleset::House).1, Comparison::Same);
        // And back: the draw recorded under USCF is a win under FIDE.
        let record = knight_v_rook_flag(Ruleset::Uscf, GameResult::Draw, "USCF 8d");
        assert_eq!(under(&record, Ruleset::Uscf).1, Comparison::Same);
        let (rerule, comparison, _) = under(&record, Ruleset::Fide);
        assert_eq!(comparison, Comparison::Differs);
        assert_eq!(ending(&rerule).rule, "FIDE A4.3");
    }

    /// An illegal king jump recorded under `online` (it lost at once, no notice, no claim).
    fn online_illegal() -> GameRecord {
        let mut b = Builder::new(4, "jumper", "random")
            .mv(White, "e2e4", 100)
            .mv(Black, "e7e5", 100)
            .illegal(White, "e1e3", 100, "no legal move e1e3");
        if let Some(Event::IllegalMove { kind, .. }) = b.record.events.last_mut() {
            *kind = Some(IllegalKind::BadPieceMove);
        }
        b.record.ruleset = Ruleset::Online;
        b.end(
            GameResult::BlackWins,
            Termination::IllegalMove,
            "online: illegal move",
            "white played \"e1e3\": no legal move e1e3",
        )
    }

    #[test]
    fn an_illegal_move_that_lost_online_is_a_retake_under_fide_undetermined() {
        let record = online_illegal();
        let (rerule, comparison, lines) = under(&record, Ruleset::Fide);
        assert_eq!(comparison, Comparison::Undetermined);
        assert_eq!(
            rerule,
            Rerule::Undetermined(
                "the game would have gone on: the illegal move would be taken back \
                 and black given a minute (FIDE A4.2, 7.5.5); the record ends here"
                    .to_string()
            )
        );
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(
            lines[1].starts_with("  recorded (online): 0-1, illegal-move (online: illegal move)")
        );
        assert!(
            lines[2].starts_with("  under fide:        undetermined: the game would have gone on")
        );
        // USCF rules it as online did: the watcher notices at once and Black can mate.
        let (rerule, comparison, _) = under(&record, Ruleset::Uscf);
        assert_eq!(comparison, Comparison::Same, "{rerule:?}");
        let Rerule::Ended { ending, assumed } = rerule else {
            unreachable!()
        };
        assert_eq!(ending.rule, "USCF 7d");
        assert_eq!(
            assumed,
            vec![
                "black's watcher noticed white's illegal move and claimed at once \
                 (--illegal-notice 1, --claim-ms 0)"
            ]
        );
        // A watcher that may or may not notice: nobody can say.
        let unsure = Watchers {
            illegal_notice: 0.5,
            ..Watchers::default()
        };
        let (rerule, _, _) = under_with(&record, Ruleset::Uscf, &unsure);
        assert_eq!(
            rerule,
            Rerule::Undetermined(
                "the game would have gone on: black's watcher would notice white's \
                 illegal move with probability 0.5; the record ends here"
                    .to_string()
            )
        );
    }

    /// Under FIDE with slow watchers, White's flag falls at 1.0 s and Black's watcher claims
    /// 300 ms later; meanwhile White moves and Black's own flag falls at 1.2 s: the first flag
    /// loses (FIDE A4.3).
    fn fide_late_claim() -> GameRecord {
        let b = Builder::new(2, "slow", "fast")
            .mv(White, "e2e4", 100)
            .mv(Black, "e7e5", 100);
        let flag = |t_us, side| Event::FlagFall { t_us, side };
        let b = b
            .event(flag(1_000_000, White))
            .event(Event::Move {
                t_us: 1_100_000,
                side: White,
                uci: "g1f3".into(),
                think_us: 900_000,
                clock_us: -100_000,
                info: Default::default(),
            })
            .event(flag(1_200_000, Black))
            .event(claim(1_300_000, Black, Claimable::Flag)[0].clone())
            .event(claim(1_300_000, Black, Claimable::Flag)[1].clone());
        b.end(
            GameResult::BlackWins,
            Termination::BothFlags,
            "FIDE A4.3",
            "both flags down: white at 1.000 s, black at 1.200 s",
        )
    }

    #[test]
    fn a_flag_claimed_300_ms_later_under_fide_ends_at_once_online() {
        let record = fide_late_claim();
        let slow = Watchers {
            flag_notice_ms: 300.0,
            ..Watchers::default()
        };
        let (rerule, comparison, lines) = under_with(&record, Ruleset::Online, &slow);
        assert_eq!(comparison, Comparison::Differs);
        let e = ending(&rerule);
        assert_eq!(
            (e.result, e.termination, e.rule.as_str()),
            (GameResult::BlackWins, Termination::Flag, "online: flag")
        );
        assert_eq!(
            lines[1..],
            [
                "  recorded (fide): 0-1, both-flags (FIDE A4.3): both flags down: white at 1.000 s, \
                 black at 1.200 s",
                "  under online:    0-1, flag (online: flag): white flag fell at 1.000 s: the server \
                 ends the game at once",
            ]
        );
        // USCF: both flags were down before the claim: a draw (USCF 8c).
        let (rerule, comparison, _) = under_with(&record, Ruleset::Uscf, &slow);
        assert_eq!(comparison, Comparison::Differs);
        let e = ending(&rerule);
        assert_eq!((e.result, e.rule.as_str()), (GameResult::Draw, "USCF 8c"));
        // FIDE itself: the same, even with the defaults (the record shows the late notice).
        assert_eq!(
            under_with(&record, Ruleset::Fide, &slow).1,
            Comparison::Same
        );
        assert_eq!(under(&record, Ruleset::Fide).1, Comparison::Same);
    }

    #[test]
    fn an_online_flag_needs_a_claim_that_slow_watchers_would_make_later() {
        // Recorded online: the flag ended the game at once.
        let mut b = Builder::new(3, "a", "b")
            .mv(White, "e2e4", 100)
            .flag(Black, 0);
        b.record.ruleset = Ruleset::Online;
        let record = b.end(
            GameResult::WhiteWins,
            Termination::Flag,
            "online: flag",
            "black flag fell",
        );
        // Instant watchers claim at once: a FIDE flag win, the same ruling.
        let (rerule, comparison, _) = under(&record, Ruleset::Fide);
        assert_eq!(comparison, Comparison::Same, "{rerule:?}");
        // Slow ones: the record cannot say what happened before the claim.
        let slow = Watchers {
            flag_notice_ms: 500.0,
            ..Watchers::default()
        };
        let (rerule, comparison, _) = under_with(&record, Ruleset::Fide, &slow);
        assert_eq!(comparison, Comparison::Undetermined);
        assert_eq!(
            rerule,
            Rerule::Undetermined(
                "the game would have gone on: white's watcher would notice black's \
                 fallen flag after 500 ms on average and claim; the record ends here"
                    .to_string()
            )
        );
    }

    #[test]
    fn a_promotion_read_as_a_queen_goes_on_where_the_record_ended() {
        // House rules: a promotion without its piece is an illegal move, and it lost.
        let mut b = Builder::new(5, "promoter", "other")
            .opening("promo", Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1"), &[])
            .illegal(White, "e7e8", 100, "no promotion piece");
        if let Some(Event::IllegalMove { kind, .. }) = b.record.events.last_mut() {
            *kind = Some(IllegalKind::NoPromotion);
        }
        let t = b.record.events.last().unwrap().t_us();
        for e in claim(t, Black, Claimable::IllegalMove) {
            b = b.event(e);
        }
        b.record.ruleset = Ruleset::House;
        let record = b.end(
            GameResult::BlackWins,
            Termination::IllegalMove,
            "H3.4, H18, H19",
            "",
        );
        let (rerule, comparison, _) = under(&record, Ruleset::Wbca);
        assert_eq!(comparison, Comparison::Undetermined);
        assert_eq!(
            rerule,
            Rerule::Undetermined(
                "the game would have gone on: white's e7e8 stands as a promotion to \
                 a queen (WBCA 17); the record ends here"
                    .to_string()
            )
        );
        // The same record re-ruled under its own ruleset is the same.
        assert_eq!(under(&record, Ruleset::House).1, Comparison::Same);
    }

    #[test]
    fn a_take_back_under_fide_is_a_loss_under_uscf() {
        // FIDE: Black's first illegal move is taken back, White gets a minute, play goes on.
        let mut b = Builder::new(6, "a", "b").mv(White, "e2e4", 100).illegal(
            Black,
            "e8e6",
            100,
            "no legal move e8e6",
        );
        let t = b.record.events.last().unwrap().t_us();
        for e in claim(t, White, Claimable::IllegalMove) {
            b = b.event(e);
        }
        b = b
            .event(Event::Penalty {
                t_us: t,
                side: White,
                add_us: 60_000_000,
                rule: "FIDE A4.2, 7.5.5".into(),
            })
            .mv(Black, "e7e5", 100)
            .flag(White, 0);
        let t = b.record.events.last().unwrap().t_us();
        for e in claim(t, Black, Claimable::Flag) {
            b = b.event(e);
        }
        let record = b.end(GameResult::BlackWins, Termination::Flag, "FIDE A4.3", "");
        assert_eq!(under(&record, Ruleset::Fide).1, Comparison::Same);
        // USCF: the illegal move loses at once.
        let (rerule, comparison, _) = under(&record, Ruleset::Uscf);
        assert_eq!(comparison, Comparison::Differs);
        let e = ending(&rerule);
        assert_eq!(
            (e.result, e.rule.as_str()),
            (GameResult::WhiteWins, "USCF 7d")
        );
    }

    #[test]
    fn a_recorded_penalty_the_other_ruleset_does_not_give_leaves_the_rest_undetermined() {
        // FIDE 7.5.2: the promotion without its piece is a queen, and Black gets a minute.
        let mut b = Builder::new(9, "promoter", "other")
            .opening("promo", Some("8/4P3/8/8/8/8/k7/4K3 w - - 0 1"), &[])
            .illegal(White, "e7e8", 100, "no promotion piece");
        if let Some(Event::IllegalMove { kind, .. }) = b.record.events.last_mut() {
            *kind = Some(IllegalKind::NoPromotion);
        }
        let t = b.record.events.last().unwrap().t_us();
        for e in claim(t, Black, Claimable::IllegalMove) {
            b = b.event(e);
        }
        b = b
            .event(Event::Penalty {
                t_us: t,
                side: Black,
                add_us: 60_000_000,
                rule: "FIDE A4.2, 7.5.2, 7.5.5".into(),
            })
            .mv(Black, "a2b2", 100)
            .flag(White, 0);
        let t = b.record.events.last().unwrap().t_us();
        for e in claim(t, Black, Claimable::Flag) {
            b = b.event(e);
        }
        let record = b.end(GameResult::Draw, Termination::Flag, "FIDE A4.3", "");
        assert_eq!(under(&record, Ruleset::Fide).1, Comparison::Same);
        let (rerule, comparison, _) = under(&record, Ruleset::Wbca);
        assert_eq!(comparison, Comparison::Undetermined);
        assert_eq!(
            rerule,
            Rerule::Undetermined(
                "the game would have gone otherwise: the recorded clocks include a \
                 penalty that wbca does not give (black a minute, FIDE A4.2, 7.5.2, 7.5.5), so the \
                 times after it are not its own; the record goes on as fide ruled it"
                    .to_string()
            )
        );
    }

    #[test]
    fn a_hung_engine_recorded_after_the_end_still_refines_a_flag() {
        let mut b = Builder::new(8, "a", "hung")
            .mv(White, "e2e4", 100)
            .flag(Black, 0);
        let t = b.record.events.last().unwrap().t_us();
        b.record.ruleset = Ruleset::Online;
        b = b.event(Event::EngineFault {
            t_us: t + 1000,
            side: Black,
            fault: Fault::Stall,
            detail: "no bestmove after stop".into(),
        });
        let record = b.end(
            GameResult::WhiteWins,
            Termination::EngineStall,
            "online: flag",
            "",
        );
        for ruleset in Ruleset::ALL {
            let (rerule, comparison, _) = under(&record, ruleset);
            assert_eq!(comparison, Comparison::Same, "{ruleset}: {rerule:?}");
        }
    }

    #[test]
    fn the_summary_counts() {
        assert_eq!(
            summary(8, 1, 2, Ruleset::Uscf),
            "8 games, 1 ruling differs under uscf, 2 undetermined, 5 the same"
        );
        assert_eq!(
            summary(1, 0, 0, Ruleset::Online),
            "1 game, 0 rulings differ under online, 0 undetermined, 1 the same"
        );
    }
}
