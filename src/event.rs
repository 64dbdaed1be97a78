//! The game record: a list of timestamped events.
//!
//! The real-time loop (`game.rs`) only produces events; the referee (`rules/`) is a pure fold
//! over them. So a recorded game can be re-ruled, and every ruling can be tested from a list of
//! events without processes or clocks. One game is one JSON object in `events.jsonl`.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::timecontrol::TimeControl;
use crate::vocabulary::{FlagMode, IllegalKind, Ruleset, Variant};

/// A side of the board, serialised as `"white"` / `"black"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    White,
    Black,
}

impl Side {
    /// Both sides, white first.
    pub const ALL: [Side; 2] = [Side::White, Side::Black];

    pub fn other(self) -> Side {
        match self {
            Side::White => Side::Black,
            Side::Black => Side::White,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Side::White => "white",
            Side::Black => "black",
        }
    }
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

impl From<Side> for Color {
    fn from(s: Side) -> Color {
        match s {
            Side::White => Color::White,
            Side::Black => Color::Black,
        }
    }
}

/// One value for each side, white's and black's, looked up by the side itself (`clocks[side]`):
/// there is no number to index with, so no lookup can point at the wrong side.
/// Serialised exactly as the `[white, black]` array it replaces.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BySide<T> {
    pub white: T,
    pub black: T,
}

impl<T> BySide<T> {
    pub const fn new(white: T, black: T) -> BySide<T> {
        BySide { white, black }
    }

    /// The same value for both sides.
    pub fn both(value: T) -> BySide<T>
    where
        T: Clone,
    {
        BySide::new(value.clone(), value)
    }

    /// Each side's value made from the side.
    pub fn from_fn(mut f: impl FnMut(Side) -> T) -> BySide<T> {
        BySide::new(f(Side::White), f(Side::Black))
    }

    pub fn get(&self, side: Side) -> &T {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }

    pub fn get_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::White => &mut self.white,
            Side::Black => &mut self.black,
        }
    }

    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> BySide<U> {
        BySide::new(f(self.white), f(self.black))
    }

    pub fn as_ref(&self) -> BySide<&T> {
        BySide::new(&self.white, &self.black)
    }

    pub fn as_mut(&mut self) -> BySide<&mut T> {
        BySide::new(&mut self.white, &mut self.black)
    }

    /// The two sides' values side by side.
    pub fn zip<U>(self, other: BySide<U>) -> BySide<(T, U)> {
        BySide::new((self.white, other.white), (self.black, other.black))
    }

    /// The values, white first.
    pub fn iter(&self) -> std::array::IntoIter<&T, 2> {
        [&self.white, &self.black].into_iter()
    }

    pub fn iter_mut(&mut self) -> std::array::IntoIter<&mut T, 2> {
        [&mut self.white, &mut self.black].into_iter()
    }

    /// Each side with its value, white first.
    pub fn iter_sides(&self) -> impl Iterator<Item = (Side, &T)> {
        Side::ALL.into_iter().zip(self.iter())
    }

    /// The values, white first.
    pub fn into_array(self) -> [T; 2] {
        [self.white, self.black]
    }
}

impl<T> From<[T; 2]> for BySide<T> {
    /// `[white, black]`.
    fn from([white, black]: [T; 2]) -> BySide<T> {
        BySide::new(white, black)
    }
}

impl<T> IntoIterator for BySide<T> {
    type Item = T;
    type IntoIter = std::array::IntoIter<T, 2>;
    fn into_iter(self) -> Self::IntoIter {
        self.into_array().into_iter()
    }
}

impl<'a, T> IntoIterator for &'a BySide<T> {
    type Item = &'a T;
    type IntoIter = std::array::IntoIter<&'a T, 2>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T> IntoIterator for &'a mut BySide<T> {
    type Item = &'a mut T;
    type IntoIter = std::array::IntoIter<&'a mut T, 2>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T> std::ops::Index<Side> for BySide<T> {
    type Output = T;
    fn index(&self, side: Side) -> &T {
        self.get(side)
    }
}

impl<T> std::ops::IndexMut<Side> for BySide<T> {
    fn index_mut(&mut self, side: Side) -> &mut T {
        self.get_mut(side)
    }
}

impl<T: Serialize> Serialize for BySide<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // A tuple of two, as serde writes a `[T; 2]`: the same bytes in every format.
        (&self.white, &self.black).serialize(s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for BySide<T> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<BySide<T>, D::Error> {
        <[T; 2]>::deserialize(d).map(BySide::from)
    }
}

/// An engine's evaluation from its own point of view, as it reported it in its last `info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in N moves (negative: the engine is being mated).
    Mate(i32),
}

