//! `rules [RULESET]`: the rulings of each ruleset as the arena implements them (docs/rulesets.md
//! shows the same), each with the rule its games cite, the mating-material rule, the watchers
//! and what is not simulated.
//!
//! The citations of endings are those the referee writes in the CSV `rule` column. `cite.rs`
//! is private to `rules/`, so this module keeps its own copy ([`cited`]); a unit test plays a
//! small game for every citation printed here and checks that the referee ends it with the
//! same citation, so the two cannot drift apart. A ruling's text writes `{Name}` where the
//! citation of `Cite::Name` goes; references in plain text are to the rulesets' own rules
//! for rulings that end no game (an illegal move that stands, a promotion read as a queen).

use clap::ValueEnum;

use super::{say, Finish};
use crate::game::Watchers;
use crate::rules::{self, RefereeSettings, Ruleset, Situation};

/// Terminal width the output is wrapped to.
const WIDTH: usize = 100;

/// Endings (and clock penalties) whose citation comes from the referee.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Cite {
    Checkmate,
    Stalemate,
    DeadPosition,
    Threefold,
    Fivefold,
    FiftyMoves,
    SeventyFiveMoves,
    FlagWin,
    FlagNoMaterial,
    BothFlags,
    OwnFlagDuringClaim,
    FirstFlagLoses,
    MateAfterOwnFlag,
    MatedClaimsOnTime,
    MatedClaimsTooLate,
    MateStandsFlagUnseen,
    OwnFlagBeforeIllegal,
    IllegalMove,
    IllegalNoMaterial,
    KingCapture,
    /// WBCA 16: the king moved next to the other king, captured.
    KingCaptureKingsAdjacent,
    KingsAdjacentClaim,
    /// A noticed `0000` while legal moves exist (FIDE: its first is taken back).
    NoMove,
    /// A noticed promotion without its piece (FIDE: the first is played as a queen).
    NoPromotion,
    /// USCF 7e: a flag claim and an illegal-move claim at the same moment.
    SimultaneousClaims,
    SimultaneousClaimsNoMaterial,
    /// FIDE A4.4: an illegal position still on the board after the next move.
    PersistingIllegalPosition,
    /// FIDE A4.2, 7.5.5: the first illegal move is taken back, +1 minute to the opponent.
    Retake,
    /// A promotion without its piece played as a queen, with a clock penalty (FIDE, USCF).
    QueenPenalty,
    /// `--tb`: the Syzygy tables' verdict.
    Tablebase,
}

impl Cite {
    const ALL: [Cite; 30] = [
        Cite::Checkmate,
        Cite::Stalemate,
        Cite::DeadPosition,
        Cite::Threefold,
        Cite::Fivefold,
        Cite::FiftyMoves,
        Cite::SeventyFiveMoves,
        Cite::FlagWin,
        Cite::FlagNoMaterial,
        Cite::BothFlags,
        Cite::OwnFlagDuringClaim,
        Cite::FirstFlagLoses,
        Cite::MateAfterOwnFlag,
        Cite::MatedClaimsOnTime,
        Cite::MatedClaimsTooLate,
        Cite::MateStandsFlagUnseen,
        Cite::OwnFlagBeforeIllegal,
        Cite::IllegalMove,
        Cite::IllegalNoMaterial,
        Cite::KingCapture,
        Cite::KingCaptureKingsAdjacent,
        Cite::KingsAdjacentClaim,
        Cite::NoMove,
        Cite::NoPromotion,
        Cite::SimultaneousClaims,
        Cite::SimultaneousClaimsNoMaterial,
        Cite::PersistingIllegalPosition,
        Cite::Retake,
        Cite::QueenPenalty,
        Cite::Tablebase,
    ];

    fn from_name(name: &str) -> Option<Cite> {
        Cite::ALL.into_iter().find(|c| format!("{c:?}") == name)
    }
}

/// The citation the referee writes for `cite` under `ruleset`: the referee's own table.
fn cited(ruleset: Ruleset, cite: Cite) -> &'static str {
    let situation = match cite {
        Cite::Checkmate => Situation::Checkmate,
        Cite::Stalemate => Situation::Stalemate,
        Cite::DeadPosition => Situation::DeadPosition,
        Cite::Threefold => Situation::Threefold,
        Cite::Fivefold => Situation::Fivefold,
        Cite::FiftyMoves => Situation::FiftyMoves,
        Cite::SeventyFiveMoves => Situation::SeventyFiveMoves,
        Cite::FlagWin => Situation::FlagWin,
        Cite::FlagNoMaterial => Situation::FlagNoMaterial,
        Cite::BothFlags => Situation::BothFlags,
        Cite::OwnFlagDuringClaim => Situation::OwnFlagDuringClaim,
        Cite::FirstFlagLoses => Situation::FirstFlagLoses,
        Cite::MateAfterOwnFlag => Situation::MateAfterOwnFlag,
        Cite::MatedClaimsOnTime => Situation::MatedClaimsOnTime,
        Cite::MatedClaimsTooLate => Situation::MatedClaimsOnTimeTooLate,
        Cite::MateStandsFlagUnseen => Situation::MateStandsFlagUnseen,
        Cite::OwnFlagBeforeIllegal => Situation::OwnFlagBeforeIllegal,
        Cite::IllegalMove => Situation::IllegalMove,
        Cite::IllegalNoMaterial => Situation::IllegalNoMaterial,
        Cite::KingCapture => Situation::KingCapture,
        Cite::KingCaptureKingsAdjacent => Situation::KingCaptureKingsAdjacent,
        Cite::KingsAdjacentClaim => Situation::KingsAdjacentClaim,
        Cite::NoMove => Situation::NoMove,
        Cite::NoPromotion => Situation::NoPromotion,
        Cite::SimultaneousClaims => Situation::SimultaneousClaims,
        Cite::SimultaneousClaimsNoMaterial => Situation::SimultaneousClaimsNoMaterial,
        Cite::PersistingIllegalPosition => Situation::PersistingIllegalPosition,
        Cite::Tablebase => Situation::Tablebase,
        // FIDE A4.2 and 7.5.5's penalty for a first illegal move.
        Cite::Retake => return rules::cite(Ruleset::Fide, Situation::IllegalMove),
        // The clock penalty of a promotion without its piece: USCF 16, else FIDE A4.2, 7.5.2.
        Cite::QueenPenalty if ruleset == Ruleset::Uscf => Situation::ImproperPromotion,
        Cite::QueenPenalty => return rules::cite(Ruleset::Fide, Situation::NoPromotion),
    };
    rules::cite(ruleset, situation)
}

/// The rulings of one ruleset, in the order docs/rulesets.md lists them: (situation, ruling template),
/// then the arena's tablebase adjudication (`--tb`), which every ruleset shares.
fn rulings(ruleset: Ruleset) -> Vec<(&'static str, &'static str)> {
    let mut rulings = ruleset_rulings(ruleset);
    rulings.extend(tablebase_rulings(ruleset));
    rulings
}

