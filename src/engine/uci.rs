//! UCI line parsing: `bestmove` and `id` by hand; `info` and `option` lines through
//! vampirc-uci behind a guard.
//!
//! vampirc-uci is unmaintained: it panics on `info depth 300`, cannot read `bestmove (none)` or
//! `0000`, and an unknown token (`wdl`) swallows the rest of an info line. So `bestmove` is
//! parsed here, `info` lines are rebuilt from the tokens the arena knows before vampirc sees
//! them, and every vampirc call runs under `catch_unwind`: an engine's output never panics the
//! arena.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use vampirc_uci::{UciInfoAttribute, UciMessage, UciOptionConfig};

use crate::event::{Score, SearchInfo};

/// The move text of a `bestmove` line (`e2e4`, `0000`, `(none)`, or whatever the engine sent),
/// or `None` if the line is not a `bestmove` line.
pub fn parse_bestmove(line: &str) -> Option<&str> {
    let mut tokens = line.split_ascii_whitespace();
    if tokens.next() != Some("bestmove") {
        return None;
    }
    Some(tokens.next().unwrap_or(""))
}

/// `id name ...` / `id author ...`.
pub fn parse_id(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim().strip_prefix("id ")?.trim_start();
    let (key, value) = rest.split_once(char::is_whitespace)?;
    matches!(key, "name" | "author").then(|| (key, value.trim()))
}

thread_local! {
    static GUARDED: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (a vampirc call) so that a panic inside it becomes `None`, without printing a
/// panic message for it.
fn guarded<T>(f: impl FnOnce() -> T) -> Option<T> {
    static QUIET_HOOK: Once = Once::new();
    QUIET_HOOK.call_once(|| {
        let default = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            if !GUARDED.with(Cell::get) {
                default(info);
            }
        }));
    });
    GUARDED.with(|g| g.set(true));
    let result = panic::catch_unwind(AssertUnwindSafe(f)).ok();
    GUARDED.with(|g| g.set(false));
    result
}

/// Rebuilds an `info` line from the three things the arena reads (depth, score, nodes), with
/// values in the ranges vampirc-uci accepts. Everything else (`wdl`, `string`, `currmove`, the
/// pv, junk) is dropped: vampirc's parser costs about 120,000 instructions on a line with a
/// long pv, and on this short line a small fraction of that.
fn sanitize_info(line: &str) -> Option<String> {
    let mut tokens = line.split_ascii_whitespace().peekable();
    if tokens.next() != Some("info") {
        return None;
    }
    let mut out = String::from("info");
    let number = |t: Option<&str>, max: i64| {
        t.and_then(|t| t.parse::<i64>().ok())
            .filter(|n| (0..=max).contains(n))
    };
    while let Some(token) = tokens.next() {
        match token {
            "depth" => {
                if let Some(n) = number(tokens.next(), 255) {
                    out.push_str(&format!(" depth {n}"));
                }
            }
            "nodes" => {
                if let Some(n) = number(tokens.next(), i64::MAX) {
                    out.push_str(&format!(" nodes {n}"));
                }
            }
            "score" => {
                let kind = tokens.next();
                let value = tokens.next().and_then(|t| t.parse::<i64>().ok());
                match (kind, value) {
                    (Some("cp"), Some(v)) => {
                        out.push_str(&format!(" score cp {}", v.clamp(-1_000_000, 1_000_000)));
                    }
                    (Some("mate"), Some(v)) => {
                        out.push_str(&format!(" score mate {}", v.clamp(-127, 127)));
                    }
                    _ => {}
                }
            }
            // The pv and free text end what the arena reads of a line.
            "pv" | "string" => break,
            _ => {}
        }
    }
    Some(out)
}

/// The score, depth and nodes of an `info` line; `None` if it has none of them or is not an
/// info line.
pub fn parse_info(line: &str) -> Option<SearchInfo> {
    let clean = sanitize_info(line)?;
    let message = guarded(|| vampirc_uci::parse_one(&clean))?;
    let UciMessage::Info(attributes) = message else {
        return None;
    };
    let mut info = SearchInfo::default();
    for attribute in attributes {
        match attribute {
            UciInfoAttribute::Depth(d) => info.depth = Some(u32::from(d)),
            UciInfoAttribute::Nodes(n) => info.nodes = Some(n),
            UciInfoAttribute::Score { cp: Some(cp), .. } => info.score = Some(Score::Cp(cp)),
            UciInfoAttribute::Score { mate: Some(m), .. } => {
                info.score = Some(Score::Mate(i32::from(m)))
            }
            _ => {}
        }
    }
    (info != SearchInfo::default()).then_some(info)
}

/// One UCI option an engine declared, for `blitz-arena check` and option validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciOption {
    pub name: String,
    /// `type default [min max] [vars]`, as a short human description.
    pub description: String,
}

