//! Opening books: EPD/FEN files (one position per line) and PGN files (each game's mainline).
//!
//! - EPD/FEN (`.epd`, `.fen`, or any file that is not PGN): one position per line; blank
//!   lines and lines starting with `#` are skipped. A line is a full FEN (6 fields) or an EPD
//!   (4 fields) followed by optional operations (`id "name"; c0 "comment"; hmvc 3; fmvn 20;`).
//!   The name is the `id` operation, else `#N` with N the 1-based line number in the file.
//! - PGN (`.pgn`, or a file whose first line starts with `[`): every game's mainline, played
//!   from its start position (the `FEN` tag if present), is one opening; variations are
//!   ignored. The name comes from the `ECO`, `Opening` and `Variation` tags, else `#N` with N
//!   the game's 1-based number.
//!
//! - Polyglot (`.bin`, or a binary file of 16-byte entries): lines drawn from the book at
//!   random by the entries' weights, seeded by the run's seed ([`polyglot`]).
//!
//! Every position is checked with shakmaty under the rules of the run's variant (standard
//! chess, or Chess960: Shredder-FEN or X-FEN castling rights, castling moves recorded as the
//! king taking its rook, [`chess960`] numbers the start positions); illegal positions, illegal or unreadable moves and openings that end the game
//! (checkmate, stalemate, insufficient material) are errors, one line each, naming the file
//! and line (and the game for PGN).

use std::cell::Cell;
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use pgn_reader::{RawTag, Reader, SanPlus, Visitor};
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Position};

use crate::event::OpeningRecord;
use crate::vocabulary::Variant;

pub mod chess960;
pub mod polyglot;

/// The standard start position's FEN, as [`Fen`] writes it.
const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/// Where a game starts: a root position and the book moves played from it.
#[derive(Clone, Debug)]
pub struct Opening {
    /// EPD `id`, the PGN's `ECO Opening: Variation`, or `#N`; `startpos` for the default.
    pub name: String,
    pub root: Chess,
    /// The root's FEN (normalised by shakmaty, legal en-passant squares only); `None` when
    /// the root is the standard start position.
    pub root_fen: Option<String>,
    /// Book moves in UCI notation (`e1g1` for castling), played from `root`.
    pub moves: Vec<String>,
}

impl Opening {
    /// The standard start position, no book moves: the opening when no book is given.
    pub fn startpos() -> Opening {
        Opening {
            name: "startpos".to_string(),
            root: Chess::default(),
            root_fen: None,
            moves: Vec::new(),
        }
    }

    /// The opening as the game record stores it.
    pub fn record(&self) -> OpeningRecord {
        OpeningRecord {
            name: self.name.clone(),
            fen: self.root_fen.clone(),
            moves: self.moves.clone(),
            variant: Variant::of(&self.root),
        }
    }

    /// The position after the book moves, where the engines take over. The moves of an
    /// opening from [`load_openings`] are legal; should a hand-built opening hold an illegal
    /// one, the position before it is returned.
    pub fn position_after(&self) -> Chess {
        let mut pos = self.root.clone();
        for uci in &self.moves {
            let Some(m) = UciMove::from_ascii(uci.as_bytes())
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
            else {
                break;
            };
            pos.play_unchecked(m);
        }
        pos
    }
}

/// Why an opening book could not be used. Every message is one line naming the file.
#[derive(Debug, thiserror::Error)]
pub enum OpeningsError {
    /// Not a `#[source]`: the message already holds it, and a chain printed with `{:#}` would
    /// say it twice.
    #[error("{}: cannot read: {error}", path.display())]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    /// A bad line of an EPD/FEN book: `book.epd:7: bad position: missing king`.
    #[error("{}:{line}: {message}", path.display())]
    Line {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A bad game of a PGN book: `book.pgn:31: game 3: illegal move 5... Nf6 (...)`.
    #[error("{}:{line}: game {game}: {message}", path.display())]
    Game {
        path: PathBuf,
        line: usize,
        game: usize,
        message: String,
    },
    /// The book holds no openings.
    #[error("{}: {message}", path.display())]
    Empty { path: PathBuf, message: String },
}

/// The kinds of opening book.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BookFormat {
    Epd,
    Pgn,
    Polyglot,
}

impl BookFormat {
    /// Polyglot if the file is called `*.bin` or is binary, a whole number of 16-byte
    /// entries; PGN if it is called `*.pgn` or starts with a tag pair; else EPD/FEN.
    fn of(path: &Path, data: &[u8]) -> BookFormat {
        let named = |ext: &str| {
            path.extension()
                .is_some_and(|e| e.eq_ignore_ascii_case(ext))
        };
        if named("bin") || polyglot::looks_like_polyglot(data) {
            BookFormat::Polyglot
        } else if named("pgn") || looks_like_pgn(data) {
            BookFormat::Pgn
        } else {
            BookFormat::Epd
        }
    }

