//! engines.toml -> typed, validated config (README, "engines.toml").
//!
//! ```toml
//! [run]                 # optional: any run option, named as on the command line
//! tc = "3+2"
//! games = 10
//!
//! [engines.stockfish]
//! cmd = "/usr/games/stockfish"   # run directly, never through a shell
//! args = []
//! dir = "."                      # working directory, relative to this file's folder
//! env = { FOO = "1" }
//! options = { Hash = 16, Threads = 1 }
//! tc = "3+0"                     # time odds
//!
//! [engines.minimax]
//! builtin = "minimax"            # `blitz-arena engine minimax [args]`
//! ```
//!
//! Paths: `dir`, `[run] openings` and `[run] tb` are relative to the TOML file's folder. A `cmd` with a
//! `/` in it that is not absolute is relative to `dir` if set, else to the TOML file's folder;
//! both are made absolute here, so the spawner never depends on how its platform resolves a
//! relative program against `current_dir`. A bare `cmd` (no `/`) is looked up in `PATH` when
//! the engine starts, as `execvp` does. A leading `~/` in `cmd` and `dir` is the home folder.
//! `[run] out` and `resume` are left as written: relative to the working directory, like the
//! command-line flags.
//!
//! Every error is one line that names the file (and line:column when it is about one spot)
//! and says what to fix.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Deserializer};
use toml::Spanned;

use crate::report::Sprt;
use crate::rules::{DrawAdjudication, ResignAdjudication, Ruleset};
use crate::settings::limits::{self, Limit};
use crate::settings::{
    defined_name, ClaimDraws, EngineConfig, FlagNoticeAfter, IllegalNoticeAfter, Launch, MsRange,
    OpeningsOrder, Shard, BUILTIN_ENGINES,
};
use crate::tablebase::TbPaths;
use crate::timecontrol::TimeControl;
use crate::vocabulary::FlagMode;

/// Keys allowed at the top level of engines.toml.
const TOP_KEYS: &[&str] = &["run", "engines"];
/// Keys allowed in an `[engines.NAME]` table.
const ENGINE_KEYS: &[&str] = &[
    "cmd", "builtin", "args", "dir", "env", "options", "tc", "ponder",
];
/// Keys allowed in `[run]`: the fields of [`RunTable`] (a test keeps the two in step).
const RUN_KEYS: &[&str] = &[
    "tc",
    "games",
    "openings",
    "openings-order",
    "openings-start",
    "opening-plies",
    "book-depth",
    "variant",
    "concurrency",
    "ruleset",
    "seed",
    "out",
    "max-moves",
    "nodes",
    "depth",
    "draw-adjudication",
    "resign-adjudication",
    "tb",
    "tb-pieces",
    "ponder",
    "time-margin",
    "flag-notice-ms",
    "claim-ms",
    "illegal-notice",
    "flag-notice-after",
    "illegal-notice-after",
    "claim-draws",
    "inject-illegal",
    "illegal-kinds",
    "inject-flag",
    "inject-flag-mode",
    "flag-overshoot-ms",
    "flag-gap-ms",
    "sprt",
    "resume",
    "shard",
];

/// Why engines.toml could not be used. Every message is one line.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read: `engines.toml: cannot read: No such file or directory (os error 2)`.
    /// The I/O error is in the message and not a `source`, so `{:#}` does not repeat it.
    #[error("{}: cannot read: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A TOML syntax error, or a value of the wrong type: `engines.toml:12:5: run.games: ...`.
    #[error("{place}: {message}")]
    Toml { place: String, message: String },
    /// A key that is not allowed in its table.
    #[error("{place}: unknown key `{key}` in {table} (allowed: {}){hint}", allowed.join(", "))]
    UnknownKey {
        place: String,
        key: String,
        table: String,
        allowed: Vec<&'static str>,
        /// Empty, or a hint starting with `; `.
        hint: String,
    },
    /// A value that parsed but makes no sense (both `cmd` and `builtin`, a bad `tc`, ...).
    #[error("{place}: {message}")]
    Invalid { place: String, message: String },
    /// [`Roster::engine`] was asked for a name the roster does not define.
    #[error(
        "unknown engine `{name}`: {}{}",
        known_list(path, known),
        builtin_hint(name)
    )]
    UnknownEngine {
        name: String,
        path: PathBuf,
        known: Vec<String>,
    },
    /// [`check_launch`]: the engine's program or working directory is not usable.
    #[error("engine `{engine}`: {message}")]
    Launch { engine: String, message: String },
}

fn known_list(path: &Path, known: &[String]) -> String {
    if known.is_empty() {
        format!(
            "{} defines no engines (add an [engines.NAME] table)",
            path.display()
        )
    } else {
        format!("{} defines {}", path.display(), known.join(", "))
    }
}

fn builtin_hint(name: &str) -> String {
    if BUILTIN_ENGINES.contains(&name) {
        format!(" (for the built-in engine, add [engines.{name}] with builtin = \"{name}\")")
    } else {
        String::new()
    }
}

/// The whole of engines.toml.
#[derive(Clone, Debug, PartialEq)]
pub struct Roster {
    /// The file it was read from, as given (for messages).
    pub path: PathBuf,
    pub engines: BTreeMap<String, EngineConfig>,
    /// The `[run]` table (empty if absent); the command line wins over it, see
    /// [`RunTable::overlay`].
    pub run: RunTable,
    /// Where each engine's table and UCI options are written in the file.
    pub places: Places,
}

/// Where an engine's table and each of its UCI options are written in the roster's file, as
/// `file:line:column`: for the mistakes found only when the engine is looked for or started
/// (a `cmd` that is not there, an option it does not declare, a value it does not take), so
/// that they too name their line. Empty for a roster that is not a file (compat mode's).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Places {
    tables: BTreeMap<String, String>,
    /// By engine and option name in lowercase (UCI option names ignore case).
    options: BTreeMap<(String, String), String>,
}

impl Places {
    /// The place of engine `engine`'s table (a second copy, `name#2`, is the same table's).
    pub fn table(&self, engine: &str) -> Option<&str> {
        self.tables.get(defined_name(engine)).map(String::as_str)
    }

