//! `match --sandbox`: programs that try to get out, take too much or
//! leave something behind. Each hostile program, white, does its deed
//! at its first turn, then answers `ESCAPED` (not a move: a forfeit
//! that names it) if the deed worked, or exits with status 7 if the
//! sandbox stopped it; and nothing of it may be left running.

use crate::util::{bin, scratch, text};
use std::process::Command;

/// Whether this machine can run the sandbox with its cgroups (bubblewrap
/// installed, cgroups writable: root); says why not.
fn sandbox_here() -> Result<(), String> {
    let probe = Command::new(bin())
        .args([
            "match",
            "--sandbox",
            "self --depth 1",
            "self --depth 1",
            "--games",
            "1",
        ])
        .output()
        .map_err(|e| e.to_string())?;
    if probe.status.success() {
        Ok(())
    } else {
        Err(text(&probe.stderr))
    }
}

#[test]
fn hostile_programs_are_contained_and_leave_nothing_running() {
    if let Err(why) = sandbox_here() {
        println!("skipped: no sandbox here: {why}");
        return;
    }
    let dir = scratch("sandbox");
    let secret = dir.write("secret.txt", "the organiser's token");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    // The host's files a program may see are read-only to it (its own
    // /tmp, and the folders bubblewrap makes, are its own and go with it).
    let own = dir.join("write.sh");
    let cases = [
        ("read", format!("cat {} >/dev/null 2>&1", secret.display())),
        (
            "write",
            format!("{{ echo x >> {} || touch /usr/written; }} 2>/dev/null", own.display()),
        ),
        (
            "network",
            format!("python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=1)\" 2>/dev/null"),
        ),
        ("memory", "python3 -c 'b = bytearray(512 << 20)' 2>/dev/null".to_string()),
        ("forks", "bomb() { bomb | bomb & }; bomb 2>/dev/null; sleep 1; [ $(ls /proc | grep -c '^[0-9]') -gt 40 ]".to_string()),
        ("setsid", "setsid sleep 4321 & sleep 0.2; false".to_string()),
        ("kill-all", "kill -9 -1; false".to_string()),
    ];
    let mut matches = Vec::new();
    for (name, deed) in &cases {
        let script = dir.write(
            &format!("{name}.sh"),
            &format!(
                "while read l; do case \"$l\" in DONE) echo OK;; BEGIN|TURN*) if {deed}; then echo ESCAPED; else exit 7; fi;; END) exit 0;; esac; done\n"
            ),
        );
        let child = Command::new(bin())
            .args(["match", "--sandbox", "--games", "1", "self --depth 1"])
            .arg(format!("sh {}", script.display()))
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        matches.push(format!("reversi-{}", child.id()));
        let out = child.wait_with_output().unwrap();
        let report = text(&out.stdout);
        assert!(!report.contains("ESCAPED"), "{name}: {report}");
        let ending = report
            .lines()
            .find(|l| l.starts_with("game 1/1"))
            .unwrap_or("");
        assert!(ending.contains("A wins"), "{name}: {report}");
        if *name == "memory" {
            assert!(
                ending.contains("killed for going over its memory"),
                "{report}"
            );
        }
        assert!(out.status.success(), "{name}: {report}");
    }
    assert!(!std::fs::read_to_string(&own).unwrap().ends_with("x\n"));
    assert!(!std::path::Path::new("/usr/written").exists());
    assert!(
        listener.accept().is_err(),
        "a sandboxed program reached the host's network"
    );
    let left = Command::new("pgrep")
        .args(["-f", "sleep 4321"])
        .output()
        .unwrap();
    assert!(
        text(&left.stdout).trim().is_empty(),
        "a setsid child was left behind"
    );
    // Each match's cgroups went with it, which they do only once empty.
    let leftovers: Vec<_> = std::fs::read_dir("/sys/fs/cgroup")
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|h| std::fs::read_dir(h.path()).into_iter().flatten().flatten())
        .filter(|e| matches.contains(&e.file_name().to_string_lossy().into_owned()))
        .map(|e| e.path())
        .collect();
    assert!(leftovers.is_empty(), "cgroups left: {leftovers:?}");
}
