//! One thread that starts every engine process, so that starting them never holds up a game.
//!
//! The thread that starts an engine waits until the child has run `exec`, and `exec` closes
//! every descriptor the arena holds (two thousand at 1,024 games at once); when the janitor
//! could not be started, an engine's parent-death signal also needs a full `fork`, which copies
//! the arena's page tables (`process::start`). Done on the runtime's workers, the first round
//! of 1,024 games at once kept both workers starting engines while the games already playing
//! waited in the runtime's queue (docs/performance.md). Here the workers hand the start over
//! and go on.
//!
//! The thread lives as long as the arena: a parent-death signal is tied to the thread that
//! forked the engine.

use std::sync::mpsc;
use std::sync::OnceLock;

use tokio::sync::oneshot;

type Job = Box<dyn FnOnce() + Send>;

/// The thread's queue, or why it could not be had.
static SPAWNER: OnceLock<Result<mpsc::Sender<Job>, String>> = OnceLock::new();

/// Runs `start` on the spawner thread and waits for its answer without blocking the runtime.
pub async fn on_spawner<T: Send + 'static>(
    start: impl FnOnce() -> std::io::Result<T> + Send + 'static,
) -> std::io::Result<T> {
    let stopped = || std::io::Error::other("the thread that starts engines has stopped");
    let (tx, rx) = oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(start());
    });
    let queue = SPAWNER.get_or_init(|| {
        let (queue, jobs) = mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("engine-spawner".into())
            .spawn(move || {
                for job in jobs {
                    job();
                }
            })
            .map(|_| queue)
            .map_err(|e| e.to_string())
    });
    let queue = queue.as_ref().map_err(|why| {
        std::io::Error::other(format!(
            "cannot start the thread that starts engines: {why}"
        ))
    })?;
    queue.send(job).map_err(|_| stopped())?;
    rx.await.map_err(|_| stopped())?
}

/// Waits, for at most `limit`, until every start handed to the thread so far has ended: a
/// start whose game was given up meanwhile (the runtime dropped at a signal) has then killed
/// its engine (`process::Started` kills on drop). Called as the arena ends, before the janitor
/// is shut down, so that no engine whose start was in flight outlives the arena.
pub fn drain(limit: std::time::Duration) {
    let Some(Ok(queue)) = SPAWNER.get() else {
        return;
    };
    let (done, ended) = mpsc::channel::<()>();
    let job: Job = Box::new(move || {
        let _ = done.send(());
    });
    if queue.send(job).is_ok() {
        let _ = ended.recv_timeout(limit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn starts_run_on_one_thread_of_their_own_and_their_errors_come_back() {
        let here = std::thread::current().id();
        let (a, b) = tokio::join!(
            on_spawner(|| Ok(std::thread::current().id())),
            on_spawner(|| Ok(std::thread::current().id()))
        );
        let (a, b) = (a.unwrap(), b.unwrap());
        assert_eq!(a, b);
        assert_ne!(a, here);
        let name = on_spawner(|| Ok(std::thread::current().name().map(String::from)))
            .await
            .unwrap();
        assert_eq!(name.as_deref(), Some("engine-spawner"));
        let err = on_spawner::<()>(|| Err(std::io::Error::from_raw_os_error(libc::EMFILE)))
            .await
            .unwrap_err();
        assert_eq!(err.raw_os_error(), Some(libc::EMFILE));
    }
}
