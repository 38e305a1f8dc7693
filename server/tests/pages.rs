//! The pages for people, as a browser without scripts uses them: a
//! visitor that keeps its cookies, reads each form's CSRF token from the
//! page and posts forms. A team signs up, logs in, submits and logs out;
//! the organiser logs in with the token and runs a contest from its page;
//! a form without its token, another team's logs and the organiser's page
//! are refused.

use crate::contests::{hosted, start};
use crate::remote::{scratch, Server, TOKEN};
use std::collections::BTreeMap;
use std::time::Duration;

/// A browser with its cookies, scripts off.
pub struct Visitor<'a> {
    server: &'a Server,
    agent: ureq::Agent,
    cookies: BTreeMap<String, String>,
}

/// A page as it came: its status, where it sends the visitor on (a 303),
/// and its HTML.
pub struct Page {
    pub status: u16,
    pub location: Option<String>,
    pub html: String,
}

impl Page {
    /// The CSRF token its forms carry.
    pub fn csrf(&self) -> String {
        let at = self
            .html
            .find("name=\"csrf\" value=\"")
            .unwrap_or_else(|| panic!("no CSRF token in {}", self.html));
        let rest = &self.html[at + "name=\"csrf\" value=\"".len()..];
        rest[..rest.find('"').unwrap()].to_string()
    }
}

