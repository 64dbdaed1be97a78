//! blitz-arena's command line: parse, call the library, map the outcome to an exit code.
//!
//! Exit codes: 0 done; 1 an error (one line on stderr); 2 a bad command line (clap's errors,
//! values out of range, options that contradict each other: [`app::UsageError`]); 3 `check`
//! found a failing engine; 130 / 143 / 129 interrupted by SIGINT / SIGTERM / SIGHUP (finished games saved).
//! A fastchess / cutechess-cli command line ([`blitz_arena::compat`]) exits as fastchess
//! does: 0 done, 1 an error or interrupted by SIGINT; and 2 for a bad command line, 143 for
//! SIGTERM (fastchess exits 1, and dies on SIGTERM).

use std::process::ExitCode;
use std::sync::atomic::{AtomicU8, Ordering};

use blitz_arena::app::{self, Finish, UsageError};
use blitz_arena::cli::{Cli, Command};
use blitz_arena::compat::{self, CompatError, Request};
use blitz_arena::console::{err_line, error_text, out_line};
use blitz_arena::tournament::Format;
use clap::error::ErrorKind;
use clap::CommandFactory;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args_os()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if let Some(args) = compat::self_test(&argv) {
        out_line(compat::SELF_TEST_NOTE);
        return compat_main(compat::Tool::Fastchess, &args);
    }
    if let Some(tool) = compat::invocation(&argv) {
        return compat_main(tool, &argv[1..]);
    }
    if help_on_help() {
        return ExitCode::SUCCESS;
    }
    let cli = match Cli::from_env() {
        Ok(cli) => cli,
        Err(e) => return bad_command_line(e),
    };
    if let Command::Engine { name, args } = &cli.command {
        // A built-in engine runs on plain threads: no runtime, a fast start.
        return match blitz_arena::builtin::run(name, args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        };
    }
    in_runtime(Job::Native(cli.command))
}

/// A fastchess / cutechess-cli command line: read it, say what it ignores, run it.
fn compat_main(tool: compat::Tool, args: &[String]) -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_default();
    let run = match compat::parse(tool, args, &cwd) {
        Ok(Request::Version) => {
            out_line(&compat::version_line());
            return ExitCode::SUCCESS;
        }
        Ok(Request::Help) => {
            out_line(&compat::help_text());
            return ExitCode::SUCCESS;
        }
        Ok(Request::Compliance(roster)) => return in_runtime(Job::Compliance(*roster)),
        Ok(Request::Run(run)) => run,
        Err(CompatError::Usage(message)) => {
            err_line(&format!("blitz-arena: error: {message}"));
            return ExitCode::from(2);
        }
        Err(CompatError::Invalid(message)) => {
            err_line(&format!("blitz-arena: error: {message}"));
            return ExitCode::FAILURE;
        }
    };
    for warning in &run.warnings {
        err_line(&format!("blitz-arena: warning: {warning}"));
    }
    for file in &run.truncate {
        // `append=false`: the file starts empty, as fastchess opens it.
        if let Err(e) = std::fs::write(file, "") {
            // As a file that cannot be opened for appending: a bad command line.
            err_line(&format!(
                "blitz-arena: error: cannot open {}: {e}",
                file.display()
            ));
            return ExitCode::from(2);
        }
    }
    in_runtime(Job::Compat(*run))
}

/// What runs on the tokio runtime.
enum Job {
    Native(Command),
    Compat(compat::CompatRun),
    /// fastchess's `--compliance CMD`: `check` of that engine.
    Compliance(blitz_arena::config::Roster),
}

