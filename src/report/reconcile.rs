//! Reading a results folder back, one game at a time: an index of `events.jsonl` (where each
//! game's record lies), and `reconcile`, which makes an interrupted run's folder whole again
//! before it is resumed. Both stream the files: memory holds the index, one `games.csv` row
//! and one record at a time (and the tally the caller keeps), never the whole event log.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{BufRead, BufWriter, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail};

use super::csv::{for_each_row, GameRow};
use super::folder::{create_new, open_read, tmp_path, EVENTS_JSONL, GAMES_CSV, GAMES_PGN};
use super::results::Rendered;
use super::tally::Tally;
use crate::event::GameRecord;
use crate::vocabulary::Ruleset;

/// Where each game's record lies in an `events.jsonl`. A game written twice (replayed after an
/// interrupted write) is found at its last record; a torn last line is left out.
pub struct EventsIndex {
    path: PathBuf,
    file: Option<File>,
    at: HashMap<u64, (u64, usize)>,
    /// What was left out, in words: a torn last line, records written twice.
    pub notes: Vec<String>,
    /// The rulesets the games were played under, in the order first met.
    pub rulesets: Vec<Ruleset>,
    /// Lines read, a torn last one included.
    pub lines: usize,
}

/// The longest line a game's record can take: a game of 10,000 moves a side, each with its
/// `go`, comes to a few MB. A longer line is damage, and is never held whole.
const MAX_RECORD: usize = 64 << 20;

/// Reads one line into `line` (its newline included), keeping at most `max` bytes of it: the
/// bytes it spans, and whether it was longer than that (the rest skipped, unkept; an overlong
/// line keeps its newline, so that a complete one is told from a torn one).
fn read_line_within(
    reader: &mut impl BufRead,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<(usize, bool)> {
    let (mut n, mut overlong) = (0, false);
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok((n, overlong));
        }
        let (take, end) = match memchr::memchr(b'\n', buf) {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if !overlong && line.len() + take <= max {
            line.extend_from_slice(&buf[..take]);
        } else {
            overlong = true;
            if end {
                line.push(b'\n');
            }
        }
        reader.consume(take);
        n += take;
        if end {
            return Ok((n, overlong));
        }
    }
}

/// The fields the index reads of each line.
#[derive(serde::Deserialize)]
struct GameNumber {
    game: u64,
    ruleset: Option<Ruleset>,
}

impl EventsIndex {
    /// Indexes `path`; a missing file holds no game. A bad line that is not a torn last line
    /// is an error naming it.
    pub fn scan(path: &Path) -> anyhow::Result<EventsIndex> {
        let mut index = EventsIndex {
            path: path.to_path_buf(),
            file: None,
            at: HashMap::new(),
            notes: Vec::new(),
            rulesets: Vec::new(),
            lines: 0,
        };
        let file = match open_read(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(index),
            Err(e) => bail!("cannot read {}: {e}", path.display()),
        };
        let cannot = |e: std::io::Error| anyhow!("cannot read {}: {e}", path.display());
        let mut reader = std::io::BufReader::new(file.try_clone().map_err(cannot)?);
        let mut line = Vec::new();
        let (mut offset, mut number, mut replayed) = (0u64, 0usize, 0usize);
        loop {
            line.clear();
            let (n, overlong) =
                read_line_within(&mut reader, &mut line, MAX_RECORD).map_err(cannot)?;
            if n == 0 {
                break;
            }
            number += 1;
            let complete = line.ends_with(b"\n");
            let text = line.strip_suffix(b"\n").unwrap_or(&line);
            if overlong {
                // Kept only up to the bound, never whole: a damaged tail of gigabytes without
                // a newline costs no memory.
                if complete {
                    bail!(
                        "{}: line {number} is longer than any game's record ({n} bytes, at most {MAX_RECORD})",
                        path.display()
                    );
                }
                index.notes.push(format!(
                    "dropped a half-written last line ({n} bytes) left by an interrupted run"
                ));
            } else if !text.trim_ascii().is_empty() {
                let parsed = if complete {
                    serde_json::from_slice::<GameNumber>(text).map(|g| (g.game, g.ruleset))
                } else {
                    // A last line without its newline counts only if it is a whole record.
                    serde_json::from_slice::<GameRecord>(text).map(|r| (r.game, Some(r.ruleset)))
                };
                match parsed {
                    Ok((game, ruleset)) => {
                        if let Some(r) = ruleset.filter(|r| !index.rulesets.contains(r)) {
                            index.rulesets.push(r);
                        }
                        if index.at.insert(game, (offset, text.len())).is_some() {
                            replayed += 1;
                        }
                    }
                    Err(_) if !complete => index.notes.push(format!(
                        "dropped a half-written last line ({n} bytes) left by an interrupted run"
                    )),
                    Err(e) => bail!("{}", super::results::bad_record_line(path, number, &e)),
                }
            }
            offset += n as u64;
        }
        index.lines = number;
        if replayed > 0 {
            index.notes.push(format!(
                "{} written twice: kept the last record of each",
                if replayed == 1 {
                    "1 game was".to_string()
                } else {
                    format!("{replayed} games were")
                }
            ));
        }
        index.file = Some(file);
        Ok(index)
    }

