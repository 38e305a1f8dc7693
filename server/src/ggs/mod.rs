//! The GGS service (`--ggs-addr`): Othello engines play the arena's
//! games through the Generic Game Server's protocol, with the GGS clients
//! their authors wrote (Edax's `-ggs`, NTest's, ours: `reversi ggs`).
//!
//! A GGS player is a team: its login is the team's name, its password
//! the team's secret, checked as the API checks it (the same per-address
//! limit on wrong ones). Once logged in, the player is offered its games
//! one at a time, oldest first, whatever made them (a contest, the API):
//! `/os: + match`, then `/os: join` with the game so far, an
//! `/os: update` after each move, `/os: end` and `/os: - match` at the
//! end. Its moves (`tell /os play .ID MOVE/EVAL/TIME`) go through the
//! same referee, clocks and storage as a move sent over HTTP, so it may
//! meet a remote HTTP bot or a submitted program. A player passes as its
//! client does (`PA`, or Edax's `PS`): the service plays no move for it,
//! since a client that passes on its own would find its pass arrive a
//! ply late. `tell /os client +` asks for games as GGF records
//! (NTest's form), `client -` for boards (Edax's, the default).
//!
//! Nothing a client sends is passed to another client: the service
//! answers each connection with its own messages only.
//!
//! A team is logged in once in a server process: a second login ends the
//! first session (a client that reconnects after a network failure
//! finds its old, half-open connection gone rather than offered the same
//! game as the new one).

pub mod text;

use crate::http::api::blocking;
use crate::http::conn::Open;
use crate::store::GameRow;
use crate::{now_ms, App};
use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::{TcpListener, TcpStream};

/// The bounds on the service's connections.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// A line from a client, at most (bytes).
    pub line: usize,
    /// From connecting to the password's check.
    pub login_timeout: Duration,
    /// A logged-in client's silence before it is closed. Edax says
    /// something every minute.
    pub idle_timeout: Duration,
    /// How long a message may take to be written to a client that does
    /// not read.
    pub write_timeout: Duration,
    /// Connections from one address, and in all.
    pub per_client: usize,
    pub total: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            line: 4096,
            login_timeout: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(300),
            write_timeout: Duration::from_secs(10),
            per_client: 8,
            total: 256,
        }
    }
}

/// How often a logged-in player's games are looked at when nothing woke
/// the service.
const LOOK_EVERY: Duration = Duration::from_millis(500);

/// The teams logged in, each with the signal that ends its session when
/// another logs in as the same team (the signal is the session's identity).
#[derive(Default)]
struct Logins(std::sync::Mutex<HashMap<String, Arc<tokio::sync::Notify>>>);

/// A session's place in [`Logins`], given up when the session ends.
struct LoggedIn {
    logins: Arc<Logins>,
    team: String,
    ended: Arc<tokio::sync::Notify>,
}

