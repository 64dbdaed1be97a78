//! `games.csv`: one row per finished game.
//!
//! Columns, in order:
//!
//! | column | meaning |
//! |---|---|
//! | `game` | 1-based number of the game in the run's schedule |
//! | `white`, `black` | engine names |
//! | `opening` | the opening's label (`startpos`, or its index and name in the book) |
//! | `ruleset` | `fide`, `uscf`, `wbca`, `generic`, `house`, `online` |
//! | `tc_white`, `tc_black` | time controls as the `--tc` syntax writes them (`5+0`, `10s+0.1s`) |
//! | `result` | `1-0`, `0-1`, `1/2-1/2`; empty for a record cut off before its end |
//! | `termination` | the fixed vocabulary of `Termination` (`checkmate`, `flag`, ...) |
//! | `rule` | the rule cited (`FIDE A4.3`) |
//! | `plies` | legal moves of the game proper (book moves not counted) |
//! | `white_ms_left`, `black_ms_left` | clocks at the end, in ms (negative after a flag fell) |
//! | `white_flag_ms`, `black_flag_ms` | ms since the start at which the flag fell; empty if not |
//! | `illegal_moves` | illegal moves played (noticed or not) |
//! | `injected` | faults injected by the arena: `what@side:ms` items separated by `; ` |
//! | `duration_ms` | time from the start to the end of the game |
//! | `seed` | the run's seed |
//! | `white_moves`, `black_moves` | legal moves made by each side |
//! | `white_think_ms`, `black_think_ms` | total think time of each side's legal moves |
//! | `started` | UTC start time, RFC 3339 |
//! | `detail` | the ending's detail (`white flag fell`) |
//! | `white_cpu_ms`, `black_cpu_ms` | CPU time each side's engine got during its legal moves' searches; empty when not measured |
//! | `white_starved`, `black_starved` | each side's legal moves whose search was starved of CPU (`CpuUse::starved`) |
//! | `starved_time_loss` | `white` or `black`: the side lost on time (or its flag fell in a draw) and its last move was starved of CPU; empty otherwise |
//!
//! The last five came later: a games.csv without them still reads (empty, 0, empty).
//!
//! Milliseconds are floored from the record's microseconds, so a clock that is below zero by
//! any amount is negative in the CSV.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{anyhow, bail, Context};
use serde::{Deserialize, Serialize};

use super::folder::{torn_tail_len, GAMES_CSV};
use crate::event::{BySide, Event, GameRecord, GameResult, Queening, Side, Termination};
use crate::rules::Ruleset;

/// The columns of `games.csv`, in order.
pub const COLUMNS: [&str; 31] = [
    "game",
    "pair",
    "white",
    "black",
    "opening",
    "ruleset",
    "tc_white",
    "tc_black",
    "result",
    "termination",
    "rule",
    "plies",
    "white_ms_left",
    "black_ms_left",
    "white_flag_ms",
    "black_flag_ms",
    "illegal_moves",
    "injected",
    "duration_ms",
    "seed",
    "white_moves",
    "black_moves",
    "white_think_ms",
    "black_think_ms",
    "started",
    "detail",
    "white_cpu_ms",
    "black_cpu_ms",
    "white_starved",
    "black_starved",
    "starved_time_loss",
];

/// Columns added after the first versions: a games.csv without them still reads.
const LATER_COLUMNS: [&str; 6] = [
    "pair",
    "white_cpu_ms",
    "black_cpu_ms",
    "white_starved",
    "black_starved",
    "starved_time_loss",
];

/// One row of `games.csv`. The field order is the column order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRow {
    pub game: u64,
    /// The game's pair (same opening, colours swapped); 0 when unknown.
    #[serde(default)]
    pub pair: u64,
    pub white: String,
    pub black: String,
    pub opening: String,
    pub ruleset: Ruleset,
    pub tc_white: String,
    pub tc_black: String,
    /// `None` only for a record cut off before its end.
    pub result: Option<GameResult>,
    pub termination: Option<Termination>,
    pub rule: String,
    pub plies: u32,
    pub white_ms_left: i64,
    pub black_ms_left: i64,
    pub white_flag_ms: Option<i64>,
    pub black_flag_ms: Option<i64>,
    pub illegal_moves: u32,
    /// Faults the arena injected in this game: `illegal:king-exposed@white:1520; flag:stall@black:8000`
    /// (what, which side, ms after the start).
    pub injected: String,
    pub duration_ms: i64,
    pub seed: u64,
    pub white_moves: u32,
    pub black_moves: u32,
    pub white_think_ms: i64,
    pub black_think_ms: i64,
    pub started: String,
    pub detail: String,
    #[serde(default)]
    pub white_cpu_ms: Option<i64>,
    #[serde(default)]
    pub black_cpu_ms: Option<i64>,
    #[serde(default)]
    pub white_starved: u32,
    #[serde(default)]
    pub black_starved: u32,
    /// The side whose time loss came after a starved move (`GameRecord::starved_time_loss`).
    #[serde(default)]
    pub starved_time_loss: Option<Side>,
}

