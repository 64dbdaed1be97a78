//! The schedule: which game is played by whom, with which colours and opening. It is a pure
//! function of the players, the games per pairing, the book and the seed, so a run can be
//! resumed or split into shards and still play exactly the same games.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::settings::OpeningsOrder;

/// One scheduled game. Players are indices into the run's engine list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// 1-based game number.
    pub game: u64,
    /// 1-based number of the pair of games (same encounter, same opening, colours swapped).
    pub pair: u64,
    pub white: usize,
    pub black: usize,
    /// Index into the opening book.
    pub opening: usize,
}

/// Who meets whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Player 0 against each of the others.
    Gauntlet,
    /// Every player against every other.
    RoundRobin,
}

impl Format {
    /// The encounters `players` players make: the first against each other one (gauntlet),
    /// or every pair (round robin).
    pub fn encounters(self, players: u64) -> u64 {
        match self {
            Format::Gauntlet => players.saturating_sub(1),
            Format::RoundRobin => players * players.saturating_sub(1) / 2,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Gauntlet => "gauntlet",
            Format::RoundRobin => "round-robin",
        }
    }
}

/// The opening book as the schedule sees it: its length, order and first opening.
#[derive(Clone, Copy, Debug)]
pub struct Book {
    pub len: usize,
    pub order: OpeningsOrder,
    /// 1-based.
    pub start: u64,
    /// Each opening is played once, not twice with colours swapped: game k of an encounter
    /// has the k-th opening, and the encounter's players take white in turn (fastchess's
    /// `-games 1 -rounds N`). Each game is then a pair of its own.
    pub once: bool,
    /// The games in fastchess's order (its round-robin and gauntlet scheduler), for its
    /// command line: see [`fastchess_order`].
    pub fastchess: bool,
}

/// Builds the schedule. Each encounter plays `games` games; games come in pairs on one opening
/// with colours swapped (the first of a pair has the encounter's first player as white).
/// Rounds are interleaved: game k of every encounter comes before game k+1 of any, so an
/// interrupted run has played every encounter evenly. Openings are used in book order (or a
/// seeded shuffle of it), one per pair of games, from the `start`-th (1-based, after the
/// shuffle, as fastchess's `-openings start=`), wrapping around a short book; every encounter
/// plays the same openings.
pub fn build(format: Format, players: usize, games: u32, book: Book, seed: u64) -> Vec<Pairing> {
    let Book {
        len: book_len,
        order,
        start,
        once,
        fastchess,
    } = book;
    let encounters: Vec<(usize, usize)> = match format {
        Format::Gauntlet => (1..players).map(|o| (0, o)).collect(),
        Format::RoundRobin => (0..players)
            .flat_map(|a| (a + 1..players).map(move |b| (a, b)))
            .collect(),
    };
    let mut book: Vec<usize> = (0..book_len.max(1)).collect();
    if order == OpeningsOrder::Random {
        book.shuffle(&mut StdRng::seed_from_u64(seed));
    }
    if fastchess {
        let offset = ((start.max(1) - 1) % book.len() as u64) as usize;
        book.rotate_left(offset);
        return fastchess_order(&encounters, games, once, &book);
    }
    let mut schedule = Vec::with_capacity(encounters.len() * games as usize);
    for k in 0..games as usize {
        let offset = (start.max(1) - 1) % book.len() as u64;
        let nth = if once { k } else { k / 2 };
        let opening = book[(nth + offset as usize) % book.len()];
        for (e, &(a, b)) in encounters.iter().enumerate() {
            let (white, black) = if k % 2 == 0 { (a, b) } else { (b, a) };
            schedule.push(Pairing {
                game: schedule.len() as u64 + 1,
                pair: (nth * encounters.len() + e) as u64 + 1,
                white,
                black,
                opening,
            });
        }
    }
    schedule
}

