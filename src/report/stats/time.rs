//! The Time table: losses on time, time trouble, clocks left at the end, time per move.

use super::cells::{pct, secs, table};
use super::standings::EngineStats;

/// The Time table, one line per engine in standings order.
pub fn text(out: &mut String, engines: &[EngineStats]) {
    let header = [
        "Engine",
        "Time losses",
        "Trouble",
        "Avg left",
        "Min left",
        "Per move",
    ];
    let rows: Vec<Vec<String>> = engines
        .iter()
        .map(|e| {
            vec![
                e.name.clone(),
                e.time_losses.to_string(),
                pct(e.time_trouble_share),
                secs(e.avg_ms_left, 1),
                secs(e.min_ms_left as f64, 1),
                e.avg_ms_per_move.map_or("-".to_string(), |m| secs(m, 2)),
            ]
        })
        .collect();
    out.push_str("\nTime (trouble: games ended with under 10% of the base time left)\n");
    out.push_str(&table(&header, &[0], &rows));
}
