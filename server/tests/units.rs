//! The server's modules on their own (their tests live here, with the
//! end-to-end ones, so that the release profile links one test binary).

/// A stored game between `a` (black) and `b` (white) at 1 s a move, with
/// `moves` played (`pass` for a pass), in progress and in no contest: the
/// row each module's tests start from, changing what they test.
fn game_row(moves: &[&str]) -> reversi_server::store::GameRow {
    reversi_server::store::GameRow {
        id: 1,
        black: "a".into(),
        white: "b".into(),
        move_time_ms: 1000,
        turn_since_ms: 0,
        moves: moves
            .iter()
            .map(|m| (*m != "pass").then(|| m.to_string()))
            .collect(),
        ending: None,
        forfeit: None,
        contest: None,
        opening_plies: 0,
        programs: [None, None],
        setup_ms: 0,
        setup_until_ms: [None, None],
    }
}

mod store {
    use reversi_server::store::{Store, StoreError, SCHEMA_VERSION};

    /// A fresh SQLite file and a fresh PostgreSQL database: each test of
    /// the store runs on both.
    fn databases() -> [String; 2] {
        let path = std::env::temp_dir().join(format!(
            "reversi-store-{}-{}.db",
            std::process::id(),
            fastrand::u64(..)
        ));
        let _ = std::fs::remove_file(&path);
        [path.display().to_string(), crate::pg::fresh_db()]
    }

