//! `reversi show`: a recorded game to look at, in the terminal (the board
//! after each move) or as one self-contained HTML page (no network): the
//! board with a slider over the moves, the move list, and, when the game
//! has been analysed (each move's evaluation in its GGF), the graph of the
//! evaluation. The page reads without scripts (the board after the last
//! move, the list, the graph); scripts add the slider, the keys and a
//! position chosen by the address (`page.html#12`: after move 12).

use crate::records::ggf::GgfGame;
use reversi_core::board::{Board, Color};
use std::fmt::Write as _;

/// One position of a game as the viewer shows it: the board after `moves`
/// moves, who moved last and where, who is to move.
pub struct Frame {
    pub board: Board,
    /// The side to move in `board`.
    pub to_move: Color,
    /// The move that led here: its number (from 1), who, and the text
    /// (`f5`, `pass`); `None` at the start.
    pub last: Option<(usize, Color, String)>,
    /// The move's evaluation as recorded (GGF's `/eval`), for the side that
    /// played it.
    pub eval: Option<f64>,
}

/// Every position of `game`, from the start.
pub fn frames(game: &GgfGame) -> Result<Vec<Frame>, String> {
    let boards = game.positions()?;
    let mut frames = Vec::with_capacity(boards.len());
    let mut to_move = game.to_move;
    frames.push(Frame {
        board: boards[0],
        to_move,
        last: None,
        eval: None,
    });
    for (i, (m, board)) in game.moves.iter().zip(&boards[1..]).enumerate() {
        to_move = to_move.other();
        frames.push(Frame {
            board: *board,
            to_move,
            last: Some((
                i + 1,
                m.color,
                m.square.map_or("pass".to_string(), |s| s.to_string()),
            )),
            eval: m.eval.trim().parse::<f64>().ok().filter(|e| e.is_finite()),
        });
    }
    Ok(frames)
}

/// The discs of each side.
fn counts(frame: &Frame) -> (u32, u32) {
    let (black, white) = frame.board.colors(frame.to_move);
    (black.count_ones(), white.count_ones())
}

/// A frame as text: the move, the board (the move just played in
/// brackets), the disc count.
#[must_use]
pub fn text_frame(frame: &Frame) -> String {
    let mut out = String::new();
    let marked = match &frame.last {
        Some((n, color, place)) => {
            let _ = write!(out, "move {n}: {} {place}", color.name());
            if let Some(eval) = frame.eval {
                let _ = write!(out, " ({eval:+.2})");
            }
            out.push('\n');
            reversi_core::bitboard::Square::parse(place)
        }
        None => {
            out.push_str("start\n");
            None
        }
    };
    out.push_str(&frame.board.diagram_marking(frame.to_move, marked));
    let (black, white) = counts(frame);
    let _ = writeln!(
        out,
        "black (X) {black}, white (O) {white}; {}",
        if frame.board.is_game_over() {
            "the game is over".to_string()
        } else {
            format!("{} to move", frame.to_move.name())
        }
    );
    out
}

/// `&`, `<`, `>`, `"` and `'` written as HTML entities.
#[must_use]
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
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
    out
}

/// A position (`board`, `to_move` to move) as 64 characters, a1 to h8 row
/// by row: `b` black, `w` white, `.` empty (what the page's script draws
/// from, and what the arena server sends).
#[must_use]
pub fn cells(board: &Board, to_move: Color) -> String {
    let (black, white) = board.colors(to_move);
    (0..64)
        .map(|i| {
            let bit = 1u64 << i;
            if black & bit != 0 {
                'b'
            } else if white & bit != 0 {
                'w'
            } else {
                '.'
            }
        })
        .collect()
}

/// The board of one frame as HTML: the files a-h above, the ranks 1-8
/// beside, and 64 cells, each with its disc.
fn board_html(frame: &Frame) -> String {
    let mut out = String::from("<div class=\"frame\"><div class=\"files\">");
    for file in 'a'..='h' {
        let _ = write!(out, "<span>{file}</span>");
    }
    out.push_str("</div><div class=\"ranks\">");
    for rank in 1..=8 {
        let _ = write!(out, "<span>{rank}</span>");
    }
    out.push_str("</div><div id=\"board\" class=\"board\">");
    for (i, c) in cells(&frame.board, frame.to_move).chars().enumerate() {
        let disc = match c {
            'b' => "<span class=\"disc black\"></span>",
            'w' => "<span class=\"disc white\"></span>",
            _ => "",
        };
        let _ = write!(out, "<div class=\"cell\" data-square=\"{i}\">{disc}</div>");
    }
    out.push_str("</div></div>");
    out
}

