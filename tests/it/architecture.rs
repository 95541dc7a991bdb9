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

/// The floor table of ARCHITECTURE.md: each room (`src/tree/`,
/// `src/lock.rs`) with its floor, from the rows `| N | `room`, ... | ... |`.
fn floors(text: &str) -> std::collections::BTreeMap<String, u32> {
    let section = text
        .split("## The rooms, floor by floor")
        .nth(1)
        .expect("ARCHITECTURE.md has `## The rooms, floor by floor`");
    let section = section.split("\n## ").next().unwrap();
    let mut out = std::collections::BTreeMap::new();
    for line in section.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let Some(floor) = cells.get(1).and_then(|c| c.parse::<u32>().ok()) else {
            continue;
        };
        for room in cells[2].split('`').skip(1).step_by(2) {
            out.insert(room.to_string(), floor);
        }
    }
    out
}

/// Arrows that may run up or across, as ARCHITECTURE.md names them: lines
/// `- exception: `src/a/` -> `src/b/`: why`.
fn exceptions(text: &str) -> BTreeSet<(String, String)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix("- exception: "))
        .filter_map(|l| {
            let rooms: Vec<&str> = l.split('`').skip(1).step_by(2).collect();
            Some((rooms.first()?.to_string(), rooms.get(1)?.to_string()))
        })
        .collect()
}

/// The room of a path under `src/`: its top folder, or the file itself.
fn room_of(rel: &std::path::Path) -> String {
    let mut parts = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().to_string());
    let first = parts.next().unwrap();
    if parts.next().is_some() {
        format!("src/{first}/")
    } else {
        format!("src/{first}")
    }
}

/// Every `crate::room` a non-test line of `src/` names, as (importing
/// room, imported room, file:line). Comments, `#[cfg(test)]` modules and
/// the files they declare are not the code's arrows.
fn imports() -> Vec<(String, String, String)> {
    let src = repo().join("src");
    let word = regex::Regex::new(r"\bcrate::([a-z_][a-z0-9_]*)").unwrap();
    let mut files = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    // Files declared as `#[cfg(test)] mod name;` are tests.
    let mut test_files = BTreeSet::new();
    for f in &files {
        let text = read(f);
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if l.trim() != "#[cfg(test)]" {
                continue;
            }
            let next = lines.get(i + 1).map_or("", |n| n.trim());
            if let Some(name) = next.strip_prefix("mod ").and_then(|n| n.strip_suffix(';')) {
                let dir = if f
                    .file_name()
                    .is_some_and(|n| n == "mod.rs" || n == "lib.rs")
                {
                    f.parent().unwrap().to_path_buf()
                } else {
                    f.with_extension("")
                };
                test_files.insert(dir.join(format!("{name}.rs")));
                test_files.insert(f.parent().unwrap().join(format!("{name}.rs")));
                test_files.insert(dir.join(name).join("mod.rs"));
            }
        }
    }
    let mut out = Vec::new();
    for f in files.iter().filter(|f| !test_files.contains(*f)) {
        let rel = f.strip_prefix(&src).unwrap();
        let from = room_of(rel);
        let text = read(f);
        let mut depth_of_test: Option<i64> = None;
        let mut depth: i64 = 0;
        let mut after_cfg_test = false;
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            let opens = code.matches('{').count() as i64;
            let closes = code.matches('}').count() as i64;
            if after_cfg_test && line.trim_start().starts_with("mod ") && opens > 0 {
                depth_of_test = Some(depth);
            }
            after_cfg_test = line.trim() == "#[cfg(test)]";
            depth += opens - closes;
            if let Some(d) = depth_of_test {
                if depth <= d {
                    depth_of_test = None;
                }
                continue;
            }
            for c in word.captures_iter(code) {
                let name = &c[1];
                let to = if src.join(name).is_dir() {
                    format!("src/{name}/")
                } else if src.join(format!("{name}.rs")).is_file() {
                    format!("src/{name}.rs")
                } else {
                    continue;
                };
                if to != from {
                    out.push((from.clone(), to, format!("src/{}:{}", rel.display(), i + 1)));
                }
            }
        }
    }
    out
}

/// The floor rule holds in the code: a room imports only rooms on lower
/// floors, but for the arrows ARCHITECTURE.md names as exceptions. A new
/// arrow running up (or across a floor) fails here, naming its file and
/// line.
#[test]
fn every_import_runs_down_the_floors_the_map_draws() {
    let text = architecture();
    let floors = floors(&text);
    let allowed = exceptions(&text);
    assert!(floors.len() >= 20, "floor table: {floors:?}");
    for room in rooms() {
        if room == "src/lib.rs" {
            continue;
        }
        assert!(
            floors.contains_key(&room),
            "{room} has no floor in ARCHITECTURE.md"
        );
    }
    let arrows = imports();
    assert!(arrows.len() > 100, "only {} imports read", arrows.len());
    let mut wrong = Vec::new();
    let mut used = BTreeSet::new();
    for (from, to, at) in &arrows {
        let (Some(f), Some(t)) = (floors.get(from), floors.get(to)) else {
            continue;
        };
        if f > t {
            continue;
        }
        if allowed.contains(&(from.clone(), to.clone())) {
            used.insert((from.clone(), to.clone()));
            continue;
        }
        wrong.push(format!("{at}: {from} (floor {f}) imports {to} (floor {t})"));
    }
    assert!(
        wrong.is_empty(),
        "imports that do not run down the floors (move the code, or name the arrow in ARCHITECTURE.md as `- exception: `from` -> `to`: why`):\n{}",
        wrong.join("\n")
    );
    let stale: Vec<_> = allowed.difference(&used).collect();
    assert!(
        stale.is_empty(),
        "exceptions the code no longer has: {stale:?}"
    );
}