    /// The format of the book at `path`.
    pub fn of_file(path: &Path) -> Result<BookFormat, OpeningsError> {
        Ok(BookFormat::of(path, &read(path)?))
    }
}

/// How a book is read: `--opening-plies` (PGN), and for a Polyglot book `--book-depth`, the
/// number of lines to draw, the first line's number and the seed they are drawn with.
#[derive(Clone, Copy, Debug)]
pub struct BookOptions {
    /// A PGN book: at most this many plies of each game.
    pub plies: Option<u32>,
    /// A Polyglot book: at most this many plies per line (none: until out of book).
    pub depth: Option<u32>,
    /// A Polyglot book: the lines drawn are `first`, `first + 1`, ..., `count` of them.
    pub first: u64,
    pub count: u64,
    pub seed: u64,
    /// Chess960: castling rights are read as Chess960's (Shredder-FEN or X-FEN), PGN games
    /// may say `[Variant "Chess960"]`, and castling moves are the king taking its rook.
    pub variant: Variant,
}

impl Default for BookOptions {
    fn default() -> BookOptions {
        BookOptions {
            plies: None,
            depth: None,
            first: 1,
            count: 1,
            seed: 0,
            variant: Variant::Standard,
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, OpeningsError> {
    crate::files::read_named(path).map_err(|error| OpeningsError::Read {
        path: path.to_path_buf(),
        error,
    })
}

/// Reads an opening book with the default options (every PGN ply; one Polyglot line).
pub fn load_openings(path: &Path) -> Result<Vec<Opening>, OpeningsError> {
    load_book(path, &BookOptions::default())
}

/// Reads an opening book of any [`BookFormat`]. An empty book is an error.
pub fn load_book(path: &Path, options: &BookOptions) -> Result<Vec<Opening>, OpeningsError> {
    let data = read(path)?;
    let format = BookFormat::of(path, &data);
    let is_pgn = format == BookFormat::Pgn;
    let openings = if format == BookFormat::Polyglot {
        polyglot::openings(
            path,
            &data,
            options.depth,
            options.first,
            options.count,
            options.seed,
        )?
    } else if is_pgn {
        load_pgn(path, &data, options.plies, options.variant)?
    } else {
        let (openings, skipped) = load_epd(path, &data, options.variant)?;
        for line in skipped {
            crate::console::note!("warning: {line}: skipped");
        }
        openings
    };
    if openings.is_empty() {
        return Err(OpeningsError::Empty {
            path: path.to_path_buf(),
            message: if is_pgn {
                "no games in the opening book".to_string()
            } else {
                "no positions in the opening book (give one FEN or EPD per line)".to_string()
            },
        });
    }
    Ok(openings)
}

fn strip_bom(data: &[u8]) -> &[u8] {
    data.strip_prefix(b"\xef\xbb\xbf").unwrap_or(data)
}

/// The first line that is not blank or an EPD comment starts a PGN tag pair.
fn looks_like_pgn(data: &[u8]) -> bool {
    strip_bom(data)
        .split(|&b| b == b'\n')
        .map(|l| l.trim_ascii())
        .find(|l| !l.is_empty() && !l.starts_with(b"#"))
        .is_some_and(|l| l.starts_with(b"["))
}

// ---- EPD / FEN ------------------------------------------------------------------------------

/// The book's positions, and the lines skipped because their game is already over (`book.epd:3:
/// the game is already over (checkmate)`): one such line does not make the book unusable.
fn load_epd(
    path: &Path,
    data: &[u8],
    variant: Variant,
) -> Result<(Vec<Opening>, Vec<String>), OpeningsError> {
    let text = String::from_utf8_lossy(strip_bom(data));
    let mut openings = Vec::new();
    let mut skipped = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line_no = index + 1;
        let (root, id) =
            parse_position_line(line, variant).map_err(|message| OpeningsError::Line {
                path: path.to_path_buf(),
                line: line_no,
                message,
            })?;
        if let Some(over) = game_over(&root) {
            skipped.push(format!(
                "{}:{line_no}: the game is already over ({over})",
                path.display()
            ));
            continue;
        }
        openings.push(Opening {
            name: id.unwrap_or_else(|| format!("#{line_no}")),
            root_fen: root_fen(&root),
            root,
            moves: Vec::new(),
        });
    }
    Ok((openings, skipped))
}

/// A FEN or EPD line -> (position, EPD `id`).
fn parse_position_line(line: &str, variant: Variant) -> Result<(Chess, Option<String>), String> {
    const SHAPE: &str = "expected a FEN (6 fields) or an EPD (4 fields, then operations)";
    let mut rest = line;
    let mut fields = Vec::with_capacity(6);
    for _ in 0..4 {
        let (field, r) = next_field(rest);
        if field.is_empty() {
            return Err(format!("bad position: {SHAPE}"));
        }
        fields.push(field);
        rest = r;
    }
    let is_count = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let (fifth, after_fifth) = next_field(rest);
    let mut counters = None;
    if is_count(fifth) {
        let (sixth, after_sixth) = next_field(after_fifth);
        if !is_count(sixth) {
            return Err(format!(
                "bad position: a halfmove clock must be followed by the fullmove number ({SHAPE})"
            ));
        }
        counters = Some((fifth.to_string(), sixth.to_string()));
        rest = after_sixth;
    }
    let operations = parse_epd_operations(rest).map_err(|e| format!("bad EPD operations: {e}"))?;
    let operand = |opcode: &str| {
        operations
            .iter()
            .find(|(op, _)| op == opcode)
            .and_then(|(_, operands)| operands.first().cloned())
    };
    let (halfmoves, fullmoves) = counters.unwrap_or_else(|| {
        (
            operand("hmvc").unwrap_or_else(|| "0".into()),
            operand("fmvn").unwrap_or_else(|| "1".into()),
        )
    });
    let fen = format!("{} {halfmoves} {fullmoves}", fields.join(" "));
    let root = parse_fen_position(&fen, variant).map_err(|e| format!("bad position: {e}"))?;
    let id = operand("id").filter(|s| !s.trim().is_empty());
    if let Some(id) = &id {
        crate::settings::control_character("opening id", id)?;
    }
    Ok((root, id))
}

/// The next whitespace-separated field and the rest of the line.
fn next_field(s: &str) -> (&str, &str) {
    let s = s.trim_start();
    let end = s.find(char::is_whitespace).unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// `id "Ruy Lopez"; c0 "x; y"; bm Nf3 Nc3;` -> [(opcode, operands)]. Quoted operands may hold
/// spaces and semicolons; the final `;` may be missing.
fn parse_epd_operations(s: &str) -> Result<Vec<(String, Vec<String>)>, String> {
    let mut ops: Vec<(String, Vec<String>)> = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut chars = s.chars().peekable();
    let mut finish = |tokens: &mut Vec<String>| {
        if !tokens.is_empty() {
            let opcode = tokens.remove(0);
            ops.push((opcode, std::mem::take(tokens)));
        }
    };
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
        } else if c == ';' {
            chars.next();
            finish(&mut tokens);
        } else if c == '"' {
            chars.next();
            let mut value = String::new();
            loop {
                match chars.next() {
                    None => return Err("a quoted operand is not closed".into()),
                    Some('"') => break,
                    Some('\\') if chars.peek().is_some_and(|&n| n == '"' || n == '\\') => {
                        value.extend(chars.next());
                    }
                    Some(ch) => value.push(ch),
                }
            }
            if tokens.is_empty() {
                // Quoted with escapes: an operand can hold a carriage return (found by
                // tests/fuzz), and the error must stay on one line.
                return Err(format!("operand {value:?} has no opcode"));
            }
            tokens.push(value);
        } else {
            let mut token = String::new();
            while let Some(&ch) = chars.peek() {
                if ch.is_whitespace() || ch == ';' || ch == '"' {
                    break;
                }
                token.push(ch);
                chars.next();
            }
            tokens.push(token);
        }
    }
    finish(&mut tokens);
    Ok(ops)
}

/// A full FEN -> a legal standard-chess position in which the game is not over.
fn parse_fen(fen: &str, variant: Variant) -> Result<Chess, String> {
    let pos = parse_fen_position(fen, variant)?;
    if let Some(over) = game_over(&pos) {
        return Err(format!("the game is already over ({over})"));
    }
    Ok(pos)
}

/// A full FEN -> a legal standard-chess position.
fn parse_fen_position(fen: &str, variant: Variant) -> Result<Chess, String> {
    let setup = Fen::from_ascii(fen.trim().as_bytes()).map_err(|e| e.to_string())?;
    setup.into_position(variant.castling_mode()).map_err(|e| {
        let text = e.to_string();
        text.strip_prefix("illegal position: ")
            .map(String::from)
            .unwrap_or(text)
    })
}

fn game_over(pos: &Chess) -> Option<&'static str> {
    if pos.is_checkmate() {
        Some("checkmate")
    } else if pos.is_stalemate() {
        Some("stalemate")
    } else if pos.is_insufficient_material() {
        Some("insufficient material")
    } else {
        None
    }
}

