//! A game's line of `events.jsonl`: serde's JSON of the [`GameRecord`], byte for byte, with
//! the two events every move records (`go` and `move`) written straight into the line. serde
//! writes each key and each string through `serde_json`'s escaper and its writer, several
//! calls a key; those two events were three quarters of the line's cost (about 4,000
//! instructions a move, `benches/overhead.py --only instructions`). The record's fields before
//! its events are written field by field too (serde's map of them was a tenth of the line).
//! Every other event, every string but a plain UCI move, and the enums still go through
//! serde_json, into the same buffer.

use crate::event::{CpuUse, Event, GameRecord, OpeningRecord, Score, SearchInfo, Side};
use crate::timecontrol::TimeControl;

/// `serde_json::to_vec(record)`, newline not included.
pub fn line(record: &GameRecord) -> serde_json::Result<Vec<u8>> {
    // The record's fields before its events take some 600 bytes; a move's two events some
    // 230 (`go` and `move`, with the CPU it got).
    let mut out = Vec::with_capacity(1024 + record.events.len() * 128);
    push_head(&mut out, record)?;
    out.extend_from_slice(b",\"events\":[");
    let mut text = Text::default();
    for (i, event) in record.events.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_event(&mut out, &mut text, event)?;
    }
    out.extend_from_slice(b"]}");
    Ok(out)
}

/// The record's fields before `events`, in its order, as serde writes them (its `derive`d
/// `Serialize`), without the closing brace: the events follow as the last field. Each struct
/// is taken apart field by field, so that a field added to it and not here fails to compile
/// rather than drop out of the file. Strings and enums go through serde_json.
fn push_head(out: &mut Vec<u8>, record: &GameRecord) -> serde_json::Result<()> {
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
    out.extend_from_slice(b"{\"game\":");
    push_int(out, *game);
    out.extend_from_slice(b",\"pair\":");
    push_int(out, *pair);
    out.extend_from_slice(b",\"white\":");
    serde_json::to_writer(&mut *out, white)?;
    out.extend_from_slice(b",\"black\":");
    serde_json::to_writer(&mut *out, black)?;
    out.extend_from_slice(b",\"opening\":");
    push_opening(out, opening)?;
    out.extend_from_slice(b",\"ruleset\":");
    serde_json::to_writer(&mut *out, ruleset)?;
    out.extend_from_slice(b",\"tc_white\":");
    push_time_control(out, tc_white);
    out.extend_from_slice(b",\"tc_black\":");
    push_time_control(out, tc_black);
    out.extend_from_slice(b",\"seed\":");
    push_int(out, *seed);
    out.extend_from_slice(b",\"started\":");
    serde_json::to_writer(&mut *out, started)?;
    out.extend_from_slice(b",\"time_margin_ms\":");
    push_int(out, *time_margin_ms);
    Ok(())
}

/// `OpeningRecord` as serde writes it: `fen`, `moves` and `variant` only when they are not
/// their defaults.
fn push_opening(out: &mut Vec<u8>, opening: &OpeningRecord) -> serde_json::Result<()> {
    let OpeningRecord {
        name,
        fen,
        moves,
        variant,
    } = opening;
    out.extend_from_slice(b"{\"name\":");
    serde_json::to_writer(&mut *out, name)?;
    if let Some(fen) = fen {
        out.extend_from_slice(b",\"fen\":");
        serde_json::to_writer(&mut *out, fen)?;
    }
    if !moves.is_empty() {
        out.extend_from_slice(b",\"moves\":");
        serde_json::to_writer(&mut *out, moves)?;
    }
    if !variant.is_standard() {
        out.extend_from_slice(b",\"variant\":");
        serde_json::to_writer(&mut *out, variant)?;
    }
    out.push(b'}');
    Ok(())
}

