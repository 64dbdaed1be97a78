//! Engine output split into bounded lines, and the prefix filter that decides which lines the
//! game ever sees. Pure: the I/O thread (`pipes`) feeds it bytes as `read` returns them.

/// The longest line the arena keeps; longer ones are discarded as they stream in, so an engine
/// printing a 100 MB line cannot exhaust memory.
pub const MAX_LINE: usize = 64 * 1024;

/// The most room a search report's buffers keep for the next report: a longer report (a PV of
/// hundreds of moves) is not kept past its use, so that each engine's buffers stay small
/// however long its lines once were.
pub const ROOM_KEPT: usize = 4 * 1024;

/// What one complete line of engine output is to the arena. The bytes are borrowed: the
/// caller copies only what it keeps.
#[derive(Debug, PartialEq, Eq)]
pub enum Output<'a> {
    /// A line the game reads (`bestmove`, `uciok`, `readyok`, `id`, `option`, anything else).
    Text(&'a [u8]),
    /// An `info` line with a score: only the latest is kept, as the engine's search report.
    Report(&'a [u8]),
    /// An `info` line without a score: never kept, only counted while the info log is on
    /// (fastchess warns of a search that printed lines but no score).
    Unscored,
    /// A line longer than `MAX_LINE`, dropped; `bestmove`: it began as a `bestmove` line.
    Overlong { bestmove: bool },
}

impl Output<'_> {
    /// The line as text: invalid UTF-8 is replaced, never an error.
    pub fn text(bytes: &[u8]) -> String {
        Output::as_text(bytes).into_owned()
    }

    /// [`Output::text`], borrowed when the bytes are valid UTF-8.
    pub fn as_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
        // ASCII, as engines print, is checked a word at a time ([`is_ascii`]; `str::from_utf8`
        // cost about 100 instructions for a short `bestmove` line); other valid text by
        // `from_utf8`'s fast path; `from_utf8_lossy` walks it in chunks, several times slower,
        // and is left to the lines that need replacing.
        if is_ascii(bytes) {
            // SAFETY: ASCII is valid UTF-8.
            return std::borrow::Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(bytes),
        }
    }
}

/// Whether `bytes` are all ASCII: their words are OR'd together and the high bits looked at
/// once. (`<[u8]>::is_ascii` went a byte at a time here: about 250 instructions for a search
/// report of 110 bytes.)
fn is_ascii(bytes: &[u8]) -> bool {
    let words = bytes.chunks_exact(8);
    let rest = words.remainder();
    let all = words.fold(0u64, |all, word| {
        all | u64::from_le_bytes(word.try_into().expect("eight bytes"))
    });
    all & u64::from_le_bytes([0x80; 8]) == 0 && rest.is_ascii()
}

/// The searcher for `" score "`, built once (built again for each line, it cost more than
/// the search).
static SCORE: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b" score "));

/// Classifies a complete line (without its newline). `info` lines are dropped before any
/// parsing unless they carry a score: an engine prints dozens a move, and only the last
/// scored one is ever read (for the PGN comment and score adjudication).
fn classify(line: &[u8]) -> Output<'_> {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.starts_with(b"info") {
        if SCORE.find(line).is_some() {
            return Output::Report(line);
        }
        return Output::Unscored;
    }
    Output::Text(line)
}

/// Splits a byte stream into lines of at most `MAX_LINE` bytes. Invalid UTF-8 is replaced,
/// never an error; a final line without a newline is dropped (the engine died mid-line).
#[derive(Debug, Default)]
pub struct Splitter {
    line: Vec<u8>,
    /// The line being read is longer than `MAX_LINE`: its bytes are skipped to its newline.
    overlong: bool,
    /// The overlong line being skipped began as a `bestmove` line.
    overlong_bestmove: bool,
}

