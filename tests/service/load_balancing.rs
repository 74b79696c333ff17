//! The deployment in small: three `tafl` processes behind a real nginx
//! balancing gRPC calls with deploy/nginx.conf itself. Thousands of calls
//! through nginx all succeed and reach every replica; one replica gets
//! SIGTERM mid-run, drains, exits 0, and no call fails.
//!
//! Needs nginx (on PATH or /usr/sbin/nginx; `.ci/run` installs it). Without
//! it the test says it was skipped and passes, except under `CI=true`.

#![cfg(unix)]

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use tafl::service::pb;
use tafl::service::pb::tafl_service_client::TaflServiceClient;
use tonic::transport::Channel;

const CALLS: usize = 3000;
const CONCURRENCY: usize = 16;
/// The call after which one replica gets SIGTERM.
const SIGTERM_AT: usize = CALLS / 3;

fn find_nginx() -> Option<PathBuf> {
    let on_path = std::env::var_os("PATH").into_iter().flat_map(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("nginx"))
            .collect::<Vec<_>>()
    });
    on_path
        .chain([PathBuf::from("/usr/sbin/nginx")])
        .find(|candidate| candidate.is_file())
}

/// A `tafl` process, its address, and a count of the calls it says it answered.
struct Replica {
    child: Child,
    addr: SocketAddr,
    answered: Arc<AtomicUsize>,
}

