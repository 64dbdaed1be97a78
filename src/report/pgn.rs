//! PGN export: one game of the record as a PGN game in export format.
//!
//! What a game looks like:
//!
//! ```text
//! [Event "blitz-arena"]
//! [Site "?"]
//! [Date "2024.05.01"]
//! [Round "1"]
//! [White "alpha"]
//! [Black "beta"]
//! [Result "1-0"]
//! [UTCDate "2024.05.01"]
//! [UTCTime "12:00:00"]
//! [TimeControl "300"]
//! [Termination "normal"]
//! [PlyCount "7"]
//! [Opening "startpos"]
//! [Ruleset "fide"]
//! [RuleCited "FIDE Laws 5.1.1"]
//!
//! 1. e4 {[%clk 0:04:59.0] [%emt 0:00:01.0]} 1... e5
//! {[%clk 0:04:58.5] [%emt 0:00:01.5]} ... 4. Qxf7# {[%clk 0:04:55.0] [%emt 0:00:01.0]}
//! {checkmate, rule FIDE Laws 5.1.1} 1-0
//! ```
//!
//! - Tag values escape `"` and `\` (PGN standard 8.1.1); control characters become spaces.
//! - `SetUp "1"` and `FEN` are written when the game proper did not start from the standard
//!   start position. The FEN is the position *after* the opening's book moves: the book moves
//!   are not in the movetext, so every move in the movetext carries a clock.
//! - `[%clk]` is the mover's time left after the move (increment included), clamped at zero;
//!   `[%emt]` is its think time. Both in tenths of a second, truncated, as lichess writes them.
//! - A black move always carries its number (`12... Nf6`): it follows a comment.
//! - Whatever is not a legal move (an illegal move, a flag fall, an engine fault) becomes a
//!   comment where it happened; the game ends with a comment naming what ended it and the rule
//!   cited, then the result token.
//! - An illegal move that stood is written as the move it became where PGN can say it: a pawn
//!   sent without its piece as the queen promotion it became, `0000` as the null move `--`
//!   (when the position after it is legal). Any other (a jump, a bad castling, a king left in
//!   check) stops the movetext: a comment gives the FEN the game went on from, and the rest of
//!   the record is told in the final comment with its moves in UCI, so that the PGN still loads
//!   everywhere and `PlyCount` is the number of moves a reader replays. So does a record that
//!   does not fit its opening.
//! - Movetext lines are at most 80 columns; a blank line separates the tags from the movetext
//!   and ends the game. No movetext line starts with `[` or `%`: a clock comment is never
//!   split, and comment text has no square brackets.

use std::sync::Arc;

use shakmaty::fen::Fen;
use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{
    attacks, CastlingSide, Chess, EnPassantMode, FromSetup, Move, MoveList, Position, Role, Square,
};

use crate::event::{Claimable, CpuUse, Event, Fault, GameRecord, Injection, Side};
use crate::rules::illegal::{self, IllegalKind, MoveCheck};
use crate::rules::{LegalMoves, MoveKey};
use crate::timecontrol::TimeControl;

/// The widest movetext line written.
pub const MAX_LINE: usize = 80;

/// One game in PGN export format, ending with a blank line.
pub fn game_pgn(record: &GameRecord) -> String {
    let start = replay_opening(&record.opening);
    let body = movetext(record, &start);
    let outcome = record.outcome();

    // Sized once: grown a push at a time, the text was copied a dozen times a game.
    let movetext = body.atoms.text.len() + body.atoms.ends.len();
    let mut out = String::with_capacity(1024 + movetext);
    // Each tag written as it comes (a string each, escaped into another, was a tenth of the
    // game's PGN).
    let mut tag = |name: &str, value: &str| {
        out.push('[');
        out.push_str(name);
        out.push_str(" \"");
        push_tag_value(&mut out, value);
        out.push_str("\"]\n");
    };
    // Without a start time in RFC 3339 the `Date` is `????.??.??` and there is no `UTCDate`.
    let started = parse_started(&record.started).map(|t| (pgn_date(t), pgn_time(t)));
    tag("Event", "blitz-arena");
    tag("Site", "?");
    tag(
        "Date",
        started.as_ref().map_or("????.??.??", |(date, _)| date),
    );
    tag("Round", itoa::Buffer::new().format(record.game));
    tag("White", &record.white);
    tag("Black", &record.black);
    tag("Result", body.result);
    if let Some((date, time)) = &started {
        tag("UTCDate", date);
        tag("UTCTime", time);
    }
    tag("TimeControl", &record.tc_white.pgn_tag());
    if record.tc_white != record.tc_black {
        tag("WhiteTimeControl", &record.tc_white.pgn_tag());
        tag("BlackTimeControl", &record.tc_black.pgn_tag());
    }
    push_delay_tags(&mut tag, &record.tc_white, &record.tc_black);
    tag(
        "Termination",
        outcome
            .as_ref()
            .map_or("unterminated", |o| o.termination.pgn_tag()),
    );
    tag("PlyCount", itoa::Buffer::new().format(body.plies));
    if !record.opening.variant.is_standard() {
        tag("Variant", "Chess960");
    }
    if let Some(fen) = &start.setup_fen {
        tag("SetUp", "1");
        tag("FEN", fen);
    }
    tag("Opening", &record.opening.name);
    tag("Ruleset", record.ruleset.as_str());
    if let Some(o) = outcome.as_ref().filter(|o| !o.rule.is_empty()) {
        tag("RuleCited", o.rule);
    }
    out.push('\n');
    wrap_into(&mut out, &body.atoms);
    out.push('\n');
    out
}

/// `TimeControlDelay` (not a standard tag: PGN's `TimeControl` has no delay syntax) when a
/// simple delay is set; per side when the sides differ.
fn push_delay_tags(tag: &mut impl FnMut(&str, &str), white: &TimeControl, black: &TimeControl) {
    if white.delay.is_zero() && black.delay.is_zero() {
        return;
    }
    if white.delay == black.delay {
        tag("TimeControlDelay", &seconds(white.delay.as_micros() as i64));
    } else {
        tag(
            "WhiteTimeControlDelay",
            &seconds(white.delay.as_micros() as i64),
        );
        tag(
            "BlackTimeControlDelay",
            &seconds(black.delay.as_micros() as i64),
        );
    }
}

/// Where the movetext starts.
struct Start {
    /// The position after the book moves; `None` when the opening could not be replayed.
    pos: Option<Chess>,
    /// The FEN for the `FEN` tag, when that position is not the standard start position.
    setup_fen: Option<String>,
    /// Why the opening could not be replayed.
    problem: Option<String>,
}

fn replay_opening(opening: &crate::event::OpeningRecord) -> Start {
    let fail = |problem: String| Start {
        pos: None,
        setup_fen: None,
        problem: Some(problem),
    };
    let mut pos = match opening.root() {
        Ok(pos) => pos,
        Err(e) => {
            let text = opening.fen.as_deref().unwrap_or_default();
            return fail(format!("opening FEN {text:?} cannot be set up: {e}"));
        }
    };
    for text in &opening.moves {
        match parse_move(&pos, text) {
            Some(m) => pos.play_unchecked(m),
            None => return fail(format!("opening move {text:?} is not legal")),
        }
    }
    let fen = Fen::from_position(&pos, EnPassantMode::Legal);
    let standard = Fen::from_position(&Chess::default(), EnPassantMode::Legal);
    // A Chess960 game always names its start position.
    let chess960 = !opening.variant.is_standard();
    Start {
        setup_fen: (fen != standard || chess960).then(|| fen.to_string()),
        pos: Some(pos),
        problem: None,
    }
}

/// Writes one move with its clock comment, after the notes gathered before it. `legal` is
/// `p`'s legal moves, `key` its zobrist key if known; returns the key of the position after
/// the move if shakmaty could update it (`Referee::play` keeps its keys so).
#[allow(clippy::too_many_arguments)]
fn push_move(
    atoms: &mut Atoms,
    notes: &mut Vec<Note>,
    p: &mut Chess,
    legal: &LegalMoves,
    key: Option<Zobrist64>,
    side: Side,
    m: Move,
    clock_us: i64,
    think_us: i64,
) -> Option<Zobrist64> {
    push_notes(atoms, notes);
    let key_after = key.and_then(|key| p.update_zobrist_hash(key, m, EnPassantMode::Legal));
    push_ply(atoms, p, side, clock_us, think_us, |p, text| {
        let san = san_plus_among(p, legal, m, key_after);
        push_san_plus(text, san);
    });
    key_after
}

/// One ply's text: the move number (`12.`, or `12...`: a black move always carries its
/// number, since it follows a comment), the move written by `write_move` (which plays it on
/// `p`), and the clock comment, as three atoms put together on the stack and appended at once.
fn push_ply(
    atoms: &mut Atoms,
    p: &mut Chess,
    side: Side,
    clock_us: i64,
    think_us: i64,
    write_move: impl FnOnce(&mut Chess, &mut Ply),
) {
    let mut ply = Ply::default();
    ply.push_u64(u64::from(p.fullmoves().get()));
    ply.push_bytes(match side {
        Side::White => b".",
        Side::Black => b"...",
    });
    let number = ply.len();
    ply.push(b' ');
    write_move(p, &mut ply);
    let san = ply.len();
    ply.push(b' ');
    push_clocks(&mut ply, clock_us, think_us);
    atoms.push_run(ply.as_bytes(), [number, san, ply.len()]);
}