impl Logins {
    fn sessions(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Notify>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Logs `team` in, ending its earlier session if it has one.
    fn enter(self: &Arc<Logins>, team: &str) -> LoggedIn {
        let ended = Arc::new(tokio::sync::Notify::new());
        let earlier = self.sessions().insert(team.to_string(), Arc::clone(&ended));
        if let Some(earlier) = earlier {
            // A permit: the earlier session sees it at its next wait.
            earlier.notify_one();
        }
        LoggedIn {
            logins: Arc::clone(self),
            team: team.to_string(),
            ended,
        }
    }
}

impl Drop for LoggedIn {
    fn drop(&mut self) {
        let mut sessions = self.logins.sessions();
        if sessions
            .get(&self.team)
            .is_some_and(|now| Arc::ptr_eq(now, &self.ended))
        {
            sessions.remove(&self.team);
        }
    }
}

/// Serves GGS on `listener` until the server stops.
pub async fn serve(listener: TcpListener, app: Arc<App>, limits: Limits) {
    let open = Arc::new(Open::default());
    let logins = Arc::new(Logins::default());
    let conn_limits = crate::http::conn::Limits {
        per_client: limits.per_client,
        total: limits.total,
        ..crate::http::conn::Limits::default()
    };
    loop {
        let Ok((stream, peer)) = listener.accept().await else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        match open.admit(peer.ip(), &conn_limits, &[]) {
            Ok(admitted) => {
                let app = Arc::clone(&app);
                let logins = Arc::clone(&logins);
                tokio::spawn(async move {
                    session(stream, peer, app, &logins, limits).await;
                    drop(admitted);
                });
            }
            Err((_, why)) => {
                let (_, mut write) = stream.into_split();
                let _ = tokio::time::timeout(
                    limits.write_timeout,
                    write.write_all(format!(": {why}\n").as_bytes()),
                )
                .await;
            }
        }
    }
}

/// Why a session ends.
struct Closed;

/// One client's connection: what it is sent.
struct Client {
    write: OwnedWriteHalf,
    limits: Limits,
}

impl Client {
    /// Sends one message (its lines together, in one write).
    async fn send(&mut self, message: &str) -> Result<(), Closed> {
        let mut bytes = message.as_bytes().to_vec();
        bytes.push(b'\n');
        match tokio::time::timeout(self.limits.write_timeout, self.write.write_all(&bytes)).await {
            Ok(Ok(())) => Ok(()),
            _ => Err(Closed),
        }
    }
}

/// A client's input: what it sent, read into a buffer that outlives each
/// wait for it, so that a wait cut short (by a move elsewhere that wakes
/// the session) loses nothing of a line that came in parts.
struct Input {
    read: BufReader<tokio::net::tcp::OwnedReadHalf>,
    pending: Vec<u8>,
}

impl Input {
    /// The next line of at most `limits.line` bytes, within `timeout`;
    /// `None` at the end of input, a timeout or a longer line.
    async fn line(&mut self, limits: &Limits, timeout: Duration) -> Option<String> {
        let reading = async {
            loop {
                if let Some(at) = self.pending.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = self.pending.drain(..=at).collect();
                    let text = String::from_utf8_lossy(&line);
                    return Some(text.trim_end_matches(['\n', '\r']).to_string());
                }
                if self.pending.len() > limits.line {
                    return None;
                }
                let buffer = self.read.fill_buf().await.ok()?;
                if buffer.is_empty() {
                    return None;
                }
                // Taken into `pending` before it is consumed: nothing read
                // is lost if this wait is dropped here.
                let n = buffer.len();
                self.pending.extend_from_slice(buffer);
                self.read.consume(n);
            }
        };
        tokio::time::timeout(timeout, reading).await.ok()?
    }
}

async fn session(
    stream: TcpStream,
    peer: SocketAddr,
    app: Arc<App>,
    logins: &Arc<Logins>,
    limits: Limits,
) {
    let _ = stream.set_nodelay(true);
    let (read, write) = stream.into_split();
    let mut read = Input {
        read: BufReader::with_capacity(limits.line.min(16 * 1024), read),
        pending: Vec::new(),
    };
    let mut client = Client { write, limits };
    let Ok(team) = login(&mut read, &mut client, peer.ip(), &app).await else {
        return;
    };
    let logged_in = logins.enter(&team);
    let mut player = Player {
        team,
        app,
        ggf: false,
        game: None,
        said_present: None,
    };
    let _ = player.play(&mut read, &mut client, &logged_in.ended).await;
}

