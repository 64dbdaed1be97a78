//! Timers served ahead of moves: a game whose timer came due (a flag fell, a watcher's notice
//! or a claim completed, a held move is released) runs before the games whose engines only
//! moved.
//!
//! When many games share the runtime's workers, a woken game waits its turn in the worker's
//! queue behind every game woken before it. At 1,024 games at once on two cores a round of that
//! queue takes about 30 ms (docs/performance.md, "Flags at 1,024 games at once"). A move can
//! wait: its `bestmove` was stamped by the I/O thread as `read` returned it, the clock was
//! pressed at that stamp, and the next engine's clock starts only when its `go` is written, so
//! serving a move later charges no engine. A timer cannot: a fallen flag ends the game, and a
//! game still running after its flag is an engine thinking for nothing.
//!
//! Tokio has no task priority, so the games take turns by agreement. A timer that comes due
//! counts itself as it wakes its game, and uncounts itself when its game takes it (or drops it).
//! A game about to act on a move, or about to send its first `go`, first yields while any timer
//! is due ([`after_due`]): it goes behind the worker's other work, so the due game is reached
//! after cheap polls rather than after whole moves or game starts. The yield is bounded: a move
//! or a start is held back at most [`YIELDS`] turns of the queue, whatever the timers.
//!
//! A game that has a thread of its own (`tournament::lanes`) has no queue to skip: it neither
//! yields nor counts its timers.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicIsize, AtomicU8, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::time::{Instant, Sleep};

/// Timers that came due and whose games have not taken them yet.
static DUE: AtomicIsize = AtomicIsize::new(0);

/// How many times a move yields to due timers at most: a yielded game is polled again at the
/// worker's next look at its timers (every 8 polls, `main.rs`), and a due game on the other
/// worker, or behind the injection queue, may take several of those to reach. At 1,024 games
/// at once, 8 gave a 99th percentile of 4.2-8.1 ms (median of 8 runs 4.8 ms), 2 gave 5.9-16.6
/// (10.4), 32 no better than 8 (docs/performance.md, "Timers ahead of moves").
const YIELDS: usize = 8;

/// The timer's state: waiting for its instant, counted in [`DUE`], or done with.
const ARMED: u8 = 0;
const COUNTED: u8 = 1;
const DONE: u8 = 2;

/// Sleeps until `deadline`, like `tokio::time::sleep_until`, counted among the due timers from
/// the instant tokio's timer fires until this future is polled or dropped.
pub fn sleep_until(deadline: Instant) -> Due {
    sleep_counted(deadline, &DUE)
}

fn sleep_counted(deadline: Instant, count: &'static AtomicIsize) -> Due {
    let shared = shares_workers();
    Due {
        sleep: tokio::time::sleep_until(wake_for(deadline, shared)),
        deadline,
        shared,
        count,
        mark: None,
    }
}

/// When tokio is asked to wake a game for `deadline`.
fn wake_for(deadline: Instant, shared: bool) -> Instant {
    // Tokio's timer counts whole milliseconds and rounds a deadline up, so it fires up to a
    // millisecond late (the median flag was noticed 1.1 ms after it fell). Asked a millisecond
    // early, it fires within the millisecond before the deadline, and the game waits out the
    // rest at its turns of the queue: with other games ready those turns are theirs, on idle
    // workers the wait spins, for at most that millisecond of a timer that fired (a flag, a
    // notice, a claim: a few a game at most). A game with a thread of its own sleeps to the
    // deadline: its clock may be tokio's paused test clock, which does not move while a game
    // waits.
    if shared {
        deadline.checked_sub(EARLY).unwrap_or(deadline)
    } else {
        deadline
    }
}

/// How much earlier than its deadline a game sharing the workers asks tokio to wake it.
const EARLY: Duration = Duration::from_millis(1);

/// Whether the game runs on the multi-threaded runtime, among other games.
fn shares_workers() -> bool {
    Handle::try_current()
        .is_ok_and(|runtime| runtime.runtime_flavor() == RuntimeFlavor::MultiThread)
}

/// A timer served ahead of moves; see [`sleep_until`].
#[derive(Debug)]
pub struct Due {
    /// Until a millisecond before `deadline` when `shared`, else until `deadline`.
    sleep: Sleep,
    deadline: Instant,
    /// Whether the game shares the runtime's workers with other games.
    shared: bool,
    count: &'static AtomicIsize,
    mark: Option<Arc<Mark>>,
}

