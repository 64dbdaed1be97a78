//! The top of the page: the header (what was played, under which rules and seed), the
//! summary box (as OpenBench shows one: games, results, pentanomial, Elo with its interval,
//! the SPRT's LLR and bounds, the time control), and the standings.

use std::fmt::Write;

use super::svg::{esc, num, Plot};
use super::{HtmlReport, PlanView};
use crate::report::stats::{elo_text, interval_text, los_text, PentaStats, NO_SPREAD};
use crate::report::Summary;

/// The run's time control, ruleset and seed, from its plan or else its first game; `-` for
/// what is not known.
fn plan_parts(report: &HtmlReport) -> [String; 3] {
    let view = report.plan.as_ref().or(report.first.as_ref());
    let PlanView {
        tc, ruleset, seed, ..
    } = view.cloned().unwrap_or_default();
    [
        if tc.is_empty() {
            "-".to_string()
        } else {
            esc(&tc)
        },
        ruleset.map_or("-".to_string(), |r| r.to_string()),
        seed.map_or("-".to_string(), |s| s.to_string()),
    ]
}

/// `time control 5+0 (...) · ruleset fide · seed 1`, for the page's header.
pub fn plan_line(report: &HtmlReport) -> String {
    let [tc, ruleset, seed] = plan_parts(report);
    format!(
        r#"time control <b class="tc">{tc}</b> · ruleset <b class="ruleset">{ruleset}</b> · seed <b class="seed">{seed}</b>"#
    )
}

/// The summary box's rows of the plan.
fn plan_rows(report: &HtmlReport) -> String {
    let [tc, ruleset, seed] = plan_parts(report);
    format!("<tr><th>Time control</th><td>{tc}</td></tr><tr><th>Ruleset · seed</th><td>{ruleset} · {seed}</td></tr>")
}

/// `+12.3 ± 4.5`, with the reason when there is no interval.
fn penta_elo(p: &PentaStats) -> String {
    if p.pairs == 0 {
        "n/a (no complete pair of games yet)".to_string()
    } else if !p.has_spread() {
        format!("{} ± {NO_SPREAD}", elo_text(p.elo))
    } else if p.elo_error.is_infinite() {
        format!("{} ± inf", elo_text(p.elo))
    } else {
        format!("{} ± {:.1}", elo_text(p.elo), p.elo_error)
    }
}

/// The summary box of a two-engine match: `a`'s side of it.
pub fn match_box(out: &mut String, report: &HtmlReport) {
    let series = &report.series;
    let (a, b) = (
        series.a.as_deref().unwrap_or(""),
        series.b.as_deref().unwrap_or(""),
    );
    let wdl = series.wdl();
    let now = series.now();
    let (c, unpaired) = series.pairs();
    let penta = PentaStats::from_counts(c, unpaired);
    let (lower, upper) = series.sprt.bounds();
    let status = series.sprt.decide(now.llr);
    let _ = write!(
        out,
        r#"<div class="summarybox" id="overview" data-games="{games}" data-wins="{w}" data-draws="{d}" data-losses="{l}" data-elo="{}" data-elo-low="{}" data-elo-high="{}" data-los="{}" data-penta="{}" data-llr="{}" data-lower="{}" data-upper="{}"><div class="vs"><span data-colour-of="{a}" style="color:{}">{a}</span> vs <span data-colour-of="{b}" style="color:{}">{b}</span></div><table>"#,
        num(now.elo, 1),
        num(now.low, 1),
        num(now.high, 1),
        num(wdl.los() * 100.0, 4),
        c.map(|n| n.to_string()).join(" "),
        num(now.llr, 4),
        num(lower, 4),
        num(upper, 4),
        report.colour_of(a),
        report.colour_of(b),
        a = esc(a),
        b = esc(b),
        games = series.games(),
        w = wdl.wins,
        d = wdl.draws,
        l = wdl.losses,
    );
    let rows = [
        (
            "Games",
            format!(
                "{} (W {} · L {} · D {}, {} side)",
                series.games(),
                wdl.wins,
                wdl.losses,
                wdl.draws,
                esc(a) + "'s"
            ),
        ),
        (
            "Pentanomial",
            format!(
                "[LL, LD, DD+WL, WD, WW] = [{}, {}, {}, {}, {}] ({} pair{})",
                c[0],
                c[1],
                c[2],
                c[3],
                c[4],
                penta.pairs,
                if penta.pairs == 1 { "" } else { "s" }
            ),
        ),
        (
            "Elo",
            format!(
                "{}, 95 % interval {} · LOS {}",
                elo_text(now.elo),
                interval_text(now.low, now.high),
                los_text(wdl.los())
            ),
        ),
        ("Elo (pairs)", penta_elo(&penta)),
        (
            "LLR",
            format!(
                "{} ({:+.2}, {:+.2}) [{}, {}] · {}{}",
                num(now.llr, 2),
                lower,
                upper,
                series.sprt.elo0,
                series.sprt.elo1,
                status,
                if report.sprt_given {
                    ""
                } else {
                    " · no --sprt: the usual test, for reference"
                }
            ),
        ),
    ];
    for (name, value) in rows {
        let _ = write!(out, "<tr><th>{name}</th><td>{value}</td></tr>");
    }
    let _ = write!(out, "{}</table></div>", plan_rows(report));
}