/// Microseconds to milliseconds, rounding down (so any negative time stays negative).
fn ms(us: i64) -> i64 {
    us.div_euclid(1000)
}

/// Text for a single CSV line: line breaks become spaces, so that every row is one line and a
/// torn write can only ever damage the last line of the file.
pub fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// What a game's row counts over its events, found in one pass over them (`GameRecord`'s
/// own readers each walk the events again: `queened`, `flag_us`, `illegal_moves`,
/// `injections`).
struct Tally {
    moves: BySide<u32>,
    think_us: BySide<i64>,
    cpu_us: BySide<Option<i64>>,
    starved: BySide<u32>,
    /// Clocks if the record has no end: the last ones known.
    last_clock: BySide<i64>,
    /// Each side's first fallen flag (`GameRecord::flag_us`).
    flag_us: BySide<Option<i64>>,
    illegal_moves: u32,
    /// The injections as the `injected` column writes them.
    injected: String,
}

impl Tally {
    fn of(r: &GameRecord) -> Tally {
        let mut t = Tally {
            moves: BySide::default(),
            think_us: BySide::default(),
            cpu_us: BySide::default(),
            starved: BySide::default(),
            last_clock: BySide::from_fn(|side| r.tc(side).base.as_micros() as i64),
            flag_us: BySide::default(),
            illegal_moves: 0,
            injected: String::new(),
        };
        // A pawn sent without its piece that the rules made a queen counts as a move of its
        // side (`GameRecord::queened`).
        let mut queening = Queening::default();
        for e in &r.events {
            if let Some(side) = queening.see(e) {
                t.moves[side] += 1;
            }
            match e {
                Event::Move {
                    side,
                    think_us,
                    clock_us,
                    info,
                    ..
                } => {
                    t.moves[*side] += 1;
                    t.think_us[*side] += think_us;
                    t.last_clock[*side] = *clock_us;
                    if let Some(cpu) = info.cpu {
                        *t.cpu_us[*side].get_or_insert(0) += cpu.run_us;
                        t.starved[*side] += u32::from(cpu.starved(*think_us));
                    }
                }
                Event::IllegalMove { side, clock_us, .. } => {
                    t.last_clock[*side] = *clock_us;
                    t.illegal_moves += 1;
                }
                Event::Go { side, clock_us, .. } => t.last_clock[*side] = *clock_us,
                Event::FlagFall { t_us, side } => {
                    t.flag_us[*side].get_or_insert(*t_us);
                }
                Event::Injected { t_us, side, what } => {
                    if !t.injected.is_empty() {
                        t.injected.push_str("; ");
                    }
                    let _ = write!(
                        t.injected,
                        "{}@{}:{}",
                        what.label(),
                        side.name(),
                        t_us / 1000
                    );
                }
                _ => {}
            }
        }
        t
    }
}