impl<'a> Visitor<'a> {
    pub fn new(server: &'a Server) -> Visitor<'a> {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .timeout_global(Some(Duration::from_secs(30)))
            .build()
            .into();
        Visitor {
            server,
            agent,
            cookies: BTreeMap::new(),
        }
    }

    fn cookie_header(&self) -> String {
        self.cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn keep(&mut self, response: &mut ureq::http::Response<ureq::Body>) -> Page {
        for set in response.headers().get_all("set-cookie") {
            let set = set.to_str().unwrap();
            let pair = set.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            assert!(
                set.contains("HttpOnly") && set.contains("SameSite=Strict"),
                "{set}"
            );
            if value.is_empty() {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_string(), value.to_string());
            }
        }
        Page {
            status: response.status().as_u16(),
            location: response
                .headers()
                .get("location")
                .map(|v| v.to_str().unwrap().to_string()),
            html: response.body_mut().read_to_string().unwrap(),
        }
    }

    pub fn get(&mut self, path: &str) -> Page {
        let mut response = self
            .agent
            .get(format!("{}{path}", self.server.url))
            .header("cookie", &self.cookie_header())
            .call()
            .unwrap();
        self.keep(&mut response)
    }

    pub fn post(&mut self, path: &str, fields: &[(&str, &str)]) -> Page {
        let mut response = self
            .agent
            .post(format!("{}{path}", self.server.url))
            .header("cookie", &self.cookie_header())
            .send_form(fields.iter().copied())
            .unwrap();
        self.keep(&mut response)
    }

    /// Posts the form at `path` with the CSRF token of the page at `from`.
    pub fn submit(&mut self, from: &str, path: &str, fields: &[(&str, &str)]) -> Page {
        let csrf = self.get(from).csrf();
        let mut all = vec![("csrf", csrf.as_str())];
        all.extend_from_slice(fields);
        self.post(path, &all)
    }

    pub fn has_session(&self) -> bool {
        self.cookies.contains_key("arena_session")
    }
}

#[test]
fn teams_and_the_organiser_use_the_pages_with_their_sessions() {
    let dir = scratch("pages");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    hosted(&s, "house", &crate::contests::bot(1));

    // Signed up, a team is logged in and on its page.
    let mut alpha = Visitor::new(&s);
    assert_eq!(alpha.get("/team").location.as_deref(), Some("/login"));
    let page = alpha.submit(
        "/login",
        "/signup",
        &[("team", "alpha"), ("secret", "alpha-secret")],
    );
    assert_eq!(page.status, 303, "{}", page.html);
    assert_eq!(page.location.as_deref(), Some("/team"));
    assert!(alpha.has_session());
    let page = alpha.get("/team");
    assert_eq!(page.status, 200);
    assert!(page.html.contains("<h1>Team alpha</h1>"), "{}", page.html);

    // A form without its token, or with another's, is refused and does
    // nothing.
    let page = alpha.post("/team", &[("language", "python3"), ("source", "print(1)")]);
    assert_eq!(page.status, 403, "{}", page.html);
    let page = alpha.post(
        "/team",
        &[
            ("csrf", &"0".repeat(64)),
            ("language", "python3"),
            ("source", "print(1)"),
        ],
    );
    assert_eq!(page.status, 403, "{}", page.html);
    assert!(page.html.contains("No programs yet"), "{}", page.html);

    // A wrong secret: the login page again, with why.
    let mut intruder = Visitor::new(&s);
    let page = intruder.submit(
        "/login",
        "/login",
        &[("team", "alpha"), ("secret", "wrong-secret")],
    );
    assert_eq!(page.status, 401, "{}", page.html);
    assert!(page.html.contains("Refused"), "{}", page.html);
    assert!(!intruder.has_session());

    // The organiser's page is not a team's.
    assert_eq!(alpha.get("/admin").status, 403);

    // The organiser logs in with the token, makes a contest, starts it.
    let mut organiser = Visitor::new(&s);
    let page = organiser.submit("/login", "/admin/login", &[("token", "not-the-token")]);
    assert_eq!(page.status, 401, "{}", page.html);
    let page = organiser.submit("/login", "/admin/login", &[("token", TOKEN)]);
    assert_eq!(page.location.as_deref(), Some("/admin"), "{}", page.html);
    let page = organiser.submit(
        "/admin",
        "/admin/contests",
        &[
            ("name", "Page <cup>"),
            ("format", "ladder"),
            ("entrants", "alpha, house"),
            ("move_time_ms", "1000"),
            ("games", "1"),
            ("per_pair", "2"),
        ],
    );
    assert_eq!(page.status, 200, "{}", page.html);
    assert!(page.html.contains("Contest 1 made"), "{}", page.html);
    assert!(page.html.contains("Page &lt;cup&gt;"), "{}", page.html);
    assert!(
        page.html.contains("action=\"/admin/contests/1/start\""),
        "{}",
        page.html
    );
    let page = organiser.submit("/admin", "/admin/contests/1/pause", &[]);
    assert_eq!(page.status, 409, "not running yet: {}", page.html);
    let page = organiser.submit("/admin", "/admin/contests/1/start", &[]);
    assert_eq!(page.status, 200, "{}", page.html);
    assert!(page.html.contains("Contest 1 is running."), "{}", page.html);

    // alpha plays its games through its bot; its page lists them.
    let bridge = crate::contests::connect_contest(&s, "alpha", 1, "self --depth 1");
    crate::contests::wait_for(&s, 1, 60, |c| c["state"] == serde_json::json!("finished"));
    crate::remote::wait_ok(bridge);
    let page = alpha.get("/team");
    assert!(
        page.html.contains("<a href=\"/games/1\">1</a>"),
        "{}",
        page.html
    );

    // Each finished game is analysed in the background: its page names
    // the losing mistakes, with the best move and its cost, and draws the
    // graph of the moves' worth.
    let since = std::time::Instant::now();
    let analysed = loop {
        let page = alpha.get("/games/1");
        if !page.html.contains("still to come") {
            break page.html;
        }
        assert!(since.elapsed() < Duration::from_secs(60), "no analysis");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        analysed.contains("Where the game was decided"),
        "{analysed}"
    );
    assert!(
        analysed.contains("best was <b>"),
        "no losing mistake named: {analysed}"
    );
    assert!(analysed.contains("Evaluation (black's view"), "{analysed}");

    // A hosted side's stderr is its team's and the organiser's only.
    let log = "/games/1/log/white";
    let house_side = if crate::remote::game(&s, 1)["black"] == "house" {
        "/games/1/log/black"
    } else {
        log
    };
    assert_eq!(alpha.get(house_side).status, 403);
    assert_eq!(organiser.get(house_side).status, 200);
    assert_eq!(intruder.get(house_side).location.as_deref(), Some("/login"));

    // Logged out, the session is gone: its cookie replayed opens nothing.
    let cookie = alpha.cookies.get("arena_session").cloned().unwrap();
    let page = alpha.submit("/team", "/logout", &[]);
    assert_eq!(page.location.as_deref(), Some("/"));
    assert!(!alpha.has_session());
    alpha.cookies.insert("arena_session".into(), cookie);
    assert_eq!(alpha.get("/team").location.as_deref(), Some("/login"));

    // The session's token is not stored as it is.
    let token = organiser.cookies.get("arena_session").unwrap().clone();
    for file in ["arena.db", "arena.db-wal"] {
        let bytes = std::fs::read(dir.join(file)).unwrap_or_default();
        assert!(
            !bytes.windows(token.len()).any(|w| w == token.as_bytes()),
            "a session token in {file}"
        );
    }
}

/// Headless Chromium driven through ChromeDriver (the W3C WebDriver
/// protocol, spoken here over plain HTTP): a browser with scripts on.
pub struct Browser {
    driver: std::process::Child,
    url: String,
    session: String,
    _profile: crate::remote::Scratch,
}

impl Browser {
    pub fn start(name: &str) -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let driver = std::process::Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("chromedriver runs (`make test` installs chromium-driver)");
        let url = format!("http://127.0.0.1:{port}");
        let since = std::time::Instant::now();
        let ready = || {
            crate::remote::agent()
                .get(format!("{url}/status"))
                .call()
                .is_ok_and(|r| r.status() == 200)
        };
        while !ready() {
            assert!(
                since.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        let profile = scratch(&format!("browser-{name}"));
        let capabilities = serde_json::json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": crate::remote::chromium_path(),
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                         "--no-first-run", "--disable-background-networking",
                         "--disable-component-update", "--disable-sync",
                         format!("--user-data-dir={}", profile.display())],
            },
        }}});
        let (status, reply) = crate::remote::call(
            &format!("{url}/session"),
            "POST",
            &[],
            Some(&capabilities.to_string()),
        );
        assert_eq!(status, 200, "{reply}");
        let session = reply["value"]["sessionId"].as_str().unwrap().to_string();
        Browser {
            driver,
            url,
            session,
            _profile: profile,
        }
    }

    fn command(&self, method: &str, path: &str, body: &serde_json::Value) -> serde_json::Value {
        let (status, reply) = crate::remote::call(
            &format!("{}/session/{}{path}", self.url, self.session),
            method,
            &[],
            Some(&body.to_string()),
        );
        assert_eq!(status, 200, "{path}: {reply}");
        reply["value"].clone()
    }

    pub fn open(&self, url: &str) {
        self.command("POST", "/url", &serde_json::json!({ "url": url }));
    }

    /// Runs `script` (a function body) in the page; what it returns.
    pub fn run(&self, script: &str) -> serde_json::Value {
        self.command(
            "POST",
            "/execute/sync",
            &serde_json::json!({ "script": script, "args": [] }),
        )
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = crate::remote::call(
            &format!("{}/session/{}", self.url, self.session),
            "DELETE",
            &[],
            None,
        );
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

#[test]
fn a_live_board_changes_in_the_browser_after_a_move_without_a_reload() {
    let dir = scratch("live");
    let s = start(dir.join("arena.db"), "127.0.0.1:0");
    crate::remote::register(&s, "alpha", "alpha-secret");
    crate::remote::register(&s, "beta", "beta-secret");
    let id = crate::remote::new_game(&s, "alpha", "beta", 600_000);
    let browser = Browser::start("live");
    browser.open(&format!("{}/games/{id}", s.url));
    // A mark that a reload would wipe, once the page's stream is open.
    browser.run("window.mark = 'still here'; return 1;");
    std::thread::sleep(Duration::from_millis(500));
    let alpha = [("x-team", "alpha"), ("x-secret", "alpha-secret")];
    let (status, reply) = crate::remote::call(
        &format!("{}/api/games/{id}/move", s.url),
        "POST",
        &alpha,
        Some("{\"move\":\"d3\"}"),
    );
    assert_eq!(status, 200, "{reply}");
    let stored = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let since = std::time::Instant::now();
    let seen = loop {
        let seen = browser.run(
            "var b = document.getElementById('board');\
             return [window.mark || null, b.getAttribute('data-live'), window.liveAt || 0,\
                     b.querySelectorAll('.disc.black').length, b.querySelectorAll('.cell.legal').length,\
                     document.getElementById('position').textContent];",
        );
        if seen[1] == "1" {
            break seen;
        }
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "the board did not change: {seen}"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(seen[0], "still here", "the page was reloaded: {seen}");
    assert_eq!(seen[3], 4, "black's discs after d3: {seen}");
    assert_eq!(seen[4], 3, "white's replies after d3 (c3, e3, c5): {seen}");
    assert!(
        seen[5].as_str().unwrap().contains("white to move"),
        "{seen}"
    );
    // How long after the move was stored the board showed it (the
    // browser and the test share the machine's clock).
    let shown = seen[2].as_i64().unwrap();
    eprintln!(
        "live update: {} ms after the move was answered",
        shown - stored
    );
}
