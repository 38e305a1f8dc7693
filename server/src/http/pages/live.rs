//! The live pages: server-sent events (`/games/{id}/events`,
//! `/contests/{id}/events`) that say each change as it is stored, and
//! the page scripts that listen to them. Nothing polls: a stream waits on
//! the server's own signal for the game (or for any change, for a
//! contest) and sends the game (the contest's summary) when it changed.
//!
//! A stream is bounded like any response: it ends after `STREAM_FOR`,
//! well inside the connection's idle timeout, and the browser opens it
//! again after `RETRY`; each stream begins with the state as it stands,
//! so a change made in between is not lost. A stream ends when its game
//! or contest does, and the page's script closes it then (else the
//! browser would open it again and again).

use crate::http::api::{game_json, load, load_contest_games};
use crate::http::Refusal;
use crate::App;
use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// How long one stream lasts (the default idle timeout is 60 s).
const STREAM_FOR: Duration = Duration::from_secs(25);

/// How soon the browser opens a stream again once it ended.
const RETRY: Duration = Duration::from_millis(100);

/// How long a contest's stream lets changes gather before it looks: a
/// contest's games change many times a second.
const CONTEST_SETTLE: Duration = Duration::from_millis(50);

/// What a game page shows that can change: its moves and its ending.
fn game_key(moves: usize, ending: Option<&str>) -> String {
    format!("{moves}/{}", ending.unwrap_or("null"))
}

/// `GET /games/{id}/events`: event `game`, the game as the API shows it,
/// at the start and after each change.
pub async fn game_events(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Refusal> {
    load(&app, id).await?;
    let until = Instant::now() + STREAM_FOR;
    let stream = futures_util::stream::unfold(
        (app, None::<String>, false),
        move |(app, last, ended)| async move {
            if ended {
                return None;
            }
            loop {
                // Listen before looking, so that no move slips in between.
                let signal = app.moved.of(id);
                let changed = signal.notified();
                let row = load(&app, id).await.ok()?;
                let key = game_key(row.moves.len(), row.ending.as_deref());
                if last.as_deref() != Some(key.as_str()) {
                    let data = game_json(&row, None).ok()?.to_string();
                    let event = Event::default().event("game").data(data).retry(RETRY);
                    return Some((Ok(event), (app, Some(key), row.ending.is_some())));
                }
                tokio::time::timeout_at(until, changed).await.ok()?;
            }
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// What a contest page shows that a reload should bring: its state,
/// standings and games made, and how each ended.
fn contest_key(contest: &crate::store::ContestRow, games: &[crate::store::GameRow]) -> String {
    let mut key = format!(
        "{}|{}|",
        contest.state,
        contest.standings.as_deref().unwrap_or("")
    );
    for g in games {
        key.push_str(&format!("{}:{};", g.id, g.ending.as_deref().unwrap_or("")));
    }
    key
}

/// `GET /contests/{id}/events`: event `contest` (`{"key","state"}`) at
/// the start and after each change of what its page shows.
pub async fn contest_events(
    State(app): State<Arc<App>>,
    Path(id): Path<i64>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, Refusal> {
    load_contest_games(&app, id).await?;
    let until = Instant::now() + STREAM_FOR;
    let stream = futures_util::stream::unfold(
        (app, None::<String>, false),
        move |(app, last, ended)| async move {
            if ended {
                return None;
            }
            loop {
                let changed = app.moved.next_change();
                let (contest, games, _) = load_contest_games(&app, id).await.ok()?;
                let key = contest_key(&contest, &games);
                if last.as_deref() != Some(key.as_str()) {
                    let finished = contest.state == "finished";
                    let data = serde_json::json!({ "key": key, "state": contest.state });
                    let event = Event::default()
                        .event("contest")
                        .data(data.to_string())
                        .retry(RETRY);
                    drop(changed);
                    return Some((Ok(event), (app, Some(key), finished)));
                }
                tokio::time::timeout_at(until, changed).await.ok()?;
                tokio::time::sleep(CONTEST_SETTLE).await;
            }
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

/// `text` as a JavaScript string literal inside a script element.
fn js_string(text: &str) -> String {
    serde_json::Value::from(text)
        .to_string()
        .replace("</", "<\\/")
}

/// The game page's script: as its stream says the game moved on from
/// what the page shows (`moves`, `ending`), it puts the new position on
/// the board in place, the squares the side to move may play marked
/// (`legal`), and says so under it; once the game has ended it loads the
/// finished page (the viewer with every move, the result).
#[must_use]
pub fn game_script(moves: usize, ending: Option<&str>) -> String {
    format!(
        "<style>.cell.legal::after{{content:'';display:block;width:20%;height:20%;margin:40%;\
         border-radius:50%;background:rgba(0,0,0,.35)}}</style>\
         <script>(function(){{if(!window.EventSource)return;var shown={};\
         var board=document.getElementById('board'),label=document.getElementById('position'),\
         slider=document.getElementById('slider');\
         var es=new EventSource(location.pathname+'/events');\
         es.addEventListener('game',function(e){{var g=JSON.parse(e.data);\
         var now=g.moves.length+'/'+(g.ending===null?'null':g.ending);\
         if(g.ending!==null){{es.close();if(now!==shown){{location.hash='';location.reload();}}return;}}\
         if(now===shown)return;shown=now;var legal={{}};\
         g.legal.forEach(function(s){{legal[(s.charCodeAt(1)-49)*8+s.charCodeAt(0)-97]=1;}});\
         for(var i=0;i<64;i++){{var c=g.board[i],cell=board.children[i];\
         cell.innerHTML=c==='b'?'<span class=\"disc black\"></span>':c==='w'?'<span class=\"disc white\"></span>':'';\
         cell.classList.remove('last');cell.classList.toggle('legal',!!legal[i]);}}\
         board.setAttribute('data-live',g.moves.length);window.liveAt=Date.now();\
         if(slider)slider.disabled=true;\
         if(label)label.textContent='live: '+g.moves.filter(function(m){{return m!=='pass';}}).length+' moves played, '+g.to_move+' to move';}});}})();</script>",
        js_string(&game_key(moves, ending))
    )
}

/// The contest page's script: reloads the page when what it shows has
/// changed, as its stream says.
#[must_use]
pub fn contest_script(
    contest: &crate::store::ContestRow,
    games: &[crate::store::GameRow],
) -> String {
    format!(
        "<script>(function(){{if(!window.EventSource)return;var shown={};\
         var es=new EventSource(location.pathname+'/events');\
         es.addEventListener('contest',function(e){{var c=JSON.parse(e.data);\
         if(c.key!==shown){{es.close();location.reload();return;}}\
         if(c.state==='finished')es.close();}});}})();</script>",
        js_string(&contest_key(contest, games))
    )
}