impl Due {
    /// Waits for `deadline` from now on, as a new timer would, whether or not this one came
    /// due. Tokio moves a registered timer to a later instant in place, where a new timer is
    /// registered with its driver and removed again when dropped: a game that waits on one
    /// timer from move to move (`Engine::bestmove`) does that work once, not at every move.
    pub fn reset(self: Pin<&mut Self>, deadline: Instant) {
        // SAFETY: as in `poll`: `sleep` stays pinned in place, the other fields are not pinned.
        let this = unsafe { self.get_unchecked_mut() };
        this.settle();
        this.deadline = deadline;
        let wake = wake_for(deadline, this.shared);
        unsafe { Pin::new_unchecked(&mut this.sleep) }.reset(wake);
    }

    /// Whether a game may keep this timer between waits, [`Due::reset`] at each: only a game
    /// with a thread of its own. Kept timers on the shared workers noticed flags later at
    /// 1,024 games at once (99th percentile at the median of ten sets of five runs,
    /// alternated: 7.2 ms against 5.7 with a new timer each wait; docs/performance.md, "One
    /// timer a game's engine"), and the time they save is a lane's.
    pub fn worth_keeping(&self) -> bool {
        !self.shared
    }

    /// The game takes its timer, or drops it: it no longer counts as due.
    fn settle(&mut self) {
        if let Some(mark) = self.mark.take() {
            if mark.state.swap(DONE, Ordering::AcqRel) == COUNTED {
                self.count.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

impl Future for Due {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        // SAFETY: `sleep` is never moved out of `self` (structural pinning); the other fields
        // are not pinned.
        let this = unsafe { self.get_unchecked_mut() };
        if !this.shared {
            return unsafe { Pin::new_unchecked(&mut this.sleep) }.poll(cx);
        }
        if this
            .mark
            .as_ref()
            .is_none_or(|mark| !mark.game.will_wake(cx.waker()))
        {
            this.settle();
            this.mark = Some(Arc::new(Mark {
                state: AtomicU8::new(ARMED),
                count: this.count,
                game: cx.waker().clone(),
            }));
        }
        let mark = this.mark.clone().expect("a mark");
        let waker = Waker::from(Arc::clone(&mark));
        let sleep = unsafe { Pin::new_unchecked(&mut this.sleep) };
        if sleep.poll(&mut Context::from_waker(&waker)).is_pending() {
            return Poll::Pending;
        }
        if Instant::now() < this.deadline {
            // Woken early: counted as due, the game comes back at its next turn.
            mark.count_due();
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        this.settle();
        Poll::Ready(())
    }
}

impl Drop for Due {
    fn drop(&mut self) {
        self.settle();
    }
}

/// What tokio's timer wakes: it counts the timer as due, then wakes the game.
#[derive(Debug)]
struct Mark {
    state: AtomicU8,
    count: &'static AtomicIsize,
    game: Waker,
}

impl Wake for Mark {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        self.count_due();
        self.game.wake_by_ref();
    }
}

impl Mark {
    /// Counts the timer as due, once.
    fn count_due(&self) {
        // Counted before it is marked, so the count is never below the timers marked
        // counted (a timer taken as it fires is at most counted for an instant too long).
        self.count.fetch_add(1, Ordering::AcqRel);
        if self
            .state
            .compare_exchange(ARMED, COUNTED, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            self.count.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

/// Lets the games whose timers are due go first: while any is, yields (at most [`YIELDS`]
/// times). Call it before acting on a move or starting a game.
pub async fn after_due() {
    after_counted(&DUE).await;
}

async fn after_counted(count: &AtomicIsize) {
    for _ in 0..YIELDS {
        if count.load(Ordering::Acquire) <= 0 || !shares_workers() {
            return;
        }
        tokio::task::yield_now().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count of the test's own, apart from the arena's.
    fn count() -> &'static AtomicIsize {
        Box::leak(Box::new(AtomicIsize::new(0)))
    }

    /// A timer 10 ms away, polled once (so tokio's timer holds its mark), and waited past:
    /// tokio fires timers in order, so it has fired by the time a later one has.
    async fn fired(count: &'static AtomicIsize) -> Pin<Box<Due>> {
        let deadline = Instant::now() + Duration::from_millis(10);
        let mut due = Box::pin(sleep_counted(deadline, count));
        assert!(poll_once(due.as_mut()).is_pending());
        assert_eq!(count.load(Ordering::Acquire), 0, "not due before it fires");
        tokio::time::sleep_until(deadline + Duration::from_millis(30)).await;
        due
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fired_timer_counts_as_due_until_its_game_takes_it() {
        let count = count();
        let mut due = fired(count).await;
        assert_eq!(count.load(Ordering::Acquire), 1);
        assert!(poll_once(due.as_mut()).is_ready());
        assert_eq!(count.load(Ordering::Acquire), 0);
        drop(due);
        assert_eq!(count.load(Ordering::Acquire), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fired_timer_dropped_before_it_is_taken_is_uncounted() {
        let count = count();
        let due = fired(count).await;
        let mark = due.mark.clone().expect("armed");
        assert_eq!(count.load(Ordering::Acquire), 1);
        drop(due);
        assert_eq!(count.load(Ordering::Acquire), 0);
        // A late wake of a dropped timer counts nothing.
        Waker::from(mark).wake_by_ref();
        assert_eq!(count.load(Ordering::Acquire), 0);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_move_yields_while_a_timer_is_due_and_not_for_ever() {
        let count = count();
        let polls = tokio::spawn(polls_to_finish(after_counted(count)))
            .await
            .unwrap();
        assert_eq!(polls, 1, "no timer due: the move goes on at once");
        let due = fired(count).await;
        // This timer's game has not taken it: a move waits behind it, a bounded number of
        // turns, then goes on.
        let polls = tokio::spawn(polls_to_finish(after_counted(count)))
            .await
            .unwrap();
        assert_eq!(polls, YIELDS + 1);
        drop(due);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_timer_asked_early_of_tokio_still_ends_at_its_deadline() {
        // Deadlines at fractions of a millisecond, where tokio's rounding fires the timer
        // before the deadline more often than not.
        for step in 0..100u64 {
            let count = count();
            let deadline = Instant::now() + Duration::from_micros(step * 37 % 3000);
            sleep_counted(deadline, count).await;
            assert!(Instant::now() >= deadline);
            assert_eq!(count.load(Ordering::Acquire), 0);
        }
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_game_with_a_thread_of_its_own_neither_counts_nor_yields() {
        let count = count();
        count.store(1, Ordering::Release);
        let due = sleep_counted(Instant::now() + Duration::from_millis(5), count);
        assert!(!due.shared);
        due.await;
        assert_eq!(count.load(Ordering::Acquire), 1);
        assert_eq!(polls_to_finish(after_counted(count)).await, 1);
    }

    #[tokio::test(flavor = "current_thread", start_paused = true)]
    async fn a_reset_timer_ends_at_its_new_deadline_later_or_earlier() {
        let count = count();
        let start = Instant::now();
        let mut due = Box::pin(sleep_counted(start + Duration::from_millis(10), count));
        due.as_mut().await;
        assert_eq!(Instant::now(), start + Duration::from_millis(10));
        // Done with, then waited on again: later, then earlier than a deadline not reached.
        due.as_mut().reset(start + Duration::from_millis(30));
        due.as_mut().await;
        assert_eq!(Instant::now(), start + Duration::from_millis(30));
        due.as_mut().reset(start + Duration::from_millis(90));
        assert!(poll_once(due.as_mut()).is_pending());
        due.as_mut().reset(start + Duration::from_millis(40));
        due.as_mut().await;
        assert_eq!(Instant::now(), start + Duration::from_millis(40));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_fired_timer_reset_before_it_is_taken_is_uncounted() {
        let count = count();
        let mut due = fired(count).await;
        assert_eq!(count.load(Ordering::Acquire), 1);
        let deadline = Instant::now() + Duration::from_millis(20);
        due.as_mut().reset(deadline);
        assert_eq!(
            count.load(Ordering::Acquire),
            0,
            "the fired timer was not taken"
        );
        due.as_mut().await;
        assert!(Instant::now() >= deadline);
        assert_eq!(count.load(Ordering::Acquire), 0);
    }

    /// Polls `future` once with a waker that does nothing.
    fn poll_once<F: Future>(future: Pin<&mut F>) -> Poll<F::Output> {
        future.poll(&mut Context::from_waker(Waker::noop()))
    }

    /// Awaits `future`, counting the times it was polled.
    async fn polls_to_finish<F: Future>(future: F) -> usize {
        let mut future = Box::pin(future);
        let mut polls = 0;
        std::future::poll_fn(|cx| {
            polls += 1;
            future.as_mut().poll(cx)
        })
        .await;
        polls
    }
}
