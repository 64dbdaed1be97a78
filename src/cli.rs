//! The command line: clap definitions of the commands and their options, parsed into the
//! plain values of [`crate::settings`] (the ranges of the numeric options are
//! [`crate::settings::limits`]).

use std::path::PathBuf;

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::config::Roster;
use crate::report::compat_console::OutputFormat;
use crate::report::pgnout::{Extra, Notation};
use crate::report::Sprt;
use crate::rules::illegal::IllegalKind;
use crate::rules::{DrawAdjudication, ResignAdjudication, Ruleset};
use crate::settings::limits;
use crate::settings::{
    ClaimDraws, FlagNoticeAfter, IllegalNoticeAfter, MsRange, OpeningsOrder, Shard,
};
use crate::tablebase::TbPaths;
use crate::timecontrol::TimeControl;
use crate::vocabulary::{FlagMode, Variant};

#[derive(Debug, Parser)]
#[command(
    name = "blitz-arena",
    version,
    about = "UCI engines play real-time blitz against each other, ruled as a blitz arbiter would",
    after_help = "Run `blitz-arena gauntlet minimax --vs greedy,random --tc 10s+0.1s` for a quick real gauntlet."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The command line of this process. Every option that takes a value takes a negative
    /// number as its value, so that `--games -1` is refused by the option's own range check
    /// rather than clap's hint to write `-- -1`, which would not set it.
    pub fn from_env() -> Result<Cli, clap::Error> {
        let matches = Cli::command()
            .mut_subcommands(|sub| sub.mut_args(negative_values))
            .try_get_matches()?;
        Cli::from_arg_matches(&matches)
    }
}

