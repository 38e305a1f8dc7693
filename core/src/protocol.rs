//! The judge protocol (VG101 reversi judge, section 2.2): read commands from
//! stdin, answer on stdout, talk on stderr.
//!
//! Three steps, kept apart: [`parse`] turns a line into a [`Command`] (or a
//! [`ProtocolError`]); [`Session::apply`] updates the game the judge
//! describes and says what reply is due; [`run`] does the I/O, with a single
//! place that writes and flushes stdout.
//!
//! Bad input never stops the bot. The judge is the authority on what was
//! played, so each bad line is reported on stderr in one line and the bot
//! keeps playing the position it can still see (the README has the table).

use crate::bitboard::Square;
use crate::board::{move_names, Board, Color};
use crate::lines::{read_line, MAX_LINE};
use crate::player::Player;
use std::fmt;
use std::io::{self, BufRead, Write};
use std::time::Instant;

/// Who owns a `PLACE`d disc: 1 is ours, 2 the opponent's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Owner {
    /// `1`: the disc is ours.
    Mine,
    /// `2`: the disc is the opponent's.
    Theirs,
}

/// One line of the judge protocol, as the judge sends it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `START`: a new game.
    Start,
    /// `PLACE x y o`: a disc of the setup.
    Place(Square, Owner),
    /// `DONE`: the setup is complete; `OK` is due.
    Done,
    /// `BEGIN`: we move first.
    Begin,
    /// `TURN x y`: the opponent's move; ours is due.
    Turn(Square),
    /// `PASS`: the opponent passed; our move is due.
    Pass,
    /// `END`: the game is over.
    End,
}

/// A square as the protocol writes it, file and rank as two words: `d 3`.
///
/// (Items marked `cfg(not(bundle))` here are the referee's half of the
/// vocabulary: writing commands, judging replies. The bundle, a bot only,
/// leaves them out; `reversi bundle`, `src/bundle/mod.rs` of the tools.)
fn write_square(f: &mut fmt::Formatter<'_>, sq: Square) -> fmt::Result {
    write!(f, "{} {}", sq.file_char(), sq.rank_char())
}

#[cfg(not(bundle))]
impl fmt::Display for Command {
    /// The line as the judge writes it: `PLACE d 4 1`, `TURN e 6`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Command::Start => write!(f, "START"),
            Command::Place(sq, owner) => {
                write!(f, "PLACE ")?;
                write_square(f, *sq)?;
                let digit = match owner {
                    Owner::Mine => 1,
                    Owner::Theirs => 2,
                };
                write!(f, " {digit}")
            }
            Command::Done => write!(f, "DONE"),
            Command::Begin => write!(f, "BEGIN"),
            Command::Turn(sq) => {
                write!(f, "TURN ")?;
                write_square(f, *sq)
            }
            Command::Pass => write!(f, "PASS"),
            Command::End => write!(f, "END"),
        }
    }
}

/// The `PLACE` commands that describe a position to one side: `mine` are
/// that side's discs, `theirs` the opponent's; squares in index order.
#[cfg(not(bundle))]
#[must_use]
pub fn place_commands(mine: u64, theirs: u64) -> Vec<Command> {
    crate::bitboard::squares(mine | theirs)
        .map(|sq| {
            let owner = if mine & sq.bit() != 0 {
                Owner::Mine
            } else {
                Owner::Theirs
            };
            Command::Place(sq, owner)
        })
        .collect()
}

/// What a bot says when its move is due: `x y` or `PASS`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveReply {
    /// `x y`: a move.
    Play(Square),
    /// `PASS`: no legal move.
    Pass,
}

/// Why a move reply does not stand.
#[cfg(not(bundle))]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplyError {
    /// Neither `x y` (a lower-case file, one space, a rank) nor `PASS`.
    Malformed(String),
    /// `PASS` while a legal move exists.
    PassWithMoves,
    /// A well-formed square that is not a legal move.
    Illegal(Square),
}

#[cfg(not(bundle))]
impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplyError::Malformed(text) => write!(f, "{} is not 'x y' or PASS", quote(text)),
            ReplyError::PassWithMoves => write!(f, "PASS while a legal move exists"),
            ReplyError::Illegal(sq) => write!(f, "{sq} is not a legal move"),
        }
    }
}

#[cfg(not(bundle))]
impl std::error::Error for ReplyError {}