impl GameRow {
    pub fn from_record(r: &GameRecord) -> GameRow {
        let t = Tally::of(r);
        // The `End` event, last or nearly so, found from the end.
        let outcome = r.outcome();
        let clocks = outcome.as_ref().map_or(t.last_clock, |o| o.clock_us);
        let duration_us = outcome
            .as_ref()
            .map_or_else(|| r.events.last().map_or(0, Event::t_us), |o| o.t_us);
        GameRow {
            game: r.game,
            pair: r.pair,
            white: one_line(&r.white),
            black: one_line(&r.black),
            opening: one_line(&r.opening.name),
            ruleset: r.ruleset,
            tc_white: r.tc_white.to_string(),
            tc_black: r.tc_black.to_string(),
            result: outcome.as_ref().map(|o| o.result),
            termination: outcome.as_ref().map(|o| o.termination),
            rule: one_line(outcome.as_ref().map_or("", |o| o.rule)),
            plies: t.moves.white + t.moves.black,
            white_ms_left: ms(clocks.white),
            black_ms_left: ms(clocks.black),
            white_flag_ms: t.flag_us.white.map(ms),
            black_flag_ms: t.flag_us.black.map(ms),
            illegal_moves: t.illegal_moves,
            injected: t.injected,
            duration_ms: ms(duration_us),
            seed: r.seed,
            white_moves: t.moves.white,
            black_moves: t.moves.black,
            white_think_ms: ms(t.think_us.white),
            black_think_ms: ms(t.think_us.black),
            started: one_line(&r.started),
            detail: one_line(outcome.as_ref().map_or("", |o| o.detail)),
            white_cpu_ms: t.cpu_us.white.map(ms),
            black_cpu_ms: t.cpu_us.black.map(ms),
            white_starved: t.starved.white,
            black_starved: t.starved.black,
            starved_time_loss: r.starved_time_loss().map(|(side, ..)| side),
        }
    }

    /// The engine playing `side`.
    pub fn engine(&self, side: Side) -> &str {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }

    /// The side `engine` played, if it played this game.
    pub fn side_of(&self, engine: &str) -> Option<Side> {
        if self.white == engine {
            Some(Side::White)
        } else if self.black == engine {
            Some(Side::Black)
        } else {
            None
        }
    }

    pub fn ms_left(&self, side: Side) -> i64 {
        match side {
            Side::White => self.white_ms_left,
            Side::Black => self.black_ms_left,
        }
    }

    pub fn flag_ms(&self, side: Side) -> Option<i64> {
        match side {
            Side::White => self.white_flag_ms,
            Side::Black => self.black_flag_ms,
        }
    }

    pub fn moves(&self, side: Side) -> u32 {
        match side {
            Side::White => self.white_moves,
            Side::Black => self.black_moves,
        }
    }

    pub fn think_ms(&self, side: Side) -> i64 {
        match side {
            Side::White => self.white_think_ms,
            Side::Black => self.black_think_ms,
        }
    }

    /// `side`'s legal moves whose search was starved of CPU.
    pub fn starved(&self, side: Side) -> u32 {
        match side {
            Side::White => self.white_starved,
            Side::Black => self.black_starved,
        }
    }

    /// CPU time `side`'s engine got during its legal moves' searches, when measured.
    pub fn cpu_ms(&self, side: Side) -> Option<i64> {
        match side {
            Side::White => self.white_cpu_ms,
            Side::Black => self.black_cpu_ms,
        }
    }

    /// The header line of `games.csv`, with its newline.
    pub fn csv_header() -> String {
        let mut line = COLUMNS.join(",");
        line.push('\n');
        line
    }

    /// This row as one CSV line, with its newline: written in one piece, so that a kill can
    /// only tear the last line of the file. Text cells are neutralised (`report::csv_cell`).
    pub fn to_csv_line(&self) -> anyhow::Result<Vec<u8>> {
        super::csv_cell::serialize_line(self)
    }
}

/// Reads `games.csv` (or the `games.csv` of a results folder).
///
/// A last line without its newline is a row torn by a run killed mid-write (rows are written
/// whole, newline included): it is dropped. A file that is not a games.csv is an error that
/// names the first missing column; a damaged row elsewhere is an error that names its line.
pub fn read_rows(path: &Path) -> anyhow::Result<Vec<GameRow>> {
    Ok(read_rows_reporting(path)?.0)
}

/// What a reader of the results folder `dir` says when [`read_rows_reporting`] dropped a torn
/// last line of its `games.csv` (`torn` bytes); `None` when it dropped nothing.
pub fn torn_warning(dir: &Path, torn: u64) -> Option<String> {
    (torn > 0).then(|| {
        format!(
            "{}: {GAMES_CSV}: left out a half-written last line ({torn} bytes)",
            dir.display()
        )
    })
}

/// [`read_rows`], and the length in bytes of the torn last line it dropped (0 if none). The
/// file is streamed: only the rows are kept.
pub fn read_rows_reporting(path: &Path) -> anyhow::Result<(Vec<GameRow>, u64)> {
    let mut rows = Vec::new();
    let torn = for_each_row(path, |row| {
        rows.push(row);
        Ok(())
    })?;
    Ok((rows, torn))
}

