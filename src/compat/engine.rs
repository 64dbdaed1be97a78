//! `-engine KEY=VALUE ...` and `-each KEY=VALUE ...`: one engine as fastchess and
//! cutechess-cli define it, and how it becomes an [`EngineConfig`] of an in-memory roster.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::tc;
use super::Warnings;
use crate::settings::limits;
use crate::settings::{EngineConfig, Launch};
use crate::timecontrol::TimeControl;

/// An engine as the command line describes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EngineSpec {
    pub name: Option<String>,
    pub cmd: Option<String>,
    pub dir: Option<String>,
    pub args: Vec<String>,
    pub options: Vec<(String, String)>,
    /// `tc=`: `Some(None)` is `tc=inf`.
    pub tc: Option<Option<TimeControl>>,
    /// `st=`: a fixed time per move.
    pub st: Option<TimeControl>,
    pub nodes: Option<u64>,
    pub depth: Option<u32>,
    pub timemargin: Option<u64>,
    /// cutechess-cli's bare `ponder` (or `ponder=true`): it ponders (`--ponder`).
    pub ponder: bool,
    /// cutechess-cli's `book=FILE`: a Polyglot book (the arena's is the run's: every engine
    /// must name the same).
    pub book: Option<String>,
    /// cutechess-cli's `bookdepth=N`, in full moves.
    pub bookdepth: Option<u32>,
}

/// What an engine key does: set a field, or be accepted with a warning.
type Setter = fn(&mut EngineSpec, &str) -> Result<(), String>;

/// The engine keys, one line each. `option.NAME=VALUE` (a UCI option) is handled before this
/// table; a key in neither is an error.
const KEYS: &[(&str, Setter)] = &[
    ("cmd", |e, v| set(&mut e.cmd, v)),
    ("name", |e, v| set(&mut e.name, v)),
    ("dir", |e, v| set(&mut e.dir, v)),
    ("args", |e, v| {
        e.args = v.split_whitespace().map(String::from).collect();
        Ok(())
    }),
    ("tc", |e, v| {
        e.tc = Some(tc::parse(v)?);
        Ok(())
    }),
    ("st", |e, v| {
        e.st = Some(tc::fixed_per_move(v)?);
        Ok(())
    }),
    ("nodes", |e, v| {
        e.nodes = Some(
            limits::NODES
                .parse(v)
                .map_err(|m| format!("nodes={v}: {m}"))?,
        );
        Ok(())
    }),
    ("depth", set_depth),
    ("plies", set_depth),
    ("ponder", |e, v| {
        e.ponder = match v {
            "true" => true,
            "false" => false,
            _ => {
                return Err(format!(
                    "ponder={v}: expected ponder, ponder=true or ponder=false"
                ))
            }
        };
        Ok(())
    }),
    ("book", |e, v| set(&mut e.book, v)),
    ("bookdepth", |e, v| {
        // cutechess counts full moves; the arena's --book-depth counts plies.
        let moves: u32 = v
            .parse()
            .ok()
            .filter(|m| (1..=limits::BOOK_DEPTH.max / 2).contains(m))
            .ok_or_else(|| {
                format!(
                    "bookdepth={v}: expected full moves, 1 to {}",
                    limits::BOOK_DEPTH.max / 2
                )
            })?;
        e.bookdepth = Some(moves);
        Ok(())
    }),
    ("timemargin", |e, v| {
        let ms = limits::TIME_MARGIN
            .parse(v)
            .map_err(|m| format!("timemargin={v}: {m}"))?;
        e.timemargin = Some(ms);
        Ok(())
    }),
    ("proto", |_, v| {
        if v == "uci" {
            Ok(())
        } else {
            Err(format!("proto={v}: only uci engines are supported"))
        }
    }),
    ("conf", |_, v| {
        Err(format!(
            "conf={v}: cutechess's engines.json is not read; give the engine with cmd=, or use \
             blitz-arena's engines.toml (blitz-arena gauntlet --help)"
        ))
    }),
];

/// Engine keys that are accepted with a warning: what the arena does instead.
pub const WARN_KEYS: &[(&str, &str)] = &[
    (
        "restart",
        "each engine process plays game after game; a crashed one is started anew",
    ),
    ("whitepov", "scores are read as UCI defines them"),
    ("trust", "every result is decided by the arena's referee"),
    ("stderr", "engines' stderr is not saved"),
    (
        "initstr",
        "not sent; set UCI options with option.NAME=VALUE",
    ),
];

fn set(field: &mut Option<String>, value: &str) -> Result<(), String> {
    *field = Some(value.to_string());
    Ok(())
}

