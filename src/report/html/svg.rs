//! Inline SVG charts, written as text: a plot area with axes and ticks, and the marks drawn in
//! it. Every mark that stands for a number carries it in a `data-*` attribute, so a test (or
//! a reader's script) can read the chart's numbers back from the page.

use std::fmt::Write;

use crate::decimal;

/// Text for HTML and SVG: `&`, `<`, `>`, `"` and `'` escaped.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    push_esc(&mut out, text);
    out
}

/// [`esc`], appended to `out`: text with nothing to escape (a move's SAN) is copied whole.
pub fn push_esc(out: &mut String, text: &str) {
    // Every byte looked at, no early way out: the loop runs a vector of bytes at a time.
    if !text.bytes().fold(false, |special, b| {
        special | matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'')
    }) {
        out.push_str(text);
        return;
    }
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

/// A number for a `data-*` attribute: `inf`, `-inf`, or `decimals` places.
pub fn num(x: f64, decimals: usize) -> String {
    if x.is_nan() {
        String::new()
    } else if x.is_infinite() {
        if x > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{x:.decimals$}")
    }
}

/// Colours of the series, in order (the first two are white's and black's in clock charts).
pub const PALETTE: [&str; 8] = [
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
];

/// A plot: the data ranges mapped onto a `width` x `height` picture with margins for the
/// axes. Marks are appended to `body` in data coordinates through [`Plot::x`] and [`Plot::y`].
pub struct Plot {
    pub width: f64,
    pub height: f64,
    x_range: (f64, f64),
    y_range: (f64, f64),
    body: String,
    /// Whether the y axis has ticks (not for rows of named items).
    pub y_ticks: bool,
}

const LEFT: f64 = 56.0;
const RIGHT: f64 = 12.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 34.0;
/// Room a 10 px label takes above a line it sits on (3 px gap, its ascent), and the baseline
/// of one hung below a line.
const LABEL_ABOVE: f64 = 14.0;
const LABEL_BELOW: f64 = 11.0;
/// The height of a row of [`Plot::rows`]: an 11 px label over its mark, both inside the frame.
const ROW: f64 = 40.0;

impl Plot {
    /// A chart of `rows` labelled rows (one an engine) over `x_range`, without y ticks: row
    /// `i` from the top is centred at data y `rows - i - 0.5`.
    pub fn rows(width: f64, rows: usize, x_range: (f64, f64)) -> Plot {
        let n = rows as f64;
        let mut plot = Plot::new(width, TOP + BOTTOM + ROW * n, x_range, (0.0, n));
        plot.y_ticks = false;
        plot
    }

    pub fn new(width: f64, height: f64, x_range: (f64, f64), y_range: (f64, f64)) -> Plot {
        let widen = |(lo, hi): (f64, f64)| {
            let (lo, hi) = if lo.is_finite() && hi.is_finite() {
                (lo, hi)
            } else {
                (0.0, 1.0)
            };
            if hi - lo < 1e-9 {
                (lo - 1.0, hi + 1.0)
            } else {
                (lo, hi)
            }
        };
        Plot {
            width,
            height,
            x_range: widen(x_range),
            y_range: widen(y_range),
            body: String::new(),
            y_ticks: true,
        }
    }

    /// The picture's x of a data x (clamped to the plot area).
    pub fn x(&self, x: f64) -> f64 {
        let (lo, hi) = self.x_range;
        let x = if x.is_nan() { lo } else { x.clamp(lo, hi) };
        LEFT + (x - lo) / (hi - lo) * (self.width - LEFT - RIGHT)
    }

    /// The picture's y of a data y (clamped to the plot area).
    pub fn y(&self, y: f64) -> f64 {
        let (lo, hi) = self.y_range;
        let y = if y.is_nan() { lo } else { y.clamp(lo, hi) };
        self.height - BOTTOM - (y - lo) / (hi - lo) * (self.height - TOP - BOTTOM)
    }

    pub fn push(&mut self, mark: &str) {
        self.body.push_str(mark);
    }

    /// A polyline through `points` (data coordinates).
    pub fn line(&mut self, points: &[(f64, f64)], colour: &str, attrs: &str) {
        if points.is_empty() {
            return;
        }
        let mut d = String::with_capacity(points.len() * 14);
        for (i, &(x, y)) in points.iter().enumerate() {
            d.push(if i == 0 { 'M' } else { 'L' });
            push_tenths(&mut d, self.x(x));
            d.push(',');
            push_tenths(&mut d, self.y(y));
        }
        let _ = write!(
            self.body,
            r#"<path d="{d}" fill="none" stroke="{colour}" stroke-width="1.6" {attrs}/>"#
        );
    }

    /// A horizontal dashed line at data y, labelled.
    pub fn hline(&mut self, y: f64, label: &str, attrs: &str) {
        let (x0, x1, py) = (self.x(self.x_range.0), self.x(self.x_range.1), self.y(y));
        // The label sits on the line, or under it where above would cross the frame's top.
        let baseline = if py - LABEL_ABOVE < self.y(self.y_range.1) {
            py + LABEL_BELOW
        } else {
            py - 3.0
        };
        let _ = write!(
            self.body,
            r##"<line x1="{}" y1="{py}" x2="{}" y2="{py}" stroke="#888" stroke-dasharray="4 3" {attrs}/><text x="{}" y="{}" font-size="10" text-anchor="end" fill="#555">{}</text>"##,
            Tenths(x0),
            Tenths(x1),
            Tenths(x1 - 2.0),
            Tenths(baseline),
            esc(label),
            py = Tenths(py),
        );
    }

