//! The tools' files, written and read safely.
//!
//! Writing a result whole or not at all: the bytes go to a temporary file
//! beside the target, which is renamed over it only once they are all
//! written. A run that fails or is stopped half way leaves the old file
//! (the committed weights, the book) as it was. A target that is no
//! regular file (`/dev/stdout`, a FIFO, a terminal) is written in place,
//! never replaced; a symbolic link to a regular file keeps its link, and
//! its target is replaced.
//!
//! Reading with a cap on size ([`read_capped`]): a tool handed
//! `/dev/zero` or a runaway log stops with one line instead of taking the
//! machine's memory.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// The most bytes a tool reads from one input, in MB, unless
/// [`MAX_INPUT_ENV`] says otherwise: the largest real input, the
/// Logistello list unpacked, is 23 MB.
pub const MAX_INPUT_MB: u64 = 64;

/// The environment variable that sets another cap, in MB.
pub const MAX_INPUT_ENV: &str = "REVERSI_MAX_INPUT_MB";

/// The cap on one input, in bytes.
#[must_use]
pub fn max_input() -> u64 {
    std::env::var(MAX_INPUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u64>().ok())
        .filter(|&mb| mb > 0)
        .unwrap_or(MAX_INPUT_MB)
        .saturating_mul(1 << 20)
}

/// Reads all of `reader`, `name`d in the error, up to [`max_input`] bytes;
/// more is an error.
pub fn read_all_capped(reader: impl Read, name: &str) -> io::Result<Vec<u8>> {
    let cap = max_input();
    let mut bytes = Vec::new();
    reader
        .take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| io::Error::new(e.kind(), format!("{name}: {e}")))?;
    if bytes.len() as u64 > cap {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "{name}: over {} MB, the most read from one input ({MAX_INPUT_ENV} sets another)",
                cap >> 20
            ),
        ));
    }
    Ok(bytes)
}

/// Reads the file at `path` up to [`max_input`] bytes; an error names it.
pub fn read_capped(path: &Path) -> io::Result<Vec<u8>> {
    let file = File::open(path)
        .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
    read_all_capped(file, &path.display().to_string())
}

/// [`read_capped`], as text.
pub fn read_text_capped(path: &Path) -> io::Result<String> {
    String::from_utf8(read_capped(path)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: not UTF-8 text", path.display()),
        )
    })
}

/// Writes `bytes` to `path`: atomically to a regular file (or a new one),
/// in place to a device or a FIFO with a reader; a socket, a folder, a
/// FIFO nobody reads and a link to nothing are refused. An error names
/// the path.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let refuse = |why: &str| named(io::Error::other(why.to_string()));
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => {
            let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_symlink());
            let target = if is_link {
                std::fs::canonicalize(path).map_err(named)?
            } else {
                path.to_path_buf()
            };
            replace(&target, bytes).map_err(named)
        }
        Ok(meta) if meta.is_dir() => Err(refuse("a folder, not a file")),
        Ok(meta) if meta.file_type().is_socket() => Err(refuse("a socket: not written")),
        Ok(meta) if meta.file_type().is_fifo() => {
            // Opened without waiting: a FIFO nobody reads would hold the
            // tool for ever.
            let mut fifo = OpenOptions::new()
                .write(true)
                .custom_flags(nix::libc::O_NONBLOCK)
                .open(path)
                .map_err(|e| {
                    if e.raw_os_error() == Some(nix::libc::ENXIO) {
                        refuse("a FIFO nobody reads: not written")
                    } else {
                        named(e)
                    }
                })?;
            set_blocking(&fifo).map_err(named)?;
            fifo.write_all(bytes)
                .and_then(|()| fifo.flush())
                .map_err(named)
        }
        Ok(_) => {
            let mut device = OpenOptions::new().write(true).open(path).map_err(named)?;
            device
                .write_all(bytes)
                .and_then(|()| device.flush())
                .map_err(named)
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(refuse("a link to nothing: not written"));
            }
            replace(path, bytes).map_err(named)
        }
        Err(e) => Err(named(e)),
    }
}

/// Turns off `O_NONBLOCK`, with which `file` was opened.
fn set_blocking(file: &File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let fd = file.as_raw_fd();
    // SAFETY: fcntl reads and sets the flags of a descriptor `file` owns.
    unsafe {
        let flags = nix::libc::fcntl(fd, nix::libc::F_GETFL);
        if flags < 0 || nix::libc::fcntl(fd, nix::libc::F_SETFL, flags & !nix::libc::O_NONBLOCK) < 0
        {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Writes `bytes` beside the regular file `path`, then renames them over it.
fn replace(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("not a file name"))?;
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(name);
    temporary_name.push(format!(".{}.tmp", std::process::id()));
    let temporary: PathBuf = path.with_file_name(temporary_name);
    let written = File::create(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&temporary, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = std::env::temp_dir().join(format!("reversi-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("weights");
        write_atomically(&path, b"old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        // A target that is a folder cannot be replaced: the error names
        // it, and no temporary file is left behind.
        let error = write_atomically(&dir, b"x").unwrap_err();
        assert!(error.to_string().contains(&dir.display().to_string()));
        let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert_eq!(left.len(), 1, "{left:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn special_files_are_written_in_place_or_refused_never_replaced() {
        let dir = std::env::temp_dir().join(format!("reversi-special-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // A FIFO nobody reads: refused at once, still a FIFO.
        let fifo = dir.join("fifo");
        nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
        let error = write_atomically(&fifo, b"page").unwrap_err();
        assert!(error.to_string().contains("nobody reads"), "{error}");
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        // With a reader, the bytes go through it.
        let reading = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read(&fifo).unwrap())
        };
        let since = std::time::Instant::now();
        loop {
            match write_atomically(&fifo, b"page") {
                Ok(()) => break,
                Err(_) if since.elapsed() < std::time::Duration::from_secs(10) => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(reading.join().unwrap(), b"page");
        assert!(std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo());
        // A link to the FIFO: the same, and the link stays a link.
        let to_fifo = dir.join("to-fifo");
        std::os::unix::fs::symlink(&fifo, &to_fifo).unwrap();
        assert!(write_atomically(&to_fifo, b"x").is_err());
        assert!(std::fs::symlink_metadata(&to_fifo).unwrap().is_symlink());
        // A link to a regular file: its target is replaced, the link kept.
        let target = dir.join("target");
        std::fs::write(&target, b"old").unwrap();
        let link = dir.join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write_atomically(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        // A link to nothing: refused, not made a file.
        let dangling = dir.join("dangling");
        std::os::unix::fs::symlink(dir.join("nowhere"), &dangling).unwrap();
        assert!(write_atomically(&dangling, b"x").is_err());
        assert!(std::fs::symlink_metadata(&dangling).unwrap().is_symlink());
        // A socket: refused.
        let socket = dir.join("socket");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert!(write_atomically(&socket, b"x").is_err());
        assert!(std::fs::symlink_metadata(&socket)
            .unwrap()
            .file_type()
            .is_socket());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reading_stops_at_the_cap() {
        let endless = std::io::repeat(0u8);
        let error = read_all_capped(endless, "endless").unwrap_err();
        assert!(
            error.to_string().starts_with("endless: over 64 MB"),
            "{error}"
        );
        assert_eq!(read_all_capped(&b"small"[..], "small").unwrap(), b"small");
    }
}