/// Parses an `option name ... type ...` line.
pub fn parse_option(line: &str) -> Option<UciOption> {
    if !line.trim_start().starts_with("option ") {
        return None;
    }
    let parsed = guarded(|| vampirc_uci::parse_one(line)).and_then(|m| match m {
        UciMessage::Option(config) => Some(config),
        _ => None,
    });
    match parsed {
        Some(config) => Some(describe(config)),
        // vampirc could not read it: take the name by hand so the option can still be set.
        None => {
            let rest = line
                .trim_start()
                .strip_prefix("option")?
                .trim_start()
                .strip_prefix("name")?;
            let name = rest.split(" type ").next()?.trim();
            (!name.is_empty()).then(|| UciOption {
                name: name.to_string(),
                description: "(unparsed)".to_string(),
            })
        }
    }
}

fn describe(config: UciOptionConfig) -> UciOption {
    let show = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    let (name, description) = match config {
        UciOptionConfig::Check { name, default } => (
            name,
            format!("check default {}", show(default.map(|d| d.to_string()))),
        ),
        UciOptionConfig::Spin {
            name,
            default,
            min,
            max,
        } => (
            name,
            format!(
                "spin default {} min {} max {}",
                show(default.map(|d| d.to_string())),
                show(min.map(|d| d.to_string())),
                show(max.map(|d| d.to_string()))
            ),
        ),
        UciOptionConfig::Combo { name, default, var } => (
            name,
            format!("combo default {} var {}", show(default), var.join(" / ")),
        ),
        UciOptionConfig::Button { name } => (name, "button".to_string()),
        UciOptionConfig::String { name, default } => {
            (name, format!("string default {}", show(default)))
        }
    };
    UciOption { name, description }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bestmove_variants() {
        assert_eq!(parse_bestmove("bestmove e2e4 ponder e7e5"), Some("e2e4"));
        assert_eq!(parse_bestmove("bestmove (none)"), Some("(none)"));
        assert_eq!(parse_bestmove("bestmove 0000"), Some("0000"));
        assert_eq!(parse_bestmove("bestmove"), Some(""));
        assert_eq!(parse_bestmove("  bestmove   a7a8q  "), Some("a7a8q"));
        assert_eq!(parse_bestmove("info depth 1"), None);
        assert_eq!(parse_bestmove("bestmoves e2e4"), None);
    }

    #[test]
    fn id_lines() {
        assert_eq!(
            parse_id("id name Stockfish 15.1"),
            Some(("name", "Stockfish 15.1"))
        );
        assert_eq!(
            parse_id("id author the Stockfish developers"),
            Some(("author", "the Stockfish developers"))
        );
        assert_eq!(parse_id("id foo bar"), None);
    }

    #[test]
    fn info_lines_that_break_vampirc_do_not_panic() {
        // depth 300 overflows vampirc's u8: the depth is dropped, the rest survives.
        let info = parse_info("info depth 300 score cp 20 nodes 1000").unwrap();
        assert_eq!(
            (info.depth, info.score, info.nodes),
            (None, Some(Score::Cp(20)), Some(1000))
        );
        // An unknown token (wdl) does not swallow the rest of the line.
        let info =
            parse_info("info depth 5 score cp 10 wdl 500 400 100 nodes 100 pv e2e4").unwrap();
        assert_eq!(
            (info.depth, info.score, info.nodes),
            (Some(5), Some(Score::Cp(10)), Some(100))
        );
        let info = parse_info("info depth 12 seldepth 20 multipv 1 score mate -3 upperbound nodes 5 nps 9 time 3 pv e2e4 zzz").unwrap();
        assert_eq!(info.score, Some(Score::Mate(-3)));
        assert_eq!(parse_info("info string hello depth 5"), None);
        assert_eq!(parse_info("garbage"), None);
        assert_eq!(parse_info("info depth x score cp"), None);
        assert_eq!(
            parse_info("info score mate 999").unwrap().score,
            Some(Score::Mate(127))
        );
    }

    #[test]
    fn option_lines() {
        let o = parse_option("option name Hash type spin default 16 min 1 max 33554432").unwrap();
        assert_eq!(o.name, "Hash");
        assert_eq!(o.description, "spin default 16 min 1 max 33554432");
        let o = parse_option("option name Clear Hash type button").unwrap();
        assert_eq!(o.name, "Clear Hash");
        let o =
            parse_option("option name UCI_Variant type combo default chess var chess var atomic")
                .unwrap();
        assert!(o.description.starts_with("combo default chess"));
        // Malformed: the name is still recovered.
        let o = parse_option("option name Weird Thing type spin default x").unwrap();
        assert_eq!(o.name, "Weird Thing");
        assert_eq!(parse_option("optional"), None);
    }
}