fn negative_values(arg: clap::Arg) -> clap::Arg {
    if arg.get_action().takes_values() {
        arg.allow_negative_numbers(true)
    } else {
        arg
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// One engine against each of several opponents.
    Gauntlet {
        /// The engine under test (a name from engines.toml).
        engine: String,
        /// Its opponents, comma-separated: --vs greedy,random
        #[arg(long, value_name = "OPP,...", value_delimiter = ',', required = true)]
        vs: Vec<String>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Every engine against every other.
    RoundRobin {
        /// Two or more engines from engines.toml.
        #[arg(value_name = "ENGINE", num_args = 2.., required = true)]
        names: Vec<String>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Run a built-in UCI engine on stdin/stdout (random, instant, greedy, minimax, faulty, script).
    #[command(after_help = format!("{}\n\n{}", crate::builtin::FAULTY_HELP.trim_end(), crate::builtin::SCRIPT_HELP))]
    Engine {
        name: String,
        /// Its arguments (`faulty`: its fault flags, e.g. --crash-after 3; `script`: --moves ...).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Start engines, complete the UCI handshake and list their options.
    Check {
        /// Engines from the roster (default: all of them).
        #[arg(value_name = "ENGINE")]
        names: Vec<String>,
        /// Engine roster.
        #[arg(long = "engines", value_name = "FILE", default_value = "engines.toml")]
        roster: PathBuf,
    },
    /// Summary tables from one or more games.csv files or results folders.
    #[command(
        long_about = "Prints the tables a run ends with, for the games of any mix of results folders \
and games.csv files counted together: the standings (games, W/D/L, score, Elo difference with \
its 95% interval, LOS, draw ratio), the time table, think time by game phase (from a folder's \
events.jsonl), the pairings, the pentanomial counts of paired openings, and the terminations.",
        after_help = "Example: blitz-arena stats results/shard-1 results/shard-2/games.csv"
    )]
    Stats {
        /// Results folders or games.csv files; their games are counted together.
        #[arg(value_name = "RESULTS", required = true)]
        results: Vec<PathBuf>,
    },
    /// Print the rulings of one ruleset, or of all, with the rule each ending cites.
    Rules {
        /// The ruleset to print [default: all six]
        #[arg(value_enum)]
        ruleset: Option<Ruleset>,
    },
    /// Re-rule a recorded run under another ruleset and show the games whose ruling differs.
    Adjudicate {
        /// A results folder, or its events.jsonl.
        results: PathBuf,
        /// The ruleset to re-rule every game under.
        #[arg(long, value_enum)]
        ruleset: Ruleset,
    },
    /// Write report.html (standings, the match, time usage, endings, each notable game's clock
    /// chart and ruling) for a results folder, or for several (the shards of one run).
    Report {
        /// Results folders; their games are reported together.
        #[arg(value_name = "DIR", required = true)]
        dirs: Vec<PathBuf>,
        /// The page to write [default: DIR/report.html; required with several folders]
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Merge the results folders of a run's shards into one results folder.
    Merge {
        /// The shards' results folders.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// The merged results folder (new).
        #[arg(long)]
        out: PathBuf,
    },
}

/// Run options; each may also be set in the `[run]` table of engines.toml (the command line
/// wins). Every numeric option has a range ([`limits`]); a value outside it is a usage error.
#[derive(Debug, Default, Args)]
pub struct RunArgs {
    /// Engine roster [default: engines.toml]; a resumed run's engines come from its run.json
    #[arg(long, value_name = "FILE")]
    pub engines: Option<PathBuf>,
    /// Time control for both sides. Bare numbers are minutes + seconds (FIDE/PGN): 10+0.1 is 10
    /// minutes plus 0.1 s a move (cutechess's 10 seconds is 10s+0.1s); 5+0, 3+2, G/5, G/5;d2
    /// (2 s delay), 30s+0.3s, 500ms+5ms, 2m+1s; each time 0 to 1000000000000 ms, not all zero;
    /// printed in words when the run starts [default: 5+0]
    // A value may start with `-`, so that `--tc -1` is refused by the time control's own
    // one-line error rather than clap's hint to write `-- -1`, which would not set it.
    #[arg(long, allow_hyphen_values = true)]
    pub tc: Option<TimeControl>,
    /// Games per pairing, 1 to 1000000; each opening is played twice with colours swapped [default: 2]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::GAMES.parse(s))]
    pub games: Option<u32>,
    /// Each opening is played once, the players taking white in turn (fastchess's
    /// `-games 1 -rounds N`, for data generation), not twice with colours swapped
    #[arg(long)]
    pub one_game_per_opening: bool,
    /// Opening book: EPD (one FEN per line), PGN, or Polyglot (.bin: lines drawn by the
    /// entries' weights, seeded by --seed) [default: the start position]
    #[arg(long, value_name = "FILE")]
    pub openings: Option<PathBuf>,
    /// Order of the book [default: random]
    #[arg(long, value_enum)]
    pub openings_order: Option<OpeningsOrder>,
    /// Start from the book's N-th opening (after its shuffle when the order is random),
    /// 1 to 1000000000; a short book wraps around. Polyglot: line N is the first drawn [default: 1]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::OPENINGS_START.parse(s))]
    pub openings_start: Option<u64>,
    /// A PGN book: play at most N plies of each game, 1 to 10000 [default: all]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::OPENING_PLIES.parse(s))]
    pub opening_plies: Option<u32>,
    /// The game: standard chess, or Chess960 (needs a book of Chess960 positions; engines
    /// get UCI_Chess960) [default: standard]
    #[arg(long, value_enum)]
    pub variant: Option<Variant>,
    /// A Polyglot book: draw at most N plies per opening, 1 to 10000 [default: until out of book]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::BOOK_DEPTH.parse(s))]
    pub book_depth: Option<u32>,
    /// Games played at once, 1 to 1024 [default: the number of CPUs]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::CONCURRENCY.parse(s))]
    pub concurrency: Option<usize>,
    /// The blitz code that rules every game [default: fide]
    #[arg(long, value_enum)]
    pub ruleset: Option<Ruleset>,
    /// Seeds the arena's random choices (book order, injections, watchers; not the engines':
    /// a built-in engine takes its own Seed option), 0 to 18446744073709551615 [default:
    /// random, printed]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::SEED.parse(s))]
    pub seed: Option<u64>,
    /// Results folder [default: results/<UTC time>-<format>]
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Adjudicate a draw after N full moves, 1 to 10000 [default: off]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::MAX_MOVES.parse(s))]
    pub max_moves: Option<u32>,
    /// Search at most N nodes per move, 1 to 1000000000000 (sent with go; the clock still runs) [default: off]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::NODES.parse(s))]
    pub nodes: Option<u64>,
    /// Search at most N plies per move, 1 to 255 (sent with go; the clock still runs) [default: off]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::DEPTH.parse(s))]
    pub depth: Option<u32>,
    /// Score-based draw adjudication, cutechess conventions: movenumber=40,movecount=8,score=10;
    /// movenumber 0 to 10000, movecount 1 to 10000, score 0 to 100000 cp [default: off]
    #[arg(long, value_name = "movenumber=,movecount=,score=", value_parser = limits::draw_adjudication)]
    pub draw_adjudication: Option<DrawAdjudication>,
    /// Score-based resign adjudication, cutechess conventions: movecount=3,score=1000[,twosided=true];
    /// movecount 1 to 10000, score 0 to 100000 cp [default: off]
    #[arg(long, value_name = "movecount=,score=", value_parser = limits::resign_adjudication)]
    pub resign_adjudication: Option<ResignAdjudication>,
    /// Syzygy tablebase adjudication: the tables' folders, separated by : or ; (the WDL files,
    /// *.rtbw, are enough). A game ends with the tables' result the moment a move leaves a
    /// position they hold; a cursed win is a draw (50-move rule) [default: off]
    #[arg(long, value_name = "PATHS")]
    pub tb: Option<TbPaths>,
    /// With --tb: adjudicate positions of at most N pieces, 3 to 7 [default: the most the tables hold]
    #[arg(long, value_name = "N", value_parser = |s: &str| limits::TB_PIECES.parse(s))]
    pub tb_pieces: Option<usize>,
    /// Every engine ponders (thinks on the opponent's time: go ponder, ponderhit, stop on a
    /// miss), as `ponder = true` in its engines.toml table; an engine without the UCI option
    /// Ponder plays without pondering (a warning says so)
    #[arg(long)]
    pub ponder: bool,
    /// A fallen flag loses even when the opponent cannot mate, as fastchess rules (its command
    /// line sets it); otherwise the ruleset's material rule decides
    #[arg(long)]
    pub flag_always_loses: bool,
    /// Tolerance in ms before a flag counts, 0 to 600000 (off the rules; reported in the summary) [default: 0]
    #[arg(long, value_name = "MS", value_parser = |s: &str| limits::TIME_MARGIN.parse(s))]
    pub time_margin: Option<u64>,
    /// Watchers: mean delay in ms before a fallen flag is noticed, 0 to 600000 (exponential; 0 = at once) [default: 0]
    #[arg(long, value_name = "MS", value_parser = |s: &str| limits::FLAG_NOTICE_MS.parse(s))]
    pub flag_notice_ms: Option<f64>,
    /// Watchers: how long a claim takes in ms, 0 to 600000; the running clock keeps running [default: 0]
    #[arg(long, value_name = "MS", value_parser = |s: &str| limits::CLAIM_MS.parse(s))]
    pub claim_ms: Option<u64>,
    /// Watchers: probability, 0 to 1, that a completed illegal move is noticed before the opponent moves [default: 1.0]
    #[arg(long, value_name = "P", value_parser = |s: &str| limits::ILLEGAL_NOTICE.parse(s))]
    pub illegal_notice: Option<f64>,
    /// Watchers, exact: when each watcher notices the opponent's fallen flag, in place of
    /// --flag-notice-ms: MS after the fall (0 to 600000), press (as its own side next moves) or
    /// never; one for both, or white=WHEN,black=WHEN (by the watcher's side) [default: off]
    #[arg(long, value_name = "WHEN")]
    pub flag_notice_after: Option<FlagNoticeAfter>,
    /// Watchers, exact: an illegal move is noticed after PLIES further plies (0: before the
    /// opponent moves; later is too late and it stands) or never, in place of --illegal-notice [default: off]
    #[arg(long, value_name = "PLIES")]
    pub illegal_notice_after: Option<IllegalNoticeAfter>,
    /// Watchers: claim threefold repetition and the 50-move rule as soon as possible, or never [default: always]
    #[arg(long, value_enum)]
    pub claim_draws: Option<ClaimDraws>,
    /// Injection: probability, 0 to 1, that an engine's move is replaced by an illegal one [default: 0]
    #[arg(long, value_name = "P", value_parser = |s: &str| limits::INJECT_ILLEGAL.parse(s))]
    pub inject_illegal: Option<f64>,
    /// Injection: the kinds of illegal move to draw from [default: all]
    #[arg(long, value_enum, value_delimiter = ',', value_name = "KIND,...")]
    pub illegal_kinds: Option<Vec<IllegalKind>>,
    /// Injection: probability, 0 to 1, that a game gets a flag fall on purpose [default: 0]
    #[arg(long, value_name = "P", value_parser = |s: &str| limits::INJECT_FLAG.parse(s))]
    pub inject_flag: Option<f64>,
    /// Injection: stall (one flag falls), both (both fall, the first unnoticed until the second), at-mate (the mater flags just before its mating move) [default: stall]
    #[arg(long, value_enum)]
    pub inject_flag_mode: Option<FlagMode>,
    /// Injection: how long past its flag a held move is released, a range in ms, each end 0 to 600000 [default: 0..500]
    #[arg(long, value_name = "LOW..HIGH", value_parser = limits::ms_range)]
    pub flag_overshoot_ms: Option<MsRange>,
    /// Injection, `both`: the time between the two flag falls, a range in ms, each end 0 to 600000 [default: 0..2000]
    #[arg(long, value_name = "LOW..HIGH", value_parser = limits::ms_range)]
    pub flag_gap_ms: Option<MsRange>,
    /// Sequential test for a two-engine match (normalized Elo, pentanomial GSPRT as fishtest):
    /// elo0=0,elo1=5,alpha=0.05,beta=0.05; elo0 < elo1, each from -200 to 200; alpha and beta
    /// above 0, their sum below 1; the run stops when a bound is crossed [default: off]
    #[arg(long, value_name = "elo0=,elo1=,alpha=,beta=")]
    pub sprt: Option<Sprt>,
    /// Continue an interrupted run in its results folder, as it was planned (run.json).
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Play only the K-th of N disjoint slices of the schedule (whole pairs of games);
    /// 1 <= K <= N, N from 1 to 10000.
    #[arg(long, value_name = "K/N", value_parser = limits::shard)]
    pub shard: Option<Shard>,
    /// Print a line per finished game above the progress bar.
    #[arg(long, short)]
    pub verbose: bool,
    /// Console output: native, or the lines fastchess or cutechess-cli print, on stdout, for
    /// OpenBench, fishtest and scripts that parse them (the native summary goes to stderr)
    #[arg(long, value_enum, default_value_t)]
    pub output_format: OutputFormat,
    /// With --output-format fastchess|cutechess: the results block every N pairs (fastchess)
    /// or games (cutechess), 0 for only at the end [default: 10]
    #[arg(long, value_name = "N")]
    pub rating_interval: Option<u32>,
    /// With --output-format cutechess: the `Score of` line every N games [default: 1]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub score_interval: Option<u32>,
    /// Also append each finished game to FILE in fastchess's PGN format (its per-move
    /// comments and Termination names), beside the results folder's games.pgn
    #[arg(long, value_name = "FILE")]
    pub pgnout: Option<PathBuf>,
    /// --pgnout's move notation: san, lan or uci [default: san]
    #[arg(long, value_enum, value_name = "NOTATION")]
    pub pgnout_notation: Option<Notation>,
    /// --pgnout's extra comment fields, comma-separated: nodes (n=), seldepth (sd=), nps (nps=);
    /// written in that order, as fastchess does
    #[arg(long, value_enum, value_name = "FIELD,...", value_delimiter = ',')]
    pub pgnout_extras: Vec<Extra>,
    /// Also append each finished game's final position to FILE as an EPD line, as fastchess does
    #[arg(long, value_name = "FILE")]
    pub epdout: Option<PathBuf>,
    /// Engines given on a fastchess / cutechess-cli command line ([`crate::compat`]), in
    /// place of the `--engines` file.
    #[arg(skip)]
    pub roster: Option<Roster>,
    /// fastchess's `-event`: the `Event` tag of the --pgnout file.
    #[arg(skip)]
    pub pgn_event: Option<String>,
    /// fastchess's `-site`: the `Site` tag of the --pgnout file.
    #[arg(skip)]
    pub pgn_site: Option<String>,
    /// fastchess's `-crc32 pgn=true`: print the --pgnout file's CRC-32 after each game.
    #[arg(skip)]
    pub pgnout_crc: bool,
    /// Games in fastchess's order (`tournament::schedule`), for the fastchess command line.
    #[arg(skip)]
    pub fastchess_order: bool,
    /// fastchess's `-report penta=false`: the results and the SPRT count games (wins, draws,
    /// losses), not pairs.
    #[arg(skip)]
    pub trinomial: bool,
    /// fastchess's `-check-mate-pvs`: check the PV of every scored `info` line, printing
    /// fastchess's warnings (`pvcheck`); only with --output-format fastchess|cutechess.
    #[arg(skip)]
    pub check_mate_pvs: bool,
}
