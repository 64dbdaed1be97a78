//! The results folder: `games.csv`, `games.pgn`, `events.jsonl` (appended as each game ends)
//! and `summary.csv` (rewritten).
//!
//! Every game is written whole with one `write` per file, events first, then PGN, then the CSV
//! row, so that a kill can tear at most the last entry of a file, and a game that is in
//! `games.csv` is in the other two files as well. On opening a folder that an interrupted run
//! left behind, a torn last entry is cut off (and reported by [`ResultsDir::repairs`]), so that
//! the next game starts on a clean line.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail, Context};

use super::csv::{GameRow, COLUMNS};
use super::folder::{open_append, torn_tail_len, EVENTS_JSONL, GAMES_CSV, GAMES_PGN, SUMMARY_CSV};
use super::pgn::game_pgn;
use super::stats::Summary;
use crate::event::GameRecord;

/// One game as it goes into the three files: rendered once, written, and returned so the
/// caller can use (and check) exactly what was written.
pub struct Rendered {
    pub row: GameRow,
    pub pgn: String,
    /// The `events.jsonl` line and the `games.csv` line, newlines included.
    pub(super) json: Vec<u8>,
    pub(super) csv: Vec<u8>,
}

impl Rendered {
    pub fn of(record: &GameRecord) -> anyhow::Result<Rendered> {
        let json = events_line(record)?;
        let row = GameRow::from_record(record);
        let csv = row.to_csv_line()?;
        Ok(Rendered {
            row,
            pgn: game_pgn(record),
            json,
            csv,
        })
    }
}

/// A game's line of `events.jsonl`, newline included. Never inlined, so that the instruction
/// count of `benches/overhead.py --only instructions` finds the record's JSON under this name.
#[inline(never)]
fn events_line(record: &GameRecord) -> anyhow::Result<Vec<u8>> {
    let mut json = super::events_json::line(record).context("cannot serialise the game record")?;
    json.push(b'\n');
    Ok(json)
}

/// An open results folder, appending one game at a time.
#[derive(Debug)]
pub struct ResultsDir {
    dir: PathBuf,
    csv: File,
    pgn: File,
    jsonl: File,
    repairs: Vec<String>,
}

impl ResultsDir {
    /// Creates the folder if needed and opens its files for appending. `games.csv` gets its
    /// header when it is new or empty; an existing `games.csv` must have this version's header.
    /// An error names the folder and the OS reason, on one line.
    pub fn create(dir: &Path) -> anyhow::Result<ResultsDir> {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow!("cannot create the results folder {}: {e}", dir.display()))?;
        let open = |name: &str| {
            open_append(&dir.join(name)).map_err(|e| {
                anyhow!(
                    "cannot write to the results folder {}: {name}: {e}",
                    dir.display()
                )
            })
        };
        let mut repairs = Vec::new();
        let io_err = |name: &str, e: std::io::Error| {
            anyhow!("cannot repair {}: {e}", dir.join(name).display())
        };

        let mut jsonl = open(EVENTS_JSONL)?;
        if let Some(note) = repair_jsonl(&mut jsonl).map_err(|e| io_err(EVENTS_JSONL, e))? {
            repairs.push(format!("{EVENTS_JSONL}: {note}"));
        }
        let mut pgn = open(GAMES_PGN)?;
        if let Some(note) = repair_pgn(&mut pgn).map_err(|e| io_err(GAMES_PGN, e))? {
            repairs.push(format!("{GAMES_PGN}: {note}"));
        }
        let mut csv = open(GAMES_CSV)?;
        if let Some(note) = repair_csv(&mut csv).map_err(|e| io_err(GAMES_CSV, e))? {
            repairs.push(format!("{GAMES_CSV}: {note}"));
        }
        let csv_path = dir.join(GAMES_CSV);
        let len = csv
            .metadata()
            .map_err(|e| anyhow!("cannot read {}: {e}", csv_path.display()))?
            .len();
        if len == 0 {
            csv.write_all(GameRow::csv_header().as_bytes())
                .map_err(|e| anyhow!("cannot write {}: {e}", csv_path.display()))?;
        } else {
            check_header(&mut csv)
                .map_err(|e| anyhow!("cannot append to {}: {e}", csv_path.display()))?;
        }
        Ok(ResultsDir {
            dir: dir.to_path_buf(),
            csv,
            pgn,
            jsonl,
            repairs,
        })
    }

    /// Appends one finished game to `events.jsonl`, `games.pgn` and `games.csv`, each written
    /// whole and flushed before returning.
    pub fn append(&mut self, record: &GameRecord) -> anyhow::Result<Rendered> {
        let rendered = Rendered::of(record)?;
        self.write(&rendered)?;
        Ok(rendered)
    }

    /// Appends a game already rendered to every file of the folder.
    pub fn write(&mut self, rendered: &Rendered) -> anyhow::Result<()> {
        for (file, name, bytes) in [
            (&mut self.jsonl, EVENTS_JSONL, rendered.json.as_slice()),
            (&mut self.pgn, GAMES_PGN, rendered.pgn.as_bytes()),
            (&mut self.csv, GAMES_CSV, rendered.csv.as_slice()),
        ] {
            file.write_all(bytes)
                .and_then(|()| file.flush())
                .map_err(|e| anyhow!("cannot write {}: {e}", self.dir.join(name).display()))?;
        }
        Ok(())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `summary.csv` in the folder.
    pub fn write_summary(&self, summary: &Summary) -> anyhow::Result<()> {
        summary.write_csv(&self.dir.join(SUMMARY_CSV))
    }

    /// What `create` cut off or completed in files an interrupted run left torn; worth a
    /// warning on the terminal.
    pub fn repairs(&self) -> &[String] {
        &self.repairs
    }
}

