//! `script`: plays a fixed list of moves with chosen think times, so that
//! users and tests can reproduce an exact clock-and-board situation.
//!
//! ```text
//! blitz-arena engine script [--moves "ITEMS" | --file PATH] [--then first-legal|stall|crash]
//!                           [--stall-at N] [--crash-at N] [--ignore-stop] [--name NAME]
//! ```
//!
//! Flags take their value as the next argument or after `=` (`--stall-at=3`);
//! each may be given once.
//!
//! **Items.** The script is a whitespace- or newline-separated list of items,
//! `#` starting a comment to the end of the line (in `--moves` too). Each item
//! is `MOVE[@TIME][:cp=N|:mate=N]`:
//! - `MOVE` is sent verbatim after `bestmove`: any text without whitespace,
//!   `@`, `:` or `#`, so a script can send illegal moves, `0000`, `(none)`, a
//!   promotion without its letter (`e7e8`) or a king capture.
//! - `TIME` is how long to wait before answering: `120ms`, `2s`, `1.5s`, or a
//!   bare number of milliseconds (`250`); default 0. It is real time measured
//!   from the instant the `go` line was read. The clock values of `go` are
//!   ignored, so a script flags on purpose by waiting longer than its time.
//! - `:cp=N` / `:mate=N` sends `info depth 1 score cp N` (or `score mate N`)
//!   just before the `bestmove`, for score-adjudication tests.
//!
//! Example: `--moves "e2e4@120ms g1f3@2s:cp=35 d1h5@1.5s:mate=2 e1e1"`.
//!
//! **Moves.** Item k answers the k-th `go` since the last `ucinewgame` (every
//! `go` counts, `go ponder` and `go infinite` included); `ucinewgame` starts
//! the script again. What answers move n, first rule that applies:
//! 1. `--crash-at N`, n >= N: exit with status 101 without answering.
//! 2. `--stall-at N`, n >= N: stall (below).
//! 3. n <= number of items: item n.
//! 4. `--then`: `first-legal` (default), `stall` or `crash` (status 101).
//!
//! `first-legal` answers at once with the first legal move in UCI text order
//! (`a2a3` from the start position) of the position from the last `position`
//! command, `bestmove (none)` if there is none, and `bestmove 0000` if that
//! position could not be set up: a FEN shakmaty rejects even leniently (the
//! side not to move in check, kings adjacent, ...) or an illegal move in its
//! `moves`. Scripted moves never look at the position.
//!
//! **Stop.** By default `stop` during a scripted wait ends it at once: the
//! scripted move (and its info line) is sent. With `--ignore-stop` the wait
//! always runs to its end, whatever `stop` says (an engine that overruns);
//! meanwhile `isready` is answered, but a new `go`, `ucinewgame` or
//! `setoption` waits for the answer, and `quit` waits at most a second. After
//! `go infinite` or `go ponder` the answer is held until `stop` (UCI).
//! A **stall** is a hung search: no `bestmove` for that `go`, ever, `stop`
//! included; `isready`, `ucinewgame` and `quit` are still obeyed. Stalls and
//! crashes say so on stderr (`script: move 3: stalling as told`).
//!
//! **Name.** `--name NAME` sets the `id name` line (default
//! `blitz-arena script`).
//!
//! Bad arguments and bad items are one-line errors that name the item, e.g.
//! `script: item 3 "e2e4@2x": bad time "2x" (use 120ms, 2s or a number of ms)`.

use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail};
use shakmaty::Position;

use super::engine::{log, Engine, Game, GoAction, Limits, Out, Reply};
use super::uci;

/// `blitz-arena engine script --help` shows this after `faulty`'s flags.
pub const HELP: &str = "\
`script` plays the moves it is given, after the given thinking times, whatever the position:
  --moves \"ITEMS\"   the script: items separated by spaces, `#` starts a comment
  --file PATH       the script from a file, items separated by spaces or newlines
  --then WHAT       after the last item: first-legal (default: the first legal move, at once),
                    stall (never answer) or crash (exit with status 101)
  --stall-at N      from its move N never answers (stop included)
  --crash-at N      exits with status 101 at its move N, without answering
  --ignore-stop     a scripted wait runs to its end whatever `stop` says
  --name NAME       its `id name` (default: blitz-arena script)
An item is MOVE[@TIME][:cp=N|:mate=N]: MOVE is sent verbatim after `bestmove` (so 0000, e7e8
or a king capture too); TIME (120ms, 2s, 1.5s or a number of ms) is how long it waits after
reading `go`; cp/mate send an `info ... score` line first. Move k of a game answers the k-th
`go` since `ucinewgame`. Example: --moves \"e2e4@120ms g1f3@2s:cp=35 d1h5@1.5s\"
";

