//! Every fastchess / cutechess-cli option and what it maps to: one line each in [`OPTIONS`]
//! (mapped to blitz-arena's run options) or [`IGNORED`] (accepted with a one-line warning that
//! says what the arena does instead). docs/fastchess.md's table
//! lists the same; `tests/compat_cli.rs` checks that every name here is in it.

use std::path::{Path, PathBuf};

use super::grammar::Given;
use super::Builder;
use crate::report::compat_console::OutputFormat;
use crate::report::pgnout::{Extra, Notation};
use crate::settings::limits;
use crate::settings::OpeningsOrder;
use crate::tournament::Format;
use crate::vocabulary::Variant;

/// How an option is read into the run.
pub type Handler = fn(&mut Builder, &Given) -> Result<(), String>;

/// The options that change the run. An option in none of the three tables is an error (exit 2).
pub const OPTIONS: &[(&str, Handler)] = &[
    ("engine", |b, g| b.engine(g)),
    ("each", |b, g| {
        b.each.push(g.clone());
        Ok(())
    }),
    ("games", |b, g| {
        b.games = Some(count(g)?);
        Ok(())
    }),
    ("rounds", |b, g| {
        b.rounds = Some(count(g)?);
        Ok(())
    }),
    ("repeat", |b, g| {
        // fastchess: `-repeat N` sets -games N, a bare `-repeat` -games 2. cutechess-cli:
        // each opening is played twice, which the arena always does.
        if b.tool == super::Tool::Fastchess {
            b.games = Some(match g.params.as_slice() {
                [n] if n.bytes().all(|c| c.is_ascii_digit()) => count(g)?,
                _ => 2,
            });
        }
        Ok(())
    }),
    ("concurrency", |b, g| {
        b.run.concurrency = Some(
            limits::CONCURRENCY
                .parse(g.single()?)
                .map_err(|m| at(g, m))?,
        );
        Ok(())
    }),
    ("srand", |b, g| {
        b.run.seed = Some(limits::SEED.parse(g.single()?).map_err(|m| at(g, m))?);
        Ok(())
    }),
    ("openings", |b, g| b.openings(g)),
    ("pgnout", |b, g| b.pgnout(g)),
    ("epdout", |b, g| b.epdout(g)),
    ("sprt", |b, g| b.sprt(g)),
    ("draw", |b, g| {
        let text = joined(g)?;
        b.run.draw_adjudication = Some(limits::draw_adjudication(&text).map_err(|m| at(g, m))?);
        Ok(())
    }),
    ("resign", |b, g| {
        let text = joined(g)?;
        b.run.resign_adjudication = Some(limits::resign_adjudication(&text).map_err(|m| at(g, m))?);
        Ok(())
    }),
    ("maxmoves", |b, g| {
        b.run.max_moves = Some(limits::MAX_MOVES.parse(g.single()?).map_err(|m| at(g, m))?);
        Ok(())
    }),
    ("tb", |b, g| {
        b.run.tb = Some(g.single()?.parse().map_err(|m| at(g, m))?);
        Ok(())
    }),
    ("tbpieces", |b, g| {
        b.run.tb_pieces = Some(limits::TB_PIECES.parse(g.single()?).map_err(|m| at(g, m))?);
        Ok(())
    }),
    ("tbadjudicate", |b, g| {
        match g.single()? {
            "BOTH" => {}
            "WIN_LOSS" | "DRAW" => b.warnings.add(format!(
                "{} {}: ignored: the tables adjudicate wins, losses and draws alike (BOTH)",
                g.spelled, g.params[0]
            )),
            other => return Err(at(g, format!("{other:?}: expected WIN_LOSS, DRAW or BOTH"))),
        }
        Ok(())
    }),
    ("ratinginterval", |b, g| {
        b.run.rating_interval = Some(count0(g)?);
        Ok(())
    }),
    ("scoreinterval", |b, g| {
        // fastchess: 0 is never (only the final line).
        b.run.score_interval = Some(match count0(g)? {
            0 => u32::MAX,
            n => n,
        });
        Ok(())
    }),
    ("check-mate-pvs", |b, g| {
        // fastchess: each scored info line's PV is checked, a mate score's to the mate.
        g.none()?;
        b.run.check_mate_pvs = true;
        Ok(())
    }),
    ("output", |b, g| {
        for (key, value) in g.pairs()? {
            match (key, value) {
                ("format", "fastchess") => b.run.output_format = OutputFormat::Fastchess,
                ("format", "cutechess") => b.run.output_format = OutputFormat::Cutechess,
                _ => {
                    return Err(at(
                        g,
                        format!("{key}={value}: expected format=fastchess|cutechess"),
                    ))
                }
            }
        }
        Ok(())
    }),
    ("variant", |b, g| match g.single()? {
        "standard" => Ok(()),
        "fischerandom" => {
            b.run.variant = Some(Variant::Chess960);
            Ok(())
        }
        other => Err(at(
            g,
            format!("{other:?}: expected standard or fischerandom"),
        )),
    }),
    ("tournament", |b, g| {
        b.format = Some(match g.single()? {
            "gauntlet" => Format::Gauntlet,
            "roundrobin" | "round-robin" => Format::RoundRobin,
            other => return Err(at(g, format!("{other:?}: expected gauntlet or roundrobin"))),
        });
        Ok(())
    }),
    ("report", |b, g| {
        for (key, value) in g.pairs()? {
            match (key, value) {
                ("penta", "true") => b.run.trinomial = false,
                // The results block without Ptnml, and the SPRT on games, as with -games 1.
                ("penta", "false") => b.run.trinomial = true,
                _ => {
                    return Err(at(
                        g,
                        format!("{key}={value}: expected penta=true or penta=false"),
                    ))
                }
            }
        }
        Ok(())
    }),
    // fastchess joins the words of `-event` and `-site` without spaces; one quoted argument is
    // the usual spelling.
    ("event", |b, g| {
        b.run.pgn_event = Some(g.params.concat());
        Ok(())
    }),
    ("site", |b, g| {
        b.run.pgn_site = Some(g.params.concat());
        Ok(())
    }),
    ("crc32", |b, g| {
        for (key, value) in g.pairs()? {
            match (key, value) {
                ("pgn", "true") => b.run.pgnout_crc = true,
                ("pgn", "false") => b.run.pgnout_crc = false,
                _ => return Err(at(g, format!("{key}={value}: expected pgn=true|false"))),
            }
        }
        Ok(())
    }),
    // blitz-arena's own options, given in the same grammar (`-ruleset fide`, `-out DIR`).
    ("ruleset", |b, g| {
        b.run.ruleset = Some(g.single()?.parse().map_err(|m| at(g, m))?);
        Ok(())
    }),
    ("out", |b, g| {
        b.run.out = Some(PathBuf::from(g.single()?));
        Ok(())
    }),
    ("config", |b, g| b.config(g)),
    ("quick", |b, g| b.quick(g)),
    ("log", |_, g| {
        Err(at(
            g,
            "no log is written here; keep the run's record with -out DIR (DIR/events.jsonl has \
             every move, clock and fault of every game), and check an engine's UCI handshake \
             with --compliance CMD"
                .to_string(),
        ))
    }),
    ("debug", |_, g| {
        Err(at(
            g,
            "not supported (fastchess refuses it too); every game's events are in the results folder's events.jsonl"
                .to_string(),
        ))
    }),
];