impl Score {
    /// Centipawns, with mate scores mapped far outside any material score, for adjudication.
    pub fn as_cp(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 100_000 - n,
            Score::Mate(n) => -100_000 - n,
        }
    }
}

/// The result of a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    #[serde(rename = "1-0")]
    WhiteWins,
    #[serde(rename = "0-1")]
    BlackWins,
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameResult {
    pub fn win_for(side: Side) -> GameResult {
        match side {
            Side::White => GameResult::WhiteWins,
            Side::Black => GameResult::BlackWins,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The points `side` scored: 1, 0.5 or 0.
    pub fn points(self, side: Side) -> f64 {
        match (self, side) {
            (GameResult::Draw, _) => 0.5,
            (GameResult::WhiteWins, Side::White) | (GameResult::BlackWins, Side::Black) => 1.0,
            _ => 0.0,
        }
    }

    pub fn winner(self) -> Option<Side> {
        match self {
            GameResult::WhiteWins => Some(Side::White),
            GameResult::BlackWins => Some(Side::Black),
            GameResult::Draw => None,
        }
    }
}

impl std::str::FromStr for GameResult {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "1-0" => Ok(GameResult::WhiteWins),
            "0-1" => Ok(GameResult::BlackWins),
            "1/2-1/2" => Ok(GameResult::Draw),
            _ => Err(format!("bad result {s:?} (expected 1-0, 0-1 or 1/2-1/2)")),
        }
    }
}

/// How a game ended: the fixed vocabulary of the `termination` CSV column (docs/rulesets.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Termination {
    Checkmate,
    Stalemate,
    Flag,
    BothFlags,
    IllegalMove,
    InsufficientMaterial,
    DeadPosition,
    Threefold,
    Fivefold,
    FiftyMoves,
    SeventyFiveMoves,
    MaxMoves,
    Adjudication,
    /// `--tb`: the position after a move was in the Syzygy tablebases.
    Tablebase,
    EngineCrash,
    EngineStall,
}

impl Termination {
    pub const ALL: [Termination; 16] = [
        Termination::Checkmate,
        Termination::Stalemate,
        Termination::Flag,
        Termination::BothFlags,
        Termination::IllegalMove,
        Termination::InsufficientMaterial,
        Termination::DeadPosition,
        Termination::Threefold,
        Termination::Fivefold,
        Termination::FiftyMoves,
        Termination::SeventyFiveMoves,
        Termination::MaxMoves,
        Termination::Adjudication,
        Termination::Tablebase,
        Termination::EngineCrash,
        Termination::EngineStall,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Checkmate => "checkmate",
            Termination::Stalemate => "stalemate",
            Termination::Flag => "flag",
            Termination::BothFlags => "both-flags",
            Termination::IllegalMove => "illegal-move",
            Termination::InsufficientMaterial => "insufficient-material",
            Termination::DeadPosition => "dead-position",
            Termination::Threefold => "threefold",
            Termination::Fivefold => "fivefold",
            Termination::FiftyMoves => "fifty-moves",
            Termination::SeventyFiveMoves => "seventy-five-moves",
            Termination::MaxMoves => "max-moves",
            Termination::Adjudication => "adjudication",
            Termination::Tablebase => "tablebase",
            Termination::EngineCrash => "engine-crash",
            Termination::EngineStall => "engine-stall",
        }
    }

    /// The PGN `Termination` tag: `normal`, `time forfeit`, `rules infraction`, `abandoned`,
    /// `adjudication` (a tablebase verdict is one, as cutechess and fastchess tag it).
    pub fn pgn_tag(self) -> &'static str {
        match self {
            Termination::Flag | Termination::BothFlags => "time forfeit",
            Termination::IllegalMove => "rules infraction",
            Termination::EngineCrash | Termination::EngineStall => "abandoned",
            Termination::MaxMoves | Termination::Adjudication | Termination::Tablebase => {
                "adjudication"
            }
            _ => "normal",
        }
    }

    /// Whether the game ended on the clock (a loss on time, or a draw called on a fallen flag).
    pub fn is_time_forfeit(self) -> bool {
        matches!(
            self,
            Termination::Flag | Termination::BothFlags | Termination::EngineStall
        )
    }
}