impl Splitter {
    /// Feeds `bytes` and calls `emit` for each complete line. A line
    /// that lies whole within `bytes` is classified in place, without a copy. (The newlines
    /// are found with `memchr`, many bytes an instruction: a byte at a time, Stockfish's
    /// `info` lines cost 25,000 instructions a move.)
    pub fn feed(&mut self, mut bytes: &[u8], mut emit: impl FnMut(Output<'_>)) {
        while !bytes.is_empty() {
            let newline = newline(bytes);
            let chunk = &bytes[..newline.unwrap_or(bytes.len())];
            let fits = self.line.len() + chunk.len() <= MAX_LINE;
            let Some(i) = newline else {
                // An unfinished line: keep it for the next read, or skip an overlong one.
                if self.overlong || !fits {
                    if !self.overlong {
                        self.overlong_bestmove = self.starts_bestmove(chunk);
                    }
                    self.overlong = true;
                    self.line = Vec::new(); // give the memory back
                } else {
                    self.line.extend_from_slice(chunk);
                }
                return;
            };
            let skipping = std::mem::take(&mut self.overlong);
            if skipping || !fits {
                let bestmove = if skipping {
                    self.overlong_bestmove
                } else {
                    self.starts_bestmove(chunk)
                };
                emit(Output::Overlong { bestmove });
            } else if self.line.is_empty() {
                emit(classify(chunk));
            } else {
                self.line.extend_from_slice(chunk);
                emit(classify(&self.line));
            }
            self.line.clear();
            bytes = &bytes[i + 1..];
        }
    }
}

/// Where the first newline in `bytes` is. `memchr` looks at many bytes an instruction but
/// takes about 100 to start: a short read (a `bestmove` line) is looked at a byte at a time.
fn newline(bytes: &[u8]) -> Option<usize> {
    if bytes.len() <= SHORT {
        bytes.iter().position(|&b| b == b'\n')
    } else {
        memchr::memchr(b'\n', bytes)
    }
}

/// Reads up to this long are searched a byte at a time ([`newline`]).
const SHORT: usize = 32;

impl Splitter {
    /// Whether the line that `self.line` then `chunk` begin is a `bestmove` line.
    fn starts_bestmove(&self, chunk: &[u8]) -> bool {
        const WORD: &[u8] = b"bestmove";
        let mut start = self.line.iter().chain(chunk).copied().take(WORD.len() + 1);
        start.by_ref().take(WORD.len()).eq(WORD.iter().copied())
            && start.next().is_none_or(|b| b.is_ascii_whitespace())
    }
}

/// Keeps the last lines of an engine's stderr, each cut to `LINE` bytes, however much the
/// engine writes (a 300 MB stderr line costs the arena `LINE` bytes).
#[derive(Debug, Default)]
pub struct Tail {
    lines: std::collections::VecDeque<String>,
    current: Vec<u8>,
    closed: bool,
}

impl Tail {
    /// Lines kept.
    const LINES: usize = 8;
    /// Bytes kept of each line.
    const LINE: usize = 300;

    pub fn feed(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let newline = memchr::memchr(b'\n', bytes);
            let chunk = &bytes[..newline.unwrap_or(bytes.len())];
            let room = Self::LINE.saturating_sub(self.current.len());
            self.current
                .extend_from_slice(&chunk[..chunk.len().min(room)]);
            let Some(i) = newline else { return };
            self.finish_line();
            bytes = &bytes[i + 1..];
        }
    }

    /// The output ended: a last line without its newline is kept too.
    pub fn close(&mut self) {
        if !self.current.is_empty() {
            self.finish_line();
        }
        self.closed = true;
    }

    /// Whether the output has ended: nothing more will come.
    pub fn is_closed(&self) -> bool {
        self.closed
    }

    fn finish_line(&mut self) {
        let text = String::from_utf8_lossy(&self.current);
        let text = text.trim_end();
        if self.lines.len() == Self::LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(text.to_string());
        self.current.clear();
    }

