//! README.md is the user's document: every command it shows must run as
//! shown. Each `kgroute ...` line of its `sh` blocks is parsed by kgroute's
//! own command line (so a renamed flag or subcommand fails here), every
//! `scripts/...` it names exists and is executable, the test command is the
//! one `.ci/run` runs, and the five-minute tour is run on the fixtures in a
//! temp folder, its shown output compared with what `ask` prints today.

use super::util::{self, kgroute, read, repo};
use clap::Parser;
use kgroute::cli::Cli;

/// The `sh` fenced blocks of README.md, each line joined with its `\`
/// continuations.
fn sh_lines() -> Vec<String> {
    let text = read(&repo().join("README.md"));
    let mut lines = Vec::new();
    let mut in_sh = false;
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") {
            in_sh = trimmed == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        if let Some(head) = line.strip_suffix('\\') {
            pending.push_str(head);
            pending.push(' ');
            continue;
        }
        pending.push_str(line);
        lines.push(std::mem::take(&mut pending).trim().to_string());
    }
    lines
}

/// Splits a shell line into words: quotes kept together, `#` comments,
/// `&&` / `|` / `$(...)` left to the caller (the first command is taken).
fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut has = false;
    for c in line.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                has = true;
            }
            None if c == '#' && cur.is_empty() => break,
            None if c.is_whitespace() => {
                if has || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                    has = false;
                }
            }
            None => cur.push(c),
        }
    }
    if has || !cur.is_empty() {
        out.push(cur);
    }
    // One command: stop at a pipe or a chain.
    let end = out
        .iter()
        .position(|w| ["|", "&&", "||", ";", ">", "2>&1"].contains(&w.as_str()))
        .unwrap_or(out.len());
    out.truncate(end);
    out
}

/// The `kgroute` invocations README shows, as argv (`cargo run --release
/// --` counts as `kgroute`).
fn kgroute_commands() -> Vec<Vec<String>> {
    sh_lines()
        .iter()
        .map(|l| words(l))
        .filter_map(|w| {
            if w.first().map(String::as_str) == Some("kgroute") {
                Some(w)
            } else if w.starts_with(&["cargo".into(), "run".into()]) {
                let dash = w.iter().position(|x| x == "--")?;
                let mut argv = vec!["kgroute".to_string()];
                argv.extend(w[dash + 1..].iter().cloned());
                Some(argv)
            } else {
                None
            }
        })
        .collect()
}

#[test]
fn every_kgroute_command_in_readme_parses() {
    let commands = kgroute_commands();
    assert!(
        commands.len() >= 8,
        "README shows too few kgroute commands to be a guide: {commands:?}"
    );
    for argv in &commands {
        if let Err(e) = Cli::try_parse_from(argv) {
            // `--help` and `--version` are clap's "errors" that succeed.
            if !matches!(
                e.kind(),
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion
            ) {
                panic!("README command does not parse: {}\n{e}", argv.join(" "));
            }
        }
    }
}

#[test]
fn every_script_readme_names_exists_and_is_executable() {
    use std::os::unix::fs::PermissionsExt;
    let text = read(&repo().join("README.md"));
    let re = regex::Regex::new(r"scripts/[a-z0-9][a-z0-9_-]*").unwrap();
    let mut seen = 0;
    for m in re.find_iter(&text) {
        let path = repo().join(m.as_str());
        let meta = std::fs::metadata(&path)
            .unwrap_or_else(|e| panic!("README names {} ({e})", m.as_str()));
        if meta.is_file() {
            assert!(
                meta.permissions().mode() & 0o111 != 0,
                "{} is not executable",
                m.as_str()
            );
            seen += 1;
        }
    }
    assert!(seen >= 3, "README should name the scripts a user runs");
}

/// README's second opening command is the test command, and `.ci/run` runs
/// exactly it.
#[test]
fn readme_test_command_is_what_ci_runs() {
    let lines = sh_lines();
    let test_line = lines.get(1).expect("README opens with two commands");
    let command = test_line.split('#').next().unwrap().trim();
    assert!(
        command.ends_with("cargo test"),
        "README's second command should run the tests: {command}"
    );
    let ci = read(&repo().join(".ci/run"));
    assert!(
        ci.lines().any(|l| l.trim_start().starts_with(command)),
        ".ci/run does not run README's test command `{command}`"
    );
}