/// `--tb` (cutechess-cli and fastchess adjudicate the same way); the clock keeps its role.
fn tablebase_rulings(ruleset: Ruleset) -> [(&'static str, &'static str); 2] {
    const TABLEBASE: &str = "tablebase adjudication (--tb)";
    const FLAG_FIRST: &str = "flag fell unnoticed before a tablebase adjudication";
    [
        (
            TABLEBASE,
            "a move into a position the Syzygy tables hold (at most --tb-pieces pieces, no \
             castling rights) ends the game with their result; a cursed win is a draw (the \
             50-move rule), as cutechess-cli and fastchess rule it ({Tablebase})",
        ),
        if ruleset == Ruleset::Online {
            (FLAG_FIRST, "n/a: the first flag ends the game")
        } else {
            (
                FLAG_FIRST,
                "the flag still counts: ruled as the opponent's claim of it, completed at the \
                 adjudication ({FlagWin})",
            )
        },
    ]
}

/// The rulings of one ruleset (docs/rulesets.md).
fn ruleset_rulings(ruleset: Ruleset) -> Vec<(&'static str, &'static str)> {
    const CHECKMATE: &str = "checkmate";
    const FLAG: &str = "flag falls, claimed";
    const OWN_FLAG: &str = "claimant's own flag falls during its claim";
    const BOTH: &str = "both flags down before a claim";
    const MATE_FLAGGED: &str = "mate by a side whose flag had fallen unnoticed";
    const STALEMATE: &str = "stalemate, even with a flag down";
    const NOTICED: &str = "illegal move, noticed";
    const UNNOTICED: &str = "illegal move, not noticed";
    const KING_CAPTURE: &str = "claim by capturing the king";
    // An illegal move whose result no board can hold cannot stand unnoticed (docs/rulesets.md,
    // scenario no-board).
    const NO_BOARD: &str = "a move no board can hold";
    const ADJACENT: &str = "kings-adjacent mover claims the opponent left its king in check";
    const AT_ONCE: &str = "flag claim and illegal-move claim at once";
    const OWN_FLAG_ILLEGAL: &str = "illegal move claimed by a side whose own flag fell before it";
    const OWN_FLAG_ILLEGAL_CLAIM: &str =
        "claimant's own flag falls during its claim of a first illegal move";
    const NO_PIECE: &str = "promotion without its piece (e7e8)";
    const NO_MOVE: &str = "no move, clock pressed (0000)";
    const THREEFOLD: &str = "threefold repetition";
    const FIFTY: &str = "50-move rule";
    const AUTOMATIC: &str = "fivefold repetition, 75-move rule";
    const DEAD: &str = "dead position (neither side can mate)";
    const PENALTIES: &str = "penalties";
    match ruleset {
        Ruleset::House => {
            vec![
            (CHECKMATE, "the mating side wins ({Checkmate})"),
            (FLAG, "the claimant wins, whatever the material ({FlagWin})"),
            (
                OWN_FLAG,
                "draw ({OwnFlagDuringClaim}), though the arena knows which flag fell first: \
                 H11's “unless both parties agree as to which flag fell first” asks the two \
                 players, engines agree to nothing, and H25 leaves the outcome to “the two \
                 players only, apart from any input from bystanders”",
            ),
            (BOTH, "draw ({BothFlags})"),
            (
                MATE_FLAGGED,
                "the mated side claims on time and wins ({MatedClaimsOnTime}); draw if its own \
                 flag is down when its claim completes ({MatedClaimsTooLate}); the mate stands \
                 if the mated side never notices: a flag not seen has not fallen \
                 ({MateStandsFlagUnseen})",
            ),
            (STALEMATE, "draw ({Stalemate})"),
            (NOTICED, "the offender loses, whatever the material ({IllegalMove})"),
            (UNNOTICED, "the move stands as if legal; a mate or stalemate it gives ends the game (H15)"),
            (
                OWN_FLAG_ILLEGAL,
                "the claimant, whose flag fell first, loses; the illegal mover loses only if \
                 neither flag had fallen before its move was completed (the arena knows the \
                 order) ({OwnFlagBeforeIllegal})",
            ),
            (NO_BOARD, "{NoBoard} the offender loses ({IllegalMove})"),
            (KING_CAPTURE, "a valid claim: the capturer wins ({KingCapture})"),
            (
                NO_PIECE,
                "an illegal move: the offender loses ({NoPromotion}); H26: “he shall declare \
                 its promotion by stating \"Queen\", \"Rook\", \"Bishop\", or \"Knight\"”, and a \
                 UCI move's promotion letter is that declaration: a move without one declares \
                 nothing",
            ),
            (NO_MOVE, "an illegal move: the offender loses ({NoMove})"),
            (THREEFOLD, "draw, claimed by the watcher ({Threefold})"),
            (FIFTY, "draw, claimed by the watcher ({FiftyMoves})"),
            (
                AUTOMATIC,
                "draw without a claim ({Fivefold}; {SeventyFiveMoves})",
            ),
            (
                DEAD,
                "draw, by a helpmate test for both sides after every move ({DeadPosition})",
            ),
            (PENALTIES, "none"),
        ]
        }
        Ruleset::Generic => {
            vec![
            (CHECKMATE, "the mating side wins ({Checkmate})"),
            (
                FLAG,
                "the claimant wins if it could still mate (helpmate search), else draw \
                 ({FlagWin}): G§2 names no material for a win on time (G§3's “sufficient \
                 material to possibly checkmate” is for illegal moves), but “draws occur \
                 according to the usual rules”, and the usual rules draw a flag against a side \
                 that cannot mate (FIDE Laws 6.9)",
            ),
            (OWN_FLAG, "draw ({OwnFlagDuringClaim})"),
            (BOTH, "draw ({BothFlags})"),
            (MATE_FLAGGED, "draw ({MateAfterOwnFlag} note)"),
            (STALEMATE, "draw ({Stalemate})"),
            (
                NOTICED,
                "the offender loses if the claimant could still mate, else draw ({IllegalMove})",
            ),
            (UNNOTICED, "the move stands as if legal; a mate or stalemate it gives ends the game (G§3)"),
            (NO_BOARD, "{NoBoard} ruled as a noticed illegal move ({IllegalMove})"),
            (
                KING_CAPTURE,
                "ruled as a claim of the illegal move: as above ({KingCapture})",
            ),
            (NO_PIECE, "an illegal move: as above ({NoPromotion})"),
            (NO_MOVE, "an illegal move: as above ({NoMove})"),
            (THREEFOLD, "draw, claimed by the watcher ({Threefold})"),
            (FIFTY, "draw, claimed by the watcher ({FiftyMoves})"),
            (
                AUTOMATIC,
                "draw without a claim ({Fivefold}; {SeventyFiveMoves})",
            ),
            (
                DEAD,
                "draw, by a helpmate test for both sides after every move ({DeadPosition})",
            ),
            (PENALTIES, "none"),
        ]
        }
        Ruleset::Wbca => vec![
            (CHECKMATE, "the mating side wins ({Checkmate})"),
            (
                FLAG,
                "the claimant wins if it has mating material ({FlagWin}), else draw \
                 ({FlagNoMaterial})",
            ),
            (OWN_FLAG, "draw ({OwnFlagDuringClaim})"),
            (
                BOTH,
                "draw the moment the second flag falls unclaimed; a later mate changes nothing \
                 ({BothFlags})",
            ),
            (
                MATE_FLAGGED,
                "the mate stands, unless the mated side's flag had fallen too: then the game \
                 was drawn already ({MateAfterOwnFlag})",
            ),
            (STALEMATE, "draw ({Stalemate})"),
            (
                NOTICED,
                "the offender loses if the claimant has mating material ({IllegalMove}), else \
                 draw ({IllegalNoMaterial})",
            ),
            (
                UNNOTICED,
                "the move stands as if legal; a mate or stalemate it gives ends the game (WBCA 14)",
            ),
            (
                NO_BOARD,
                "{NoBoard} ruled as a noticed illegal move ({IllegalMove})",
            ),
            (
                KING_CAPTURE,
                "taken as the claim of the illegal move it is ({KingCapture}): WBCA 14 “the \
                 opponent may claim a win provided he has mating material”; a king moved next \
                 to the other king and taken is WBCA 16's claim ({KingCaptureKingsAdjacent}): \
                 “neither player can play King takes King! [...] In that case you can claim a \
                 win because of an illegal move”",
            ),
            (
                NO_PIECE,
                "not illegal: the pawn becomes a queen and play goes on (WBCA 17)",
            ),
            (NO_MOVE, "an illegal move: as above ({NoMove})"),
            (
                THREEFOLD,
                "only a fourfold repetition by perpetual check, claimed by the watcher \
                 ({Threefold})",
            ),
            (FIFTY, "no claim in WBCA"),
            (
                AUTOMATIC,
                "draw without a claim ({Fivefold}; {SeventyFiveMoves})",
            ),
            (
                DEAD,
                "draw, by a helpmate test for both sides after every move ({DeadPosition})",
            ),
            (PENALTIES, "human-only, not simulated"),
        ],
        Ruleset::Fide => vec![
            (CHECKMATE, "the mating side wins ({Checkmate})"),
            (
                FLAG,
                "the claimant wins if a helpmate exists, else draw ({FlagWin})",
            ),
            (
                OWN_FLAG,
                "the first flag to fall loses, as the digital clock shows, draw if the other \
                 side has no helpmate ({FirstFlagLoses})",
            ),
            (
                BOTH,
                "the first flag to fall loses, draw if the other side has no helpmate \
                 ({FirstFlagLoses})",
            ),
            (MATE_FLAGGED, "the mate stands ({MateAfterOwnFlag})"),
            (
                OWN_FLAG_ILLEGAL_CLAIM,
                "the claim completes and the opponent gets its minute ({Retake}), but the \
                 claimant's time ran out first, and a minute added later does not raise its \
                 flag: the flag is called when noticed and the claimant loses on time \
                 ({FlagWin}), draw if the other side cannot mate ({FlagNoMaterial}); A4.5: \
                 “The arbiter shall also call a flag fall, if he observes it.”; Laws 6.9: “if a \
                 player does not complete the prescribed number of moves in the allotted time, \
                 the game is lost by that player”",
            ),
            (STALEMATE, "draw ({Stalemate})"),
            (
                NOTICED,
                "1st: taken back, the offender moves again, its opponent gets a minute \
                 ({Retake}); 2nd: the offender loses ({IllegalMove}), draw if the opponent has \
                 no helpmate ({IllegalNoMaterial})",
            ),
            (
                UNNOTICED,
                "the move stands as if legal, a mate or stalemate it gives ends the game (FIDE \
                 A4.2); if it left both kings in check and the next move \
                 does not cure that, draw ({PersistingIllegalPosition}); A4.4's other case, a \
                 pawn on the last rank, never arises: a pawn sent there without its piece \
                 becomes a queen (FIDE 7.5.2), one sent back onto its own first rank counts as \
                 noticed (below)",
            ),
            (
                NO_BOARD,
                "{NoBoard} taken back, the opponent gets a minute ({Retake}); a second illegal \
                 move loses ({IllegalMove})",
            ),
            (
                KING_CAPTURE,
                "itself an illegal move by the capturer, ruled as above ({Retake})",
            ),
            (
                NO_PIECE,
                "an illegal move: the pawn becomes a queen, the opponent gets a minute \
                 ({QueenPenalty}); a second illegal move loses ({NoPromotion}); a mate the \
                 queen gives ends the game (FIDE 5.1.1)",
            ),
            (
                NO_MOVE,
                "an illegal move (FIDE 7.5.3): taken back, the opponent gets a minute ({NoMove})",
            ),
            (THREEFOLD, "draw, claimed by the watcher ({Threefold})"),
            (FIFTY, "draw, claimed by the watcher ({FiftyMoves})"),
            (
                AUTOMATIC,
                "draw without a claim ({Fivefold}; {SeventyFiveMoves})",
            ),
            (
                DEAD,
                "draw, by a helpmate test for both sides after every move ({DeadPosition})",
            ),
            (
                PENALTIES,
                "+1 minute to the opponent of a first illegal move ({Retake})",
            ),
        ],
        Ruleset::Uscf => {
            vec![
            (CHECKMATE, "the mating side wins ({Checkmate})"),
            (
                FLAG,
                "the claimant wins if it has mating material ({FlagWin}), else draw \
                 ({FlagNoMaterial})",
            ),
            (OWN_FLAG, "the claim is void: draw ({OwnFlagDuringClaim})"),
            (
                BOTH,
                "draw ({BothFlags}), unless a side mated first: the mate stands",
            ),
            (MATE_FLAGGED, "the mate stands ({MateAfterOwnFlag})"),
            (STALEMATE, "draw ({Stalemate})"),
            (
                NOTICED,
                "the offender loses if the claimant has mating material ({IllegalMove}), else \
                 draw ({IllegalNoMaterial})",
            ),
            (UNNOTICED, "the move stands as if legal; a mate or stalemate it gives ends the game (USCF 3b, 14)"),
            (NO_BOARD, "{NoBoard} ruled as a noticed illegal move ({IllegalMove})"),
            (KING_CAPTURE, "a valid claim: as above ({KingCapture})"),
            (ADJACENT, "the claimant loses ({KingsAdjacentClaim})"),
            (
                AT_ONCE,
                "the illegal mover loses ({SimultaneousClaims}), draw if the other side has no \
                 mating material ({SimultaneousClaimsNoMaterial}); otherwise the claim started \
                 first is ruled",
            ),
            (
                NO_PIECE,
                "improper, not illegal: the pawn becomes a queen, the mover's clock is charged \
                 the claim time ({QueenPenalty})",
            ),
            (NO_MOVE, "an illegal move: as above ({NoMove})"),
            (THREEFOLD, "draw, claimed by the watcher ({Threefold})"),
            (FIFTY, "draw, claimed by the watcher ({FiftyMoves})"),
            (
                AUTOMATIC,
                "draw without a claim ({Fivefold}; {SeventyFiveMoves})",
            ),
            (
                DEAD,
                "draw, by a helpmate test for both sides after every move ({DeadPosition})",
            ),
            (
                PENALTIES,
                "the claim time for a promotion without its piece ({QueenPenalty}), USCF 16's \
                 own remedy: “the opponent may immediately restart the player's clock without \
                 moving”; USCF 17's minute is not applied: its TD tip keeps it for “other Blitz \
                 rules infractions” (“The one-minute penalty does not apply to illegal \
                 moves.”), and the rules that name a penalty (6b, 9, 10) are about hands, \
                 pieces and clocks, which engines do not touch",
            ),
        ]
        }
        Ruleset::Online => {
            vec![
            (CHECKMATE, "the mating side wins ({Checkmate})"),
            (
                FLAG,
                "noticed at once, whatever the watchers: the opponent wins ({FlagWin}), draw if \
                 lichess's rule says it cannot mate ({FlagNoMaterial})",
            ),
            (OWN_FLAG, "n/a: the first flag ends the game"),
            (BOTH, "n/a: the first flag ends the game"),
            (MATE_FLAGGED, "n/a: the first flag ends the game"),
            (STALEMATE, "draw ({Stalemate})"),
            (
                NOTICED,
                "always at once: the offender loses, whatever the material ({IllegalMove})",
            ),
            (UNNOTICED, "never: every illegal move is noticed at once"),
            (
                NO_BOARD,
                "an illegal move, noticed at once: the offender loses ({IllegalMove})",
            ),
            (KING_CAPTURE, "n/a: the illegal move lost at once"),
            (NO_PIECE, "an illegal move: the offender loses ({NoPromotion})"),
            (NO_MOVE, "an illegal move: the offender loses ({NoMove})"),
            (THREEFOLD, "draw without a claim ({Threefold})"),
            (FIFTY, "draw without a claim at 100 plies ({FiftyMoves})"),
            (
                DEAD,
                "draw when lichess's rule says neither side can win ({DeadPosition})",
            ),
            (PENALTIES, "none"),
        ]
        }
    }
}