/// Room for one ply's text: a move number of up to 10 digits and `...`, a SAN of up to 9
/// characters (`Qa1xb2#`, `exd8=Q+`), a clock comment with up to 10 digits of hours each
/// (77 bytes in all), and `MAX_DIGITS` for the number last pushed.
type Ply = crate::decimal::Ascii<96>;

/// `san` as shakmaty writes it (`SanPlus`'s `Display`), put on the stack.
fn push_san_plus(text: &mut Ply, san: SanPlus) {
    let ascii = |c: char| c as u8;
    match san.san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            if role != Role::Pawn {
                text.push(ascii(role.upper_char()));
            }
            if let Some(file) = file {
                text.push(ascii(file.char()));
            }
            if let Some(rank) = rank {
                text.push(ascii(rank.char()));
            }
            if capture {
                text.push(b'x');
            }
            text.push_bytes(&[ascii(to.file().char()), ascii(to.rank().char())]);
            if let Some(promotion) = promotion {
                text.push_bytes(&[b'=', ascii(promotion.upper_char())]);
            }
        }
        San::Castle(CastlingSide::KingSide) => text.push_bytes(b"O-O"),
        San::Castle(CastlingSide::QueenSide) => text.push_bytes(b"O-O-O"),
        San::Put { role, to } => {
            if role != Role::Pawn {
                text.push(ascii(role.upper_char()));
            }
            text.push_bytes(&[b'@', ascii(to.file().char()), ascii(to.rank().char())]);
        }
        San::Null => text.push_bytes(b"--"),
    }
    if let Some(suffix) = san.suffix {
        text.push(ascii(suffix.char()));
    }
}

/// `m` in SAN with its `+` or `#`, played on `pos`: shakmaty's
/// `SanPlus::from_move_and_play_unchecked`, which asks the position after the move for its
/// outcome, and so generates every legal move after every move to find whether it is a
/// stalemate. Only a move that gives check needs them (a mate in chess is a check with no
/// legal reply), so only then are they generated. `m` must be legal in `pos`.
pub fn san_plus(pos: &mut Chess, m: Move) -> SanPlus {
    san_plus_by(
        pos,
        m,
        |pos, role, to| pos.san_candidates(role, to),
        |after| after.legal_moves().is_empty(),
    )
}

/// [`san_plus`], with `pos`'s legal moves in hand (`legal`) and those of the position after
/// the move from the memo (`rules::legal_moves`; `key_after` is that position's zobrist key if
/// known), which the referee filled for the game's positions as it was played: no move is
/// generated, where `san_plus` may generate twice.
fn san_plus_among(
    pos: &mut Chess,
    legal: &LegalMoves,
    m: Move,
    key_after: Option<Zobrist64>,
) -> SanPlus {
    san_plus_by(
        pos,
        m,
        |_, role, to| {
            // The legal moves of the piece's kind to its square: `san_candidates`'s list.
            let mut candidates = MoveList::new();
            for &c in legal.moves() {
                if matches!(c, Move::Normal { role: r, to: t, .. } if r == role && t == to) {
                    candidates.push(c);
                }
            }
            candidates
        },
        |after| legal_moves(after, key_after).moves().is_empty(),
    )
}

/// `m` in SAN, its candidates for disambiguation from `candidates` (see [`san`]), played on
/// `pos`, with `+`, or `#` where the position after it has no legal reply (`no_reply`, asked
/// only after a check).
fn san_plus_by(
    pos: &mut Chess,
    m: Move,
    candidates: impl FnOnce(&Chess, Role, Square) -> MoveList,
    no_reply: impl FnOnce(&Chess) -> bool,
) -> SanPlus {
    let san = san(pos, m, |role, to| candidates(pos, role, to));
    pos.play_unchecked(m);
    let suffix = if pos.checkers().is_empty() {
        None
    } else if no_reply(pos) {
        Some(Suffix::Checkmate)
    } else {
        Some(Suffix::Check)
    };
    SanPlus { san, suffix }
}

/// `m` in SAN without its suffix, as shakmaty's `San::from_move` writes it. That asks for
/// the legal moves of the piece's kind to its target square (`candidates`: shakmaty's
/// `san_candidates`), to see whether the move needs its file or rank (PGN standard 8.2.3.4);
/// when no other piece of its kind attacks that square even ignoring pins, none can be
/// ambiguous with it, and none are asked for. A pawn's and a king's SAN never need them.
/// `m` must be legal in `pos`.
fn san(pos: &Chess, m: Move, candidates: impl FnOnce(Role, Square) -> MoveList) -> San {
    match m {
        Move::Normal { role, from, to, .. } if !matches!(role, Role::Pawn | Role::King) => {
            let rivals =
                attacks::attacks(to, role.of(pos.turn()), pos.board().occupied()) & pos.our(role);
            if rivals.without(from).is_empty() {
                San::disambiguate(m, &MoveList::new())
            } else {
                San::disambiguate(m, &candidates(role, to))
            }
        }
        // A pawn's or a king's move, castling, en passant: `San::from_move` asks for nothing.
        _ => San::disambiguate(m, &MoveList::new()),
    }
}

/// The notes gathered since the last move, as one comment.
#[inline]
fn push_notes(atoms: &mut Atoms, notes: &mut Vec<Note>) {
    if !notes.is_empty() {
        let text: Vec<String> = notes.drain(..).map(|n| n.text).collect();
        push_comment(atoms, &text.join("; "));
    }
}

/// The clock comment after a move, one atom so that no line starts inside it. Written digit
/// by digit: `format!` here was a tenth of the arena's work per move.
fn push_clocks(text: &mut Ply, clock_us: i64, think_us: i64) {
    text.push_bytes(b"{[%clk ");
    write_clock(text, clock_us);
    text.push_bytes(b"] [%emt ");
    write_clock(text, think_us);
    text.push_bytes(b"]}");
}

/// A move whose search was starved of CPU says so in its clock comment:
/// `{[%clk 0:00:01.2] [%emt 0:00:00.31] starved of CPU: 40 ms of CPU in 310 ms, ...}`.
/// The words are atoms of their own, so that lines still break at 80 columns.
fn note_starved(atoms: &mut Atoms, cpu: Option<CpuUse>, think_us: i64) {
    let Some(cpu) = cpu.filter(|c| c.starved(think_us)) else {
        return;
    };
    if !atoms.last().is_some_and(|a| a.ends_with('}')) {
        return;
    }
    atoms.pop_last_char();
    let text = format!("starved of CPU: {}}}", cpu.describe(think_us));
    for word in text.split(' ') {
        atoms.push(word);
    }
}

/// For a time loss whose last move was starved of CPU: `white's last move was starved of
/// CPU (...): the machine was short of CPU, not the engine`. The result stands as ruled.
pub fn starved_loss_note(record: &GameRecord) -> Option<String> {
    let (side, cpu, think_us) = record.starved_time_loss()?;
    Some(format!(
        "{}'s last move was starved of CPU ({}): the machine was short of CPU, not the engine",
        side.name(),
        cpu.describe(think_us)
    ))
}

