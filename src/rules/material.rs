//! Mating material: whether a side "could still win" (docs/rulesets.md, "mating
//! material"), per ruleset.

use shakmaty::zobrist::Zobrist64;
use shakmaty::{Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role};

use super::Ruleset;

/// Whether `side` can still checkmate, as the ruleset defines it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatingChance {
    Yes,
    No,
    /// The helpmate search hit its limit; the claimant is given the win (docs/rulesets.md).
    Undetermined,
}

impl MatingChance {
    /// A claim by this side succeeds: yes, or undecided (benefit to the claimant).
    pub fn suffices(self) -> bool {
        self != MatingChance::No
    }
}

/// Whether `side` could still checkmate in `pos` under `ruleset`.
pub fn can_mate(ruleset: Ruleset, pos: &Chess, side: Color) -> MatingChance {
    let yes_no = |b: bool| {
        if b {
            MatingChance::Yes
        } else {
            MatingChance::No
        }
    };
    match ruleset {
        // H3: a flag or an illegal move loses whatever the material.
        Ruleset::House => MatingChance::Yes,
        // WBCA 7c.1: two minor pieces (but not K+N+N v K), a pawn, a rook (or a queen); a lone
        // minor piece is not enough. ("Unless a forced win can be demonstrated" is arbiter
        // judgement and is not simulated.)
        Ruleset::Wbca => yes_no(has_mating_material_table(pos, side)),
        // USCF 7c: at least two minor pieces, a pawn, a rook or a queen; K+N+N v bare K is not
        // enough under the regular rules.
        Ruleset::Uscf => yes_no(has_mating_material_table(pos, side)),
        Ruleset::Online => yes_no(lichess_can_win(pos, side)),
        // FIDE 6.9 / G§3: "by any possible series of legal moves": a helpmate search.
        Ruleset::Fide | Ruleset::Generic => helpmate_exists(pos, side),
    }
}

/// Whether neither side can mate any more (a dead position, FIDE 5.2.2), beyond the trivial
/// material draws that shakmaty's `is_insufficient_material` already knows. `online` applies
/// lichess's rule to both sides; every other ruleset has the answer of chasolver's fast
/// unwinnability test for both sides (after every move, remembered per position by
/// `position_facts`; a position it cannot decide plays on): from the shuffle proof of
/// `shuffle` where it applies (about 2,000 instructions), else from chasolver (some 30,000,
/// millions for a few blocked positions). Every ruleset rules a dead position a draw
/// (docs/rulesets.md): FIDE 5.2.2, G§2 ("insufficient material to checkmate"), and the
/// ordinary Laws that H2, WBCA and USCF 8 keep. (The static mating-material tables of WBCA
/// 7c.1 and USCF 7c decide only who may win a claim, not whether the game is dead.)
pub fn is_dead(ruleset: Ruleset, pos: &Chess) -> bool {
    let zobrist = pos.zobrist_hash(EnPassantMode::Legal);
    is_dead_given(ruleset, pos, zobrist, &pos.legal_moves(), None)
}

/// [`is_dead`], given `pos`'s zobrist key (with the legal en passant square), its legal moves
/// and the test's answer if `position_facts` remembers it (the referee has all three). A new
/// answer is remembered there. Most positions are shown alive
/// by a shuffle of two pieces without asking chasolver (`shuffle`: the same answer).
pub(super) fn is_dead_given(
    ruleset: Ruleset,
    pos: &Chess,
    zobrist: Zobrist64,
    legal: &[Move],
    remembered: Option<bool>,
) -> bool {
    match ruleset {
        Ruleset::Fide | Ruleset::Generic | Ruleset::House | Ruleset::Wbca | Ruleset::Uscf => {
            if let Some(dead) = remembered {
                return dead;
            }
            let dead = !super::shuffle::proves_alive(pos, legal)
                && chess_board(pos).is_some_and(|board| {
                    chasolver::is_unwinnable_fast(&board, chess::Color::White)
                        && chasolver::is_unwinnable_fast(&board, chess::Color::Black)
                });
            super::position_facts::remember_dead(pos, zobrist, dead);
            dead
        }
        Ruleset::Online => {
            !lichess_can_win(pos, Color::White) && !lichess_can_win(pos, Color::Black)
        }
    }
}