impl MoveReply {
    /// Reads a reply as strictly as the judge does (the exact form `d 3`,
    /// or `PASS`) and checks that it is legal for `board`, the replying
    /// side to move. Every reader of replies (the referee, replay, the
    /// tests) goes through here, so they all judge alike.
    #[cfg(not(bundle))]
    pub fn parse(text: &str, board: &Board) -> Result<MoveReply, ReplyError> {
        if text == "PASS" {
            return if board.has_moves() {
                Err(ReplyError::PassWithMoves)
            } else {
                Ok(MoveReply::Pass)
            };
        }
        let bytes = text.as_bytes();
        let square = if bytes.len() == 3 && bytes[1] == b' ' && bytes[0].is_ascii_lowercase() {
            Square::from_letter_digit(bytes[0], bytes[2])
        } else {
            None
        };
        match square {
            None => Err(ReplyError::Malformed(text.to_string())),
            Some(sq) if !board.is_legal(sq) => Err(ReplyError::Illegal(sq)),
            Some(sq) => Ok(MoveReply::Play(sq)),
        }
    }

    /// The square played, `None` for a pass.
    #[cfg(not(bundle))]
    #[must_use]
    pub fn square(self) -> Option<Square> {
        match self {
            MoveReply::Play(sq) => Some(sq),
            MoveReply::Pass => None,
        }
    }
}

impl From<Option<Square>> for MoveReply {
    fn from(square: Option<Square>) -> MoveReply {
        square.map_or(MoveReply::Pass, MoveReply::Play)
    }
}

impl fmt::Display for MoveReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveReply::Play(sq) => write_square(f, *sq),
            MoveReply::Pass => write!(f, "PASS"),
        }
    }
}

/// `line` as a report quotes it: escaped (see [`escape`]), in quotes, and
/// cut to 40 characters with its length said when longer, so that a
/// program that writes megabytes gets a verdict of one short line.
#[cfg(not(bundle))]
#[must_use]
pub fn quote(line: &str) -> String {
    const SHOWN: usize = 40;
    let escaped = escape(line);
    if escaped.chars().count() <= SHOWN {
        format!("'{escaped}'")
    } else {
        let head: String = escaped.chars().take(SHOWN).collect();
        format!("'{head}...' ({} bytes)", line.len())
    }
}

/// A line with its control characters written out (`\r`, `\t`, `\n`,
/// `\\`, `\xHH`), so that any bytes show as one line of text; the
/// transcript format stores lines this way.
#[cfg(not(bundle))]
#[must_use]
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// Why a line is not a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProtocolError {
    /// A line with nothing but white space.
    Blank,
    /// A first word that is no command (the word, as sent).
    Unknown(String),
    /// A known command whose arguments do not parse.
    BadArguments {
        /// The command, as the judge writes it.
        command: &'static str,
        /// What is wrong with its arguments.
        reason: String,
    },
}

impl fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProtocolError::Blank => write!(f, "blank line"),
            ProtocolError::Unknown(word) => write!(f, "unknown command '{word}'"),
            ProtocolError::BadArguments { command, reason } => write!(f, "bad {command}: {reason}"),
        }
    }
}

impl std::error::Error for ProtocolError {}

/// Oddities in a line that was still understood; each is reported once per
/// process, so a judge that sends CRLF does not fill the log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Quirks {
    /// A trailing CR was dropped.
    pub carriage_return: bool,
    /// Words were separated by tabs.
    pub tab: bool,
    /// A command or a file letter was in lower case.
    pub lower_case: bool,
    /// Words followed a complete command.
    pub extra_words: bool,
}

/// Parses one line. Words are separated by any white space; case is ignored;
/// a square may be given as `d 3` or `d3`.
pub fn parse(line: &str) -> (Result<Command, ProtocolError>, Quirks) {
    let mut quirks = Quirks {
        carriage_return: line.contains('\r'),
        tab: line.contains('\t'),
        ..Quirks::default()
    };
    let words: Vec<&str> = line.split_ascii_whitespace().collect();
    let Some(first) = words.first() else {
        return (Err(ProtocolError::Blank), quirks);
    };
    let upper = first.to_ascii_uppercase();
    quirks.lower_case = upper != *first;
    let args = &words[1..];
    let (result, wanted) = match upper.as_str() {
        "START" => (Ok(Command::Start), 0),
        "DONE" => (Ok(Command::Done), 0),
        "BEGIN" => (Ok(Command::Begin), 0),
        "PASS" => (Ok(Command::Pass), 0),
        "END" => (Ok(Command::End), 0),
        "TURN" => match parse_square(args) {
            Ok((sq, used)) => (Ok(Command::Turn(sq)), used),
            Err(reason) => (Err(bad("TURN", reason)), 0),
        },
        "PLACE" => match parse_square(args) {
            Ok((sq, used)) => match args.get(used) {
                Some(&"1") => (Ok(Command::Place(sq, Owner::Mine)), used + 1),
                Some(&"2") => (Ok(Command::Place(sq, Owner::Theirs)), used + 1),
                Some(other) => (
                    Err(bad("PLACE", format!("owner must be 1 or 2, not '{other}'"))),
                    0,
                ),
                None => (Err(bad("PLACE", "missing owner (1 or 2)".into())), 0),
            },
            Err(reason) => (Err(bad("PLACE", reason)), 0),
        },
        _ => (Err(ProtocolError::Unknown(truncate(first))), 0),
    };
    if result.is_ok() && args.len() > wanted {
        quirks.extra_words = true;
    }
    (result, quirks)
}

