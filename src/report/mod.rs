//! Everything the results folder holds: the PGN of each game,
//! `games.csv`, `events.jsonl`, and the statistics printed at the end and written to
//! `summary.csv`.

pub mod compat_console;
pub mod crc32;
pub mod csv;
pub mod csv_cell;
pub mod eco;
pub mod events_json;
pub mod folder;
pub mod html;
pub mod injections;
pub mod latency;
pub mod pgn;
pub mod pgnout;
pub mod phases;
pub mod pondering;
pub mod reconcile;
pub mod results;
pub mod sprt;
pub mod stats;
pub mod tally;

pub use self::csv::{read_rows, GameRow, COLUMNS};
pub use self::folder::{read_bytes, FolderLock, EVENTS_JSONL, GAMES_CSV, GAMES_PGN, SUMMARY_CSV};
pub use self::injections::InjectionSummary;
pub use self::pgn::game_pgn;
pub use self::phases::{phase_times, Phase, PhaseTimes};
pub use self::reconcile::{reconcile, EventsIndex, Reconciled};
pub use self::results::{load_records, Rendered, ResultsDir};
pub use self::sprt::{Sprt, SprtCounts, SprtError, SprtStatus};
pub use self::stats::{
    elo_from_score, erf, erfc, pentanomial, EngineStats, PairingStats, PentaStats, PentaTally,
    SprtOutcome, SprtStop, SprtTally, Summary, Wdl, SUMMARY_COLUMNS,
};
pub use self::tally::Tally;
