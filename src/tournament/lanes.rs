//! A thread for each game when the games at once fit the cores: each worker runs on a
//! single-threaded runtime of its own (a lane), and its engines are read on that thread
//! (`engine::read_on_this_thread`).
//!
//! On the shared multi-threaded runtime a move costs three thread wake-ups: the engine I/O
//! thread reads the `bestmove`, wakes a tokio worker, and that worker, woken from outside the
//! runtime with work to do, wakes a second worker to look for more (tokio's hand-off between
//! "searching" workers), which finds none. On a lane the `bestmove` wakes the lane, which reads
//! it, stamps it and answers with the next `go`: one wake-up a move. docs/performance.md has the
//! measurements. With more games than cores the workers share the multi-threaded runtime and
//! the I/O thread, which keep the arena's threads bounded by the cores, not the games.

use std::future::Future;
use std::io;

use tokio::runtime::{Builder, Handle};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Lanes that run until dropped. Dropping them ends their threads and waits for them: a task
/// still on a lane (a worker of a run that stopped on an error) is dropped with its runtime,
/// and its engines killed, before the arena goes on to exit.
pub struct Lanes {
    lanes: Vec<Lane>,
}

struct Lane {
    handle: Handle,
    /// Dropped to end the lane: its thread returns and drops its runtime.
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Lanes {
    /// `count` lanes, each a thread named `game-lane`; an error when a thread or a runtime
    /// cannot be had (the machine is out of threads or files).
    pub fn start(count: usize) -> io::Result<Lanes> {
        let lanes = (0..count)
            .map(|_| Lane::start())
            .collect::<io::Result<Vec<_>>>()?;
        Ok(Lanes { lanes })
    }

    /// Runs `future` on lane `index` (one future a lane: its engines are read on its thread).
    pub fn spawn<F>(&self, index: usize, future: F) -> JoinHandle<F::Output>
    where
        F: Future + Send + 'static,
        F::Output: Send + 'static,
    {
        self.lanes[index].handle.spawn(future)
    }
}

impl Lane {
    fn start() -> io::Result<Lane> {
        let runtime = Builder::new_current_thread()
            .enable_all()
            // The blocking pool runs only the reaper's sweeps (as in main).
            .max_blocking_threads(2)
            .build()?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("game-lane".into())
            .spawn(move || {
                crate::engine::read_on_this_thread();
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })?;
        Ok(Lane {
            handle,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for Lanes {
    fn drop(&mut self) {
        for lane in &mut self.lanes {
            lane.stop.take();
        }
        for lane in &mut self.lanes {
            if let Some(thread) = lane.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

/// Whether `workers` games at once get a lane each: when they fit the cores.
pub fn one_each(workers: usize) -> bool {
    workers <= super::cores()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lane runs its future on its own thread, which reads engines itself.
    #[test]
    fn a_lane_runs_its_future_on_a_thread_of_its_own() {
        let lanes = Lanes::start(2).unwrap();
        let here = std::thread::current().id();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        for index in 0..2 {
            let (thread, name) = runtime
                .block_on(lanes.spawn(index, async {
                    let thread = std::thread::current();
                    (thread.id(), thread.name().map(str::to_string))
                }))
                .unwrap();
            assert_ne!(thread, here);
            assert_eq!(name.as_deref(), Some("game-lane"));
        }
    }

    /// What a lane still holds when the lanes are dropped (a worker of a run that stopped on
    /// an error, and its engines) is dropped before the drop returns.
    #[test]
    fn dropping_the_lanes_drops_what_they_still_run() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;

        struct Held(Arc<AtomicBool>);
        impl Drop for Held {
            fn drop(&mut self) {
                // Slow to go, as an engine that is killed and reaped.
                std::thread::sleep(std::time::Duration::from_millis(50));
                self.0.store(true, Ordering::SeqCst);
            }
        }

        let dropped = Arc::new(AtomicBool::new(false));
        let lanes = Lanes::start(1).unwrap();
        let held = Held(Arc::clone(&dropped));
        let (started, on_lane) = std::sync::mpsc::channel();
        let _task = lanes.spawn(0, async move {
            let _held = held;
            started.send(()).unwrap();
            std::future::pending::<()>().await;
        });
        on_lane.recv().unwrap();
        drop(lanes);
        assert!(dropped.load(Ordering::SeqCst));
    }
}