fn read_all(file: &mut File) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.seek(SeekFrom::Start(0))?;
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// A CSV line without its newline is a torn row (rows are written whole): cut it off.
fn repair_csv(file: &mut File) -> std::io::Result<Option<String>> {
    let torn = torn_tail_len(file)?;
    if torn == 0 {
        return Ok(None);
    }
    file.set_len(file.metadata()?.len() - torn)?;
    Ok(Some(format!(
        "dropped a half-written last line ({torn} bytes) left by an interrupted run"
    )))
}

/// A JSON line without its newline is complete if it parses (a cut object never does): then
/// its newline is added; otherwise it is cut off.
fn repair_jsonl(file: &mut File) -> std::io::Result<Option<String>> {
    use std::os::unix::fs::FileExt;
    let torn = torn_tail_len(file)?;
    if torn == 0 {
        return Ok(None);
    }
    let start = file.metadata()?.len() - torn;
    let mut tail = vec![0u8; torn as usize];
    file.read_exact_at(&mut tail, start)?;
    if serde_json::from_slice::<GameRecord>(&tail).is_ok() {
        file.write_all(b"\n")?;
        return Ok(Some("added the missing newline after the last game".into()));
    }
    file.set_len(start)?;
    Ok(Some(format!(
        "dropped a half-written last line ({torn} bytes) left by an interrupted run"
    )))
}

/// Whether a movetext line ends with a game termination marker.
fn is_result_line(line: &[u8]) -> bool {
    let last = line
        .rsplit(|&b| b == b' ')
        .next()
        .unwrap_or_default()
        .trim_ascii_end();
    [&b"1-0"[..], b"0-1", b"1/2-1/2", b"*"].contains(&last)
}

/// Where the last complete game of a PGN text ends (after its blank line); 0 if none.
fn last_complete_game_end(text: &[u8]) -> usize {
    let mut end = text.len();
    while let Some(i) = text[..end].windows(2).rposition(|w| w == b"\n\n") {
        let line_start = text[..i]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |j| j + 1);
        if is_result_line(&text[line_start..i]) {
            return i + 2;
        }
        end = i + 1;
    }
    0
}

/// A game is written with its blank line in one piece: a file that does not end with a
/// result and a blank line ends with a torn game, which is cut off (or, if only the blank line
/// is missing, completed).
fn repair_pgn(file: &mut File) -> std::io::Result<Option<String>> {
    // The usual case, a clean end, is decided from the tail alone.
    let len = file.metadata()?.len();
    let tail_len = len.min(4096);
    let mut tail = vec![0u8; tail_len as usize];
    file.seek(SeekFrom::Start(len - tail_len))?;
    file.read_exact(&mut tail)?;
    if tail.ends_with(b"\n\n") {
        let body = &tail[..tail.len() - 2];
        let line_start = body.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        if (line_start > 0 || tail_len == len) && is_result_line(&body[line_start..]) {
            return Ok(None);
        }
    }
    let bytes = read_all(file)?;
    if bytes.is_empty() || last_complete_game_end(&bytes) == bytes.len() {
        return Ok(None);
    }
    let trimmed = bytes.trim_ascii_end();
    let last_line = trimmed
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(trimmed, |i| &trimmed[i + 1..]);
    if !trimmed.is_empty() && is_result_line(last_line) {
        let missing = if bytes.ends_with(b"\n") { "\n" } else { "\n\n" };
        file.write_all(missing.as_bytes())?;
        return Ok(Some(
            "added the missing blank line after the last game".into(),
        ));
    }
    let keep = last_complete_game_end(&bytes);
    file.set_len(keep as u64)?;
    Ok(Some(format!(
        "dropped a half-written last game ({} bytes) left by an interrupted run",
        bytes.len() - keep
    )))
}

