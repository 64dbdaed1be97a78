//! The results folder as a place on disk: the names of its files, which of them are the
//! arena's, the lock a run holds on it from start to end, and how its files are opened (never
//! through a symbolic link, temporary files only ever created new).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use anyhow::{anyhow, bail};

pub const GAMES_CSV: &str = "games.csv";
pub const GAMES_PGN: &str = "games.pgn";
pub const EVENTS_JSONL: &str = "events.jsonl";
pub const SUMMARY_CSV: &str = "summary.csv";
pub const RUN_JSON: &str = "run.json";
/// Held locked (`flock`) by the run that uses the folder; it names that run.
pub const LOCK: &str = "run.lock";

/// The files a run writes; a folder holding any of them (or a temporary copy of one) belongs
/// to a run. The lock file alone does not: it is left by every run, even one that wrote
/// nothing.
const ARENA_FILES: [&str; 5] = [RUN_JSON, GAMES_CSV, GAMES_PGN, EVENTS_JSONL, SUMMARY_CSV];

/// Whether `name` is the name of one of the files a run keeps in its folder (its lock file
/// too): what a report written elsewhere must not be called, lest it replace a run's data.
pub fn is_run_file_name(name: &std::ffi::OsStr) -> bool {
    ARENA_FILES.iter().chain([&LOCK]).any(|file| name == *file)
}

/// The arena's files present in `dir` (a symbolic link by one of these names counts too).
pub fn arena_files(dir: &Path) -> Vec<String> {
    ARENA_FILES
        .iter()
        .flat_map(|name| [name.to_string(), format!("{name}.tmp")])
        .filter(|name| dir.join(name).symlink_metadata().is_ok())
        .collect()
}

/// Why a folder that holds arena files but no `run.json` can be neither resumed nor reused,
/// and what to do: the same words from a new run and from `--resume`.
pub fn no_plan_error(dir: &Path, files: &[String]) -> anyhow::Error {
    let games = finished_games(dir);
    let what = if games == 0 {
        format!(
            "it holds no finished game: delete it (rm -r {}) and start again",
            dir.display()
        )
    } else {
        format!(
            "its {games} finished games can still be read (blitz-arena stats {}); start a new run with another --out",
            dir.display()
        )
    };
    anyhow!(
        "{} holds results files ({}) but no {RUN_JSON}, so it can be neither resumed nor reused; {what}",
        dir.display(),
        files.join(", ")
    )
}

/// The finished games a results folder's `games.csv` lists (its complete rows); 0 when it
/// cannot be read.
pub fn finished_games(dir: &Path) -> usize {
    finished_lines(&dir.join(GAMES_CSV))
}

/// Complete lines of a `games.csv` after its header: its finished games (a row is always one
/// line). 0 when it cannot be read.
fn finished_lines(path: &Path) -> usize {
    let Ok(file) = open_read(path) else {
        return 0;
    };
    let mut lines = 0usize;
    let mut reader = std::io::BufReader::new(file);
    let mut buf = Vec::new();
    while let Ok(n) = std::io::BufRead::read_until(&mut reader, b'\n', &mut buf) {
        if n == 0 || !buf.ends_with(b"\n") {
            break;
        }
        lines += 1;
        buf.clear();
    }
    lines.saturating_sub(1)
}

/// Checks that `dir` names a results folder that is there: a path that does not exist is
/// "no such results folder", and a file (or anything else that is not a folder) in its place
/// says so and which path to give instead.
pub fn check_is_folder(dir: &Path) -> anyhow::Result<()> {
    let what = match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => return Ok(()),
        Ok(meta) if meta.is_file() => "a file",
        Ok(_) => "a special file",
        Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
            bail!("{}: cannot read: {e}", dir.display())
        }
        Err(_) => bail!("{}: no such results folder", dir.display()),
    };
    bail!(
        "{}: not a results folder ({what}; name the folder that holds {GAMES_CSV})",
        dir.display()
    )
}

/// Checks, before the engines start, that a new run may use `dir`: no run holds it, and it
/// holds none of the arena's files (checked again under the lock with `check_unused`).
pub fn check_free(dir: &Path) -> anyhow::Result<()> {
    if let Some(holder) = FolderLock::holder(dir) {
        return Err(in_use(dir, &holder));
    }
    check_unused(dir)
}

