//! The chess clock: pure arithmetic over `Instant`s and `Duration`s.
//!
//! Times left are signed microseconds: the clocks keep running below zero (USCF 2a), so the
//! arena always knows how far over its time a side went and in which order flags fell. The
//! clock never reads the time itself; the caller passes the instants (the write of `go`, the
//! read of `bestmove`), so tests can drive it with any instants, real or virtual.

use std::time::Duration;

use tokio::time::Instant;

use crate::event::{BySide, Side};
use crate::timecontrol::TimeControl;

/// Microseconds in a `Duration`, saturating.
pub fn micros(d: Duration) -> i64 {
    i64::try_from(d.as_micros()).unwrap_or(i64::MAX)
}

/// A `Duration` from signed microseconds, with negatives clamped to zero.
fn duration_from(us: i64) -> Duration {
    Duration::from_micros(us.max(0) as u64)
}

/// What one completed turn cost the mover.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub side: Side,
    /// Wall time from the start of the turn to the clock press.
    pub think_us: i64,
    /// The mover's time left after the press, increment included (may be negative).
    pub left_us: i64,
}

/// Two clocks, one running at a time.
#[derive(Clone, Debug)]
pub struct Clock {
    tc: BySide<TimeControl>,
    /// Time left at the start of the running turn, or now for a stopped clock.
    left_us: BySide<i64>,
    running: Option<(Side, Instant)>,
    /// Tolerance below zero before a flag counts (`--time-margin`; 0 by the rules).
    margin_us: i64,
    /// Whose flag has fallen: from then on that side earns no increment.
    fallen: BySide<bool>,
    /// Clock presses per side: the moves counted toward a repeating period.
    presses: BySide<u32>,
}

impl Clock {
    pub fn new(white: TimeControl, black: TimeControl) -> Clock {
        Clock {
            tc: BySide::new(white, black),
            left_us: BySide::new(micros(white.base), micros(black.base)),
            running: None,
            margin_us: 0,
            fallen: BySide::default(),
            presses: BySide::default(),
        }
    }

    /// Sets the `--time-margin` tolerance: a flag counts only once a side is more than
    /// `margin` below zero.
    pub fn with_margin(mut self, margin: Duration) -> Clock {
        self.margin_us = micros(margin);
        self
    }

    pub fn running(&self) -> Option<Side> {
        self.running.map(|(side, _)| side)
    }

    /// `side`'s time left at `now`, negative once its flag is down.
    pub fn left_us(&self, side: Side, now: Instant) -> i64 {
        match self.running {
            Some((running, started)) if running == side => {
                self.left_us[side] - self.charged_us(side, now.saturating_duration_since(started))
            }
            _ => self.left_us[side],
        }
    }

    /// The time charged for a turn of `elapsed`: a simple delay (USCF 1b) is free.
    fn charged_us(&self, side: Side, elapsed: Duration) -> i64 {
        micros(elapsed.saturating_sub(self.tc[side].delay))
    }

    /// Starts `side`'s clock at `at` (the instant its `go` was written).
    pub fn start(&mut self, side: Side, at: Instant) {
        debug_assert!(self.running.is_none(), "a clock is already running");
        let tc = self.tc[side];
        if tc.per_move {
            // A fixed time per move: each move gets it afresh, none is carried over.
            self.left_us[side] = micros(tc.base);
        }
        self.running = Some((side, at));
    }

    /// Stops the running clock at `at` (the instant `bestmove` was read) and adds the Fischer
    /// increment, unless the mover's flag has fallen, in this turn or any before.
    ///
    /// The flag falls the instant the time left reaches zero (less `--time-margin`), so a
    /// `bestmove` read exactly at zero (the clock press, H4, USCF 14) comes after the allotted
    /// time has expired (FIDE 6.9). The increment is time added with each move made within
    /// the allotted time (FIDE 6.1): a side whose flag is down earns none for that move nor
    /// any later one, and its clock stays negative, recording how far over it went.
    pub fn stop(&mut self, at: Instant) -> Option<Turn> {
        let (side, started) = self.running.take()?;
        let elapsed = at.saturating_duration_since(started);
        let mut left = self.left_us[side] - self.charged_us(side, elapsed);
        if left <= -self.margin_us {
            self.fallen[side] = true;
        }
        if !self.fallen[side] {
            left += micros(self.tc[side].increment);
        }
        // A repeating period (`40/90+30`): the base time is added again after each N-th move,
        // made within the time allotted (FIDE 6.1; a fallen flag earns no more time). Moves
        // are counted by clock press, as the increment is.
        self.presses[side] = self.presses[side].saturating_add(1);
        if let Some(moves) = self.tc[side].moves {
            if !self.fallen[side] && self.presses[side] % moves == 0 {
                left += micros(self.tc[side].base);
            }
        }
        self.left_us[side] = left;
        Some(Turn {
            side,
            think_us: micros(elapsed),
            left_us: left,
        })
    }