impl Replica {
    fn start() -> Replica {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tafl"))
            .env("TAFL_LISTEN", "127.0.0.1:0")
            .env("TAFL_SEARCH_THREADS", "1")
            .env("TAFL_HASH_MB", "1")
            .env("TAFL_DRAIN_DELAY_MS", "300")
            .env("TAFL_SHUTDOWN_GRACE_MS", "10000")
            .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
            .env_remove("TAFL_OTLP_ENDPOINT")
            // The telemetry layer logs one `answered` event per call at debug.
            .env("RUST_LOG", "info,tafl::service::telemetry=debug")
            .stderr(Stdio::piped())
            .spawn()
            .expect("tafl starts");
        let stderr = child.stderr.take().unwrap();
        let answered = Arc::new(AtomicUsize::new(0));
        let (addr_sender, addr_receiver) = mpsc::channel();
        let counter = Arc::clone(&answered);
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("local_addr=").nth(1) {
                    let addr = rest.split_whitespace().next().unwrap_or_default();
                    let _ = addr_sender.send(addr.parse::<SocketAddr>().ok());
                } else if line.contains(" answered ") {
                    counter.fetch_add(1, Ordering::Relaxed);
                } else if line.contains("WARN") || line.contains("ERROR") {
                    eprintln!("replica: {line}");
                }
            }
        });
        let addr = addr_receiver
            .recv_timeout(Duration::from_secs(30))
            .ok()
            .flatten()
            .expect("the replica logs its address");
        Replica {
            child,
            addr,
            answered,
        }
    }

    fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Waits for the process to end; its exit status.
    fn wait(&mut self, limit: Duration) -> std::process::ExitStatus {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(started.elapsed() < limit, "the replica did not stop");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// deploy/nginx.conf itself, moved to the test's ports and files: each
/// change names the exact text it replaces, so a reshaped config fails here
/// loudly instead of being tested in part.
fn local_config(dir: &Path, listen: SocketAddr, replicas: &[SocketAddr]) -> String {
    let shipped = include_str!("../../deploy/nginx.conf");
    let dir = dir.display();
    let servers: String = replicas
        .iter()
        .map(|addr| format!("        server {addr} max_fails=1 fail_timeout=2s;\n"))
        .collect();
    let shipped_servers: String = (50051..=50053)
        .map(|port| format!("        server 127.0.0.1:{port} max_fails=1 fail_timeout=2s;\n"))
        .collect();
    let changes = [
        // First, before the test's own paths (which share the prefix) go in.
        ("/tmp/tafl-nginx-".to_owned(), format!("{dir}/")),
        // One foreground process the test can stop.
        (
            "worker_processes auto;\n".to_owned(),
            "daemon off;\nmaster_process off;\n".to_owned(),
        ),
        (
            "error_log stderr warn;".to_owned(),
            format!("error_log {dir}/error.log warn;"),
        ),
        (
            "pid /tmp/tafl-nginx.pid;".to_owned(),
            format!("pid {dir}/nginx.pid;"),
        ),
        (shipped_servers, servers),
        (
            "listen 127.0.0.1:8080 http2;".to_owned(),
            format!("listen {listen} http2;"),
        ),
        // Which replica answered, for the test to count.
        (
            "grpc_pass grpc://tafl;".to_owned(),
            "grpc_pass grpc://tafl;\n            add_header x-tafl-replica $upstream_addr always;"
                .to_owned(),
        ),
    ];
    let mut config = shipped.to_owned();
    for (from, to) in changes {
        assert!(
            config.contains(&from),
            "deploy/nginx.conf no longer has {from:?}: update tests/service/load_balancing.rs"
        );
        config = config.replace(&from, &to);
    }
    config
}

/// nginx in the foreground, in one process, with its files in `dir`.
struct Nginx {
    child: Child,
    dir: PathBuf,
}

impl Nginx {
    fn start(binary: &Path, replicas: &[SocketAddr]) -> (Nginx, SocketAddr) {
        let dir = std::env::temp_dir().join(format!("tafl-nginx-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let listen = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let config = local_config(&dir, listen, replicas);
        let config_path = dir.join("nginx.conf");
        std::fs::write(&config_path, config).unwrap();
        let child = Command::new(binary)
            .arg("-p")
            .arg(&dir)
            .arg("-c")
            .arg(&config_path)
            .stderr(Stdio::inherit())
            .spawn()
            .expect("nginx starts");
        (Nginx { child, dir }, listen)
    }

    fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

async fn connect(addr: SocketAddr) -> TaflServiceClient<Channel> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match Channel::from_shared(format!("http://{addr}"))
            .unwrap()
            .connect()
            .await
        {
            Ok(channel) => return TaflServiceClient::new(channel),
            Err(_) if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => panic!("nginx never listened: {error}"),
        }
    }
}

/// Call `n`: mostly the cheap calls, with a short search now and then so
/// that calls are in flight on a replica when it is told to stop.
async fn call(
    client: &mut TaflServiceClient<Channel>,
    n: usize,
) -> Result<Option<String>, tonic::Status> {
    let game = pb::Game {
        variant: None,
        start: String::new(),
        moves: ["d11-d9", "f4-d4", "a4-c4"][..n % 4]
            .iter()
            .map(|m| (*m).to_owned())
            .collect(),
    };
    let metadata = if n.is_multiple_of(40) {
        let request = pb::EvaluateRequest {
            game: Some(game),
            limits: Some(pb::SearchLimits {
                max_depth: 0,
                max_time_ms: 150,
                max_nodes: 0,
            }),
        };
        client.evaluate(request).await?.metadata().clone()
    } else if n.is_multiple_of(2) {
        let reply = client
            .legal_moves(pb::LegalMovesRequest {
                game: Some(game),
                square: String::new(),
            })
            .await?;
        assert!(!reply.get_ref().moves.is_empty());
        reply.metadata().clone()
    } else {
        let reply = client
            .apply_move(pb::ApplyMoveRequest {
                game: Some(game),
                next_move: ["h11-h9", "e7-c7", "h11-h9", "g7-g9"][n % 4].to_owned(),
                include_legal_moves: false,
            })
            .await?;
        reply.metadata().clone()
    };
    Ok(metadata
        .get("x-tafl-replica")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_through_nginx_reach_every_replica_and_survive_a_sigterm() {
    let Some(nginx_binary) = find_nginx() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "nginx is not installed, and CI=true requires this test to run"
        );
        eprintln!(
            "SKIPPED calls_through_nginx_reach_every_replica_and_survive_a_sigterm: no nginx on PATH or at /usr/sbin/nginx"
        );
        return;
    };
    // Three replicas and nginx load both cores: not beside the tests that time calls.
    let _heavy = crate::common::server::HEAVY.lock().await;
    let mut replicas: Vec<Replica> = (0..3).map(|_| Replica::start()).collect();
    let addrs: Vec<SocketAddr> = replicas.iter().map(|replica| replica.addr).collect();
    let (nginx, listen) = Nginx::start(&nginx_binary, &addrs);
    let client = connect(listen).await;

    let next = Arc::new(AtomicUsize::new(0));
    let (sigterm_sender, sigterm_receiver) = tokio::sync::oneshot::channel();
    let sigterm_sender = Arc::new(std::sync::Mutex::new(Some(sigterm_sender)));
    let started = Instant::now();
    let workers: Vec<_> = (0..CONCURRENCY)
        .map(|_| {
            let mut client = client.clone();
            let next = Arc::clone(&next);
            let sigterm_sender = Arc::clone(&sigterm_sender);
            tokio::spawn(async move {
                let mut failures = Vec::new();
                let mut reached: HashMap<String, usize> = HashMap::new();
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= CALLS {
                        break;
                    }
                    if n == SIGTERM_AT
                        && let Some(sender) = sigterm_sender.lock().unwrap().take()
                    {
                        let _ = sender.send(());
                    }
                    match call(&mut client, n).await {
                        Ok(replica) => {
                            *reached
                                .entry(replica.unwrap_or_else(|| "?".to_owned()))
                                .or_default() += 1;
                        }
                        Err(status) => failures.push(format!("call {n}: {status:?}")),
                    }
                }
                (failures, reached)
            })
        })
        .collect();

    // Mid-run, with calls in flight on it, the last replica is told to stop.
    sigterm_receiver.await.unwrap();
    let stopping = replicas.len() - 1;
    replicas[stopping].sigterm();

    let mut failures = Vec::new();
    let mut reached: HashMap<String, usize> = HashMap::new();
    for worker in workers {
        let (worker_failures, worker_reached) = worker.await.unwrap();
        failures.extend(worker_failures);
        for (replica, count) in worker_reached {
            *reached.entry(replica).or_default() += count;
        }
    }
    let elapsed = started.elapsed();
    let status = replicas[stopping].wait(Duration::from_secs(20));
    // A replica logs `answered` as its response goes out, so the last lines
    // can still be on their way to the readers when the calls have returned.
    let settle = Instant::now() + Duration::from_secs(5);
    while replicas
        .iter()
        .map(|replica| replica.answered.load(Ordering::Relaxed))
        .sum::<usize>()
        < CALLS
        && Instant::now() < settle
    {
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!(
        "{CALLS} calls through nginx in {:.2} s ({:.0}/s); by nginx's upstream: {reached:?}; answered by each replica's own count: {:?}",
        elapsed.as_secs_f64(),
        CALLS as f64 / elapsed.as_secs_f64(),
        replicas
            .iter()
            .map(|replica| replica.answered.load(Ordering::Relaxed))
            .collect::<Vec<_>>()
    );
    assert!(
        failures.is_empty(),
        "{} of {CALLS} calls failed, first: {:?}\nnginx error log:\n{}",
        failures.len(),
        failures.first(),
        nginx.error_log()
    );
    assert!(
        status.success(),
        "the stopped replica exited with {status:?}"
    );
    // Every replica answered calls, by its own count and by nginx's.
    for replica in &replicas {
        let answered = replica.answered.load(Ordering::Relaxed);
        assert!(answered > 0, "replica {} answered no call", replica.addr);
        let routed: usize = reached
            .iter()
            .filter(|(upstream, _)| upstream.contains(&replica.addr.to_string()))
            .map(|(_, count)| count)
            .sum();
        assert!(routed > 0, "nginx routed no call to {}", replica.addr);
    }
    let answered: usize = replicas
        .iter()
        .map(|replica| replica.answered.load(Ordering::Relaxed))
        .sum();
    assert!(
        answered >= CALLS,
        "the replicas count {answered} answers for {CALLS} calls"
    );
}
