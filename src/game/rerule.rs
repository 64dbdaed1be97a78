//! A recorded game ruled again from its events (`adjudicate`, and the invariant that a game
//! re-ruled under the ruleset it was played under gives the ruling it was played to).
//!
//! Each game's recorded events are fed in order to a fresh referee with the run's settings and
//! the ruleset asked for, and each verdict is acted on by the same interpreter the live game
//! uses (`verdicts.rs`). The events are facts (moves, flag falls, what the watchers noticed),
//! so they stay valid as long as the other ruleset would have produced the same ones. Where it
//! ends the game earlier (`online` at a flag fall), its ending is taken there. Where it would
//! have needed events the record does not have (a claim of a flag that `online` never waited
//! for, a take-back under FIDE 7.5.5, a game that goes on), the game is *undetermined* and the
//! report says why. Events the watchers would have produced at the same instant with certainty
//! (a notice and a claim when the notice and the claim take no time) are supplied and reported
//! as assumed.

use std::cell::RefCell;
use std::ops::Deref;

use shakmaty::Chess;

use super::verdicts::{Action, FlagNotice, IllegalNotice, Verdicts};
use super::Watchers;
use crate::event::{BySide, Claimable, Event, Fault, GameRecord, Injection, OpeningRecord, Side};
use crate::rules::{Checked, Ending, Referee, RefereeSettings, Ruleset, Verdict};
use crate::settings::NoticeAt;

/// A recorded game re-ruled under another ruleset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rerule {
    /// The other ruleset ends the game: how, and the events the record lacked that were
    /// supplied because the watchers would certainly have produced them.
    Ended {
        ending: Ending,
        assumed: Vec<String>,
    },
    /// The other ruleset would have needed events the record does not have: why.
    Undetermined(String),
}

thread_local! {
    /// The last opening set up on this thread, and its referee before any event: a game is
    /// re-ruled for the invariants and then, if `report.html` shows it, under every ruleset,
    /// and a gauntlet plays each opening with both colours (setting up a FEN and its moves
    /// cost some 5,000 instructions).
    static LAST_OPENING: RefCell<Option<(OpeningRecord, Referee)>> = const { RefCell::new(None) };
}

/// The position a record's game started from, after its opening moves.
fn starting_referee(record: &GameRecord, settings: &RefereeSettings) -> Result<Referee, String> {
    let settings = settings.clone();
    let last = LAST_OPENING.with_borrow(|last| match last {
        Some((opening, referee)) if *opening == record.opening => Some(referee.clone()),
        _ => None,
    });
    if let Some(referee) = last {
        return Ok(referee.with_settings(settings));
    }
    let root: Chess = record.opening.root().map_err(|e| {
        let text = record.opening.fen.as_deref().unwrap_or_default();
        format!("its opening FEN {text:?} cannot be set up: {e}")
    })?;
    let referee = Referee::after_opening(settings, root, &record.opening.moves)
        .map_err(|e| format!("its opening moves cannot be played: {e}"))?;
    LAST_OPENING.set(Some((record.opening.clone(), referee.clone())));
    Ok(referee)
}

/// A clock change in words: "a minute", "12.5 s".
fn amount(add_us: i64) -> String {
    match add_us.abs() {
        60_000_000 => "a minute".to_string(),
        us => format!("{:.1} s", us as f64 / 1e6),
    }
}

/// What a penalty verdict does, in words.
fn penalty_text(side: Side, add_us: i64, rule: &str, retake: bool, promoted: bool) -> String {
    if promoted && add_us >= 0 {
        format!(
            "the pawn would become a queen and {} be given {} ({rule})",
            side.name(),
            amount(add_us)
        )
    } else if promoted {
        format!(
            "the pawn would become a queen and {}'s clock be charged {} ({rule})",
            side.name(),
            amount(add_us)
        )
    } else if retake {
        format!(
            "the illegal move would be taken back and {} given {} ({rule})",
            side.name(),
            amount(add_us)
        )
    } else if add_us >= 0 {
        format!("{} would be given {} ({rule})", side.name(), amount(add_us))
    } else {
        format!(
            "{}'s clock would be charged {} ({rule})",
            side.name(),
            amount(add_us)
        )
    }
}

/// An event to feed: one of the record's, borrowed where it lies, or one supplied. A pointer
/// either way, so that handing it on copies no event (a `Cow` holds an owned event in itself).
enum Queued<'a> {
    Recorded(&'a Event),
    Supplied(Box<Event>),
}

