//! `report DIR... [--out FILE]`: writes `report.html` for one or more results folders (a run,
//! or the shards of one), read from their files; and the report a run writes as it goes.

use std::path::{Path, PathBuf};

use anyhow::bail;

use super::{say, usage, Finish};
use crate::report::html::{self, HtmlReport, Rerule, REPORT_HTML};
use crate::tournament::plan::RunPlan;

/// Re-rules each shown game under every ruleset, with the run's settings from `plan`.
pub fn rerule_with(plan: Option<RunPlan>) -> Rerule {
    Box::new(move |record| super::adjudicate::under_every_ruleset(record, plan.as_ref()))
}

/// The report a run keeps up to date in its folder `dir`.
pub fn run_report(plan: &RunPlan, dir: &Path) -> HtmlReport {
    HtmlReport::for_plan(plan, dir).with_rerule(rerule_with(Some(plan.clone())))
}

/// `report DIR... [--out FILE]`.
pub fn report(dirs: &[PathBuf], out: Option<&Path>) -> anyhow::Result<Finish> {
    for dir in dirs {
        if !dir.is_dir() {
            bail!("{}: no such results folder", dir.display());
        }
    }
    let out = match (out, dirs) {
        (Some(out), _) => out.to_path_buf(),
        (None, [dir]) => dir.join(REPORT_HTML),
        _ => usage!(
            "report of {} folders: say where with --out FILE",
            dirs.len()
        ),
    };
    let plan = RunPlan::load(&dirs[0]).ok();
    let (mut report, tally) = html::from_folders(dirs, Some(rerule_with(plan)))?;
    if tally.rows.is_empty() {
        bail!(
            "no games in {}",
            dirs.iter()
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    report.write_to(&out, &tally)?;
    say!("report of {} games: {}", tally.rows.len(), out.display());
    Ok(Finish::Done)
}
