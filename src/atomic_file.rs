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
    std::fs::write(&tmp, contents).with_context(|| format!("cannot write {}", tmp.display()))?;
    // An edited file keeps its permissions.
    if let Ok(meta) = std::fs::metadata(path) {
        std::fs::set_permissions(&tmp, meta.permissions())
            .with_context(|| format!("cannot set permissions of {}", tmp.display()))?;
    }
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))?;
    Ok(())
}
