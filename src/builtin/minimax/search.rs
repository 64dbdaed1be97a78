//! Iterative-deepening negamax with alpha-beta (principal variation search),
//! quiescence search, a transposition table, null-move pruning, late-move
//! reductions and move ordering (TT move, MVV-LVA, killers, history).
//! No randomness: the same position, history and limits give the same result.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use shakmaty::zobrist::Zobrist64;
use shakmaty::{ByColor, Chess, Color, EnPassantMode, Move, Position, Role, Square};

use super::eval::evaluate;
use super::tt::{pack, Bound, Entry, Tt};
use crate::builtin::engine::{material_gain, value, Game};
use crate::builtin::uci::hash;

/// Mate in `n` plies scores `MATE - n`; anything beyond `MATE_BOUND` is a mate.
pub const MATE: i32 = 30_000;
pub const MATE_BOUND: i32 = MATE - 1_000;
const INF: i32 = 31_000;
pub const MAX_DEPTH: u32 = 64;
const MAX_PLY: usize = 96;

/// When to stop.
pub struct SearchLimits {
    pub start: Instant,
    pub depth: u32,
    pub nodes: u64,
    /// Do not start another iteration once half of this has passed.
    pub soft: Option<Duration>,
    /// Abort the search in progress at this point.
    pub hard: Option<Duration>,
    /// `go ponder`: set at `ponderhit`. The time limits count from then; before, there are none.
    pub ponderhit: Option<Arc<OnceLock<Instant>>>,
}

impl SearchLimits {
    /// Time spent on the engine's own clock: since the `go`, or since the `ponderhit`
    /// (`None` while it ponders).
    fn on_clock(&self) -> Option<Duration> {
        match &self.ponderhit {
            None => Some(self.start.elapsed()),
            Some(hit) => hit.get().map(Instant::elapsed),
        }
    }
}

/// A completed iteration.
pub struct Iteration {
    pub depth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed: Duration,
    pub pv: Vec<Move>,
    /// The iteration was cut short: the score is the best root move's so far, a lower bound.
    pub lower_bound: bool,
}

pub struct Searcher<'a> {
    tt: &'a mut Tt,
    stop: &'a AtomicBool,
    limits: SearchLimits,
    pub nodes: u64,
    aborted: bool,
    /// Hashes of the game so far and the current search path; last = current.
    path: Vec<u64>,
    /// Repetitions are not looked for below this index (set by null moves).
    floor: usize,
    /// Two killer moves per ply (slots, not sides).
    killers: [[u16; 2]; MAX_PLY + 1],
    history: Box<ByColor<[[i32; 64]; 64]>>,
    pv: Box<[[Option<Move>; MAX_PLY + 1]; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 1],
    /// The best fully searched root move of the current iteration, with its score and line.
    root_best: Option<(Move, i32, Vec<Move>)>,
}

impl<'a> Searcher<'a> {
    pub fn new(tt: &'a mut Tt, stop: &'a AtomicBool, limits: SearchLimits) -> Self {
        Searcher {
            tt,
            stop,
            limits,
            nodes: 0,
            aborted: false,
            path: Vec::new(),
            floor: 0,
            killers: [[0; 2]; MAX_PLY + 1],
            history: Box::new(ByColor::new_with(|_| [[0; 64]; 64])),
            pv: Box::new([[None; MAX_PLY + 1]; MAX_PLY + 1]),
            pv_len: [0; MAX_PLY + 1],
            root_best: None,
        }
    }