/// The login exchange; the team, once its secret is checked.
async fn login(
    read: &mut Input,
    client: &mut Client,
    address: IpAddr,
    app: &Arc<App>,
) -> Result<String, Closed> {
    let limits = client.limits;
    client
        .send(": Enter login (yours, or one you'd like to use).")
        .await?;
    let team = read
        .line(&limits, limits.login_timeout)
        .await
        .ok_or(Closed)?;
    client.send(": Enter your password.").await?;
    let secret = read
        .line(&limits, limits.login_timeout)
        .await
        .ok_or(Closed)?;
    let team = team.trim().to_string();
    match crate::http::api::check_team(app, address, team, secret.trim().to_string()).await {
        Ok(team) => {
            client.send(&format!(": Welcome, {team}.")).await?;
            client.send(": + /os 1").await?;
            client.send("READY").await?;
            Ok(team)
        }
        Err(refusal) => {
            let (_, why) = refusal.parts();
            let _ = client.send(&format!(": Refused: {why}.")).await;
            Err(Closed)
        }
    }
}

/// A logged-in player.
struct Player {
    team: String,
    app: Arc<App>,
    /// `client +`: games as GGF records.
    ggf: bool,
    /// The game offered, and how many of its plies the player was sent.
    game: Option<(i64, usize)>,
    /// When the player was last said present in its contests.
    said_present: Option<std::time::Instant>,
}

impl Player {
    async fn play(
        &mut self,
        read: &mut Input,
        client: &mut Client,
        ended: &tokio::sync::Notify,
    ) -> Result<(), Closed> {
        let limits = client.limits;
        let mut quiet_since = tokio::time::Instant::now();
        loop {
            // Made before looking: a change while it looks wakes the wait.
            // A player in a game waits on that game's changes alone (a
            // server with many games would wake every player on every
            // move); one between games, on any change, which may be a new
            // game of its own.
            let app = Arc::clone(&self.app);
            let game_signal = self.game.map(|(id, _)| app.moved.of(id));
            let changed = match &game_signal {
                Some(signal) => signal.notified(),
                None => app.moved.next_change(),
            };
            self.look(client).await?;
            if game_signal.is_some() && self.game.is_none() {
                // Its game just ended: look for the next one at once.
                continue;
            }
            tokio::select! {
                line = read.line(&limits, limits.idle_timeout) => {
                    let line = line.ok_or(Closed)?;
                    quiet_since = tokio::time::Instant::now();
                    self.command(&line, client).await?;
                }
                () = changed => {}
                () = ended.notified() => {
                    let _ = client.send(": Another login of this team took over.").await;
                    return Err(Closed);
                }
                () = tokio::time::sleep(LOOK_EVERY) => {
                    if quiet_since.elapsed() > limits.idle_timeout {
                        return Err(Closed);
                    }
                }
            }
        }
    }