/// Options of [`OPTIONS`] that are always refused, with one line saying what to give instead.
pub const REFUSED: &[&str] = &["log", "debug"];

/// Options accepted with a one-line warning: (name, what the arena does instead).
pub const IGNORED: &[(&str, &str)] = &[
    (
        "recover",
        "always on: a crashed engine loses its game and is started anew for the next",
    ),
    (
        "testEnv",
        "nothing to do: the arena's output is the same everywhere",
    ),
    (
        "autosaveinterval",
        "no config.json is written; with -out DIR every game is saved in DIR as it ends (continue with blitz-arena gauntlet --resume DIR)",
    ),
    ("wait", "the next game starts at once"),
    (
        "show-latency",
        "latency is not printed; the arena measures its own overhead (stderr)",
    ),
    ("use-affinity", "engines are not pinned to CPUs"),
    ("force-concurrency", "the concurrency is never refused"),
    ("strict", "engines' info lines are not checked"),
    (
        "noswap",
        "each opening is played twice with colours swapped",
    ),
    ("reverse", "the first engine plays white first"),
    ("seeds", "a gauntlet has one engine under test (the first)"),
    ("tbignore50", "a cursed win is a draw (the 50-move rule)"),
    ("startup-ms", "an engine has 10 s to say uciok"),
    ("ucinewgame-ms", "an engine has 10 s to answer isready"),
    ("ping-ms", "an engine has 10 s to answer isready"),
    (
        "bookmode",
        "books are read from disk once, before the first game",
    ),
    ("outcomeinterval", "not printed"),
    ("resultformat", "fixed"),
    (
        "bergerschedule",
        "the round robin plays every pairing in order",
    ),
    ("pgnin", "not read"),
];

fn at(g: &Given, message: String) -> String {
    format!("{} {}: {message}", g.spelled, g.params.join(" "))
}

