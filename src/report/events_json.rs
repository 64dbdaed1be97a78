//! A game's line of `events.jsonl`: serde's JSON of the [`GameRecord`], byte for byte, with
//! the two events every move records (`go` and `move`) written straight into the line. serde
//! writes each key and each string through `serde_json`'s escaper and its writer, several
//! calls a key; those two events were three quarters of the line's cost (about 4,000
//! instructions a move, `benches/overhead.py --only instructions`). Every other event, the
//! record's fields before its events and the move's text still go through serde_json, into
//! the same buffer.

use serde::Serialize;

use crate::event::{CpuUse, Event, GameRecord, OpeningRecord, Score, SearchInfo, Side};
use crate::rules::Ruleset;
use crate::timecontrol::TimeControl;

/// `serde_json::to_vec(record)`, newline not included.
pub fn line(record: &GameRecord) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(256 + record.events.len() * 128);
    serde_json::to_writer(&mut out, &Head::of(record))?;
    out.pop(); // the head's closing brace: the events follow as its last field
    out.extend_from_slice(b",\"events\":[");
    for (i, event) in record.events.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_event(&mut out, event)?;
    }
    out.extend_from_slice(b"]}");
    Ok(out)
}

/// The record's fields before `events`, in its order, as serde writes them.
#[derive(Serialize)]
struct Head<'a> {
    game: u64,
    pair: u64,
    white: &'a str,
    black: &'a str,
    opening: &'a OpeningRecord,
    ruleset: Ruleset,
    tc_white: &'a TimeControl,
    tc_black: &'a TimeControl,
    seed: u64,
    started: &'a str,
    time_margin_ms: u64,
}

impl Head<'_> {
    fn of(record: &GameRecord) -> Head<'_> {
        // Every field but `events`, named, so that a field added to the record and not here
        // fails to compile rather than drop out of the file.
        let GameRecord {
            game,
            pair,
            white,
            black,
            opening,
            ruleset,
            tc_white,
            tc_black,
            seed,
            started,
            time_margin_ms,
            events: _,
        } = record;
        Head {
            game: *game,
            pair: *pair,
            white,
            black,
            opening,
            ruleset: *ruleset,
            tc_white,
            tc_black,
            seed: *seed,
            started,
            time_margin_ms: *time_margin_ms,
        }
    }
}

fn push_event(out: &mut Vec<u8>, event: &Event) -> serde_json::Result<()> {
    match event {
        Event::Go {
            t_us,
            side,
            clock_us,
            ponderhit,
        } => {
            out.extend_from_slice(b"{\"event\":\"go\",\"t_us\":");
            push_int(out, *t_us);
            push_side(out, *side);
            out.extend_from_slice(b",\"clock_us\":");
            push_int(out, *clock_us);
            if *ponderhit {
                out.extend_from_slice(b",\"ponderhit\":true");
            }
            out.push(b'}');
        }
        Event::Move {
            t_us,
            side,
            uci,
            think_us,
            clock_us,
            info,
        } => {
            out.extend_from_slice(b"{\"event\":\"move\",\"t_us\":");
            push_int(out, *t_us);
            push_side(out, *side);
            out.extend_from_slice(b",\"uci\":");
            push_move_text(out, uci)?;
            out.extend_from_slice(b",\"think_us\":");
            push_int(out, *think_us);
            out.extend_from_slice(b",\"clock_us\":");
            push_int(out, *clock_us);
            if *info != SearchInfo::default() {
                out.extend_from_slice(b",\"info\":");
                push_info(out, info);
            }
            out.push(b'}');
        }
        other => serde_json::to_writer(&mut *out, other)?,
    }
    Ok(())
}

