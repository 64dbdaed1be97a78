//! fastchess's checks of the PVs an engine printed for a move, which a compat run makes on
//! every move as fastchess does (docs/fastchess.md): the principal variation of each scored
//! `info` line is played out on the position the engine searched, the `bestmove` must be the
//! first move of the last PV, and two engines may not both claim to mate (or both to be
//! mated) on consecutive moves. A line that fails gets fastchess's warning. Pure functions.
//!
//! What is checked of a PV, in fastchess's order (its `match.cpp`): before each PV move, a
//! position where the game is over (fifty moves, a threefold repetition with the game's own
//! history, no legal move) ends the check with "continues after ..."; a move that is not legal
//! there, with "Illegal PV move". Then, only under `-check-mate-pvs`, for an exact (not bound)
//! `score mate N`, the PV must be exactly the mate's length (2N-1 plies for the engine's own
//! mate, -2N when it is mated) and end in checkmate.

mod info;
mod score;

pub use info::{last_info_line, mate_score};
pub use score::score_warning;

use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position};

/// What is wrong with a line's PV; the move is the PV move the check stopped at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PvWarning {
    IllegalMove(String),
    AfterThreefold(String),
    AfterFiftyMoves(String),
    AfterCheckmate(String),
    AfterStalemate(String),
    IncompleteMate,
    TooLongMate,
    NoMateAtEnd,
    /// The `bestmove` (named) is not the first move of the last PV.
    BestmoveMismatch(String),
}

impl PvWarning {
    /// fastchess's warning line for `engine`: `Warning; Incomplete mating PV - from NAME`.
    pub fn text(&self, engine: &str) -> String {
        let (what, mv) = match self {
            PvWarning::IllegalMove(m) => ("Illegal PV move", Some(m)),
            PvWarning::AfterThreefold(m) => ("PV continues after threefold repetition", Some(m)),
            PvWarning::AfterFiftyMoves(m) => ("PV continues after fifty-move rule", Some(m)),
            PvWarning::AfterCheckmate(m) => ("PV continues after checkmate", Some(m)),
            PvWarning::AfterStalemate(m) => ("PV continues after stalemate", Some(m)),
            PvWarning::IncompleteMate => ("Incomplete mating PV", None),
            PvWarning::TooLongMate => ("Too long mating PV", None),
            PvWarning::NoMateAtEnd => ("Mating PV does not end with checkmate", None),
            PvWarning::BestmoveMismatch(m) => {
                ("Bestmove does not match beginning of last PV", Some(m))
            }
        };
        match mv {
            Some(m) => format!("Warning; {what} - move {m} from {engine}"),
            None => format!("Warning; {what} - from {engine}"),
        }
    }
}

/// What fastchess prints for a warning: the warning, the info line, the game's start
/// (`startpos`, or `fen FEN` of the opening's root) and every move played from it, one line each.
pub fn report(
    warning: &PvWarning,
    engine: &str,
    info: &str,
    root_fen: Option<&str>,
    moves: &[&str],
) -> String {
    format!(
        "{}\nInfo; {info}\nPosition; {}\nMoves; {}",
        warning.text(engine),
        start(root_fen),
        moves.join(" ")
    )
}

/// The game's start as fastchess names it: `startpos`, or `fen FEN` of the opening's root.
fn start(root_fen: Option<&str>) -> String {
    match root_fen {
        None => "startpos".to_string(),
        Some(fen) => format!("fen {fen}"),
    }
}

/// Checks one scored `info` line against `pos`, the position the engine searched, whose
/// earlier positions since the last capture or pawn move are `history` (oldest first, `pos`
/// not included): the first thing wrong with its PV, if any. `mate_pvs` (fastchess's
/// `-check-mate-pvs`): a mate score's PV must also be that mate.
pub fn check(pos: &Chess, history: &[Zobrist64], line: &str, mate_pvs: bool) -> Option<PvWarning> {
    // fastchess reads no line with `info string` in it; most lines have no PV at all.
    if line.contains("info string") {
        return None;
    }
    let mut pv = info::pv(line).peekable();
    pv.peek()?;
    let mode = pos.castles().mode();
    let mut pos = pos.clone();
    let mut key: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    // The positions before `pos` since the last capture or pawn move: the game's, while no
    // PV move was irreversible, then the PV's own.
    let mut history = history;
    let mut played = Vec::new();
    let mut len = 0;
    for text in pv {
        len += 1;
        let m = legal_move(&pos, mode, text);
        if let Some(warning) = game_over(&pos, m.is_some(), key, [history, &played], text) {
            return Some(warning);
        }
        let Some(m) = m else {
            return Some(PvWarning::IllegalMove(text.to_string()));
        };
        if pos.is_irreversible(m) {
            history = &[];
            played.clear();
        } else {
            played.push(key);
        }
        let next = pos.update_zobrist_hash(key, m, EnPassantMode::Legal);
        pos.play_unchecked(m);
        key = next.unwrap_or_else(|| pos.zobrist_hash(EnPassantMode::Legal));
    }
    if !mate_pvs {
        return None;
    }
    // The rest of the line is read only now.
    let mate = info::parse(line).exact_mate()?;
    let plies = if mate > 0 { mate * 2 - 1 } else { -mate * 2 };
    if len < plies {
        Some(PvWarning::IncompleteMate)
    } else if len > plies {
        Some(PvWarning::TooLongMate)
    } else if !pos.is_checkmate() {
        Some(PvWarning::NoMateAtEnd)
    } else {
        None
    }
}