/// `TimeControl` as serde writes it: each `Duration` as `{"secs":..,"nanos":..}` (serde's
/// own form), `moves` and `per_move` only when set.
fn push_time_control(out: &mut Vec<u8>, tc: &TimeControl) {
    let TimeControl {
        base,
        increment,
        delay,
        moves,
        per_move,
    } = tc;
    for (key, duration) in [
        (&b"{\"base\":"[..], base),
        (b",\"increment\":", increment),
        (b",\"delay\":", delay),
    ] {
        out.extend_from_slice(key);
        out.extend_from_slice(b"{\"secs\":");
        push_int(out, duration.as_secs());
        out.extend_from_slice(b",\"nanos\":");
        push_int(out, duration.subsec_nanos());
        out.push(b'}');
    }
    if let Some(moves) = moves {
        out.extend_from_slice(b",\"moves\":");
        push_int(out, *moves);
    }
    if *per_move {
        out.extend_from_slice(b",\"per_move\":true");
    }
    out.push(b'}');
}

/// A whole number as serde_json writes it (serde_json uses itoa too).
fn push_int(out: &mut Vec<u8>, n: impl Into<u64>) {
    out.extend_from_slice(itoa::Buffer::new().format(n.into()).as_bytes());
}

/// An event's text, put together on the stack and appended to the line at once (pushed piece
/// by piece onto the line, each piece checked its room and went through `memcpy`). Room for the
/// longest `go` or `move` event with a move text of `MOVE_ROOM` bytes: 14 numbers of at most
/// 20 characters and their keys, some 550 bytes.
type Text = crate::decimal::Ascii<640>;

/// The longest move text put in an event's [`Text`]; a longer one (an engine's garbage) is
/// written to the line directly.
const MOVE_ROOM: usize = 16;

fn push_event(out: &mut Vec<u8>, text: &mut Text, event: &Event) -> serde_json::Result<()> {
    text.clear();
    match event {
        Event::Go {
            t_us,
            side,
            clock_us,
            ponderhit,
        } => {
            text.push_bytes(b"{\"event\":\"go\",\"t_us\":");
            text.push_i64(*t_us);
            push_side(text, *side);
            text.push_bytes(b",\"clock_us\":");
            text.push_i64(*clock_us);
            if *ponderhit {
                text.push_bytes(b",\"ponderhit\":true");
            }
            text.push(b'}');
        }
        Event::Move {
            t_us,
            side,
            uci,
            think_us,
            clock_us,
            info,
        } => {
            text.push_bytes(b"{\"event\":\"move\",\"t_us\":");
            text.push_i64(*t_us);
            push_side(text, *side);
            text.push_bytes(b",\"uci\":");
            push_move_text(out, text, uci)?;
            text.push_bytes(b",\"think_us\":");
            text.push_i64(*think_us);
            text.push_bytes(b",\"clock_us\":");
            text.push_i64(*clock_us);
            if *info != SearchInfo::default() {
                text.push_bytes(b",\"info\":");
                push_info(text, info);
            }
            text.push(b'}');
        }
        other => return serde_json::to_writer(&mut *out, other),
    }
    out.extend_from_slice(text.as_bytes());
    Ok(())
}

/// A move's text as serde_json writes a string. A UCI move is letters and digits, which JSON
/// needs no escape for (RFC 8259, section 7: only `"`, `\\` and control characters): written
/// as it is. Anything else an engine sent goes through serde_json's escaper, straight to the
/// line after the event's text so far.
fn push_move_text(out: &mut Vec<u8>, text: &mut Text, uci: &str) -> serde_json::Result<()> {
    if uci.len() <= MOVE_ROOM && uci.bytes().all(|b| b.is_ascii_alphanumeric()) {
        text.push(b'"');
        text.push_bytes(uci.as_bytes());
        text.push(b'"');
        Ok(())
    } else {
        out.extend_from_slice(text.as_bytes());
        text.clear();
        serde_json::to_writer(&mut *out, uci)
    }
}

fn push_side(text: &mut Text, side: Side) {
    text.push_bytes(match side {
        Side::White => b",\"side\":\"white\"",
        Side::Black => b",\"side\":\"black\"",
    });
}