    /// The place of engine `engine`'s UCI option `option`.
    pub fn option(&self, engine: &str, option: &str) -> Option<&str> {
        let key = (
            defined_name(engine).to_string(),
            option.to_ascii_lowercase(),
        );
        self.options.get(&key).map(String::as_str)
    }
}

impl Roster {
    /// The engine called `name`; an unknown name is an error that lists the known ones.
    pub fn engine(&self, name: &str) -> Result<&EngineConfig, ConfigError> {
        self.engines
            .get(name)
            .ok_or_else(|| ConfigError::UnknownEngine {
                name: name.to_string(),
                path: self.path.clone(),
                known: self.engines.keys().cloned().collect(),
            })
    }
}

/// The `[run]` table: every run option, named as its command-line flag; `None` = not set
/// here. Values are checked as they are read, against the same ranges as the command line
/// ([`limits`]), so a bad one is reported with its `file:line:column`.
#[derive(Clone, Debug, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", expecting = "a table")]
pub struct RunTable {
    #[serde(default, deserialize_with = "de_parsed")]
    pub tc: Option<TimeControl>,
    #[serde(default, deserialize_with = "de_games")]
    pub games: Option<u32>,
    /// Relative to the TOML file's folder (made absolute by [`load_roster`]).
    #[serde(default)]
    pub openings: Option<PathBuf>,
    #[serde(default)]
    pub openings_order: Option<OpeningsOrder>,
    #[serde(default, deserialize_with = "de_openings_start")]
    pub openings_start: Option<u64>,
    #[serde(default, deserialize_with = "de_opening_plies")]
    pub opening_plies: Option<u32>,
    #[serde(default, deserialize_with = "de_book_depth")]
    pub book_depth: Option<u32>,
    #[serde(default)]
    pub variant: Option<crate::vocabulary::Variant>,
    #[serde(default, deserialize_with = "de_concurrency")]
    pub concurrency: Option<usize>,
    #[serde(default)]
    pub ruleset: Option<Ruleset>,
    /// An integer, or a string for seeds above 2^63 - 1 (TOML integers are signed 64-bit).
    #[serde(default, deserialize_with = "de_seed")]
    pub seed: Option<u64>,
    #[serde(default)]
    pub out: Option<PathBuf>,
    #[serde(default, deserialize_with = "de_max_moves")]
    pub max_moves: Option<u32>,
    #[serde(default, deserialize_with = "de_nodes")]
    pub nodes: Option<u64>,
    #[serde(default, deserialize_with = "de_depth")]
    pub depth: Option<u32>,
    /// Given as a string, `movenumber=40,movecount=8,score=10`.
    #[serde(default, deserialize_with = "de_draw_adjudication")]
    pub draw_adjudication: Option<DrawAdjudication>,
    /// Given as a string, `movecount=3,score=1000`.
    #[serde(default, deserialize_with = "de_resign_adjudication")]
    pub resign_adjudication: Option<ResignAdjudication>,
    /// `--tb`: folders separated by `:` or `;`, each relative to the TOML file's folder.
    #[serde(default, deserialize_with = "de_parsed")]
    pub tb: Option<TbPaths>,
    #[serde(default, deserialize_with = "de_tb_pieces")]
    pub tb_pieces: Option<usize>,
    /// `--ponder`: every engine ponders.
    #[serde(default)]
    pub ponder: Option<bool>,
    /// Milliseconds.
    #[serde(default, deserialize_with = "de_time_margin")]
    pub time_margin: Option<u64>,
    #[serde(default, deserialize_with = "de_flag_notice_ms")]
    pub flag_notice_ms: Option<f64>,
    #[serde(default, deserialize_with = "de_claim_ms")]
    pub claim_ms: Option<u64>,
    #[serde(default, deserialize_with = "de_illegal_notice")]
    pub illegal_notice: Option<f64>,
    /// `300`, `press`, `never` or `white=press,black=300`.
    #[serde(default, deserialize_with = "de_parsed")]
    pub flag_notice_after: Option<FlagNoticeAfter>,
    /// `0`, `2` or `never`, as a string.
    #[serde(default, deserialize_with = "de_parsed")]
    pub illegal_notice_after: Option<IllegalNoticeAfter>,
    #[serde(default)]
    pub claim_draws: Option<ClaimDraws>,
    #[serde(default, deserialize_with = "de_inject_illegal")]
    pub inject_illegal: Option<f64>,
    /// An array of strings, or one comma-separated string as on the command line.
    #[serde(default, deserialize_with = "de_list")]
    pub illegal_kinds: Option<Vec<String>>,
    #[serde(default, deserialize_with = "de_inject_flag")]
    pub inject_flag: Option<f64>,
    #[serde(default)]
    pub inject_flag_mode: Option<FlagMode>,
    /// A range of milliseconds, `0..500`.
    #[serde(default, deserialize_with = "de_ms_range")]
    pub flag_overshoot_ms: Option<MsRange>,
    /// `both`: the range of the time between the two flag falls, in ms.
    #[serde(default, deserialize_with = "de_ms_range")]
    pub flag_gap_ms: Option<MsRange>,
    /// `elo0=0,elo1=5,alpha=0.05,beta=0.05`.
    #[serde(default, deserialize_with = "de_parsed")]
    pub sprt: Option<Sprt>,
    #[serde(default)]
    pub resume: Option<PathBuf>,
    /// `K/N`.
    #[serde(default, deserialize_with = "de_shard")]
    pub shard: Option<Shard>,
}

