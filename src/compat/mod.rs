//! The fastchess / cutechess-cli command line (`blitz-arena -engine cmd=A -engine cmd=B -each
//! tc=8+0.08 -rounds 100 ...`): read into the same run options and roster the native
//! `gauntlet` and `round-robin` commands use, then run by the same code.
//!
//! It is chosen when the first argument starts with `-` (other than `-h`, `--help`, `-V` and
//! `--version`, which stay blitz-arena's), or when the program is invoked as `fastchess` or
//! `cutechess-cli` (a symlink, or `make`'s `./fastchess`). The output format then defaults to
//! that tool's lines. What each option maps to is in [`options`].

mod config_file;
mod engine;
mod grammar;
mod options;
mod probe;
pub mod scratch;
pub mod tc;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::cli::RunArgs;
use crate::config::{Places, Roster, RunTable};
use crate::report::compat_console::OutputFormat;
use crate::tournament::Format;
use crate::vocabulary::Ruleset;

pub use engine::{EngineSpec, WARN_KEYS};
pub use grammar::Given;
pub use options::{IGNORED, OPTIONS, REFUSED};
pub use probe::{drop_unset_options, Unset};

/// Which tool's command line, and so which defaults (games, rounds, output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tool {
    Fastchess,
    Cutechess,
}

/// The tool whose command line `argv` is, if it is one: by the program's name, or by a first
/// argument that starts with `-`.
pub fn invocation(argv: &[String]) -> Option<Tool> {
    let program = argv
        .first()
        .map(|a| {
            Path::new(a)
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned()
        })
        .unwrap_or_default();
    let program = program.strip_suffix(".exe").unwrap_or(&program);
    match program {
        "fastchess" | "fastchess-ob" => return Some(Tool::Fastchess),
        "cutechess-cli" | "cutechess" => return Some(Tool::Cutechess),
        _ => {}
    }
    let first = argv.get(1)?;
    let native = ["-h", "--help", "-V", "--version"];
    (first.starts_with('-') && !native.contains(&first.as_str())).then_some(Tool::Fastchess)
}

/// The one-line warnings of a command line, printed on stderr before the run starts.
#[derive(Debug, Default)]
pub struct Warnings(pub Vec<String>);

impl Warnings {
    pub fn add(&mut self, warning: String) {
        self.0.push(warning);
    }
}

/// What a compat command line asks for.
#[derive(Debug)]
pub enum Request {
    Run(Box<CompatRun>),
    Version,
    Help,
    /// `--compliance CMD [ARGS]`: the engine's UCI handshake checked, as `blitz-arena check`
    /// checks a roster's engine.
    Compliance(Box<Roster>),
}

/// A run, ready for [`crate::app::tournament`].
#[derive(Debug)]
pub struct CompatRun {
    pub format: Format,
    pub names: Vec<String>,
    pub run: RunArgs,
    pub warnings: Vec<String>,
    /// Files to empty before the run (`-pgnout append=false`, `-epdout append=false`).
    pub truncate: Vec<PathBuf>,
    /// The results folder the run needs, made in the temporary folder and removed after it:
    /// fastchess leaves only the files it is asked for (`-pgnout`, `-epdout`). None when
    /// `-out DIR` asks to keep it.
    pub scratch: Option<PathBuf>,
}

/// Why a compat command line cannot run: a bad command line (exit 2) or a run that cannot be
/// set up (exit 1, as fastchess exits on its own errors).
#[derive(Debug, PartialEq, Eq)]
pub enum CompatError {
    Usage(String),
    Invalid(String),
}

/// The command line as it is being read.
#[derive(Debug)]
pub struct Builder {
    tool: Tool,
    engines: Vec<EngineSpec>,
    /// `-each` is applied after every `-engine`, wherever it stands (as fastchess does).
    each: Vec<Given>,
    games: Option<u32>,
    rounds: Option<u32>,
    format: Option<Format>,
    run: RunArgs,
    warnings: Warnings,
    truncate_pgn: bool,
    truncate_epd: bool,
}