    /// What a reader that counts the folder's games as they are (`stats`, `report`) should
    /// warn of, in one line: what the index left out, and how many of the `listed` games of
    /// `games.csv` it holds no record of (`missing`). `None` when there is nothing to say.
    pub fn damage(&self, listed: usize, missing: usize) -> Option<String> {
        let mut said = self.notes.clone();
        if missing > 0 {
            said.push(format!(
                "{missing} of the {listed} games of {GAMES_CSV} have no record here; they are counted from {GAMES_CSV} alone"
            ));
        }
        (!said.is_empty()).then(|| format!("{EVENTS_JSONL}: {}", said.join("; ")))
    }

    /// Games indexed.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Whether the file holds a record of `game`.
    pub fn holds(&self, game: u64) -> bool {
        self.at.contains_key(&game)
    }

    /// The games indexed, in order.
    pub fn games(&self) -> Vec<u64> {
        let mut games: Vec<u64> = self.at.keys().copied().collect();
        games.sort_unstable();
        games
    }

    /// The record of `game`, read from the file; `None` if the file holds none.
    pub fn record(&self, game: u64) -> anyhow::Result<Option<GameRecord>> {
        let (Some(&(offset, len)), Some(file)) = (self.at.get(&game), &self.file) else {
            return Ok(None);
        };
        let mut bytes = vec![0u8; len];
        file.read_exact_at(&mut bytes, offset)
            .map_err(|e| anyhow!("cannot read {}: {e}", self.path.display()))?;
        let record = serde_json::from_slice(&bytes).map_err(|e| {
            let e = super::csv::one_line(&e.to_string());
            anyhow!("{}: game {game}: {e}", self.path.display())
        })?;
        Ok(Some(record))
    }
}

/// A folder made whole again: the games it holds, counted, and what had to be repaired (one
/// line per file, worth a warning).
pub struct Reconciled {
    pub tally: Tally,
    pub repairs: Vec<String>,
}