impl RunTable {
    /// `self` (the TOML's `[run]`) with every option that `over` (the command line) sets
    /// replaced by `over`'s value.
    pub fn overlay(self, over: RunTable) -> RunTable {
        macro_rules! pick {
            ($($field:ident),* $(,)?) => {
                RunTable { $($field: over.$field.or(self.$field)),* }
            };
        }
        pick!(
            tc,
            games,
            openings,
            openings_order,
            openings_start,
            opening_plies,
            book_depth,
            variant,
            concurrency,
            ruleset,
            seed,
            out,
            max_moves,
            nodes,
            depth,
            draw_adjudication,
            resign_adjudication,
            tb,
            tb_pieces,
            ponder,
            time_margin,
            flag_notice_ms,
            claim_ms,
            illegal_notice,
            flag_notice_after,
            illegal_notice_after,
            claim_draws,
            inject_illegal,
            illegal_kinds,
            inject_flag,
            inject_flag_mode,
            flag_overshoot_ms,
            flag_gap_ms,
            sprt,
            resume,
            shard,
        )
    }
}

// ---- serde helpers for RunTable -------------------------------------------------------------

/// A string parsed with the type's `FromStr` (time controls, adjudication settings).
fn de_parsed<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    let s = String::deserialize(d)?;
    s.parse().map(Some).map_err(serde::de::Error::custom)
}

/// A string parsed and checked by a function of [`limits`] (`K/N`, `LOW..HIGH`, ...).
fn de_checked<'de, D, T>(d: D, parse: fn(&str) -> Result<T, String>) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
{
    let s = String::deserialize(d)?;
    parse(&s).map(Some).map_err(serde::de::Error::custom)
}

fn de_ms_range<'de, D: Deserializer<'de>>(d: D) -> Result<Option<MsRange>, D::Error> {
    de_checked(d, limits::ms_range)
}

fn de_shard<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Shard>, D::Error> {
    de_checked(d, limits::shard)
}

fn de_draw_adjudication<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<DrawAdjudication>, D::Error> {
    de_checked(d, limits::draw_adjudication)
}

fn de_resign_adjudication<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<ResignAdjudication>, D::Error> {
    de_checked(d, limits::resign_adjudication)
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Number {
    Int(i64),
    Float(f64),
}

/// A TOML number checked against the range its command-line flag has.
fn limited<'de, D, T>(d: D, limit: &Limit<T>) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Copy + PartialOrd + fmt::Display + FromStr,
{
    let text = match Number::deserialize(d) {
        Ok(Number::Int(n)) => n.to_string(),
        Ok(Number::Float(x)) => x.to_string(),
        Err(_) => {
            return Err(serde::de::Error::custom(format!(
                "expected a {} from {}",
                limit.noun,
                limit.range_text()
            )))
        }
    };
    limit
        .parse(&text)
        .map(Some)
        .map_err(serde::de::Error::custom)
}

macro_rules! de_limited {
    ($($name:ident: $ty:ty = $limit:path;)*) => {$(
        fn $name<'de, D: Deserializer<'de>>(d: D) -> Result<Option<$ty>, D::Error> {
            limited(d, &$limit)
        }
    )*};
}

de_limited! {
    de_games: u32 = limits::GAMES;
    de_concurrency: usize = limits::CONCURRENCY;
    de_openings_start: u64 = limits::OPENINGS_START;
    de_opening_plies: u32 = limits::OPENING_PLIES;
    de_book_depth: u32 = limits::BOOK_DEPTH;
    de_max_moves: u32 = limits::MAX_MOVES;
    de_tb_pieces: usize = limits::TB_PIECES;
    de_nodes: u64 = limits::NODES;
    de_depth: u32 = limits::DEPTH;
    de_time_margin: u64 = limits::TIME_MARGIN;
    de_flag_notice_ms: f64 = limits::FLAG_NOTICE_MS;
    de_claim_ms: u64 = limits::CLAIM_MS;
    de_illegal_notice: f64 = limits::ILLEGAL_NOTICE;
    de_inject_illegal: f64 = limits::INJECT_ILLEGAL;
    de_inject_flag: f64 = limits::INJECT_FLAG;
}

#[derive(Deserialize)]
#[serde(untagged)]
enum SeedValue {
    Int(u64),
    Text(String),
}

fn de_seed<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    match SeedValue::deserialize(d) {
        Ok(SeedValue::Int(n)) => Ok(Some(n)),
        Ok(SeedValue::Text(s)) => s.trim().parse().map(Some).map_err(|_| {
            serde::de::Error::custom(format!("seed {s:?} is not a number from 0 to 2^64-1"))
        }),
        Err(_) => Err(serde::de::Error::custom(
            "expected a seed: an integer from 0 to 2^64-1 (a string for values above 2^63-1)",
        )),
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum ListValue {
    List(Vec<String>),
    Text(String),
}

fn de_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    match ListValue::deserialize(d) {
        Ok(ListValue::List(v)) => Ok(Some(v)),
        Ok(ListValue::Text(s)) => Ok(Some(
            s.split(',')
                .map(str::trim)
                .filter(|k| !k.is_empty())
                .map(String::from)
                .collect(),
        )),
        Err(_) => Err(serde::de::Error::custom(
            "expected an array of strings or a comma-separated string",
        )),
    }
}

// ---- the raw file ---------------------------------------------------------------------------

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "a TOML document")]
struct RawFile {
    #[serde(default)]
    run: RunTable,
    #[serde(default)]
    engines: BTreeMap<Spanned<String>, Spanned<RawEngine>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, expecting = "an engine table")]
struct RawEngine {
    cmd: Option<Spanned<String>>,
    builtin: Option<Spanned<String>>,
    #[serde(default)]
    args: Vec<String>,
    dir: Option<Spanned<String>>,
    #[serde(default)]
    env: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    // toml's tables are sorted maps (the crate is built without `preserve_order`), so the
    // keys carry their spans and the TOML's order is restored by sorting on them.
    #[serde(default)]
    options: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    tc: Option<Spanned<String>>,
    #[serde(default)]
    ponder: bool,
}

/// Reads and validates engines.toml. Does not check that the engines' programs exist: see
/// [`check_launch`], for the engines a run needs.
pub fn load_roster(path: &Path) -> Result<Roster, ConfigError> {
    let text = crate::files::read_named_text(path).map_err(|error| ConfigError::Read {
        path: path.to_path_buf(),
        error,
    })?;
    parse_roster(&text, path)
}

