//! `gauntlet` and `round-robin`: plan a run (or resume one from its `run.json`), check every
//! engine before the first game, play, report.

use crate::report::pgnout::{EngineIds, UciId};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::bail;
use tokio::sync::watch;
use tokio::task::JoinSet;

use super::roster::placed;
use super::{note, say, usage, Finish, UsageError};
use crate::cli::RunArgs;
use crate::config::{self, Places, Roster, RunTable};
use crate::engine::CHESS960_OPTION;
use crate::engine::{Engine, EngineError, Timeouts};
use crate::game::{SearchLimits, Watchers};
use crate::inject::InjectConfig;
use crate::report::{self, folder, FolderLock, ResultsDir, Sprt, Summary, Tally};
use crate::rules::illegal::IllegalKind;
use crate::rules::{Adjudication, RefereeSettings};
use crate::settings::limits;
use crate::settings::{defined_name, ClaimDraws, EngineConfig, OpeningsOrder, Shard};
use crate::tablebase::{TablebaseSpec, Tablebases, TbPaths};
use crate::timecontrol::TimeControl;
use crate::tournament::plan::{self, RunPlan, RUN_JSON};
use crate::tournament::{self, Format, Progress, Run};
use crate::vocabulary::Variant;

/// `gauntlet` and `round-robin`.
pub async fn tournament(
    format: Format,
    names: Vec<String>,
    args: RunArgs,
    mut cancel: watch::Receiver<bool>,
) -> anyhow::Result<Finish> {
    // A test hook, None in use (see `invariants::Tamper`).
    let tamper = crate::invariants::Tamper::from_env()?;
    // A resumed run's engines come from its run.json: no roster file to point into.
    let (plan, out, default_name, places) = match &args.resume {
        Some(dir) => {
            let plan = resumed_plan(format, &names, &args, dir)?;
            (plan, dir.clone(), false, Places::default())
        }
        None => new_plan(format, &names, &args)?,
    };
    let resuming = args.resume.is_some();
    let book = plan.load_book()?;
    let tablebase = open_tablebase(&plan)?;
    let mut schedule = plan.schedule(book.len());
    let planned = schedule.len();
    check_shard_holds_games(&plan, schedule.is_empty(), book.len())?;
    // A resumed run's folder is locked at once, so that a second run of it stops before it
    // starts anything (the lock is held until this run ends).
    let resume_lock = resuming.then(|| FolderLock::acquire(&out)).transpose()?;

    // The files asked for beside the folder are opened before any engine starts: a path that
    // cannot be written is a bad command line, not a run that fails once it has begun.
    let files = compat_files(&args)?;
    let timeouts = Timeouts::default();
    let Some(ids) = engines_fit(&plan, &places, planned, timeouts, &mut cancel).await? else {
        note!("interrupted while starting the engines: no game was played, nothing was written");
        return Ok(Finish::Interrupted);
    };
    let files = files.map(|files| files.with_engine_ids(ids));

    let (out, created, _lock) = open_folder(out, resume_lock, default_name)?;
    // The live report.html; a resumed run's kept games are counted in it as they are checked,
    // in the one pass over the folder's files.
    let mut html = super::report_html::run_report(&plan, &out);
    let previous = if resuming {
        kept_games(&plan, &book, &out, &mut html)?
    } else {
        Tally::default()
    };
    // A new run that cannot write its plan and files (a full disk) leaves no folder behind; a
    // resumed one keeps its files as they were (run.json is replaced atomically).
    let started = plan.save(&out).and_then(|()| ResultsDir::create(&out));
    let mut results = started.inspect_err(|_| {
        if !resuming {
            folder::remove_run(&out, created);
        }
    })?;
    for repair in results.repairs() {
        note!("warning: {}: {repair}", out.display());
    }
    let done: HashSet<u64> = previous.rows.iter().map(|r| r.game).collect();
    schedule.retain(|p| !done.contains(&p.game));
    let played_before = resuming.then_some(done.len());
    drop(done);

    announce(format, &plan, planned, &out, played_before);
    let sprt = plan
        .sprt
        .as_deref()
        .map(|text| text.parse::<Sprt>().map_err(anyhow::Error::msg))
        .transpose()?;
    let mut progress = progress(&plan, &args, planned, sprt).with_files(files);
    let closing = Closing {
        compat: progress.is_compat(),
        sprt_pairs: !plan.sprt_by_games,
    };
    progress.resume_from(&previous.rows);
    let cpu_before = cpu_time();
    if let Some(spec) = &plan.tablebase {
        let folders: Vec<String> = spec.paths.iter().map(|p| p.display().to_string()).collect();
        note!(
            "tablebases: {} | positions of at most {} pieces are adjudicated",
            folders.join(":"),
            spec.pieces
        );
    }
    let run = Run {
        plan: plan.clone(),
        schedule,
        openings: book,
        timeouts,
        sprt,
        tamper,
        report: Some(html),
        tablebase,
        pv_checks: progress.is_compat().then_some(args.check_mate_pvs),
    };
    let played = tournament::run(run, &mut results, &mut progress, previous, cancel).await;
    let outcome = match played {
        Ok(outcome) => outcome,
        Err(e) => {
            drop(results);
            return Err(kept_after(e, &out, planned, created && !resuming));
        }
    };
    progress.finish();
    let lost = progress.lost_games();
    let cpu = cpu_time().saturating_sub(cpu_before);
    if outcome.interrupted && outcome.tally.rows.is_empty() && !resuming {
        // Stopped before any game finished: the folder holds nothing worth keeping.
        drop(results);
        folder::remove_run(&out, created);
        note!(
            "interrupted before any game finished: nothing was kept ({} removed)",
            out.display()
        );
        return Ok(Finish::Interrupted);
    }
    closing.summarize(&plan, &outcome, &mut results, sprt.as_ref(), cpu)?;
    closing.finish(&outcome, &results, planned, lost)
}