/// A move's text as serde_json writes a string. A UCI move is letters and digits, which JSON
/// needs no escape for (RFC 8259, section 7: only `"`, `\\` and control characters): written
/// as it is. Anything else an engine sent goes through serde_json's escaper.
fn push_move_text(out: &mut Vec<u8>, text: &str) -> serde_json::Result<()> {
    if text.bytes().all(|b| b.is_ascii_alphanumeric()) {
        out.push(b'"');
        out.extend_from_slice(text.as_bytes());
        out.push(b'"');
        Ok(())
    } else {
        serde_json::to_writer(&mut *out, text)
    }
}

fn push_side(out: &mut Vec<u8>, side: Side) {
    out.extend_from_slice(match side {
        Side::White => b",\"side\":\"white\"",
        Side::Black => b",\"side\":\"black\"",
    });
}

/// `SearchInfo` as serde writes it: only the fields that are present, in its order.
fn push_info(out: &mut Vec<u8>, info: &SearchInfo) {
    let SearchInfo {
        score,
        depth,
        nodes,
        seldepth,
        nps,
        cpu,
    } = info;
    let mut fields = Fields::new(out);
    if let Some(score) = score {
        let (key, value): (&[u8], _) = match score {
            Score::Cp(cp) => (b"{\"cp\":", cp),
            Score::Mate(n) => (b"{\"mate\":", n),
        };
        fields.key("score").extend_from_slice(key);
        push_int(fields.out, *value);
        fields.out.push(b'}');
    }
    fields.number("depth", depth.map(i128::from));
    fields.number("nodes", nodes.map(i128::from));
    fields.number("seldepth", seldepth.map(i128::from));
    fields.number("nps", nps.map(i128::from));
    if let Some(cpu) = cpu {
        fields.key("cpu");
        push_cpu(fields.out, cpu);
    }
    fields.close();
}

fn push_cpu(out: &mut Vec<u8>, cpu: &CpuUse) {
    let CpuUse {
        run_us,
        wait_us,
        ended_us,
        pressure_us,
    } = cpu;
    let mut fields = Fields::new(out);
    fields.number("run_us", Some(i128::from(*run_us)));
    fields.number("wait_us", wait_us.map(i128::from));
    fields.number("ended_us", ended_us.map(i128::from));
    fields.number("pressure_us", pressure_us.map(i128::from));
    fields.close();
}

/// A JSON object written field by field, commas between.
struct Fields<'o> {
    out: &'o mut Vec<u8>,
    first: bool,
}