/// An existing games.csv must have exactly this version's header, or appended rows would land
/// under the wrong columns.
fn check_header(file: &mut File) -> anyhow::Result<()> {
    use std::io::BufRead;
    file.seek(SeekFrom::Start(0))?;
    let mut first = Vec::new();
    std::io::BufReader::new(&mut *file).read_until(b'\n', &mut first)?;
    let first = String::from_utf8_lossy(&first);
    let first = first.trim_end_matches('\n');
    let first = first.trim_end_matches('\r');
    let expected = COLUMNS.join(",");
    if first == expected {
        return Ok(());
    }
    let found: Vec<&str> = first.split(',').map(str::trim).collect();
    if let Some(missing) = COLUMNS.iter().find(|c| !found.contains(c)) {
        bail!("it is not a games.csv of this version: missing column {missing:?}");
    }
    bail!("its header has other columns or another order than this version's games.csv");
}

/// Reads `events.jsonl` (or the `events.jsonl` of a results folder): one game record per line.
/// A torn last line (a run killed mid-write) is dropped; a bad line elsewhere is an error that
/// names it. A game number seen twice (a game replayed after an interrupted write) keeps its
/// last record.
pub fn load_records(path: &Path) -> anyhow::Result<Vec<GameRecord>> {
    let joined;
    let path = if path.is_dir() {
        joined = path.join(EVENTS_JSONL);
        joined.as_path()
    } else {
        path
    };
    let text = super::folder::read_bytes(path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let text = String::from_utf8(text)
        .map_err(|_| anyhow::anyhow!("{}: not UTF-8 text", path.display()))?;
    let torn_tail = !text.is_empty() && !text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let mut records: Vec<GameRecord> = Vec::new();
    let mut index: std::collections::HashMap<u64, usize> = std::collections::HashMap::new();
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: GameRecord = match serde_json::from_str(line) {
            Ok(r) => r,
            Err(_) if torn_tail && i + 1 == lines.len() => break,
            // serde quotes the bad value (`unknown variant ...`), which may hold a line break.
            Err(e) => bail!("{}", bad_record_line(path, i + 1, &e)),
        };
        match index.get(&record.game) {
            Some(&at) => records[at] = record,
            None => {
                index.insert(record.game, records.len());
                records.push(record);
            }
        }
    }
    Ok(records)
}

