//! Linkage, the other game of `../shared/seeds/linkage-bot-ladder.txt`:
//! its rules, the contest's files, the players, and the contest's game
//! runner. The `linkage` binary (`src/main.rs`) is the bot and the
//! runner; nothing here knows Othello.
//!
//! | concern | module |
//! | --- | --- |
//! | the board, moves, groups, the end | [`rules`] |
//! | `input.txt` and `order.txt` | [`files`] |
//! | the bot (tree search), random, greedy and alpha-beta players | [`player`] |
//! | games between bots as the contest's runner plays them, the ladder | [`runner`] |

pub mod files;
pub mod player;
pub mod rules;
pub mod runner;

/// What the bot says when run with an argument: name, author, date,
/// version, as the seed's example (`Cplus. David Bolton, UK, 53, August
/// 12,2012, V1.0`).
#[must_use]
pub fn id_line() -> String {
    format!(
        "linkage (reversi project). The reversi developers, November 24, 2026, V{}",
        env!("CARGO_PKG_VERSION")
    )
}

/// A seed from a text (FNV-1a), so that the same `input.txt` gives the bot
/// the same random numbers.
#[must_use]
pub fn seed_of(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