impl Builder {
    fn new(tool: Tool) -> Builder {
        Builder {
            tool,
            engines: Vec::new(),
            each: Vec::new(),
            games: None,
            rounds: None,
            format: None,
            run: RunArgs {
                output_format: match tool {
                    Tool::Fastchess => OutputFormat::Fastchess,
                    Tool::Cutechess => OutputFormat::Cutechess,
                },
                // cutechess-cli prints results only at the end unless asked (fastchess: 10).
                rating_interval: (tool == Tool::Cutechess).then_some(0),
                // The `Event` tag without `-event`: fastchess's `PgnConfig::event_name`
                // default; cutechess-cli writes `?` for an empty tag of the seven-tag roster.
                pgn_event: Some(
                    match tool {
                        Tool::Fastchess => "Fastchess Tournament",
                        Tool::Cutechess => "?",
                    }
                    .to_string(),
                ),
                ..RunArgs::default()
            },
            warnings: Warnings::default(),
            truncate_pgn: false,
            truncate_epd: false,
        }
    }

    /// One option, by [`OPTIONS`] or [`IGNORED`]; any other is a bad command line.
    fn apply(&mut self, g: &Given) -> Result<(), String> {
        if let Some((_, handler)) = OPTIONS.iter().find(|(name, _)| *name == g.name) {
            handler(self, g)
        } else if let Some((name, instead)) = IGNORED.iter().find(|(name, _)| *name == g.name) {
            let with = if g.params.is_empty() {
                String::new()
            } else {
                format!(" {}", g.params.join(" "))
            };
            self.warnings
                .add(format!("-{name}{with}: ignored: {instead}"));
            Ok(())
        } else {
            Err(format!(
                "unknown option {} (blitz-arena reads fastchess's and cutechess-cli's options; see docs/fastchess.md)",
                g.spelled
            ))
        }
    }

    fn engine(&mut self, g: &Given) -> Result<(), String> {
        let mut spec = EngineSpec::default();
        for (key, value) in g.engine_pairs()? {
            spec.apply(key, value, &mut self.warnings)
                .map_err(|e| format!("{}: {e}", g.spelled))?;
        }
        self.engines.push(spec);
        Ok(())
    }
}

/// Reads a fastchess or cutechess-cli command line (without the program's name).
pub fn parse(tool: Tool, args: &[String], cwd: &Path) -> Result<Request, CompatError> {
    let usage = CompatError::Usage;
    if args.first().is_some_and(|a| a == "--compliance") {
        return compliance(&args[1..], cwd);
    }
    let given = grammar::split(args).map_err(usage)?;
    if given
        .iter()
        .any(|g| matches!(g.name.as_str(), "version" | "v"))
    {
        return Ok(Request::Version);
    }
    if given.is_empty() || given.iter().any(|g| g.name == "help") {
        return Ok(Request::Help);
    }
    let mut b = Builder::new(tool);
    for g in &given {
        b.apply(g).map_err(usage)?;
    }
    for each in std::mem::take(&mut b.each) {
        let pairs = each.engine_pairs().map_err(usage)?;
        for spec in &mut b.engines {
            for (key, value) in &pairs {
                spec.apply(key, value, &mut b.warnings)
                    .map_err(|e| usage(format!("{}: {e}", each.spelled)))?;
            }
        }
    }
    build(b, cwd).map(|run| Request::Run(Box::new(run)))
}

/// fastchess's `--compliance CMD [ARGS]` (its first argument only): the engine, named by its
/// command, in a roster of one for `blitz-arena check`.
fn compliance(args: &[String], cwd: &Path) -> Result<Request, CompatError> {
    let (cmd, engine_args) =
        match args {
            [cmd] => (cmd, ""),
            [cmd, engine_args] => (cmd, engine_args.as_str()),
            _ => return Err(CompatError::Usage(
                "--compliance CMD [ARGS]: give the engine's command, and its arguments as one word"
                    .to_string(),
            )),
        };
    let spec = EngineSpec {
        cmd: Some(cmd.clone()),
        args: engine_args.split_whitespace().map(String::from).collect(),
        ..EngineSpec::default()
    };
    let config = spec.to_config(cwd).map_err(CompatError::Invalid)?;
    Ok(Request::Compliance(Box::new(Roster {
        path: PathBuf::from("the command line"),
        engines: BTreeMap::from([(config.name.clone(), config)]),
        run: RunTable::default(),
        places: Places::default(),
    })))
}