fn set_depth(e: &mut EngineSpec, v: &str) -> Result<(), String> {
    e.depth = Some(
        limits::DEPTH
            .parse(v)
            .map_err(|m| format!("depth={v}: {m}"))?,
    );
    Ok(())
}

impl EngineSpec {
    /// Applies one `key=value` of `-engine` or `-each`.
    pub fn apply(&mut self, key: &str, value: &str, warnings: &mut Warnings) -> Result<(), String> {
        if let Some(option) = key.strip_prefix("option.") {
            match self.options.iter_mut().find(|(k, _)| k == option) {
                Some(slot) => slot.1 = value.to_string(),
                None => self.options.push((option.to_string(), value.to_string())),
            }
            return Ok(());
        }
        if let Some((_, setter)) = KEYS.iter().find(|(k, _)| *k == key) {
            return setter(self, value);
        }
        if let Some((_, instead)) = WARN_KEYS.iter().find(|(k, _)| *k == key) {
            warnings.add(format!("engine {key}={value}: ignored: {instead}"));
            return Ok(());
        }
        Err(format!("unknown engine key {key:?} (in {key}={value})"))
    }

    /// The engine's name: `name=`, else its command's file name without extension (as
    /// fastchess names it).
    pub fn display_name(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let cmd = self.cmd.as_deref().unwrap_or("engine");
        Path::new(cmd)
            .file_stem()
            .map_or_else(|| cmd.to_string(), |s| s.to_string_lossy().into_owned())
    }

    /// The roster entry. `cwd` anchors relative paths; `dir=` anchors `cmd=` as fastchess's
    /// `dir/cmd`. The time control is left to the caller (the run's, or this engine's own).
    pub fn to_config(&self, cwd: &Path) -> Result<EngineConfig, String> {
        let name = self.display_name();
        crate::settings::control_character("engine name", &name)?;
        let Some(cmd) = self.cmd.as_deref().filter(|c| !c.trim().is_empty()) else {
            return Err(format!(
                "engine {name}: no cmd= (give the engine's executable: -engine cmd=PATH name={name})"
            ));
        };
        let dir = self.dir.as_deref().map(|d| cwd.join(d));
        let cmd_path = PathBuf::from(cmd);
        let cmd_path = match &dir {
            Some(dir) => dir.join(&cmd_path),
            None if cmd_path.components().count() > 1 => cwd.join(&cmd_path),
            None => cmd_path,
        };
        Ok(EngineConfig {
            name,
            launch: Launch::Program {
                cmd: cmd_path,
                args: self.args.clone(),
            },
            dir,
            env: BTreeMap::new(),
            options: self.options.clone(),
            tc: None,
            ponder: self.ponder,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(pairs: &[(&str, &str)]) -> Result<EngineSpec, String> {
        let mut e = EngineSpec::default();
        let mut w = Warnings::default();
        for (k, v) in pairs {
            e.apply(k, v, &mut w)?;
        }
        Ok(e)
    }

    #[test]
    fn keys_fill_the_spec() {
        let e = spec(&[
            ("cmd", "./sf"),
            ("dir", "Engines/"),
            ("option.Hash", "16"),
            ("option.Hash", "32"),
            ("option.Threads", "1"),
            ("tc", "8+0.08"),
            ("proto", "uci"),
            ("plies", "7"),
        ])
        .unwrap();
        assert_eq!(e.display_name(), "sf");
        assert_eq!(
            e.options,
            [("Hash".into(), "32".into()), ("Threads".into(), "1".into())]
        );
        assert_eq!(e.depth, Some(7));
        let config = e.to_config(Path::new("/w")).unwrap();
        assert_eq!(config.dir, Some(PathBuf::from("/w/Engines/")));
        assert!(matches!(
            &config.launch,
            Launch::Program { cmd, .. } if cmd == Path::new("/w/Engines/./sf")
        ));
    }

    #[test]
    fn bad_keys_say_why() {
        assert!(spec(&[("st", "0.1")]).unwrap().st.unwrap().per_move);
        assert!(spec(&[("st", "0")]).unwrap_err().contains("above zero"));
        assert!(spec(&[("proto", "xboard")]).unwrap_err().contains("uci"));
        assert!(spec(&[("colour", "x")])
            .unwrap_err()
            .contains("unknown engine key"));
        let no_cmd = spec(&[("name", "a")])
            .unwrap()
            .to_config(Path::new("/"))
            .unwrap_err();
        assert!(no_cmd.contains("no cmd="), "{no_cmd}");
        let mut w = Warnings::default();
        EngineSpec::default()
            .apply("restart", "on", &mut w)
            .unwrap();
        assert_eq!(w.0.len(), 1);
    }
}
