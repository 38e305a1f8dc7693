//! The web pages, readable with scripts off and live with them on: the
//! list of games, each game's page (the viewer of `reversi show --html`:
//! the board with a slider, the moves) which, while the game goes on,
//! reloads itself when a move arrives, and each game's GGF.

use crate::api::Refusal;
use crate::store::GameRow;
use crate::App;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use reversi::ggf::{GgfGame, GgfMove};
use reversi::show::escape_html;
use reversi_core::bitboard::Square;
use reversi_core::board::Color;
use std::sync::Arc;

/// While a game goes on, its page asks for the game every second and
/// reloads when the number of moves or the ending has changed.
const LIVE: &str = "<script>(function(){var seen=null;function look(){\
fetch(location.pathname.replace(/^\\/games\\//,'/api/games/')).then(function(r){return r.json();})\
.then(function(g){var now=g.moves.length+'/'+g.ending;if(seen!==null&&now!==seen){location.hash='';location.reload();}\
seen=now;if(g.ending===null)setTimeout(look,1000);}).catch(function(){setTimeout(look,2000);});}look();})();</script>";

/// The stored game as GGF: the players, every move, the ending as a
/// comment and, when it ended on the board, `RE` (black's disc difference).
#[must_use]
pub fn ggf_of(row: &GameRow) -> GgfGame {
    let mut game = GgfGame::standard();
    game.set_tag("PC", "reversi-server");
    game.set_tag("PB", &row.black);
    game.set_tag("PW", &row.white);
    game.set_tag("TI", &format!("{}ms/move", row.move_time_ms));
    for (i, m) in row.moves.iter().enumerate() {
        game.moves.push(GgfMove {
            color: if i.is_multiple_of(2) {
                Color::Black
            } else {
                Color::White
            },
            square: m.as_deref().and_then(Square::parse),
            eval: String::new(),
            time: String::new(),
        });
    }
    if let Some(ending) = &row.ending {
        game.set_tag("C", ending);
        if let Ok(positions) = game.positions() {
            let last = positions.last().expect("the start at least");
            if last.is_game_over() {
                let to_move = if row.moves.len().is_multiple_of(2) {
                    Color::Black
                } else {
                    Color::White
                };
                let (black, white) = last.colors(to_move);
                let diff = black.count_ones() as i32 - white.count_ones() as i32;
                game.set_tag("RE", &format!("{diff:+}"));
            }
        }
    }
    game
}

async fn row(app: &Arc<App>, id: i64) -> Result<GameRow, Refusal> {
    let app = Arc::clone(app);
    tokio::task::spawn_blocking(move || app.store.game(id))
        .await
        .map_err(|e| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()))?
        .map_err(Refusal::from)?
        .ok_or_else(|| Refusal::new(StatusCode::NOT_FOUND, &format!("no game {id}")))
}

pub async fn game_page(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Html<String>, Refusal> {
    let row = row(&app, id).await?;
    let mut page = reversi::show::html_page(&ggf_of(&row))
        .map_err(|e| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, &e))?;
    let status = match &row.ending {
        Some(ending) => escape_html(ending),
        None => "in progress".into(),
    };
    let links = format!(
        "<p>Game {id}: {status}. <a href=\"/games/{id}/ggf\">GGF</a> · <a href=\"/\">all games</a></p>"
    );
    page = page.replacen(
        "<div class=\"controls\">",
        &format!("{links}<div class=\"controls\">"),
        1,
    );
    if row.ending.is_none() {
        page = page.replacen("</body>", &format!("{LIVE}</body>"), 1);
    }
    Ok(Html(page))
}

pub async fn game_ggf(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Response, Refusal> {
    let row = row(&app, id).await?;
    let text = ggf_of(&row).render() + "\n";
    Ok(([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response())
}

pub async fn index(State(app): State<Arc<App>>) -> Result<Html<String>, Refusal> {
    let worker = Arc::clone(&app);
    let games = tokio::task::spawn_blocking(move || worker.store.recent_games(200))
        .await
        .map_err(|e| Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, &e.to_string()))?
        .map_err(Refusal::from)?;
    let mut rows = String::new();
    for g in &games {
        let status = g
            .ending
            .as_deref()
            .map_or("in progress".to_string(), escape_html);
        rows.push_str(&format!(
            "<tr><td><a href=\"/games/{id}\">{id}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{status}</td></tr>",
            escape_html(&g.black),
            escape_html(&g.white),
            g.moves.len(),
            id = g.id,
        ));
    }
    Ok(Html(format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Games</title>\
         <style>body{{font-family:sans-serif;margin:1.5em}}td,th{{padding:2px 10px;text-align:left}}</style></head>\
         <body><h1>Games</h1><table><tr><th>game</th><th>black</th><th>white</th><th>moves</th><th>result</th></tr>{rows}</table></body></html>\n"
    )))
}
