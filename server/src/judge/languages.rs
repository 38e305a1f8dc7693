//! The languages a team may submit in, as the VG101 lab lists them (C
//! and C++ at each standard, with gcc and clang), Rust (rustc alone, no
//! crates: `reversi bundle` writes such a file) and Python 3. Each is one
//! file built by one command line, the same for every team; a language
//! whose compiler this machine lacks is listed as unavailable.
//!
//! A compiler runs in the sandbox, which shows the system's folders and
//! nothing else of the host's: a tool on the server's `PATH` outside them
//! (rustup's `rustc`, pyenv's `python3`) is replaced by the real compiler
//! it stands for, and that compiler's own folder shown to it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// One language at one standard, with one compiler.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Language {
    /// As a submission names it: `c11-gcc`, `c++17-clang++`, `rust2021`.
    pub id: String,
    /// The file the source is written to.
    pub source: &'static str,
    /// The command that builds it, run in the source's folder.
    pub build: Vec<String>,
    /// The file the build leaves to run: the executable, or the script.
    pub program: &'static str,
    /// What runs the program, if it is not an executable (`python3`).
    pub interpreter: Option<&'static str>,
    /// The program whose version is the language's.
    pub tool: &'static str,
}

impl Language {
    /// The command that runs the program, as `GET /api/languages` shows it.
    #[must_use]
    pub fn run_line(&self) -> String {
        match self.interpreter {
            Some(interpreter) => format!("{interpreter} {}", self.program),
            None => format!("./{}", self.program),
        }
    }
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
                    build,
                    program: "main",
                    interpreter: None,
                    tool: compiler,
                });
            }
        }
    }
    languages.push(Language {
        id: "rust2021".into(),
        source: "main.rs",
        build: words(&["rustc", "--edition", "2021", "-O", "-o", "main", "main.rs"]),
        program: "main",
        interpreter: None,
        tool: "rustc",
    });
    // Checked for syntax when built; run as written.
    languages.push(Language {
        id: "python3".into(),
        source: "main.py",
        build: words(&["python3", "-m", "py_compile", "main.py"]),
        program: "main.py",
        interpreter: Some("python3"),
        tool: "python3",
    });
    languages
}

/// A compiler as the sandbox runs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Toolchain {
    /// The compiler's own executable.
    pub program: PathBuf,
    /// The host's folders it needs shown besides the system's.
    pub shown: Vec<PathBuf>,
    /// Its first line of `--version`.
    pub version: String,
}

/// A language this server offers, with the toolchain that builds it
/// (`None`: this machine lacks it).
#[derive(Clone, Debug)]
pub struct Offered {
    pub language: Language,
    pub toolchain: Option<Toolchain>,
}

impl Offered {
    /// The build command with the compiler's own path first.
    #[must_use]
    pub fn build_line(&self) -> Option<String> {
        let toolchain = self.toolchain.as_ref()?;
        let mut words = self.language.build.clone();
        words[0] = toolchain.program.display().to_string();
        Some(words.join(" "))
    }
}

/// Every language with this machine's toolchain for it, found once (a
/// compiler's `--version` takes a moment).
#[must_use]
pub fn offered() -> Vec<Offered> {
    all()
        .into_iter()
        .map(|language| Offered {
            toolchain: toolchain(language.tool),
            language,
        })
        .collect()
}

/// `tool` as the sandbox can run it, or `None`.
#[must_use]
pub fn toolchain(tool: &str) -> Option<Toolchain> {
    let found = on_path(tool)?.canonicalize().ok()?;
    let (program, shown) = if reversi::arena::sandbox::in_system(&found) {
        (on_path(tool)?, Vec::new())
    } else if tool == "rustc" {
        // rustup's proxy: the toolchain it runs is a folder of its own.
        let out = Command::new(tool)
            .args(["--print", "sysroot"])
            .output()
            .ok()?;
        let sysroot = PathBuf::from(String::from_utf8(out.stdout).ok()?.trim());
        let program = sysroot.join("bin").join("rustc");
        program.is_file().then_some((program, vec![sysroot]))?
    } else {
        // A shim (pyenv's): the system's own, where there is one.
        let system = Path::new("/usr/bin").join(tool);
        system.is_file().then_some((system, Vec::new()))?
    };
    let version = version(&program)?;
    Some(Toolchain {
        program,
        shown,
        version,
    })
}

fn on_path(tool: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(tool))
        .find(|p| p.is_file())
}

/// The first line `PROGRAM --version` prints, or `None` where it cannot
/// be run.
#[must_use]
pub fn version(program: &Path) -> Option<String> {
    let out = Command::new(program).arg("--version").output().ok()?;
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
