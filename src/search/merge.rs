//! Joins the search indexes of `ingest --shard K/N` batch folders into the
//! merged batch's, segment by segment (no re-reading of sources).

use anyhow::Context;
use std::path::Path;
use tantivy::directory::MmapDirectory;
use tantivy::Index;

/// Merges the shards' indexes into `out/search`. `Ok(None)` when no shard
/// has one (batches from before the index); an error naming the shard when
/// only some do.
pub fn merge_indexes(shards: &[impl AsRef<Path>], out: &Path) -> anyhow::Result<Option<u64>> {
    let with: Vec<&Path> = shards
        .iter()
        .map(|s| s.as_ref())
        .filter(|s| s.join(super::INDEX_DIR).join("meta.json").exists())
        .collect();
    if with.is_empty() {
        return Ok(None);
    }
    if let Some(missing) = shards
        .iter()
        .map(|s| s.as_ref())
        .find(|s| !with.contains(s))
    {
        anyhow::bail!(
            "{}: shard has no search index; build it with `kgroute rebuild-search {}` and merge again",
            missing.display(),
            missing.display()
        );
    }
    let indices = with
        .iter()
        .map(|s| {
            let d = s.join(super::INDEX_DIR);
            Index::open_in_dir(&d)
                .with_context(|| format!("{}: cannot open the search index", d.display()))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let target = out.join(super::INDEX_DIR);
    std::fs::create_dir_all(&target).with_context(|| {
        format!(
            "{}: cannot create the search index folder",
            target.display()
        )
    })?;
    let dir = MmapDirectory::open(&target)
        .with_context(|| format!("{}: cannot open the search index folder", target.display()))?;
    let merged = tantivy::indexer::merge_indices(&indices, dir).with_context(|| {
        format!(
            "{}: cannot merge the shards' search indexes",
            target.display()
        )
    })?;
    super::schema::register(&merged);
    Ok(Some(merged.reader()?.searcher().num_docs()))
}
