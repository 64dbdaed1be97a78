//! A game's board in its section: the positions of the game replayed from its record, an SVG
//! board drawn from them, the move list, and both clocks at each move. The page's script
//! ([`SCRIPT`]) steps through the moves; without it, the board shows the final position.

use std::fmt::Write;

use crate::report::pgn::san_plus;
use shakmaty::{Chess, Position};

use super::svg::{esc, push_esc};
use crate::decimal;
use crate::event::{BySide, Event, GameRecord, Side};
use crate::rules::illegal::{self, IllegalKind, MoveCheck};
use crate::rules::legal_move;

/// One half-move of the game proper as the board shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Ply {
    /// The pieces after the move (the board part of a FEN).
    pub board: String,
    /// The move in SAN; an illegal move that stood in UCI with a note.
    pub text: String,
    /// When it was made, µs since the start.
    pub t_us: i64,
    /// Both clocks after it (white, black), µs.
    pub clocks_us: BySide<i64>,
}

/// The game as a sequence of boards.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// The pieces where the clocks started (after the book moves).
    pub start: String,
    /// Both clocks at the start, µs.
    pub start_clocks_us: BySide<i64>,
    pub plies: Vec<Ply>,
    /// Why the boards stop before the game's end, when they do.
    pub stop: Option<String>,
}

/// An illegal move, until the next move shows whether it stood.
struct Pending {
    side: Side,
    uci: String,
    kind: Option<IllegalKind>,
}

/// The move `text` in `pos`; a pawn sent to the last rank without its piece counts as a queen,
/// as the rules that let it stand make it (WBCA 17, USCF 16, FIDE 7.5.2).
fn parse(pos: &Chess, text: &str) -> Option<shakmaty::Move> {
    legal_move(pos, text)
        .ok()
        .or_else(|| (text.len() == 4).then(|| legal_move(pos, &format!("{text}q")).ok())?)
}

/// Plays an illegal move that stood (the opponent moved on without noticing it).
fn play_stood(pos: &Chess, illegal: &Pending) -> Result<(Chess, String), String> {
    if illegal.kind == Some(IllegalKind::NoPromotion) {
        if let Some(m) = parse(pos, &illegal.uci) {
            let mut after = pos.clone();
            let san = san_plus(&mut after, m);
            return Ok((after, format!("{san} (without its piece: a queen)")));
        }
    }
    match illegal::check(pos, &illegal.uci) {
        MoveCheck::Illegal(i) => illegal::play_illegal(pos, &i)
            .map(|after| (after, format!("{} (illegal, stood)", illegal.uci))),
        _ => Err(format!(
            "the illegal {} cannot be set on a board",
            illegal.uci
        )),
    }
}

/// Replays `record` from its opening.
pub fn replay(record: &GameRecord) -> Replay {
    let start_clocks_us = BySide::from_fn(|s| record.tc(s).base.as_micros() as i64);
    let mut out = Replay {
        start: String::new(),
        start_clocks_us,
        plies: Vec::new(),
        stop: None,
    };
    let mut pos = match record.opening.root() {
        Ok(pos) => pos,
        Err(e) => {
            out.stop = Some(format!("the opening cannot be set up: {e}"));
            return out;
        }
    };
    for text in &record.opening.moves {
        match legal_move(&pos, text) {
            Ok(m) => pos.play_unchecked(m),
            Err(e) => {
                out.stop = Some(format!("the opening move {text} cannot be played: {e}"));
                return out;
            }
        }
    }
    out.start = board_text(&pos);
    let mut clocks = start_clocks_us;
    let mut pending: Option<Pending> = None;
    for event in &record.events {
        match event {
            Event::Penalty { side, add_us, .. } => clocks[*side] += add_us,
            Event::IllegalMove {
                side,
                uci,
                kind,
                clock_us,
                ..
            } => {
                clocks[*side] = *clock_us;
                pending = Some(Pending {
                    side: *side,
                    uci: uci.clone(),
                    kind: *kind,
                });
            }
            Event::Move {
                t_us,
                side,
                uci,
                clock_us,
                ..
            } => {
                if let Some(illegal) = pending.take() {
                    if illegal.side != *side && Side::from(pos.turn()) == illegal.side {
                        match play_stood(&pos, &illegal) {
                            Ok((after, text)) => {
                                pos = after;
                                out.plies.push(Ply {
                                    board: board_text(&pos),
                                    text,
                                    t_us: *t_us,
                                    clocks_us: clocks,
                                });
                            }
                            Err(e) => {
                                out.stop = Some(e);
                                return out;
                            }
                        }
                    }
                }
                clocks[*side] = *clock_us;
                let Some(m) = (Side::from(pos.turn()) == *side)
                    .then(|| parse(&pos, uci))
                    .flatten()
                else {
                    out.stop = Some(format!(
                        "{}'s {uci} does not fit the position: the board stops here",
                        side.name()
                    ));
                    return out;
                };
                let san = san_plus(&mut pos, m);
                out.plies.push(Ply {
                    board: board_text(&pos),
                    text: {
                        let mut text = String::with_capacity(8);
                        san.append_to_string(&mut text);
                        text
                    },
                    t_us: *t_us,
                    clocks_us: clocks,
                });
            }
            _ => {}
        }
    }
    out
}

