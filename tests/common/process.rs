//! The real `tafl` binary as a child process: started on port 0 with a
//! clean environment, its address read from its log, its log kept, its
//! memory read from /proc, stopped with SIGTERM.

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A running `tafl serve`.
pub struct Tafl {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    log: Arc<Mutex<Vec<String>>>,
    reader: Option<JoinHandle<()>>,
}

/// `tafl serve` with `args`, on 127.0.0.1:0, no telemetry export and no
/// `TAFL_*` variable of the caller's environment; `env` is added.
pub fn command(binary: &Path, args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new(binary);
    command.arg("serve").args(args);
    for (name, _) in std::env::vars() {
        if name.starts_with("TAFL_") || name.starts_with("OTEL_") {
            command.env_remove(name);
        }
    }
    command
        .env("TAFL_LISTEN", "127.0.0.1:0")
        .env("RUST_LOG", "info")
        .envs(env.iter().copied());
    command
}

impl Tafl {
    /// Starts the binary `binary` (`env!("CARGO_BIN_EXE_tafl")`) and waits
    /// until it listens.
    pub fn start(binary: &str, args: &[&str], env: &[(&str, &str)]) -> Tafl {
        Tafl::spawn(command(Path::new(binary), args, env))
    }

    /// Runs `command` (a `tafl serve`, perhaps wrapped) and waits until it listens.
    pub fn spawn(mut command: Command) -> Tafl {
        let mut child = command
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("tafl starts");
        let stderr = child.stderr.take().expect("stderr piped");
        let log = Arc::new(Mutex::new(Vec::new()));
        let (addr_sender, addr_receiver) = mpsc::channel();
        let lines = Arc::clone(&log);
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some(rest) = line.split("local_addr=").nth(1) {
                    let addr = rest.split_whitespace().next().unwrap_or_default();
                    let _ = addr_sender.send(addr.parse::<SocketAddr>().ok());
                }
                lines.lock().unwrap().push(line);
            }
        });
        let addr = addr_receiver
            .recv_timeout(Duration::from_secs(30))
            .ok()
            .flatten()
            .unwrap_or_else(|| panic!("tafl logs its address; log: {:?}", log.lock().unwrap()));
        Tafl {
            child,
            addr,
            log,
            reader: Some(reader),
        }
    }

    /// The process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Resident memory now, in KiB.
    pub fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid()))
            .expect("/proc/PID/status");
        status
            .lines()
            .find_map(|line| line.strip_prefix("VmRSS:"))
            .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
            .expect("VmRSS")
    }

    /// CPU time used so far (user + system).
    pub fn cpu_time(&self) -> Duration {
        let stat =
            std::fs::read_to_string(format!("/proc/{}/stat", self.pid())).expect("/proc/PID/stat");
        // Fields after the command name, which is in parentheses.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .expect("stat format")
            .1
            .split_whitespace()
            .collect();
        let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
        // USER_HZ is 100 on Linux.
        Duration::from_millis(ticks * 10)
    }

    /// The log lines so far.
    pub fn log(&self) -> Vec<String> {
        self.log.lock().unwrap().clone()
    }

    /// Sends SIGTERM.
    pub fn sigterm(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status()
            .expect("kill runs");
        assert!(status.success());
    }

    /// Waits for the process to end (at most `limit`), then for its whole log.
    pub fn wait(&mut self, limit: Duration) -> ExitStatus {
        let started = Instant::now();
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                started.elapsed() < limit,
                "tafl did not stop within {limit:?}"
            );
            std::thread::sleep(Duration::from_millis(5));
        };
        if let Some(reader) = self.reader.take() {
            reader.join().expect("log reader");
        }
        status
    }
}

impl Drop for Tafl {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `tafl serve` with `args` and `env` and waits for it to exit (it
/// must not start serving: killed after 30 s); its exit status and stderr.
pub fn run_to_exit(binary: &str, args: &[&str], env: &[(&str, &str)]) -> (ExitStatus, String) {
    let mut child = command(Path::new(binary), args, env)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tafl runs");
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("tafl {args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    (status, stderr)
}
