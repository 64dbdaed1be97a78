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
    // As engines print it, `bestmove MOVE` and an ASCII move ended by ASCII whitespace or the
    // line's end: found without a look at the rest of the line (the tokens are the same as
    // below's, which take over at the first byte this does not expect).
    if let Some(rest) = line.as_bytes().strip_prefix(b"bestmove ") {
        let end = rest
            .iter()
            .position(|&b| !b.is_ascii_graphic())
            .unwrap_or(rest.len());
        if end > 0
            && rest
                .get(end)
                .is_none_or(|&b| matches!(b, b'\t'..=b'\r' | b' '))
        {
            let start = "bestmove ".len();
            return Some(&line[start..start + end]);
        }
    }
    if !line.is_ascii() {
        return bestmove_tokens(line);
    }
    // ASCII text, as engines print: the same tokens found byte by byte (Unicode's whitespace
    // in ASCII is tab to carriage return, and space), a third of `split_whitespace`'s work a
    // move.
    let space = |b: u8| matches!(b, b'\t'..=b'\r' | b' ');
    let start = line.bytes().position(|b| !space(b))?;
    let rest = line[start..].strip_prefix("bestmove")?;
    if rest.bytes().next().is_some_and(|b| !space(b)) {
        return None;
    }
    let Some(skip) = rest.bytes().position(|b| !space(b)) else {
        return Some(&line[line.len()..]);
    };
    let mv = &rest[skip..];
    Some(&mv[..mv.bytes().position(space).unwrap_or(mv.len())])
}

/// [`parse_bestmove`] for any text.
fn bestmove_tokens(line: &str) -> Option<&str> {
    // Any Unicode whitespace separates tokens, as the referee's `trim` has it: a vertical tab
    // before the move is not part of the move.
    let mut tokens = line.split_whitespace();
    if tokens.next() != Some("bestmove") {
        return None;
    }
    // No move: the empty text at the line's end, so that the move is always a part of it.
    Some(tokens.next().unwrap_or(&line[line.len()..]))
}