    /// Removes a SQLite database with its write-ahead log and its index
    /// to that log (a PostgreSQL one goes with the test cluster).
    fn forget(db: &str) {
        if !db.starts_with("postgres") {
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{db}{suffix}"));
            }
        }
    }

    #[test]
    fn migrates_once_and_plays_moves_in_order() {
        for db in databases() {
            migrates_once_and_plays_moves_in_order_on(&db);
            forget(&db);
        }
    }

    #[test]
    fn a_contest_game_is_made_once_with_its_opening() {
        for db in databases() {
            a_contest_game_is_made_once_with_its_opening_on(&db);
            forget(&db);
        }
    }

    fn migrates_once_and_plays_moves_in_order_on(path: &str) {
        let store = Store::open(path).unwrap();
        assert_eq!(store.version().unwrap(), SCHEMA_VERSION);
        store.add_team("a", "h1", 0).unwrap();
        store.add_team("b", "h2", 0).unwrap();
        assert_eq!(store.add_team("a", "h3", 0), Err(StoreError::Exists));
        let id = store.create_game("a", "b", 1000, 0, 5).unwrap();
        store.play(id, 0, Some("d3"), None, 10).unwrap();
        // The same ply again, or a ply ahead: stale, nothing stored.
        assert_eq!(
            store.play(id, 0, Some("c5"), None, 11),
            Err(StoreError::Stale)
        );
        assert_eq!(
            store.play(id, 2, Some("c5"), None, 11),
            Err(StoreError::Stale)
        );
        store.play(id, 1, None, Some("done"), 12).unwrap();
        assert_eq!(
            store.play(id, 2, Some("c5"), None, 13),
            Err(StoreError::Stale)
        );
        drop(store);
        // Reopened: the same game, no migration run twice.
        let store = Store::open(path).unwrap();
        assert_eq!(store.version().unwrap(), SCHEMA_VERSION);
        let game = store.game(id).unwrap().unwrap();
        assert_eq!(game.moves, vec![Some("d3".to_string()), None]);
        assert_eq!(game.ending.as_deref(), Some("done"));
        assert_eq!(game.turn_since_ms, 12);

        // With 5 s to set up, made at 100: black's clock waits until it
        // shows up (200); white's, offered at 300, until 5,100, unless it
        // shows up sooner (400).
        let id = store.create_game("a", "b", 1000, 5000, 100).unwrap();
        let game = store.game(id).unwrap().unwrap();
        assert_eq!(game.turn_since_ms, 5100);
        assert_eq!(game.setup_until_ms, [Some(5100), Some(5100)]);
        store.show_up(id, 0, 200).unwrap();
        let game = store.game(id).unwrap().unwrap();
        assert_eq!(game.turn_since_ms, 200);
        assert_eq!(game.setup_until_ms, [None, Some(5100)]);
        store.play(id, 0, Some("d3"), None, 300).unwrap();
        assert_eq!(store.game(id).unwrap().unwrap().turn_since_ms, 5100);
        store.show_up(id, 1, 400).unwrap();
        assert_eq!(store.game(id).unwrap().unwrap().turn_since_ms, 400);
        // Black, shown up, is offered its turn now.
        store.play(id, 1, Some("c3"), None, 500).unwrap();
        assert_eq!(store.game(id).unwrap().unwrap().turn_since_ms, 500);
    }

    fn a_contest_game_is_made_once_with_its_opening_on(path: &str) {
        let store = Store::open(path).unwrap();
        store.add_team("a", "h1", 0).unwrap();
        store.add_hosted("b", "/bin/false", 0).unwrap();
        assert_eq!(store.command_of("a").unwrap(), None);
        assert_eq!(
            store.command_of("b").unwrap().as_deref(),
            Some("/bin/false")
        );
        let contest = reversi_server::store::ContestRow {
            id: 0,
            name: "c".into(),
            format: "knockout".into(),
            games: 0,
            per_pair: 2,
            move_time_ms: 500,
            seed: 1,
            openings: String::new(),
            state: "running".into(),
            standings: None,
            bracket: None,
            start_at_ms: None,
            setup_ms: 0,
        };
        let c = store
            .create_contest(&contest, &["a".into(), "b".into()], "me", 0, 0)
            .unwrap();
        // Made waiting: no game until it starts.
        assert_eq!(store.contest(c).unwrap().unwrap().state, "waiting");
        assert_eq!(
            store.make_contest_game(c, 0, "a", "b", 500, 0, &[], 1),
            Ok(None)
        );
        assert!(!store.set_contest_state(c, "running", "paused").unwrap());
        assert!(store.set_contest_state(c, "waiting", "running").unwrap());
        let opening = [Some("f5".to_string()), Some("d6".to_string())];
        let g = store
            .make_contest_game(c, 0, "a", "b", 500, 0, &opening, 1)
            .unwrap()
            .unwrap();
        // Asked again (a contest run again after a restart): the same game.
        assert_eq!(
            store
                .make_contest_game(c, 0, "b", "a", 500, 0, &[], 2)
                .unwrap(),
            Some(g)
        );
        // Paused: a game made before is found, a new one is not made.
        assert!(store.set_contest_state(c, "running", "paused").unwrap());
        assert_eq!(
            store.make_contest_game(c, 0, "a", "b", 500, 0, &[], 2),
            Ok(Some(g))
        );
        assert_eq!(
            store.make_contest_game(c, 1, "a", "b", 500, 0, &[], 2),
            Ok(None)
        );
        assert_eq!(store.contest_game(c, 1), Ok(None));
        assert!(store.set_contest_state(c, "paused", "running").unwrap());
        let row = store.game(g).unwrap().unwrap();
        assert_eq!((row.black.as_str(), row.opening_plies), ("a", 2));
        assert_eq!(row.moves, opening.to_vec());
        assert_eq!(row.contest, Some((c, 0)));
        assert_eq!(store.next_game_of(c, "b").unwrap(), Some(g));
        store.end(g, 2, "black", "black forfeits").unwrap();
        assert_eq!(store.next_game_of(c, "b").unwrap(), None);
        assert_eq!(
            store.game(g).unwrap().unwrap().forfeit.as_deref(),
            Some("black")
        );
        assert_eq!(store.add_entrant(c, "a"), Err(StoreError::Exists));
        // Only the latest games are listed, in order, with the count of all.
        let more: Vec<i64> = (1..3)
            .map(|seq| {
                store
                    .make_contest_game(c, seq, "a", "b", 500, 0, &[], 3)
                    .unwrap()
                    .unwrap()
            })
            .collect();
        let (latest, count) = store.contest_games(c, 2).unwrap();
        assert_eq!(count, 3);
        assert_eq!(latest.iter().map(|g| g.id).collect::<Vec<_>>(), more);
    }
}