/// The run: the engines as an in-memory roster, the games and the limits.
fn build(mut b: Builder, cwd: &Path) -> Result<CompatRun, CompatError> {
    let invalid = CompatError::Invalid;
    if b.engines.len() < 2 {
        return Err(invalid(format!(
            "{} engine(s) given: a match needs at least two (-engine cmd=A name=A -engine cmd=B name=B)",
            b.engines.len()
        )));
    }
    let mut engines = BTreeMap::new();
    let mut names = Vec::new();
    for spec in &mut b.engines {
        if let Some(st) = spec.st {
            // fastchess: "cannot use tc and st together".
            if spec.tc.is_some() {
                return Err(invalid(format!(
                    "engine {}: tc= and st= cannot go together; give one",
                    spec.display_name()
                )));
            }
            spec.tc = Some(Some(st));
        }
    }
    for spec in &b.engines {
        let config = spec.to_config(cwd).map_err(invalid)?;
        if spec.tc.is_none() && spec.nodes.is_none() && spec.depth.is_none() {
            return Err(invalid(format!(
                "engine {}: no time control (give tc=8+0.08, or nodes=/depth= with tc=inf, in -engine or -each)",
                config.name
            )));
        }
        if matches!(spec.tc, Some(None)) && spec.nodes.is_none() && spec.depth.is_none() {
            return Err(invalid(format!(
                "engine {}: tc=inf needs nodes= or depth= to end a search",
                config.name
            )));
        }
        if engines.contains_key(&config.name) {
            return Err(invalid(format!(
                "two engines are named {}: give each its own name=",
                config.name
            )));
        }
        names.push(config.name.clone());
        engines.insert(config.name.clone(), config);
    }
    // Limits the arena sets for the whole run: every engine must have the same.
    let nodes = same(&b.engines, "nodes", |e| e.nodes).map_err(invalid)?;
    let depth = same(&b.engines, "depth", |e| e.depth).map_err(invalid)?;
    let margin = same(&b.engines, "timemargin", |e| e.timemargin).map_err(invalid)?;
    b.run.nodes = nodes;
    b.run.depth = depth;
    b.run.time_margin = margin;
    polyglot_book(&mut b, cwd).map_err(invalid)?;
    // The clock: the run's is the first engine's; another engine's own only if it differs.
    let clocks: Vec<_> = b
        .engines
        .iter()
        .map(|e| e.tc.flatten().unwrap_or(tc::INFINITE))
        .collect();
    b.run.tc = Some(clocks[0]);
    for (name, clock) in names.iter().zip(&clocks) {
        if *clock != clocks[0] {
            engines.get_mut(name).expect("just inserted").tc = Some(*clock);
        }
    }
    if b.engines.iter().any(|e| matches!(e.tc, Some(None))) {
        b.warnings.add(format!(
            "tc=inf: the arena's clock always runs; each side gets {} (a clock no game uses up), the search ends at nodes=/depth=",
            tc::INFINITE.in_words()
        ));
    }
    b.run.games = Some(games_per_pairing(&mut b).map_err(CompatError::Usage)?);
    b.run.roster = Some(Roster {
        path: PathBuf::from("the command line"),
        engines,
        run: RunTable::default(),
        places: Places::default(),
    });
    let format = match b.format {
        Some(format) => format,
        None if names.len() == 2 => Format::Gauntlet,
        None => Format::RoundRobin,
    };
    defaults(&mut b.run, b.tool);
    let scratch = b.run.out.is_none().then(scratch::folder);
    if let Some(dir) = &scratch {
        b.run.out = Some(dir.clone());
    }
    let mut truncate = Vec::new();
    if b.truncate_pgn {
        truncate.extend(b.run.pgnout.clone());
    }
    if b.truncate_epd {
        truncate.extend(b.run.epdout.clone());
    }
    Ok(CompatRun {
        format,
        names,
        run: b.run,
        warnings: b.warnings.0,
        truncate,
        scratch,
    })
}