/// Who "could still win" (FIDE 6.9, WBCA 7c.1, USCF 7c), as `rules/material.rs` decides it.
fn mating_material(ruleset: Ruleset) -> &'static str {
    match ruleset {
        Ruleset::House => "none needed: a flag or an illegal move loses whatever the material (H3)",
        Ruleset::Generic => {
            "some series of legal moves leads to mate by the claimant: a helpmate search, on a \
             flag (G§2, the usual rules) and on an illegal move (G§3 “sufficient material to \
             possibly checkmate”)"
        }
        Ruleset::Wbca => {
            "two minor pieces (not K+N+N against a bare king), a pawn, a rook or a queen; a lone \
             knight or bishop is not enough (WBCA 7c.1); \"unless a forced win exists\" is \
             arbiter judgement, not simulated"
        }
        Ruleset::Fide => {
            "some series of legal moves leads to mate by the claimant: a helpmate search \
             (FIDE A4.3): “the game is drawn if the position is such that the claimant cannot \
             checkmate the player's king by any possible series of legal moves”; undecided \
             within its limit, the claimant is given the win and the notes say undetermined"
        }
        Ruleset::Uscf => {
            "at least two minor pieces, a pawn, a rook or a queen (USCF 7c), but not K+N+N \
             against a bare king: 7c's “provided it isn't a position where one could claim a \
             draw under rule 8” brings in the regular rules' draw claims (USCF 8), and those \
             draw a win on time by two knights against a lone king"
        }
        Ruleset::Online => {
            "lichess's rule: not a bare king; not K+N when the opponent has only king and \
             queens; not K+bishops when the opponent has no knight or pawn and all bishops \
             stand on one colour"
        }
    }
}

