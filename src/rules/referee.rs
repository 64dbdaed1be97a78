//! The referee: a pure fold over a game's events that says what each one means under the
//! ruleset (docs/rulesets.md).
//!
//! It holds the board and what the rules need to remember (repetitions, fallen flags, an
//! illegal move waiting to be noticed, how many illegal moves each side made), never a clock or
//! a process. The real-time loop reports what happened, including what the watchers noticed
//! and when their claims completed, and acts on the verdicts. The same events re-ruled under
//! another ruleset give that ruleset's rulings.

use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square};

use super::cite::{cite, Situation};
use super::illegal::{self, Illegal, IllegalKind, MoveCheck};
use super::material::{can_mate, is_dead_given, MatingChance};
use super::position_facts::{LegalMoves, MoveKey};
use super::Ruleset;
use crate::event::{
    BySide, Claimable, Event, Fault, GameResult, Score, Side, TbVerdict, Termination,
};

/// cutechess-style draw adjudication: `movenumber=40,movecount=8,score=10` draws a game once
/// at least `movenumber` full moves have been played and both engines' scores have stayed
/// within `score` centipawns of zero for `movecount` consecutive moves each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DrawAdjudication {
    pub movenumber: u32,
    pub movecount: u32,
    pub score: i32,
}

/// cutechess-style resign adjudication: `movecount=3,score=1000` gives the game to the
/// opponent of an engine whose score has been at least `score` centipawns below zero for
/// `movecount` consecutive moves; with `twosided=true` the opponent must also have reported
/// at least `+score` for as long.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResignAdjudication {
    pub movecount: u32,
    pub score: i32,
    #[serde(default)]
    pub twosided: bool,
}

fn parse_pairs<'a>(
    s: &'a str,
    what: &str,
    known: &[&str],
) -> Result<Vec<(&'a str, &'a str)>, String> {
    let mut pairs = Vec::new();
    for item in s.split([',', ' ']).filter(|p| !p.is_empty()) {
        let (k, v) = item
            .split_once('=')
            .ok_or_else(|| format!("bad {what} {s:?}: expected KEY=VALUE pairs"))?;
        if !known.contains(&k) {
            return Err(format!(
                "bad {what} {s:?}: unknown key {k:?} (known: {})",
                known.join(", ")
            ));
        }
        pairs.push((k, v));
    }
    Ok(pairs)
}

fn parse_num<T: FromStr>(what: &str, k: &str, v: &str) -> Result<T, String> {
    v.parse()
        .map_err(|_| format!("bad {what}: {k}={v:?} is not a number"))
}

impl FromStr for DrawAdjudication {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        const WHAT: &str = "--draw-adjudication";
        let mut d = DrawAdjudication {
            movenumber: 40,
            movecount: 8,
            score: 10,
        };
        for (k, v) in parse_pairs(s, WHAT, &["movenumber", "movecount", "score"])? {
            match k {
                "movenumber" => d.movenumber = parse_num(WHAT, k, v)?,
                "movecount" => d.movecount = parse_num(WHAT, k, v)?,
                _ => d.score = parse_num(WHAT, k, v)?,
            }
        }
        Ok(d)
    }
}

impl FromStr for ResignAdjudication {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        const WHAT: &str = "--resign-adjudication";
        let mut r = ResignAdjudication {
            movecount: 3,
            score: 1000,
            twosided: false,
        };
        for (k, v) in parse_pairs(s, WHAT, &["movecount", "score", "twosided"])? {
            match k {
                "movecount" => r.movecount = parse_num(WHAT, k, v)?,
                "score" => r.score = parse_num(WHAT, k, v)?,
                _ => r.twosided = parse_num(WHAT, k, v)?,
            }
        }
        Ok(r)
    }
}

/// Score-based adjudication; both off by default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Adjudication {
    pub draw: Option<DrawAdjudication>,
    pub resign: Option<ResignAdjudication>,
}

/// What the referee needs to know besides the events.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefereeSettings {
    pub ruleset: Ruleset,
    /// Draw after this many full moves of the game proper.
    pub max_moves: Option<u32>,
    pub adjudication: Adjudication,
    /// The watchers claim threefold repetition and the 50-move rule as soon as they can.
    pub claim_draws: bool,
    /// How long a claim takes, in ms (USCF 16 charges it to a player who pressed the clock
    /// with a pawn on the last rank).
    #[serde(default)]
    pub claim_ms: u64,
    /// A fallen flag loses even when the opponent could not mate (`--flag-always-loses`):
    /// fastchess's ruling, which the fastchess command line asks for. Without it the ruleset's
    /// material rule decides (FIDE 6.9, lichess's under `online`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub flag_always_loses: bool,
}

impl Default for RefereeSettings {
    fn default() -> Self {
        RefereeSettings {
            ruleset: Ruleset::Fide,
            max_moves: None,
            adjudication: Adjudication::default(),
            claim_draws: true,
            claim_ms: 0,
            flag_always_loses: false,
        }
    }
}

/// How and why a game ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ending {
    pub result: GameResult,
    pub termination: Termination,
    pub rule: String,
    pub detail: String,
}

/// What an event means for the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Play on.
    Continue,
    /// The game is over.
    End(Ending),
    /// A flag fell and the ruleset does not end the game by itself: the opponent's watcher
    /// notices it (after its delay) and claims.
    FlagDown { side: Side },
    /// An illegal move was completed: the opponent's watcher notices it before moving (a
    /// `Notice`, then a `Claim`) or not (`Unnoticed`: the move stands).
    IllegalCompleted { offender: Side },
    /// Add `add_us` to `side`'s clock (negative: charge it), then play on. With `retake`, the
    /// illegal move was taken back and the offender moves again (FIDE 7.5.5).
    Penalty {
        side: Side,
        add_us: i64,
        rule: &'static str,
        retake: bool,
    },
}

impl Verdict {
    pub fn ending(&self) -> Option<&Ending> {
        match self {
            Verdict::End(e) => Some(e),
            _ => None,
        }
    }
}

/// An illegal move waiting for the opponent's watcher.
#[derive(Clone, Debug)]
struct PendingIllegal {
    side: Side,
    uci: String,
    reason: String,
    /// `None`: text that is no move at all.
    illegal: Option<Illegal>,
}

/// A position as it stood before an illegal move was allowed to stand, to restore it when the
/// move is claimed later (FIDE 7.5.5 after a crash or a king capture).
#[derive(Clone, Debug)]
struct Snapshot {
    pos: Chess,
    history: Vec<Zobrist64>,
    checks: Vec<bool>,
    plies: u32,
}