/// The `id name` without `--name`.
pub const DEFAULT_NAME: &str = "blitz-arena script";

const FLAGS: &[&str] = &[
    "--moves",
    "--file",
    "--then",
    "--stall-at",
    "--crash-at",
    "--ignore-stop",
    "--name",
];

const TIME_HINT: &str = "use 120ms, 2s or a number of ms";
const SCORE_HINT: &str = "use cp=N or mate=N after the time, e.g. e2e4@1s:cp=35";

/// One scripted answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Sent verbatim after `bestmove`.
    pub text: String,
    /// How long after the `go` was read to answer.
    pub wait: Duration,
    /// An `info ... score` line to send before the `bestmove`.
    pub score: Option<Score>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    fn info_line(self) -> String {
        match self {
            Score::Cp(n) => format!("info depth 1 score cp {n}"),
            Score::Mate(n) => format!("info depth 1 score mate {n}"),
        }
    }
}

/// What to do once the script has run out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Then {
    #[default]
    FirstLegal,
    Stall,
    Crash,
}

/// The command line, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub items: Vec<Item>,
    pub then: Then,
    pub stall_at: Option<usize>,
    pub crash_at: Option<usize>,
    pub ignore_stop: bool,
    pub name: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            items: Vec::new(),
            then: Then::default(),
            stall_at: None,
            crash_at: None,
            ignore_stop: false,
            name: DEFAULT_NAME.to_string(),
        }
    }
}

/// What answers one `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Plan {
    /// The script's item with this index (0-based).
    Play(usize),
    FirstLegal,
    Stall,
    Crash,
}

impl Options {
    /// Parses the arguments after `blitz-arena engine script`, reading `--file`.
    pub fn parse(args: &[String]) -> anyhow::Result<Options> {
        let mut o = Options::default();
        let mut moves: Option<String> = None;
        let mut file: Option<String> = None;
        let mut seen: Vec<&str> = Vec::new();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, v)) if flag.starts_with("--") => (flag, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            let Some(&flag) = FLAGS.iter().find(|f| **f == flag) else {
                if flag.starts_with('-') {
                    bail!("script: unknown flag {flag} (known: {})", FLAGS.join(" "));
                }
                bail!(
                    "script: unexpected argument {arg:?} (give the moves with --moves \"e2e4 g1f3@2s\" or --file PATH)"
                );
            };
            if seen.contains(&flag) {
                bail!("script: {flag} given twice");
            }
            seen.push(flag);
            if flag == "--ignore-stop" {
                if inline.is_some() {
                    bail!("script: --ignore-stop takes no value");
                }
                o.ignore_stop = true;
                continue;
            }
            let value = inline
                .or_else(|| it.next().cloned())
                .ok_or_else(|| anyhow!("script: {flag} needs a value"))?;
            match flag {
                "--moves" => moves = Some(value),
                "--file" => file = Some(value),
                "--then" => {
                    o.then = match value.as_str() {
                        "first-legal" => Then::FirstLegal,
                        "stall" => Then::Stall,
                        "crash" => Then::Crash,
                        _ => bail!(
                            "script: --then must be first-legal, stall or crash, got {value:?}"
                        ),
                    }
                }
                "--stall-at" => o.stall_at = Some(move_number(flag, &value)?),
                "--crash-at" => o.crash_at = Some(move_number(flag, &value)?),
                _ => {
                    if value.trim().is_empty() || value.contains(['\n', '\r']) {
                        bail!("script: --name needs a one-line, non-empty name, got {value:?}");
                    }
                    o.name = value;
                }
            }
        }
        o.items = match (moves, file) {
            (Some(_), Some(_)) => bail!("script: give --moves or --file, not both"),
            (Some(text), None) => parse_items(&text).map_err(|e| anyhow!("script: {e}"))?,
            (None, Some(path)) => {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| anyhow!("script: cannot read {path}: {e}"))?;
                parse_items(&text).map_err(|e| anyhow!("script: {path}:{}: {e}", e.line))?
            }
            (None, None) => Vec::new(),
        };
        Ok(o)
    }

    /// What answers move `n` (1-based) of the current game.
    pub fn plan(&self, n: usize) -> Plan {
        if self.crash_at.is_some_and(|k| n >= k) {
            Plan::Crash
        } else if self.stall_at.is_some_and(|k| n >= k) {
            Plan::Stall
        } else if (1..=self.items.len()).contains(&n) {
            Plan::Play(n - 1)
        } else {
            match self.then {
                Then::FirstLegal => Plan::FirstLegal,
                Then::Stall => Plan::Stall,
                Then::Crash => Plan::Crash,
            }
        }
    }
}