/// Hands each row of `games.csv` (or of a results folder's) to `each` as it is read, one at a
/// time, and returns the length of the torn last line dropped, as [`read_rows_reporting`]
/// does; the first error (the file's, or one `each` returns) stops the reading.
pub fn for_each_row(
    path: &Path,
    mut each: impl FnMut(GameRow) -> anyhow::Result<()>,
) -> anyhow::Result<u64> {
    let joined;
    let path = if path.is_dir() {
        joined = path.join(GAMES_CSV);
        joined.as_path()
    } else {
        path
    };
    let cannot = |e: std::io::Error| anyhow!("cannot read {}: {e}", path.display());
    let file = super::folder::open_read(path).map_err(cannot)?;
    let torn = torn_tail_len(&file).map_err(cannot)?;
    let len = file.metadata().map_err(cannot)?.len();
    // A row's own error is the file's (its path comes first); one `each` returns is its own.
    let mut failed = None;
    let mut hand = |row| {
        each(row).map_err(|e| {
            failed = Some(e);
            anyhow!("stopped")
        })
    };
    let read = if len <= GameRow::csv_header().len() as u64 {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut &file, &mut bytes).map_err(cannot)?;
        parse_rows(&bytes, &mut hand)
    } else {
        parse_from(std::io::BufReader::new(file), torn > 0, &mut hand)
    };
    if let Some(e) = failed {
        return Err(e);
    }
    read.with_context(|| path.display().to_string())?;
    Ok(torn)
}

fn parse_rows(
    bytes: &[u8],
    each: &mut impl FnMut(GameRow) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    if !bytes.contains(&b'\n') && GameRow::csv_header().as_bytes().starts_with(bytes) {
        // Empty, or a header torn before its newline: no games yet.
        return Ok(());
    }
    parse_from(bytes, !bytes.ends_with(b"\n"), each)
}