fn bad(command: &'static str, reason: String) -> ProtocolError {
    ProtocolError::BadArguments { command, reason }
}

/// A word for a message: at most 24 characters, control characters shown
/// as escapes so the log stays one line of readable text.
fn truncate(word: &str) -> String {
    word.chars()
        .take(24)
        .flat_map(|c| {
            if c.is_control() {
                c.escape_default().collect::<Vec<_>>()
            } else {
                vec![c]
            }
        })
        .collect()
}

/// `d 3` (two words) or `d3` (one); returns the square and the words used.
fn parse_square(args: &[&str]) -> Result<(Square, usize), String> {
    match args {
        [] => Err("missing square".into()),
        [one, ..] if one.len() == 2 => Square::parse(one)
            .map(|sq| (sq, 1))
            .ok_or_else(|| format!("'{}' is not a square a1..h8", truncate(one))),
        [file, rank, ..] => {
            let (f, r) = (file.as_bytes(), rank.as_bytes());
            if f.len() == 1 && r.len() == 1 {
                if let Some(sq) = Square::from_letter_digit(f[0], r[0]) {
                    return Ok((sq, 2));
                }
            }
            Err(format!(
                "'{} {}' is not a square a-h 1-8",
                truncate(file),
                truncate(rank)
            ))
        }
        [one] => Err(format!("'{}' is not a square a1..h8", truncate(one))),
    }
}

/// Where the session is in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Before `START`.
    Idle,
    /// After `START`, taking `PLACE` lines until `DONE`.
    Setup,
    /// After `DONE`.
    Playing,
}

/// What the session must answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Nothing is due.
    Nothing,
    /// `OK` is due.
    Ok,
    /// Our move (or `PASS`) is due.
    Move,
    /// `END`: the process exits.
    Exit,
}

/// The game as the judge describes it, from our side.
#[derive(Clone, Debug)]
pub struct Session {
    /// Where the game is: before `START`, in its setup, or under way.
    pub phase: Phase,
    /// Our discs.
    pub mine: u64,
    /// The opponent's discs.
    pub theirs: u64,
    /// Known from the first `BEGIN` (black) or `TURN`/`PASS` (white).
    pub color: Option<Color>,
    /// Set up the standard position once our colour is known (the judge gave
    /// no position, see `assume_standard`).
    standard_pending: bool,
    /// Warnings for the last line, for the caller to print.
    pub warnings: Vec<String>,
}

impl Default for Session {
    fn default() -> Self {
        Session::new()
    }
}

impl Session {
    /// A session before any `START`.
    #[must_use]
    pub fn new() -> Session {
        Session {
            phase: Phase::Idle,
            mine: 0,
            theirs: 0,
            color: None,
            standard_pending: false,
            warnings: Vec::new(),
        }
    }

    /// The position with us to move.
    #[must_use]
    pub fn board(&self) -> Board {
        Board::new(self.mine, self.theirs)
    }

    fn warn(&mut self, text: String) {
        self.warnings.push(text);
    }

    fn reset(&mut self) {
        self.phase = Phase::Setup;
        self.mine = 0;
        self.theirs = 0;
        self.color = None;
        self.standard_pending = false;
    }

    /// No position was given (no `START`, or no `PLACE`): the standard start
    /// is the only sensible guess. It is placed when our colour is known.
    fn assume_standard(&mut self, why: &str) {
        self.warn(format!("{why}: assuming the standard start position"));
        self.mine = 0;
        self.theirs = 0;
        self.standard_pending = true;
        self.phase = Phase::Playing;
    }