/// fastchess's order of the same games: round by round, and in a round each encounter in turn
/// plays its games of the round (two, on one opening; one with `once`) one after the other.
/// Each encounter's round takes the book's next opening, but fastchess first cuts its book to
/// as many openings as there are rounds (`book` here already starts at `-openings start=`),
/// so with more than two players the openings come round again within the rounds. The first
/// player of the encounter has white in odd-numbered games of the run, black in even ones.
fn fastchess_order(
    encounters: &[(usize, usize)],
    games: u32,
    once: bool,
    book: &[usize],
) -> Vec<Pairing> {
    let per_round = if once { 1 } else { 2 };
    let rounds = games.div_ceil(per_round) as usize;
    let used = rounds.clamp(1, book.len());
    let mut schedule = Vec::with_capacity(encounters.len() * games as usize);
    for round in 0..rounds {
        for (e, &(a, b)) in encounters.iter().enumerate() {
            let nth = round * encounters.len() + e;
            let in_round = (games - round as u32 * per_round).min(per_round);
            for _ in 0..in_round {
                let game = schedule.len() as u64 + 1;
                let (white, black) = if game % 2 == 1 { (a, b) } else { (b, a) };
                schedule.push(Pairing {
                    game,
                    pair: nth as u64 + 1,
                    white,
                    black,
                    opening: book[nth % used],
                });
            }
        }
    }
    schedule
}

#[cfg(test)]
mod tests {
    use super::*;

    fn book(len: usize, order: OpeningsOrder) -> Book {
        Book {
            len,
            order,
            start: 1,
            once: false,
            fastchess: false,
        }
    }

    #[test]
    fn openings_start_rotates_the_book_after_the_shuffle() {
        let openings = |order, start| {
            build(
                Format::Gauntlet,
                2,
                8,
                Book {
                    len: 5,
                    order,
                    start,
                    once: false,
                    fastchess: false,
                },
                9,
            )
            .iter()
            .map(|p| p.opening)
            .collect::<Vec<_>>()
        };
        let seq = OpeningsOrder::Sequential;
        assert_eq!(openings(seq, 1), [0, 0, 1, 1, 2, 2, 3, 3]);
        assert_eq!(openings(seq, 3), [2, 2, 3, 3, 4, 4, 0, 0]);
        // Past the end it wraps, as fastchess's offset does.
        assert_eq!(openings(seq, 8), openings(seq, 3));
        let shuffled = openings(OpeningsOrder::Random, 1);
        assert_eq!(openings(OpeningsOrder::Random, 2)[..6], shuffled[2..]);
    }

    #[test]
    fn gauntlet_pairs_the_first_player_with_each_other_and_swaps_colours() {
        let s = build(
            Format::Gauntlet,
            3,
            4,
            book(10, OpeningsOrder::Sequential),
            1,
        );
        let games: Vec<(usize, usize, usize)> =
            s.iter().map(|p| (p.white, p.black, p.opening)).collect();
        assert_eq!(
            games,
            [
                (0, 1, 0),
                (0, 2, 0),
                (1, 0, 0),
                (2, 0, 0),
                (0, 1, 1),
                (0, 2, 1),
                (1, 0, 1),
                (2, 0, 1)
            ]
        );
        assert_eq!(
            s.iter().map(|p| p.game).collect::<Vec<_>>(),
            (1..=8).collect::<Vec<_>>()
        );
    }

    #[test]
    fn round_robin_meets_every_pair_once_per_game() {
        let s = build(
            Format::RoundRobin,
            4,
            2,
            book(1, OpeningsOrder::Sequential),
            1,
        );
        assert_eq!(s.len(), 12);
        for a in 0..4 {
            for b in 0..4 {
                if a != b {
                    assert_eq!(s.iter().filter(|p| p.white == a && p.black == b).count(), 1);
                }
            }
        }
    }

