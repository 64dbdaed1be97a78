//! Polyglot opening books (`.bin`): the format of Fabien Letouzey's PolyGlot, which
//! cutechess-cli reads with `-each book=FILE bookdepth=N`.
//!
//! The file is a sequence of 16-byte entries sorted by key, each big-endian: the position's
//! 64-bit Zobrist key (the Polyglot scheme of 781 published random numbers, which shakmaty's
//! `Zobrist64` implements, with the en-passant file counted only when a pawn of the side to
//! move stands beside the pawn that moved two squares), the move (16 bits: to-file, to-rank,
//! from-file, from-rank, promotion; castling as the king taking its own rook, `e1h1`), its
//! weight (16 bits) and a learning field (32 bits, unused).
//!
//! A book line is drawn as cutechess draws its book moves: from the start position, each move
//! is picked at random among the position's entries with probability proportional to its
//! weight; the line stops when the position is not in the book, its weights are all zero, the
//! picked move is not legal there, the move would end the game (which a book must leave to
//! the engines), or the depth is reached.

use std::path::Path;

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use shakmaty::zobrist::Zobrist64;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Move, Position, Role};

use super::{game_over, Opening, OpeningsError};

/// Bytes per entry.
const ENTRY_SIZE: usize = 16;

/// One entry: a move and its weight in the position with this key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    /// The raw 16-bit move.
    pub raw_move: u16,
    pub weight: u16,
}

/// A Polyglot book, read whole (books for arena runs are small; a 1 MB book is 65536 entries).
#[derive(Debug)]
pub struct PolyglotBook {
    /// Sorted by key (stable: the file's order within a key is kept).
    entries: Vec<Entry>,
}

/// A book file that is not empty and a whole number of entries long, and holds no NUL-free
/// text: what a Polyglot book looks like without its `.bin` name. Text books (EPD, PGN)
/// never hold a NUL byte.
pub fn looks_like_polyglot(data: &[u8]) -> bool {
    !data.is_empty() && data.len() % ENTRY_SIZE == 0 && data.contains(&0)
}

impl PolyglotBook {
    /// Reads a book from its bytes; `path` names it in errors.
    pub fn from_bytes(path: &Path, data: &[u8]) -> Result<PolyglotBook, OpeningsError> {
        if data.len() % ENTRY_SIZE != 0 {
            return Err(OpeningsError::Empty {
                path: path.to_path_buf(),
                message: format!(
                    "not a Polyglot book: its {} bytes are not a whole number of 16-byte entries",
                    data.len()
                ),
            });
        }
        let mut entries: Vec<Entry> = data
            .chunks_exact(ENTRY_SIZE)
            .map(|e| Entry {
                key: u64::from_be_bytes(e[0..8].try_into().expect("8 bytes")),
                raw_move: u16::from_be_bytes([e[8], e[9]]),
                weight: u16::from_be_bytes([e[10], e[11]]),
            })
            .collect();
        entries.sort_by_key(|e| e.key);
        if entries.is_empty() {
            return Err(OpeningsError::Empty {
                path: path.to_path_buf(),
                message: "no entries in the Polyglot book".to_string(),
            });
        }
        Ok(PolyglotBook { entries })
    }

    /// The entries of a position, in the file's order.
    pub fn entries(&self, pos: &Chess) -> &[Entry] {
        let key = key(pos);
        let start = self.entries.partition_point(|e| e.key < key);
        let end = start + self.entries[start..].partition_point(|e| e.key == key);
        &self.entries[start..end]
    }

    /// A line of at most `depth` plies (no limit: until the book has no move) from the
    /// start position, drawn with `rng`.
    pub fn draw_line(&self, rng: &mut StdRng, depth: Option<u32>) -> Vec<Move> {
        let mut pos = Chess::default();
        let mut line = Vec::new();
        while depth.is_none_or(|d| line.len() < d as usize) {
            let Some(m) = self.pick(&pos, rng) else {
                break;
            };
            let mut next = pos.clone();
            next.play_unchecked(m);
            if game_over(&next).is_some() {
                break;
            }
            pos = next;
            line.push(m);
        }
        line
    }

    /// A move of the position's entries, weighted by their weights; `None` when the position
    /// is not in the book, its weights are all zero or the picked move is not legal.
    fn pick(&self, pos: &Chess, rng: &mut StdRng) -> Option<Move> {
        let entries = self.entries(pos);
        let total: u32 = entries.iter().map(|e| u32::from(e.weight)).sum();
        if total == 0 {
            return None;
        }
        let mut pick = rng.random_range(0..total);
        let entry = entries.iter().find(|e| {
            let w = u32::from(e.weight);
            if pick < w {
                true
            } else {
                pick -= w;
                false
            }
        })?;
        legal_move(pos, entry.raw_move)
    }
}