impl Queued<'_> {
    fn supplied(event: Event) -> Self {
        Queued::Supplied(Box::new(event))
    }
}

impl Deref for Queued<'_> {
    type Target = Event;

    fn deref(&self) -> &Event {
        match self {
            Queued::Recorded(event) => event,
            Queued::Supplied(event) => event,
        }
    }
}

/// The events still to feed: the record's own, borrowed where they lie (a game's events are
/// never copied), behind the ones put back or supplied. `End` is the old ruling, never fed.
struct Queue<'a> {
    /// Put in front, the first to feed last.
    front: Vec<Queued<'a>>,
    /// The record's events not reached yet.
    rest: &'a [Event],
}

impl<'a> Queue<'a> {
    fn of(events: &'a [Event]) -> Queue<'a> {
        Queue {
            front: Vec::new(),
            rest: events,
        }
    }

    fn recorded(&self) -> impl Iterator<Item = &'a Event> {
        self.rest.iter().filter(|e| !matches!(e, Event::End { .. }))
    }

    fn front(&self) -> Option<&Event> {
        match self.front.last() {
            Some(e) => Some(e),
            None => self.recorded().next(),
        }
    }

    fn pop_front(&mut self) -> Option<Queued<'a>> {
        if let Some(e) = self.front.pop() {
            return Some(e);
        }
        while let [first, rest @ ..] = self.rest {
            self.rest = rest;
            if !matches!(first, Event::End { .. }) {
                return Some(Queued::Recorded(first));
            }
        }
        None
    }

    fn push_front(&mut self, event: Queued<'a>) {
        self.front.push(event);
    }

    fn is_empty(&self) -> bool {
        self.front().is_none()
    }

    /// Every event still to feed, in order.
    fn iter(&self) -> impl Iterator<Item = &Event> {
        self.front.iter().rev().map(|e| &**e).chain(self.recorded())
    }
}

/// One game replayed under another ruleset.
struct Replay<'a> {
    referee: Referee,
    ruleset: Ruleset,
    watchers: &'a Watchers,
    /// The recorded events not fed yet (borrowed from the record), with the supplied ones in
    /// front.
    queue: Queue<'a>,
    assumed: Vec<String>,
    /// An illegal move the new referee waits to hear the opponent's watcher about.
    pending_illegal: Option<Side>,
    /// A recorded illegal-move claim to leave out: its move was no illegal move here.
    skip_claim: Option<Side>,
    /// The flag claims that were fed, by claimant.
    flag_claimed: BySide<bool>,
    /// Why the game goes on after the last event, when a ruling of this ruleset says so.
    goes_on: Option<String>,
    /// The last illegal move fed: its side and text.
    last_illegal: Option<(Side, String)>,
    /// The one interpreter of verdicts, as the live game holds it.
    verdicts: Verdicts,
    /// A move held back by a flag injection, by this side, not yet fed.
    held: Option<Side>,
}