/// Rules one game, event by event.
#[derive(Clone, Debug)]
pub struct Referee {
    settings: RefereeSettings,
    pos: Chess,
    /// Zobrist keys of the positions since the last irreversible move, the current one last.
    history: Vec<Zobrist64>,
    /// For each position after the first in `history`: whether the move that led to it gave
    /// check (WBCA 8d: repetition by perpetual check). Kept up to date under WBCA only, the one
    /// ruleset that reads it.
    checks: Vec<bool>,
    /// Plies of the game proper (opening moves not counted).
    plies: u32,
    draw_streak: u32,
    losing_streak: BySide<u32>,
    winning_streak: BySide<u32>,
    /// When each side's flag fell (µs since the start).
    flags: BySide<Option<i64>>,
    /// When each side's watcher noticed the opponent's fallen flag (its claim started).
    flag_noticed: BySide<Option<i64>>,
    pending_illegal: Option<PendingIllegal>,
    /// Illegal moves ruled against each side so far (FIDE: the second one loses).
    illegal_count: BySide<u32>,
    /// An illegal move stood: the side that made it, and the position before it. It can be
    /// claimed (by a crash or a king capture, docs/architecture.md) until the opponent's next move.
    stood: Option<(Side, Option<IllegalKind>, Snapshot)>,
    /// FIDE A4.4: an illegal move stood leaving both kings in check (or a pawn on the last
    /// rank); the arbiter waits for the next move, then a still illegal position is a draw.
    a54_watch: bool,
    /// USCF 7d: the sides whose king step next to the other king stood, while the kings are
    /// still next to each other.
    moved_king_adjacent: BySide<bool>,
    /// The watcher that noticed the pending illegal move, and when (USCF 7e).
    illegal_noticed: Option<(Side, i64)>,
    /// House rules: a side mated the other after its own flag fell; the mated side may still
    /// claim on time (H13, H14).
    mate_by_flagged: Option<Side>,
    /// When the last `Move` event was completed (µs), for the details.
    last_move_us: i64,
    ending: Option<Ending>,
    /// The last move played on the board, whatever event carried it (written out in UCI
    /// only when asked for).
    last_move: Option<Move>,
    /// A fallen flag is being ruled at a tablebase adjudication, not at a watcher's claim:
    /// what the tables said (for the detail).
    tablebase_call: Option<String>,
    /// The legal moves of `pos` when `legal_known`: looked up once after a move for the mate
    /// and stalemate tests, and asked again for the next move (every change of `pos` clears
    /// `legal_known`).
    legal: Arc<LegalMoves>,
    legal_known: bool,
    /// The king of the side not to move may be attacked (a king capture is possible): the
    /// game started so, or an illegal move stood since. Positions reached by legal moves from
    /// one where it is not never have it, so `is_king_capture` reads no text in them.
    king_exposed: bool,
    /// This position's stamp (`next_stamp`): a `Checked` move made in it carries it.
    stamp: u64,
}

/// The stamps of the positions referees stand on, one per change of a referee's position,
/// never the same twice in the process (a clone keeps its stamp with the same position):
/// a `Checked` move is trusted only on the position it was checked on.
static STAMPS: AtomicU64 = AtomicU64::new(0);

fn next_stamp() -> u64 {
    STAMPS.fetch_add(1, Ordering::Relaxed)
}

/// A move text [`Referee::check_legal`] found legal, and the position it was found in.
/// Handed to [`Referee::apply_checked`] with the `Move` event whose text names it (the text
/// checked, or `uci_text` of the move), the move is played without the text being checked a
/// second time; on any other position the text is checked as [`Referee::apply`] checks it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checked {
    m: Move,
    stamp: u64,
}

impl Checked {
    pub fn get(self) -> Move {
        self.m
    }
}

/// What an engine's move text is in the referee's current position, as
/// [`Referee::check_move`] says, with a legal move bound to the position
/// ([`Referee::check_legal`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CheckedMove {
    Legal(Checked),
    Illegal(Illegal),
    Unplayable { reason: String },
}

impl CheckedMove {
    /// The legal move, bound to its position.
    pub fn legal(self) -> Option<Checked> {
        match self {
            CheckedMove::Legal(checked) => Some(checked),
            _ => None,
        }
    }
}