    #[test]
    fn random_order_is_a_function_of_the_seed() {
        let a = build(Format::Gauntlet, 2, 20, book(50, OpeningsOrder::Random), 7);
        let b = build(Format::Gauntlet, 2, 20, book(50, OpeningsOrder::Random), 7);
        let c = build(Format::Gauntlet, 2, 20, book(50, OpeningsOrder::Random), 8);
        assert_eq!(a, b);
        assert_ne!(a, c);
        // Both games of a pair use the same opening, with colours swapped.
        for p in &a {
            let twin: Vec<_> = a.iter().filter(|q| q.pair == p.pair).collect();
            assert_eq!(twin.len(), 2);
            assert_eq!(twin[0].opening, twin[1].opening);
            assert_eq!(
                (twin[0].white, twin[0].black),
                (twin[1].black, twin[1].white)
            );
        }
    }

    #[test]
    fn a_short_book_wraps_around() {
        let s = build(
            Format::Gauntlet,
            2,
            6,
            book(2, OpeningsOrder::Sequential),
            1,
        );
        assert_eq!(
            s.iter().map(|p| p.opening).collect::<Vec<_>>(),
            [0, 0, 1, 1, 0, 0]
        );
    }

    fn fastchess(players: usize, games: u32, once: bool, len: usize) -> Vec<Pairing> {
        let book = Book {
            once,
            fastchess: true,
            ..book(len, OpeningsOrder::Sequential)
        };
        build(Format::RoundRobin, players, games, book, 1)
    }

    /// fastchess's `-repeat -rounds 2` with three engines: round by round, each encounter's two
    /// games together on one opening, colours swapped; its book cut to 2 openings (the rounds),
    /// which the three encounters of a round take in turn.
    #[test]
    fn fastchess_order_plays_each_pairing_s_games_of_a_round_together() {
        let s = fastchess(3, 4, false, 6);
        let seen: Vec<_> = s
            .iter()
            .map(|p| (p.game, p.pair, p.white, p.black, p.opening))
            .collect();
        assert_eq!(
            seen,
            [
                (1, 1, 0, 1, 0),
                (2, 1, 1, 0, 0),
                (3, 2, 0, 2, 1),
                (4, 2, 2, 0, 1),
                (5, 3, 1, 2, 0),
                (6, 3, 2, 1, 0),
                (7, 4, 0, 1, 1),
                (8, 4, 1, 0, 1),
                (9, 5, 0, 2, 0),
                (10, 5, 2, 0, 0),
                (11, 6, 1, 2, 1),
                (12, 6, 2, 1, 1),
            ]
        );
    }

    /// fastchess's `-games 1 -rounds 3` with three engines: white goes to the encounter's first
    /// player in odd-numbered games of the run, so an encounter's colours follow the run's count.
    #[test]
    fn fastchess_order_with_one_game_a_round_colours_by_the_game_s_number() {
        let s = fastchess(3, 3, true, 6);
        let seen: Vec<_> = s.iter().map(|p| (p.white, p.black, p.opening)).collect();
        assert_eq!(
            seen,
            [
                (0, 1, 0),
                (2, 0, 1),
                (1, 2, 2),
                (1, 0, 0),
                (0, 2, 1),
                (2, 1, 2),
                (0, 1, 0),
                (2, 0, 1),
                (1, 2, 2),
            ]
        );
        // Two engines: the same games as the native order.
        let book = |fastchess| Book {
            fastchess,
            ..super::tests::book(3, OpeningsOrder::Sequential)
        };
        assert_eq!(
            build(Format::Gauntlet, 2, 8, book(true), 4),
            build(Format::Gauntlet, 2, 8, book(false), 4)
        );
    }

    #[test]
    fn once_gives_each_game_the_next_opening_and_alternates_colours() {
        let games = build(
            Format::Gauntlet,
            2,
            4,
            Book {
                once: true,
                ..book(6, OpeningsOrder::Sequential)
            },
            1,
        );
        let seen: Vec<_> = games.iter().map(|p| (p.pair, p.white, p.opening)).collect();
        assert_eq!(seen, [(1, 0, 0), (2, 1, 1), (3, 0, 2), (4, 1, 3)]);
    }
}
