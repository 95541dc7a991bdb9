//! Writing a file so that readers (and a crash) see either the old or the
//! new contents, never half of one: a temp file in the same folder, then a
//! rename.

use anyhow::Context;
use std::path::Path;

/// Writes `contents` to `path` through a temporary file in the same folder
/// and a rename, so a reader never sees half a report.
pub fn write_atomic(path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.tmp{}", std::process::id()));
    let result = write_and_rename(&tmp, path, contents);
    if result.is_err() {
        // A failed write (a full disk) leaves no half temp file behind.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

fn write_and_rename(tmp: &Path, path: &Path, contents: &[u8]) -> anyhow::Result<()> {
    fault::check(path)?;
    std::fs::write(tmp, contents).with_context(|| format!("cannot write {}", tmp.display()))?;
    // An edited file keeps its permissions.
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(tmp, meta.permissions())
            .with_context(|| format!("cannot set permissions of {}", tmp.display()))?;
    }
    std::fs::rename(tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}

/// Keeps the current contents of `path` before it is replaced, in the
/// first free name of `NAME.bak`, `NAME.bak.2`, `NAME.bak.3`, ... beside
/// it: a file replaced twice keeps both earlier versions (a reviewed index
/// replaced by a draft, then that draft by the next one), and two runs at
/// once never claim the same name. Contents already kept in one of those
/// copies are not copied again. Returns the copy that holds them.
pub fn keep_copy(path: &Path) -> anyhow::Result<std::path::PathBuf> {
    use std::io::Write;
    let contents =
        std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let name = path.file_name().unwrap_or_default().to_os_string();
    for n in 1u32.. {
        let mut copy = name.clone();
        copy.push(if n == 1 {
            ".bak".to_string()
        } else {
            format!(".bak.{n}")
        });
        let copy = path.with_file_name(copy);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&copy)
        {
            Ok(mut f) => {
                f.write_all(&contents)
                    .and_then(|()| f.sync_all())
                    .with_context(|| format!("cannot write {}", copy.display()))?;
                return Ok(copy);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if std::fs::read(&copy).is_ok_and(|kept| kept == contents) {
                    return Ok(copy);
                }
            }
            Err(e) => {
                return Err(e).with_context(|| format!("cannot create {}", copy.display()));
            }
        }
    }
    unreachable!("a free copy name")
}

/// Whether `err` comes from a full disk (or a spent quota): the first
/// such error stops a batch, since every later write would fail alike.
pub fn is_disk_full(err: &anyhow::Error) -> bool {
    let full = |code: Option<i32>| code == Some(libc::ENOSPC) || code == Some(libc::EDQUOT);
    err.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|e| full(e.raw_os_error()) || e.kind() == std::io::ErrorKind::StorageFull)
    }) || {
        // Libraries that keep only the message (the search index).
        let text = format!("{err:#}");
        text.contains(&format!("(os error {})", libc::ENOSPC))
            || text.contains("No space left on device")
    }
}

/// A test hook: `KGROUTE_FAULT_ENOSPC_AFTER=N` makes every atomic write
/// after the first N fail as a full disk would, where a test cannot mount
/// a small file system. Read once; unset, it costs one atomic load.
mod fault {
    use std::path::Path;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::OnceLock;

    static AFTER: OnceLock<Option<u64>> = OnceLock::new();
    static WRITES: AtomicU64 = AtomicU64::new(0);

    pub fn check(path: &Path) -> anyhow::Result<()> {
        let after = AFTER.get_or_init(|| {
            std::env::var("KGROUTE_FAULT_ENOSPC_AFTER")
                .ok()
                .and_then(|v| v.parse().ok())
        });
        match after {
            Some(n) if WRITES.fetch_add(1, Ordering::Relaxed) >= *n => Err(anyhow::Error::new(
                std::io::Error::from_raw_os_error(libc::ENOSPC),
            )
            .context(format!("cannot write {}", path.display()))),
            _ => Ok(()),
        }
    }
}

/// Removes the temp files [`write_atomic`] left in `dir` and its direct
/// subfolders (a run killed between write and rename leaves
/// `.NAME.tmpPID`). Only files whose process is gone are removed: a live
/// process may be about to rename its own. Returns how many went.
pub fn clean_stale(dir: &Path) -> usize {
    remove_temps(dir, temp_of_dead_process)
}

/// Removes this process's own temp files in `dir` and its direct
/// subfolders: a run that stops for a full disk leaves none behind (the
/// reports it was streaming included).
pub fn remove_own_temps(dir: &Path) -> usize {
    let own = |p: &Path| {
        let pid = std::process::id().to_string();
        p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
            n.starts_with('.') && n.rsplit_once(".tmp").is_some_and(|(_, p)| p == pid)
        })
    };
    remove_temps(dir, own)
}