/// The standard start position, castling as `variant` castles (in Chess960 it is position 518).
fn start_position(variant: Variant) -> Chess {
    parse_fen_position(START_FEN, variant).expect("the start position is legal")
}

/// `None` for the standard start position of standard chess, else the normalised FEN (always
/// for Chess960, whose games name their start position).
fn root_fen(pos: &Chess) -> Option<String> {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    (fen != START_FEN || !Variant::of(pos).is_standard()).then_some(fen)
}

// ---- PGN ------------------------------------------------------------------------------------

/// Feeds the PGN to the reader and counts the bytes fed, so that the reader's position (fed
/// minus still buffered) tells where each game ends.
struct CountingReader<'a> {
    data: &'a [u8],
    fed: Rc<Cell<usize>>,
}

impl Read for CountingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.data.read(buf)?;
        self.fed.set(self.fed.get() + n);
        Ok(n)
    }
}

/// The games of a PGN book, each cut to at most `plies` plies (fastchess's `plies=`): the
/// moves past the limit are not read.
fn load_pgn(
    path: &Path,
    data: &[u8],
    plies: Option<u32>,
    variant: Variant,
) -> Result<Vec<Opening>, OpeningsError> {
    let fed = Rc::new(Cell::new(0));
    let mut reader = Reader::new(CountingReader {
        data,
        fed: Rc::clone(&fed),
    });
    let mut book = PgnBook {
        game: 0,
        plies,
        variant,
    };
    let mut openings = Vec::new();
    let mut game_start = 0;
    loop {
        let result = reader.read_game(&mut book);
        let position = (fed.get() - reader.buffer().len()).min(data.len());
        let game = book.game;
        let error = |offset: usize, message: String| OpeningsError::Game {
            path: path.to_path_buf(),
            line: line_of(data, offset),
            game,
            message,
        };
        let range = game_start..position.max(game_start);
        // pgn-reader skips tokens it cannot read as a move; find them first, since skipping
        // one also explains a later "illegal" move played by the wrong side.
        if let Some((offset, token)) = unreadable_token(data, range.clone()) {
            return Err(error(offset, format!("cannot read move {token:?}")));
        }
        let first_byte = (range.start..range.end)
            .find(|&i| !data[i].is_ascii_whitespace())
            .unwrap_or(range.start);
        match result {
            Ok(None) => break,
            Ok(Some(Ok(opening))) => openings.push(opening),
            Ok(Some(Err(GameError::AtMove(message)))) => {
                return Err(error(position.saturating_sub(1), message));
            }
            Ok(Some(Err(GameError::InGame(message)))) => return Err(error(first_byte, message)),
            Err(e) => return Err(error(first_byte, e.to_string())),
        }
        game_start = position;
    }
    Ok(openings)
}