impl std::str::FromStr for Termination {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Termination::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("unknown termination {s:?}"))
    }
}

impl std::fmt::Display for Termination {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A fault the arena injected on purpose (docs/architecture.md, "Fault injection").
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "injection")]
pub enum Injection {
    /// The engine's move `replaced` was sent on as the illegal move `sent`, of kind `kind`.
    Illegal {
        kind: IllegalKind,
        replaced: String,
        sent: String,
    },
    /// The draw said inject an illegal move, but no kind was possible in the position.
    IllegalNotPossible { replaced: String },
    /// The engine's move is held back until its flag has fallen plus `overshoot_ms`
    /// (`both`: the first or the second of the two falls; `at-mate`: the mating move).
    Flag { mode: FlagMode, overshoot_ms: u64 },
    /// The game's flag injection could not be made (the game ended first, no mating move).
    FlagNotPossible { mode: FlagMode, why: String },
}

impl Injection {
    /// A short label for the CSV `injected` column and the injection summary.
    pub fn label(&self) -> String {
        match self {
            Injection::Illegal { kind, .. } => format!("illegal:{kind}"),
            Injection::IllegalNotPossible { .. } => "illegal:not-possible".to_string(),
            Injection::Flag { mode, .. } => format!("flag:{mode}"),
            Injection::FlagNotPossible { mode, .. } => format!("flag:{mode}:not-possible"),
        }
    }
}

/// What the Syzygy tablebases say about a position (`--tb`), under the 50-move rule (WDL50):
/// a cursed win (a win the 50-move rule frustrates, a blessed loss for the other side) is a
/// draw, as cutechess-cli and fastchess rule it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "wdl")]
pub enum TbVerdict {
    Win { winner: Side },
    CursedWin { winner: Side },
    Draw,
}

impl TbVerdict {
    /// The game's result by the tables.
    pub fn result(self) -> GameResult {
        match self {
            TbVerdict::Win { winner } => GameResult::win_for(winner),
            TbVerdict::CursedWin { .. } | TbVerdict::Draw => GameResult::Draw,
        }
    }

    /// `KRvK is a win for white`, for details and PGN comments (`material` as the tables name
    /// it, white's pieces first).
    pub fn describe(self, material: &str) -> String {
        match self {
            TbVerdict::Win { winner } => format!("{material} is a win for {}", winner.name()),
            TbVerdict::CursedWin { winner } => format!(
                "{material} is a cursed win for {}: a draw under the 50-move rule",
                winner.name()
            ),
            TbVerdict::Draw => format!("{material} is a draw"),
        }
    }
}

/// What a watcher claims.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Claimable {
    /// The opponent's flag has fallen.
    Flag,
    /// The opponent's last move was illegal.
    IllegalMove,
    /// The claimant's engine captured the king that the opponent left in check (H17, USCF 7d).
    KingCapture,
}

/// What went wrong with an engine process.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "fault")]
pub enum Fault {
    /// The process exited or closed its output.
    Crash { status: Option<i32> },
    /// The flag fell and the engine did not answer `stop` within the grace period.
    Stall,
    /// The engine could not be (re)started for this game.
    StartFailed,
}

/// The last search report an engine sent before its `bestmove`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchInfo {
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub score: Option<Score>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub depth: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nodes: Option<u64>,
    /// The selective depth (`seldepth`), for `--pgnout-extras seldepth`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub seldepth: Option<u32>,
    /// The nodes per second the engine reported (`nps`), for `--pgnout-extras nps`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub nps: Option<u64>,
    /// What the engine's processes got of the CPU during this search, as the arena measured
    /// it (not reported by the engine); absent where it could not be measured (records
    /// written before it was, engines inside the arena's own process).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub cpu: Option<CpuUse>,
}

/// Searches shorter than this are never called starved: over a few milliseconds the wake-up
/// after `go` and the scheduler's time slices (about 3 ms) are most of the wait.
pub const STARVED_MIN_THINK_US: i64 = 20_000;

/// The CPU an engine's processes got while it thought, measured by the arena from the
/// kernel's accounting at its `go` and at its `bestmove` (`engine/cpu.rs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CpuUse {
    /// CPU time its threads ran, in µs, all threads summed (above the think time when
    /// several threads searched at once).
    pub run_us: i64,
    /// Time its threads were ready to run but waited for a core (the run-queue delay), in
    /// µs, all threads summed; absent on a kernel that does not keep it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub wait_us: Option<i64>,
    /// CPU time, in µs, of threads that ended before the `bestmove` was read (an engine that
    /// starts a thread per search): their wait was not seen. Absent when there were none.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub ended_us: Option<i64>,
    /// With `ended_us`: the machine's CPU pressure during the search, the time in µs at
    /// least one task waited for a core (Linux PSI); absent without it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub pressure_us: Option<i64>,
}

