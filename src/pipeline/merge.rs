//! `kgroute merge`: joins the batch folders of `--shard K/N` runs into one
//! batch, as if one process had run the whole corpus.
//!
//! Nothing is averaged: the saved documents (`docs/*.json.gz`) and graph parts
//! of every shard are copied into the new folder and the reports are
//! recomputed from them by the same code a batch uses. Refused, with the
//! reason, when the folders are not one complete set: a folder that is not
//! a shard, shards of different counts, indices or extractors, a shard
//! missing or given twice, or one that has not finished.

use super::manifest::{DocEntry, DocState, Manifest};
use super::run::{load_saved_at, outcome_from};
use crate::report::sections_xlsx::MAX_SHEET_ROWS;
use crate::report::stream::ReportStream;
use crate::report::{record_history, BatchReport, BatchSummary, DocumentOutcome, IndexUsed};
use crate::shard::ShardSpec;
use crate::sink::files::FileSink;
use crate::sink::import_files::NODES_CSV;
use crate::sink::parts::{self, PARTS_DIR};
use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What a batch's reports were made with, besides its documents: saved so
/// that `merge` recomputes the same reports.
pub const REPORT_META_FILE: &str = "report-meta.json";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct ReportMeta {
    /// The primary index's version (what older batches recorded).
    index_version: String,
    /// Every index of the batch (absent in older batches' files).
    #[serde(default)]
    indices: Vec<IndexUsed>,
    input_per_million: f64,
    output_per_million: f64,
    extractor: String,
    sink: String,
    index_entries: Vec<String>,
}

/// Saves what [`merge_shards`] needs to recompute this batch's reports.
pub fn save_report_meta(out_dir: &Path, r: &BatchReport) -> anyhow::Result<()> {
    let meta = ReportMeta {
        index_version: r.index_version.clone(),
        indices: r.indices.clone(),
        input_per_million: r.input_per_million,
        output_per_million: r.output_per_million,
        extractor: r.extractor.clone(),
        sink: r.sink.clone(),
        index_entries: r.index_entries.clone(),
    };
    crate::atomic_file::write_atomic(
        &out_dir.join(REPORT_META_FILE),
        &serde_json::to_vec_pretty(&meta)?,
    )
}

/// One shard folder, checked.
struct Shard {
    dir: PathBuf,
    spec: ShardSpec,
    manifest: Manifest,
    meta: ReportMeta,
}

fn load_shard(dir: &Path) -> anyhow::Result<Shard> {
    let manifest = Manifest::load(dir)
        .with_context(|| format!("{}: not a kgroute batch folder", dir.display()))?;
    let Some(spec) = manifest.shard else {
        bail!(
            "{}: this batch was not run with --shard K/N, so it is not a shard to merge",
            dir.display()
        );
    };
    if !manifest.finished {
        bail!(
            "{}: shard {spec} has not finished; run the same command again with --resume, then merge",
            dir.display()
        );
    }
    let meta_path = dir.join(REPORT_META_FILE);
    let text = std::fs::read(&meta_path)
        .with_context(|| format!("{}: cannot read", meta_path.display()))?;
    let meta = serde_json::from_slice(&text)
        .with_context(|| format!("{}: not a kgroute report meta file", meta_path.display()))?;
    Ok(Shard {
        dir: dir.to_path_buf(),
        spec,
        manifest,
        meta,
    })
}

/// Checks that the shards are one complete set of one batch's settings.
fn check_set(shards: &[Shard]) -> anyhow::Result<()> {
    let first = &shards[0];
    let n = first.spec.count;
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    for s in shards {
        if s.spec.count != n {
            bail!(
                "{} is shard {} but {} is shard {}: shards of one batch share N",
                s.dir.display(),
                s.spec,
                first.dir.display(),
                first.spec
            );
        }
        if s.manifest.identity != first.manifest.identity {
            bail!(
                "{} was built with another index or extractor than {}; merge only shards of one batch",
                s.dir.display(),
                first.dir.display()
            );
        }
        if let Some(prev) = seen.insert(s.spec.index, &s.dir) {
            bail!(
                "shard {} given twice: {} and {}",
                s.spec,
                prev.display(),
                s.dir.display()
            );
        }
    }
    let missing: Vec<String> = (0..n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shard{} {} missing: give all {n} shard folders",
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", ")
        );
    }
    Ok(())
}

