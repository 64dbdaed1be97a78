//! The console: lines for the user on stdout and stderr that never stop the program.
//!
//! A reader may go away at any time (`blitz-arena gauntlet ... 2>&1 | head -2`): Rust ignores
//! SIGPIPE, so a write to a closed pipe fails with EPIPE, and `println!`/`eprintln!` would
//! panic on it. The console is only a view of the run: its write errors are ignored, and the
//! games, the files and the exit code go on as if it were still read.

use std::io::Write;

/// A command line that cannot run although clap parsed it (options that contradict each
/// other, a shard with no games, too many games): exit code 2, like clap's own errors.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);

/// Writes `line` and a newline on stdout, ignoring a closed or failing stdout.
pub fn out_line(line: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
}

/// Writes `line` and a newline on stderr, ignoring a closed or failing stderr; as
/// [`one_line`] shows it.
pub fn err_line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{}", one_line(line));
}

/// The most characters of a line [`err_line`] writes: a longer one is cut in the middle.
pub const LONGEST_LINE: usize = 2_000;

/// Characters kept from the end of a line cut to [`LONGEST_LINE`]: an error's end says what
/// to do.
const KEPT_END: usize = 400;

/// `line` as one line a terminal shows as it is: a control character (a newline, an escape
/// sequence) in a value read from a file or an engine is written as its escape (`\n`,
/// `\u{1b}`), and a line longer than [`LONGEST_LINE`] characters (a value of megabytes quoted
/// in an error) keeps its start and its end, the middle said as a count.
pub fn one_line(line: &str) -> std::borrow::Cow<'_, str> {
    let control = |c: char| c.is_control() && c != '\t';
    let long = line.len() > LONGEST_LINE && line.chars().nth(LONGEST_LINE).is_some();
    if !long && !line.chars().any(control) {
        return std::borrow::Cow::Borrowed(line);
    }
    let mut escaped = String::with_capacity(line.len());
    for c in line.chars() {
        if control(c) {
            escaped.extend(c.escape_default());
        } else {
            escaped.push(c);
        }
    }
    let chars = escaped.chars().count();
    if chars <= LONGEST_LINE {
        return std::borrow::Cow::Owned(escaped);
    }
    let left_out = chars - (LONGEST_LINE - KEPT_END) - KEPT_END;
    let byte_at = |n: usize| {
        escaped
            .char_indices()
            .nth(n)
            .map_or(escaped.len(), |(i, _)| i)
    };
    let head = &escaped[..byte_at(LONGEST_LINE - KEPT_END)];
    let tail = &escaped[byte_at(chars - KEPT_END)..];
    std::borrow::Cow::Owned(format!(
        "{head}[... {left_out} characters left out ...]{tail}"
    ))
}

/// An error and its causes on one line, each said once: a cause whose text the message
/// already holds (`x: cannot read: {io error}` over that io error) is not repeated.
pub fn error_text(e: &anyhow::Error) -> String {
    let mut out = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !out.contains(&cause) {
            out.push_str(": ");
            out.push_str(&cause);
        }
    }
    out
}

/// `println!` that never panics: see [`out_line`].
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::console::out_line(&format!($($arg)*))
    };
}
pub(crate) use say;

/// `eprintln!` that never panics: see [`err_line`].
macro_rules! note {
    ($($arg:tt)*) => {
        $crate::console::err_line(&format!($($arg)*))
    };
}
pub(crate) use note;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("engine x: cannot start /bin/x: {source}")]
    struct Start {
        source: std::io::Error,
    }

    #[test]
    fn an_error_line_says_each_cause_once() {
        let io = || std::io::Error::from(std::io::ErrorKind::NotFound);
        let e = anyhow::Error::from(Start { source: io() });
        assert_eq!(
            error_text(&e),
            "engine x: cannot start /bin/x: entity not found"
        );
        let e = anyhow::Error::from(io()).context("book.epd: cannot read");
        assert_eq!(error_text(&e), "book.epd: cannot read: entity not found");
    }

    #[test]
    fn a_line_on_stderr_stays_one_line_a_terminal_shows_as_it_is() {
        assert!(matches!(
            one_line("a\tb é"),
            std::borrow::Cow::Borrowed("a\tb é")
        ));
        assert_eq!(
            one_line("opening \"x\ny\" \u{1b}[2J\r"),
            "opening \"x\\ny\" \\u{1b}[2J\\r"
        );
    }

    #[test]
    fn a_line_of_megabytes_keeps_its_start_and_its_end() {
        let value = "é".repeat(5_000_000);
        let line = format!("engine `big`: unknown builtin \"{value}\" (use one of: instant)");
        let shown = one_line(&line);
        let left_out = line.chars().count() - LONGEST_LINE;
        assert!(shown.starts_with("engine `big`: unknown builtin \"éé"));
        assert!(shown.ends_with("éé\" (use one of: instant)"));
        assert!(shown.contains(&format!("[... {left_out} characters left out ...]")));
        let marker = format!("[... {left_out} characters left out ...]").len();
        assert_eq!(shown.chars().count(), LONGEST_LINE + marker);
        // Exactly the longest line is written whole.
        let whole = "x".repeat(LONGEST_LINE);
        assert_eq!(one_line(&whole), whole);
    }
}