/// The error that stopped a run part-way (the arena's own trouble: a full disk, a folder
/// made read-only), with what it kept and how to go on; a new run that kept no game leaves
/// no folder (`new_folder`: this run made it).
fn kept_after(e: anyhow::Error, out: &Path, planned: usize, new_folder: bool) -> anyhow::Error {
    let kept = folder::finished_games(out);
    let dir = out.display();
    if kept == 0 && new_folder {
        folder::remove_run(out, true);
        return anyhow::anyhow!(
            "{}: no game was finished; {dir} removed",
            crate::console::error_text(&e)
        );
    }
    anyhow::anyhow!(
        "{}: {kept} of {planned} games finished and saved in {dir}; once that is fixed, continue with --resume {dir}",
        crate::console::error_text(&e)
    )
}

/// Every engine starts and shakes hands before the first game: a missing binary, an engine
/// that never says uciok, or an unknown option stops the run here, with one line; then the
/// engines the run will hold at once must fit the machine's open files, processes and memory.
/// What each engine says it is (its `id` lines); None when Ctrl-C stopped it (a new run has
/// written nothing yet).
async fn engines_fit(
    plan: &RunPlan,
    places: &Places,
    planned: usize,
    timeouts: Timeouts,
    cancel: &mut watch::Receiver<bool>,
) -> anyhow::Result<Option<EngineIds>> {
    tournament::capacity::raise_open_files();
    let checked = tokio::select! {
        checked = preflight(&plan.engines, timeouts) => checked,
        _ = cancel.wait_for(|c| *c) => return Ok(None),
    };
    // The engines' options are checked first: a `Hash` out of its range is the engine's. An
    // engine that could not start for want of the arena's own files or processes is the
    // machine's trouble: said as the refusal that names what to lower, when the check finds it.
    let fits = tournament::capacity::check(&plan.engines, plan.concurrency, planned);
    let ids = match checked {
        Ok(ids) => ids,
        Err(e) => {
            let short = e
                .downcast_ref::<EngineError>()
                .is_some_and(|e| e.shortage().is_some());
            match fits {
                Err(line) if short => usage!("{line}"),
                _ => return Err(placed(places, e)),
            }
        }
    };
    if let Err(line) = fits {
        usage!("{line}");
    }
    Ok(Some(ids))
}

/// A shard of a run must hold at least one game (`empty`: the shard's schedule is).
fn check_shard_holds_games(plan: &RunPlan, empty: bool, book_len: usize) -> anyhow::Result<()> {
    if let (Some(shard), true) = (plan.shard, empty) {
        let full = plan.full_schedule(book_len);
        let pairs = full.iter().map(|p| p.pair).max().unwrap_or(0);
        usage!(
            "--shard {shard} holds no games: the schedule's {pairs} pair(s) of games go to the first {pairs} shard(s); use at most {pairs} shard(s) or more --games"
        );
    }
    Ok(())
}