/// `pos`'s legal moves, from the process's memo of them (`rules::legal_moves`), which the
/// referee filled for these very positions as the game was played: a lookup, not a move
/// generation. The memo finds a position by its zobrist key, as the referee keeps it: `key`
/// when known (updated move by move, as the referee updates its own), else computed.
fn legal_moves(pos: &Chess, key: Option<Zobrist64>) -> Arc<LegalMoves> {
    let zobrist = key.unwrap_or_else(|| pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
    crate::rules::legal_moves(pos, zobrist).0
}

/// [`parse_move`], with `pos`'s legal moves in hand (`legal`). A move other than castling is
/// found among them by its squares and promotion, as the referee finds it: `UciMove::to_move`
/// reads such a text as that very move (`Referee::known_legal` says why). Castling, a text
/// that names no legal move and a promotion sent without its piece are read by `parse_move`.
fn find_move(pos: &Chess, legal: &LegalMoves, text: &str) -> Option<Move> {
    if let Ok(UciMove::Normal {
        from,
        to,
        promotion,
    }) = UciMove::from_ascii(text.as_bytes())
    {
        if let Some(m) = legal.find(MoveKey::new(from, to, promotion)) {
            return Some(m);
        }
    }
    parse_move(pos, text)
}

/// A UCI move of the record as a legal move in `pos`. A promotion sent without its piece
/// letter is read as a queen, as the rulesets that let it stand do (WBCA 17, USCF 16).
fn parse_move(pos: &Chess, text: &str) -> Option<Move> {
    let legal = |t: &str| {
        UciMove::from_ascii(t.as_bytes())
            .ok()
            .filter(|u| !matches!(u, UciMove::Null))
            .and_then(|u| u.to_move(pos).ok())
    };
    legal(text).or_else(|| {
        if text.len() == 4 {
            legal(&format!("{text}q"))
        } else {
            None
        }
    })
}

/// Notes where the movetext stops and the rest of the record is told in the final comment.
const STOOD: &str = "the illegal move stood, and PGN cannot write it: the movetext stops here";
const NO_FIT: &str =
    "the next move does not fit the position, so the moves from here cannot be written in SAN";

/// The movetext as unbreakable atoms, plus what the tags need.
struct Body {
    atoms: Atoms,
    plies: u32,
    result: &'static str,
}

/// A note about something that was not a legal move. `key` is text that, when the ending's
/// detail already contains it, makes the note redundant in the final comment.
struct Note {
    text: String,
    key: Option<String>,
}

/// An illegal move of the record, until the next move shows whether it stood.
struct Pending {
    side: Side,
    uci: String,
    kind: Option<IllegalKind>,
    think_us: i64,
    clock_us: i64,
}

/// What became of an illegal move that stood, in the movetext.
enum Stood {
    /// Written as a move: a pawn sent without its piece as the queen promotion it became, or
    /// `0000` as the null move `--` (python-chess, pgn-extract, ChessBase and Scid read it).
    Written,
    /// PGN cannot write it (a jump, a bad castling, a king left in check): the movetext stops,
    /// and the note says where the game went on from.
    Stop(String),
    /// The record does not say what it did to the board.
    Unknown,
}

/// Writes an illegal move that stood as the move it became, when PGN can express it and the
/// position after it is one a PGN reader can go on from; else says how the game went on.
fn write_stood(
    atoms: &mut Atoms,
    notes: &mut Vec<Note>,
    p: &mut Chess,
    illegal: &Pending,
) -> Stood {
    let (side, sent) = (illegal.side, illegal.uci.as_str());
    let (think_us, clock_us) = (illegal.think_us, illegal.clock_us);
    if illegal.kind == Some(IllegalKind::NoPromotion) {
        // The rules made it a queen (WBCA 17, USCF 16, FIDE 7.5.2), or it stood unnoticed.
        let legal = legal_moves(p, None);
        return match find_move(p, &legal, sent) {
            Some(m) => {
                notes.push(Note {
                    text: format!("{} sent {sent:?} without its piece: a queen", side.name()),
                    key: None,
                });
                push_move(atoms, notes, p, &legal, None, side, m, clock_us, think_us);
                Stood::Written
            }
            None => Stood::Unknown,
        };
    }
    let MoveCheck::Illegal(checked) = illegal::check(p, sent) else {
        return Stood::Unknown;
    };
    let after = match illegal::play_illegal(p, &checked) {
        Ok(after) => after,
        Err(_) => return Stood::Unknown,
    };
    let readable =
        Chess::from_setup(after.to_setup(EnPassantMode::Legal), p.castles().mode()).is_ok();
    if checked.kind == IllegalKind::NoMove && readable {
        push_notes(atoms, notes);
        push_ply(atoms, p, side, clock_us, think_us, |p, text| {
            text.push_bytes(b"--");
            *p = after;
        });
        return Stood::Written;
    }
    let fen = Fen::from_position(&after, EnPassantMode::Legal);
    Stood::Stop(format!(
        "{STOOD}; the game went on from FEN {fen} with these moves, in UCI"
    ))
}

fn movetext(record: &GameRecord, start: &Start) -> Body {
    let mut text = Movetext::new(start);
    // Sized once: about two events a ply (its `go` and its move), three atoms and some 45
    // bytes of text a ply (`12. Nxe5 {[%clk 0:04:58.1] [%emt 0:00:01.9]}`).
    text.atoms.text.reserve(record.events.len() * 24);
    text.atoms.ends.reserve(record.events.len() * 3 / 2);
    for event in &record.events {
        match event {
            Event::Move {
                side,
                uci,
                think_us,
                clock_us,
                info,
                ..
            } => text.on_move(*side, uci, *clock_us, *think_us, info.cpu),
            Event::IllegalMove {
                side,
                uci,
                reason,
                kind,
                think_us,
                clock_us,
                ..
            } => {
                let illegal = Pending {
                    side: *side,
                    uci: uci.clone(),
                    kind: *kind,
                    think_us: *think_us,
                    clock_us: *clock_us,
                };
                text.on_illegal(illegal, reason);
            }
            event => text.notes.extend(event_note(event)),
        }
    }
    text.finish(record)
}

/// The movetext being written, event by event.
struct Movetext {
    atoms: Atoms,
    plies: u32,
    /// The position the moves are played on; `None` once PGN can follow the game no more.
    pos: Option<Chess>,
    /// `pos`'s zobrist key, when known.
    key: Option<Zobrist64>,
    /// Notes not yet written, for the next comment.
    notes: Vec<Note>,
    /// The last thing noted was an illegal move: if the next move is the opponent's, it stood.
    after_illegal: bool,
    /// The last illegal move, until the next move shows whether it stood.
    pending: Option<Pending>,
}

impl Movetext {
    fn new(start: &Start) -> Movetext {
        Movetext {
            atoms: Atoms::default(),
            plies: 0,
            pos: start.pos.clone(),
            key: None,
            notes: start
                .problem
                .iter()
                .map(|p| Note {
                    text: p.clone(),
                    key: None,
                })
                .collect(),
            after_illegal: false,
            pending: None,
        }
    }

    /// A move completed: written as a move when it fits the position, else as a note (and
    /// the movetext stops there).
    fn on_move(
        &mut self,
        side: Side,
        uci: &str,
        clock_us: i64,
        think_us: i64,
        cpu: Option<CpuUse>,
    ) {
        self.write_pending(side);
        let found = self
            .pos
            .as_ref()
            .filter(|p| Side::from(p.turn()) == side)
            .and_then(|p| {
                let key = self
                    .key
                    .unwrap_or_else(|| p.zobrist_hash(EnPassantMode::Legal));
                let legal = legal_moves(p, Some(key));
                find_move(p, &legal, uci).map(|m| (m, legal, key))
            });
        match (self.pos.as_mut(), found) {
            (Some(p), Some((m, legal, key))) => {
                self.key = push_move(
                    &mut self.atoms,
                    &mut self.notes,
                    p,
                    &legal,
                    Some(key),
                    side,
                    m,
                    clock_us,
                    think_us,
                );
                note_starved(&mut self.atoms, cpu, think_us);
                self.plies += 1;
            }
            (p, _) => {
                if p.is_some() {
                    self.notes.push(Note {
                        text: if self.after_illegal { STOOD } else { NO_FIT }.to_string(),
                        key: None,
                    });
                    self.pos = None;
                }
                self.notes.push(Note {
                    text: format!(
                        "{} played {uci:?} with {} left",
                        side.name(),
                        signed_clock(clock_us)
                    ),
                    key: None,
                });
            }
        }
        self.after_illegal = false;
    }

    /// The illegal move pending stood if the game went on with the opponent's move (`mover`'s):
    /// it is written as the move it became, or the movetext stops there.
    fn write_pending(&mut self, mover: Side) {
        let (Some(illegal), Some(p)) = (self.pending.take(), self.pos.as_mut()) else {
            return;
        };
        if Side::from(p.turn()) != illegal.side || mover == illegal.side {
            return;
        }
        self.key = None;
        match write_stood(&mut self.atoms, &mut self.notes, p, &illegal) {
            Stood::Written => {
                self.plies += 1;
                self.after_illegal = false;
            }
            Stood::Stop(note) => {
                self.notes.push(Note {
                    text: note,
                    key: None,
                });
                self.pos = None;
            }
            Stood::Unknown => {}
        }
    }

    /// An illegal move completed: noted, and pending until the next move shows whether it
    /// stood.
    fn on_illegal(&mut self, illegal: Pending, reason: &str) {
        let key = format!("{} played {:?}", illegal.side.name(), illegal.uci);
        self.notes.push(Note {
            text: format!("{key}: {reason}"),
            key: Some(key),
        });
        self.pending = Some(illegal);
        self.after_illegal = true;
    }

    /// The final comment (what happened after the last move, the ending, the rule) and the
    /// result.
    fn finish(mut self, record: &GameRecord) -> Body {
        let outcome = record.outcome();
        let detail = outcome.as_ref().map_or("", |o| o.detail);
        let mut parts: Vec<String> = self
            .notes
            .into_iter()
            .filter(|n| !n.key.as_ref().is_some_and(|k| detail.contains(k.as_str())))
            .map(|n| n.text)
            .collect();
        let result = match &outcome {
            Some(o) => {
                if !o.detail.is_empty() {
                    parts.push(o.detail.to_string());
                }
                if let Some(note) = starved_loss_note(record) {
                    parts.push(note);
                }
                for (side, &us) in o.clock_us.iter_sides() {
                    if us < 0 {
                        parts.push(format!(
                            "{} clock at the end {}",
                            side.name(),
                            signed_clock(us)
                        ));
                    }
                }
                if o.rule.is_empty() {
                    parts.push(o.termination.as_str().to_string());
                } else {
                    parts.push(format!("{}, rule {}", o.termination.as_str(), o.rule));
                }
                o.result.as_str()
            }
            None => {
                parts.push("unterminated: the record has no end".to_string());
                "*"
            }
        };
        push_comment(&mut self.atoms, &parts.join("; "));
        self.atoms.push(result);
        Body {
            atoms: self.atoms,
            plies: self.plies,
            result,
        }
    }
}

/// What an event other than a move says in the movetext's comments, if anything.
fn event_note(event: &Event) -> Option<Note> {
    let note = |text: String| Some(Note { text, key: None });
    match event {
        // Pondering leaves the moves and the clocks as they are: nothing to say. Moves are
        // written by `Movetext`.
        Event::Go { .. }
        | Event::Ponder { .. }
        | Event::PonderStopped { .. }
        | Event::End { .. }
        | Event::Move { .. }
        | Event::IllegalMove { .. } => None,
        Event::FlagFall { t_us, side } => {
            let key = format!("{} flag fell", side.name());
            Some(Note {
                text: format!("{key} at {} into the game", seconds(*t_us) + "s"),
                key: Some(key),
            })
        }
        Event::EngineFault {
            side,
            fault,
            detail,
            ..
        } => Some(fault_note(*side, fault, detail)),
        Event::Injected { side, what, .. } => note(injection_text(*side, what)),
        Event::Discarded { t_us, side, line } => note(format!(
            "{}'s stray {line:?} at {}s discarded: read before the go it would answer",
            side.name(),
            seconds(*t_us)
        )),
        Event::Tablebase {
            material, verdict, ..
        } => {
            let text = format!("tablebase: {}", verdict.describe(material));
            Some(Note {
                key: Some(text.clone()),
                text,
            })
        }
        Event::Unnoticed { by, .. } => {
            note(format!("{} did not notice it: the move stands", by.name()))
        }
        Event::Notice { t_us, by, what } => note(format!(
            "{} noticed {} at {}s",
            by.name(),
            claimable(*what),
            seconds(*t_us)
        )),
        Event::Claim { t_us, by, what } => note(format!(
            "{} claimed {} at {}s",
            by.name(),
            claimable(*what),
            seconds(*t_us)
        )),
        Event::Penalty {
            side, add_us, rule, ..
        } => note(if *add_us >= 0 {
            format!("{} +{}s ({rule})", side.name(), seconds(*add_us))
        } else {
            format!("{} charged {}s ({rule})", side.name(), seconds(-add_us))
        }),
    }
}

/// The note of an engine's fault, keyed by its detail.
fn fault_note(side: Side, fault: &Fault, detail: &str) -> Note {
    let what = match fault {
        Fault::Crash { status: Some(s) } => format!("crashed (exit status {s})"),
        Fault::Crash { status: None } => "crashed".to_string(),
        Fault::Stall => "stalled".to_string(),
        Fault::StartFailed => "could not be started".to_string(),
    };
    let mut text = format!("{} {what}", side.name());
    if !detail.is_empty() {
        text.push_str(": ");
        text.push_str(detail);
    }
    Note {
        text,
        key: (!detail.is_empty()).then(|| detail.to_string()),
    }
}

/// What a fault injection did, in words.
fn injection_text(side: Side, what: &Injection) -> String {
    match what {
        Injection::Illegal {
            kind,
            replaced,
            sent,
        } => {
            format!(
                "injected: {}'s {replaced} replaced by the illegal {sent} ({kind})",
                side.name()
            )
        }
        Injection::IllegalNotPossible { replaced } => {
            format!(
                "injected: no illegal move possible instead of {}'s {replaced}",
                side.name()
            )
        }
        Injection::Flag { mode, overshoot_ms } => {
            format!(
                "injected: {}'s move held until its flag fell + {overshoot_ms} ms ({mode})",
                side.name()
            )
        }
        Injection::FlagNotPossible { mode, why } => {
            format!("injected flag ({mode}) not possible: {why}")
        }
    }
}

/// A free-text comment as atoms (its words), the braces attached to the first and last word.
fn push_comment(atoms: &mut Atoms, text: &str) {
    let clean = clean_comment(text);
    // A word too long for a line is cut: inside a comment a line break reads as a space.
    let mut words = clean.split_whitespace().flat_map(cut_word).peekable();
    let mut first = true;
    while let Some(word) = words.next() {
        let last = words.peek().is_none();
        atoms.push_with(|text| {
            if first {
                text.push(b'{');
            }
            text.extend_from_slice(word.as_bytes());
            if last {
                text.push(b'}');
            }
        });
        first = false;
    }
}

/// `word` in pieces of at most `MAX_LINE - 2` characters, so that each fits a line with the
/// comment's braces.
fn cut_word(word: &str) -> impl Iterator<Item = &str> {
    let mut rest = word;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = rest
            .char_indices()
            .nth(MAX_LINE - 2)
            .map_or(rest.len(), |(at, _)| at);
        let (piece, tail) = rest.split_at(end);
        rest = tail;
        Some(piece)
    })
}