fn move_number(flag: &str, value: &str) -> anyhow::Result<usize> {
    match value.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => bail!("script: {flag} needs a move number (1 or more), got {value:?}"),
    }
}

/// A bad item: where it is and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemError {
    /// 1-based line of the script text.
    pub line: usize,
    /// 1-based number of the item (= the move it would answer).
    pub index: usize,
    pub item: String,
    pub reason: String,
}

impl std::fmt::Display for ItemError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "item {} {:?}: {}", self.index, self.item, self.reason)
    }
}

/// Parses a script: items separated by whitespace, `#` comments to the end of
/// the line.
pub fn parse_items(text: &str) -> Result<Vec<Item>, ItemError> {
    let mut items = Vec::new();
    for (l, line) in text.lines().enumerate() {
        let line = line.split_once('#').map_or(line, |(code, _)| code);
        for word in line.split_whitespace() {
            let item = parse_item(word).map_err(|reason| ItemError {
                line: l + 1,
                index: items.len() + 1,
                item: word.to_string(),
                reason,
            })?;
            items.push(item);
        }
    }
    Ok(items)
}

/// `MOVE[@TIME][:cp=N|:mate=N]`.
fn parse_item(word: &str) -> Result<Item, String> {
    let (head, score) = match word.split_once(':') {
        Some((head, score)) => (head, Some(score)),
        None => (word, None),
    };
    let (text, time) = match head.split_once('@') {
        Some((text, time)) => (text, Some(time)),
        None => (head, None),
    };
    if text.is_empty() {
        return Err("empty move".to_string());
    }
    let wait = match time {
        Some(t) => parse_time(t).ok_or_else(|| format!("bad time {t:?} ({TIME_HINT})"))?,
        None => Duration::ZERO,
    };
    let score = match score {
        Some(s) => Some(parse_score(s).ok_or_else(|| format!("bad score {s:?} ({SCORE_HINT})"))?),
        None => None,
    };
    Ok(Item {
        text: text.to_string(),
        wait,
        score,
    })
}

/// `120ms`, `2s`, `1.5s`, `250` (ms), exactly (no floating point).
pub fn parse_time(t: &str) -> Option<Duration> {
    const MS: u64 = 1_000_000;
    const S: u64 = 1_000_000_000;
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, MS)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, S)
    } else {
        (t, MS)
    };
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
    if (int.is_empty() && frac.is_empty()) || !digits(int) || !digits(frac) {
        return None;
    }
    let int: u64 = if int.is_empty() { 0 } else { int.parse().ok()? };
    let mut nanos = int.checked_mul(scale)?;
    let mut unit = scale;
    for d in frac.bytes() {
        unit /= 10; // digits below a nanosecond add nothing
        nanos = nanos.checked_add(u64::from(d - b'0') * unit)?;
    }
    Some(Duration::from_nanos(nanos))
}

fn parse_score(s: &str) -> Option<Score> {
    let (kind, value) = s.split_once('=')?;
    let value: i32 = value.parse().ok()?;
    match kind {
        "cp" => Some(Score::Cp(value)),
        "mate" => Some(Score::Mate(value)),
        _ => None,
    }
}

pub struct Script {
    opts: Options,
    /// `go` commands received in this game (the current one included).
    moves: usize,
    /// The answer to the current `go`, decided on the loop thread.
    plan: Plan,
}

impl Script {
    pub fn new(opts: Options) -> Self {
        Script {
            opts,
            moves: 0,
            plan: Plan::FirstLegal,
        }
    }

    /// The first legal move in UCI text order, `(none)` if there is none,
    /// `0000` if the last `position` command could not be set up.
    fn first_legal(&self, game: &Game) -> String {
        // The loop could not set up the position it was sent (it logged why).
        if !game.complete {
            return "0000".to_string();
        }
        game.pos
            .legal_moves()
            .iter()
            .map(|m| game.uci(*m).to_string())
            .min()
            .unwrap_or_else(|| "(none)".to_string())
    }
}

/// Waits until `deadline` (`None`: forever), or until `stop` is set unless
/// `ignore_stop`. The UCI loop unparks the search thread on `stop`.
fn wait_until(deadline: Option<Instant>, stop: &AtomicBool, ignore_stop: bool) {
    loop {
        if !ignore_stop && stop.load(Ordering::Acquire) {
            return;
        }
        match deadline {
            Some(d) => {
                let now = Instant::now();
                if now >= d {
                    return;
                }
                thread::park_timeout(d - now);
            }
            None => thread::park(),
        }
    }
}