impl CpuUse {
    /// Whether a search of `think_us` (its clock time) was starved of CPU: the machine, not
    /// the engine, was short of it. Starved means its threads waited for a core at least
    /// half the think time, and at least as long as they ran: it got at most half the CPU it
    /// asked for. The wait, not the CPU time alone, is the test, because an engine that
    /// sleeps or waits on a remote machine also runs little, and is not starved: it never
    /// asked for a core. When threads that ended during the search took their wait with them
    /// (`ended_us`), the machine's CPU pressure stands in for it: the engine got under half
    /// a core while, at least half the think time, some task waited for one. A search under
    /// [`STARVED_MIN_THINK_US`] is never starved, nor one whose wait was not measured.
    pub fn starved(&self, think_us: i64) -> bool {
        if think_us < STARVED_MIN_THINK_US {
            return false;
        }
        let waited = self
            .wait_us
            .is_some_and(|wait| 2 * wait >= think_us && wait >= self.run_us);
        let pressed = match (self.ended_us, self.pressure_us) {
            (Some(_), Some(pressure)) => 2 * self.run_us < think_us && 2 * pressure >= think_us,
            _ => false,
        };
        waited || pressed
    }

    /// `40 ms of CPU in 310 ms, 270 ms waiting for a core`, for details and comments.
    pub fn describe(&self, think_us: i64) -> String {
        let mut text = format!("{} ms of CPU in {} ms", self.run_us / 1000, think_us / 1000);
        match (self.ended_us, self.pressure_us, self.wait_us) {
            (Some(_), Some(pressure_us), _) => text.push_str(&format!(
                ", the machine short of CPU for {} ms",
                pressure_us / 1000
            )),
            (_, _, Some(wait_us)) => {
                text.push_str(&format!(", {} ms waiting for a core", wait_us / 1000))
            }
            _ => {}
        }
        text
    }
}