    /// One line from the client.
    async fn command(&mut self, line: &str, client: &mut Client) -> Result<(), Closed> {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["quit", ..] => Err(Closed),
            ["tell", "/os", "client", flag, ..] => {
                self.ggf = *flag == "+";
                Ok(())
            }
            ["tell", "/os", "play", game, played, ..] => self.take_move(game, played, client).await,
            ["tell", "/os", ..] => Ok(()),
            // Channels, tells to others, terminal settings: nothing here
            // passes a client's words on, so they are taken and dropped.
            _ => Ok(()),
        }
    }

    /// `tell /os play .ID MOVE/EVAL/TIME`.
    async fn take_move(
        &mut self,
        game: &str,
        played: &str,
        client: &mut Client,
    ) -> Result<(), Closed> {
        let arrived = now_ms();
        let Some(id) = game.strip_prefix('.').and_then(|g| g.parse::<i64>().ok()) else {
            return client
                .send(&format!("/os: error {} no such game", short(game)))
                .await;
        };
        let _handling = self.app.handling.enter(id);
        let square = played.split('/').next().unwrap_or_default();
        let text = match square.to_ascii_lowercase().as_str() {
            "pa" | "ps" | "pass" => "pass".to_string(),
            other => other.to_string(),
        };
        let app = Arc::clone(&self.app);
        let team = self.team.clone();
        let result = blocking(move || {
            let Some(row) = app.store.game(id)? else {
                return Ok(Err("no such game"));
            };
            if let Err(not) = crate::game::may_move(&row, &team) {
                return Ok(Err(not.why()));
            }
            Ok(app
                .submit(&row, &text, arrived, true)
                .map_err(|_| "not stored: send it again"))
        })
        .await;
        match result {
            Ok(Ok(())) => Ok(()),
            Ok(Err(why)) => {
                client
                    .send(&format!("/os: error {} {why}", text::id(id)))
                    .await
            }
            Err(_) => {
                client
                    .send(&format!(
                        "/os: error {} the server is busy: send it again",
                        text::id(id)
                    ))
                    .await
            }
        }
    }

    /// Offers the next game, sends what changed in the one offered, and
    /// says the player is present in its contests.
    async fn look(&mut self, client: &mut Client) -> Result<(), Closed> {
        if self
            .said_present
            .is_none_or(|at| at.elapsed() >= crate::contest::SEEN_EVERY)
        {
            self.said_present = Some(std::time::Instant::now());
            let app = Arc::clone(&self.app);
            let team = self.team.clone();
            let _ = blocking(move || Ok(app.store.seen_everywhere(&team, now_ms())?)).await;
        }
        let Some((id, sent)) = self.game else {
            return self.offer(client).await;
        };
        let app = Arc::clone(&self.app);
        let Ok(Some(row)) = blocking(move || Ok(app.store.game(id)?)).await else {
            return Ok(());
        };
        for ply in sent..row.moves.len() {
            let mut upto = row.clone();
            upto.moves.truncate(ply + 1);
            let message = if self.ggf {
                text::update_ggf(&upto)
            } else {
                text::update_board(&upto)
            };
            client.send(&message).await?;
        }
        self.game = Some((id, row.moves.len()));
        if row.ending.is_some() {
            let net = black_net(&row);
            client.send(&text::end_line(&row, net)).await?;
            client.send(&text::match_line(&row, false)).await?;
            self.game = None;
            return Ok(());
        }
        Ok(())
    }

    /// Offers the player's oldest game in progress, if any.
    async fn offer(&mut self, client: &mut Client) -> Result<(), Closed> {
        let app = Arc::clone(&self.app);
        let team = self.team.clone();
        let Ok(games) =
            blocking(move || Ok(app.store.games_of(&team, crate::http::SHOWN_GAMES)?)).await
        else {
            return Ok(());
        };
        let Some(row) = games
            .into_iter()
            .filter(|g| g.ending.is_none())
            .filter(|g| g.programs[usize::from(g.black != self.team)].is_none())
            .min_by_key(|g| g.id)
        else {
            return Ok(());
        };
        client.send(&text::match_line(&row, true)).await?;
        let join = if self.ggf {
            text::join_ggf(&row)
        } else {
            text::join_board(&row)
        };
        client.send(&join).await?;
        // The game is known to the player's client from here: its clock
        // may start.
        let side = usize::from(row.black != self.team);
        if row.setup_until_ms[side].is_some() {
            let app = Arc::clone(&self.app);
            let id = row.id;
            let _ = blocking(move || Ok(app.store.show_up(id, side, now_ms())?)).await;
            self.app.moved.raise(id);
        }
        self.game = Some((row.id, row.moves.len()));
        Ok(())
    }
}

/// Black's discs less white's at the end, the forfeit's loser given
/// nothing (GGS's -64 or +64).
fn black_net(row: &GameRow) -> i32 {
    match row.forfeit.as_deref() {
        Some("black") => -64,
        Some("white") => 64,
        Some(_) => 0,
        None => {
            let Ok(position) = crate::game::Position::of(row) else {
                return 0;
            };
            let (black, white) = position.board.colors(position.to_move);
            black.count_ones() as i32 - white.count_ones() as i32
        }
    }
}

/// A client's word as we repeat it: short, and with no control
/// characters.
fn short(word: &str) -> String {
    word.chars()
        .take(20)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}