/// Where the rulings of a ruleset come from when its own text does not make them: said in
/// words, with the sentence of the text that brings them in (printed as `sources:`).
fn sources(ruleset: Ruleset) -> &'static str {
    match ruleset {
        Ruleset::House => {
            "H2: “All of the rules of the game of chess apply to speed chess, unless \
             specifically overridden or modified by any point in this list of rules.”: \
             stalemate, a dead position, the 50-move rule, fivefold repetition and the 75-move \
             rule are the rules of chess, cited as H2 with the article of the FIDE Laws (FIDE \
             Laws 5.2.1, 5.2.2, 9.3, 9.6.1, 9.6.2)"
        }
        Ruleset::Generic => {
            "G§2: “draws occur according to the usual rules - when both sides have \
             insufficient material to checkmate, through mutual agreement, by repetition of \
             positions (3 times), 50 consecutive moves without a capture or pawn move or through \
             stalemate.”: these draws, and the usual rules' fivefold repetition and 75-move \
             rule, are cited G§2 (the last two with the article of the FIDE Laws)"
        }
        Ruleset::Wbca => {
            "the WBCA text refers to no other rules; where it is silent, a dead position and \
             the fivefold repetition and 75-move rule that end a game nobody claims, the arena \
             rules as the FIDE Laws do and cites them as such (FIDE Laws 5.2.2, 9.6.1, 9.6.2)"
        }
        Ruleset::Fide => {
            "the text is Appendix A of the FIDE Laws (2018 numbering, A1-A5): claims on time \
             (A4.3), illegal moves (A4.2), illegal positions (A4.4), flag calls (A4.5); A4.2's \
             “he shall act according to Article 7.5.5” makes it part of the Laws, whose \
             articles decide what the appendix does not: mate, stalemate, a dead position, \
             repetition, the 50- and 75-move rules, two fallen flags, cited FIDE Laws N; a \
             first illegal move costs one minute, as FIDE's later rapid and blitz rules have \
             it (Article 7.5.5 itself gives two)"
        }
        Ruleset::Uscf => {
            "USCF 8: “Except as listed here, draw claims allowed under the regular rules are \
             also allowed under the blitz rules.”: threefold repetition and the 50-move rule \
             are the regular rules' claims, cited USCF 8; a dead position and the fivefold \
             repetition and 75-move rule that end a game nobody claims are not in the text: \
             the arena rules as the FIDE Laws do and cites them as such (FIDE Laws 5.2.2, \
             9.6.1, 9.6.2)"
        }
        Ruleset::Online => {
            "no written ruleset: lichess and engine-testing tools (cutechess-cli, fastchess); \
             mate, stalemate, repetition and the move-count rules are cited by the article of \
             the FIDE Laws"
        }
    }
}