/// One thing that happened in a game. Times are microseconds since the game started.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// The mover's clock started: its `go` line has been written, or its `ponderhit` (the
    /// opponent played the move it was pondering on; its search goes on as its own).
    Go {
        t_us: i64,
        side: Side,
        /// The mover's time left as sent in `go`, in microseconds (at a ponderhit: its time
        /// left at that instant).
        clock_us: i64,
        /// It was a `ponderhit`, not a `go`.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        ponderhit: bool,
    },
    /// `side`'s engine was sent `go ponder`: it searches, on the opponent's time, the position
    /// after the opponent's move `ponder` (the one its `bestmove` named). Its clock does not
    /// run; the opponent's does. A `Go` with `ponderhit` follows if the opponent plays that
    /// move; otherwise it is stopped (`PonderStopped`) and sent a plain `go`.
    Ponder {
        t_us: i64,
        side: Side,
        ponder: String,
    },
    /// `side`'s engine was pondering and was sent `stop` (the opponent played another move, or
    /// the game ended); `line` is its answer, read at `t_us` and discarded: no move, no clock
    /// press, ignored by the referee.
    PonderStopped { t_us: i64, side: Side, line: String },
    /// The mover's `bestmove` line was read; its clock stopped. `uci` is the engine's text as
    /// sent (it may be illegal: the referee decides). `clock_us` is the mover's time left after
    /// the move, increment included; it may be negative.
    Move {
        t_us: i64,
        side: Side,
        uci: String,
        think_us: i64,
        clock_us: i64,
        #[serde(default, skip_serializing_if = "is_default_info")]
        info: SearchInfo,
    },
    /// The mover's `bestmove` was not a legal move in the position (its clock stopped as for a
    /// move). `reason` says why, e.g. `no legal move e1e5`, `0000 with legal moves available`.
    IllegalMove {
        t_us: i64,
        side: Side,
        uci: String,
        think_us: i64,
        clock_us: i64,
        reason: String,
        /// The kind of illegal move (docs/architecture.md, "Fault injection"); absent for text that is no move at all.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        kind: Option<IllegalKind>,
    },
    /// The opponent's watcher did not notice the illegal move before it moved: the move stands
    /// (H15, G§3, WBCA 14, USCF 3b/14, FIDE A4.2). Also: after a mate given by a side whose
    /// flag had fallen, the mated side's watcher will notice nothing more (H10, H13).
    Unnoticed { t_us: i64, by: Side },
    /// A watcher noticed something: a fallen flag or an illegal move. Its claim starts now.
    Notice {
        t_us: i64,
        by: Side,
        what: Claimable,
    },
    /// A claim completed (the clocks stop): by the watcher's `claim_ms` after its notice, or
    /// at once by an engine that captured the king or crashed on an illegal position.
    Claim {
        t_us: i64,
        by: Side,
        what: Claimable,
    },
    /// Time added to a side's clock (FIDE 7.5.5: +1 minute for the opponent of an illegal move),
    /// or charged to it when negative (USCF 16).
    Penalty {
        t_us: i64,
        side: Side,
        add_us: i64,
        rule: String,
    },
    /// The arena injected a fault into `side`'s play.
    Injected {
        t_us: i64,
        side: Side,
        #[serde(flatten)]
        what: Injection,
    },
    /// A `bestmove` line read before the `go` it would answer (an engine that sent two for one
    /// search, or one that answered while pondering), discarded: no move, no clock press,
    /// ignored by the referee (cutechess and fastchess discard it too). `t_us` is when it was
    /// read.
    Discarded { t_us: i64, side: Side, line: String },
    /// A flag fell: `t_us` is the exact instant the side's time reached zero (plus the
    /// `--time-margin`, when one is set).
    FlagFall { t_us: i64, side: Side },
    /// `--tb`: the position after the last move is in the Syzygy tablebases; `material` names
    /// it (`KRvK`, white's pieces first), the verdict is theirs. The referee ends the game with
    /// it, unless a flag fell before it (the flag still counts).
    Tablebase {
        t_us: i64,
        material: String,
        #[serde(flatten)]
        verdict: TbVerdict,
    },
    /// An engine failed: crashed, stalled, or could not be started.
    EngineFault {
        t_us: i64,
        side: Side,
        #[serde(flatten)]
        fault: Fault,
        detail: String,
    },
    /// The game is over.
    End {
        t_us: i64,
        result: GameResult,
        termination: Termination,
        /// The rule that decided it, cited as `FIDE 6.9`, `USCF 8c`, `H13`...
        rule: String,
        #[serde(default, skip_serializing_if = "String::is_empty")]
        detail: String,
        white_clock_us: i64,
        black_clock_us: i64,
    },
}

fn is_default_info(info: &SearchInfo) -> bool {
    *info == SearchInfo::default()
}

impl Event {
    pub fn t_us(&self) -> i64 {
        match self {
            Event::Go { t_us, .. }
            | Event::Ponder { t_us, .. }
            | Event::PonderStopped { t_us, .. }
            | Event::Move { t_us, .. }
            | Event::IllegalMove { t_us, .. }
            | Event::Unnoticed { t_us, .. }
            | Event::Notice { t_us, .. }
            | Event::Claim { t_us, .. }
            | Event::Penalty { t_us, .. }
            | Event::Injected { t_us, .. }
            | Event::Discarded { t_us, .. }
            | Event::FlagFall { t_us, .. }
            | Event::Tablebase { t_us, .. }
            | Event::EngineFault { t_us, .. }
            | Event::End { t_us, .. } => *t_us,
        }
    }
}

/// Where a game started: an opening position, and the opening moves played from it before the
/// clocks started (moves from a PGN opening book).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpeningRecord {
    /// The opening's label for the CSV `opening` column: its index in the book and its name
    /// (EPD `id` or the PGN's `Opening`/`ECO` tags), or `startpos`.
    pub name: String,
    /// The FEN of the root position, `None` for the standard start position.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fen: Option<String>,
    /// Book moves (UCI) played from the root before the game proper started.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub moves: Vec<String>,
    /// Chess960: the root's castling rights are read as Chess960's, and castling moves are
    /// the king taking its own rook.
    #[serde(default, skip_serializing_if = "Variant::is_standard")]
    pub variant: Variant,
}

impl OpeningRecord {
    /// The root position (the standard start position without a FEN).
    pub fn root(&self) -> Result<shakmaty::Chess, String> {
        match &self.fen {
            None => {
                use shakmaty::{EnPassantMode, FromSetup, Position};
                let start = shakmaty::Chess::default().to_setup(EnPassantMode::Legal);
                shakmaty::Chess::from_setup(start, self.variant.castling_mode())
                    .map_err(|e| e.to_string())
            }
            Some(text) => text
                .parse::<shakmaty::fen::Fen>()
                .map_err(|e| e.to_string())
                .and_then(|f| {
                    f.into_position(self.variant.castling_mode())
                        .map_err(|e| e.to_string())
                }),
        }
    }
}

