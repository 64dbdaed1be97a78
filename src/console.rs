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

/// Writes `line` and a newline on stderr, ignoring a closed or failing stderr.
pub fn err_line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
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
}