/// Joins the shard folders `dirs` into a new batch folder `out` and records
/// one history row.
pub fn merge_shards(dirs: &[PathBuf], out: &Path, history: &Path) -> anyhow::Result<BatchSummary> {
    if dirs.is_empty() {
        bail!("give the shard folders to merge, e.g. kgroute merge reports/b/shard-0 reports/b/shard-1 --out reports/b/merged");
    }
    let shards = dirs
        .iter()
        .map(|d| load_shard(d))
        .collect::<anyhow::Result<Vec<_>>>()?;
    check_set(&shards)?;
    if std::fs::read_dir(out).is_ok_and(|mut d| d.next().is_some()) {
        bail!(
            "{}: output folder is not empty; give a new --out for the merged batch",
            out.display()
        );
    }
    check_saved(&shards)?;
    check_parts(&shards)?;
    // `out` was new or empty: a merge that fails leaves it so, never a
    // half-written batch that looks whole.
    let made = !out.exists();
    let merged = write_merged(&shards, out, history);
    if merged.is_err() {
        if made {
            let _ = std::fs::remove_dir_all(out);
        } else if let Ok(entries) = std::fs::read_dir(out) {
            for e in entries.flatten() {
                let p = e.path();
                let _ = if p.is_dir() {
                    std::fs::remove_dir_all(&p)
                } else {
                    std::fs::remove_file(&p)
                };
            }
        }
    }
    merged
}

/// Every document a shard saved (`docs/<doc_id>.json.gz`) is in its
/// manifest: a manifest that lost entries would otherwise drop those
/// documents from the merged batch without a word, while the search index
/// copied from the shard still finds them. The error names the shard's
/// files and the way to list them again.
fn check_saved(shards: &[Shard]) -> anyhow::Result<()> {
    for s in shards {
        let listed: std::collections::HashSet<&str> = s
            .manifest
            .documents
            .iter()
            .filter_map(|d| d.doc_id.as_deref())
            .collect();
        let docs = s.dir.join(crate::saved_docs::DOCS_DIR);
        if !docs.is_dir() {
            continue;
        }
        let mut unlisted: Vec<PathBuf> = crate::saved_docs::list(&s.dir)?
            .into_iter()
            .filter(|(id, _)| !listed.contains(id.as_str()))
            .map(|(_, path)| path)
            .collect();
        if unlisted.is_empty() {
            continue;
        }
        unlisted.sort();
        let named: Vec<String> = unlisted
            .iter()
            .take(5)
            .map(|p| p.display().to_string())
            .collect();
        bail!(
            "{}: {} saved document(s) that shard {}'s manifest does not list ({}{}), so the merge \
             would drop them; run shard {}'s ingest again with --resume (it lists them again), \
             then merge",
            docs.display(),
            unlisted.len(),
            s.spec,
            named.join(", "),
            if unlisted.len() > named.len() {
                ", ..."
            } else {
                ""
            },
            s.spec
        );
    }
    Ok(())
}

/// Every written document of a shard with an offline graph has its part,
/// whole: else the merge would drop it from the graph and say nothing.
/// The error names the shard's own file and the way to rebuild it.
fn check_parts(shards: &[Shard]) -> anyhow::Result<()> {
    for s in shards {
        if !s.dir.join("graph").join(PARTS_DIR).is_dir() {
            continue;
        }
        for d in &s.manifest.documents {
            let Some(id) = d.doc_id.as_deref().filter(|_| d.state == DocState::Written) else {
                continue;
            };
            let Some(part) = parts::existing_part(&s.dir.join("graph"), id) else {
                bail!(
                    "{}: missing, so {} would be absent from the merged graph; run shard {}'s \
                     ingest again with --resume (it rebuilds the part), then merge",
                    parts::part_path(&s.dir.join("graph"), id).display(),
                    d.path.display(),
                    s.spec
                );
            };
            parts::check_part(&part)?;
        }
    }
    Ok(())
}

