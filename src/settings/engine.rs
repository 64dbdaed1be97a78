//! How an engine is started and set up: one `[engines.NAME]` table of engines.toml, or one
//! `-engine` of a fastchess command line, once it has been read and checked.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::timecontrol::TimeControl;

/// The built-in engines `blitz-arena engine NAME` can run.
pub const BUILTIN_ENGINES: &[&str] =
    &["random", "instant", "greedy", "minimax", "faulty", "script"];

/// The name engine `name` is defined under: a run that plays one engine more than once names
/// its later copies `NAME#2`, `NAME#3`, ... (`app::run`'s players), and this is `NAME` for each.
pub fn defined_name(name: &str) -> &str {
    name.split('#').next().unwrap_or(name)
}

/// How an engine process is started.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Launch {
    /// An external program, run directly (never through a shell). `cmd` is absolute when it
    /// was written with a `/`; a bare name is looked up in `PATH` when it is started.
    Program { cmd: PathBuf, args: Vec<String> },
    /// The arena's own executable: `blitz-arena engine NAME ARGS...`.
    Builtin { name: String, args: Vec<String> },
}

/// One `[engines.NAME]` table, validated.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineConfig {
    pub name: String,
    pub launch: Launch,
    /// Working directory (absolute), `None` to inherit the arena's.
    pub dir: Option<PathBuf>,
    /// Extra environment variables, added to the arena's environment.
    pub env: BTreeMap<String, String>,
    /// UCI options to set after the handshake: (name, value as text; booleans as
    /// `true`/`false`), in the order the TOML file gives them.
    pub options: Vec<(String, String)>,
    /// This engine's own time control (time odds); `None` = the run's `tc`.
    pub tc: Option<TimeControl>,
    /// `ponder = true` (or `--ponder`): it ponders on the opponent's time (`go ponder`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ponder: bool,
}

impl EngineConfig {
    /// The built-in engine `name` under its own name, with nothing set: what a roster table
    /// holding only `builtin = "NAME"` gives.
    pub fn builtin(name: &str) -> EngineConfig {
        EngineConfig {
            name: name.to_string(),
            launch: Launch::Builtin {
                name: name.to_string(),
                args: Vec::new(),
            },
            dir: None,
            env: BTreeMap::new(),
            options: Vec::new(),
            tc: None,
            ponder: false,
        }
    }
}

/// Why `text`, a name that came from outside the arena (an engine's `name=` on the
/// command line, the `id name` it reports, a book's opening id), cannot be used: it holds a
/// control character, which would reach the console lines other tools parse (`Started game
/// N of M (A vs B)`), the PGN and the CSV files as it is. `what` says which name it is.
pub fn control_character(what: &str, text: &str) -> Result<(), String> {
    match text.chars().find(|c| c.is_control()) {
        Some(c) => Err(format!(
            "{what} {text:?} holds the control character {c:?}: a name is one line of text"
        )),
        None => Ok(()),
    }
}