/// Everything recorded about one game: who, how, and the events. One line of `events.jsonl`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// 1-based number of the game in the run's schedule.
    pub game: u64,
    /// The pair of games this one belongs to: one opening, one encounter, colours swapped
    /// (1-based; the unit of pentanomial statistics).
    #[serde(default)]
    pub pair: u64,
    pub white: String,
    pub black: String,
    pub opening: OpeningRecord,
    pub ruleset: Ruleset,
    pub tc_white: TimeControl,
    pub tc_black: TimeControl,
    /// The run's seed.
    pub seed: u64,
    /// UTC start time, RFC 3339.
    pub started: String,
    /// The `--time-margin` in force, in milliseconds (0 = off).
    #[serde(default)]
    pub time_margin_ms: u64,
    pub events: Vec<Event>,
}

/// How a recorded game ended, read from its `End` event.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome<'a> {
    pub result: GameResult,
    pub termination: Termination,
    pub rule: &'a str,
    pub detail: &'a str,
    pub t_us: i64,
    pub clock_us: BySide<i64>,
}

impl GameRecord {
    /// The game's ending; `None` only for a record that was cut off before its end.
    pub fn outcome(&self) -> Option<Outcome<'_>> {
        self.events.iter().rev().find_map(|e| match e {
            Event::End {
                t_us,
                result,
                termination,
                rule,
                detail,
                white_clock_us,
                black_clock_us,
            } => Some(Outcome {
                result: *result,
                termination: *termination,
                rule,
                detail,
                t_us: *t_us,
                clock_us: BySide::new(*white_clock_us, *black_clock_us),
            }),
            _ => None,
        })
    }

    pub fn tc(&self, side: Side) -> TimeControl {
        match side {
            Side::White => self.tc_white,
            Side::Black => self.tc_black,
        }
    }

    pub fn engine(&self, side: Side) -> &str {
        match side {
            Side::White => &self.white,
            Side::Black => &self.black,
        }
    }

    /// The instant (µs since the start) at which `side`'s flag fell, if it did.
    pub fn flag_us(&self, side: Side) -> Option<i64> {
        self.events.iter().find_map(|e| match e {
            Event::FlagFall { t_us, side: s } if *s == side => Some(*t_us),
            _ => None,
        })
    }

    /// The legal moves of the game proper, in order: `(side, uci, think_us, clock_us)`.
    pub fn moves(&self) -> impl Iterator<Item = (Side, &str, i64, i64)> {
        self.events.iter().filter_map(|e| match e {
            Event::Move {
                side,
                uci,
                think_us,
                clock_us,
                ..
            } => Some((*side, uci.as_str(), *think_us, *clock_us)),
            _ => None,
        })
    }

    /// Pawns sent to the last rank without their piece that the rules made a queen (WBCA 17,
    /// USCF 16, FIDE 7.5.2, or it stood unnoticed): such an `IllegalMove` is followed, past
    /// any notice, claim or penalty, by the opponent's move. Returns their sides.
    pub fn queened(&self) -> Vec<Side> {
        let mut queening = Queening::default();
        self.events.iter().filter_map(|e| queening.see(e)).collect()
    }

    /// The faults injected into this game, in order: `(t_us, side, injection)`.
    pub fn injections(&self) -> impl Iterator<Item = (i64, Side, &Injection)> {
        self.events.iter().filter_map(|e| match e {
            Event::Injected { t_us, side, what } => Some((*t_us, *side, what)),
            _ => None,
        })
    }

    /// `side`'s legal moves whose search was starved of CPU (`CpuUse::starved`).
    pub fn starved_moves(&self, side: Side) -> usize {
        self.events
            .iter()
            .filter(|e| {
                matches!(e, Event::Move { side: s, think_us, info, .. }
                if *s == side && info.cpu.is_some_and(|c| c.starved(*think_us)))
            })
            .count()
    }

    /// The side that lost on time, or drew on a fallen flag, when its last move's search
    /// was starved of CPU: its CPU use and think time. The result stands as ruled (the rules
    /// know nothing of CPU); the user is told that the machine, not the engine, was short of
    /// it. The last move is the one before its flag fell, or the late one after it; the
    /// search its flag fell in is not measured when its `bestmove` never came.
    pub fn starved_time_loss(&self) -> Option<(Side, CpuUse, i64)> {
        let outcome = self.outcome()?;
        if !outcome.termination.is_time_forfeit() {
            return None;
        }
        let flagged = match outcome.result.winner() {
            Some(winner) => winner.other(),
            None => Side::ALL
                .into_iter()
                .min_by_key(|s| self.flag_us(*s).unwrap_or(i64::MAX))?,
        };
        self.flag_us(flagged)?;
        self.events.iter().rev().find_map(|e| match e {
            Event::Move {
                side,
                think_us,
                info,
                ..
            } if *side == flagged => Some(
                info.cpu
                    .filter(|c| c.starved(*think_us))
                    .map(|c| (flagged, c, *think_us)),
            ),
            _ => None,
        })?
    }

    /// How many illegal moves were played (noticed or not).
    pub fn illegal_moves(&self) -> usize {
        self.events
            .iter()
            .filter(|e| matches!(e, Event::IllegalMove { .. }))
            .count()
    }
}

