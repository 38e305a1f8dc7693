//! The knockout bracket as an SVG picture: one column per round, one box per
//! pairing (dark first, with its number, disc count and points after the
//! round), the winner in bold, lines from each winner to its next pairing;
//! each played game's box links to its page (`games/game-NNNN.html`).

use super::knockout::Knockout;
use crate::arena::Entrant;
use std::fmt::Write as _;

const BOX_W: f64 = 230.0;
const BOX_H: f64 = 44.0;
const COL_GAP: f64 = 60.0;
const ROW_GAP: f64 = 16.0;
const MARGIN: f64 = 20.0;
const TITLE_H: f64 = 40.0;

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The picture, as SVG text.
#[must_use]
pub fn render(k: &Knockout, entrants: &[Entrant]) -> String {
    let most = k.rounds.iter().map(Vec::len).max().unwrap_or(1) as f64;
    let height = TITLE_H + 2.0 * MARGIN + most * (BOX_H + ROW_GAP);
    let columns = k.rounds.len() as f64 + 1.0;
    let width = 2.0 * MARGIN + columns * BOX_W + (columns - 1.0) * COL_GAP;
    let name = |e: usize| format!("#{} {}", k.standings[e].number, entrants[e].name);
    // Box positions: rows spread evenly over the height of each column.
    let place = |round: usize, row: usize, rows: usize| {
        let x = MARGIN + round as f64 * (BOX_W + COL_GAP);
        let slot = (height - TITLE_H - 2.0 * MARGIN) / rows as f64;
        let y = TITLE_H + MARGIN + slot * row as f64 + (slot - BOX_H) / 2.0;
        (x, y)
    };
    let mut svg = String::new();
    let _ = writeln!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        svg,
        r##"<rect width="100%" height="100%" fill="#ffffff"/>"##
    );
    let _ = writeln!(
        svg,
        r#"<text x="{MARGIN}" y="26" font-size="16" font-weight="bold">Knockout: winner {}, top scorer {}</text>"#,
        escape(&name(k.winner)),
        escape(&name(k.top_scorer()))
    );
    let mut lines = String::new();
    for (r, pairings) in k.rounds.iter().enumerate() {
        let (hx, _) = place(r, 0, 1);
        let _ = writeln!(
            svg,
            r##"<text x="{hx:.0}" y="{:.0}" fill="#555">Round {}</text>"##,
            TITLE_H + 8.0,
            r + 1
        );
        for (row, p) in pairings.iter().enumerate() {
            let (x, y) = place(r, row, pairings.len());
            // A played game links to its page, which the tournament writes
            // beside its record in `games/`.
            let link = p.outcome.as_ref().and_then(|o| o.number);
            if let Some(number) = link {
                let _ = writeln!(svg, r#"<a href="games/game-{number:04}.html">"#);
            }
            let _ = writeln!(
                svg,
                r##"<rect x="{x:.0}" y="{y:.0}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="#f4f4f4" stroke="#888"/>"##
            );
            let sides: Vec<(usize, String)> = match (p.light, &p.outcome) {
                (None, _) => vec![(p.dark, "bye".to_string())],
                (Some(l), Some(o)) => {
                    let tag = |e: usize, discs: u32, dark: bool| {
                        let forfeited =
                            (o.forfeit.is_some() && e != p.winner) || o.double_forfeit.is_some();
                        let f = if forfeited { " (forfeit)" } else { "" };
                        format!("{} {discs}{f}", if dark { "dark" } else { "light" })
                    };
                    vec![
                        (p.dark, tag(p.dark, o.black_discs, true)),
                        (l, tag(l, o.white_discs, false)),
                    ]
                }
                (Some(l), None) => vec![(p.dark, String::new()), (l, String::new())],
            };
            for (i, (e, detail)) in sides.iter().enumerate() {
                let ty = y + 17.0 + 18.0 * i as f64;
                let weight = if *e == p.winner { "bold" } else { "normal" };
                let _ = writeln!(
                    svg,
                    r##"<text x="{:.0}" y="{ty:.0}" font-weight="{weight}">{}</text><text x="{:.0}" y="{ty:.0}" text-anchor="end" fill="#333">{}</text>"##,
                    x + 8.0,
                    escape(&name(*e)),
                    x + BOX_W - 8.0,
                    escape(detail)
                );
            }
            if link.is_some() {
                svg.push_str("</a>\n");
            }
            // A line to where the winner plays next (or to the winner's box).
            let (to_round, to_row, to_rows) = match k.rounds.get(r + 1) {
                Some(next) => match next
                    .iter()
                    .position(|q| q.dark == p.winner || q.light == Some(p.winner))
                {
                    Some(i) => (r + 1, i, next.len()),
                    None => continue,
                },
                None => (r + 1, 0, 1),
            };
            let (nx, ny) = place(to_round, to_row, to_rows);
            let _ = writeln!(
                lines,
                r##"<path d="M{:.0},{:.0} H{:.0} V{:.0} H{nx:.0}" fill="none" stroke="#aaa"/>"##,
                x + BOX_W,
                y + BOX_H / 2.0,
                x + BOX_W + COL_GAP / 2.0,
                ny + BOX_H / 2.0
            );
        }
    }
    let (wx, wy) = place(k.rounds.len(), 0, 1);
    let _ = writeln!(
        svg,
        r##"<rect x="{wx:.0}" y="{wy:.0}" width="{BOX_W}" height="{BOX_H}" rx="4" fill="#fff4c2" stroke="#b8860b"/><text x="{:.0}" y="{:.0}" font-weight="bold">Winner: {}</text><text x="{:.0}" y="{:.0}" fill="#333">{} points</text>"##,
        wx + 8.0,
        wy + 17.0,
        escape(&name(k.winner)),
        wx + 8.0,
        wy + 35.0,
        k.standings[k.winner].points
    );
    svg.push_str(&lines);
    svg.push_str("</svg>\n");
    svg
}