/// Comment text (engine output among it) that cannot end the comment early, be taken for a
/// command or start a tag line: braces and square brackets become parentheses (a wrapped
/// `[Event "x"]` at a line start would read as a new game to a line-based reader), `%` (PGN
/// escape at a line start, `[%cmd]` inside a comment) becomes `pct`, control characters
/// become spaces.
fn clean_comment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '{' | '[' => out.push('('),
            '}' | ']' => out.push(')'),
            '%' => out.push_str("pct"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The movetext's unbreakable pieces (a move number, a SAN, a clock comment, a comment's
/// word), kept in one buffer one space apart, as a line shows them: a string each was three
/// allocations a move, and copying them one by one into lines cost more than the SAN.
#[derive(Default)]
struct Atoms {
    /// The atoms, each after a space but the first: ASCII, or the UTF-8 of comment text.
    text: Vec<u8>,
    /// Where each atom ends in `text`.
    ends: Vec<usize>,
}

impl Atoms {
    fn push(&mut self, atom: &str) {
        self.push_with(|text| text.extend_from_slice(atom.as_bytes()));
    }

    /// An atom written by `write` at the end of the text, UTF-8.
    fn push_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        if !self.ends.is_empty() {
            self.text.push(b' ');
        }
        write(&mut self.text);
        self.ends.push(self.text.len());
    }

    /// Atoms already one space apart in `run` (UTF-8), each ending where `ends` says.
    fn push_run<const N: usize>(&mut self, run: &[u8], ends: [usize; N]) {
        if !self.ends.is_empty() {
            self.text.push(b' ');
        }
        let base = self.text.len();
        self.text.extend_from_slice(run);
        self.ends.extend(ends.map(|end| base + end));
    }

    fn last(&self) -> Option<&str> {
        let end = *self.ends.last()?;
        let atom = &self.text[self.start(self.ends.len() - 1)..end];
        Some(std::str::from_utf8(atom).expect("atoms are UTF-8"))
    }

    /// Where atom `i` starts: after the space that follows the one before it.
    fn start(&self, i: usize) -> usize {
        match i {
            0 => 0,
            i => self.ends[i - 1] + 1,
        }
    }

    /// Drops the last atom's last character.
    fn pop_last_char(&mut self) {
        if let Some(c) = self.last().and_then(|a| a.chars().next_back()) {
            self.text.truncate(self.text.len() - c.len_utf8());
            *self.ends.last_mut().expect("an atom") -= c.len_utf8();
        }
    }

    #[cfg(test)]
    fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len())
            .map(|i| std::str::from_utf8(&self.text[self.start(i)..self.ends[i]]).expect("UTF-8"))
    }
}

/// Appends the atoms to `out`, joined with single spaces into lines of at most `MAX_LINE`
/// columns, each ended by a newline. An atom that starts a line follows no space (an empty
/// atom there leaves the line empty, so the next one follows none either).
fn wrap_into(out: &mut String, atoms: &Atoms) {
    let text = std::str::from_utf8(&atoms.text).expect("atoms are UTF-8");
    // The line's length in characters, kept as it grows. Text all ASCII, as a movetext mostly
    // is, has a character a byte: asked once, not atom by atom.
    let ascii = text.is_ascii();
    let mut width = 0;
    // `text` up to `copied` is in `out`; the spaces between atoms stay where a line goes on.
    let mut copied = 0;
    for (i, &end) in atoms.ends.iter().enumerate() {
        let start = atoms.start(i);
        let atom_width = if ascii {
            end - start
        } else {
            text[start..end].chars().count()
        };
        if width == 0 {
            if i > 0 {
                // No space before the line's first atom.
                out.push_str(&text[copied..start - 1]);
                copied = start;
            }
            width = atom_width;
        } else if width + 1 + atom_width <= MAX_LINE {
            width += 1 + atom_width;
        } else {
            out.push_str(&text[copied..start - 1]);
            out.push('\n');
            copied = start;
            width = atom_width;
        }
    }
    out.push_str(&text[copied..]);
    if width > 0 {
        out.push('\n');
    }
}

/// A tag value with `\\` and `"` escaped (PGN 8.1.1) and control characters as spaces,
/// appended to `out`. A value of printable ASCII but those two is copied whole.
fn push_tag_value(out: &mut String, value: &str) {
    let plain = |b: u8| (b' '..=b'~').contains(&b) && b != b'\\' && b != b'"';
    if value.bytes().all(plain) {
        out.push_str(value);
        return;
    }
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
}

/// `H:MM:SS.t` for `[%clk]`/`[%emt]`: negative values are clamped at zero, tenths truncated.
#[cfg(test)]
fn clock(us: i64) -> String {
    let mut text = Ply::default();
    write_clock(&mut text, us);
    String::from_utf8(text.as_bytes().to_vec()).unwrap()
}

/// `H:MM:SS.t`, what `clock` returns, appended to `out`.
fn write_clock(out: &mut Ply, us: i64) {
    let tenths = us.max(0).unsigned_abs() / 100_000;
    let hours = tenths / 36_000;
    if hours < 10 {
        out.push(b'0' + hours as u8);
    } else {
        out.push_u64(hours);
    }
    let [m1, m2] = crate::decimal::two_digits((tenths / 600 % 60) as u8);
    let [s1, s2] = crate::decimal::two_digits((tenths / 10 % 60) as u8);
    // Placed in one piece of a known length, which the compiler copies without a loop.
    out.push_bytes(&[b':', m1, m2, b':', s1, s2, b'.', b'0' + (tenths % 10) as u8]);
}

/// `H:MM:SS.mmm` with a sign when negative, for notes (a negative clock is worth the detail).
fn signed_clock(us: i64) -> String {
    let sign = if us < 0 { "-" } else { "" };
    let ms = us.unsigned_abs() / 1000;
    format!(
        "{sign}{}:{:02}:{:02}.{:03}",
        ms / 3_600_000,
        ms / 60_000 % 60,
        ms / 1000 % 60,
        ms % 1000
    )
}