/// Makes a results folder consistent after an interruption, before a run is resumed: the
/// games in `games.csv` (written last, so the truth) are the finished games, and
/// `events.jsonl` and `games.pgn` are rewritten to hold exactly those, in the same order. A
/// game that reached the events or the PGN but not the CSV is dropped, to be played again.
/// Every kept game must pass `check` (it is the game the plan schedules under its number), or
/// the folder is refused; each kept game is then handed to `each` with its row (the run's live
/// report counts it there), one record at a time. A folder without a `games.csv` holds no game.
pub fn reconcile(
    dir: &Path,
    check: impl Fn(&GameRecord) -> Result<(), String>,
    mut each: impl FnMut(&GameRecord, &GameRow),
) -> anyhow::Result<Reconciled> {
    let csv_path = dir.join(GAMES_CSV);
    let mut tally = Tally::default();
    if csv_path.symlink_metadata().is_err() {
        // games.csv is made with the folder, before any game: a record without it was lost.
        let events = EventsIndex::scan(&dir.join(EVENTS_JSONL))?;
        if !events.is_empty() {
            bail!(
                "{}: {GAMES_CSV} is missing but {EVENTS_JSONL} holds {} games; the folder cannot be resumed (restore {GAMES_CSV}, or start a new run)",
                dir.display(),
                events.len()
            );
        }
        return Ok(Reconciled {
            tally,
            repairs: Vec::new(),
        });
    }
    open_read(&csv_path).map_err(|e| anyhow!("cannot read {}: {e}", csv_path.display()))?;
    let events = EventsIndex::scan(&dir.join(EVENTS_JSONL))?;
    let pgn_path = dir.join(GAMES_PGN);
    let old_pgn_len = pgn_path.symlink_metadata().map_or(0, |m| m.len());

    // The rows are read one at a time and made again from their records, which they must
    // match; what is kept of each is its game number (to find a game listed twice) and the
    // tally's row.
    let mut out = Rewrite::start(dir)?;
    let mut seen = HashSet::new();
    let mut missing = 0;
    let streamed = for_each_row(&csv_path, |row| {
        let game = row.game;
        if !seen.insert(game) {
            bail!(
                "{}: game {game} is listed twice; the folder cannot be resumed",
                csv_path.display()
            );
        }
        let Some(record) = events.record(game)? else {
            missing += 1;
            return Ok(());
        };
        if let Err(why) = check(&record) {
            bail!(
                "{}: game {game} on disk is not the game this run's plan schedules: {why}; the folder cannot be resumed",
                dir.join(EVENTS_JSONL).display(),
            );
        }
        let rendered = Rendered::of(&record)?;
        if let Some(what) = row_differs(&row, &rendered.row) {
            bail!(
                "{}: game {game}: its {what} differs from its record in {EVENTS_JSONL}; the folder cannot be resumed",
                csv_path.display()
            );
        }
        out.write(&rendered)?;
        each(&record, &rendered.row);
        tally.add(&record, rendered.row);
        Ok(())
    });
    let listed = seen.len();
    drop(seen);
    let torn_csv = match streamed {
        Ok(torn) if missing == 0 => torn,
        Ok(_) => {
            out.abandon();
            bail!(
                "{}: games.csv lists {listed} games but events.jsonl holds {} of them; the folder cannot be resumed",
                dir.display(),
                listed - missing
            );
        }
        Err(e) => {
            out.abandon();
            return Err(e);
        }
    };
    // Each game is written to events.jsonl, then games.pgn, then games.csv, each flushed: an
    // interruption leaves at most one game in the events that the CSV does not list. More is
    // a damaged games.csv, and dropping them would lose finished games.
    let unrecorded = events.len().saturating_sub(listed);
    if unrecorded > 1 {
        out.abandon();
        bail!(
            "{}: {EVENTS_JSONL} holds {unrecorded} games that {GAMES_CSV} does not list (an interrupted run leaves at most one); {GAMES_CSV} was damaged, and the folder cannot be resumed without losing them",
            dir.display()
        );
    }
    let new_pgn_len = out.finish()?;

    let mut repairs = Vec::new();
    if torn_csv > 0 {
        repairs.push(format!(
            "{GAMES_CSV}: dropped a half-written last line ({torn_csv} bytes) left by an interrupted run"
        ));
    }
    let mut event_notes = events.notes.clone();
    if unrecorded > 0 {
        event_notes.push(format!(
            "dropped {unrecorded} game{} missing from games.csv (interrupted before they were recorded; they are played again)",
            if unrecorded == 1 { "" } else { "s" }
        ));
    }
    if !event_notes.is_empty() {
        repairs.push(format!("{EVENTS_JSONL}: {}", event_notes.join("; ")));
    }
    if old_pgn_len > new_pgn_len {
        repairs.push(format!(
            "{GAMES_PGN}: dropped {} bytes of games missing from games.csv or half-written",
            old_pgn_len - new_pgn_len
        ));
    }
    Ok(Reconciled { tally, repairs })
}

/// The first column that says who played what and how it ended in which a `games.csv` row
/// differs from the row its record makes, if any. (A game's record written twice keeps its
/// last, which may differ from the row in when it started; that is not a tampering.)
fn row_differs(found: &GameRow, made: &GameRow) -> Option<String> {
    let (Ok(found), Ok(made)) = (serde_json::to_value(found), serde_json::to_value(made)) else {
        return Some("row".to_string());
    };
    // The first twelve columns of games.csv, `game` to `plies`: who played what and how it ended.
    super::csv::COLUMNS[..12]
        .iter()
        .find(|column| found.get(**column) != made.get(**column))
        .map(|column| column.to_string())
}

/// The three files written anew through temporary files (created new, never through a link),
/// renamed over the old ones once all is written.
struct Rewrite {
    files: Vec<(PathBuf, PathBuf, BufWriter<File>)>,
    pgn_len: u64,
}

