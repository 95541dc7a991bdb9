//! What `ask` checks about the batch folder before and after it searches:
//! that the folder is a batch (a missing one is not sent to `rebuild-search`),
//! that its ingest finished (a killed or running ingest answers from part of
//! the batch, or from nothing, and must say so), which document `--doc`
//! names (two `contract.txt` in two subfolders are an ambiguity, not a
//! silent pick), and how documents are named in the answer (by their path
//! below the folder the same-named files share, when a name is not unique).

use super::Answer;
use crate::search::{SearchIndex, SectionPointer};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Why the batch's answers may be partial: its manifest says its ingest
/// has not finished (killed, or still running). `None` when it finished or
/// has no manifest (merged or older batches).
pub fn incomplete(batch: &Path) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Finished {
        #[serde(default)]
        finished: bool,
    }
    let path = batch.join(crate::pipeline::manifest::MANIFEST_FILE);
    let text = std::fs::read_to_string(&path).ok()?;
    let done = serde_json::from_str::<Finished>(&text)
        .map(|m| m.finished)
        .unwrap_or(false);
    (!done).then(|| {
        format!(
            "{}: the batch is incomplete: its ingest was stopped or is still running, so the answer covers only the documents it had indexed (maybe none); finish it with the same `kgroute ingest ... --out {} --resume`, or wait for the run to end",
            batch.display(),
            batch.display()
        )
    })
}

/// The doc id `--doc` names: a doc id, a file name, or a path. A name
/// that two documents share is an error listing them by their paths.
pub fn resolve_doc(index: &SearchIndex, batch: &Path, doc: &str) -> anyhow::Result<String> {
    let name = Path::new(doc)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| doc.to_string());
    let mut found = index.documents(doc)?;
    if found.is_empty() && name != doc {
        found = index.documents(&name)?;
    }
    if found.len() > 1 {
        // A path given: the documents whose path ends with it.
        let narrowed: Vec<SectionPointer> = found
            .iter()
            .filter(|p| Path::new(&p.path).ends_with(doc))
            .cloned()
            .collect();
        if narrowed.len() == 1 {
            found = narrowed;
        }
    }
    match found.len() {
        0 => anyhow::bail!(
            "{doc}: no such document in {}; give its file name or doc id as ingested",
            batch.display()
        ),
        1 => Ok(found.remove(0).doc_id),
        _ => {
            let names = relative_names(&found);
            let list: Vec<String> = found
                .iter()
                .map(|p| format!("  {} (doc id {})", names[&p.doc_id], p.doc_id))
                .collect();
            anyhow::bail!(
                "--doc {doc}: {} documents of the batch have that name; give one's path or doc id:\n{}",
                found.len(),
                list.join("\n")
            )
        }
    }
}

/// Names each document of the answer whose file name another document of
/// the batch shares by its path below the folder they share.
pub fn name_by_relative_path(index: &SearchIndex, answer: &mut Answer) -> anyhow::Result<()> {
    let mut names: HashMap<String, String> = HashMap::new();
    let mut asked: Vec<String> = Vec::new();
    let doc_names = answer
        .sections
        .iter()
        .map(|s| s.pointer.doc_name.clone())
        .chain(answer.problems.iter().map(|p| p.doc_name.clone()));
    for name in doc_names {
        if asked.contains(&name) {
            continue;
        }
        asked.push(name.clone());
        let same = index.documents(&name)?;
        if same.len() > 1 {
            names.extend(relative_names(&same));
        }
    }
    for s in &mut answer.sections {
        if let Some(n) = names.get(&s.pointer.doc_id) {
            s.pointer.doc_name = n.clone();
        }
    }
    for p in &mut answer.problems {
        if let Some(n) = names.get(&p.doc_id) {
            p.doc_name = n.clone();
        }
    }
    Ok(())
}

/// Doc id -> the document's path relative to the deepest folder all of
/// `docs` are in (`a/contract.txt`, `b/contract.txt`).
pub fn relative_names(docs: &[SectionPointer]) -> HashMap<String, String> {
    let paths: Vec<PathBuf> = docs.iter().map(|p| PathBuf::from(&p.path)).collect();
    let mut root: Option<PathBuf> = paths
        .first()
        .and_then(|p| p.parent())
        .map(Path::to_path_buf);
    while let Some(r) = &root {
        if paths.iter().all(|p| p.starts_with(r)) {
            break;
        }
        root = r.parent().map(Path::to_path_buf);
    }
    docs.iter()
        .zip(&paths)
        .map(|(d, p)| {
            let rel = root
                .as_deref()
                .and_then(|r| p.strip_prefix(r).ok())
                .unwrap_or(p);
            (d.doc_id.clone(), rel.display().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: &str, path: &str) -> SectionPointer {
        SectionPointer {
            doc_id: id.into(),
            doc_name: "contract.txt".into(),
            doc_title: None,
            path: path.into(),
            node_id: "n1".into(),
            title: String::new(),
            breadcrumb: String::new(),
            start_byte: 0,
            end_byte: 1,
            start_line: 1,
            end_line: 1,
            sha256: None,
        }
    }

    #[test]
    fn same_named_files_are_named_below_the_folder_they_share() {
        let names = relative_names(&[
            doc("a", "/in/x/2019/contract.txt"),
            doc("b", "/in/x/2020/sub/contract.txt"),
        ]);
        assert_eq!(names["a"], "2019/contract.txt");
        assert_eq!(names["b"], "2020/sub/contract.txt");
    }
}