    fn learn_color(&mut self, color: Color) {
        if self.color.is_none() {
            self.color = Some(color);
        }
        if self.standard_pending {
            self.standard_pending = false;
            let start = Board::start(); // black to move
            let (black, white) = (start.player, start.opponent);
            (self.mine, self.theirs) = match self.color.unwrap_or(color) {
                Color::Black => (black, white),
                Color::White => (white, black),
            };
        }
    }

    /// Makes sure a game is under way before a move-related command.
    fn ensure_playing(&mut self, command: &str) {
        match self.phase {
            Phase::Idle => self.assume_standard(&format!("{command} before START")),
            Phase::Setup => {
                if self.mine | self.theirs == 0 {
                    self.assume_standard(&format!("{command} before DONE with no PLACE"));
                } else {
                    self.warn(format!(
                        "{command} before DONE: taking the setup as complete"
                    ));
                    self.phase = Phase::Playing;
                }
            }
            Phase::Playing => {}
        }
    }

    /// Applies one command to the game and says what reply is due.
    pub fn apply(&mut self, command: Command) -> Reply {
        self.warnings.clear();
        match command {
            Command::Start => {
                if self.phase == Phase::Playing {
                    self.warn("START before END: starting a new game".into());
                }
                self.reset();
                Reply::Nothing
            }
            Command::Place(sq, owner) => {
                match self.phase {
                    Phase::Idle => {
                        self.warn("PLACE before START: starting a new game".into());
                        self.reset();
                    }
                    Phase::Playing => {
                        self.warn(format!("PLACE {sq} after DONE: changing the board anyway"));
                    }
                    Phase::Setup => {}
                }
                if (self.mine | self.theirs) & sq.bit() != 0 {
                    self.warn(format!(
                        "PLACE {sq}: square already occupied, the later PLACE wins"
                    ));
                }
                self.mine &= !sq.bit();
                self.theirs &= !sq.bit();
                match owner {
                    Owner::Mine => self.mine |= sq.bit(),
                    Owner::Theirs => self.theirs |= sq.bit(),
                }
                Reply::Nothing
            }
            Command::Done => {
                match self.phase {
                    Phase::Idle => self.assume_standard("DONE before START"),
                    // `START` then `DONE` is the shortest way to ask for
                    // the standard start (the README's first example): a
                    // setup, not a mistake, so it is taken without a note.
                    Phase::Setup if self.mine | self.theirs == 0 => {
                        self.assume_standard("DONE with no PLACE");
                        self.warnings.clear();
                    }
                    Phase::Setup => self.phase = Phase::Playing,
                    Phase::Playing => self.warn("DONE again: answering OK again".into()),
                }
                Reply::Ok
            }
            Command::Begin => {
                self.ensure_playing("BEGIN");
                self.learn_color(Color::Black);
                Reply::Move
            }
            Command::Pass => {
                self.ensure_playing("PASS");
                self.learn_color(Color::White);
                Reply::Move
            }
            Command::Turn(sq) => {
                self.ensure_playing("TURN");
                self.learn_color(Color::White);
                self.opponent_move(sq);
                Reply::Move
            }
            Command::End => Reply::Exit,
        }
    }

    /// Applies a parsed line, good or bad. A `TURN` whose square cannot be
    /// read still owes the judge a reply: the opponent's move is unknown, so
    /// the bot answers for the position as it stands.
    pub fn apply_parsed(&mut self, parsed: &Result<Command, ProtocolError>) -> Reply {
        match parsed {
            Ok(command) => self.apply(*command),
            Err(
                error @ ProtocolError::BadArguments {
                    command: "TURN", ..
                },
            ) => {
                self.warnings.clear();
                self.ensure_playing("TURN");
                self.learn_color(Color::White);
                self.warn(format!("{error}: answering for the board as it stands"));
                Reply::Move
            }
            Err(_) => {
                self.warnings.clear();
                Reply::Nothing
            }
        }
    }

    /// The opponent played `sq`: turn over what it turns over. A square that
    /// is taken is refused (the board stays as it is); a move that turns
    /// nothing over still puts the disc down, since the judge says it is
    /// there.
    fn opponent_move(&mut self, sq: Square) {
        if (self.mine | self.theirs) & sq.bit() != 0 {
            self.warn(format!(
                "TURN {sq}: square already occupied, board left as it was"
            ));
            return;
        }
        let flipped = crate::movegen::flips(sq.index(), self.theirs, self.mine);
        if flipped == 0 {
            self.warn(format!(
                "TURN {sq}: not a legal move (turns nothing over), placing the disc anyway"
            ));
        }
        self.theirs |= flipped | sq.bit();
        self.mine &= !flipped;
    }

