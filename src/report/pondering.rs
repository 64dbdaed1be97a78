//! How often each engine's pondering paid off: its ponder searches (`go ponder`) and how many
//! ended in a `ponderhit` (the opponent played the move it pondered on), as cutechess reports
//! an engine's ponderhit rate. Printed at the end of a run whose engines pondered.

use std::collections::BTreeMap;

use crate::event::{Event, GameRecord, Side};

/// Per engine: (ponder searches, ponderhits).
#[derive(Debug, Default, PartialEq)]
pub struct PonderTally(BTreeMap<String, (u32, u32)>);

impl PonderTally {
    /// Counts one more game.
    pub fn add(&mut self, record: &GameRecord) {
        for event in &record.events {
            let name = |side: Side| record.engine(side).to_string();
            match event {
                Event::Ponder { side, .. } => self.0.entry(name(*side)).or_default().0 += 1,
                Event::Go {
                    side,
                    ponderhit: true,
                    ..
                } => self.0.entry(name(*side)).or_default().1 += 1,
                _ => {}
            }
        }
    }

    /// `pondering: a 70 ponderhits of 84 (83%), b 66 of 84 (79%)`; `None` when no engine
    /// pondered.
    pub fn summary_line(&self) -> Option<String> {
        let mut parts = self.0.iter().map(|(name, &(searches, hits))| {
            let share = 100.0 * f64::from(hits) / f64::from(searches.max(1));
            (name, searches, hits, share)
        });
        let (name, searches, hits, share) = parts.next()?;
        let mut line = format!(
            "pondering: {name} {hits} ponderhits of {searches} ponder searches ({share:.0}%)"
        );
        for (name, searches, hits, share) in parts {
            line.push_str(&format!(", {name} {hits} of {searches} ({share:.0}%)"));
        }
        Some(line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(events: Vec<Event>) -> GameRecord {
        let tc = serde_json::json!({
            "base": { "secs": 300, "nanos": 0 },
            "increment": { "secs": 0, "nanos": 0 },
            "delay": { "secs": 0, "nanos": 0 },
        });
        serde_json::from_value(serde_json::json!({
            "game": 1, "pair": 1, "white": "a", "black": "b", "opening": { "name": "startpos" },
            "ruleset": "fide", "tc_white": tc, "tc_black": tc, "seed": 1,
            "started": "", "time_margin_ms": 0, "events": events,
        }))
        .expect("a record")
    }

    #[test]
    fn counts_ponder_searches_and_hits_per_engine() {
        let mut tally = PonderTally::default();
        assert_eq!(tally.summary_line(), None);
        let go = |t_us, side, ponderhit| Event::Go {
            t_us,
            side,
            clock_us: 1,
            ponderhit,
        };
        let ponder = |t_us, side| Event::Ponder {
            t_us,
            side,
            ponder: "e7e5".into(),
        };
        tally.add(&record(vec![
            go(0, Side::White, false),
            ponder(1, Side::White),
            go(2, Side::White, true),
            ponder(3, Side::White),
            go(4, Side::White, false),
            ponder(5, Side::Black),
            go(6, Side::Black, false),
        ]));
        assert_eq!(
            tally.summary_line().as_deref(),
            Some("pondering: a 1 ponderhits of 2 ponder searches (50%), b 0 of 1 (0%)")
        );
    }
}