    /// UCI's `movestogo` for `side`: the moves left in its period, `None` in sudden death.
    pub fn moves_to_go(&self, side: Side) -> Option<u32> {
        let moves = self.tc[side].moves?;
        Some(moves - self.presses[side] % moves)
    }

    /// The instant at which the running side's flag falls (its time reaches zero, plus the
    /// margin), for a deadline: flags are detected by a timer at that instant, not by polling.
    pub fn flag_deadline(&self) -> Option<Instant> {
        let (side, started) = self.running?;
        let until_fall = self.left_us[side] + self.margin_us;
        Some(started + self.tc[side].delay + duration_from(until_fall))
    }

    /// Adds time to a side's clock (FIDE 7.5.5: a minute for the opponent of an illegal
    /// move), or charges it when `add_us` is negative (USCF 16). Works on a running clock.
    pub fn add(&mut self, side: Side, add_us: i64) {
        self.left_us[side] += add_us;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::time::{advance, pause};

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[tokio::test]
    async fn fischer_increment_is_added_after_each_move() {
        pause();
        let mut clock = Clock::new("3+2".parse().unwrap(), "3+2".parse().unwrap());
        let t0 = Instant::now();
        clock.start(Side::White, t0);
        advance(ms(1500)).await;
        let turn = clock.stop(Instant::now()).unwrap();
        assert_eq!(turn.think_us, 1_500_000);
        assert_eq!(turn.left_us, 180_000_000 - 1_500_000 + 2_000_000);
        assert_eq!(clock.left_us(Side::Black, Instant::now()), 180_000_000);
    }

    #[tokio::test]
    async fn a_repeating_period_is_refilled_after_its_last_move() {
        pause();
        // 2 moves in 1 s, + 0.1 s a move.
        let tc: TimeControl = "2/1s+0.1s".parse().unwrap();
        let mut clock = Clock::new(tc, tc);
        let press = |clock: &mut Clock, side: Side, think: u64| {
            clock.start(side, Instant::now());
            let at = Instant::now() + ms(think);
            clock.stop(at).unwrap().left_us
        };
        assert_eq!(clock.moves_to_go(Side::White), Some(2));
        assert_eq!(press(&mut clock, Side::White, 300), 800_000);
        assert_eq!(clock.moves_to_go(Side::White), Some(1));
        assert_eq!(press(&mut clock, Side::Black, 0), 1_100_000);
        // The second move ends the period: its base is added again.
        assert_eq!(
            press(&mut clock, Side::White, 200),
            800_000 - 200_000 + 100_000 + 1_000_000
        );
        assert_eq!(clock.moves_to_go(Side::White), Some(2));
        assert_eq!(
            press(&mut clock, Side::White, 100),
            1_700_000 - 100_000 + 100_000
        );
        // A side whose flag fell earns no new period.
        let mut late = Clock::new(tc, tc);
        press(&mut late, Side::White, 0);
        assert_eq!(press(&mut late, Side::White, 2_000), 1_100_000 - 2_000_000);
        assert_eq!(
            Clock::new(TimeControl::G5, TimeControl::G5).moves_to_go(Side::White),
            None
        );
    }

    #[tokio::test]
    async fn a_fixed_time_per_move_is_given_afresh() {
        pause();
        let tc: TimeControl = "1s/move".parse().unwrap();
        let mut clock = Clock::new(tc, tc);
        let t0 = Instant::now();
        clock.start(Side::White, t0);
        assert_eq!(clock.flag_deadline(), Some(t0 + ms(1000)));
        assert_eq!(clock.stop(t0 + ms(300)).unwrap().left_us, 700_000);
        // The 700 ms left are not carried over.
        clock.start(Side::White, t0 + ms(400));
        assert_eq!(clock.flag_deadline(), Some(t0 + ms(1400)));
        assert_eq!(clock.stop(t0 + ms(1600)).unwrap().left_us, -200_000);
    }

    #[tokio::test]
    async fn simple_delay_is_not_charged() {
        pause();
        let mut clock = Clock::new("G/5;d2".parse().unwrap(), TimeControl::G5);
        clock.start(Side::White, Instant::now());
        advance(ms(1500)).await;
        assert_eq!(clock.left_us(Side::White, Instant::now()), 300_000_000);
        advance(ms(1000)).await;
        assert_eq!(clock.stop(Instant::now()).unwrap().left_us, 299_500_000);
    }

    #[tokio::test]
    async fn flag_deadline_is_the_instant_time_reaches_zero() {
        pause();
        let mut clock = Clock::new("1s+0".parse().unwrap(), "1s+0".parse().unwrap());
        let t0 = Instant::now();
        clock.start(Side::White, t0);
        advance(ms(400)).await;
        clock.stop(Instant::now());
        clock.start(Side::Black, Instant::now());
        clock.stop(Instant::now() + ms(100));
        let t1 = Instant::now() + ms(100);
        clock.start(Side::White, t1);
        assert_eq!(clock.flag_deadline(), Some(t1 + ms(600)));
        // The clock keeps running below zero.
        assert_eq!(clock.left_us(Side::White, t1 + ms(750)), -150_000);
    }

    #[tokio::test]
    async fn delay_and_margin_push_the_deadline_back() {
        pause();
        let t0 = Instant::now();
        let mut clock =
            Clock::new("G/1s;d0.5".parse().unwrap(), TimeControl::G5).with_margin(ms(50));
        clock.start(Side::White, t0);
        assert_eq!(clock.flag_deadline(), Some(t0 + ms(1550)));
    }

    #[tokio::test]
    async fn no_increment_once_the_flag_is_down() {
        pause();
        let mut clock = Clock::new("1s+1".parse().unwrap(), "1s+1".parse().unwrap());
        let t0 = Instant::now();
        clock.start(Side::White, t0);
        let turn = clock.stop(t0 + ms(1200)).unwrap();
        assert_eq!(turn.left_us, -200_000);
        // Within the margin, the move counts and earns its increment (cutechess's tolerance).
        let mut clock =
            Clock::new("1s+1".parse().unwrap(), "1s+1".parse().unwrap()).with_margin(ms(300));
        clock.start(Side::White, t0);
        assert_eq!(clock.stop(t0 + ms(1200)).unwrap().left_us, 800_000);
    }

    #[tokio::test]
    async fn a_move_read_exactly_at_zero_earns_no_increment_now_or_later() {
        pause();
        let mut clock = Clock::new("1s+0.5s".parse().unwrap(), "1s+0.5s".parse().unwrap());
        clock.start(Side::Black, Instant::now());
        advance(ms(1000)).await;
        // Read at the very instant the flag fell.
        assert_eq!(clock.flag_deadline(), Some(Instant::now()));
        assert_eq!(clock.stop(Instant::now()).unwrap().left_us, 0);
        // Its flag stays fallen: quick moves afterwards earn nothing either.
        for _ in 0..3 {
            clock.start(Side::Black, Instant::now());
            advance(ms(10)).await;
            clock.stop(Instant::now());
        }
        assert_eq!(clock.left_us(Side::Black, Instant::now()), -30_000);
        // The other side, whose flag is up, still earns its increment.
        clock.start(Side::White, Instant::now());
        advance(ms(100)).await;
        assert_eq!(clock.stop(Instant::now()).unwrap().left_us, 1_400_000);
    }

    #[tokio::test]
    async fn only_the_running_side_is_charged() {
        pause();
        let mut clock = Clock::new("1+0".parse().unwrap(), "1+0".parse().unwrap());
        let t0 = Instant::now();
        assert_eq!(clock.running(), None);
        clock.start(Side::Black, t0);
        assert_eq!(clock.running(), Some(Side::Black));
        // White's clock stands while Black thinks.
        assert_eq!(clock.left_us(Side::White, t0 + ms(5000)), 60_000_000);
        assert_eq!(clock.left_us(Side::Black, t0 + ms(5000)), 55_000_000);
        clock.stop(t0 + ms(5000));
        assert_eq!(clock.running(), None);
        assert_eq!(clock.flag_deadline(), None);
    }

    #[tokio::test]
    async fn time_odds_and_penalties() {
        pause();
        let mut clock = Clock::new("5+0".parse().unwrap(), "1+0".parse().unwrap());
        let now = Instant::now();
        assert_eq!(clock.left_us(Side::Black, now), 60_000_000);
        clock.add(Side::Black, 60_000_000);
        assert_eq!(clock.left_us(Side::Black, now), 120_000_000);
        assert_eq!(clock.left_us(Side::White, now), 300_000_000);
        // On a running clock too, and negative: a charge.
        clock.start(Side::White, now);
        clock.add(Side::White, -1_500_000);
        assert_eq!(clock.left_us(Side::White, now + ms(500)), 298_000_000);
    }
}
