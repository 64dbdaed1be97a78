//! The one interpreter of the referee's verdicts (issue 21): what the watchers and the clocks
//! do about each verdict. The live game (`Game::act`) and the re-ruling of its record
//! (`game::rerule`, behind `adjudicate` and the invariants) both act through [`Verdicts::act`],
//! so a recorded game re-ruled under the ruleset it was played under gives the ruling it was
//! played to.
//!
//! The interpreter also holds what a flag injection changed about the watchers (docs/rulesets.md:
//! `at-mate` keeps the mater's flag unnoticed until its mating move, `both` keeps the first
//! flag unnoticed until the second falls). It learns it from the `Injected` event the game
//! records, so a re-ruling learns it from the same event.

use crate::event::Side;
use crate::rules::{Ending, Verdict};
use crate::settings::{IllegalNoticeAfter, NoticeAt};
use crate::vocabulary::FlagMode;

use super::Watchers;

/// When a watcher notices the opponent's fallen flag (docs/rulesets.md, the watchers).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum FlagNotice {
    /// Exactly this many ms after the flag fell (`--flag-notice-after MS`; 0: at once).
    After(u64),
    /// As its own side next moves (`--flag-notice-after press`).
    AtPress,
    /// Never (`--flag-notice-after never`).
    Never,
    /// After a delay drawn from an exponential distribution of this mean, in ms.
    Drawn { mean_ms: f64 },
}

impl FlagNotice {
    /// How `by`'s watcher notices a fallen flag under `watchers`.
    pub fn of(watchers: &Watchers, by: Side) -> FlagNotice {
        match watchers.flag_notice_after.map(|f| f.of(by)) {
            Some(NoticeAt::Ms(ms)) => FlagNotice::After(ms),
            Some(NoticeAt::Press) => FlagNotice::AtPress,
            Some(NoticeAt::Never) => FlagNotice::Never,
            None if watchers.flag_notice_ms > 0.0 => FlagNotice::Drawn {
                mean_ms: watchers.flag_notice_ms,
            },
            None => FlagNotice::After(0),
        }
    }
}

/// Whether the opponent's watcher notices a completed illegal move before it moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IllegalNotice {
    /// Noticed at once: a notice, then a claim.
    Now,
    /// Not noticed: the move stands.
    Stands,
    /// Noticed this many plies later: too late, the move stands, and the watcher's late claim
    /// is recorded (`--illegal-notice-after N`).
    Late { plies: u32 },
    /// Noticed with this probability (below 1; 0: never, but still drawn in a live game).
    Drawn(f64),
}

/// What follows a verdict.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Play on.
    Continue,
    /// The game is over.
    End(Ending),
    /// The opponents of these fallen flags start watching them, from the verdict's instant.
    WatchFlags(Vec<Side>),
    /// `by`'s watcher notices its opponent's completed illegal move, or not.
    Illegal { by: Side, notice: IllegalNotice },
    /// A penalty: recorded, added to `side`'s clock (negative: charged); with `retake` the
    /// illegal move is taken back and the offender moves again (FIDE 7.5.5).
    Penalty {
        side: Side,
        add_us: i64,
        rule: &'static str,
        retake: bool,
    },
}

/// The interpreter of one game's verdicts.
#[derive(Clone, Debug, Default)]
pub struct Verdicts {
    /// Flags whose notice an injection defers (`both`: until the second falls; `at-mate`:
    /// until the mating move is released).
    deferred: Vec<Side>,
    /// `both`: the side whose next move is held until its own flag falls.
    second_staller: Option<Side>,
}

impl Verdicts {
    /// `side`'s move was held back by a flag injection of `mode` (its `Injected` event).
    pub fn injected(&mut self, side: Side, mode: FlagMode) {
        if self.second_staller == Some(side) {
            return; // `both`, second half: already planned at the first
        }
        match mode {
            FlagMode::AtMate => self.deferred.push(side),
            FlagMode::Both => {
                self.second_staller = Some(side.other());
                self.deferred.push(side);
            }
            FlagMode::Stall => {}
        }
    }

    /// `both`: the side whose next move is held until its own flag falls.
    pub fn second_staller(&self) -> Option<Side> {
        self.second_staller
    }

    /// The held move is released: the flags whose watchers start watching at its instant
    /// (`at-mate`: the mater's, deferred until its mating move is made).
    pub fn released(&mut self) -> Vec<Side> {
        if self.second_staller.is_none() {
            std::mem::take(&mut self.deferred)
        } else {
            Vec::new()
        }
    }

    /// What follows `verdict`, under `watchers`. `cannot_stand`: the pending illegal move is
    /// one no board can hold (`Referee::pending_cannot_stand`), noticed whatever the watcher.
    pub fn act(&mut self, verdict: Verdict, watchers: &Watchers, cannot_stand: bool) -> Action {
        match verdict {
            Verdict::Continue => Action::Continue,
            Verdict::End(ending) => Action::End(ending),
            Verdict::FlagDown { side } => {
                if self.deferred.contains(&side) {
                    // Injected: this flag goes unnoticed for now.
                    Action::Continue
                } else if self.second_staller == Some(side) {
                    // `both`: the second flag fell; now both watchers may notice.
                    self.second_staller = None;
                    let mut sides = std::mem::take(&mut self.deferred);
                    sides.push(side);
                    Action::WatchFlags(sides)
                } else {
                    Action::WatchFlags(vec![side])
                }
            }
            Verdict::IllegalCompleted { offender } => {
                // A move no board can hold counts as noticed (docs/rulesets.md).
                let notice = if cannot_stand {
                    IllegalNotice::Now
                } else {
                    match watchers.illegal_notice_after {
                        Some(IllegalNoticeAfter::Plies(0)) => IllegalNotice::Now,
                        Some(IllegalNoticeAfter::Plies(plies)) => IllegalNotice::Late { plies },
                        Some(IllegalNoticeAfter::Never) => IllegalNotice::Stands,
                        // (0 is a draw too: the live game draws it, as seeded replays expect.)
                        None => match watchers.illegal_notice.clamp(0.0, 1.0) {
                            p if p >= 1.0 => IllegalNotice::Now,
                            p => IllegalNotice::Drawn(p),
                        },
                    }
                };
                Action::Illegal {
                    by: offender.other(),
                    notice,
                }
            }
            Verdict::Penalty {
                side,
                add_us,
                rule,
                retake,
            } => Action::Penalty {
                side,
                add_us,
                rule,
                retake,
            },
        }
    }
}