/// `text` as a legal move in `pos`, written as the game writes it (a king onto its rook
/// castles only in Chess960). Only the moves to its square are generated.
pub fn legal_move(pos: &Chess, mode: CastlingMode, text: &str) -> Option<Move> {
    let uci = text.parse::<UciMove>().ok()?;
    uci.to_move(pos)
        .ok()
        .filter(|m| UciMove::from_move(*m, mode) == uci)
}

/// `Bestmove does not match beginning of last PV`: of a search's scored `info` lines, the
/// last that is the first PV (no `multipv`, or `multipv 1`) is read; unless it is a bound or
/// has no PV, its PV must begin with the `bestmove`. Returns the warning and that line.
/// (fastchess checks this only for a legal `bestmove`.)
pub fn bestmove_mismatch<'a>(lines: &'a [String], bestmove: &str) -> Option<(PvWarning, &'a str)> {
    let (line, info) = lines
        .iter()
        .rev()
        .filter(|l| !l.contains("info string"))
        .map(|l| (l.as_str(), info::parse(l)))
        .find(|(_, info)| info.multipv.is_none_or(|n| n == 1))?;
    let first = *info.pv.first()?;
    (!info.bound && first != bestmove)
        .then(|| (PvWarning::BestmoveMismatch(bestmove.to_string()), line))
}

/// One side's move for the sign check: its engine's name, its colour, and its search report
/// (see [`last_info_line`]; empty when it printed none).
pub struct Mover<'a> {
    pub name: &'a str,
    pub white: bool,
    pub report: &'a str,
}

/// `Sign mismatch in mate scores`: the engine that just moved (`us`) and the one that moved
/// before it (`them`) both announce a mate for themselves, or both announce being mated, in
/// the reports of those two moves. fastchess's four lines: the warning, both reports, the
/// game's start and every move played so far (this one included).
pub fn sign_mismatch(
    them: &Mover,
    us: &Mover,
    root_fen: Option<&str>,
    moves: &[&str],
) -> Option<String> {
    let (a, b) = (mate_score(them.report)?, mate_score(us.report)?);
    if a.signum() * b.signum() <= 0 {
        return None;
    }
    let colour = |white: bool| if white { "White" } else { "Black" };
    let warning = format!(
        "Warning; Sign mismatch in mate scores {a} and {b} from {} ({}) and {} ({})",
        them.name,
        colour(them.white),
        us.name,
        colour(us.white)
    );
    Some(format!(
        "{warning}\nInfos; {} ; {}\nPosition; {}\nMoves; {}",
        them.report,
        us.report,
        start(root_fen),
        moves.join(" ")
    ))
}

/// Whether the game is over in `pos` (its key `key`, the positions before it since the last
/// irreversible move `seen`, oldest first, in two runs) before the PV's `next` move, as
/// fastchess asks: fifty moves (unless it is mate), then, unless the material is one
/// fastchess calls insufficient, a third occurrence, then mate or stalemate. `movable`: the
/// PV's move is legal there, so it is neither mate nor stalemate (no move is generated).
fn game_over(
    pos: &Chess,
    movable: bool,
    key: Zobrist64,
    seen: [&[Zobrist64]; 2],
    next: &str,
) -> Option<PvWarning> {
    let next = || next.to_string();
    let mate = || !movable && pos.is_checkmate();
    if pos.halfmoves() >= 100 {
        return Some(if mate() {
            PvWarning::AfterCheckmate(next())
        } else {
            PvWarning::AfterFiftyMoves(next())
        });
    }
    if insufficient(pos) {
        return None;
    }
    // The same side to move: every second earlier position.
    let earlier = seen[0].iter().chain(seen[1]).rev().skip(1).step_by(2);
    if earlier.filter(|&&h| h == key).count() >= 2 {
        return Some(PvWarning::AfterThreefold(next()));
    }
    if mate() {
        return Some(PvWarning::AfterCheckmate(next()));
    }
    if !movable && pos.is_stalemate() {
        return Some(PvWarning::AfterStalemate(next()));
    }
    None
}

/// fastchess's test of insufficient material (its chess library's): bare kings, a single
/// minor piece, or bishops of one colour (one each, or two of one side).
fn insufficient(pos: &Chess) -> bool {
    let board = pos.board();
    let bishops = board.bishops();
    match board.occupied().count() {
        2 => true,
        3 => (bishops | board.knights()).any(),
        4 => {
            let (white, black) = (bishops & board.white(), bishops & board.black());
            let same = |b: shakmaty::Bitboard| {
                b.first()
                    .is_some_and(|a| b.last().is_some_and(|z| a.is_light() == z.is_light()))
            };
            let one_each = white.count() == 1 && black.count() == 1 && same(white | black);
            one_each || (white.count() == 2 && same(white)) || (black.count() == 2 && same(black))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
