//! The 960 start positions of Chess960, numbered 0 to 959 by Scharnagl's scheme (FIDE Laws,
//! Guidelines III.2; position 518 is the standard one). tests/data/chess960/chess960.epd is
//! made from it.

/// The white back rank of position `n` (0 to 959), files a to h, as piece letters.
pub fn back_rank(n: u16) -> [u8; 8] {
    assert!(n < 960, "Chess960 positions are numbered 0 to 959");
    let mut rank = [0u8; 8];
    let n = usize::from(n);
    // The light-squared bishop on b, d, f or h; the dark-squared one on a, c, e or g.
    rank[2 * (n % 4) + 1] = b'B';
    rank[2 * ((n / 4) % 4)] = b'B';
    let empty = |rank: &[u8; 8]| -> Vec<usize> { (0..8).filter(|&f| rank[f] == 0).collect() };
    // The queen on the k-th empty square.
    let rest = n / 16;
    rank[empty(&rank)[rest % 6]] = b'Q';
    // The knights on one of the 10 pairs of the five empty squares, in order.
    const KNIGHTS: [(usize, usize); 10] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (1, 2),
        (1, 3),
        (1, 4),
        (2, 3),
        (2, 4),
        (3, 4),
    ];
    let (a, b) = KNIGHTS[rest / 6];
    let squares = empty(&rank);
    rank[squares[a]] = b'N';
    rank[squares[b]] = b'N';
    // Rook, king, rook on the three left.
    for (square, piece) in empty(&rank).into_iter().zip(*b"RKR") {
        rank[square] = piece;
    }
    rank
}

/// Position `n` as the first four fields of a FEN, castling rights in Shredder-FEN (the
/// rooks' files: `HAha` for position 518).
pub fn shredder_fen(n: u16) -> String {
    let white = back_rank(n);
    let rooks: Vec<char> = (0..8u8)
        .filter(|&f| white[usize::from(f)] == b'R')
        .map(|f| char::from(b'A' + f))
        .collect();
    let white_text = String::from_utf8(white.to_vec()).expect("ASCII");
    let rights: String = [rooks[1], rooks[0]]
        .into_iter()
        .chain([rooks[1], rooks[0]].map(|c| c.to_ascii_lowercase()))
        .collect();
    format!(
        "{}/pppppppp/8/8/8/8/PPPPPPPP/{white_text} w {rights} -",
        white_text.to_ascii_lowercase()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocabulary::Variant;
    use std::collections::HashSet;

    #[test]
    fn position_518_is_the_standard_one_and_all_960_differ() {
        assert_eq!(&back_rank(518), b"RNBQKBNR");
        assert_eq!(&back_rank(0), b"BBQNNRKR");
        assert_eq!(&back_rank(959), b"RKRNNQBB");
        let all: HashSet<[u8; 8]> = (0..960).map(back_rank).collect();
        assert_eq!(all.len(), 960);
        for rank in &all {
            // Bishops on opposite colours, the king between the rooks.
            let files = |p: u8| (0..8).filter(move |&f| rank[f] == p);
            let bishops: Vec<usize> = files(b'B').collect();
            assert_eq!(bishops[0] % 2 + bishops[1] % 2, 1, "{rank:?}");
            let rooks: Vec<usize> = files(b'R').collect();
            let king = files(b'K').next().unwrap();
            assert!(rooks[0] < king && king < rooks[1], "{rank:?}");
        }
    }

    #[test]
    fn the_test_book_is_made_from_the_numbering() {
        let book = include_str!("../../tests/data/chess960/chess960.epd");
        assert_eq!(book, test_book());
        // Every line is a legal Chess960 position.
        let file = std::env::temp_dir().join(format!("chess960-{}.epd", std::process::id()));
        std::fs::write(&file, book).unwrap();
        let options = super::super::BookOptions {
            variant: Variant::Chess960,
            ..Default::default()
        };
        let openings = super::super::load_book(&file, &options).unwrap();
        std::fs::remove_file(&file).ok();
        assert_eq!(
            openings.len(),
            book.lines().filter(|l| !l.starts_with('#')).count()
        );
        assert!(openings
            .iter()
            .all(|o| o.record().variant == Variant::Chess960));
    }

    /// tests/data/chess960/chess960.epd: every 77th position from 0, then 518 and 959, each
    /// named by its number.
    fn test_book() -> String {
        let mut text = String::from(
            "# Chess960 start positions by Scharnagl's numbering (src/openings/chess960.rs)\n",
        );
        for n in (0..960).step_by(77).chain([518, 959]) {
            text.push_str(&format!("{} id \"960-{n}\";\n", shredder_fen(n)));
        }
        text
    }

    #[test]
    #[ignore = "writes tests/data/chess960/chess960.epd"]
    fn write_the_test_book() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/chess960/chess960.epd"
        );
        std::fs::write(path, test_book()).unwrap();
    }
}