impl Referee {
    /// A referee for a game that starts at `pos`; `history` holds the positions that came
    /// before it (opening moves), for repetitions.
    pub fn new(settings: RefereeSettings, pos: Chess, history: Vec<Zobrist64>) -> Referee {
        let mut history = history;
        history.push(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
        let checks = vec![false; history.len() - 1];
        let king_exposed = illegal::opponent_king_attacked(&pos);
        Referee {
            settings,
            pos,
            history,
            checks,
            plies: 0,
            draw_streak: 0,
            losing_streak: BySide::default(),
            winning_streak: BySide::default(),
            flags: BySide::default(),
            flag_noticed: BySide::default(),
            pending_illegal: None,
            illegal_count: BySide::default(),
            stood: None,
            a54_watch: false,
            moved_king_adjacent: BySide::default(),
            illegal_noticed: None,
            mate_by_flagged: None,
            last_move_us: 0,
            ending: None,
            last_move: None,
            tablebase_call: None,
            legal: Arc::default(),
            legal_known: false,
            king_exposed,
            stamp: next_stamp(),
        }
    }

    /// A referee for `root` after the opening `moves` (UCI) have been played from it.
    pub fn after_opening(
        settings: RefereeSettings,
        root: Chess,
        moves: &[String],
    ) -> Result<Referee, String> {
        let mut pos = root;
        let mut history = Vec::new();
        for text in moves {
            let m = legal_move(&pos, text)?;
            history.push(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
            if pos.is_irreversible(m) {
                history.clear();
            }
            pos.play_unchecked(m);
        }
        Ok(Referee::new(settings, pos, history))
    }

    /// This referee, before any event, with other settings: what [`Referee::new`] makes of
    /// the same position and history with them (it reads no setting).
    pub fn with_settings(mut self, settings: RefereeSettings) -> Referee {
        self.settings = settings;
        self
    }

    pub fn position(&self) -> &Chess {
        &self.pos
    }

    /// The positions since the last capture or pawn move, this one last (for repetitions).
    pub fn history(&self) -> &[Zobrist64] {
        &self.history
    }

    pub fn turn(&self) -> Side {
        self.pos.turn().into()
    }

    pub fn plies(&self) -> u32 {
        self.plies
    }

    /// The last move played on the board, in UCI: the engines must be told a move the rules
    /// played without a `Move` event (a pawn sent without its piece becoming a queen, WBCA 17,
    /// USCF 16, FIDE 7.5.2).
    pub fn last_move(&self) -> Option<String> {
        self.last_move.map(|m| uci_text(&self.pos, m))
    }

    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    pub fn ruleset(&self) -> Ruleset {
        self.settings.ruleset
    }

    pub fn settings(&self) -> &RefereeSettings {
        &self.settings
    }

    pub fn flag_fell(&self, side: Side) -> bool {
        self.flags[side].is_some()
    }

    /// No engine should be asked to move: the game waits for a watcher (H13: the mated side
    /// may still claim on time).
    pub fn waiting(&self) -> bool {
        self.mate_by_flagged.is_some()
    }

    /// The position on the board is one the rules of chess do not allow (an illegal move
    /// stood), so engines must be told it by FEN and may fail on it.
    pub fn position_is_illegal(&self) -> bool {
        self.stood.is_some() && illegal::position_is_illegal(&self.pos).is_some()
    }

    /// Whether `side`'s opponent has an illegal move standing that `side` could still claim
    /// (by crashing on the position or capturing the king, docs/architecture.md).
    pub fn can_claim_standing_illegal(&self, side: Side) -> bool {
        matches!(&self.stood, Some((offender, _, _)) if *offender == side.other())
    }

    /// The illegal move waiting for the opponent's watcher is one no board can hold (text
    /// that is no move, a pawn sent back onto its own first rank, a castle onto occupied
    /// squares): it counts as noticed, whatever the watcher (docs/rulesets.md).
    pub fn pending_cannot_stand(&self) -> bool {
        self.pending_illegal
            .as_ref()
            .is_some_and(|p| match &p.illegal {
                None => true,
                Some(i) => illegal::play_illegal(&self.pos, i).is_err(),
            })
    }

    /// What an engine's `bestmove` text is in the current position.
    pub fn check_move(&self, text: &str) -> MoveCheck {
        match self.known_legal(text) {
            Some(m) => MoveCheck::Legal(m),
            None => illegal::check(&self.pos, text),
        }
    }

    /// [`Referee::check_move`], with a legal move bound to the current position (for
    /// [`Referee::apply_checked`]).
    pub fn check_legal(&self, text: &str) -> CheckedMove {
        match self.check_move(text) {
            MoveCheck::Legal(m) => CheckedMove::Legal(Checked {
                m,
                stamp: self.stamp,
            }),
            MoveCheck::Illegal(illegal) => CheckedMove::Illegal(illegal),
            MoveCheck::Unplayable { reason } => CheckedMove::Unplayable { reason },
        }
    }

    /// Whether `text` captures the king the opponent left in check.
    pub fn is_king_capture(&self, text: &str) -> bool {
        self.king_exposed && illegal::king_capture(&self.pos, text)
    }

    /// Takes one event into account and says what it means.
    pub fn apply(&mut self, event: &Event) -> Verdict {
        self.apply_checked(event, None)
    }

    /// [`Referee::apply`], given what [`Referee::check_legal`] found the text of `event`, a
    /// `Move`, to be (ignored for other events, and on another position than its own).
    pub fn apply_checked(&mut self, event: &Event, checked: Option<Checked>) -> Verdict {
        if self.ending.is_some() {
            // After the end only a stall can refine a flag ruling (engine-stall).
            if let Event::EngineFault {
                fault: Fault::Stall,
                side,
                ..
            } = event
            {
                self.refine_stall(*side);
            }
            return Verdict::End(self.ending.clone().expect("checked"));
        }
        let verdict = match event {
            Event::Go { .. }
            | Event::Ponder { .. }
            | Event::PonderStopped { .. }
            | Event::End { .. }
            | Event::Penalty { .. }
            | Event::Injected { .. }
            | Event::Discarded { .. } => Verdict::Continue,
            Event::Notice { by, what, t_us } => {
                match what {
                    Claimable::Flag => {
                        self.flag_noticed[*by].get_or_insert(*t_us);
                    }
                    Claimable::IllegalMove => self.illegal_noticed = Some((*by, *t_us)),
                    Claimable::KingCapture => {}
                }
                Verdict::Continue
            }
            Event::Move {
                side,
                uci,
                info,
                t_us,
                ..
            } => {
                self.last_move_us = *t_us;
                self.on_move(*side, uci, info.score, checked)
            }
            Event::IllegalMove {
                side,
                uci,
                kind,
                t_us,
                ..
            } => {
                self.last_move_us = *t_us;
                self.on_illegal(*side, uci, *kind)
            }
            Event::Unnoticed { by, .. } => self.on_unnoticed(*by),
            Event::FlagFall { side, t_us } => self.on_flag(*side, *t_us),
            Event::Tablebase {
                t_us,
                material,
                verdict,
            } => self.on_tablebase(material, *verdict, *t_us),
            Event::Claim { by, what, t_us } => self.on_claim(*by, *what, *t_us),
            Event::EngineFault {
                side,
                fault,
                detail,
                ..
            } => self.on_fault(*side, fault, detail),
        };
        if let Verdict::End(ending) = &verdict {
            self.ending = Some(ending.clone());
        }
        verdict
    }

    fn end(
        &self,
        result: GameResult,
        termination: Termination,
        s: Situation,
        detail: String,
    ) -> Verdict {
        Verdict::End(Ending {
            result,
            termination,
            rule: cite(self.settings.ruleset, s).to_string(),
            detail,
        })
    }

    fn chance(&self, side: Side) -> MatingChance {
        can_mate(self.settings.ruleset, &self.pos, side.into())
    }

    fn play(&mut self, m: Move) {
        self.legal_known = false;
        self.stamp = next_stamp();
        self.last_move = Some(m);
        let irreversible = self.pos.is_irreversible(m);
        // The key after the move from the key before it (the last of `history`), where
        // shakmaty can update it (not around en passant, castling rights or king moves), else
        // from what the move changes (`key_moved`, `key_rights`): not from the whole board.
        let before = self.history.last().copied();
        let updated =
            before.and_then(|key| self.pos.update_zobrist_hash(key, m, EnPassantMode::Legal));
        let moved = match (updated, before) {
            (None, Some(key)) => key_moved(&self.pos, key, m),
            _ => None,
        };
        self.pos.play_unchecked(m);
        if irreversible {
            self.history.clear();
            self.checks.clear();
        }
        let key = updated
            .or_else(|| moved.map(|key| key ^ key_rights(&self.pos)))
            .unwrap_or_else(|| self.pos.zobrist_hash(EnPassantMode::Legal));
        // Read by WBCA 8d alone.
        if !self.history.is_empty() && self.settings.ruleset == Ruleset::Wbca {
            self.checks.push(self.pos.is_check());
        }
        self.history.push(key);
        self.plies += 1;
    }

    fn on_move(
        &mut self,
        side: Side,
        uci: &str,
        score: Option<Score>,
        checked: Option<Checked>,
    ) -> Verdict {
        let m = match checked.filter(|c| c.stamp == self.stamp) {
            // Checked on this very position: `check_move` would find the same.
            Some(c) => {
                debug_assert_eq!(self.check_move(uci), MoveCheck::Legal(c.m));
                c.m
            }
            None => match self.check_move(uci) {
                MoveCheck::Legal(m) => m,
                // A record whose Move is not legal was not written by this arena: rule it
                // illegal.
                _ => return self.on_illegal(side, uci, None),
            },
        };
        self.play(m);
        // The opponent has moved: an illegal move that stood can no longer be claimed (H15,
        // G§3, WBCA 14, USCF 3b, FIDE A4.2), and after a legal move the kings are apart.
        self.stood = None;
        self.moved_king_adjacent = BySide::default();
        // FIDE A4.4: the arbiter waited for this move; the position is still illegal.
        if self.a54_watch {
            if let Some(verdict) = self.fide_a54(side) {
                return verdict;
            }
        }
        if let Some(verdict) = self.after_move(side) {
            return verdict;
        }
        self.adjudicate(side, score)
    }

    /// The rules that follow every move that stands, legal or not (H15, G§3, WBCA 14, USCF 3b:
    /// an illegal move not noticed stands as if legal): mate, stalemate, a dead position,
    /// repetitions, the 50/75-move rules, `--max-moves`.
    fn after_move(&mut self, side: Side) -> Option<Verdict> {
        let zobrist = *self
            .history
            .last()
            .expect("the current position is in the history");
        let (legal, dead) = super::position_facts::legal_moves(&self.pos, zobrist);
        self.legal = legal;
        self.legal_known = true;
        let ruleset = self.settings.ruleset;
        // shakmaty's is_checkmate and is_stalemate, on the moves generated once.
        let no_move = self.legal.moves().is_empty();
        if no_move && self.pos.is_check() {
            return Some(self.on_checkmate(side));
        }
        // FIDE 5.2.1: stalemate, even with a flag down (WBCA 8a, USCF 8a, H2, G§2).
        if no_move {
            return Some(self.end(
                GameResult::Draw,
                Termination::Stalemate,
                Situation::Stalemate,
                String::new(),
            ));
        }
        // FIDE 5.2.2: a position in which neither side can mate.
        if self.pos.is_insufficient_material() {
            return Some(self.end(
                GameResult::Draw,
                Termination::InsufficientMaterial,
                Situation::DeadPosition,
                String::new(),
            ));
        }
        if is_dead_given(ruleset, &self.pos, zobrist, self.legal.moves(), dead) {
            return Some(self.end(
                GameResult::Draw,
                Termination::DeadPosition,
                Situation::DeadPosition,
                "neither side can mate".to_string(),
            ));
        }
        if let Some(verdict) = self.draw_rules() {
            return Some(verdict);
        }
        if let Some(max) = self.settings.max_moves {
            if self.plies >= 2 * max {
                return Some(self.end(
                    GameResult::Draw,
                    Termination::MaxMoves,
                    Situation::MaxMoves,
                    format!("{max} moves played"),
                ));
            }
        }
        None
    }

    /// The move `uci` names, when it is one of the known legal moves other than castling: then
    /// `illegal::check` would find it `Legal` too. `UciMove::to_move` reads a move's squares
    /// and promotion as that move; it reads a king's move as castling only onto its own
    /// castling rook (a square no legal king move reaches) or two squares along from e1 or
    /// e8 (a king's legal move is one square), so castling is left to `check`.
    fn known_legal(&self, uci: &str) -> Option<Move> {
        if !self.legal_known {
            return None;
        }
        self.legal.find(MoveKey::of_uci(uci)?)
    }

    fn on_checkmate(&mut self, mater: Side) -> Verdict {
        if !self.flag_fell(mater) {
            return self.end(
                GameResult::win_for(mater),
                Termination::Checkmate,
                Situation::Checkmate,
                String::new(),
            );
        }
        let detail = format!(
            "{} flag fell at {} unnoticed; {} mated at {}: a mate given after its own flag fell",
            mater.name(),
            secs(self.flags[mater].unwrap_or_default()),
            mater.name(),
            secs(self.last_move_us)
        );
        match self.settings.ruleset {
            // H13/H14: the mated side may still claim on time; the game waits for its watcher.
            Ruleset::House => {
                self.mate_by_flagged = Some(mater);
                Verdict::Continue
            }
            // G§2 note: a mate given after one's own flag fell is a draw.
            Ruleset::Generic => self.end(
                GameResult::Draw,
                Termination::Flag,
                Situation::MateAfterOwnFlag,
                detail,
            ),
            // WBCA 7a, FIDE 6.9/6.8, USCF 7a/8c: the mate stands.
            _ => self.end(
                GameResult::win_for(mater),
                Termination::Checkmate,
                Situation::MateAfterOwnFlag,
                detail,
            ),
        }
    }

    /// Repetitions and the 50/75-move rules, per ruleset.
    fn draw_rules(&mut self) -> Option<Verdict> {
        let ruleset = self.settings.ruleset;
        let repetitions = self.repetitions();
        // FIDE 9.6.1: the fifth occurrence ends the game without a claim.
        if repetitions >= 5 {
            return Some(self.end(
                GameResult::Draw,
                Termination::Fivefold,
                Situation::Fivefold,
                String::new(),
            ));
        }
        // FIDE 9.6.2: 75 moves by each side without a capture or pawn move.
        if self.pos.halfmoves() >= 150 {
            return Some(self.end(
                GameResult::Draw,
                Termination::SeventyFiveMoves,
                Situation::SeventyFiveMoves,
                String::new(),
            ));
        }
        // Online servers draw at once, without a claim.
        let automatic = ruleset == Ruleset::Online;
        let claims = self.settings.claim_draws || automatic;
        if !claims {
            return None;
        }
        if ruleset == Ruleset::Wbca {
            // WBCA 8d: only a fourfold repetition by perpetual check; WBCA has no 50-move claim.
            if repetitions >= 4 && self.perpetual_check() {
                return Some(self.end(
                    GameResult::Draw,
                    Termination::Threefold,
                    Situation::Threefold,
                    "fourfold repetition by perpetual check".to_string(),
                ));
            }
            return None;
        }
        // FIDE 9.2 / 9.3 (H21, G§2, USCF 8): the watcher of the side to move claims at once.
        if repetitions >= 3 {
            return Some(self.end(
                GameResult::Draw,
                Termination::Threefold,
                Situation::Threefold,
                String::new(),
            ));
        }
        if self.pos.halfmoves() >= 100 {
            return Some(self.end(
                GameResult::Draw,
                Termination::FiftyMoves,
                Situation::FiftyMoves,
                String::new(),
            ));
        }
        None
    }

    /// How often the current position has occurred (FIDE 9.2.2: same side to move, same
    /// castling and en passant possibilities; the zobrist key covers exactly those).
    fn repetitions(&self) -> usize {
        let current = self.history.last().copied();
        self.history.iter().filter(|k| Some(**k) == current).count()
    }

    /// Every move of the side that just moved, since the current position first occurred,
    /// gave check.
    fn perpetual_check(&self) -> bool {
        let current = *self
            .history
            .last()
            .expect("the current position is in the history");
        let first = self
            .history
            .iter()
            .position(|k| *k == current)
            .expect("it occurs");
        // checks[i] belongs to history[i + 1]; the mover's moves are every other one from the end.
        let moves: Vec<bool> = self.checks[first..]
            .iter()
            .rev()
            .step_by(2)
            .copied()
            .collect();
        !moves.is_empty() && moves.iter().all(|c| *c)
    }

    /// cutechess conventions for score adjudication.
    fn adjudicate(&mut self, side: Side, score: Option<Score>) -> Verdict {
        let adj = self.settings.adjudication;
        let Some(cp) = score.map(|s| s.as_cp()) else {
            // An engine that reports no score breaks every streak.
            self.draw_streak = 0;
            self.losing_streak = BySide::default();
            self.winning_streak = BySide::default();
            return Verdict::Continue;
        };
        if let Some(draw) = adj.draw {
            if cp.abs() <= draw.score {
                self.draw_streak += 1;
            } else {
                self.draw_streak = 0;
            }
            if self.plies / 2 >= draw.movenumber && self.draw_streak >= 2 * draw.movecount {
                return self.end(
                    GameResult::Draw,
                    Termination::Adjudication,
                    Situation::DrawAdjudication,
                    format!(
                        "both scores within {} cp for {} moves",
                        draw.score, draw.movecount
                    ),
                );
            }
        }
        if let Some(resign) = adj.resign {
            self.losing_streak[side] = if cp <= -resign.score {
                self.losing_streak[side] + 1
            } else {
                0
            };
            self.winning_streak[side] = if cp >= resign.score {
                self.winning_streak[side] + 1
            } else {
                0
            };
            let loser_done = self.losing_streak[side] >= resign.movecount;
            let winner_done =
                !resign.twosided || self.winning_streak[side.other()] >= resign.movecount;
            if loser_done && winner_done {
                return self.end(
                    GameResult::win_for(side.other()),
                    Termination::Adjudication,
                    Situation::ResignAdjudication,
                    format!(
                        "{} scored {} cp or worse for {} moves",
                        side.name(),
                        -resign.score,
                        resign.movecount
                    ),
                );
            }
        }
        Verdict::Continue
    }

    /// A completed illegal move (H15, G§3, WBCA 14, USCF 3b/14, FIDE A4.2).
    fn on_illegal(&mut self, side: Side, uci: &str, kind: Option<IllegalKind>) -> Verdict {
        let ruleset = self.settings.ruleset;
        let (illegal, reason) = match illegal::check(&self.pos, uci) {
            MoveCheck::Illegal(i) => {
                let reason = i.reason.clone();
                (Some(i), reason)
            }
            MoveCheck::Unplayable { reason } => (None, reason),
            MoveCheck::Legal(_) => (None, "legal".to_string()),
        };
        // The engine-testing convention: noticed at once, the offender loses.
        if ruleset == Ruleset::Online {
            return self.end(
                GameResult::win_for(side.other()),
                Termination::IllegalMove,
                Situation::IllegalMove,
                format!("{} played {uci:?}: {reason}", side.name()),
            );
        }
        if kind == Some(IllegalKind::NoPromotion) {
            if let Some(illegal) = &illegal {
                match ruleset {
                    // WBCA 17: not illegal; the pawn becomes a queen.
                    Ruleset::Wbca => {
                        return self.stand_as_queen(illegal);
                    }
                    // USCF 16: improper, not illegal; the opponent restarts the mover's clock
                    // and the pawn becomes a queen; the mover's clock is charged the claim time.
                    Ruleset::Uscf => {
                        let verdict = self.stand_as_queen(illegal);
                        if verdict != Verdict::Continue {
                            return verdict;
                        }
                        return Verdict::Penalty {
                            side,
                            add_us: -(self.settings.claim_ms as i64 * 1000),
                            rule: cite(Ruleset::Uscf, Situation::ImproperPromotion),
                            retake: false,
                        };
                    }
                    _ => {}
                }
            }
        }
        self.illegal_noticed = None;
        self.pending_illegal = Some(PendingIllegal {
            side,
            uci: uci.to_string(),
            reason,
            illegal,
        });
        Verdict::IllegalCompleted { offender: side }
    }

    /// Plays a promotion without its piece as a queen promotion (WBCA 17, USCF 16, FIDE 7.5.2).
    fn stand_as_queen(&mut self, illegal: &Illegal) -> Verdict {
        match illegal.board_effect {
            illegal::BoardEffect::Move(Move::Normal {
                role,
                from,
                capture,
                to,
                ..
            }) => {
                let m = Move::Normal {
                    role,
                    from,
                    capture,
                    to,
                    promotion: Some(Role::Queen),
                };
                if self.pos.is_legal(m) {
                    let mover = self.turn();
                    return self.on_move(mover, &uci_text(&self.pos, m), None, None);
                }
                Verdict::Continue
            }
            _ => Verdict::Continue,
        }
    }

    /// The opponent's watcher did not notice: the illegal move stands (H15, G§3, WBCA 14,
    /// USCF 3b/14, FIDE A4.2).
    fn on_unnoticed(&mut self, by: Side) -> Verdict {
        let Some(pending) = self.pending_illegal.take() else {
            return self.mate_stands(by);
        };
        let Some(illegal) = pending.illegal.clone() else {
            // Text that is no move cannot stand: it is noticed whatever the watcher does.
            self.pending_illegal = Some(pending);
            return self.rule_noticed_illegal(by, Claimable::IllegalMove);
        };
        let Ok(after) = illegal::play_illegal(&self.pos, &illegal) else {
            // A move that cannot stand on a board (a pawn pushed onto the last rank backwards,
            // a castle onto occupied squares) is noticed whatever the watcher does.
            self.pending_illegal = Some(pending);
            return self.rule_noticed_illegal(by, Claimable::IllegalMove);
        };
        let snapshot = Snapshot {
            pos: self.pos.clone(),
            history: self.history.clone(),
            checks: self.checks.clone(),
            plies: self.plies,
        };
        self.pos = after;
        self.king_exposed = true;
        self.legal_known = false;
        self.stamp = next_stamp();
        self.history.clear();
        self.checks.clear();
        self.history
            .push(self.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
        self.plies += 1;
        self.stood = Some((pending.side, Some(illegal.kind), snapshot));
        if !illegal::kings_adjacent(&self.pos) {
            self.moved_king_adjacent = BySide::default();
        } else if illegal.kind == IllegalKind::KingsAdjacent {
            self.moved_king_adjacent[pending.side] = true;
        }
        // FIDE A4.4: this (illegal) move was the one the arbiter waited for.
        if let Some(verdict) = self.fide_a54(pending.side) {
            return verdict;
        }
        self.a54_watch = illegal::arbiter_waits(&self.pos);
        // A move that stands is a move (H15, G§3, WBCA 14, USCF 3b, FIDE A4.2): the mate or
        // stalemate it gives ends the game, and every rule that follows a move follows it. A
        // position no game can reach (a king left in check, kings side by side) waits for the
        // opponent's claim or its next move (FIDE A4.4).
        if illegal::position_is_illegal(&self.pos).is_none() {
            if let Some(verdict) = self.after_move(pending.side) {
                return verdict;
            }
        }
        Verdict::Continue
    }

    /// H10, H13: the mated side's watcher will notice nothing more (the game has nothing left
    /// to wait for), so the mater's flag was never seen: "A flag shall not be considered fallen
    /// until he or his opponent sees it" (H10), and the mate stands.
    fn mate_stands(&mut self, by: Side) -> Verdict {
        let Some(mater) = self.mate_by_flagged else {
            return Verdict::Continue;
        };
        if by != mater.other() {
            return Verdict::Continue;
        }
        self.mate_by_flagged = None;
        let mut detail = format!(
            "{} flag fell at {} unnoticed; {} mated {} at {}",
            mater.name(),
            secs(self.flags[mater].unwrap_or_default()),
            mater.name(),
            by.name(),
            secs(self.last_move_us)
        );
        if let Some(t) = self.flags[by] {
            detail.push_str(&format!("; {} flag fell at {}", by.name(), secs(t)));
        }
        detail.push_str(&format!(
            "; {} never noticed {}'s flag: a flag not seen has not fallen, the mate stands",
            by.name(),
            mater.name()
        ));
        self.end(
            GameResult::win_for(mater),
            Termination::Checkmate,
            Situation::MateStandsFlagUnseen,
            detail,
        )
    }

    /// FIDE A4.4: "If the arbiter observes both kings are in check, or a pawn on the rank
    /// furthest from its starting position, he shall wait until the next move is completed.
    /// Then, if an illegal position is still on the board, he shall declare the game drawn."
    /// Called once `mover`'s move is on the board; ends the wait.
    fn fide_a54(&mut self, mover: Side) -> Option<Verdict> {
        if !std::mem::take(&mut self.a54_watch) || self.settings.ruleset != Ruleset::Fide {
            return None;
        }
        let why = illegal::position_is_illegal(&self.pos)?;
        Some(self.end(
            GameResult::Draw,
            Termination::IllegalMove,
            Situation::PersistingIllegalPosition,
            format!(
                "the position is still illegal after {}'s move: {why}",
                mover.name()
            ),
        ))
    }

    /// A claim completed at `t_us`.
    fn on_claim(&mut self, by: Side, what: Claimable, t_us: i64) -> Verdict {
        if self.settings.ruleset == Ruleset::Uscf {
            if let Some(verdict) = self.uscf_7e(t_us) {
                return verdict;
            }
        }
        match what {
            Claimable::Flag => self.rule_flag_claim(by, t_us),
            Claimable::IllegalMove | Claimable::KingCapture => self.rule_noticed_illegal(by, what),
        }
    }

    /// USCF 7e: "An illegal move doesn't negate a player's right to claim on time, provided it
    /// is made prior to the opponent's claim of an illegal move. If the claims are
    /// simultaneous, the player who made the illegal move loses." Applies when an illegal move
    /// is pending, its opponent noticed it (its claim started), the opponent's flag is down and
    /// the illegal mover noticed that flag: whichever claim started first is ruled; claims
    /// started at the same instant lose the game for the illegal mover (a draw if the
    /// opponent cannot mate, USCF 8d).
    fn uscf_7e(&mut self, t_us: i64) -> Option<Verdict> {
        let mover = self.pending_illegal.as_ref()?.side;
        let opponent = mover.other();
        let (noticer, illegal_claim) = self.illegal_noticed?;
        self.flags[opponent]?;
        let flag_claim = self.flag_noticed[mover]?;
        if noticer != opponent {
            return None;
        }
        Some(match flag_claim.cmp(&illegal_claim) {
            std::cmp::Ordering::Less => self.rule_flag_claim(mover, t_us),
            std::cmp::Ordering::Greater => {
                self.rule_noticed_illegal(opponent, Claimable::IllegalMove)
            }
            std::cmp::Ordering::Equal => {
                let pending = self.pending_illegal.take();
                let played = pending.map_or_else(String::new, |p| {
                    format!("; {} played {:?}: {}", mover.name(), p.uci, p.reason)
                });
                // The facts in order: the flag, the illegal move, the two notices at one instant.
                let detail = format!(
                    "{} flag fell at {}{played}; {} noticed the illegal move and {} noticed {}'s \
                     flag at the same instant, {}: the claims are simultaneous, the illegal mover \
                     loses",
                    opponent.name(),
                    secs(self.flags[opponent].unwrap_or_default()),
                    opponent.name(),
                    mover.name(),
                    opponent.name(),
                    secs(illegal_claim)
                );
                if self.chance(opponent).suffices() {
                    self.end(
                        GameResult::win_for(opponent),
                        Termination::IllegalMove,
                        Situation::SimultaneousClaims,
                        detail,
                    )
                } else {
                    self.end(
                        GameResult::Draw,
                        Termination::IllegalMove,
                        Situation::SimultaneousClaimsNoMaterial,
                        format!("{detail}; {} cannot mate", opponent.name()),
                    )
                }
            }
        })
    }

    /// A flag claim by `by` (docs/rulesets.md: the flag rows).
    fn rule_flag_claim(&mut self, by: Side, t_us: i64) -> Verdict {
        let ruleset = self.settings.ruleset;
        let flagged = by.other();
        let Some(fell) = self.flags[flagged] else {
            return Verdict::Continue; // nothing to claim
        };
        let own = self.flags[by].filter(|t| *t <= t_us);
        // Did the claimant's own flag fall while it was claiming (after its notice)?
        let noticed = self.flag_noticed[by];
        let during_claim = |own: i64| noticed.is_some_and(|noticed| own > noticed);
        if let Some(mater) = self.mate_by_flagged.take() {
            return self.rule_claim_after_flagged_mate(mater, by, t_us, own);
        }
        let Some(own) = own else {
            // The claimant's flag is up: it wins if it can still mate (FIDE 6.9, WBCA 7c/8f,
            // USCF 7c/8d, G§2; H3.1/H10 whatever the material).
            let detail = format!(
                "{} flag fell at {}{}, {} flag up",
                flagged.name(),
                secs(fell),
                self.claim_facts(by, t_us, None),
                by.name()
            );
            return self.flag_win(by, detail);
        };
        let during_claim = during_claim(own);
        // The facts in order: both flags (earliest first), the notice and the claim; a flag
        // that fell during the claim comes after the notice.
        let mut first = [(flagged, fell), (by, own)];
        first.sort_by_key(|(_, t)| *t);
        let detail = if during_claim {
            format!(
                "both flags down: {} flag fell at {}{}",
                flagged.name(),
                secs(fell),
                self.claim_facts(by, t_us, Some(own)),
            )
        } else {
            format!(
                "both flags down: {} flag fell at {}, {} flag at {}{}",
                first[0].0.name(),
                secs(first[0].1),
                first[1].0.name(),
                secs(first[1].1),
                self.claim_facts(by, t_us, None)
            )
        };
        match ruleset {
            // FIDE: the digital clock shows which flag fell first; that side loses, subject to 6.9.
            Ruleset::Fide => {
                let (first, _) = if fell <= own {
                    (flagged, own)
                } else {
                    (by, fell)
                };
                let winner = first.other();
                if self.chance(winner).suffices() {
                    self.end(
                        GameResult::win_for(winner),
                        Termination::BothFlags,
                        Situation::FirstFlagLoses,
                        detail,
                    )
                } else {
                    self.end(
                        GameResult::Draw,
                        Termination::BothFlags,
                        Situation::FlagNoMaterial,
                        detail,
                    )
                }
            }
            // H11, G§2, WBCA 8c, USCF 7c/8c: the claimant's own flag fell before its claim
            // completed: the claim is void, a draw.
            _ if during_claim => self.end(
                GameResult::Draw,
                Termination::BothFlags,
                Situation::OwnFlagDuringClaim,
                detail,
            ),
            // H8/H25, G§2, WBCA 8c, USCF 8c: both flags down before either is claimed: a draw.
            _ => self.end(
                GameResult::Draw,
                Termination::BothFlags,
                Situation::BothFlags,
                detail,
            ),
        }
    }

    /// A flag claim by `by` after `mater` mated with its flag down unnoticed (`own`: the
    /// claimant's own flag, if it had fallen by the claim).
    fn rule_claim_after_flagged_mate(
        &mut self,
        mater: Side,
        by: Side,
        t_us: i64,
        own: Option<i64>,
    ) -> Verdict {
        let noticed = self.flag_noticed[by];
        let during_claim = |own: i64| noticed.is_some_and(|noticed| own > noticed);
        // The facts in order: the mater's flag, the mate, the other flag if it fell before
        // the notice, the notice and the claim, the other flag if it fell during the claim.
        let mated = mater.other();
        let mut detail = format!(
            "{} flag fell at {} unnoticed; {} mated {} at {}",
            mater.name(),
            secs(self.flags[mater].unwrap_or_default()),
            mater.name(),
            mated.name(),
            secs(self.last_move_us)
        );
        let mated_fell = self.flags[mated].filter(|t| *t <= t_us);
        let late = |t: i64| by == mated && noticed.is_some_and(|n| t > n);
        if let Some(t) = mated_fell.filter(|t| !late(*t)) {
            detail.push_str(&format!("; {} flag fell at {}", mated.name(), secs(t)));
        }
        detail.push_str(&self.claim_facts(by, t_us, mated_fell.filter(|t| late(*t))));
        let (termination, situation) = match own {
            // H13: the mated side, its own flag up, claims the win on noticing. (Only the
            // mated side's flag can be up here: the mater's fell before its mate.)
            None => {
                return self.end(
                    GameResult::win_for(by),
                    Termination::Flag,
                    Situation::MatedClaimsOnTime,
                    detail,
                )
            }
            // H14: a draw if its own flag fell while it claimed.
            Some(own) if by != mater && during_claim(own) => {
                (Termination::BothFlags, Situation::MatedClaimsOnTimeTooLate)
            }
            // H8: otherwise both flags were down before the claim (the mater's fell before
            // its mate; the mated side's before it noticed, or the mater claims it).
            _ => (Termination::BothFlags, Situation::BothFlags),
        };
        self.end(GameResult::Draw, termination, situation, detail)
    }

    /// `; black noticed it at 2.000 s and claimed; the claim completed at 2.800 s`: who
    /// noticed the opponent's flag, when, and when its claim completed at `t_us`; with
    /// `own_during`, the claimant's own flag that fell before the claim completed, in its place
    /// in time (`; black flag fell at 2.500 s, before its claim completed at 2.800 s`).
    fn claim_facts(&self, by: Side, t_us: i64, own_during: Option<i64>) -> String {
        if let Some(said) = &self.tablebase_call {
            let own = own_during.map_or_else(String::new, |own| {
                format!("; {} flag fell at {}", by.name(), secs(own))
            });
            return format!(
                "{own}; not claimed before the tablebase adjudication at {} ({said}): the flag \
                 counts",
                secs(t_us)
            );
        }
        if let (Some(n), Some(own)) = (self.flag_noticed[by], own_during) {
            return format!(
                "; {} noticed it at {} and claimed; {} flag fell at {}, before its claim \
                 completed at {}",
                by.name(),
                secs(n),
                by.name(),
                secs(own),
                secs(t_us)
            );
        }
        match self.flag_noticed[by] {
            Some(n) if n == t_us => {
                format!("; {} noticed it and claimed at {}", by.name(), secs(n))
            }
            Some(n) => format!(
                "; {} noticed it at {} and claimed; the claim completed at {}",
                by.name(),
                secs(n),
                secs(t_us)
            ),
            None => format!("; {} claimed at {}", by.name(), secs(t_us)),
        }
    }

    fn flag_win(&mut self, claimant: Side, mut detail: String) -> Verdict {
        // fastchess: a time loss whatever the material (`--flag-always-loses`).
        let chance = if self.settings.flag_always_loses {
            MatingChance::Yes
        } else {
            self.chance(claimant)
        };
        if chance == MatingChance::Undetermined {
            detail.push_str("; mating chances undetermined (search limit), claimant given the win");
        }
        if chance.suffices() {
            self.end(
                GameResult::win_for(claimant),
                Termination::Flag,
                Situation::FlagWin,
                detail,
            )
        } else {
            detail.push_str(&format!("; {} cannot mate", claimant.name()));
            self.end(
                GameResult::Draw,
                Termination::Flag,
                Situation::FlagNoMaterial,
                detail,
            )
        }
    }

    /// `by` claims that its opponent's illegal move (pending, or standing) was illegal, or
    /// captured the king the opponent left in check.
    fn rule_noticed_illegal(&mut self, by: Side, what: Claimable) -> Verdict {
        let ruleset = self.settings.ruleset;
        let offender = by.other();
        // FIDE: capturing the king is itself an illegal move, by the capturer.
        if ruleset == Ruleset::Fide && what == Claimable::KingCapture {
            return self.fide_illegal(by, "captured the king".to_string(), None);
        }
        let (uci, kind) = match (&self.pending_illegal, &self.stood) {
            (Some(p), _) if p.side == offender => (
                format!("{:?}: {}", p.uci, p.reason),
                p.illegal.as_ref().map(|i| i.kind),
            ),
            (_, Some((side, kind, _))) if *side == offender => {
                ("an illegal move earlier".to_string(), *kind)
            }
            // Nothing the opponent did can be claimed (any more).
            _ => return Verdict::Continue,
        };
        // USCF 7d: "A player who moves his king adjacent to the opponent's king and then
        // attempts to claim a win under this rule based on the opponent's failure to notice the
        // check shall lose the game."
        if ruleset == Ruleset::Uscf && self.moved_king_adjacent[by] {
            self.pending_illegal = None;
            return self.end(
                GameResult::win_for(offender),
                Termination::IllegalMove,
                Situation::KingsAdjacentClaim,
                format!(
                    "{} moved its king next to the other king, then claimed that {} left its \
                     king in check",
                    by.name(),
                    offender.name()
                ),
            );
        }
        if ruleset == Ruleset::Fide {
            return self.fide_illegal(offender, format!("played {uci}"), kind);
        }
        let detail = match what {
            Claimable::KingCapture => format!(
                "{} captured the king {} left in check",
                by.name(),
                offender.name()
            ),
            _ => format!("{} played {uci}; claimed by {}", offender.name(), by.name()),
        };
        self.pending_illegal = None;
        let s = match what {
            // WBCA 16: the king moved next to the other king; its capture is 16's claim.
            Claimable::KingCapture if kind == Some(IllegalKind::KingsAdjacent) => {
                Situation::KingCaptureKingsAdjacent
            }
            Claimable::KingCapture => Situation::KingCapture,
            _ => Situation::illegal(kind),
        };
        if ruleset == Ruleset::House {
            if let Some(verdict) = self.house_h20(by, &detail) {
                return verdict;
            }
            // H3.4, H16-H19, H26: the offender loses whatever the material.
            return self.end(GameResult::win_for(by), Termination::IllegalMove, s, detail);
        }
        // G§3, WBCA 14/8f, USCF 7d/8d: the offender loses if the claimant could still win.
        let chance = self.chance(by);
        if chance.suffices() {
            self.end(GameResult::win_for(by), Termination::IllegalMove, s, detail)
        } else {
            self.end(
                GameResult::Draw,
                Termination::IllegalMove,
                Situation::IllegalNoMaterial,
                format!("{detail}; {} cannot mate", by.name()),
            )
        }
    }

    /// H20: "the player who has left his King in check loses the game, provided that both
    /// players agree that neither flag had fallen before the player who made the illegal move
    /// punched his clock; if, however, the players cannot agree as to when the flag fell, the
    /// game must be declared as lost for the player whose flag fell" (H19: any illegal move).
    /// The arena knows the order: when the claimant's own flag, and only its, fell before the
    /// illegal move was completed, the claimant loses.
    fn house_h20(&mut self, by: Side, detail: &str) -> Option<Verdict> {
        let illegal_at = self.last_move_us;
        let own = self.flags[by].filter(|t| *t <= illegal_at)?;
        if self.flags[by.other()].is_some_and(|t| t <= illegal_at) {
            return None; // both flags were down before it: not H20's case
        }
        Some(self.end(
            GameResult::win_for(by.other()),
            Termination::Flag,
            Situation::OwnFlagBeforeIllegal,
            format!(
                "{} flag fell at {}, before {}'s illegal move was completed at {}; {detail}",
                by.name(),
                secs(own),
                by.other().name(),
                secs(illegal_at)
            ),
        ))
    }

    /// FIDE A4.2, 7.5.5: the first completed illegal move is taken back, the offender
    /// moves again and its opponent gets one minute; the second loses, or draws when the
    /// opponent could not mate (7.5.5). A promotion without its piece stands as a queen (7.5.2).
    fn fide_illegal(&mut self, offender: Side, what: String, kind: Option<IllegalKind>) -> Verdict {
        self.illegal_count[offender] += 1;
        let claimant = offender.other();
        if self.illegal_count[offender] >= 2 {
            self.pending_illegal = None;
            let detail = format!("{} {what}: its second illegal move", offender.name());
            return if self.chance(claimant).suffices() {
                self.end(
                    GameResult::win_for(claimant),
                    Termination::IllegalMove,
                    Situation::illegal(kind),
                    detail,
                )
            } else {
                self.end(
                    GameResult::Draw,
                    Termination::IllegalMove,
                    Situation::IllegalNoMaterial,
                    format!("{detail}; {} cannot mate", claimant.name()),
                )
            };
        }
        let pending = self.pending_illegal.take();
        if kind == Some(IllegalKind::NoPromotion) {
            if let Some(Some(illegal)) = pending.as_ref().map(|p| p.illegal.clone()) {
                let verdict = self.stand_as_queen(&illegal);
                if verdict != Verdict::Continue {
                    return verdict;
                }
                return Verdict::Penalty {
                    side: claimant,
                    add_us: 60_000_000,
                    rule: cite(Ruleset::Fide, Situation::illegal(kind)),
                    retake: false,
                };
            }
        }
        // A standing illegal move claimed later: the position before it is restored.
        if pending.is_none() {
            if let Some((side, stood_kind, snapshot)) = self.stood.take() {
                if side == offender {
                    self.pos = snapshot.pos;
                    self.legal_known = false;
                    self.stamp = next_stamp();
                    self.history = snapshot.history;
                    self.checks = snapshot.checks;
                    self.plies = snapshot.plies;
                    self.a54_watch = false;
                    self.moved_king_adjacent = BySide::default();
                } else {
                    self.stood = Some((side, stood_kind, snapshot));
                }
            }
        }
        Verdict::Penalty {
            side: claimant,
            add_us: 60_000_000,
            rule: cite(Ruleset::Fide, Situation::illegal(kind)),
            retake: true,
        }
    }

    /// `--tb`: the tables' verdict on the position after the last move ends the game, as
    /// cutechess-cli and fastchess end it (a cursed win is a draw under the 50-move rule). The
    /// clock keeps its role: a flag that fell before it still counts, ruled by the ruleset as a
    /// claim completed at the adjudication (the first to fall, by the other side).
    fn on_tablebase(&mut self, material: &str, verdict: TbVerdict, t_us: i64) -> Verdict {
        let said = verdict.describe(material);
        let first_down = (self.flags.iter_sides())
            .filter_map(|(side, t)| t.map(|t| (t, side)))
            .min_by_key(|(t, _)| *t);
        if let Some((_, flagged)) = first_down {
            self.tablebase_call = Some(said);
            let verdict = self.rule_flag_claim(flagged.other(), t_us);
            self.tablebase_call = None;
            return verdict;
        }
        self.end(
            verdict.result(),
            Termination::Tablebase,
            Situation::Tablebase,
            format!("tablebase: {said}"),
        )
    }

    /// A flag fell (noticed by the opponent's watcher, after its delay: docs/architecture.md).
    fn on_flag(&mut self, side: Side, t_us: i64) -> Verdict {
        if self.flags[side].is_some() {
            return Verdict::Continue;
        }
        self.flags[side] = Some(t_us);
        if let Some(verdict) = self.wbca_8c(side, t_us) {
            return verdict;
        }
        if self.settings.ruleset == Ruleset::Online {
            // Online: the server sees the flag at once; lichess's material rule.
            return self.flag_win(
                side.other(),
                format!(
                    "{} flag fell at {}: the server ends the game at once",
                    side.name(),
                    secs(t_us)
                ),
            );
        }
        Verdict::FlagDown { side }
    }

    /// WBCA 8c: "A game is a draw ... If the flag of one player falls after the flag of the
    /// other player has already fallen and a win has not been claimed": drawn the moment the
    /// second flag falls, whatever follows (unlike USCF 8c, a later mate does not stand). A
    /// claim of the first flag already under way is ruled when it completes (8c too).
    fn wbca_8c(&mut self, side: Side, t_us: i64) -> Option<Verdict> {
        if self.settings.ruleset != Ruleset::Wbca || self.flag_noticed[side].is_some() {
            return None;
        }
        let first = self.flags[side.other()]?;
        Some(self.end(
            GameResult::Draw,
            Termination::BothFlags,
            Situation::BothFlags,
            format!(
                "both flags down: {} flag fell at {}, {} flag at {}, and no win was claimed",
                side.other().name(),
                secs(first),
                side.name(),
                secs(t_us)
            ),
        ))
    }

    fn on_fault(&mut self, side: Side, fault: &Fault, detail: &str) -> Verdict {
        match fault {
            // An engine that hangs loses as its flag falls (the flag claim rules the game).
            Fault::Stall => {
                let flagged = self.flags[side].is_some();
                let mut verdict = if flagged {
                    self.flag_win(side.other(), format!("{} flag fell", side.name()))
                } else {
                    self.end(
                        GameResult::win_for(side.other()),
                        Termination::EngineStall,
                        Situation::EngineCrash,
                        String::new(),
                    )
                };
                if let Verdict::End(ending) = &mut verdict {
                    ending.termination = Termination::EngineStall;
                    ending.detail = format!("{}; {detail}", ending.detail);
                }
                verdict
            }
            Fault::Crash { .. } | Fault::StartFailed => self.end(
                GameResult::win_for(side.other()),
                Termination::EngineCrash,
                Situation::EngineCrash,
                format!("{}: {detail}", side.name()),
            ),
        }
    }

    fn refine_stall(&mut self, side: Side) {
        if let Some(ending) = &mut self.ending {
            if matches!(
                ending.termination,
                Termination::Flag | Termination::BothFlags
            ) {
                ending.termination = Termination::EngineStall;
                ending
                    .detail
                    .push_str(&format!("; {} did not answer stop", side.name()));
            }
        }
    }
}

/// An instant of the game in seconds, for details: `1.000 s`.
fn secs(us: i64) -> String {
    format!("{:.3} s", us as f64 / 1e6)
}

/// The part of `pos`'s zobrist key (as `zobrist_hash` with the legal en passant square makes
/// it) that a move can change besides the pieces and the side to move: the castling rights
/// and the en passant square.
pub(super) fn key_rights(pos: &Chess) -> Zobrist64 {
    let mut key = Zobrist64(0);
    let castles = pos.castles();
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if castles.has(color, side) {
                key ^= Zobrist64::zobrist_for_castling_right(color, side);
            }
        }
    }
    if let Some(square) = pos.ep_square(EnPassantMode::Legal) {
        key ^= Zobrist64::zobrist_for_en_passant_file(square.file());
    }
    key
}

/// `key`, the zobrist key of `pos`, with what the legal move `m` changes of it but the castling
/// rights and en passant square after it: the pieces it moves, takes and promotes, the side
/// to move, and `pos`'s own rights and square taken out. XOR'd with [`key_rights`] of the
/// position after `m`, it is that position's key. `None` for castling (left to `zobrist_hash`).
pub(super) fn key_moved(pos: &Chess, key: Zobrist64, m: Move) -> Option<Zobrist64> {
    let us = pos.turn();
    let piece = |square, role: Role, color| Zobrist64::zobrist_for_piece(square, role.of(color));
    let mut key = key ^ key_rights(pos) ^ Zobrist64::zobrist_for_white_turn();
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            key ^= piece(from, role, us) ^ piece(to, promotion.unwrap_or(role), us);
            if let Some(taken) = capture {
                key ^= piece(to, taken, !us);
            }
        }
        Move::EnPassant { from, to } => {
            let taken = Square::from_coords(to.file(), from.rank());
            key ^= piece(from, Role::Pawn, us) ^ piece(to, Role::Pawn, us);
            key ^= piece(taken, Role::Pawn, !us);
        }
        Move::Castle { .. } | Move::Put { .. } => return None,
    }
    Some(key)
}