/// [`load_roster`] on text already read; `path` names the file in messages and anchors its
/// relative paths.
pub fn parse_roster(text: &str, path: &Path) -> Result<Roster, ConfigError> {
    let raw: RawFile = toml::from_str(text).map_err(|e| toml_error(path, text, &e))?;
    let at = |span: std::ops::Range<usize>| place(path, text, span.start);

    // The folder relative paths are anchored to, made absolute so that nothing depends on
    // the working directory of whoever spawns the engine.
    let folder = path.parent().unwrap_or(Path::new(""));
    let folder = std::path::absolute(if folder.as_os_str().is_empty() {
        Path::new(".")
    } else {
        folder
    })
    .unwrap_or_else(|_| folder.to_path_buf());

    let mut run = raw.run;
    if let Some(openings) = run.openings.take() {
        run.openings = Some(anchor(&folder, &expand_home(&openings.to_string_lossy())));
    }
    if let Some(TbPaths(paths)) = run.tb.take() {
        let anchored = paths
            .iter()
            .map(|p| anchor(&folder, &expand_home(&p.to_string_lossy())))
            .collect();
        run.tb = Some(TbPaths(anchored));
    }

    let mut engines = BTreeMap::new();
    let mut places = Places::default();
    for (key, engine) in raw.engines {
        let name = key.get_ref().clone();
        check_engine_name(&name).map_err(|message| ConfigError::Invalid {
            place: at(key.span()),
            message,
        })?;
        let engine = engine.into_inner();
        for option in engine.options.keys() {
            let key = (name.clone(), option.get_ref().to_ascii_lowercase());
            places.options.insert(key, at(option.span()));
        }
        places.tables.insert(name.clone(), at(key.span()));
        let config = engine_config(name.clone(), key.span(), engine, &folder, &at)?;
        engines.insert(name, config);
    }

    Ok(Roster {
        path: path.to_path_buf(),
        engines,
        run,
        places,
    })
}

fn check_engine_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("empty engine name: name it with letters, digits, '-', '_' or '.'".into());
    }
    if let Some(bad) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')))
    {
        return Err(format!(
            "bad engine name {name:?}: {bad:?} is not allowed (use letters, digits, '-', '_', '.')"
        ));
    }
    Ok(())
}

fn engine_config(
    name: String,
    name_span: std::ops::Range<usize>,
    raw: RawEngine,
    folder: &Path,
    at: &dyn Fn(std::ops::Range<usize>) -> String,
) -> Result<EngineConfig, ConfigError> {
    let invalid = |span: std::ops::Range<usize>, message: String| ConfigError::Invalid {
        place: at(span),
        message: format!("engine `{name}`: {message}"),
    };

    let dir = raw.dir.map(|d| anchor(folder, &expand_home(d.get_ref())));

    let launch = launch(
        raw.cmd,
        raw.builtin,
        raw.args,
        dir.as_deref(),
        folder,
        name_span,
        &invalid,
    )?;
    let env = environment(raw.env, &invalid)?;
    let uci_options = uci_options(raw.options, &invalid)?;
    let tc = match raw.tc {
        None => None,
        Some(tc) => Some(
            tc.get_ref()
                .parse::<TimeControl>()
                .map_err(|e| invalid(tc.span(), e.to_string()))?,
        ),
    };

    Ok(EngineConfig {
        name,
        launch,
        dir,
        env,
        options: uci_options,
        tc,
        ponder: raw.ponder,
    })
}

/// Why an engine's table is refused, at a span of the file.
type Invalid<'a> = &'a dyn Fn(std::ops::Range<usize>, String) -> ConfigError;

/// How the engine starts: its `cmd` (anchored to `dir`, else the file's folder, when it has a
/// `/`) or its `builtin`, exactly one of them.
fn launch(
    cmd: Option<Spanned<String>>,
    builtin: Option<Spanned<String>>,
    args: Vec<String>,
    dir: Option<&Path>,
    folder: &Path,
    name_span: std::ops::Range<usize>,
    invalid: Invalid,
) -> Result<Launch, ConfigError> {
    match (cmd, builtin) {
        (Some(_), Some(builtin)) => Err(invalid(
            builtin.span(),
            "has both `cmd` and `builtin`; keep one".into(),
        )),
        (None, None) => Err(invalid(
            name_span,
            format!(
                "needs `cmd` (a program to run) or `builtin` (one of: {})",
                BUILTIN_ENGINES.join(", ")
            ),
        )),
        (Some(cmd), None) => {
            let text = cmd.get_ref().trim();
            if text.is_empty() {
                return Err(invalid(
                    cmd.span(),
                    "`cmd` is empty; give the engine's executable".into(),
                ));
            }
            let cmd_path = expand_home(cmd.get_ref());
            let cmd_path = if cmd_path.components().count() > 1 || cmd_path.is_absolute() {
                anchor(dir.unwrap_or(folder), &cmd_path)
            } else {
                cmd_path
            };
            Ok(Launch::Program {
                cmd: cmd_path,
                args,
            })
        }
        (None, Some(builtin)) => {
            let b = builtin.get_ref();
            if !BUILTIN_ENGINES.contains(&b.as_str()) {
                return Err(invalid(
                    builtin.span(),
                    format!(
                        "unknown builtin {b:?} (known: {})",
                        BUILTIN_ENGINES.join(", ")
                    ),
                ));
            }
            Ok(Launch::Builtin {
                name: b.clone(),
                args,
            })
        }
    }
}

/// The `env` table: names without `=` or NUL, scalar values without NUL.
fn environment(
    raw: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    invalid: Invalid,
) -> Result<BTreeMap<String, String>, ConfigError> {
    let mut env = BTreeMap::new();
    for (key, value) in raw {
        let k = key.get_ref();
        if k.is_empty() || k.contains(['=', '\0']) {
            return Err(invalid(
                key.span(),
                format!("bad environment variable name {k:?}"),
            ));
        }
        let v = scalar_text(value.get_ref()).ok_or_else(|| {
            invalid(
                value.span(),
                format!("env `{k}` must be a string, number or boolean"),
            )
        })?;
        if v.contains('\0') {
            return Err(invalid(
                value.span(),
                format!("env `{k}` contains a NUL byte"),
            ));
        }
        env.insert(k.clone(), v);
    }
    Ok(env)
}

