//! `--pgnout FILE` and `--epdout FILE`: each finished game appended in fastchess's formats,
//! beside the results folder's own games.pgn: its headers and `Termination` names, a comment
//! per move `{+0.25/12 0.123s, n=12345, nps=100000}` (score/depth, think time in whole
//! milliseconds, the extras asked for, the ending's text on the last move), a PGN book's moves
//! from its own start position, each `{book}`, lines wrapped at 80 characters, and the final position as `FEN-fields hmvc N; fmvn M;` (fastchess
//! `pgn_builder.cpp`, `pgn_gen.hpp`, `epd_builder.hpp`).

use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, EnPassantMode, Position};

use super::compat_console::{fastchess_time, reason};
use crate::event::{Event, GameRecord, Score, SearchInfo, Termination};

/// How moves are written: `san` (Nf3), `lan` (Ng1-f3), `uci` (g1f3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Notation {
    #[default]
    San,
    Lan,
    Uci,
}

/// Extra fields of the per-move comment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Extra {
    /// `n=`: the nodes the engine reported.
    Nodes,
    /// `sd=`: the selective depth the engine reported.
    Seldepth,
    /// `nps=`: the nodes per second the engine reported.
    Nps,
}

/// The PGN and EPD files a run appends to.
pub struct CompatFiles {
    pgn: Option<Appended>,
    epd: Option<Appended>,
    notation: Notation,
    extras: Vec<Extra>,
    tags: EventSite,
    /// `-crc32 pgn=true`: the PGN file's CRC-32 so far, printed after each game.
    crc: Option<u32>,
    /// The games offered to the files.
    games: u64,
    /// The engines' `id` lines, for fastchess's `EngineWhiteName` tags and the like.
    ids: EngineIds,
}

/// A file the games are appended to, and the games it did not take.
struct Appended {
    path: PathBuf,
    file: File,
    /// Games not written (a full disk), and the first write's error.
    lost: u64,
    error: Option<String>,
}

impl Appended {
    /// Appends `text`; whether it was written, and the warning for the user at the first
    /// failure (the others are counted, and said at the run's end). A game the file took only
    /// part of (a full disk) is cut off again: the file holds whole games only.
    fn append(&mut self, text: &str) -> Result<(), Option<String>> {
        let before = self.file.metadata().map(|m| m.len());
        let Err(e) = self.file.write_all(text.as_bytes()) else {
            return Ok(());
        };
        if let Ok(before) = before {
            let _ = self.file.set_len(before);
        }
        self.lost += 1;
        if self.error.is_some() {
            return Err(None);
        }
        self.error = Some(e.to_string());
        Err(Some(format!(
            "cannot write {}: {e} (the games it misses are counted, and said at the end)",
            self.path.display()
        )))
    }
}

/// What an engine says it is in its `id name` and `id author` lines.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UciId {
    pub name: Option<String>,
    pub author: Option<String>,
}

/// Each engine's [`UciId`], by its name in the run.
pub type EngineIds = std::collections::HashMap<String, UciId>;

/// The PGN `Event` and `Site` tags (fastchess's `-event` and `-site`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EventSite {
    pub event: String,
    pub site: String,
}

impl Default for EventSite {
    fn default() -> Self {
        EventSite {
            event: "blitz-arena".to_string(),
            site: "?".to_string(),
        }
    }
}

fn open(path: &Path) -> anyhow::Result<Appended> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(|e| anyhow::anyhow!("cannot open {}: {e}", path.display()))?;
    Ok(Appended {
        path: path.to_path_buf(),
        file,
        lost: 0,
        error: None,
    })
}

impl CompatFiles {
    pub fn open(
        pgn: Option<&Path>,
        epd: Option<&Path>,
        notation: Notation,
        extras: Vec<Extra>,
    ) -> anyhow::Result<Option<CompatFiles>> {
        if pgn.is_none() && epd.is_none() {
            return Ok(None);
        }
        Ok(Some(CompatFiles {
            pgn: pgn.map(open).transpose()?,
            epd: epd.map(open).transpose()?,
            notation,
            extras,
            tags: EventSite::default(),
            crc: None,
            games: 0,
            ids: EngineIds::new(),
        }))
    }