impl Rewrite {
    fn start(dir: &Path) -> anyhow::Result<Rewrite> {
        let mut rewrite = Rewrite {
            files: Vec::new(),
            pgn_len: 0,
        };
        for name in [EVENTS_JSONL, GAMES_PGN, GAMES_CSV] {
            let path = dir.join(name);
            let tmp = tmp_path(&path);
            match create_new(&tmp) {
                Ok(file) => rewrite.files.push((path, tmp, BufWriter::new(file))),
                Err(e) => {
                    rewrite.abandon();
                    bail!("cannot write {}: {e}", tmp.display());
                }
            }
        }
        rewrite.put(2, GameRow::csv_header().as_bytes())?;
        Ok(rewrite)
    }

    fn put(&mut self, i: usize, bytes: &[u8]) -> anyhow::Result<()> {
        let (_, tmp, file) = &mut self.files[i];
        file.write_all(bytes)
            .map_err(|e| anyhow!("cannot write {}: {e}", tmp.display()))
    }

    fn write(&mut self, game: &Rendered) -> anyhow::Result<()> {
        self.put(0, &game.json)?;
        self.put(1, game.pgn.as_bytes())?;
        self.pgn_len += game.pgn.len() as u64;
        self.put(2, &game.csv)
    }

    /// Flushes, syncs and renames every file over its original; returns the new PGN's length.
    fn finish(mut self) -> anyhow::Result<u64> {
        for (path, tmp, file) in std::mem::take(&mut self.files) {
            let file = file
                .into_inner()
                .map_err(|e| anyhow!("cannot write {}: {}", tmp.display(), e.error()))?;
            file.sync_data()
                .map_err(|e| anyhow!("cannot write {}: {e}", tmp.display()))?;
            std::fs::rename(&tmp, &path)
                .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
        }
        Ok(self.pgn_len)
    }