/// Where fastchess's behaviour differs from blitz-arena's defaults, the command line gets
/// fastchess's: one game at a time, and the `online` ruleset (a flag or an illegal move loses
/// at once, as fastchess rules them; `-ruleset NAME` picks another). fastchess rules a fallen
/// flag a loss whatever the opponent has left (cutechess-cli draws it when the opponent
/// cannot mate, as `online` does).
fn defaults(run: &mut RunArgs, tool: Tool) {
    run.concurrency.get_or_insert(1);
    if run.ruleset.is_none() {
        run.ruleset = Some(Ruleset::Online);
        run.flag_always_loses = tool == Tool::Fastchess;
    }
}

/// cutechess-cli's per-engine `book=FILE bookdepth=N`: the arena plays one book for the
/// run (each line with colours swapped), so every engine must name the same one.
fn polyglot_book(b: &mut Builder, cwd: &Path) -> Result<(), String> {
    let book = |e: &EngineSpec| (e.book.clone(), e.bookdepth);
    let first = book(&b.engines[0]);
    if b.engines.iter().any(|e| book(e) != first) {
        return Err(
            "engines differ in book=/bookdepth=: the arena plays one book for the whole run; give it once with -each book=FILE bookdepth=N"
                .to_string(),
        );
    }
    match first {
        (None, None) => Ok(()),
        (None, Some(_)) => Err("bookdepth= needs book=FILE".to_string()),
        (Some(file), depth) => {
            if b.run.openings.is_some() {
                return Err(
                    "book= and -openings both give the openings: give one of them".to_string(),
                );
            }
            let path = cwd.join(&file);
            if !path.is_file() {
                return Err(format!("book={file}: no such file"));
            }
            b.run.openings = Some(path);
            // cutechess's depth counts full moves; --book-depth counts plies.
            b.run.book_depth = depth.map(|moves| moves * 2);
            Ok(())
        }
    }
}

/// The value every engine gives for a run-wide limit; engines that differ are an error.
fn same<T: PartialEq + Copy + std::fmt::Display>(
    engines: &[EngineSpec],
    key: &str,
    get: impl Fn(&EngineSpec) -> Option<T>,
) -> Result<Option<T>, String> {
    let first = get(&engines[0]);
    match engines.iter().map(&get).find(|v| *v != first) {
        None => Ok(first),
        Some(_) => Err(format!(
            "engines differ in {key}=: the arena sets it for the whole run; give it once with -each {key}=..."
        )),
    }
}

/// fastchess: `-rounds` pairs of `-games` (at most 2: each opening once per colour; a larger
/// `-games` is swapped with `-rounds`, as fastchess does; `-games 1`: each round a new
/// opening, colours alternating); cutechess-cli: `-games` games in each of `-rounds` rounds.
/// blitz-arena's `--games` counts them per pairing.
fn games_per_pairing(b: &mut Builder) -> Result<u32, String> {
    let (default_games, default_rounds) = match b.tool {
        Tool::Fastchess => (2, 2),
        Tool::Cutechess => (1, 1),
    };
    let mut games = b.games.unwrap_or(default_games);
    let mut rounds = b.rounds.unwrap_or(default_rounds);
    if b.tool == Tool::Fastchess && games > 2 {
        std::mem::swap(&mut games, &mut rounds);
        if games > 2 {
            return Err(format!(
                "-games {rounds} -rounds {games}: -games is at most 2 (each opening once with each colour)"
            ));
        }
    }
    if b.tool == Tool::Fastchess {
        // fastchess plays round by round, each pairing's games of a round together.
        b.run.fastchess_order = true;
    }
    if b.tool == Tool::Fastchess && games == 1 {
        // Each round a new opening, the engines taking white in turn, as fastchess plays it.
        b.run.one_game_per_opening = true;
    } else if games == 1 && rounds > 1 {
        b.warnings.add(format!(
            "-games 1 -rounds {rounds}: the arena plays each opening twice with colours swapped, so consecutive games share an opening"
        ));
    }
    let total = u64::from(games) * u64::from(rounds);
    u32::try_from(total)
        .ok()
        .filter(|t| *t <= crate::settings::limits::GAMES.max)
        .ok_or_else(|| {
            format!(
                "-games {games} x -rounds {rounds} is {total} games per pairing; at most {}",
                crate::settings::limits::GAMES.max
            )
        })
}