    /// Searches deeper and deeper until a limit is hit; `report` sees every
    /// completed iteration. Returns the best move (None: no legal move).
    pub fn run(&mut self, game: &Game, report: &mut dyn FnMut(&Iteration)) -> Option<Move> {
        let root = &game.pos;
        let moves = root.legal_moves();
        let mut best = *moves.first()?;
        let root_hash = hash(root);
        self.path.clear();
        self.path.extend_from_slice(&game.history);
        self.path.push(root_hash);
        for depth in 1..=self.limits.depth.clamp(1, MAX_DEPTH) {
            self.root_best = None;
            let score = self.negamax(root, root_hash, depth as i32, -INF, INF, 0, false);
            if self.aborted {
                // A root move that beat the previous best (searched first) in the unfinished
                // iteration is still an improvement. Its line is reported, as a lower bound,
                // so that the `bestmove` begins the last PV printed (a manager checks it).
                if let Some((m, score, pv)) = self.root_best.take() {
                    if m != best || depth == 1 {
                        best = m;
                        report(&Iteration {
                            depth,
                            score,
                            nodes: self.nodes,
                            elapsed: self.limits.start.elapsed(),
                            pv,
                            lower_bound: true,
                        });
                    }
                }
                break;
            }
            let pv: Vec<Move> = self.pv[0][..self.pv_len[0]]
                .iter()
                .flatten()
                .copied()
                .collect();
            if let Some(&m) = pv.first() {
                best = m;
            }
            let elapsed = self.limits.start.elapsed();
            report(&Iteration {
                depth,
                score,
                nodes: self.nodes,
                elapsed,
                pv,
                lower_bound: false,
            });
            let proven_mate = score.abs() >= MATE_BOUND && MATE - score.abs() <= depth as i32;
            let out_of_time = self.limits.soft.is_some_and(|soft| {
                self.limits
                    .on_clock()
                    .is_some_and(|spent| spent >= soft / 2)
            });
            if proven_mate || out_of_time {
                break;
            }
        }
        Some(best)
    }

    /// Counts a node; true when the search must unwind (stop, time, nodes).
    fn abort(&mut self) -> bool {
        if self.aborted {
            return true;
        }
        if self.nodes >= self.limits.nodes {
            self.aborted = true;
            return true;
        }
        self.nodes += 1;
        if self.nodes % 1024 == 0
            && (self.stop.load(Ordering::Relaxed)
                || self
                    .limits
                    .hard
                    .is_some_and(|hard| self.limits.on_clock().is_some_and(|spent| spent >= hard)))
        {
            self.aborted = true;
        }
        self.aborted
    }

    /// Has the current position (top of `path`) occurred before with the
    /// same side to move since the last irreversible move?
    fn is_repetition(&self, halfmoves: u32) -> bool {
        let current = self.path.len() - 1;
        let lowest = current.saturating_sub(halfmoves as usize).max(self.floor);
        let mut i = current;
        while i >= lowest + 2 {
            i -= 2;
            if self.path[i] == self.path[current] {
                return true;
            }
        }
        false
    }

