//! Runs a schedule of games: a pool of workers, each with its own engine processes, and one
//! writer that appends every finished game to the results folder the moment it ends.

pub mod capacity;
mod lanes;
pub mod output;
pub mod plan;
pub mod schedule;
mod sprt;
mod threads;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch};

use crate::engine::{EngineError, Seat, Timeouts};
use crate::event::{BySide, Event, GameRecord, Side};
use crate::game::{self, GameSetup};
use crate::invariants::Tamper;
use crate::openings::Opening;
use crate::report::html::HtmlReport;
use crate::report::{Rendered, ResultsDir, Sprt, SprtStatus, Tally};
pub use output::{OutputSettings, Progress};
pub use plan::RunPlan;
pub use schedule::{Format, Pairing};
pub use threads::{cores, oversubscribed};

/// Everything a run needs, validated.
pub struct Run {
    /// What decides the games: engines (schedule entries index into them), time control
    /// (an engine's own `tc` gives time odds), rules, watchers, injection, limits, seed.
    pub plan: RunPlan,
    /// The games still to play (a resumed run's finished games left out).
    pub schedule: Vec<Pairing>,
    pub openings: Vec<Opening>,
    pub timeouts: Timeouts,
    /// A sequential test of the first engine against the second: the run stops taking new
    /// games once a bound is crossed.
    pub sprt: Option<Sprt>,
    /// A test hook that corrupts each ruled game (see `invariants::Tamper`); None in use.
    pub tamper: Option<Tamper>,
    /// `report.html`, rewritten in the results folder as games finish and at the end.
    pub report: Option<HtmlReport>,
    /// `--tb`: the Syzygy tables every game probes.
    pub tablebase: Option<Arc<crate::tablebase::Tablebases>>,
    /// A run printing fastchess's lines checks the engines' PVs as fastchess does (`pvcheck`);
    /// `Some(true)`: with fastchess's `-check-mate-pvs`.
    pub pv_checks: Option<bool>,
}

impl Run {
    fn setup(&self, pairing: &Pairing) -> GameSetup {
        let plan = &self.plan;
        let white = &plan.engines[pairing.white];
        let black = &plan.engines[pairing.black];
        GameSetup {
            game: pairing.game,
            pair: pairing.pair,
            names: BySide::new(white.name.clone(), black.name.clone()),
            watchers: plan.watchers,
            inject: plan.inject.clone(),
            opening: self.openings[pairing.opening].clone(),
            tc: BySide::new(white.tc.unwrap_or(plan.tc), black.tc.unwrap_or(plan.tc)),
            settings: plan.settings.clone(),
            limits: plan.limits,
            time_margin: Duration::from_millis(plan.time_margin_ms),
            seed: plan.seed,
            tablebase: self.tablebase.clone(),
            pv_checks: None,
        }
    }
}

/// What a run produced.
pub struct Outcome {
    /// Every finished game, the resumed ones included: rows and running totals.
    pub tally: Tally,
    /// The run was stopped (Ctrl-C, SIGTERM) before its schedule was done.
    pub interrupted: bool,
    /// Broken invariants: (game, what is wrong). Empty when every game was ruled soundly.
    pub violations: Vec<(u64, String)>,
    /// An engine could not be started because the arena or the machine ran out of something
    /// (open files, processes, memory), and why: the run stopped there, the game being
    /// started was not recorded (it is no result), every finished game is kept.
    pub shortage: Option<String>,
    /// The SPRT crossed a bound: its decision, the log-likelihood ratio then, and the games
    /// finished then (games in progress finish after it and count in the summary).
    pub sprt_stop: Option<(SprtStatus, f64, usize)>,
    pub overhead: Overhead,
    pub flag_latency: crate::report::latency::FlagLatency,
}

/// The arena's own cost per move, measured on every run.
#[derive(Clone, Copy, Debug, Default)]
pub struct Overhead {
    /// Moves played (legal and illegal).
    pub moves: u64,
    /// Wall time between reading a `bestmove` and writing the next `go`, summed: time the
    /// arena spends that is charged to nobody.
    pub between_moves_us: i64,
    /// Gaps counted in `between_moves_us`.
    pub gaps: u64,
}