/// The move a `bestmove` line says the engine would ponder on (`bestmove e2e4 ponder e7e5`:
/// `e7e5`), if it names one.
pub fn parse_ponder(line: &str) -> Option<&str> {
    let mut tokens = line.split_whitespace();
    if tokens.next() != Some("bestmove") {
        return None;
    }
    tokens.next()?;
    match (tokens.next(), tokens.next()) {
        (Some("ponder"), Some(mv)) if mv != "(none)" && mv != "0000" => Some(mv),
        _ => None,
    }
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

/// The score, depth, selective depth, nodes and nps of an `info` line; `None` if it has none of them or is not an
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
            "seldepth" => {
                if let Some(n) = tokens.next().and_then(|t| t.parse::<u32>().ok()) {
                    info.seldepth = Some(n);
                }
            }
            "nps" => {
                if let Some(n) = tokens.next().and_then(|t| t.parse::<u64>().ok()) {
                    info.nps = Some(n);
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

/// The most options an engine may declare before `uciok` (engines in use declare tens).
pub const MAX_OPTIONS: usize = 2000;
/// The most values one combo option may list.
pub const MAX_VARS: usize = 512;
/// The most bytes an engine may send before `uciok`, all lines together (each line is
/// already bounded by `MAX_LINE`).
pub const MAX_DECLARED_BYTES: usize = 2 << 20;

/// What an engine has declared so far in its handshake, held to the bounds above so that no
/// engine can make the arena hold more than a few megabytes of declarations.
#[derive(Debug, Default)]
pub struct Declarations {
    bytes: usize,
    options: usize,
}

impl Declarations {
    /// Counts one line before `uciok` (and the option it declares, if any); `Err` says which
    /// bound it passed.
    pub fn admit(&mut self, line: &str, option: Option<&UciOption>) -> Result<(), String> {
        self.bytes += line.len() + 1;
        if self.bytes > MAX_DECLARED_BYTES {
            return Err(format!(
                "it sent more than {} MB before uciok",
                MAX_DECLARED_BYTES >> 20
            ));
        }
        let Some(option) = option else {
            return Ok(());
        };
        self.options += 1;
        if self.options > MAX_OPTIONS {
            return Err(format!("it declared more than {MAX_OPTIONS} options"));
        }
        match &option.kind {
            OptionKind::Combo { vars } if vars.len() > MAX_VARS => Err(format!(
                "its option {:?} lists {} values, more than {MAX_VARS}",
                option.name.chars().take(40).collect::<String>(),
                vars.len()
            )),
            _ => Ok(()),
        }
    }
}

/// One UCI option an engine declared, for `blitz-arena check` and option validation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UciOption {
    pub name: String,
    /// `type default [min max] [vars]`, as a short human description.
    pub description: String,
    /// What values it takes.
    pub kind: OptionKind,
    /// What is wrong with the declaration, if anything (`check` warns of it).
    pub flaw: Option<OptionFlaw>,
}

/// A declaration the engine cannot stand by: a spin whose range is empty (no value can be
/// set), or whose default is not a whole number or is outside its range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionFlaw {
    /// `min` above `max`.
    EmptyRange { min: i64, max: i64 },
    /// A default as written that is not a whole number.
    DefaultNotNumber(String),
    /// A default outside `min`..`max`.
    DefaultOutside {
        default: i64,
        min: Option<i64>,
        max: Option<i64>,
    },
}

impl OptionFlaw {
    /// The flaw of a spin declared with `min`, `max` and the default as written, if any.
    fn of_spin(default: Option<&str>, min: Option<i64>, max: Option<i64>) -> Option<OptionFlaw> {
        if let (Some(min), Some(max)) = (min, max) {
            if min > max {
                return Some(OptionFlaw::EmptyRange { min, max });
            }
        }
        let default = default?;
        let Ok(value) = default.parse::<i64>() else {
            return Some(OptionFlaw::DefaultNotNumber(default.to_string()));
        };
        let outside = min.is_some_and(|min| value < min) || max.is_some_and(|max| value > max);
        outside.then_some(OptionFlaw::DefaultOutside {
            default: value,
            min,
            max,
        })
    }
}

impl std::fmt::Display for OptionFlaw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OptionFlaw::EmptyRange { min, max } => {
                write!(f, "the engine declares min {min} above max {max}")
            }
            OptionFlaw::DefaultNotNumber(default) => write!(
                f,
                "the engine declares default {default:?}, which is not a whole number"
            ),
            OptionFlaw::DefaultOutside { default, min, max } => {
                write!(f, "the engine declares default {default}, outside")?;
                if let Some(min) = min {
                    write!(f, " min {min}")?;
                }
                if let Some(max) = max {
                    write!(f, " max {max}")?;
                }
                Ok(())
            }
        }
    }
}

/// The type of a UCI option and the values it allows (UCI protocol, "option").
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OptionKind {
    /// `true` or `false`.
    Check,
    /// An integer from `min` to `max` (either may be missing from the declaration).
    Spin { min: Option<i64>, max: Option<i64> },
    /// One of the declared `var`s.
    Combo { vars: Vec<String> },
    /// Pressed by `setoption name NAME`, without a value.
    Button,
    /// Any text.
    String,
    /// A declaration the arena could not read: any value is sent as given.
    Unparsed,
}

impl UciOption {
    /// Checks a configured value against the option's declared type, min/max and vars;
    /// `Err` says what the option allows (`a whole number from 1 to 1024`).
    pub fn check_value(&self, value: &str) -> Result<(), String> {
        let ok = match &self.kind {
            OptionKind::Check => matches!(value, "true" | "false"),
            OptionKind::Spin { min, max } => value
                .trim()
                .parse::<i64>()
                .is_ok_and(|v| min.is_none_or(|min| v >= min) && max.is_none_or(|max| v <= max)),
            OptionKind::Combo { vars } => vars.iter().any(|var| var.eq_ignore_ascii_case(value)),
            // A button takes no value; `true` (press it) reads naturally in TOML.
            OptionKind::Button => matches!(value, "" | "true"),
            OptionKind::String | OptionKind::Unparsed => true,
        };
        if ok {
            Ok(())
        } else {
            Err(self.allowed())
        }
    }

    /// The `setoption` command that gives the option `value`, once [`Self::check_value`]
    /// accepts it.
    pub fn setoption(&self, value: &str) -> Result<String, String> {
        self.check_value(value)?;
        Ok(match &self.kind {
            OptionKind::Button => format!("setoption name {}\n", self.name),
            OptionKind::Spin { .. } => {
                format!("setoption name {} value {}\n", self.name, value.trim())
            }
            // The engine's own spelling of the var.
            OptionKind::Combo { vars } => {
                let var = vars.iter().find(|v| v.eq_ignore_ascii_case(value));
                format!(
                    "setoption name {} value {}\n",
                    self.name,
                    var.map_or(value, String::as_str)
                )
            }
            _ => format!("setoption name {} value {value}\n", self.name),
        })
    }

