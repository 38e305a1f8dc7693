//! The languages a team may submit in, as the VG101 lab lists them (C
//! and C++ at each standard, with gcc and clang), Rust (rustc alone, no
//! crates: `reversi bundle` writes such a file) and Python 3. Each is one
//! file built by one command line, the same for every team; a language
//! whose compiler this machine lacks is listed as unavailable.

use std::process::Command;

/// One language at one standard, with one compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Language {
    /// As a submission names it: `c11-gcc`, `c++17-clang++`, `rust2021`.
    pub id: String,
    /// The file the source is written to.
    pub source: &'static str,
    /// The command that builds it, run in the source's folder (`None`:
    /// nothing to build, it is run as written).
    pub build: Option<Vec<String>>,
    /// The command that runs it, in the same folder.
    pub run: Vec<String>,
    /// The program whose version is the language's.
    pub tool: &'static str,
}

/// Every language offered, whether this machine has its compiler or not.
#[must_use]
pub fn all() -> Vec<Language> {
    let mut languages = Vec::new();
    let words = |line: &[&str]| line.iter().map(|w| (*w).to_string()).collect::<Vec<_>>();
    for (family, standards, compilers, source) in [
        ("c", &["c99", "c11"][..], ["gcc", "clang"], "main.c"),
        (
            "c++",
            &["c++98", "c++11", "c++14", "c++17"][..],
            ["g++", "clang++"],
            "main.cpp",
        ),
    ] {
        for standard in standards {
            for compiler in compilers {
                let flag = format!("-std={standard}");
                let mut build = words(&[compiler, &flag, "-O2", "-o", "main", source]);
                if family == "c" {
                    build.push("-lm".into());
                }
                languages.push(Language {
                    id: format!("{standard}-{compiler}"),
                    source,
                    build: Some(build),
                    run: words(&["./main"]),
                    tool: compiler,
                });
            }
        }
    }
    languages.push(Language {
        id: "rust2021".into(),
        source: "main.rs",
        build: Some(words(&[
            "rustc",
            "--edition",
            "2021",
            "-O",
            "-o",
            "main",
            "main.rs",
        ])),
        run: words(&["./main"]),
        tool: "rustc",
    });
    languages.push(Language {
        id: "python3".into(),
        source: "main.py",
        build: Some(words(&["python3", "-m", "py_compile", "main.py"])),
        run: words(&["python3", "main.py"]),
        tool: "python3",
    });
    languages
}

/// The first line `TOOL --version` prints, or `None` where the tool
/// cannot be run.
#[must_use]
pub fn version(tool: &str) -> Option<String> {
    let out = Command::new(tool).arg("--version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    let text = if out.stdout.is_empty() {
        out.stderr
    } else {
        out.stdout
    };
    String::from_utf8_lossy(&text)
        .lines()
        .next()
        .map(|l| l.trim().to_string())
}