/// Checks that a new run may write into `dir`: it holds none of the arena's files.
pub fn check_unused(dir: &Path) -> anyhow::Result<()> {
    let files = arena_files(dir);
    if files.is_empty() {
        return Ok(());
    }
    if files.iter().any(|f| f == RUN_JSON) {
        bail!(
            "{} holds a run already: continue it with --resume {}, or choose another --out",
            dir.display(),
            dir.display()
        );
    }
    Err(no_plan_error(dir, &files))
}

/// Makes the folder of a new run: a name the user gave may exist already (empty of arena
/// files, checked under the lock); a default name is created exclusively, and when another run
/// took it in the same second, `-2`, `-3`, ... is added. Returns the folder and whether this
/// call created it.
pub fn make_folder(dir: &Path, default_name: bool) -> anyhow::Result<(PathBuf, bool)> {
    let cannot = |dir: &Path, e: std::io::Error| {
        anyhow!("cannot create the results folder {}: {e}", dir.display())
    };
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| cannot(dir, e))?;
    }
    for n in 1u32.. {
        let candidate = if n == 1 {
            dir.to_path_buf()
        } else {
            let mut name = dir.as_os_str().to_owned();
            name.push(format!("-{n}"));
            PathBuf::from(name)
        };
        match std::fs::create_dir(&candidate) {
            Ok(()) => return Ok((candidate, true)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && default_name => continue,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && candidate.is_dir() => {
                return Ok((candidate, false))
            }
            Err(e) => return Err(cannot(&candidate, e)),
        }
    }
    unreachable!("some name is free")
}

/// Removes what a run wrote in `dir` (its files and the lock file), and `dir` itself when the
/// run created it and nothing else is in it: for a run stopped before any game finished.
pub fn remove_run(dir: &Path, created: bool) {
    for name in ARENA_FILES.iter().chain([&LOCK]) {
        for path in [dir.join(name), tmp_path(&dir.join(name))] {
            let _ = std::fs::remove_file(path);
        }
    }
    if created {
        let _ = std::fs::remove_dir(dir);
    }
}

/// Removes `dir`, a folder this run just made, if it holds nothing but a lock file (one whose
/// lock could not be taken or written: a full disk).
pub fn remove_empty(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(LOCK));
    let _ = std::fs::remove_dir(dir);
}

/// The exclusive lock a run holds on its results folder until it ends (`flock` on `run.lock`,
/// released by the kernel however the process ends). The file says which process holds it.
#[derive(Debug)]
pub struct FolderLock {
    _file: File,
}

impl FolderLock {
    /// Takes the lock, or fails at once with one line naming the folder and the holder.
    pub fn acquire(dir: &Path) -> anyhow::Result<FolderLock> {
        let path = dir.join(LOCK);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(&path)
            .map_err(|e| symlink_error(&path, e))
            .and_then(|file| regular(&path, file))
            .and_then(|file| single_link(&path, file))
            .map_err(|e| {
                anyhow!(
                    "cannot write to the results folder {}: {LOCK}: {e}",
                    dir.display()
                )
            })?;
        let lock = |file: &File| {
            try_lock(file)
                .map_err(|e| anyhow!("cannot lock the results folder {}: {e}", dir.display()))
        };
        if !lock(&file)? {
            // A run killed while it was starting an engine leaves, for a moment, a forked child
            // that holds the lock until its `exec` closes it: when the pid the file names is
            // gone, wait for that to pass.
            let holder = holder_text(&mut file);
            let deadline = std::time::Instant::now() + ORPHAN_LOCK_WAIT;
            loop {
                if holder_alive(&holder) || std::time::Instant::now() >= deadline {
                    return Err(in_use(dir, &holder));
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
                if lock(&file)? {
                    break;
                }
            }
        }
        let me = format!(
            "pid {}, since {}\n",
            std::process::id(),
            chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ")
        );
        file.set_len(0)
            .and_then(|()| file.write_all(me.as_bytes()))
            .map_err(|e| anyhow!("cannot write {}: {e}", path.display()))?;
        Ok(FolderLock { _file: file })
    }

    /// Who holds the lock on `dir`, if a run does (a shared lock is tried and let go).
    pub fn holder(dir: &Path) -> Option<String> {
        let mut file = open_read(&dir.join(LOCK)).ok()?;
        // SAFETY: flock on a descriptor this function owns.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_SH | libc::LOCK_NB) } == 0 {
            return None;
        }
        Some(holder_text(&mut file))
    }
}

