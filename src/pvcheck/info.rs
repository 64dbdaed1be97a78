//! An engine's `info` line as fastchess reads it for its PV checks and a move's score: the
//! words split on spaces, the last `score` the line gives (or why it cannot be read), the
//! bound, `multipv`, and the PV (the UCI moves after `pv`, up to the first word that is not
//! one; nothing after the PV is read).

/// What the checks read of an `info` line.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Info<'a> {
    /// The last `score` before the PV.
    pub score: Score<'a>,
    /// `lowerbound` or `upperbound` was given.
    pub bound: bool,
    /// `multipv N` (the last given); `None` also when it cannot be read.
    pub multipv: Option<i64>,
    /// The PV, as in [`pv`].
    pub pv: Vec<&'a str>,
}

/// A line's score as fastchess reads it (its `parseInfo`): the type must be `cp` or `mate`
/// and the value a 64-bit integer; otherwise why not, in fastchess's order of checks.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) enum Score<'a> {
    /// No `score` word.
    #[default]
    Missing,
    /// `score` without both a type and a value after it.
    NoTypeOrValue,
    /// A type other than `cp` or `mate`.
    UnexpectedType,
    /// A value that is no 64-bit integer.
    InvalidValue(&'a str),
    Cp(i64),
    Mate(i64),
}

impl Info<'_> {
    /// `score mate N`: N; `None` for a centipawn score, none, or one that cannot be read.
    pub fn mate(&self) -> Option<i64> {
        match self.score {
            Score::Mate(n) => Some(n),
            _ => None,
        }
    }

    /// An exact (not bound) mate score.
    pub fn exact_mate(&self) -> Option<i64> {
        self.mate().filter(|_| !self.bound)
    }
}

pub(super) fn parse(line: &str) -> Info<'_> {
    let mut words = line.split(' ').filter(|w| !w.is_empty());
    let mut info = Info::default();
    while let Some(word) = words.next() {
        // The words a key reads are read again as keys (fastchess reads them in place).
        let mut ahead = words.clone();
        match word {
            // A later score replaces an earlier one, read or not.
            "score" => {
                info.score = match (ahead.next(), ahead.next()) {
                    (Some(_), None) | (None, _) => Score::NoTypeOrValue,
                    (Some(kind), Some(_)) if kind != "cp" && kind != "mate" => {
                        Score::UnexpectedType
                    }
                    (Some(kind), Some(value)) => match value.parse::<i64>() {
                        Err(_) => Score::InvalidValue(value),
                        Ok(n) if kind == "mate" => Score::Mate(n),
                        Ok(n) => Score::Cp(n),
                    },
                }
            }
            "multipv" => info.multipv = ahead.next().and_then(|n| n.parse().ok()),
            "lowerbound" | "upperbound" => info.bound = true,
            "pv" => {
                info.pv = moves(words).collect();
                break;
            }
            _ => {}
        }
    }
    info
}

/// The PV of a line (the UCI moves after its first `pv` word, up to the first word that is
/// not one), read without the words before it: all most lines need.
pub(super) fn pv(line: &str) -> impl Iterator<Item = &str> {
    let after = line.find(" pv ").map_or("", |at| &line[at + 4..]);
    moves(after.split(' ').filter(|w| !w.is_empty()))
}

fn moves<'a>(words: impl Iterator<Item = &'a str>) -> impl Iterator<Item = &'a str> {
    words.take_while(|w| is_uci_move(w))
}

/// The shape of a UCI move as fastchess reads a PV: `[a-h][1-8][a-h][1-8]` and an optional
/// promotion piece.
pub(super) fn is_uci_move(word: &str) -> bool {
    let b = word.as_bytes();
    let file = |c: u8| (b'a'..=b'h').contains(&c);
    let rank = |c: u8| (b'1'..=b'8').contains(&c);
    (b.len() == 4 || b.len() == 5 && b"nbrq".contains(&b[4]))
        && file(b[0])
        && rank(b[1])
        && file(b[2])
        && rank(b[3])
}

/// The search report fastchess reads a move's score from (its "last info line"): the last
/// scored line that is not `info string` and is the first PV of a multi-PV search (a
/// ` multipv 1` in it, or no ` multipv ` at all), preferring an exact score to a bound.
pub fn last_info_line(lines: &[String]) -> Option<&str> {
    let mut fallback = None;
    for line in lines.iter().rev() {
        let first_pv = !line.contains(" multipv ") || line.contains(" multipv 1");
        if line.contains("info string") || !line.contains(" score ") || !first_pv {
            continue;
        }
        if !line.contains("lowerbound") && !line.contains("upperbound") {
            return Some(line);
        }
        fallback = fallback.or(Some(line.as_str()));
    }
    fallback
}

/// The exact-or-bound mate score of a search report, as fastchess reads a move's score.
pub fn mate_score(line: &str) -> Option<i64> {
    parse(line).mate()
}