impl Overhead {
    fn add(&mut self, record: &GameRecord) {
        let mut last_reply: Option<i64> = None;
        for event in &record.events {
            match event {
                Event::Move { t_us, .. } | Event::IllegalMove { t_us, .. } => {
                    self.moves += 1;
                    last_reply = Some(*t_us);
                }
                Event::Go { t_us, .. } => {
                    if let Some(reply) = last_reply.take() {
                        self.between_moves_us += t_us - reply;
                        self.gaps += 1;
                    }
                }
                _ => {}
            }
        }
    }

    /// Mean wall time per move between `bestmove` and the next `go`, in microseconds.
    pub fn wall_per_move_us(&self) -> f64 {
        if self.gaps == 0 {
            0.0
        } else {
            self.between_moves_us as f64 / self.gaps as f64
        }
    }
}

/// Plays the whole schedule (or until `cancel` turns true), appending each finished game to
/// `results` as it ends. `previous` are the games a resumed run had already played: they count
/// in the standings and the outcome. Each game's record is dropped once it is written and
/// counted.
pub async fn run(
    run: Run,
    results: &mut ResultsDir,
    progress: &mut Progress,
    previous: Tally,
    cancel: watch::Receiver<bool>,
) -> anyhow::Result<Outcome> {
    let mut run = run;
    let mut html = run.report.take();
    let run = Arc::new(run);
    let next = Arc::new(AtomicUsize::new(0));
    let stop_taking = Arc::new(AtomicBool::new(false));
    let (tx, mut rx) = mpsc::channel::<Report>(64);
    let workers = start_workers(&run, &next, &stop_taking, tx, &cancel)?;

    let mut tally = previous;
    tally.rows.reserve(run.schedule.len());
    let mut overhead = Overhead::default();
    let mut flag_latency = crate::report::latency::FlagLatency::default();
    // report.html is rewritten as games finish: a folder that will not take it is said once.
    let mut report_warned = false;
    let mut sprt_stop = None;
    let mut live_sprt = run.sprt.map(|sprt| {
        let (a, b) = (&run.plan.engines[0].name, &run.plan.engines[1].name);
        sprt::LiveSprt::new(sprt, a, b, !run.plan.sprt_by_games, &tally.rows)
    });
    if let Some(now) = live_sprt.as_ref().map(sprt::LiveSprt::now) {
        if now.status.is_finished() {
            // A resumed run whose test had already ended plays nothing more.
            stop_taking.store(true, Ordering::SeqCst);
            sprt_stop = Some((now.status, now.llr, tally.rows.len()));
        }
    }
    let mut violations = Vec::new();
    let mut shortage = None;
    while let Some(report) = rx.recv().await {
        let mut record = match report {
            Report::Short(why) => {
                // The arena's trouble: no game more starts; games in progress finish.
                stop_taking.store(true, Ordering::SeqCst);
                shortage.get_or_insert(why);
                continue;
            }
            Report::Started(i) => {
                let pairing = &run.schedule[i];
                let name = |k: usize| run.plan.engines[k].name.as_str();
                progress.game_started(pairing.game, name(pairing.white), name(pairing.black));
                continue;
            }
            Report::Line(text) => {
                progress.game_line(&text);
                continue;
            }
            Report::Finished(record) => *record,
        };
        let written = write_game(&run, results, &mut record)?;
        let rules = crate::invariants::RunRules {
            settings: &run.plan.settings,
            watchers: &run.plan.watchers,
        };
        for broken in crate::invariants::check(&record, &written, rules) {
            progress.println(&format!("INVARIANT BROKEN: game {}: {broken}", record.game));
            violations.push((record.game, broken));
        }
        overhead.add(&record);
        flag_latency.add(&record);
        if let Some(html) = &mut html {
            html.add(&record, &written.row);
        }
        tally.add(&record, written.row);
        if let Some(html) = &mut html {
            if let Err(e) = html.write_after_game(results.dir(), &tally) {
                warn_once(progress, &mut report_warned, &e);
            }
        }
        let row = tally.rows.last().expect("just added");
        let sprt_now = live_sprt.as_mut().map(|live| {
            live.add(row);
            live.now()
        });
        progress.game_finished(&record, row, sprt_now.as_ref().map(|s| s.line.as_str()));
        if let Some(now) = sprt_now {
            if now.status.is_finished() && sprt_stop.is_none() {
                // Games in progress finish and are recorded; no new game starts.
                stop_taking.store(true, Ordering::SeqCst);
                sprt_stop = Some((now.status, now.llr, tally.rows.len()));
            }
        }
    }
    for handle in workers.handles {
        handle.await?;
    }
    if let (Some(html), false) = (&mut html, tally.rows.is_empty()) {
        if let Err(e) = html.write(results.dir(), &tally) {
            warn_once(progress, &mut report_warned, &e);
        }
    }
    let interrupted = *cancel.borrow();
    Ok(Outcome {
        tally,
        violations,
        interrupted,
        shortage,
        sprt_stop,
        overhead,
        flag_latency,
    })
}