    /// Removes the temporary files, leaving the folder as it was.
    fn abandon(&mut self) {
        for (_, tmp, _) in self.files.drain(..) {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::pgn::game_pgn;
    use crate::report::pgn::tests::{self as pgn_tests, scholars_mate};
    use crate::report::results::ResultsDir;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!(
            "blitz-arena-reconcile-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    fn flag_game(n: u64, seed: u64) -> GameRecord {
        let mut r = pgn_tests::flag_game(n);
        r.seed = seed;
        r
    }

    fn line(r: &GameRecord) -> String {
        serde_json::to_string(r).unwrap() + "\n"
    }

    /// An interruption leaves at most one game in events.jsonl that games.csv does not list:
    /// a games.csv that lists fewer, or none at all, was damaged, and resuming would drop (or
    /// play again) finished games. The folder is refused and left as it was.
    #[test]
    fn a_damaged_games_csv_is_refused_not_resumed_over() {
        let dir = temp_dir("damaged-csv");
        {
            let mut results = ResultsDir::create(&dir).unwrap();
            for game in 1..=4 {
                results.append(&flag_game(game, 42)).unwrap();
            }
        }
        let files = |dir: &Path| {
            [EVENTS_JSONL, GAMES_PGN].map(|name| std::fs::read(dir.join(name)).unwrap_or_default())
        };
        let before = files(&dir);
        let csv = std::fs::read_to_string(dir.join(GAMES_CSV)).unwrap();
        let rows: Vec<&str> = csv.lines().collect();
        // The header and game 1 only: games 2 to 4 would be dropped.
        std::fs::write(dir.join(GAMES_CSV), rows[..2].join("\n") + "\n").unwrap();
        let e = reconcile(&dir, |_| Ok(()), |_, _| ())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("events.jsonl holds 3 games that games.csv does not list"),
            "{e}"
        );
        assert_eq!(files(&dir), before);
        // One game past games.csv is an interruption: resumed, that game played again.
        std::fs::write(dir.join(GAMES_CSV), rows[..4].join("\n") + "\n").unwrap();
        let done = reconcile(&dir, |_| Ok(()), |_, _| ()).unwrap();
        assert_eq!(done.tally.rows.len(), 3);
        // No games.csv at all, with games in the events: refused too.
        std::fs::remove_file(dir.join(GAMES_CSV)).unwrap();
        let e = reconcile(&dir, |_| Ok(()), |_, _| ())
            .err()
            .unwrap()
            .to_string();
        assert!(
            e.contains("games.csv is missing but events.jsonl holds 3 games"),
            "{e}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A line longer than the bound is read past, never kept whole: what it spanned, that it
    /// was overlong, and whether it ended in a newline; the next line reads as it is.
    #[test]
    fn a_line_past_the_bound_is_skipped_not_held() {
        let text = b"short\nxxxxxxxxxxxxxxxxxxxx\nnext\nyyyyyyyyyyyyyyyyyyyyyyyyyyyy";
        let mut reader = std::io::BufReader::with_capacity(4, &text[..]);
        let mut lines = Vec::new();
        loop {
            let mut line = Vec::new();
            let (n, overlong) = read_line_within(&mut reader, &mut line, 8).unwrap();
            if n == 0 {
                break;
            }
            // At most the bound (and a newline) is kept, and only the line's start.
            assert!(line.len() <= 8 + 1, "{line:?}");
            let complete = line.ends_with(b"\n");
            let kept = line.strip_suffix(b"\n").unwrap_or(&line);
            assert!(text.windows(kept.len()).any(|w| w == kept), "{line:?}");
            lines.push((kept.first().copied(), n, overlong, complete));
        }
        assert_eq!(
            lines,
            [
                (Some(b's'), 6, false, true),
                (Some(b'x'), 21, true, true),
                (Some(b'n'), 5, false, true),
                (Some(b'y'), 28, true, false),
            ]
        );
    }

    #[test]
    fn only_the_games_of_games_csv_are_kept_and_each_repair_is_said() {
        let dir = temp_dir("keep");
        let (first, second) = (scholars_mate(), flag_game(2, 42));
        {
            let mut results = ResultsDir::create(&dir).unwrap();
            results.append(&first).unwrap();
            results.append(&second).unwrap();
        }
        // Game 2 replayed (its second record differs), then game 3 reached the events and
        // the PGN but not games.csv, then a torn line.
        let mut replayed = second.clone();
        replayed.started = "later".into();
        let third = flag_game(3, 42);
        let mut events = std::fs::read_to_string(dir.join(EVENTS_JSONL)).unwrap();
        events += &(line(&replayed) + &line(&third) + "{\"game\":4,");
        std::fs::write(dir.join(EVENTS_JSONL), events).unwrap();
        let mut pgn = std::fs::read_to_string(dir.join(GAMES_PGN)).unwrap();
        pgn += &game_pgn(&third);
        std::fs::write(dir.join(GAMES_PGN), pgn).unwrap();

        let done = reconcile(&dir, |_| Ok(()), |_, _| ()).unwrap();
        assert_eq!(done.tally.rows.len(), 2);
        assert_eq!(done.tally.rows[1], GameRow::from_record(&replayed));
        assert_eq!(done.repairs.len(), 2, "{:?}", done.repairs);
        assert!(
            done.repairs[0]
                .starts_with("events.jsonl: dropped a half-written last line (10 bytes)"),
            "{:?}",
            done.repairs
        );
        assert!(done.repairs[0].contains("1 game was written twice"));
        assert!(done.repairs[0].contains("dropped 1 game missing from games.csv"));
        assert!(
            done.repairs[1].starts_with("games.pgn: dropped "),
            "{:?}",
            done.repairs
        );
        assert_eq!(
            std::fs::read_to_string(dir.join(GAMES_PGN)).unwrap(),
            game_pgn(&first) + &game_pgn(&replayed)
        );
        assert_eq!(
            std::fs::read_to_string(dir.join(EVENTS_JSONL)).unwrap(),
            line(&first) + &line(&replayed)
        );
        // A second pass finds nothing to repair.
        assert!(reconcile(&dir, |_| Ok(()), |_, _| ())
            .unwrap()
            .repairs
            .is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_game_that_fails_the_check_leaves_the_folder_untouched() {
        let dir = temp_dir("refuse");
        {
            let mut results = ResultsDir::create(&dir).unwrap();
            results.append(&scholars_mate()).unwrap();
            results.append(&flag_game(2, 7)).unwrap();
        }
        let before: Vec<Vec<u8>> = [GAMES_CSV, GAMES_PGN, EVENTS_JSONL]
            .iter()
            .map(|f| std::fs::read(dir.join(f)).unwrap())
            .collect();
        let check = |r: &GameRecord| {
            if r.seed == 7 {
                Err("its seed is 7, the plan's is 42".to_string())
            } else {
                Ok(())
            }
        };
        let msg = format!("{:#}", reconcile(&dir, check, |_, _| ()).err().unwrap());
        assert!(
            msg.contains("game 2 on disk is not the game this run's plan schedules: its seed is 7"),
            "{msg}"
        );
        for (f, bytes) in [GAMES_CSV, GAMES_PGN, EVENTS_JSONL].iter().zip(before) {
            assert_eq!(std::fs::read(dir.join(f)).unwrap(), bytes, "{f}");
            assert!(!dir.join(format!("{f}.tmp")).exists());
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
