//! Sinks: where a document's graph is written. Neo4j and the offline
//! import-file writer sit behind one trait, [`GraphSink`], so the pipeline
//! does not care which one it has.
//!
//! [`open_sink`] is called before any LLM spend: for Neo4j it connects, runs a
//! trivial query and creates the constraints, so an unreachable server stops
//! the run before money is spent.

pub mod agreement;
pub mod files;
pub mod import_files;
pub mod neo4j;
pub mod parts;

pub use files::FileSink;
pub use neo4j::Neo4jSink;

use crate::graph::DocGraph;
use futures::future::BoxFuture;
use std::path::PathBuf;

/// Default rows per `UNWIND` batch.
pub const DEFAULT_BATCH_SIZE: usize = 5_000;

pub use crate::secret::Secret;

/// Which sink to open.
#[derive(Debug, Clone, PartialEq)]
pub enum SinkConfig {
    /// Offline: the graph's parts in `dir`, and the neo4j-admin import
    /// files derived from them at the end when `import_files`.
    Files { dir: PathBuf, import_files: bool },
    /// A Neo4j server over Bolt.
    Neo4j {
        uri: String,
        user: String,
        password: Secret,
        /// `None`: the server's default database.
        database: Option<String>,
        /// Rows per `UNWIND` statement.
        batch_size: usize,
    },
}

/// What one `write_document` wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteStats {
    pub sections: usize,
    pub entities: usize,
    pub relations: usize,
    pub mentions: usize,
    /// Statements (Neo4j) or records (files) issued.
    pub statements: usize,
}

/// A destination for document graphs.
pub trait GraphSink: Send {
    /// One line for the user: where the graph goes.
    fn describe(&self) -> String;

    /// Writes one document, replacing whatever an earlier run wrote for the
    /// same `doc_id`. Neo4j: one transaction; a failure leaves the database
    /// as it was for this document.
    fn write_document<'a>(
        &'a mut self,
        graph: &'a DocGraph,
    ) -> BoxFuture<'a, anyhow::Result<WriteStats>>;

    /// Flushes and closes. Call once, after the last document.
    fn finish(&mut self) -> BoxFuture<'_, anyhow::Result<()>> {
        Box::pin(async { Ok(()) })
    }
}

/// Opens the configured sink. Neo4j: connects, checks the server answers and
/// creates the uniqueness constraints, failing with a message that names the
/// URI (never the password). Files: creates the directory and the files.
pub async fn open_sink(cfg: &SinkConfig) -> anyhow::Result<Box<dyn GraphSink>> {
    Ok(match cfg {
        SinkConfig::Files { dir, import_files } => Box::new(FileSink::create(dir, *import_files)?),
        SinkConfig::Neo4j {
            uri,
            user,
            password,
            database,
            batch_size,
        } => Box::new(
            Neo4jSink::connect(uri, user, password, database.as_deref(), *batch_size).await?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_never_printed() {
        let cfg = SinkConfig::Neo4j {
            uri: "bolt://h:7687".into(),
            user: "neo4j".into(),
            password: Secret::new("hunter2"),
            database: None,
            batch_size: 10,
        };
        let shown = format!("{cfg:?} {}", Secret::new("hunter2"));
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("bolt://h:7687"));
    }
}
