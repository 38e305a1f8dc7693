//! The command line's parsing, without running any command.

use super::*;

fn words(line: &str) -> Vec<String> {
    line.split_whitespace().map(String::from).collect()
}

fn options(line: &str) -> Result<BotOptions, CliError> {
    bot_options(&Args::parse(&words(line), BOT_FLAGS)?)
}

#[test]
fn flags_are_checked_as_they_are_read() {
    let args = Args::parse(&words("x --games=4 --show y"), MATCH_FLAGS).unwrap();
    assert_eq!(args.positional, ["x", "y"]);
    assert_eq!(args.number::<u32>("games"), Ok(Some(4)));
    assert!(args.has("show"));
    let error = |line: &str, flags| Args::parse(&words(line), flags).err();
    assert_eq!(
        error("--shw", MATCH_FLAGS),
        Some(usage("unknown flag --shw"))
    );
    assert_eq!(
        error("--games", MATCH_FLAGS),
        Some(usage("--games needs a value"))
    );
    assert_eq!(
        error("--show=yes", MATCH_FLAGS),
        Some(usage("--show takes no value"))
    );
    // A flag of another command is unknown here.
    assert!(error("--games 2", BOT_FLAGS).is_some());
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
    assert!(matches!(
        options("--depth 5 --nodes 100"),
        Err(CliError::Usage(_))
    ));
    assert!(matches!(options("--depth 0"), Err(CliError::Usage(_))));
}

#[test]
fn probcut_takes_on_off_or_a_t_in_range() {
    let t = |line: &str| options(line).map(|o| o.probcut_t);
    assert_eq!(t(""), Ok(Some(crate::search::MIDGAME_T)));
    assert_eq!(t("--probcut on"), Ok(Some(crate::search::MIDGAME_T)));
    assert_eq!(t("--probcut off"), Ok(None));
    assert_eq!(t("--probcut 0.7"), Ok(Some(0.7)));
    for bad in [
        "--probcut 0.1",
        "--probcut 9",
        "--probcut NaN",
        "--probcut maybe",
    ] {
        assert!(matches!(t(bad), Err(CliError::Usage(_))), "{bad}");
    }
}

#[test]
fn usage_errors_exit_2_and_failed_runs_exit_1() {
    assert_eq!(usage("x").exit_code(), ExitCode::from(2));
    assert_eq!(failed("f", "gone").exit_code(), ExitCode::from(1));
    assert_eq!(failed("f", "gone"), CliError::Failed("f: gone".into()));
}
