//! Writing a result whole or not at all: the bytes go to a temporary file
//! beside the target, which is renamed over it only once they are all
//! written. A run that fails or is stopped half way leaves the old file
//! (the committed weights, the book) as it was.

use std::io::{self, Write};
use std::path::Path;

/// Writes `bytes` to `path` atomically; an error names the path.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let named = |e: io::Error| io::Error::new(e.kind(), format!("{}: {e}", path.display()));
    let name = path
        .file_name()
        .ok_or_else(|| named(io::Error::other("not a file name")))?;
    let mut temporary_name = std::ffi::OsString::from(".");
    temporary_name.push(name);
    temporary_name.push(format!(".{}.tmp", std::process::id()));
    let temporary = path.with_file_name(temporary_name);
    let written = std::fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&temporary, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(named(e))
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
}
