//! The arbiter: rulesets, mating material, and the referee that rules a game from its events.

mod cite;
pub mod illegal;
mod material;
mod referee;
#[cfg(test)]
mod referee_tests;
#[cfg(test)]
mod tests;

pub use cite::{cite, Situation};
pub use material::{can_mate, is_dead, MatingChance};
pub use referee::legal_move;
pub use referee::{
    Adjudication, DrawAdjudication, Ending, Referee, RefereeSettings, ResignAdjudication, Verdict,
};

use serde::{Deserialize, Serialize};

/// A named blitz code (RULES.md). `fide` is the default.
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

impl std::fmt::Display for Ruleset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Ruleset {
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
