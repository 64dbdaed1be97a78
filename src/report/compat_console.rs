//! Console lines in fastchess's two formats, its own and cutechess's (`--output-format`), byte
//! for byte as fastchess prints them, for the managers that parse them (OpenBench's client,
//! fishtest's worker). Where cutechess-cli itself prints otherwise, these are fastchess's lines.
//! Pure functions: `tournament::output` decides when a line is due and where it goes.
//!
//! The formats follow fastchess's `output_fastchess.hpp` / `output_cutechess.hpp` and `match.hpp`
//! (result texts).

use crate::event::{Event, GameRecord, GameResult, Side, Termination};
use crate::report::stats::erf;
use crate::report::Sprt;

/// Which tool's console lines the run prints on stdout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// blitz-arena's own progress (stderr) and summary (stdout).
    #[default]
    Native,
    Fastchess,
    Cutechess,
}

/// `Started game 3 of 8 (A vs B)`, as both tools print it.
pub fn started(game: u64, total: usize, white: &str, black: &str) -> String {
    format!("Started game {game} of {total} ({white} vs {black})")
}

/// `Finished game 3 (A vs B): 1-0 {White mates}`, as fastchess prints it in either format.
pub fn finished(
    game: u64,
    white: &str,
    black: &str,
    ending: Option<(GameResult, Termination)>,
    overrun_ms: i64,
) -> String {
    let (result, text) = match ending {
        Some((result, termination)) => (result.as_str(), reason(result, termination, overrun_ms)),
        // A game cut off before its end: fastchess's interrupted game.
        None => ("*", "Game interrupted".to_string()),
    };
    format!("Finished game {game} ({white} vs {black}): {result} {{{text}}}")
}

/// fastchess's text for how a game ended, in either of its formats (`match.hpp`; its
/// cutechess format keeps the same texts, `(Nms overrun)` included): each arena termination
/// mapped to the closest one. Colours are the winner's for a mate or an adjudicated win, the
/// loser's otherwise.
pub fn reason(result: GameResult, termination: Termination, overrun_ms: i64) -> String {
    let (winner, loser) = match result {
        GameResult::WhiteWins => (Some("White"), Some("Black")),
        GameResult::BlackWins => (Some("Black"), Some("White")),
        GameResult::Draw => (None, None),
    };
    use Termination as T;
    match (termination, winner, loser) {
        (T::Checkmate, Some(w), _) => format!("{w} mates"),
        (T::Flag | T::BothFlags, _, Some(l)) => {
            format!("{l} loses on time ({}ms overrun)", overrun_ms.max(0))
        }
        // A flag against a lone king (FIDE 6.9): cutechess's drawn timeout.
        (T::Flag | T::BothFlags, _, None) => "Draw by timeout".into(),
        (T::IllegalMove, _, Some(l)) => format!("{l} makes an illegal move"),
        (T::EngineCrash, _, Some(l)) => format!("{l} disconnects"),
        (T::EngineCrash, _, None) => "Draw by disconnection".into(),
        (T::EngineStall, _, Some(l)) => format!("{l}'s connection stalls"),
        (T::EngineStall, _, None) => "Draw by stalled connection".into(),
        (T::Stalemate, ..) => "Draw by stalemate".into(),
        (T::InsufficientMaterial | T::DeadPosition, ..) => {
            "Draw by insufficient mating material".into()
        }
        (T::Threefold | T::Fivefold, ..) => "Draw by 3-fold repetition".into(),
        (T::FiftyMoves | T::SeventyFiveMoves, ..) => "Draw by fifty moves rule".into(),
        // Both tools name the tables as the adjudicator.
        (T::Tablebase, Some(w), _) => format!("{w} wins by adjudication: SyzygyTB"),
        (T::Tablebase, None, _) => "Draw by adjudication: SyzygyTB".into(),
        (_, Some(w), _) => format!("{w} wins by adjudication"),
        (_, None, _) => "Draw by adjudication".into(),
    }
}

/// One engine's games counted the way fastchess counts them with pentanomial reporting: only
/// complete pairs count, wins/losses/draws included, from the engine's side.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairStats {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
    pub ww: u32,
    pub wd: u32,
    pub wl: u32,
    pub dd: u32,
    pub ld: u32,
    pub ll: u32,
}