/// Follows a game's events, one at a time, for the pawns sent to the last rank without their
/// piece that the rules made a queen ([`GameRecord::queened`]), for a reader that walks the
/// events for other things too.
#[derive(Default)]
pub struct Queening {
    /// The side whose pawn went without its piece, until the next move.
    pending: Option<Side>,
}

impl Queening {
    /// The side whose pawn `event`, the next event, shows was made a queen: the opponent's
    /// move after such an `IllegalMove`.
    pub fn see(&mut self, event: &Event) -> Option<Side> {
        match event {
            Event::IllegalMove { side, kind, .. } => {
                self.pending = (*kind == Some(IllegalKind::NoPromotion)).then_some(*side);
                None
            }
            Event::Move { side, .. } => self.pending.take().filter(|s| s != side),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `BySide` is looked up by the side, white's value first, and each method keeps the
    /// sides apart.
    #[test]
    fn by_side_looks_up_by_side() {
        let mut clocks = BySide::new(300, 290);
        assert_eq!((clocks[Side::White], clocks[Side::Black]), (300, 290));
        clocks[Side::Black] -= 5;
        *clocks.get_mut(Side::White) += 2;
        assert_eq!(clocks, BySide::new(302, 285));
        assert_eq!(clocks.map(|c| c * 2), BySide::new(604, 570));
        assert_eq!(BySide::from_fn(Side::name), BySide::new("white", "black"));
        assert_eq!(BySide::both(7), BySide::from([7, 7]));
        assert_eq!(
            clocks.zip(BySide::new('w', 'b')),
            BySide::new((302, 'w'), (285, 'b'))
        );
        let listed: Vec<(Side, i32)> = clocks.iter_sides().map(|(s, c)| (s, *c)).collect();
        assert_eq!(listed, [(Side::White, 302), (Side::Black, 285)]);
        for c in &mut clocks {
            *c += 1;
        }
        assert_eq!(clocks.iter().copied().collect::<Vec<_>>(), [303, 286]);
        clocks = clocks.map(|c| c - 1);
        assert_eq!(clocks.into_array(), [302, 285]);
        assert_eq!(BySide::<u32>::default(), BySide::new(0, 0));
        assert_eq!(Side::ALL, [Side::White, Side::Black]);
    }

    /// A `BySide` is written byte for byte as the `[white, black]` array it replaced, so a
    /// record written with the array reads back, and one written now reads as an array.
    #[test]
    fn by_side_serialises_as_the_array_it_replaced() {
        let array: [Option<i64>; 2] = [Some(-1_500), None];
        let pair = BySide::from(array);
        let written = serde_json::to_string(&array).unwrap();
        assert_eq!(serde_json::to_string(&pair).unwrap(), written);
        assert_eq!(written, "[-1500,null]");
        let read: BySide<Option<i64>> = serde_json::from_str(&written).unwrap();
        assert_eq!(read, pair);
        let back: [Option<i64>; 2] =
            serde_json::from_str(&serde_json::to_string(&pair).unwrap()).unwrap();
        assert_eq!(back, array);
        let names = BySide::new("a".to_string(), "b".to_string());
        assert_eq!(
            serde_json::to_value(&names).unwrap(),
            serde_json::json!(["a", "b"])
        );
        assert!(serde_json::from_str::<BySide<u8>>("[1,2,3]").is_err());
    }

    /// The starvation rule on measured numbers.
    #[test]
    fn a_search_is_starved_when_it_waited_for_a_core_more_than_it_ran() {
        let cpu = |run_ms: i64, wait_ms: i64| CpuUse {
            run_us: run_ms * 1000,
            wait_us: Some(wait_ms * 1000),
            ..CpuUse::default()
        };
        // Stockfish at load 10 on 2 cores, as measured: 122 ms of CPU in 316 ms.
        let loaded = CpuUse {
            run_us: 121_731,
            wait_us: Some(194_138),
            ..CpuUse::default()
        };
        assert!(loaded.starved(315_873));
        // A core all the time it thought.
        assert!(!cpu(305, 5).starved(310_000));
        // An engine that sleeps (or waits on a remote machine) runs little but never waited.
        assert!(!cpu(2, 1).starved(500_000));
        // Half and half is starved; a little less wait is not.
        assert!(cpu(150, 150).starved(300_000));
        assert!(!cpu(160, 140).starved(300_000));
        // Four threads on two cores: each got half a core.
        assert!(cpu(600, 600).starved(300_000));
        // Four threads that waited 15 % each: 3.4 cores of 4.
        assert!(!cpu(1020, 180).starved(300_000));
        // Too short to tell, and a wait not measured: never starved.
        assert!(!cpu(1, 18).starved(STARVED_MIN_THINK_US - 1));
        assert!(cpu(1, 18).starved(STARVED_MIN_THINK_US + 1_000));
        let unmeasured = CpuUse::default();
        assert!(!unmeasured.starved(1_000_000));
        // A search thread that ended before its bestmove was read (the built-in engines, at
        // load 10 on 2 cores, as measured): its wait is gone, the machine's pressure stands in.
        let ended = CpuUse {
            run_us: 27_000,
            wait_us: Some(0),
            ended_us: Some(27_000),
            pressure_us: Some(221_000),
        };
        assert!(ended.starved(223_000));
        assert_eq!(
            ended.describe(223_000),
            "27 ms of CPU in 223 ms, the machine short of CPU for 221 ms"
        );
        // ... but not on a quiet machine (an engine that sleeps in a thread per search), nor
        // when it got over half a core.
        assert!(!CpuUse {
            pressure_us: Some(3_000),
            ..ended
        }
        .starved(223_000));
        assert!(!CpuUse {
            run_us: 120_000,
            ..ended
        }
        .starved(223_000));
        assert!(!CpuUse {
            pressure_us: None,
            ..ended
        }
        .starved(223_000));
        assert_eq!(
            loaded.describe(315_873),
            "121 ms of CPU in 315 ms, 194 ms waiting for a core"
        );
    }

    /// The CPU of a move in events.jsonl: written when measured, absent otherwise, so files
    /// written before it read the same.
    #[test]
    fn cpu_use_is_written_in_the_info_when_measured() {
        let info = SearchInfo {
            depth: Some(3),
            cpu: Some(CpuUse {
                run_us: 40_000,
                wait_us: Some(260_000),
                ..CpuUse::default()
            }),
            ..SearchInfo::default()
        };
        let text = serde_json::to_string(&info).unwrap();
        assert_eq!(
            text,
            r#"{"depth":3,"cpu":{"run_us":40000,"wait_us":260000}}"#
        );
        assert_eq!(serde_json::from_str::<SearchInfo>(&text).unwrap(), info);
        let no_wait: CpuUse = serde_json::from_str(r#"{"run_us":5}"#).unwrap();
        assert_eq!(no_wait.wait_us, None);
    }

    /// A move's info as events.jsonl holds it: `seldepth` only when the engine reported one,
    /// so files written before it was recorded read the same and are written the same.
    #[test]
    fn search_info_leaves_out_what_was_not_reported() {
        let old = r#"{"score":{"cp":25},"depth":12,"nodes":345}"#;
        let info: SearchInfo = serde_json::from_str(old).unwrap();
        assert_eq!(info.seldepth, None);
        assert_eq!(serde_json::to_string(&info).unwrap(), old);
        let info = SearchInfo {
            seldepth: Some(18),
            ..info
        };
        let text = serde_json::to_string(&info).unwrap();
        assert_eq!(
            text,
            r#"{"score":{"cp":25},"depth":12,"nodes":345,"seldepth":18}"#
        );
        assert_eq!(serde_json::from_str::<SearchInfo>(&text).unwrap(), info);
    }
}
