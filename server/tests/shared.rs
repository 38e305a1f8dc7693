//! Several servers on one PostgreSQL database: remote bots polling
//! different servers play one contest, whose games come out as under
//! `reversi tournament`; when the server running a contest dies, the
//! other takes the contest and its hosted programs over and finishes it;
//! and two judging servers share one pool of submitted programs, each
//! built once.

use crate::contests::{
    check_survived, knockout_of_five_finishes, mid_game, slow_knockout, start,
    start_knockout_of_five, wait_for,
};
use crate::remote::{game, scratch, wait_ok};
use serde_json::{json, Value};

#[test]
fn two_servers_on_one_postgres_share_a_knockout() {
    let dir = scratch("shared-knockout");
    let db = crate::pg::fresh_db();
    let a = start(&db, "127.0.0.1:0");
    let b = start(&db, "127.0.0.1:0");
    // The knockout of five of the contests' tests: three remote bots, one
    // polling server a and two server b, and two hosted programs
    // registered through a; the contest created through b.
    let remote = [("p1", &a), ("p3", &b), ("p4", &b)];
    let (id, bridges) = start_knockout_of_five(&a, &b, remote, "Knockout on two servers");
    // A move made through one server wakes the bot waiting on the other
    // in time: nobody loses on time, and the games are those of `reversi
    // tournament`.
    let (c, _) = knockout_of_five_finishes(&a, id, bridges, &dir);
    assert_eq!(c, crate::contests::contest(&b, id), "both servers show it");
}

#[test]
fn when_one_of_two_servers_dies_the_other_finishes_its_contest() {
    let db = crate::pg::fresh_db();
    let mut a = start(&db, "127.0.0.1:0");
    let b = start(&db, "127.0.0.1:0");
    // Server a runs the contest and plays the hosted programs; the remote
    // bot polls server b.
    let (id, bridge) = slow_knockout(&a, &b, "Taken over");
    let before = wait_for(&b, id, 60, mid_game);
    let stored: Vec<Value> = before["games"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| game(&b, g["id"].as_i64().unwrap()))
        .collect();
    a.kill();
    let c = wait_for(&b, id, 120, |c| c["state"] == json!("finished"));
    wait_ok(bridge);
    // Nobody lost on time for the dead server: the hosted side's clock
    // started again when server b took its seat.
    check_survived(&b, &c, &stored, false);
}

#[test]
fn two_judging_servers_on_one_postgres_share_a_pool_and_build_each_program_once() {
    use crate::judge::{active, ended, fixture, new_game, start_judge};
    let dir = scratch("shared-judge");
    let db = crate::pg::fresh_db();
    let Some((mut a, _)) = start_judge(&dir.join("a"), &db) else {
        return;
    };
    // Judged by server a, the only one yet.
    let teams = [
        ("c", "c99-gcc", "greedy.c"),
        ("cpp", "c++11-g++", "greedy.cpp"),
        ("python", "python3", "greedy.py"),
        ("rust", "rust2021", "greedy.rs"),
    ];
    let programs: Vec<i64> = teams
        .iter()
        .map(|(team, language, file)| active(&a, team, language, &fixture(file)))
        .collect();
    let (b, _) = start_judge(&dir.join("b"), &db).expect("a second judge starts");
    let names: Vec<&str> = teams.iter().map(|t| t.0).collect();
    let id = crate::contests::new_contest(
        &b,
        &json!({ "name": "Shared lab", "format": "elo", "entrants": names, "games": 8,
                 "seed": 3, "move_time_ms": 300 }),
    );
    let c = wait_for(&a, id, 120, |c| c["state"] == json!("finished"));
    assert_eq!(c, crate::contests::contest(&b, id), "both servers show it");
    for g in c["games"].as_array().unwrap() {
        assert!(!g["ending"].as_str().unwrap().contains("forfeits"), "{g}");
    }
    // With server a gone, b plays a's programs from the store.
    a.kill();
    let g = ended(&b, new_game(&b, "python", "c", 300), 60);
    assert!(!g["ending"].as_str().unwrap().contains("forfeits"), "{g}");
    let kept = |id: i64, file: &str| dir.join(format!("b/programs/program-{id}/{file}"));
    assert!(kept(programs[0], "main").is_file());
    assert!(kept(programs[2], "main.py").is_file());
    let auth = format!("Bearer {}", crate::remote::TOKEN);
    let (_, all) = crate::remote::call(
        &format!("{}/api/programs", b.url),
        "GET",
        &[("authorization", &auth)],
        None,
    );
    for p in all.as_array().unwrap() {
        assert_eq!(p["builds"], 1, "built once: {p}");
    }
}