impl PairStats {
    /// Adds a pair of games given the engine's points in each (0, 0.5 or 1).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        for points in [first, second] {
            match points {
                p if p > 0.75 => self.wins += 1,
                p if p < 0.25 => self.losses += 1,
                _ => self.draws += 1,
            }
        }
        let (hi, lo) = if first >= second {
            (first, second)
        } else {
            (second, first)
        };
        match ((hi * 2.0).round() as u8, (lo * 2.0).round() as u8) {
            (2, 2) => self.ww += 1,
            (2, 1) => self.wd += 1,
            (2, 0) => self.wl += 1,
            (1, 1) => self.dd += 1,
            (1, 0) => self.ld += 1,
            _ => self.ll += 1,
        }
    }

    /// The same pairs from the opponent's side.
    pub fn mirrored(&self) -> PairStats {
        PairStats {
            wins: self.losses,
            losses: self.wins,
            draws: self.draws,
            ww: self.ll,
            wd: self.ld,
            wl: self.wl,
            dd: self.dd,
            ld: self.wd,
            ll: self.ww,
        }
    }

    pub fn add(&mut self, other: &PairStats) {
        self.wins += other.wins;
        self.losses += other.losses;
        self.draws += other.draws;
        self.ww += other.ww;
        self.wd += other.wd;
        self.wl += other.wl;
        self.dd += other.dd;
        self.ld += other.ld;
        self.ll += other.ll;
    }

    fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    fn pairs(&self) -> u32 {
        self.ww + self.wd + self.wl + self.dd + self.ld + self.ll
    }

    fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// `[LL, LD, WL+DD, WD, WW]`, fastchess's `Ptnml(0-2)`.
    pub fn ptnml(&self) -> [u32; 5] {
        [self.ll, self.ld, self.wl + self.dd, self.wd, self.ww]
    }
}

/// fastchess's pentanomial Elo (`elo_pentanomial.cpp`): Elo, its 95% half-width, normalized
/// Elo and its half-width, LOS (0..1).
struct PentaElo {
    diff: f64,
    error: f64,
    nelo: f64,
    nelo_error: f64,
    los: f64,
}

const CI95Z: f64 = 1.959963984540054;

fn score_to_elo(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

impl PentaElo {
    fn of(s: &PairStats) -> PentaElo {
        let pairs = s.pairs() as f64;
        let [ll, ld, mid, wd, ww] = s.ptnml().map(|n| n as f64 / pairs);
        let score = ww + 0.75 * wd + 0.5 * mid + 0.25 * ld;
        let variance = ww * (1.0 - score).powi(2)
            + wd * (0.75 - score).powi(2)
            + mid * (0.5 - score).powi(2)
            + ld * (0.25 - score).powi(2)
            + ll * score.powi(2);
        let per_pair = variance / pairs;
        let (upper, lower) = (
            score + CI95Z * per_pair.sqrt(),
            score - CI95Z * per_pair.sqrt(),
        );
        let nelo = |x: f64| (x - 0.5) / (2.0 * variance).sqrt() * (800.0 / 10f64.ln());
        PentaElo {
            diff: score_to_elo(score),
            error: (score_to_elo(upper) - score_to_elo(lower)) / 2.0,
            nelo: nelo(score),
            nelo_error: (nelo(upper) - nelo(lower)) / 2.0,
            los: los(score, per_pair),
        }
    }
}

/// fastchess's LOS from the score and its variance per pair. Without decisive pairs it is
/// 0/0: on x86 that NaN carries the sign bit, and fastchess prints `LOS: -nan %`.
fn los(score: f64, per_pair: f64) -> f64 {
    let z = -(score - 0.5) / (2.0 * per_pair).sqrt();
    if z.is_nan() {
        -f64::NAN
    } else {
        (1.0 - erf(z)) / 2.0
    }
}

/// A number as C++ `fmt` prints `{:.N}`: `nan`, `-nan`, `inf` where Rust would print `NaN`.
pub fn fixed(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        if x.is_sign_negative() { "-nan" } else { "nan" }.into()
    } else if x.is_infinite() {
        if x < 0.0 { "-inf" } else { "inf" }.into()
    } else {
        format!("{x:.decimals$}")
    }
}

/// What fastchess's `Results of A vs B (tc, threads, hash, book):` line names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchLabel {
    pub tc: String,
    pub threads: String,
    pub hash: String,
    /// The opening file's name without its folder; empty for none.
    pub book: String,
}

