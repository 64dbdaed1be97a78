//! The cells of every CSV file the arena writes (`games.csv`, `summary.csv`), in one place.
//!
//! Their text comes partly from outside the arena (engine names from the command line, opening
//! names from a book, an ending's detail), and a spreadsheet that opens the file runs a cell
//! that starts like a formula. So, as OWASP's "CSV Injection" advice says, a cell that starts
//! with `=`, `+`, `-`, `@`, a tab or a carriage return is written with a leading `'`, which a
//! spreadsheet shows as text; a plain number (`-3`, `+1.5`, `-inf`) is left as it is. A cell
//! that itself starts with `'` gets one more, so that reading strips exactly one leading `'`
//! and gives back every cell as it was: a kept row compares equal to the row its record makes.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use serde::Serialize;

/// `cell` as written to a CSV file: a formula-like start neutralised (see the module).
pub fn neutralise(cell: &str) -> Cow<'_, str> {
    if needs_neutralising(cell) {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
}

/// Whether [`neutralise`] writes `cell` with a leading `'`.
fn needs_neutralising(cell: &str) -> bool {
    let formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_plain_number(cell);
    formula || cell.starts_with('\'')
}

/// A cell as read from a CSV file the arena wrote: [`neutralise`] undone.
pub fn restore(cell: &str) -> &str {
    cell.strip_prefix('\'').unwrap_or(cell)
}