/// The run's folder, locked: a resumed run's, locked already, or a new run's, made only now
/// that the engines have started, and locked before anything is written in it. Also whether
/// this run created it.
fn open_folder(
    out: PathBuf,
    resume_lock: Option<FolderLock>,
    default_name: bool,
) -> anyhow::Result<(PathBuf, bool, FolderLock)> {
    Ok(match resume_lock {
        Some(lock) => (out, false, lock),
        None => {
            let (dir, created) = folder::make_folder(&out, default_name)?;
            // A full disk can fail even the lock: a folder this run made goes again.
            let lock = FolderLock::acquire(&dir).inspect_err(|_| {
                if created {
                    folder::remove_empty(&dir);
                }
            })?;
            folder::check_unused(&dir)?;
            (dir, created, lock)
        }
    })
}

/// The games a resumed run keeps, each checked against the plan and ruled again under it, and
/// counted in the run's live report `html`. Its files are read once, one record at a time.
fn kept_games(
    plan: &RunPlan,
    book: &[crate::openings::Opening],
    out: &Path,
    html: &mut report::html::HtmlReport,
) -> anyhow::Result<Tally> {
    let planned = plan.game_check(book);
    let check = |record: &crate::event::GameRecord| {
        planned(record)?;
        super::adjudicate::ruling_holds(record, plan)
    };
    let reconciled = report::reconcile(out, check, |record, row| html.add(record, row))?;
    for repair in &reconciled.repairs {
        note!("warning: {}: {repair}", out.display());
    }
    Ok(reconciled.tally)
}

/// The run's first line: who plays, how many games, at what time control, under which rules,
/// and where the results go (`played_before`: a resumed run's games already played); then a
/// warning if the engines need more cores than there are.
fn announce(
    format: Format,
    plan: &RunPlan,
    planned: usize,
    out: &Path,
    played_before: Option<usize>,
) {
    let names: Vec<&str> = plan.engines.iter().map(|e| e.name.as_str()).collect();
    note!(
        "{}: {} | {} games{} | tc {} = {}{} | ruleset {} | concurrency {} | seed {} | results in {}{}{}",
        format.as_str(),
        match format {
            Format::Gauntlet => format!("{} vs {}", names[0], names[1..].join(", ")),
            Format::RoundRobin => names.join(", "),
        },
        planned,
        plan.shard
            .map(|s| format!(" (shard {s})"))
            .unwrap_or_default(),
        plan.tc,
        plan.tc.in_words(),
        plan.engines
            .iter()
            .filter_map(|e| e.tc.map(|tc| format!(", {} {tc} = {}", e.name, tc.in_words())))
            .collect::<String>(),
        plan.settings.ruleset,
        plan.concurrency,
        plan.seed,
        out.display(),
        if plan.time_margin_ms == 0 {
            String::new()
        } else {
            format!(" | time margin {} ms (off the rules)", plan.time_margin_ms)
        },
        match played_before {
            // The engines, their options and the book are the plan's: an edit of the roster or
            // the book since has no effect, and the line says so.
            Some(played) => format!(
                " | resuming: {played} games already played; engines, options and book as run.json holds them"
            ),
            None => String::new(),
        },
    );

    if let Some(warning) = tournament::oversubscribed(
        &plan.engines,
        plan.concurrency.min(planned),
        tournament::cores(),
    ) {
        note!("{warning}");
    }
}

/// The progress output: native lines, or another tool's (`--output-format`).
fn progress(plan: &RunPlan, args: &RunArgs, planned: usize, sprt: Option<Sprt>) -> Progress {
    Progress::new(output_settings(plan, args, sprt), planned, args.verbose)
}

/// The `--pgnout` / `--epdout` files another tool would write, open for appending; one that
/// cannot be opened is a usage error.
fn compat_files(args: &RunArgs) -> anyhow::Result<Option<report::pgnout::CompatFiles>> {
    let opened = report::pgnout::CompatFiles::open(
        args.pgnout.as_deref(),
        args.epdout.as_deref(),
        args.pgnout_notation.unwrap_or_default(),
        args.pgnout_extras.clone(),
    )
    .map(|files| files.map(|f| f.with_tags(args.pgn_event.clone(), args.pgn_site.clone())))
    .and_then(|files| match files {
        Some(files) if args.pgnout_crc => files.with_crc().map(Some),
        files => Ok(files),
    });
    match opened {
        Ok(files) => Ok(files),
        Err(e) => usage!("{e:#}"),
    }
}

/// The run's closing lines. With another tool's lines on stdout (`compat`), blitz-arena's own
/// closing lines go to stderr, and its tables only to the results folder: fishtest reads
/// stderr with stdout and counts every line that says "stall", "disconnect" or "on time" as
/// one more crash or time loss.
struct Closing {
    compat: bool,
    /// The run's SPRT counted pairs (pentanomial), not games (see `Progress`).
    sprt_pairs: bool,
}