/// fastchess's time control in its results header (`getTime`): `8+0.08`, or `N nodes` when the
/// engines search a fixed number of nodes.
pub fn fastchess_tc(base_s: f64, increment_s: f64, nodes: Option<u64>) -> String {
    match nodes {
        Some(n) if base_s + increment_s <= 0.0 => format!("{n} nodes"),
        _ if increment_s > 0.0 => format!("{base_s}+{increment_s}"),
        _ => format!("{base_s}"),
    }
}

/// fastchess's spelling of a time control (`getTime`): `8+0.08`, `40/60+0.6`, `0.5/move`.
pub fn fastchess_time(tc: &crate::timecontrol::TimeControl) -> String {
    if tc.per_move {
        return format!("{}/move", tc.base.as_secs_f64());
    }
    fastchess_period_tc(tc.moves, tc.base.as_secs_f64(), tc.increment.as_secs_f64())
}

/// [`fastchess_tc`] of a time control with repeating periods: `40/60+0.6`.
pub fn fastchess_period_tc(moves: Option<u32>, base_s: f64, increment_s: f64) -> String {
    let tc = fastchess_tc(base_s, increment_s, None);
    match moves {
        Some(moves) => format!("{moves}/{tc}"),
        None => tc,
    }
}

/// The SPRT as fastchess prints it: the test and the LLR now.
pub struct SprtNow<'a> {
    pub sprt: &'a Sprt,
    pub llr: f64,
}

const RULE: &str = "--------------------------------------------------";

/// fastchess's results block for a two-engine match (`printInterval` + `printEloH2H`): the
/// lines fishtest's worker parses (`Games: ..., Points: ... (` and `Ptnml(0-2): [...]`).
pub fn fastchess_h2h(
    first: &str,
    second: &str,
    label: &MatchLabel,
    stats: &PairStats,
    sprt: Option<SprtNow>,
) -> Vec<String> {
    let elo = PentaElo::of(stats);
    let pairs = stats.pairs() as f64;
    let mut lines = results_head(
        first,
        second,
        label,
        [elo.diff, elo.error, elo.nelo, elo.nelo_error],
    );
    lines.extend([
        format!(
            "LOS: {} %, DrawRatio: {} %, PairsRatio: {}",
            fixed(elo.los * 100.0, 2),
            fixed((stats.wl + stats.dd) as f64 / pairs * 100.0, 2),
            fixed(
                (stats.ww + stats.wd) as f64 / (stats.ld + stats.ll) as f64,
                2
            )
        ),
        games_line(
            stats.games(),
            [stats.wins, stats.losses, stats.draws],
            stats.points(),
        ),
        {
            let [a, b, c, d, e] = stats.ptnml();
            format!(
                "Ptnml(0-2): [{a}, {b}, {c}, {d}, {e}], WL/DD Ratio: {}",
                fixed(stats.wl as f64 / stats.dd as f64, 2)
            )
        },
    ]);
    lines.extend(sprt.map(llr_line));
    lines.push(RULE.to_string());
    lines
}

/// The SPRT's line of fastchess's results block (`printSprt`): `LLR: 1.23 (41.8%) (-2.94,
/// 2.94) [0.00, 5.00]`, with pentanomial counts or without.
fn llr_line(now: SprtNow) -> String {
    let (lower, upper) = now.sprt.bounds();
    let fraction = if now.llr >= 0.0 {
        now.llr / upper
    } else {
        -now.llr / lower
    };
    format!(
        "LLR: {} ({}%) ({}, {}) [{}, {}]",
        fixed(now.llr, 2),
        fixed(fraction * 100.0, 1),
        fixed(lower, 2),
        fixed(upper, 2),
        fixed(now.sprt.elo0, 2),
        fixed(now.sprt.elo1, 2)
    )
}

/// fastchess's Elo from wins, draws and losses (`elo_wdl.cpp`): Elo, its 95% half-width,
/// normalized Elo and its half-width, LOS (0..1), the draws' share in percent.
struct WdlElo {
    diff: f64,
    error: f64,
    nelo: f64,
    nelo_error: f64,
    los: f64,
    draw_ratio: f64,
}

