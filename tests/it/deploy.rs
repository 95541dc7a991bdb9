//! The Kubernetes manifest in `deploy/kubernetes/` is checked against the
//! Job API's rules that matter for kgroute (no cluster and no schema download
//! here) and against the real command line: its arguments must parse with
//! kgroute's own parser, so the manifest cannot drift from the CLI.

use super::util::repo;
use clap::Parser;
use serde_yaml_ng::Value;
use std::collections::BTreeSet;

fn load(name: &str) -> Value {
    let path = repo().join("deploy/kubernetes").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_yaml_ng::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn get<'a>(v: &'a Value, path: &[&str]) -> &'a Value {
    path.iter().fold(v, |cur, key| {
        cur.get(*key)
            .unwrap_or_else(|| panic!("manifest lacks `{}`", path.join(".")))
    })
}

fn strings(v: &Value) -> Vec<String> {
    v.as_sequence()
        .expect("a list")
        .iter()
        .map(|x| match x {
            Value::String(s) => s.clone(),
            other => panic!("not a string: {other:?}"),
        })
        .collect()
}

#[test]
fn indexed_job_matches_the_job_api_and_the_cli() {
    let job = load("indexed-job.yaml");
    assert_eq!(get(&job, &["apiVersion"]).as_str(), Some("batch/v1"));
    assert_eq!(get(&job, &["kind"]).as_str(), Some("Job"));
    let spec = get(&job, &["spec"]);
    assert_eq!(get(spec, &["completionMode"]).as_str(), Some("Indexed"));
    let completions = get(spec, &["completions"]).as_u64().expect("completions");
    let parallelism = get(spec, &["parallelism"]).as_u64().expect("parallelism");
    assert!(completions >= 1 && parallelism >= 1 && parallelism <= completions);
    let pod = get(spec, &["template", "spec"]);
    // A Job's pods must not restart in place (the API rejects `Always`).
    assert!(matches!(
        get(pod, &["restartPolicy"]).as_str(),
        Some("Never" | "OnFailure")
    ));
    let containers = get(pod, &["containers"]).as_sequence().unwrap();
    assert_eq!(containers.len(), 1);
    let c = &containers[0];

    // Environment: secrets only by reference; every $(VAR) in args defined.
    let env = get(c, &["env"]).as_sequence().unwrap();
    let mut defined = BTreeSet::new();
    for e in env {
        let name = get(e, &["name"]).as_str().unwrap().to_string();
        if ["OPENAI_API_KEY", "NEO4J_PASSWORD"].contains(&name.as_str()) {
            assert!(e.get("value").is_none(), "{name} must come from a Secret");
            get(e, &["valueFrom", "secretKeyRef", "name"]);
        }
        defined.insert(name);
    }
    for needed in ["JOB_COMPLETION_INDEX", "NEO4J_URI", "KGROUTE_LLM_URL"] {
        assert!(defined.contains(needed), "env lacks {needed}");
    }
    let args = strings(get(c, &["args"]));
    let var = regex::Regex::new(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)").unwrap();
    for a in &args {
        for cap in var.captures_iter(a) {
            assert!(
                defined.contains(&cap[1]),
                "args use $({}) not in env",
                &cap[1]
            );
        }
    }

    // The shard count in the args is the Job's completion count.
    let shard = args
        .iter()
        .position(|a| a == "--shard")
        .map(|i| args[i + 1].clone())
        .expect("--shard in args");
    assert_eq!(
        shard,
        format!("/{completions}"),
        "--shard must be /completions"
    );

    // The arguments parse with kgroute's own command line.
    let command = strings(get(c, &["command"]));
    let argv: Vec<String> = command.into_iter().chain(args).collect();
    if let Err(e) = kgroute::cli::Cli::try_parse_from(&argv) {
        panic!("manifest args do not parse: {e}");
    }

    // Every mount names a volume of the pod.
    let volumes: BTreeSet<String> = get(pod, &["volumes"])
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| get(v, &["name"]).as_str().unwrap().to_string())
        .collect();
    for m in get(c, &["volumeMounts"]).as_sequence().unwrap() {
        let name = get(m, &["name"]).as_str().unwrap();
        assert!(volumes.contains(name), "mount of unknown volume {name}");
    }
}

#[test]
fn example_secret_holds_no_real_value() {
    let secret = load("secret.example.yaml");
    assert_eq!(get(&secret, &["kind"]).as_str(), Some("Secret"));
    let data = get(&secret, &["stringData"]).as_mapping().unwrap();
    for (k, v) in data {
        assert_eq!(
            v.as_str(),
            Some("REPLACE_ME"),
            "{k:?} must be a placeholder"
        );
    }
}