/// The evaluation graph (black's view, in discs) as inline SVG, when
/// some move has an evaluation: a point per evaluated move.
fn graph_svg(frames: &[Frame]) -> Option<String> {
    let points: Vec<(usize, f64)> = frames
        .iter()
        .filter_map(|f| {
            let (n, color, _) = f.last.as_ref()?;
            let eval = f.eval?;
            Some((*n, if *color == Color::Black { eval } else { -eval }))
        })
        .collect();
    if points.is_empty() {
        return None;
    }
    let (width, height) = (600.0, 160.0);
    let last = frames.len().saturating_sub(1).max(1) as f64;
    let top = points
        .iter()
        .map(|p| p.1.abs())
        .fold(4.0f64, f64::max)
        .min(64.0);
    let x = |n: usize| n as f64 / last * width;
    let y = |v: f64| height / 2.0 - v / top * (height / 2.0 - 4.0);
    let line: Vec<String> = points
        .iter()
        .map(|&(n, v)| format!("{:.1},{:.1}", x(n), y(v)))
        .collect();
    let mut svg = format!(
        "<svg id=\"graph\" viewBox=\"0 0 {width} {height}\" width=\"{width}\" height=\"{height}\" \
         role=\"img\" aria-label=\"evaluation for black, in discs, after each move\">\
         <rect width=\"{width}\" height=\"{height}\" class=\"graph-back\"/>\
         <line x1=\"0\" y1=\"{mid}\" x2=\"{width}\" y2=\"{mid}\" class=\"axis\"/>\
         <text x=\"4\" y=\"12\">+{top:.0}</text><text x=\"4\" y=\"{bottom}\">-{top:.0}</text>\
         <polyline id=\"evals\" points=\"{}\"/>",
        line.join(" "),
        mid = height / 2.0,
        bottom = height - 4.0,
    );
    // The move axis: a tick and its number every ten moves.
    for n in (10..=last as usize).step_by(10) {
        let _ = write!(
            svg,
            "<line x1=\"{at:.1}\" y1=\"{a}\" x2=\"{at:.1}\" y2=\"{height}\" class=\"axis\"/>\
             <text x=\"{at:.1}\" y=\"{b}\" text-anchor=\"middle\">{n}</text>",
            at = x(n),
            a = height - 4.0,
            b = height - 6.0,
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{w}\" y=\"{mid_label}\" text-anchor=\"end\">move</text>\
         <line id=\"now\" x1=\"{w}\" y1=\"0\" x2=\"{w}\" y2=\"{height}\" class=\"now\"/></svg>",
        w = width,
        mid_label = height / 2.0 - 3.0,
    );
    Some(svg)
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em;color:#222}\
.frame{display:grid;grid-template-columns:18px auto;grid-template-rows:18px auto;width:max-content}\
.files{grid-column:2;display:grid;grid-template-columns:repeat(8,46px);padding-left:4px;text-align:center;color:#555}\
.ranks{grid-row:2;display:grid;grid-template-rows:repeat(8,46px);padding-top:4px;align-items:center;color:#555}\
.board{grid-column:2;grid-row:2;display:grid;grid-template-columns:repeat(8,44px);grid-template-rows:repeat(8,44px);gap:2px;\
background:#1b5e20;padding:4px;width:max-content;border-radius:4px}\
.cell{background:#2e7d32;display:flex;align-items:center;justify-content:center}\
.cell.last{outline:3px solid #ffeb3b;outline-offset:-3px}\
.disc{width:36px;height:36px;border-radius:50%;display:block}\
.disc.black{background:#111}.disc.white{background:#f5f5f5;box-shadow:inset 0 0 0 1px #999}\
.moves{columns:4;max-width:600px;padding-left:2.5em}.moves li.now{font-weight:bold}\
.moves a{color:inherit;text-decoration:none}\
#graph .graph-back{fill:#fafafa}#graph .axis{stroke:#999}#graph polyline{fill:none;stroke:#1565c0;stroke-width:2}\
#graph .now{stroke:#e53935}#graph text{font-size:10px;fill:#555}\
.controls{margin:1em 0}.controls input{width:360px;max-width:100%;vertical-align:middle}\
#graph{max-width:100%;height:auto}:focus-visible{outline:3px solid #1565c0;outline-offset:2px}\
@media (max-width:480px){body{margin:.5em}.files{grid-template-columns:repeat(8,38px)}\
.ranks{grid-template-rows:repeat(8,38px)}.board{grid-template-columns:repeat(8,36px);grid-template-rows:repeat(8,36px)}\
.disc{width:30px;height:30px}.moves{columns:2}}";

/// The page's script: draws the position chosen by the slider, the keys
/// (arrows, Home, End), a click in the list or the address (`#N`).
const SCRIPT: &str = "(function(){\
var game=JSON.parse(document.getElementById('game-data').textContent);\
var board=document.getElementById('board'),slider=document.getElementById('slider'),\
label=document.getElementById('position'),items=document.querySelectorAll('.moves li'),\
now=document.getElementById('now');\
function show(n){n=Math.max(0,Math.min(game.frames.length-1,n|0));var f=game.frames[n];\
for(var i=0;i<64;i++){var cell=board.children[i],c=f.cells[i];\
cell.innerHTML=c==='b'?'<span class=\"disc black\"></span>':c==='w'?'<span class=\"disc white\"></span>':'';\
cell.classList.toggle('last',f.square===i);}\
slider.value=n;label.textContent=f.label;board.setAttribute('data-move',n);\
for(var j=0;j<items.length;j++)items[j].classList.toggle('now',j===n-1);\
if(now){var x=n/Math.max(1,game.frames.length-1)*600;now.setAttribute('x1',x);now.setAttribute('x2',x);}\
if(location.hash!=='#'+n)history.replaceState(null,'','#'+n);}\
slider.addEventListener('input',function(){show(+slider.value);});\
document.addEventListener('keydown',function(e){var n=+slider.value;\
if(e.key==='ArrowRight')show(n+1);else if(e.key==='ArrowLeft')show(n-1);\
else if(e.key==='Home')show(0);else if(e.key==='End')show(game.frames.length-1);});\
for(var k=0;k<items.length;k++)(function(k){items[k].addEventListener('click',function(e){e.preventDefault();show(k+1);});})(k);\
var start=parseInt(location.hash.slice(1),10);show(isNaN(start)?game.frames.length-1:start);\
})();";

/// One frame as the page's script reads it.
fn frame_json(frame: &Frame) -> serde_json::Value {
    let (black, white) = counts(frame);
    let label = match &frame.last {
        Some((n, color, place)) => {
            format!("after move {n}, {} {place}: {black}-{white}", color.name())
        }
        None => format!("start: {black}-{white}"),
    };
    let square = frame
        .last
        .as_ref()
        .and_then(|(_, _, place)| reversi_core::bitboard::Square::parse(place))
        .map(|s| s.index());
    serde_json::json!({ "cells": cells(&frame.board, frame.to_move), "label": label, "square": square })
}

/// The whole page for `game`.
pub fn html_page(game: &GgfGame) -> Result<String, String> {
    let frames = frames(game)?;
    let black = game.tag("PB").unwrap_or("black");
    let white = game.tag("PW").unwrap_or("white");
    let result = game.tag("RE").map_or(String::new(), |r| format!(" ({r})"));
    let title = format!("{black} (black) vs {white} (white){result}");
    let last = frames.last().expect("the start at least");
    let data = serde_json::json!({
        "frames": frames.iter().map(frame_json).collect::<Vec<_>>(),
    });
    // `</` cannot end the script element from inside the data.
    let data = data.to_string().replace("</", "<\\/");
    let mut moves = String::new();
    for f in &frames[1..] {
        let (n, color, place) = f.last.as_ref().expect("after a move");
        let eval = f.eval.map_or(String::new(), |e| format!(" {e:+.1}"));
        let _ = write!(
            moves,
            "<li><a href=\"#{n}\">{} {place}{eval}</a></li>",
            if *color == Color::Black { "B" } else { "W" }
        );
    }
    let graph = graph_svg(&frames).map_or(String::new(), |svg| {
        format!("<h2>Evaluation (black's view, discs)</h2>{svg}")
    });
    let comment = game
        .tag("C")
        .map_or(String::new(), |c| format!("<p>{}</p>", escape_html(c)));
    Ok(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>{title}</title><style>{STYLE}</style></head><body>\
         <h1>{title}</h1>{comment}\
         <div class=\"controls\"><input type=\"range\" id=\"slider\" min=\"0\" max=\"{max}\" value=\"{max}\" \
         aria-label=\"move\"> <span id=\"position\">{label}</span></div>\
         {board}{graph}<h2>Moves</h2><ol class=\"moves\">{moves}</ol>\
         <script type=\"application/json\" id=\"game-data\">{data}</script>\
         <script>{SCRIPT}</script></body></html>\n",
        title = escape_html(&title),
        max = frames.len() - 1,
        label = escape_html(
            frame_json(last)["label"]
                .as_str()
                .expect("a label")
        ),
        board = board_html(last),
    ))
}