    /// We played `sq` (a legal move).
    pub fn own_move(&mut self, sq: Square) {
        let flipped = crate::movegen::flips(sq.index(), self.mine, self.theirs);
        self.mine |= flipped | sq.bit();
        self.theirs &= !flipped;
    }

    /// Our colour for diagrams: black until we learn otherwise.
    #[must_use]
    pub fn display_color(&self) -> Color {
        self.color.unwrap_or(Color::Black)
    }
}

/// How much goes to stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verbosity {
    /// Boards, legal moves, the search line and warnings.
    Full,
    /// The search line and warnings only.
    Brief,
    /// Warnings only.
    Quiet,
}

/// Speaks the judge protocol until `END` or end of input.
pub fn run(
    input: &mut impl BufRead,
    output: &mut impl Write,
    log: &mut impl Write,
    player: &mut dyn Player,
    verbosity: Verbosity,
) -> io::Result<()> {
    let mut session = Session::new();
    let mut seen = Quirks::default();
    let mut line_number = 0u64;
    let mut cut = false;
    // stderr problems (a closed pipe) must never stop the game: ignore them.
    macro_rules! note {
        ($($arg:tt)*) => { let _ = writeln!(log, $($arg)*); };
    }
    for text in player.notes() {
        note!("{text}");
    }
    loop {
        let Some(line) = read_line(input, &mut cut)? else {
            if session.phase != Phase::Idle {
                note!("end of input without END: exiting");
            }
            let _ = log.flush();
            return Ok(());
        };
        let started = Instant::now();
        line_number += 1;
        if cut {
            note!("line {line_number}: longer than {MAX_LINE} bytes, the rest was dropped");
        }
        let (parsed, quirks) = parse(&line);
        let was_idle = session.phase == Phase::Idle;
        let reply = session.apply_parsed(&parsed);
        if let (Err(error), Reply::Nothing) = (&parsed, reply) {
            note!("line {line_number}: {error}: ignored");
        } else {
            // What was accepted is worth a note; an ignored line has its own.
            report_quirks(log, line_number, quirks, &mut seen);
        }
        if parsed == Ok(Command::Start) || (was_idle && session.phase != Phase::Idle) {
            player.new_game();
        }
        for warning in &session.warnings {
            note!("line {line_number}: {warning}");
        }
        match reply {
            Reply::Nothing => {}
            Reply::Exit => {
                let _ = log.flush();
                return Ok(());
            }
            Reply::Ok => write_reply(output, "OK")?,
            Reply::Move => {
                let board = session.board();
                let color = session.display_color();
                let choice = if board.has_moves() {
                    player.choose(&board, started)
                } else {
                    crate::player::Choice {
                        square: None,
                        info: "no legal move".to_string(),
                    }
                };
                // Never send an illegal move, whatever a player returned.
                let square = match choice.square {
                    Some(sq) if board.is_legal(sq) => Some(sq),
                    Some(sq) => {
                        note!("player chose illegal {sq}: replacing it");
                        crate::bitboard::squares(board.moves()).next()
                    }
                    None if board.has_moves() => crate::bitboard::squares(board.moves()).next(),
                    None => None,
                };
                let text = MoveReply::from(square).to_string();
                write_reply(output, &text)?;
                if let Some(sq) = square {
                    session.own_move(sq);
                }
                // The reply is out; now the log, which may be slow.
                if verbosity == Verbosity::Full {
                    note!(
                        "{} to move, legal: {}\n{}",
                        color.name(),
                        if board.has_moves() {
                            move_names(board.moves())
                        } else {
                            "none".into()
                        },
                        board.diagram(color).trim_end()
                    );
                }
                if verbosity != Verbosity::Quiet {
                    note!("played {text}: {}", choice.info);
                }
                if verbosity == Verbosity::Full {
                    let after = session.board().pass();
                    note!(
                        "{} to move, legal: {}\n{}",
                        color.other().name(),
                        if after.has_moves() {
                            move_names(after.moves())
                        } else {
                            "none".into()
                        },
                        after.diagram(color.other()).trim_end()
                    );
                }
            }
        }
        let _ = log.flush();
    }
}

/// Speaks the protocol on stdin, stdout and stderr until `END`: the bot
/// as a judge runs it.
#[must_use]
pub fn serve_stdio(player: &mut dyn Player, verbosity: Verbosity) -> std::process::ExitCode {
    crate::lines::serve_stdio(|input, output, log| run(input, output, log, player, verbosity))
}

