//! Exclusive locks so that two runs never share a batch folder or an index.
//!
//! Two `ingest --resume` into one batch folder both sent every request; two
//! `review --write` on one index each wrote "version 4 -> 5" and one
//! reviewer's decisions were lost. A [`Lock`] is an advisory `flock` on a
//! small lock file, held for the life of the run: the kernel releases it
//! when the process ends in any way (kill -9 included), so a lock left by a
//! killed run is free to take and no stale-lock guessing (pid checks, ages)
//! can go wrong. The holder writes who it is into the file; a refused run
//! prints that line. The holder deletes the file before it lets go; a run
//! that locked a file that was deleted meanwhile (its path now names another
//! file or none) lets go and tries again, so two runs never hold locks on
//! two different files of one path.

use anyhow::{bail, Context, Result};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The lock file of a folder of indices being reviewed.
pub const REVIEW_LOCK: &str = ".kgroute-review.lock";

/// The lock file of batch folder `out`: beside it, `.NAME.kgroute.lock`
/// (inside, it would make a new batch's folder non-empty, and a run that
/// fails its checks must leave no folder behind).
/// `out` is resolved first (its parent when it does not exist yet), so a
/// symlinked `--out` and the folder it names share one lock (a
/// link taking a lock of its own would let two runs write one batch).
pub fn batch_lock_path(out: &Path) -> PathBuf {
    let out = canonical_out(out);
    let out = out.as_path();
    let name = out
        .file_name()
        .map_or_else(|| "batch".into(), |n| n.to_string_lossy().into_owned());
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty());
    parent
        .unwrap_or(Path::new("."))
        .join(format!(".{name}.kgroute.lock"))
}

/// `out` resolved through every symlink; a folder not made yet is its
/// resolved parent joined with its own name.
fn canonical_out(out: &Path) -> PathBuf {
    if let Ok(c) = out.canonicalize() {
        return c;
    }
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    match (parent.canonicalize(), out.file_name()) {
        (Ok(p), Some(n)) => p.join(n),
        _ => out.to_path_buf(),
    }
}

/// The error of a lock another run holds: the run did nothing and ends
/// with exit code 2, whatever that other run has written meanwhile
/// ([`is_held`] tells it apart).
#[derive(Debug)]
pub struct Held(String);

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Held {}

/// Whether `err` (or one of its causes) is a refused lock.
pub fn is_held(err: &anyhow::Error) -> bool {
    err.chain().any(|c| c.is::<Held>())
}

/// A held lock; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct Lock {
    file: File,
    path: PathBuf,
}

impl Lock {
    /// Takes the lock file `path` (created if missing) or fails at once,
    /// naming the holder. `what` says what is locked, for the message.
    pub fn acquire(path: &Path, what: &str) -> Result<Lock> {
        for _ in 0..100 {
            if let Some(lock) = Self::try_once(path, what)? {
                return Ok(lock);
            }
        }
        bail!(
            "{}: cannot take the lock file (it keeps being replaced)",
            path.display()
        )
    }

    /// The lock of the folder holding the index file `index` (or of the
    /// folder `index` names): one writer of a folder of indices, and of
    /// the files kept beside them, at a time.
    pub fn for_indices(index: &Path) -> Result<Lock> {
        let folder = if index.is_dir() {
            index
        } else {
            index
                .parent()
                .filter(|p| !p.as_os_str().is_empty())
                .unwrap_or(Path::new("."))
        };
        Self::acquire(
            &folder.join(REVIEW_LOCK),
            &format!("the indices in {}", folder.display()),
        )
    }