    /// After each game, prints `File F has CRC32: 0x...` on stdout, the CRC-32 of the whole
    /// PGN file (what was in it before included), as fastchess's `-crc32 pgn=true` does.
    pub fn with_crc(mut self) -> anyhow::Result<CompatFiles> {
        if let Some(pgn) = &self.pgn {
            let before = std::fs::read(&pgn.path)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", pgn.path.display()))?;
            self.crc = Some(super::crc32::update(0, &before));
        }
        Ok(self)
    }

    /// The `Event` and `Site` tags of every game, in place of `blitz-arena` and `?`.
    pub fn with_tags(mut self, event: Option<String>, site: Option<String>) -> CompatFiles {
        let defaults = EventSite::default();
        self.tags = EventSite {
            event: event.unwrap_or(defaults.event),
            site: site.unwrap_or(defaults.site),
        };
        self
    }

    /// The engines' `id name` and `id author`, written as fastchess writes them.
    pub fn with_engine_ids(mut self, ids: EngineIds) -> CompatFiles {
        self.ids = ids;
        self
    }

    /// Appends one finished game to each file; a warning for each file that did not take it.
    pub fn append(&mut self, record: &GameRecord) -> Vec<String> {
        self.games += 1;
        let mut warnings = Vec::new();
        if let Some(pgn) = &mut self.pgn {
            let text = fastchess_pgn(record, self.notation, &self.extras, &self.tags, &self.ids);
            match pgn.append(&text) {
                Err(warning) => warnings.extend(warning),
                Ok(()) => {
                    if let Some(crc) = &mut self.crc {
                        *crc = super::crc32::update(*crc, text.as_bytes());
                        crate::console::say!("File {} has CRC32: {:#x}", pgn.path.display(), crc);
                    }
                }
            }
        }
        if let Some(epd) = &mut self.epd {
            if let Err(warning) = epd.append(&format!("{}\n", final_epd(record))) {
                warnings.extend(warning);
            }
        }
        warnings
    }

    /// What the files did not take, when a game is missing from one: `N of M games were not
    /// written to FILE (the first error)`, for each such file.
    pub fn lost(&self) -> Option<String> {
        let lines: Vec<String> = [&self.pgn, &self.epd]
            .into_iter()
            .flatten()
            .filter(|f| f.lost > 0)
            .map(|f| {
                format!(
                    "{} of {} games were not written to {} ({})",
                    f.lost,
                    self.games,
                    f.path.display(),
                    f.error.as_deref().unwrap_or_default()
                )
            })
            .collect();
        (!lines.is_empty()).then(|| lines.join("; "))
    }
}

/// A game as fastchess's PGN has it: the position its opening starts from, the opening's
/// book moves, the position at the end, and the legal moves played (with their events).
struct Replayed {
    root: Chess,
    book: Vec<shakmaty::Move>,
    end: Chess,
    moves: Vec<(shakmaty::Move, usize)>,
}

fn replay(record: &GameRecord) -> Replayed {
    let root = record.opening.root().unwrap_or_default();
    let mut pos = root.clone();
    let mut book = Vec::new();
    for text in &record.opening.moves {
        match text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
        {
            Some(m) => {
                pos.play_unchecked(m);
                book.push(m);
            }
            None => break,
        }
    }
    let mut moves = Vec::new();
    for (i, event) in record.events.iter().enumerate() {
        match event {
            Event::Move { uci, .. } => {
                match uci
                    .parse::<UciMove>()
                    .ok()
                    .and_then(|u| u.to_move(&pos).ok())
                {
                    Some(m) => {
                        pos.play_unchecked(m);
                        moves.push((m, i));
                    }
                    // A move that does not replay (an unnoticed illegal move that stood):
                    // fastchess's PGN stops at an illegal move too.
                    None => break,
                }
            }
            Event::IllegalMove { .. } => break,
            _ => {}
        }
    }
    Replayed {
        root,
        book,
        end: pos,
        moves,
    }
}

