//! One game's section of the report: both clocks against the game's time, with everything the
//! arbiter saw marked where it happened (flag falls, notices, claims, penalties, illegal moves,
//! injections, engine faults), and the final ruling with its citation.

use std::fmt::Write;

use super::board::{replay, replay_html};
use super::svg::{esc, num, Plot};
use super::words::marker as marker_kind;
use crate::event::{BySide, Event, GameRecord, Side};

/// Each side's clock as (seconds since the start, seconds left) points: from the game's start
/// at its base time (so that a penalty before its first `go` shows), falling while the side's
/// clock runs, flat while it stands, stepping at increments and penalties.
fn clock_lines(record: &GameRecord) -> BySide<Vec<(f64, f64)>> {
    let sec = |us: i64| us as f64 / 1e6;
    let base = BySide::from_fn(|s| record.tc(s).base.as_micros() as i64);
    let mut lines = base.map(|b| vec![(0.0, sec(b))]);
    let mut running: Option<(Side, i64, i64)> = None;
    let mut stopped = base.map(Some);
    let now =
        |running: Option<(Side, i64, i64)>, side: Side, t: i64, stopped: &BySide<Option<i64>>| {
            match running {
                Some((s, go_t, go_clock)) if s == side => Some(go_clock - (t - go_t)),
                _ => stopped[side],
            }
        };
    for event in &record.events {
        match event {
            Event::Go {
                t_us,
                side,
                clock_us,
                ..
            } => {
                lines[*side].push((sec(*t_us), sec(*clock_us)));
                running = Some((*side, *t_us, *clock_us));
            }
            Event::Move {
                t_us,
                side,
                clock_us,
                ..
            }
            | Event::IllegalMove {
                t_us,
                side,
                clock_us,
                ..
            } => {
                if let Some(before) = now(running, *side, *t_us, &stopped) {
                    lines[*side].push((sec(*t_us), sec(before)));
                }
                lines[*side].push((sec(*t_us), sec(*clock_us)));
                stopped[*side] = Some(*clock_us);
                if running.is_some_and(|r| r.0 == *side) {
                    running = None;
                }
            }
            Event::Penalty {
                t_us, side, add_us, ..
            } => {
                if let Some(before) = now(running, *side, *t_us, &stopped) {
                    lines[*side].push((sec(*t_us), sec(before)));
                    lines[*side].push((sec(*t_us), sec(before + add_us)));
                    match &mut running {
                        Some((s, _, go_clock)) if *s == *side => *go_clock += add_us,
                        _ => stopped[*side] = Some(before + add_us),
                    }
                }
            }
            Event::End {
                t_us,
                white_clock_us,
                black_clock_us,
                ..
            } => {
                lines.white.push((sec(*t_us), sec(*white_clock_us)));
                lines.black.push((sec(*t_us), sec(*black_clock_us)));
            }
            _ => {}
        }
    }
    lines
}

