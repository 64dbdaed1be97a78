//! Moves starved of CPU, per engine (`CpuUse::starved`: the engine waited for a core at least
//! half its think time, and at least as long as it ran): the machine, not the engine, was
//! short of CPU. Printed only when a move was starved, so that a quiet machine's summary says
//! nothing of it.

use std::collections::HashMap;

use super::cells::{pct, table};
use crate::event::{Side, Termination};
use crate::report::csv::GameRow;

/// One engine's starved moves and time losses.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StarvedStats {
    pub name: String,
    /// Legal moves, and those starved of CPU.
    pub moves: u64,
    pub starved: u64,
    /// Think time and CPU time of the games whose CPU was measured.
    pub measured_think_ms: i64,
    pub cpu_ms: i64,
    /// Losses on time, and those whose last move was starved.
    pub time_losses: u32,
    pub starved_losses: u32,
}

impl StarvedStats {
    /// The CPU the engine got per second of its clock (1.0: a core all the time it thought);
    /// NaN when nothing was measured.
    pub fn cpu_share(&self) -> f64 {
        if self.measured_think_ms > 0 {
            self.cpu_ms as f64 / self.measured_think_ms as f64
        } else {
            f64::NAN
        }
    }
}

/// The engines of `order` (the standings' order) with their starved moves in `rows`.
pub fn starved(rows: &[GameRow], order: &[String]) -> Vec<StarvedStats> {
    let mut by_name: HashMap<&str, StarvedStats> = HashMap::new();
    for row in rows.iter().filter(|r| r.result.is_some()) {
        for side in Side::ALL {
            by_name.entry(row.engine(side)).or_default().add(row, side);
        }
    }
    in_order(order, |name| by_name.get(name))
}

impl StarvedStats {
    /// Counts `side`'s game of the finished `row`.
    pub(super) fn add(&mut self, row: &GameRow, side: Side) {
        self.moves += u64::from(row.moves(side));
        self.starved += u64::from(row.starved(side));
        if let Some(cpu_ms) = row.cpu_ms(side) {
            self.cpu_ms += cpu_ms;
            self.measured_think_ms += row.think_ms(side);
        }
        let lost = row.result.is_some_and(|r| r.points(side) == 0.0);
        if lost && row.termination.is_some_and(Termination::is_time_forfeit) {
            self.time_losses += 1;
            self.starved_losses += u32::from(row.starved_time_loss == Some(side));
        }
    }
}

/// The engines of `order`, each with what `counted` holds of it.
pub(super) fn in_order<'a>(
    order: &[String],
    counted: impl Fn(&str) -> Option<&'a StarvedStats>,
) -> Vec<StarvedStats> {
    order
        .iter()
        .map(|name| StarvedStats {
            name: name.clone(),
            ..counted(name).cloned().unwrap_or_default()
        })
        .collect()
}

/// The table, when any move was starved.
pub fn text(out: &mut String, engines: &[StarvedStats]) {
    if engines.iter().all(|e| e.starved == 0) {
        return;
    }
    let header = [
        "Engine",
        "Starved moves",
        "Time losses after one",
        "CPU per think",
    ];
    let rows: Vec<Vec<String>> = engines
        .iter()
        .map(|e| {
            vec![
                e.name.clone(),
                format!("{} of {}", e.starved, e.moves),
                format!("{} of {}", e.starved_losses, e.time_losses),
                pct(e.cpu_share()),
            ]
        })
        .collect();
    out.push_str(
        "\nStarved of CPU (a move is starved when the engine got at most half the CPU it asked for, waiting for a core at least half its think time)\n",
    );
    out.push_str(&table(&header, &[0], &rows));
}

/// `12 moves starved of CPU (2 of 3 losses on the clock came after one): the machine was
/// short of CPU, not the engines`; `None` when no move was starved.
pub fn closing_line(engines: &[StarvedStats]) -> Option<String> {
    let starved: u64 = engines.iter().map(|e| e.starved).sum();
    if starved == 0 {
        return None;
    }
    let losses: u32 = engines.iter().map(|e| e.time_losses).sum();
    let starved_losses: u32 = engines.iter().map(|e| e.starved_losses).sum();
    let moves = if starved == 1 { "move" } else { "moves" };
    let mut line = format!("{starved} {moves} starved of CPU");
    if losses > 0 {
        line.push_str(&format!(
            " ({starved_losses} of {losses} losses on the clock came after one)"
        ));
    }
    line.push_str(
        ": the machine was short of CPU, not the engines (lower --concurrency, or free the machine)",
    );
    Some(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameResult, Termination};
    use crate::report::stats::testing::row;

    #[test]
    fn starved_moves_and_time_losses_are_counted_per_engine() {
        let mut flag = row(1, "a", "b", GameResult::BlackWins, Termination::Flag);
        flag.white_starved = 3;
        flag.black_starved = 1;
        flag.white_cpu_ms = Some(5_000);
        flag.black_cpu_ms = Some(30_000);
        flag.starved_time_loss = Some(Side::White);
        let old = row(2, "b", "a", GameResult::WhiteWins, Termination::Flag);
        let list = starved(&[flag, old], &["a".to_string(), "b".to_string()]);
        let a = &list[0];
        assert_eq!((a.name.as_str(), a.starved, a.time_losses), ("a", 3, 2));
        assert_eq!(a.starved_losses, 1);
        // Only the game whose CPU was measured counts in the share.
        assert_eq!(a.cpu_share(), 0.5);
        let mut out = String::new();
        text(&mut out, &list);
        assert!(out.contains("Starved of CPU"), "{out}");
        assert!(out.contains("1 of 2"), "{out}");
        assert_eq!(
            closing_line(&list).unwrap(),
            "4 moves starved of CPU (1 of 2 losses on the clock came after one): the machine was short of CPU, not the engines (lower --concurrency, or free the machine)"
        );
    }

    #[test]
    fn nothing_is_said_when_no_move_was_starved() {
        let list = starved(
            &[row(1, "a", "b", GameResult::Draw, Termination::Threefold)],
            &["a".to_string(), "b".to_string()],
        );
        let mut out = String::new();
        text(&mut out, &list);
        assert_eq!(out, "");
        assert_eq!(closing_line(&list), None);
    }
}
