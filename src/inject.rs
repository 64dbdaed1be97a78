//! Fault injection (docs/architecture.md, "Fault injection"): seeded decisions of which engine moves are replaced by
//! illegal ones and which games see a flag fall on purpose, and how.
//!
//! Every decision comes from one random stream per game, seeded by the run's seed and the game
//! number, and is drawn in the order the game's moves arrive, so the same engines playing the
//! same moves get the same injections run after run.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{RngExt, SeedableRng};
use serde::{Deserialize, Serialize};
use shakmaty::Chess;

use crate::event::Side;
use crate::rules::illegal::{self, IllegalKind};
use crate::settings::MsRange;
use crate::vocabulary::FlagMode;

/// A number of milliseconds drawn uniformly from `range`, both ends included.
fn draw_ms(range: MsRange, rng: &mut StdRng) -> u64 {
    rng.random_range(range.low..=range.high)
}

/// What to inject, from the run options.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InjectConfig {
    /// Probability that an engine's move is replaced by an illegal one.
    pub illegal: f64,
    /// The kinds to draw from.
    pub kinds: Vec<IllegalKind>,
    /// Probability that a game gets a flag injection.
    pub flag: f64,
    pub flag_mode: FlagMode,
    /// How long past its flag a stalled move is held.
    pub overshoot_ms: MsRange,
    /// `both`: the time between the two flag falls.
    pub gap_ms: MsRange,
}

impl Default for InjectConfig {
    fn default() -> Self {
        InjectConfig {
            illegal: 0.0,
            kinds: IllegalKind::ALL.to_vec(),
            flag: 0.0,
            flag_mode: FlagMode::Stall,
            overshoot_ms: MsRange { low: 0, high: 500 },
            gap_ms: MsRange { low: 0, high: 2000 },
        }
    }
}

impl InjectConfig {
    pub fn is_off(&self) -> bool {
        self.illegal <= 0.0 && self.flag <= 0.0
    }
}

/// A game's flag injection, decided when the game starts.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "mode")]
pub enum FlagPlan {
    /// `side`'s move number `at_move` (counting its own moves in this game) is held until its
    /// flag has fallen plus `overshoot_ms`.
    Stall {
        side: Side,
        at_move: u32,
        overshoot_ms: u64,
    },
    /// `first`'s move `at_move` is held past its flag, which falls unnoticed; then the other
    /// side's next move is held until its own flag falls, `gap_ms` after the first (or, when
    /// the other side has more time left than that, as soon as its time is up).
    Both {
        first: Side,
        at_move: u32,
        gap_ms: u64,
    },
    /// The first move that gives mate is held until the mover's flag has fallen plus
    /// `overshoot_ms`, and the fall goes unnoticed until the mate.
    AtMate { overshoot_ms: u64 },
}

/// One game's injections.
pub struct GameInjector {
    illegal: f64,
    kinds: Vec<IllegalKind>,
    rng: StdRng,
    flag: Option<FlagPlan>,
}

/// An illegal move put in place of an engine's move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IllegalInjection {
    Injected {
        kind: IllegalKind,
        uci: String,
    },
    /// The draw said inject, but no kind is possible in the position.
    NotPossible,
}

impl GameInjector {
    pub fn new(config: &InjectConfig, seed: u64, game: u64) -> GameInjector {
        // Its own stream, apart from the watchers'.
        let mut rng =
            StdRng::seed_from_u64(seed ^ game.wrapping_mul(0xD1B5_4A32_D192_ED03) ^ 0x1A7E_C7ED);
        let flag = rng.random_bool(config.flag.clamp(0.0, 1.0)).then(|| {
            let side = if rng.random_bool(0.5) {
                Side::White
            } else {
                Side::Black
            };
            // A move the game is likely to reach: games between engines of any strength last
            // 8 moves a side (drawn over 30 moves, 12 of 16 injections once found the game
            // over first). The draw stays seeded, so a replay is exact.
            let at_move = rng.random_range(1..=8);
            match config.flag_mode {
                FlagMode::Stall => FlagPlan::Stall {
                    side,
                    at_move,
                    overshoot_ms: draw_ms(config.overshoot_ms, &mut rng),
                },
                FlagMode::Both => FlagPlan::Both {
                    first: side,
                    at_move,
                    gap_ms: draw_ms(config.gap_ms, &mut rng),
                },
                FlagMode::AtMate => FlagPlan::AtMate {
                    overshoot_ms: draw_ms(config.overshoot_ms, &mut rng),
                },
            }
        });
        GameInjector {
            illegal: config.illegal.clamp(0.0, 1.0),
            kinds: config.kinds.clone(),
            rng,
            flag,
        }
    }

    pub fn flag_plan(&self) -> Option<FlagPlan> {
        self.flag
    }

