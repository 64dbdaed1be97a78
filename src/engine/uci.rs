//! UCI line parsing: `bestmove`, `id` and `info` by hand; `option` lines through vampirc-uci
//! behind a guard.
//!
//! vampirc-uci is unmaintained: it panics on `info depth 300`, truncates numbers past 12
//! digits, cannot read `bestmove (none)` or `0000`, and an unknown token (`wdl`) swallows the
//! rest of an info line. So only `option` lines go to vampirc, and every vampirc call runs
//! under `catch_unwind`: an engine's output never panics the arena.

use std::cell::Cell;
use std::panic::{self, AssertUnwindSafe};
use std::sync::Once;

use vampirc_uci::{UciMessage, UciOptionConfig};

use crate::event::{Score, SearchInfo};

/// The move text of a `bestmove` line (`e2e4`, `0000`, `(none)`, or whatever the engine sent),
/// or `None` if the line is not a `bestmove` line.
pub fn parse_bestmove(line: &str) -> Option<&str> {
    // Any Unicode whitespace separates tokens, as the referee's `trim` has it: a vertical tab
    // before the move is not part of the move.
    let mut tokens = line.split_whitespace();
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

/// The score, depth and nodes of an `info` line; `None` if it has none of them or is not an
/// info line. Read by hand: vampirc-uci truncates numbers past 12 digits (`nodes
/// 1000000000000` became 100000000000) and panics on a depth past 255. A number too large for
/// its field is dropped, a score is clamped to +-1,000,000 cp or mate in +-127; everything else
/// (`wdl`, `currmove`, junk) is skipped, and the pv or free text ends what is read.
pub fn parse_info(line: &str) -> Option<SearchInfo> {
    let mut tokens = line.split_ascii_whitespace();
    if tokens.next() != Some("info") {
        return None;
    }
    let mut info = SearchInfo::default();
    while let Some(token) = tokens.next() {
        match token {
            "depth" => {
                if let Some(n) = tokens.next().and_then(|t| t.parse::<u32>().ok()) {
                    info.depth = Some(n);
                }
            }
            "nodes" => {
                if let Some(n) = tokens.next().and_then(|t| t.parse::<u64>().ok()) {
                    info.nodes = Some(n);
                }
            }
            "score" => {
                let kind = tokens.next();
                let value = tokens.next().and_then(|t| t.parse::<i64>().ok());
                // Clamped so that `Score::as_cp` and its negation cannot overflow.
                let clamp = |v: i64, limit: i64| v.clamp(-limit, limit) as i32;
                match (kind, value) {
                    (Some("cp"), Some(v)) => info.score = Some(Score::Cp(clamp(v, 1_000_000))),
                    (Some("mate"), Some(v)) => info.score = Some(Score::Mate(clamp(v, 127))),
                    _ => {}
                }
            }
            // The pv and free text end what the arena reads of a line.
            "pv" | "string" => break,
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
        // Found by tests/fuzz: a vertical tab was kept as part of the move.
        assert_eq!(
            parse_bestmove("bestmove \u{b}e2e4\u{b}ponder"),
            Some("e2e4")
        );
        assert_eq!(parse_bestmove("\u{b}bestmove\u{a0}g8f6"), Some("g8f6"));
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
        // depth 300 overflows vampirc's u8; here it is read as sent.
        let info = parse_info("info depth 300 score cp 20 nodes 1000").unwrap();
        assert_eq!(
            (info.depth, info.score, info.nodes),
            (Some(300), Some(Score::Cp(20)), Some(1000))
        );
        // vampirc kept 12 digits of a number (found by tests/fuzz): nodes are read whole.
        let info = parse_info("info depth 30 nodes 1000000000000 pv e2e4").unwrap();
        assert_eq!(info.nodes, Some(1_000_000_000_000));
        // A number too large for its field is dropped, not wrapped; a score is clamped.
        let info =
            parse_info("info depth 4294967296 nodes 18446744073709551616 score cp -9999999999")
                .unwrap();
        assert_eq!(
            (info.depth, info.score, info.nodes),
            (None, Some(Score::Cp(-1_000_000)), None)
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