    /// The kept lines joined with ` | `.
    pub fn joined(&self) -> String {
        self.lines.iter().cloned().collect::<Vec<_>>().join(" | ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the splitter emits, owned: `Text`, `Report: ...`, `<unscored>` or `<overlong>`.
    fn split(chunks: &[&[u8]]) -> Vec<String> {
        let mut splitter = Splitter::default();
        let mut out = Vec::new();
        for chunk in chunks {
            splitter.feed(chunk, |o| {
                out.push(match o {
                    Output::Text(t) => Output::text(t),
                    Output::Report(t) => format!("Report: {}", Output::text(t)),
                    Output::Unscored => "<unscored>".to_string(),
                    Output::Overlong { .. } => "<overlong>".to_string(),
                })
            });
        }
        out
    }

    fn text(s: &str) -> String {
        s.to_string()
    }

    #[test]
    fn info_lines_without_a_score_are_only_counted_and_scored_ones_are_reports() {
        assert_eq!(
            split(&[
                b"info depth 1 score cp 5 pv e2e4\ninfo depth 2 currmove e2e4\nbestmove e2e4\n"
            ]),
            [
                "Report: info depth 1 score cp 5 pv e2e4".to_string(),
                text("<unscored>"),
                text("bestmove e2e4")
            ]
        );
    }

    #[test]
    fn lines_split_across_reads_are_joined_and_carriage_returns_stripped() {
        assert_eq!(
            split(&[b"uci", b"ok\r\nready", b"ok\nbest"]),
            [text("uciok"), text("readyok")]
        );
    }

    #[test]
    fn an_overlong_line_is_dropped_whatever_the_read_sizes() {
        for chunk in [7usize, 4096, MAX_LINE + 1, 3 * MAX_LINE] {
            let mut bytes = vec![b'x'; 3 * MAX_LINE];
            bytes.extend_from_slice(b"\nbestmove e2e4\n");
            let chunks: Vec<&[u8]> = bytes.chunks(chunk).collect();
            assert_eq!(
                split(&chunks),
                ["<overlong>", "bestmove e2e4"],
                "read size {chunk}"
            );
        }
    }

    #[test]
    fn an_overlong_line_says_whether_it_began_as_a_bestmove_whatever_the_read_sizes() {
        let overlong = |bytes: &[u8], chunk: usize| {
            let mut found = Vec::new();
            let mut splitter = Splitter::default();
            for piece in bytes.chunks(chunk) {
                splitter.feed(piece, |o| {
                    if let Output::Overlong { bestmove } = o {
                        found.push(bestmove);
                    }
                });
            }
            found
        };
        let mut bestmove = b"bestmove ".to_vec();
        bestmove.extend(vec![b'a'; 2 * MAX_LINE]);
        bestmove.push(b'\n');
        let mut other = b"bestmoves".to_vec();
        other.extend(vec![b'a'; 2 * MAX_LINE]);
        other.push(b'\n');
        for chunk in [3usize, 4096, MAX_LINE + 5, 4 * MAX_LINE] {
            let both = [bestmove.as_slice(), other.as_slice(), bestmove.as_slice()].concat();
            assert_eq!(
                overlong(&both, chunk),
                [true, false, true],
                "read size {chunk}"
            );
        }
    }

    #[test]
    fn a_line_of_exactly_max_line_bytes_is_kept() {
        let mut bytes = vec![b'y'; MAX_LINE];
        bytes.push(b'\n');
        let out = split(&[&bytes]);
        assert!(matches!(&out[..], [t] if t.len() == MAX_LINE));
        bytes.insert(0, b'y');
        assert_eq!(split(&[&bytes]), ["<overlong>"]);
        // The same line split across reads.
        let halves: Vec<&[u8]> = bytes.chunks(MAX_LINE / 2).collect();
        assert_eq!(split(&halves), ["<overlong>"]);
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        assert_eq!(
            split(&[b"id name \xff\xfe x\n"]),
            [text("id name \u{fffd}\u{fffd} x")]
        );
    }

    #[test]
    fn the_stderr_tail_keeps_the_last_lines_each_cut_short() {
        let mut tail = Tail::default();
        for i in 0..20 {
            tail.feed(format!("line {i}\n").as_bytes());
        }
        tail.feed(&vec![b'z'; 10_000_000]);
        tail.close();
        let joined = tail.joined();
        assert!(joined.starts_with("line 13 | "), "{joined}");
        assert!(joined.ends_with(&"z".repeat(Tail::LINE)), "{joined}");
        assert_eq!(joined.len(), "line 13 | ".len() * 7 + Tail::LINE);
    }

    /// What the splitter must emit for `lines` (each without its newline), by the rules
    /// written out one by one.
    fn expected(lines: &[Vec<u8>]) -> Vec<String> {
        let mut out = Vec::new();
        for line in lines {
            if line.len() > MAX_LINE {
                out.push("<overlong>".to_string());
                continue;
            }
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let text = String::from_utf8_lossy(line).into_owned();
            if !line.starts_with(b"info") {
                out.push(text);
            } else if line.windows(7).any(|w| w == b" score ") {
                out.push(format!("Report: {text}"));
            } else {
                out.push("<unscored>".to_string());
            }
        }
        out
    }

    /// A line: short words UCI engines print (so `info`, `score` and `\r` come up often),
    /// arbitrary bytes, or one near `MAX_LINE`.
    fn line() -> impl Strategy<Value = Vec<u8>> {
        let word = prop_oneof![
            Just(b"info".to_vec()),
            Just(b" score ".to_vec()),
            Just(b"bestmove e2e4".to_vec()),
            Just(b"\r".to_vec()),
            Just(b" cp 12 pv e2e4".to_vec()),
            proptest::collection::vec(
                any::<u8>().prop_filter("no newline", |b| *b != b'\n'),
                0..12
            ),
        ];
        prop_oneof![
            8 => proptest::collection::vec(word, 0..6).prop_map(|w| w.concat()),
            1 => (MAX_LINE - 2..MAX_LINE + 3).prop_map(|n| vec![b'x'; n]),
        ]
    }

    proptest! {
        // A fixed seed: the suite is repeatable (PROPTEST_CASES still sets the budget).
        #![proptest_config(ProptestConfig {
            rng_seed: proptest::test_runner::RngSeed::Fixed(0x0b11_72a2),
            ..ProptestConfig::default()
        })]