mod contest {
    use reversi_core::board::Color;
    use reversi_server::contest::{opening_moves, outcome_of};
    use reversi_server::store::GameRow;

    fn row(moves: &[&str], opening_plies: usize, forfeit: Option<&str>) -> GameRow {
        GameRow {
            ending: Some("how it ended".into()),
            forfeit: forfeit.map(str::to_string),
            contest: Some((1, 0)),
            opening_plies,
            ..super::game_row(moves)
        }
    }

    #[test]
    fn no_entrant_plays_two_games_of_one_wave() {
        use reversi::arena::{GameSpec, Opening};
        use reversi_server::contest::waves;
        let game = |black, white| GameSpec {
            black,
            white,
            opening: Opening::standard(),
        };
        // A knockout's round: one wave.
        assert_eq!(waves(&[game(0, 1), game(2, 3)]), [vec![0, 1]]);
        // A ladder's round of three, two games a pair: the middle player
        // (1) plays its four games one after another, in their order.
        let ladder = [game(0, 1), game(1, 0), game(1, 2), game(2, 1)];
        assert_eq!(waves(&ladder), [[0], [1], [2], [3]]);
        // A game waits only for the waves its own players are in.
        let mixed = [game(0, 1), game(2, 3), game(0, 2), game(4, 5)];
        assert_eq!(waves(&mixed), [vec![0, 1, 3], vec![2]]);
    }

    #[test]
    fn openings_become_stored_moves() {
        let moves = opening_moves("f5d6c4d3c2b3b4b5").expect("an XOT line");
        assert_eq!(moves.len(), 8);
        assert_eq!(moves[0].as_deref(), Some("f5"));
        assert_eq!(opening_moves("").unwrap(), Vec::<Option<String>>::new());
        assert!(opening_moves("f5f5").is_none());
        assert!(opening_moves("zz").is_none());
    }

    #[test]
    fn outcomes_count_the_players_moves_not_the_openings() {
        // Two opening plies, then white forfeits before its first move.
        let o = outcome_of(&row(&["f5", "d6", "c3"], 2, Some("white")));
        assert_eq!(o.forfeit.as_ref().map(|f| f.0), Some(Color::White));
        assert_eq!(o.legal_replies, [1, 0]);
        assert!(o.before_first_move);
        // Black forfeits after a move of its own: no restart.
        let o = outcome_of(&row(&["f5", "d6", "c3", "d3"], 2, Some("black")));
        assert!(!o.before_first_move);
        assert_eq!(o.winner(), Some(Color::White));
        // The shortest game: black wins 13-0 on the board.
        let o = outcome_of(&row(
            &["e6", "f4", "e3", "f6", "g5", "d6", "e7", "f5", "c5"],
            0,
            None,
        ));
        assert_eq!((o.black_discs, o.white_discs), (13, 0));
        assert_eq!(o.legal_replies, [5, 4]);
        let o = outcome_of(&row(&[], 0, Some("both")));
        assert!(o.double_forfeit.is_some() && o.winner().is_none());
    }
}

mod game {
    use reversi_core::board::Color;
    use reversi_server::game::{judge, Position, Verdict};
    use reversi_server::store::GameRow;

    use super::game_row as row;

    #[test]
    fn only_the_side_to_move_may_send_a_move_and_not_over_its_program() {
        use reversi_server::game::{may_move, NotItsMove};
        let game = row(&["d3"]);
        assert_eq!(may_move(&game, "b"), Ok(()));
        assert_eq!(may_move(&game, "a"), Err(NotItsMove::NotItsTurn));
        assert_eq!(may_move(&game, "c"), Err(NotItsMove::NotAPlayer));
        // A pass is a move: black is to move again after white's.
        assert_eq!(may_move(&row(&["d3", "pass"]), "a"), Ok(()));
        let over = GameRow {
            ending: Some("black 40-24".into()),
            ..row(&["d3"])
        };
        assert_eq!(may_move(&over, "b"), Err(NotItsMove::NotItsTurn));
        let hosted = GameRow {
            programs: [None, Some(3)],
            ..row(&["d3"])
        };
        assert_eq!(may_move(&hosted, "b"), Err(NotItsMove::ItsProgramPlays));
    }