fn in_runtime(job: Job) -> ExitCode {
    // An engine's descendant that leaves its group is adopted by the arena, and swept.
    blitz_arena::engine::reaper::enable();
    // The blocking pool runs only the reaper's sweeps, which take one lock each: two threads
    // serve them, where the default 512 grew the arena's threads with the engines killed.
    // A worker with games always ready looks at the timers every 8 polls (tokio's default is
    // 61): at 1,024 games at once a fallen flag's timer fired 2.0 ms late at the 99th
    // percentile, 4.1 ms with the default (docs/performance.md, "Timers ahead of moves").
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .max_blocking_threads(2)
        .event_interval(8)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => return fail(&e.into()),
    };
    let code = runtime.block_on(async_main(job));
    // Every engine is gone with the runtime (a process is killed and reaped when dropped);
    // then the janitor, which would have killed them had the arena died, is ended too.
    drop(runtime);
    // A start still on the spawner thread ends with its engine killed (a start takes
    // milliseconds; the bound is for a machine that has stopped).
    blitz_arena::engine::spawner::drain(std::time::Duration::from_secs(5));
    blitz_arena::engine::reaper::sweep();
    blitz_arena::engine::janitor::shutdown();
    code
}

async fn async_main(job: Job) -> ExitCode {
    let (cancel_tx, cancel) = watch::channel(false);
    tokio::spawn(stop_on_signal(cancel_tx));
    let fastchess_exits = matches!(job, Job::Compat(_) | Job::Compliance(_));
    let result = match job {
        Job::Compat(run) => compat_run(run, cancel).await,
        // fastchess exits 1 when its compliance check fails.
        Job::Compliance(roster) => match app::check_roster(&roster, Vec::new()).await {
            Ok(Finish::Failed) => return ExitCode::FAILURE,
            other => other,
        },
        Job::Native(command) => native(command, cancel).await,
    };
    match result {
        Ok(Finish::Done) => ExitCode::SUCCESS,
        Ok(Finish::Failed) => ExitCode::from(3),
        Ok(Finish::Interrupted) => {
            // The signal's code is stored before the run is asked to stop: known here in every
            // phase (the handshake's too, which stops before the signal's task has ended).
            let code = match SIGNAL_CODE.load(Ordering::SeqCst) {
                0 => 130,
                code => code,
            };
            // fastchess exits 1 when Ctrl-C stopped it (SIGTERM kills fastchess; blitz-arena
            // stops cleanly with 143 either way).
            ExitCode::from(if fastchess_exits && code == 130 {
                1
            } else {
                code
            })
        }
        Err(e) => fail(&e),
    }
}

/// A compat run: options the engines do not take are dropped with fastchess's warning on
/// stdout, and the results folder, unless `-out DIR` named it, is removed afterwards.
async fn compat_run(
    mut run: compat::CompatRun,
    cancel: watch::Receiver<bool>,
) -> anyhow::Result<Finish> {
    // Folders of compat runs that were killed (SIGKILL) or panicked: nothing piles up.
    for stale in compat::scratch::sweep(&std::env::temp_dir()) {
        err_line(&format!(
            "blitz-arena: {} removed: left by a compat run that is gone",
            stale.display()
        ));
    }
    for unset in compat::drop_unset_options(&mut run.run).await {
        out_line(&unset.line());
    }
    let result = app::tournament(run.format, run.names, run.run, cancel).await;
    if let (Some(dir), Err(e)) = (&run.scratch, &result) {
        // A run that failed keeps its folder: its games may be nowhere else (a -pgnout on a
        // full disk), and the error names it.
        if dir.exists() && compat::scratch::keep(dir).is_ok() {
            return Err(anyhow::anyhow!(
                "{}; the run's folder {} is kept (remove it when done)",
                error_text(e),
                dir.display()
            ));
        }
    }
    if let Some(dir) = &run.scratch {
        if dir.exists() {
            match std::fs::remove_dir_all(dir) {
                Ok(()) => err_line(&format!(
                    "blitz-arena: {} removed: fastchess leaves no results folder (-out DIR keeps one)",
                    dir.display()
                )),
                Err(e) => err_line(&format!(
                    "blitz-arena: warning: {}: cannot remove: {e}",
                    dir.display()
                )),
            }
        }
    }
    result
}

