//! `reversi-server wait URL`: waits until a server answers at URL, so
//! that a script that starts one in the background can wait for it rather
//! than guess with `sleep`. The server listens only once its database is
//! open and up to date, so an answer means it is ready for requests.

use std::io::{Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

/// How often the server is asked again.
const LOOK_EVERY: Duration = Duration::from_millis(50);

/// The longest one try may take.
const TRY_FOR: Duration = Duration::from_secs(2);

/// `host:port` of an `http://` URL (port 80 unless given), or why not.
pub fn address(url: &str) -> Result<String, String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("{url}: not an http:// URL"))?;
    let host = rest.split('/').next().unwrap_or("");
    if host.is_empty() || host.contains('@') {
        return Err(format!("{url}: no host"));
    }
    Ok(
        if host
            .rsplit_once(':')
            .is_some_and(|(_, p)| p.parse::<u16>().is_ok())
        {
            host.to_string()
        } else {
            format!("{host}:80")
        },
    )
}

/// Whether a server at `address` answers `GET /api/languages` with 200.
fn answers(address: &str) -> bool {
    let Some(to) = address.to_socket_addrs().ok().and_then(|mut a| a.next()) else {
        return false;
    };
    let Ok(mut stream) = TcpStream::connect_timeout(&to, TRY_FOR) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(TRY_FOR));
    let _ = stream.set_write_timeout(Some(TRY_FOR));
    let request =
        format!("GET /api/languages HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    if stream.write_all(request.as_bytes()).is_err() {
        return false;
    }
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.1 200")
}

/// Waits up to `most` for the server at `url`; an error says it never
/// answered.
pub fn wait(url: &str, most: Duration) -> Result<(), String> {
    let address = address(url)?;
    let since = Instant::now();
    loop {
        if answers(&address) {
            return Ok(());
        }
        if since.elapsed() >= most {
            return Err(format!("{url}: no server answered in {} s", most.as_secs()));
        }
        std::thread::sleep(LOOK_EVERY);
    }
}