/// The `options` table in the file's order: names given once (UCI option names ignore case),
/// scalar values on one line.
fn uci_options(
    raw: BTreeMap<Spanned<String>, Spanned<toml::Value>>,
    invalid: Invalid,
) -> Result<Vec<(String, String)>, ConfigError> {
    let mut options: Vec<(Spanned<String>, Spanned<toml::Value>)> = raw.into_iter().collect();
    options.sort_by_key(|(k, _)| k.span().start);
    let mut uci_options: Vec<(String, String)> = Vec::with_capacity(options.len());
    for (key, value) in options {
        let k = key.get_ref();
        if k.trim().is_empty() || k.contains(['\n', '\r']) {
            return Err(invalid(key.span(), format!("bad UCI option name {k:?}")));
        }
        if let Some((earlier, _)) = uci_options.iter().find(|(o, _)| o.eq_ignore_ascii_case(k)) {
            return Err(invalid(
                key.span(),
                format!(
                    "option `{k}` is given twice (as `{earlier}`; UCI option names ignore case)"
                ),
            ));
        }
        let v = scalar_text(value.get_ref()).ok_or_else(|| {
            invalid(
                value.span(),
                format!("option `{k}` must be a string, number or boolean"),
            )
        })?;
        if v.contains(['\n', '\r']) {
            return Err(invalid(
                value.span(),
                format!("option `{k}`: a value cannot contain a line break"),
            ));
        }
        uci_options.push((k.clone(), v));
    }
    Ok(uci_options)
}

/// A UCI option or environment value as text; `None` for arrays, tables and datetimes.
fn scalar_text(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `~/x` -> `$HOME/x`; anything else unchanged.
fn expand_home(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => Path::new(&home).join(rest),
        _ => PathBuf::from(p),
    }
}

/// `p` anchored at `base` when relative, made absolute (`.` components dropped).
fn anchor(base: &Path, p: &Path) -> PathBuf {
    let joined = base.join(p);
    std::path::absolute(&joined).unwrap_or(joined)
}

/// `path:line:column` (1-based; the column counts characters) for a byte offset.
fn place(path: &Path, text: &str, offset: usize) -> String {
    let offset = offset.min(text.len());
    let before = &text[..floor_char_boundary(text, offset)];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() + 1;
    format!("{}:{line}:{column}", path.display())
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A toml/serde error as one line: where, which key, what.
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let place = match e.span() {
        Some(span) => place(path, text, span.start),
        None => path.display().to_string(),
    };
    let mut message = one_line(e.message()).replace("expected a map", "expected a table");
    if message == "duplicate key" {
        if let Some(key) = e.span().and_then(|span| text.get(span)) {
            message = format!("duplicate key `{key}` (give each key and table once)");
        }
    }
    let keys = key_path(e);

    if let Some(key) = message
        .strip_prefix("unknown field `")
        .and_then(|rest| rest.split('`').next())
    {
        let (table, allowed) = match keys.first().map(String::as_str) {
            None => ("the top level".to_string(), TOP_KEYS),
            Some("run") => ("[run]".to_string(), RUN_KEYS),
            Some(_) => (format!("[{}]", keys.join(".")), ENGINE_KEYS),
        };
        // `[engines.sf-16.1]` is engine `sf-16` with a sub-table `1`: say how to quote it.
        let in_header = e.span().is_some_and(|span| {
            let start = text[..floor_char_boundary(text, span.start.min(text.len()))]
                .rfind('\n')
                .map_or(0, |i| i + 1);
            text[start..].trim_start().starts_with('[')
        });
        let hint = if allowed == ENGINE_KEYS && in_header {
            format!(
                "; an engine name with a `.` must be quoted: [engines.\"{}.{key}\"]",
                keys[1..].join(".")
            )
        } else {
            String::new()
        };
        return ConfigError::UnknownKey {
            place,
            key: key.to_string(),
            table,
            allowed: allowed.to_vec(),
            hint,
        };
    }
    let message = if keys.is_empty() {
        message
    } else {
        format!("{}: {message}", keys.join("."))
    };
    ConfigError::Toml { place, message }
}

/// The dotted key path of the table or value an error is about. toml keeps it private and
/// prints it (`in \`run.games\``) only when it has no source text to quote, so it is read back
/// from that rendering.
fn key_path(e: &toml::de::Error) -> Vec<String> {
    let mut bare = e.clone();
    bare.set_input(None);
    bare.to_string()
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix("in `").and_then(|r| r.strip_suffix('`')))
        .map(|p| p.split('.').map(String::from).collect())
        .unwrap_or_default()
}

fn one_line(s: &str) -> String {
    s.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("; ")
}

// ---- check_launch ---------------------------------------------------------------------------

