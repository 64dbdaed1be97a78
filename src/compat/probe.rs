//! UCI options an engine does not declare, or values it does not take: fastchess warns and
//! plays on without sending them (fishtest's worker reads the warning as an error of the run,
//! not of the worker), where blitz-arena's own commands stop before the first game. So before
//! a compat run each engine that is given options is started once, asked what it declares,
//! and its roster entry keeps only the options it takes.

use crate::cli::RunArgs;
use crate::engine::{Engine, Timeouts};

/// What is wrong with one configured option, as fastchess words it on stdout.
#[derive(Debug, PartialEq, Eq)]
pub enum Unset {
    /// `Warning; NAME doesn't have option OPTION`.
    Undeclared { engine: String, option: String },
    /// `Warning; Invalid value for option OPTION; VALUE`.
    BadValue { option: String, value: String },
}

impl Unset {
    /// The line fastchess prints (fastchess `uci_engine.cpp`, `sendSetoption`).
    pub fn line(&self) -> String {
        match self {
            Unset::Undeclared { engine, option } => {
                format!("Warning; {engine} doesn't have option {option}")
            }
            Unset::BadValue { option, value } => {
                format!("Warning; Invalid value for option {option}; {value}")
            }
        }
    }
}

/// Starts each engine that has options (without them), and drops from the roster every
/// option it does not declare or whose value it does not take. An engine that cannot start
/// is left as it is: the run's own check reports it.
pub async fn drop_unset_options(run: &mut RunArgs) -> Vec<Unset> {
    let Some(roster) = run.roster.as_mut() else {
        return Vec::new();
    };
    let mut unset = Vec::new();
    for config in roster.engines.values_mut() {
        if config.options.is_empty() {
            continue;
        }
        let mut bare = config.clone();
        bare.options.clear();
        bare.ponder = false;
        let Ok(engine) = Engine::start(&bare, Timeouts::default()).await else {
            continue;
        };
        config.options.retain(|(option, value)| {
            let declared = engine
                .options()
                .iter()
                .find(|o| o.name.eq_ignore_ascii_case(option));
            let fault = match declared {
                None => Some(Unset::Undeclared {
                    engine: config.name.clone(),
                    option: option.clone(),
                }),
                Some(known) if known.setoption(value).is_err() => Some(Unset::BadValue {
                    option: option.clone(),
                    value: value.clone(),
                }),
                Some(_) => None,
            };
            let keep = fault.is_none();
            unset.extend(fault);
            keep
        });
        engine.shutdown().await;
    }
    unset
}