/// A closing line: on stdout, or on stderr beside another tool's lines.
macro_rules! summary {
    ($closing:expr, $($arg:tt)*) => {
        if $closing.compat { note!($($arg)*) } else { say!($($arg)*) }
    };
}

/// A table: on stdout, and not at all beside another tool's lines.
macro_rules! tables {
    ($closing:expr, $($arg:tt)*) => {
        if !$closing.compat { say!($($arg)*) }
    };
}

impl Closing {
    /// The statistics (written to `summary.csv`), the injections, pondering, the invariants'
    /// verdict, the arena's overhead and the time margin.
    fn summarize(
        &self,
        plan: &RunPlan,
        outcome: &tournament::Outcome,
        results: &mut ResultsDir,
        sprt: Option<&Sprt>,
        cpu: Duration,
    ) -> anyhow::Result<()> {
        let tally = &outcome.tally;
        let names: Vec<String> = plan.engines.iter().map(|e| e.name.clone()).collect();
        let mut summary = Summary::from_rows_ordered(&tally.rows, &names);
        // Think time by game phase and the injections, counted game by game (the resumed ones
        // included) from the events.
        summary.with_phases(&tally.phases);
        if let Some(sprt) = sprt {
            summary.with_sprt(sprt, &plan.engines[0].name, self.sprt_pairs);
            if let Some((status, llr, games)) = outcome.sprt_stop {
                summary.with_sprt_stop(status, llr, games);
            }
        }
        tables!(self, "{}", summary.to_text());
        if let Some(line) = summary.starved_line().filter(|_| self.compat) {
            // Native output has it at the end of the tables.
            summary!(self, "{line}");
        }
        let injections = &tally.injections;
        if !injections.is_empty() {
            tables!(self, "{}", injections.to_text());
        }
        if let Some(line) = tally.pondering.summary_line() {
            summary!(self, "{line}");
        }
        if outcome.violations.is_empty() {
            summary!(self, "invariants: held in all {} games", tally.rows.len());
        } else {
            summary!(
                self,
                "invariants: BROKEN in {} places:",
                outcome.violations.len()
            );
            for (game, broken) in &outcome.violations {
                summary!(self, "  game {game}: {broken}");
            }
        }
        let o = outcome.overhead;
        if o.moves > 0 {
            summary!(
                self,
                "arena overhead: {:.0} us CPU per move ({} moves; the arena process only), {:.0} us wall per move between bestmove and the next go",
                cpu.as_micros() as f64 / o.moves as f64,
                o.moves,
                o.wall_per_move_us()
            );
        }
        if let Some(line) = outcome.flag_latency.summary_line() {
            tables!(self, "{line}");
        }
        if plan.time_margin_ms > 0 {
            summary!(
                self,
                "time margin: {} ms tolerated past zero before a flag counted (off the rules)",
                plan.time_margin_ms
            );
        }
        // Written once the lines are printed: a folder no longer writable still shows them.
        results.write_summary(&summary).map_err(|e| {
            anyhow::anyhow!(
                "{}; the {} finished games are saved in {} (the tables above are its summary)",
                crate::console::error_text(&e),
                tally.rows.len(),
                results.dir().display()
            )
        })
    }

    /// Where the results are, why the run stopped early if it did, and how it ends: an error
    /// on a broken invariant, interrupted, or done.
    fn finish(
        &self,
        outcome: &tournament::Outcome,
        results: &ResultsDir,
        planned: usize,
        lost: Option<String>,
    ) -> anyhow::Result<Finish> {
        // A compat run's folder in the temporary folder is removed unless the run fails.
        let scratch = self.compat && crate::compat::scratch::is_scratch(results.dir());
        if self.compat && !scratch {
            note!(
                "summary: {} (blitz-arena stats {} prints its tables)",
                results.dir().join(report::SUMMARY_CSV).display(),
                results.dir().display()
            );
        }
        summary!(self, "results: {}", results.dir().display());
        if let Some((status, llr, games)) = outcome.sprt_stop {
            summary!(
                self,
                "SPRT: {status} at LLR {llr:+.2} after {games} games: the run stopped without playing its remaining games"
            );
        }
        if !outcome.violations.is_empty() {
            bail!(
                "{} invariant violations: the arena ruled a game wrongly; please report it with {}",
                outcome.violations.len(),
                results.dir().join(report::EVENTS_JSONL).display()
            );
        }
        if let Some(why) = &outcome.shortage {
            bail!(
                "stopped: {why}: {} of {planned} games finished and saved in {}; the game it was for was not recorded (no engine lost it); lower --concurrency and continue with --resume {}",
                outcome.tally.rows.len(),
                results.dir().display(),
                results.dir().display()
            );
        }
        // A game the user's own file lacks is an error, though the folder has it.
        if let Some(lost) = lost {
            bail!(
                "{lost}; every game played is in {}",
                results.dir().join(report::GAMES_PGN).display()
            );
        }
        // A signal after the last game (while the files were finished) interrupted nothing.
        if outcome.interrupted && outcome.tally.rows.len() < planned {
            let (done, dir) = (outcome.tally.rows.len(), results.dir().display());
            if scratch {
                note!("interrupted: {done} of {planned} games finished; games in progress were not recorded");
            } else {
                note!(
                    "interrupted: {done} of {planned} games finished and saved in {dir}; games in progress were not recorded; continue with --resume {dir}"
                );
            }
            return Ok(Finish::Interrupted);
        }
        Ok(Finish::Done)
    }
}