/// A count of games or rounds, 1 and up: at most the games of one pairing, which their
/// product (`games_per_pairing`) is held to as well.
fn count(g: &Given) -> Result<u32, String> {
    let v = g.single()?;
    let max = limits::GAMES.max;
    match v.parse::<u32>() {
        Ok(n) if (1..=max).contains(&n) => Ok(n),
        _ if above(v, max) => Err(at(g, format!("{v} is too large: at most {max}"))),
        _ => Err(at(g, format!("{v:?} is not a count (1 or more)"))),
    }
}

/// An interval, 0 and up.
fn count0(g: &Given) -> Result<u32, String> {
    let v = g.single()?;
    v.parse::<u32>().map_err(|_| {
        if above(v, u32::MAX) {
            at(g, format!("{v} is too large: at most {}", u32::MAX))
        } else {
            at(g, format!("{v:?} is not a number (0 or more)"))
        }
    })
}

/// Whether `v` is a whole number (digits only) above `max`, however many digits it has.
fn above(v: &str, max: u32) -> bool {
    !v.is_empty()
        && v.bytes().all(|c| c.is_ascii_digit())
        && v.parse::<u128>().ok().is_none_or(|n| n > u128::from(max))
}

/// `key=value key=value` as blitz-arena's `key=value,key=value`.
fn joined(g: &Given) -> Result<String, String> {
    Ok(g.pairs()?
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(","))
}

/// An option as if written on the command line (`-quick` and `-config` expand to these).
pub(super) fn given(name: &str, params: &[String]) -> Given {
    Given {
        name: name.to_string(),
        spelled: format!("-{name}"),
        params: params.to_vec(),
    }
}

