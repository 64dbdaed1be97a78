//! The arena's own resources do not grow with its engines (issue 25): one I/O thread reads
//! every engine's output, however many run, and an engine's pipes are closed when it is
//! killed, however many times engines come and go. Exact counts of this process's threads
//! (/proc/self/task) and open files (/proc/self/fd); the two tests take turns, so neither
//! counts the other's.

mod common;

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use blitz_arena::engine::{self, Engine, Timeouts};
use blitz_arena::settings::EngineConfig;

/// One test at a time: each counts what this whole process holds.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

fn instant() -> EngineConfig {
    engine::set_builtin_program(common::BIN.into());
    EngineConfig::builtin("instant")
}

/// Long enough that no load on the machine makes a handshake late: these tests count, they
/// do not time.
fn patient() -> Timeouts {
    Timeouts {
        uciok: Duration::from_secs(300),
        readyok: Duration::from_secs(300),
        stop: Duration::from_secs(300),
        quit: Duration::from_secs(300),
    }
}

fn count(dir: &str) -> usize {
    std::fs::read_dir(dir).unwrap().count()
}

/// This process's threads (id and name) but the test harness's thread for the other test,
/// which may end while this one counts (the harness names a test's thread after the test, cut
/// to 15 bytes).
fn threads() -> BTreeMap<String, String> {
    let other = &"engines_started_and_killed_leave_no_open_file"[..15];
    std::fs::read_dir("/proc/self/task")
        .unwrap()
        .filter_map(|task| {
            let task = task.unwrap();
            let name = std::fs::read_to_string(task.path().join("comm")).ok()?;
            let name = name.trim_end().to_string();
            (name != other).then(|| (task.file_name().to_string_lossy().into_owned(), name))
        })
        .collect()
}

/// The soft limit of open files raised to the hard one, as the arena does before a run.
fn raise_open_files() {
    // SAFETY: getrlimit/setrlimit on a local struct.
    unsafe {
        let mut limit: libc::rlimit = std::mem::zeroed();
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit), 0);
        limit.rlim_cur = limit.rlim_max;
        libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
    }
}

fn runtime() -> tokio::runtime::Runtime {
    // One thread: the runtime itself adds none while the engines run.
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// Starts an engine and ends it, 300 times: killed, or dropped as a cancelled game drops it.
async fn start_and_end_300(config: &EngineConfig) {
    for round in 0..300 {
        let engine = Engine::start(config, patient()).await.unwrap();
        if round % 2 == 0 {
            engine.kill().await;
        } else {
            drop(engine);
        }
    }
}

/// 200 engines at once, each through its UCI handshake: the arena holds as many threads as
/// with one (each engine used to cost it two reader threads).
#[test]
fn two_hundred_engines_cost_the_arena_no_thread() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    raise_open_files();
    let config = instant();
    runtime().block_on(async {
        let first = Engine::start(&config, patient()).await.unwrap();
        let with_one = threads();
        let mut starting = tokio::task::JoinSet::new();
        for _ in 1..200 {
            let config = config.clone();
            starting.spawn(async move { Engine::start(&config, patient()).await.unwrap() });
        }
        let mut engines = vec![first];
        while let Some(engine) = starting.join_next().await {
            engines.push(engine.unwrap());
        }
        assert_eq!(engines.len(), 200);
        engine::settle_pipes();
        assert_eq!(engine::engines_watched(), 200);
        // No thread was started for them. A thread may still be leaving (one the previous
        // test's runtime joined is listed until the kernel has released it), so the count
        // is of threads that are new, not of all of them.
        let now = threads();
        let new: Vec<&String> = now
            .iter()
            .filter(|(id, _)| !with_one.contains_key(*id))
            .map(|(_, name)| name)
            .collect();
        assert!(new.is_empty(), "threads started for 200 engines: {new:?}");
        for engine in engines {
            engine.kill().await;
        }
    });
}

/// Engines started and killed (or dropped, as a cancelled game drops them) 300 times: the
/// open files and the I/O thread's table are back where they were after the first.
#[test]
fn engines_started_and_killed_leave_no_open_file() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let config = instant();
    runtime().block_on(async {
        // The first engine opens what stays open for the run (the I/O thread's epoll set).
        Engine::start(&config, patient())
            .await
            .unwrap()
            .kill()
            .await;
        engine::settle_pipes();
        let files = count("/proc/self/fd");
        start_and_end_300(&config).await;
        engine::settle_pipes();
        assert_eq!(engine::engines_watched(), 0);
        assert_eq!(
            count("/proc/self/fd"),
            files,
            "open files after 300 engines"
        );
    });
}

/// A game with a thread of its own (a lane: `--concurrency` at most the cores) reads its
/// engines on that thread: the I/O thread holds none of them, a move comes through stamped
/// between the `go` and the reading of it, and engines started and killed (or dropped) 300
/// times leave the open files where they were.
#[test]
fn engines_read_on_the_game_s_own_thread_leave_no_open_file() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let config = instant();
    let lane = std::thread::spawn(move || {
        engine::read_on_this_thread();
        runtime().block_on(async {
            let mut first = Engine::start(&config, patient()).await.unwrap();
            engine::settle_pipes();
            assert_eq!(engine::engines_watched(), 0, "the I/O thread holds it");
            let sent = first
                .go("position startpos", "go movetime 1")
                .await
                .unwrap();
            let far = tokio::time::Instant::now() + Duration::from_secs(300);
            match first.bestmove(far).await {
                engine::Reply::BestMove { text, at, .. } => {
                    assert!(!text.is_empty());
                    assert!(at >= sent && at <= tokio::time::Instant::now());
                }
                other => panic!("no move: {other:?}"),
            }
            first.kill().await;
            // The first engine opens what stays open for the run.
            let files = count("/proc/self/fd");
            start_and_end_300(&config).await;
            assert_eq!(engine::engines_watched(), 0);
            // A dropped engine's reader ends when the runtime next runs it.
            for _ in 0..1000 {
                if count("/proc/self/fd") <= files {
                    break;
                }
                tokio::task::yield_now().await;
            }
            assert_eq!(
                count("/proc/self/fd"),
                files,
                "open files after 300 engines"
            );
        });
    });
    lane.join().unwrap();
}
