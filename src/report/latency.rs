//! Flag-detection latency: how long after a game was lost on time the arena actually ended
//! it, read from the event records.
//!
//! A `flag-fall` event is stamped at the exact instant the side's time reached zero, and the
//! claim that decides a flag (a watcher's, after `--flag-notice-ms` + `--claim-ms`) at the
//! exact instant it completed; the `end` event is stamped when the game loop has finished. So
//! `end − deciding instant` is the arena's own delay: the timer waking late, plus, when the
//! flagged engine was still thinking, its answer to `stop`.

use crate::event::{Claimable, Event, GameRecord};

/// The latencies of the games ended on the flag, in microseconds.
#[derive(Clone, Debug, Default)]
pub struct FlagLatency {
    latencies_us: Vec<i64>,
}

impl FlagLatency {
    /// Counts `record` if it ended on the flag (`flag`, `both-flags`).
    pub fn add(&mut self, record: &GameRecord) {
        if let Some(us) = latency_us(record) {
            self.latencies_us.push(us);
        }
    }

    /// `flag detection: N games ended on the flag, median X ms, 99th percentile Y ms, max Z ms
    /// after the flag fell`, or `None` when no game did.
    pub fn summary_line(&self) -> Option<String> {
        let mut sorted = self.latencies_us.clone();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_unstable();
        let ms = |us: i64| us as f64 / 1000.0;
        Some(format!(
            "flag detection: {} games ended on the flag, median {:.2} ms, 99th percentile {:.2} ms, max {:.2} ms after the flag fell",
            sorted.len(),
            ms(percentile(&sorted, 50.0)),
            ms(percentile(&sorted, 99.0)),
            ms(*sorted.last().expect("not empty")),
        ))
    }
}

/// Nearest-rank percentile of sorted values.
fn percentile(sorted: &[i64], p: f64) -> i64 {
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// `end − the instant the flag decided the game`: the last completed flag claim, or (when flags
/// end the game without a claim, `online`) the last flag fall.
fn latency_us(record: &GameRecord) -> Option<i64> {
    let outcome = record.outcome()?;
    if !matches!(
        outcome.termination,
        crate::event::Termination::Flag | crate::event::Termination::BothFlags
    ) {
        return None;
    }
    let claim = record.events.iter().rev().find_map(|e| match e {
        Event::Claim {
            t_us,
            what: Claimable::Flag,
            ..
        } => Some(*t_us),
        _ => None,
    });
    let fall = record.events.iter().rev().find_map(|e| match e {
        Event::FlagFall { t_us, .. } => Some(*t_us),
        _ => None,
    });
    let decided = claim.or(fall)?;
    Some((outcome.t_us - decided).max(0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameResult, OpeningRecord, Side, Termination};
    use crate::rules::Ruleset;
    use crate::timecontrol::TimeControl;

    fn record(events: Vec<Event>) -> GameRecord {
        let tc: TimeControl = "1+0".parse().unwrap();
        GameRecord {
            game: 1,
            pair: 1,
            white: "a".into(),
            black: "b".into(),
            opening: OpeningRecord {
                name: "startpos".into(),
                fen: None,
                moves: vec![],
                variant: Default::default(),
            },
            ruleset: Ruleset::Fide,
            tc_white: tc,
            tc_black: tc,
            seed: 0,
            started: String::new(),
            time_margin_ms: 0,
            events,
        }
    }

    fn end(t_us: i64, termination: Termination) -> Event {
        Event::End {
            t_us,
            result: GameResult::BlackWins,
            termination,
            rule: "FIDE A4.3".into(),
            detail: String::new(),
            white_clock_us: 0,
            black_clock_us: 0,
        }
    }

    fn flagged(fall: i64, claim: i64, end_us: i64) -> GameRecord {
        record(vec![
            Event::FlagFall {
                t_us: fall,
                side: Side::White,
            },
            Event::Claim {
                t_us: claim,
                by: Side::Black,
                what: Claimable::Flag,
            },
            end(end_us, Termination::Flag),
        ])
    }

    #[test]
    fn the_delay_runs_from_the_claim_that_decided_to_the_end() {
        // Claimed 300 ms after the fall (the watchers' delays are the rules, not latency).
        assert_eq!(
            latency_us(&flagged(1_000_000, 1_300_000, 1_300_450)),
            Some(450)
        );
        // Online: no claim, the fall decides.
        let online = record(vec![
            Event::FlagFall {
                t_us: 2_000_000,
                side: Side::White,
            },
            end(2_000_900, Termination::Flag),
        ]);
        assert_eq!(latency_us(&online), Some(900));
        // Not ended on the flag: not counted.
        let mate = record(vec![end(5, Termination::Checkmate)]);
        assert_eq!(latency_us(&mate), None);
    }

    #[test]
    fn the_summary_gives_median_99th_percentile_and_max() {
        let mut latency = FlagLatency::default();
        assert_eq!(latency.summary_line(), None);
        for us in 1..=100 {
            latency.add(&flagged(0, 0, us * 100));
        }
        latency.add(&record(vec![end(7, Termination::Threefold)]));
        assert_eq!(
            latency.summary_line().unwrap(),
            "flag detection: 100 games ended on the flag, median 5.00 ms, 99th percentile 9.90 ms, max 10.00 ms after the flag fell"
        );
    }
}
