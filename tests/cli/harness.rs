//! A small harness: run the binary, parse JSON Lines, find samples.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Path of a committed sample artifact, relative to the repo root.
pub fn sample(rel: &str) -> String {
    format!("samples/artifacts/{rel}")
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The stdout as JSON Lines.
    pub fn records(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("bad JSON line {l:?}: {e}")))
            .collect()
    }

    pub fn of_type(&self, t: &str) -> Vec<Value> {
        self.records()
            .into_iter()
            .filter(|r| r["type"] == t)
            .collect()
    }
}

fn finish(out: Output) -> Run {
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `artiscan ARGS` in the repo root.
pub fn artiscan(args: &[&str]) -> Run {
    artiscan_in(&root(), args)
}

/// `artiscan ARGS` in `dir` through `sh -c`, after the shell lines
/// `setup` (a `ulimit`, a `trap`): a process limit no Rust API here sets.
pub fn artiscan_after_sh(dir: &Path, setup: &str, args: &[&str]) -> Run {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!("{setup}; exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_artiscan"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run sh");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

pub fn artiscan_in(dir: &Path, args: &[&str]) -> Run {
    let child = Command::new(env!("CARGO_BIN_EXE_artiscan"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run artiscan");
    // The one guard against a hang: past HANG_LIMIT the run is killed and
    // the test fails as a hang (never as slow: no test asserts a time).
    let pid = child.id();
    let done = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let hung = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let watchdog = {
        let (done, hung) = (done.clone(), hung.clone());
        std::thread::spawn(move || {
            let start = std::time::Instant::now();
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                if start.elapsed() > HANG_LIMIT {
                    hung.store(true, std::sync::atomic::Ordering::SeqCst);
                    let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
                    return;
                }
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        })
    };
    let out = child.wait_with_output().expect("run artiscan");
    done.store(true, std::sync::atomic::Ordering::SeqCst);
    let _ = watchdog.join();
    assert!(
        !hung.load(std::sync::atomic::Ordering::SeqCst),
        "artiscan {args:?} hung: killed after {HANG_LIMIT:?}"
    );
    finish(out)
}

/// Runs `artiscan ARGS` with `input` on stdin.
pub fn artiscan_stdin(args: &[&str], input: &[u8]) -> Run {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_artiscan"))
        .args(args)
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn artiscan");
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().expect("wait");
    writer.join().unwrap();
    finish(out)
}

/// The bytes of one member, extracted with Python's standard library (an
/// independent reader) from a chain like ["x.tar.gz", "a.log"].
pub fn extract(artifact: &str, members: &[&str]) -> Vec<u8> {
    let script = r#"
import sys, io, gzip, tarfile, zipfile, subprocess
data = open(sys.argv[1], 'rb').read()
def peel(b):
    while b[:2] == b'\x1f\x8b':
        b = gzip.decompress(b)
    if b[:4] == b'\x28\xb5\x2f\xfd':
        b = subprocess.run(['zstd', '-dc'], input=b, capture_output=True).stdout
    return b
data = peel(data)
for m in sys.argv[2:]:
    if data[:2] == b'PK':
        data = zipfile.ZipFile(io.BytesIO(data)).read(m)
    else:
        t = tarfile.open(fileobj=io.BytesIO(data))
        data = t.extractfile(m).read()
    data = peel(data)
sys.stdout.buffer.write(data)
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(root().join(artifact))
        .args(members)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "extract failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `grep -n`-style numbering of `pattern` in `data`: the 1-based numbers of
/// lines containing it (independent of artiscan's line reader).
pub fn grep_n(data: &[u8], pattern: &str) -> Vec<u64> {
    data.split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| l.windows(pattern.len()).any(|w| w == pattern.as_bytes()))
        .map(|(i, _)| i as u64 + 1)
        .collect()
}

/// Copies a folder tree (a sample laid out as `gh run download` makes it).
pub fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// The memory bound SECURITY.md states for every hostile input, at the defaults.
pub const MAX_RSS_KIB: u64 = 256 << 10;

/// How long a measured run may take before it counts as a hang: the one
/// time bound of the tests, far above any run's time on a loaded machine,
/// because a test that asserts a time fails when the machine is busy.
pub const HANG_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// A run with its peak resident memory (no time: see [`HANG_LIMIT`]).
pub struct Measured {
    pub run: Run,
    pub peak_kib: u64,
}

/// Peak resident memory of `pid` once it runs artiscan. Between fork and
/// exec the child is still a copy of this test process, whose high-water
/// mark (hundreds of MiB with tests running in parallel) it reports: that
/// is not artiscan's, so it is not read (`Name:` is the test binary's until
/// the exec).
pub fn vm_hwm_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let name = status.lines().find_map(|l| l.strip_prefix("Name:"))?.trim();
    if name != "artiscan" {
        return None;
    }
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `artiscan ARGS` started in `dir`, stdin empty, stdout and stderr piped.
pub fn spawn_piped(dir: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_artiscan"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn artiscan")
}

/// Waits for `child`, polling its peak resident memory (VmHWM, KiB); kills
/// it and fails the test `case` as a hang once [`HANG_LIMIT`] has passed.
pub fn wait_polling_peak(
    child: &mut std::process::Child,
    case: &str,
) -> (std::process::ExitStatus, u64) {
    let (start, limit) = (std::time::Instant::now(), HANG_LIMIT);
    let pid = child.id();
    let mut peak = 0;
    loop {
        if let Some(k) = vm_hwm_kib(pid) {
            peak = peak.max(k);
        }
        if let Some(s) = child.try_wait().expect("wait") {
            return (s, peak);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("{case}: hangs (still running after {} s)", limit.as_secs());
        }
        std::thread::sleep(std::time::Duration::from_millis(3));
    }
}

/// Runs `artiscan ARGS` in `dir`, polling its peak resident memory (VmHWM)
/// until it exits; kills it as a hang past [`HANG_LIMIT`]. Prints what it
/// measured under `case` (the wall time for a reader, never asserted) and
/// checks that it did not panic and stayed under [`MAX_RSS_KIB`].
pub fn measure_within(case: &str, dir: &Path, args: &[&str]) -> Measured {
    use std::io::Read;
    use std::time::Instant;
    let start = Instant::now();
    let mut child = spawn_piped(dir, args);
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = out.read_to_end(&mut v);
        v
    });
    let err_t = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = err.read_to_end(&mut v);
        v
    });
    let (status, peak) = wait_polling_peak(&mut child, case);
    let secs = start.elapsed().as_secs_f64();
    let run = Run {
        code: status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out_t.join().unwrap()).into_owned(),
        stderr: String::from_utf8_lossy(&err_t.join().unwrap()).into_owned(),
    };
    eprintln!(
        "hostile {case}: {secs:.2} s, peak {} MiB, exit {}",
        peak >> 10,
        run.code
    );
    assert!(
        !run.stderr.contains("panicked"),
        "{case}: panic: {}",
        run.stderr
    );
    assert!(peak < MAX_RSS_KIB, "{case}: peak memory {} MiB", peak >> 10);
    Measured {
        run,
        peak_kib: peak,
    }
}