impl Builder {
    /// fastchess's `-quick cmd=A cmd=B book=FILE`: A against B at 10+0.1, the book in random
    /// order, 25000 rounds of 2 games, a game per core but two, draws adjudicated at move 30
    /// after 8 moves within 8 cp, and cutechess's lines (fastchess `parseQuick`).
    fn quick(&mut self, g: &Given) -> Result<(), String> {
        let (mut cmds, mut book) = (Vec::new(), None);
        for (key, value) in g.pairs()? {
            match key {
                "cmd" => cmds.push(value),
                "book" => book = Some(value),
                _ => return Err(at(g, format!("unknown key {key}={value}"))),
            }
        }
        let [a, b] = cmds[..] else {
            return Err(at(g, "give exactly two cmd= entries".to_string()));
        };
        let book = book.ok_or_else(|| at(g, "give the book with book=FILE".to_string()))?;
        let format = match Path::new(book).extension().and_then(|e| e.to_str()) {
            Some("pgn") => "pgn",
            Some("epd") => "epd",
            _ => return Err(at(g, format!("book={book}: name a .pgn or .epd file"))),
        };
        let (name_a, name_b) = if a == b {
            (format!("{a}1"), format!("{b}2"))
        } else {
            (a.to_string(), b.to_string())
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let s = |v: &[&str]| v.iter().map(|p| p.to_string()).collect::<Vec<_>>();
        for option in [
            given(
                "engine",
                &[
                    format!("cmd={a}"),
                    format!("name={name_a}"),
                    "tc=10+0.1".into(),
                ],
            ),
            given(
                "engine",
                &[
                    format!("cmd={b}"),
                    format!("name={name_b}"),
                    "tc=10+0.1".into(),
                ],
            ),
            given(
                "openings",
                &[
                    format!("file={book}"),
                    format!("format={format}"),
                    "order=random".into(),
                ],
            ),
            given("games", &s(&["2"])),
            given("rounds", &s(&["25000"])),
            given("concurrency", &[cores.saturating_sub(2).max(1).to_string()]),
            given("draw", &s(&["movenumber=30", "movecount=8", "score=8"])),
            given("output", &s(&["format=cutechess"])),
        ] {
            self.apply(&option)
                .map_err(|e| format!("{}: {e}", g.spelled))?;
        }
        Ok(())
    }

    fn openings(&mut self, g: &Given) -> Result<(), String> {
        let (mut pgn, mut plies) = (None, None);
        for (key, value) in g.pairs()? {
            match key {
                "file" => {
                    let path = PathBuf::from(value);
                    if !path.exists() {
                        return Err(at(g, format!("opening file does not exist: {value}")));
                    }
                    self.run.openings = Some(path);
                }
                // The arena tells EPD, PGN and Polyglot books apart by their contents.
                "format" if matches!(value, "epd" | "pgn") => pgn = Some(value == "pgn"),
                "format" => {
                    return Err(at(g, format!("format={value}: expected epd or pgn")));
                }
                "order" => {
                    self.run.openings_order = Some(match value {
                        "random" => OpeningsOrder::Random,
                        "sequential" => OpeningsOrder::Sequential,
                        _ => {
                            return Err(at(
                                g,
                                format!("order={value}: expected random or sequential"),
                            ))
                        }
                    })
                }
                "start" => {
                    self.run.openings_start =
                        Some(limits::OPENINGS_START.parse(value).map_err(|m| at(g, m))?);
                }
                "plies" => {
                    plies = Some(limits::OPENING_PLIES.parse(value).map_err(|m| at(g, m))?);
                }
                "policy" if value == "round" => {}
                _ => return Err(at(g, format!("unknown key {key}={value}"))),
            }
        }
        let Some(file) = &self.run.openings else {
            return Err(at(g, "give the book with file=".to_string()));
        };
        let pgn = pgn.unwrap_or_else(|| file.extension().is_some_and(|e| e == "pgn"));
        match plies {
            Some(plies) if pgn => self.run.opening_plies = Some(plies),
            // fastchess cuts PGN games only; fishtest passes plies= with its EPD books.
            Some(plies) => self.warnings.add(format!(
                "{} plies={plies}: ignored: an EPD book's positions have no moves to cut",
                g.spelled
            )),
            None => {}
        }
        Ok(())
    }

    fn pgnout(&mut self, g: &Given) -> Result<(), String> {
        for param in &g.params {
            // cutechess-cli: `-pgnout FILE [min] [fi]`.
            let Some((key, value)) = param.split_once('=') else {
                match param.as_str() {
                    "min" | "fi" => self.warnings.add(format!(
                        "{} {param}: ignored: the PGN has every move's comment",
                        g.spelled
                    )),
                    file => self.run.pgnout = Some(PathBuf::from(file)),
                }
                continue;
            };
            match (key, value) {
                ("file", file) => self.run.pgnout = Some(PathBuf::from(file)),
                ("notation", n) => {
                    self.run.pgnout_notation = Some(match n {
                        "san" => Notation::San,
                        "lan" => Notation::Lan,
                        "uci" => Notation::Uci,
                        _ => return Err(at(g, format!("notation={n}: expected san, lan or uci"))),
                    })
                }
                ("nodes" | "seldepth" | "nps", "true") => {
                    let extra = match key {
                        "nodes" => Extra::Nodes,
                        "seldepth" => Extra::Seldepth,
                        _ => Extra::Nps,
                    };
                    if !self.run.pgnout_extras.contains(&extra) {
                        self.run.pgnout_extras.push(extra);
                    }
                }
                ("nodes" | "seldepth" | "nps", "false") => {}
                ("append", "false") => self.truncate_pgn = true,
                ("append", "true") => {}
                _ => self.warnings.add(format!(
                    "{} {key}={value}: ignored: not written by the arena",
                    g.spelled
                )),
            }
        }
        if self.run.pgnout.is_none() {
            self.run.pgnout = Some(PathBuf::from(format!(
                "fastchess_{}.pgn",
                chrono::Local::now().format("%Y%m%d_%H%M%S")
            )));
        }
        Ok(())
    }

    fn epdout(&mut self, g: &Given) -> Result<(), String> {
        for param in &g.params {
            match param.split_once('=') {
                Some(("file", file)) => self.run.epdout = Some(PathBuf::from(file)),
                Some(("append", "true")) => {}
                Some(("append", "false")) => self.truncate_epd = true,
                None => self.run.epdout = Some(PathBuf::from(param)),
                Some((key, value)) => {
                    return Err(at(g, format!("unknown key {key}={value}")));
                }
            }
        }
        if self.run.epdout.is_none() {
            self.run.epdout = Some(PathBuf::from(format!(
                "fastchess_{}.epd",
                chrono::Local::now().format("%Y%m%d_%H%M%S")
            )));
        }
        Ok(())
    }

    fn sprt(&mut self, g: &Given) -> Result<(), String> {
        let mut keys = Vec::new();
        for (key, value) in g.pairs()? {
            match key {
                "elo0" | "elo1" | "alpha" | "beta" => keys.push(format!("{key}={value}")),
                "model" if value == "normalized" => {}
                "model" if value == "logistic" || value == "bayesian" => {
                    return Err(at(
                        g,
                        format!(
                            "model={value}: only the normalized model is computed here \
                             (fastchess's default, fishtest's test); give model=normalized or \
                             leave model= out"
                        ),
                    ))
                }
                _ => return Err(at(g, format!("unknown key {key}={value}"))),
            }
        }
        self.run.sprt = Some(keys.join(",").parse().map_err(|e| at(g, format!("{e}")))?);
        Ok(())
    }
}
