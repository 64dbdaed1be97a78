//! fastchess's `-check-mate-pvs`: the principal variation of each scored `info` line an
//! engine printed for a move is played out on the position it searched, and a line whose PV
//! cannot be played, plays on past the end of the game, or does not deliver the mate its score
//! announces gets fastchess's warning (docs/fastchess.md). Pure functions; the game loop calls
//! them only when the option is on, so a run without it pays nothing.
//!
//! What is checked, in fastchess's order (its `match.cpp`): before each PV move, a position
//! where the game is over (fifty moves, a threefold repetition with the game's own history, no
//! legal move) ends the check with "continues after ..."; a move that is not legal there,
//! with "Illegal PV move". Then, for an exact (not bound) `score mate N`, the PV must be
//! exactly the mate's length (2N-1 plies for the engine's own mate, -2N when it is mated) and
//! end in checkmate.

use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Position};

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
    let start = match root_fen {
        None => "startpos".to_string(),
        Some(fen) => format!("fen {fen}"),
    };
    format!(
        "{}\nInfo; {info}\nPosition; {start}\nMoves; {}",
        warning.text(engine),
        moves.join(" ")
    )
}

/// What the check reads of an `info` line: its score when it is an exact mate score, and
/// its PV (the UCI moves after `pv`, up to the first word that is not one).
struct Line<'a> {
    mate: Option<i64>,
    pv: Vec<&'a str>,
}

fn parse(line: &str) -> Line<'_> {
    let words: Vec<&str> = line.split(' ').filter(|w| !w.is_empty()).collect();
    let mut mate = None;
    let mut bound = false;
    let mut pv = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            // A later score replaces an earlier one; one that cannot be read is no score.
            "score" => {
                mate = match (words.get(i + 1), words.get(i + 2)) {
                    (Some(&"mate"), Some(n)) => n.parse::<i64>().ok(),
                    _ => None,
                }
            }
            "lowerbound" | "upperbound" => bound = true,
            "pv" => {
                pv = words[i + 1..]
                    .iter()
                    .take_while(|w| is_uci_move(w))
                    .copied()
                    .collect();
                break;
            }
            _ => {}
        }
        i += 1;
    }
    Line {
        mate: mate.filter(|_| !bound),
        pv,
    }
}

/// The shape of a UCI move as fastchess reads a PV: `[a-h][1-8][a-h][1-8]` and an optional
/// promotion piece.
fn is_uci_move(word: &str) -> bool {
    let b = word.as_bytes();
    let file = |c: u8| (b'a'..=b'h').contains(&c);
    let rank = |c: u8| (b'1'..=b'8').contains(&c);
    (b.len() == 4 || b.len() == 5 && b"nbrq".contains(&b[4]))
        && file(b[0])
        && rank(b[1])
        && file(b[2])
        && rank(b[3])
}

/// Checks one scored `info` line against `pos`, the position the engine searched, whose
/// earlier positions since the last capture or pawn move are `history` (oldest first, `pos`
/// not included): the first thing wrong with its PV, if any.
pub fn check(pos: &Chess, history: &[Zobrist64], line: &str) -> Option<PvWarning> {
    // fastchess reads no line with `info string` in it.
    if line.contains("info string") {
        return None;
    }
    let line = parse(line);
    if line.pv.is_empty() {
        return None;
    }
    let mut pos = pos.clone();
    let mut history = history.to_vec();
    let mode = pos.castles().mode();
    for &text in &line.pv {
        if let Some(warning) = game_over(&pos, &history, text) {
            return Some(warning);
        }
        // The move as this game writes it (a king onto its rook castles only in Chess960).
        let m = text
            .parse::<UciMove>()
            .ok()
            .and_then(|u| u.to_move(&pos).ok())
            .filter(|m| UciMove::from_move(*m, mode).to_string() == text);
        let Some(m) = m else {
            return Some(PvWarning::IllegalMove(text.to_string()));
        };
        if pos.is_irreversible(m) {
            history.clear();
        } else {
            history.push(pos.zobrist_hash(EnPassantMode::Legal));
        }
        pos.play_unchecked(m);
    }
    let mate = line.mate?;
    let plies = if mate > 0 { mate * 2 - 1 } else { -mate * 2 };
    let len = line.pv.len() as i64;
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

/// Whether the game is over in `pos` before the PV's `next` move, as fastchess asks: fifty
/// moves (unless it is mate), then, unless the material is one fastchess calls insufficient,
/// a third occurrence, then mate or stalemate.
fn game_over(pos: &Chess, history: &[Zobrist64], next: &str) -> Option<PvWarning> {
    let next = next.to_string();
    if pos.halfmoves() >= 100 {
        return Some(if pos.is_checkmate() {
            PvWarning::AfterCheckmate(next)
        } else {
            PvWarning::AfterFiftyMoves(next)
        });
    }
    if insufficient(pos) {
        return None;
    }
    let key: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    // The same side to move: every second earlier position.
    let seen = history.iter().rev().skip(1).step_by(2);
    if seen.filter(|&&h| h == key).count() >= 2 {
        return Some(PvWarning::AfterThreefold(next));
    }
    if pos.is_checkmate() {
        return Some(PvWarning::AfterCheckmate(next));
    }
    if pos.is_stalemate() {
        return Some(PvWarning::AfterStalemate(next));
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