    /// The finished `<svg>`: axes with ticks, the axis titles, the marks; `attrs` go on the
    /// `<svg>` element (a `data-chart` name, say).
    pub fn finish(self, x_title: &str, y_title: &str, attrs: &str) -> String {
        let mut out = String::with_capacity(self.body.len() + 2048);
        let (w, h) = (self.width, self.height);
        let _ = write!(
            out,
            r#"<svg class="plot" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img" {attrs}>"#
        );
        let (px0, px1) = (self.x(self.x_range.0), self.x(self.x_range.1));
        let (py0, py1) = (self.y(self.y_range.0), self.y(self.y_range.1));
        let _ = write!(
            out,
            r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#fafafa" stroke="#ccc"/>"##,
            Tenths(px0),
            Tenths(py1),
            Tenths(px1 - px0),
            Tenths(py0 - py1)
        );
        for t in ticks(self.x_range) {
            let _ = write!(
                out,
                r##"<line x1="{px}" y1="{}" x2="{px}" y2="{}" stroke="#999"/><text x="{px}" y="{}" font-size="10" text-anchor="middle">{}</text>"##,
                Tenths(py0),
                Tenths(py0 + 4.0),
                Tenths(py0 + 14.0),
                tick_label(t),
                px = Tenths(self.x(t)),
            );
        }
        for t in ticks(self.y_range).into_iter().filter(|_| self.y_ticks) {
            let py = self.y(t);
            let _ = write!(
                out,
                r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#eee"/><text x="{}" y="{}" font-size="10" text-anchor="end">{}</text>"##,
                Tenths(px0),
                Tenths(py),
                Tenths(px1),
                Tenths(py),
                Tenths(px0 - 4.0),
                Tenths(py + 3.0),
                tick_label(t)
            );
        }
        out.push_str(&self.body);
        let _ = write!(
            out,
            r#"<text x="{}" y="{}" font-size="11" text-anchor="middle">{}</text><text x="12" y="{mid}" font-size="11" text-anchor="middle" transform="rotate(-90 12 {mid})">{}</text></svg>"#,
            Tenths((px0 + px1) / 2.0),
            Tenths(h - 4.0),
            esc(x_title),
            esc(y_title),
            mid = Tenths((py0 + py1) / 2.0),
        );
        out
    }
}

/// About five round tick values across `range`.
fn ticks((lo, hi): (f64, f64)) -> Vec<f64> {
    let span = hi - lo;
    if span <= 0.0 || !span.is_finite() {
        return vec![lo];
    }
    let raw = span / 5.0;
    let magnitude = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * magnitude)
        .find(|s| *s >= raw)
        .unwrap_or(magnitude * 10.0);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 12 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

/// A tick's value with the decimals it needs (ticks are round: 0.005 is `0.005`, not `0.01`).
fn tick_label(t: f64) -> String {
    if t.abs() >= 1000.0 {
        return format!("{t:.0}");
    }
    (0..=6)
        .find(|&decimals| {
            let scaled = t * 10f64.powi(decimals);
            (scaled - scaled.round()).abs() < 1e-6 * scaled.abs().max(1.0)
        })
        .map_or_else(
            || format!("{t:.6}"),
            |decimals| format!("{t:.*}", decimals as usize),
        )
}

/// One bar of a [`bars`] chart.
pub struct Bar {
    pub label: String,
    pub value: f64,
    /// What is written beside the bar (`3 losses on time`).
    pub text: String,
    pub colour: &'static str,
    /// The bar's `data-*` numbers.
    pub attrs: String,
}

/// About how wide `text` is at 11 px, so that no label is clipped.
pub fn text_width(text: &str) -> f64 {
    text.chars().count() as f64 * 6.6 + 8.0
}

/// A horizontal bar chart: one labelled bar per item, its text written beside it; the label
/// column and the room for the texts are as wide as the longest of them.
pub fn bars(items: &[Bar], chart: &str) -> String {
    let max = items
        .iter()
        .map(|i| i.value)
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let row = 18.0;
    let label_w = items
        .iter()
        .map(|i| text_width(&i.label))
        .fold(60.0, f64::max);
    let text_w = items
        .iter()
        .map(|i| text_width(&i.text))
        .fold(40.0, f64::max);
    let bar_w = 360.0;
    let w = label_w + bar_w + text_w + 8.0;
    let height = row * items.len() as f64 + 8.0;
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg class="bars" xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{height}" viewBox="0 0 {w:.0} {height}" data-chart="{chart}">"#,
    );
    for (i, bar) in items.iter().enumerate() {
        let y = 4.0 + i as f64 * row;
        let len = (bar.value / max * bar_w).max(1.0);
        let _ = write!(
            out,
            r#"<text x="{:.1}" y="{:.1}" font-size="11" text-anchor="end">{}</text><rect x="{label_w:.1}" y="{y:.1}" width="{len:.1}" height="{:.1}" fill="{}" {}><title>{}: {}</title></rect><text x="{:.1}" y="{:.1}" font-size="11">{}</text>"#,
            label_w - 6.0,
            y + 12.0,
            esc(&bar.label),
            row - 4.0,
            bar.colour,
            bar.attrs,
            esc(&bar.label),
            esc(&bar.text),
            label_w + len + 4.0,
            y + 12.0,
            esc(&bar.text),
        );
    }
    out.push_str("</svg>");
    out
}