/// What the output (`--output-format`) prints about the run.
fn output_settings(
    plan: &RunPlan,
    args: &RunArgs,
    sprt: Option<Sprt>,
) -> tournament::OutputSettings {
    use report::compat_console::{fastchess_tc, fastchess_time, MatchLabel};
    let option = |name: &str, unit: &str| {
        let values: Vec<String> = plan.engines[..plan.engines.len().min(2)]
            .iter()
            .map(|e| {
                e.options
                    .iter()
                    .find(|(k, _)| k.eq_ignore_ascii_case(name))
                    .map_or("NULL".to_string(), |(_, v)| format!("{v}{unit}"))
            })
            .collect();
        match values.as_slice() {
            [a, b] if a != b => format!("{a} - {b}"),
            [a, ..] => a.clone(),
            [] => "NULL".to_string(),
        }
    };
    let tc = plan.tc;
    tournament::OutputSettings {
        penta: !plan.sprt_by_games,
        format: args.output_format,
        rating_interval: args.rating_interval,
        score_interval: args.score_interval,
        engines: plan.engines.iter().map(|e| e.name.clone()).collect(),
        label: MatchLabel {
            tc: if tc == TimeControl::UNLIMITED {
                // fastchess's `tc=inf`: the label is the search's limit.
                fastchess_tc(0.0, 0.0, plan.limits.nodes)
            } else {
                fastchess_time(&tc)
            },
            threads: option("Threads", "t"),
            hash: option("Hash", "MB"),
            book: plan
                .openings
                .as_ref()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        },
        sprt,
    }
}

