//! blitz-arena's command line: parse, call the library, map the outcome to an exit code.
//!
//! Exit codes: 0 done; 1 an error (one line on stderr); 2 a usage error (clap); 3 `check`
//! found a failing engine; 130 / 143 interrupted by SIGINT / SIGTERM (finished games saved).

use std::process::ExitCode;

use blitz_arena::app::{self, Finish};
use blitz_arena::cli::{Cli, Command};
use blitz_arena::tournament::Format;
use clap::Parser;
use tokio::signal::unix::{signal, SignalKind};
use tokio::sync::watch;

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Command::Engine { name, args } = &cli.command {
        // A built-in engine runs on plain threads: no runtime, a fast start.
        return match blitz_arena::builtin::run(name, args) {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => fail(&e),
        };
    }
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&e.into()),
    };
    let code = runtime.block_on(async_main(cli.command));
    // Every engine is gone with the runtime (a process is killed and reaped when dropped);
    // then the janitor, which would have killed them had the arena died, is ended too.
    drop(runtime);
    blitz_arena::engine::janitor::shutdown();
    code
}

async fn async_main(command: Command) -> ExitCode {
    let (cancel_tx, cancel) = watch::channel(false);
    let signal_code = tokio::spawn(stop_on_signal(cancel_tx));
    let result = match command {
        Command::Gauntlet { engine, vs, run } => {
            let names = std::iter::once(engine).chain(vs).collect();
            app::tournament(Format::Gauntlet, names, run, cancel).await
        }
        Command::RoundRobin { engines, run } => {
            app::tournament(Format::RoundRobin, engines, run, cancel).await
        }
        Command::Check { names, roster } => app::check(names, &roster).await,
        Command::Stats { results } => app::stats(&results),
        Command::Merge { dirs, out } => app::merge(&dirs, &out),
        Command::Rules { ruleset } => app::rules(ruleset),
        Command::Adjudicate { results, ruleset } => app::adjudicate(&results, ruleset),
        Command::Engine { .. } => unreachable!("handled before the runtime starts"),
    };
    match result {
        Ok(Finish::Done) => ExitCode::SUCCESS,
        Ok(Finish::Failed) => ExitCode::from(3),
        Ok(Finish::Interrupted) => {
            let code = if signal_code.is_finished() {
                signal_code.await.unwrap_or(130)
            } else {
                130
            };
            ExitCode::from(code)
        }
        Err(e) => fail(&e),
    }
}

/// Waits for SIGINT or SIGTERM, then asks the run to stop; a second signal exits at once (the
/// engines die with the arena: they carry a parent-death signal).
async fn stop_on_signal(cancel: watch::Sender<bool>) -> u8 {
    let (Ok(mut int), Ok(mut term)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) else {
        return 130;
    };
    let code = tokio::select! {
        _ = int.recv() => 130,
        _ = term.recv() => 143,
    };
    eprintln!(
        "stopping: finishing the files of the games already played (signal again to exit at once)"
    );
    let _ = cancel.send(true);
    tokio::spawn(async move {
        tokio::select! {
            _ = int.recv() => {},
            _ = term.recv() => {},
        }
        std::process::exit(i32::from(code));
    });
    code
}

fn fail(e: &anyhow::Error) -> ExitCode {
    // One line: the error and its causes.
    eprintln!("blitz-arena: error: {e:#}");
    ExitCode::FAILURE
}