/// The position as chasolver's `chess` crate has it: what its FEN parser makes of the FEN
/// with the legal en passant square, built square by square (the FEN round trip cost more
/// than the dead-position test itself). `None` for a board it finds insane.
fn chess_board(pos: &Chess) -> Option<chess::Board> {
    let mut builder = chess::BoardBuilder::new();
    for (square, piece) in pos.board() {
        let role = match piece.role {
            Role::Pawn => chess::Piece::Pawn,
            Role::Knight => chess::Piece::Knight,
            Role::Bishop => chess::Piece::Bishop,
            Role::Rook => chess::Piece::Rook,
            Role::Queen => chess::Piece::Queen,
            Role::King => chess::Piece::King,
        };
        // Both number the squares a1 = 0, b1 = 1, ... h8 = 63.
        builder.piece(
            chess::ALL_SQUARES[usize::from(square)],
            role,
            chess_color(piece.color),
        );
    }
    builder.side_to_move(chess_color(pos.turn()));
    let castles = pos.castles();
    for color in [Color::White, Color::Black] {
        let rights = match (
            castles.has(color, CastlingSide::KingSide),
            castles.has(color, CastlingSide::QueenSide),
        ) {
            (true, true) => chess::CastleRights::Both,
            (true, false) => chess::CastleRights::KingSide,
            (false, true) => chess::CastleRights::QueenSide,
            (false, false) => chess::CastleRights::NoRights,
        };
        builder.castle_rights(chess_color(color), rights);
    }
    if let Some(ep) = pos.ep_square(EnPassantMode::Legal) {
        builder.en_passant(Some(chess::ALL_FILES[usize::from(ep.file())]));
    }
    chess::Board::try_from(&builder).ok()
}

fn chess_color(color: Color) -> chess::Color {
    match color {
        Color::White => chess::Color::White,
        Color::Black => chess::Color::Black,
    }
}

/// The static table of WBCA 7c.1 and USCF 7c.
fn has_mating_material_table(pos: &Chess, side: Color) -> bool {
    let board = pos.board();
    let ours = board.by_color(side);
    let count = |role: Role| (board.by_role(role) & ours).count();
    if count(Role::Queen) + count(Role::Rook) + count(Role::Pawn) > 0 {
        return true;
    }
    let knights = count(Role::Knight);
    let bishops = count(Role::Bishop);
    if knights + bishops < 2 {
        return false;
    }
    // K+N+N against a bare king cannot force mate.
    let their_men = board.by_color(!side).count();
    !(bishops == 0 && knights == 2 && their_men == 1)
}

/// lichess's rule (`online`, docs/rulesets.md).
fn lichess_can_win(pos: &Chess, side: Color) -> bool {
    let board = pos.board();
    let ours = board.by_color(side);
    let theirs = board.by_color(!side);
    let ours_of = |role: Role| board.by_role(role) & ours;
    let theirs_of = |role: Role| board.by_role(role) & theirs;
    if ours.count() == 1 {
        return false; // a bare king
    }
    let our_non_king = ours & !board.kings();
    if our_non_king == ours_of(Role::Knight) && our_non_king.count() == 1 {
        // K+N cannot win when the opponent has only its king and queens (nothing to block with).
        let their_non_king = theirs & !board.kings();
        return their_non_king != theirs_of(Role::Queen);
    }
    if our_non_king == ours_of(Role::Bishop) {
        // K+bishops cannot win when the opponent has no knight or pawn and all bishops on the
        // board stand on squares of one colour.
        let bishops = board.by_role(Role::Bishop);
        let same_colour = (bishops & Bitboard::DARK_SQUARES).is_empty()
            || (bishops & Bitboard::LIGHT_SQUARES).is_empty();
        let blockers = theirs_of(Role::Knight) | theirs_of(Role::Pawn);
        return !(blockers.is_empty() && same_colour);
    }
    true
}

