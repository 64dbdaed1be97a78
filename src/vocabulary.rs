//! The record's vocabulary: the names a game's events and a run's plan are written in (a
//! ruleset, a kind of illegal move, a way to inject a flag), below everything that acts on them.
//! `event` speaks it; `rules` and `config` rule and read with it, and re-export it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A named blitz code (docs/rulesets.md). `fide` is the default.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Ruleset {
    /// "Rules of Speed Chess", a 31-point house ruleset (H1..H31).
    House,
    /// A generic blitz ruleset (G§1..G§3).
    Generic,
    /// World Blitz Chess Association rules, 1992 (WBCA 1..21).
    Wbca,
    /// FIDE Laws of Chess 2023, Appendix A as applied to blitz by Appendix B.
    #[default]
    Fide,
    /// US Chess rulebook chapter 11, Blitz (USCF 1..18).
    Uscf,
    /// Online servers and engine-testing tools: flags fall automatically, an illegal move loses.
    Online,
}

impl Ruleset {
    pub const ALL: [Ruleset; 6] = [
        Ruleset::House,
        Ruleset::Generic,
        Ruleset::Wbca,
        Ruleset::Fide,
        Ruleset::Uscf,
        Ruleset::Online,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Ruleset::House => "house",
            Ruleset::Generic => "generic",
            Ruleset::Wbca => "wbca",
            Ruleset::Fide => "fide",
            Ruleset::Uscf => "uscf",
            Ruleset::Online => "online",
        }
    }
}

impl fmt::Display for Ruleset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Ruleset {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Ruleset::ALL
            .into_iter()
            .find(|r| r.as_str() == s)
            .ok_or_else(|| {
                format!("unknown ruleset {s:?} (known: house, generic, wbca, fide, uscf, online)")
            })
    }
}

/// The game played: standard chess, or Chess960 (Fischer random: a shuffled back rank, castling
/// by the king onto its own rook's square in UCI, `UCI_Chess960`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Variant {
    #[default]
    Standard,
    Chess960,
}

impl Variant {
    pub fn is_standard(&self) -> bool {
        *self == Variant::Standard
    }

    /// How positions of this variant castle (FIDE Laws, Guidelines III for Chess960).
    pub fn castling_mode(self) -> shakmaty::CastlingMode {
        match self {
            Variant::Standard => shakmaty::CastlingMode::Standard,
            Variant::Chess960 => shakmaty::CastlingMode::Chess960,
        }
    }

    /// The variant a position's castling belongs to.
    pub fn of(pos: &shakmaty::Chess) -> Variant {
        use shakmaty::Position;
        match pos.castles().mode() {
            shakmaty::CastlingMode::Standard => Variant::Standard,
            shakmaty::CastlingMode::Chess960 => Variant::Chess960,
        }
    }
}

/// The kinds of illegal move the injector can make (docs/architecture.md, "Fault injection").
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum IllegalKind {
    /// A move that leaves or puts the mover's own king in check.
    KingExposed,
    /// A king step onto a square next to the other king.
    KingsAdjacent,
    /// The clock pressed without a move (`0000`) while legal moves exist.
    NoMove,
    /// A pawn reaches the last rank without naming a piece.
    NoPromotion,
    /// A piece moves against its rules.
    BadPieceMove,
    /// Castling out of, through or into check, without the right, or over pieces.
    BadCastle,
}

impl IllegalKind {
    pub const ALL: [IllegalKind; 6] = [
        IllegalKind::KingExposed,
        IllegalKind::KingsAdjacent,
        IllegalKind::NoMove,
        IllegalKind::NoPromotion,
        IllegalKind::BadPieceMove,
        IllegalKind::BadCastle,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            IllegalKind::KingExposed => "king-exposed",
            IllegalKind::KingsAdjacent => "kings-adjacent",
            IllegalKind::NoMove => "no-move",
            IllegalKind::NoPromotion => "no-promotion",
            IllegalKind::BadPieceMove => "bad-piece-move",
            IllegalKind::BadCastle => "bad-castle",
        }
    }
}

impl fmt::Display for IllegalKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for IllegalKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        IllegalKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| {
                format!(
                    "unknown illegal-move kind {s:?} (known: king-exposed, kings-adjacent, \
                     no-move, no-promotion, bad-piece-move, bad-castle)"
                )
            })
    }
}

/// `--inject-flag-mode`: how an injected flag fall is produced.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, clap::ValueEnum,
)]
#[serde(rename_all = "kebab-case")]
pub enum FlagMode {
    /// One side stalls past its flag.
    #[default]
    Stall,
    /// Both flags fall.
    Both,
    /// The flag falls on the move that would have mated.
    AtMate,
}

impl FlagMode {
    pub fn as_str(self) -> &'static str {
        match self {
            FlagMode::Stall => "stall",
            FlagMode::Both => "both",
            FlagMode::AtMate => "at-mate",
        }
    }
}

impl fmt::Display for FlagMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
