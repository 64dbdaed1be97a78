//! `stats RESULTS...`: the summary tables of any mix of results folders and games.csv files,
//! the same tables a run prints at its end. A folder's `run.json` gives the engines' order
//! and its SPRT; its `events.jsonl` gives think time by phase and the injections.

use std::path::{Path, PathBuf};

use anyhow::bail;

use super::{note, say, Finish};
use crate::report::csv::read_rows_reporting;
use crate::report::reconcile::EventsIndex;
use crate::report::{GameRow, Sprt, Summary, Tally, EVENTS_JSONL};
use crate::tournament::plan::{RunPlan, RUN_JSON};

pub fn stats(paths: &[PathBuf]) -> anyhow::Result<Finish> {
    super::named_once(paths)?;
    let mut tally = Tally::default();
    let mut phases_known = true;
    let mut named: Vec<String> = Vec::new();
    // The test, its first engine, and whether it counts pairs (else games), as the run did.
    let mut sprt: Option<(Sprt, String, bool)> = None;
    for path in paths {
        let (part, complete) = read_results(path)?;
        // The run's plan, when there is one: for the order of the engines, the SPRT, and to say
        // which rows are none of its games.
        let plan = super::report_html::plan_or_warn(path);
        if let Some(plan) = &plan {
            warn_out_of_plan(path, plan, &part.rows);
        }
        phases_known &= complete;
        tally.rows.extend(part.rows);
        for (engine, times) in part.phases {
            let sum = tally.phases.entry(engine).or_default();
            for i in 0..3 {
                sum.moves[i] += times.moves[i];
                sum.think_us[i] += times.think_us[i];
            }
        }
        tally.injections.merge(part.injections);
        if let Some(plan) = plan {
            named.extend(plan.engines.iter().map(|e| e.name.clone()));
            let test = plan.sprt.as_deref().and_then(|t| t.parse::<Sprt>().ok());
            if let (None, Some(test), Some(first)) = (&sprt, test, plan.engines.first()) {
                sprt = Some((test, first.name.clone(), !plan.sprt_by_games));
            }
        }
    }
    if tally.rows.is_empty() {
        bail!(
            "no games in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let mut summary = Summary::from_rows_ordered(&tally.rows, &named);
    if phases_known {
        summary.with_phases(&tally.phases);
    }
    if let Some((test, engine, pairs)) = &sprt {
        summary.with_sprt(test, engine, *pairs);
    }
    say!("{}", summary.to_text());
    if phases_known && !tally.injections.is_empty() {
        say!("{}", tally.injections.to_text());
    }
    Ok(Finish::Done)
}

/// A results folder (or a `games.csv` file) counted as a run counts its games: the rows of
/// its `games.csv` and, when its `events.jsonl` holds the record of every one of them, think
/// time by phase and the injections. The second value says whether the records were all
/// there. The records are read one at a time, never all at once.
fn read_results(path: &Path) -> anyhow::Result<(Tally, bool)> {
    let (rows, torn) = read_rows_reporting(path)?;
    warn_of(path, &rows, torn);
    let events = path.join(EVENTS_JSONL);
    // Anything by the events' name is read (and a FIFO, a link or a device refused by it).
    if !path.is_dir() || events.symlink_metadata().is_err() {
        let tally = Tally {
            rows,
            ..Tally::default()
        };
        return Ok((tally, false));
    }
    let index = EventsIndex::scan(&events)?;
    let mut tally = Tally::default();
    let (listed, mut missing) = (rows.len(), 0);
    for row in rows {
        match index.record(row.game)? {
            Some(record) if row.result.is_some() => tally.add(&record, row),
            Some(_) => tally.rows.push(row),
            None => {
                missing += 1;
                tally.rows.push(row);
            }
        }
    }
    if let Some(damage) = index.damage(listed, missing) {
        note!("warning: {}: {damage}", path.display());
    }
    Ok((tally, missing == 0))
}

/// Says what a `games.csv` held that is not counted as read: a torn last line (dropped) and
/// games listed more than once (each row is counted).
fn warn_of(path: &Path, rows: &[GameRow], torn: u64) {
    if torn > 0 {
        note!(
            "warning: {}: dropped a half-written last line ({torn} bytes)",
            path.display()
        );
    }
    let mut seen = std::collections::HashSet::with_capacity(rows.len());
    let twice = rows.iter().filter(|r| !seen.insert(r.game)).count();
    if twice > 0 {
        note!(
            "warning: {}: {twice} {} a game number already listed; every row is counted",
            path.display(),
            if twice == 1 {
                "row repeats"
            } else {
                "rows repeat"
            }
        );
    }
}

/// Says how many rows of a folder's `games.csv` are none of the games its plan schedules
/// (another game number, or other engines or colours under that number); they are counted.
fn warn_out_of_plan(path: &Path, plan: &RunPlan, rows: &[GameRow]) {
    let Ok(book) = plan.load_book() else { return };
    let schedule: std::collections::HashMap<u64, (usize, usize)> = plan
        .schedule(book.len())
        .into_iter()
        .map(|p| (p.game, (p.white, p.black)))
        .collect();
    let name = |i: usize| plan.engines.get(i).map(|e| e.name.as_str());
    let outside = rows
        .iter()
        .filter(|r| match schedule.get(&r.game) {
            Some(&(w, b)) => name(w) != Some(&r.white) || name(b) != Some(&r.black),
            None => true,
        })
        .count();
    if outside > 0 {
        note!(
            "warning: {}: {outside} {} not {} of its plan ({RUN_JSON}: another game number, or other engines or colours); every row is counted",
            path.display(),
            if outside == 1 { "row is" } else { "rows are" },
            if outside == 1 { "a game" } else { "games" },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::pgn::tests::scholars_mate;
    use crate::report::{ResultsDir, GAMES_CSV};

    #[test]
    fn a_folder_is_counted_with_its_events_and_a_games_csv_without() {
        // Not `blitz-arena-stats-PID`: report::stats's tests write there at the same time.
        let dir =
            std::env::temp_dir().join(format!("blitz-arena-app-stats-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        ResultsDir::create(&dir)
            .unwrap()
            .append(&scholars_mate())
            .unwrap();
        let (tally, complete) = read_results(&dir).unwrap();
        assert!(complete);
        assert_eq!(tally.rows.len(), 1);
        assert_eq!(tally.phases.len(), 2, "{:?}", tally.phases);
        let (tally, complete) = read_results(&dir.join(GAMES_CSV)).unwrap();
        assert!(!complete && tally.phases.is_empty() && tally.rows.len() == 1);
        // A game missing from the events: the phases are not known.
        std::fs::write(dir.join(EVENTS_JSONL), "").unwrap();
        let (tally, complete) = read_results(&dir).unwrap();
        assert!(!complete && tally.rows.len() == 1);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