impl Engine for Script {
    fn id_name(&self) -> Option<String> {
        Some(self.opts.name.clone())
    }

    fn new_game(&mut self) {
        self.moves = 0;
    }

    fn on_go(&mut self) -> GoAction {
        self.moves += 1;
        self.plan = self.opts.plan(self.moves);
        match self.plan {
            Plan::Crash => {
                log(&format!("script: move {}: crashing as told", self.moves));
                GoAction::Crash
            }
            Plan::Stall => {
                log(&format!("script: move {}: stalling as told", self.moves));
                GoAction::Search
            }
            Plan::Play(_) | Plan::FirstLegal => GoAction::Search,
        }
    }

    fn go(&mut self, game: &Game, limits: &Limits, stop: &AtomicBool, out: &Out) -> Reply {
        match self.plan {
            // Crash never gets here: the loop exits on `GoAction::Crash`.
            Plan::Stall | Plan::Crash => Reply::Silent,
            Plan::FirstLegal => Reply::Text(self.first_legal(game)),
            Plan::Play(i) => {
                let item = &self.opts.items[i];
                let deadline = limits.start.checked_add(item.wait);
                wait_until(deadline, stop, self.opts.ignore_stop);
                if let Some(score) = item.score {
                    out.line(&score.info_line());
                }
                Reply::Text(item.text.clone())
            }
        }
    }
}