/// Runs `artiscan ARGS` in the repo root with stdout on a terminal (a
/// pseudo-terminal from Python's `pty`); returns the exit code and what it
/// printed there, `\r\n` read back as `\n`.
pub fn artiscan_on_terminal(args: &[&str]) -> (i32, String) {
    let script = r#"
import os, pty, subprocess, sys
main, tty = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdout=tty, stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
os.close(tty)
out = b''
while True:
    try:
        chunk = os.read(main, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
sys.stdout.buffer.write(out)
sys.exit(p.wait())
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_artiscan"))
        .args(args)
        .current_dir(root())
        .env("NO_COLOR", "1")
        .output()
        .expect("python3");
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    (out.status.code().unwrap_or(-1), text)
}

/// Checks in the built-in `inferencex` set: each artifact gets one verdict
/// of each.
pub fn inferencex_checks() -> usize {
    std::fs::read_to_string(root().join("patterns/checks/inferencex.toml"))
        .unwrap()
        .lines()
        .filter(|l| l.trim() == "[[check]]")
        .count()
}

/// Ids of the built-in `inferencex` checks judged per run (`scope = "run"`):
/// each yields one verdict per run folder, not per artifact.
pub fn inferencex_run_checks() -> Vec<String> {
    let src = std::fs::read_to_string(root().join("patterns/checks/inferencex.toml")).unwrap();
    let mut out = Vec::new();
    for block in src.split("[[check]]").skip(1) {
        let id = block
            .lines()
            .find_map(|l| l.trim().strip_prefix("id = "))
            .map(|s| s.trim_matches('"').to_string());
        if block.lines().any(|l| l.trim() == "scope = \"run\"") {
            out.extend(id);
        }
    }
    out
}

/// The verdicts of checks judged per artifact (run-scope ones left out).
pub fn artifact_verdicts(vs: Vec<Value>) -> Vec<Value> {
    let run = inferencex_run_checks();
    vs.into_iter()
        .filter(|v| !run.iter().any(|c| v["check"] == c.as_str()))
        .collect()
}

/// A verdict as (scope, check, status).
pub type VerdictRow = (String, String, String);

/// The verdicts a `check` run printed, sorted.
pub fn checked_verdicts(run: &Run) -> Vec<VerdictRow> {
    let mut out: Vec<VerdictRow> = run
        .of_type("verdict")
        .iter()
        .map(|v| {
            let s = |k: &str| v[k].as_str().unwrap().to_string();
            (s("scope"), s("check"), s("status"))
        })
        .collect();
    out.sort();
    out
}

/// The verdicts an audit store holds (`filter`: a `WHERE` clause or
/// nothing), as [`checked_verdicts`] gives `check`'s, sorted.
pub fn stored_verdict_rows(c: &rusqlite::Connection, filter: &str) -> Vec<VerdictRow> {
    let mut out: Vec<VerdictRow> = c
        .prepare(&format!(
            "SELECT scope_name, check_id, status FROM verdicts {filter}"
        ))
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    out.sort();
    out
}

/// Zips `folder`'s files (names relative to it) into `zip`, with Python's
/// zipfile (names keep their `:`).
pub fn zip_folder(folder: &Path, zip: &Path) {
    let ok = Command::new("python3")
        .arg("-c")
        .arg(
            "import os, sys, zipfile\n\
             with zipfile.ZipFile(sys.argv[2], 'w', zipfile.ZIP_DEFLATED) as z:\n\
             \x20   for d, _, fs in os.walk(sys.argv[1]):\n\
             \x20       for f in sorted(fs):\n\
             \x20           p = os.path.join(d, f)\n\
             \x20           z.write(p, os.path.relpath(p, sys.argv[1]))\n",
        )
        .arg(folder)
        .arg(zip)
        .status()
        .expect("python3");
    assert!(ok.success());
}
