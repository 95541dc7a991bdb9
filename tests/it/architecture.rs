//! ARCHITECTURE.md is the map a new engineer reads first: it must name every
//! room of `src/` and every subcommand, and stay short enough to be read.

use std::collections::BTreeSet;

use clap::CommandFactory;

use super::util::{read, repo};

fn architecture() -> String {
    read(&repo().join("ARCHITECTURE.md"))
}

/// Every folder and top-level file of `src/`, as ARCHITECTURE.md writes them
/// (`src/tree/`, `src/lock.rs`).
fn rooms() -> BTreeSet<String> {
    let src = repo().join("src");
    std::fs::read_dir(&src)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            if p.is_dir() {
                Some(format!("src/{name}/"))
            } else if name.ends_with(".rs") {
                Some(format!("src/{name}"))
            } else {
                None
            }
        })
        .collect()
}

/// Every subcommand path (`ingest`, `index check`).
fn subcommands() -> Vec<String> {
    fn walk(cmd: &clap::Command, prefix: &str, out: &mut Vec<String>) {
        for sub in cmd.get_subcommands() {
            let name = format!("{prefix}{}", sub.get_name());
            if sub.has_subcommands() {
                walk(sub, &format!("{name} "), out);
            } else {
                out.push(name);
            }
        }
    }
    let mut out = Vec::new();
    walk(&kgroute::cli::Cli::command(), "", &mut out);
    out.retain(|s| s != "help" && !s.ends_with(" help"));
    out
}

#[test]
fn architecture_names_every_room_of_src() {
    let text = architecture();
    let rooms = rooms();
    assert!(
        rooms.contains("src/tree/") && rooms.contains("src/main.rs"),
        "{rooms:?}"
    );
    let missing: Vec<_> = rooms
        .iter()
        .filter(|r| !text.contains(&format!("`{r}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name {missing:?}"
    );
}

#[test]
fn architecture_names_every_subcommand() {
    let text = architecture();
    let subs = subcommands();
    assert!(subs.iter().any(|s| s == "index check"), "{subs:?}");
    let missing: Vec<_> = subs
        .iter()
        .filter(|s| !text.contains(&format!("| `{s}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md's subcommand table lacks {missing:?}"
    );
}

#[test]
fn architecture_stays_a_map_not_a_manual() {
    let lines = architecture().lines().count();
    assert!(
        lines < 200,
        "ARCHITECTURE.md is {lines} lines; move detail to docs/internals.md"
    );
}