/// A move of `pos` in UCI notation, as the engines are sent it (castling as `pos` plays it:
/// king to the rook's square in Chess960). Written straight into the string: through `Display`
/// each character went through the formatter, several hundred instructions a move.
pub fn uci_text(pos: &Chess, m: Move) -> String {
    uci_text_in(pos, m, String::with_capacity(5))
}

/// [`uci_text`], written over `buffer` (the text the engine sent, whose allocation is reused:
/// one allocation a move fewer, and one free).
pub fn uci_text_in(pos: &Chess, m: Move, mut buffer: String) -> String {
    buffer.clear();
    match m {
        // What shakmaty writes for them, byte by byte (its `UciMove` costs four times the
        // instructions): the squares, and a promotion's lowercase letter.
        Move::Normal {
            from,
            to,
            promotion,
            ..
        } => {
            for square in [from, to] {
                buffer.push(square.file().char());
                buffer.push(square.rank().char());
            }
            if let Some(role) = promotion {
                buffer.push(role.char());
            }
        }
        // Castling's text depends on the castling mode; en passant is rare.
        _ => m.to_uci(pos.castles().mode()).append_to_string(&mut buffer),
    }
    buffer
}

/// Parses `text` as a UCI move and checks it is legal in `pos`; the error says why not.
pub fn legal_move(pos: &Chess, text: &str) -> Result<Move, String> {
    match illegal::check(pos, text) {
        MoveCheck::Legal(m) => Ok(m),
        MoveCheck::Illegal(i) => Err(i.reason),
        MoveCheck::Unplayable { reason } => Err(reason),
    }
}

#[cfg(test)]
#[path = "known_legal_tests.rs"]
mod known_legal_tests;