impl Replay<'_> {
    /// The next event to feed.
    fn front(&self) -> Option<&Event> {
        self.queue.front()
    }

    /// "the game would have gone on: WHY; the record ends here", or, where the record goes
    /// on, "the game would have gone otherwise: WHY; the record goes on as RULESET ruled it".
    fn undetermined(&self, why: &str, recorded: Ruleset) -> Rerule {
        Rerule::Undetermined(if self.queue.is_empty() {
            format!("the game would have gone on: {why}; the record ends here")
        } else {
            format!(
                "the game would have gone otherwise: {why}; the record goes on as {recorded} \
                 ruled it"
            )
        })
    }

    /// Whether a notice or a claim of `what` by `by` is recorded later.
    fn noticed_later(&self, by: Side, what: Claimable) -> bool {
        self.queue.iter().any(|e| {
            matches!(e, Event::Notice { by: b, what: w, .. } | Event::Claim { by: b, what: w, .. }
                if *b == by && *w == what)
        })
    }

    /// Whether the next recorded event is `side`'s watcher's notice of `what`.
    fn next_is_notice(&self, by: Side, what: Claimable) -> bool {
        matches!(self.front(), Some(Event::Notice { by: b, what: w, .. }) if *b == by && *w == what)
    }

    /// Puts a notice and a claim by `by`'s watcher at `t_us` in front of the queue.
    fn supply_claim(&mut self, t_us: i64, by: Side, what: Claimable) {
        self.queue
            .push_front(Queued::supplied(Event::Claim { t_us, by, what }));
        self.queue
            .push_front(Queued::supplied(Event::Notice { t_us, by, what }));
    }

    /// "white's e7e8 stands as a promotion to a queen (RULE)", of the last illegal move.
    fn promotion_stands(&self, rule: &str) -> Option<String> {
        let (side, uci) = self.last_illegal.as_ref()?;
        Some(format!(
            "{}'s {uci} stands as a promotion to a queen ({rule})",
            side.name()
        ))
    }

    /// Why the game is not over when the record ends.
    fn open_end(&self, record: &GameRecord) -> String {
        let w = self.watchers;
        if let Some(offender) = self.pending_illegal {
            return format!(
                "{}'s watcher would rule on {}'s illegal move",
                offender.other().name(),
                offender.name()
            );
        }
        if self.referee.waiting() {
            let mated = self.referee.turn();
            return format!(
                "{}'s watcher would claim {}'s fallen flag: a win if its own flag is still up \
                 (H13), a draw if not (H14)",
                mated.name(),
                mated.other().name()
            );
        }
        for side in Side::ALL {
            let by = side.other();
            if self.referee.flag_fell(side) && !self.flag_claimed[by] {
                let when = match w.flag_notice_after.map(|f| f.of(by)) {
                    Some(NoticeAt::Ms(0)) => "at once".to_string(),
                    Some(NoticeAt::Ms(ms)) => format!("{ms} ms after it fell"),
                    Some(NoticeAt::Press) => "as its own side next moves".to_string(),
                    Some(NoticeAt::Never) => "never".to_string(),
                    None if w.flag_notice_ms == 0.0 => "at once".to_string(),
                    None => format!("after {} ms on average", w.flag_notice_ms),
                };
                let claim = if w.claim_ms == 0 {
                    String::new()
                } else {
                    format!(", its claim taking {} ms", w.claim_ms)
                };
                return format!(
                    "{}'s watcher would notice {}'s fallen flag {when} and claim{claim}",
                    by.name(),
                    side.name()
                );
            }
        }
        if let Some(why) = &self.goes_on {
            return why.clone();
        }
        match record.outcome() {
            Some(o) => format!(
                "{} does not end the game where the record does ({}, {})",
                self.ruleset, o.termination, o.rule
            ),
            None => "the record has no ending".to_string(),
        }
    }
}

/// Re-rules `record` with `settings` (whose ruleset is the new one) and the run's watchers.
pub fn rerule(record: &GameRecord, settings: &RefereeSettings, watchers: &Watchers) -> Rerule {
    let recorded = record.ruleset;
    let referee = match starting_referee(record, settings) {
        Ok(referee) => referee,
        Err(e) => return Rerule::Undetermined(format!("the record cannot be replayed: {e}")),
    };
    let mut r = Replay {
        referee,
        ruleset: settings.ruleset,
        watchers,
        verdicts: Verdicts::default(),
        held: None,
        queue: Queue::of(&record.events),
        assumed: Vec::new(),
        pending_illegal: None,
        skip_claim: None,
        flag_claimed: BySide::default(),
        goes_on: None,
        last_illegal: None,
    };
    while let Some(event) = r.queue.pop_front() {
        if passes(&event) {
            continue;
        }
        let checked = match r.admit(&event) {
            Admit::Feed(checked) => checked,
            Admit::Skip => continue,
            Admit::Stop(why) => {
                r.queue.push_front(event);
                return r.undetermined(&why, recorded);
            }
        };
        // The live game starts watching an `at-mate` flag as the held mating move is released.
        let released = match (&*event, r.held) {
            (
                Event::Move { side, .. }
                | Event::IllegalMove { side, .. }
                | Event::Claim {
                    by: side,
                    what: Claimable::KingCapture,
                    ..
                },
                Some(held),
            ) if *side == held => {
                r.held = None;
                r.verdicts.released()
            }
            _ => Vec::new(),
        };
        let plies_before = r.referee.plies();
        let verdict = r.referee.apply_checked(&event, checked);
        match &*event {
            Event::IllegalMove { side, uci, .. } => r.last_illegal = Some((*side, uci.clone())),
            Event::Unnoticed { .. } => r.pending_illegal = None,
            Event::Claim { by, what, .. } => match what {
                Claimable::Flag => r.flag_claimed[*by] = true,
                Claimable::IllegalMove | Claimable::KingCapture => r.pending_illegal = None,
            },
            _ => {}
        }
        if let Err(stop) = r.act(verdict, &event, plies_before) {
            return match stop {
                Stop::Ended => Rerule::Ended {
                    ending: r.ending(),
                    assumed: r.assumed,
                },
                Stop::Undetermined(why) => r.undetermined(&why, recorded),
            };
        }
        if !released.is_empty() {
            r.watch_flags(released, event.t_us());
        }
    }
    let why = r.open_end(record);
    r.undetermined(&why, recorded)
}

