//! What every long-running tool needs and none owns: files written whole
//! or not at all, independent jobs on threads with their progress bars,
//! the report a command writes to stdout as it runs, and text from a peer
//! or a file made safe to print.
//!
//! | module | what it owns |
//! | --- | --- |
//! | [`files`] | reading within a cap, writing a result atomically |
//! | [`parallel`] | independent jobs on threads, progress bars |
//! | [`report`] | a long command's report on stdout, surviving `| head` |

pub mod files;
pub mod parallel;
pub mod report;

/// `text` with its control characters escaped (`\u{1b}`), as what a
/// peer or a file says is printed: it may not move the cursor, set the terminal's
/// title or clear the screen.
#[must_use]
pub fn escape_controls(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}