/// Why line `line` of the events file `path` is not a game record, in one line: serde's words
/// without its "at line 1" (each record is a line of its own), the column kept; serde quotes
/// the bad value (`unknown variant ...`), which may hold a line break.
pub fn bad_record_line(path: &Path, line: usize, e: &serde_json::Error) -> String {
    let words = e.to_string();
    let words = words
        .strip_suffix(&format!(" at line {} column {}", e.line(), e.column()))
        .unwrap_or(&words);
    let at = if e.column() > 0 {
        format!("column {}: ", e.column())
    } else {
        String::new()
    };
    super::csv::one_line(&format!(
        "{}: line {line} is not a game record of events.jsonl ({at}{words})",
        path.display()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::csv::read_rows;
    use crate::report::pgn::tests::{flag_game, python_chess, replay, scholars_mate};
    use crate::report::stats::Summary;
    use std::fs::OpenOptions;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("blitz-arena-results-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn header_once_across_two_runs_and_everything_reads_back() {
        let dir = temp_dir("append").join("run");
        let first = scholars_mate();
        let second = flag_game(2);
        {
            let mut results = ResultsDir::create(&dir).unwrap();
            assert_eq!(results.dir(), dir.as_path());
            assert!(results.repairs().is_empty());
            results.append(&first).unwrap();
        }
        // Readable while the run goes on: the game is flushed.
        assert_eq!(read_rows(&dir).unwrap().len(), 1);
        {
            let mut results = ResultsDir::create(&dir).unwrap();
            results.append(&second).unwrap();
            let rows = read_rows(&dir.join(GAMES_CSV)).unwrap();
            results.write_summary(&Summary::from_rows(&rows)).unwrap();
        }
        let csv = std::fs::read_to_string(dir.join(GAMES_CSV)).unwrap();
        assert_eq!(csv.matches("game,pair,white,black").count(), 1);
        assert!(csv.starts_with(&GameRow::csv_header()));
        assert_eq!(csv.lines().count(), 3);
        let rows = read_rows(&dir).unwrap();
        assert_eq!(
            rows,
            vec![GameRow::from_record(&first), GameRow::from_record(&second)]
        );

        let pgn = std::fs::read_to_string(dir.join(GAMES_PGN)).unwrap();
        assert_eq!(pgn, game_pgn(&first) + &game_pgn(&second));
        assert_eq!(pgn.matches("[Event ").count(), 2);
        let second_game = &pgn[pgn.rfind("[Event ").unwrap()..];
        assert_eq!(replay(second_game).1, 2);
        if let Some(out) = python_chess(&pgn) {
            assert_eq!(out.lines().count(), 2, "{out}");
        }

        assert_eq!(load_records(&dir).unwrap(), vec![first, second]);
        let summary = std::fs::read_to_string(dir.join(SUMMARY_CSV)).unwrap();
        assert!(summary.starts_with("kind,rank,engine,opponent,"));
        // Two engines, one pairing.
        assert_eq!(summary.lines().count(), 4, "{summary}");
        std::fs::remove_dir_all(dir.parent().unwrap()).unwrap();
    }

    #[test]
    fn a_folder_that_cannot_be_created_is_named_with_the_os_reason() {
        let base = temp_dir("uncreatable");
        std::fs::create_dir_all(&base).unwrap();
        let file = base.join("a-file");
        std::fs::write(&file, "x").unwrap();
        let dir = file.join("results");
        let msg = format!("{:#}", ResultsDir::create(&dir).unwrap_err());
        assert!(!msg.contains('\n'), "{msg}");
        assert!(
            msg.starts_with(&format!(
                "cannot create the results folder {}: ",
                dir.display()
            )),
            "{msg}"
        );
        assert!(msg.contains("os error"), "{msg}");
        std::fs::remove_dir_all(&base).unwrap();
    }

    /// A folder whose files cannot be opened for writing (here a folder stands where
    /// `events.jsonl` must go, which stops root too) is named with the file and the OS reason.
    #[test]
    fn a_folder_whose_files_cannot_be_written_is_named_with_the_os_reason() {
        let dir = temp_dir("unwritable");
        std::fs::create_dir_all(dir.join(EVENTS_JSONL)).unwrap();
        let msg = format!("{:#}", ResultsDir::create(&dir).unwrap_err());
        assert_eq!(
            msg,
            format!(
                "cannot write to the results folder {}: {EVENTS_JSONL}: Is a directory (os error 21)",
                dir.display()
            )
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn torn_files_from_an_interrupted_run_are_repaired() {
        let dir = temp_dir("torn");
        let first = scholars_mate();
        ResultsDir::create(&dir).unwrap().append(&first).unwrap();
        // The run is killed while writing game 2: every file has half an entry.
        let second = flag_game(2);
        let json = serde_json::to_string(&second).unwrap();
        let pgn = game_pgn(&second);
        let row = GameRow::from_record(&second).to_csv_line().unwrap();
        let append = |name: &str, bytes: &[u8]| {
            let mut f = OpenOptions::new()
                .append(true)
                .open(dir.join(name))
                .unwrap();
            f.write_all(bytes).unwrap();
        };
        append(EVENTS_JSONL, &json.as_bytes()[..json.len() / 2]);
        // Cut right after the tags' blank line: looks like a game end, but is not one.
        let tags_end = pgn.find("\n\n").unwrap() + 2;
        append(GAMES_PGN, &pgn.as_bytes()[..tags_end]);
        append(GAMES_CSV, &row[..row.len() - 1]);
        // Readers skip the torn entries.
        assert_eq!(read_rows(&dir).unwrap().len(), 1);
        assert_eq!(load_records(&dir).unwrap(), vec![first.clone()]);

        let mut results = ResultsDir::create(&dir).unwrap();
        assert_eq!(results.repairs().len(), 3, "{:?}", results.repairs());
        assert!(results.repairs()[0].starts_with("events.jsonl: dropped a half-written"));
        assert!(results.repairs()[1].starts_with("games.pgn: dropped a half-written last game"));
        assert!(results.repairs()[2].starts_with("games.csv: dropped a half-written last line"));
        results.append(&second).unwrap();
        assert_eq!(
            read_rows(&dir).unwrap(),
            vec![GameRow::from_record(&first), GameRow::from_record(&second)]
        );
        assert_eq!(
            load_records(&dir).unwrap(),
            vec![first.clone(), second.clone()]
        );
        let text = std::fs::read_to_string(dir.join(GAMES_PGN)).unwrap();
        assert_eq!(text, game_pgn(&first) + &game_pgn(&second));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn complete_entries_missing_only_their_newline_are_kept() {
        let dir = temp_dir("newline");
        std::fs::create_dir_all(&dir).unwrap();
        let first = scholars_mate();
        let json = serde_json::to_string(&first).unwrap();
        std::fs::write(dir.join(EVENTS_JSONL), &json).unwrap();
        let pgn = game_pgn(&first);
        std::fs::write(dir.join(GAMES_PGN), pgn.trim_end()).unwrap();
        let results = ResultsDir::create(&dir).unwrap();
        assert_eq!(results.repairs().len(), 2, "{:?}", results.repairs());
        assert_eq!(std::fs::read_to_string(dir.join(GAMES_PGN)).unwrap(), pgn);
        assert_eq!(
            std::fs::read_to_string(dir.join(EVENTS_JSONL)).unwrap(),
            json + "\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_foreign_games_csv_is_not_appended_to() {
        let dir = temp_dir("foreign");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(GAMES_CSV), "name,score\nx,1\n").unwrap();
        let msg = format!("{:#}", ResultsDir::create(&dir).unwrap_err());
        assert!(msg.contains("games.csv"), "{msg}");
        assert!(msg.contains("missing column \"game\""), "{msg}");
        let reordered = {
            let mut c = COLUMNS.to_vec();
            c.swap(0, 1);
            c.join(",") + "\n"
        };
        std::fs::write(dir.join(GAMES_CSV), reordered).unwrap();
        let msg = format!("{:#}", ResultsDir::create(&dir).unwrap_err());
        assert!(msg.contains("another order"), "{msg}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn load_records_names_a_bad_line_and_keeps_the_last_of_a_replayed_game() {
        let dir = temp_dir("jsonl");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(EVENTS_JSONL);
        let a = scholars_mate();
        let b1 = flag_game(2);
        let mut b2 = flag_game(2);
        b2.seed = 99;
        let line = |r: &GameRecord| serde_json::to_string(r).unwrap() + "\n";
        std::fs::write(&path, line(&a) + &line(&b1) + &line(&b2) + "{\"game\":").unwrap();
        assert_eq!(load_records(&path).unwrap(), vec![a.clone(), b2]);
        std::fs::write(&path, line(&a) + "{oops}\n" + &line(&b1)).unwrap();
        let msg = format!("{:#}", load_records(&path).unwrap_err());
        assert!(
            msg.contains("events.jsonl: line 2 is not a game record of events.jsonl (column 2: key must be a string)"),
            "{msg}"
        );
        // Found by tests/fuzz: serde quotes a bad value, line breaks and all; the message
        // stays on one line.
        let bad = line(&a).replacen("\"ruleset\":\"fide\"", "\"ruleset\":\"fi\\nde\"", 1);
        std::fs::write(&path, bad + &line(&b1)).unwrap();
        let msg = format!("{:#}", load_records(&path).unwrap_err());
        assert!(
            msg.contains("line 1 is not a game record") && !msg.contains('\n'),
            "{msg:?}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn pgn_game_ends_are_found() {
        let g = game_pgn(&scholars_mate());
        let two = g.clone() + &g;
        assert_eq!(last_complete_game_end(two.as_bytes()), two.len());
        assert_eq!(last_complete_game_end(&g.as_bytes()[..g.len() - 3]), 0);
        let torn = g.clone() + "[Event \"x\"]\n\n1. e4 {";
        assert_eq!(last_complete_game_end(torn.as_bytes()), g.len());
    }
}
