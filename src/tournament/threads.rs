//! Whether the engine threads a run thinks with fit the cores there are.

/// The CPUs this process may run on (1 when the system cannot say).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The run's warning when more engine threads may think at once than the machine has cores
/// (`None` when they fit). In a game one engine thinks at a time, so a game needs the threads
/// of its thinking engine (the UCI `Threads` option the roster sets, 1 without it); with
/// pondering both engines of a game think at once.
pub fn oversubscribed(
    engines: &[crate::settings::EngineConfig],
    concurrency: usize,
    cores: usize,
) -> Option<String> {
    let threads = |e: &crate::settings::EngineConfig| {
        e.options
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case("Threads"))
            .and_then(|(_, value)| value.trim().parse::<usize>().ok())
            .unwrap_or(1)
            .max(1)
    };
    let most = engines.iter().map(threads).max()?;
    let per_game = if engines.iter().any(|e| e.ponder) {
        2 * most
    } else {
        most
    };
    let wanted = concurrency.saturating_mul(per_game);
    (wanted > cores).then(|| {
        format!(
            "warning: {concurrency} games at once x {per_game} engine thread{} thinking = {wanted} threads on {cores} cores: engines will be short of CPU, and moves starved of it are marked (lower --concurrency)",
            if per_game == 1 { "" } else { "s" }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::EngineConfig;

    fn engine(threads: Option<&str>, ponder: bool) -> EngineConfig {
        EngineConfig {
            options: threads
                .map(|t| vec![("threads".to_string(), t.to_string())])
                .unwrap_or_default(),
            ponder,
            ..EngineConfig::builtin("random")
        }
    }

    #[test]
    fn the_warning_counts_the_threads_that_think_at_once() {
        let one = [engine(None, false), engine(None, false)];
        // One engine of each game thinks at a time: 2 games fill 2 cores.
        assert_eq!(oversubscribed(&one, 2, 2), None);
        assert_eq!(
            oversubscribed(&one, 3, 2).unwrap(),
            "warning: 3 games at once x 1 engine thread thinking = 3 threads on 2 cores: engines will be short of CPU, and moves starved of it are marked (lower --concurrency)"
        );
        let four = [engine(Some("4"), false), engine(None, false)];
        assert!(oversubscribed(&four, 2, 8).is_none());
        assert!(oversubscribed(&four, 3, 8)
            .unwrap()
            .contains("= 12 threads on 8 cores"));
        // Pondering: both engines of a game think at once.
        let ponder = [engine(None, true), engine(None, false)];
        assert!(oversubscribed(&ponder, 2, 4).is_none());
        assert!(oversubscribed(&ponder, 2, 3)
            .unwrap()
            .contains("x 2 engine threads"));
        assert_eq!(oversubscribed(&[], 2, 1), None);
    }
}
