//! How a command line is read: positional words and `--flag [value]`s,
//! checked against a command's flags as they are read, and the one error
//! type every command returns, which decides the exit code.

use std::collections::HashMap;
use std::fmt::Display;
use std::ops::RangeInclusive;
use std::process::ExitCode;
use std::str::FromStr;

/// How a command failed; the exit code follows from the kind alone.
#[derive(Debug, PartialEq, Eq)]
pub enum CliError {
    /// The command line is wrong (unknown command or flag, a missing or
    /// malformed value, flags that do not go together): exit 2.
    Usage(String),
    /// The command line was fine but the run failed: a file that cannot be
    /// read or written, or data in it that does not parse: exit 1.
    Failed(String),
}

impl CliError {
    #[must_use]
    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Usage(_) => ExitCode::from(2),
            CliError::Failed(_) => ExitCode::from(1),
        }
    }
}

pub(super) fn usage(message: impl Into<String>) -> CliError {
    CliError::Usage(message.into())
}

/// `PATH: error`, for a file that failed.
pub(super) fn failed(path: impl std::fmt::Display, error: impl std::fmt::Display) -> CliError {
    CliError::Failed(format!("{path}: {error}"))
}

pub(super) fn read_file(path: &str) -> Result<String, CliError> {
    std::fs::read_to_string(path).map_err(|e| failed(path, e))
}

/// A parsed command line: positional words and `--flag [value]`s, checked
/// against the command's flags as they are read.
pub(super) struct Args {
    pub(super) positional: Vec<String>,
    flags: HashMap<String, String>,
}

impl Args {
    pub(super) fn parse(words: &[String], known: &str) -> Result<Args, CliError> {
        let mut positional = Vec::new();
        let mut flags = HashMap::new();
        let mut words = words.iter();
        while let Some(word) = words.next() {
            let Some(name) = word.strip_prefix("--") else {
                positional.push(word.clone());
                continue;
            };
            let (name, inline) = match name.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (name, None),
            };
            let takes_value = known
                .split_whitespace()
                .find(|f| f.trim_end_matches('=') == name)
                .ok_or_else(|| usage(format!("unknown flag --{name}")))?
                .ends_with('=');
            let value = match (takes_value, inline) {
                (true, Some(v)) => v,
                (true, None) => words
                    .next()
                    .cloned()
                    .ok_or_else(|| usage(format!("--{name} needs a value")))?,
                (false, Some(_)) => return Err(usage(format!("--{name} takes no value"))),
                (false, None) => String::new(),
            };
            flags.insert(name.to_string(), value);
        }
        Ok(Args { positional, flags })
    }

    pub(super) fn has(&self, name: &str) -> bool {
        self.flags.contains_key(name)
    }

    pub(super) fn number<T: std::str::FromStr>(&self, name: &str) -> Result<Option<T>, CliError> {
        match self.flags.get(name) {
            None => Ok(None),
            Some(v) => v
                .parse()
                .map(Some)
                .map_err(|_| usage(format!("--{name}: '{v}' is not a valid number"))),
        }
    }

    /// `--name N` within `range`, if given: a value outside it is wrong
    /// usage, answered with the range (never a panic or an endless run).
    pub(super) fn number_in<T: FromStr + PartialOrd + Display>(
        &self,
        name: &str,
        range: RangeInclusive<T>,
    ) -> Result<Option<T>, CliError> {
        match self.number::<T>(name)? {
            Some(v) if !range.contains(&v) => Err(usage(format!(
                "--{name}: from {} to {}, not {v}",
                range.start(),
                range.end()
            ))),
            v => Ok(v),
        }
    }

    /// `--name N`, if given, at least `least`.
    pub(super) fn number_from<T: FromStr + PartialOrd + Display>(
        &self,
        name: &str,
        least: T,
    ) -> Result<Option<T>, CliError> {
        match self.number::<T>(name)? {
            Some(v) if v < least => Err(usage(format!("--{name}: at least {least}, not {v}"))),
            v => Ok(v),
        }
    }

    pub(super) fn text(&self, name: &str) -> Option<&str> {
        self.flags.get(name).map(String::as_str)
    }

    /// No positional word is expected.
    pub(super) fn no_positional(&self) -> Result<(), CliError> {
        match self.positional.first() {
            Some(extra) => Err(usage(format!("unexpected '{extra}'"))),
            None => Ok(()),
        }
    }
}