/// `SearchInfo` as serde writes it: only the fields that are present, in its order.
fn push_info(text: &mut Text, info: &SearchInfo) {
    let SearchInfo {
        score,
        depth,
        nodes,
        seldepth,
        nps,
        cpu,
    } = info;
    let mut fields = Fields::new(text);
    if let Some(score) = score {
        let (key, value): (&[u8], _) = match score {
            Score::Cp(cp) => (b"{\"cp\":", cp),
            Score::Mate(n) => (b"{\"mate\":", n),
        };
        fields.key(b"\"score\":");
        fields.text.push_bytes(key);
        fields.text.push_i64(i64::from(*value));
        fields.text.push(b'}');
    }
    fields.unsigned(b"\"depth\":", depth.map(u64::from));
    fields.unsigned(b"\"nodes\":", *nodes);
    fields.unsigned(b"\"seldepth\":", seldepth.map(u64::from));
    fields.unsigned(b"\"nps\":", *nps);
    if let Some(cpu) = cpu {
        fields.key(b"\"cpu\":");
        push_cpu(fields.text, cpu);
    }
    fields.close();
}

fn push_cpu(text: &mut Text, cpu: &CpuUse) {
    let CpuUse {
        run_us,
        wait_us,
        ended_us,
        pressure_us,
    } = cpu;
    let mut fields = Fields::new(text);
    fields.signed(b"\"run_us\":", Some(*run_us));
    fields.signed(b"\"wait_us\":", *wait_us);
    fields.signed(b"\"ended_us\":", *ended_us);
    fields.signed(b"\"pressure_us\":", *pressure_us);
    fields.close();
}

/// A JSON object written field by field, commas between.
struct Fields<'t> {
    text: &'t mut Text,
    first: bool,
}

impl<'t> Fields<'t> {
    fn new(text: &'t mut Text) -> Fields<'t> {
        text.push(b'{');
        Fields { text, first: true }
    }

    /// Writes `key` (`"name":`) after a comma unless it is the first field; the value follows.
    fn key(&mut self, key: &[u8]) {
        if !self.first {
            self.text.push(b',');
        }
        self.first = false;
        self.text.push_bytes(key);
    }

    fn unsigned(&mut self, key: &[u8], value: Option<u64>) {
        if let Some(n) = value {
            self.key(key);
            self.text.push_u64(n);
        }
    }

    fn signed(&mut self, key: &[u8], value: Option<i64>) {
        if let Some(n) = value {
            self.key(key);
            self.text.push_i64(n);
        }
    }

    fn close(self) {
        self.text.push(b'}');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Claimable, GameResult, Termination};
    use crate::rules::Ruleset;
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

    /// The record's fields before its events, each optional part present or not.
    fn vary_head(rng: &mut StdRng, record: &mut GameRecord) {
        record.game = rng.random();
        record.pair = rng.random_range(0..3);
        record.seed = rng.random();
        record.time_margin_ms = rng.random();
        record.white = text(rng);
        record.started = text(rng);
        record.ruleset = [Ruleset::Fide, Ruleset::Online, Ruleset::House][rng.random_range(0..3)];
        let opening = &mut record.opening;
        opening.name = text(rng);
        opening.fen = maybe(rng, text);
        opening.moves = (0..rng.random_range(0..3)).map(|_| text(rng)).collect();
        opening.variant = if rng.random_bool(0.5) {
            crate::vocabulary::Variant::Chess960
        } else {
            crate::vocabulary::Variant::Standard
        };
        for tc in [&mut record.tc_white, &mut record.tc_black] {
            tc.base = std::time::Duration::from_nanos(rng.random());
            tc.increment = std::time::Duration::from_micros(rng.random_range(0..10_000_000));
            tc.moves = maybe(rng, |r| r.random());
            tc.per_move = rng.random_bool(0.3);
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
        // A move longer than `MOVE_ROOM` goes to the line directly, escaped or not.
        const PIECES: [&str; 11] = [
            "e2e4",
            "\"",
            "\\",
            "\n",
            "\t",
            "\u{1}",
            "\u{7f}",
            "é",
            "\u{c}",
            "g7g8q",
            "abcdefgh12345678",
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
            let mut record = record(events);
            vary_head(&mut rng, &mut record);
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
