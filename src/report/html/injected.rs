//! The injections chart: one bar per kind of injection made (per ruleset), split by how the
//! games it touched were ruled, each ruling in one colour across the chart; injections that
//! could not be made are listed apart, so they never outweigh the ones that were.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::svg::{esc, text_width, PALETTE};
use super::words::injection_label;
use crate::report::InjectionSummary;

/// A ruling's key and its words: `flag (FIDE 6.9)`.
fn ruling(termination: &str, rule: &str) -> String {
    if rule.is_empty() {
        termination.to_string()
    } else {
        format!("{termination} ({rule})")
    }
}

pub fn chart(out: &mut String, inj: &InjectionSummary) {
    let made: Vec<_> = inj
        .injected
        .iter()
        .filter(|((_, label), _)| !label.ends_with(":not-possible"))
        .collect();
    let rulings: BTreeSet<String> = made
        .iter()
        .flat_map(|(_, i)| i.rulings.keys().map(|(t, r)| ruling(t, r)))
        .collect();
    let colour_of = |r: &str| {
        let i = rulings.iter().position(|x| x == r).unwrap_or(0);
        PALETTE[i % PALETTE.len()]
    };
    let label = |ruleset: &str, label: &str| format!("{ruleset}: {}", injection_label(label));
    let text = |count: u32, games: u32| {
        format!(
            "{count} injection{} in {games} game{}",
            if count == 1 { "" } else { "s" },
            if games == 1 { "" } else { "s" }
        )
    };
    let row = 20.0;
    let label_w = made
        .iter()
        .map(|((rs, l), _)| text_width(&label(rs, l)))
        .fold(60.0, f64::max);
    let text_w = made
        .iter()
        .map(|(_, i)| text_width(&text(i.count, i.games)))
        .fold(40.0, f64::max);
    let bar_w = 360.0;
    let max = made.iter().map(|(_, i)| i.games).max().unwrap_or(1).max(1) as f64;
    let (w, h) = (
        label_w + bar_w + text_w + 8.0,
        row * made.len() as f64 + 8.0,
    );
    let _ = write!(
        out,
        r#"<div class="chart"><svg class="bars" xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.0} {h:.0}" data-chart="injections">"#
    );
    for (i, ((ruleset, key), injected)) in made.iter().enumerate() {
        let y = 4.0 + i as f64 * row;
        let name = label(ruleset, key);
        let _ = write!(
            out,
            r#"<g data-ruleset="{}" data-injection="{}" data-count="{}" data-games="{}"><text x="{:.1}" y="{:.1}" font-size="11" text-anchor="end">{}</text>"#,
            esc(ruleset),
            esc(key),
            injected.count,
            injected.games,
            label_w - 6.0,
            y + 13.0,
            esc(&name)
        );
        let mut x = label_w;
        for ((termination, rule), n) in &injected.rulings {
            let len = *n as f64 / max * bar_w;
            let words = ruling(termination, rule);
            let _ = write!(
                out,
                r##"<rect x="{x:.1}" y="{y:.1}" width="{len:.1}" height="{:.1}" fill="{}" stroke="#fff" data-termination="{}" data-rule="{}" data-ruled="{n}"><title>{}: {n} game{} ruled {}</title></rect>"##,
                row - 4.0,
                colour_of(&words),
                esc(termination),
                esc(rule),
                esc(&name),
                if *n == 1 { "" } else { "s" },
                esc(&words)
            );
            x += len;
        }
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" font-size="11">{}</text></g>"#,
            x + 4.0,
            y + 13.0,
            text(injected.count, injected.games)
        );
    }
    out.push_str(r#"</svg></div><p class="small">Each bar: the games an injection touched, split by how they were ruled: "#);
    for r in &rulings {
        let _ = write!(
            out,
            r#"<span class="dot" style="background:{}"></span>{} "#,
            colour_of(r),
            esc(r)
        );
    }
    out.push_str("</p>");
    let not_possible: Vec<_> = inj
        .injected
        .iter()
        .filter(|((_, label), _)| label.ends_with(":not-possible"))
        .collect();
    if !not_possible.is_empty() {
        out.push_str(r#"<p class="small">Drawn for injection but not possible in the position (nothing was injected):</p><table class="notpossible"><tr><th>ruleset</th><th>injection</th><th>times</th><th>games</th></tr>"#);
        for ((ruleset, key), injected) in not_possible {
            let _ = write!(
                out,
                r#"<tr data-ruleset="{}" data-injection="{}" data-count="{}"><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>"#,
                esc(ruleset),
                esc(key),
                injected.count,
                esc(ruleset),
                esc(&injection_label(key)),
                injected.count,
                injected.games
            );
        }
        out.push_str("</table>");
    }
}
