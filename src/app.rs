//! The commands behind the command line: validate everything before the first game, run,
//! report. `main.rs` only parses arguments and maps the outcome to an exit code.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::bail;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::cli::RunArgs;
use crate::config::{self, EngineConfig, OpeningsOrder, Roster, RunTable};
use crate::engine::{Engine, Timeouts};
use crate::game::SearchLimits;
use crate::openings::{self, Opening};
use crate::report::{self, ResultsDir, Summary};
use crate::rules::{Adjudication, RefereeSettings};
use crate::timecontrol::TimeControl;
use crate::tournament::{self, schedule, Format, Progress, Run};

/// Prints a line on stdout; a closed stdout (`blitz-arena stats ... | head`) ends the
/// program quietly instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::app::say_line(&format!($($arg)*))
    };
}

#[doc(hidden)]
pub fn say_line(line: &str) {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    if writeln!(stdout, "{line}")
        .and_then(|()| stdout.flush())
        .is_err()
    {
        std::process::exit(0);
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

/// `gauntlet` and `round-robin`.
pub async fn tournament(
    format: Format,
    names: Vec<String>,
    args: RunArgs,
    cancel: watch::Receiver<bool>,
) -> anyhow::Result<Finish> {
    let roster = config::load_roster(&args.engines)?;
    let table = &roster.run;
    reject_unsupported(table)?;
    let engines = players(&roster, &names)?;
    let tc = args.tc.or(table.tc).unwrap_or(TimeControl::G5);
    let games = args.games.or(table.games).unwrap_or(2);
    if games == 0 {
        bail!("--games must be at least 1");
    }
    let openings = match args.openings.as_ref().or(table.openings.as_ref()) {
        Some(path) => openings::load_openings(path)?,
        None => vec![Opening::startpos()],
    };
    let order = args
        .openings_order
        .or(table.openings_order)
        .unwrap_or(OpeningsOrder::Random);
    let seed = args.seed.or(table.seed).unwrap_or_else(rand::random);
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let concurrency = args.concurrency.or(table.concurrency).unwrap_or(cpus);
    if concurrency == 0 {
        bail!("--concurrency must be at least 1");
    }
    let settings = RefereeSettings {
        ruleset: args.ruleset.or(table.ruleset).unwrap_or_default(),
        max_moves: args.max_moves.or(table.max_moves),
        adjudication: Adjudication {
            draw: args.draw_adjudication.or(table.draw_adjudication),
            resign: args.resign_adjudication.or(table.resign_adjudication),
        },
        claim_draws: true,
    };
    let limits = SearchLimits {
        nodes: args.nodes.or(table.nodes),
        depth: args.depth.or(table.depth),
    };
    let time_margin = Duration::from_millis(args.time_margin.or(table.time_margin).unwrap_or(0));
    let out = args
        .out
        .clone()
        .or_else(|| table.out.clone())
        .unwrap_or_else(|| default_out(format));
    let schedule = schedule::build(format, engines.len(), games, openings.len(), order, seed);

    // Every engine must start and shake hands before the first game: a missing binary, an
    // engine that never says uciok, or an unknown option stops the run here, with one line.
    let timeouts = Timeouts::default();
    preflight(&engines, timeouts).await?;
    let mut results = ResultsDir::create(&out)?;
    for repair in results.repairs() {
        eprintln!("warning: {repair}");
    }

    let names: Vec<&str> = engines.iter().map(|e| e.name.as_str()).collect();
    eprintln!(
        "{}: {} | {} games | tc {} | ruleset {} | concurrency {} | seed {} | results in {}{}",
        format.as_str(),
        match format {
            Format::Gauntlet => format!("{} vs {}", names[0], names[1..].join(", ")),
            Format::RoundRobin => names.join(", "),
        },
        schedule.len(),
        tc,
        settings.ruleset,
        concurrency,
        seed,
        out.display(),
        if time_margin.is_zero() {
            String::new()
        } else {
            format!(
                " | time margin {} ms (off the rules)",
                time_margin.as_millis()
            )
        },
    );

    let mut progress = Progress::new(schedule.len(), args.verbose);
    let cpu_before = cpu_time();
    let run = Run {
        engines,
        schedule,
        openings,
        tc,
        settings,
        limits,
        time_margin,
        concurrency,
        seed,
        timeouts,
    };
    let total = run.schedule.len();
    let outcome = tournament::run(run, &mut results, &mut progress, cancel).await?;
    progress.finish();
    let cpu = cpu_time().saturating_sub(cpu_before);

    let summary = Summary::from_rows(&outcome.rows);
    results.write_summary(&summary)?;
    say!("{}", summary.to_text());
    let o = outcome.overhead;
    if o.moves > 0 {
        say!(
            "arena overhead: {:.0} us CPU per move ({} moves; the arena process only), {:.0} us wall per move between bestmove and the next go",
            cpu.as_micros() as f64 / o.moves as f64,
            o.moves,
            o.wall_per_move_us()
        );
    }
    if !time_margin.is_zero() {
        say!(
            "time margin: {} ms tolerated past zero before a flag counted (off the rules)",
            time_margin.as_millis()
        );
    }
    say!("results: {}", results.dir().display());
    if outcome.interrupted {
        eprintln!(
            "interrupted: {} of {total} games finished and saved in {}; games in progress were not recorded",
            outcome.rows.len(),
            results.dir().display()
        );
        return Ok(Finish::Interrupted);
    }
    Ok(Finish::Done)
}

/// The options of later issues are refused rather than silently ignored.
fn reject_unsupported(table: &RunTable) -> anyhow::Result<()> {
    let set = [
        ("flag-notice-ms", table.flag_notice_ms.is_some()),
        ("claim-ms", table.claim_ms.is_some()),
        ("illegal-notice", table.illegal_notice.is_some()),
        ("claim-draws", table.claim_draws.is_some()),
        ("inject-illegal", table.inject_illegal.is_some()),
        ("illegal-kinds", table.illegal_kinds.is_some()),
        ("inject-flag", table.inject_flag.is_some()),
        ("inject-flag-mode", table.inject_flag_mode.is_some()),
        ("flag-overshoot-ms", table.flag_overshoot_ms.is_some()),
        ("sprt", table.sprt.is_some()),
        ("resume", table.resume.is_some()),
        ("shard", table.shard.is_some()),
    ];
    if let Some((key, _)) = set.iter().find(|(_, is_set)| *is_set) {
        bail!("[run] {key}: not supported by this version of blitz-arena yet");
    }
    Ok(())
}

/// The engines of a run, in order; a name given twice plays as `NAME#2`.
fn players(roster: &Roster, names: &[String]) -> anyhow::Result<Vec<EngineConfig>> {
    let mut engines: Vec<EngineConfig> = Vec::with_capacity(names.len());
    for name in names {
        let mut engine = roster.engine(name)?.clone();
        config::check_launch(&engine)?;
        let copies = engines
            .iter()
            .filter(|e| e.name.split('#').next() == Some(name))
            .count();
        if copies > 0 {
            engine.name = format!("{name}#{}", copies + 1);
        }
        engines.push(engine);
    }
    Ok(engines)
}

/// Starts every engine once, in parallel, and shuts it down again.
async fn preflight(engines: &[EngineConfig], timeouts: Timeouts) -> anyhow::Result<()> {
    let mut set = JoinSet::new();
    for engine in engines {
        let engine = engine.clone();
        set.spawn(async move { Engine::start(&engine, timeouts).await });
    }
    let mut first_error = None;
    while let Some(joined) = set.join_next().await {
        match joined? {
            Ok(engine) => engine.shutdown().await,
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}

fn default_out(format: Format) -> PathBuf {
    let now = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    Path::new("results").join(format!("{now}-{}", format.as_str()))
}

/// CPU time (user + system) of the arena process itself, not of its engines.
fn cpu_time() -> Duration {
    // SAFETY: getrusage writes into the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage
    };
    let tv = |t: libc::timeval| {
        Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
    };
    tv(usage.ru_utime) + tv(usage.ru_stime)
}

/// `check`: starts each engine, prints its id and options; false if any failed.
pub async fn check(names: Vec<String>, file: &Path) -> anyhow::Result<Finish> {
    let roster = config::load_roster(file)?;
    let names: Vec<String> = if names.is_empty() {
        roster.engines.keys().cloned().collect()
    } else {
        names
    };
    let mut failed = 0;
    for name in &names {
        let engine = roster.engine(name)?;
        let started = match config::check_launch(engine) {
            Ok(()) => Engine::start(engine, Timeouts::default())
                .await
                .map_err(anyhow::Error::from),
            Err(e) => Err(e.into()),
        };
        match started {
            Ok(engine) => {
                say!(
                    "{name}: ok: {} by {}",
                    engine.id_name().unwrap_or("(no id name)"),
                    engine.author().unwrap_or("(no author)")
                );
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

/// `stats`: the summary tables of any mix of games.csv files and results folders.
pub fn stats(paths: &[PathBuf]) -> anyhow::Result<Finish> {
    let mut rows = Vec::new();
    for path in paths {
        rows.extend(report::read_rows(path)?);
    }
    if rows.is_empty() {
        bail!(
            "no games in {}",
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    say!("{}", Summary::from_rows(&rows).to_text());
    Ok(Finish::Done)
}
