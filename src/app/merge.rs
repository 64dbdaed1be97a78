//! `merge DIR... --out DIR`: joins the results folders of the shards of one run into one
//! folder whose files and statistics are those of all its games.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::bail;

use super::{say, Finish};
use crate::report::{self, GameRow, ResultsDir, Summary};
use crate::tournament::plan::{RunPlan, RUN_JSON};

pub fn merge(dirs: &[PathBuf], out: &Path) -> anyhow::Result<Finish> {
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
    if out.join(RUN_JSON).exists() || out.join(report::GAMES_CSV).exists() {
        bail!(
            "{} holds results already; merge into a new folder",
            out.display()
        );
    }

    // Only the games in each folder's games.csv count (it is written last).
    let mut records = Vec::new();
    let mut origin: HashMap<u64, &Path> = HashMap::new();
    for dir in dirs {
        let finished: std::collections::HashSet<u64> =
            report::read_rows(dir)?.iter().map(|r| r.game).collect();
        for record in report::load_records(dir)? {
            if !finished.contains(&record.game) {
                continue;
            }
            if let Some(other) = origin.insert(record.game, dir) {
                bail!(
                    "game {} is in both {} and {}",
                    record.game,
                    other.display(),
                    dir.display()
                );
            }
            records.push(record);
        }
    }
    records.sort_by_key(|r| r.game);

    let mut merged = first.clone();
    merged.shard = None;
    let book_len = match &merged.openings {
        Some(path) => crate::openings::load_openings(path)?.len(),
        None => 1,
    };
    let planned = merged.full_schedule(book_len).len();

    let mut results = ResultsDir::create(out)?;
    let mut rows: Vec<GameRow> = Vec::with_capacity(records.len());
    for record in &records {
        rows.push(results.append(record)?.row);
    }
    merged.save(out)?;
    let summary = Summary::from_rows(&rows);
    results.write_summary(&summary)?;
    say!("{}", summary.to_text());
    say!(
        "merged {} folders: {} of the run's {planned} games; results: {}",
        dirs.len(),
        records.len(),
        out.display()
    );
    if records.len() < planned {
        eprintln!(
            "warning: {} of the run's games are missing (unfinished or missing shards)",
            planned - records.len()
        );
    }
    Ok(Finish::Done)
}
