//! The roster a command plays from: engines.toml (or `--engines FILE`), with the built-in
//! engines answering to their names whether it defines them or not, and in a folder that has
//! no roster at all.

use std::path::Path;

use super::UsageError;
use crate::config::{self, ConfigError, Places, Roster};
use crate::engine::EngineError;
use crate::settings::{EngineConfig, BUILTIN_ENGINES};

/// The roster read when no `--engines FILE` is given (the command line's default): the only
/// one that may be missing. A file the user named must be there.
pub(super) const DEFAULT: &str = "engines.toml";

/// Reads the roster `file` for the engines `names` (none: every engine it defines). A name the
/// roster does not define that is a built-in engine's plays as that engine. A missing
/// engines.toml matters only for a name it would define; the error then says how to name one.
pub fn load(file: &Path, names: &[String]) -> anyhow::Result<Roster> {
    let mut roster = match config::load_roster(file) {
        Ok(roster) => roster,
        Err(ConfigError::Read { path, error })
            if error.kind() == std::io::ErrorKind::NotFound && file == Path::new(DEFAULT) =>
        {
            if names.is_empty() {
                anyhow::bail!(
                    "{}: cannot read: {error}: name your roster with --engines FILE",
                    path.display()
                );
            }
            let builtin = |name: &&String| BUILTIN_ENGINES.contains(&name.as_str());
            if let Some(name) = names.iter().find(|name| !builtin(name)) {
                return Err(UsageError(format!(
                    "unknown engine `{name}`: {} not found here, and `{name}` is not built in ({}): name your roster with --engines FILE",
                    path.display(),
                    BUILTIN_ENGINES.join(", ")
                ))
                .into());
            }
            config::parse_roster("", file)?
        }
        Err(e) => return Err(e.into()),
    };
    for name in names {
        if BUILTIN_ENGINES.contains(&name.as_str()) && !roster.engines.contains_key(name) {
            roster
                .engines
                .insert(name.clone(), EngineConfig::builtin(name));
        }
    }
    Ok(roster)
}

/// An engine's mistake found when it is looked for or started, led by the place in the
/// roster's file of what it is about: the option, for an option the engine does not declare
/// or a value it does not take; the engine's table, for a `cmd` or `dir` that is not there.
/// Any other error is returned as it is.
pub fn placed(places: &Places, error: anyhow::Error) -> anyhow::Error {
    let place = if let Some(e) = error.downcast_ref::<EngineError>() {
        match e {
            EngineError::UnknownOption { name, option, .. }
            | EngineError::BadOptionValue { name, option, .. }
            | EngineError::NoValueFits { name, option, .. } => places.option(name, option),
            _ => None,
        }
    } else if let Some(ConfigError::Launch { engine, .. }) = error.downcast_ref() {
        places.table(engine)
    } else {
        None
    };
    match place {
        Some(place) => anyhow::anyhow!("{place}: {error}"),
        None => error,
    }
}