/// A new run's plan, from the command line over the `[run]` table over the defaults.
fn new_plan(
    format: Format,
    names: &[String],
    args: &RunArgs,
) -> anyhow::Result<(RunPlan, PathBuf, bool, Places)> {
    let roster = match &args.roster {
        Some(roster) => roster.clone(),
        None => super::roster::load(
            args.engines
                .as_deref()
                .unwrap_or(Path::new(super::roster::DEFAULT)),
            names,
        )?,
    };
    let table = &roster.run;
    if let Some(dir) = &table.resume {
        bail!(
            "[run] resume: give --resume {} on the command line instead",
            dir.display()
        );
    }
    let mut engines = players(&roster, names)?;
    if args.ponder || table.ponder == Some(true) {
        for engine in &mut engines {
            engine.ponder = true;
        }
    }
    let games = args.games.or(table.games).unwrap_or(2);
    check_run_games(format, engines.len(), games)?;
    let openings = match args.openings.as_ref().or(table.openings.as_ref()) {
        Some(path) => Some(std::path::absolute(path)?),
        None => None,
    };
    let openings_digest = openings.as_deref().map(plan::digest).transpose()?;
    let concurrency = args
        .concurrency
        .or(table.concurrency)
        .unwrap_or_else(tournament::cores)
        .min(limits::CONCURRENCY.max);
    let shard = args.shard.or(table.shard);
    let given_out = args.out.clone().or_else(|| table.out.clone());
    let default_name = given_out.is_none();
    let out = given_out.unwrap_or_else(|| default_out(format, shard));
    // Checked again under the folder's lock, once the engines have started. A default name
    // that is taken gets a suffix then.
    if !default_name {
        folder::check_free(&out)?;
    }
    let sprt = args.sprt.or(table.sprt);
    if sprt.is_some() && engines.len() != 2 {
        usage!("--sprt tests one engine against one other: give exactly two engines");
    }
    let watchers = watchers(args, table);
    exact_or_random(args, table)?;
    let inject = inject_config(args, table)?;
    let tablebase = tablebase_spec(args, table)?;
    let seed = args.seed.or(table.seed).unwrap_or_else(rand::random);
    let variant = args.variant.or(table.variant).unwrap_or_default();
    if variant == Variant::Chess960 {
        play_chess960(&mut engines);
    }
    let book = super::book::plan_book(
        openings.as_deref(),
        super::book::BookArgs {
            start: args.openings_start.or(table.openings_start),
            plies: args.opening_plies.or(table.opening_plies),
            depth: args.book_depth.or(table.book_depth),
            variant,
        },
        games,
        seed,
    )?;
    let plan = RunPlan {
        version: env!("CARGO_PKG_VERSION").to_string(),
        format,
        engines,
        tc: args.tc.or(table.tc).unwrap_or(TimeControl::G5),
        games,
        book: book.records,
        openings,
        openings_digest,
        openings_order: args
            .openings_order
            .or(table.openings_order)
            .unwrap_or(OpeningsOrder::Random),
        openings_start: book.start,
        one_game_per_opening: args.one_game_per_opening,
        fastchess_order: args.fastchess_order,
        sprt_by_games: args.one_game_per_opening
            || args.trinomial
            || args.output_format == report::compat_console::OutputFormat::Cutechess,
        opening_plies: book.plies,
        book_depth: book.depth,
        variant,
        settings: referee_settings(args, table, watchers.claim_ms),
        watchers,
        inject,
        limits: SearchLimits {
            nodes: args.nodes.or(table.nodes),
            depth: args.depth.or(table.depth),
        },
        time_margin_ms: args.time_margin.or(table.time_margin).unwrap_or(0),
        seed,
        shard,
        sprt: sprt.map(|s| s.to_string()),
        tablebase,
        concurrency,
    };
    Ok((plan, out, default_name, roster.places))
}

/// A run holds at most `limits::RUN_GAMES` games.
fn check_run_games(format: Format, engines: usize, games: u32) -> anyhow::Result<()> {
    let encounters = format.encounters(engines as u64);
    let total = encounters * u64::from(games);
    if total > limits::RUN_GAMES {
        usage!(
            "{encounters} pairings x {games} games is {total} games; a run holds at most {} (give fewer --games, or split the run)",
            limits::RUN_GAMES
        );
    }
    Ok(())
}

/// The watchers' settings, from the command line over the `[run]` table over the defaults.
fn watchers(args: &RunArgs, table: &RunTable) -> Watchers {
    Watchers {
        flag_notice_ms: args.flag_notice_ms.or(table.flag_notice_ms).unwrap_or(0.0),
        claim_ms: args.claim_ms.or(table.claim_ms).unwrap_or(0),
        illegal_notice: args.illegal_notice.or(table.illegal_notice).unwrap_or(1.0),
        flag_notice_after: args.flag_notice_after.or(table.flag_notice_after),
        illegal_notice_after: args.illegal_notice_after.or(table.illegal_notice_after),
    }
}

/// Every engine plays Chess960 castling: one that does not declare the option is refused when
/// it starts, before any game.
fn play_chess960(engines: &mut [EngineConfig]) {
    for engine in engines {
        engine
            .options
            .retain(|(name, _)| !name.eq_ignore_ascii_case(CHESS960_OPTION));
        engine
            .options
            .push((CHESS960_OPTION.to_string(), "true".to_string()));
    }
}

/// What the referee is told, from the command line over the `[run]` table over the defaults.
fn referee_settings(args: &RunArgs, table: &RunTable, claim_ms: u64) -> RefereeSettings {
    RefereeSettings {
        ruleset: args.ruleset.or(table.ruleset).unwrap_or_default(),
        max_moves: args.max_moves.or(table.max_moves),
        adjudication: Adjudication {
            draw: args.draw_adjudication.or(table.draw_adjudication),
            resign: args.resign_adjudication.or(table.resign_adjudication),
        },
        claim_draws: args.claim_draws.or(table.claim_draws).unwrap_or_default()
            == ClaimDraws::Always,
        claim_ms,
        flag_always_loses: args.flag_always_loses,
    }
}