/// The section of one game: `id="game-N"`, its clock chart, its board and moves, and its
/// ruling. `rulings` are the same game re-ruled under each ruleset (name, ruling), shown side
/// by side when given; `colours` are white's and black's engines' colours on the page.
pub fn game_section(
    record: &GameRecord,
    rulings: &[(String, String)],
    colours: BySide<&str>,
) -> String {
    let (plot, notes) = clock_plot(record, colours);
    let board = replay_html(record, &replay(record), &|t| plot.x(t));
    let chart = plot.finish(
        "seconds since the start",
        "clock (s)",
        &format!(r#"data-chart="clock" data-game="{}""#, record.game),
    );
    let mut out = String::with_capacity(chart.len() + notes.len() + 1024);
    write_heading(&mut out, record, colours);
    let _ = write!(
        out,
        r#"<div class="gamebody"><div class="chartcol"><div class="chart">{chart}</div><p class="small">{}</p>"#,
        legend_line(record, colours),
    );
    if !notes.is_empty() {
        let _ = write!(out, r#"<ul class="notes">{notes}</ul>"#);
    }
    let _ = write!(out, "</div>{board}</div>");
    write_rulings(&mut out, record, rulings);
    write_final_clocks(&mut out, record);
    out
}

/// The clock chart of a game (each side's clock over the game, a cursor, the flag's line when
/// a clock went below zero, a marker per event of note), and the list of those events.
fn clock_plot(record: &GameRecord, colours: BySide<&str>) -> (Plot, String) {
    let lines = clock_lines(record);
    let (mut t_max, mut c_min, mut c_max) = (0.0f64, 0.0f64, 0.0f64);
    for &(t, c) in lines.iter().flatten() {
        t_max = t_max.max(t);
        c_min = c_min.min(c);
        c_max = c_max.max(c);
    }
    let mut plot = Plot::new(760.0, 260.0, (0.0, t_max), (c_min, c_max * 1.05));
    for side in Side::ALL {
        let moves = record.moves().filter(|m| m.0 == side).count();
        let attrs = format!(
            r#"data-side="{}" data-engine="{}" data-moves="{moves}""#,
            side.name(),
            esc(record.engine(side))
        );
        let attrs = if side == Side::Black {
            format!(r#"{attrs} stroke-dasharray="6 3""#)
        } else {
            attrs
        };
        plot.line(&lines[side], colours[side], &attrs);
    }
    let (y_top, y_bottom) = (plot.y(c_max * 1.05), plot.y(c_min));
    let x_end = plot.x(t_max);
    plot.push(&format!(
        r##"<line class="cursor" x1="{x_end:.1}" y1="{y_top:.1}" x2="{x_end:.1}" y2="{y_bottom:.1}" stroke="#444" stroke-width="1" visibility="hidden"/>"##
    ));
    if c_min < 0.0 {
        plot.hline(0.0, "flag", "");
    }
    let mut notes = String::new();
    for event in &record.events {
        let Some((kind, side, text, colour)) = marker_kind(event) else {
            continue;
        };
        let t = event.t_us() as f64 / 1e6;
        let x = plot.x(t);
        let y_top = plot.y(c_max * 1.05);
        let y_bottom = plot.y(c_min);
        let text = esc(&text);
        plot.push(&format!(
            r#"<g class="mark" data-kind="{kind}" data-side="{}" data-t-ms="{}"><line x1="{x:.1}" y1="{y_top:.1}" x2="{x:.1}" y2="{y_bottom:.1}" stroke="{colour}" stroke-width="1.2" stroke-dasharray="3 2"/><circle cx="{x:.1}" cy="{:.1}" r="4" fill="{colour}"/><title>{:.3} s: {text}</title></g>"#,
            side.name(),
            event.t_us() / 1000,
            y_top + 5.0,
            t
        ));
        let _ = write!(
            notes,
            r#"<li><span class="dot" style="background:{colour}"></span>{t:.3} s: {text}</li>"#
        );
    }
    (plot, notes)
}

/// The section's opening tag (with the ruling as data), its heading and its ruling.
fn write_heading(out: &mut String, record: &GameRecord, colours: BySide<&str>) {
    let (result, termination, rule, detail) = match record.outcome() {
        Some(o) => (
            o.result.as_str().to_string(),
            o.termination.to_string(),
            o.rule.to_string(),
            o.detail.to_string(),
        ),
        None => (
            "*".into(),
            "unfinished".into(),
            String::new(),
            String::new(),
        ),
    };
    let _ = write!(
        out,
        r##"<section class="game" id="game-{n}" data-game="{n}" data-result="{}" data-termination="{}" data-rule="{}"><h3><a href="#game-{n}">Game {n}</a>: <span data-colour-of="{w}" style="color:{}">{w}</span> – <span data-colour-of="{b}" style="color:{}">{b}</span> {} <small>({}, {}, opening {})</small></h3>"##,
        esc(&result),
        esc(&termination),
        esc(&rule),
        colours.white,
        colours.black,
        esc(&result),
        record.ruleset,
        esc(&record.tc_white.to_string()),
        esc(&record.opening.name),
        n = record.game,
        w = esc(&record.white),
        b = esc(&record.black),
    );
    let _ = write!(
        out,
        r#"<p class="ruling"><b>{} by {}</b> — {}{}</p>"#,
        esc(&result),
        esc(&termination),
        if rule.is_empty() {
            "no rule cited".to_string()
        } else {
            format!("cites <b>{}</b>", esc(&rule))
        },
        if detail.is_empty() {
            String::new()
        } else {
            format!(": {}", esc(&detail))
        },
    );
}

/// The same game ruled under each ruleset, the one it was played under marked.
fn write_rulings(out: &mut String, record: &GameRecord, rulings: &[(String, String)]) {
    if rulings.is_empty() {
        return;
    }
    out.push_str(
        r#"<table class="rerule"><tr><th>ruleset</th><th>the same game ruled under it</th></tr>"#,
    );
    for (ruleset, ruling) in rulings {
        let _ = write!(
            out,
            r#"<tr data-ruleset="{}"{}><td>{}</td><td>{}</td></tr>"#,
            esc(ruleset),
            if *ruleset == record.ruleset.to_string() {
                r#" class="played""#
            } else {
                ""
            },
            esc(ruleset),
            esc(ruling)
        );
    }
    out.push_str("</table>");
}

/// The clocks at the end, and the section's closing tag.
fn write_final_clocks(out: &mut String, record: &GameRecord) {
    let _ = write!(
        out,
        r#"<p class="final" data-white-ms-left="{}" data-black-ms-left="{}">clocks at the end: {} {} s, {} {} s</p></section>"#,
        record.outcome().map_or(0, |o| o.clock_us.white / 1000),
        record.outcome().map_or(0, |o| o.clock_us.black / 1000),
        esc(&record.white),
        num(
            record
                .outcome()
                .map_or(0.0, |o| o.clock_us.white as f64 / 1e6),
            3
        ),
        esc(&record.black),
        num(
            record
                .outcome()
                .map_or(0.0, |o| o.clock_us.black as f64 / 1e6),
            3
        ),
    );
}

/// Which line is whose: white's solid, black's dashed, each in its engine's colour.
fn legend_line(record: &GameRecord, colours: BySide<&str>) -> String {
    format!(
        r#"<span class="swatch" style="border-top:2px solid {}"></span>white: {} <span class="swatch" style="border-top:2px dashed {}"></span>black: {}"#,
        colours.white,
        esc(&record.white),
        colours.black,
        esc(&record.black)
    )
}

/// Whether a game is worth its own section in a large report: it ended on the clock, a flag
/// fell, or it holds an injection, an illegal move, a penalty or an engine fault.
pub fn is_notable(record: &GameRecord) -> bool {
    record
        .outcome()
        .is_some_and(|o| o.termination.is_time_forfeit())
        || record.events.iter().any(|e| {
            matches!(
                e,
                Event::FlagFall { .. }
                    | Event::Injected { .. }
                    | Event::IllegalMove { .. }
                    | Event::Penalty { .. }
                    | Event::EngineFault { .. }
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameResult, Termination};
    use crate::report::pgn::tests::{flag_game, Builder};

    /// A penalty before a side's first `go` (an illegal move by white on move 1 under FIDE
    /// gives black a minute) shows: black's line starts at its base time and steps up.
    #[test]
    fn a_penalty_before_the_first_go_is_drawn() {
        let record = Builder::new(8, "alpha", "beta")
            .event(Event::Penalty {
                t_us: 500_000,
                side: Side::Black,
                add_us: 60_000_000,
                rule: "FIDE A4.2, 7.5.5".into(),
            })
            .moves(Side::White, 1000, "d2d4 d7d5")
            .end(GameResult::Draw, Termination::Adjudication, "", "");
        let black = &clock_lines(&record).black;
        let base = record.tc_black.base.as_secs_f64();
        assert_eq!(black[0], (0.0, base));
        assert!(
            black.contains(&(0.5, base)) && black.contains(&(0.5, base + 60.0)),
            "{black:?}"
        );
        let html = game_section(&record, &[], BySide::new("#111", "#222"));
        assert!(
            html.contains("black is given 60 s more (FIDE A4.2, 7.5.5)"),
            "{html}"
        );
    }

    #[test]
    fn a_flag_game_has_its_clock_below_zero_and_the_flag_marked() {
        let record = flag_game(7);
        let lines = clock_lines(&record);
        assert!(lines.white.len() >= 2 && lines.black.len() >= 2);
        let html = game_section(&record, &[], BySide::new("#111", "#222"));
        assert!(html.contains(r#"id="game-7""#));
        assert!(
            html.contains(r#"data-kind="flag" data-side="white""#),
            "{html}"
        );
        assert!(html.contains("FIDE A4.3"));
        assert!(is_notable(&record));
    }
}