impl WdlElo {
    fn of(wdl: &Wdl) -> WdlElo {
        let games = wdl.games() as f64;
        let (w, d, l) = (
            wdl.wins as f64 / games,
            wdl.draws as f64 / games,
            wdl.losses as f64 / games,
        );
        let score = w + 0.5 * d;
        let variance = w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * score.powi(2);
        let per_game = variance / games;
        let (upper, lower) = (
            score + CI95Z * per_game.sqrt(),
            score - CI95Z * per_game.sqrt(),
        );
        let nelo = |x: f64| (x - 0.5) / variance.sqrt() * (800.0 / 10f64.ln());
        WdlElo {
            diff: score_to_elo(score),
            error: (score_to_elo(upper) - score_to_elo(lower)) / 2.0,
            nelo: nelo(score),
            nelo_error: (nelo(upper) - nelo(lower)) / 2.0,
            los: los(score, per_game),
            draw_ratio: 100.0 * wdl.draws as f64 / games,
        }
    }
}

/// fastchess's results block when it reports no pentanomial (`-games 1`: `report_penta` is
/// off unless each opening is played twice): Elo from wins, draws and losses (`elo_wdl.cpp`),
/// the draw ratio of games, no `PairsRatio` and no `Ptnml(0-2)` line; the SPRT's line (on the
/// games' counts) when a test runs.
pub fn fastchess_h2h_wdl(
    first: &str,
    second: &str,
    label: &MatchLabel,
    wdl: &Wdl,
    sprt: Option<SprtNow>,
) -> Vec<String> {
    let elo = WdlElo::of(wdl);
    let points = wdl.wins as f64 + 0.5 * wdl.draws as f64;
    let mut lines = results_head(
        first,
        second,
        label,
        [elo.diff, elo.error, elo.nelo, elo.nelo_error],
    );
    lines.extend([
        format!(
            "LOS: {} %, DrawRatio: {} %",
            fixed(elo.los * 100.0, 2),
            fixed(elo.draw_ratio, 2)
        ),
        games_line(wdl.games(), [wdl.wins, wdl.losses, wdl.draws], points),
    ]);
    lines.extend(sprt.map(llr_line));
    lines.push(RULE.to_string());
    lines
}

/// The first lines of fastchess's two-engine results block (`printEloH2H`): the rule, `Results
/// of A vs B (tc, threads, hash, book):` and the Elo line from `[elo, its error, nElo, its
/// error]`, alike with pentanomial counts or without.
fn results_head(first: &str, second: &str, label: &MatchLabel, elo: [f64; 4]) -> Vec<String> {
    let book = if label.book.is_empty() {
        String::new()
    } else {
        format!(", {}", label.book)
    };
    let [diff, error, nelo, nelo_error] = elo.map(|x| fixed(x, 2));
    vec![
        RULE.to_string(),
        format!(
            "Results of {first} vs {second} ({}, {}, {}{book}):",
            label.tc, label.threads, label.hash
        ),
        format!("Elo: {diff} +/- {error}, nElo: {nelo} +/- {nelo_error}"),
    ]
}

/// The block's `Games: N, Wins: W, Losses: L, Draws: D, Points: P (S %)` line, which fishtest's
/// worker parses; `wld` is wins, losses and draws.
fn games_line(games: u32, wld: [u32; 3], points: f64) -> String {
    let [wins, losses, draws] = wld;
    format!(
        "Games: {games}, Wins: {wins}, Losses: {losses}, Draws: {draws}, Points: {points:.1} ({} %)",
        fixed(points / games as f64 * 100.0, 2)
    )
}

/// fastchess's ranking table for three or more engines, best Elo first, each engine's complete
/// pairs against all its opponents.
pub fn fastchess_table(engines: &[(String, PairStats)], sprt: Option<SprtNow>) -> Vec<String> {
    let rows = engines
        .iter()
        .map(|(name, s)| {
            let elo = PentaElo::of(s);
            let [a, b, c, d, e] = s.ptnml();
            TableRow {
                name,
                elo: [elo.diff, elo.error, elo.nelo, elo.nelo_error],
                games: s.games(),
                score: s.points() / s.games() as f64 * 100.0,
                draws: (s.wl + s.dd) as f64 / s.pairs() as f64 * 100.0,
                ptnml: format!("[{a}, {b}, {c}, {d}, {e}]"),
            }
        })
        .collect();
    let mut lines = ranking(rows);
    if let Some(now) = sprt {
        // Only a two-engine run has a test; kept for symmetry with `fastchess_h2h`.
        let (lower, upper) = now.sprt.bounds();
        lines.push(format!(
            "LLR: {} ({}, {})",
            fixed(now.llr, 2),
            fixed(lower, 2),
            fixed(upper, 2)
        ));
    }
    lines.push(RULE.to_string());
    lines
}

