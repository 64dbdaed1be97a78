//! `faulty`: plays random legal moves but misbehaves on purpose, as told by
//! its command-line flags, so the arena's fault handling can be tested.
//! Moves are counted per process: "after N" means from the (N+1)-th `go` on.

use std::sync::atomic::AtomicBool;
use std::thread;
use std::time::Duration;

use anyhow::{anyhow, bail};
use rand::RngExt;
use shakmaty::uci::UciMove;
use shakmaty::{Chess, Position, Square};

use super::engine::{Engine, Game, GoAction, Limits, Out, Reply, Seeded};

const KNOWN: &[&str] = &[
    "--seed",
    "--crash-after",
    "--hang-after",
    "--ignore-stop-after",
    "--slow-start",
    "--no-uciok",
    "--declare-options",
    "--garbage",
    "--illegal-after",
    "--null-after",
    "--huge-line",
    "--slow-move-ms",
    "--burn-cpu-ms",
    "--flood-info",
    "--reserve-ms",
    "--say-think",
    "--stray-bestmove-after",
    "--exit-on-newgame",
    "--short-mate-pv",
    "--illegal-pv-after",
    "--wrong-pv-after",
    "--claim-mate-after",
    "--unscored-after",
    "--bad-score-after",
];

/// `blitz-arena engine --help` shows this: the flags, and how the arena rules each fault.
pub const HELP: &str = "\
`faulty` plays random legal moves and misbehaves on purpose, as its flags say (in engines.toml:
args = [\"--crash-after\", \"5\"]). N counts its moves within a game; combine freely.

  --crash-after N        exits with status 101 at its move N+1: engine-crash, it loses
  --hang-after N         from move N+1 never answers anything again: its flag falls and it
                         does not answer stop: engine-stall, it loses
  --ignore-stop-after N  from move N+1 searches forever and ignores stop: engine-stall, it loses
  --illegal-after N      plays one illegal move, at its move N+1 (see below)
  --null-after N         answers `bestmove 0000` at its move N+1: ruled as an illegal move
  --slow-move-ms MS      sleeps MS before every move: it loses on time (flag) when MS exceeds
                         its clock
  --burn-cpu-ms MS       spins before every move until it has used MS of CPU: with a core it
                         moves after about MS; held below one it takes longer, and its moves
                         (and a loss on time) are marked starved of CPU
  --garbage              prints junk (binary, `info depth 300`, unknown commands) before every
                         move: nothing happens, the game goes on
  --huge-line BYTES      prints a line of BYTES bytes before every move: lines over 64 KiB
                         are dropped as they stream in; the game goes on
  --slow-start MS        sleeps MS before answering `uci`: fine under 10 s; over it, the run
                         stops before the first game
  --no-uciok             never sends `uciok`: the run stops before the first game
  --flood-info N         prints N scored `info` lines, each flushed, before every move: nothing
                         happens; no other game's clock is affected
  --reserve-ms MS        thinks until its own clock shows MS left, then moves
  --say-think            reports its own thinking time (µs, from reading `go` to writing
                         `bestmove`) as the `nodes` of an `info` line
  --stray-bestmove-after N  from move N+1 sends every `bestmove` twice: the second, read
                         before the next `go`, is discarded and recorded
  --exit-on-newgame N    exits (status 101) at its N-th `ucinewgame`, idle between games: the
                         arena restarts it for the game; only a failed restart forfeits
  --short-mate-pv N      at its move N+1 announces a mate in 2 with a PV of its move alone
                         (`info depth 3 score mate 2 pv MOVE`), then a sound line (`info depth
                         4 score cp 0 pv MOVE`): nothing happens, but a compat run with
                         -check-mate-pvs prints fastchess's `Incomplete mating PV` for the first
  --illegal-pv-after N   at its move N+1 prints a PV of its move twice (`info depth 2 score cp 0
                         pv MOVE MOVE`): nothing happens, but a compat run prints fastchess's
                         `Illegal PV move` for the second, as fastchess does
  --wrong-pv-after N     at its move N+1 prints a PV beginning with another legal move than the
                         one it plays: a compat run prints fastchess's `Bestmove does not match
                         beginning of last PV`
  --claim-mate-after N   at its move N+1 announces a mate in 1 (`info depth 1 score mate 1 pv
                         MOVE`): two such engines meeting make a compat run print fastchess's
                         `Sign mismatch in mate scores` after the second claim
  --unscored-after N     at its move N+1 prints an `info` line without a score (`info depth 1
                         nodes 1 pv MOVE`) and no scored one: a compat run prints fastchess's
                         `No info line available to extract score`
  --bad-score-after N    at its move N+1 prints a score that cannot be read (`info depth 1
                         score cp x pv MOVE`): a compat run prints fastchess's `Could not
                         extract score ...: Invalid score value: x`
  --seed N               seeds its random moves (0 = entropy)

An illegal move (or 0000) that the opponent's watcher notices (always, unless
--illegal-notice is below 1) is ruled by --ruleset:
  fide      taken back, the opponent gets +1 minute, play goes on (FIDE A4.2, 7.5.5); a
            second illegal move would lose, but `faulty` plays one per game
  house     illegal-move: the offender loses (H3.4; 0000: H16)
  generic   illegal-move: the offender loses, or a draw if the opponent could not mate (G§3)
  wbca      illegal-move: the offender loses, or a draw if the opponent has no mating
            material (WBCA 14)
  uscf      illegal-move: the offender loses, or a draw if the opponent has no mating
            material (USCF 7d)
  online    illegal-move: the offender loses at once
Not noticed, the move stands and play goes on from the illegal position.";

/// The misbehaviours, as parsed from the command line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    pub seed: u64,
    pub crash_after: Option<u64>,
    pub hang_after: Option<u64>,
    pub ignore_stop_after: Option<u64>,
    pub slow_start_ms: Option<u64>,
    pub no_uciok: bool,
    pub garbage: bool,
    pub illegal_after: Option<u64>,
    pub null_after: Option<u64>,
    pub huge_line: Option<u64>,
    pub slow_move_ms: Option<u64>,
    /// Spins before every move until its search thread has used this many ms of CPU.
    pub burn_cpu_ms: Option<u64>,
    /// `info` lines (with a score and a pv, as a real engine's) written before every move.
    pub flood_info: Option<u64>,
    /// Thinks until its own clock shows this many ms left, then moves (a well-behaved engine
    /// that uses its time to the last moment).
    pub reserve_ms: Option<u64>,
    /// Reports its own thinking time, from reading `go` to writing `bestmove`, in µs, as the
    /// `nodes` of a scored `info` line: what the arena charged beyond it is the arena's.
    pub say_think: bool,
    pub stray_bestmove_after: Option<u64>,
    pub exit_on_newgame: Option<u64>,
    /// At move N+1, an `info` line announcing a mate in 2 whose PV is the move alone, then a
    /// sound one.
    pub short_mate_pv: Option<u64>,
    /// At move N+1, a PV of the move played twice (the second is illegal).
    pub illegal_pv_after: Option<u64>,
    /// At move N+1, a PV that begins with another move than the one played.
    pub wrong_pv_after: Option<u64>,
    /// At move N+1, `score mate 1`, whatever the position.
    pub claim_mate_after: Option<u64>,
    /// At move N+1, an `info` line without a score, and no scored one.
    pub unscored_after: Option<u64>,
    /// At move N+1, a score that cannot be read (`score cp x`).
    pub bad_score_after: Option<u64>,
    /// Declares this many combo options of 64 values each before `uciok`: more than an
    /// arena should hold.
    pub declare_options: Option<u64>,
}

impl Flags {
    /// Parses `--flag N` / `--flag=N` arguments; unknown flags are errors.
    pub fn parse(args: &[String]) -> anyhow::Result<Flags> {
        let mut f = Flags::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, v)) => (flag, Some(v.to_string())),
                None => (arg.as_str(), None),
            };
            if !KNOWN.contains(&flag) {
                bail!("faulty: unknown flag {flag} (known: {})", KNOWN.join(" "));
            }
            if matches!(flag, "--no-uciok" | "--garbage" | "--say-think") {
                if inline.is_some() {
                    bail!("faulty: {flag} takes no value");
                }
                match flag {
                    "--no-uciok" => f.no_uciok = true,
                    "--say-think" => f.say_think = true,
                    _ => f.garbage = true,
                }
                continue;
            }
            let text = inline
                .or_else(|| it.next().cloned())
                .ok_or_else(|| anyhow!("faulty: {flag} needs a number"))?;
            let n: u64 = text
                .parse()
                .map_err(|_| anyhow!("faulty: {flag} needs a number, got {text:?}"))?;
            match flag {
                "--seed" => f.seed = n,
                "--crash-after" => f.crash_after = Some(n),
                "--hang-after" => f.hang_after = Some(n),
                "--ignore-stop-after" => f.ignore_stop_after = Some(n),
                "--slow-start" => f.slow_start_ms = Some(n),
                "--illegal-after" => f.illegal_after = Some(n),
                "--null-after" => f.null_after = Some(n),
                "--huge-line" => f.huge_line = Some(n),
                "--flood-info" => f.flood_info = Some(n),
                "--reserve-ms" => f.reserve_ms = Some(n),
                "--stray-bestmove-after" => f.stray_bestmove_after = Some(n),
                "--exit-on-newgame" => f.exit_on_newgame = Some(n),
                "--declare-options" => f.declare_options = Some(n),
                "--burn-cpu-ms" => f.burn_cpu_ms = Some(n),
                "--short-mate-pv" => f.short_mate_pv = Some(n),
                "--illegal-pv-after" => f.illegal_pv_after = Some(n),
                "--wrong-pv-after" => f.wrong_pv_after = Some(n),
                "--claim-mate-after" => f.claim_mate_after = Some(n),
                "--unscored-after" => f.unscored_after = Some(n),
                "--bad-score-after" => f.bad_score_after = Some(n),
                _ => f.slow_move_ms = Some(n),
            }
        }
        Ok(f)
    }
}

pub struct Faulty {
    flags: Flags,
    seeded: Seeded,
    /// `go` commands received so far (the current one included, once seen).
    gos: u64,
    /// `ucinewgame` commands this process has received.
    new_games: u64,
}

impl Faulty {
    pub fn new(flags: Flags) -> Self {
        Faulty {
            seeded: Seeded::new(flags.seed),
            flags,
            gos: 0,
            new_games: 0,
        }
    }

    /// True when the current `go` is move N+1 or later.
    fn from(&self, n: Option<u64>) -> bool {
        n.is_some_and(|n| self.gos > n)
    }

    /// True when the current `go` is exactly move N+1.
    fn at(&self, n: Option<u64>) -> bool {
        n.is_some_and(|n| self.gos == n + 1)
    }

    fn garbage(&mut self, out: &Out) {
        let noise: String = (0..48)
            .map(|_| char::from(self.seeded.rng.random_range(0x21u8..0x7f)))
            .collect();
        out.line(&noise);
        out.line("info depth 300");
        out.line("info depth 5 score cp 10 wdl 500 400 100 nodes 100 pv e2e4");
        out.with(|w| w.write_all(b"info string \xff\xfe\xc3\x28 not \x80utf-8\n"));
        out.line("info string odd\tch\u{7}ars \u{e9}\u{1F600} \u{200B}|\u{7f}|");
        out.line("frobnicate 42");
    }

    /// Streams one `info string xxx...` line of `bytes` bytes (newline
    /// included) in small chunks, never holding it in memory.
    fn huge_line(bytes: u64, out: &Out) {
        const PREFIX: &[u8] = b"info string ";
        const CHUNK: [u8; 8192] = [b'x'; 8192];
        out.with(|w| {
            w.write_all(PREFIX)?;
            let mut left = bytes.saturating_sub(PREFIX.len() as u64 + 1);
            while left > 0 {
                let n = left.min(CHUNK.len() as u64) as usize;
                w.write_all(&CHUNK[..n])?;
                left -= n as u64;
            }
            w.write_all(b"\n")
        });
    }

    /// Writes `lines` realistic `info` lines, each flushed on its own as most engines do, so
    /// that the arena reads them one by one.
    fn flood(lines: u64, out: &Out) {
        for i in 0..lines {
            let depth = 1 + i % 40;
            out.line(&format!(
                "info depth {depth} seldepth {} multipv 1 score cp {} nodes {} nps 1000000 \
                 time {} pv e2e4 e7e5 g1f3 b8c6 f1b5 a7a6",
                depth + 4,
                (i % 61) as i64 - 30,
                i * 1000,
                i
            ));
        }
    }

    /// The `info` lines of `--illegal-pv-after`, `--wrong-pv-after`, `--claim-mate-after`,
    /// `--unscored-after` and `--bad-score-after` at their move, for the move `m` it plays.
    fn bad_pvs(&self, game: &Game, moves: &[shakmaty::Move], m: shakmaty::Move, out: &Out) {
        let uci = game.uci(m);
        if self.at(self.flags.illegal_pv_after) {
            // The move again, from the square it left empty.
            out.line(&format!("info depth 2 score cp 0 pv {uci} {uci}"));
        }
        if self.at(self.flags.wrong_pv_after) {
            // Another move (its own when it has no other).
            let other = moves
                .iter()
                .find(|&&o| o != m)
                .map_or(uci, |&o| game.uci(o));
            out.line(&format!("info depth 1 score cp 0 pv {other}"));
        }
        if self.at(self.flags.claim_mate_after) {
            out.line(&format!("info depth 1 score mate 1 pv {uci}"));
        }
        if self.at(self.flags.unscored_after) {
            out.line(&format!("info depth 1 nodes 1 pv {uci}"));
        }
        if self.at(self.flags.bad_score_after) {
            out.line(&format!("info depth 1 score cp x pv {uci}"));
        }
    }

    /// A move that is certainly illegal: from an empty square, a move of the
    /// opponent's piece, or a king jumping two ranks.
    fn illegal_move(&mut self, pos: &Chess) -> String {
        let board = pos.board();
        let mut candidates = Vec::new();
        if let Some(empty) = (!board.occupied()).first() {
            let to = if empty == Square::H8 {
                Square::H7
            } else {
                Square::H8
            };
            candidates.push(format!("{empty}{to}"));
        }
        if let Some(theirs) = pos.them().first() {
            if let Some(to) = (!board.by_color(pos.turn().other())).first() {
                candidates.push(format!("{theirs}{to}"));
            }
        }
        if let Some(king) = board.king_of(pos.turn()) {
            let step = if pos.turn().is_white() { 16 } else { -16 };
            if let Some(to) = king.offset(step) {
                candidates.push(format!("{king}{to}"));
            }
        }
        candidates.retain(|c| {
            c.parse::<UciMove>()
                .map_or(true, |u| u.to_move(pos).is_err())
        });
        if candidates.is_empty() {
            return "a1a1".to_string();
        }
        let i = self.seeded.rng.random_range(0..candidates.len());
        candidates.swap_remove(i)
    }
}

impl Engine for Faulty {
    fn new_game(&mut self) {
        // An engine that dies while idle between games (its process, not its game, counts).
        self.new_games += 1;
        if self.flags.exit_on_newgame == Some(self.new_games) {
            std::process::exit(101);
        }
        // Faults count moves within a game, so a reused process misbehaves in every game.
        self.gos = 0;
        if self.flags.seed != 0 {
            self.seeded.reseed();
        }
    }

    fn on_uci(&mut self) -> bool {
        if let Some(ms) = self.flags.slow_start_ms {
            thread::sleep(Duration::from_millis(ms));
        }
        !self.flags.no_uciok
    }

    fn declare_more(&mut self, out: &Out) {
        for i in 0..self.flags.declare_options.unwrap_or(0) {
            let vars: String = (0..64)
                .map(|v| format!(" var value-{v:04}-{i:08}"))
                .collect();
            out.line(&format!(
                "option name Junk {i} type combo default value-0000-{i:08}{vars}"
            ));
        }
    }

    fn on_go(&mut self) -> GoAction {
        self.gos += 1;
        if self.from(self.flags.crash_after) {
            GoAction::Crash
        } else if self.from(self.flags.hang_after) {
            GoAction::Hang
        } else {
            GoAction::Search
        }
    }

    fn go(&mut self, game: &Game, limits: &Limits, stop: &AtomicBool, out: &Out) -> Reply {
        // Treats the go as infinite and never answers, whatever comes.
        if self.from(self.flags.ignore_stop_after) {
            return Reply::Silent;
        }
        if let Some(ms) = self.flags.slow_move_ms {
            thread::sleep(Duration::from_millis(ms));
        }
        if let Some(ms) = self.flags.burn_cpu_ms {
            burn_cpu(Duration::from_millis(ms), stop);
        }
        if let Some(reserve) = self.flags.reserve_ms {
            let left = if game.pos.turn().is_white() {
                limits.wtime
            } else {
                limits.btime
            };
            let think = Duration::from_millis(left.unwrap_or(0).saturating_sub(reserve));
            let until = limits.start + think;
            thread::sleep(until.saturating_duration_since(std::time::Instant::now()));
        }
        if self.flags.garbage {
            self.garbage(out);
        }
        if let Some(bytes) = self.flags.huge_line {
            Self::huge_line(bytes, out);
        }
        if let Some(lines) = self.flags.flood_info {
            Self::flood(lines, out);
        }
        if self.at(self.flags.null_after) {
            return Reply::Text("0000".to_string());
        }
        if self.at(self.flags.illegal_after) {
            return Reply::Text(self.illegal_move(&game.pos));
        }
        let moves = game.pos.legal_moves();
        let choice =
            (!moves.is_empty()).then(|| moves[self.seeded.rng.random_range(0..moves.len())]);
        if let Some(m) = choice.filter(|_| self.at(self.flags.short_mate_pv)) {
            // Three plies announced, one shown; the last line, a sound one, is the report.
            out.line(&format!("info depth 3 score mate 2 pv {}", game.uci(m)));
            out.line(&format!("info depth 4 score cp 0 pv {}", game.uci(m)));
        }
        if let Some(m) = choice {
            self.bad_pvs(game, &moves, m, out);
        }
        if self.flags.say_think {
            let think_us = limits.start.elapsed().as_micros();
            out.line(&format!("info depth 1 score cp 0 nodes {think_us}"));
        }
        if let Some(m) = choice.filter(|_| self.from(self.flags.stray_bestmove_after)) {
            // The same `bestmove` twice: the second is a stray, read before the next `go`.
            let uci = game.uci(m);
            return Reply::Text(format!("{uci}\nbestmove {uci}"));
        }
        Reply::Move(choice)
    }
}

/// The CPU time this thread has used.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec, which `t` is.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// Spins until this thread has used `cpu` of CPU time (not wall time: a thread that waits
/// for a core takes longer), or until `stop`.
fn burn_cpu(cpu: Duration, stop: &AtomicBool) {
    let until = thread_cpu() + cpu;
    let mut spin = 0u64;
    while thread_cpu() < until && !stop.load(std::sync::atomic::Ordering::Relaxed) {
        for _ in 0..1000 {
            spin = std::hint::black_box(spin.wrapping_add(1));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, EnPassantMode};

    fn flags(s: &str) -> anyhow::Result<Flags> {
        let args: Vec<String> = s.split_whitespace().map(String::from).collect();
        Flags::parse(&args)
    }

    fn err(s: &str) -> String {
        flags(s).expect_err("an error").to_string()
    }

    #[test]
    fn parses_every_flag() {
        let f = flags(
            "--seed 7 --crash-after 1 --hang-after=2 --ignore-stop-after 3 --slow-start 40 \
             --no-uciok --garbage --illegal-after 4 --null-after 5 --huge-line 100000 --slow-move-ms 60 --flood-info 9 \
             --reserve-ms 30 --say-think --declare-options 11 --short-mate-pv 6 \
             --illegal-pv-after 1 --wrong-pv-after 2 --claim-mate-after 3 \
             --unscored-after 4 --bad-score-after 5",
        )
        .expect("flags");
        assert_eq!(
            f,
            Flags {
                seed: 7,
                crash_after: Some(1),
                hang_after: Some(2),
                ignore_stop_after: Some(3),
                slow_start_ms: Some(40),
                no_uciok: true,
                garbage: true,
                illegal_after: Some(4),
                null_after: Some(5),
                huge_line: Some(100_000),
                slow_move_ms: Some(60),
                burn_cpu_ms: None,
                flood_info: Some(9),
                reserve_ms: Some(30),
                say_think: true,
                stray_bestmove_after: None,
                exit_on_newgame: None,
                short_mate_pv: Some(6),
                illegal_pv_after: Some(1),
                wrong_pv_after: Some(2),
                claim_mate_after: Some(3),
                unscored_after: Some(4),
                bad_score_after: Some(5),
                declare_options: Some(11),
            }
        );
        assert_eq!(flags("").expect("no flags"), Flags::default());
    }

    #[test]
    fn rejects_bad_flags() {
        assert!(err("--x").starts_with("faulty: unknown flag --x (known: --seed --crash-after"));
        assert_eq!(err("--crash-after"), "faulty: --crash-after needs a number");
        assert_eq!(
            err("--crash-after soon"),
            "faulty: --crash-after needs a number, got \"soon\""
        );
        assert_eq!(
            err("--null-after=-1"),
            "faulty: --null-after needs a number, got \"-1\""
        );
        assert_eq!(err("--garbage=1"), "faulty: --garbage takes no value");
        assert!(err("5").starts_with("faulty: unknown flag 5"));
    }

    fn go(engine: &mut Faulty, game: &Game) -> (GoAction, Option<Reply>, Vec<u8>) {
        let (out, buf) = Out::buffer();
        let action = engine.on_go();
        let reply = (action == GoAction::Search).then(|| {
            let limits = Limits::new(std::time::Instant::now());
            engine.go(game, &limits, &AtomicBool::new(false), &out)
        });
        let bytes = buf.lock().expect("buffer").clone();
        (action, reply, bytes)
    }

    #[test]
    fn counts_moves_for_crash_hang_and_ignore_stop() {
        let game = Game::default();
        let mut e = Faulty::new(flags("--crash-after 2").expect("flags"));
        assert_eq!(go(&mut e, &game).0, GoAction::Search);
        assert_eq!(go(&mut e, &game).0, GoAction::Search);
        assert_eq!(go(&mut e, &game).0, GoAction::Crash);
        let mut e = Faulty::new(flags("--hang-after 0").expect("flags"));
        assert_eq!(go(&mut e, &game).0, GoAction::Hang);
        let mut e = Faulty::new(flags("--ignore-stop-after 1").expect("flags"));
        assert!(matches!(go(&mut e, &game).1, Some(Reply::Move(Some(_)))));
        assert_eq!(go(&mut e, &game).1, Some(Reply::Silent));
        assert_eq!(go(&mut e, &game).1, Some(Reply::Silent));
    }

    /// The `info` lines `go` printed, and the move it answered.
    fn info_and_move(e: &mut Faulty, game: &Game) -> (Vec<String>, String) {
        let (_, reply, bytes) = go(e, game);
        let Some(Reply::Move(Some(m))) = reply else {
            panic!("expected a move, got {reply:?}");
        };
        let text = String::from_utf8(bytes).expect("utf-8");
        (
            text.lines().map(String::from).collect(),
            game.uci(m).to_string(),
        )
    }

    #[test]
    fn bad_pvs_come_once_at_their_move() {
        let game = Game::default();
        let flags = flags("--illegal-pv-after 0 --wrong-pv-after 1 --claim-mate-after 2 --seed 4");
        let mut e = Faulty::new(flags.expect("flags"));
        let (info, m) = info_and_move(&mut e, &game);
        assert_eq!(info, [format!("info depth 2 score cp 0 pv {m} {m}")]);
        let (info, m) = info_and_move(&mut e, &game);
        let other = info[0]
            .strip_prefix("info depth 1 score cp 0 pv ")
            .expect("a PV");
        assert_ne!(other, m);
        assert!(other
            .parse::<UciMove>()
            .expect("uci")
            .to_move(&game.pos)
            .is_ok());
        let (info, m) = info_and_move(&mut e, &game);
        assert_eq!(info, [format!("info depth 1 score mate 1 pv {m}")]);
        assert_eq!(info_and_move(&mut e, &game).0, Vec::<String>::new());
    }

    #[test]
    fn unscored_and_unreadable_scores_come_once_at_their_move() {
        let game = Game::default();
        let flags = flags("--unscored-after 0 --bad-score-after 1 --seed 4");
        let mut e = Faulty::new(flags.expect("flags"));
        let (info, m) = info_and_move(&mut e, &game);
        assert_eq!(info, [format!("info depth 1 nodes 1 pv {m}")]);
        let (info, m) = info_and_move(&mut e, &game);
        assert_eq!(info, [format!("info depth 1 score cp x pv {m}")]);
        assert_eq!(info_and_move(&mut e, &game).0, Vec::<String>::new());
    }

    #[test]
    fn null_and_illegal_moves_come_once() {
        let game = Game::default();
        let mut e = Faulty::new(flags("--null-after 1 --illegal-after 2 --seed 3").expect("flags"));
        assert!(matches!(go(&mut e, &game).1, Some(Reply::Move(Some(_)))));
        assert_eq!(go(&mut e, &game).1, Some(Reply::Text("0000".into())));
        let Some(Reply::Text(bad)) = go(&mut e, &game).1 else {
            panic!("expected an illegal move");
        };
        let parsed = bad.parse::<UciMove>().expect("well-formed");
        assert!(parsed.to_move(&game.pos).is_err(), "{bad} must be illegal");
        assert!(matches!(go(&mut e, &game).1, Some(Reply::Move(Some(_)))));
    }

    #[test]
    fn illegal_moves_are_illegal_in_many_positions() {
        let mut e = Faulty::new(flags("--seed 9").expect("flags"));
        let mut pos = Chess::default();
        for ply in 0..120 {
            for _ in 0..4 {
                let bad = e.illegal_move(&pos);
                let u = bad.parse::<UciMove>().expect("well-formed");
                assert!(u.to_move(&pos).is_err(), "{bad} legal in {}", fen(&pos));
            }
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[(ply * 7) % moves.len()]);
        }
    }

    fn fen(pos: &Chess) -> String {
        Fen::from_position(pos, EnPassantMode::Legal).to_string()
    }

    #[test]
    fn garbage_and_huge_line_then_a_legal_move() {
        let pos: Chess = "4k3/8/8/8/8/8/8/4K2R w K - 0 1"
            .parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("position");
        let game = Game {
            pos: pos.clone(),
            ..Game::default()
        };
        let mut e = Faulty::new(flags("--garbage --huge-line 100000").expect("flags"));
        let (_, reply, bytes) = go(&mut e, &game);
        let Some(Reply::Move(Some(m))) = reply else {
            panic!("expected a move");
        };
        assert!(pos.is_legal(m));
        let lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
        assert_eq!(
            lines.len(),
            8,
            "6 garbage lines, the huge line, the empty tail"
        );
        assert_eq!(lines[1], b"info depth 300");
        assert!(
            std::str::from_utf8(lines[3]).is_err(),
            "an invalid UTF-8 line"
        );
        assert_eq!(lines[5], b"frobnicate 42");
        assert_eq!(lines[6].len() + 1, 100_000);
        assert!(lines[6].starts_with(b"info string xxx"));
    }

    #[test]
    fn slow_start_and_no_uciok() {
        let mut e = Faulty::new(flags("--slow-start 50 --no-uciok").expect("flags"));
        let t = std::time::Instant::now();
        assert!(!e.on_uci());
        assert!(t.elapsed() >= Duration::from_millis(50));
        assert!(Faulty::new(Flags::default()).on_uci());
    }

    #[test]
    fn stray_bestmove_sends_each_move_twice_from_move_n_plus_1() {
        let game = Game::default();
        let mut e = Faulty::new(flags("--stray-bestmove-after 1 --seed 2").expect("flags"));
        assert_eq!(e.flags.stray_bestmove_after, Some(1));
        assert!(matches!(go(&mut e, &game).1, Some(Reply::Move(Some(_)))));
        let Some(Reply::Text(text)) = go(&mut e, &game).1 else {
            panic!("expected the move twice");
        };
        let (first, second) = text.split_once("\nbestmove ").expect("two lines");
        assert_eq!(first, second);
        assert!(first
            .parse::<UciMove>()
            .expect("a move")
            .to_move(&game.pos)
            .is_ok());
    }

    #[test]
    fn slow_move_sleeps_before_answering() {
        let mut e = Faulty::new(flags("--slow-move-ms 60").expect("flags"));
        let t = std::time::Instant::now();
        let (_, reply, _) = go(&mut e, &Game::default());
        assert!(matches!(reply, Some(Reply::Move(Some(_)))));
        assert!(t.elapsed() >= Duration::from_millis(60));
    }

    #[test]
    fn burn_cpu_uses_the_cpu_it_is_given() {
        let before = thread_cpu();
        burn_cpu(Duration::from_millis(30), &AtomicBool::new(false));
        assert!(thread_cpu() - before >= Duration::from_millis(30));
        assert_eq!(
            flags("--burn-cpu-ms 30").expect("flags").burn_cpu_ms,
            Some(30)
        );
    }
}