/// The merged batch written into `out` (checked new or empty).
fn write_merged(shards: &[Shard], out: &Path, history: &Path) -> anyhow::Result<BatchSummary> {
    let docs_dir = out.join("docs");
    std::fs::create_dir_all(&docs_dir)
        .with_context(|| format!("{}: cannot create", docs_dir.display()))?;

    // Document order of an unsharded run: by path. Each document is then
    // copied and reported one at a time (nothing of it kept in memory).
    let mut entries: Vec<(usize, DocEntry)> = shards
        .iter()
        .enumerate()
        .flat_map(|(i, s)| s.manifest.documents.iter().map(move |d| (i, d.clone())))
        .collect();
    entries.sort_by(|a, b| a.1.path.cmp(&b.1.path));

    let batch_id = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "merged".into());
    let first = &shards[0];
    let mut manifest = Manifest::new(
        &batch_id,
        &first.manifest.index_files,
        first.manifest.identity.clone().unwrap_or_default(),
        &[],
    );
    manifest.documents = entries.iter().map(|(_, d)| d.clone()).collect();
    manifest.finished = true;
    manifest.save(out)?;
    drop(manifest);

    let m = &first.meta;
    let report = BatchReport {
        batch_id,
        index_version: m.index_version.clone(),
        indices: indices_of(shards),
        documents: Vec::new(),
        input_per_million: m.input_per_million,
        output_per_million: m.output_per_million,
        extractor: m.extractor.clone(),
        sink: m.sink.clone(),
        index_entries: m.index_entries.clone(),
    };
    let mut reports = ReportStream::create(out, &report, MAX_SHEET_ROWS)?;
    let mut register = crate::register::RegisterWriter::create(out)?;
    let mut has_parts = false;
    for (i, d) in &entries {
        let s = &shards[*i];
        if d.state == DocState::Duplicate {
            continue;
        }
        let saved = d
            .doc_id
            .as_deref()
            .and_then(|id| load_saved_at(&s.dir, id).map(|saved| (id, saved)));
        let outcome = match saved {
            Some((id, mut saved)) => {
                if let Some(row) = saved.take_register() {
                    register.add(&row)?;
                }
                if let Some(file) = crate::saved_docs::existing(&s.dir, id) {
                    let name = file.file_name().context("a saved document has a name")?;
                    copy(&file, &docs_dir.join(name))?;
                }
                if let Some(part) = parts::existing_part(&s.dir.join("graph"), id) {
                    let parts_dir = out.join("graph").join(PARTS_DIR);
                    std::fs::create_dir_all(&parts_dir)
                        .with_context(|| format!("{}: cannot create", parts_dir.display()))?;
                    let file_name = part.file_name().context("a part file has a name")?;
                    copy(&part, &parts_dir.join(file_name))?;
                    has_parts = true;
                }
                outcome_from(&d.path, saved, d.error.clone())
            }
            None => DocumentOutcome {
                doc_id: d.doc_id.clone().unwrap_or_default(),
                doc_name: d
                    .path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                path: d.path.clone(),
                plan: None,
                extractions: Vec::new(),
                rules_on_skipped: Vec::new(),
                title_mapping: Default::default(),
                planned: Default::default(),
                error: Some(
                    d.error
                        .clone()
                        .unwrap_or_else(|| format!("not finished in shard {}", s.spec)),
                ),
            },
        };
        reports.add(&report, &outcome);
    }

    if has_parts {
        // The import files when a shard had them, derived from the merged
        // parts (a shard's own would hold only its documents).
        let import_files = shards
            .iter()
            .any(|s| s.dir.join("graph").join(NODES_CSV).is_file());
        FileSink::create(&out.join("graph"), import_files)?.finish_files()?;
    }
    // Each output on its own: one that fails does not cost the others.
    let mut failures = Vec::new();
    if let Err(e) = save_report_meta(out, &report) {
        failures.push(e);
    }
    let (summary, report_failures) = reports.finish(&report);
    failures.extend(report_failures);
    if let Err(e) = register.finish() {
        failures.push(e);
    }
    if let Err(e) = record_history(history, &summary) {
        failures.push(e);
    }
    crate::report::stream::joined(failures)?;
    Ok(summary)
}

/// Every index the shards were run with, each once, in the first shard's
/// order (the identity check makes them one set; a shard of an older
/// version records none).
fn indices_of(shards: &[Shard]) -> Vec<IndexUsed> {
    let mut out: Vec<IndexUsed> = Vec::new();
    for i in shards.iter().flat_map(|s| &s.meta.indices) {
        if !out.contains(i) {
            out.push(i.clone());
        }
    }
    out
}

fn copy(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::copy(from, to)
        .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
    Ok(())
}