/// What `-version` prints: OpenBench reads the first `N.N.N` of it. Built by `make`, the
/// commit follows as fastchess prints its own (`DATE-SHA`, from the Makefile's `GIT_DATE` and
/// `GIT_SHA`), which is what a fishtest worker would check.
pub fn version_line() -> String {
    let commit = match (
        option_env!("BLITZ_ARENA_GIT_DATE"),
        option_env!("BLITZ_ARENA_GIT_SHA"),
    ) {
        (_, None | Some("")) => String::new(),
        (None | Some(""), Some(sha)) => format!(" {sha}"),
        (Some(date), Some(sha)) => format!(" {date}-{sha}"),
    };
    format!(
        "blitz-arena {}{commit} (fastchess and cutechess-cli compatible command line)",
        env!("CARGO_PKG_VERSION")
    )
}

/// `fastchess-tests` (what `make tests` builds and fishtest's worker runs after it), run with
/// no argument: the fastchess command line of a two-game match between two built-in engines,
/// which exits 0 if both games were played and counted. None for any other invocation.
pub fn self_test(argv: &[String]) -> Option<Vec<String>> {
    let [program] = argv else {
        return None;
    };
    let name = Path::new(program).file_stem()?.to_string_lossy();
    if name != "fastchess-tests" {
        return None;
    }
    let exe = std::env::current_exe().ok()?;
    let exe = exe.to_string_lossy();
    let args = format!(
        "-engine|cmd={exe}|args=engine greedy|name=greedy|-engine|cmd={exe}|args=engine random|name=random|-each|tc=2+0.02|-rounds|1|-maxmoves|20"
    );
    Some(args.split('|').map(String::from).collect())
}

/// What `fastchess-tests` prints first: what it checks, and where the real tests are.
pub const SELF_TEST_NOTE: &str = "fastchess-tests: two games between blitz-arena's built-in \
     engines through the fastchess command line (blitz-arena's own tests: cargo test --release)";