fn remove_temps(dir: &Path, remove: impl Fn(&Path) -> bool) -> usize {
    let mut removed = 0;
    let mut dirs = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && depth == 0 {
                dirs.push((p, 1));
            } else if kind.is_file() && remove(&p) && std::fs::remove_file(&p).is_ok() {
                removed += 1;
            }
        }
    }
    removed
}

/// Whether `p` is named `.NAME.tmpPID` and process PID no longer runs.
fn temp_of_dead_process(p: &Path) -> bool {
    let Some(name) = p.file_name().and_then(|n| n.to_str()) else {
        return false;
    };
    if !name.starts_with('.') {
        return false;
    }
    let Some((_, pid)) = name.rsplit_once(".tmp") else {
        return false;
    };
    let Ok(pid) = pid.parse::<u32>() else {
        return false;
    };
    pid != std::process::id() && !process_alive(pid)
}

#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 only checks that the process exists.
    let rc = unsafe { libc::kill(pid, 0) };
    rc == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    true
}

/// Checks, before a run starts, that [`write_atomic`] will be able to
/// write `path` at its end: the path is a regular file or absent, and its
/// folder (or the nearest existing ancestor, for folders still to be made)
/// accepts a new file. Nothing is left behind.
pub fn check_writable(path: &Path) -> anyhow::Result<()> {
    if let Ok(meta) = std::fs::metadata(path) {
        if !meta.is_file() {
            anyhow::bail!("{}: exists and is not a regular file", path.display());
        }
    }
    let mut dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    while !dir.exists() {
        match dir.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(p) => dir = p.to_path_buf(),
            None => dir = Path::new(".").to_path_buf(),
        }
    }
    if !dir.is_dir() {
        anyhow::bail!(
            "{}: cannot be written: {} is not a folder",
            path.display(),
            dir.display()
        );
    }
    let probe = dir.join(format!(".kgroute-probe.tmp{}", std::process::id()));
    std::fs::write(&probe, b"").with_context(|| {
        format!(
            "{}: cannot be written (no new file in {})",
            path.display(),
            dir.display()
        )
    })?;
    let _ = std::fs::remove_file(&probe);
    Ok(())
}

/// Whether any file in `dir` or its direct subfolders was modified at or
/// after `since`: whether a failed run wrote anything (exit 1, not 2).
pub fn written_since(dir: &Path, since: std::time::SystemTime) -> bool {
    let mut dirs = vec![(dir.to_path_buf(), 0)];
    while let Some((d, depth)) = dirs.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                if depth == 0 {
                    dirs.push((e.path(), 1));
                }
            } else if meta.modified().is_ok_and(|m| m >= since) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_file_replaced_twice_keeps_both_earlier_versions() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("servicing.yaml");
        std::fs::write(&f, "reviewed\n").unwrap();
        let first = keep_copy(&f).unwrap();
        assert_eq!(first, dir.path().join("servicing.yaml.bak"));
        std::fs::write(&f, "draft one\n").unwrap();
        let second = keep_copy(&f).unwrap();
        assert_eq!(second, dir.path().join("servicing.yaml.bak.2"));
        assert_eq!(std::fs::read_to_string(&first).unwrap(), "reviewed\n");
        assert_eq!(std::fs::read_to_string(&second).unwrap(), "draft one\n");
        // The same contents again: the copy that has them, no third.
        assert_eq!(keep_copy(&f).unwrap(), second);
        assert!(!dir.path().join("servicing.yaml.bak.3").exists());
    }

    use super::*;

    #[test]
    fn temp_files_of_dead_processes_go_and_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        std::fs::create_dir(d.join("docs")).unwrap();
        // A pid above the kernel's maximum cannot be running.
        let dead = d.join("docs/.a.json.tmp4194304999");
        let mine = d.join(format!(".b.json.tmp{}", std::process::id()));
        let live = d.join(".c.json.tmp1");
        let plain = d.join("report.tmp123");
        for f in [&dead, &mine, &live, &plain] {
            std::fs::write(f, "x").unwrap();
        }
        write_atomic(&d.join("docs/a.json"), b"{}").unwrap();
        assert_eq!(clean_stale(d), 1);
        assert!(!dead.exists());
        assert!(mine.exists() && live.exists() && plain.exists());
        assert_eq!(std::fs::read(d.join("docs/a.json")).unwrap(), b"{}");
    }
}
