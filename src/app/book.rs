//! A new run's opening book: `--openings` with `--openings-start`, `--opening-plies` (PGN)
//! and `--book-depth` (Polyglot), read once into the openings the plan stores, so that a
//! resumed run and `merge` replay exactly these.

use std::path::Path;

use super::usage;
use crate::event::OpeningRecord;
use crate::openings::{self, BookFormat, BookOptions, Opening};
use crate::vocabulary::Variant;

/// The book options as given (command line over `[run]`).
#[derive(Clone, Copy, Debug, Default)]
pub struct BookArgs {
    pub start: Option<u64>,
    pub plies: Option<u32>,
    pub depth: Option<u32>,
    pub variant: Variant,
}

/// What the plan stores about the book.
#[derive(Debug)]
pub struct PlannedBook {
    /// The openings; `None` without a book (the start position).
    pub records: Option<Vec<OpeningRecord>>,
    /// The schedule's first opening (1 for a Polyglot book, whose lines are drawn from the
    /// `--openings-start`-th on).
    pub start: u64,
    pub plies: Option<u32>,
    pub depth: Option<u32>,
}

/// Reads the book at `path` with the options. A Polyglot book gets one line per pair of
/// games of an encounter (every encounter plays the same lines), drawn with `seed`. An option
/// that does not apply to the book's format is a usage error.
pub fn plan_book(
    path: Option<&Path>,
    args: BookArgs,
    games: u32,
    seed: u64,
) -> anyhow::Result<PlannedBook> {
    let Some(path) = path else {
        if args.variant == Variant::Chess960 {
            usage!("--variant chess960 needs a book of Chess960 start positions: give --openings FILE (EPD with Shredder-FEN or X-FEN castling, or PGN)");
        }
        for (flag, given) in [
            ("--openings-start", args.start.is_some()),
            ("--opening-plies", args.plies.is_some()),
            ("--book-depth", args.depth.is_some()),
        ] {
            if given {
                usage!("{flag} needs an opening book: give --openings FILE");
            }
        }
        return Ok(PlannedBook {
            records: None,
            start: 1,
            plies: None,
            depth: None,
        });
    };
    let format = BookFormat::of_file(path)?;
    if args.plies.is_some() && format != BookFormat::Pgn {
        usage!(
            "--opening-plies cuts the games of a PGN book; {} is {} (for a Polyglot book give --book-depth)",
            path.display(),
            name(format)
        );
    }
    if args.depth.is_some() && format != BookFormat::Polyglot {
        usage!(
            "--book-depth limits the lines drawn from a Polyglot book (.bin); {} is {} (for a PGN book give --opening-plies)",
            path.display(),
            name(format)
        );
    }
    if args.variant == Variant::Chess960 && format == BookFormat::Polyglot {
        usage!(
            "--variant chess960: {} is a Polyglot book, which holds standard chess only; give an EPD or PGN book of Chess960 positions",
            path.display()
        );
    }
    let start = args.start.unwrap_or(1);
    let polyglot = format == BookFormat::Polyglot;
    let options = BookOptions {
        plies: args.plies,
        depth: args.depth,
        first: start,
        count: u64::from(games.div_ceil(2)),
        seed,
        variant: args.variant,
    };
    let book = openings::load_book(path, &options)?;
    Ok(PlannedBook {
        records: Some(book.iter().map(Opening::record).collect()),
        start: if polyglot { 1 } else { start },
        plies: args.plies,
        depth: args.depth,
    })
}

fn name(format: BookFormat) -> &'static str {
    match format {
        BookFormat::Epd => "an EPD/FEN book",
        BookFormat::Pgn => "a PGN book",
        BookFormat::Polyglot => "a Polyglot book",
    }
}
