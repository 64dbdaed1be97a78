//! The page: its sections in order, each a heading, a chart and the numbers behind it.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::overview::{field_box, match_box, plan_line, standings};
use super::rows::RowCounts;
use super::svg::{bars, esc, num, Bar, Plot};
use super::tally::{self, Point};
use super::{board, HtmlReport, FIRST_GAMES, MAX_SECTIONS};
use crate::report::{Summary, Tally};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1400px;padding:0 16px 40px;color:#222}\
h1{font-size:1.5em;margin-bottom:4px}h2{border-bottom:1px solid #ddd;padding-top:10px}h3{font-size:1.05em;margin:18px 0 4px}\
table{border-collapse:collapse;margin:6px 0;display:block;overflow-x:auto;max-width:100%}td,th{border:1px solid #ddd;padding:2px 8px;text-align:right;font-size:13px}\
td:first-child,th:first-child{text-align:left}nav,.gamelist{display:flex;flex-wrap:wrap;gap:4px 12px}.small{color:#666;font-size:13px}\
.notes{font-size:12px;columns:2 320px;margin:2px 0}.dot{display:inline-block;width:8px;height:8px;border-radius:4px;margin-right:4px}\
.swatch{display:inline-block;width:22px;height:0;vertical-align:middle;margin:0 4px 0 10px}\
.game{border-top:1px dashed #ccc}.rerule td,.rerule th{text-align:left}.rerule tr.played{font-weight:bold}\
.gamelist a{font-size:13px}pre{font-size:12px;overflow:auto}\
.chart{overflow-x:auto;max-width:100%}svg.plot{width:100%;height:auto;min-width:640px;display:block}svg.bars{max-width:none}\
.summarybox{border:1px solid #bbb;border-radius:6px;background:#f7f9fc;padding:8px 14px;margin:10px 0;display:inline-block;max-width:100%;box-sizing:border-box}\
.summarybox .vs{font-weight:bold;font-size:1.15em;margin-bottom:4px}.summarybox table{margin:0;display:table}.summarybox td,.summarybox th{border:0;text-align:left;padding:1px 10px 1px 0}\
.gamebody{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}.chartcol{flex:1 1 520px;min-width:0}\
.replay{display:flex;flex-wrap:wrap;gap:10px;flex:0 1 560px;outline:none}.boardcol{width:300px;max-width:100%}svg.board{width:100%;height:auto;display:block}\
.nav{margin-top:4px}.nav button{font-size:14px;margin-right:2px;min-width:34px}.nav .at{font-size:12px;color:#555}\
.pieces{font-size:34px;text-anchor:middle;stroke-width:0.8px;stroke:#000;font-family:'DejaVu Sans','Segoe UI Symbol','Noto Sans Symbols2',sans-serif}.pieces .w{fill:#fff}.pieces .b{fill:#000}\
.sidecol{flex:1 1 200px;min-width:180px}.clk{font-size:13px;margin:2px 0}.clk .time{font-family:monospace;font-size:16px;margin-left:6px}\
.moves{font-size:13px;max-height:260px;overflow-y:auto;margin:6px 0;padding-left:2.2em}.mv{cursor:pointer;padding:0 3px;border-radius:3px}.mv.now{background:#ffe08a}\
#selfcheck{color:#b00;font-weight:bold}";

/// Records any script error into the page, so a check that reads the DOM sees it.
const HEAD_SCRIPT: &str = "window.reportErrors=[];window.addEventListener('error',function(e){window.reportErrors.push(String(e.message))});";

/// Checks the page once it is built: every chart drew only finite coordinates, every number
/// the charts carry parses; the verdict goes into `#selfcheck` (and the console on failure).
const CHECK_SCRIPT: &str = r#"(function(){
var bad=[];
document.querySelectorAll('path[d],line,rect,circle').forEach(function(el){
  ['d','x1','x2','y1','y2','x','y','width','height','cx','cy'].forEach(function(a){
    var v=el.getAttribute(a); if(v!==null&&/NaN|Infinity/.test(v)){bad.push(el.tagName+' '+a);}
  });
});
document.querySelectorAll('[data-elo],[data-count],[data-llr]').forEach(function(el){
  ['elo','count','llr'].forEach(function(k){
    var v=el.dataset[k]; if(v!==undefined&&v!==''&&v!=='inf'&&v!=='-inf'&&isNaN(parseFloat(v))){bad.push('data-'+k+'='+v);}
  });
});
var out=document.getElementById('selfcheck');
var errors=window.reportErrors.concat(bad);
out.setAttribute('data-charts',document.querySelectorAll('svg[data-chart]').length);
out.setAttribute('data-sections',document.querySelectorAll('section.game').length);
out.setAttribute('data-ms',Math.round(performance.now()));
var root=document.documentElement,widest=0,clipped=[];
document.querySelectorAll('svg.plot').forEach(function(svg){widest=Math.max(widest,svg.getBoundingClientRect().width);});
var crossing=[];
document.querySelectorAll('svg text:not([transform])').forEach(function(t){var svg=t.ownerSVGElement,vb=svg.viewBox.baseVal,b=t.getBBox();
  if(vb&&vb.width&&b.width&&(b.x<vb.x-0.5||b.x+b.width>vb.x+vb.width+0.5)){clipped.push(t.textContent);}
  var frame=svg.classList.contains('plot')&&svg.querySelector('rect');
  if(frame&&b.height){var f=frame.getBBox();[f.y,f.y+f.height].forEach(function(edge){if(b.y<edge-0.5&&b.y+b.height>edge+0.5&&b.x<f.x+f.width&&b.x+b.width>f.x){crossing.push(t.textContent);}});}});
var body=document.body;
out.setAttribute('data-page-width',body.clientWidth);
out.setAttribute('data-page-overflow',Math.max(root.scrollWidth-root.clientWidth,body.scrollWidth-body.clientWidth));
out.setAttribute('data-widest-plot',Math.round(widest));
out.setAttribute('data-clipped',clipped.length);
out.setAttribute('data-clipped-texts',clipped.slice(0,5).join(' | '));
out.setAttribute('data-crossing',crossing.length);
out.setAttribute('data-crossing-texts',crossing.slice(0,5).join(' | '));
out.setAttribute('data-status',errors.length?'bad':'ok');
if(errors.length){out.textContent='page check failed: '+errors.slice(0,5).join('; ');out.hidden=false;}
if(errors.length){console.error('report self-check: '+errors.join('; '));}
})();"#;

/// The page of `report`'s games; `tally` is the run's (the same games) and `counts` the counts
/// of its rows.
pub fn render(report: &HtmlReport, tally: &Tally, counts: &RowCounts) -> String {
    let mut summary = counts.summary.summary();
    summary.with_phases(&tally.phases);
    let two = summary.engines.len() == 2 && !report.series.mixed;
    if report.sprt_given {
        if let Some(a) = &report.series.a {
            summary.with_sprt(&report.series.sprt, a, !report.series.by_games);
        }
    }
    let mut out =
        String::with_capacity(64 * 1024 + report.sections.iter().map(|s| s.1.len()).sum::<usize>());
    let _ = write!(
        out,
        r##"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>{title} — blitz-arena report</title><style>{STYLE}</style><script>{HEAD_SCRIPT}</script></head><body data-games="{games}"><h1>blitz-arena: {title}</h1><p class="small meta">{plan} · written {now} UTC</p><p id="selfcheck" data-status="pending" hidden></p>"##,
        title = esc(&report.title),
        games = summary.totals.games,
        plan = plan_line(report),
        now = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S"),
    );
    if two {
        match_box(&mut out, report);
    } else {
        field_box(&mut out, report, &summary);
    }
    let _ = write!(
        out,
        r##"<nav><a href="#standings">Standings</a>{}<a href="#time">Time</a><a href="#endings">Endings</a><a href="#games">Games</a><a href="#summary">Summary text</a></nav>"##,
        if two {
            r##"<a href="#match">Match</a>"##
        } else {
            ""
        },
    );
    standings(&mut out, report, &summary);
    if two {
        match_charts(&mut out, report);
    }
    time_section(&mut out, report, &counts.left, &summary);
    endings(&mut out, &counts.endings, tally);
    games(&mut out, report);
    let _ = write!(
        out,
        r#"<h2 id="summary">Summary text</h2><details><summary>the tables the run printed</summary><pre>{}{}</pre></details><script>{}</script><script>{CHECK_SCRIPT}</script></body></html>"#,
        esc(&summary.to_text()),
        if tally.injections.is_empty() {
            String::new()
        } else {
            format!("\n{}", esc(&tally.injections.to_text()))
        },
        board::SCRIPT
    );
    out
}

fn match_charts(out: &mut String, report: &HtmlReport) {
    let series = &report.series;
    let points: Vec<Point> = series.drawn();
    let (a, b) = (
        series.a.as_deref().unwrap_or(""),
        series.b.as_deref().unwrap_or(""),
    );
    let _ = write!(
        out,
        r#"<h2 id="match">Match: {} vs {}</h2>"#,
        esc(a),
        esc(b)
    );
    let Some(last) = points.last().copied() else {
        return;
    };
    let games = last.games as f64;
    let colour = report.colour_of(a);
    // The y range holds every finite value; an infinite one is drawn at the range's edge,
    // and a point without an interval (no spread yet) has no band.
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for x in points.iter().flat_map(|p| [p.elo, p.low, p.high]) {
        if x.is_finite() {
            lo = lo.min(x);
            hi = hi.max(x);
        }
    }
    let pad = ((hi - lo) * 0.05).max(5.0);
    let mut plot = Plot::new(900.0, 260.0, (0.0, games), (lo - pad, hi + pad));
    let series_of = |f: &dyn Fn(&Point) -> f64| -> Vec<(f64, f64)> {
        points
            .iter()
            .filter(|p| !f(p).is_nan())
            .map(|p| (p.games as f64, f(p)))
            .collect()
    };
    plot.line(
        &series_of(&|p| p.low),
        "#9ecae1",
        r#"data-series="elo-low""#,
    );
    plot.line(
        &series_of(&|p| p.high),
        "#9ecae1",
        r#"data-series="elo-high""#,
    );
    plot.line(&series_of(&|p| p.elo), colour, r#"data-series="elo""#);
    plot.hline(0.0, "0", "");
    let without = points.iter().filter(|p| p.low.is_nan()).count();
    out.push_str(&format!(
        r#"<p class="small">{}'s Elo difference and its 95 % interval (the band) as the games were played ({} points){}; an infinite value is drawn at the chart's edge.</p>"#,
        esc(a),
        points.len(),
        if without > 0 {
            format!(
                "; no band where every game so far scored the same ({without} of the points: no spread, no interval)"
            )
        } else {
            String::new()
        }
    ));
    let _ = write!(
        out,
        r#"<div class="chart">{}</div>"#,
        plot.finish(
            "games",
            "Elo",
            &format!(
                r#"data-chart="elo-vs-games" data-games="{}" data-elo="{}" data-elo-low="{}" data-elo-high="{}""#,
                last.games,
                num(last.elo, 1),
                num(last.low, 1),
                num(last.high, 1)
            ),
        )
    );
    let (lower, upper) = series.sprt.bounds();
    let (mut lo, mut hi) = (lower * 1.1, upper * 1.1);
    for p in &points {
        lo = lo.min(p.llr);
        hi = hi.max(p.llr);
    }
    let mut plot = Plot::new(900.0, 260.0, (0.0, games), (lo, hi));
    plot.hline(upper, &format!("H1 {upper:+.2}"), r#"data-bound="upper""#);
    plot.hline(lower, &format!("H0 {lower:+.2}"), r#"data-bound="lower""#);
    let llr: Vec<(f64, f64)> = points.iter().map(|p| (p.games as f64, p.llr)).collect();
    plot.line(&llr, colour, r#"data-series="llr""#);
    let _ = write!(
        out,
        r#"<p class="small">SPRT {} of {}: log-likelihood ratio (pentanomial, normalized Elo) against games, with its bounds{}. Pentanomial [LL, LD, DD+WL, WD, WW] = [{}].</p>"#,
        esc(&series.sprt.to_string()),
        esc(a),
        if report.sprt_given {
            ""
        } else {
            " — the run had no --sprt: this is the usual test, drawn for reference, and did not stop the run"
        },
        series.penta().map(|n| n.to_string()).join(", ")
    );
    let chart = plot.finish(
        "games",
        "LLR",
        &format!(
            r#"data-chart="llr-vs-games" data-games="{}" data-llr="{}" data-lower="{}" data-upper="{}""#,
            last.games,
            num(last.llr, 4),
            num(lower, 4),
            num(upper, 4)
        ),
    );
    let _ = write!(out, r#"<div class="chart">{chart}</div>"#);
}

/// Sorted values' `q` quantile (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

/// The time section: the time left at the end of each game, think time by move number, losses
/// on time and time trouble.
fn time_section(out: &mut String, report: &HtmlReport, left: &TimesLeft, summary: &Summary) {
    out.push_str(r#"<h2 id="time">Time</h2>"#);
    let names: Vec<&str> = summary.engines.iter().map(|e| e.name.as_str()).collect();
    time_left_chart(out, report, left, &names);
    think_time_chart(out, report, &names);
    time_losses(out, report, summary);
}

/// Each engine's clock at the end of its finished games, in seconds, sorted (`RowCounts`).
type TimesLeft = BTreeMap<String, Vec<f64>>;

/// Per engine, a box plot of its clock when its games ended.
fn time_left_chart(out: &mut String, report: &HtmlReport, left: &TimesLeft, names: &[&str]) {
    out.push_str(r#"<h3>Time left at the end of each game</h3><p class="small">Per engine: the range (whiskers), the middle half (box) and the median of its clock when its games ended; below zero, past a fallen flag.</p>"#);
    if !names.is_empty() {
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for v in left.values() {
            lo = lo.min(v[0]);
            hi = hi.max(v[v.len() - 1]);
        }
        // A margin beyond the data, so that a clock at the range's end (every game ended with
        // the time it started with) is drawn inside the frame, not on its edge.
        let margin = (hi - lo) * 0.04;
        let lo = if lo < 0.0 { lo - margin } else { lo };
        let mut plot = Plot::rows(900.0, names.len(), (lo, hi + margin));
        for (i, name) in names.iter().enumerate() {
            let Some(v) = left.get(*name) else { continue };
            let y = plot.y(names.len() as f64 - i as f64 - 0.5);
            let (min, q1, med, q3, max) = (
                v[0],
                quantile(v, 0.25),
                quantile(v, 0.5),
                quantile(v, 0.75),
                v[v.len() - 1],
            );
            let colour = report.colour_of(name);
            plot.push(&format!(
                r##"<g class="timeleft" data-engine="{n}" data-games="{}" data-min-ms="{:.0}" data-median-ms="{:.0}" data-max-ms="{:.0}"><line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}"/><rect x="{:.1}" y="{:.1}" width="{:.1}" height="14" fill="{colour}" fill-opacity="0.35" stroke="{colour}"/><line x1="{m:.1}" y1="{:.1}" x2="{m:.1}" y2="{:.1}" stroke="#000" stroke-width="2"/><text x="{:.1}" y="{:.1}" font-size="11">{n}</text><title>{n}: min {min:.1} s, quartiles {q1:.1} / {med:.1} / {q3:.1} s, max {max:.1} s</title></g>"##,
                v.len(),
                min * 1000.0,
                med * 1000.0,
                max * 1000.0,
                plot.x(min),
                plot.x(max),
                plot.x(q1),
                y - 7.0,
                (plot.x(q3) - plot.x(q1)).max(1.0),
                y - 7.0,
                y + 7.0,
                plot.x(lo) + 4.0,
                y - 9.0,
                n = esc(name),
                m = plot.x(med),
            ));
        }
        let chart = plot.finish("seconds left", "", r#"data-chart="time-left""#);
        let _ = write!(out, r#"<div class="chart">{chart}</div>"#);
    }
}

/// Per engine, the median think time of its n-th move and the middle half of them.
fn think_time_chart(out: &mut String, report: &HtmlReport, names: &[&str]) {
    out.push_str(r#"<h3>Think time by move number</h3><p class="small">Per engine: the median think time of its n-th move (line) and the middle half of them (thin lines), from its moves binned ten to a decade; moves past 80 count as move 80.</p>"#);
    let mut plot_max = 0.0f64;
    let mut last = 1usize;
    let mut lines: Vec<(&str, Line, Line, Line)> = Vec::new();
    for name in names {
        let Some(times) = report.times.get(*name) else {
            continue;
        };
        let series = |q: f64| -> Vec<(f64, f64)> {
            (1..=times.last())
                .filter_map(|n| times.quantile(n, q).map(|ms| (n as f64, ms)))
                .collect()
        };
        let (q1, med, q3) = (series(0.25), series(0.5), series(0.75));
        plot_max = q3.iter().map(|p| p.1).fold(plot_max, f64::max);
        last = last.max(times.last());
        lines.push((name, q1, med, q3));
    }
    let mut plot = Plot::new(900.0, 260.0, (1.0, last as f64), (0.0, plot_max * 1.05));
    for (name, q1, med, q3) in &lines {
        let colour = report.colour_of(name);
        plot.line(q1, colour, r#"stroke-opacity="0.35""#);
        plot.line(q3, colour, r#"stroke-opacity="0.35""#);
        let medians: Vec<String> = med.iter().map(|p| tally::ms_text(p.1)).collect();
        plot.line(
            med,
            colour,
            &format!(
                r#"data-engine="{}" data-medians-ms="{}""#,
                esc(name),
                medians.join(" ")
            ),
        );
    }
    let chart = plot.finish(
        "move number",
        "think time (ms)",
        r#"data-chart="move-times""#,
    );
    let _ = write!(out, r#"<div class="chart">{chart}</div>"#);
    legend(out, report, &lines.iter().map(|l| l.0).collect::<Vec<_>>());
}

/// Per engine, its losses on time (a bar chart) and its time trouble (a table).
fn time_losses(out: &mut String, report: &HtmlReport, summary: &Summary) {
    out.push_str(r#"<h3>Losses on time and time trouble</h3>"#);
    let items: Vec<Bar> = summary
        .engines
        .iter()
        .map(|e| Bar {
            label: e.name.clone(),
            value: e.time_losses as f64,
            text: format!(
                "{} {}",
                e.time_losses,
                if e.time_losses == 1 {
                    "loss on time"
                } else {
                    "losses on time"
                }
            ),
            colour: report.colour_of(&e.name),
            attrs: format!(
                r#"data-engine="{}" data-time-losses="{}""#,
                esc(&e.name),
                e.time_losses
            ),
        })
        .collect();
    let _ = write!(
        out,
        r#"<div class="chart">{}</div>"#,
        bars(&items, "time-losses")
    );
    out.push_str("<table><tr><th>engine</th><th>losses on time</th><th>games in time trouble (&lt; 10 % of base left)</th><th>mean left</th><th>min left</th><th>per move</th></tr>");
    for e in &summary.engines {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{} ({:.1} %)</td><td>{:.1} s</td><td>{:.1} s</td><td>{}</td></tr>",
            esc(&e.name),
            e.time_losses,
            e.time_trouble,
            e.time_trouble_share * 100.0,
            e.avg_ms_left / 1000.0,
            e.min_ms_left as f64 / 1000.0,
            e.avg_ms_per_move
                .map_or("-".to_string(), |m| format!("{:.3} s", m / 1000.0))
        );
    }
    out.push_str("</table>");
}

/// Points of a line, in data coordinates.
type Line = Vec<(f64, f64)>;

fn legend(out: &mut String, report: &HtmlReport, names: &[&str]) {
    out.push_str(r#"<p class="small">"#);
    for name in names {
        let _ = write!(
            out,
            r#"<span class="dot" data-colour-of="{n}" style="background:{}"></span>{n} "#,
            report.colour_of(name),
            n = esc(name)
        );
    }
    out.push_str("</p>");
}

/// `counts`: games by ruleset and termination (`RowCounts`).
fn endings(out: &mut String, counts: &BTreeMap<(&str, &str), u32>, tally: &Tally) {
    out.push_str(r#"<h2 id="endings">Endings</h2><h3>Terminations per ruleset</h3>"#);
    let items: Vec<Bar> = counts
        .iter()
        .map(|((ruleset, termination), &n)| Bar {
            label: format!("{ruleset}: {termination}"),
            value: n as f64,
            text: format!("{n} game{}", if n == 1 { "" } else { "s" }),
            colour: "#4c78a8",
            attrs: format!(
                r#"data-ruleset="{}" data-termination="{}" data-count="{n}""#,
                esc(ruleset),
                esc(termination)
            ),
        })
        .collect();
    let _ = write!(
        out,
        r#"<div class="chart">{}</div>"#,
        bars(&items, "terminations")
    );

    let inj = &tally.injections;
    if inj.is_empty() {
        out.push_str(r#"<h3>Injections</h3><p class="small">None in this run.</p>"#);
        return;
    }
    out.push_str(r#"<h3>Injections and how they were ruled</h3>"#);
    super::injected::chart(out, inj);
    let _ = write!(
        out,
        r#"<p class="small" data-flags-fallen="{}" data-flags-noticed="{}" data-illegal-moves="{}" data-illegal-noticed="{}">Watchers: {} of {} fallen flags noticed; {} of {} illegal moves noticed.</p>"#,
        inj.flags_fallen,
        inj.flags_noticed,
        inj.illegal_moves,
        inj.illegal_noticed,
        inj.flags_noticed,
        inj.flags_fallen,
        inj.illegal_noticed,
        inj.illegal_moves
    );
}

fn games(out: &mut String, report: &HtmlReport) {
    let mut sections: Vec<&(u64, String)> = report.sections.iter().collect();
    sections.sort_by_key(|s| s.0);
    let _ = write!(
        out,
        r#"<h2 id="games">Games</h2><p class="small" data-shown="{}" data-games="{}">{} of {} games shown: the first {FIRST_GAMES}, and every game that ended on the clock or holds a flag fall, an injection, an illegal move, a penalty or an engine fault ({} such games){}. The full record of every game is in events.jsonl and games.pgn.</p><p class="gamelist">"#,
        sections.len(),
        report.games,
        sections.len(),
        report.games,
        report.notable,
        if sections.len() >= MAX_SECTIONS {
            format!(", up to {MAX_SECTIONS}")
        } else {
            String::new()
        }
    );
    for (game, _) in &sections {
        let _ = write!(out, r##"<a href="#game-{game}">{game}</a>"##);
    }
    out.push_str("</p>");
    if !sections.is_empty() {
        out.push_str(board::squares());
    }
    for (_, html) in sections {
        out.push_str(html);
    }
}