    #[allow(clippy::too_many_arguments)]
    fn negamax(
        &mut self,
        pos: &Chess,
        key: u64,
        mut depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
        null_ok: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        let pv_node = beta - alpha > 1;
        if ply > 0 {
            if let Some(score) = self.settled_below_root(pos, ply, &mut alpha, &mut beta) {
                return score;
            }
        }
        let in_check = pos.is_check();
        if in_check {
            depth += 1; // check extension
        }
        if depth <= 0 {
            return self.quiesce(pos, alpha, beta, ply);
        }
        if self.abort() {
            return 0;
        }

        let entry = self.tt.probe(key);
        if let Some(s) = entry.and_then(|e| tt_cutoff(e, pv_node, depth, alpha, beta, ply)) {
            return s;
        }
        // At the root, the previous iteration's best move goes first.
        let tt_move = if ply == 0 {
            self.pv[0][0].map_or(0, pack)
        } else {
            entry.map_or(0, |e| e.mv)
        };

        // Null move: if passing still beats beta, a real move will too.
        // Not in check, and not without pieces (zugzwang in pawn endings).
        if null_ok
            && !pv_node
            && !in_check
            && depth >= 3
            && has_pieces(pos, pos.turn())
            && evaluate(pos) >= beta
        {
            if let Some(score) = self.null_move_cut(pos, depth, beta, ply) {
                return score;
            }
        }

        let mut moves = pos.legal_moves();
        if moves.is_empty() {
            // Checkmate or stalemate.
            return if in_check { -MATE + ply as i32 } else { 0 };
        }
        let turn = pos.turn();
        let mut scores = self.ordering(&moves, tt_move, ply, turn);

        let alpha_orig = alpha;
        let mut best_score = -INF;
        let mut best_move = None;
        for i in 0..moves.len() {
            pick(&mut moves, &mut scores, i);
            let m = moves[i];
            let (child, child_key) = play(pos, key, m);
            let quiet = !m.is_capture() && m.promotion().is_none();
            let killer = self.killers[ply].contains(&pack(m));
            self.path.push(child_key);
            let score = if i == 0 {
                -self.negamax(&child, child_key, depth - 1, -beta, -alpha, ply + 1, true)
            } else {
                // Late quiet moves are searched shallower first; anything
                // that then beats alpha is searched again in full.
                let reduce =
                    depth >= 3 && i >= 3 && quiet && !killer && !in_check && !child.is_check();
                let r = match (reduce, i >= 8 && depth >= 6) {
                    (false, _) => 0,
                    (true, false) => 1,
                    (true, true) => 2,
                };
                self.late_move_score(&child, child_key, depth, r, alpha, beta, ply)
            };
            self.path.pop();
            if self.aborted {
                return 0;
            }
            if score > best_score {
                best_score = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if ply == 0 {
                        let line = self.pv[0][..self.pv_len[0]].iter().flatten().copied();
                        self.root_best = Some((m, score, line.collect()));
                    }
                    if alpha >= beta {
                        if quiet {
                            self.reward(ply, m, turn, depth);
                        }
                        break;
                    }
                }
            }
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if best_score > alpha_orig {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt
            .store(key, best_move, to_tt(best_score, ply), depth, bound);
        best_score
    }

    /// Each move's ordering score (see `order`), in the moves' order.
    fn ordering(&self, moves: &[Move], tt_move: u16, ply: usize, turn: Color) -> [i32; 256] {
        let mut scores = [0i32; 256];
        for (s, &m) in scores.iter_mut().zip(moves.iter()) {
            *s = self.order(m, tt_move, ply, turn);
        }
        scores
    }

    /// A node below the root that needs no search: a draw (repetition, one being enough inside
    /// the search; dead material; the fifty-move rule unless this is mate), a window that mate
    /// distance pruning closed (no line from here beats a shorter mate), or the deepest ply.
    /// Narrows the window otherwise.
    fn settled_below_root(
        &self,
        pos: &Chess,
        ply: usize,
        alpha: &mut i32,
        beta: &mut i32,
    ) -> Option<i32> {
        if self.is_repetition(pos.halfmoves()) || pos.is_insufficient_material() {
            return Some(0);
        }
        if pos.halfmoves() >= 100 {
            return Some(if pos.is_checkmate() {
                -MATE + ply as i32
            } else {
                0
            });
        }
        *alpha = (*alpha).max(-MATE + ply as i32);
        *beta = (*beta).min(MATE - ply as i32 - 1);
        if *alpha >= *beta {
            return Some(*alpha);
        }
        if ply >= MAX_PLY {
            return Some(evaluate(pos));
        }
        None
    }

    /// Null move: if passing still beats beta, a real move will too. The score to return when
    /// it does (0 when the search was aborted), `None` to search on.
    fn null_move_cut(&mut self, pos: &Chess, depth: i32, beta: i32, ply: usize) -> Option<i32> {
        let null = pos.clone().swap_turn().ok()?;
        let r = if depth >= 6 { 3 } else { 2 };
        let null_key = hash(&null);
        self.path.push(null_key);
        let saved = std::mem::replace(&mut self.floor, self.path.len() - 1);
        let score = -self.negamax(
            &null,
            null_key,
            depth - 1 - r,
            -beta,
            -beta + 1,
            ply + 1,
            false,
        );
        self.floor = saved;
        self.path.pop();
        if self.aborted {
            return Some(0);
        }
        if score < beta {
            None
        } else if score >= MATE_BOUND {
            Some(beta)
        } else {
            Some(score)
        }
    }

    /// A move after the first: searched with a null window, `reduction` plies shallower, then
    /// again in full depth if it beat alpha while reduced, and with the full window if it
    /// still falls inside it.
    #[allow(clippy::too_many_arguments)]
    fn late_move_score(
        &mut self,
        child: &Chess,
        child_key: u64,
        depth: i32,
        reduction: i32,
        alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        let mut s = -self.negamax(
            child,
            child_key,
            depth - 1 - reduction,
            -alpha - 1,
            -alpha,
            ply + 1,
            true,
        );
        if s > alpha && reduction > 0 {
            s = -self.negamax(
                child,
                child_key,
                depth - 1,
                -alpha - 1,
                -alpha,
                ply + 1,
                true,
            );
        }
        if s > alpha && s < beta {
            s = -self.negamax(child, child_key, depth - 1, -beta, -alpha, ply + 1, true);
        }
        s
    }

    /// Only captures and queen promotions (all moves when in check), so that
    /// the static evaluation is never taken in the middle of an exchange. Its line is part of
    /// the principal variation: a mate found here (a capture that mates, or a check with no
    /// evasion) is announced with every move of it (fastchess warns of a mate score whose PV
    /// stops short of the mate).
    fn quiesce(&mut self, pos: &Chess, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        if ply <= MAX_PLY {
            self.pv_len[ply] = ply;
        }
        if self.abort() {
            return 0;
        }
        let in_check = pos.is_check();
        let mut best = -MATE + ply as i32;
        if !in_check {
            best = evaluate(pos);
            if best >= beta || ply >= 2 * MAX_PLY {
                return best;
            }
            alpha = alpha.max(best);
        }
        let mut moves = pos.legal_moves();
        if !in_check {
            moves.retain(|m| m.is_capture() || m.promotion() == Some(Role::Queen));
        }
        let mut scores = [0i32; 256];
        for (s, &m) in scores.iter_mut().zip(moves.iter()) {
            *s = mvv_lva(m);
        }
        for i in 0..moves.len() {
            pick(&mut moves, &mut scores, i);
            let m = moves[i];
            // Delta pruning: even winning this piece (and a margin) cannot
            // raise alpha.
            if !in_check && m.promotion().is_none() && best + material_gain(m) + 200 <= alpha {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let score = -self.quiesce(&child, -beta, -alpha, ply + 1);
            if self.aborted {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    if ply < MAX_PLY {
                        self.update_pv(ply, m);
                    }
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    fn order(&self, m: Move, tt_move: u16, ply: usize, turn: Color) -> i32 {
        let p = pack(m);
        if p == tt_move {
            10_000_000
        } else if m.is_capture() || m.promotion().is_some() {
            1_000_000 + mvv_lva(m)
        } else if p == self.killers[ply][0] {
            900_000
        } else if p == self.killers[ply][1] {
            800_000
        } else {
            let (from, to) = squares(m);
            self.history[turn][from][to]
        }
    }

    fn reward(&mut self, ply: usize, m: Move, turn: Color, depth: i32) {
        let p = pack(m);
        if self.killers[ply][0] != p {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = p;
        }
        let (from, to) = squares(m);
        let h = &mut self.history[turn][from][to];
        *h += depth * depth;
        if *h > 400_000 {
            for row in self.history.iter_mut().flatten() {
                for v in row.iter_mut() {
                    *v /= 2;
                }
            }
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let row = &mut head[ply];
        row[ply] = Some(m);
        let child_len = self.pv_len[ply + 1].max(ply + 1);
        row[ply + 1..child_len].copy_from_slice(&tail[0][ply + 1..child_len]);
        self.pv_len[ply] = child_len;
    }
}

/// Selection sort step: moves the best-scored remaining move to `i`.
fn pick(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
}

/// Most valuable victim first, then least valuable attacker.
fn mvv_lva(m: Move) -> i32 {
    10 * material_gain(m) - value(m.role()) / 10
}

fn squares(m: Move) -> (usize, usize) {
    (m.from().unwrap_or(Square::A1) as usize, m.to() as usize)
}

fn has_pieces(pos: &Chess, color: Color) -> bool {
    let b = pos.board();
    (b.by_color(color) & !b.pawns() & !b.kings()).any()
}

/// Mate scores are stored relative to the node, not the root.
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// The position after `m`, and its key, updated from `key` where the move allows it.
fn play(pos: &Chess, key: u64, m: Move) -> (Chess, u64) {
    let mut child = pos.clone();
    child.play_unchecked(m);
    let child_key = pos
        .update_zobrist_hash(Zobrist64(key), m, EnPassantMode::Legal)
        .map_or_else(|| hash(&child), |z| z.0);
    (child, child_key)
}

/// The score a transposition table entry settles this node with: one searched deep enough,
/// off the principal variation, whose bound decides the window.
fn tt_cutoff(
    e: Entry,
    pv_node: bool,
    depth: i32,
    alpha: i32,
    beta: i32,
    ply: usize,
) -> Option<i32> {
    if pv_node || e.depth < depth {
        return None;
    }
    let s = from_tt(e.score, ply);
    let cut = match e.bound {
        Bound::Exact => true,
        Bound::Lower => s >= beta,
        Bound::Upper => s <= alpha,
    };
    cut.then_some(s)
}