/// The board part of `pos`'s FEN, written straight into the string (through `Display` each
/// character went through the formatter).
fn board_text(pos: &Chess) -> String {
    let mut text = String::with_capacity(72);
    pos.board().board_fen().append_to_string(&mut text);
    text
}

/// A clock for the board: `4:59.3`, `-0:01.2`.
pub fn clock_text(us: i64) -> String {
    let sign = if us < 0 { "-" } else { "" };
    let tenths = us.unsigned_abs() / 100_000;
    format!(
        "{sign}{}:{:02}.{}",
        tenths / 600,
        tenths / 10 % 60,
        tenths % 10
    )
}

/// Square size of the board, in SVG units.
const SQ: f64 = 40.0;
/// [`SQ`] as a whole number, for the pieces' coordinates.
const SQ_WHOLE: u64 = 40;

/// The pieces of a FEN board part as SVG text marks (white pieces drawn white with a dark
/// outline, black ones dark; the same glyph shapes for both).
fn pieces(board: &str) -> String {
    let mut out = String::new();
    for (rank, row) in board.split('/').enumerate() {
        let mut file = 0usize;
        for c in row.chars() {
            if let Some(n) = c.to_digit(10) {
                file += n as usize;
                continue;
            }
            let glyph = match c.to_ascii_lowercase() {
                'k' => '\u{265A}',
                'q' => '\u{265B}',
                'r' => '\u{265C}',
                'b' => '\u{265D}',
                'n' => '\u{265E}',
                _ => '\u{265F}',
            };
            // The square's middle and a baseline 0.8 of the way down it, whole numbers (as
            // the page's script writes them): `{}` of the same `f64`s wrote them as these.
            out.push_str(r#"<text x=""#);
            decimal::push(&mut out, file as u64 * SQ_WHOLE + SQ_WHOLE / 2);
            out.push_str(r#"" y=""#);
            decimal::push(&mut out, rank as u64 * SQ_WHOLE + SQ_WHOLE * 4 / 5);
            let _ = write!(
                out,
                r#"" class="{}" data-piece="{c}">{glyph}&#xFE0E;</text>"#,
                if c.is_ascii_uppercase() { "w" } else { "b" },
            );
            file += 1;
        }
    }
    out
}

/// The squares and coordinates of every board, drawn once on the page (`<use>`d by each).
pub fn squares() -> &'static str {
    // The same on every page: drawn once.
    static SQUARES: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SQUARES.get_or_init(draw_squares)
}

fn draw_squares() -> String {
    let mut out = String::from(
        r#"<svg width="0" height="0" style="position:absolute" aria-hidden="true"><defs><g id="board-squares">"#,
    );
    let size = SQ * 8.0;
    let _ = write!(
        out,
        r##"<rect x="0" y="0" width="{size}" height="{size}" fill="#f0d9b5"/>"##
    );
    for rank in 0..8 {
        for file in (0..8).filter(|f| (rank + f) % 2 == 1) {
            let _ = write!(
                out,
                r##"<rect x="{}" y="{}" width="{SQ}" height="{SQ}" fill="#b58863"/>"##,
                file as f64 * SQ,
                rank as f64 * SQ,
            );
        }
        let _ = write!(
            out,
            r#"<text x="-7" y="{:.1}" font-size="10" text-anchor="middle">{}</text><text x="{:.1}" y="{:.1}" font-size="10" text-anchor="middle">{}</text>"#,
            rank as f64 * SQ + SQ * 0.6,
            8 - rank,
            rank as f64 * SQ + SQ / 2.0,
            size + 11.0,
            (b'a' + rank as u8) as char
        );
    }
    out.push_str("</g></defs></svg>");
    out
}

/// The board, with `board`'s pieces on it.
fn board_svg(board: &str) -> String {
    let size = SQ * 8.0 + 14.0;
    format!(
        r##"<svg class="board" xmlns="http://www.w3.org/2000/svg" viewBox="-14 0 {size} {size}" role="img" aria-label="the board"><use href="#board-squares"/><g class="pieces">{}</g></svg>"##,
        pieces(board)
    )
}

/// The board block of a game section: the board at the game's end, the buttons that step
/// through it, both clocks, the move list; the plies as JSON for the page's script. `x_of`
/// maps a game time (seconds) to the x of the section's clock chart, for its cursor.
pub fn replay_html(record: &GameRecord, replay: &Replay, x_of: &dyn Fn(f64) -> f64) -> String {
    let last = replay.plies.last();
    let board = last.map_or(replay.start.as_str(), |p| p.board.as_str());
    let clocks = last.map_or(replay.start_clocks_us, |p| p.clocks_us);
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<div class="replay" data-game="{}" data-plies="{}" data-ply="{}" tabindex="0"><div class="boardcol">{}<div class="nav"><button type="button" data-step="first" title="the start">&laquo;</button><button type="button" data-step="prev" title="one move back (left arrow)">&lsaquo;</button><button type="button" data-step="next" title="one move on (right arrow)">&rsaquo;</button><button type="button" data-step="last" title="the end">&raquo;</button> <span class="at">{}</span></div></div><div class="sidecol">"#,
        record.game,
        replay.plies.len(),
        replay.plies.len(),
        board_svg(board),
        at_text(replay.plies.len(), replay.plies.len()),
    );
    for side in [Side::Black, Side::White] {
        let _ = write!(
            out,
            r#"<div class="clk" data-side="{s}">{s}: {} <b class="time">{}</b></div>"#,
            esc(record.engine(side)),
            clock_text(clocks[side]),
            s = side.name(),
        );
    }
    out.push_str(r#"<ol class="moves">"#);
    for (i, ply) in replay.plies.iter().enumerate() {
        if i % 2 == 0 {
            out.push_str("<li>");
        }
        out.push_str(r#"<span class="mv" data-ply=""#);
        decimal::push(&mut out, i as u64 + 1);
        out.push_str(r#"">"#);
        push_esc(&mut out, &ply.text);
        out.push_str("</span> ");
        if i % 2 == 1 || i + 1 == replay.plies.len() {
            out.push_str("</li>");
        }
    }
    out.push_str("</ol>");
    if let Some(stop) = &replay.stop {
        let _ = write!(out, r#"<p class="small stop">{}</p>"#, esc(stop));
    }
    // Each ply a JSON array [board, move, white ms, black ms, chart x], as `serde_json` writes
    // it, with `</` written `<\/` (the script element ends at `</`).
    let x = |t_s: f64| (x_of(t_s) * 10.0).round() / 10.0;
    out.push_str(r#"</div><script type="application/json" class="plies">["#);
    push_json_ply(
        &mut out,
        &replay.start,
        "",
        replay.start_clocks_us.map(|us| us / 1000),
        x(0.0),
    );
    for p in &replay.plies {
        out.push(',');
        push_json_ply(
            &mut out,
            &p.board,
            &p.text,
            p.clocks_us.map(|us| us / 1000),
            x(p.t_us as f64 / 1e6),
        );
    }
    out.push_str("]</script></div>");
    out
}

/// One ply's JSON array, `[board, move, white ms, black ms, x]`, appended to `out` as
/// `serde_json` writes the tuple, with `</` in it written `<\/`.
fn push_json_ply(out: &mut String, board: &str, text: &str, ms: BySide<i64>, x: f64) {
    out.push('[');
    push_json_str(out, board);
    out.push(',');
    push_json_str(out, text);
    out.push(',');
    out.push_str(itoa::Buffer::new().format(ms.white));
    out.push(',');
    out.push_str(itoa::Buffer::new().format(ms.black));
    out.push(',');
    push_json_tenths(out, x);
    out.push(']');
}

/// A JSON string as `serde_json` writes it, `</` written `<\/`: text of printable ASCII
/// without `"`, `\\` or `<` (a board, a move's SAN) is written as it is.
fn push_json_str(out: &mut String, text: &str) {
    // Every byte looked at, no early way out: the loop runs a vector of bytes at a time.
    if !text.bytes().fold(false, |special, b| {
        special | !(b' '..=b'~').contains(&b) | matches!(b, b'"' | b'\\' | b'<')
    }) {
        out.push('"');
        out.push_str(text);
        out.push('"');
        return;
    }
    let json = serde_json::to_string(text).unwrap_or_default();
    out.push_str(&json.replace("</", "<\\/"));
}

/// A number of tenths (`x`, rounded to a tenth) as `serde_json` writes an `f64` (the shortest
/// text that reads back as it): `56.0`, `123.4`. A positive `x` below ten billion is its tenths
/// written with a point before the last digit (at that size a tenth is thousands of steps of
/// an `f64`, so no shorter text reads back as it, and no other of that length is nearer);
/// anything else goes to `serde_json`.
fn push_json_tenths(out: &mut String, x: f64) {
    let tenths = (x * 10.0).round();
    if tenths > 0.0 && tenths < 1e11 && tenths / 10.0 == x {
        let n = tenths as u64;
        decimal::push(out, n / 10);
        out.push('.');
        out.push(char::from(b'0' + (n % 10) as u8));
        return;
    }
    out.push_str(&serde_json::to_string(&x).unwrap_or_default());
}

fn at_text(ply: usize, plies: usize) -> String {
    format!("half-move {ply} of {plies}")
}

/// The script that steps through each board: the buttons, a click on a move, the arrow keys
/// on a focused board, and `#game-N-ply-K` in the address. It draws the pieces as the Rust
/// side does (see `pieces`).
pub const SCRIPT: &str = r##"(function(){
var G={k:'\u265A',q:'\u265B',r:'\u265C',b:'\u265D',n:'\u265E',p:'\u265F'};
function pieces(board){var out='';board.split('/').forEach(function(row,rank){var file=0;
 for(var i=0;i<row.length;i++){var c=row[i];if(c>='1'&&c<='8'){file+=+c;continue;}
  var w=c!==c.toLowerCase();out+='<text x="'+(file*40+20)+'" y="'+(rank*40+32)+'" class="'+(w?'w':'b')+'" data-piece="'+c+'">'+G[c.toLowerCase()]+'\uFE0E</text>';file++;}});return out;}
function clock(ms){var s=ms<0?'-':'';var t=Math.floor(Math.abs(ms)/100);return s+Math.floor(t/600)+':'+('0'+Math.floor(t/10)%60).slice(-2)+'.'+t%10;}
function setup(box){
 var plies=JSON.parse(box.querySelector('script.plies').textContent);
 var n=plies.length-1;var section=box.closest('section');
 var cursor=section?section.querySelector('svg[data-chart="clock"] line.cursor'):null;
 function show(i){i=Math.max(0,Math.min(n,i));var p=plies[i];
  box.querySelector('g.pieces').innerHTML=pieces(p[0]);
  box.querySelector('.clk[data-side="white"] .time').textContent=clock(p[2]);
  box.querySelector('.clk[data-side="black"] .time').textContent=clock(p[3]);
  var list=box.querySelector('.moves');
  box.querySelectorAll('.mv').forEach(function(m){var now=+m.dataset.ply===i;m.classList.toggle('now',now);
   if(now){list.scrollTop=m.offsetTop-list.offsetTop-list.clientHeight/2;}});
  box.querySelector('.at').textContent='half-move '+i+' of '+n;
  if(cursor){cursor.setAttribute('x1',p[4]);cursor.setAttribute('x2',p[4]);cursor.setAttribute('visibility','visible');}
  box.dataset.ply=i;box.dataset.board=p[0];}
 box.show=show;
 box.addEventListener('click',function(e){var t=e.target;
  if(t.dataset.ply){show(+t.dataset.ply);return;}
  var s=t.dataset.step;if(!s)return;var i=+box.dataset.ply;
  show(s==='first'?0:s==='last'?n:s==='prev'?i-1:i+1);});
 box.addEventListener('keydown',function(e){var i=+box.dataset.ply;
  if(e.key==='ArrowLeft'){show(i-1);e.preventDefault();}
  if(e.key==='ArrowRight'){show(i+1);e.preventDefault();}
  if(e.key==='Home'){show(0);e.preventDefault();}
  if(e.key==='End'){show(n);e.preventDefault();}});
 show(n);}
document.querySelectorAll('.replay').forEach(setup);
function fromHash(){var m=/^#game-(\d+)-ply-(\d+)$/.exec(location.hash);if(!m)return;
 var box=document.querySelector('.replay[data-game="'+m[1]+'"]');if(!box)return;
 box.show(+m[2]);box.closest('section').scrollIntoView();}
window.addEventListener('hashchange',fromHash);fromHash();
})();"##;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{GameResult, Termination};
    use crate::report::pgn::tests::Builder;

    #[test]
    fn the_boards_follow_the_moves_and_the_clocks() {
        let record = Builder::new(3, "alpha", "beta")
            .moves(Side::White, 1000, "e2e4 e7e5 g1f3")
            .end(GameResult::Draw, Termination::Adjudication, "", "");
        let r = replay(&record);
        assert_eq!(r.start, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
        let texts: Vec<&str> = r.plies.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(texts, ["e4", "e5", "Nf3"]);
        assert_eq!(
            r.plies[2].board,
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R"
        );
        assert!(r.plies[2].clocks_us.white < r.start_clocks_us.white);
        assert!(r.stop.is_none());
        let html = replay_html(&record, &r, &|t| t);
        assert!(html.contains(r#"data-plies="3""#), "{html}");
        assert_eq!(html.matches("data-piece=").count(), 32);
        assert_eq!(clock_text(299_340_000), "4:59.3");
        assert_eq!(clock_text(-1_250_000), "-0:01.2");
    }

    /// The board text is shakmaty's board FEN, on every position of games of moves picked
    /// by a fixed sequence (promotions, castling and captures among them).
    #[test]
    fn the_board_text_is_the_board_fen() {
        let mut r = 0x9e37_79b9_7f4a_7c15_u64;
        let mut positions = 0;
        for _ in 0..200 {
            let mut pos = Chess::default();
            for _ in 0..300 {
                assert_eq!(board_text(&pos), pos.board().board_fen().to_string());
                positions += 1;
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                r ^= r << 13;
                r ^= r >> 7;
                r ^= r << 17;
                pos.play_unchecked(moves[(r % moves.len() as u64) as usize]);
            }
        }
        assert!(positions > 20_000, "{positions}");
    }

    /// Each ply's JSON is `serde_json`'s of the tuple, `</` written `<\/`.
    #[test]
    fn the_plies_are_written_as_serde_json_writes_them() {
        let serde = |board: &str, text: &str, ms: BySide<i64>, x: f64| {
            serde_json::to_string(&(board, text, ms.white, ms.black, x))
                .unwrap()
                .replace("</", "<\\/")
        };
        let mut xs = vec![
            0.0, -0.0, 0.1, 0.5, 56.0, 56.1, 747.9, 748.0, -3.2, 1e11, 1e15,
        ];
        xs.extend((0..200_000).map(|k| f64::from(k) / 10.0));
        xs.extend([f64::NAN, f64::INFINITY, 1e-7, 123.456]);
        let texts = [
            "",
            "e4",
            "Nbxd7+",
            "O-O-O#",
            "e7e8 (illegal, stood)",
            "a\"b</c\\d\u{1}é",
        ];
        for (i, &x) in xs.iter().enumerate() {
            let text = texts[i % texts.len()];
            let ms = BySide::new(i as i64 * 37 - 5_000, -(i as i64));
            let mut ours = String::new();
            push_json_ply(&mut ours, "rnbqkbnr/8/8/8/8/8/8/RNBQKBNR", text, ms, x);
            assert_eq!(
                ours,
                serde("rnbqkbnr/8/8/8/8/8/8/RNBQKBNR", text, ms, x),
                "{x:e}"
            );
        }
    }

    /// The pieces' coordinates are those `{}` wrote of the `f64`s they were once.
    #[test]
    fn the_pieces_stand_where_they_stood() {
        let html = pieces("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR");
        let mut expected = Vec::new();
        for rank in [0usize, 1, 6, 7] {
            for file in 0..8usize {
                expected.push(format!(
                    r#"<text x="{}" y="{}" class="#,
                    file as f64 * SQ + SQ / 2.0,
                    rank as f64 * SQ + SQ * 0.8
                ));
            }
        }
        let ours: Vec<String> = html
            .split("<text ")
            .skip(1)
            .map(|t| format!("<text {}", &t[..t.find("class=").unwrap() + 6]))
            .collect();
        assert_eq!(ours, expected);
    }
}
