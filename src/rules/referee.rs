//! The referee: a pure fold over a game's events that decides when and how the game ends.
//!
//! It holds the board and the counters that the rules need (repetitions, adjudication
//! streaks, fallen flags), never a clock or a process: the real-time loop reports what
//! happened, and the referee says what it means. The same events re-ruled under another
//! ruleset give that ruleset's ruling.

use std::str::FromStr;

use serde::{Deserialize, Serialize};
use shakmaty::uci::UciMove;
use shakmaty::zobrist::Zobrist64;
use shakmaty::{Chess, EnPassantMode, Move, Position};

use super::cite::{cite, Situation};
use super::material::{can_mate, MatingChance};
use super::Ruleset;
use crate::event::{Event, Fault, GameResult, Side, Termination};

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
}

impl Default for RefereeSettings {
    fn default() -> Self {
        RefereeSettings {
            ruleset: Ruleset::Fide,
            max_moves: None,
            adjudication: Adjudication::default(),
            claim_draws: true,
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

/// Rules one game, event by event.
#[derive(Clone, Debug)]
pub struct Referee {
    settings: RefereeSettings,
    pos: Chess,
    /// Zobrist keys of the positions since the last irreversible move, the current one last.
    history: Vec<Zobrist64>,
    /// Plies of the game proper (opening moves not counted).
    plies: u32,
    draw_streak: u32,
    /// Consecutive moves with a score at or below `-score`, and at or above `+score`.
    losing_streak: [u32; 2],
    winning_streak: [u32; 2],
    ending: Option<Ending>,
}

impl Referee {
    /// A referee for a game that starts at `pos`; `history` holds the positions that came
    /// before it (opening moves), for repetitions.
    pub fn new(settings: RefereeSettings, pos: Chess, history: Vec<Zobrist64>) -> Referee {
        let mut history = history;
        history.push(pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
        Referee {
            settings,
            pos,
            history,
            plies: 0,
            draw_streak: 0,
            losing_streak: [0; 2],
            winning_streak: [0; 2],
            ending: None,
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

    pub fn position(&self) -> &Chess {
        &self.pos
    }

    pub fn turn(&self) -> Side {
        self.pos.turn().into()
    }

    pub fn plies(&self) -> u32 {
        self.plies
    }

    pub fn ending(&self) -> Option<&Ending> {
        self.ending.as_ref()
    }

    pub fn ruleset(&self) -> Ruleset {
        self.settings.ruleset
    }

    /// Checks an engine's `bestmove` text against the current position: the move, or why it is
    /// illegal.
    pub fn check_move(&self, text: &str) -> Result<Move, String> {
        legal_move(&self.pos, text)
    }

    /// Takes one event into account; returns the ending once the game is over.
    pub fn apply(&mut self, event: &Event) -> Option<&Ending> {
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
            return self.ending.as_ref();
        }
        let ending = match event {
            Event::Go { .. } | Event::End { .. } => None,
            Event::Move {
                side, uci, info, ..
            } => self.on_move(*side, uci, info.score),
            Event::IllegalMove {
                side, uci, reason, ..
            } => Some(self.on_illegal(*side, uci, reason)),
            Event::FlagFall { side, .. } => Some(self.on_flag(*side)),
            Event::EngineFault {
                side,
                fault,
                detail,
                ..
            } => Some(self.on_fault(*side, fault, detail)),
        };
        self.ending = ending;
        self.ending.as_ref()
    }

    fn ending_for(
        &self,
        result: GameResult,
        termination: Termination,
        s: Situation,
        detail: String,
    ) -> Ending {
        Ending {
            result,
            termination,
            rule: cite(self.settings.ruleset, s).to_string(),
            detail,
        }
    }

    fn on_move(
        &mut self,
        side: Side,
        uci: &str,
        score: Option<crate::event::Score>,
    ) -> Option<Ending> {
        let m = match legal_move(&self.pos, uci) {
            Ok(m) => m,
            // A record whose Move is illegal was not written by this arena; rule it as illegal.
            Err(reason) => return Some(self.on_illegal(side, uci, &reason)),
        };
        if self.pos.is_irreversible(m) {
            self.history.clear();
        }
        self.pos.play_unchecked(m);
        self.history
            .push(self.pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal));
        self.plies += 1;
        let online = self.settings.ruleset == Ruleset::Online;
        let claims = self.settings.claim_draws || online;

        // FIDE 5.1.1: checkmate ends the game at once; it takes precedence over 9.3 and 9.6.2.
        if self.pos.is_checkmate() {
            return Some(self.ending_for(
                GameResult::win_for(side),
                Termination::Checkmate,
                Situation::Checkmate,
                String::new(),
            ));
        }
        // FIDE 5.2.1: stalemate.
        if self.pos.is_stalemate() {
            return Some(self.ending_for(
                GameResult::Draw,
                Termination::Stalemate,
                Situation::Stalemate,
                String::new(),
            ));
        }
        // FIDE 5.2.2: neither side can mate with the material left.
        if self.pos.is_insufficient_material() {
            return Some(self.ending_for(
                GameResult::Draw,
                Termination::InsufficientMaterial,
                Situation::DeadPosition,
                String::new(),
            ));
        }
        let repetitions = self.repetitions();
        // FIDE 9.6.1: the fifth occurrence ends the game without a claim.
        if repetitions >= 5 {
            return Some(self.ending_for(
                GameResult::Draw,
                Termination::Fivefold,
                Situation::Fivefold,
                String::new(),
            ));
        }
        // FIDE 9.6.2: 75 moves by each side without a capture or pawn move.
        if self.pos.halfmoves() >= 150 {
            return Some(self.ending_for(
                GameResult::Draw,
                Termination::SeventyFiveMoves,
                Situation::SeventyFiveMoves,
                String::new(),
            ));
        }
        // FIDE 9.2 / 9.3: the watcher of the side to move claims as soon as it may.
        if claims && repetitions >= 3 {
            return Some(self.ending_for(
                GameResult::Draw,
                Termination::Threefold,
                Situation::Threefold,
                String::new(),
            ));
        }
        if claims && self.pos.halfmoves() >= 100 {
            return Some(self.ending_for(
                GameResult::Draw,
                Termination::FiftyMoves,
                Situation::FiftyMoves,
                String::new(),
            ));
        }
        if let Some(max) = self.settings.max_moves {
            if self.plies >= 2 * max {
                return Some(self.ending_for(
                    GameResult::Draw,
                    Termination::MaxMoves,
                    Situation::MaxMoves,
                    format!("{max} moves played"),
                ));
            }
        }
        self.adjudicate(side, score)
    }

    /// How often the current position has occurred (FIDE 9.2.2: same side to move, same
    /// castling and en passant possibilities; the zobrist key covers exactly those).
    fn repetitions(&self) -> usize {
        let current = self.history.last().copied();
        self.history.iter().filter(|k| Some(**k) == current).count()
    }

    /// cutechess conventions for score adjudication.
    fn adjudicate(&mut self, side: Side, score: Option<crate::event::Score>) -> Option<Ending> {
        let adj = self.settings.adjudication;
        let Some(cp) = score.map(|s| s.as_cp()) else {
            // An engine that reports no score breaks every streak.
            self.draw_streak = 0;
            self.losing_streak = [0; 2];
            self.winning_streak = [0; 2];
            return None;
        };
        if let Some(draw) = adj.draw {
            if cp.abs() <= draw.score {
                self.draw_streak += 1;
            } else {
                self.draw_streak = 0;
            }
            let full_moves = self.plies / 2;
            if full_moves >= draw.movenumber && self.draw_streak >= 2 * draw.movecount {
                return Some(self.ending_for(
                    GameResult::Draw,
                    Termination::Adjudication,
                    Situation::DrawAdjudication,
                    format!(
                        "both scores within {} cp for {} moves",
                        draw.score, draw.movecount
                    ),
                ));
            }
        }
        if let Some(resign) = adj.resign {
            let i = side.index();
            self.losing_streak[i] = if cp <= -resign.score {
                self.losing_streak[i] + 1
            } else {
                0
            };
            self.winning_streak[i] = if cp >= resign.score {
                self.winning_streak[i] + 1
            } else {
                0
            };
            let loser_done = self.losing_streak[i] >= resign.movecount;
            let winner_done =
                !resign.twosided || self.winning_streak[side.other().index()] >= resign.movecount;
            if loser_done && winner_done {
                return Some(self.ending_for(
                    GameResult::win_for(side.other()),
                    Termination::Adjudication,
                    Situation::ResignAdjudication,
                    format!(
                        "{} scored {} cp or worse for {} moves",
                        side.name(),
                        -resign.score,
                        resign.movecount
                    ),
                ));
            }
        }
        None
    }

    /// An illegal move completed and noticed: the offender loses (H3.4, WBCA 14, USCF 7d, the
    /// engine-testing convention).
    fn on_illegal(&mut self, side: Side, uci: &str, reason: &str) -> Ending {
        self.ending_for(
            GameResult::win_for(side.other()),
            Termination::IllegalMove,
            Situation::IllegalMove,
            format!("{} played {uci:?}: {reason}", side.name()),
        )
    }

    /// A flag fell and was noticed at once: the opponent wins if it could still mate, else the
    /// game is drawn (FIDE 6.9, WBCA 7c/8f, USCF 7c/8d, G§2; H3.1 regardless of material).
    fn on_flag(&mut self, side: Side) -> Ending {
        let claimant = side.other();
        let chance = can_mate(self.settings.ruleset, &self.pos, claimant.into());
        let mut detail = format!("{} flag fell", side.name());
        if chance == MatingChance::Undetermined {
            detail.push_str("; mating chances undetermined (search limit), claimant given the win");
        }
        if chance.suffices() {
            self.ending_for(
                GameResult::win_for(claimant),
                Termination::Flag,
                Situation::FlagWin,
                detail,
            )
        } else {
            detail.push_str(&format!("; {} cannot mate", claimant.name()));
            self.ending_for(
                GameResult::Draw,
                Termination::Flag,
                Situation::FlagNoMaterial,
                detail,
            )
        }
    }

    fn on_fault(&mut self, side: Side, fault: &Fault, detail: &str) -> Ending {
        match fault {
            // An engine that hangs loses as its flag falls.
            Fault::Stall => {
                let mut ending = self.on_flag(side);
                ending.termination = Termination::EngineStall;
                ending.detail = format!("{}; {detail}", ending.detail);
                ending
            }
            Fault::Crash { .. } | Fault::StartFailed => self.ending_for(
                GameResult::win_for(side.other()),
                Termination::EngineCrash,
                Situation::EngineCrash,
                format!("{}: {detail}", side.name()),
            ),
        }
    }

    fn refine_stall(&mut self, side: Side) {
        if let Some(ending) = &mut self.ending {
            if ending.termination == Termination::Flag && ending.detail.starts_with(side.name()) {
                ending.termination = Termination::EngineStall;
                ending.detail.push_str("; the engine did not answer stop");
            }
        }
    }
}

/// Parses `text` as a UCI move and checks it is legal in `pos`; the error says why not.
pub fn legal_move(pos: &Chess, text: &str) -> Result<Move, String> {
    let uci =
        UciMove::from_ascii(text.as_bytes()).map_err(|_| format!("{text:?} is not a UCI move"))?;
    if matches!(uci, UciMove::Null) {
        return Err("0000 (no move) while legal moves exist".to_string());
    }
    uci.to_move(pos)
        .map_err(|_| format!("{text} is not legal in this position"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Score, SearchInfo};
    use shakmaty::{fen::Fen, CastlingMode};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    fn mv(side: Side, uci: &str) -> Event {
        Event::Move {
            t_us: 0,
            side,
            uci: uci.into(),
            think_us: 0,
            clock_us: 0,
            info: SearchInfo::default(),
        }
    }

    fn scored(side: Side, uci: &str, cp: i32) -> Event {
        Event::Move {
            t_us: 0,
            side,
            uci: uci.into(),
            think_us: 0,
            clock_us: 0,
            info: SearchInfo {
                score: Some(Score::Cp(cp)),
                ..SearchInfo::default()
            },
        }
    }

    fn play(referee: &mut Referee, moves: &str) -> Option<Ending> {
        let mut side = referee.turn();
        for m in moves.split_whitespace() {
            if let Some(e) = referee.apply(&mv(side, m)) {
                return Some(e.clone());
            }
            side = side.other();
        }
        None
    }

    fn referee(ruleset: Ruleset) -> Referee {
        Referee::new(
            RefereeSettings {
                ruleset,
                ..RefereeSettings::default()
            },
            Chess::default(),
            Vec::new(),
        )
    }

    #[test]
    fn fools_mate_is_checkmate() {
        let mut r = referee(Ruleset::Fide);
        let e = play(&mut r, "f2f3 e7e5 g2g4 d8h4").unwrap();
        assert_eq!(e.result, GameResult::BlackWins);
        assert_eq!(e.termination, Termination::Checkmate);
        assert_eq!(e.rule, "FIDE 5.1.1");
    }

    #[test]
    fn threefold_is_claimed_at_once_and_fivefold_needs_no_claim() {
        let shuffle = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8";
        let e = play(&mut referee(Ruleset::Fide), shuffle).unwrap();
        assert_eq!(
            (e.termination, e.rule.as_str()),
            (Termination::Threefold, "FIDE 9.2")
        );

        let mut r = Referee::new(
            RefereeSettings {
                claim_draws: false,
                ..RefereeSettings::default()
            },
            Chess::default(),
            Vec::new(),
        );
        let e = play(&mut r, &format!("{shuffle} {shuffle}")).unwrap();
        assert_eq!(
            (e.termination, e.rule.as_str()),
            (Termination::Fivefold, "FIDE 9.6.1")
        );
        assert_eq!(r.plies(), 16);
    }

    #[test]
    fn stalemate_and_insufficient_material() {
        let mut r = Referee::new(
            RefereeSettings::default(),
            pos("7k/8/6Q1/8/8/8/8/K7 w - - 0 1"),
            vec![],
        );
        let e = play(&mut r, "g6f7").unwrap();
        assert_eq!(
            (e.result, e.termination),
            (GameResult::Draw, Termination::Stalemate)
        );

        let mut r = Referee::new(
            RefereeSettings::default(),
            pos("7k/8/8/8/8/8/r7/KN6 w - - 0 1"),
            vec![],
        );
        let e = play(&mut r, "a1a2").unwrap();
        assert_eq!(e.termination, Termination::InsufficientMaterial);
    }

    #[test]
    fn fifty_move_rule_is_claimed_and_seventy_five_is_automatic() {
        let fen = "7k/8/8/8/8/8/R7/K7 w - - 99 80";
        let mut r = Referee::new(RefereeSettings::default(), pos(fen), vec![]);
        assert_eq!(
            play(&mut r, "a2b2").unwrap().termination,
            Termination::FiftyMoves
        );

        let settings = RefereeSettings {
            claim_draws: false,
            ..RefereeSettings::default()
        };
        let mut r = Referee::new(settings, pos("7k/8/8/8/8/8/R7/K7 w - - 149 80"), vec![]);
        assert_eq!(
            play(&mut r, "a2b2").unwrap().termination,
            Termination::SeventyFiveMoves
        );
    }

    #[test]
    fn mate_on_the_hundredth_ply_beats_the_fifty_move_rule() {
        // FIDE 9.3 / 9.6.2: unless the last move resulted in checkmate.
        let mut r = Referee::new(
            RefereeSettings::default(),
            pos("6k1/5ppp/8/8/8/8/8/R5K1 w - - 99 80"),
            vec![],
        );
        assert_eq!(
            play(&mut r, "a1a8").unwrap().termination,
            Termination::Checkmate
        );
    }

    #[test]
    fn max_moves_counts_full_moves_of_the_game() {
        let mut r = Referee::new(
            RefereeSettings {
                max_moves: Some(2),
                ..RefereeSettings::default()
            },
            Chess::default(),
            vec![],
        );
        assert!(play(&mut r, "e2e4 e7e5 g1f3").is_none());
        let e = r.apply(&mv(Side::Black, "b8c6")).unwrap();
        assert_eq!(e.termination, Termination::MaxMoves);
    }

    #[test]
    fn illegal_move_loses_and_null_move_is_illegal() {
        let mut r = referee(Ruleset::Fide);
        assert!(r.check_move("e2e5").is_err());
        assert!(r.check_move("0000").unwrap_err().contains("no move"));
        assert!(r.check_move("zz").unwrap_err().contains("not a UCI move"));
        let e = r
            .apply(&Event::IllegalMove {
                t_us: 0,
                side: Side::White,
                uci: "e2e5".into(),
                think_us: 0,
                clock_us: 0,
                reason: "illegal".into(),
            })
            .unwrap();
        assert_eq!(e.result, GameResult::BlackWins);
        assert_eq!(e.termination, Termination::IllegalMove);
    }

    #[test]
    fn flag_loses_unless_the_opponent_cannot_mate() {
        // Black (bare king) flags against K+R: white wins.
        let mut r = Referee::new(
            RefereeSettings::default(),
            pos("7k/8/8/8/8/8/R7/K7 b - - 0 1"),
            vec![],
        );
        let e = r
            .apply(&Event::FlagFall {
                t_us: 5,
                side: Side::Black,
            })
            .unwrap();
        assert_eq!(
            (e.result, e.termination, e.rule.as_str()),
            (GameResult::WhiteWins, Termination::Flag, "FIDE 6.9")
        );
        // White (K+R) flags against a bare king: black cannot mate, draw.
        let mut r = Referee::new(
            RefereeSettings::default(),
            pos("7k/8/8/8/8/8/R7/K7 w - - 0 1"),
            vec![],
        );
        let e = r
            .apply(&Event::FlagFall {
                t_us: 5,
                side: Side::White,
            })
            .unwrap();
        assert_eq!(
            (e.result, e.termination),
            (GameResult::Draw, Termination::Flag)
        );
    }

    #[test]
    fn stall_after_flag_becomes_engine_stall() {
        let mut r = referee(Ruleset::Fide);
        r.apply(&Event::FlagFall {
            t_us: 5,
            side: Side::White,
        });
        let e = r
            .apply(&Event::EngineFault {
                t_us: 6,
                side: Side::White,
                fault: Fault::Stall,
                detail: "no answer to stop".into(),
            })
            .unwrap();
        assert_eq!(
            (e.result, e.termination),
            (GameResult::BlackWins, Termination::EngineStall)
        );
    }

    #[test]
    fn crash_loses() {
        let mut r = referee(Ruleset::Online);
        let e = r
            .apply(&Event::EngineFault {
                t_us: 6,
                side: Side::Black,
                fault: Fault::Crash { status: Some(101) },
                detail: "exit status 101".into(),
            })
            .unwrap();
        assert_eq!(
            (e.result, e.termination),
            (GameResult::WhiteWins, Termination::EngineCrash)
        );
    }

    #[test]
    fn draw_adjudication_follows_cutechess() {
        let settings = RefereeSettings {
            adjudication: Adjudication {
                draw: Some("movenumber=2,movecount=2,score=10".parse().unwrap()),
                resign: None,
            },
            ..RefereeSettings::default()
        };
        let mut r = Referee::new(settings, Chess::default(), vec![]);
        let moves = ["g1f3", "g8f6", "b1c3", "b8c6"];
        let mut side = Side::White;
        let mut ended_at = None;
        for (i, m) in moves.iter().enumerate() {
            if let Some(e) = r.apply(&scored(side, m, 5)) {
                assert_eq!(e.termination, Termination::Adjudication);
                ended_at = Some(i + 1);
                break;
            }
            side = side.other();
        }
        assert_eq!(ended_at, Some(4), "2 moves each within 10 cp, after move 2");
    }

    #[test]
    fn resign_adjudication_follows_cutechess() {
        let settings = RefereeSettings {
            adjudication: Adjudication {
                draw: None,
                resign: Some("movecount=2,score=500".parse().unwrap()),
            },
            ..RefereeSettings::default()
        };
        let mut r = Referee::new(settings, Chess::default(), vec![]);
        assert!(r.apply(&scored(Side::White, "g1f3", -600)).is_none());
        assert!(r.apply(&scored(Side::Black, "g8f6", 600)).is_none());
        // A score above the threshold resets the streak.
        assert!(r.apply(&scored(Side::White, "b1c3", -100)).is_none());
        assert!(r.apply(&scored(Side::Black, "b8c6", 600)).is_none());
        assert!(r.apply(&scored(Side::White, "f3g1", -700)).is_none());
        assert!(r.apply(&scored(Side::Black, "f6g8", 600)).is_none());
        let e = r.apply(&scored(Side::White, "g1f3", -700)).unwrap();
        assert_eq!(
            (e.result, e.termination),
            (GameResult::BlackWins, Termination::Adjudication)
        );
    }

    #[test]
    fn adjudication_options_parse_and_reject_unknown_keys() {
        let d: DrawAdjudication = "movenumber=40,movecount=8,score=10".parse().unwrap();
        assert_eq!((d.movenumber, d.movecount, d.score), (40, 8, 10));
        let r: ResignAdjudication = "movecount=3 score=1000 twosided=true".parse().unwrap();
        assert!(r.twosided);
        assert!("movecount=x"
            .parse::<ResignAdjudication>()
            .unwrap_err()
            .contains("not a number"));
        assert!("moves=3"
            .parse::<DrawAdjudication>()
            .unwrap_err()
            .contains("unknown key"));
    }

    #[test]
    fn opening_moves_count_for_repetition() {
        let opening: Vec<String> = "g1f3 g8f6 f3g1 f6g8".split(' ').map(String::from).collect();
        let mut r =
            Referee::after_opening(RefereeSettings::default(), Chess::default(), &opening).unwrap();
        let e = play(&mut r, "g1f3 g8f6 f3g1 f6g8").unwrap();
        assert_eq!(e.termination, Termination::Threefold);
        assert_eq!(r.plies(), 4);
    }
}