        /// However the engine's output is cut into reads, the lines are the same.
        #[test]
        fn any_read_sizes_give_the_lines_the_rules_say(
            lines in proptest::collection::vec(line(), 0..12),
            cuts in proptest::collection::vec(any::<proptest::sample::Index>(), 0..8),
            unfinished in proptest::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..5),
        ) {
            let mut bytes = Vec::new();
            for line in &lines {
                bytes.extend_from_slice(line);
                bytes.push(b'\n');
            }
            bytes.extend_from_slice(&unfinished); // dropped: the engine died mid-line
            let mut at: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            at.push(0);
            at.push(bytes.len());
            at.sort_unstable();
            let chunks: Vec<&[u8]> = at.windows(2).map(|w| &bytes[w[0]..w[1]]).collect();
            prop_assert_eq!(split(&chunks), expected(&lines));
        }
    }

    #[test]
    fn ascii_is_told_from_other_bytes_at_every_place() {
        for len in 0..40 {
            let mut bytes = vec![b'\x7f'; len];
            assert!(is_ascii(&bytes));
            for at in 0..len {
                for other in [0x80, 0xc3, 0xff] {
                    bytes[at] = other;
                    assert!(!is_ascii(&bytes), "{len} {at} {other}");
                }
                bytes[at] = 0;
                assert!(is_ascii(&bytes));
            }
        }
    }
}
