//! Property test of Linkage's one parser, `input.txt` (`proptest`): on any
//! text it never panics, and the position it reads writes back (as the
//! runner writes `input.txt`) to the same position. `PROPTEST_CASES` sets
//! the number of cases.

use linkage::files::{input_text, read_input};
use proptest::prelude::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn input_files(text in prop_oneof![
        any::<String>(),
        "[MF][0-9]{0,6}\n([RBGYXx.]{0,9}\n){0,8}",
        "[MFRBGYXx.0-9 \n\t-]{0,120}",
    ]) {
        let (position, _notes) = read_input(&text);
        let (again, notes) = read_input(&input_text(&position));
        prop_assert_eq!(again, position);
        prop_assert!(notes.is_empty(), "{:?}", notes);
    }
}
