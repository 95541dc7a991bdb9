//! `scripts/neo4j` gives each checkout its own server: two checkouts on one
//! machine get two ports and two state folders, so one's tests never talk
//! to the other's server and one's `stop` never kills the other's.

use super::util::{self, repo};
use std::path::Path;
use std::process::Command;

/// A copy of `scripts/neo4j` in a checkout-shaped folder `root/scripts/`.
fn checkout_copy(root: &Path) {
    std::fs::create_dir_all(root.join("scripts")).unwrap();
    std::fs::copy(
        repo().join("scripts").join("neo4j"),
        root.join("scripts").join("neo4j"),
    )
    .unwrap();
}

fn script(root: &Path, arg: &str) -> std::process::Output {
    Command::new("bash")
        .arg(root.join("scripts").join("neo4j"))
        .arg(arg)
        .env_remove("NEO4J_PORT")
        .env_remove("KGROUTE_NEO4J_STATE")
        .output()
        .unwrap()
}

fn uri(root: &Path) -> String {
    let out = script(root, "uri");
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn two_checkouts_get_two_servers() {
    let tmp = util::tempdir();
    let (a, b) = (tmp.path().join("a"), tmp.path().join("b"));
    checkout_copy(&a);
    checkout_copy(&b);
    let (ua, ub) = (uri(&a), uri(&b));
    assert!(ua.starts_with("bolt://127.0.0.1:"), "{ua}");
    assert_ne!(ua, ub, "two checkouts share one Neo4j port");
    // Stable for a checkout: the tests and `stop` find the same server.
    assert_eq!(uri(&a), ua);

    // The port kept in .neo4j/port wins, and nothing of `a` is seen by `b`:
    // `a`'s recorded server is not `b`'s.
    std::fs::create_dir_all(a.join(".neo4j")).unwrap();
    std::fs::write(a.join(".neo4j").join("port"), "23456\n").unwrap();
    assert_eq!(uri(&a), "bolt://127.0.0.1:23456");
    assert_ne!(uri(&b), "bolt://127.0.0.1:23456");
    let status = script(&b, "status");
    assert_eq!(status.status.code(), Some(3), "{status:?}");
}
