//! Opening names for fastchess's `ECO` and `Opening` tags of the `--pgnout` file: the game is
//! classified by the last position along it (book moves, then the moves played) that a named
//! opening reaches, as fastchess classifies its games.
//!
//! The names are lichess's chess-openings data set (github.com/lichess-org/chess-openings,
//! released under CC0 1.0, public domain), its five files `eco/a.tsv` to `eco/e.tsv` kept as
//! that project publishes them: `eco`, `name` and the line that reaches the position, in SAN.

use std::collections::HashMap;
use std::sync::OnceLock;

use shakmaty::san::San;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Move, Position};

const FILES: [&str; 5] = [
    include_str!("eco/a.tsv"),
    include_str!("eco/b.tsv"),
    include_str!("eco/c.tsv"),
    include_str!("eco/d.tsv"),
    include_str!("eco/e.tsv"),
];

/// A named opening: its ECO code (`B90`) and its name (`Sicilian Defense: Najdorf Variation`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Opening {
    pub eco: &'static str,
    pub name: &'static str,
}

/// A position's zobrist key with the legal en passant square: the pieces, the side to move,
/// the castling rights and the en passant square where a capture there is legal (an EPD's
/// four fields), as Polyglot books key their positions. Two positions that shared a key (a
/// chance in 2^64 for a pair) would share a name, in a tag; no ruling reads it.
fn key(pos: &Chess) -> Zobrist64 {
    pos.zobrist_hash(EnPassantMode::Legal)
}

/// The named positions, read from the data set on first use (a compat run with `--pgnout`).
fn named() -> &'static HashMap<Zobrist64, Opening> {
    static NAMED: OnceLock<HashMap<Zobrist64, Opening>> = OnceLock::new();
    NAMED.get_or_init(|| {
        let mut named = HashMap::new();
        for file in FILES {
            for line in file.lines().skip(1) {
                if let Some((key, opening)) = entry(line) {
                    // A position two lines reach keeps its first name.
                    named.entry(key).or_insert(opening);
                }
            }
        }
        named
    })
}

/// One line of the data set (`B90\tSicilian Defense: Najdorf Variation\t1. e4 c5 ...`): the
/// position its moves reach from the start position, and its name. None for a line that
/// does not parse or play, which the data set's own checks rule out.
fn entry(line: &'static str) -> Option<(Zobrist64, Opening)> {
    let mut fields = line.split('\t');
    let (eco, name, moves) = (fields.next()?, fields.next()?, fields.next()?);
    let mut pos = Chess::default();
    for word in moves.split_ascii_whitespace() {
        if word.ends_with('.') {
            continue;
        }
        let m = word.parse::<San>().ok()?.to_move(&pos).ok()?;
        pos.play_unchecked(m);
    }
    Some((key(&pos), Opening { eco, name }))
}

/// The opening of a standard game that starts at `root` and goes on with `moves` (its book
/// moves, then the legal moves played): the last position along it that has a name.
pub fn classify<'a>(root: &Chess, moves: impl IntoIterator<Item = &'a Move>) -> Option<Opening> {
    let named = named();
    let mut pos = root.clone();
    let mut found = named.get(&key(&pos)).copied();
    for m in moves {
        pos.play_unchecked(*m);
        if let Some(opening) = named.get(&key(&pos)) {
            found = Some(*opening);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::uci::UciMove;

    fn line(uci: &str) -> Vec<Move> {
        let mut pos = Chess::default();
        uci.split_whitespace()
            .map(|u| {
                let m = u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
                pos.play_unchecked(m);
                m
            })
            .collect()
    }

    #[test]
    fn every_line_of_the_data_set_plays() {
        let lines: usize = FILES.iter().map(|f| f.lines().count() - 1).sum();
        let parsed = FILES
            .iter()
            .flat_map(|f| f.lines().skip(1))
            .filter(|l| entry(l).is_some())
            .count();
        assert_eq!(parsed, lines);
        assert!(lines > 3000, "{lines}");
    }

    #[test]
    fn a_game_takes_the_name_of_the_last_named_position_it_passed() {
        let najdorf = line("e2e4 c7c5 g1f3 d7d6 d2d4 c5d4 f3d4 g8f6 b1c3 a7a6");
        let found = classify(&Chess::default(), &najdorf).unwrap();
        assert_eq!(found.eco, "B90");
        assert_eq!(found.name, "Sicilian Defense: Najdorf Variation");
        // Moves past the named lines keep the last name found.
        let mut on = najdorf.clone();
        let mut pos = Chess::default();
        for m in &najdorf {
            pos.play_unchecked(*m);
        }
        let m = "h2h3".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        on.push(m);
        assert_eq!(classify(&Chess::default(), &on).unwrap().eco, "B90");
        // The start position has no name; a first move has one.
        assert_eq!(classify(&Chess::default(), &[]), None);
        assert_eq!(
            classify(&Chess::default(), &line("g1h3")).unwrap().name,
            "Amar Opening"
        );
    }
}
