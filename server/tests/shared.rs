//! Several servers on one PostgreSQL database: remote bots polling
//! different servers play one contest, whose games come out as under
//! `reversi tournament`; and when the server running a contest dies, the
//! other takes the contest and its hosted programs over and finishes it.

use crate::contests::{
    admin, bot, check_survived, connect_contest, hosted, knockout_of_five_finishes, mid_game,
    openings_file, register_remote, slow_knockout, start, wait_for,
};
use crate::remote::{game, scratch, wait_ok};
use serde_json::{json, Value};
use std::process::Child;

#[test]
fn two_servers_on_one_postgres_share_a_knockout() {
    let dir = scratch("shared-knockout");
    let db = crate::pg::fresh_db();
    let a = start(&db, "127.0.0.1:0");
    let b = start(&db, "127.0.0.1:0");
    // The knockout of five of the contests' tests: three remote bots, one
    // polling server a and two server b, and two hosted programs.
    let players = [("p1", 1), ("p2", 2), ("p3", 3), ("p4", 2), ("p5", 1)];
    let remote = [("p1", &a), ("p3", &b), ("p4", &b)];
    for (name, depth) in players {
        match remote.iter().find(|r| r.0 == name) {
            Some((_, s)) => register_remote(s, name),
            None => hosted(&a, name, &bot(depth)),
        }
    }
    let openings = std::fs::read_to_string(openings_file()).unwrap();
    let (status, reply) = admin(
        &b,
        "/api/contests",
        &json!({
            "name": "Knockout on two servers",
            "format": "knockout",
            "entrants": players.iter().map(|p| p.0).collect::<Vec<_>>(),
            "seed": 11,
            "openings": openings,
        }),
    );
    assert_eq!(status, 201, "{reply}");
    let id = reply["id"].as_i64().unwrap();
    let bridges: Vec<Child> = remote
        .iter()
        .map(|(name, s)| {
            let depth = players.iter().find(|p| p.0 == *name).unwrap().1;
            connect_contest(s, name, id, &format!("self --depth {depth}"))
        })
        .collect();
    // A move made through one server wakes the bot waiting on the other
    // in time: nobody loses on time, and the games are those of `reversi
    // tournament`.
    let (c, _) = knockout_of_five_finishes(&a, id, bridges, &dir, &players);
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
