//! The `--tc` syntax (also an engine's `tc` in engines.toml): any text gives a time control
//! or a one-line error, and every time control reads back from the way the arena writes it.

use std::time::Duration;

use blitz_arena::timecontrol::TimeControl;
use proptest::prelude::*;
use proptest::sample::select;

use super::{assert_one_line, check, mutated_one_of};

/// Spellings README and the options reference show.
const EXAMPLES: &[&str] = &[
    "5+0",
    "3+2",
    "0.5+0.1",
    "G/5",
    "G/5;d2",
    "G/3;inc2",
    "g/1;d0.5;inc1",
    "30s+0.3s",
    "500ms+5ms",
    "1m",
    "2m+1s",
    "10s+0.1s",
    "1min+100ms",
];

/// Parses and, when it parses, checks what the arena does with the value: its spelling reads
/// back to it and the PGN tag can be written.
fn parse_and_check(text: &str) -> Result<(), TestCaseError> {
    match text.parse::<TimeControl>() {
        Ok(tc) => {
            prop_assert!(!(tc.base.is_zero() && tc.increment.is_zero()), "{text:?}");
            let spelled = tc.to_string();
            prop_assert_eq!(
                spelled.parse::<TimeControl>().ok(),
                Some(tc),
                "{:?} -> {:?}",
                text,
                spelled
            );
            let _ = tc.pgn_tag();
        }
        Err(e) => assert_one_line(&e.to_string()),
    }
    Ok(())
}

#[test]
fn arbitrary_text_parses_or_fails_in_one_line() {
    check(any::<String>(), |text| parse_and_check(&text));
}

#[test]
fn mutated_examples_parse_or_fail_in_one_line() {
    let seeds = EXAMPLES.iter().map(|s| s.as_bytes().to_vec()).collect();
    check(mutated_one_of(seeds, 4), |bytes| {
        parse_and_check(&String::from_utf8_lossy(&bytes))
    });
}

/// A number as a user might type one: plain, decimal, huge, exponent, signed.
fn number() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..100_000u64).prop_map(|n| n.to_string()),
        (0..100_000u64, 0..1_000_000u64).prop_map(|(a, b)| format!("{a}.{b}")),
        (0..1000u64).prop_map(|n| format!(".{n}")),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|x| x.to_string()),
        (0..10u32, -30..330i32).prop_map(|(m, e)| format!("{m}e{e}")),
        select(&["-1", "+1", "-0", "0", "0.0", "1.", "inf", "NaN", "1e13", "1_000"][..])
            .prop_map(String::from),
    ]
}

fn unit() -> impl Strategy<Value = &'static str> {
    select(&["", "", "ms", "s", "m", "min", "h", " s", "S", "sec"][..])
}

#[test]
fn generated_spellings_parse_or_fail_in_one_line() {
    let value = (number(), unit())
        .prop_map(|(n, u)| format!("{n}{u}"))
        .boxed();
    let spelling = prop_oneof![
        (value.clone(), proptest::option::of(value.clone())).prop_map(|(b, i)| match i {
            Some(i) => format!("{b}+{i}"),
            None => b,
        }),
        (
            value.clone(),
            proptest::collection::vec((select(&["d", "inc", "x", ""][..]), value.clone()), 0..3)
        )
            .prop_map(|(b, parts)| {
                let mut s = format!("G/{b}");
                for (kind, v) in parts {
                    s.push_str(&format!(";{kind}{v}"));
                }
                s
            }),
    ];
    check(spelling, |text: String| parse_and_check(&text));
}

#[test]
fn every_time_control_reads_back_from_its_spelling() {
    // Up to the largest time the parser takes (1e12 ms), in microseconds like the clocks.
    let micros = prop_oneof![
        Just(0u64),
        0..10_000_000u64,
        0..1_000_000_000_000_000u64,
        (0..10_000u64).prop_map(|m| m * 60_000_000),
        (0..10_000_000u64).prop_map(|m| m * 1000),
    ];
    check(
        (micros.clone(), micros.clone(), micros),
        |(base, increment, delay)| {
            // A time control has some time (mapped, not filtered: no input is rejected).
            let base = if base + increment == 0 { 1 } else { base };
            let tc = TimeControl {
                base: Duration::from_micros(base),
                increment: Duration::from_micros(increment),
                delay: Duration::from_micros(delay),
                moves: None,
                per_move: false,
            };
            let spelled = tc.to_string();
            prop_assert_eq!(
                spelled.parse::<TimeControl>(),
                Ok(tc),
                "{:?} spelled {:?}",
                tc,
                spelled
            );
            Ok(())
        },
    );
}