/// The Polyglot key of a position (shakmaty's `Zobrist64` is Polyglot's scheme; Polyglot
/// counts the en-passant file when a pawn could capture, legal or not: `PseudoLegal`).
pub fn key(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::PseudoLegal).0
}

/// The legal move a raw Polyglot move stands for, if any.
pub fn legal_move(pos: &Chess, raw: u16) -> Option<Move> {
    pos.legal_moves().into_iter().find(|m| encode(m) == raw)
}

/// A move in Polyglot's 16 bits: to-square (bits 0-5), from-square (6-11), promotion piece
/// (12-14: 1 knight, 2 bishop, 3 rook, 4 queen). Castling is the king moving to its rook's
/// square (Polyglot book format, "move").
pub fn encode(m: &Move) -> u16 {
    let (from, to) = match *m {
        Move::Castle { king, rook } => (king, rook),
        _ => (m.from().expect("a chess move has a from-square"), m.to()),
    };
    let promotion = match m.promotion() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    u16::from(to) | (u16::from(from) << 6) | (promotion << 12)
}

/// The openings of a Polyglot book: lines `first`, `first + 1`, ... (`count` of them), line
/// N drawn with an RNG seeded by `seed` and N, so that a line does not depend on how many are
/// drawn. Each is named `#N`. The book must hold the start position.
pub fn openings(
    path: &Path,
    data: &[u8],
    depth: Option<u32>,
    first: u64,
    count: u64,
    seed: u64,
) -> Result<Vec<Opening>, OpeningsError> {
    let book = PolyglotBook::from_bytes(path, data)?;
    if book.entries(&Chess::default()).is_empty() {
        return Err(OpeningsError::Empty {
            path: path.to_path_buf(),
            message: "the start position is not in the Polyglot book: no line can be drawn"
                .to_string(),
        });
    }
    Ok((first..first + count)
        .map(|n| {
            let mut rng = line_rng(seed, n);
            let moves = book
                .draw_line(&mut rng, depth)
                .iter()
                .map(|m| m.to_uci(CastlingMode::Standard).to_string())
                .collect();
            Opening {
                name: format!("#{n}"),
                root: Chess::default(),
                root_fen: None,
                moves,
            }
        })
        .collect())
}