/// The workers' tasks, and the lanes they run on when they have one each.
struct Workers {
    handles: Vec<tokio::task::JoinHandle<()>>,
    /// Kept until every worker has finished.
    _lanes: Option<lanes::Lanes>,
}

/// Starts the workers, as many as games may be played at once (and no more than there are
/// games), each taking the next game of the schedule until none is left or `stop_taking`. When
/// they fit the cores each has a thread of its own (`lanes`); an error when those threads
/// cannot be had.
fn start_workers(
    run: &Arc<Run>,
    next: &Arc<AtomicUsize>,
    stop_taking: &Arc<AtomicBool>,
    tx: mpsc::Sender<Report>,
    cancel: &watch::Receiver<bool>,
) -> anyhow::Result<Workers> {
    let workers = run.plan.concurrency.clamp(1, run.schedule.len().max(1));
    let squeeze = capacity::squeeze_at();
    let lanes = if lanes::one_each(workers) {
        let lanes = lanes::Lanes::start(workers)
            .map_err(|e| anyhow::anyhow!("cannot start a thread for each game: {e}"))?;
        Some(lanes)
    } else {
        None
    };
    let handles = (0..workers)
        .map(|index| {
            let worker = worker(
                squeeze,
                Arc::clone(run),
                Arc::clone(next),
                Arc::clone(stop_taking),
                tx.clone(),
                cancel.clone(),
            );
            match &lanes {
                Some(lanes) => lanes.spawn(index, worker),
                None => tokio::spawn(worker),
            }
        })
        .collect();
    Ok(Workers {
        handles,
        _lanes: lanes,
    })
}

/// Appends a finished game to the results (through the test hook's tampering when it is
/// set: `invariants::Tamper`); returns what was written.
fn write_game(
    run: &Run,
    results: &mut ResultsDir,
    record: &mut GameRecord,
) -> anyhow::Result<Rendered> {
    match run.tamper {
        None => results.append(record),
        Some(tamper) => {
            tamper.ruling(record);
            let mut written = Rendered::of(record)?;
            tamper.rendering(&mut written);
            results.write(&written)?;
            Ok(written)
        }
    }
}

/// What a worker tells the writer: a game (its schedule index) starts, or a game is over, or
/// an engine could not be started for want of the arena's resources (why).
enum Report {
    Started(usize),
    /// A line the compat console prints while a game is played (fastchess's PV warnings).
    Line(String),
    Finished(Box<GameRecord>),
    Short(String),
}

/// How long a game whose engine died of SIGTERM, SIGINT or SIGHUP waits for the arena's own
/// stop before it is recorded as lost by that crash.
const OUTSIDE_STOP_GRACE: Duration = Duration::from_secs(2);