    /// What the option allows, in words.
    fn allowed(&self) -> String {
        match &self.kind {
            OptionKind::Check => "true or false".to_string(),
            OptionKind::Spin { min, max } => match (min, max) {
                (Some(min), Some(max)) => format!("a whole number from {min} to {max}"),
                (Some(min), None) => format!("a whole number from {min}"),
                (None, Some(max)) => format!("a whole number up to {max}"),
                (None, None) => "a whole number".to_string(),
            },
            OptionKind::Combo { vars } => format!("one of: {}", vars.join(", ")),
            OptionKind::Button => "no value (it is a button: give true to press it)".to_string(),
            OptionKind::String | OptionKind::Unparsed => "any text".to_string(),
        }
    }
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
        Some(config) => Some(describe(config, declared_default(line))),
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
                kind: OptionKind::Unparsed,
                flaw: None,
            })
        }
    }
}

/// The word after `default` in an option's declaration, as written: the parser drops a spin's
/// default that is not a number.
fn declared_default(line: &str) -> Option<&str> {
    let mut words = line
        .split_whitespace()
        .skip_while(|w| !w.eq_ignore_ascii_case("type"))
        .skip_while(|w| !w.eq_ignore_ascii_case("default"))
        .skip(1);
    words.next().filter(|w| {
        !["min", "max", "var"]
            .iter()
            .any(|k| w.eq_ignore_ascii_case(k))
    })
}