    #[test]
    fn moves_are_judged_as_the_referee_judges_them() {
        let p = Position::of(&row(&["d3", "c5"])).unwrap();
        assert_eq!(p.to_move, Color::Black);
        assert!(
            matches!(judge(&p, "F6", 10, 1000, true), Verdict::Play { square: Some(s), ending: None } if s == "f6")
        );
        assert!(
            matches!(judge(&p, "a1", 10, 1000, true), Verdict::Forfeit(w) if w.contains("a1 is not legal"))
        );
        assert!(
            matches!(judge(&p, "pass", 10, 1000, true), Verdict::Forfeit(w) if w.contains("a pass with a move"))
        );
        assert!(
            matches!(judge(&p, "hello", 10, 1000, true), Verdict::Forfeit(w) if w.contains("'hello' is not a move"))
        );
        assert!(
            matches!(judge(&p, "f6", 1001, 1000, true), Verdict::Forfeit(w) if w.contains("no move within 1000 ms"))
        );
        // A hosted program's words are not published.
        assert!(
            matches!(judge(&p, "TOKEN=x", 10, 1000, false), Verdict::Forfeit(w) if !w.contains("TOKEN") && w.contains("not a move"))
        );
        assert!(Position::of(&row(&["a1"])).is_err());
    }
}

mod secret {
    use reversi_server::auth::secret::{hash, matches};

    #[test]
    fn a_hash_checks_its_secret_and_no_other() {
        let stored = hash("s3cret").unwrap();
        assert!(!stored.contains("s3cret"));
        assert!(matches("s3cret", &stored));
        assert!(!matches("s3cre", &stored));
        assert!(!matches("s3cret", "not a hash"));
        assert_ne!(hash("s3cret").unwrap(), stored, "a salt each");
    }
}

mod rate {
    use reversi_server::http::rate::{Limiter, BURST};
    use std::net::IpAddr;
    use std::time::{Duration, Instant};

    #[test]
    fn a_bucket_empties_and_refills() {
        let limiter = Limiter::default();
        let client: IpAddr = "127.0.0.1".parse().unwrap();
        let other: IpAddr = "127.0.0.2".parse().unwrap();
        let now = Instant::now();
        let taken = (0..1000).filter(|_| limiter.take(client, now)).count();
        assert_eq!(taken, BURST as usize);
        assert!(limiter.take(other, now), "another client is served");
        assert!(
            limiter.take(client, now + Duration::from_millis(20)),
            "refilled"
        );
    }
}

mod auth {
    use reversi_server::auth::{Failures, FairQueue, Full, Limits, WINDOW};
    use std::net::IpAddr;
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    fn ip(last: u8) -> IpAddr {
        IpAddr::from([127, 0, 0, last])
    }

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn failures_refuse_the_client_then_lapse() {
        let failures = Failures::new(Limits {
            failures_per_client: 3,
            failures_per_team: 5,
        });
        let now = Instant::now();
        for _ in 0..3 {
            assert_eq!(failures.refused(ip(9), "victim", now), None);
            failures.record(ip(9), "victim", now);
        }
        assert!(failures.refused(ip(9), "victim", now).is_some());
        // Another client, with no failures of its own, is still checked.
        assert_eq!(failures.refused(ip(8), "victim", now), None);
        assert_eq!(failures.refused(ip(9), "victim", now + WINDOW), None);
    }

    #[test]
    fn a_flooded_team_is_checked_only_for_clients_that_never_failed() {
        let failures = Failures::new(Limits {
            failures_per_client: 100,
            failures_per_team: 4,
        });
        let now = Instant::now();
        for client in 1..=4 {
            failures.record(ip(client), "victim", now);
        }
        assert!(failures.refused(ip(1), "victim", now).is_some());
        assert!(failures.refused(ip(1), "other", now).is_none());
        assert_eq!(failures.refused(ip(7), "victim", now), None);
    }