/// An optional sign, then digits with at most one decimal point (or `inf`).
fn is_plain_number(cell: &str) -> bool {
    let digits = cell.strip_prefix(['+', '-']).unwrap_or(cell);
    if digits == "inf" {
        return true;
    }
    let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
    !(whole.is_empty() && fraction.is_empty())
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// Writes one record, each cell neutralised (a cell that needs no quote is not copied).
pub fn write_record<W: std::io::Write>(
    w: &mut ::csv::Writer<W>,
    cells: impl IntoIterator<Item = impl AsRef<str>>,
) -> ::csv::Result<()> {
    for cell in cells {
        w.write_field(neutralise(cell.as_ref()).as_bytes())?;
    }
    w.write_record(None::<&[u8]>)
}

/// `row` (a flat struct, one field per column) as one CSV line with its newline, each cell
/// neutralised: written by serde, read back as cells, written again neutralised, through the
/// thread's one writer (building a `csv::Writer` allocates its buffer: two a row were most of
/// a row's cost).
pub fn serialize_line<T: Serialize>(row: &T) -> anyhow::Result<Vec<u8>> {
    LINE.with_borrow_mut(|line| {
        let written = line.serialize(row);
        if written.is_err() {
            // A record cut off half-way may be left in the writer: the next row starts anew.
            *line = LineWriter::new();
        }
        written
    })
}

/// A CSV writer whose output is taken line by line.
struct LineWriter {
    csv: ::csv::Writer<Shared>,
    out: Shared,
}

/// The writer's output, shared with the writer.
#[derive(Clone, Default)]
struct Shared(Rc<RefCell<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl LineWriter {
    fn new() -> LineWriter {
        let out = Shared::default();
        let csv = ::csv::WriterBuilder::new()
            .has_headers(false)
            // Rows of different shapes may pass through the same thread's writer.
            .flexible(true)
            .terminator(::csv::Terminator::Any(b'\n'))
            .from_writer(out.clone());
        LineWriter { csv, out }
    }

    /// `row` as serde writes it, then, if a cell may need it, read back as cells and written
    /// again with each cell neutralised (reading back was most of a row's cost).
    fn serialize<T: Serialize>(&mut self, row: &T) -> anyhow::Result<Vec<u8>> {
        self.out.0.borrow_mut().clear();
        self.csv.serialize(row)?;
        self.csv.flush()?;
        if may_need_neutralising(&self.out.0.borrow()) {
            let cells = cells(&self.out.0.borrow())?;
            self.out.0.borrow_mut().clear();
            write_record(&mut self.csv, &cells)?;
            self.csv.flush()?;
        }
        Ok(self.out.0.borrow().clone())
    }
}

/// Whether a cell of `line`, one CSV line as the writer wrote it, may need [`neutralise`]. A
/// cell written without quotes holds no comma, quote or line break, so split at the commas
/// each is whole; a quoted cell (its first piece starts with `"`) or text that is not UTF-8
/// is not looked into, and counts as may.
fn may_need_neutralising(line: &[u8]) -> bool {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.split(|&b| b == b',').any(|cell| {
        cell.first() == Some(&b'"') || std::str::from_utf8(cell).map_or(true, needs_neutralising)
    })
}

thread_local! {
    /// The thread's writer of lines.
    static LINE: RefCell<LineWriter> = RefCell::new(LineWriter::new());
    /// A CSV reader with the `csv` crate's default dialect, built once a thread: building one
    /// (its automaton) costs some 270,000 instructions, more than the rest of a game's row.
    static CELLS: RefCell<csv_core::Reader> = RefCell::new(csv_core::Reader::new());
}

/// The cells of `plain`, one CSV line, as `csv::Reader` reads its first record.
fn cells(plain: &[u8]) -> anyhow::Result<::csv::StringRecord> {
    use csv_core::ReadRecordResult;
    let mut out = vec![0u8; plain.len()];
    let mut ends = vec![0usize; plain.len() + 1];
    let (mut input, mut nout, mut nend) = (plain, 0, 0);
    CELLS.with_borrow_mut(|reader| {
        reader.reset();
        loop {
            // Each end counts from the record's start, whatever part of it a call is given.
            let (result, nin, o, e) =
                reader.read_record(input, &mut out[nout..], &mut ends[nend..]);
            let at_end = input.is_empty();
            input = &input[nin..];
            nout += o;
            nend += e;
            match result {
                ReadRecordResult::Record | ReadRecordResult::End => break Ok(()),
                // No terminator: the end of the input ends the record.
                ReadRecordResult::InputEmpty if !at_end => input = &[],
                _ => break Err(anyhow::anyhow!("cannot read back a CSV row")),
            }
        }
    })?;
    let mut record = ::csv::StringRecord::new();
    let mut start = 0;
    for &end in &ends[..nend] {
        record.push_field(std::str::from_utf8(&out[start..end])?);
        start = end;
    }
    Ok(record)
}

/// The record read from a file the arena wrote, each cell [`restore`]d.
pub fn restore_record(record: &::csv::StringRecord) -> ::csv::StringRecord {
    record.iter().map(restore).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_read_back_only_when_a_cell_may_need_neutralising() {
        // Numbers (negative, signed, `-inf`), words and empty cells need nothing.
        assert!(!may_need_neutralising(b"1,-412,+1.5,-inf,,fide,1-0,5+0\n"));
        assert!(!may_need_neutralising(b""));
        for line in [
            &b"1,=1+2,x\n"[..],
            b"-x\n",
            b"a,@b",
            b"a,\tb\n",
            b"a,'b\n",
            // A quoted cell is not looked into.
            b"a,\"b, c\",d\n",
            // Nor text that is not UTF-8.
            b"a,\xff\n",
        ] {
            assert!(may_need_neutralising(line), "{}", line.escape_ascii());
        }
    }

    #[test]
    fn a_line_reads_back_as_the_csv_crate_reads_it() {
        let lines: [&[u8]; 6] = [
            b"1,fide,\"a, b\",\"say \"\"hi\"\"\",,x\n",
            b"\"two\nlines\",\"\r\",\"\",-3\n",
            b",\n",
            b"\"\"\n",
            b"no terminator,2",
            b"caf\xc3\xa9,\xe2\x80\x94\n",
        ];
        // Twice: the thread's reader starts each line afresh.
        for line in lines.iter().chain(lines.iter()) {
            let mut want = ::csv::StringRecord::new();
            ::csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(*line)
                .read_record(&mut want)
                .unwrap();
            assert_eq!(
                cells(line).unwrap(),
                want,
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn a_formula_like_start_gets_a_quote_and_a_number_does_not() {
        for (cell, written) in [
            ("=cmd|' /C calc'!A0", "'=cmd|' /C calc'!A0"),
            ("+x", "'+x"),
            ("-x", "'-x"),
            ("@SUM(A1)", "'@SUM(A1)"),
            ("\tx", "'\tx"),
            ("\rx", "'\rx"),
            ("'quoted", "''quoted"),
            ("-", "'-"),
            ("-.", "'-."),
            ("1-0", "1-0"),
            ("-3", "-3"),
            ("+1.5", "+1.5"),
            ("-0.25", "-0.25"),
            ("-inf", "-inf"),
            ("stockfish", "stockfish"),
            ("", ""),
        ] {
            assert_eq!(neutralise(cell), written, "{cell:?}");
            assert_eq!(restore(&neutralise(cell)), cell, "{cell:?}");
        }
    }

    #[test]
    fn a_serialized_line_neutralises_each_text_cell() {
        #[derive(Serialize)]
        struct Row {
            n: i64,
            name: String,
            other: &'static str,
        }
        let row = Row {
            n: -12,
            name: "=1+1".into(),
            other: "a,b",
        };
        assert_eq!(serialize_line(&row).unwrap(), b"-12,'=1+1,\"a,b\"\n");
    }
}
