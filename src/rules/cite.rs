//! Which rule decides each situation, per ruleset: the citation in the CSV `rule` column and
//! the PGN `RuleCited` tag. A citation names the ruleset's own text first: `FIDE A4.3` is
//! Appendix A of the FIDE Laws as the `fide` ruleset's text has it (the 2018 numbering, A1-A5),
//! with the article of the Laws it names (`FIDE A4.2, 7.5.5`); `FIDE Laws 5.1.1` is an article
//! of the full Laws the appendix builds on, where the appendix says nothing. A ruling the
//! ruleset's text does not make names its source the same way: `H2 (FIDE Laws 5.2.1)` where
//! H2 brings in the rules of chess, `USCF 8` where it brings in the regular rules' claims,
//! `FIDE Laws 9.6.1` where the text refers to no other rules (WBCA) or the rules it refers to
//! have no such article (US Chess). `blitz-arena rules` and docs/rulesets.md say where each
//! comes from, in words.

use super::illegal::IllegalKind;
use super::Ruleset;

/// A situation that ends a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Situation {
    Checkmate,
    Stalemate,
    DeadPosition,
    Threefold,
    Fivefold,
    FiftyMoves,
    SeventyFiveMoves,
    /// A flag fell and the opponent could still mate.
    FlagWin,
    /// A flag fell but the opponent could not mate.
    FlagNoMaterial,
    IllegalMove,
    /// A noticed illegal move of the kind `no-move`: the clock pressed without a move.
    NoMove,
    /// A noticed illegal move of the kind `no-promotion`: a pawn on the last rank, no piece named.
    NoPromotion,
    /// A noticed illegal move, but the claimant could not mate: a draw.
    IllegalNoMaterial,
    /// The claimant's engine captured the king its opponent left in check.
    KingCapture,
    /// The claimant's engine captured the king its opponent moved next to its own (WBCA 16).
    KingCaptureKingsAdjacent,
    /// USCF 7d: the side that moved its king next to the other king claimed.
    KingsAdjacentClaim,
    /// USCF 7e: a flag claim by the illegal mover and the opponent's illegal-move claim at the
    /// same moment.
    SimultaneousClaims,
    /// USCF 16: a pawn on the last rank with no piece named is improper, not illegal: the
    /// mover's clock is charged.
    ImproperPromotion,
    /// USCF 7e, but the illegal mover's opponent could not mate (USCF 8d).
    SimultaneousClaimsNoMaterial,
    /// FIDE A4.4: an illegal position persists after the next move.
    PersistingIllegalPosition,
    /// A mate given by a side whose flag had fallen unnoticed.
    MateAfterOwnFlag,
    /// H13: the mated side claims on time.
    MatedClaimsOnTime,
    /// H14: the mated side's own flag fell while it claimed.
    MatedClaimsOnTimeTooLate,
    /// H10, H13: the mated side's own flag fell before it noticed the mater's: the mater's
    /// flag was never seen, so it never fell, and the mate stands.
    MateStandsFlagUnseen,
    /// H20: an illegal move claimed by a side whose own flag fell before the illegal move was
    /// completed: the side whose flag fell loses.
    OwnFlagBeforeIllegal,
    /// Both flags down before either was claimed.
    BothFlags,
    /// The claimant's own flag fell before its claim completed.
    OwnFlagDuringClaim,
    /// FIDE: both flags down, the first to fall loses.
    FirstFlagLoses,
    EngineCrash,
    MaxMoves,
    DrawAdjudication,
    ResignAdjudication,
    /// `--tb`: the position after a move is in the Syzygy tablebases.
    Tablebase,
}

impl Situation {
    /// Every situation, for the set of citations a ruleset can end a game with.
    pub const ALL: [Situation; 33] = [
        Situation::Checkmate,
        Situation::Stalemate,
        Situation::DeadPosition,
        Situation::Threefold,
        Situation::Fivefold,
        Situation::FiftyMoves,
        Situation::SeventyFiveMoves,
        Situation::FlagWin,
        Situation::FlagNoMaterial,
        Situation::IllegalMove,
        Situation::NoMove,
        Situation::NoPromotion,
        Situation::IllegalNoMaterial,
        Situation::KingCapture,
        Situation::KingCaptureKingsAdjacent,
        Situation::KingsAdjacentClaim,
        Situation::SimultaneousClaims,
        Situation::ImproperPromotion,
        Situation::SimultaneousClaimsNoMaterial,
        Situation::PersistingIllegalPosition,
        Situation::MateAfterOwnFlag,
        Situation::MatedClaimsOnTime,
        Situation::MatedClaimsOnTimeTooLate,
        Situation::MateStandsFlagUnseen,
        Situation::OwnFlagBeforeIllegal,
        Situation::BothFlags,
        Situation::OwnFlagDuringClaim,
        Situation::FirstFlagLoses,
        Situation::EngineCrash,
        Situation::MaxMoves,
        Situation::DrawAdjudication,
        Situation::ResignAdjudication,
        Situation::Tablebase,
    ];

