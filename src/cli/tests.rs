//! The command line's parsing, without running any command.

use super::*;
use clap::CommandFactory;
use reversi_core::search::{Stop, MIDGAME_T};
use std::time::Duration;

fn parse(line: &str) -> Result<Cli, clap::Error> {
    Cli::try_parse_from(std::iter::once("reversi").chain(line.split_whitespace()))
}

fn options(line: &str) -> Option<reversi_core::player::BotOptions> {
    parse(line).ok().map(|cli| cli.bot.options())
}

#[test]
fn the_command_line_is_well_formed() {
    Cli::command().debug_assert();
}

#[test]
fn depth_and_nodes_fix_the_search_and_drop_the_clock_unless_asked() {
    let o = options("--depth 5").unwrap();
    assert_eq!((o.stop, o.move_time), (Stop::Depth(5), None));
    let o = options("--nodes 1000 --move-time 300").unwrap();
    assert_eq!(
        (o.stop, o.move_time),
        (Stop::Nodes(1000), Some(Duration::from_millis(300)))
    );
    let o = options("--move-time 300").unwrap();
    assert_eq!(
        (o.stop, o.move_time),
        (Stop::Clock, Some(Duration::from_millis(300)))
    );
    assert!(options("--depth 5 --nodes 100").is_none());
    assert!(options("--depth 0").is_none());
}

#[test]
fn probcut_takes_on_off_or_a_t_in_range() {
    let t = |line: &str| options(line).map(|o| o.probcut_t);
    assert_eq!(t(""), Some(Some(MIDGAME_T)));
    assert_eq!(t("--probcut on"), Some(Some(MIDGAME_T)));
    assert_eq!(t("--probcut off"), Some(None));
    assert_eq!(t("--probcut 0.7"), Some(Some(0.7)));
    for bad in [
        "--probcut 0.1",
        "--probcut 9",
        "--probcut NaN",
        "--probcut maybe",
    ] {
        assert_eq!(t(bad), None, "{bad}");
    }
}

#[test]
fn a_clap_error_becomes_one_line_with_its_tip() {
    let error = parse("mach self self").unwrap_err();
    let line = one_line(&error.render().to_string());
    assert!(!line.contains('\n'), "{line}");
    assert!(
        line.contains("'mach'") && line.contains("'match'"),
        "{line}"
    );
}

#[test]
fn usage_errors_exit_2_and_failed_runs_exit_1() {
    assert_eq!(usage("x").exit_code(), ExitCode::from(2));
    assert_eq!(failed("f", "gone").exit_code(), ExitCode::from(1));
    assert_eq!(failed("f", "gone"), CliError::Failed("f: gone".into()));
}