/// `config` as the arena holds it; `written` is its default as written.
fn describe(config: UciOptionConfig, written: Option<&str>) -> UciOption {
    let show = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    let mut flaw = None;
    let (name, description, kind) = match config {
        UciOptionConfig::Check { name, default } => (
            name,
            format!("check default {}", show(default.map(|d| d.to_string()))),
            OptionKind::Check,
        ),
        UciOptionConfig::Spin {
            name,
            default,
            min,
            max,
        } => {
            flaw = OptionFlaw::of_spin(written, min, max);
            (
                name,
                format!(
                    "spin default {} min {} max {}",
                    show(written.map(String::from).or(default.map(|d| d.to_string()))),
                    show(min.map(|d| d.to_string())),
                    show(max.map(|d| d.to_string()))
                ),
                OptionKind::Spin { min, max },
            )
        }
        UciOptionConfig::Combo { name, default, var } => (
            name,
            format!("combo default {} var {}", show(default), var.join(" / ")),
            OptionKind::Combo { vars: var },
        ),
        UciOptionConfig::Button { name } => (name, "button".to_string(), OptionKind::Button),
        UciOptionConfig::String { name, default } => (
            name,
            format!("string default {}", show(default)),
            OptionKind::String,
        ),
    };
    UciOption {
        name,
        description,
        kind,
        flaw,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte-by-byte reading of ASCII lines (and of `bestmove MOVE` in any line) finds what
    /// `split_whitespace` finds, at the same place in the line.
    #[test]
    fn ascii_bestmove_lines_are_read_as_any_text_is() {
        let parts = [
            "bestmove",
            "bestmoves",
            "e2e4",
            "ponder",
            " ",
            "\t",
            "\u{b}",
            "\u{c}",
            "\r",
            "\n",
            "\u{1c}",
            "\u{1f}",
            "x",
            // Not ASCII: a no-break space (whitespace) and a letter.
            "\u{a0}",
            "é",
            "",
        ];
        for a in parts {
            for b in parts {
                for c in parts {
                    for d in parts {
                        let line = [a, b, c, d].concat();
                        let (fast, any) = (parse_bestmove(&line), bestmove_tokens(&line));
                        assert_eq!(fast, any, "{line:?}");
                        assert_eq!(fast.map(str::as_ptr), any.map(str::as_ptr), "{line:?}");
                    }
                }
            }
        }
    }

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
    fn ponder_moves() {
        assert_eq!(parse_ponder("bestmove e2e4 ponder e7e5"), Some("e7e5"));
        assert_eq!(
            parse_ponder(" bestmove\u{b}e2e4  ponder  e7e5 "),
            Some("e7e5")
        );
        assert_eq!(parse_ponder("bestmove e2e4"), None);
        assert_eq!(parse_ponder("bestmove e2e4 ponder"), None);
        assert_eq!(parse_ponder("bestmove e2e4 ponder (none)"), None);
        assert_eq!(parse_ponder("bestmove e2e4 ponders e7e5"), None);
        assert_eq!(parse_ponder("info pv e2e4 ponder e7e5"), None);
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
        assert_eq!((info.depth, info.seldepth), (Some(12), Some(20)));
        assert_eq!((info.nodes, info.nps), (Some(5), Some(9)));
        // No seldepth, or one that is not a number: none recorded.
        assert_eq!(
            parse_info("info depth 5 score cp 1").unwrap().seldepth,
            None
        );
        let info = parse_info("info depth 5 seldepth x score cp 1").unwrap();
        assert_eq!((info.seldepth, info.score), (None, Some(Score::Cp(1))));
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

    fn option(line: &str) -> UciOption {
        parse_option(line).unwrap()
    }

    #[test]
    fn spin_values_are_integers_in_the_declared_range() {
        let hash = option("option name Hash type spin default 16 min 1 max 33554432");
        assert_eq!(hash.check_value("16"), Ok(()));
        assert_eq!(hash.check_value("1"), Ok(()));
        assert_eq!(hash.check_value("33554432"), Ok(()));
        let allowed = Err("a whole number from 1 to 33554432".to_string());
        assert_eq!(hash.check_value("lots"), allowed);
        assert_eq!(hash.check_value("99999999999"), allowed);
        assert_eq!(hash.check_value("0"), allowed);
        assert_eq!(hash.check_value("1.5"), allowed);
        assert_eq!(
            hash.setoption(" 64").unwrap(),
            "setoption name Hash value 64\n"
        );
        let threads = option("option name Threads type spin default 1 min 1 max 1024");
        assert!(threads.check_value("0").is_err());
    }

    #[test]
    fn check_combo_button_and_string_values() {
        let ponder = option("option name Ponder type check default false");
        assert_eq!(ponder.check_value("true"), Ok(()));
        assert_eq!(ponder.check_value("false"), Ok(()));
        assert_eq!(ponder.check_value("yes"), Err("true or false".to_string()));
        let combo = option(
            "option name King Safety Curve type combo default Quadratic var Quadratic var Linear",
        );
        assert_eq!(combo.check_value("Linear"), Ok(()));
        assert_eq!(
            combo.check_value("Cubic"),
            Err("one of: Quadratic, Linear".to_string())
        );
        // The engine's own spelling is sent.
        assert_eq!(
            combo.setoption("linear").unwrap(),
            "setoption name King Safety Curve value Linear\n"
        );
        let button = option("option name Clear Hash type button");
        assert_eq!(
            button.setoption("true").unwrap(),
            "setoption name Clear Hash\n"
        );
        assert!(button.check_value("42").is_err());
        let text = option("option name SyzygyPath type string default <empty>");
        assert_eq!(text.check_value("/tb/a b"), Ok(()));
        // An unreadable declaration does not stop a run: the value is sent as given.
        let weird = option("option name Weird Thing type colour default red");
        assert_eq!(weird.kind, OptionKind::Unparsed);
        assert_eq!(weird.check_value("anything"), Ok(()));
    }

    #[test]
    fn declarations_are_bounded_in_count_values_and_bytes() {
        let mut d = Declarations::default();
        let small = option("option name A type check default true");
        for _ in 0..MAX_OPTIONS {
            d.admit("option name A type check default true", Some(&small))
                .unwrap();
        }
        let e = d.admit("option name A type check default true", Some(&small));
        assert_eq!(
            e.unwrap_err(),
            format!("it declared more than {MAX_OPTIONS} options")
        );

        let vars: String = (0..=MAX_VARS).map(|v| format!(" var v{v}")).collect();
        let line = format!("option name C type combo default v0{vars}");
        let e = Declarations::default().admit(&line, Some(&option(&line)));
        assert!(e.unwrap_err().contains("more than 512"));

        let mut d = Declarations::default();
        let line = "info string ".to_string() + &"x".repeat(60_000);
        let sent = (0..100)
            .map(|_| d.admit(&line, None))
            .take_while(Result::is_ok)
            .count();
        assert_eq!(sent, MAX_DECLARED_BYTES / 60_013);
    }
}
