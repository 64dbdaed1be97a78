//! fastchess's warnings when a move's score cannot be read (its `match.cpp`, as each move is
//! recorded): a search that printed lines besides its `bestmove` but no scored `info` line it
//! reads a score from, and a report whose score is not one.

use super::info::{last_info_line, parse, Score};

/// fastchess's warning line for the score of `engine`'s search, whose scored `info` lines were
/// `scored` among `lines` lines printed (its `bestmove` included): none when the score can be
/// read, or when the search printed its `bestmove` alone (fastchess then reads no score).
pub fn score_warning(scored: &[String], lines: usize, engine: &str) -> Option<String> {
    if lines <= 1 {
        return None;
    }
    let Some(report) = last_info_line(scored) else {
        return Some(format!(
            "Warning; No info line available to extract score from engine {engine}"
        ));
    };
    let error = score_error(report)?;
    Some(format!(
        "Warning; Could not extract score from engine {engine}: {error}"
    ))
}

/// Why fastchess reads no score from `line`, if it reads none (its messages).
fn score_error(line: &str) -> Option<String> {
    Some(match parse(line).score {
        Score::Cp(_) | Score::Mate(_) => return None,
        Score::Missing => "Element 'score' not found".to_string(),
        Score::NoTypeOrValue => "Element 'score' has no type or value".to_string(),
        Score::UnexpectedType => format!("Unexpected score type: {line}"),
        Score::InvalidValue(value) => format!("Invalid score value: {value}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warning(scored: &[&str], lines: usize) -> Option<String> {
        let scored: Vec<String> = scored.iter().map(|l| l.to_string()).collect();
        score_warning(&scored, lines, "bad")
    }

    #[test]
    fn a_search_that_printed_only_its_bestmove_gets_no_warning() {
        assert_eq!(warning(&[], 1), None);
    }

    #[test]
    fn lines_without_a_score_it_reads_are_no_info_line() {
        let none = Some("Warning; No info line available to extract score from engine bad".into());
        assert_eq!(warning(&[], 2), none, "an unscored line and the bestmove");
        assert_eq!(
            warning(&["info depth 3 multipv 2 score cp 5 pv e2e4"], 2),
            none,
            "only a second PV's line"
        );
        assert_eq!(
            warning(&["info string score cp 5"], 2),
            none,
            "only an info string"
        );
    }

    #[test]
    fn a_report_whose_score_cannot_be_read_says_why_as_fastchess_does() {
        let say = |e: &str| {
            Some(format!(
                "Warning; Could not extract score from engine bad: {e}"
            ))
        };
        assert_eq!(
            warning(&["info depth 1 score cp x pv e2e4"], 2),
            say("Invalid score value: x")
        );
        assert_eq!(
            warning(&["info depth 1 score wdl 5 pv e2e4"], 2),
            say("Unexpected score type: info depth 1 score wdl 5 pv e2e4")
        );
        assert_eq!(
            warning(&["info depth 1 score cp"], 2),
            say("Element 'score' has no type or value")
        );
        assert_eq!(
            warning(&["info depth 1 score cp 99999999999999999999"], 2),
            say("Invalid score value: 99999999999999999999")
        );
    }

    #[test]
    fn the_last_score_before_the_pv_decides() {
        assert_eq!(warning(&["info score cp x score cp 5 pv e2e4"], 2), None);
        assert_eq!(
            warning(&["info depth 1 score mate -3 pv e2e4 score cp x"], 2),
            None
        );
        assert_eq!(warning(&["info depth 1 score cp +12 nodes 5"], 3), None);
        // The last exact line is the report; a bad earlier one is not read.
        assert_eq!(
            warning(&["info depth 1 score cp x", "info depth 2 score cp 3"], 3),
            None
        );
    }
}