/// What the arena does not simulate (human-only rules), with the rules of each ruleset.
const NOT_SIMULATED: &[(&str, &[(Ruleset, &str)])] = &[
    (
        "one hand for move and clock",
        &[(Ruleset::Wbca, "WBCA 4"), (Ruleset::Uscf, "USCF 4")],
    ),
    (
        "touch-move",
        &[
            (Ruleset::House, "H22"),
            (Ruleset::Generic, "G§1"),
            (Ruleset::Uscf, "USCF 10"),
        ],
    ),
    (
        "displaced pieces and knocked-over clocks",
        &[(Ruleset::Uscf, "USCF 6b, 9"), (Ruleset::Wbca, "WBCA 6b")],
    ),
    (
        "choosing the clock and the side of the table",
        &[(Ruleset::Wbca, "WBCA 2, 5"), (Ruleset::Uscf, "USCF 2c, 5")],
    ),
    (
        "bystanders",
        &[
            (Ruleset::House, "H23-H25"),
            (Ruleset::Wbca, "WBCA 12"),
            (Ruleset::Uscf, "USCF 13"),
        ],
    ),
    (
        "arbiter procedure and appeals",
        &[
            (Ruleset::Wbca, "WBCA 13, 21"),
            (Ruleset::Uscf, "USCF 11, 12, 18"),
        ],
    ),
    ("scoresheets", &[(Ruleset::Fide, "FIDE A2")]),
    (
        "exchanging a promoted pawn for its piece, the inverted rook",
        &[(Ruleset::House, "H27-H31")],
    ),
    (
        "incorrect set-up of the board",
        &[
            (Ruleset::Wbca, "WBCA 3, 20"),
            (Ruleset::Uscf, "USCF 3a"),
            (Ruleset::Fide, "FIDE A4.1.2"),
        ],
    ),
    (
        "insufficient-losing-chances claims",
        &[
            (Ruleset::Wbca, "WBCA 8e-8h"),
            (Ruleset::Uscf, "USCF TD tips"),
        ],
    ),
];

/// What a move no board can hold is (docs/rulesets.md, scenario no-board), for `{NoBoard}` in a ruling.
const NO_BOARD_IS: &str = "counts as noticed, whatever the watchers: no board can hold a pawn \
                           sent back onto its own first rank, a castle onto occupied squares or \
                           text that is no move, so none can stand;";

/// Replaces every `{Name}` in `template` with the citation of `Cite::Name` under `ruleset`
/// (`{NoBoard}`: [`NO_BOARD_IS`]).
fn fill(ruleset: Ruleset, template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').expect("a closed placeholder") + start;
        let name = &rest[start + 1..end];
        if name == "NoBoard" {
            out.push_str(NO_BOARD_IS);
            rest = &rest[end + 1..];
            continue;
        }
        let cite = Cite::from_name(name).unwrap_or_else(|| panic!("unknown citation {name}"));
        out.push_str(cited(ruleset, cite));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

/// `text` after `head`, wrapped to [`WIDTH`] columns with continuation lines indented by
/// `indent`; a line breaks only at a space outside parentheses, so a citation stays whole.
fn wrap(head: &str, text: &str, indent: usize) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut depth = 0i32;
    let mut word = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if c == ' ' && depth <= 0 {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
        } else {
            word.push(c);
        }
    }
    if !word.is_empty() {
        words.push(word);
    }
    let mut lines = Vec::new();
    let mut line = head.to_string();
    // Whether `line` holds a word yet (besides the head or the indent).
    let mut has_word = false;
    for word in words {
        if has_word && line.chars().count() + 1 + word.chars().count() > WIDTH {
            lines.push(std::mem::replace(&mut line, " ".repeat(indent)));
        }
        if !line.is_empty() && !line.ends_with(' ') {
            line.push(' ');
        }
        line.push_str(&word);
        has_word = true;
    }
    lines.push(line);
    lines
}

/// The description of a ruleset: its `--ruleset` help text (the enum's documentation).
fn describe(ruleset: Ruleset) -> String {
    ruleset
        .to_possible_value()
        .and_then(|v| v.get_help().map(|h| h.to_string()))
        .unwrap_or_default()
}

/// The section of one ruleset.
fn section(ruleset: Ruleset) -> Vec<String> {
    let mut lines = vec![format!("{ruleset}: {}", describe(ruleset))];
    for (situation, template) in rulings(ruleset) {
        lines.extend(wrap(
            &format!("  {situation}:"),
            &fill(ruleset, template),
            6,
        ));
    }
    lines.extend(wrap("  mating material:", mating_material(ruleset), 6));
    lines.extend(wrap("  sources:", sources(ruleset), 6));
    lines
}

/// The watchers' defaults and what they mean (docs/architecture.md, "The model"), from the code's defaults.
fn watchers_line() -> Vec<String> {
    let w = Watchers::default();
    let notice = if w.flag_notice_ms == 0.0 {
        "a fallen flag is noticed at once, as by an arbiter who calls flags (FIDE A4.5)".to_string()
    } else {
        format!(
            "a fallen flag is noticed after {} ms on average",
            w.flag_notice_ms
        )
    };
    let claim = if w.claim_ms == 0 {
        "a claim completes at once".to_string()
    } else {
        format!(
            "a claim takes {} ms, the running clock running on",
            w.claim_ms
        )
    };
    let illegal = if w.illegal_notice >= 1.0 {
        "every illegal move is noticed before the opponent moves".to_string()
    } else {
        format!(
            "an illegal move is noticed before the opponent moves with probability {}",
            w.illegal_notice
        )
    };
    let claim_draws = if RefereeSettings::default().claim_draws {
        "always: threefold and 50-move draws are claimed as soon as available"
    } else {
        "never: threefold and 50-move draws are not claimed"
    };
    let text = format!(
        "engines claim nothing, a watcher per side does; defaults: --flag-notice-ms {}: \
         {notice}; --claim-ms {}: {claim}, and a claim counts only if the claimant's own flag \
         is still up when it completes; --illegal-notice {}: {illegal}, and one not noticed \
         stands; --claim-draws {claim_draws}; exact timings in place of the random ones \
         (off by default): --flag-notice-after MS|press|never per watcher, \
         --illegal-notice-after PLIES|never",
        w.flag_notice_ms, w.claim_ms, w.illegal_notice
    );
    wrap("watchers:", &text, 2)
}

/// What the arena does not simulate in one entry, with the rules of `only` (or of every ruleset).
fn not_simulated_line(only: Option<Ruleset>) -> Vec<String> {
    let items: Vec<String> = NOT_SIMULATED
        .iter()
        .filter_map(|(what, refs)| {
            let refs: Vec<&str> = refs
                .iter()
                .filter(|(r, _)| only.is_none_or(|o| o == *r))
                .map(|(_, cite)| *cite)
                .collect();
            match (refs.is_empty(), only) {
                (true, Some(_)) => None,
                (true, None) => Some(what.to_string()),
                (false, _) => Some(format!("{what} ({})", refs.join("; "))),
            }
        })
        .collect();
    wrap("not simulated (human-only):", &items.join(", "), 2)
}

/// What `rules [RULESET]` prints.
fn rules_text(only: Option<Ruleset>) -> Vec<String> {
    let rulesets: Vec<Ruleset> = match only {
        Some(r) => vec![r],
        None => Ruleset::ALL.to_vec(),
    };
    let mut lines = Vec::new();
    for ruleset in rulesets {
        lines.extend(section(ruleset));
        lines.push(String::new());
    }
    lines.extend(watchers_line());
    lines.extend(not_simulated_line(only));
    lines
}