    /// Called for every legal move an engine sends, in `pos` (before the move): with the
    /// configured probability, an illegal move to send in its place, of a kind drawn from the
    /// configured kinds; where the drawn kind is impossible in the position, another is drawn;
    /// where none is possible, `NotPossible`.
    pub fn replace_move(&mut self, pos: &Chess) -> Option<IllegalInjection> {
        if self.illegal <= 0.0 || self.kinds.is_empty() || !self.rng.random_bool(self.illegal) {
            return None;
        }
        let mut kinds = self.kinds.clone();
        kinds.shuffle(&mut self.rng);
        for kind in kinds {
            if let Some(uci) = illegal::generate(pos, kind, &mut self.rng) {
                return Some(IllegalInjection::Injected { kind, uci });
            }
        }
        Some(IllegalInjection::NotPossible)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::illegal::{check, MoveCheck};
    use shakmaty::{Position, Role};

    fn config(illegal: f64, flag: f64, mode: FlagMode) -> InjectConfig {
        InjectConfig {
            illegal,
            flag,
            flag_mode: mode,
            ..InjectConfig::default()
        }
    }

    #[test]
    fn ranges_parse_with_one_clear_error() {
        assert_eq!(
            "50..500".parse::<MsRange>().unwrap(),
            MsRange { low: 50, high: 500 }
        );
        assert_eq!(
            "0..=20".parse::<MsRange>().unwrap(),
            MsRange { low: 0, high: 20 }
        );
        assert_eq!(
            "300".parse::<MsRange>().unwrap(),
            MsRange {
                low: 300,
                high: 300
            }
        );
        for bad in ["", "5..2", "a..b", "-1", "1..x"] {
            assert!(
                bad.parse::<MsRange>().unwrap_err().contains("LOW..HIGH"),
                "{bad}"
            );
        }
        assert_eq!(MsRange { low: 1, high: 9 }.to_string(), "1..9");
    }

    #[test]
    fn the_same_seed_and_game_give_the_same_plan_and_moves() {
        let cfg = config(0.3, 1.0, FlagMode::Stall);
        let plans: Vec<_> = (1..=20)
            .map(|g| GameInjector::new(&cfg, 7, g).flag_plan())
            .collect();
        let again: Vec<_> = (1..=20)
            .map(|g| GameInjector::new(&cfg, 7, g).flag_plan())
            .collect();
        assert_eq!(plans, again);
        assert!(
            plans.iter().all(Option::is_some),
            "flag probability 1: every game"
        );
        let other: Vec<_> = (1..=20)
            .map(|g| GameInjector::new(&cfg, 8, g).flag_plan())
            .collect();
        assert_ne!(plans, other);

        let moves = |seed| {
            let mut injector = GameInjector::new(&cfg, seed, 3);
            (0..50)
                .map(|_| injector.replace_move(&Chess::default()))
                .collect::<Vec<_>>()
        };
        assert_eq!(moves(7), moves(7));
    }

    #[test]
    fn injected_moves_are_illegal_and_of_the_drawn_kind() {
        let cfg = config(1.0, 0.0, FlagMode::Stall);
        let mut injector = GameInjector::new(&cfg, 1, 1);
        let pos = Chess::default();
        let mut kinds = std::collections::BTreeSet::new();
        for _ in 0..200 {
            match injector.replace_move(&pos).expect("probability 1") {
                IllegalInjection::Injected { kind, uci } => {
                    let MoveCheck::Illegal(i) = check(&pos, &uci) else {
                        panic!("{uci} is not an illegal move");
                    };
                    assert_eq!(i.kind, kind, "{uci}");
                    kinds.insert(kind);
                }
                IllegalInjection::NotPossible => {
                    panic!("something is always possible from the start")
                }
            }
        }
        // From the start position: no promotion, no adjacent kings, and castling cannot be
        // attempted (the bishops and knights are in the way).
        assert!(
            kinds.contains(&IllegalKind::NoMove) && kinds.contains(&IllegalKind::BadPieceMove),
            "{kinds:?}"
        );
        assert!(!kinds.contains(&IllegalKind::NoPromotion));
    }

    #[test]
    fn an_impossible_kind_gives_way_to_a_possible_one_or_to_none() {
        let only = |kinds: Vec<IllegalKind>| InjectConfig {
            illegal: 1.0,
            kinds,
            ..InjectConfig::default()
        };
        // No pawn near promotion: NoPromotion alone is never possible.
        let mut injector = GameInjector::new(&only(vec![IllegalKind::NoPromotion]), 1, 1);
        assert_eq!(
            injector.replace_move(&Chess::default()),
            Some(IllegalInjection::NotPossible)
        );
        // With a possible kind beside it, that one is played.
        let mut injector = GameInjector::new(
            &only(vec![IllegalKind::NoPromotion, IllegalKind::NoMove]),
            1,
            1,
        );
        for _ in 0..20 {
            assert_eq!(
                injector.replace_move(&Chess::default()),
                Some(IllegalInjection::Injected {
                    kind: IllegalKind::NoMove,
                    uci: "0000".to_string()
                })
            );
        }
        // A promotion position: NoPromotion becomes possible.
        let pos: Chess = "8/4P3/8/8/8/8/k7/4K3 w - - 0 1"
            .parse::<shakmaty::fen::Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        assert!(pos.board().by_role(Role::Pawn).any());
        let mut injector = GameInjector::new(&only(vec![IllegalKind::NoPromotion]), 1, 1);
        assert_eq!(
            injector.replace_move(&pos),
            Some(IllegalInjection::Injected {
                kind: IllegalKind::NoPromotion,
                uci: "e7e8".to_string()
            })
        );
    }

    #[test]
    fn probabilities_hold_over_many_draws() {
        let cfg = config(0.1, 0.3, FlagMode::Both);
        let flagged = (1..=2000)
            .filter(|&g| GameInjector::new(&cfg, 3, g).flag_plan().is_some())
            .count();
        assert!(
            (500..700).contains(&flagged),
            "{flagged} of 2000 games, expected about 600"
        );
        let mut injector = GameInjector::new(&cfg, 3, 1);
        let replaced = (0..5000)
            .filter(|_| injector.replace_move(&Chess::default()).is_some())
            .count();
        assert!(
            (400..600).contains(&replaced),
            "{replaced} of 5000 moves, expected about 500"
        );
        assert!(matches!(
            GameInjector::new(&config(0.0, 1.0, FlagMode::Both), 3, 1).flag_plan(),
            Some(FlagPlan::Both { .. })
        ));
        assert!(matches!(
            GameInjector::new(&config(0.0, 1.0, FlagMode::AtMate), 3, 1).flag_plan(),
            Some(FlagPlan::AtMate { .. })
        ));
    }
}