    /// The situation of a noticed illegal move of `kind` (`None`: text that is no move).
    pub fn illegal(kind: Option<IllegalKind>) -> Situation {
        match kind {
            Some(IllegalKind::NoMove) => Situation::NoMove,
            Some(IllegalKind::NoPromotion) => Situation::NoPromotion,
            _ => Situation::IllegalMove,
        }
    }
}

/// The rule that decides `situation` under `ruleset` (see the module documentation).
pub fn cite(ruleset: Ruleset, situation: Situation) -> &'static str {
    use Ruleset::*;
    use Situation::*;
    match (situation, ruleset) {
        (Checkmate, House) => "H3.2",
        (Checkmate, Generic) => "G§2",
        (Checkmate, Wbca) => "WBCA 7a",
        (Checkmate, Uscf) => "USCF 7a",
        (Checkmate, Fide | Online) => "FIDE Laws 5.1.1",

        (Stalemate, House) => "H2 (FIDE Laws 5.2.1)",
        (Stalemate, Generic) => "G§2",
        (Stalemate, Wbca) => "WBCA 8a",
        (Stalemate, Uscf) => "USCF 8a",
        (Stalemate, Fide | Online) => "FIDE Laws 5.2.1",

        (DeadPosition, House) => "H2 (FIDE Laws 5.2.2)",
        (DeadPosition, Generic) => "G§2",
        // Neither WBCA 8 nor USCF 8 lists a dead position: the Laws' rule, named as such.
        (DeadPosition, Wbca | Uscf | Fide | Online) => "FIDE Laws 5.2.2",

        (Threefold, House) => "H21",
        (Threefold, Generic) => "G§2",
        (Threefold, Wbca) => "WBCA 8d",
        // USCF 8: "draw claims allowed under the regular rules are also allowed".
        (Threefold, Uscf) => "USCF 8",
        (Threefold, Fide | Online) => "FIDE Laws 9.2",

        (Fivefold, House) => "H2 (FIDE Laws 9.6.1)",
        (Fivefold, Generic) => "G§2 (FIDE Laws 9.6.1)",
        // Not a claim, and in neither WBCA's text nor US Chess's rules: the Laws' rule.
        (Fivefold, Wbca | Uscf | Fide | Online) => "FIDE Laws 9.6.1",

        (FiftyMoves, House) => "H2 (FIDE Laws 9.3)",
        (FiftyMoves, Generic) => "G§2",
        (FiftyMoves, Uscf) => "USCF 8",
        // WBCA has no 50-move claim (its watchers make none).
        (FiftyMoves, Wbca | Fide | Online) => "FIDE Laws 9.3",

        (SeventyFiveMoves, House) => "H2 (FIDE Laws 9.6.2)",
        (SeventyFiveMoves, Generic) => "G§2 (FIDE Laws 9.6.2)",
        (SeventyFiveMoves, Wbca | Uscf | Fide | Online) => "FIDE Laws 9.6.2",

        (FlagWin, House) => "H3.1, H10",
        (FlagWin, Generic) => "G§2",
        (FlagWin, Wbca) => "WBCA 7c",
        (FlagWin, Uscf) => "USCF 7c",
        (FlagWin, Fide) => "FIDE A4.3",
        (FlagWin, Online) => "online: flag",

        (FlagNoMaterial, House) => "H3.1, H10",
        (FlagNoMaterial, Generic) => "G§2",
        (FlagNoMaterial, Wbca) => "WBCA 8f",
        (FlagNoMaterial, Uscf) => "USCF 8d",
        (FlagNoMaterial, Fide) => "FIDE A4.3",
        (FlagNoMaterial, Online) => "online: insufficient material",

        (IllegalMove, House) => "H3.4, H18, H19",
        (IllegalMove, Generic) => "G§3",
        (IllegalMove, Wbca) => "WBCA 14",
        (IllegalMove, Uscf) => "USCF 7d",
        // A4.2: "he shall act according to Article 7.5.5".
        (IllegalMove, Fide) => "FIDE A4.2, 7.5.5",
        (IllegalMove, Online) => "online: illegal move",

        // H16: "making no move is considered to be the same as making an illegal move". (FIDE
        // 7.5.3 only says the same; A4.2 and 7.5.5 decide, and are cited.)
        (NoMove, House) => "H16",
        // H26: a promotion must be declared; H19: any illegal move loses like H18.
        (NoPromotion, House) => "H26, H19",
        (NoPromotion, Fide) => "FIDE A4.2, 7.5.2, 7.5.5",
        (NoMove | NoPromotion, _) => cite(ruleset, IllegalMove),

        (IllegalNoMaterial, Generic) => "G§3",
        (IllegalNoMaterial, Wbca) => "WBCA 14, 8f",
        (IllegalNoMaterial, Uscf) => "USCF 7d, 8d",
        // 7.5.5 draws itself when the opponent cannot checkmate.
        (IllegalNoMaterial, Fide) => "FIDE A4.2, 7.5.5",
        (IllegalNoMaterial, House | Online) => "online: illegal move",

        (KingCapture, House) => "H17, H18",
        (KingCapture, Generic) => "G§3",
        // WBCA 14: "the opponent may claim a win"; a capture is taken as that claim.
        (KingCapture, Wbca) => "WBCA 14",
        (KingCapture, Uscf) => "USCF 7d",
        (KingCapture, Fide) => cite(ruleset, IllegalMove),
        (KingCapture, Online) => "online: illegal move",

        // WBCA 16: "Moving the King next to another King is illegal, however neither player
        // can play King takes King! [...] In that case you can claim a win because of an
        // illegal move."
        (KingCaptureKingsAdjacent, Wbca) => "WBCA 16",
        (KingCaptureKingsAdjacent, _) => cite(ruleset, KingCapture),

        (KingsAdjacentClaim, _) => "USCF 7d",
        (SimultaneousClaims, _) => "USCF 7e",
        (ImproperPromotion, _) => "USCF 16",
        (SimultaneousClaimsNoMaterial, _) => "USCF 7e, 8d",
        (PersistingIllegalPosition, _) => "FIDE A4.4",

        (MateAfterOwnFlag, House) => "H13",
        (MateAfterOwnFlag, Generic) => "G§2",
        (MateAfterOwnFlag, Wbca) => "WBCA 7a",
        // A4.5 has the arbiter call a flag he observes; one nobody saw is not fallen (Laws
        // 6.8), and the mate ended the game (5.1.1).
        (MateAfterOwnFlag, Fide) => "FIDE Laws 5.1.1, 6.8",
        (MateAfterOwnFlag, Uscf) => "USCF 7a, 8c",
        (MateAfterOwnFlag, Online) => "FIDE Laws 5.1.1",

        (MatedClaimsOnTime, _) => "H13",
        (MatedClaimsOnTimeTooLate, _) => "H14",
        (MateStandsFlagUnseen, _) => "H10, H13",
        (OwnFlagBeforeIllegal, _) => "H20",

        (BothFlags, House) => "H8, H25",
        (BothFlags, Generic) => "G§2",
        (BothFlags, Wbca) => "WBCA 8c",
        (BothFlags, Uscf) => "USCF 8c",
        // The appendix does not say which of two fallen flags decides: the Laws' 6.9 does.
        (BothFlags, Fide | Online) => "FIDE Laws 6.9",

        (OwnFlagDuringClaim, House) => "H11",
        (OwnFlagDuringClaim, Generic) => "G§2",
        (OwnFlagDuringClaim, Wbca) => "WBCA 8c",
        (OwnFlagDuringClaim, Uscf) => "USCF 7c, 8c",
        (OwnFlagDuringClaim, Fide | Online) => "FIDE Laws 6.9",

        (FirstFlagLoses, _) => "FIDE Laws 6.9",

        (EngineCrash, _) => "arena: engine crash",
        (MaxMoves, _) => "arena: --max-moves",
        (DrawAdjudication, _) => "arena: --draw-adjudication",
        (ResignAdjudication, _) => "arena: --resign-adjudication",
        (Tablebase, _) => "arena: --tb",
    }
}