/// How long a lock whose holder has died is waited for (see [`FolderLock::acquire`]).
const ORPHAN_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Takes the exclusive lock on `file` if no one holds it: `Ok(false)` if someone does.
fn try_lock(file: &File) -> std::io::Result<bool> {
    // SAFETY: flock on a descriptor the caller owns.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::EWOULDBLOCK) => Ok(false),
        _ => Err(e),
    }
}

/// Whether the process a lock file names (`pid N, since ...`) is alive; true when the file
/// names none.
fn holder_alive(holder: &str) -> bool {
    let pid = holder
        .strip_prefix("pid ")
        .and_then(|rest| rest.split(',').next())
        .and_then(|pid| pid.parse::<libc::pid_t>().ok());
    match pid {
        Some(pid) if pid > 0 => {
            // SAFETY: kill with signal 0 only checks that the process exists.
            let alive = unsafe { libc::kill(pid, 0) } == 0;
            alive || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
        }
        _ => true,
    }
}

/// What a lock file says about its holder.
fn holder_text(file: &mut File) -> String {
    let mut text = String::new();
    let _ = file.read_to_string(&mut text);
    match text.trim() {
        "" => "a run that is starting".to_string(),
        holder => holder.to_string(),
    }
}

fn in_use(dir: &Path, holder: &str) -> anyhow::Error {
    anyhow!(
        "{} is in use by another blitz-arena run ({holder}); wait for it to end, or choose another folder",
        dir.display()
    )
}

/// Opens one of the folder's files for reading: never through a symbolic link, never blocking
/// (a FIFO by the name would hold `open` until a writer came), and only a plain file.
pub fn open_read(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| symlink_error(path, e))?;
    blocking(regular(path, file)?)
}

/// Reads the whole of one of the folder's files, opened as [`open_read`] does.
pub fn read_bytes(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_read(path)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Opens (creating if needed) one of the folder's files for appending, refusing a symbolic
/// link.
pub fn open_append(path: &Path) -> std::io::Result<File> {
    let file = OpenOptions::new()
        .read(true)
        .append(true)
        .create(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| symlink_error(path, e))?;
    blocking(single_link(path, regular(path, file)?)?)
}

/// Creates `path` new (O_EXCL: never an existing file, never through a link). A leftover of
/// an interrupted run by that name is removed first; a symbolic link is removed, not followed.
pub fn create_new(path: &Path) -> std::io::Result<File> {
    if path.symlink_metadata().is_ok() {
        std::fs::remove_file(path)?;
    }
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o644)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
}

/// Writes `bytes` to `path` through a new temporary file renamed over it. Whatever fails (a
/// full disk), the temporary file is removed: `path` is the old file or the new one, and
/// nothing else is left.
pub fn replace(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let tmp = tmp_path(path);
    let written = create_new(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_data()?;
        std::fs::rename(&tmp, path)
    });
    written.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        anyhow!("cannot write {}: {e}", path.display())
    })
}

/// The bytes after the last newline of a file: a torn last line (every line is written whole,
/// newline included), or 0. Reads backwards from the end, never the whole file.
pub fn torn_tail_len(file: &File) -> std::io::Result<u64> {
    use std::os::unix::fs::FileExt;
    let len = file.metadata()?.len();
    let mut end = len;
    let mut chunk = vec![0u8; 64 * 1024];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let buf = &mut chunk[..(end - start) as usize];
        file.read_exact_at(buf, start)?;
        if let Some(i) = buf.iter().rposition(|&b| b == b'\n') {
            return Ok(len - (start + i as u64 + 1));
        }
        end = start;
    }
    Ok(len)
}

/// `games.csv` -> `games.csv.tmp`.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".tmp");
    PathBuf::from(name)
}

fn symlink_error(path: &Path, e: std::io::Error) -> std::io::Error {
    if e.raw_os_error() == Some(libc::ENXIO) {
        // O_NONBLOCK | O_WRONLY on a FIFO that no one reads.
        std::io::Error::other(format!("{} is not a plain file", path.display()))
    } else if e.raw_os_error() == Some(libc::ELOOP) {
        std::io::Error::other(format!(
            "{} is a symbolic link; a results folder's files must be plain files",
            path.display()
        ))
    } else {
        e
    }
}