    /// The lock of batch folder `out` for one run (see [`batch_lock_path`]).
    pub fn for_batch(out: &Path) -> Result<Lock> {
        let path = batch_lock_path(out);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("{}: cannot create folder", parent.display()))?;
        }
        Self::acquire(&path, &format!("batch folder {}", out.display()))
    }

    /// One attempt; `None` when the file was replaced under us.
    fn try_once(path: &Path, what: &str) -> Result<Option<Lock>> {
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .with_context(|| format!("{}: cannot open the lock file", path.display()))?;
        if !try_lock(&file)? {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            let holder = if holder.is_empty() {
                "another kgroute run".to_string()
            } else {
                holder.to_string()
            };
            return Err(Held(format!(
                "{what} is in use by {holder} (lock {}); wait for that run to finish or stop it, \
                 then run again",
                path.display()
            ))
            .into());
        }
        if !same_file(&file, path) {
            return Ok(None);
        }
        // Free: either never taken, released, or left by a killed run (the
        // kernel dropped its lock). Record ourselves.
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        writeln!(file, "{}", holder_line())?;
        file.flush()?;
        Ok(Some(Lock {
            file,
            path: path.to_path_buf(),
        }))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        // Removed while still held; a run waiting on this file sees it gone
        // and starts over on a new one. The kernel releases the lock when
        // the file closes.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.set_len(0);
    }
}

/// `kgroute (pid 123, user ann on host h, since 2026-12-01T22:40:00Z):
/// ingest docs --resume`.
fn holder_line() -> String {
    let user = std::env::var("USER")
        .or_else(|_| std::env::var("USERNAME"))
        .unwrap_or_else(|_| "?".into());
    let host = std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .unwrap_or_else(|_| "?".into());
    let args: Vec<String> = std::env::args().skip(1).take(6).collect();
    format!(
        "kgroute (pid {}, user {user} on {host}, since {}): {}",
        std::process::id(),
        chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ"),
        crate::secret::redact_urls(&args.join(" "))
    )
}

#[cfg(unix)]
fn try_lock(file: &File) -> Result<bool> {
    use std::os::unix::io::AsRawFd;
    // SAFETY: flock on a file descriptor we own; no memory is passed.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if rc == 0 {
        return Ok(true);
    }
    let err = std::io::Error::last_os_error();
    if err.kind() == std::io::ErrorKind::WouldBlock {
        Ok(false)
    } else {
        Err(err).context("cannot lock")
    }
}

/// Whether `path` still names the open `file` (not deleted or replaced).
#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(not(unix))]
fn try_lock(_file: &File) -> Result<bool> {
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_naming_the_holder_and_free_after_drop() {
        let dir = tempfile::tempdir().unwrap();
        let p = batch_lock_path(&dir.path().join("b1"));
        assert_eq!(
            p,
            dir.path().canonicalize().unwrap().join(".b1.kgroute.lock")
        );
        let first = Lock::acquire(&p, "batch folder x").unwrap();
        let e = Lock::acquire(&p, "batch folder x").unwrap_err();
        assert!(is_held(&e));
        let e = e.to_string();
        assert!(
            e.contains("batch folder x is in use by kgroute (pid"),
            "{e}"
        );
        assert!(e.contains(&std::process::id().to_string()), "{e}");
        drop(first);
        assert!(!p.exists(), "the lock file goes with the lock");
        let again = Lock::acquire(&p, "batch folder x").unwrap();
        assert!(std::fs::read_to_string(again.path())
            .unwrap()
            .contains("pid"));
    }

    #[test]
    fn a_lock_file_left_with_a_holder_line_but_no_lock_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(REVIEW_LOCK);
        std::fs::write(&p, "kgroute (pid 999999, killed)\n").unwrap();
        let l = Lock::acquire(&p, "batch").unwrap();
        let text = std::fs::read_to_string(l.path()).unwrap();
        assert!(!text.contains("999999"), "{text}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_out_shares_the_lock_of_the_folder_it_names() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(batch_lock_path(&link), batch_lock_path(&real));
        let held = Lock::for_batch(&real).unwrap();
        assert!(is_held(&Lock::for_batch(&link).unwrap_err()));
        drop(held);
        // A folder not made yet, through a relative-looking path.
        let fresh = dir.path().join("link").join("..").join("new");
        assert_eq!(
            batch_lock_path(&fresh).file_name().unwrap(),
            ".new.kgroute.lock"
        );
    }
}