/// Plays games from the shared schedule until it is exhausted or the run is cancelled. Holds
/// one [`Seat`] per player it has met: the seat starts its engine on first use, keeps it across
/// games (options are sent once), replaces it after a crash or a hang, and shuts it down at the
/// end.
async fn worker(
    squeeze: Option<u64>,
    run: Arc<Run>,
    next: Arc<AtomicUsize>,
    stop_taking: Arc<AtomicBool>,
    tx: mpsc::Sender<Report>,
    mut cancel: watch::Receiver<bool>,
) {
    let mut seats: HashMap<usize, Seat> = HashMap::new();
    loop {
        if *cancel.borrow() || stop_taking.load(Ordering::SeqCst) {
            break;
        }
        let i = next.fetch_add(1, Ordering::SeqCst);
        let Some(pairing) = run.schedule.get(i) else {
            break;
        };
        let mut setup = run.setup(pairing);
        if let Some(mate_pvs) = run.pv_checks {
            // Through the writer, so that they come in order with the game's other lines.
            let tx = tx.clone();
            let sink = game::LineSink(Arc::new(move |line| {
                let tx = tx.clone();
                Box::pin(async move {
                    let _ = tx.send(Report::Line(line)).await;
                })
            }));
            setup.pv_checks = Some(game::PvChecks { sink, mate_pvs });
        }
        if squeeze == Some(pairing.game) {
            capacity::squeeze_open_files();
        }
        // A player never meets itself, so the game's two seats are two seats of the map.
        let [mut white, mut black] = [pairing.white, pairing.black].map(|player| {
            seats
                .remove(&player)
                .unwrap_or_else(|| Seat::new(run.plan.engines[player].clone(), run.timeouts))
        });
        let failed = tokio::select! {
            failed = ready(&mut white, &mut black) => Some(failed),
            _ = cancel.wait_for(|c| *c) => None,
        };
        let Some(failed) = failed else {
            seats.insert(pairing.white, white);
            seats.insert(pairing.black, black);
            break;
        };
        if let Some((side, error)) = failed {
            seats.insert(pairing.white, white);
            seats.insert(pairing.black, black);
            if error.shortage().is_some() {
                let _ = tx.send(Report::Short(error.to_string())).await;
                break;
            }
            let forfeit = game::forfeit(&setup, side, error.to_string());
            let _ = tx.send(Report::Started(i)).await;
            let _ = tx.send(Report::Finished(Box::new(forfeit))).await;
            continue;
        }
        let _ = tx.send(Report::Started(i)).await;
        let played = tokio::select! {
            played = game::play(&setup, &mut white, &mut black) => Some(played),
            _ = cancel.wait_for(|c| *c) => None,
        };
        // An engine stopped by a signal from outside while the arena is being stopped too (a
        // plain `scancel` signals the engines and the arena at once) did not crash: if the
        // arena's own stop follows within the grace, the game was in progress, not lost.
        let played = match played {
            Some(played) if played.engine_stopped_from_outside() => {
                let stop = tokio::time::timeout(OUTSIDE_STOP_GRACE, cancel.wait_for(|c| *c));
                if stop.await.is_ok() {
                    None
                } else {
                    Some(played)
                }
            }
            played => played,
        };
        let Some(played) = played else {
            // A game in progress is not a result: its engines go, the game is not recorded.
            white.kill().await;
            black.kill().await;
            break;
        };
        if let Some(why) = played.shortage {
            // Nor is a game an engine could not be restarted in for want of resources.
            white.kill().await;
            black.kill().await;
            let _ = tx.send(Report::Short(why)).await;
            break;
        }
        white.release().await;
        black.release().await;
        seats.insert(pairing.white, white);
        seats.insert(pairing.black, black);
        if tx
            .send(Report::Finished(Box::new(played.record)))
            .await
            .is_err()
        {
            break;
        }
    }
    for (_, seat) in seats.drain() {
        seat.shutdown().await;
    }
}

/// Gets both seats' engines ready, white first; the first that cannot start, and why, if one
/// cannot (its side forfeits the game, unless the arena was short of resources).
async fn ready(white: &mut Seat, black: &mut Seat) -> Option<(Side, EngineError)> {
    for (side, seat) in [(Side::White, white), (Side::Black, black)] {
        if let Err(e) = seat.ready().await {
            return Some((side, e));
        }
    }
    None
}

/// `e` as a warning line, unless one was said already (`warned`).
fn warn_once(progress: &Progress, warned: &mut bool, e: &anyhow::Error) {
    if !std::mem::replace(warned, true) {
        progress.println(&format!("warning: {e:#}"));
    }
}
