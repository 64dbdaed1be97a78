//! The page: its sections in order, each a heading, a chart and the numbers behind it.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::svg::{bars, esc, num, Plot, PALETTE};
use super::tally::Point;
use super::{HtmlReport, FIRST_GAMES, MAX_SECTIONS};
use crate::event::Side;
use crate::report::csv::GameRow;
use crate::report::{Summary, Tally};

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:0 16px 40px;color:#222}\
h1{font-size:1.5em}h2{border-bottom:1px solid #ddd;padding-top:10px}h3{font-size:1.05em;margin:18px 0 4px}\
table{border-collapse:collapse;margin:6px 0}td,th{border:1px solid #ddd;padding:2px 8px;text-align:right;font-size:13px}\
td:first-child,th:first-child{text-align:left}nav a{margin-right:10px}.small{color:#666;font-size:13px}\
.notes{font-size:12px;columns:2;margin:2px 0}.dot{display:inline-block;width:8px;height:8px;border-radius:4px;margin-right:4px}\
.game{border-top:1px dashed #ccc}.rerule td{text-align:left}.rerule tr.played{font-weight:bold}\
.gamelist a{margin-right:6px;font-size:13px}pre{font-size:12px;overflow:auto}";

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
out.setAttribute('data-status',errors.length?'bad':'ok');
out.textContent=errors.length?('page check failed: '+errors.slice(0,5).join('; ')):'page check: ok';
if(errors.length){console.error('report self-check: '+errors.join('; '));}
})();"#;

pub fn render(report: &HtmlReport, tally: &Tally) -> String {
    let rows = &tally.rows;
    let mut summary = Summary::from_rows(rows);
    summary.with_phases(&tally.phases);
    let two = summary.engines.len() == 2 && !report.series.mixed;
    if report.sprt_given {
        if let Some(a) = &report.series.a {
            summary.with_sprt(&report.series.sprt, a);
        }
    }
    let mut out =
        String::with_capacity(64 * 1024 + report.sections.iter().map(|s| s.1.len()).sum::<usize>());
    let _ = write!(
        out,
        r##"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{title} — blitz-arena report</title><style>{STYLE}</style><script>{HEAD_SCRIPT}</script></head><body data-games="{games}"><h1>blitz-arena: {title}</h1><p class="small">{games} games ({w} white wins, {b} black wins, {d} draws) · written {now} UTC · <span id="selfcheck" data-status="pending">page check: not run (scripts off)</span></p><nav><a href="#standings">Standings</a>{match_link}<a href="#time">Time</a><a href="#endings">Endings</a><a href="#games">Games</a><a href="#summary">Summary text</a></nav>"##,
        title = esc(&report.title),
        games = summary.totals.games,
        w = summary.totals.white_wins,
        b = summary.totals.black_wins,
        d = summary.totals.draws,
        now = chrono::Utc::now().format("%Y-%m-%d %H:%M:%S"),
        match_link = if two {
            r##"<a href="#match">Match</a>"##
        } else {
            ""
        },
    );
    standings(&mut out, &summary);
    if two {
        match_charts(&mut out, report);
    }
    time_section(&mut out, report, rows, &summary);
    endings(&mut out, rows, tally);
    games(&mut out, report);
    let _ = write!(
        out,
        r#"<h2 id="summary">Summary text</h2><details><summary>the tables the run printed</summary><pre>{}{}</pre></details><script>{CHECK_SCRIPT}</script></body></html>"#,
        esc(&summary.to_text()),
        if tally.injections.is_empty() {
            String::new()
        } else {
            format!("\n{}", esc(&tally.injections.to_text()))
        }
    );
    out
}

fn finite_or(x: f64, clamp: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.clamp(-clamp, clamp)
    }
}

fn standings(out: &mut String, summary: &Summary) {
    out.push_str(r#"<h2 id="standings">Standings</h2><p class="small">Elo difference against the field with its 95 % interval (infinite ends drawn at ±800).</p>"#);
    let engines = &summary.engines;
    if engines.is_empty() {
        out.push_str("<p>No finished games.</p>");
        return;
    }
    let clamp = 800.0;
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for e in engines {
        lo = lo.min(finite_or(e.elo_low, clamp));
        hi = hi.max(finite_or(e.elo_high, clamp));
    }
    let row_h = 26.0;
    let height = 46.0 + row_h * engines.len() as f64;
    let mut plot = Plot::new(
        720.0,
        height,
        (lo - 10.0, hi + 10.0),
        (0.0, engines.len() as f64),
    );
    plot.y_ticks = false;
    plot.push(&format!(
        r##"<line x1="{x:.1}" y1="{:.1}" x2="{x:.1}" y2="{:.1}" stroke="#555"/>"##,
        plot.y(0.0),
        plot.y(engines.len() as f64),
        x = plot.x(0.0)
    ));
    for (i, e) in engines.iter().enumerate() {
        let y = plot.y(engines.len() as f64 - i as f64 - 0.5);
        let (x0, x1, xe) = (
            plot.x(finite_or(e.elo_low, clamp)),
            plot.x(finite_or(e.elo_high, clamp)),
            plot.x(finite_or(e.elo, clamp)),
        );
        let colour = PALETTE[i % PALETTE.len()];
        plot.push(&format!(
            r#"<g class="elo" data-engine="{name}" data-games="{}" data-points="{:.1}" data-elo="{}" data-elo-low="{}" data-elo-high="{}"><line x1="{x0:.1}" y1="{y:.1}" x2="{x1:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2"/><line x1="{x0:.1}" y1="{:.1}" x2="{x0:.1}" y2="{:.1}" stroke="{colour}" stroke-width="2"/><line x1="{x1:.1}" y1="{:.1}" x2="{x1:.1}" y2="{:.1}" stroke="{colour}" stroke-width="2"/><circle cx="{xe:.1}" cy="{y:.1}" r="5" fill="{colour}"/><text x="{:.1}" y="{:.1}" font-size="11">{name}: {}</text><title>{name}: Elo {} [{}, {}] in {} games</title></g>"#,
            e.games,
            e.points,
            num(e.elo, 1),
            num(e.elo_low, 1),
            num(e.elo_high, 1),
            y - 6.0,
            y + 6.0,
            y - 6.0,
            y + 6.0,
            plot.x(lo - 10.0) + 4.0,
            y - 7.0,
            num(e.elo, 1),
            num(e.elo, 1),
            num(e.elo_low, 1),
            num(e.elo_high, 1),
            e.games,
            name = esc(&e.name),
        ));
    }
    out.push_str(&plot.finish("Elo", "", r#"data-chart="standings""#));
    out.push_str("<table><tr><th>engine</th><th>games</th><th>W</th><th>D</th><th>L</th><th>points</th><th>score</th><th>Elo</th><th>95 % interval</th><th>LOS</th><th>draws</th></tr>");
    for e in engines {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}</td><td>{:.1} %</td><td>{}</td><td>[{}, {}]</td><td>{:.1} %</td><td>{:.1} %</td></tr>",
            esc(&e.name),
            e.games,
            e.results.wins,
            e.results.draws,
            e.results.losses,
            e.points,
            e.score * 100.0,
            num(e.elo, 1),
            num(e.elo_low, 1),
            num(e.elo_high, 1),
            e.los * 100.0,
            e.draw_ratio * 100.0
        );
    }
    out.push_str("</table>");
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
    let clamp = 800.0;
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for p in &points {
        lo = lo.min(finite_or(p.low, clamp));
        hi = hi.max(finite_or(p.high, clamp));
    }
    let mut plot = Plot::new(720.0, 240.0, (0.0, games), (lo, hi));
    let band_low: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.games as f64, finite_or(p.low, clamp)))
        .collect();
    let band_high: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.games as f64, finite_or(p.high, clamp)))
        .collect();
    let elo: Vec<(f64, f64)> = points
        .iter()
        .map(|p| (p.games as f64, finite_or(p.elo, clamp)))
        .collect();
    plot.line(&band_low, "#9ecae1", r#"data-series="elo-low""#);
    plot.line(&band_high, "#9ecae1", r#"data-series="elo-high""#);
    plot.line(&elo, PALETTE[0], r#"data-series="elo""#);
    plot.hline(0.0, "0", "");
    out.push_str(&format!(
        r#"<p class="small">{}'s Elo difference and its 95 % interval as the games were played ({} points).</p>"#,
        esc(a),
        points.len()
    ));
    out.push_str(&plot.finish(
        "games",
        "Elo",
        &format!(
            r#"data-chart="elo-vs-games" data-games="{}" data-elo="{}" data-elo-low="{}" data-elo-high="{}""#,
            last.games,
            num(last.elo, 1),
            num(last.low, 1),
            num(last.high, 1)
        ),
    ));
    let (lower, upper) = series.sprt.bounds();
    let (mut lo, mut hi) = (lower * 1.1, upper * 1.1);
    for p in &points {
        lo = lo.min(p.llr);
        hi = hi.max(p.llr);
    }
    let mut plot = Plot::new(720.0, 240.0, (0.0, games), (lo, hi));
    plot.hline(upper, &format!("H1 {upper:+.2}"), r#"data-bound="upper""#);
    plot.hline(lower, &format!("H0 {lower:+.2}"), r#"data-bound="lower""#);
    let llr: Vec<(f64, f64)> = points.iter().map(|p| (p.games as f64, p.llr)).collect();
    plot.line(&llr, PALETTE[2], r#"data-series="llr""#);
    let _ = write!(
        out,
        r#"<p class="small">SPRT {} of {}: log-likelihood ratio (pentanomial, normalized Elo) against games, with its bounds{}. Pentanomial [LL, LD, DD+WL, WD, WW] = {:?}.</p>"#,
        esc(&series.sprt.to_string()),
        esc(a),
        if report.sprt_given {
            ""
        } else {
            " — the run had no --sprt: this is the usual test, drawn for reference, and did not stop the run"
        },
        series.penta
    );
    out.push_str(&plot.finish(
        "games",
        "LLR",
        &format!(
            r#"data-chart="llr-vs-games" data-games="{}" data-llr="{}" data-lower="{}" data-upper="{}""#,
            last.games,
            num(last.llr, 4),
            num(lower, 4),
            num(upper, 4)
        ),
    ));
}

/// Sorted values' `q` quantile (nearest rank).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let i = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}

fn time_section(out: &mut String, report: &HtmlReport, rows: &[GameRow], summary: &Summary) {
    out.push_str(r#"<h2 id="time">Time</h2><h3>Time left at the end of each game</h3><p class="small">Per engine: the range (whiskers), the middle half (box) and the median of its clock when its games ended; below zero, past a fallen flag.</p>"#);
    let mut left: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.result.is_some()) {
        for side in [Side::White, Side::Black] {
            left.entry(row.engine(side))
                .or_default()
                .push(row.ms_left(side) as f64 / 1000.0);
        }
    }
    let names: Vec<&str> = summary.engines.iter().map(|e| e.name.as_str()).collect();
    if !names.is_empty() {
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for v in left.values_mut() {
            v.sort_by(f64::total_cmp);
            lo = lo.min(v[0]);
            hi = hi.max(v[v.len() - 1]);
        }
        let mut plot = Plot::new(
            720.0,
            46.0 + 30.0 * names.len() as f64,
            (lo, hi),
            (0.0, names.len() as f64),
        );
        plot.y_ticks = false;
        for (i, name) in names.iter().enumerate() {
            let Some(v) = left.get(name) else { continue };
            let y = plot.y(names.len() as f64 - i as f64 - 0.5);
            let (min, q1, med, q3, max) = (
                v[0],
                quantile(v, 0.25),
                quantile(v, 0.5),
                quantile(v, 0.75),
                v[v.len() - 1],
            );
            let colour = PALETTE[i % PALETTE.len()];
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
        out.push_str(&plot.finish("seconds left", "", r#"data-chart="time-left""#));
    }

    out.push_str(r#"<h3>Think time by move number</h3><p class="small">Per engine: the median think time of its n-th move (line) and the middle half of them (thin lines), from its moves binned ten to a decade; moves past 80 count as move 80.</p>"#);
    let mut plot_max = 0.0f64;
    let mut last = 1usize;
    let mut lines: Vec<(&str, Line, Line, Line)> = Vec::new();
    for name in &names {
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
    let mut plot = Plot::new(720.0, 260.0, (1.0, last as f64), (0.0, plot_max * 1.05));
    for (i, (name, q1, med, q3)) in lines.iter().enumerate() {
        let colour = PALETTE[i % PALETTE.len()];
        plot.line(q1, colour, r#"stroke-opacity="0.35""#);
        plot.line(q3, colour, r#"stroke-opacity="0.35""#);
        let medians: Vec<String> = med.iter().map(|p| format!("{:.1}", p.1)).collect();
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
    out.push_str(&plot.finish(
        "move number",
        "think time (ms)",
        r#"data-chart="move-times""#,
    ));
    legend(out, &lines.iter().map(|l| l.0).collect::<Vec<_>>());

    out.push_str(r#"<h3>Losses on time and time trouble</h3>"#);
    let items: Vec<(String, f64, String)> = summary
        .engines
        .iter()
        .map(|e| {
            (
                e.name.clone(),
                e.time_losses as f64,
                format!(
                    r#"data-engine="{}" data-time-losses="{}""#,
                    esc(&e.name),
                    e.time_losses
                ),
            )
        })
        .collect();
    out.push_str(&bars(&items, "losses on time", "time-losses"));
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

fn legend(out: &mut String, names: &[&str]) {
    out.push_str(r#"<p class="small">"#);
    for (i, name) in names.iter().enumerate() {
        let _ = write!(
            out,
            r#"<span class="dot" style="background:{}"></span>{} "#,
            PALETTE[i % PALETTE.len()],
            esc(name)
        );
    }
    out.push_str("</p>");
}

fn endings(out: &mut String, rows: &[GameRow], tally: &Tally) {
    out.push_str(r#"<h2 id="endings">Endings</h2><h3>Terminations per ruleset</h3>"#);
    let mut counts: BTreeMap<(String, String), u32> = BTreeMap::new();
    for row in rows {
        let termination = row
            .termination
            .map_or("unfinished".to_string(), |t| t.to_string());
        *counts
            .entry((row.ruleset.to_string(), termination))
            .or_default() += 1;
    }
    let items: Vec<(String, f64, String)> = counts
        .iter()
        .map(|((ruleset, termination), &n)| {
            (
                format!("{ruleset}: {termination}"),
                n as f64,
                format!(
                    r#"data-ruleset="{}" data-termination="{}" data-count="{n}""#,
                    esc(ruleset),
                    esc(termination)
                ),
            )
        })
        .collect();
    out.push_str(&bars(&items, "games", "terminations"));

    let inj = &tally.injections;
    if inj.is_empty() {
        out.push_str(r#"<h3>Injections</h3><p class="small">None in this run.</p>"#);
        return;
    }
    out.push_str(r#"<h3>Injections and how they were ruled</h3>"#);
    let mut items = Vec::new();
    for ((ruleset, label), injected) in &inj.injected {
        let (count, rulings) = (&injected.count, &injected.rulings);
        items.push((
            format!("{ruleset}: {label}"),
            *count as f64,
            format!(
                r#"data-ruleset="{}" data-injection="{}" data-count="{count}""#,
                esc(ruleset),
                esc(label)
            ),
        ));
        for ((termination, rule), n) in rulings {
            items.push((
                format!("  ruled {termination} ({rule})"),
                *n as f64,
                format!(
                    r#"data-ruleset="{}" data-injection="{}" data-termination="{}" data-rule="{}" data-ruled="{n}""#,
                    esc(ruleset),
                    esc(label),
                    esc(termination),
                    esc(rule)
                ),
            ));
        }
    }
    out.push_str(&bars(&items, "", "injections"));
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
    for (_, html) in sections {
        out.push_str(html);
    }
}
