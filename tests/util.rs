//! Helpers shared by the integration tests.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// The binary under test.
pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_reversi")
}

pub fn fixture(relative: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(relative)
}

/// Runs the binary with `args`, feeding `input` on stdin.
pub fn run(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary starts");
    let mut stdin = child.stdin.take().expect("piped");
    // The bot may exit (END) before reading everything: ignore a broken pipe.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("binary runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Compares line lists and prints both in full when they differ.
#[macro_export]
macro_rules! assert_lines_eq {
    ($expected:expr, $got:expr) => {{
        let expected: Vec<String> = $expected.iter().map(|s| s.to_string()).collect();
        let got: Vec<String> = $got.iter().map(|s| s.to_string()).collect();
        if expected != got {
            panic!(
                "lines differ\n--- expected\n{}\n--- got\n{}\n",
                expected.join("\n"),
                got.join("\n")
            );
        }
    }};
}