/// Whether feeding `event` would change nothing: the referee rules nothing on it (play on,
/// nothing remembered: `Referee::apply`), nor does the replay (`admit`, `act`). Half the
/// events are `go`s. (Only the loop passes them over: `front` and `noticed_later` still see
/// them where they lie.)
fn passes(event: &Event) -> bool {
    matches!(
        event,
        Event::Go { .. }
            | Event::Ponder { .. }
            | Event::PonderStopped { .. }
            | Event::Discarded { .. }
    )
}

/// Whether a recorded event is fed to the new referee.
enum Admit {
    /// With what the referee found the text of a `Move` to be, so that it does not check it
    /// again.
    Feed(Option<Checked>),
    /// Not this game's event under the new ruleset.
    Skip,
    /// The record cannot be followed further: why.
    Stop(String),
}

/// Why the replay stops.
enum Stop {
    Ended,
    Undetermined(String),
}

impl Replay<'_> {
    /// Is the recorded event still one of this game's under the new ruleset?
    fn admit(&mut self, event: &Event) -> Admit {
        match event {
            Event::Move { side, uci, .. } | Event::IllegalMove { side, uci, .. } => {
                let on_turn = *side == self.referee.turn();
                let checked = match event {
                    Event::Move { .. } if on_turn => self.referee.check_legal(uci).legal(),
                    _ => None,
                };
                let fits =
                    on_turn && (matches!(event, Event::IllegalMove { .. }) || checked.is_some());
                if !fits {
                    return Admit::Stop(format!(
                        "the recorded move {uci} of {} does not fit the position as {} has it",
                        side.name(),
                        self.ruleset
                    ));
                }
                self.goes_on = None;
                return Admit::Feed(checked);
            }
            Event::Notice {
                by,
                what: Claimable::IllegalMove,
                ..
            }
            | Event::Unnoticed { by, .. }
                if self.pending_illegal != Some(by.other()) && !self.referee.waiting() =>
            {
                // The recorded ruleset ruled illegal a move that this one let stand (a
                // promotion read as a queen): its notice and claim are not this game's.
                if matches!(event, Event::Notice { .. }) {
                    self.skip_claim = Some(*by);
                }
                return Admit::Skip;
            }
            Event::Claim {
                by,
                what: Claimable::IllegalMove,
                ..
            } if self.skip_claim == Some(*by) => {
                self.skip_claim = None;
                return Admit::Skip;
            }
            Event::Penalty {
                side, add_us, rule, ..
            } => {
                // The penalties of this ruleset are taken right after their verdicts (below);
                // any other one changed the recorded clocks, and the flag times after it.
                if *add_us != 0 {
                    return Admit::Stop(format!(
                        "the recorded clocks include a penalty that {} does not give ({} {}, \
                         {rule}), so the times after it are not its own",
                        self.ruleset,
                        side.name(),
                        amount(*add_us)
                    ));
                }
                return Admit::Skip;
            }
            Event::Injected {
                side,
                what: Injection::Flag { mode, .. },
                ..
            } => {
                // The live game learns of a held move from the same event.
                self.verdicts.injected(*side, *mode);
                self.held = Some(*side);
            }
            _ => {}
        }
        Admit::Feed(None)
    }

    /// The ending the referee gave, refined by an engine that hung at the end (recorded right
    /// after it).
    fn ending(&mut self) -> Ending {
        if let Some(
            stall @ Event::EngineFault {
                fault: Fault::Stall,
                ..
            },
        ) = self.front()
        {
            let stall = stall.clone();
            self.referee.apply(&stall);
        }
        self.referee
            .ending()
            .cloned()
            .expect("the referee ended the game")
    }

    /// Acts on the verdict on `event`, through the live game's interpreter; `Err` when the
    /// replay stops there.
    fn act(&mut self, verdict: Verdict, event: &Event, plies_before: u32) -> Result<(), Stop> {
        let cannot_stand = self.referee.pending_cannot_stand();
        match self.verdicts.act(verdict, self.watchers, cannot_stand) {
            Action::End(_) => return Err(Stop::Ended),
            Action::Continue => {
                if matches!(event, Event::IllegalMove { .. }) && self.referee.plies() > plies_before
                {
                    // Not illegal here: the pawn became a queen (WBCA 17).
                    let rule = if self.ruleset == Ruleset::Wbca {
                        "WBCA 17"
                    } else {
                        self.ruleset.as_str()
                    };
                    self.goes_on = self.promotion_stands(rule);
                }
            }
            Action::WatchFlags(sides) => self.watch_flags(sides, event.t_us()),
            Action::Illegal { by, notice } => {
                self.pending_illegal = Some(by.other());
                self.hear_illegal(by, notice, event.t_us())?;
            }
            Action::Penalty {
                side,
                add_us,
                rule,
                retake,
            } => {
                // A promotion without its piece played as a queen (FIDE 7.5.2, USCF 16).
                let promoted = !retake && self.referee.plies() > plies_before;
                // The real loop records the penalty at once: the record must have it next.
                let recorded_too = matches!(
                    self.front(),
                    Some(Event::Penalty { side: s, add_us: a, .. }) if *s == side && *a == add_us
                );
                if recorded_too {
                    self.queue.pop_front();
                } else if add_us != 0 || retake {
                    let why = penalty_text(side, add_us, rule, retake, promoted);
                    return Err(Stop::Undetermined(why));
                }
                if promoted {
                    self.goes_on = self.promotion_stands(rule);
                }
            }
        }
        Ok(())
    }

    /// The opponents of `sides`' fallen flags start watching them at `t_us`. Watchers that
    /// notice and claim at once do so at that instant: if the record never noticed the flag,
    /// its ruleset did not wait for a claim (online), and the claim is supplied.
    fn watch_flags(&mut self, sides: Vec<Side>, t_us: i64) {
        for side in sides {
            let by = side.other();
            let instant = self.watchers.claim_ms == 0
                && FlagNotice::of(self.watchers, by) == FlagNotice::After(0);
            if instant && !self.noticed_later(by, Claimable::Flag) {
                self.supply_claim(t_us, by, Claimable::Flag);
                self.assumed.push(format!(
                    "{}'s watcher noticed {}'s fallen flag and claimed at once \
                     (--flag-notice-ms 0, --claim-ms 0)",
                    by.name(),
                    side.name()
                ));
            }
        }
    }

    /// `by`'s watcher notices its opponent's illegal move (`notice`, from the interpreter):
    /// the recorded notice, or the one the watchers would certainly have made.
    fn hear_illegal(&mut self, by: Side, notice: IllegalNotice, t_us: i64) -> Result<(), Stop> {
        let offender = by.other();
        let heard = self.next_is_notice(by, Claimable::IllegalMove)
            || matches!(self.front(), Some(Event::Unnoticed { by: b, .. }) if *b == by);
        if heard {
            return Ok(());
        }
        match notice {
            IllegalNotice::Now if self.watchers.claim_ms == 0 => {
                self.supply_claim(t_us, by, Claimable::IllegalMove);
                self.assumed.push(format!(
                    "{}'s watcher noticed {}'s illegal move and claimed at once \
                     (--illegal-notice 1, --claim-ms 0)",
                    by.name(),
                    offender.name()
                ));
                Ok(())
            }
            IllegalNotice::Stands | IllegalNotice::Late { .. } => self.stands(by, t_us),
            IllegalNotice::Drawn(p) if p <= 0.0 => self.stands(by, t_us),
            IllegalNotice::Now => Err(Stop::Undetermined(format!(
                "{}'s watcher would claim {}'s illegal move, its claim taking {} ms",
                by.name(),
                offender.name(),
                self.watchers.claim_ms
            ))),
            IllegalNotice::Drawn(p) => Err(Stop::Undetermined(format!(
                "{}'s watcher would notice {}'s illegal move with probability {p}",
                by.name(),
                offender.name(),
            ))),
        }
    }

    /// The watcher did not notice: the illegal move stands.
    fn stands(&mut self, by: Side, t_us: i64) -> Result<(), Stop> {
        self.queue
            .push_front(Queued::supplied(Event::Unnoticed { t_us, by }));
        self.assumed.push(format!(
            "{}'s watcher did not notice {}'s illegal move (--illegal-notice 0)",
            by.name(),
            by.other().name()
        ));
        Ok(())
    }
}
