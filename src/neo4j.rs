//! A connection to Neo4j, shared by the side that writes the graph (the
//! sink) and the side that reads it (`ask`'s grounding): settings, a probe
//! answered within a timeout, and errors that name the server without the
//! credentials its URI may carry and never hold the password. Neither side
//! imports the other's work: the schema is the writer's, the queries each
//! side's own.

use crate::secret::Secret;
use anyhow::{anyhow, bail};
use neo4rs::{query, ConfigBuilder, Graph};
use std::time::Duration;

/// How long connecting and the first query may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// An open connection, and how to say what went wrong on it.
pub struct Connection {
    pub graph: Graph,
    /// The URI as messages show it (no user-info, no query values).
    pub uri: String,
    raw_uri: String,
    password: Secret,
}

impl Connection {
    /// Connects with up to `max_connections` and runs `RETURN 1`. Errors
    /// name `uri` (redacted) and never contain the password.
    pub async fn open(
        uri: &str,
        user: &str,
        password: &Secret,
        database: Option<&str>,
        max_connections: usize,
    ) -> anyhow::Result<Self> {
        let conn_uri = redact_uri(uri);
        let shown = conn_uri.as_str();
        let mut cfg = ConfigBuilder::default()
            .uri(uri)
            .user(user)
            .password(password.expose())
            .connection_timeout(CONNECT_TIMEOUT)
            .max_connections(max_connections);
        if let Some(db) = database {
            cfg = cfg.db(db);
        }
        let scrubbing = |e: &dyn std::fmt::Display| scrub(e, uri, shown, password);
        let cfg = cfg.build().map_err(|e| {
            anyhow!(
                "Neo4j at {shown}: invalid connection settings: {}",
                scrubbing(&e)
            )
        })?;
        let graph = Graph::connect(cfg)
            .map_err(|e| anyhow!("Neo4j at {shown}: cannot connect: {}", scrubbing(&e)))?;
        match tokio::time::timeout(CONNECT_TIMEOUT, probe(&graph)).await {
            Err(_) => bail!(
                "Neo4j at {shown} did not answer within {} s (for a local test server: scripts/neo4j start)",
                CONNECT_TIMEOUT.as_secs()
            ),
            Ok(Err(e)) => bail!(
                "cannot reach Neo4j at {shown}: {} (check NEO4J_URI / NEO4J_USERNAME / NEO4J_PASSWORD; for a local test server: scripts/neo4j start)",
                scrubbing(&e)
            ),
            Ok(Ok(())) => {}
        }
        Ok(Self {
            graph,
            uri: conn_uri.clone(),
            raw_uri: uri.to_string(),
            password: password.clone(),
        })
    }

    /// A driver error's text without the URI's credentials or the
    /// password.
    pub fn scrub(&self, e: &dyn std::fmt::Display) -> String {
        scrub(e, &self.raw_uri, &self.uri, &self.password)
    }
}

fn scrub(e: &dyn std::fmt::Display, raw_uri: &str, shown: &str, password: &Secret) -> String {
    // The driver may quote the URI it was given.
    let s = crate::secret::redact_urls(&e.to_string().replace(raw_uri, shown));
    if password.expose().is_empty() {
        s
    } else {
        s.replace(password.expose(), "***")
    }
}

/// A transaction that is not retried, so a refused connection fails at
/// once instead of backing off.
async fn probe(graph: &Graph) -> Result<(), neo4rs::Error> {
    let mut txn = graph.start_txn().await?;
    txn.run(query("RETURN 1")).await?;
    txn.commit().await
}

/// `bolt://user:pw@host:7687` -> `bolt://host:7687`: a URI as messages may
/// show it.
pub fn redact_uri(uri: &str) -> String {
    let bare = match (uri.find("://"), uri.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}{}", &uri[..s + 3], &uri[at + 1..]),
        (None, Some(at)) => uri[at + 1..].to_string(),
        _ => uri.to_string(),
    };
    // A `?password=` (or any other query value) is no more shown than the
    // user-info.
    crate::secret::redact_url(&bare)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_lose_their_credentials() {
        assert_eq!(redact_uri("bolt://neo4j:pw@db:7687"), "bolt://db:7687");
        assert_eq!(redact_uri("neo4j:pw@db:7687"), "db:7687");
        assert_eq!(redact_uri("bolt://127.0.0.1:7687"), "bolt://127.0.0.1:7687");
        assert_eq!(
            redact_uri("bolt://db:7687?password=hunter2"),
            "bolt://db:7687?password=***"
        );
    }
}