/// The 1-based line of a byte offset.
fn line_of(data: &[u8], offset: usize) -> usize {
    data[..offset.min(data.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

enum GameError {
    /// About the move just read (the reader's position is right after it).
    AtMove(String),
    /// About the game as a whole (tags, final position).
    InGame(String),
}

struct PgnBook {
    /// 1-based number of the game being read.
    game: usize,
    /// `--opening-plies`: the moves past it are skipped.
    plies: Option<u32>,
    variant: Variant,
}

#[derive(Default)]
struct PgnTags {
    fen: Option<String>,
    eco: Option<String>,
    opening: Option<String>,
    variation: Option<String>,
    variant: Option<String>,
}

struct PgnGame {
    name: String,
    root: Chess,
    pos: Chess,
    moves: Vec<String>,
}

impl Visitor for PgnBook {
    type Tags = PgnTags;
    type Movetext = PgnGame;
    type Output = Result<Opening, GameError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.game += 1;
        ControlFlow::Continue(PgnTags::default())
    }

    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let slot = match name {
            b"FEN" => &mut tags.fen,
            b"ECO" => &mut tags.eco,
            b"Opening" => &mut tags.opening,
            b"Variation" => &mut tags.variation,
            b"Variant" => &mut tags.variant,
            _ => return ControlFlow::Continue(()),
        };
        let value = value.decode_utf8_lossy().trim().to_string();
        if !value.is_empty() && value != "?" {
            *slot = Some(value);
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<Self::Output, Self::Movetext> {
        if let Some(variant) = &tags.variant {
            let v = variant.to_ascii_lowercase();
            let standard = matches!(
                v.as_str(),
                "standard" | "chess" | "normal" | "from position"
            );
            // The names PGN writers give Chess960 (python-chess's list).
            let chess960 = matches!(
                v.as_str(),
                "chess960"
                    | "chess 960"
                    | "960"
                    | "fischerandom"
                    | "fischer random"
                    | "fischer-random"
            );
            let supported = match self.variant {
                Variant::Standard => standard,
                Variant::Chess960 => standard || chess960,
            };
            if !supported {
                let hint = if chess960 {
                    ": give --variant chess960"
                } else {
                    " (standard chess and Chess960 only)"
                };
                return ControlFlow::Break(Err(GameError::InGame(format!(
                    "variant {variant:?} is not supported{hint}"
                ))));
            }
        }
        let root = match &tags.fen {
            None => start_position(self.variant),
            Some(fen) => match parse_fen(fen, self.variant) {
                Ok(pos) => pos,
                Err(e) => {
                    return ControlFlow::Break(Err(GameError::InGame(format!(
                        "bad FEN tag {fen:?}: {e}"
                    ))))
                }
            },
        };
        let mut name = String::new();
        for part in [&tags.eco, &tags.opening].into_iter().flatten() {
            if !name.is_empty() {
                name.push(' ');
            }
            name.push_str(part);
        }
        if let Some(variation) = &tags.variation {
            name.push_str(if name.is_empty() { "" } else { ": " });
            name.push_str(variation);
        }
        if name.is_empty() {
            name = format!("#{}", self.game);
        }
        if let Err(e) = crate::settings::control_character("opening name", &name) {
            return ControlFlow::Break(Err(GameError::InGame(e)));
        }
        ControlFlow::Continue(PgnGame {
            name,
            pos: root.clone(),
            root,
            moves: Vec::new(),
        })
    }

    fn san(&mut self, game: &mut Self::Movetext, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        if self.plies.is_some_and(|p| game.moves.len() >= p as usize) {
            return ControlFlow::Continue(());
        }
        let number = format!(
            "{}{}",
            game.pos.fullmoves(),
            if game.pos.turn().is_white() {
                "."
            } else {
                "..."
            }
        );
        if let Some(over) = game_over(&game.pos) {
            return ControlFlow::Break(Err(GameError::AtMove(format!(
                "move {number} {san_plus} after the game is over ({over})"
            ))));
        }
        match san_plus.san.to_move(&game.pos) {
            Ok(m) => {
                game.moves
                    .push(m.to_uci(self.variant.castling_mode()).to_string());
                game.pos.play_unchecked(m);
                ControlFlow::Continue(())
            }
            Err(e) => {
                let why = match e {
                    shakmaty::san::SanError::AmbiguousSan => "ambiguous",
                    shakmaty::san::SanError::IllegalSan => "not legal in this position",
                };
                ControlFlow::Break(Err(GameError::AtMove(format!(
                    "illegal move {number} {san_plus} ({why})"
                ))))
            }
        }
    }

    fn end_game(&mut self, game: Self::Movetext) -> Self::Output {
        if let Some(over) = game_over(&game.pos) {
            return Err(GameError::InGame(format!(
                "the opening ends the game ({over}); a book opening must leave moves to play"
            )));
        }
        Ok(Opening {
            name: game.name,
            root_fen: root_fen(&game.root),
            root: game.root,
            moves: game.moves,
        })
    }
}

/// The first token of a game's mainline movetext that pgn-reader would silently skip: not a
/// move number, result, annotation, NAG or SAN move. Returns its offset and text.
fn unreadable_token(data: &[u8], range: std::ops::Range<usize>) -> Option<(usize, String)> {
    // pgn-reader's token ends, plus `[` (tag pairs).
    let is_delimiter = |b: u8| {
        b.is_ascii_whitespace()
            || matches!(
                b,
                b'{' | b'}' | b'(' | b')' | b';' | b'.' | b'[' | b'$' | b'!' | b'?' | b'*'
            )
    };
    let skip_line = |i: &mut usize| {
        while *i < range.end && data[*i] != b'\n' {
            *i += 1;
        }
    };
    let mut i = range.start;
    if i == 0 && data.starts_with(b"\xef\xbb\xbf") {
        i = 3;
    }
    let mut depth = 0usize;
    let mut line_start = true;
    while i < range.end {
        let b = data[i];
        let at_line_start = line_start;
        line_start = b == b'\n' || (line_start && (b == b' ' || b == b'\t' || b == b'\r'));
        match b {
            b'{' => {
                while i < range.end && data[i] != b'}' {
                    i += 1;
                }
                i += 1;
            }
            // Tag pairs, `;` comments and `%` escape lines run to the end of the line.
            b'[' | b';' => skip_line(&mut i),
            b'%' if at_line_start => skip_line(&mut i),
            b'(' => {
                depth += 1;
                i += 1;
            }
            b')' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            _ if is_delimiter(b) => i += 1,
            _ => {
                let start = i;
                while i < range.end && !is_delimiter(data[i]) {
                    i += 1;
                }
                let token = &data[start..i];
                // `e.p.` after an en-passant capture.
                if token == b"e" && data[i..range.end].starts_with(b".p.") {
                    i += 3;
                    continue;
                }
                if depth > 0 {
                    continue;
                }
                // Move numbers (and NAG numbers after their `$`) and results.
                if token.iter().all(u8::is_ascii_digit)
                    || matches!(token, b"1-0" | b"0-1" | b"1/2-1/2")
                    || token == "½-½".as_bytes()
                {
                    continue;
                }
                let castles_with_zeros = {
                    let t = token
                        .strip_suffix(b"+")
                        .or(token.strip_suffix(b"#"))
                        .unwrap_or(token);
                    t == b"0-0" || t == b"0-0-0"
                };
                let readable = castles_with_zeros
                    || matches!(SanPlus::from_ascii_prefix(token), Ok((_, n)) if n == token.len());
                if !readable {
                    return Some((start, String::from_utf8_lossy(&data[start..i]).into_owned()));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A temporary file that is removed when dropped.
    struct TempFile(PathBuf);

    impl TempFile {
        fn new(name: &str, contents: &str) -> TempFile {
            use std::sync::atomic::{AtomicUsize, Ordering};
            static COUNTER: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "blitz-arena-openings-{}-{}",
                std::process::id(),
                COUNTER.fetch_add(1, Ordering::Relaxed)
            ));
            std::fs::create_dir_all(&dir).unwrap();
            let path = dir.join(name);
            std::fs::write(&path, contents).unwrap();
            TempFile(path)
        }
    }

    impl Drop for TempFile {
        fn drop(&mut self) {
            if let Some(dir) = self.0.parent() {
                std::fs::remove_dir_all(dir).ok();
            }
        }
    }

    #[test]
    fn an_operand_without_opcode_is_named_on_one_line() {
        // Found by tests/fuzz: a quoted operand holding a carriage return was printed raw.
        let e = parse_epd_operations("\"a\rb\"; id \"x\"").unwrap_err();
        assert_eq!(e, "operand \"a\\rb\" has no opcode");
    }

    fn load(name: &str, contents: &str) -> Result<Vec<Opening>, String> {
        let file = TempFile::new(name, contents);
        load_openings(&file.0).map_err(|e| {
            let e = e.to_string();
            assert!(!e.contains('\n'), "not one line: {e}");
            // Drop the temporary folder from the message.
            let dir = file.0.parent().unwrap().display().to_string();
            e.replace(&format!("{dir}{}", std::path::MAIN_SEPARATOR), "")
        })
    }

    fn fen(o: &Opening) -> String {
        Fen::from_position(&o.position_after(), EnPassantMode::Legal).to_string()
    }

    #[test]
    fn startpos() {
        let o = Opening::startpos();
        assert_eq!(fen(&o), START_FEN);
        let r = o.record();
        assert_eq!(r.name, "startpos");
        assert_eq!(r.fen, None);
        assert!(r.moves.is_empty());
    }

    #[test]
    fn epd_with_ids_comments_and_fen() {
        let book = "\
# an 8-move book
rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - id \"Open Game\"; c0 \"a; b\";

r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 hmvc 0; fmvn 1;
rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1
";
        let book = load("book.epd", book).unwrap();
        assert_eq!(book.len(), 4);
        assert_eq!(book[0].name, "Open Game");
        assert_eq!(
            book[0].root_fen.as_deref(),
            Some("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1")
        );
        assert_eq!(book[1].name, "#4");
        assert_eq!(
            book[1].record().fen.as_deref(),
            Some("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
        );
        // The e3 square is dropped: no legal en-passant capture.
        assert_eq!(
            book[2].root_fen.as_deref(),
            Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")
        );
        assert_eq!(book[3].root_fen, None);
        assert!(book.iter().all(|o| o.moves.is_empty()));
    }

    #[test]
    fn bad_epd_lines_name_the_line() {
        let e = load("book.epd", "# comment\n\n8/8/8/8/8/8/8/K7 w - - 0 1\n").unwrap_err();
        assert_eq!(e, "book.epd:3: bad position: missing king");
        let e = load(
            "b.fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq\n",
        )
        .unwrap_err();
        assert!(
            e.starts_with("b.fen:1: bad position: expected a FEN"),
            "{e}"
        );
        let e = load(
            "b.fen",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1\n",
        )
        .unwrap_err();
        assert_eq!(e, "b.fen:1: bad position: invalid turn part in fen");
        // Fool's mate: the game is over; alone, the book has no position.
        let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n";
        let e = load("b.epd", mated).unwrap_err();
        assert!(e.starts_with("b.epd: no positions"), "{e}");
        let e = load("b.epd", "# nothing\n\n").unwrap_err();
        assert!(e.starts_with("b.epd: no positions"), "{e}");
        let e = load("b.epd", "4k3/8/8/8/8/8/8/4K2R w KQ - id \"x\";\n").unwrap_err();
        assert!(e.contains("invalid castling rights"), "{e}");
        let e = load("b.epd", "4k3/8/8/8/8/8/8/4K2R w K - id \"x;\n").unwrap_err();
        assert!(e.contains("b.epd:1: bad EPD operations"), "{e}");
    }

    #[test]
    fn an_epd_line_whose_game_is_over_is_skipped_and_named() {
        let book = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3\n\
                    rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1\n\
                    7k/8/6Q1/8/8/8/8/K7 b - - 0 1 id \"stalemate\";\n";
        let (openings, skipped) =
            load_epd(Path::new("b.epd"), book.as_bytes(), Variant::Standard).unwrap();
        assert_eq!(openings.len(), 1);
        assert_eq!(openings[0].name, "#2");
        assert_eq!(
            skipped,
            [
                "b.epd:1: the game is already over (checkmate)",
                "b.epd:3: the game is already over (stalemate)"
            ]
        );
    }

    #[test]
    fn pgn_games() {
        let pgn = r#"[Event "book"]
[ECO "C60"]
[Opening "Ruy Lopez"]
[Variation "Morphy Defence"]

1. e4 e5 2. Nf3 {main} Nc6 (2... d6 3. d4) 3. Bb5 a6! 4. O-O $1 *

[Event "from a position"]
[SetUp "1"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 40"]

40. e4 Kd7 41. e5 *

1. d4 d5 2. c4 1/2-1/2
"#;
        let book = load("book.pgn", pgn).unwrap();
        assert_eq!(book.len(), 3);
        assert_eq!(book[0].name, "C60 Ruy Lopez: Morphy Defence");
        assert_eq!(book[0].root_fen, None);
        assert_eq!(
            book[0].moves,
            ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6", "e1g1"]
        );
        assert_eq!(
            fen(&book[0]),
            "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQ1RK1 b kq - 1 4"
        );
        assert_eq!(book[1].name, "#2");
        assert_eq!(
            book[1].root_fen.as_deref(),
            Some("4k3/8/8/8/8/8/4P3/4K3 w - - 0 40")
        );
        assert_eq!(book[1].moves, ["e2e4", "e8d7", "e4e5"]);
        assert_eq!(fen(&book[1]), "8/3k4/8/4P3/8/8/8/4K3 b - - 0 41");
        let r = book[1].record();
        assert_eq!(r.fen, book[1].root_fen);
        assert_eq!(r.moves, book[1].moves);
        assert_eq!(book[2].name, "#3");
        assert_eq!(book[2].moves, ["d2d4", "d7d5", "c2c4"]);
    }

    #[test]
    fn pgn_errors_name_the_game_and_move() {
        let pgn = "[Event \"a\"]\n\n1. e4 e5 *\n\n[Event \"b\"]\n\n1. e4 e5\n2. Nf3 Nf6 3. Ke3 *\n";
        let e = load("book.pgn", pgn).unwrap_err();
        assert_eq!(
            e,
            "book.pgn:8: game 2: illegal move 3. Ke3 (not legal in this position)"
        );
        let e = load("book.pgn", "1. e4 e5 2. Nf3 Xc6 3. Bb5 *\n").unwrap_err();
        assert_eq!(e, "book.pgn:1: game 1: cannot read move \"Xc6\"");
        let e = load("book.pgn", "1. e4 e5 2. Nf3 Nc6x *\n").unwrap_err();
        assert_eq!(e, "book.pgn:1: game 1: cannot read move \"Nc6x\"");
        let e = load("book.pgn", "[FEN \"8/8/8/8/8/8/8/K7 w - - 0 1\"]\n\n*\n").unwrap_err();
        assert!(e.starts_with("book.pgn:1: game 1: bad FEN tag"), "{e}");
        let e = load("book.pgn", "1. f3 e5 2. g4 Qh4# *\n").unwrap_err();
        assert!(e.contains("the opening ends the game (checkmate)"), "{e}");
        let e = load("book.pgn", "[Variant \"Chess960\"]\n\n1. e4 *\n").unwrap_err();
        assert!(e.contains("variant \"Chess960\" is not supported"), "{e}");
        let e = load("book.pgn", "\n\n").unwrap_err();
        assert_eq!(e, "book.pgn: no games in the opening book");
    }

    #[test]
    fn pgn_quirks_are_readable() {
        let pgn = "\u{feff}[Event \"x\"]\n% escape line\n\n1.e4 d5 2.exd5 e5 3.dxe6 e.p.?! $2 0-0?? ; comment\n*\n";
        // 0-0 is not legal here: castling with zeros is read as a move.
        let e = load("quirks.pgn", pgn).unwrap_err();
        assert!(e.contains("illegal move 3... O-O"), "{e}");
        let pgn = "[Event \"x\"]\n\n1.e4 d5 2.exd5 e5 3.dxe6 e.p.?! $2 { [%clk 0:05:00] } Bxe6 *\n";
        let book = load("quirks.pgn", pgn).unwrap();
        assert_eq!(
            book[0].moves,
            ["e2e4", "d7d5", "e4d5", "e7e5", "d5e6", "c8e6"]
        );
    }

    #[test]
    fn big_pgn_keeps_count_of_lines() {
        // Past pgn-reader's buffer (so it refills), with CRLF line ends and a long comment.
        let mut pgn = String::new();
        for i in 0..400 {
            pgn.push_str(&format!(
                "[Event \"{i}\"]\r\n[Opening \"Game {i}\"]\r\n\r\n1. e4 {{{}}} e5 2. Nf3 *\r\n\r\n",
                "x".repeat(i * 10)
            ));
        }
        assert_eq!(load("big.pgn", &pgn).unwrap().len(), 400);
        pgn.push_str("[Event \"last\"]\r\n\r\n1. e4 e5\r\n2. Nf3 Nc6\r\n3. Bb5 Zz9 *\r\n");
        let e = load("big.pgn", &pgn).unwrap_err();
        assert_eq!(e, "big.pgn:2005: game 401: cannot read move \"Zz9\"");
    }

    #[test]
    fn opening_plies_cut_each_pgn_game() {
        // fastchess's `plies=`: at most N plies; moves past them are not read (even bad ones),
        // and a game whose full line ends in mate is fine when cut before the mate.
        let file = TempFile::new(
            "book.pgn",
            "1. e4 e5 2. Nf3 Nc6 3. Bb5 *\n\n1. f3 e5 2. g4 Qh4# *\n\n1. d4 *\n",
        );
        let options = BookOptions {
            plies: Some(3),
            ..BookOptions::default()
        };
        let book = load_book(&file.0, &options).unwrap();
        assert_eq!(book[0].moves, ["e2e4", "e7e5", "g1f3"]);
        assert_eq!(book[1].moves, ["f2f3", "e7e5", "g2g4"]);
        assert_eq!(book[2].moves, ["d2d4"]);
        assert!(load_openings(&file.0).is_err());
    }

    #[test]
    fn chess960_books_read_shredder_fen_and_the_variant_tag() {
        let options = BookOptions {
            variant: Variant::Chess960,
            ..BookOptions::default()
        };
        // Position 616: castling O-O is the king (f1) taking its rook (g1).
        let pgn = "[Variant \"Chess960\"]\n[SetUp \"1\"]\n\
                   [FEN \"rbnqbkrn/pppppppp/8/8/8/8/PPPPPPPP/RBNQBKRN w GAga - 0 1\"]\n\n\
                   1. e4 e5 2. O-O O-O *\n";
        let file = TempFile::new("960.pgn", pgn);
        let book = load_book(&file.0, &options).unwrap();
        assert_eq!(book[0].moves, ["e2e4", "e7e5", "f1g1", "f8g8"]);
        assert_eq!(book[0].record().variant, Variant::Chess960);
        // Without --variant chess960 the tag is refused, with what to do.
        let e = load("960.pgn", pgn).unwrap_err();
        assert!(e.ends_with("give --variant chess960"), "{e}");
        // X-FEN and Shredder-FEN name the same rights; the start position gets a FEN.
        let epd = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n\
                   rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha -\n";
        let file = TempFile::new("960.epd", epd);
        let book = load_book(&file.0, &options).unwrap();
        assert_eq!(book[0].root_fen, book[1].root_fen);
        assert!(book[0].root_fen.is_some());
    }

    #[test]
    fn book_formats_by_name_and_content() {
        let of = |name: &str, data: &[u8]| BookFormat::of(Path::new(name), data);
        assert_eq!(of("b.bin", b"x"), BookFormat::Polyglot);
        assert_eq!(of("b", &[0; 32]), BookFormat::Polyglot);
        assert_eq!(of("b", &[0; 31]), BookFormat::Epd);
        assert_eq!(of("b.pgn", b"1. e4 *"), BookFormat::Pgn);
        assert_eq!(of("b.txt", b"[Event \"x\"]"), BookFormat::Pgn);
        assert_eq!(of("b.epd", b"8/8/8/8/8/8/8/8 w - -"), BookFormat::Epd);
    }

    #[test]
    fn pgn_detected_without_extension() {
        let book = load("book.txt", "[Event \"x\"]\n\n1. e4 *\n").unwrap();
        assert_eq!(book[0].moves, ["e2e4"]);
    }

    #[test]
    fn missing_book() {
        let e = load_openings(Path::new("/nonexistent/book.epd")).unwrap_err();
        // As the command line prints it: the error and its causes, each said once.
        assert_eq!(
            format!("{:#}", anyhow::Error::from(e)),
            "/nonexistent/book.epd: cannot read: No such file or directory (os error 2)"
        );
    }
}