/// FIDE 6.9: does any series of legal moves lead to a mate by `side`? Decided by chasolver.
fn helpmate_exists(pos: &Chess, side: Color) -> MatingChance {
    // Cheap and exact: a bare king never mates, and shakmaty knows the trivial material draws.
    if pos.board().by_color(side).count() == 1 || pos.has_insufficient_material(side) {
        return MatingChance::No;
    }
    let Some(board) = chess_board(pos) else {
        return MatingChance::Undetermined;
    };
    match chasolver::winnability(&board, chess_color(side)) {
        Some(chasolver::Winnability::Winnable { .. }) => MatingChance::Yes,
        Some(chasolver::Winnability::Unwinnable) => MatingChance::No,
        None => MatingChance::Undetermined,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::test_position::position as pos;
    use shakmaty::fen::Fen;

    /// The board built square by square is the one chasolver got from the FEN before: the
    /// same pieces, side to move, castling rights and en passant square, over random games
    /// (captures, promotions, castling and en passant all come up).
    #[test]
    fn the_board_handed_to_chasolver_is_the_one_its_fen_parser_makes() {
        use rand::{RngExt, SeedableRng};
        use std::str::FromStr;
        let mut rng = rand::rngs::StdRng::seed_from_u64(11);
        let mut positions = 0;
        for _ in 0..300 {
            let mut p = Chess::default();
            for _ in 0..200 {
                let fen = Fen::from_position(&p, EnPassantMode::Legal).to_string();
                let parsed = chess::Board::from_str(&fen).ok();
                assert_eq!(chess_board(&p), parsed, "{fen}");
                positions += 1;
                let moves = p.legal_moves();
                if moves.is_empty() {
                    break;
                }
                p.play_unchecked(moves[rng.random_range(0..moves.len())]);
            }
        }
        assert!(positions > 10_000);
    }

    #[test]
    fn knight_against_rook_differs_by_ruleset() {
        // White: K+N, black: K+R. Can white (the knight side) still win?
        let p = pos("8/8/8/4k3/8/8/2N5/K6r w - - 0 1");
        for (ruleset, expected) in [
            (Ruleset::House, MatingChance::Yes),
            (Ruleset::Wbca, MatingChance::No),
            (Ruleset::Uscf, MatingChance::No),
            (Ruleset::Fide, MatingChance::Yes),
            (Ruleset::Generic, MatingChance::Yes),
            (Ruleset::Online, MatingChance::Yes),
        ] {
            assert_eq!(can_mate(ruleset, &p, Color::White), expected, "{ruleset}");
        }
    }

    #[test]
    fn dead_positions_by_ruleset() {
        // A locked chain: every gap on the 4th and 5th ranks is guarded by a pawn, so neither
        // king can cross and no pawn can ever move or be taken: dead (FIDE 5.2.2).
        let locked = pos("8/8/1k6/p1p1p1p1/P1P1P1P1/1K6/8/8 w - - 0 1");
        for ruleset in Ruleset::ALL.into_iter().filter(|r| *r != Ruleset::Online) {
            assert!(is_dead(ruleset, &locked), "{ruleset}");
        }
        // lichess's rule sees pawns on both sides.
        assert!(!is_dead(Ruleset::Online, &locked));
        let open = pos("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9");
        assert!(!is_dead(Ruleset::Fide, &open));
        // K+B v K+B on one colour is dead for lichess's rule too.
        let bishops = pos("8/8/8/3bk3/8/3BK3/8/8 w - - 0 1");
        assert!(is_dead(Ruleset::Online, &bishops));
        assert!(is_dead(Ruleset::Uscf, &bishops));
    }

    #[test]
    fn bare_king_never_mates() {
        let p = pos("8/8/8/4k3/8/8/2Q5/K7 w - - 0 1");
        for ruleset in Ruleset::ALL.into_iter().filter(|r| *r != Ruleset::House) {
            assert_eq!(
                can_mate(ruleset, &p, Color::Black),
                MatingChance::No,
                "{ruleset}"
            );
        }
        assert_eq!(
            can_mate(Ruleset::House, &p, Color::Black),
            MatingChance::Yes
        );
    }

    #[test]
    fn two_knights_against_a_bare_king() {
        let p = pos("8/8/8/4k3/8/8/2NN4/K7 w - - 0 1");
        assert_eq!(can_mate(Ruleset::Uscf, &p, Color::White), MatingChance::No);
        assert_eq!(can_mate(Ruleset::Wbca, &p, Color::White), MatingChance::No);
        // A helpmate exists with two knights (the defender cooperates).
        assert_eq!(can_mate(Ruleset::Fide, &p, Color::White), MatingChance::Yes);
    }

    #[test]
    fn lichess_knight_against_queen_only() {
        let p = pos("8/8/8/4k3/4q3/8/2N5/K7 w - - 0 1");
        assert_eq!(
            can_mate(Ruleset::Online, &p, Color::White),
            MatingChance::No
        );
        let p = pos("8/8/8/4k3/4r3/8/2N5/K7 w - - 0 1");
        assert_eq!(
            can_mate(Ruleset::Online, &p, Color::White),
            MatingChance::Yes
        );
    }

    /// Whether white could still win, position by position: `(fen, USCF/WBCA table, lichess)`.
    #[test]
    fn static_tables_by_material() {
        let cases = [
            // USCF 7c / WBCA 7c.1: a rook, a pawn or a queen suffices.
            ("8/8/8/4k3/8/8/8/K6R w - - 0 1", true, true),
            ("8/8/8/4k3/8/8/P7/K7 w - - 0 1", true, true),
            ("8/8/8/4k3/8/8/8/K6Q w - - 0 1", true, true),
            // A lone minor piece does not, for either table (lichess: nothing to block with).
            ("8/8/8/4k3/8/8/2N5/K7 w - - 0 1", false, false),
            ("8/8/8/4k3/8/8/2B5/K7 w - - 0 1", false, false),
            // Two minor pieces do, but K+N+N against a bare king (USCF 7c) ...
            ("8/8/8/4k3/8/8/2BN4/K7 w - - 0 1", true, true),
            ("8/8/8/4k3/8/8/2BB4/K7 w - - 0 1", true, true),
            ("8/8/8/4k3/8/8/2NN4/K7 w - - 0 1", false, true),
            // ... unless the defender has a man that can block.
            ("8/8/8/4k3/4p3/8/2NN4/K7 w - - 0 1", true, true),
            // lichess: K+N wins against any man but a queen ...
            ("8/8/8/4k3/4n3/8/2N5/K7 w - - 0 1", false, true),
            // ... K+B against a knight or a pawn, or with bishops of both colours on the board ...
            ("8/8/8/4k3/4p3/8/2B5/K7 w - - 0 1", false, true),
            ("8/8/8/4k3/4n3/8/2B5/K7 w - - 0 1", false, true),
            ("8/8/8/3bk3/8/8/3B4/K7 w - - 0 1", false, true),
            // ... but not against a rook, nor with every bishop on one colour.
            ("8/8/8/4k3/4r3/8/2B5/K7 w - - 0 1", false, false),
            ("8/8/8/4k3/4b3/8/2B5/K7 w - - 0 1", false, false),
            ("8/8/8/4k3/8/8/3B4/K7 w - - 0 1", false, false),
        ];
        let yes_no = |b: bool| {
            if b {
                MatingChance::Yes
            } else {
                MatingChance::No
            }
        };
        for (fen, table, lichess) in cases {
            let p = pos(fen);
            assert_eq!(
                can_mate(Ruleset::Uscf, &p, Color::White),
                yes_no(table),
                "uscf {fen}"
            );
            assert_eq!(
                can_mate(Ruleset::Wbca, &p, Color::White),
                yes_no(table),
                "wbca {fen}"
            );
            assert_eq!(
                can_mate(Ruleset::Online, &p, Color::White),
                yes_no(lichess),
                "online {fen}"
            );
        }
    }

    #[test]
    fn a_position_where_one_side_can_still_mate_is_not_dead() {
        let p = pos("8/8/8/4k3/8/8/8/K6R w - - 0 1");
        for ruleset in Ruleset::ALL {
            assert!(!is_dead(ruleset, &p), "{ruleset}");
        }
        for (side, expected) in [
            (Color::White, MatingChance::Yes),
            (Color::Black, MatingChance::No),
        ] {
            assert_eq!(can_mate(Ruleset::Fide, &p, side), expected, "{side:?}");
        }
    }

    #[test]
    fn only_a_no_loses_a_claim() {
        // An undecided search gives the claimant the benefit.
        assert!(MatingChance::Yes.suffices());
        assert!(MatingChance::Undetermined.suffices());
        assert!(!MatingChance::No.suffices());
    }

    #[test]
    fn fide_helpmate_search_sees_blocked_positions() {
        // lichess game ijyj0mHa (chasolver's example): black has pawns and a bishop but no
        // helpmate exists for it; white, surprisingly, has one.
        let p = pos("5b2/p7/Pp3k2/1Pp1pBp1/2P1P1P1/5K2/8/8 w - - 0 1");
        assert_eq!(can_mate(Ruleset::Fide, &p, Color::Black), MatingChance::No);
        assert_eq!(can_mate(Ruleset::Fide, &p, Color::White), MatingChance::Yes);
        // The static USCF table sees pawns and says yes.
        assert_eq!(can_mate(Ruleset::Uscf, &p, Color::Black), MatingChance::Yes);
    }
}