/// The ranking table where fastchess reports no pentanomial counts (`-games 1`): each
/// engine's every game, Elo from wins, draws and losses (`elo_wdl.cpp`), the draws' share of
/// games, and the `Ptnml(0-2)` column left blank.
pub fn fastchess_table_wdl(engines: &[(String, Wdl)]) -> Vec<String> {
    let rows = engines
        .iter()
        .map(|(name, wdl)| {
            let elo = WdlElo::of(wdl);
            TableRow {
                name,
                elo: [elo.diff, elo.error, elo.nelo, elo.nelo_error],
                games: wdl.games(),
                score: wdl.score() * 100.0,
                draws: elo.draw_ratio,
                ptnml: String::new(),
            }
        })
        .collect();
    let mut lines = ranking(rows);
    lines.push(RULE.to_string());
    lines
}

/// One engine's row of fastchess's ranking table: Elo `[diff, error, nElo, error]`, games,
/// score and draws in percent, and its pentanomial counts (empty without them).
struct TableRow<'a> {
    name: &'a str,
    elo: [f64; 4],
    games: u32,
    score: f64,
    draws: f64,
    ptnml: String,
}

/// The rule, the header and the rows of fastchess's ranking table, best Elo first.
fn ranking(mut rows: Vec<TableRow>) -> Vec<String> {
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(25);
    rows.sort_by(|a, b| by_elo(a.elo[0], b.elo[0]));
    let mut lines = vec![
        RULE.to_string(),
        format!(
            "{:<4} {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>20}",
            "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw", "Ptnml(0-2)"
        ),
    ];
    for (rank, row) in rows.into_iter().enumerate() {
        let [diff, error, nelo, nelo_error] = row.elo.map(|x| fixed(x, 2));
        lines.push(format!(
            "{:>4} {:<width$} {diff:>10} {error:>10} {nelo:>10} {nelo_error:>10} {:>10} {:>9}% {:>9}% {:>20}",
            rank + 1,
            row.name,
            row.games,
            fixed(row.score, 1),
            fixed(row.draws, 1),
            row.ptnml,
        ));
    }
    lines
}

/// Wins, losses and draws of every game (not only complete pairs), from one engine's side:
/// what cutechess-cli's score line counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wdl {
    pub wins: u32,
    pub losses: u32,
    pub draws: u32,
}

impl Wdl {
    pub fn add(&mut self, points: f64) {
        match points {
            p if p > 0.75 => self.wins += 1,
            p if p < 0.25 => self.losses += 1,
            _ => self.draws += 1,
        }
    }

    fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    fn score(&self) -> f64 {
        (self.wins as f64 + 0.5 * self.draws as f64) / self.games() as f64
    }
}

/// `Score of A vs B: 3 - 1 - 2  [0.667] 6`, every game of the pairing from the first's side
/// (cutechess-cli `enginematch.cpp`, and fastchess's cutechess format).
pub fn cutechess_score(first: &str, second: &str, wdl: &Wdl) -> String {
    format!(
        "Score of {first} vs {second}: {} - {} - {}  [{}] {}",
        wdl.wins,
        wdl.losses,
        wdl.draws,
        fixed(wdl.score(), 3),
        wdl.games()
    )
}

/// `Elo difference: 58.45 +/- 116.28, LOS: 85.19 %, DrawRatio: 66.67 %`: fastchess's line in
/// its cutechess format (`output_cutechess.hpp`: its Elo from wins, draws and losses, two
/// decimals; cutechess-cli itself prints one, and another LOS).
pub fn cutechess_elo(wdl: &Wdl) -> String {
    let elo = WdlElo::of(wdl);
    format!(
        "Elo difference: {} +/- {}, LOS: {} %, DrawRatio: {} %",
        fixed(elo.diff, 2),
        fixed(elo.error, 2),
        fixed(elo.los * 100.0, 2),
        fixed(elo.draw_ratio, 2)
    )
}