/// A file the arena writes in place must have one name: a hard link to another file would have
/// that file overwritten.
fn single_link(path: &Path, file: File) -> std::io::Result<File> {
    use std::os::unix::fs::MetadataExt;
    if file.metadata()?.nlink() == 1 {
        Ok(file)
    } else {
        Err(std::io::Error::other(format!(
            "{} is a hard link to another file; a results folder's files must be its own",
            path.display()
        )))
    }
}

/// Clears the O_NONBLOCK an open was made with (it only kept a FIFO from blocking the open): a
/// plain file then reads and writes as usual.
fn blocking(file: File) -> std::io::Result<File> {
    let fd = file.as_raw_fd();
    // SAFETY: fcntl on a descriptor `file` owns.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

fn regular(path: &Path, file: File) -> std::io::Result<File> {
    if file.metadata()?.is_file() {
        Ok(file)
    } else {
        Err(std::io::Error::other(format!(
            "{} is not a plain file",
            path.display()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("blitz-arena-folder-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn a_second_lock_names_the_holder_and_the_first_is_released_on_drop() {
        let dir = temp_dir("lock");
        std::fs::create_dir_all(&dir).unwrap();
        let first = FolderLock::acquire(&dir).unwrap();
        let msg = format!("{:#}", FolderLock::acquire(&dir).unwrap_err());
        assert!(
            msg.contains("is in use by another blitz-arena run"),
            "{msg}"
        );
        assert!(
            msg.contains(&format!("pid {}", std::process::id())),
            "{msg}"
        );
        assert!(FolderLock::holder(&dir)
            .unwrap()
            .starts_with(&format!("pid {},", std::process::id())));
        assert!(check_free(&dir).unwrap_err().to_string().contains("in use"));
        drop(first);
        assert_eq!(FolderLock::holder(&dir), None);
        check_free(&dir).unwrap();
        FolderLock::acquire(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A lock held after its run died (a forked child of a killed run, before its `exec`) is
    /// waited for; one held by a live run is refused at once.
    #[test]
    fn a_lock_whose_run_died_is_waited_for() {
        let dir = temp_dir("orphan");
        std::fs::create_dir_all(&dir).unwrap();
        let mut dead = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = dead.id();
        dead.wait().unwrap();
        let orphan = File::create(dir.join(LOCK)).unwrap();
        std::fs::write(dir.join(LOCK), format!("pid {dead_pid}, since then\n")).unwrap();
        assert!(try_lock(&orphan).unwrap());
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            drop(orphan);
        });
        FolderLock::acquire(&dir).unwrap();
        release.join().unwrap();
        assert!(!holder_alive(&format!("pid {dead_pid}, since then")));
        assert!(holder_alive(&format!(
            "pid {}, since now",
            std::process::id()
        )));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn default_names_are_taken_exclusively() {
        let base = temp_dir("names");
        let dir = base.join("run");
        let (a, created_a) = make_folder(&dir, true).unwrap();
        let (b, created_b) = make_folder(&dir, true).unwrap();
        assert!(created_a && created_b);
        assert_eq!(a, dir);
        assert_eq!(b, base.join("run-2"));
        // A name the user gave is used as it is.
        let (c, created_c) = make_folder(&dir, false).unwrap();
        assert_eq!((c, created_c), (dir.clone(), false));
        std::fs::remove_dir_all(&base).unwrap();
    }

    #[test]
    fn links_are_never_followed() {
        let dir = temp_dir("links");
        std::fs::create_dir_all(&dir).unwrap();
        let outside = dir.join("outside");
        std::fs::write(&outside, "precious").unwrap();
        let csv = dir.join(GAMES_CSV);
        std::os::unix::fs::symlink(&outside, &csv).unwrap();
        let msg = open_append(&csv).unwrap_err().to_string();
        assert!(msg.contains("is a symbolic link"), "{msg}");
        assert!(open_read(&csv).is_err());
        std::os::unix::fs::symlink(&outside, tmp_path(&csv)).unwrap();
        std::fs::remove_file(&csv).unwrap();
        replace(&csv, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
        assert_eq!(std::fs::read_to_string(&csv).unwrap(), "new");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
