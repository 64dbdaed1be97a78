//! The built-in UCI engines run by `blitz-arena engine NAME`: reference
//! opponents (`random`, `greedy`, `minimax`), an overhead probe (`instant`),
//! a misbehaving engine for testing the arena (`faulty`) and a scripted one
//! for exact clock-and-board scenarios (`script`).

mod engine;
mod faulty;
mod greedy;
mod instant;
mod minimax;
mod random;
mod script;
mod uci;

use std::io;

use anyhow::bail;

use engine::{Engine, Out};

/// The flags of `faulty` and how the arena rules each fault (`blitz-arena engine --help`).
pub use faulty::HELP as FAULTY_HELP;
/// The flags and items of `script` (`blitz-arena engine --help`).
pub use script::HELP as SCRIPT_HELP;

/// Names accepted by `blitz-arena engine NAME`.
pub const NAMES: &[&str] = &["random", "instant", "greedy", "minimax", "faulty", "script"];

/// Runs the named engine as a UCI engine on stdin/stdout until `quit` or EOF.
/// `args` are the extra command-line args (used by `faulty` and `script`).
pub fn run(name: &str, args: &[String]) -> anyhow::Result<()> {
    // A bad name or flag is a bad command line (exit code 2).
    let usage = |e: anyhow::Error| crate::console::UsageError(format!("{e:#}"));
    if name == "script" {
        script::Options::parse(args).map_err(usage)?;
        // It reads its input itself first (its `id name`, its positions).
        return script::run(args, io::stdin().lock(), Out::stdout());
    }
    let engine = create(name, args).map_err(usage)?;
    uci::run_loop(name, engine, io::stdin().lock(), Out::stdout())
}

fn create(name: &str, args: &[String]) -> anyhow::Result<Box<dyn Engine>> {
    if !matches!(name, "faulty" | "script") && !args.is_empty() {
        bail!(
            "engine {name} takes no arguments (got {}); set options with setoption",
            args.join(" ")
        );
    }
    Ok(match name {
        "random" => Box::new(random::Random::new()),
        "instant" => Box::new(instant::Instant),
        "greedy" => Box::new(greedy::Greedy::new()),
        "minimax" => Box::new(minimax::Minimax::new()),
        "faulty" => Box::new(faulty::Faulty::new(faulty::Flags::parse(args)?)),
        "script" => Box::new(script::Script::new(script::Options::parse(args)?)),
        _ => bail!("unknown engine {name:?} (known: {})", NAMES.join(", ")),
    })
}

/// The position a FEN describes, for the built-in engines' unit tests.
#[cfg(test)]
pub(crate) use crate::test_support::position;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name makes an engine that says `uciok` and answers a `go depth 1` from the start
    /// position with a legal move.
    #[test]
    fn every_name_creates_an_engine_that_plays_a_legal_move() {
        use shakmaty::{Chess, Position};
        use std::sync::atomic::AtomicBool;
        for name in NAMES {
            let mut engine = create(name, &[]).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(engine.on_uci(), "{name} says uciok");
            let mut limits = engine::Limits::new(std::time::Instant::now());
            limits.depth = Some(1);
            let (out, _) = Out::buffer();
            let reply = engine.go(&Default::default(), &limits, &AtomicBool::new(false), &out);
            // `script` sends its moves verbatim, as text.
            let legal = match &reply {
                engine::Reply::Move(Some(m)) => Chess::default().is_legal(*m),
                engine::Reply::Text(uci) => uci
                    .parse::<shakmaty::uci::UciMove>()
                    .is_ok_and(|m| m.to_move(&Chess::default()).is_ok()),
                _ => false,
            };
            assert!(legal, "{name}: {reply:?}");
        }
    }

    fn error(name: &str, args: &[&str]) -> String {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        match create(name, &args) {
            Ok(_) => panic!("{name} {args:?} should fail"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn bad_names_and_arguments_are_clear_errors() {
        assert_eq!(
            error("stockfish", &[]),
            "unknown engine \"stockfish\" (known: random, instant, greedy, minimax, faulty, script)"
        );
        let err = error("random", &["--seed", "3"]);
        assert!(err.starts_with("engine random takes no arguments"), "{err}");
        let err = error("faulty", &["--x"]);
        assert!(err.starts_with("faulty: unknown flag --x"), "{err}");
    }
}
