//! `merge DIR... --out DIR`: joins the results folders of the shards of one run into one
//! folder whose files and statistics are those of all its games. The shards' plans carry the
//! opening book's positions, so the book file need not be where the shards found it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::bail;

use super::{note, say, Finish};
use crate::report::csv::{read_rows_reporting, torn_warning};
use crate::report::{folder, EventsIndex, FolderLock, ResultsDir, Sprt, Summary, Tally};
use crate::report::{EVENTS_JSONL, GAMES_CSV};
use crate::tournament::plan::RunPlan;

pub fn merge(dirs: &[PathBuf], out: &Path) -> anyhow::Result<Finish> {
    super::named_once(dirs)?;
    let plans = shard_plans(dirs)?;
    folder::check_free(out)?;
    let Sources {
        indexes: sources,
        games,
        warnings,
    } = index_games(dirs)?;
    // A game without its record fails the merge: found before the output folder is made.
    if let Some(&(game, k)) = games.iter().find(|&&(game, k)| !sources[k].holds(game)) {
        return Err(no_record(&dirs[k], game));
    }

    let mut merged = plans[0].clone();
    merged.shard = None;
    let book = merged.load_book()?;
    let planned = merged.full_schedule(book.len()).len();
    let in_plan = merged.game_check(&book);
    let check = |record: &crate::event::GameRecord| {
        in_plan(record)?;
        super::adjudicate::ruling_holds(record, &merged)
    };

    let (out, created) = folder::make_folder(out, false)?;
    let written = FolderLock::acquire(&out).and_then(|lock| {
        write_merged(&merged, &out, &sources, &games, dirs, &check).map(|done| (done, lock))
    });
    // A merge that fails part-way (a record its plan does not schedule, a full disk) leaves
    // no half-made folder behind: the shards are untouched, and it can be run again.
    let (summary, tally, _lock) = match written {
        Ok(((summary, tally), lock)) => (summary, tally, lock),
        Err(e) => {
            folder::remove_run(&out, created);
            return Err(e);
        }
    };
    // Said once nothing can fail: a failed merge says only its error.
    for warning in warnings {
        note!("warning: {warning}");
    }
    say!("{}", summary.to_text());
    if !tally.injections.is_empty() {
        say!("{}", tally.injections.to_text());
    }
    say!(
        "merged {} folders: {} of the run's {planned} games; results: {}",
        dirs.len(),
        games.len(),
        out.display()
    );
    if games.len() < planned {
        note!(
            "warning: {} of the run's games are missing (unfinished or missing shards)",
            planned - games.len()
        );
    }
    Ok(Finish::Done)
}

/// Writes the merged folder `out` (locked): the run's plan, every game of `games` from its
/// shard's records, checked by `check`, the summary and the report.
fn write_merged(
    merged: &RunPlan,
    out: &Path,
    sources: &[EventsIndex],
    games: &[(u64, usize)],
    dirs: &[PathBuf],
    check: &dyn Fn(&crate::event::GameRecord) -> Result<(), String>,
) -> anyhow::Result<(Summary, Tally)> {
    folder::check_unused(out)?;
    merged.save(out)?;
    let mut results = ResultsDir::create(out)?;
    let mut tally = Tally::default();
    // The merged folder gets the report a run writes, over all its games.
    let mut html = super::report_html::run_report(merged, out);
    for &(game, k) in games {
        let Some(record) = sources[k].record(game)? else {
            return Err(no_record(&dirs[k], game));
        };
        if let Err(why) = check(&record) {
            bail!(
                "{}: game {game} is not the game the run's plan schedules: {why}",
                dirs[k].display()
            );
        }
        let written = results.append(&record)?;
        html.add(&record, &written.row);
        tally.add(&record, written.row);
    }
    let names: Vec<String> = merged.engines.iter().map(|e| e.name.clone()).collect();
    let mut summary = Summary::from_rows_ordered(&tally.rows, &names);
    summary.with_phases(&tally.phases);
    let sprt = merged.sprt.as_deref().and_then(|t| t.parse::<Sprt>().ok());
    if let (Some(sprt), Some(first)) = (sprt, names.first()) {
        summary.with_sprt(&sprt, first, !merged.sprt_by_games);
    }
    results.write_summary(&summary)?;
    html.write(out, &tally)?;
    Ok((summary, tally))
}

/// The error of a game listed in `dir`'s games.csv whose record its events.jsonl lacks.
fn no_record(dir: &Path, game: u64) -> anyhow::Error {
    anyhow::anyhow!(
        "game {game} is in {} but not in its {EVENTS_JSONL}",
        dir.join(GAMES_CSV).display()
    )
}

/// The folders' plans, once each is known to be a different shard of one and the same run.
fn shard_plans(dirs: &[PathBuf]) -> anyhow::Result<Vec<RunPlan>> {
    let plans: Vec<RunPlan> = dirs
        .iter()
        .map(|d| RunPlan::load(d))
        .collect::<anyhow::Result<_>>()?;
    let first = &plans[0];
    for (dir, plan) in dirs.iter().zip(&plans).skip(1) {
        if let Err(why) = first.same_run(plan) {
            bail!(
                "{} and {} are not shards of one run: {why}",
                dirs[0].display(),
                dir.display()
            );
        }
    }
    let mut seen_shards = HashMap::new();
    for (dir, plan) in dirs.iter().zip(&plans) {
        let key = plan.shard.map(|s| s.index);
        if let Some(other) = seen_shards.insert(key, dir) {
            bail!(
                "{} and {} hold the same {}",
                other.display(),
                dir.display(),
                plan.shard
                    .map_or("run".to_string(), |s| format!("shard {s}"))
            );
        }
    }
    Ok(plans)
}

/// Where the shards' games are: each folder's index of its records, and every finished game
/// as (game, index of its folder), in the order of the schedule; and what the folders hold
/// that the merge leaves out, to warn of once it has succeeded.
struct Sources {
    indexes: Vec<EventsIndex>,
    games: Vec<(u64, usize)>,
    warnings: Vec<String>,
}

/// Each folder's index of its records, and every finished game, in the order of the
/// schedule. Only the games in each folder's games.csv count (it is written
/// last). The records stay on disk: an index says where each one is, and they are copied one
/// at a time.
fn index_games(dirs: &[PathBuf]) -> anyhow::Result<Sources> {
    let mut sources = Vec::with_capacity(dirs.len());
    let mut games: Vec<(u64, usize)> = Vec::new();
    let mut origin: HashMap<u64, usize> = HashMap::new();
    let mut warnings = Vec::new();
    for (k, dir) in dirs.iter().enumerate() {
        let (rows, torn) = read_rows_reporting(dir)?;
        warnings.extend(torn_warning(dir, torn));
        let index = EventsIndex::scan(&dir.join(EVENTS_JSONL))?;
        // A game without its record fails the merge (see merge): none is counted as missing.
        if let Some(damage) = index.damage(rows.len(), 0) {
            warnings.push(format!("{}: {damage}", dir.display()));
        }
        for row in rows {
            if let Some(other) = origin.insert(row.game, k) {
                bail!(
                    "game {} is in both {} and {}",
                    row.game,
                    dirs[other].display(),
                    dir.display()
                );
            }
            games.push((row.game, k));
        }
        sources.push(index);
    }
    games.sort_unstable();
    Ok(Sources {
        indexes: sources,
        games,
        warnings,
    })
}
