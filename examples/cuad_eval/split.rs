//! The fixed split of the shared CUAD contracts that every measurement
//! uses: within each type folder, files sorted by name, even positions
//! tune, odd positions check.

use std::path::{Path, PathBuf};

/// The fixed split: `(tuning, checking)` as `type/name.txt` keys.
pub fn split(cuad: &Path) -> anyhow::Result<(Vec<String>, Vec<String>)> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(cuad)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let (mut tuning, mut checking) = (Vec::new(), Vec::new());
    for d in dirs {
        let mut names: Vec<String> = std::fs::read_dir(&d)?
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .filter(|n| n.ends_with(".txt"))
            .collect();
        names.sort();
        let ty = d.file_name().unwrap().to_string_lossy().into_owned();
        for (i, n) in names.into_iter().enumerate() {
            let key = format!("{ty}/{n}");
            if i % 2 == 0 {
                tuning.push(key)
            } else {
                checking.push(key)
            }
        }
    }
    Ok((tuning, checking))
}
