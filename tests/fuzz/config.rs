//! engines.toml as a user writes it, or garbles it: a roster or a one-line error that names
//! the file, never a panic; and a valid roster is read as written.

use std::path::Path;

use blitz_arena::config::parse_roster;
use blitz_arena::settings::{Launch, BUILTIN_ENGINES};
use blitz_arena::timecontrol::TimeControl;
use proptest::prelude::*;
use proptest::sample::select;

use super::{assert_one_line, check, mutated_one_of};

const FILE: &str = "/fuzz/engines.toml";

/// The project's engines.toml, and one that uses every key.
fn seeds() -> Vec<Vec<u8>> {
    let full = r#"
[run]
tc = "3+2"
games = 10
openings = "books/8moves.epd"
openings-order = "sequential"
concurrency = 2
ruleset = "uscf"
seed = "18446744073709551615"
out = "results/x"
max-moves = 120
nodes = 1000
depth = 8
draw-adjudication = "movenumber=40,movecount=8,score=10"
resign-adjudication = "movecount=3,score=1000,twosided=true"
time-margin = 50
flag-notice-ms = 250.5
claim-ms = 300
illegal-notice = 0.5
claim-draws = "never"
inject-illegal = 0.01
illegal-kinds = ["king-exposed", "no-move"]
inject-flag = 0.1
inject-flag-mode = "both"
flag-overshoot-ms = "0..500"
flag-gap-ms = "0..100"
sprt = "elo0=0,elo1=5,alpha=0.05,beta=0.05"
shard = "1/4"

[engines.stockfish]
cmd = "/usr/games/stockfish"
args = ["--flag", "x y"]
dir = "~/engines"
env = { LD_LIBRARY_PATH = "/opt/lib", THREADS = 2, DEBUG = true }
options = { Hash = 16, Threads = 1, "Clear Hash" = true, EvalFile = "nn.nnue", Contempt = -0.5 }
tc = "G/5;d2"

[engines."sf-16.1"]
cmd = "bin/sf"

[engines.minimax]
builtin = "minimax"
args = ["--depth", "3"]
"#;
    vec![
        include_bytes!("../../engines.toml").to_vec(),
        full.as_bytes().to_vec(),
    ]
}

/// Reads the text as engines.toml; an error must be one line that names the file.
fn parse_and_check(text: &str) -> Result<(), TestCaseError> {
    match parse_roster(text, Path::new(FILE)) {
        Ok(roster) => {
            for (name, engine) in &roster.engines {
                prop_assert_eq!(name, &engine.name);
                prop_assert!(!name.is_empty());
            }
        }
        Err(e) => {
            let message = e.to_string();
            assert_one_line(&message);
            prop_assert!(message.contains(FILE), "{}", message);
        }
    }
    Ok(())
}

#[test]
fn arbitrary_text_reads_or_fails_in_one_line() {
    check(any::<String>(), |text| parse_and_check(&text));
}

#[test]
fn mutated_rosters_read_or_fail_in_one_line() {
    check(mutated_one_of(seeds(), 8), |bytes| {
        // engines.toml is read as UTF-8 text; invalid bytes are a read error before parsing.
        match String::from_utf8(bytes) {
            Ok(text) => parse_and_check(&text),
            Err(_) => Ok(()),
        }
    });
}

/// Keys and values of engines.toml, valid and not, for files assembled line by line.
fn toml_line() -> impl Strategy<Value = String> {
    let key = select(
        &[
            "cmd",
            "builtin",
            "args",
            "dir",
            "env",
            "options",
            "tc",
            "games",
            "seed",
            "concurrency",
            "ruleset",
            "openings",
            "illegal-kinds",
            "inject-flag",
            "flag-notice-ms",
            "draw-adjudication",
            "resign-adjudication",
            "max-moves",
            "time-margin",
            "depth",
            "\"\"",
            "\"a.b\"",
            "a.b",
            "x",
        ][..],
    );
    let value = select(
        &[
            "\"minimax\"",
            "\"random\"",
            "\"nope\"",
            "\"/usr/games/stockfish\"",
            "\"\"",
            "\"3+2\"",
            "\"0+0\"",
            "\"G/5;d2\"",
            "\"movenumber=40,movecount=8,score=10\"",
            "\"movecount=0,score=-1\"",
            "0",
            "-1",
            "1",
            "1.5",
            "nan",
            "inf",
            "9223372036854775807",
            "99999999999999999999",
            "true",
            "[]",
            "[1, \"a\"]",
            "[\"a\", \"b\"]",
            "{}",
            "{ Hash = 16 }",
            "{ \"\" = 1 }",
            "{ A = [1] }",
            "{ \"a\\nb\" = 1 }",
            "\"a\\nb\"",
            "\"\\u0000\"",
            "1979-05-27T07:32:00Z",
            "'''x\ny'''",
        ][..],
    );
    let header = select(
        &[
            "[run]",
            "[engines.a]",
            "[engines.b]",
            "[engines.\"sf-16.1\"]",
            "[engines.sf-16.1]",
            "[engines.\"\"]",
            "[engines.\"a b\"]",
            "[engines]",
            "[[engines]]",
            "[other]",
            "[engines.a.options]",
            "[engines.a.env]",
        ][..],
    );
    prop_oneof![
        3 => (key, value).prop_map(|(k, v)| format!("{k} = {v}")),
        1 => header.prop_map(String::from),
    ]
}

