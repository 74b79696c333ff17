//! Problem 7: a bad configuration is refused at start: exit code 2 and a sentence
//! naming the flag, instead of aborting, failing every search or never
//! stopping later.

use crate::common::process::run_to_exit;

fn assert_refused(args: &[&str], env: &[(&str, &str)], flag: &str) {
    let (status, stderr) = run_to_exit(env!("CARGO_BIN_EXE_tafl"), args, env);
    assert_eq!(status.code(), Some(2), "{args:?} {env:?}: {stderr}");
    assert!(stderr.contains(flag), "{args:?} {env:?}: {stderr}");
    assert!(!stderr.contains("serving"), "{stderr}");
}

#[test]
fn bad_values_exit_2_with_a_sentence() {
    // Tables larger than the machine's memory: would abort at the first search.
    let huge_tables = [
        "--hash-mb",
        "1048576",
        "--search-threads",
        "2",
        "--max-concurrent-searches",
        "2",
    ];
    assert_refused(
        &huge_tables,
        &[],
        "--hash-mb 1048576: its shared table, and a quarter of it for each of 2 searches and 4 \
         game reviews at once, would need 2621440 MiB",
    );
    assert_refused(
        &huge_tables,
        &[],
        "lower --hash-mb or --max-concurrent-searches",
    );
    // Past its range (would overflow the table's size: every search INTERNAL), from a flag or
    // from the environment alike.
    assert_refused(
        &["--hash-mb", "18446744073709551615"],
        &[],
        "'18446744073709551615' for '--hash-mb <HASH_MB>': must be between 1 and 1048576",
    );
    assert_refused(
        &[],
        &[("TAFL_HASH_MB", "0")],
        "'0' for '--hash-mb <HASH_MB>': must be between 1 and 1048576",
    );
    // Would never exit on SIGTERM.
    assert_refused(
        &["--drain-delay-ms", "18446744073709551615"],
        &[],
        "--drain-delay-ms",
    );
    assert_refused(
        &[],
        &[("TAFL_SHUTDOWN_GRACE_MS", "99999999999")],
        "'99999999999' for '--shutdown-grace-ms <SHUTDOWN_GRACE_MS>': must be between 0 and 3600000",
    );
    assert_refused(
        &["--max-streams-per-connection", "0"],
        &[],
        "--max-streams-per-connection",
    );
    // A budget that could never take one message of the largest size.
    assert_refused(
        &["--max-request-bytes-per-connection", "1048576"],
        &[],
        "--max-request-bytes-per-connection 1048576",
    );
    // A network file read without limit reached 2.1 GB; one that is no network stops the start.
    assert_refused(&["--eval-net", "/dev/zero"], &[], "--eval-net /dev/zero");
    assert_refused(
        &["--eval-net", "/nonexistent.nnue"],
        &[],
        "--eval-net /nonexistent.nnue",
    );
    // Two networks for one variant: which one would play is not the operator's guess to make.
    let built_in = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/src/search/eval/nnue/nets/copenhagen-11x11.nnue"
    );
    assert_refused(
        &["--eval-net", built_in, "--eval-net", built_in],
        &[],
        "a second network for copenhagen 11×11",
    );
    assert_refused(
        &[],
        &[("TAFL_EVAL_NET", &format!("{built_in},{built_in}"))],
        &format!("--eval-net {built_in}"),
    );
    // What clap itself cannot parse exits 2 as well.
    assert_refused(&["--max-game-plies", "many"], &[], "--max-game-plies");
    assert_refused(
        &[],
        &[("TAFL_HASH_MB", "x")],
        "'x' for '--hash-mb <HASH_MB>'",
    );
}

/// A value of deploy/k8s/deployment.yaml: the line after `name: {name}`, or `{name}: value`.
fn deployment_value(yaml: &str, name: &str) -> u64 {
    let mut lines = yaml.lines().map(str::trim);
    while let Some(line) = lines.next() {
        if line == format!("- name: {name}") {
            let value = lines.next().expect("a value line");
            return value
                .trim_start_matches("value:")
                .trim()
                .trim_matches('"')
                .parse()
                .expect("a number");
        }
        if let Some(value) = line.strip_prefix(&format!("{name}:")) {
            return value.trim().parse().expect("a number");
        }
    }
    panic!("{name} is not in deploy/k8s/deployment.yaml")
}

#[test]
fn the_deployment_exits_before_the_kubelet_kills_it() {
    let yaml = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/deploy/k8s/deployment.yaml"
    ))
    .expect("deploy/k8s/deployment.yaml");
    let drain_ms = deployment_value(&yaml, "TAFL_DRAIN_DELAY_MS");
    let grace_ms = deployment_value(&yaml, "TAFL_SHUTDOWN_GRACE_MS");
    let kill_after_ms = deployment_value(&yaml, "terminationGracePeriodSeconds") * 1000;
    let exit_by_ms = drain_ms + grace_ms + tafl::service::STOP_FLUSH.as_millis() as u64;
    // A second for the last telemetry and the kubelet's own delays.
    assert!(
        exit_by_ms + 1000 <= kill_after_ms,
        "exits by {exit_by_ms} ms, SIGKILL at {kill_after_ms} ms"
    );
}
