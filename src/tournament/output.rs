//! The run's console lines, native, fastchess or cutechess (`--output-format`), behind one
//! interface: the tournament tells an [`Output`] what happens at the moments fastchess's
//! tournament tells its output (a game started, ruled, finished; a score line or a results
//! block due; the SPRT decided; the run over), and [`create`] picks the implementation once from
//! the run's settings. [`Progress`] drives it: it counts the games on the [`Board`], decides
//! when a line is due, and appends each game to `--pgnout` / `--epdout` in its place among the
//! lines. The text of every compatible line is a pure function of `report::compat_console`.

mod board;
mod cutechess;
mod fastchess;
mod native;

pub use board::Board;

use crate::console::note;
use crate::event::GameRecord;
use crate::report::compat_console::{MatchLabel, OutputFormat};
use crate::report::pgnout::CompatFiles;
use crate::report::{GameRow, Sprt};

/// What the outputs need to know about the run.
#[derive(Clone, Debug)]
pub struct OutputSettings {
    pub format: OutputFormat,
    /// Results block every N pairs (with pentanomial counts) or games; 0: only at the end;
    /// None: fastchess's default, 10.
    pub rating_interval: Option<u32>,
    /// The score line every N games (default 1).
    pub score_interval: Option<u32>,
    /// The engines, the first two being the match (or SPRT) pair.
    pub engines: Vec<String>,
    pub label: MatchLabel,
    pub sprt: Option<Sprt>,
    /// Each opening is played twice with colours swapped, so fastchess reports pentanomial
    /// counts; otherwise (`-games 1`) wins, draws and losses, its rating interval in games.
    pub penta: bool,
}

/// A game that is over, as the outputs see it.
pub struct GameEnd<'a> {
    pub record: &'a GameRecord,
    /// The SPRT's state after it (`LLR +1.23 (-2.94, +2.94)`), for the native line.
    pub sprt: Option<&'a str>,
}

/// One format's console. Every event but a finished game and the end of the run prints
/// nothing unless the format has a line for it.
pub trait Output {
    /// A game starts (`game` of `total`).
    fn game_started(&mut self, _game: u64, _total: usize, _white: &str, _black: &str) {}
    /// A game is ruled, before its PGN is written (and its CRC line printed).
    fn game_ruled(&mut self, _record: &GameRecord) {}
    /// A game is over and counted on `board`.
    fn game_finished(&mut self, end: &GameEnd, board: &Board);
    /// The score line of `end`'s pairing is due.
    fn score(&mut self, _board: &Board, _end: &GameEnd) {}
    /// The results block is due.
    fn interval(&mut self, _board: &Board) {}
    /// The SPRT has decided, at `llr`, after the game `end`.
    fn sprt_decided(&mut self, _board: &Board, _end: &GameEnd, _llr: f64) {}
    /// A resumed run's earlier games are counted on `board`.
    fn resumed(&mut self, _board: &Board) {}
    /// The run is over; `interrupted`: stopped before every game was played, not by the SPRT.
    fn finished(&mut self, board: &Board, interrupted: bool);
    /// A line of blitz-arena's own (a warning, a broken invariant). Beside another tool's
    /// lines it is not printed: stdout has the game already, and a second line saying "stall"
    /// would count twice where fishtest reads both streams.
    fn println(&self, line: &str);
}

/// The output of `settings.format`.
pub fn create(settings: &OutputSettings, total: usize, verbose: bool) -> Box<dyn Output + Send> {
    match settings.format {
        OutputFormat::Native => Box::new(native::Native::new(total, verbose)),
        OutputFormat::Fastchess => Box::new(fastchess::Fastchess),
        OutputFormat::Cutechess => Box::new(cutechess::Cutechess),
    }
}

/// The run's console: its output, the counts it prints from, and the `--pgnout` files.
pub struct Progress {
    out: Box<dyn Output + Send>,
    board: Board,
    /// `--pgnout` / `--epdout`: each finished game appended in fastchess's formats.
    files: Option<CompatFiles>,
}