/// Seconds with up to three decimals and no trailing zeros: `2`, `0.1`, `300.312`.
fn seconds(us: i64) -> String {
    let ms = us / 1000;
    let sign = if ms < 0 { "-" } else { "" };
    let ms = ms.unsigned_abs();
    if ms % 1000 == 0 {
        format!("{sign}{}", ms / 1000)
    } else {
        let s = format!("{sign}{}.{:03}", ms / 1000, ms % 1000);
        s.trim_end_matches('0').to_string()
    }
}

fn parse_started(started: &str) -> Option<chrono::DateTime<chrono::Utc>> {
    chrono::DateTime::parse_from_rfc3339(started)
        .ok()
        .map(|t| t.with_timezone(&chrono::Utc))
}

/// The `Date` and `UTCDate` tags: `YYYY.MM.DD` (UTC), as chrono's `%Y.%m.%d` writes it.
fn pgn_date(t: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::Datelike;
    let year = t.year();
    if !(0..=9999).contains(&year) {
        // chrono writes such a year with its sign.
        return t.format("%Y.%m.%d").to_string();
    }
    let mut text = crate::decimal::Ascii::<10>::default();
    text.push_two((year / 100) as u8);
    text.push_two((year % 100) as u8);
    text.push(b'.');
    text.push_two(t.month() as u8);
    text.push(b'.');
    text.push_two(t.day() as u8);
    text.as_str().to_string()
}

/// The `UTCTime` tag: `HH:MM:SS`, as chrono's `%H:%M:%S` writes it.
fn pgn_time(t: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::Timelike;
    if t.nanosecond() >= 1_000_000_000 {
        // A leap second, which chrono writes as second 60.
        return t.format("%H:%M:%S").to_string();
    }
    let mut text = crate::decimal::Ascii::<8>::default();
    text.push_two(t.hour() as u8);
    text.push(b':');
    text.push_two(t.minute() as u8);
    text.push(b':');
    text.push_two(t.second() as u8);
    text.as_str().to_string()
}