    #[test]
    fn clients_take_turns_and_the_queue_is_bounded() {
        runtime().block_on(async {
            let queue = Arc::new(FairQueue::new(1, 3, 7));
            let order = Arc::new(Mutex::new(Vec::new()));
            // The one thread is held until every job is queued.
            let (release, held) = std::sync::mpsc::channel::<()>();
            let blocker = {
                let queue = Arc::clone(&queue);
                tokio::spawn(async move {
                    queue
                        .run(ip(100), move || {
                            let _ = held.recv();
                        })
                        .await
                })
            };
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let mut jobs = Vec::new();
            for (client, n) in [(1u8, 3u8), (2, 1), (3, 2)] {
                for i in 0..n {
                    let (queue, order) = (Arc::clone(&queue), Arc::clone(&order));
                    jobs.push(tokio::spawn(async move {
                        queue
                            .run(ip(client), move || order.lock().unwrap().push((client, i)))
                            .await
                    }));
                    tokio::task::yield_now().await;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            // Client 1 has 3 waiting (its most); the queue holds 6 of 7.
            assert_eq!(queue.run(ip(1), || ()).await, Err(Full::Client));
            let extra = {
                let queue = Arc::clone(&queue);
                tokio::spawn(async move { queue.run(ip(4), || ()).await })
            };
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            assert_eq!(queue.run(ip(5), || ()).await, Err(Full::All));
            release.send(()).unwrap();
            blocker.await.unwrap().unwrap();
            for job in jobs {
                job.await.unwrap().unwrap();
            }
            extra.await.unwrap().unwrap();
            assert_eq!(
                *order.lock().unwrap(),
                vec![(1, 0), (2, 0), (3, 0), (1, 1), (3, 1), (1, 2)]
            );
        });
    }

    #[test]
    fn a_check_whose_requester_left_is_not_run() {
        runtime().block_on(async {
            let queue = Arc::new(FairQueue::new(1, 4, 16));
            let (release, held) = std::sync::mpsc::channel::<()>();
            let blocker = {
                let queue = Arc::clone(&queue);
                tokio::spawn(async move {
                    queue
                        .run(ip(1), move || {
                            let _ = held.recv();
                        })
                        .await
                })
            };
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let ran = Arc::new(Mutex::new(false));
            let left = {
                let (queue, ran) = (Arc::clone(&queue), Arc::clone(&ran));
                tokio::spawn(
                    async move { queue.run(ip(2), move || *ran.lock().unwrap() = true).await },
                )
            };
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            left.abort();
            let _ = left.await;
            release.send(()).unwrap();
            blocker.await.unwrap().unwrap();
            // A later job runs, so the abandoned one was taken and dropped.
            assert_eq!(queue.run(ip(3), || 7).await, Ok(Some(7)));
            assert!(!*ran.lock().unwrap());
        });
    }
}

mod cores {
    use reversi_server::hosted::cores::Cores;

    #[test]
    fn a_game_holds_one_slot_for_both_its_seats_and_no_game_gets_more_than_the_slots() {
        let cores = Cores::new(2);
        let a = cores.try_seat(1).expect("a free slot");
        assert_eq!(
            cores.try_seat(1),
            Some(a),
            "its second seat shares its core"
        );
        let b = cores.try_seat(2).expect("the second slot");
        assert!(cores.try_seat(3).is_none(), "both slots taken");
        assert!(!cores.free());
        // One seat of game 1 leaves: the game still holds its slot.
        cores.leave(1);
        assert!(cores.try_seat(3).is_none());
        cores.leave(1);
        assert!(cores.free());
        let c = cores.try_seat(3).expect("game 1's slot");
        // On a machine of several cores the games are on different ones,
        // none of them the server's.
        if std::thread::available_parallelism().map_or(1, |n| n.get()) > 2 {
            assert_ne!(b, c);
            assert_ne!(c, cores.server());
        }
        let _ = a;
    }
}

mod ready {
    use reversi_server::http::ready::{address, wait};
    use std::time::{Duration, Instant};

    #[test]
    fn addresses_of_urls() {
        assert_eq!(address("http://127.0.0.1:8080").unwrap(), "127.0.0.1:8080");
        assert_eq!(address("http://localhost/x").unwrap(), "localhost:80");
        assert!(address("https://a:1").is_err());
        assert!(address("http://").is_err());
    }

    #[test]
    fn nothing_listening_is_an_error_in_time() {
        // A port just let go: nothing listens there.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let since = Instant::now();
        let err = wait(
            &format!("http://127.0.0.1:{port}"),
            Duration::from_millis(300),
        );
        assert!(err.unwrap_err().contains("no server answered"));
        assert!(since.elapsed() < Duration::from_secs(5));
    }
}

/// The GGS service's lines, as the clients that read them parse them.
mod ggs_text {
    use reversi_server::ggs::text::{clock, join_board, join_ggf, update_board, update_ggf};
    use reversi_server::store::GameRow;

    fn row(moves: &[&str]) -> GameRow {
        GameRow {
            id: 7,
            black: "edax".into(),
            white: "ours".into(),
            ..super::game_row(moves)
        }
    }

    #[test]
    fn clocks_are_written_as_ggs_does() {
        assert_eq!(clock(1000), "0:01");
        assert_eq!(clock(90_000), "1:30");
        assert_eq!(clock(850), "0:00.850");
    }

    /// The lines where Edax's parser (`ggs_board` in its `src/ggs.c`)
    /// looks: the move list's count on line 1, the board's rows with their
    /// squares at columns 4, 6, ..., the side to move at column 1 of the
    /// row three after the last board row, at least 17 lines.
    #[test]
    fn the_board_form_puts_each_thing_where_edax_reads_it() {
        let start = join_board(&row(&[]));
        let lines: Vec<&str> = start.lines().collect();
        assert!(lines.len() >= 17, "{start}");
        assert_eq!(lines[0], "/os: join .7 8 K?");
        assert_eq!(lines[1], "|0 move(s)");
        // ii = 2: the players on 3 and 4, the rows on 7..=14, the side
        // to move on 17.
        assert!(lines[3].starts_with("|edax (1500.0) * 0:01"), "{start}");
        assert!(lines[4].starts_with("|ours (1500.0) O 0:01"), "{start}");
        let row4: Vec<char> = lines[10].chars().collect();
        assert_eq!((row4[4 + 3 * 2], row4[4 + 4 * 2]), ('O', '*'), "{start}");
        assert_eq!(lines[17].chars().nth(1), Some('*'), "{start}");

        let two = join_board(&row(&["d3", "c5"]));
        let lines: Vec<&str> = two.lines().collect();
        assert_eq!(lines[1], "|2 move(s)");
        // The start's rows on 6..=13, its side on 16, the moves from 17
        // with the square at column 6.
        assert_eq!(lines[16].chars().nth(1), Some('*'));
        assert_eq!(&lines[17][6..8], "D3");
        assert_eq!(&lines[18][6..8], "C5");
        // The game as it stands, from the last move's line (18): players
        // 19 and 20, rows 23..=30, the side to move on 33.
        assert!(lines[19].starts_with("|edax"), "{two}");
        assert_eq!(lines[33].chars().nth(1), Some('*'), "{two}");
        assert!(lines.len() >= 2 + 30, "{two}");

        let update = update_board(&row(&["d3"]));
        let lines: Vec<&str> = update.lines().collect();
        assert_eq!(lines.len(), 17, "{update}");
        assert_eq!(lines[1], "|  1: D3");
        assert_eq!(lines[16], "|O to move");
        let row3: Vec<char> = lines[8].chars().collect();
        assert_eq!(row3[4 + 3 * 2], '*', "d3 is black's: {update}");
    }

    #[test]
    fn the_ggf_form_is_one_line_a_ggf_reader_takes() {
        let join = join_ggf(&row(&["d3", "pass"]));
        assert!(!join.contains('\n'));
        let record = join.strip_prefix("/os: join .7 ").unwrap();
        let game = reversi::records::ggf::parse(record).unwrap().remove(0);
        assert_eq!(game.tag("PB"), Some("edax"));
        assert_eq!(game.tag("TI"), Some("0:01"));
        assert_eq!(game.moves.len(), 2);
        assert_eq!(update_ggf(&row(&["d3", "pass"])), "/os: update .7 PA");
    }
}