impl Progress {
    pub fn new(mut settings: OutputSettings, total: usize, verbose: bool) -> Progress {
        if settings.format == OutputFormat::Cutechess {
            // fastchess reports no pentanomial counts in cutechess's format.
            settings.penta = false;
        }
        Progress {
            out: create(&settings, total, verbose),
            board: Board::new(settings, total),
            files: None,
        }
    }

    /// Appends each finished game to `--pgnout` / `--epdout`.
    pub fn with_files(mut self, files: Option<CompatFiles>) -> Progress {
        self.files = files;
        self
    }

    /// Whether stdout carries another tool's lines (the native summary then goes to stderr).
    pub fn is_compat(&self) -> bool {
        self.board.s.format != OutputFormat::Native
    }

    pub fn game_started(&mut self, game: u64, white: &str, black: &str) {
        if self.stopped_by_sprt() {
            return;
        }
        self.out.game_started(game, self.board.total, white, black);
    }

    /// fastchess stops at its SPRT's decision: a game that starts or ends after it is neither
    /// printed nor written to `-pgnout` (it interrupts the games in progress; the arena lets
    /// them finish for its own results folder, but prints them only in its native format).
    fn stopped_by_sprt(&self) -> bool {
        self.is_compat() && self.board.sprt_done
    }

    /// Reports one finished game (`row` is its games.csv row, `sprt` the SPRT's state after
    /// it): in fastchess's order, the game's warnings, its PGN (and CRC line), `Finished
    /// game`, then the score line and the results block when due, and the SPRT's decision.
    pub fn game_finished(&mut self, record: &GameRecord, row: &GameRow, sprt: Option<&str>) {
        if self.stopped_by_sprt() {
            return;
        }
        let completed_pair = self.board.count(row);
        self.board.tally(record);
        self.out.game_ruled(record);
        if let Some(files) = &mut self.files {
            for warning in files.append(record) {
                note!("warning: {warning}");
            }
        }
        let end = GameEnd { record, sprt };
        self.out.game_finished(&end, &self.board);
        if self.board.score_due() {
            self.out.score(&self.board, &end);
        }
        if self.board.interval_due(completed_pair) {
            self.out.interval(&self.board);
            self.board.block_at = Some(self.board.finished);
        }
        self.check_sprt(&end);
    }

    /// The first time the SPRT has decided.
    fn check_sprt(&mut self, end: &GameEnd) {
        let (Some(sprt), Some(llr)) = (&self.board.s.sprt, self.board.llr()) else {
            return;
        };
        if self.board.sprt_done || !sprt.decide(llr).is_finished() {
            return;
        }
        self.board.sprt_done = true;
        self.out.sprt_decided(&self.board, end, llr);
        self.board.block_at = Some(self.board.finished);
    }

    /// Counts games a resumed run had already played, printing nothing.
    pub fn resume_from(&mut self, rows: &[GameRow]) {
        for row in rows {
            self.board.count(row);
        }
        self.out.resumed(&self.board);
    }

    /// After the last game: the final results block if the last game did not print one, then
    /// the format's closing lines.
    pub fn finish(&mut self) {
        let board = &self.board;
        if board.block_at != Some(board.finished) && board.finished > 0 {
            self.out.interval(board);
        }
        let interrupted = board.finished < board.total && !board.sprt_done;
        self.out.finished(board, interrupted);
    }

    /// A line the compatible formats print while a game is played (fastchess's PV warnings:
    /// fastchess prints them in either format), on stdout.
    pub fn game_line(&self, line: &str) {
        if self.is_compat() && !self.board.sprt_done {
            crate::console::say!("{line}");
        }
    }

    /// What `--pgnout` / `--epdout` did not take (a full disk): the run's error at its end.
    pub fn lost_games(&self) -> Option<String> {
        self.files.as_ref().and_then(CompatFiles::lost)
    }

    /// Prints a line of blitz-arena's own without tearing the bar.
    pub fn println(&self, line: &str) {
        self.out.println(line);
    }
}
