//! What the arbiter saw, in words for the page: never a type's debug text (`Crash { status:
//! Some(139) }`, `IllegalMove`).

use crate::event::{Claimable, Event, Fault, Injection, Side};
use crate::vocabulary::{FlagMode, IllegalKind};

/// What a watcher noticed or claimed, from the watcher `by`'s side.
pub fn claimable(by: Side, what: Claimable) -> String {
    let other = by.other().name();
    match what {
        Claimable::Flag => format!("{other}'s fallen flag"),
        Claimable::IllegalMove => format!("{other}'s illegal move"),
        Claimable::KingCapture => format!("a win by capturing {other}'s king"),
    }
}

pub fn fault(fault: &Fault) -> String {
    match fault {
        Fault::Crash { status: Some(s) } => format!("crashed (exit status {s})"),
        Fault::Crash { status: None } => "crashed".to_string(),
        Fault::Stall => "stalled (did not answer stop after its flag fell)".to_string(),
        Fault::StartFailed => "could not be started".to_string(),
    }
}

fn illegal_kind(kind: IllegalKind) -> &'static str {
    match kind {
        IllegalKind::KingExposed => "leaving its king in check",
        IllegalKind::KingsAdjacent => "putting its king next to the other king",
        IllegalKind::NoMove => "pressing the clock without a move",
        IllegalKind::NoPromotion => "a pawn on the last rank without its piece",
        IllegalKind::BadPieceMove => "a piece moving against its rules",
        IllegalKind::BadCastle => "castling that is not allowed",
    }
}

fn flag_mode(mode: FlagMode) -> &'static str {
    match mode {
        FlagMode::Stall => "stalling past its flag",
        FlagMode::Both => "both flags falling",
        FlagMode::AtMate => "its flag falling on its mating move",
    }
}

/// An injection into `side`'s play.
pub fn injection(side: Side, what: &Injection) -> String {
    let side = side.name();
    match what {
        Injection::Illegal {
            kind,
            replaced,
            sent,
        } => format!(
            "injected: {side}'s {replaced} replaced by the illegal {sent} ({})",
            illegal_kind(*kind)
        ),
        Injection::IllegalNotPossible { replaced } => {
            format!("injection not possible: no illegal move could replace {side}'s {replaced}")
        }
        Injection::Flag { mode, overshoot_ms } => format!(
            "injected: {side}'s move held until {overshoot_ms} ms past its flag ({})",
            flag_mode(*mode)
        ),
        Injection::FlagNotPossible { mode, why } => {
            format!("flag injection ({}) not possible: {why}", flag_mode(*mode))
        }
    }
}

/// An injection label of `games.csv` (`illegal:king-exposed`, `flag:at-mate:not-possible`) in
/// words.
pub fn injection_label(label: &str) -> String {
    let not_possible = label.ends_with(":not-possible");
    let base = label.trim_end_matches(":not-possible");
    let words = match base.split_once(':') {
        Some(("illegal", kind)) => match kind.parse::<IllegalKind>() {
            Ok(kind) => format!("illegal move: {}", illegal_kind(kind)),
            Err(_) => "illegal move".to_string(),
        },
        Some(("flag", mode)) => match mode {
            "stall" => format!("flag: {}", flag_mode(FlagMode::Stall)),
            "both" => format!("flag: {}", flag_mode(FlagMode::Both)),
            "at-mate" => format!("flag: {}", flag_mode(FlagMode::AtMate)),
            _ => "flag".to_string(),
        },
        _ if base == "illegal" => "illegal move".to_string(),
        _ => base.to_string(),
    };
    if not_possible {
        format!("{words} (not possible)")
    } else {
        words
    }
}

/// What a marker on a clock chart stands for: its `data-kind`, the side it concerns, the
/// event in words and its colour.
pub fn marker(event: &Event) -> Option<(&'static str, Side, String, &'static str)> {
    Some(match event {
        Event::FlagFall { side, .. } => (
            "flag",
            *side,
            format!("{}'s flag falls", side.name()),
            "#d00",
        ),
        Event::Notice { by, what, .. } => (
            "notice",
            *by,
            format!("{}'s watcher notices {}", by.name(), claimable(*by, *what)),
            "#e69500",
        ),
        Event::Claim { by, what, .. } => (
            "claim",
            *by,
            format!("{} claims {}", by.name(), claimable(*by, *what)),
            "#8a2be2",
        ),
        Event::Penalty {
            side, add_us, rule, ..
        } => {
            let secs = *add_us as f64 / 1e6;
            let text = if *add_us >= 0 {
                format!("{} is given {secs:.0} s more ({rule})", side.name())
            } else {
                format!("{} is charged {:.0} s ({rule})", side.name(), -secs)
            };
            ("penalty", *side, text, "#008b8b")
        }
        Event::IllegalMove {
            side, uci, reason, ..
        } => (
            "illegal",
            *side,
            format!("{} plays the illegal {uci}: {reason}", side.name()),
            "#000",
        ),
        Event::Injected { side, what, .. } => {
            ("injection", *side, injection(*side, what), "#ff1493")
        }
        Event::Unnoticed { by, .. } => (
            "unnoticed",
            *by,
            format!("{}'s watcher misses the illegal move: it stands", by.name()),
            "#777",
        ),
        Event::EngineFault {
            side,
            fault: f,
            detail,
            ..
        } => (
            "fault",
            *side,
            if detail.is_empty() {
                format!("{}'s engine {}", side.name(), fault(f))
            } else {
                format!("{}'s engine {}: {detail}", side.name(), fault(f))
            },
            "#a52a2a",
        ),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_read_as_words() {
        let crash = Event::EngineFault {
            t_us: 0,
            side: Side::Black,
            fault: Fault::Crash { status: Some(139) },
            detail: String::new(),
        };
        assert_eq!(
            marker(&crash).unwrap().2,
            "black's engine crashed (exit status 139)"
        );
        let claim = Event::Claim {
            t_us: 0,
            by: Side::White,
            what: Claimable::IllegalMove,
        };
        assert_eq!(
            marker(&claim).unwrap().2,
            "white claims black's illegal move"
        );
        let notice = Event::Notice {
            t_us: 0,
            by: Side::Black,
            what: Claimable::Flag,
        };
        assert_eq!(
            marker(&notice).unwrap().2,
            "black's watcher notices white's fallen flag"
        );
        assert_eq!(
            injection_label("flag:at-mate:not-possible"),
            "flag: its flag falling on its mating move (not possible)"
        );
        assert_eq!(
            injection_label("illegal:no-move"),
            "illegal move: pressing the clock without a move"
        );
    }
}
