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
        analysed.contains("</b> kept a"),
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
    /// Held while the browser runs (see [`crate::remote::cores`]).
    _cores: std::sync::MutexGuard<'static, ()>,
}

impl Browser {
    pub fn start(name: &str) -> Browser {
        let cores = crate::remote::cores();
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
            _cores: cores,
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

    /// The first element `css` selects, waiting up to 10 s for it.
    fn element(&self, css: &str) -> String {
        let since = std::time::Instant::now();
        loop {
            let (status, reply) = crate::remote::call(
                &format!("{}/session/{}/element", self.url, self.session),
                "POST",
                &[],
                Some(&serde_json::json!({ "using": "css selector", "value": css }).to_string()),
            );
            if status == 200 {
                let found = &reply["value"];
                return found
                    .as_object()
                    .and_then(|o| o.values().next())
                    .and_then(|v| v.as_str())
                    .unwrap_or_else(|| panic!("{css}: {reply}"))
                    .to_string();
            }
            assert!(
                since.elapsed() < Duration::from_secs(10),
                "no {css} on {}: {reply}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Types `keys` into the element `css` selects, as a keyboard would
    /// (`\u{E004}` is Tab, `\u{E007}` Enter).
    pub fn type_in(&self, css: &str, keys: &str) {
        let id = self.element(css);
        self.command(
            "POST",
            &format!("/element/{id}/value"),
            &serde_json::json!({ "text": keys }),
        );
    }

    pub fn click(&self, css: &str) {
        let id = self.element(css);
        self.command(
            "POST",
            &format!("/element/{id}/click"),
            &serde_json::json!({}),
        );
    }

    /// The page's address, from its path on.
    pub fn path(&self) -> String {
        let url = self.run("return location.pathname + location.search;");
        url.as_str().unwrap().to_string()
    }

    /// Waits (up to 10 s) for the browser to be at `path`: a form posted
    /// by a click goes on loading after the click returns.
    pub fn wait_path(&self, path: &str) {
        let since = std::time::Instant::now();
        while self.path() != path {
            assert!(
                since.elapsed() < Duration::from_secs(10),
                "at {}, not {path}",
                self.path()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits (up to 10 s) until `seen` holds of the page's text.
    pub fn wait_text(&self, seen: impl Fn(&str) -> bool) -> String {
        let since = std::time::Instant::now();
        loop {
            let text = self.text();
            if seen(&text) {
                return text;
            }
            assert!(since.elapsed() < Duration::from_secs(10), "{text}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The page's text as a reader sees it.
    pub fn text(&self) -> String {
        let text = self.run("return document.body ? document.body.innerText : '';");
        text.as_str().unwrap_or_default().to_string()
    }

    /// Opens `url` and waits until `ready` holds of its text (reloading
    /// every 200 ms, for up to `secs`).
    pub fn open_until(&self, url: &str, secs: u64, ready: impl Fn(&str) -> bool) -> String {
        let since = std::time::Instant::now();
        loop {
            self.open(url);
            let text = self.text();
            if ready(&text) {
                return text;
            }
            assert!(
                since.elapsed() < Duration::from_secs(secs),
                "{url} never came: {text}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    /// The window's size, in CSS pixels.
    pub fn resize(&self, width: u32, height: u32) {
        self.command(
            "POST",
            "/window/rect",
            &serde_json::json!({ "width": width, "height": height }),
        );
    }

    /// Whether the page fits the window's width without scrolling sideways.
    pub fn fits(&self) -> bool {
        self.run("return document.documentElement.scrollWidth <= window.innerWidth;")
            == serde_json::json!(true)
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

/// Whether the page in `browser` fits a phone's width (asserted with the
/// page's address).
fn assert_fits(browser: &Browser) {
    assert!(
        browser.fits(),
        "{} is wider than a phone's 375 px",
        browser.path()
    );
}

#[test]
fn a_team_and_the_organiser_run_a_contest_in_a_browser_at_a_phones_width() {
    let dir = scratch("flow-arena");
    let db = dir.join("arena.db").display().to_string();
    let Some((s, _)) = crate::judge::start_judge(&dir, &db) else {
        return;
    };
    let greedy = crate::judge::fixture("greedy.py");
    crate::judge::active(&s, "house", "python3", &greedy);
    let browser = Browser::start("flow");
    browser.resize(375, 800);
    const TAB: &str = "\u{E004}";
    const ENTER: &str = "\u{E007}";

    // A team signs up with the keyboard alone: name, Tab, secret, Enter.
    browser.open(&format!("{}/login", s.url));
    let width = browser.run("return window.innerWidth;");
    assert!(
        width.as_i64().unwrap() <= 400,
        "the window is {width} px wide"
    );
    assert_fits(&browser);
    browser.type_in(
        "form[action='/signup'] input[name=team]",
        &format!("alpha{TAB}alpha-secret{ENTER}"),
    );
    browser.wait_path("/team");
    let text = browser.wait_text(|t| t.contains("Team alpha"));
    assert!(text.contains("No programs yet"), "{text}");
    assert_fits(&browser);

    // A form sent without its CSRF token is refused and stores nothing.
    browser.run(
        "var f = document.querySelector(\"form[action='/team']\");\
         f.querySelector('[name=csrf]').remove();\
         document.getElementById('source').value = 'print(1)';\
         f.submit(); return 1;",
    );
    let text = browser.wait_text(|t| t.contains("CSRF token is missing"));
    assert!(text.contains("No programs yet"), "{text}");

    // It uploads its program as a file: the page reads it into the form,
    // the judge makes it active, and the team's page says so.
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/judge/greedy.py")
        .canonicalize()
        .unwrap();
    browser.click("select[name=language] option[value=python3]");
    browser.type_in("#file", &file.display().to_string());
    let since = std::time::Instant::now();
    while browser.run("return document.getElementById('source').value.length;") == 0 {
        assert!(
            since.elapsed() < Duration::from_secs(10),
            "the file was not read"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    browser.click("form[action='/team'] button");
    browser.wait_text(|t| t.contains("submitted"));
    let text = browser.open_until(&format!("{}/team", s.url), 90, |t| {
        t.contains("active") || t.contains("rejected")
    });
    assert!(text.contains("active"), "{text}");

    // Logged out, the team's page is closed to the browser.
    browser.click("form.logout button");
    browser.wait_path("/");
    browser.open(&format!("{}/team", s.url));
    assert_eq!(browser.path(), "/login");

    // The organiser logs in with the token, makes an Elo pool of alpha and
    // house and starts it, all from the page.
    browser.type_in(
        "form[action='/admin/login'] input[name=token]",
        &format!("{TOKEN}{ENTER}"),
    );
    browser.wait_path("/admin");
    browser.wait_text(|t| t.contains("A new contest"));
    assert_fits(&browser);
    browser.type_in("form[action='/admin/contests'] input[name=name]", "Lab 3");
    browser.click("form[action='/admin/contests'] select[name=format] option[value=elo]");
    browser.type_in(
        "form[action='/admin/contests'] textarea[name=entrants]",
        "alpha, house",
    );
    let time = "form[action='/admin/contests'] input[name=move_time_ms]";
    browser.run(&format!(
        "document.querySelector(\"{time}\").value = ''; return 1;"
    ));
    browser.type_in(time, "200");
    browser.type_in("form[action='/admin/contests'] input[name=games]", "2");
    browser.click("form[action='/admin/contests'] button");
    let text = browser.wait_text(|t| t.contains("Contest 1 made"));
    assert!(text.contains("Lab 3") && text.contains("waiting"), "{text}");
    browser.click("form[action='/admin/contests/1/start'] button");
    browser.wait_text(|t| t.contains("Contest 1 is running"));
    crate::contests::wait_for(&s, 1, 90, |c| c["state"] == serde_json::json!("finished"));

    // The finished games are analysed; each page names the losing
    // mistakes, and the organiser reads both sides' stderr.
    let text = browser.open_until(&format!("{}/games/1", s.url), 60, |t| {
        !t.contains("still to come")
    });
    assert!(text.contains("Where the game was decided"), "{text}");
    assert_fits(&browser);
    browser.open(&format!("{}/contests/1", s.url));
    assert_fits(&browser);
    let house_side = if crate::remote::game(&s, 1)["black"] == "house" {
        "black"
    } else {
        "white"
    };
    browser.open(&format!("{}/games/1/log/{house_side}", s.url));
    let text = browser.text();
    assert!(text.contains("house's program"), "{text}");
    browser.open(&format!("{}/admin", s.url));
    browser.click("form.logout button");
    browser.wait_path("/");

    // alpha, back, sees its rating as it went, and not house's stderr.
    browser.open(&format!("{}/login", s.url));
    browser.type_in(
        "form[action='/login'] input[name=team]",
        &format!("alpha{TAB}alpha-secret{ENTER}"),
    );
    browser.wait_path("/team");
    let text = browser.wait_text(|t| t.contains("Your rating"));
    assert!(text.contains("Lab 3"), "{text}");
    let points = browser.run(
        "var p = document.querySelector('svg.ratings polyline');\
         return p ? p.getAttribute('points').split(' ').length : 0;",
    );
    assert!(points.as_i64().unwrap() >= 2, "no rating plot: {text}");
    assert_fits(&browser);
    browser.open(&format!("{}/games/1/log/{house_side}", s.url));
    let text = browser.text();
    assert!(
        text.contains("a game's log is its team's and the organiser's"),
        "alpha read house's stderr: {text}"
    );
}