fn claimable(what: Claimable) -> &'static str {
    match what {
        Claimable::Flag => "the fallen flag",
        Claimable::IllegalMove => "the illegal move",
        Claimable::KingCapture => "by capturing the king",
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::event::{BySide, GameResult, OpeningRecord, SearchInfo, Termination};
    use crate::rules::Ruleset;
    use shakmaty::san::San;

    #[test]
    fn atoms_are_kept_end_to_end_and_wrap_as_separate_words() {
        let mut atoms = Atoms::default();
        assert_eq!(atoms.last(), None);
        atoms.push("1.");
        atoms.push_with(|t| t.extend_from_slice(b"e4"));
        atoms.push("{[%clk 0:05:00.0]}");
        assert_eq!(atoms.last(), Some("{[%clk 0:05:00.0]}"));
        // The starved note reopens the clock comment: its brace goes, the others stay.
        atoms.pop_last_char();
        atoms.push("starvé}");
        let all: Vec<&str> = atoms.iter().collect();
        assert_eq!(all, ["1.", "e4", "{[%clk 0:05:00.0]", "starvé}"]);
        atoms.pop_last_char();
        assert_eq!(atoms.last(), Some("starvé"));
        let mut out = String::new();
        wrap_into(&mut out, &atoms);
        assert_eq!(out, "1. e4 {[%clk 0:05:00.0] starvé\n");
    }

    /// How atoms were joined into lines before they were kept one space apart: each copied
    /// in turn after a space or a newline.
    fn wrap_one_by_one(atoms: &[&str]) -> String {
        let mut out = String::new();
        let mut width = 0;
        for atom in atoms {
            let atom_width = atom.chars().count();
            if width == 0 {
                out.push_str(atom);
                width = atom_width;
            } else if width + 1 + atom_width <= MAX_LINE {
                out.push(' ');
                out.push_str(atom);
                width += 1 + atom_width;
            } else {
                out.push('\n');
                out.push_str(atom);
                width = atom_width;
            }
        }
        if width > 0 {
            out.push('\n');
        }
        out
    }

    #[test]
    fn lines_wrap_as_atoms_copied_one_by_one_wrapped_them() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        const PIECES: [&str; 9] = [
            "",
            "e4",
            "12...",
            "{[%clk 0:04:58.1] [%emt 0:00:01.9]}",
            "é",
            "starvé}",
            "{x",
            "Nxe5+",
            "1-0",
        ];
        let mut rng = StdRng::seed_from_u64(80);
        for _ in 0..3_000 {
            let mut atoms = Atoms::default();
            let mut expected: Vec<String> = Vec::new();
            for _ in 0..rng.random_range(0..60) {
                let atom: String = (0..rng.random_range(1..4))
                    .map(|_| PIECES[rng.random_range(0..PIECES.len())])
                    .collect();
                let atom = if rng.random_bool(0.02) {
                    "x".repeat(78 + rng.random_range(0..4))
                } else {
                    atom
                };
                atoms.push(&atom);
                expected.push(atom);
            }
            let expected: Vec<&str> = expected.iter().map(String::as_str).collect();
            let mut out = String::new();
            wrap_into(&mut out, &atoms);
            assert_eq!(out, wrap_one_by_one(&expected), "{expected:?}");
            assert_eq!(atoms.iter().collect::<Vec<_>>(), expected);
        }
    }

    #[test]
    fn san_plus_writes_every_move_as_shakmaty_does() {
        // Checks, mates (a promotion's too), a stalemate, castling, en passant, a discovered
        // check, two knights that need a file to tell them apart.
        for fen in [
            "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1",
            "7k/P7/6K1/8/8/8/8/1R6 w - - 0 1",
            "7k/8/5KQ1/8/8/8/8/8 w - - 0 1",
            "r3k2r/ppp2ppp/2n2q2/3pP3/8/2N5/PPP2PPP/R3K2R w KQkq d6 0 9",
            "4k3/8/8/8/8/4B3/8/N3R1KN w - - 0 1",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            // Three queens on b3's diagonals: one needs its file, one its square. A pinned
            // knight that cannot go to d4 asks for no file from the other.
            "7k/8/8/8/Q1Q5/8/Q7/4K3 w - - 0 1",
            "4k3/8/8/4r3/8/2N5/4N3/4K3 w - - 0 1",
            // Two rooks on one rank and two on one file, in check: only evasions count.
            "4k3/8/1R5R/8/3b4/8/8/R3K3 w - - 0 1",
        ] {
            let pos = crate::test_support::position(fen);
            for m in pos.legal_moves() {
                let (mut ours, mut theirs) = (pos.clone(), pos.clone());
                assert_eq!(
                    san_plus(&mut ours, m).to_string(),
                    SanPlus::from_move_and_play_unchecked(&mut theirs, m).to_string(),
                    "{fen}"
                );
                assert_eq!(ours, theirs);
            }
        }
    }

    #[test]
    fn san_plus_agrees_with_shakmaty_over_random_games() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(7);
        let mut checked = 0;
        for _ in 0..40 {
            let mut pos = Chess::default();
            for _ in 0..200 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &m in &moves {
                    let (mut ours, mut theirs) = (pos.clone(), pos.clone());
                    let san = san_plus(&mut ours, m);
                    let expected = SanPlus::from_move_and_play_unchecked(&mut theirs, m);
                    let fen = Fen::from_position(&pos, EnPassantMode::Legal);
                    assert_eq!(san, expected, "{fen}");
                    let mut text = Ply::default();
                    push_san_plus(&mut text, san);
                    assert_eq!(text.as_bytes(), expected.to_string().as_bytes(), "{fen}");
                    checked += 1;
                }
                pos.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
        }
        assert!(checked > 100_000, "{checked}");
    }

    /// Builds records event by event, with a clock that runs as a G/5 game would.
    pub(crate) struct Builder {
        pub record: GameRecord,
        t_us: i64,
        clock_us: BySide<i64>,
    }

    impl Builder {
        pub fn new(game: u64, white: &str, black: &str) -> Builder {
            Builder {
                record: GameRecord {
                    game,
                    pair: game.div_ceil(2),
                    white: white.into(),
                    black: black.into(),
                    opening: OpeningRecord {
                        name: "startpos".into(),
                        fen: None,
                        moves: vec![],
                        variant: Default::default(),
                    },
                    ruleset: Ruleset::Fide,
                    tc_white: TimeControl::G5,
                    tc_black: TimeControl::G5,
                    seed: 42,
                    started: "2024-05-01T12:00:00Z".into(),
                    time_margin_ms: 0,
                    events: vec![],
                },
                t_us: 0,
                clock_us: BySide::both(300_000_000),
            }
        }

        pub fn opening(mut self, name: &str, fen: Option<&str>, moves: &[&str]) -> Builder {
            self.record.opening = OpeningRecord {
                name: name.into(),
                fen: fen.map(str::to_string),
                moves: moves.iter().map(|m| m.to_string()).collect(),
                variant: Default::default(),
            };
            self
        }

        /// Moves (UCI) alternating from `first`, each thinking `think_ms`.
        pub fn moves(mut self, first: Side, think_ms: i64, moves: &str) -> Builder {
            let mut side = first;
            for uci in moves.split_whitespace() {
                self = self.mv(side, uci, think_ms);
                side = side.other();
            }
            self
        }

        pub fn mv(mut self, side: Side, uci: &str, think_ms: i64) -> Builder {
            let think_us = think_ms * 1000;
            self.record.events.push(Event::Go {
                t_us: self.t_us,
                side,
                clock_us: self.clock_us[side],
                ponderhit: false,
            });
            self.t_us += think_us;
            self.clock_us[side] -= think_us;
            self.record.events.push(Event::Move {
                t_us: self.t_us,
                side,
                uci: uci.into(),
                think_us,
                clock_us: self.clock_us[side],
                info: SearchInfo::default(),
            });
            self
        }

        pub fn illegal(mut self, side: Side, uci: &str, think_ms: i64, reason: &str) -> Builder {
            let think_us = think_ms * 1000;
            self.t_us += think_us;
            self.clock_us[side] -= think_us;
            self.record.events.push(Event::IllegalMove {
                t_us: self.t_us,
                side,
                uci: uci.into(),
                think_us,
                clock_us: self.clock_us[side],
                reason: reason.into(),
                kind: None,
            });
            self
        }

        /// `side` thinks until its flag falls, and `overshoot_ms` beyond.
        pub fn flag(mut self, side: Side, overshoot_ms: i64) -> Builder {
            self.t_us += self.clock_us[side];
            self.record.events.push(Event::FlagFall {
                t_us: self.t_us,
                side,
            });
            self.t_us += overshoot_ms * 1000;
            self.clock_us[side] = -overshoot_ms * 1000;
            self
        }

        /// The last move's search got `run_ms` of CPU and waited `wait_ms` for a core.
        pub fn cpu(mut self, run_ms: i64, wait_ms: i64) -> Builder {
            let last = self.record.events.iter_mut().rev().find_map(|e| match e {
                Event::Move { info, .. } => Some(info),
                _ => None,
            });
            last.expect("a move").cpu = Some(crate::event::CpuUse {
                run_us: run_ms * 1000,
                wait_us: Some(wait_ms * 1000),
                ..Default::default()
            });
            self
        }

        pub fn event(mut self, e: Event) -> Builder {
            self.record.events.push(e);
            self
        }

        pub fn end(
            mut self,
            result: GameResult,
            termination: Termination,
            rule: &str,
            detail: &str,
        ) -> GameRecord {
            self.record.events.push(Event::End {
                t_us: self.t_us,
                result,
                termination,
                rule: rule.into(),
                detail: detail.into(),
                white_clock_us: self.clock_us.white,
                black_clock_us: self.clock_us.black,
            });
            self.record
        }
    }

    /// 1.e4 e5 2.Qh5 Nc6 3.Bc4 Nf6 4.Qxf7#, one second a move for White, 1.5 for Black.
    pub(crate) fn scholars_mate() -> GameRecord {
        let mut b = Builder::new(1, "alpha", "beta");
        for (w, bl) in [("e2e4", "e7e5"), ("d1h5", "b8c6"), ("f1c4", "g8f6")] {
            b = b.mv(Side::White, w, 1000).mv(Side::Black, bl, 1500);
        }
        b.mv(Side::White, "h5f7", 1000).end(
            GameResult::WhiteWins,
            Termination::Checkmate,
            "FIDE Laws 5.1.1",
            "",
        )
    }

    /// Game `n`: 1.d4 d5 in a second each, then White's flag falls 300 ms into its second move.
    pub(crate) fn flag_game(n: u64) -> GameRecord {
        Builder::new(n, "alpha", "beta")
            .moves(Side::White, 1000, "d2d4 d7d5")
            .flag(Side::White, 300)
            .end(
                GameResult::BlackWins,
                Termination::Flag,
                "FIDE A4.3",
                "white flag fell",
            )
    }

    /// The movetext of a PGN game replayed with shakmaty's SAN parser: the final position, the
    /// plies, and the `[%clk]` values in order.
    pub(crate) fn replay(pgn: &str) -> (Chess, usize, Vec<String>) {
        let (tags, movetext) = pgn.split_once("\n\n").expect("blank line after the tags");
        let mut pos = Chess::default();
        for line in tags.lines() {
            if let Some(fen) = line.strip_prefix("[FEN \"") {
                pos = fen
                    .trim_end_matches("\"]")
                    .parse::<Fen>()
                    .unwrap()
                    .into_position(shakmaty::CastlingMode::Standard)
                    .unwrap();
            }
        }
        // Strip comments, collecting the clocks.
        let mut clocks = Vec::new();
        let mut plain = String::new();
        let mut rest = movetext;
        while let Some(open) = rest.find('{') {
            plain.push_str(&rest[..open]);
            let close = rest[open..].find('}').expect("closed comment") + open;
            let comment = &rest[open + 1..close];
            if let Some(i) = comment.find("[%clk ") {
                let v = &comment[i + 6..];
                clocks.push(v[..v.find(']').unwrap()].to_string());
            }
            plain.push(' ');
            rest = &rest[close + 1..];
        }
        plain.push_str(rest);
        let mut plies = 0;
        for token in plain.split_whitespace() {
            if token.ends_with('.') || ["1-0", "0-1", "1/2-1/2", "*"].contains(&token) {
                continue;
            }
            let san: San = token.parse().unwrap_or_else(|_| panic!("bad SAN {token}"));
            let m = san
                .to_move(&pos)
                .unwrap_or_else(|_| panic!("{token} is illegal"));
            pos.play_unchecked(m);
            plies += 1;
        }
        (pos, plies, clocks)
    }

    /// Loads `pgn` with python-chess when it is installed: the game count, and per game the
    /// mainline's SAN moves, clocks and the headers' Result. `None` when python-chess is absent.
    pub(crate) fn python_chess(pgn: &str) -> Option<String> {
        let script = r#"
import sys, io
try:
    import chess.pgn
except ImportError:
    print("NO-PYTHON-CHESS"); sys.exit(0)
data = sys.stdin.read()
f = io.StringIO(data)
while True:
    g = chess.pgn.read_game(f)
    if g is None: break
    if g.errors: print("ERRORS", g.errors); sys.exit(1)
    node = g; sans = []; clocks = []
    while node.variations:
        nxt = node.variation(0)
        sans.append(node.board().san(nxt.move)); clocks.append(nxt.clock())
        node = nxt
    print(g.headers["Result"], len(sans), " ".join(sans), clocks[-1] if clocks else None, node.board().fen())
"#;
        use std::io::Write;
        let mut child = std::process::Command::new("python3")
            .arg("-c")
            .arg(script)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .ok()?;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(pgn.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(out.status.success(), "python-chess failed: {text}");
        if text.contains("NO-PYTHON-CHESS") {
            eprintln!("python-chess not installed: skipping its check");
            return None;
        }
        Some(text)
    }

    fn movetext_lines(pgn: &str) -> Vec<&str> {
        let lines: Vec<&str> = pgn.split_once("\n\n").unwrap().1.lines().collect();
        assert_eq!(lines.last(), Some(&""), "a blank line ends the game");
        lines[..lines.len() - 1].to_vec()
    }

    /// The movetext on one line, for assertions that do not care where lines wrap.
    fn movetext_joined(pgn: &str) -> String {
        movetext_lines(pgn).join(" ")
    }

    #[test]
    fn scholars_mate_exact_text() {
        let pgn = game_pgn(&scholars_mate());
        let expected = r#"[Event "blitz-arena"]
[Site "?"]
[Date "2024.05.01"]
[Round "1"]
[White "alpha"]
[Black "beta"]
[Result "1-0"]
[UTCDate "2024.05.01"]
[UTCTime "12:00:00"]
[TimeControl "300"]
[Termination "normal"]
[PlyCount "7"]
[Opening "startpos"]
[Ruleset "fide"]
[RuleCited "FIDE Laws 5.1.1"]

1. e4 {[%clk 0:04:59.0] [%emt 0:00:01.0]} 1... e5
{[%clk 0:04:58.5] [%emt 0:00:01.5]} 2. Qh5 {[%clk 0:04:58.0] [%emt 0:00:01.0]}
2... Nc6 {[%clk 0:04:57.0] [%emt 0:00:01.5]} 3. Bc4
{[%clk 0:04:57.0] [%emt 0:00:01.0]} 3... Nf6 {[%clk 0:04:55.5] [%emt 0:00:01.5]}
4. Qxf7# {[%clk 0:04:56.0] [%emt 0:00:01.0]} {checkmate, rule FIDE Laws 5.1.1}
1-0

"#;
        assert_eq!(pgn, expected);
        let (pos, plies, clocks) = replay(&pgn);
        assert_eq!(plies, 7);
        assert!(pos.is_checkmate());
        assert_eq!(clocks.first().unwrap(), "0:04:59.0");
        assert!(movetext_lines(&pgn).iter().all(|l| l.len() <= MAX_LINE));
    }

    #[test]
    fn fen_opening_with_black_to_move_numbers_black_moves() {
        // Book: 1.e4 from the start position given as a FEN at move 12; the game proper
        // starts with Black's 12th move.
        let root = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 12";
        let record = Builder::new(7, "alpha", "beta")
            .opening("3: king pawn", Some(root), &["e2e4"])
            .moves(Side::Black, 2000, "g8f6 b1c3 d7d5")
            .end(GameResult::Draw, Termination::Adjudication, "FIDE 9.1", "");
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[SetUp \"1\"]\n[FEN \"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 12\"]\n"), "{pgn}");
        assert!(pgn.contains("[Opening \"3: king pawn\"]"));
        assert!(pgn.contains("[PlyCount \"3\"]"));
        let moves = movetext_joined(&pgn);
        assert!(
            moves.starts_with("12... Nf6 {[%clk 0:04:58.0] [%emt 0:00:02.0]} 13. Nc3 {"),
            "{moves}"
        );
        assert!(moves.contains("13... d5 {"));
        let (pos, plies, _) = replay(&pgn);
        assert_eq!(plies, 3);
        assert_eq!(pos.fullmoves().get(), 14);
        assert_eq!(pos.turn(), shakmaty::Color::White);
    }

    #[test]
    fn book_moves_from_the_start_position_need_a_fen_but_no_moves_do_not() {
        let record = Builder::new(1, "a", "b")
            .opening("1: ruy", None, &["e2e4", "e7e5"])
            .moves(Side::White, 100, "g1f3")
            .end(GameResult::Draw, Termination::Adjudication, "", "");
        let pgn = game_pgn(&record);
        assert!(
            pgn.contains("[FEN \"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2\"]")
        );
        assert!(movetext_lines(&pgn)[0].starts_with("2. Nf3 {"));
        // The standard start position written as a FEN is still the start position.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
        let record = Builder::new(1, "a", "b")
            .opening("0", Some(start), &[])
            .moves(Side::White, 100, "e2e4")
            .end(GameResult::Draw, Termination::Adjudication, "", "");
        let pgn = game_pgn(&record);
        assert!(!pgn.contains("SetUp") && !pgn.contains("[FEN"));
        // An empty rule: the final comment names the termination alone, no RuleCited tag.
        assert!(pgn.ends_with("{adjudication} 1/2-1/2\n\n"), "{pgn}");
        assert!(!pgn.contains("RuleCited"));
    }

    #[test]
    fn flag_loss_clamps_the_clock_and_notes_the_negative_time() {
        let record = Builder::new(2, "alpha", "beta")
            .moves(Side::White, 150_000, "e2e4 e7e5")
            .flag(Side::White, 412)
            .end(
                GameResult::BlackWins,
                Termination::Flag,
                "FIDE A4.3",
                "white flag fell",
            );
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[Termination \"time forfeit\"]"));
        assert!(pgn.contains("[PlyCount \"2\"]"));
        assert!(pgn.contains("[%clk 0:02:30.0] [%emt 0:02:30.0]"));
        let moves = movetext_joined(&pgn);
        assert!(
            moves.ends_with(
                "{white flag fell; white clock at the end -0:00:00.412; flag, rule FIDE A4.3} 0-1"
            ),
            "{moves}"
        );
        let (_, plies, _) = replay(&pgn);
        assert_eq!(plies, 2);
    }

    /// A starved move says so in its clock comment; a time loss after one says so in the
    /// final comment, the result as ruled; a move that got its CPU says nothing.
    #[test]
    fn starved_moves_and_a_starved_time_loss_are_noted() {
        let record = Builder::new(2, "alpha", "beta")
            .moves(Side::White, 300, "e2e4 e7e5")
            .cpu(290, 5)
            .moves(Side::White, 300, "g1f3")
            .cpu(40, 260)
            .flag(Side::Black, 0)
            .end(
                GameResult::WhiteWins,
                Termination::Flag,
                "FIDE A4.3",
                "black flag fell",
            );
        let pgn = game_pgn(&record);
        let moves = movetext_joined(&pgn);
        assert!(
            moves.contains("e5 {[%clk 0:04:59.7] [%emt 0:00:00.3]} 2."),
            "{moves}"
        );
        assert!(
            moves.contains(
                "Nf3 {[%clk 0:04:59.4] [%emt 0:00:00.3] starved of CPU: 40 ms of CPU in 300 ms, 260 ms waiting for a core}"
            ),
            "{moves}"
        );
        // Black's last move got its CPU: its time loss is not marked.
        assert!(!moves.contains("last move was starved"), "{moves}");
        assert!(movetext_lines(&pgn).iter().all(|l| l.len() <= 80), "{pgn}");
        let white_flag = Builder::new(3, "alpha", "beta")
            .moves(Side::White, 300, "e2e4")
            .cpu(40, 260)
            .moves(Side::Black, 300, "e7e5")
            .flag(Side::White, 0)
            .end(
                GameResult::BlackWins,
                Termination::Flag,
                "FIDE A4.3",
                "white flag fell",
            );
        let moves = movetext_joined(&game_pgn(&white_flag));
        assert!(
            moves.ends_with(
                "{white flag fell; white's last move was starved of CPU (40 ms of CPU in 300 ms, 260 ms waiting for a core): the machine was short of CPU, not the engine; flag, rule FIDE A4.3} 0-1"
            ),
            "{moves}"
        );
    }

    #[test]
    fn flag_without_detail_keeps_the_flag_note_with_its_time() {
        let record = Builder::new(2, "alpha", "beta")
            .moves(Side::White, 1000, "e2e4")
            .flag(Side::Black, 0)
            .end(GameResult::WhiteWins, Termination::Flag, "USCF 7c", "");
        let pgn = game_pgn(&record);
        assert!(
            movetext_joined(&pgn)
                .ends_with("{black flag fell at 301s into the game; flag, rule USCF 7c} 1-0"),
            "{pgn}"
        );
    }

    #[test]
    fn illegal_move_goes_into_the_final_comment_once() {
        let record = Builder::new(3, "alpha", "beta")
            .moves(Side::White, 500, "e2e4 e7e5 g1f3")
            .illegal(
                Side::Black,
                "e1e5",
                700,
                "e1e5 is not legal in this position",
            )
            .end(
                GameResult::WhiteWins,
                Termination::IllegalMove,
                "FIDE A4.2, 7.5.5",
                "black played \"e1e5\": e1e5 is not legal in this position",
            );
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[Termination \"rules infraction\"]"));
        assert!(pgn.contains("[RuleCited \"FIDE A4.2, 7.5.5\"]"));
        let moves = movetext_joined(&pgn);
        assert!(moves.ends_with("2. Nf3 {[%clk 0:04:59.0] [%emt 0:00:00.5]} {black played \"e1e5\": e1e5 is not legal in this position; illegal-move, rule FIDE A4.2, 7.5.5} 1-0"), "{moves}");
        assert_eq!(moves.matches("e1e5\":").count(), 1);
    }

    #[test]
    fn restored_illegal_move_is_commented_where_it_happened() {
        // FIDE A4.2, 7.5.5, first illegal move: the position is restored and Black moves again.
        let record = Builder::new(3, "a", "b")
            .moves(Side::White, 500, "e2e4")
            .illegal(
                Side::Black,
                "e8e6",
                700,
                "e8e6 is not legal in this position",
            )
            .mv(Side::Black, "e7e5", 300)
            .mv(Side::White, "g1f3", 300)
            .end(GameResult::Draw, Termination::Adjudication, "FIDE 9.1", "");
        let pgn = game_pgn(&record);
        let moves = movetext_joined(&pgn);
        assert!(
            moves.contains("{black played \"e8e6\": e8e6 is not legal in this position} 1... e5 {"),
            "{moves}"
        );
        assert_eq!(replay(&pgn).1, 3);
    }

    #[test]
    fn illegal_move_that_stood_stops_the_movetext_and_tells_the_rest() {
        let record = Builder::new(4, "a", "b")
            .moves(Side::White, 500, "e2e4")
            .illegal(
                Side::Black,
                "e8e6",
                700,
                "e8e6 is not legal in this position",
            )
            .mv(Side::White, "g1f3", 300)
            .flag(Side::Black, 0)
            .end(
                GameResult::WhiteWins,
                Termination::Flag,
                "FIDE A4.3",
                "black flag fell",
            );
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[PlyCount \"1\"]"));
        let moves = movetext_joined(&pgn);
        assert!(moves.contains("{black played \"e8e6\": e8e6 is not legal in this position; the illegal move stood, and PGN cannot write it: the movetext stops here; the game went on from FEN rnbq1bnr/pppppppp/4k3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQ - 1 2 with these moves, in UCI; white played \"g1f3\" with 0:04:59.200 left; black flag fell; flag, rule FIDE A4.3} 1-0"), "{moves}");
        assert_eq!(replay(&pgn).1, 1);
    }

    /// A `0000` that stood unnoticed, then the game went on.
    fn null_move_stood() -> GameRecord {
        Builder::new(4, "a", "b")
            .moves(Side::White, 500, "e2e4")
            .illegal(Side::Black, "0000", 700, "no move made (0000)")
            .event(Event::Unnoticed {
                t_us: 1_200_000,
                by: Side::White,
            })
            .moves(Side::White, 300, "g1f3 e7e5 f3e5")
            .end(GameResult::Draw, Termination::MaxMoves, "max-moves", "")
    }

    #[test]
    fn a_null_move_that_stood_is_written_as_a_null_move_and_the_game_goes_on() {
        let pgn = game_pgn(&null_move_stood());
        assert!(pgn.contains("[PlyCount \"5\"]"), "{pgn}");
        let moves = movetext_joined(&pgn);
        assert!(
            moves.contains("{black played \"0000\": no move made (0000); white did not notice it: the move stands} 1... -- {[%clk 0:04:59.3] [%emt 0:00:00.7]} 2. Nf3"),
            "{moves}"
        );
        let Some(out) = python_chess(&pgn) else {
            return;
        };
        assert!(out.starts_with("1/2-1/2 5 e4 -- Nf3 e5 Nxe5 "), "{out}");
    }

    #[test]
    fn engine_text_in_a_comment_never_starts_a_pgn_line() {
        // A crashed engine's stderr holding a tag line, at every offset a line break can fall.
        for pad in 0..MAX_LINE {
            let detail = format!("{} [Event \"x\"] [%clk 0:00:01]", "y".repeat(pad));
            let record = Builder::new(5, "a", "b")
                .moves(Side::White, 100, "d2d4 d7d5")
                .end(
                    GameResult::BlackWins,
                    Termination::EngineCrash,
                    "FIDE A4.3",
                    &format!("white crashed: stderr: {detail} {detail}"),
                );
            let pgn = game_pgn(&record);
            for line in movetext_lines(&pgn) {
                assert!(
                    !line.starts_with('[') && !line.starts_with('%'),
                    "pad {pad}: {line}"
                );
            }
            assert_eq!(pgn.matches("\n[Event ").count(), 0, "{pgn}");
        }
    }

    #[test]
    fn crash_names_the_fault_and_an_empty_game_is_valid() {
        let record = Builder::new(5, "alpha", "beta")
            .event(Event::EngineFault {
                t_us: 12_000,
                side: Side::White,
                fault: Fault::Crash { status: Some(139) },
                detail: "engine exited".into(),
            })
            .end(
                GameResult::BlackWins,
                Termination::EngineCrash,
                "online: crash",
                "white: engine exited",
            );
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[Termination \"abandoned\"]"));
        assert!(pgn.contains("[PlyCount \"0\"]"));
        assert!(
            pgn.ends_with("\n\n{white: engine exited; engine-crash, rule online: crash} 0-1\n\n")
        );
        // A crash whose detail the ending does not repeat keeps the exit status.
        let record = Builder::new(5, "alpha", "beta")
            .moves(Side::White, 100, "d2d4")
            .event(Event::EngineFault {
                t_us: 12_000,
                side: Side::Black,
                fault: Fault::Crash { status: None },
                detail: "".into(),
            })
            .end(
                GameResult::WhiteWins,
                Termination::EngineCrash,
                "FIDE A4.3",
                "",
            );
        let pgn = game_pgn(&record);
        assert!(
            movetext_joined(&pgn).ends_with("{black crashed; engine-crash, rule FIDE A4.3} 1-0"),
            "{pgn}"
        );
    }

    #[test]
    fn tag_values_are_escaped_and_comments_cannot_break_out() {
        let mut record = Builder::new(6, "my \"best\" engine", "C:\\engines\\x")
            .moves(Side::White, 100, "e2e4")
            .end(
                GameResult::WhiteWins,
                Termination::Adjudication,
                "x",
                "score {+9} 100% sure\nreally",
            );
        record.opening.name = "line\tone".into();
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[White \"my \\\"best\\\" engine\"]"), "{pgn}");
        assert!(pgn.contains("[Black \"C:\\\\engines\\\\x\"]"));
        assert!(pgn.contains("[Opening \"line one\"]"));
        assert!(movetext_joined(&pgn)
            .contains("{score (+9) 100pct sure really; adjudication, rule x} 1-0"));
    }

    #[test]
    fn long_games_wrap_at_80_columns_and_replay() {
        // A knight dance long enough for many lines, plus a long note.
        let mut b = Builder::new(8, "a", "b");
        for _ in 0..10 {
            b = b.moves(Side::White, 1234, "g1f3 g8f6 f3g1 f6g8");
        }
        let long = "x".repeat(200);
        let record = b.end(
            GameResult::Draw,
            Termination::Fivefold,
            "FIDE Laws 9.6.1",
            &format!("repeated; {long}"),
        );
        let pgn = game_pgn(&record);
        let lines = movetext_lines(&pgn);
        assert!(lines.len() > 10);
        for line in &lines {
            assert!(line.chars().count() <= MAX_LINE, "{line}");
            assert!(!line.starts_with('%'));
        }
        // The clock comments are never split inside a command.
        assert!(lines
            .iter()
            .all(|l| !l.ends_with("[%clk") && !l.ends_with("[%emt")));
        let (_, plies, clocks) = replay(&pgn);
        assert_eq!(plies, 40);
        assert_eq!(clocks.len(), 40);
        assert_eq!(clocks[39], "0:04:35.3");
        assert!(pgn.ends_with("1/2-1/2\n\n"));
    }

    #[test]
    fn time_control_tags() {
        let mut record = scholars_mate();
        record.tc_white = "3+2".parse().unwrap();
        record.tc_black = "G/5;d2".parse().unwrap();
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[TimeControl \"180+2\"]\n[WhiteTimeControl \"180+2\"]\n[BlackTimeControl \"300\"]\n[WhiteTimeControlDelay \"0\"]\n[BlackTimeControlDelay \"2\"]\n"), "{pgn}");
        record.tc_white = "G/5;d2".parse().unwrap();
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[TimeControl \"300\"]\n[TimeControlDelay \"2\"]\n"));
        assert!(!pgn.contains("WhiteTimeControl"));
    }

    #[test]
    fn dates_times_and_tag_values_as_chrono_and_the_escaper_wrote_them() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        let mut rng = StdRng::seed_from_u64(11);
        let mut started: Vec<String> = (0..2_000)
            .map(|_| {
                let t = chrono::DateTime::from_timestamp(
                    rng.random_range(-70_000_000_000..300_000_000_000),
                    rng.random_range(0..1_000_000_000),
                )
                .unwrap();
                t.to_rfc3339()
            })
            .collect();
        started.extend(
            [
                "2016-12-31T23:59:60Z",
                "0000-01-01T00:00:00Z",
                "9999-12-31T23:59:59.999+01:00",
                "2026-11-26T05:36:58.339-11:30",
            ]
            .map(String::from),
        );
        let mut checked = 0;
        for text in &started {
            // Years before 0 are written with a sign, which RFC 3339 does not read.
            let Some(t) = parse_started(text) else {
                continue;
            };
            checked += 1;
            assert_eq!(pgn_date(t), t.format("%Y.%m.%d").to_string(), "{text}");
            assert_eq!(pgn_time(t), t.format("%H:%M:%S").to_string(), "{text}");
        }
        assert!(checked > 1_500, "{checked}");
        for value in [
            "plain",
            "a \"quoted\" \\ name",
            "tab\there",
            "\u{85}c1",
            "é",
            "~ ok",
        ] {
            let mut expected = String::new();
            for c in value.chars() {
                match c {
                    '\\' => expected.push_str("\\\\"),
                    '"' => expected.push_str("\\\""),
                    c if c.is_control() => expected.push(' '),
                    c => expected.push(c),
                }
            }
            let mut ours = String::new();
            push_tag_value(&mut ours, value);
            assert_eq!(ours, expected);
        }
    }

    #[test]
    fn clock_format_truncates_tenths_and_clamps() {
        assert_eq!(clock(293_299_999), "0:04:53.2");
        assert_eq!(clock(-5), "0:00:00.0");
        assert_eq!(clock(3_723_400_000), "1:02:03.4");
        // Digit by digit, as `format!` wrote it.
        let extremes = [i64::MIN, i64::MAX, 35_999_999_999, 36_000_000_000];
        for us in (-200_000..400_000_000_000i64)
            .step_by(99_999_937)
            .chain(extremes)
        {
            let tenths = us.max(0) / 100_000;
            let (h, m, s, t) = (
                tenths / 36_000,
                tenths / 600 % 60,
                tenths / 10 % 60,
                tenths % 10,
            );
            assert_eq!(clock(us), format!("{h}:{m:02}:{s:02}.{t}"), "{us}");
        }
        assert_eq!(signed_clock(-412_999), "-0:00:00.412");
        assert_eq!(seconds(300_312_000), "300.312");
        assert_eq!(seconds(2_000_000), "2");
    }

    #[test]
    fn unterminated_record_gets_an_asterisk() {
        let record = Builder::new(9, "a", "b")
            .moves(Side::White, 100, "e2e4")
            .record;
        let pgn = game_pgn(&record);
        assert!(pgn.contains("[Result \"*\"]"));
        assert!(pgn.contains("[Termination \"unterminated\"]"));
        assert!(movetext_joined(&pgn).ends_with("{unterminated: the record has no end} *"));
    }

    #[test]
    fn every_sample_loads_in_python_chess() {
        let records = [
            scholars_mate(),
            Builder::new(2, "a \"q\" b", "c\\d")
                .opening(
                    "fen",
                    Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 12"),
                    &["e2e4"],
                )
                .moves(Side::Black, 2000, "g8f6 b1c3 d7d5")
                .flag(Side::White, 300)
                .end(
                    GameResult::BlackWins,
                    Termination::Flag,
                    "FIDE A4.3",
                    "white flag fell",
                ),
            Builder::new(3, "a", "b")
                .moves(Side::White, 500, "e2e4")
                .illegal(Side::Black, "e8e6", 700, "e8e6 is not legal {100%}")
                .mv(Side::White, "g1f3", 300)
                .end(GameResult::WhiteWins, Termination::IllegalMove, "H3.4", ""),
            null_move_stood(),
        ];
        let pgn: String = records.iter().map(game_pgn).collect();
        let Some(out) = python_chess(&pgn) else {
            return;
        };
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 4, "{out}");
        assert!(lines[0].starts_with("1-0 7 e4 e5 Qh5 Nc6 Bc4 Nf6 Qxf7# 296.0 "));
        assert!(
            lines[1].starts_with("0-1 3 Nf6 Nc3 d5 296.0 "),
            "{}",
            lines[1]
        );
        assert!(lines[1].ends_with(" w KQkq - 0 14"), "{}", lines[1]);
        assert!(lines[2].starts_with("1-0 1 e4 299.5 "), "{}", lines[2]);
        assert!(
            lines[3].starts_with("1/2-1/2 5 e4 -- Nf3 e5 Nxe5 "),
            "{}",
            lines[3]
        );
    }
}