/// The plan stored in `dir`: the run continues exactly as it was planned. Only the
/// concurrency may change; options that decide the games are refused.
fn resumed_plan(
    format: Format,
    names: &[String],
    args: &RunArgs,
    dir: &Path,
) -> anyhow::Result<RunPlan> {
    let given = [
        ("--tc", args.tc.is_some()),
        ("--games", args.games.is_some()),
        ("--openings", args.openings.is_some()),
        ("--openings-order", args.openings_order.is_some()),
        ("--openings-start", args.openings_start.is_some()),
        ("--opening-plies", args.opening_plies.is_some()),
        ("--book-depth", args.book_depth.is_some()),
        ("--variant", args.variant.is_some()),
        ("--ruleset", args.ruleset.is_some()),
        ("--seed", args.seed.is_some()),
        ("--out", args.out.is_some()),
        ("--max-moves", args.max_moves.is_some()),
        ("--nodes", args.nodes.is_some()),
        ("--depth", args.depth.is_some()),
        ("--draw-adjudication", args.draw_adjudication.is_some()),
        ("--resign-adjudication", args.resign_adjudication.is_some()),
        ("--tb", args.tb.is_some()),
        ("--tb-pieces", args.tb_pieces.is_some()),
        ("--time-margin", args.time_margin.is_some()),
        ("--flag-notice-ms", args.flag_notice_ms.is_some()),
        ("--claim-ms", args.claim_ms.is_some()),
        ("--illegal-notice", args.illegal_notice.is_some()),
        ("--flag-notice-after", args.flag_notice_after.is_some()),
        (
            "--illegal-notice-after",
            args.illegal_notice_after.is_some(),
        ),
        ("--claim-draws", args.claim_draws.is_some()),
        ("--shard", args.shard.is_some()),
        ("--sprt", args.sprt.is_some()),
        ("--inject-illegal", args.inject_illegal.is_some()),
        ("--illegal-kinds", args.illegal_kinds.is_some()),
        ("--inject-flag", args.inject_flag.is_some()),
        ("--inject-flag-mode", args.inject_flag_mode.is_some()),
        ("--flag-overshoot-ms", args.flag_overshoot_ms.is_some()),
        ("--flag-gap-ms", args.flag_gap_ms.is_some()),
        ("--ponder", args.ponder),
    ];
    if let Some((flag, _)) = given.iter().find(|(_, set)| *set) {
        usage!(
            "--resume continues the run as planned in {}; drop {flag}",
            dir.join(RUN_JSON).display()
        );
    }
    let mut plan = RunPlan::load(dir)?;
    if let Some(file) = &args.engines {
        // Not refused with the options above: it decides nothing the plan does not hold.
        note!(
            "warning: --engines {} is not read: a resumed run's engines, options and book come from {}",
            file.display(),
            dir.join(RUN_JSON).display()
        );
    }
    if plan.format != format {
        bail!(
            "{} is a {} run, not a {}",
            dir.display(),
            plan.format.as_str(),
            format.as_str()
        );
    }
    let planned: Vec<&str> = plan.engines.iter().map(|e| defined_name(&e.name)).collect();
    if planned != names.iter().map(String::as_str).collect::<Vec<_>>() {
        bail!(
            "{} was played by {}; resume it with the same engines",
            dir.display(),
            planned.join(", ")
        );
    }
    for engine in &plan.engines {
        config::check_launch(engine)?;
    }
    if let Some(concurrency) = args.concurrency {
        plan.concurrency = concurrency.max(1);
    }
    Ok(plan)
}

/// An exact watcher timing replaces its random counterpart: both at once is refused.
fn exact_or_random(args: &RunArgs, table: &RunTable) -> anyhow::Result<()> {
    let flag = (args.flag_notice_after.or(table.flag_notice_after).is_some())
        && args.flag_notice_ms.or(table.flag_notice_ms).is_some();
    let illegal = (args
        .illegal_notice_after
        .or(table.illegal_notice_after)
        .is_some())
        && args.illegal_notice.or(table.illegal_notice).is_some();
    if flag {
        usage!("--flag-notice-after and --flag-notice-ms cannot go together: give one");
    }
    if illegal {
        usage!("--illegal-notice-after and --illegal-notice cannot go together: give one");
    }
    Ok(())
}

/// `--tb`, `--tb-pieces` (or `[run] tb`, `tb-pieces`): the tables are opened now, so that a
/// missing or unreadable folder stops the run before anything starts (exit 2).
fn tablebase_spec(args: &RunArgs, table: &RunTable) -> anyhow::Result<Option<TablebaseSpec>> {
    let pieces = args.tb_pieces.or(table.tb_pieces);
    let Some(TbPaths(paths)) = args.tb.clone().or_else(|| table.tb.clone()) else {
        if pieces.is_some() {
            usage!("--tb-pieces limits --tb: give the tables' folders with --tb");
        }
        return Ok(None);
    };
    match Tablebases::open(&paths, pieces) {
        Ok(tables) => Ok(Some(tables.spec().clone())),
        Err(e) => usage!("{e}"),
    }
}