impl<'o> Fields<'o> {
    fn new(out: &'o mut Vec<u8>) -> Fields<'o> {
        out.push(b'{');
        Fields { out, first: true }
    }

    /// Writes `"name":` (after a comma unless it is the first field); the value follows.
    fn key(&mut self, name: &str) -> &mut Vec<u8> {
        if !self.first {
            self.out.push(b',');
        }
        self.first = false;
        self.out.push(b'"');
        self.out.extend_from_slice(name.as_bytes());
        self.out.extend_from_slice(b"\":");
        self.out
    }

    fn number(&mut self, name: &str, value: Option<i128>) {
        if let Some(n) = value {
            self.key(name);
            push_int(self.out, n);
        }
    }

    fn close(self) {
        self.out.push(b'}');
    }
}

/// A whole number as serde_json writes it (serde_json uses itoa too), through itoa's 64-bit
/// path when it fits (its 128-bit division cost five times as much, for every stamp).
fn push_int(out: &mut Vec<u8>, n: impl Into<i128>) {
    let n = n.into();
    let mut buffer = itoa::Buffer::new();
    let digits = match i64::try_from(n) {
        Ok(n) => buffer.format(n),
        Err(_) => buffer.format(n),
    };
    out.extend_from_slice(digits.as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Claimable, GameResult, Termination};
    use rand::rngs::StdRng;
    use rand::{RngExt, SeedableRng};

    fn record(events: Vec<Event>) -> GameRecord {
        let tc: TimeControl = "5+0.05".parse().unwrap();
        GameRecord {
            game: 7,
            pair: 4,
            white: "white \"quoted\"".into(),
            black: "black\\slash".into(),
            opening: OpeningRecord {
                name: "Sicilian".into(),
                fen: Some("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2".into()),
                moves: vec!["e2e4".into(), "c7c5".into()],
                variant: Default::default(),
            },
            ruleset: Ruleset::Uscf,
            tc_white: tc,
            tc_black: "3+2".parse().unwrap(),
            seed: 42,
            started: "2026-11-26T05:36:58.339Z".into(),
            time_margin_ms: 25,
            events,
        }
    }

    fn maybe<T>(rng: &mut StdRng, value: impl FnOnce(&mut StdRng) -> T) -> Option<T> {
        rng.random_bool(0.5).then(|| value(rng))
    }

    fn number(rng: &mut StdRng) -> i64 {
        match rng.random_range(0..4) {
            0 => 0,
            1 => -rng.random_range(1..1_000_000),
            2 => rng.random_range(1..1_000_000_000),
            _ => rng.random(),
        }
    }

    fn text(rng: &mut StdRng) -> String {
        const PIECES: [&str; 9] = [
            "e2e4", "\"", "\\", "\n", "\t", "\u{1}", "\u{7f}", "é", "\u{c}",
        ];
        (0..rng.random_range(0..4))
            .map(|_| PIECES[rng.random_range(0..PIECES.len())])
            .collect()
    }

    fn event(rng: &mut StdRng) -> Event {
        let side = if rng.random_bool(0.5) {
            Side::White
        } else {
            Side::Black
        };
        match rng.random_range(0..3) {
            0 => Event::Go {
                t_us: number(rng),
                side,
                clock_us: number(rng),
                ponderhit: rng.random_bool(0.3),
            },
            1 => Event::Move {
                t_us: number(rng),
                side,
                uci: text(rng),
                think_us: number(rng),
                clock_us: number(rng),
                info: SearchInfo {
                    score: match rng.random_range(0..3) {
                        0 => None,
                        1 => Some(Score::Cp(rng.random())),
                        _ => Some(Score::Mate(rng.random_range(-30..30))),
                    },
                    depth: maybe(rng, |r| r.random()),
                    nodes: maybe(rng, |r| r.random()),
                    seldepth: maybe(rng, |r| r.random()),
                    nps: maybe(rng, |r| r.random()),
                    cpu: maybe(rng, |r| CpuUse {
                        run_us: number(r),
                        wait_us: maybe(r, number),
                        ended_us: maybe(r, number),
                        pressure_us: maybe(r, number),
                    }),
                },
            },
            _ => Event::Claim {
                t_us: number(rng),
                by: side,
                what: Claimable::Flag,
            },
        }
    }

    #[test]
    fn the_line_is_serde_s_json_byte_for_byte() {
        let mut rng = StdRng::seed_from_u64(25);
        for _ in 0..2_000 {
            let mut events: Vec<Event> = (0..rng.random_range(0..6))
                .map(|_| event(&mut rng))
                .collect();
            events.push(Event::End {
                t_us: number(&mut rng),
                result: GameResult::Draw,
                termination: Termination::Fivefold,
                rule: "FIDE 9.6.1".into(),
                detail: text(&mut rng),
                white_clock_us: number(&mut rng),
                black_clock_us: number(&mut rng),
            });
            let record = record(events);
            assert_eq!(line(&record).unwrap(), serde_json::to_vec(&record).unwrap());
        }
        assert_eq!(
            line(&record(vec![])).unwrap(),
            serde_json::to_vec(&record(vec![])).unwrap()
        );
    }

    #[test]
    fn every_control_character_is_escaped_as_serde_escapes_it() {
        let all: String = (0u8..0x80).map(char::from).collect();
        let record = record(vec![Event::Move {
            t_us: 1,
            side: Side::White,
            uci: all,
            think_us: 1,
            clock_us: 1,
            info: SearchInfo::default(),
        }]);
        assert_eq!(line(&record).unwrap(), serde_json::to_vec(&record).unwrap());
    }
}