/// `2026.11.24` from the record's `2026-11-24T01:36:58.931Z`.
fn pgn_date(started: &str) -> String {
    match started.get(..10) {
        Some(day) if day.bytes().filter(u8::is_ascii_digit).count() == 8 => day.replace('-', "."),
        _ => "????.??.??".to_string(),
    }
}

/// fastchess's `2026-11-24T01:36:58 +0000` from the record's start (UTC).
fn game_start_time(started: &str) -> Option<String> {
    let second = started.get(..19)?;
    second
        .bytes()
        .filter(u8::is_ascii_digit)
        .count()
        .eq(&14)
        .then(|| format!("{second} +0000"))
}

/// fastchess's `GameDuration`: the game's length as `HH:MM:SS`, whole seconds.
fn game_duration(us: i64) -> String {
    let s = us / 1_000_000;
    format!("{:02}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// fastchess's `GameEndTime`: the start (UTC, RFC 3339) plus the game's length, in the form
/// of `GameStartTime`.
fn game_end_time(started: &str, us: i64) -> Option<String> {
    let start = chrono::DateTime::parse_from_rfc3339(started).ok()?;
    let end = start + chrono::Duration::microseconds(us);
    Some(end.format("%Y-%m-%dT%H:%M:%S +0000").to_string())
}

/// fastchess's score text: `+0.34`, `-1.20`, `0.00`, mates in plies `+M3` / `-M4`.
pub fn score_text(score: Option<Score>) -> String {
    match score {
        None => String::new(),
        Some(Score::Cp(cp)) => {
            let sign = match cp.signum() {
                1 => "+",
                -1 => "-",
                _ => "",
            };
            format!("{sign}{:.2}", cp.unsigned_abs() as f64 / 100.0)
        }
        Some(Score::Mate(n)) => {
            let plies = if n > 0 { n * 2 - 1 } else { -2 * n };
            format!("{}M{plies}", if n > 0 { "+" } else { "-" })
        }
    }
}

/// fastchess's `Termination` header for the ending.
pub fn termination_name(termination: Option<Termination>) -> &'static str {
    use Termination as T;
    match termination {
        None => "unterminated",
        Some(T::Flag | T::BothFlags) => "time forfeit",
        Some(T::IllegalMove) => "illegal move",
        Some(T::EngineCrash | T::EngineStall) => "abandoned",
        Some(T::Adjudication | T::MaxMoves | T::Tablebase) => "adjudication",
        Some(_) => "normal",
    }
}

/// One game in fastchess's PGN format, ending with a blank line.
pub fn fastchess_pgn(
    record: &GameRecord,
    notation: Notation,
    extras: &[Extra],
    tags: &EventSite,
    ids: &EngineIds,
) -> String {
    let outcome = super::compat_console::fastchess_ending(record);
    let result = outcome.map_or("*", |o| o.0.as_str());
    let game = replay(record);
    let mut out = String::new();
    let termination = outcome.map(|o| o.1);
    for (name, value) in fastchess_headers(record, &game, (result, termination), tags, ids) {
        out.push_str(&format!("[{name} \"{}\"]\n", value.replace('"', "'")));
    }
    out.push('\n');
    let ending = outcome
        .map(|(result, termination, overrun)| reason(result, termination, overrun))
        .unwrap_or_else(|| "Game interrupted".into());
    let mut texts = move_texts(record, &game, notation, extras, &ending);
    texts.push(result.to_string());
    wrap_at_80(&mut out, texts);
    out.push_str("\n\n");
    out
}

/// fastchess's tags of the game, in its order; `ending` is its `Result` and how it ended.
fn fastchess_headers(
    record: &GameRecord,
    game: &Replayed,
    ending: (&str, Option<Termination>),
    tags: &EventSite,
    ids: &EngineIds,
) -> Vec<(&'static str, String)> {
    let (result, termination) = ending;
    let mut headers = vec![
        ("Event", tags.event.clone()),
        ("Site", tags.site.clone()),
        ("Date", pgn_date(&record.started)),
        // fastchess numbers its rounds by the pair of games (1, 1, 2, 2, ...).
        ("Round", record.pair.max(1).to_string()),
        ("White", record.white.clone()),
        ("Black", record.black.clone()),
        ("Result", result.to_string()),
    ];
    // What each engine calls itself, when it said (fastchess's `PgnBuilder`).
    let sides = [
        (&record.white, "EngineWhiteName", "EngineWhiteAuthor"),
        (&record.black, "EngineBlackName", "EngineBlackAuthor"),
    ];
    for (player, name_tag, author_tag) in sides {
        let id = ids.get(player.as_str());
        let name = id
            .and_then(|id| id.name.as_deref())
            .filter(|n| !n.is_empty());
        let author = id
            .and_then(|id| id.author.as_deref())
            .filter(|a| !a.is_empty());
        headers.extend(name.map(|n| (name_tag, n.to_string())));
        headers.extend(author.map(|a| (author_tag, a.to_string())));
    }
    if game.root != Chess::default() || !record.opening.variant.is_standard() {
        let fen = Fen::from_position(&game.root, EnPassantMode::Legal).to_string();
        headers.push(("SetUp", "1".to_string()));
        headers.push(("FEN", fen));
    }
    if !record.opening.variant.is_standard() {
        headers.push(("Variant", "Chess960".to_string()));
    }
    let ended_us = record.events.last().map_or(0, |e| e.t_us()).max(0);
    headers.push(("GameDuration", game_duration(ended_us)));
    if let Some(start) = game_start_time(&record.started) {
        headers.push(("GameStartTime", start));
    }
    if let Some(end) = game_end_time(&record.started, ended_us) {
        headers.push(("GameEndTime", end));
    }
    let plies = game.book.len() + game.moves.len();
    headers.push(("PlyCount", plies.to_string()));
    headers.push(("Termination", termination_name(termination).to_string()));
    let tc = |t: &crate::timecontrol::TimeControl| fastchess_time(t);
    let (tw, tb) = (tc(&record.tc_white), tc(&record.tc_black));
    if tw == tb {
        headers.push(("TimeControl", tw));
    } else {
        headers.push(("WhiteTimeControl", tw));
        headers.push(("BlackTimeControl", tb));
    }
    // fastchess names the opening of a standard game, never of a Chess960 one.
    if record.opening.variant.is_standard() {
        let moves = game.book.iter().chain(game.moves.iter().map(|(m, _)| m));
        if let Some(opening) = super::eco::classify(&game.root, moves) {
            headers.push(("ECO", opening.eco.to_string()));
            headers.push(("Opening", opening.name.to_string()));
        }
    }
    headers
}

/// Each move with its number and comment: fastchess starts the game at the opening's own
/// position and writes its book moves, each commented `book`; `ending` goes on the last.
fn move_texts(
    record: &GameRecord,
    game: &Replayed,
    notation: Notation,
    extras: &[Extra],
    ending: &str,
) -> Vec<String> {
    let mut texts = Vec::new();
    let mut pos = game.root.clone();
    let mut number = pos.fullmoves().get();
    let black_starts = pos.turn() == shakmaty::Color::Black;
    let played = game.moves.iter().map(|(m, at)| (m, Some(*at)));
    let all = game.book.iter().map(|m| (m, None)).chain(played);
    let plies = game.book.len() + game.moves.len();
    for (k, (m, at)) in all.enumerate() {
        let notation_text = match notation {
            Notation::San => shakmaty::san::SanPlus::from_move(pos.clone(), *m).to_string(),
            Notation::Uci => m.to_uci(pos.castles().mode()).to_string(),
            Notation::Lan => lan(&pos, m),
        };
        let white = pos.turn() == shakmaty::Color::White;
        let mut text = if white {
            format!("{number}. {notation_text}")
        } else if k == 0 && black_starts {
            format!("{number}... {notation_text}")
        } else {
            notation_text
        };
        match at.map(|at| &record.events[at]) {
            None => text.push_str(" {book}"),
            Some(Event::Move { think_us, info, .. }) => {
                let last = (k + 1 == plies).then_some(ending);
                text.push_str(&format!(
                    " {{{}}}",
                    move_comment(info, *think_us, extras, last)
                ));
            }
            Some(_) => {}
        }
        texts.push(text);
        if !white {
            number += 1;
        }
        pos.play_unchecked(*m);
    }
    texts
}

/// `texts` into `out`, a space between them, lines of at most 80 characters.
fn wrap_at_80(out: &mut String, texts: Vec<String>) {
    let mut line_len = 0;
    for text in texts {
        if line_len > 0 && line_len + text.len() + 1 > 80 {
            out.push('\n');
            line_len = 0;
        }
        if line_len > 0 {
            out.push(' ');
            line_len += 1;
        }
        out.push_str(&text);
        line_len += text.len();
    }
}

/// A move's comment without its braces, as fastchess's `createComment` writes it:
/// `score/depth time`, then the extras asked for in fastchess's fixed order (`n=`, `sd=`,
/// `nps=`, whatever order they were asked in; a value the engine did not report is 0, as
/// fastchess writes it), then the game's ending on the last move. A move without a score
/// (no scored `info` line before its `bestmove`) reads `/0 0.002s`: fastchess writes an empty
/// score and depth 0 there. The time is whole milliseconds, cut down, not rounded: fastchess
/// measures a move's time as a whole count of milliseconds (1.999 ms is `0.001s`).
fn move_comment(
    info: &SearchInfo,
    think_us: i64,
    extras: &[Extra],
    ending: Option<&str>,
) -> String {
    let mut parts = vec![format!(
        "{}/{} {:.3}s",
        score_text(info.score),
        info.depth.unwrap_or(0),
        think_us.div_euclid(1000) as f64 / 1e3
    )];
    if extras.contains(&Extra::Nodes) {
        parts.push(format!("n={}", info.nodes.unwrap_or(0)));
    }
    if extras.contains(&Extra::Seldepth) {
        parts.push(format!("sd={}", info.seldepth.unwrap_or(0)));
    }
    if extras.contains(&Extra::Nps) {
        parts.push(format!("nps={}", info.nps.unwrap_or(0)));
    }
    parts.extend(ending.map(str::to_string));
    parts.join(", ")
}

/// Long algebraic notation as fastchess writes it (`moveToLan` of its chess library): `Ng1f3`,
/// `e7xd8=Q`, `O-O`, with `+` or `#` after a check.
fn lan(pos: &Chess, m: &shakmaty::Move) -> String {
    use shakmaty::Move as M;
    let mut text = match m {
        M::Castle { king, rook } => {
            if rook.file() > king.file() {
                "O-O".to_string()
            } else {
                "O-O-O".to_string()
            }
        }
        _ => {
            let piece = match m.role() {
                shakmaty::Role::Pawn => String::new(),
                role => role.upper_char().to_string(),
            };
            let from = m.from().map(|s| s.to_string()).unwrap_or_default();
            let capture = if m.is_capture() { "x" } else { "" };
            let promo = m
                .promotion()
                .map(|r| format!("={}", r.upper_char()))
                .unwrap_or_default();
            format!("{piece}{from}{capture}{}{promo}", m.to())
        }
    };
    let mut after = pos.clone();
    after.play_unchecked(*m);
    if after.is_checkmate() {
        text.push('#');
    } else if after.is_check() {
        text.push('+');
    }
    text
}

/// The final position as fastchess's EPD line: `8/8/8/8/8/8/3k1K2/8 b - - hmvc 0; fmvn 105;`.
pub fn final_epd(record: &GameRecord) -> String {
    let pos = replay(record).end;
    let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
    let fields: Vec<&str> = fen.split(' ').take(4).collect();
    format!(
        "{} hmvc {}; fmvn {};",
        fields.join(" "),
        pos.halfmoves(),
        pos.fullmoves()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duration_and_end_time_as_fastchess_writes_them() {
        assert_eq!(game_duration(3_725_900_000), "01:02:05");
        assert_eq!(game_duration(999_999), "00:00:00");
        assert_eq!(
            game_end_time("2026-11-25T23:59:58.500Z", 2_000_000).as_deref(),
            Some("2026-11-26T00:00:00 +0000")
        );
        assert_eq!(game_end_time("not a time", 1), None);
    }

    #[test]
    fn scores_and_terminations_as_fastchess_writes_them() {
        assert_eq!(score_text(Some(Score::Cp(34))), "+0.34");
        assert_eq!(score_text(Some(Score::Cp(-120))), "-1.20");
        assert_eq!(score_text(Some(Score::Cp(0))), "0.00");
        // Mates in plies: mate in 2 is 3 plies, being mated in 2 is 4.
        assert_eq!(score_text(Some(Score::Mate(2))), "+M3");
        assert_eq!(score_text(Some(Score::Mate(-2))), "-M4");
        assert_eq!(score_text(None), "");
        assert_eq!(termination_name(Some(Termination::Flag)), "time forfeit");
        assert_eq!(
            termination_name(Some(Termination::EngineStall)),
            "abandoned"
        );
        assert_eq!(termination_name(Some(Termination::Threefold)), "normal");
        assert_eq!(
            termination_name(Some(Termination::Tablebase)),
            "adjudication"
        );
        assert_eq!(termination_name(None), "unterminated");
        // LAN as fastchess's chess library writes it: no dash, x for captures, check marks.
        let pos = Chess::default();
        let nf3 = "g1f3".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        assert_eq!(lan(&pos, &nf3), "Ng1f3");
        let fen: Fen = "rnbqkbnr/ppp2ppp/8/3pp3/4P3/5Q2/PPPP1PPP/RNB1KBNR w KQkq - 0 3"
            .parse()
            .unwrap();
        let pos: Chess = fen.into_position(shakmaty::CastlingMode::Standard).unwrap();
        let qxf7 = "f3f7".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        assert_eq!(lan(&pos, &qxf7), "Qf3xf7+");
        assert_eq!(pgn_date("2026-11-24T01:36:58.931Z"), "2026.11.24");
        assert_eq!(
            game_start_time("2026-11-24T01:36:58.931Z").as_deref(),
            Some("2026-11-24T01:36:58 +0000")
        );
    }

    #[test]
    fn move_comments_as_fastchess_writes_them() {
        let info = SearchInfo {
            score: Some(Score::Cp(25)),
            depth: Some(12),
            seldepth: Some(18),
            nodes: Some(12_345),
            nps: Some(100_000),
            cpu: None,
        };
        let all = [Extra::Nps, Extra::Seldepth, Extra::Nodes];
        // Every extra, in fastchess's order whatever the order asked: n=, sd=, nps=.
        assert_eq!(
            move_comment(&info, 123_450, &all, None),
            "+0.25/12 0.123s, n=12345, sd=18, nps=100000"
        );
        assert_eq!(
            move_comment(&info, 123_450, &all, Some("White mates")),
            "+0.25/12 0.123s, n=12345, sd=18, nps=100000, White mates"
        );
        assert_eq!(
            move_comment(&info, 123_450, &[Extra::Seldepth], None),
            "+0.25/12 0.123s, sd=18"
        );
        assert_eq!(move_comment(&info, 123_450, &[], None), "+0.25/12 0.123s");
        // Whole milliseconds, cut down as fastchess counts them.
        assert_eq!(move_comment(&info, 1_999, &[], None), "+0.25/12 0.001s");
        assert_eq!(move_comment(&info, 123_999, &[], None), "+0.25/12 0.123s");
        // Nothing reported: fastchess writes 0s (`value_or(0)`).
        assert_eq!(
            move_comment(&SearchInfo::default(), 0, &all, None),
            "/0 0.000s, n=0, sd=0, nps=0"
        );
    }
}