/// `v` as `{v:.1}` writes it, without the formatter's exact decimal expansion for the
/// coordinates a chart line has by the hundred (0.1 to 100 million, no tie): there `v * 10`
/// is within a millionth of its exact value, so rounding it rounds `v`. Anything else (a
/// tie, a negative or tiny value, whose sign the formatter keeps, NaN) goes to `{v:.1}`.
/// A number written as `{:.1}` writes it, the common case without the float formatter (as
/// [`push_tenths`]).
pub struct Tenths(pub f64);

impl std::fmt::Display for Tenths {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v = self.0;
        let t = v * 10.0;
        if !(1.0..1e9).contains(&t) || (t - t.floor() - 0.5).abs() < 1e-6 {
            return write!(f, "{v:.1}");
        }
        let n = t.round() as u64;
        write!(f, "{}.{}", n / 10, n % 10)
    }
}

fn push_tenths(out: &mut String, v: f64) {
    let t = v * 10.0;
    if !(1.0..1e9).contains(&t) || (t - t.floor() - 0.5).abs() < 1e-6 {
        let _ = write!(out, "{v:.1}");
        return;
    }
    let n = t.round() as u64;
    decimal::push(out, n / 10);
    out.push('.');
    out.push(char::from(b'0' + (n % 10) as u8));
}

#[cfg(test)]
mod tests {
    #[test]
    fn tenths_are_written_as_the_formatter_writes_them() {
        let mut values = vec![
            0.0,
            -0.0,
            0.04,
            -0.04,
            0.05,
            0.15,
            0.25,
            2.25,
            0.35,
            99.95,
            99.949_999_999_999_99,
            1e8 - 0.05,
            1e8 + 0.05,
            1e9,
            1e12,
            -3.25,
            f64::NAN,
            f64::INFINITY,
        ];
        // Every thousandth to 2,000, and a million values spread from 0.1 to 1e9.
        values.extend((0..2_000_000).map(|k| f64::from(k) / 1000.0));
        let mut r = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..1_000_000 {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            values.push(
                10f64.powf((r % 10_000) as f64 / 1000.0 - 1.0) * (1.0 + (r >> 40) as f64 / 1e7),
            );
        }
        let mut ours = String::new();
        for v in values {
            ours.clear();
            super::push_tenths(&mut ours, v);
            assert_eq!(ours, format!("{v:.1}"), "{v:e}");
            assert_eq!(super::Tenths(v).to_string(), ours, "{v:e}");
        }
    }

    use super::*;

    #[test]
    fn ticks_are_round_and_inside_the_range() {
        assert_eq!(ticks((0.0, 10.0)), vec![0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(ticks((-3.0, 3.0)), vec![-2.0, 0.0, 2.0]);
        assert!(ticks((0.0, 0.0)).len() == 1);
    }

    /// A label shows its tick's value: small steps keep their decimals, so no two ticks of
    /// an axis read the same.
    #[test]
    fn tick_labels_keep_the_decimals_their_ticks_need() {
        let labels = |range| ticks(range).into_iter().map(tick_label).collect::<Vec<_>>();
        assert_eq!(
            labels((0.0, 0.025)),
            ["0", "0.005", "0.01", "0.015", "0.02", "0.025"]
        );
        assert_eq!(labels((0.0, 0.5)), ["0", "0.1", "0.2", "0.3", "0.4", "0.5"]);
        assert_eq!(labels((0.0, 10.0)), ["0", "2", "4", "6", "8", "10"]);
        assert_eq!(labels((-400.0, 200.0)), ["-400", "-200", "0", "200"]);
        assert_eq!(tick_label(2500.0), "2500");
        assert_eq!(tick_label(0.25), "0.25");
    }

    #[test]
    fn data_maps_into_the_plot_area_and_is_clamped() {
        let p = Plot::new(400.0, 200.0, (0.0, 10.0), (0.0, 100.0));
        assert_eq!(p.x(0.0), LEFT);
        assert_eq!(p.x(10.0), 400.0 - RIGHT);
        assert_eq!(p.x(99.0), p.x(10.0));
        assert_eq!(p.y(0.0), 200.0 - BOTTOM);
        assert_eq!(p.y(100.0), TOP);
        assert!(p.y(f64::INFINITY).is_finite());
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            esc(r#"<a href="x">&'"#),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
        assert_eq!(num(f64::INFINITY, 1), "inf");
        assert_eq!(num(-12.345, 1), "-12.3");
    }
}
