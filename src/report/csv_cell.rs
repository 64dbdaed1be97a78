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

use serde::Serialize;

/// `cell` as written to a CSV file: a formula-like start neutralised (see the module).
pub fn neutralise(cell: &str) -> Cow<'_, str> {
    let formula = cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && !is_plain_number(cell);
    if formula || cell.starts_with('\'') {
        Cow::Owned(format!("'{cell}"))
    } else {
        Cow::Borrowed(cell)
    }
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

/// Writes one record, each cell neutralised.
pub fn write_record<W: std::io::Write>(
    w: &mut ::csv::Writer<W>,
    cells: impl IntoIterator<Item = impl AsRef<str>>,
) -> ::csv::Result<()> {
    w.write_record(
        cells
            .into_iter()
            .map(|c| neutralise(c.as_ref()).into_owned()),
    )
}

/// `row` (a flat struct, one field per column) as one CSV line with its newline, each cell
/// neutralised.
pub fn serialize_line<T: Serialize>(row: &T) -> anyhow::Result<Vec<u8>> {
    let line = |w: ::csv::Writer<Vec<u8>>| {
        w.into_inner()
            .map_err(|e| anyhow::anyhow!("cannot write a CSV row: {}", e.error()))
    };
    let mut plain = writer();
    plain.serialize(row)?;
    let plain = line(plain)?;
    let mut cells = ::csv::StringRecord::new();
    ::csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(plain.as_slice())
        .read_record(&mut cells)?;
    let mut w = writer();
    write_record(&mut w, &cells)?;
    line(w)
}

/// The record read from a file the arena wrote, each cell [`restore`]d.
pub fn restore_record(record: &::csv::StringRecord) -> ::csv::StringRecord {
    record.iter().map(restore).collect()
}

fn writer() -> ::csv::Writer<Vec<u8>> {
    ::csv::WriterBuilder::new()
        .has_headers(false)
        .terminator(::csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

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
