//! The deployment files deploy/README.md shows, run for real: `deploy/slurm/gauntlet.sh` on a
//! one-node Slurm cluster started on this machine (munged, slurmctld and slurmd from Debian's
//! `slurm-wlm` and `munge`, which `.ci/run` installs), and `deploy/kubernetes/job.yaml`
//! checked against the Kubernetes API schema (Python's `kubernetes-validate`, offline).

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::*;

const SCRIPT: &str = "deploy/slurm/gauntlet.sh";
const JOB_YAML: &str = "deploy/kubernetes/job.yaml";

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// deploy/README.md shows the deployment files verbatim: the tested files are the documented
/// ones.
#[test]
fn deploy_readme_shows_the_tested_deployment_files() {
    let readme = std::fs::read_to_string(repo("deploy/README.md")).unwrap();
    for file in [SCRIPT, JOB_YAML] {
        let text = std::fs::read_to_string(repo(file)).unwrap();
        assert!(
            readme.contains(&text),
            "deploy/README.md must hold {file} exactly as it is"
        );
        assert!(readme.contains(file), "deploy/README.md must name {file}");
    }
}

/// Whether a tool the test needs is there. Missing under `CI=true` (where `.ci/run` installs
/// it) fails the test; elsewhere the test says it skipped.
#[track_caller]
fn available(what: &str, ok: bool, install: &str) -> bool {
    if ok {
        return true;
    }
    assert!(!in_ci(), "CI=true but {what} is missing ({install})");
    eprintln!("SKIPPED: {what} is missing ({install})");
    false
}