/// What `-help` prints.
pub fn help_text() -> String {
    let mut text = format!(
        "{}\n\nUsage: blitz-arena -engine cmd=PATH [name=N] [tc=8+0.08] [option.X=V] ... -engine ... [-each KEY=VALUE ...] [OPTIONS]\n\
         (also as `fastchess ...` or `cutechess-cli ...`; blitz-arena's own commands: blitz-arena --help)\n\n\
         Options that map to blitz-arena's run:\n",
        version_line()
    );
    let names: Vec<String> = OPTIONS
        .iter()
        .filter(|(n, _)| !REFUSED.contains(n))
        .map(|(n, _)| format!("-{n}"))
        .collect();
    let refused: Vec<String> = REFUSED.iter().map(|n| format!("-{n}")).collect();
    text.push_str(&format!(
        "  {}\n\nRefused, with one line saying what to give instead:\n  {}\n\nAccepted with a warning:\n",
        names.join(" "),
        refused.join(" ")
    ));
    for (name, instead) in IGNORED {
        text.push_str(&format!("  -{name}: {instead}\n"));
    }
    text.push_str("\nEvery option and what it maps to: docs/fastchess.md.");
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    fn run(s: &str) -> Result<CompatRun, CompatError> {
        match parse(Tool::Fastchess, &words(s), Path::new("/w"))? {
            Request::Run(run) => Ok(*run),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invocation_by_name_or_first_argument() {
        let argv = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(invocation(&argv(&["/x/fastchess"])), Some(Tool::Fastchess));
        assert_eq!(
            invocation(&argv(&["cutechess-cli", "-x"])),
            Some(Tool::Cutechess)
        );
        assert_eq!(
            invocation(&argv(&["blitz-arena", "-engine"])),
            Some(Tool::Fastchess)
        );
        assert_eq!(invocation(&argv(&["blitz-arena", "--help"])), None);
        assert_eq!(invocation(&argv(&["blitz-arena", "gauntlet"])), None);
        assert_eq!(invocation(&argv(&["blitz-arena"])), None);
    }

    #[test]
    fn a_match_of_two_engines() {
        let r = run("-engine cmd=./a name=A tc=8+0.08 -engine cmd=b name=B -each tc=10+0.1 option.Hash=16 -rounds 5 -repeat -concurrency 2 -srand 7 -recover").unwrap();
        assert_eq!(r.format, Format::Gauntlet);
        assert_eq!(r.names, ["A", "B"]);
        assert_eq!(r.run.games, Some(10));
        assert_eq!(r.run.concurrency, Some(2));
        assert_eq!(r.run.seed, Some(7));
        // -each comes after every -engine: its tc wins.
        assert_eq!(r.run.tc.unwrap().to_string(), "10s+0.1s");
        let roster = r.run.roster.as_ref().unwrap();
        assert_eq!(
            roster.engines["A"].options,
            [("Hash".to_string(), "16".to_string())]
        );
        assert_eq!(roster.engines["A"].tc, None);
        assert_eq!(r.run.output_format, OutputFormat::Fastchess);
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(r.warnings[0].starts_with("-recover: ignored: always on"));
    }

    #[test]
    fn games_rounds_and_repeat_as_fastchess() {
        let e = "-engine cmd=a -engine cmd=b -each tc=1+0";
        assert_eq!(run(e).unwrap().run.games, Some(4));
        assert_eq!(
            run(&format!("{e} -games 2 -rounds 3")).unwrap().run.games,
            Some(6)
        );
        assert_eq!(
            run(&format!("{e} -games 30 -rounds 2")).unwrap().run.games,
            Some(60)
        );
        assert!(matches!(
            run(&format!("{e} -games 30 -rounds 3")),
            Err(CompatError::Usage(_))
        ));
        let one = run(&format!("{e} -games 1 -rounds 3")).unwrap();
        assert_eq!(one.run.games, Some(3));
        // Each round a new opening, colours alternating, as fastchess plays it.
        assert!(one.run.one_game_per_opening);
        assert!(one.warnings.is_empty(), "{:?}", one.warnings);
    }

    #[test]
    fn three_engines_are_a_round_robin_and_times_may_differ() {
        let r = run("-engine cmd=a tc=1+0 -engine cmd=b tc=2+0 -engine cmd=c tc=1+0").unwrap();
        assert_eq!(r.format, Format::RoundRobin);
        assert_eq!(r.names, ["a", "b", "c"]);
        let roster = r.run.roster.unwrap();
        assert_eq!(roster.engines["b"].tc.unwrap().to_string(), "2s+0");
        assert_eq!(roster.engines["c"].tc, None);
    }

    #[test]
    fn mistakes_are_usage_errors_or_invalid_runs() {
        let e = "-engine cmd=a -engine cmd=b -each tc=1+0";
        assert!(
            matches!(run(&format!("{e} -bogus 1")), Err(CompatError::Usage(m)) if m.contains("unknown option -bogus"))
        );
        assert!(
            matches!(run("-engine name=a tc=1+0 -engine cmd=b tc=1+0"), Err(CompatError::Invalid(m)) if m.contains("no cmd="))
        );
        assert!(
            matches!(run("-engine cmd=a -engine cmd=b"), Err(CompatError::Invalid(m)) if m.contains("no time control"))
        );
        assert!(
            matches!(run("-engine cmd=a tc=inf -engine cmd=b tc=inf"), Err(CompatError::Invalid(m)) if m.contains("needs nodes="))
        );
        assert!(
            matches!(run("-engine cmd=a nodes=5 tc=inf -engine cmd=b nodes=6 tc=inf"), Err(CompatError::Invalid(m)) if m.contains("differ in nodes"))
        );
        assert!(matches!(
            run("-engine cmd=a tc=1+0"),
            Err(CompatError::Invalid(_))
        ));
        assert_eq!(
            run(&format!("{e} -each tc=40/60+0.6"))
                .unwrap()
                .run
                .tc
                .unwrap()
                .moves,
            Some(40)
        );
    }

    #[test]
    fn adjudication_sprt_and_files() {
        let r = run("-engine cmd=a -engine cmd=b -each tc=inf nodes=1000 -draw movenumber=34 movecount=8 score=20 -resign movecount=3 score=600 -sprt elo0=0 elo1=2 alpha=0.05 beta=0.05 model=normalized -maxmoves 80 -pgnout file=x.pgn nodes=true append=false -epdout file=x.epd -output format=cutechess -ratinginterval 0").unwrap();
        assert!(r.run.draw_adjudication.is_some() && r.run.resign_adjudication.is_some());
        assert!(r.run.sprt.is_some());
        assert_eq!(r.run.max_moves, Some(80));
        assert_eq!(r.run.nodes, Some(1000));
        assert_eq!(r.run.tc, Some(tc::INFINITE));
        assert_eq!(r.truncate, [PathBuf::from("x.pgn")]);
        assert_eq!(r.run.epdout, Some(PathBuf::from("x.epd")));
        assert_eq!(r.run.output_format, OutputFormat::Cutechess);
        assert_eq!(r.run.rating_interval, Some(0));
    }

    #[test]
    fn the_event_tag_defaults_to_each_tools_own() {
        let two = "-engine cmd=a -engine cmd=b -each tc=8+0.08 -pgnout file=x.pgn";
        let event = |tool, s: &str| match parse(tool, &words(s), Path::new("/w")).unwrap() {
            Request::Run(run) => run.run.pgn_event,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            event(Tool::Fastchess, two).as_deref(),
            Some("Fastchess Tournament")
        );
        assert_eq!(event(Tool::Cutechess, two).as_deref(), Some("?"));
        let named = format!("{two} -event Batch 7");
        assert_eq!(event(Tool::Fastchess, &named).as_deref(), Some("Batch7"));
        assert_eq!(event(Tool::Cutechess, &named).as_deref(), Some("Batch7"));
    }

    #[test]
    fn quick_is_fastchess_quick_match() {
        let book = std::env::temp_dir().join(format!("quick-{}.epd", std::process::id()));
        std::fs::write(&book, "8/8/8/8/8/8/8/K1k5 w - - 0 1\n").unwrap();
        let r = run(&format!("-quick cmd=sf cmd=sf book={}", book.display())).unwrap();
        std::fs::remove_file(&book).unwrap();
        assert_eq!(r.names, ["sf1", "sf2"]);
        assert_eq!(r.run.games, Some(50_000));
        assert_eq!(r.run.tc.unwrap().to_string(), "10s+0.1s");
        assert_eq!(
            r.run.openings_order,
            Some(crate::settings::OpeningsOrder::Random)
        );
        assert_eq!(r.run.output_format, OutputFormat::Cutechess);
        let draw = r.run.draw_adjudication.unwrap();
        assert_eq!(
            draw,
            crate::settings::limits::draw_adjudication("movenumber=30,movecount=8,score=8")
                .unwrap()
        );
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(r.run.concurrency, Some(cores.saturating_sub(2).max(1)));
    }

    #[test]
    fn version_and_help() {
        assert!(matches!(
            parse(Tool::Fastchess, &words("-version"), Path::new("/")),
            Ok(Request::Version)
        ));
        assert!(matches!(
            parse(Tool::Fastchess, &words("--help"), Path::new("/")),
            Ok(Request::Help)
        ));
        assert!(matches!(
            parse(Tool::Fastchess, &[], Path::new("/")),
            Ok(Request::Help)
        ));
    }
}