/// The RNG of line `n`: a function of the run's seed and the line's number only.
fn line_rng(seed: u64, n: u64) -> StdRng {
    StdRng::seed_from_u64(seed ^ n.wrapping_mul(0xD6E8_FEB8_6659_FD93).rotate_left(17))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    use crate::test_support::position;

    /// The keys the Polyglot book format specification lists for its example positions.
    #[test]
    fn keys_match_the_polyglot_specification() {
        for (fen, expected) in [
            (
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                0x463b96181691fc9c,
            ),
            (
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                0x823c9b50fd114196,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
                0x0756b94461c50fb0,
            ),
            (
                "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
                0x662fafb965db29d4,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                0x22a48b5a8e47ff78,
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3",
                0x652a607ca3f242c1,
            ),
            (
                "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4",
                0x00fdd303c946bdd9,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
                0x3c8123ea7b067637,
            ),
            (
                "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4",
                0x5c3f9b829b279560,
            ),
        ] {
            assert_eq!(key(&position(fen)), expected, "{fen}");
        }
    }

    #[test]
    fn the_en_passant_file_counts_when_a_pawn_stands_beside_even_if_pinned() {
        // dxe3 would take both pawns off the fourth rank and expose black's king on a4 to
        // the rook on h4: no legal en passant, but Polyglot (and python-chess) count the file.
        let pos = position("8/8/8/8/k2pP2R/8/8/6K1 b - e3 0 1");
        let with_file = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Always).0;
        let without = pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0;
        assert_ne!(with_file, without);
        assert_eq!(key(&pos), with_file);
    }

    #[test]
    fn moves_are_encoded_as_polyglot_writes_them() {
        let start = Chess::default();
        let e2e4 = UciMove::from_ascii(b"e2e4")
            .unwrap()
            .to_move(&start)
            .unwrap();
        // e4 is square 28, e2 square 12.
        assert_eq!(encode(&e2e4), 28 | (12 << 6));
        let castles = position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
        let short = UciMove::from_ascii(b"e1g1")
            .unwrap()
            .to_move(&castles)
            .unwrap();
        // Castling is the king taking its rook: e1h1 = 263 (python-chess's raw_move).
        assert_eq!(encode(&short), 263);
        assert_eq!(legal_move(&castles, 263), Some(short));
        let promotion = position("8/P6k/8/8/8/8/8/K7 w - - 0 1");
        let a8q = UciMove::from_ascii(b"a7a8q")
            .unwrap()
            .to_move(&promotion)
            .unwrap();
        assert_eq!(encode(&a8q), 56 | (48 << 6) | (4 << 12));
        // A move that is not legal stands for nothing.
        assert_eq!(legal_move(&start, 28 | (4 << 6)), None);
    }

    fn entry(key: u64, raw_move: u16, weight: u16) -> [u8; 16] {
        let mut e = [0u8; 16];
        e[0..8].copy_from_slice(&key.to_be_bytes());
        e[8..10].copy_from_slice(&raw_move.to_be_bytes());
        e[10..12].copy_from_slice(&weight.to_be_bytes());
        e
    }

    #[test]
    fn lines_follow_the_weights_stop_out_of_book_and_depend_on_seed_and_number() {
        let start = Chess::default();
        let e2e4 = 28 | (12 << 6);
        let d2d4 = 27 | (11 << 6);
        let mut after_e4 = start.clone();
        after_e4.play_unchecked(legal_move(&start, e2e4).unwrap());
        let e7e5 = 36 | (52 << 6);
        let mut data = Vec::new();
        // Unsorted on purpose: the reader sorts. d4 has weight 0: never drawn.
        data.extend(entry(key(&after_e4), e7e5, 1));
        data.extend(entry(key(&start), e2e4, 5));
        data.extend(entry(key(&start), d2d4, 0));
        let path = Path::new("book.bin");
        let lines = openings(path, &data, None, 1, 20, 7).unwrap();
        assert_eq!(lines.len(), 20);
        for (i, o) in lines.iter().enumerate() {
            assert_eq!(o.name, format!("#{}", i + 1));
            assert_eq!(o.moves, ["e2e4", "e7e5"]);
        }
        let one_ply = openings(path, &data, Some(1), 1, 1, 7).unwrap();
        assert_eq!(one_ply[0].moves, ["e2e4"]);
        // Two equal weights: both are drawn, and line N is the same however many are drawn.
        let mut data = Vec::new();
        data.extend(entry(key(&start), e2e4, 3));
        data.extend(entry(key(&start), d2d4, 3));
        let lines = openings(path, &data, None, 1, 40, 11).unwrap();
        let firsts: std::collections::BTreeSet<&str> =
            lines.iter().map(|o| o.moves[0].as_str()).collect();
        assert_eq!(firsts.len(), 2, "{firsts:?}");
        let later = openings(path, &data, None, 5, 3, 11).unwrap();
        assert_eq!(later[0].name, "#5");
        assert_eq!(later[0].moves, lines[4].moves);
        assert_eq!(later[2].moves, lines[6].moves);
    }

    #[test]
    fn a_line_stops_before_a_move_that_ends_the_game() {
        // Fool's mate in the book: the mating move is left out.
        let mut data = Vec::new();
        let mut pos = Chess::default();
        for uci in ["f2f3", "e7e5", "g2g4", "d8h4"] {
            let m = UciMove::from_ascii(uci.as_bytes())
                .unwrap()
                .to_move(&pos)
                .unwrap();
            data.extend(entry(key(&pos), encode(&m), 1));
            pos.play_unchecked(m);
        }
        let lines = openings(Path::new("b.bin"), &data, None, 1, 1, 0).unwrap();
        assert_eq!(lines[0].moves, ["f2f3", "e7e5", "g2g4"]);
    }

    #[test]
    fn bad_books_are_refused_with_one_line() {
        let e = openings(Path::new("b.bin"), &[0; 17], None, 1, 1, 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "b.bin: not a Polyglot book: its 17 bytes are not a whole number of 16-byte entries"
        );
        let e = openings(Path::new("b.bin"), &[], None, 1, 1, 0).unwrap_err();
        assert_eq!(e.to_string(), "b.bin: no entries in the Polyglot book");
        let e = openings(Path::new("b.bin"), &entry(1, 2, 3), None, 1, 1, 0).unwrap_err();
        assert!(
            e.to_string().contains("start position is not in the"),
            "{e}"
        );
    }
}
