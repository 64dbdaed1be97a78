//! Reading the files a user names on the command line or in engines.toml (a roster, an
//! opening book): symbolic links are followed, as a user's own files may be, but only a plain
//! file is read, and opening never waits (a FIFO by the name would hold `open` until a writer
//! came, and the run with it).

use std::fs::OpenOptions;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// The whole of the plain file at `path`; a FIFO, a device or a folder is an error that says
/// so (`not a plain file`), found without reading it.
pub fn read_named(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other(
            "not a plain file (a FIFO, a device or a folder)",
        ));
    }
    // O_NONBLOCK does not change how a plain file reads.
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// [`read_named`], as text: invalid UTF-8 is an error, as `std::fs::read_to_string`'s is.
pub fn read_named_text(path: &Path) -> std::io::Result<String> {
    String::from_utf8(read_named(path)?)
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}
