//! The arbiter: rulesets, mating material, and the referee that rules a game from its events.

mod cite;
pub mod illegal;
mod material;
mod memo;
mod position_facts;
mod referee;
#[cfg(test)]
mod referee_tests;
mod shuffle;
#[cfg(test)]
mod test_position;
#[cfg(test)]
mod tests;

pub use cite::{cite, Situation};
pub use material::{can_mate, is_dead, MatingChance};
pub use position_facts::{legal_moves, LegalMoves, MoveKey};
pub use referee::{legal_move, uci_text, uci_text_in};
pub use referee::{
    Adjudication, Checked, CheckedMove, DrawAdjudication, Ending, Referee, RefereeSettings,
    ResignAdjudication, Verdict,
};

pub use crate::vocabulary::Ruleset;