/// Checks that an engine can be started: its working directory exists, and its program
/// exists and is executable. A bare `cmd` (no `/`) is searched in `PATH` (the engine's own
/// `env.PATH` if it sets one, else the arena's), like `execvp`; a `cmd` with a `/` was made
/// absolute by [`load_roster`] (relative to `dir`, else to the TOML file's folder) and is
/// checked as is. Built-in engines only need a known name.
pub fn check_launch(engine: &EngineConfig) -> Result<(), ConfigError> {
    let fail = |message: String| ConfigError::Launch {
        engine: engine.name.clone(),
        message,
    };
    if let Some(dir) = &engine.dir {
        if !dir.is_dir() {
            return Err(fail(format!(
                "working directory {} does not exist or is not a folder (fix `dir`)",
                dir.display()
            )));
        }
    }
    match &engine.launch {
        Launch::Builtin { name, .. } => {
            if BUILTIN_ENGINES.contains(&name.as_str()) {
                Ok(())
            } else {
                Err(fail(format!(
                    "unknown builtin {name:?} (known: {})",
                    BUILTIN_ENGINES.join(", ")
                )))
            }
        }
        Launch::Program { cmd, .. } => {
            let shell_hint = if cmd.to_string_lossy().contains(char::is_whitespace) {
                " (it is run without a shell: put arguments in `args`)"
            } else {
                ""
            };
            if cmd.as_os_str().is_empty() {
                return Err(fail("`cmd` is empty".into()));
            }
            if cmd.components().count() > 1 || cmd.is_absolute() {
                return match program_status(cmd) {
                    Status::Runnable => Ok(()),
                    Status::Missing => Err(fail(format!(
                        "{} not found (fix `cmd`){shell_hint}",
                        cmd.display()
                    ))),
                    Status::NotFile => {
                        Err(fail(format!("{} is not a file (fix `cmd`)", cmd.display())))
                    }
                    Status::NotExecutable => Err(fail(format!(
                        "{} is not executable (chmod +x it)",
                        cmd.display()
                    ))),
                };
            }
            let search = engine
                .env
                .get("PATH")
                .map(std::ffi::OsString::from)
                .or_else(|| std::env::var_os("PATH"))
                .unwrap_or_default();
            let mut not_executable = None;
            for folder in std::env::split_paths(&search) {
                let folder = if folder.as_os_str().is_empty() {
                    PathBuf::from(".")
                } else {
                    folder
                };
                let candidate = folder.join(cmd);
                match program_status(&candidate) {
                    Status::Runnable => return Ok(()),
                    Status::NotExecutable => {
                        not_executable.get_or_insert(candidate);
                    }
                    Status::Missing | Status::NotFile => {}
                }
            }
            match not_executable {
                Some(found) => Err(fail(format!(
                    "{} is not executable (chmod +x it)",
                    found.display()
                ))),
                None => Err(fail(format!(
                    "command `{}` not found in PATH (give its full path in `cmd`){shell_hint}",
                    cmd.display()
                ))),
            }
        }
    }
}

enum Status {
    Runnable,
    Missing,
    NotFile,
    NotExecutable,
}

