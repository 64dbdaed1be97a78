//! `report DIR... [--out FILE]`: writes `report.html` for one or more results folders (a run,
//! or the shards of one), read from their files; and the report a run writes as it goes.

use std::path::{Path, PathBuf};

use anyhow::bail;

use super::{note, say, usage, Finish};
use crate::report::folder;
use crate::report::html::{self, HtmlReport, PlanView, Rerule, REPORT_HTML};
use crate::tournament::plan::{RunPlan, RUN_JSON};

/// What the report shows of `plan`.
pub fn plan_view(plan: &RunPlan) -> PlanView {
    let mut tcs: Vec<String> = Vec::new();
    for tc in plan.engines.iter().map(|e| e.tc.unwrap_or(plan.tc)) {
        let text = format!("{tc} ({})", tc.in_words());
        if !tcs.contains(&text) {
            tcs.push(text);
        }
    }
    PlanView {
        engines: plan.engines.iter().map(|e| e.name.clone()).collect(),
        tc: if tcs.is_empty() {
            format!("{} ({})", plan.tc, plan.tc.in_words())
        } else {
            tcs.join(" / ")
        },
        ruleset: Some(plan.settings.ruleset),
        seed: Some(plan.seed),
        sprt: plan.sprt.clone(),
        sprt_by_games: plan.sprt_by_games,
    }
}

/// Re-rules each shown game under every ruleset, with the run's settings from `plan`.
pub fn rerule_with(plan: Option<RunPlan>) -> Rerule {
    Box::new(move |record| super::adjudicate::under_every_ruleset(record, plan.as_ref()))
}

/// The report a run keeps up to date in its folder `dir`.
pub fn run_report(plan: &RunPlan, dir: &Path) -> HtmlReport {
    HtmlReport::for_plan(plan_view(plan), dir).with_rerule(rerule_with(Some(plan.clone())))
}

/// The plan of the results folder `dir`, for the commands that count its games without
/// needing it (`report`, `stats`): none if it has no `run.json`, and none with a warning line
/// if its `run.json` cannot be read as a plan (damaged or edited past its ranges).
pub(super) fn plan_or_warn(dir: &Path) -> Option<RunPlan> {
    if !dir.is_dir() || dir.join(RUN_JSON).symlink_metadata().is_err() {
        return None;
    }
    match RunPlan::load(dir) {
        Ok(plan) => Some(plan),
        Err(e) => {
            note!("warning: {e:#}; counted without it");
            None
        }
    }
}

/// `report DIR... [--out FILE]`.
pub fn report(dirs: &[PathBuf], out: Option<&Path>) -> anyhow::Result<Finish> {
    super::named_once(dirs)?;
    for dir in dirs {
        folder::check_is_folder(dir)?;
    }
    if out.is_none() {
        if let [dir] = dirs {
            // A live run rewrites its own report.html: another writer would race it.
            if let Some(holder) = crate::report::FolderLock::holder(dir) {
                bail!(
                    "{} is in use by a running blitz-arena run ({holder}); its report.html is kept up to date by that run (or write elsewhere with --out FILE)",
                    dir.display()
                );
            }
        }
    }
    let out = match (out, dirs) {
        (Some(out), _) if out.file_name().is_some_and(folder::is_run_file_name) => usage!(
            "--out {}: that is the name of a results folder's own file, which the report would replace; write it as report.html or another name",
            out.display()
        ),
        (Some(out), _) => out.to_path_buf(),
        (None, [dir]) => dir.join(REPORT_HTML),
        _ => usage!(
            "report of {} folders: say where with --out FILE",
            dirs.len()
        ),
    };
    let plan = plan_or_warn(&dirs[0]);
    let view = plan.as_ref().map(plan_view);
    let (mut report, tally, warnings) = html::from_folders(dirs, view, Some(rerule_with(plan)))?;
    for warning in warnings {
        note!("warning: {warning}");
    }
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
