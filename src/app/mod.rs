//! The commands behind the command line: validate everything before the first game, run,
//! report. `main.rs` only parses arguments and maps the outcome to an exit code.

mod adjudicate;
mod book;
mod merge;
// `report` would shadow `crate::report` here.
#[path = "report.rs"]
mod report_html;
mod roster;
mod rules;
mod run;
mod stats;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::config;
use crate::engine::{Engine, Timeouts};

pub use adjudicate::adjudicate;
pub use merge::merge;
pub use report_html::report;
pub use rules::rules;
pub use run::tournament;
pub use stats::stats;

pub use crate::console::UsageError;
pub(crate) use crate::console::{note, say};

/// Returns a [`UsageError`] from the enclosing function.
macro_rules! usage {
    ($($arg:tt)*) => {
        return Err($crate::console::UsageError(format!($($arg)*)).into())
    };
}
pub(crate) use usage;

/// Refuses a list of results folders (or files, for `stats`) that names one of them twice,
/// by another spelling (`r1` and `./r1`), through a symbolic link, or as a folder and its own
/// `games.csv`: `stats`, `report` and `merge` would count its games twice. Checked before
/// anything is read; a path that does not exist is left for the command to refuse.
pub(crate) fn named_once(paths: &[PathBuf]) -> anyhow::Result<()> {
    let mut seen: Vec<((u64, u64), &PathBuf)> = Vec::with_capacity(paths.len());
    for path in paths {
        let Some((id, what)) = results_identity(path) else {
            continue;
        };
        if let Some((_, first)) = seen.iter().find(|(seen_id, _)| *seen_id == id) {
            usage!(
                "{} and {} are the same results {what}: name each {what} once",
                first.display(),
                path.display()
            );
        }
        seen.push((id, path));
    }
    Ok(())
}

/// The device and inode of the results `path` names, and what it is: a folder's own
/// `games.csv` is that folder.
fn results_identity(path: &Path) -> Option<((u64, u64), &'static str)> {
    let meta = std::fs::metadata(path).ok()?;
    let in_folder =
        meta.is_file() && path.file_name() == Some(std::ffi::OsStr::new(crate::report::GAMES_CSV));
    let (meta, what) = match path.parent() {
        Some(dir) if in_folder => {
            let dir = if dir.as_os_str().is_empty() {
                Path::new(".")
            } else {
                dir
            };
            (std::fs::metadata(dir).ok()?, "folder")
        }
        _ if meta.is_dir() => (meta, "folder"),
        _ => (meta, "file"),
    };
    Some(((meta.dev(), meta.ino()), what))
}

/// What to do about an option the engine declares but cannot take as declared.
fn flaw_advice(flaw: &crate::engine::OptionFlaw, option: &str) -> String {
    match flaw {
        crate::engine::OptionFlaw::EmptyRange { .. } => {
            format!("no value can be set: leave {option} out of its options, or fix the engine")
        }
        _ => format!("set {option} in its options to be sure of its value"),
    }
}

/// How a command ended, for the exit code.
#[derive(Debug, PartialEq, Eq)]
pub enum Finish {
    Done,
    /// Stopped by a signal before the schedule was done (finished games are saved).
    Interrupted,
    /// Some engines failed `check`.
    Failed,
}

/// `check`: starts each engine, prints its id and options; false if any failed.
pub async fn check(names: Vec<String>, file: &Path) -> anyhow::Result<Finish> {
    let roster = roster::load(file, &names)?;
    check_roster(&roster, names).await
}

/// `check` of the engines `names` of a roster (all of them if none is named).
pub async fn check_roster(roster: &config::Roster, names: Vec<String>) -> anyhow::Result<Finish> {
    let names: Vec<String> = if names.is_empty() {
        roster.engines.keys().cloned().collect()
    } else {
        names
    };
    let mut failed = 0;
    for name in &names {
        let engine = roster.engine(name).map_err(|e| UsageError(e.to_string()))?;
        let started = match config::check_launch(engine) {
            Ok(()) => Engine::start(engine, Timeouts::default())
                .await
                .map_err(anyhow::Error::from),
            Err(e) => Err(e.into()),
        }
        .map_err(|e| roster::placed(&roster.places, e));
        let ponder = engine.ponder;
        match started {
            Ok(engine) => {
                say!(
                    "{name}: ok: {} by {}",
                    engine.id_name().unwrap_or("(no id name)"),
                    engine.author().unwrap_or("(no author)")
                );
                if ponder && !engine.ponders() {
                    say!("  warning: ponder = true, but it has no UCI option Ponder: it plays without pondering");
                }
                for (option, flaw) in engine
                    .options()
                    .iter()
                    .filter_map(|o| Some((o, o.flaw.as_ref()?)))
                {
                    say!(
                        "  warning: UCI option {:?}: {flaw}; {}",
                        option.name,
                        flaw_advice(flaw, &option.name)
                    );
                }
                for option in engine.options() {
                    say!("  option {:<24} {}", option.name, option.description);
                }
                engine.shutdown().await;
            }
            Err(e) => {
                failed += 1;
                say!("{name}: FAILED: {e:#}");
            }
        }
    }
    Ok(if failed == 0 {
        Finish::Done
    } else {
        Finish::Failed
    })
}
