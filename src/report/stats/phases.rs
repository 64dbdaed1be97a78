//! The table of think time per move by game phase (opening: moves 1-15, middlegame: 16-40,
//! endgame: 41 and later, by the move number on the board, book moves included). It needs the
//! per-move times of `events.jsonl` (`report::phases`); without them it says so in one line.

use super::cells::{secs, table};
use super::standings::EngineStats;
use crate::report::phases::Phase;

/// The phase table, one line per engine in standings order; `known` is false when the events
/// were not at hand.
pub fn text(out: &mut String, engines: &[EngineStats], known: bool) {
    if !known {
        out.push_str(
            "Think time by game phase: not shown (it needs events.jsonl; \
             games.csv has no per-move times)\n",
        );
        return;
    }
    let header = ["Engine", "Opening", "Middlegame", "Endgame"];
    let rows: Vec<Vec<String>> = engines
        .iter()
        .map(|e| {
            let mut row = vec![e.name.clone()];
            for phase in Phase::ALL {
                let mean = e.phases.and_then(|p| p.mean_ms(phase));
                row.push(mean.map_or("-".to_string(), |m| secs(m, 2)));
            }
            row
        })
        .collect();
    out.push_str(
        "\nThink time per move by phase (opening: moves 1-15, middlegame: 16-40, \
         endgame: 41+)\n",
    );
    out.push_str(&table(&header, &[0], &rows));
}