/// The tables the plan names, opened for the games (a resumed run's folders must still hold
/// them).
fn open_tablebase(plan: &RunPlan) -> anyhow::Result<Option<Arc<Tablebases>>> {
    let Some(spec) = &plan.tablebase else {
        return Ok(None);
    };
    match Tablebases::from_spec(spec) {
        Ok(tables) => Ok(Some(Arc::new(tables))),
        Err(e) => usage!("{e} (the run was planned with these tables)"),
    }
}

/// The fault-injection options, from the command line over `[run]`.
fn inject_config(args: &RunArgs, table: &RunTable) -> anyhow::Result<InjectConfig> {
    let defaults = InjectConfig::default();
    let kinds = match (&args.illegal_kinds, &table.illegal_kinds) {
        (Some(kinds), _) => kinds.clone(),
        (None, Some(names)) => names
            .iter()
            .map(|n| n.parse::<IllegalKind>().map_err(anyhow::Error::msg))
            .collect::<anyhow::Result<_>>()?,
        (None, None) => defaults.kinds.clone(),
    };
    let config = InjectConfig {
        illegal: args.inject_illegal.or(table.inject_illegal).unwrap_or(0.0),
        kinds,
        flag: args.inject_flag.or(table.inject_flag).unwrap_or(0.0),
        flag_mode: args
            .inject_flag_mode
            .or(table.inject_flag_mode)
            .unwrap_or_default(),
        overshoot_ms: args
            .flag_overshoot_ms
            .or(table.flag_overshoot_ms)
            .unwrap_or(defaults.overshoot_ms),
        gap_ms: args
            .flag_gap_ms
            .or(table.flag_gap_ms)
            .unwrap_or(defaults.gap_ms),
    };
    if config.kinds.is_empty() {
        bail!("--illegal-kinds: give at least one kind");
    }
    Ok(config)
}

/// The engines of a run, in order; a name given twice plays as `NAME#2`.
fn players(roster: &Roster, names: &[String]) -> anyhow::Result<Vec<EngineConfig>> {
    let mut engines: Vec<EngineConfig> = Vec::with_capacity(names.len());
    for name in names {
        // A name engines.toml does not define is a bad command line (exit 2).
        let mut engine = roster
            .engine(name)
            .map_err(|e| UsageError(e.to_string()))?
            .clone();
        config::check_launch(&engine).map_err(|e| placed(&roster.places, e.into()))?;
        let copies = engines
            .iter()
            .filter(|e| defined_name(&e.name) == name)
            .count();
        if copies > 0 {
            engine.name = format!("{name}#{}", copies + 1);
        }
        engines.push(engine);
    }
    Ok(engines)
}

/// Starts every engine once, in parallel, and shuts it down again.
async fn preflight(engines: &[EngineConfig], timeouts: Timeouts) -> anyhow::Result<EngineIds> {
    let mut set = JoinSet::new();
    for engine in engines {
        let engine = engine.clone();
        set.spawn(async move { Engine::start(&engine, timeouts).await });
    }
    let mut first_error = None;
    let mut ids = EngineIds::new();
    while let Some(joined) = set.join_next().await {
        match joined? {
            Ok(engine) => {
                let id = UciId {
                    name: engine.id_name().map(String::from),
                    author: engine.author().map(String::from),
                };
                ids.insert(engine.name().to_string(), id);
                if ponders_not(engines, &engine) {
                    note!(
                        "warning: engine {} has no UCI option Ponder: it plays without pondering",
                        engine.name()
                    );
                }
                engine.shutdown().await
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    match first_error {
        Some(e) => Err(e.into()),
        None => Ok(ids),
    }
}

/// An engine configured to ponder that was not told it may (it declares no `Ponder` option).
fn ponders_not(engines: &[EngineConfig], engine: &Engine) -> bool {
    engines
        .iter()
        .any(|e| e.name == engine.name() && e.ponder && !engine.ponders())
}

fn default_out(format: Format, shard: Option<Shard>) -> PathBuf {
    let now = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let shard = shard
        .map(|s| format!("-shard{}of{}", s.index, s.count))
        .unwrap_or_default();
    Path::new("results").join(format!("{now}-{}{shard}", format.as_str()))
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