fn program_status(p: &Path) -> Status {
    match std::fs::metadata(p) {
        Err(_) => Status::Missing,
        Ok(m) if !m.is_file() => Status::NotFile,
        Ok(m) => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                if m.permissions().mode() & 0o111 == 0 {
                    return Status::NotExecutable;
                }
            }
            #[cfg(not(unix))]
            let _ = m;
            Status::Runnable
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::NoticeAt;
    use std::time::Duration;

    /// The roster remembers where each engine's table and options are written, for the
    /// mistakes found only when the engine starts; a second copy (`x#2`) is the same table.
    #[test]
    fn places_name_the_table_and_each_option() {
        let text = "[engines.x]\nbuiltin = \"random\"\noptions = { Hash = 1, Seed = 2 }\n";
        let roster = parse_roster(text, Path::new("e.toml")).unwrap();
        let places = &roster.places;
        assert_eq!(places.table("x"), Some("e.toml:1:10"));
        assert_eq!(places.table("x#2"), Some("e.toml:1:10"));
        assert_eq!(places.option("x", "hash"), Some("e.toml:3:13"));
        assert_eq!(places.option("x#2", "SEED"), Some("e.toml:3:23"));
        assert_eq!(places.option("x", "Threads"), None);
        assert_eq!(places.table("y"), None);
    }

    fn parse(text: &str) -> Result<Roster, ConfigError> {
        parse_roster(text, Path::new("/cfg/engines.toml"))
    }

    fn err(text: &str) -> String {
        let e = parse(text).expect_err("should fail").to_string();
        assert!(!e.contains('\n'), "not one line: {e}");
        e
    }

    #[test]
    fn design_example() {
        let r = parse(
            r#"
[engines.stockfish]
cmd = "/usr/games/stockfish"   # run directly, never through a shell
args = []
dir = "."
options = { Hash = 16, Threads = 1 }
# tc = "3+0"                   # time odds

[engines.minimax]
builtin = "minimax"             # the arena's own executable, `blitz-arena engine minimax`
"#,
        )
        .unwrap();
        assert_eq!(r.run, RunTable::default());
        let sf = r.engine("stockfish").unwrap();
        assert_eq!(
            sf.launch,
            Launch::Program {
                cmd: "/usr/games/stockfish".into(),
                args: vec![]
            }
        );
        assert_eq!(sf.dir.as_deref(), Some(Path::new("/cfg")));
        assert_eq!(
            sf.options,
            vec![("Hash".into(), "16".into()), ("Threads".into(), "1".into())]
        );
        assert_eq!(sf.tc, None);
        let mm = r.engine("minimax").unwrap();
        assert_eq!(
            mm.launch,
            Launch::Builtin {
                name: "minimax".into(),
                args: vec![]
            }
        );
        assert_eq!(mm.dir, None);
    }

    #[test]
    fn full_example() {
        let r = parse(
            r#"
[run]
tc = "3+2"
games = 10
concurrency = 2
openings = "books/8moves.epd"
openings-order = "sequential"
ruleset = "uscf"
seed = "18446744073709551615"
draw-adjudication = "movenumber=40,movecount=8,score=10"
illegal-notice = 1
claim-draws = "never"
illegal-kinds = "a, b"
inject-flag-mode = "at-mate"
flag-overshoot-ms = "0..500"
shard = "1/3"

[engines."sf-16.1"]
cmd = "bin/stockfish"
args = ["--foo"]
dir = "engines"
env = { FOO = "1", N = 2 }
options = { Threads = 1, Hash = 16, "Skill Level" = 3, Ponder = false, Ratio = 0.5, Path = "x y" }
tc = "3+0"

[engines.faulty]
builtin = "faulty"
args = ["--crash-after", "5"]
"#,
        )
        .unwrap();
        let run = &r.run;
        assert_eq!(run.tc, Some("3+2".parse().unwrap()));
        assert_eq!(run.games, Some(10));
        assert_eq!(run.concurrency, Some(2));
        assert_eq!(
            run.openings.as_deref(),
            Some(Path::new("/cfg/books/8moves.epd"))
        );
        assert_eq!(run.openings_order, Some(OpeningsOrder::Sequential));
        assert_eq!(run.ruleset, Some(Ruleset::Uscf));
        assert_eq!(run.seed, Some(u64::MAX));
        assert_eq!(run.draw_adjudication.unwrap().movecount, 8);
        assert_eq!(run.illegal_notice, Some(1.0));
        assert_eq!(run.claim_draws, Some(ClaimDraws::Never));
        assert_eq!(run.illegal_kinds, Some(vec!["a".into(), "b".into()]));
        assert_eq!(run.inject_flag_mode, Some(FlagMode::AtMate));
        assert_eq!(run.flag_overshoot_ms, Some(MsRange { low: 0, high: 500 }));
        assert_eq!(run.shard, Some(Shard { index: 1, count: 3 }));

        let sf = r.engine("sf-16.1").unwrap();
        assert_eq!(
            sf.launch,
            Launch::Program {
                cmd: "/cfg/engines/bin/stockfish".into(),
                args: vec!["--foo".into()]
            }
        );
        assert_eq!(sf.dir.as_deref(), Some(Path::new("/cfg/engines")));
        assert_eq!(sf.env.get("N").map(String::as_str), Some("2"));
        // The TOML's order, not sorted.
        let names: Vec<&str> = sf.options.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            names,
            ["Threads", "Hash", "Skill Level", "Ponder", "Ratio", "Path"]
        );
        assert_eq!(sf.options[3].1, "false");
        assert_eq!(sf.options[4].1, "0.5");
        assert_eq!(sf.tc.unwrap().base, Duration::from_secs(180));
        assert!(matches!(
            &r.engine("faulty").unwrap().launch,
            Launch::Builtin { name, args } if name == "faulty" && args.len() == 2
        ));
    }

    #[test]
    fn integer_seed_and_list_kinds() {
        let r = parse("[run]\nseed = 42\nillegal-kinds = [\"a\", \"b\"]\nflag-notice-ms = 2\n")
            .unwrap();
        assert_eq!(r.run.seed, Some(42));
        assert_eq!(r.run.illegal_kinds, Some(vec!["a".into(), "b".into()]));
        assert_eq!(r.run.flag_notice_ms, Some(2.0));
    }

    #[test]
    fn relative_toml_path_gives_absolute_paths() {
        let r = parse_roster(
            "[engines.a]\ncmd = \"./a\"\n[engines.b]\ncmd = \"b\"\n",
            Path::new("engines.toml"),
        )
        .unwrap();
        let Launch::Program { cmd, .. } = &r.engine("a").unwrap().launch else {
            panic!()
        };
        assert!(cmd.is_absolute() && cmd.ends_with("a"), "{cmd:?}");
        // A bare name stays bare, for the PATH search.
        let Launch::Program { cmd, .. } = &r.engine("b").unwrap().launch else {
            panic!()
        };
        assert_eq!(cmd, Path::new("b"));
    }

    #[test]
    fn syntax_and_type_errors_have_line_and_column() {
        let e = err("[run]\ngames = 10\ntc = \n");
        assert!(e.starts_with("/cfg/engines.toml:3:"), "{e}");
        let e = err("[run]\n\ngames = \"ten\"\n");
        assert!(e.starts_with("/cfg/engines.toml:3:9: run.games: "), "{e}");
        let e = err("[run]\ntc = \"5 minutes\"\n");
        assert!(e.contains("2:6: run.tc: bad time control"), "{e}");
        let e = err("[run]\ninject-flag = 1.5\n");
        assert!(
            e.contains("run.inject-flag: 1.5 is out of range: give a probability from 0 to 1"),
            "{e}"
        );
        let e = err("[run]\nconcurrency = 0\n");
        assert!(
            e.contains("run.concurrency: 0 is out of range: give a number from 1 to 1024"),
            "{e}"
        );
        let e = err("[run]\nruleset = \"lichess\"\n");
        assert!(e.contains("2:11: run.ruleset: unknown variant"), "{e}");
        let e = err("[run]\ndraw-adjudication = \"movenumber=x\"\n");
        assert!(
            e.contains("run.draw-adjudication: bad --draw-adjudication"),
            "{e}"
        );
        let e = err("[engines.a]\nbuiltin = \"random\"\nargs = [1]\n");
        assert!(e.contains(":3:"), "{e}");
    }

    #[test]
    fn unknown_keys() {
        let e = err("[run]\ngames = 2\ngame = 3\n");
        assert!(
            e.starts_with(
                "/cfg/engines.toml:3:1: unknown key `game` in [run] (allowed: tc, games,"
            ),
            "{e}"
        );
        // Every [run] key is listed, the last one added too.
        assert!(e.contains("flag-overshoot-ms, flag-gap-ms, sprt"), "{e}");
        let e = err("[engines.sf]\ncmd = \"sf\"\noption = {}\n");
        assert!(
            e.starts_with("/cfg/engines.toml:3:1: unknown key `option` in [engines.sf] (allowed: cmd, builtin, args, dir, env, options, tc, ponder)"),
            "{e}"
        );
        let e = err("[engines.sf-16.1]\ncmd = \"sf\"\n");
        assert!(
            e.ends_with("; an engine name with a `.` must be quoted: [engines.\"sf-16.1\"]"),
            "{e}"
        );
        let e = err("[engine.sf]\ncmd = \"sf\"\n");
        assert!(
            e.contains("unknown key `engine` in the top level (allowed: run, engines)"),
            "{e}"
        );
    }

    #[test]
    fn ponder_is_read_per_engine_and_off_by_default() {
        let text = "[engines.a]\nbuiltin = \"minimax\"\nponder = true\n[engines.b]\nbuiltin = \"minimax\"\n[run]\nponder = true\n";
        let roster = parse_roster(text, Path::new("/cfg/engines.toml")).expect("a roster");
        assert!(roster.engines["a"].ponder);
        assert!(!roster.engines["b"].ponder);
        assert_eq!(roster.run.ponder, Some(true));
        let e = err("[engines.a]\nbuiltin = \"minimax\"\nponder = \"yes\"\n");
        assert!(e.contains("3:10"), "{e}");
    }

    #[test]
    fn run_keys_match_run_table() {
        for key in RUN_KEYS {
            let e = err(&format!("[run]\n{key} = {{}}\n"));
            assert!(!e.contains("unknown key"), "{key}: {e}");
        }
        assert!(err("[run]\nengines = \"x\"\n").contains("unknown key"));
    }

    #[test]
    fn bad_engines() {
        let e = err("[engines.a]\ncmd = \"x\"\nbuiltin = \"random\"\n");
        assert_eq!(
            e,
            "/cfg/engines.toml:3:11: engine `a`: has both `cmd` and `builtin`; keep one"
        );
        let e = err("[engines.a]\nargs = []\n");
        assert!(e.contains("1:10: engine `a`: needs `cmd`"), "{e}");
        let e = err("[engines.a]\ncmd = \" \"\n");
        assert!(e.contains("2:7: engine `a`: `cmd` is empty"), "{e}");
        let e = err("[engines.a]\nbuiltin = \"stockfish\"\n");
        assert!(
            e.contains("unknown builtin \"stockfish\" (known: random, instant"),
            "{e}"
        );
        let e = err("[engines.a]\nbuiltin = \"random\"\ntc = \"fast\"\n");
        assert!(
            e.contains("3:6: engine `a`: bad time control \"fast\""),
            "{e}"
        );
        let e = err("[engines.\"my engine\"]\nbuiltin = \"random\"\n");
        assert!(e.contains("1:10: bad engine name \"my engine\""), "{e}");
        let e = err("[engines.\"\"]\nbuiltin = \"random\"\n");
        assert!(e.contains("empty engine name"), "{e}");
        let e = err("[engines.a]\nbuiltin = \"random\"\noptions = { Hash = [1] }\n");
        assert!(e.contains("3:20: engine `a`: option `Hash` must be"), "{e}");
        let e = err("[engines.a]\nbuiltin = \"random\"\noptions = { Hash = 1, hash = 2 }\n");
        assert!(e.contains("given twice"), "{e}");
        let e = err("[engines.a]\nbuiltin = \"random\"\noptions = { X = \"a\\nquit\" }\n");
        assert!(e.contains("line break"), "{e}");
    }

    #[test]
    fn unknown_engine_lists_known() {
        let r = parse("[engines.b]\nbuiltin = \"random\"\n[engines.a]\nbuiltin = \"greedy\"\n")
            .unwrap();
        let e = r.engine("c").unwrap_err().to_string();
        assert_eq!(e, "unknown engine `c`: /cfg/engines.toml defines a, b");
        let e = r.engine("minimax").unwrap_err().to_string();
        assert!(e.contains("builtin = \"minimax\""), "{e}");
        let e = parse("").unwrap().engine("x").unwrap_err().to_string();
        assert!(e.contains("defines no engines"), "{e}");
    }

    #[test]
    fn missing_file() {
        let e = load_roster(Path::new("/nonexistent/engines.toml"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "/nonexistent/engines.toml: cannot read: No such file or directory (os error 2)"
        );
    }

    #[test]
    fn exact_watcher_timings_read_from_the_run_table() {
        let r = parse("[run]\nflag-notice-after = \"white=press\"\nillegal-notice-after = \"2\"\n")
            .unwrap();
        assert_eq!(r.run.flag_notice_after.unwrap().white, NoticeAt::Press);
        assert_eq!(
            r.run.illegal_notice_after,
            Some(IllegalNoticeAfter::Plies(2))
        );
    }

    #[test]
    fn overlay_prefers_the_command_line() {
        let toml = RunTable {
            games: Some(10),
            tc: Some(TimeControl::G5),
            ..RunTable::default()
        };
        let cli = RunTable {
            games: Some(4),
            seed: Some(7),
            ..RunTable::default()
        };
        let merged = toml.overlay(cli);
        assert_eq!(merged.games, Some(4));
        assert_eq!(merged.seed, Some(7));
        assert_eq!(merged.tc, Some(TimeControl::G5));
    }

    #[cfg(unix)]
    #[test]
    fn check_launch_finds_programs() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("blitz-arena-cfg-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("engine.sh");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let plain = dir.join("plain.txt");
        std::fs::write(&plain, "").unwrap();
        std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o644)).unwrap();

        let toml = format!(
            "[engines.abs]\ncmd = {exe:?}\n\
             [engines.rel]\ncmd = \"./engine.sh\"\n\
             [engines.path]\ncmd = \"engine.sh\"\nenv = {{ PATH = {dir:?} }}\n\
             [engines.nopath]\ncmd = \"engine.sh\"\nenv = {{ PATH = \"/nonexistent\" }}\n\
             [engines.plain]\ncmd = \"./plain.txt\"\n\
             [engines.missing]\ncmd = \"./nope --fast\"\n\
             [engines.nodir]\ncmd = \"./engine.sh\"\ndir = \"nodir\"\n\
             [engines.b]\nbuiltin = \"random\"\n"
        );
        let r = parse_roster(&toml, &dir.join("engines.toml")).unwrap();
        let check = |n: &str| check_launch(r.engine(n).unwrap()).map_err(|e| e.to_string());
        assert_eq!(check("abs"), Ok(()));
        assert_eq!(check("rel"), Ok(()));
        assert_eq!(check("path"), Ok(()));
        assert_eq!(check("b"), Ok(()));
        let e = check("nopath").unwrap_err();
        assert!(e.contains("command `engine.sh` not found in PATH"), "{e}");
        let e = check("plain").unwrap_err();
        assert!(
            e.ends_with("plain.txt is not executable (chmod +x it)"),
            "{e}"
        );
        let e = check("missing").unwrap_err();
        assert!(
            e.contains("not found (fix `cmd`) (it is run without a shell"),
            "{e}"
        );
        let e = check("nodir").unwrap_err();
        assert!(e.contains("working directory"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