/// The tour as README gives it, on the fixtures, in a temp folder: each
/// step exits 0, and the `ask` output README shows is what `ask` prints.
#[test]
fn readme_tour_runs_as_shown() {
    let tmp = util::tempdir();
    let batch = tmp.path().join("tour");
    let history = tmp.path().join("history.csv");
    let readme = read(&repo().join("README.md"));
    let tour: Vec<Vec<String>> = kgroute_commands()
        .into_iter()
        .filter(|w| w.iter().any(|x| x.contains("reports/tour")))
        .collect();
    assert!(
        tour.iter().any(|w| w[1] == "ingest") && tour.iter().any(|w| w[1] == "ask"),
        "the tour ingests and asks: {tour:?}"
    );
    let counter = regex::Regex::new(r"^\[\d+/(\d+)\] ").unwrap();
    // The document line README quotes from the ingest.
    let quoted_line = regex::Regex::new(r"`(\[\d+/\d+\][^`]*)`")
        .unwrap()
        .captures(&readme.replace("\n   ", " "))
        .map(|c| c[1].to_string())
        .expect("README quotes an ingest line");
    for argv in &tour {
        // `review --write` would edit this checkout's indices.
        if argv.iter().any(|x| x == "--write") {
            continue;
        }
        let args: Vec<String> = argv[1..]
            .iter()
            .map(|a| a.replace("reports/tour", &batch.to_string_lossy()))
            .collect();
        let mut cmd = kgroute();
        cmd.current_dir(repo())
            .args(&args)
            .env_remove("KGROUTE_LLM_URL")
            .env_remove("KGROUTE_MODEL")
            .env_remove("NEO4J_URI");
        if args[0] == "ingest" {
            cmd.arg("--history").arg(&history);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "README tour step failed: kgroute {}\n{}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
        if args[0] == "ingest" {
            // The document line README quotes is one the run prints; its
            // `[i/n]` place depends on which document finishes first, so
            // only the count of documents is compared with it.
            let quoted = quoted_line.clone();
            let printed = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let bare = |l: &str| -> Option<(String, String)> {
                let c = counter.captures(l)?;
                Some((c[1].to_string(), l[c[0].len()..].to_string()))
            };
            let want = bare(&quoted).expect("README's line has its [i/n]");
            assert!(
                printed.lines().any(|l| bare(l).as_ref() == Some(&want)),
                "README quotes `{quoted}` but ingest prints:\n{printed}"
            );
        }
        if args[0] == "ask" {
            let stdout = String::from_utf8_lossy(&out.stdout);
            let shown = readme
                .lines()
                .skip_while(|l| *l != "```text")
                .nth(1)
                .expect("README shows ask's output in a text block");
            // The score may move with the ranking; the section may not.
            let shown_head = shown.split(" (score").next().unwrap();
            assert!(
                stdout.starts_with(shown_head),
                "README shows `{shown}` but ask prints:\n{stdout}"
            );
        }
    }
    facts_readme_shows_are_in_the_graph(&readme, &super::util::graph_jsonl(&batch));
    help_names_what_ingest_reads_and_writes(&batch);
}

/// `ingest --help` and `plan --help` name every file ending a folder is
/// read for, and `ingest --help` every file and folder the batch it
/// describes holds: the help cannot fall behind what the binary does.
fn help_names_what_ingest_reads_and_writes(batch: &std::path::Path) {
    let help = |cmd: &str| {
        let out = kgroute().args([cmd, "--help"]).output().unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (ingest, plan) = (help("ingest"), help("plan"));
    for ext in kgroute::pipeline::discover::DOCUMENT_EXTENSIONS {
        for (cmd, text) in [("ingest", &ingest), ("plan", &plan)] {
            assert!(
                text.contains(&format!(".{ext},")) || text.contains(&format!(".{ext};")),
                "`{cmd} --help` does not name .{ext}"
            );
        }
    }
    let flat = ingest.split_whitespace().collect::<Vec<_>>().join(" ");
    for e in std::fs::read_dir(batch).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let shown = if e.path().is_dir() {
            format!("{name}/")
        } else {
            name
        };
        assert!(
            flat.contains(&shown),
            "`ingest --help` does not name {shown}:\n{ingest}"
        );
    }
}

/// Every `source -[TYPE]-> target` line README shows (outside `ask`'s
/// output) is a relation of the tour's graph; a name ending in `…` is a
/// prefix of the node's name.
fn facts_readme_shows_are_in_the_graph(readme: &str, graph: &str) {
    let line = regex::Regex::new(r"^(\S.*?) -\[([A-Z_]+)\]-> (.+)$").unwrap();
    let shown: Vec<(String, String, String)> = readme
        .lines()
        .filter_map(|l| line.captures(l))
        .map(|c| (c[1].to_string(), c[2].to_string(), c[3].to_string()))
        .filter(|(s, _, _)| !s.starts_with("graph:"))
        .collect();
    assert!(
        shown.len() >= 8,
        "README shows a contract's facts: {shown:?}"
    );
    let mut names = std::collections::HashMap::new();
    let mut relations = Vec::new();
    for l in graph.lines() {
        let v: serde_json::Value = serde_json::from_str(l).unwrap();
        match v["kind"].as_str() {
            Some("entity") => {
                let e = &v["entity"];
                names.insert(
                    e["key"].as_str().unwrap().to_string(),
                    e["name"].as_str().unwrap().to_string(),
                );
            }
            Some("relation") => relations.push(v),
            _ => {}
        }
    }
    let fits = |shown: &str, name: &str| match shown.strip_suffix('…') {
        Some(prefix) => name.starts_with(prefix),
        None => shown == name,
    };
    for (source, ty, target) in &shown {
        let found = relations.iter().any(|r| {
            let name = |k: &str| {
                names
                    .get(r[k].as_str().unwrap())
                    .cloned()
                    .unwrap_or_default()
            };
            r["type"] == ty.as_str()
                && fits(source, &name("source"))
                && fits(target, &name("target"))
        });
        assert!(
            found,
            "README shows `{source} -[{ty}]-> {target}`, which the tour's graph does not hold"
        );
    }
}
