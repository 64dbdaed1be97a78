//! The console: lines for the user on stdout and stderr that never stop the program.
//!
//! A reader may go away at any time (`blitz-arena gauntlet ... 2>&1 | head -2`): Rust ignores
//! SIGPIPE, so a write to a closed pipe fails with EPIPE, and `println!`/`eprintln!` would
//! panic on it. The console is only a view of the run: its write errors are ignored, and the
//! games, the files and the exit code go on as if it were still read.

use std::io::Write;

/// Writes `line` and a newline on stdout, ignoring a closed or failing stdout.
pub fn out_line(line: &str) {
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{line}").and_then(|()| stdout.flush());
}

/// Writes `line` and a newline on stderr, ignoring a closed or failing stderr.
pub fn err_line(line: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{line}");
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