/// The rows of a games.csv read from `reader`, each handed to `each` as it is read; `torn`:
/// its last line has no newline (dropped).
fn parse_from(
    reader: impl std::io::Read,
    torn: bool,
    each: &mut impl FnMut(GameRow) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut reader = ::csv::ReaderBuilder::new()
        .flexible(true)
        .from_reader(reader);
    let headers = reader
        .headers()
        .map_err(|e| anyhow!("not a games.csv: cannot read the header: {e}"))?
        .clone();
    // Columns that came later: files without them still read (pair 0, no CPU measured).
    for column in COLUMNS.into_iter().filter(|c| !LATER_COLUMNS.contains(c)) {
        if !headers.iter().any(|h| h == column) {
            // Quoted header fields can hold line breaks; the message stays on one line.
            let found: Vec<String> = headers.iter().take(8).map(one_line).collect();
            let more = if headers.len() > 8 { ", ..." } else { "" };
            bail!(
                "not a games.csv: missing column {column:?} (its header has: {}{more})",
                found.join(", ")
            );
        }
    }
    let to_row = |line: u64, record: Result<::csv::StringRecord, ::csv::Error>| {
        let record = record.map_err(|e| anyhow!("line {line}: {}", one_line(&e.to_string())))?;
        if record.len() != headers.len() {
            bail!(
                "line {line}: {} fields where the header has {}",
                record.len(),
                headers.len()
            );
        }
        super::csv_cell::restore_record(&record)
            .deserialize::<GameRow>(Some(&headers))
            .map_err(|e| anyhow!("line {line}: {}", one_line(&e.to_string())))
    };
    // Each record is turned into a row once the next one is read: the last one is dropped
    // when it is torn.
    let mut pending = None;
    let mut record = ::csv::StringRecord::new();
    loop {
        let line = reader.position().line();
        let read = match reader.read_record(&mut record) {
            Ok(true) => Ok(record.clone()),
            Ok(false) => break,
            Err(e) => Err(e),
        };
        if let Some((line, read)) = pending.replace((line, read)) {
            each(to_row(line, read)?)?;
        }
    }
    if let Some((line, read)) = pending {
        if !torn {
            each(to_row(line, read)?)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row of `bytes`, kept.
    fn parse_rows(bytes: &[u8]) -> anyhow::Result<Vec<GameRow>> {
        let mut rows = Vec::new();
        super::parse_rows(bytes, &mut |row| {
            rows.push(row);
            Ok(())
        })?;
        Ok(rows)
    }
    use crate::event::Fault;
    use crate::report::pgn::tests::{scholars_mate, Builder};

    fn flag_game() -> GameRecord {
        let mut r = Builder::new(2, "alpha", "beta")
            .moves(Side::White, 150_000, "e2e4 e7e5")
            .flag(Side::White, 412)
            .end(
                GameResult::BlackWins,
                Termination::Flag,
                "FIDE A4.3",
                "white flag fell",
            );
        r.tc_black = "10s+0.1s".parse().unwrap();
        r
    }

    #[test]
    fn header_lists_the_columns_in_order() {
        assert_eq!(
            GameRow::csv_header(),
            "game,pair,white,black,opening,ruleset,tc_white,tc_black,result,termination,rule,plies,\
             white_ms_left,black_ms_left,white_flag_ms,black_flag_ms,illegal_moves,injected,\
             duration_ms,seed,white_moves,black_moves,white_think_ms,black_think_ms,started,\
             detail,white_cpu_ms,black_cpu_ms,white_starved,black_starved,starved_time_loss\n"
        );
    }

    /// The row's one pass over the events counts what `GameRecord`'s own readers count:
    /// promotions made queens, first fallen flags, illegal moves, injections in order.
    #[test]
    fn the_rows_one_pass_counts_what_the_records_readers_count() {
        use crate::event::Injection;
        use crate::vocabulary::FlagMode;
        use crate::vocabulary::IllegalKind;
        let injected = |t_us, side, what| Event::Injected { t_us, side, what };
        let no_promotion = |t_us, side: Side, uci: &str| Event::IllegalMove {
            t_us,
            side,
            uci: uci.into(),
            think_us: 1_000,
            clock_us: 5_000,
            reason: "no piece".into(),
            kind: Some(IllegalKind::NoPromotion),
        };
        let mut rich = Builder::new(4, "a", "b")
            .event(injected(
                1_500,
                Side::White,
                Injection::Illegal {
                    kind: IllegalKind::KingExposed,
                    replaced: "e2e4".into(),
                    sent: "e1e2".into(),
                },
            ))
            .moves(Side::White, 500, "e2e4 e7e5")
            .event(no_promotion(3_000, Side::White, "a7a8"))
            .mv(Side::Black, "g8f6", 300)
            .event(no_promotion(4_000, Side::Black, "h2h1"))
            .mv(Side::Black, "f6g8", 300)
            .illegal(Side::White, "e1e5", 700, "not legal")
            .event(injected(
                9_999,
                Side::Black,
                Injection::Flag {
                    mode: FlagMode::Both,
                    overshoot_ms: 7,
                },
            ))
            .flag(Side::Black, 3)
            .flag(Side::White, 5)
            .event(Event::FlagFall {
                t_us: 1,
                side: Side::Black,
            })
            .end(
                GameResult::WhiteWins,
                Termination::Flag,
                "FIDE A4.3",
                "black flag fell",
            );
        rich.events.push(injected(
            20_000_000,
            Side::White,
            Injection::FlagNotPossible {
                mode: FlagMode::Stall,
                why: "over".into(),
            },
        ));
        for r in [rich, scholars_mate(), flag_game()] {
            let row = GameRow::from_record(&r);
            let mut moves = BySide::<u32>::default();
            for (side, ..) in r.moves() {
                moves[side] += 1;
            }
            for side in r.queened() {
                moves[side] += 1;
            }
            assert_eq!(
                (row.white_moves, row.black_moves),
                (moves.white, moves.black)
            );
            assert_eq!(row.white_flag_ms, r.flag_us(Side::White).map(ms));
            assert_eq!(row.black_flag_ms, r.flag_us(Side::Black).map(ms));
            assert_eq!(row.illegal_moves as usize, r.illegal_moves());
            let injections: Vec<String> = r
                .injections()
                .map(|(t_us, side, what)| {
                    format!("{}@{}:{}", what.label(), side.name(), t_us / 1000)
                })
                .collect();
            assert_eq!(row.injected, injections.join("; "));
            let starved = r.starved_time_loss().map(|(side, ..)| side);
            assert_eq!(row.starved_time_loss, starved);
        }
    }

    #[test]
    fn row_of_a_checkmate() {
        let row = GameRow::from_record(&scholars_mate());
        let line = String::from_utf8(row.to_csv_line().unwrap()).unwrap();
        assert_eq!(
            line,
            "1,1,alpha,beta,startpos,fide,5+0,5+0,1-0,checkmate,FIDE Laws 5.1.1,7,296000,295500,,,0,,\
             8500,42,4,3,4000,4500,2024-05-01T12:00:00Z,,,,0,0,\n"
        );
    }

    /// Every column that can hold text is neutralised when it starts like a formula, whether
    /// or not the other cells need it: a column added to the row is covered without a list.
    #[test]
    fn a_formula_in_any_text_column_is_neutralised() {
        let plain = GameRow::from_record(&scholars_mate());
        let line = String::from_utf8(plain.to_csv_line().unwrap()).unwrap();
        let cells: Vec<&str> = line.trim_end().split(',').collect();
        assert_eq!(cells.len(), COLUMNS.len());
        let mut text_columns = Vec::new();
        for column in 0..COLUMNS.len() {
            let mut edited = cells.clone();
            edited[column] = "=1+2";
            let csv = format!("{}{}\n", GameRow::csv_header(), edited.join(","));
            let mut reader = ::csv::Reader::from_reader(csv.as_bytes());
            // A column that cannot hold the text (a number, a result) refuses it.
            let Some(Ok(row)) = reader.deserialize::<GameRow>().next() else {
                continue;
            };
            text_columns.push(COLUMNS[column]);
            let written = String::from_utf8(row.to_csv_line().unwrap()).unwrap();
            let written: Vec<&str> = written.trim_end().split(',').collect();
            assert_eq!(written[column], "'=1+2", "{}", COLUMNS[column]);
            assert_eq!(
                written.iter().filter(|c| c.starts_with('\'')).count(),
                1,
                "{}",
                COLUMNS[column]
            );
        }
        assert_eq!(
            text_columns,
            [
                "white", "black", "opening", "tc_white", "tc_black", "rule", "injected", "started",
                "detail"
            ]
        );
    }

    #[test]
    fn row_of_a_flag_loss_has_negative_time_and_the_flag_instant() {
        let row = GameRow::from_record(&flag_game());
        assert_eq!(row.result, Some(GameResult::BlackWins));
        assert_eq!(row.termination, Some(Termination::Flag));
        assert_eq!(row.tc_black, "10s+0.1s");
        assert_eq!(row.white_ms_left, -412);
        assert_eq!(row.black_ms_left, 150_000);
        // White thought 150 s, Black 150 s, then White's remaining 150 s ran out.
        assert_eq!(row.white_flag_ms, Some(450_000));
        assert_eq!(row.black_flag_ms, None);
        assert_eq!(row.duration_ms, 450_412);
        assert_eq!((row.white_moves, row.black_moves, row.plies), (1, 1, 2));
        assert_eq!((row.white_think_ms, row.black_think_ms), (150_000, 150_000));
        assert_eq!(row.detail, "white flag fell");
        let line = String::from_utf8(row.to_csv_line().unwrap()).unwrap();
        assert!(line.contains(",-412,150000,450000,,0,,450412,"), "{line}");
    }

    #[test]
    fn illegal_moves_and_crashes_are_counted() {
        let r = Builder::new(3, "a", "b")
            .moves(Side::White, 500, "e2e4")
            .illegal(Side::Black, "e1e5", 700, "not legal")
            .end(
                GameResult::WhiteWins,
                Termination::IllegalMove,
                "FIDE A4.2, 7.5.5",
                "black played \"e1e5\": not legal, really\nyes",
            );
        let row = GameRow::from_record(&r);
        assert_eq!(row.illegal_moves, 1);
        assert_eq!((row.white_moves, row.black_moves), (1, 0));
        assert_eq!(row.black_ms_left, 299_300);
        // Quotes and commas are quoted; the line break became a space.
        let line = String::from_utf8(row.to_csv_line().unwrap()).unwrap();
        assert!(line.ends_with(",\"black played \"\"e1e5\"\": not legal, really yes\",,,0,0,\n"));
        assert_eq!(line.matches('\n').count(), 1);

        let r = Builder::new(4, "a", "b")
            .event(Event::EngineFault {
                t_us: 1500,
                side: Side::White,
                fault: Fault::StartFailed,
                detail: "no such file".into(),
            })
            .end(
                GameResult::BlackWins,
                Termination::EngineCrash,
                "x",
                "white: no such file",
            );
        let row = GameRow::from_record(&r);
        assert_eq!(row.termination, Some(Termination::EngineCrash));
        assert_eq!(row.plies, 0);
        assert_eq!(row.duration_ms, 0);
    }

    #[test]
    fn unterminated_record_has_empty_result_and_last_clocks() {
        let r = Builder::new(5, "a", "b")
            .moves(Side::White, 2000, "e2e4 e7e5")
            .record;
        let row = GameRow::from_record(&r);
        assert_eq!(row.result, None);
        assert_eq!(row.termination, None);
        assert_eq!((row.white_ms_left, row.black_ms_left), (298_000, 298_000));
        assert_eq!(row.duration_ms, 4000);
        let line = String::from_utf8(row.to_csv_line().unwrap()).unwrap();
        assert!(line.contains(",5+0,5+0,,,,2,"), "{line}");
    }

    #[test]
    fn rows_round_trip_and_a_torn_last_line_is_dropped() {
        let rows = [
            GameRow::from_record(&scholars_mate()),
            GameRow::from_record(&flag_game()),
        ];
        let mut file = GameRow::csv_header().into_bytes();
        for row in &rows {
            file.extend(row.to_csv_line().unwrap());
        }
        assert_eq!(parse_rows(&file).unwrap(), rows);
        // Killed while writing a third row: every cut of it is dropped, nothing fails.
        let third = GameRow::from_record(&scholars_mate())
            .to_csv_line()
            .unwrap();
        for cut in 1..third.len() {
            let mut torn = file.clone();
            torn.extend(&third[..cut]);
            assert_eq!(parse_rows(&torn).unwrap(), rows, "cut at {cut}");
        }
        // A header alone, a torn header and an empty file hold no games.
        assert!(parse_rows(GameRow::csv_header().as_bytes())
            .unwrap()
            .is_empty());
        assert!(parse_rows(b"game,pair,wh").unwrap().is_empty());
        assert!(parse_rows(b"").unwrap().is_empty());
    }

    /// The rows are handed over as they are read, never gathered first: a file whose reading
    /// fails after its first rows has handed those over before the failure, and a row the
    /// caller refuses stops the reading there.
    #[test]
    fn rows_are_handed_over_one_at_a_time_as_they_are_read() {
        /// The bytes of a games.csv, then a read that fails (a disk error past them).
        struct FailsAfter(std::io::Cursor<Vec<u8>>);
        impl std::io::Read for FailsAfter {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                match self.0.read(buf)? {
                    0 => Err(std::io::Error::other("disk error")),
                    n => Ok(n),
                }
            }
        }
        let rows = [
            GameRow::from_record(&scholars_mate()),
            GameRow::from_record(&flag_game()),
            GameRow::from_record(&scholars_mate()),
        ];
        let mut file = GameRow::csv_header().into_bytes();
        for row in &rows {
            file.extend(row.to_csv_line().unwrap());
        }
        let mut handed = Vec::new();
        let read = parse_from(
            FailsAfter(std::io::Cursor::new(file.clone())),
            false,
            &mut |row| {
                handed.push(row);
                Ok(())
            },
        );
        assert!(format!("{:#}", read.unwrap_err()).contains("disk error"));
        // Every complete row was handed over before the read that failed.
        assert_eq!(handed, rows);
        let mut handed = 0;
        let read = super::parse_rows(&file, &mut |_| {
            handed += 1;
            anyhow::ensure!(handed < 2, "refused");
            Ok(())
        });
        assert_eq!(read.unwrap_err().to_string(), "refused");
        assert_eq!(handed, 2);
    }

    /// A flag loss after starved moves: the CPU columns, the starved counts and the side
    /// whose time loss came after a starved move; an unmeasured move counts nothing.
    #[test]
    fn starved_moves_and_a_starved_time_loss_have_their_columns() {
        let r = Builder::new(6, "a", "b")
            .moves(Side::White, 300, "e2e4 e7e5")
            .cpu(290, 5)
            .moves(Side::White, 300, "g1f3")
            .cpu(40, 260)
            .moves(Side::Black, 300, "b8c6")
            .flag(Side::White, 10)
            .end(
                GameResult::BlackWins,
                Termination::Flag,
                "FIDE A4.3",
                "white flag fell",
            );
        let row = GameRow::from_record(&r);
        assert_eq!((row.white_cpu_ms, row.black_cpu_ms), (Some(40), Some(290)));
        assert_eq!((row.white_starved, row.black_starved), (1, 0));
        assert_eq!(row.starved_time_loss, Some(Side::White));
        let line = String::from_utf8(row.to_csv_line().unwrap()).unwrap();
        assert!(
            line.ends_with(",white flag fell,40,290,1,0,white\n"),
            "{line}"
        );
        let mut file = GameRow::csv_header().into_bytes();
        file.extend(line.as_bytes());
        assert_eq!(parse_rows(&file).unwrap(), [row]);
    }

    /// A games.csv written before the CPU columns existed still reads: nothing measured,
    /// nothing starved.
    #[test]
    fn a_games_csv_without_the_cpu_columns_still_reads() {
        let old_columns = &COLUMNS[..26];
        let full = String::from_utf8(
            GameRow::from_record(&scholars_mate())
                .to_csv_line()
                .unwrap(),
        )
        .unwrap();
        let fields: Vec<&str> = full.trim_end().split(',').collect();
        let file = format!("{}\n{}\n", old_columns.join(","), fields[..26].join(","));
        let rows = parse_rows(file.as_bytes()).unwrap();
        assert_eq!(rows, [GameRow::from_record(&scholars_mate())]);
        assert_eq!(rows[0].white_cpu_ms, None);
    }

    #[test]
    fn a_file_that_is_not_games_csv_names_the_missing_column() {
        let e = parse_rows(b"game,white,black,opening\n1,a,b,c\n").unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("not a games.csv"), "{msg}");
        assert!(msg.contains("missing column \"ruleset\""), "{msg}");
        assert!(msg.contains("game, white, black, opening"), "{msg}");
        // A damaged row that is not the last names its line.
        let mut file = GameRow::csv_header().into_bytes();
        file.extend(b"1,a,b\n");
        file.extend(
            GameRow::from_record(&scholars_mate())
                .to_csv_line()
                .unwrap(),
        );
        let msg = format!("{:#}", parse_rows(&file).unwrap_err());
        assert!(
            msg.contains("line 2: 3 fields where the header has 31"),
            "{msg}"
        );
    }

    #[test]
    fn errors_about_fields_with_line_breaks_stay_on_one_line() {
        // Found by tests/fuzz: a quoted header field held a line break, and the message
        // quoting the header did too.
        let e = parse_rows(b"game,\"pair\nwhite\",black\n1,2,3\n").unwrap_err();
        let msg = format!("{e:#}");
        assert!(msg.contains("missing column"), "{msg}");
        assert!(!msg.contains('\n'), "{msg:?}");
        // A bad value with a line break in a row: serde quotes it.
        let mut file = GameRow::csv_header().into_bytes();
        let row = String::from_utf8(
            GameRow::from_record(&scholars_mate())
                .to_csv_line()
                .unwrap(),
        )
        .unwrap();
        file.extend(row.replacen(",fide,", ",\"fi\nde\",", 1).as_bytes());
        let msg = format!("{:#}", parse_rows(&file).unwrap_err());
        assert!(msg.contains("line 2:"), "{msg}");
        assert!(!msg.contains('\n'), "{msg:?}");
    }

    #[test]
    fn read_rows_accepts_a_folder_and_names_the_file_on_error() {
        let dir = std::env::temp_dir().join(format!("blitz-arena-csv-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("games.csv");
        let mut file = GameRow::csv_header().into_bytes();
        file.extend(
            GameRow::from_record(&scholars_mate())
                .to_csv_line()
                .unwrap(),
        );
        std::fs::write(&path, &file).unwrap();
        assert_eq!(read_rows(&dir).unwrap().len(), 1);
        assert_eq!(read_rows(&path).unwrap()[0].game, 1);
        std::fs::write(&path, "a,b\n1,2\n").unwrap();
        let msg = format!("{:#}", read_rows(&path).unwrap_err());
        assert!(msg.starts_with(&path.display().to_string()), "{msg}");
        assert!(msg.contains("missing column \"game\""), "{msg}");
        let missing = dir.join("nope.csv");
        let msg = format!("{:#}", read_rows(&missing).unwrap_err());
        assert!(
            msg.contains("cannot read") && msg.contains("nope.csv"),
            "{msg}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
