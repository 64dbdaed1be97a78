//! The injection summary (docs/architecture.md, "Fault injection"): what was injected, how the games it touched were
//! ruled (termination and citation), per ruleset, and how often the watchers noticed.

use std::collections::BTreeMap;

use crate::event::{Claimable, Event, GameRecord};

/// How the games an injection touched ended: (termination, rule) -> games.
pub type Rulings = BTreeMap<(String, String), u32>;

/// One kind of injection under one ruleset.
#[derive(Debug, Default, PartialEq)]
pub struct Injected {
    /// Injections made.
    pub count: u32,
    /// Games with at least one of them.
    pub games: u32,
    /// How those games were ruled: each game once, so the counts add up to `games`.
    pub rulings: Rulings,
}

/// Counts over a run's games.
#[derive(Debug, Default, PartialEq)]
pub struct InjectionSummary {
    /// (ruleset, injection label) -> what was injected and how those games were ruled.
    pub injected: BTreeMap<(String, String), Injected>,
    /// Flags that fell, and how many of them a watcher noticed.
    pub flags_fallen: u32,
    pub flags_noticed: u32,
    /// Completed illegal moves, and how many of them a watcher noticed.
    pub illegal_moves: u32,
    pub illegal_noticed: u32,
}

impl InjectionSummary {
    pub fn from_records(records: &[GameRecord]) -> InjectionSummary {
        let mut summary = InjectionSummary::default();
        for record in records {
            summary.add(record);
        }
        summary
    }

    /// Counts one more game (a run adds each game as it ends and keeps only the counts).
    pub fn add(&mut self, record: &GameRecord) {
        let summary = self;
        let ending = record
            .outcome()
            .map(|o| (o.termination.to_string(), o.rule.to_string()))
            .unwrap_or_else(|| ("unfinished".to_string(), String::new()));
        let mut labels = std::collections::BTreeSet::new();
        for (_, _, what) in record.injections() {
            let key = (record.ruleset.to_string(), what.label());
            summary.injected.entry(key.clone()).or_default().count += 1;
            labels.insert(key);
        }
        // A game counts once per kind of injection, however many it had.
        for key in labels {
            let entry = summary.injected.entry(key).or_default();
            entry.games += 1;
            *entry.rulings.entry(ending.clone()).or_default() += 1;
        }
        for event in &record.events {
            match event {
                Event::FlagFall { .. } => summary.flags_fallen += 1,
                Event::Notice {
                    what: Claimable::Flag,
                    ..
                } => summary.flags_noticed += 1,
                Event::IllegalMove { .. } => summary.illegal_moves += 1,
                Event::Notice {
                    what: Claimable::IllegalMove,
                    ..
                } => summary.illegal_noticed += 1,
                _ => {}
            }
        }
    }

    /// Adds the counts of another set of games (another folder of `stats`).
    pub fn merge(&mut self, other: InjectionSummary) {
        for (key, theirs) in other.injected {
            let ours = self.injected.entry(key).or_default();
            ours.count += theirs.count;
            ours.games += theirs.games;
            for (ruling, n) in theirs.rulings {
                *ours.rulings.entry(ruling).or_default() += n;
            }
        }
        self.flags_fallen += other.flags_fallen;
        self.flags_noticed += other.flags_noticed;
        self.illegal_moves += other.illegal_moves;
        self.illegal_noticed += other.illegal_noticed;
    }

    pub fn is_empty(&self) -> bool {
        self.injected.is_empty()
    }

    /// The table printed at the end of a run with injections.
    pub fn to_text(&self) -> String {
        let mut out =
            String::from("Injections (what was injected, and how those games were ruled)\n");
        out.push_str(&format!(
            "{:<8} {:<30} {:>5}  {:>5}  {}\n",
            "Ruleset", "Injected", "Count", "Games", "Rulings (games)"
        ));
        for ((ruleset, label), injected) in &self.injected {
            let rulings: Vec<String> = injected
                .rulings
                .iter()
                .map(|((termination, rule), n)| {
                    if rule.is_empty() {
                        format!("{termination} {n}")
                    } else {
                        format!("{termination} ({rule}) {n}")
                    }
                })
                .collect();
            out.push_str(&format!(
                "{ruleset:<8} {label:<30} {:>5}  {:>5}  {}\n",
                injected.count,
                injected.games,
                rulings.join(", ")
            ));
        }
        let share = |n: u32, of: u32| {
            if of == 0 {
                "-".to_string()
            } else {
                format!("{:.0}%", 100.0 * f64::from(n) / f64::from(of))
            }
        };
        out.push_str(&format!(
            "Watchers: noticed {} of {} fallen flags ({}), {} of {} illegal moves ({})\n",
            self.flags_noticed,
            self.flags_fallen,
            share(self.flags_noticed, self.flags_fallen),
            self.illegal_noticed,
            self.illegal_moves,
            share(self.illegal_noticed, self.illegal_moves),
        ));
        out
    }
}