/// Runs `blitz-arena engine script ARGS` on `input`/`out` until `quit` or EOF.
pub fn run(args: &[String], input: impl BufRead, out: Out) -> anyhow::Result<()> {
    let opts = Options::parse(args)?;
    let engine = Script::new(opts);
    uci::run_loop("script", Box::new(engine), input, out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{self, Read};
    use std::sync::mpsc;
    use std::sync::{Arc, Mutex};

    fn opts(args: &[&str]) -> anyhow::Result<Options> {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        Options::parse(&args)
    }

    fn err(args: &[&str]) -> String {
        opts(args).expect_err("an error").to_string()
    }

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn item(text: &str, wait: Duration, score: Option<Score>) -> Item {
        Item {
            text: text.to_string(),
            wait,
            score,
        }
    }

    #[test]
    fn parses_items_times_and_scores() {
        let items =
            parse_items("e2e4@120ms g1f3@2s d2d4@1.5s c2c4@250 b1c3 e7e8:cp=-35 a1a2@5ms:mate=3")
                .expect("items");
        assert_eq!(
            items,
            vec![
                item("e2e4", ms(120), None),
                item("g1f3", ms(2000), None),
                item("d2d4", ms(1500), None),
                item("c2c4", ms(250), None),
                item("b1c3", Duration::ZERO, None),
                item("e7e8", Duration::ZERO, Some(Score::Cp(-35))),
                item("a1a2", ms(5), Some(Score::Mate(3))),
            ]
        );
        assert_eq!(Score::Cp(35).info_line(), "info depth 1 score cp 35");
        assert_eq!(Score::Mate(-2).info_line(), "info depth 1 score mate -2");
    }

    #[test]
    fn moves_are_sent_verbatim() {
        let items = parse_items("0000 (none) e7e8 e1e1 E2E4 xyz@1").expect("items");
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(texts, ["0000", "(none)", "e7e8", "e1e1", "E2E4", "xyz"]);
    }

    #[test]
    fn times_are_exact() {
        let cases = [
            ("0", Some(Duration::ZERO)),
            ("120ms", Some(ms(120))),
            ("0.5ms", Some(Duration::from_micros(500))),
            ("2s", Some(ms(2000))),
            ("1.5s", Some(ms(1500))),
            ("0.1s", Some(ms(100))),
            (".25s", Some(ms(250))),
            ("3.", Some(ms(3))),
            ("1.0000000001s", Some(Duration::from_secs(1))),
            ("3600s", Some(Duration::from_secs(3600))),
            ("", None),
            ("s", None),
            ("ms", None),
            (".", None),
            ("2x", None),
            ("-5", None),
            ("+5", None),
            ("1e3", None),
            ("1.5.5s", None),
            ("2m", None),
            ("inf", None),
            ("99999999999999999999s", None),
            ("18446744073709551615s", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_time(text), expected, "{text:?}");
        }
    }

    #[test]
    fn bad_items_name_the_item() {
        let e = parse_items("e2e4 g1f3@2s e2e4@2x").expect_err("bad time");
        assert_eq!(
            format!("script: {e}"),
            "script: item 3 \"e2e4@2x\": bad time \"2x\" (use 120ms, 2s or a number of ms)"
        );
        let e = parse_items("e2e4 @120ms").expect_err("empty move");
        assert_eq!(e.to_string(), "item 2 \"@120ms\": empty move");
        assert_eq!(
            parse_items(":cp=3").expect_err("empty").reason,
            "empty move"
        );
        let e = parse_items("e2e4@").expect_err("empty time");
        assert_eq!(e.reason, format!("bad time \"\" ({TIME_HINT})"));
        for (bad, score) in [
            ("e2e4:cp=x", "cp=x"),
            ("e2e4:", ""),
            ("e2e4:eval=3", "eval=3"),
            ("e2e4:cp=3@1s", "cp=3@1s"),
            ("e2e4:cp=1:mate=2", "cp=1:mate=2"),
        ] {
            let e = parse_items(bad).expect_err(bad);
            assert_eq!(e.reason, format!("bad score {score:?} ({SCORE_HINT})"));
        }
        let e = parse_items("e2e4@1s@2s").expect_err("two times");
        assert_eq!(e.reason, format!("bad time \"1s@2s\" ({TIME_HINT})"));
    }

    #[test]
    fn comments_and_lines() {
        let text = "# opening\ne2e4@1s   g1f3 # develop\n\n  d2d4#no space\n# e7e5\n";
        let items = parse_items(text).expect("items");
        let texts: Vec<&str> = items.iter().map(|i| i.text.as_str()).collect();
        assert_eq!(texts, ["e2e4", "g1f3", "d2d4"]);
        let e = parse_items("# x\ne2e4\n\ng1f3 f1c4@soon # y\n").expect_err("bad");
        assert_eq!((e.line, e.index), (4, 3));
        assert_eq!(parse_items("  # nothing\n").expect("empty"), vec![]);
    }

    fn temp_file(name: &str, text: &str) -> std::path::PathBuf {
        let path = std::env::temp_dir().join(format!("blitz-script-{}-{name}", std::process::id()));
        std::fs::write(&path, text).expect("write the script file");
        path
    }

    #[test]
    fn parses_every_flag_and_reads_files() {
        let o = opts(&[
            "--moves",
            "e2e4@1s g1f3",
            "--then=crash",
            "--stall-at",
            "5",
            "--crash-at=7",
            "--ignore-stop",
            "--name",
            "Hung Engine 1.0",
        ])
        .expect("options");
        assert_eq!(
            o,
            Options {
                items: vec![
                    item("e2e4", ms(1000), None),
                    item("g1f3", Duration::ZERO, None)
                ],
                then: Then::Crash,
                stall_at: Some(5),
                crash_at: Some(7),
                ignore_stop: true,
                name: "Hung Engine 1.0".to_string(),
            }
        );
        assert_eq!(opts(&[]).expect("no flags"), Options::default());
        assert_eq!(opts(&["--then", "stall"]).expect("stall").then, Then::Stall);
        assert_eq!(
            opts(&["--then", "first-legal"]).expect("fl").then,
            Then::FirstLegal
        );

        let path = temp_file("ok", "# test\ne2e4@100ms:cp=20 # first\nd2d4\n");
        let o = opts(&["--file", path.to_str().expect("utf-8 path")]).expect("file");
        assert_eq!(
            o.items,
            vec![
                item("e2e4", ms(100), Some(Score::Cp(20))),
                item("d2d4", Duration::ZERO, None)
            ]
        );
        let bad = temp_file("bad", "e2e4\n\n d2d4@2x\n");
        let shown = bad.to_str().expect("utf-8 path");
        assert_eq!(
            err(&["--file", shown]),
            format!("script: {shown}:3: item 2 \"d2d4@2x\": bad time \"2x\" ({TIME_HINT})")
        );
        let _ = std::fs::remove_file(path);
        let _ = std::fs::remove_file(bad);
    }

    #[test]
    fn rejects_bad_flags() {
        assert_eq!(
            err(&["--moves", "e2e4 @1s"]),
            "script: item 2 \"@1s\": empty move"
        );
        assert_eq!(
            err(&["--resign"]),
            "script: unknown flag --resign (known: --moves --file --then --stall-at --crash-at --ignore-stop --name)"
        );
        assert!(err(&["e2e4"]).starts_with("script: unexpected argument \"e2e4\""));
        assert_eq!(err(&["--moves"]), "script: --moves needs a value");
        assert_eq!(
            err(&["--then", "resign"]),
            "script: --then must be first-legal, stall or crash, got \"resign\""
        );
        assert_eq!(
            err(&["--stall-at", "0"]),
            "script: --stall-at needs a move number (1 or more), got \"0\""
        );
        assert_eq!(
            err(&["--crash-at=x"]),
            "script: --crash-at needs a move number (1 or more), got \"x\""
        );
        assert_eq!(
            err(&["--ignore-stop=yes"]),
            "script: --ignore-stop takes no value"
        );
        assert_eq!(
            err(&["--moves", "e2e4", "--moves", "d2d4"]),
            "script: --moves given twice"
        );
        assert_eq!(
            err(&["--moves", "e2e4", "--file", "x"]),
            "script: give --moves or --file, not both"
        );
        assert!(err(&["--name", " "]).starts_with("script: --name needs a one-line"));
        let e = err(&["--file", "/nonexistent/blitz-script"]);
        assert!(
            e.starts_with("script: cannot read /nonexistent/blitz-script: "),
            "{e}"
        );
    }

    #[test]
    fn plans_follow_the_script_then_the_fallback() {
        let o = opts(&["--moves", "a b c"]).expect("options");
        let plans: Vec<Plan> = (1..=5).map(|n| o.plan(n)).collect();
        use Plan::*;
        assert_eq!(plans, [Play(0), Play(1), Play(2), FirstLegal, FirstLegal]);
        let o = opts(&["--moves", "a b", "--then", "stall"]).expect("options");
        assert_eq!(o.plan(3), Stall);
        let o = opts(&["--moves", "a b", "--then", "crash"]).expect("options");
        assert_eq!((o.plan(2), o.plan(3)), (Play(1), Crash));
        // stall-at and crash-at override the script; crash wins when both apply.
        let o = opts(&["--moves", "a b c d e", "--stall-at", "2", "--crash-at", "4"]).expect("o");
        let plans: Vec<Plan> = (1..=5).map(|n| o.plan(n)).collect();
        assert_eq!(plans, [Play(0), Stall, Stall, Crash, Crash]);
        let o = opts(&["--crash-at", "1", "--stall-at", "1"]).expect("options");
        assert_eq!(o.plan(1), Crash);
        // Past the script, before stall-at: the fallback.
        let o = opts(&["--moves", "a", "--stall-at", "3", "--then", "crash"]).expect("o");
        assert_eq!((o.plan(2), o.plan(3)), (Crash, Stall));
    }

    /// One `go` as the loop runs it: `on_go`, then `go` unless crashing.
    fn go(e: &mut Script, game: &Game) -> (GoAction, Reply, String) {
        let (out, buf) = Out::buffer();
        let action = e.on_go();
        let reply = match action {
            GoAction::Search => e.go(
                game,
                &Limits::new(Instant::now()),
                &AtomicBool::new(false),
                &out,
            ),
            _ => Reply::Silent,
        };
        let text = String::from_utf8(buf.lock().expect("buffer").clone()).expect("utf-8");
        (action, reply, text)
    }

    fn script(args: &[&str]) -> Script {
        Script::new(opts(args).expect("options"))
    }

    fn text(s: &str) -> Reply {
        Reply::Text(s.to_string())
    }

    #[test]
    fn moves_in_order_and_again_after_ucinewgame() {
        let game = Game::default();
        let mut e = script(&["--moves", "e2e4 0000:cp=35 e1e1@1ms:mate=-2"]);
        assert_eq!(
            go(&mut e, &game),
            (GoAction::Search, text("e2e4"), String::new())
        );
        assert_eq!(
            go(&mut e, &game),
            (
                GoAction::Search,
                text("0000"),
                "info depth 1 score cp 35\n".into()
            )
        );
        e.new_game();
        assert_eq!(go(&mut e, &game).1, text("e2e4"));
        assert_eq!(go(&mut e, &game).1, text("0000"));
        let (_, reply, info) = go(&mut e, &game);
        assert_eq!(
            (reply, info.as_str()),
            (text("e1e1"), "info depth 1 score mate -2\n")
        );
        // Then the first legal move in UCI order, from the position given.
        assert_eq!(go(&mut e, &game).1, text("a2a3"));
    }

    #[test]
    fn then_stall_and_crash_and_stall_at() {
        let game = Game::default();
        let mut e = script(&["--moves", "e2e4", "--then", "stall"]);
        assert_eq!(go(&mut e, &game).1, text("e2e4"));
        assert_eq!(
            go(&mut e, &game),
            (GoAction::Search, Reply::Silent, String::new())
        );
        let mut e = script(&["--moves", "e2e4", "--then", "crash"]);
        assert_eq!(go(&mut e, &game).0, GoAction::Search);
        assert_eq!(go(&mut e, &game).0, GoAction::Crash);
        let mut e = script(&["--moves", "e2e4 d2d4 c2c4", "--crash-at", "2"]);
        assert_eq!(go(&mut e, &game).1, text("e2e4"));
        assert_eq!(go(&mut e, &game).0, GoAction::Crash);
        let mut e = script(&["--moves", "e2e4:cp=5 d2d4:cp=9", "--stall-at", "2"]);
        assert_eq!(go(&mut e, &game).1, text("e2e4"));
        // A stall sends nothing at all, not even the item's info line.
        assert_eq!(
            go(&mut e, &game),
            (GoAction::Search, Reply::Silent, String::new())
        );
        e.new_game();
        assert_eq!(go(&mut e, &game).1, text("e2e4"));
    }

    fn game_after(position: &str, _: &mut Script) -> Game {
        let args: Vec<&str> = position.split_whitespace().collect();
        let (game, _) = uci::parse_position(&args, shakmaty::CastlingMode::Standard, false);
        game
    }

    #[test]
    fn first_legal_is_lenient_about_positions() {
        let mut e = script(&[]);
        let game = game_after("startpos moves e2e4", &mut e);
        assert_eq!(go(&mut e, &game).1, text("a7a5"));
        // Mated: no legal move.
        let game = game_after("startpos moves f2f3 e7e5 g2g4 d8h4", &mut e);
        assert_eq!(go(&mut e, &game).1, text("(none)"));
        // White to move but Black's king is in check: not a position shakmaty
        // sets up, so no legal move can be trusted.
        let game = game_after("fen 4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", &mut e);
        assert_eq!(go(&mut e, &game).1, text("0000"));
        // Kings adjacent.
        let game = game_after("fen 8/8/8/3kK3/8/8/8/8 b - - 0 1", &mut e);
        assert_eq!(go(&mut e, &game).1, text("0000"));
        // An illegal move in the list (the loop stopped before it).
        let game = game_after("startpos moves e2e4 e1e3 e7e5", &mut e);
        assert_eq!(go(&mut e, &game).1, text("0000"));
        // A check the side to move could not have been given is tolerated.
        let game = game_after("fen 4k3/8/8/8/8/3n1n2/8/4K3 w - - 0 1", &mut e);
        assert_eq!(go(&mut e, &game).1, text("e1d1"));
        // ucinewgame forgets the position: the start position again.
        assert_eq!(go(&mut e, &Game::default()).1, text("a2a3"));
    }

    #[test]
    fn waits_from_the_go_and_ignores_the_clock() {
        let mut e = script(&["--moves", "e2e4@80ms d2d4@1s"]);
        let game = Game::default();
        let (out, _) = Out::buffer();
        let stop = AtomicBool::new(false);
        let t = Instant::now();
        e.on_go();
        let mut limits = Limits::new(t);
        limits.wtime = Some(10);
        assert_eq!(e.go(&game, &limits, &stop, &out), text("e2e4"));
        assert!(t.elapsed() >= ms(80), "{:?}", t.elapsed());
        // Measured from when `go` was read, not from when `go()` was called.
        e.on_go();
        let t = Instant::now();
        let limits = Limits::new(t - ms(900));
        assert_eq!(e.go(&game, &limits, &stop, &out), text("d2d4"));
        let waited = t.elapsed();
        assert!(waited >= ms(50) && waited < ms(600), "{waited:?}");
    }

    /// Input for the real loop, fed line by line from the test.
    struct Feed {
        rx: mpsc::Receiver<String>,
        buf: Vec<u8>,
        at: usize,
    }

    impl Read for Feed {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let available = self.fill_buf()?;
            let n = available.len().min(buf.len());
            buf[..n].copy_from_slice(&available[..n]);
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for Feed {
        fn fill_buf(&mut self) -> io::Result<&[u8]> {
            if self.at >= self.buf.len() {
                self.at = 0;
                self.buf = self.rx.recv().map(String::into_bytes).unwrap_or_default();
            }
            Ok(&self.buf[self.at..])
        }

        fn consume(&mut self, n: usize) {
            self.at += n;
        }
    }

    /// A script engine running the real UCI loop on its own thread.
    struct Session {
        tx: mpsc::Sender<String>,
        output: Arc<Mutex<Vec<u8>>>,
        done: thread::JoinHandle<anyhow::Result<()>>,
    }

    impl Session {
        fn start(args: &[&str]) -> Session {
            let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
            let (tx, rx) = mpsc::channel();
            let (out, output) = Out::buffer();
            let feed = Feed {
                rx,
                buf: Vec::new(),
                at: 0,
            };
            let done = thread::spawn(move || run(&args, feed, out));
            Session { tx, output, done }
        }

        fn send(&self, line: &str) {
            self.tx.send(format!("{line}\n")).expect("loop running");
        }

        fn lines(&self) -> Vec<String> {
            let bytes = self.output.lock().expect("output").clone();
            String::from_utf8(bytes)
                .expect("utf-8")
                .lines()
                .map(String::from)
                .collect()
        }

        /// Waits up to `limit` for a line starting with `prefix`; returns when it came.
        fn wait_for(&self, prefix: &str, limit: Duration) -> Option<Instant> {
            let end = Instant::now() + limit;
            while Instant::now() < end {
                if self.lines().iter().any(|l| l.starts_with(prefix)) {
                    return Some(Instant::now());
                }
                thread::sleep(ms(1));
            }
            None
        }

        /// Waits up to 5 s until `n` lines have come out.
        fn wait_for_lines(&self, n: usize) -> bool {
            let end = Instant::now() + Duration::from_secs(5);
            while Instant::now() < end {
                if self.lines().len() >= n {
                    return true;
                }
                thread::sleep(ms(1));
            }
            false
        }

        fn quit(self) -> Vec<String> {
            self.send("quit");
            self.done.join().expect("loop thread").expect("loop result");
            let bytes = self.output.lock().expect("output").clone();
            String::from_utf8(bytes)
                .expect("utf-8")
                .lines()
                .map(String::from)
                .collect()
        }
    }

    #[test]
    fn handshake_uses_the_name() {
        let s = Session::start(&[]);
        s.send("uci");
        s.send("isready");
        assert!(s.wait_for("readyok", Duration::from_secs(5)).is_some());
        assert_eq!(
            s.quit(),
            [
                "id name blitz-arena script",
                "id author blitz-arena",
                "option name UCI_Chess960 type check default false",
                "uciok",
                "readyok"
            ]
        );
        let s = Session::start(&["--name", "Hung Engine 1.0"]);
        s.send("uci");
        assert!(s.wait_for("uciok", Duration::from_secs(5)).is_some());
        assert_eq!(s.quit()[0], "id name Hung Engine 1.0");
    }

    #[test]
    fn stop_during_a_wait_answers_at_once() {
        let s = Session::start(&["--moves", "e2e4@10s:cp=12"]);
        s.send("position startpos");
        s.send("go wtime 300000 btime 300000");
        thread::sleep(ms(50));
        assert!(s.lines().is_empty(), "still waiting");
        let t = Instant::now();
        s.send("stop");
        let at = s
            .wait_for("bestmove", Duration::from_secs(5))
            .expect("bestmove");
        assert!(at - t < ms(500), "answered {:?} after stop", at - t);
        assert_eq!(s.quit(), ["info depth 1 score cp 12", "bestmove e2e4"]);
    }

    #[test]
    fn ignore_stop_waits_to_the_end() {
        let s = Session::start(&["--moves", "e2e4@300ms", "--ignore-stop"]);
        let t = Instant::now();
        s.send("go wtime 100 btime 100");
        s.send("stop");
        let at = s
            .wait_for("bestmove", Duration::from_secs(5))
            .expect("bestmove");
        assert!(at - t >= ms(300), "answered after {:?}", at - t);
        assert_eq!(s.quit(), ["bestmove e2e4"]);
    }

    #[test]
    fn a_stall_ignores_stop_but_answers_isready() {
        let s = Session::start(&["--moves", "e2e4", "--stall-at", "2"]);
        s.send("position startpos");
        s.send("go");
        assert!(s.wait_for_lines(1));
        s.send("position startpos moves e2e4 e7e5");
        s.send("go");
        s.send("stop");
        s.send("isready");
        assert!(s.wait_for_lines(2));
        thread::sleep(ms(50));
        // A new game starts the script again.
        s.send("ucinewgame");
        s.send("position startpos");
        s.send("go");
        assert!(s.wait_for_lines(3));
        assert_eq!(s.quit(), ["bestmove e2e4", "readyok", "bestmove e2e4"]);
    }

    #[test]
    fn first_legal_through_the_loop() {
        let s = Session::start(&["--moves", "e2e4"]);
        s.send("position startpos");
        s.send("go");
        assert!(s.wait_for_lines(1));
        s.send("position startpos moves e2e4 e7e5");
        s.send("go");
        assert!(s.wait_for_lines(2));
        // The opponent's king next to ours: the loop cannot set this up.
        s.send("position fen 8/8/8/3kK3/8/8/8/8 w - - 0 1");
        s.send("go");
        assert!(s.wait_for_lines(3));
        assert_eq!(
            s.quit(),
            ["bestmove e2e4", "bestmove a2a3", "bestmove 0000"]
        );
    }
}