/// `rules [RULESET]`.
pub fn rules(only: Option<Ruleset>) -> anyhow::Result<Finish> {
    for line in rules_text(only) {
        say!("{line}");
    }
    Ok(Finish::Done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Claimable, Event, GameResult, SearchInfo, Side, TbVerdict};
    use crate::rules::illegal::IllegalKind;
    use crate::rules::{Referee, Verdict};
    use shakmaty::Chess;

    /// A tiny game: a position and the events that follow, with a clock of its own.
    struct Play {
        referee: Referee,
        t_us: i64,
        last: Verdict,
        rule: Option<String>,
        result: Option<GameResult>,
        /// Events happen at the same instant.
        frozen: bool,
    }

    impl Play {
        fn new(ruleset: Ruleset, fen: Option<&str>) -> Play {
            Play::with(
                RefereeSettings {
                    ruleset,
                    ..RefereeSettings::default()
                },
                fen,
            )
        }

        fn with(settings: RefereeSettings, fen: Option<&str>) -> Play {
            let root: Chess = match fen {
                None => Chess::default(),
                Some(fen) => crate::test_support::position(fen),
            };
            Play {
                referee: Referee::new(settings, root, Vec::new()),
                t_us: 0,
                last: Verdict::Continue,
                rule: None,
                result: None,
                frozen: false,
            }
        }

        fn apply(mut self, event: Event) -> Play {
            if !self.frozen {
                self.t_us += 1000;
            }
            let verdict = self.referee.apply(&event);
            // The first ending, or else the last penalty.
            match &verdict {
                Verdict::End(e) if self.result.is_none() => {
                    self.rule = Some(e.rule.clone());
                    self.result = Some(e.result);
                }
                Verdict::Penalty { rule, .. } if self.result.is_none() => {
                    self.rule = Some(rule.to_string());
                }
                _ => {}
            }
            self.last = verdict;
            self
        }

        /// The events `f` adds happen at one instant.
        fn same_instant(mut self, f: impl FnOnce(Play) -> Play) -> Play {
            self.frozen = true;
            let mut p = f(self);
            p.frozen = false;
            p
        }

        fn side(&self) -> Side {
            self.referee.turn()
        }

        fn moves(mut self, moves: &str) -> Play {
            for uci in moves.split_whitespace() {
                let side = self.side();
                let t_us = self.t_us;
                self = self.apply(Event::Move {
                    t_us,
                    side,
                    uci: uci.to_string(),
                    think_us: 1000,
                    clock_us: 60_000_000,
                    info: SearchInfo::default(),
                });
            }
            self
        }

        fn illegal(self, uci: &str, kind: Option<IllegalKind>) -> Play {
            let side = self.side();
            let t_us = self.t_us;
            self.apply(Event::IllegalMove {
                t_us,
                side,
                uci: uci.to_string(),
                think_us: 1000,
                clock_us: 60_000_000,
                reason: "test".to_string(),
                kind,
            })
        }

        fn flag(self, side: Side) -> Play {
            let t_us = self.t_us;
            self.apply(Event::FlagFall { t_us, side })
        }

        fn notice(self, by: Side, what: Claimable) -> Play {
            let t_us = self.t_us;
            self.apply(Event::Notice { t_us, by, what })
        }

        fn claim(self, by: Side, what: Claimable) -> Play {
            let t_us = self.t_us;
            self.apply(Event::Claim { t_us, by, what })
        }

        fn unnoticed(self, by: Side) -> Play {
            let t_us = self.t_us;
            self.apply(Event::Unnoticed { t_us, by })
        }

        fn tablebase(self, material: &str, verdict: TbVerdict) -> Play {
            let t_us = self.t_us;
            self.apply(Event::Tablebase {
                t_us,
                material: material.to_string(),
                verdict,
            })
        }

        /// A noticed and claimed illegal move by the side to move.
        fn noticed_illegal(self, uci: &str, kind: Option<IllegalKind>) -> Play {
            let by = self.side().other();
            self.illegal(uci, kind)
                .notice(by, Claimable::IllegalMove)
                .claim(by, Claimable::IllegalMove)
        }
    }

    /// The citations (`Cite` names) a template uses.
    fn placeholders(template: &str) -> Vec<Cite> {
        template
            .split('{')
            .skip(1)
            .filter_map(|s| s.split_once('}'))
            .filter(|(name, _)| *name != "NoBoard")
            .map(|(name, _)| Cite::from_name(name).unwrap_or_else(|| panic!("unknown {name}")))
            .collect()
    }

    use Side::{Black, White};
    const FOOLS_MATE: &str = "f2f3 e7e5 g2g4 d8h4";
    /// White to move: Qg1-g6 stalemates the black king on h8.
    const STALEMATE_FEN: &str = "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1";
    /// White king takes the last black piece: bare kings.
    const BARE_KINGS_FEN: &str = "8/8/8/8/8/8/3r4/3K3k w - - 0 1";
    /// White: king and rook; Black: bare king. White to move.
    const ROOK_V_KING: &str = "4k3/8/8/8/8/8/8/R3K3 w - - 0 1";
    /// White's bishop on e2 is pinned by the rook on e7.
    const PINNED: &str = "4k3/4r3/8/8/8/8/4B3/4K3 w - - 0 1";
    /// The kings stand two squares apart on the e-file; both sides have a rook.
    const KINGS_APART: &str = "r7/8/8/4k3/8/4K3/8/7R w - - 0 1";
    /// A white pawn on b7 promotes on b8.
    const PROMOTION: &str = "4k3/1P6/8/8/8/8/8/4K2R w - - 0 1";
    /// Two white pawns promote; Black has a rook.
    const TWO_PROMOTIONS: &str = "7k/1P1P4/8/8/8/8/r7/4K3 w - - 0 1";
    /// The queen gives perpetual check: Qa8+ Kg7 Qa1+ Kg8.
    const PERPETUAL: &str = "6k1/8/8/8/8/8/8/Q5K1 w - - 0 1";
    const PERPETUAL_CYCLE: &str = "a1a8 g8g7 a8a1 g7g8";
    const KNIGHT_SHUFFLE: &str = "g1f3 g8f6 f3g1 f6g8";
    /// Every gap in the chain is guarded by a pawn: neither side can ever mate.
    const LOCKED: &str = "8/8/1k6/p1p1p1p1/P1P1P1P1/1K6/8/8 w - - 0 1";
    /// White: king and pawn; Black: a bare king.
    const BARE_BLACK_KING: &str = "4k3/8/8/8/4P3/8/8/4K3 w - - 0 1";
    /// Black's knight on b2 stands next to White's king.
    const KNIGHT_HANGS: &str = "8/8/8/3k4/8/8/1n6/KR6 w - - 0 1";
    /// White is in check from the rook on e8.
    const BOTH_IN_CHECK: &str = "4r2k/p7/8/8/8/8/8/3QK3 w - - 0 1";

    /// A game that ends (or is penalised) with `cite` under `ruleset`; `None` where the
    /// ruleset has no such ruling.
    fn scenario(ruleset: Ruleset, cite: Cite) -> Option<Play> {
        use Ruleset::*;
        let play = |fen| Play::new(ruleset, fen);
        let online = ruleset == Online;
        Some(match cite {
            Cite::Checkmate => play(None).moves(FOOLS_MATE),
            Cite::Stalemate => play(Some(STALEMATE_FEN)).moves("g1g6"),
            Cite::DeadPosition if online => play(Some(BARE_KINGS_FEN)).moves("d1d2"),
            // Not a material draw: a locked pawn chain.
            Cite::DeadPosition => play(Some(LOCKED)).moves("b3c3"),
            Cite::Threefold if ruleset == Wbca => play(Some(PERPETUAL))
                .moves(PERPETUAL_CYCLE)
                .moves(PERPETUAL_CYCLE)
                .moves(PERPETUAL_CYCLE)
                .moves("a1a8"),
            Cite::Threefold => play(None).moves(KNIGHT_SHUFFLE).moves(KNIGHT_SHUFFLE),
            Cite::Fivefold if online => return None,
            Cite::Fivefold => {
                let settings = RefereeSettings {
                    ruleset,
                    claim_draws: false,
                    ..RefereeSettings::default()
                };
                let mut p = Play::with(settings, None);
                for _ in 0..4 {
                    p = p.moves(KNIGHT_SHUFFLE);
                }
                p
            }
            Cite::FiftyMoves if ruleset == Wbca => return None,
            Cite::FiftyMoves => play(Some("8/8/8/8/8/2k5/8/R3K3 w - - 99 80")).moves("a1a2"),
            Cite::SeventyFiveMoves if online => return None,
            Cite::SeventyFiveMoves => play(Some("8/8/8/8/8/2k5/8/R3K3 w - - 149 80")).moves("a1a2"),
            Cite::FlagWin if online => play(None).moves("e2e4").flag(Black),
            Cite::FlagWin => play(None)
                .moves("e2e4")
                .flag(Black)
                .notice(White, Claimable::Flag)
                .claim(White, Claimable::Flag),
            Cite::FlagNoMaterial if online => play(Some(ROOK_V_KING)).flag(White),
            Cite::FlagNoMaterial => play(Some(ROOK_V_KING))
                .flag(White)
                .notice(Black, Claimable::Flag)
                .claim(Black, Claimable::Flag),
            Cite::BothFlags | Cite::FirstFlagLoses if online => return None,
            // White's flag falls; White moves on; Black's falls; Black's watcher then claims.
            Cite::BothFlags | Cite::FirstFlagLoses => play(None)
                .flag(White)
                .moves("e2e4")
                .flag(Black)
                .notice(Black, Claimable::Flag)
                .claim(Black, Claimable::Flag),
            Cite::OwnFlagDuringClaim if online => return None,
            // Black starts its claim at once; White moves meanwhile and Black's flag falls.
            Cite::OwnFlagDuringClaim => play(None)
                .flag(White)
                .notice(Black, Claimable::Flag)
                .moves("e2e4")
                .flag(Black)
                .claim(Black, Claimable::Flag),
            Cite::MateAfterOwnFlag if online => return None,
            Cite::MateAfterOwnFlag => play(None).moves("f2f3 e7e5 g2g4").flag(Black).moves("d8h4"),
            Cite::MatedClaimsOnTime => play(None)
                .moves("f2f3 e7e5 g2g4")
                .flag(Black)
                .moves("d8h4")
                .notice(White, Claimable::Flag)
                .claim(White, Claimable::Flag),
            Cite::OwnFlagBeforeIllegal if ruleset != House => return None,
            // White's flag falls unnoticed; then Black's king jumps two squares; White claims.
            Cite::OwnFlagBeforeIllegal => play(None)
                .moves("e2e4")
                .flag(White)
                .noticed_illegal("e8e6", None),
            Cite::MateStandsFlagUnseen if ruleset != House => return None,
            Cite::MateStandsFlagUnseen => play(None)
                .moves("f2f3 e7e5 g2g4")
                .flag(Black)
                .moves("d8h4")
                .unnoticed(White),
            Cite::MatedClaimsTooLate => play(None)
                .moves("f2f3 e7e5 g2g4")
                .flag(Black)
                .moves("d8h4")
                .notice(White, Claimable::Flag)
                .flag(White)
                .claim(White, Claimable::Flag),
            Cite::IllegalMove if online => play(None).illegal("e2e5", None),
            // FIDE: the second illegal move loses.
            Cite::IllegalMove if ruleset == Fide => play(None)
                .noticed_illegal("e2e5", None)
                .noticed_illegal("e2e5", None),
            Cite::IllegalMove => play(None).noticed_illegal("e2e5", None),
            Cite::IllegalNoMaterial if ruleset == Fide => play(Some(ROOK_V_KING))
                .noticed_illegal("a1b2", None)
                .noticed_illegal("a1b2", None),
            Cite::IllegalNoMaterial => play(Some(ROOK_V_KING)).noticed_illegal("a1b2", None),
            Cite::Retake => play(None).noticed_illegal("e2e5", None),
            Cite::NoMove if online => play(None).illegal("0000", Some(IllegalKind::NoMove)),
            Cite::NoMove => play(None).noticed_illegal("0000", Some(IllegalKind::NoMove)),
            Cite::NoPromotion if online => {
                play(Some(PROMOTION)).illegal("b7b8", Some(IllegalKind::NoPromotion))
            }
            // FIDE: the second one loses.
            Cite::NoPromotion if ruleset == Fide => play(Some(TWO_PROMOTIONS))
                .noticed_illegal("b7b8", Some(IllegalKind::NoPromotion))
                .moves("h8h7")
                .noticed_illegal("d7d8", Some(IllegalKind::NoPromotion)),
            Cite::NoPromotion => {
                play(Some(PROMOTION)).noticed_illegal("b7b8", Some(IllegalKind::NoPromotion))
            }
            // Black's flag falls unnoticed; Black moves; White's king jumps two squares; both
            // watchers start their claims at that instant and Black's completes.
            Cite::SimultaneousClaims | Cite::SimultaneousClaimsNoMaterial => {
                let fen = (cite == Cite::SimultaneousClaimsNoMaterial).then_some(BARE_BLACK_KING);
                play(fen)
                    .moves(if fen.is_some() { "e4e5" } else { "e2e4" })
                    .flag(Black)
                    .moves(if fen.is_some() { "e8d8" } else { "e7e5" })
                    .illegal("e1e3", Some(IllegalKind::BadPieceMove))
                    .same_instant(|p| {
                        p.notice(Black, Claimable::IllegalMove)
                            .notice(White, Claimable::Flag)
                            .claim(Black, Claimable::IllegalMove)
                    })
            }
            // White, in check from the rook on e8, plays Qd4+ anyway and it stands; Black's
            // reply leaves its own king in check and stands too: still illegal.
            Cite::PersistingIllegalPosition => play(Some(BOTH_IN_CHECK))
                .illegal("d1d4", Some(IllegalKind::KingExposed))
                .unnoticed(Black)
                .illegal("a7a6", Some(IllegalKind::KingExposed))
                .unnoticed(White),
            // Bishop e2-d3 exposes the white king; it stands; Black "takes the king".
            Cite::KingCapture => play(Some(PINNED))
                .illegal("e2d3", Some(IllegalKind::KingExposed))
                .unnoticed(Black)
                .claim(Black, Claimable::KingCapture),
            // White's king steps next to Black's and it stands; Black takes it (WBCA 16).
            Cite::KingCaptureKingsAdjacent => play(Some(KINGS_APART))
                .illegal("e3e4", Some(IllegalKind::KingsAdjacent))
                .unnoticed(Black)
                .claim(Black, Claimable::KingCapture),
            // White's king steps next to Black's and it stands; Black sends a non-move that
            // White claims.
            Cite::KingsAdjacentClaim => play(Some(KINGS_APART))
                .illegal("e3e4", Some(IllegalKind::KingsAdjacent))
                .unnoticed(Black)
                .noticed_illegal("a1a1", None),
            // USCF 16: not illegal, so no claim: the penalty comes with the move.
            Cite::QueenPenalty if ruleset == Uscf => {
                play(Some(PROMOTION)).illegal("b7b8", Some(IllegalKind::NoPromotion))
            }
            Cite::QueenPenalty => {
                play(Some(PROMOTION)).noticed_illegal("b7b8", Some(IllegalKind::NoPromotion))
            }
            // White's king takes the knight: K+R against K, a win by the tables.
            Cite::Tablebase => play(Some(KNIGHT_HANGS)).moves("a1b2").tablebase(
                "KRvK",
                TbVerdict::Win {
                    winner: Side::White,
                },
            ),
        })
    }

    #[test]
    fn every_citation_printed_is_the_one_the_referee_writes() {
        let mut checked = 0;
        for ruleset in Ruleset::ALL {
            let mut cites: Vec<Cite> = rulings(ruleset)
                .iter()
                .flat_map(|(_, template)| placeholders(template))
                .collect();
            cites.dedup();
            for cite in cites {
                let play = scenario(ruleset, cite)
                    .unwrap_or_else(|| panic!("{ruleset}: {cite:?} is printed but has no ruling"));
                assert_eq!(
                    play.rule.as_deref(),
                    Some(cited(ruleset, cite)),
                    "{ruleset}: {cite:?} (last verdict {:?})",
                    play.last
                );
                checked += 1;
            }
        }
        assert!(checked >= 80, "only {checked} citations checked");
    }

    #[test]
    fn the_scenarios_end_as_the_rulings_say() {
        use GameResult::*;
        let result = |r, c| scenario(r, c).and_then(|p| p.result);
        // Flag: the claimant wins; with a bare king, a draw except under house rules.
        for r in Ruleset::ALL {
            assert_eq!(result(r, Cite::FlagWin), Some(WhiteWins), "{r}");
            let bare = if r == Ruleset::House { BlackWins } else { Draw };
            assert_eq!(result(r, Cite::FlagNoMaterial), Some(bare), "{r}");
        }
        // Both flags: FIDE gives the game to the side whose flag fell second.
        assert_eq!(result(Ruleset::Fide, Cite::BothFlags), Some(BlackWins));
        assert_eq!(result(Ruleset::Uscf, Cite::BothFlags), Some(Draw));
        assert_eq!(result(Ruleset::Uscf, Cite::OwnFlagDuringClaim), Some(Draw));
        // A mate by a flagged side: stands, except G§2 (draw) and H13 (the mated side claims).
        assert_eq!(result(Ruleset::Generic, Cite::MateAfterOwnFlag), Some(Draw));
        assert_eq!(
            result(Ruleset::Uscf, Cite::MateAfterOwnFlag),
            Some(BlackWins)
        );
        assert_eq!(
            result(Ruleset::House, Cite::MatedClaimsOnTime),
            Some(WhiteWins)
        );
        assert_eq!(result(Ruleset::House, Cite::MatedClaimsTooLate), Some(Draw));
        // USCF 7d: the kings-adjacent mover who claims loses.
        assert_eq!(
            result(Ruleset::Uscf, Cite::KingsAdjacentClaim),
            Some(BlackWins)
        );
        // USCF 7e: the illegal mover loses, or draws against a bare king.
        let at_once = |c| result(Ruleset::Uscf, c);
        assert_eq!(at_once(Cite::SimultaneousClaims), Some(BlackWins));
        assert_eq!(at_once(Cite::SimultaneousClaimsNoMaterial), Some(Draw));
        // FIDE A4.4 and a locked pawn chain: draws.
        assert_eq!(
            result(Ruleset::Fide, Cite::PersistingIllegalPosition),
            Some(Draw)
        );
        for r in Ruleset::ALL {
            assert_eq!(result(r, Cite::DeadPosition), Some(Draw), "{r}");
        }
        // FIDE: the first illegal move is a penalty, not an ending.
        let retake = scenario(Ruleset::Fide, Cite::Retake).unwrap();
        assert!(
            matches!(
                retake.last,
                Verdict::Penalty {
                    side: Side::Black,
                    add_us: 60_000_000,
                    retake: true,
                    ..
                }
            ),
            "{:?}",
            retake.last
        );
        // WBCA 17: a promotion without its piece is played as a queen, no claim.
        let wbca = Play::new(Ruleset::Wbca, Some(PROMOTION))
            .illegal("b7b8", Some(IllegalKind::NoPromotion));
        assert_eq!(wbca.last, Verdict::Continue);
        assert_eq!(wbca.referee.plies(), 1);
    }

    #[test]
    fn one_ruleset_lists_its_rulings_with_citations() {
        let text = rules_text(Some(Ruleset::Uscf)).join("\n");
        for needle in [
            "uscf: US Chess rulebook chapter 11, Blitz",
            "flag falls, claimed: the claimant wins if it has mating material (USCF 7c), else \
             draw (USCF 8d)",
            "(USCF 7c, 8c)",
            "(USCF 7d)",
            "(USCF 7e)",
            "(USCF 16)",
            "mating material: at least two minor pieces",
            "--flag-notice-ms 0",
            "touch-move (USCF 10)",
        ] {
            assert!(text.contains(needle), "{needle:?} not in:\n{text}");
        }
        // Only USCF's own rules in the human-only line; no other ruleset's section.
        assert!(!text.contains("H22") && !text.contains("fide:"), "{text}");
    }

    #[test]
    fn all_rulesets_fit_a_100_column_terminal() {
        let lines = rules_text(None);
        for ruleset in Ruleset::ALL {
            assert!(
                lines.iter().any(|l| l.starts_with(&format!("{ruleset}: "))),
                "{ruleset}"
            );
        }
        for line in &lines {
            assert!(line.chars().count() <= WIDTH, "too wide: {line:?}");
        }
        let text = lines.join("\n");
        for needle in [
            "(WBCA 8d)",
            "(FIDE A4.2, 7.5.5)",
            "(FIDE A4.4)",
            "(H13)",
            "H22",
        ] {
            assert!(text.contains(needle), "{needle:?} not in:\n{text}");
        }
    }

    #[test]
    fn wrapping_keeps_citations_whole() {
        let text = "a b c (USCF 7c, 8c) d";
        let lines = wrap("head:", text, 2);
        assert_eq!(lines, vec!["head: a b c (USCF 7c, 8c) d"]);
        let long = format!("{} (FIDE 7.5.5) end", "word ".repeat(19));
        let lines = wrap("  situation:", &long, 6);
        assert!(lines.len() > 1);
        assert!(
            lines.iter().any(|l| l.contains("(FIDE 7.5.5)")),
            "{lines:?}"
        );
        assert!(lines[1..].iter().all(|l| l.starts_with("      ")));
    }
}