/// fastchess's ranking table in its cutechess format, for three or more engines: best Elo
/// first, each engine's games against all its opponents, no pentanomial column.
pub fn cutechess_table(engines: &[(String, Wdl)]) -> Vec<String> {
    let width = engines
        .iter()
        .map(|(n, _)| n.len())
        .max()
        .unwrap_or(0)
        .max(25);
    let mut ranked: Vec<_> = engines
        .iter()
        .map(|(name, s)| (name, s, WdlElo::of(s)))
        .collect();
    ranked.sort_by(|a, b| by_elo(a.2.diff, b.2.diff));
    let mut lines = vec![format!(
        "{:<4} {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "Rank", "Name", "Elo", "+/-", "nElo", "+/-", "Games", "Score", "Draw"
    )];
    for (rank, (name, s, elo)) in ranked.into_iter().enumerate() {
        lines.push(format!(
            "{:>4} {:<width$} {:>10} {:>10} {:>10} {:>10} {:>10} {:>9}% {:>9}%",
            rank + 1,
            name,
            fixed(elo.diff, 2),
            fixed(elo.error, 2),
            fixed(elo.nelo, 2),
            fixed(elo.nelo_error, 2),
            s.games(),
            fixed(s.score() * 100.0, 1),
            fixed(elo.draw_ratio, 1),
        ));
    }
    lines
}

/// fastchess's ranking order: higher Elo first, an Elo that is NaN last.
fn by_elo(a: f64, b: f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (false, true) => std::cmp::Ordering::Less,
        (true, false) => std::cmp::Ordering::Greater,
        _ => b.total_cmp(&a),
    }
}

/// fastchess's last line in its cutechess format when the SPRT stopped the match.
pub const TOURNAMENT_FINISHED: &str = "Tournament finished";

/// `SPRT: llr 0.52 (17.7%), lbound -2.94, ubound 2.94` with ` - H1 was accepted` once decided.
pub fn cutechess_sprt(now: SprtNow) -> String {
    let (lower, upper) = now.sprt.bounds();
    let llr = now.llr;
    let percent = if llr < 0.0 {
        llr / lower * 100.0
    } else {
        llr / upper * 100.0
    };
    let decided = if llr >= upper {
        " - H1 was accepted"
    } else if llr < lower {
        " - H0 was accepted"
    } else {
        ""
    };
    format!(
        "SPRT: llr {} ({}%), lbound {}, ubound {}{decided}",
        fixed(llr, 2),
        fixed(percent, 1),
        fixed(lower, 2),
        fixed(upper, 2)
    )
}

/// fastchess's line when the SPRT stops a match: `SPRT ([0.00, 5.00]) completed - H0 was accepted`.
pub fn fastchess_sprt_done(sprt: &Sprt, h1: bool) -> String {
    format!(
        "SPRT ([{}, {}]) completed - {} was accepted",
        fixed(sprt.elo0, 2),
        fixed(sprt.elo1, 2),
        if h1 { "H1" } else { "H0" }
    )
}

/// Whether fastchess reads `text` as a move at all (`[a-h][1-8][a-h][1-8][nbrq]?`); a
/// `bestmove` that is not gets the format warning before the illegal-move one.
pub fn is_uci_move(text: &str) -> bool {
    let b = text.as_bytes();
    let file = |c: u8| (b'a'..=b'h').contains(&c);
    let rank = |c: u8| (b'1'..=b'8').contains(&c);
    matches!(b.len(), 4 | 5)
        && file(b[0])
        && rank(b[1])
        && file(b[2])
        && rank(b[3])
        && (b.len() == 4 || b"nbrq".contains(&b[4]))
}

/// fastchess's warnings for an illegal `bestmove` (`match.cpp`), each line as it prints it:
/// the format warning first when the text is no move at all, then the illegal move.
pub fn illegal_move_warnings(uci: &str, engine: &str) -> Vec<String> {
    let mut lines = Vec::new();
    if !is_uci_move(uci) {
        lines.push(format!(
            "Warning; Move does not match uci move format, lowercase and 4/5 chars. Move {uci} played by {engine}"
        ));
    }
    let uci = if uci.is_empty() { "<none>" } else { uci };
    lines.push(format!("Warning; Illegal move {uci} played by {engine}"));
    lines
}

/// fastchess's warning when an engine does not answer `isready` (`uci_engine.cpp`): an engine
/// that stalls gets it twice in its game (the `isready` after its move timed out, and the one
/// before it is restarted); one that crashed, none (its process is gone before the question).
pub fn not_responsive(engine: &str) -> String {
    format!("Warning; Engine {engine} is not responsive")
}