#[test]
fn assembled_rosters_read_or_fail_in_one_line() {
    check(proptest::collection::vec(toml_line(), 0..12), |lines| {
        parse_and_check(&lines.join("\n"))
    });
}

/// An engine table as a user writes one, and what the roster must hold for it.
#[derive(Debug, Clone)]
struct EngineSpec {
    name: String,
    builtin: &'static str,
    args: Vec<String>,
    options: Vec<(String, i64)>,
    tc: Option<TimeControl>,
}

fn engine_spec() -> impl Strategy<Value = EngineSpec> {
    (
        "[A-Za-z0-9_.-]{1,12}",
        select(BUILTIN_ENGINES),
        proptest::collection::vec("[ -~]{0,8}", 0..3),
        proptest::collection::vec(
            ("[A-Za-z][A-Za-z0-9 ]{0,10}[A-Za-z0-9]", any::<i64>()),
            0..4,
        ),
        proptest::option::of((1..100_000_000u64, 0..10_000_000u64).prop_map(|(b, i)| {
            TimeControl {
                base: std::time::Duration::from_micros(b),
                increment: std::time::Duration::from_micros(i),
                delay: std::time::Duration::ZERO,
                moves: None,
                per_move: false,
            }
        })),
    )
        .prop_map(|(name, builtin, args, mut options, tc)| {
            // UCI option names ignore case: a roster gives each once.
            let mut seen = std::collections::HashSet::new();
            options.retain(|(k, _)| seen.insert(k.to_ascii_lowercase()));
            EngineSpec {
                name,
                builtin,
                args,
                options,
                tc,
            }
        })
}

/// A TOML basic string.
fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[test]
fn a_valid_roster_is_read_as_written() {
    check(proptest::collection::vec(engine_spec(), 1..4), |specs| {
        let mut specs = specs;
        let mut seen = std::collections::HashSet::new();
        specs.retain(|s| seen.insert(s.name.clone()));
        let mut text = String::new();
        for s in &specs {
            text.push_str(&format!("[engines.{}]\n", quoted(&s.name)));
            text.push_str(&format!("builtin = {}\n", quoted(s.builtin)));
            let args: Vec<String> = s.args.iter().map(|a| quoted(a)).collect();
            text.push_str(&format!("args = [{}]\n", args.join(", ")));
            if let Some(tc) = s.tc {
                text.push_str(&format!("tc = {}\n", quoted(&tc.to_string())));
            }
            let options: Vec<String> = s
                .options
                .iter()
                .map(|(k, v)| format!("{} = {v}", quoted(k)))
                .collect();
            text.push_str(&format!("options = {{ {} }}\n\n", options.join(", ")));
        }
        let roster = match parse_roster(&text, Path::new(FILE)) {
            Ok(r) => r,
            Err(e) => return Err(TestCaseError::fail(format!("{e}\n{text}"))),
        };
        prop_assert_eq!(roster.engines.len(), specs.len());
        for s in &specs {
            let e = roster.engine(&s.name).expect("engine in the roster");
            prop_assert_eq!(
                &e.launch,
                &Launch::Builtin {
                    name: s.builtin.to_string(),
                    args: s.args.clone()
                }
            );
            let options: Vec<(String, String)> = s
                .options
                .iter()
                .map(|(k, v)| (k.clone(), v.to_string()))
                .collect();
            prop_assert_eq!(&e.options, &options);
            prop_assert_eq!(e.tc, s.tc);
        }
        Ok(())
    });
}