/// One of blitz-arena's own commands.
async fn native(command: Command, cancel: watch::Receiver<bool>) -> anyhow::Result<Finish> {
    match command {
        Command::Gauntlet { engine, vs, run } => {
            let names = std::iter::once(engine).chain(vs).collect();
            app::tournament(Format::Gauntlet, names, run, cancel).await
        }
        Command::RoundRobin { names, run } => {
            app::tournament(Format::RoundRobin, names, run, cancel).await
        }
        Command::Check { names, roster } => app::check(names, &roster).await,
        Command::Stats { results } => app::stats(&results),
        Command::Merge { dirs, out } => app::merge(&dirs, &out),
        Command::Report { dirs, out } => app::report(&dirs, out.as_deref()),
        Command::Rules { ruleset } => app::rules(ruleset),
        Command::Adjudicate { results, ruleset } => app::adjudicate(&results, ruleset),
        Command::Engine { .. } => unreachable!("handled before the runtime starts"),
    }
}

/// The exit code of the signal that stopped the run (0: none yet).
static SIGNAL_CODE: AtomicU8 = AtomicU8::new(0);

/// Waits for SIGINT, SIGTERM or SIGHUP (a closed terminal), then asks the run to stop; a
/// second signal exits at once (the engines die with the arena: the janitor kills their
/// groups).
async fn stop_on_signal(cancel: watch::Sender<bool>) {
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return;
    };
    let code = tokio::select! {
        _ = int.recv() => 130,
        _ = term.recv() => 143,
        _ = hup.recv() => 129,
    };
    err_line(
        "stopping: finishing the files of the games already played (signal again to exit at once)",
    );
    SIGNAL_CODE.store(code, Ordering::SeqCst);
    let _ = cancel.send(true);
    tokio::spawn(async move {
        tokio::select! {
            _ = int.recv() => {},
            _ = term.recv() => {},
            _ = hup.recv() => {},
        }
        err_line(
            "exiting at once: the games finished before are kept in the results folder (--resume DIR goes on from them)",
        );
        std::process::exit(i32::from(code));
    });
}

fn fail(e: &anyhow::Error) -> ExitCode {
    // One line: the error and its causes.
    err_line(&format!("blitz-arena: error: {}", error_text(e)));
    if e.downcast_ref::<UsageError>().is_some() {
        ExitCode::from(2)
    } else {
        ExitCode::FAILURE
    }
}

/// `blitz-arena help --help` (or `-h`): the help of the `help` command, which clap refuses
/// to print ("unrecognized subcommand '--help'"). True if it was asked for and printed.
fn help_on_help() -> bool {
    let args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let asked = args.first().is_some_and(|a| a == "help")
        && args[1..].iter().any(|a| a == "--help" || a == "-h");
    if !asked {
        return false;
    }
    let mut command = Cli::command();
    command.build();
    match command.find_subcommand_mut("help") {
        Some(help) => {
            out_line(&help.render_long_help().to_string());
            true
        }
        None => false,
    }
}

/// Help and version as clap writes them; any other bad command line is one line on
/// stderr, like every other error, and exit code 2.
fn bad_command_line(e: clap::Error) -> ExitCode {
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        // Help on stdout (exit 0), or on stderr with exit 2 for a bare `blitz-arena`.
        e.exit();
    }
    err_line(&format!(
        "blitz-arena: error: {}",
        one_line(&e.render().to_string())
    ));
    ExitCode::from(2)
}

/// clap's multi-line message (error, tip, usage, "For more information") as one line.
fn one_line(message: &str) -> String {
    let mut out = String::new();
    for line in message.lines().map(str::trim).filter(|l| !l.is_empty()) {
        if line.starts_with("For more information") {
            continue;
        }
        let line = line.strip_prefix("error: ").unwrap_or(line);
        if let Some(usage) = line.strip_prefix("Usage: ") {
            out.push_str(&format!(" (usage: {usage})"));
        } else if out.is_empty() {
            out.push_str(line);
        } else if out.ends_with(':') {
            out.push(' ');
            out.push_str(line);
        } else {
            out.push_str("; ");
            out.push_str(line);
        }
    }
    out.push_str(" (see --help)");
    out
}