#[test]
fn the_kubernetes_job_is_valid_against_the_api_schema() {
    let has_validator = Command::new("python3")
        .args(["-c", "import kubernetes_validate"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !available(
        "kubernetes-validate",
        has_validator,
        "python3 -m pip install kubernetes-validate",
    ) {
        return;
    }
    let validate = |path: &Path| {
        Command::new("python3")
            .args(["-m", "kubernetes_validate", "--strict", "--no-warn"])
            .arg(path)
            .output()
            .unwrap()
    };
    let out = validate(&repo(JOB_YAML));
    assert!(out.status.success(), "{}{}", stdout(&out), stderr(&out));
    // The validator does reject a manifest with a misspelt field.
    let s = Scratch::new("k8s");
    let text = std::fs::read_to_string(repo(JOB_YAML)).unwrap();
    let bad = s.write("bad.yaml", &text.replace("completionMode", "completionMod"));
    assert!(!validate(&bad).status.success());
}

/// Seeded engines at a fixed depth (every game is a function of its schedule entry), one of
/// them slow enough that a shard can be caught in the middle.
const ENGINES: &str = r#"
[engines.minimax]
builtin = "minimax"
[engines.slow]
builtin = "faulty"
args = ["--slow-move-ms", "60", "--seed", "3"]
"#;

const BOOK: &str = "\
rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1
rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1
";

/// The run, as the script's environment settings: 18 games, 6 per shard.
const RUN: &[(&str, &str)] = &[
    ("ENGINE", "minimax"),
    ("VS", "slow"),
    ("TC", "60+0"),
    ("GAMES", "18"),
    ("SEED", "5"),
    ("SHARDS", "3"),
    (
        "EXTRA",
        "--depth 2 --max-moves 40 --openings book.epd --openings-order sequential",
    ),
];

/// game number -> (white, black, opening, result, termination, rule, plies)
fn games(path: &Path) -> BTreeMap<u64, Vec<String>> {
    csv_rows(&path.join("games.csv"))
        .into_iter()
        .map(|r| {
            let columns = [
                "white",
                "black",
                "opening",
                "result",
                "termination",
                "rule",
                "plies",
            ];
            (
                r["game"].parse().unwrap(),
                columns.iter().map(|c| r[*c].clone()).collect(),
            )
        })
        .collect()
}

/// The standings of summary.csv, without the timing columns.
fn standings(path: &Path) -> Vec<Vec<String>> {
    csv_rows(&path.join("summary.csv"))
        .into_iter()
        .map(|r| {
            [
                "engine", "games", "wins", "draws", "losses", "points", "elo",
            ]
            .iter()
            .map(|c| r[*c].clone())
            .collect()
        })
        .collect()
}

/// A one-node Slurm cluster of this machine, its files in a scratch folder. Dropping it stops
/// every daemon it started and every process its jobs left.
struct Cluster {
    dir: PathBuf,
    marker: String,
    daemons: Vec<Child>,
}

impl Cluster {
    fn start(dir: &Path, marker: &str) -> Cluster {
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            marker: marker.to_string(),
            daemons: Vec::new(),
        };
        for sub in ["state", "spool", "log"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        let mut key = vec![0u8; 1024];
        std::io::Read::read_exact(&mut std::fs::File::open("/dev/urandom").unwrap(), &mut key)
            .unwrap();
        let key_path = dir.join("munge.key");
        std::fs::write(&key_path, key).unwrap();
        set_mode(&key_path, 0o400);
        set_mode(dir, 0o755);
        let socket = dir.join("munge.sock");
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .unwrap()
            .trim()
            .to_string();
        let [ctld_port, slurmd_port] = [free_port(), free_port()];
        let d = dir.display();
        let conf = format!(
            "ClusterName=blitztest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={socket}
SlurmUser=root
SlurmdUser=root
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/log/slurmctld.log
SlurmdLogFile={d}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
NodeName=blitznode NodeAddr=127.0.0.1 CPUs=3 State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
",
            socket = socket.display()
        );
        std::fs::write(dir.join("slurm.conf"), conf).unwrap();

        cluster.spawn(
            "munged",
            &[
                "-F",
                "--force",
                &format!("--key-file={}", key_path.display()),
                &format!("--socket={}", socket.display()),
                &format!("--pid-file={d}/munged.pid"),
                &format!("--log-file={d}/log/munged.log"),
                &format!("--seed-file={d}/munged.seed"),
            ],
        );
        wait_until(Duration::from_secs(20), "munged's socket", || {
            socket.exists()
        });
        cluster.spawn("slurmctld", &["-D", "-i"]);
        cluster.spawn("slurmd", &["-D", "-N", "blitznode"]);
        let idle = || {
            cluster
                .command("sinfo")
                .args(["-h", "-o", "%T"])
                .output()
                .is_ok_and(|o| stdout(&o).trim() == "idle")
        };
        wait_until(Duration::from_secs(60), "the node to be idle", idle);
        cluster
    }

    /// A Slurm command of this cluster, run in its folder, marked as this test's.
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command
            .current_dir(&self.dir)
            .env("SLURM_CONF", self.dir.join("slurm.conf"))
            .env(MARKER_VAR, &self.marker)
            .stdin(Stdio::null());
        command
    }

    fn spawn(&mut self, program: &str, args: &[&str]) {
        use std::os::unix::process::CommandExt;
        let log = std::fs::File::create(self.dir.join(format!("log/{program}.out"))).unwrap();
        let child = self
            .command(program)
            .args(args)
            .process_group(0)
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {program}: {e}"));
        self.daemons.push(child);
    }

    /// `sbatch` of the script for the array tasks `array`, in the run's environment.
    fn sbatch(&self, array: &str, wait: bool, results: &str) -> std::process::Output {
        let mut command = self.command("sbatch");
        command
            .arg(format!("--array={array}"))
            .arg("--cpus-per-task=1")
            .arg("--parsable")
            .env("BLITZ_ARENA", BIN)
            .env("RESULTS", results);
        if wait {
            command.arg("--wait");
        }
        command.envs(RUN.iter().copied()).arg(repo(SCRIPT));
        let out = command.output().unwrap();
        assert!(
            out.status.success(),
            "sbatch: {}{}\n{}",
            stdout(&out),
            stderr(&out),
            self.logs()
        );
        out
    }

    fn logs(&self) -> String {
        let mut text = String::new();
        for name in ["slurmctld.log", "slurmd.log", "slurmctld.out", "slurmd.out"] {
            let log = std::fs::read_to_string(self.dir.join("log").join(name)).unwrap_or_default();
            let tail: Vec<&str> = log.lines().rev().take(15).collect();
            text.push_str(&format!("--- {name}\n"));
            for line in tail.into_iter().rev() {
                text.push_str(line);
                text.push('\n');
            }
        }
        text
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Jobs first (their steps belong to no daemon's process group), then the daemons.
        let _ = self.command("scancel").arg("--user=root").output();
        for child in &self.daemons {
            // SAFETY: signals the process group this test made for the daemon.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        for child in &mut self.daemons {
            while child.try_wait().ok().flatten().is_none() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(20));
            }
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
        }
        // slurmstepd and anything a job left: every process with this test's marker.
        for line in processes_with(&format!("{MARKER_VAR}={}", self.marker)) {
            if let Some(pid) = line.split(':').next().and_then(|p| p.parse::<i32>().ok()) {
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
}

const MARKER_VAR: &str = "BLITZ_ARENA_TEST_MARKER";

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

#[track_caller]
fn wait_until(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "waited {limit:?} for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn the_slurm_array_script_runs_resumes_and_merges_to_the_unsharded_run() {
    let tools = [
        "sbatch",
        "scancel",
        "squeue",
        "sinfo",
        "slurmctld",
        "slurmd",
        "munged",
    ];
    let missing: Vec<&str> = tools
        .iter()
        .copied()
        .filter(|t| {
            !Command::new("sh")
                .args(["-c", &format!("command -v {t}")])
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    let install = "apt-get install slurm-wlm munge";
    if !available(&format!("{missing:?}"), missing.is_empty(), install) {
        return;
    }
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if !available("root (slurmd runs jobs as their user)", root, "run as root") {
        return;
    }
    let s = Scratch::new("slurm");
    s.write("engines.toml", ENGINES);
    s.write("book.epd", BOOK);

    // The same run unsharded, as the reference.
    let mut whole: Vec<&str> = vec!["gauntlet", "minimax", "--vs", "slow", "--tc", "60+0"];
    whole.extend([
        "--games",
        "18",
        "--seed",
        "5",
        "--depth",
        "2",
        "--max-moves",
        "40",
        "--openings",
        "book.epd",
        "--openings-order",
        "sequential",
        "--concurrency",
        "3",
        "--out",
        "whole",
    ]);
    s.run_ok(&whole);
    assert_eq!(games(&s.path("whole")).len(), 18);

    let started = Instant::now();
    let cluster = Cluster::start(&s.dir, &s.marker());
    eprintln!(
        "slurm: one-node cluster up (munged, slurmctld, slurmd, node idle) in {:.2} s",
        started.elapsed().as_secs_f64()
    );

    // Three shards as one job array, merged.
    cluster.sbatch("0-2", true, "results");
    for k in 1..=3 {
        assert_eq!(games(&s.path(&format!("results/shard-{k}"))).len(), 6);
    }
    s.run_ok(&[
        "merge",
        "results/shard-1",
        "results/shard-2",
        "results/shard-3",
        "--out",
        "merged",
    ]);
    assert_eq!(games(&s.path("merged")), games(&s.path("whole")));
    assert_eq!(standings(&s.path("merged")), standings(&s.path("whole")));

    // Shard 2 again, into other folders, cancelled after its first game and resubmitted.
    let job = stdout(&cluster.sbatch("1", false, "again"));
    let job = job.trim().split(';').next().unwrap().to_string();
    let csv = s.path("again/shard-2/games.csv");
    wait_until(Duration::from_secs(60), "the first game of shard 2", || {
        lines(&csv) >= 2
    });
    // A plain `scancel`: SIGTERM to every process of the job, the engines included, in no
    // particular order. An engine that dies first is no crash: its game is left for the resume.
    let cancelled = cluster.command("scancel").args([&job]).output().unwrap();
    assert!(cancelled.status.success(), "{}", stderr(&cancelled));
    wait_until(Duration::from_secs(60), "the cancelled job to end", || {
        cluster
            .command("squeue")
            .args(["-h", "-j", &job])
            .output()
            .is_ok_and(|o| stdout(&o).trim().is_empty())
    });
    let before = games(&s.path("again/shard-2")).len();
    assert!(
        (1..6).contains(&before),
        "cancelled in the middle: {before} of 6 games"
    );
    cluster.sbatch("1", true, "again");
    let log = std::fs::read_to_string(s.path("shard-1.log")).unwrap();
    assert!(
        log.contains(&format!("resuming: {before} games already played")),
        "{log}"
    );
    let resumed = s.path("again/shard-2");
    assert_eq!(
        games(&resumed),
        games(&s.path("results/shard-2")),
        "the same games, none lost, none repeated"
    );
    assert_eq!(lines(&resumed.join("events.jsonl")), 6);
    assert_eq!(pgn_games(&resumed.join("games.pgn")).len(), 6);
    drop(cluster);
    assert_eq!(
        processes_with(&format!("{MARKER_VAR}={}", s.marker())),
        Vec::<String>::new()
    );
}