/// The summary box of a run of more than two engines: its totals and its leader.
pub fn field_box(out: &mut String, report: &HtmlReport, summary: &Summary) {
    let t = &summary.totals;
    let _ = write!(
        out,
        r#"<div class="summarybox" id="overview" data-games="{}"><table><tr><th>Games</th><td>{} ({} white wins · {} black wins · {} draws)</td></tr>"#,
        t.games, t.games, t.white_wins, t.black_wins, t.draws
    );
    if let Some(e) = summary.engines.first() {
        let _ = write!(
            out,
            r#"<tr><th>Leader</th><td><span data-colour-of="{name}" style="color:{}">{name}</span>: {:.1} of {} points, Elo {} {} (95 %)</td></tr>"#,
            report.colour_of(&e.name),
            e.points,
            e.games,
            elo_text(e.elo),
            interval_text(e.elo_low, e.elo_high),
            name = esc(&e.name),
        );
    }
    let _ = write!(out, "{}</table></div>", plan_rows(report));
}

/// The x range of the standings: every finite Elo and bound, and 0, with a margin.
fn standings_range(summary: &Summary) -> (f64, f64) {
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for e in &summary.engines {
        for x in [e.elo, e.elo_low, e.elo_high] {
            if x.is_finite() {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    let pad = ((hi - lo) * 0.08).max(10.0);
    (lo - pad, hi + pad)
}

/// One engine's row of the standings chart.
fn standings_mark(
    plot: &Plot,
    y: f64,
    range: (f64, f64),
    e: &crate::report::stats::EngineStats,
    colour: &str,
) -> String {
    let mut marks = String::new();
    let edge = |x: f64| if x > 0.0 { range.1 } else { range.0 };
    let at = |x: f64| plot.x(if x.is_finite() { x } else { edge(x) });
    if !e.elo_low.is_nan() && !e.elo_high.is_nan() {
        let (x0, x1) = (at(e.elo_low), at(e.elo_high));
        let _ = write!(
            marks,
            r#"<line class="interval" x1="{x0:.1}" y1="{y:.1}" x2="{x1:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2"/>"#
        );
        for (x, bound) in [(x0, e.elo_low), (x1, e.elo_high)] {
            if bound.is_finite() {
                let _ = write!(
                    marks,
                    r#"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="{colour}" stroke-width="2"/>"#,
                    y - 6.0,
                    y + 6.0
                );
            }
        }
    }
    let x = at(e.elo);
    if e.elo.is_finite() {
        let _ = write!(
            marks,
            r#"<circle class="point" cx="{x:.1}" cy="{y:.1}" r="5" fill="{colour}"/>"#
        );
    } else if e.elo.is_infinite() {
        // An infinite Elo (every game won, or lost): an arrow at the axis's end.
        let d = if e.elo > 0.0 { -10.0 } else { 10.0 };
        let _ = write!(
            marks,
            r#"<path class="infinite" d="M{x:.1},{y:.1}L{:.1},{:.1}L{:.1},{:.1}Z" fill="{colour}"/>"#,
            x + d,
            y - 6.0,
            x + d,
            y + 6.0
        );
    }
    marks
}

/// The standings: a chart of each engine's Elo and interval, and the table.
pub fn standings(out: &mut String, report: &HtmlReport, summary: &Summary) {
    out.push_str(r#"<h2 id="standings">Standings</h2><p class="small">Elo difference against the field with its 95 % interval. An infinite Elo (every game won, or every game lost) is an arrow at the axis's end; an interval the games cannot give yet (every game scored the same: no spread) is not drawn, and says so.</p>"#);
    let engines = &summary.engines;
    if engines.is_empty() {
        out.push_str("<p>No finished games.</p>");
        return;
    }
    let range = standings_range(summary);
    let n = engines.len() as f64;
    let mut plot = Plot::rows(900.0, engines.len(), range);
    plot.push(&format!(
        r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#555"/>"##,
        plot.y(0.0),
        plot.y(n),
        x = plot.x(0.0)
    ));
    for (i, e) in engines.iter().enumerate() {
        let y = plot.y(n - i as f64 - 0.5);
        let colour = report.colour_of(&e.name);
        let marks = standings_mark(&plot, y, range, e, colour);
        let label = format!(
            "{}: Elo {} {}",
            e.name,
            elo_text(e.elo),
            interval_text(e.elo_low, e.elo_high)
        );
        plot.push(&format!(
            r#"<g class="elo" data-engine="{name}" data-games="{}" data-points="{:.1}" data-elo="{}" data-elo-low="{}" data-elo-high="{}" data-interval="{}">{marks}<text x="{:.1}" y="{:.1}" font-size="11">{label}</text><title>{label} in {} games</title></g>"#,
            e.games,
            e.points,
            num(e.elo, 1),
            num(e.elo_low, 1),
            num(e.elo_high, 1),
            if e.elo_low.is_nan() { "none" } else { "shown" },
            plot.x(range.0) + 4.0,
            y - 9.0,
            e.games,
            name = esc(&e.name),
            label = esc(&label),
        ));
    }
    let _ = write!(
        out,
        r#"<div class="chart">{}</div>"#,
        plot.finish("Elo", "", r#"data-chart="standings""#)
    );
    out.push_str(r#"<table class="standings"><tr><th>engine</th><th>games</th><th>W</th><th>D</th><th>L</th><th>points</th><th>score</th><th>Elo</th><th>95 % interval</th><th>LOS</th><th>draws</th></tr>"#);
    for e in engines {
        let _ = write!(
            out,
            r#"<tr data-engine="{name}"><td><span class="dot" data-colour-of="{name}" style="background:{}"></span>{name}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.1} %</td><td>{}</td><td class="interval">{}</td><td class="los">{}</td><td>{:.1} %</td></tr>"#,
            report.colour_of(&e.name),
            e.games,
            e.results.wins,
            e.results.draws,
            e.results.losses,
            e.points,
            e.score * 100.0,
            elo_text(e.elo),
            interval_text(e.elo_low, e.elo_high),
            los_text(e.los),
            e.draw_ratio * 100.0,
            name = esc(&e.name),
        );
    }
    out.push_str("</table>");
}
