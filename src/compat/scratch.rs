//! A compat run's results folder in the temporary folder (`blitz-arena-compat-PID-NANOS`):
//! made fresh for each run and removed at its end, since fastchess leaves no results folder.
//! A run killed with SIGKILL (or one that panicked) cannot remove its own, so each compat run
//! first removes the folders of compat runs that are gone: nothing piles up in the temporary
//! folder, and a live run's folder is never touched.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::report::folder::FolderLock;

const PREFIX: &str = "blitz-arena-compat-";

/// The file that marks a compat run's folder as kept: a run that ended with an error keeps
/// its folder (the games may be nowhere else, when `-pgnout` could not be written), and the
/// sweep leaves it alone.
pub const KEPT: &str = "kept-by-blitz-arena";

/// Marks `dir` kept; the sweep of later compat runs leaves it alone.
pub fn keep(dir: &Path) -> std::io::Result<()> {
    std::fs::write(
        dir.join(KEPT),
        "kept by blitz-arena: the compat run that made this folder ended with an error; remove the folder when done\n",
    )
}

/// Whether `dir` is a compat run's folder in the temporary folder, named by [`folder`].
pub fn is_scratch(dir: &Path) -> bool {
    dir.parent() == Some(std::env::temp_dir().as_path())
        && dir
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(pid_of)
            .is_some()
}

/// A fresh folder name in the temporary folder for a run's results.
pub fn folder() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    std::env::temp_dir().join(format!("{PREFIX}{}-{nanos}", std::process::id()))
}

/// The pid in a name [`folder`] makes (`blitz-arena-compat-PID-NANOS`, both decimal); None
/// for any other name.
fn pid_of(name: &str) -> Option<libc::pid_t> {
    let (pid, nanos) = name.strip_prefix(PREFIX)?.split_once('-')?;
    let decimal = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !decimal(pid) || !decimal(nanos) {
        return None;
    }
    pid.parse().ok().filter(|&pid| pid > 0)
}

/// Whether no process has this pid (`kill(pid, 0)` fails with ESRCH); a process of another
/// user is alive.
fn gone(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 sends nothing; it only checks that the process exists.
    let exists = unsafe { libc::kill(pid, 0) } == 0;
    !exists && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

/// Removes the folders in `tmp` that compat runs made and left behind: a folder named as
/// [`folder`] names them (never a symbolic link, only this user's), whose run's process is
/// gone and whose lock (`run.lock`) nobody holds. Returns those removed.
pub fn sweep(tmp: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(tmp) else {
        return Vec::new();
    };
    // SAFETY: geteuid cannot fail.
    let me = unsafe { libc::geteuid() };
    let own = std::process::id() as libc::pid_t;
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(pid_of) else {
            continue;
        };
        let path = entry.path();
        // Not followed: a symbolic link is not a directory here.
        let ours = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir() && m.uid() == me);
        let kept = path.join(KEPT).symlink_metadata().is_ok();
        if !ours || kept || pid == own || !gone(pid) || FolderLock::holder(&path).is_some() {
            continue;
        }
        // remove_dir_all removes links inside the folder, never what they point to.
        if std::fs::remove_dir_all(&path).is_ok() {
            removed.push(path);
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_names_compat_runs_make_are_read() {
        assert_eq!(pid_of("blitz-arena-compat-123-456"), Some(123));
        for other in [
            "blitz-arena-compat-123",
            "blitz-arena-compat--456",
            "blitz-arena-compat-12a-456",
            "blitz-arena-compat-123-45x",
            "blitz-arena-compat-0-456",
            "blitz-arena-compat-123-456-7",
            "xblitz-arena-compat-123-456",
            "blitz-arena-compat-99999999999999-1",
        ] {
            assert_eq!(pid_of(other), None, "{other}");
        }
        let made = folder();
        let name = made.file_name().unwrap().to_str().unwrap();
        assert_eq!(pid_of(name), Some(std::process::id() as libc::pid_t));
    }

    #[test]
    fn this_process_is_alive() {
        assert!(!gone(std::process::id() as libc::pid_t));
        // pid 1 is alive, whoever owns it.
        assert!(!gone(1));
    }
}