/// The one place that writes to stdout: a whole line, flushed at once.
fn write_reply(output: &mut impl Write, text: &str) -> io::Result<()> {
    output.write_all(text.as_bytes())?;
    output.write_all(b"\n")?;
    output.flush()
}

fn report_quirks(log: &mut impl Write, line: u64, quirks: Quirks, seen: &mut Quirks) {
    let mut say = |present: bool, already: &mut bool, what: &str| {
        if present && !*already {
            *already = true;
            let _ = writeln!(log, "line {line}: {what} (accepted; said once)");
        }
    };
    say(
        quirks.carriage_return,
        &mut seen.carriage_return,
        "carriage return in line",
    );
    say(quirks.tab, &mut seen.tab, "tab in line");
    say(
        quirks.lower_case,
        &mut seen.lower_case,
        "command not in upper case",
    );
    say(
        quirks.extra_words,
        &mut seen.extra_words,
        "extra words after a command, ignored",
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_short() {
        assert_eq!(quote("d 3"), "'d 3'");
        let long = "y".repeat(5000);
        let quoted = quote(&long);
        assert!(quoted.len() < 70, "{quoted}");
        assert!(quoted.ends_with("(5000 bytes)"), "{quoted}");
    }

    #[test]
    fn commands_print_as_the_judge_writes_them_and_parse_back() {
        let d3 = Square::parse("d3").unwrap();
        let lines = [
            (Command::Start, "START"),
            (Command::Place(d3, Owner::Mine), "PLACE d 3 1"),
            (Command::Place(d3, Owner::Theirs), "PLACE d 3 2"),
            (Command::Done, "DONE"),
            (Command::Begin, "BEGIN"),
            (Command::Turn(d3), "TURN d 3"),
            (Command::Pass, "PASS"),
            (Command::End, "END"),
        ];
        for (command, text) in lines {
            assert_eq!(command.to_string(), text);
            assert_eq!(parse(text).0, Ok(command));
        }
    }

    #[test]
    fn start_then_done_is_the_standard_start_without_a_note() {
        let mut session = Session::new();
        for command in [Command::Start, Command::Done] {
            session.apply(command);
            assert!(session.warnings.is_empty(), "{:?}", session.warnings);
        }
        assert_eq!(session.apply(Command::Begin), Reply::Move);
        let (black, white) = Board::start().colors(Color::Black);
        assert_eq!((session.mine, session.theirs), (black, white));
        // A `DONE` with no `START` before it is still noted.
        let mut session = Session::new();
        session.apply(Command::Done);
        assert_eq!(session.warnings.len(), 1, "{:?}", session.warnings);
    }

    #[test]
    fn place_commands_are_relative_to_the_side() {
        let b = Board::start();
        let (black, white) = b.colors(Color::Black);
        let text = |mine, theirs| -> Vec<String> {
            place_commands(mine, theirs)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(
            text(black, white),
            ["PLACE d 4 2", "PLACE e 4 1", "PLACE d 5 1", "PLACE e 5 2"]
        );
        assert_eq!(
            text(white, black),
            ["PLACE d 4 1", "PLACE e 4 2", "PLACE d 5 2", "PLACE e 5 1"]
        );
    }

    #[test]
    fn move_replies_are_read_as_strictly_as_the_judge_reads_them() {
        let b = Board::start();
        let d3 = Square::parse("d3").unwrap();
        assert_eq!(MoveReply::parse("d 3", &b), Ok(MoveReply::Play(d3)));
        assert_eq!(MoveReply::Play(d3).to_string(), "d 3");
        for malformed in ["d3", "D 3", "d  3", " d 3", "d 3 ", "pass", ""] {
            assert_eq!(
                MoveReply::parse(malformed, &b),
                Err(ReplyError::Malformed(malformed.to_string()))
            );
        }
        let a1 = Square::parse("a1").unwrap();
        assert_eq!(MoveReply::parse("a 1", &b), Err(ReplyError::Illegal(a1)));
        assert_eq!(MoveReply::parse("PASS", &b), Err(ReplyError::PassWithMoves));
        // A side with no move must pass, and may.
        let stuck = Board::new(0, 1);
        assert_eq!(MoveReply::parse("PASS", &stuck), Ok(MoveReply::Pass));
        assert_eq!(
            ReplyError::Malformed("x\ty".into()).to_string(),
            "'x\\ty' is not 'x y' or PASS"
        );
    }
}