/// What fastchess prints while a game is ruled, before the game's PGN is written (and its CRC
/// line printed) and before `Finished game`: an illegal move's warnings, and the warnings for an
/// engine that stalls (it does not answer fastchess's `isready`, twice).
pub fn ruling_warnings(record: &GameRecord) -> Vec<String> {
    let Some((result, termination, _)) = fastchess_ending(record) else {
        return Vec::new();
    };
    let Some(side) = loser(result) else {
        return Vec::new();
    };
    let name = record.engine(side);
    match termination {
        Termination::IllegalMove => {
            let uci = record.events.iter().rev().find_map(|e| match e {
                Event::IllegalMove { side: s, uci, .. } if *s == side => Some(uci.as_str()),
                _ => None,
            });
            illegal_move_warnings(uci.unwrap_or(""), name)
        }
        Termination::EngineStall => vec![not_responsive(name), not_responsive(name)],
        _ => Vec::new(),
    }
}

/// What a game adds to fastchess's `Player:` block: the engine that lost it on time (a time
/// loss) or by crashing or stalling (a crash), if any.
pub fn player_fault(record: &GameRecord) -> Option<(&str, u32, u32)> {
    let (result, termination, _) = fastchess_ending(record)?;
    let name = record.engine(loser(result)?);
    match termination {
        Termination::EngineStall | Termination::EngineCrash => Some((name, 0, 1)),
        Termination::Flag | Termination::BothFlags => Some((name, 1, 0)),
        _ => None,
    }
}

/// fastchess's count of time losses and crashes per engine, printed (fastchess format only)
/// before `Finished match` when any engine has one (`tournament.cpp`).
pub fn player_block(players: &[(String, u32, u32)]) -> Vec<String> {
    if players.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![String::new()];
    for (name, timeouts, crashed) in players {
        lines.push(format!("Player: {name}"));
        lines.push(format!("  Timeouts: {timeouts}"));
        lines.push(format!("  Crashed: {crashed}"));
    }
    lines.push(String::new());
    lines
}

/// fastchess's line when Ctrl-C stopped the match (`main.cpp`, in its form without a saved
/// tournament file to resume from: blitz-arena writes none).
pub const INTERRUPTED: &str = "Tournament was interrupted.";

/// The last line both tools print when a match is over; OpenBench and fishtest wait for it.
pub const FINISHED_MATCH: &str = "Finished match";

/// fastchess's `Total Time: 00:01:05 (hours:minutes:seconds)`, after `Finished match`.
pub fn total_time(seconds: u64) -> String {
    format!(
        "Total Time: {:02}:{:02}:{:02} (hours:minutes:seconds)",
        seconds / 3600,
        seconds / 60 % 60,
        seconds % 60
    )
}

/// How long fastchess waits for a `bestmove` past the mover's time and `timemargin`
/// (`TimeControl::MARGIN`) before it rules the time loss.
pub const FASTCHESS_WAIT_MS: i64 = 100;

/// A game's ending as fastchess states it: result, termination (the arena's ruling) and, for a
/// time loss, the loser's overrun in ms (fastchess's `(Nms overrun)`): how far past zero its
/// clock was when its `bestmove` came (the answer to its `go`, or to the `stop` the arena sent
/// as its flag fell; the game's end is recorded the moment it came), at most `timemargin` plus
/// the 100 ms fastchess waits before it stops waiting and rules.
pub fn fastchess_ending(record: &GameRecord) -> Option<(GameResult, Termination, i64)> {
    let outcome = record.outcome()?;
    let overrun_ms = match (loser(outcome.result), outcome.termination) {
        (Some(side), Termination::Flag | Termination::BothFlags) => {
            let went = record.events.iter().rev().find_map(|e| match e {
                Event::Go {
                    t_us,
                    side: s,
                    clock_us,
                    ..
                } if *s == side => Some(t_us + clock_us),
                _ => None,
            });
            let past_zero_ms = went.map_or(0, |zero| (outcome.t_us - zero) / 1000);
            past_zero_ms.clamp(0, record.time_margin_ms as i64 + FASTCHESS_WAIT_MS)
        }
        _ => 0,
    };
    Some((outcome.result, outcome.termination, overrun_ms))
}

/// The side that lost a decisive game.
pub fn loser(result: GameResult) -> Option<Side> {
    match result {
        GameResult::WhiteWins => Some(Side::Black),
        GameResult::BlackWins => Some(Side::White),
        GameResult::Draw => None,
    }
}

#[cfg(test)]
mod tests;
