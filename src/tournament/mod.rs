//! Tournaments in the formats of the seeds: a knockout (PUG Challenge), an
//! Elo-rated pool (VG101 judge, section 3) and a weekly ladder (the Linkage
//! bot ladder). Every game is played in the [`crate::arena`]; each format
//! keeps its own score and draws its own standings [`Table`].

pub mod bracket_svg;
pub mod elo;
pub mod knockout;
pub mod ladder;

use crate::arena::{Openings, RefereeArena};
use std::path::Path;

/// Which contest, with its own settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Knockout,
    Elo { games: u32 },
    Ladder { rounds: usize, per_pair: usize },
}

/// Runs a tournament in `format`, printing its progress and standings on
/// stdout; with `out`, writes `standings.csv`, `standings.json` and (a
/// knockout) `bracket.svg` there.
pub fn run(
    format: Format,
    arena: &RefereeArena,
    openings: &mut Openings,
    seed: u64,
    out: Option<&Path>,
) -> std::io::Result<()> {
    let names: Vec<String> = arena.entrants.iter().map(|e| e.name.clone()).collect();
    let players = names.len();
    let (table, svg) = match format {
        Format::Knockout => {
            let k = knockout::run(players, arena, openings, seed);
            print!("{}", k.report(&names));
            (
                k.standings_table(&names),
                Some(bracket_svg::render(&k, &arena.entrants)),
            )
        }
        Format::Elo { games } => {
            let (pool, stopped) = elo::run(players, arena, openings, games, arena.jobs);
            if let Some(why) = stopped {
                println!("{why}");
            }
            (pool.standings_table(&names), None)
        }
        Format::Ladder { rounds, per_pair } => {
            let mut l = ladder::Ladder::new(players);
            for r in 0..rounds {
                l.round(arena, openings, per_pair);
                let order: Vec<&str> = l.order.iter().map(|&e| names[e].as_str()).collect();
                println!("after round {}: {}", r + 1, order.join(" > "));
            }
            (l.standings_table(&names, ["as-black", "as-white"]), None)
        }
    };
    println!();
    print!("{}", table.to_text());
    if let Some(dir) = out {
        let write = |file: &str, text: &str| {
            let path = dir.join(file);
            std::fs::write(&path, text)
                .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))
        };
        write("standings.csv", &table.to_csv())?;
        write("standings.json", &table.to_json())?;
        if let Some(svg) = &svg {
            write("bracket.svg", svg)?;
        }
        println!("results in {}", dir.display());
    }
    Ok(())
}

/// A standings table: column names, then one row of cells a player, best
/// first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Table {
    pub header: Vec<&'static str>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// Players in `order`, each row the rank, the name, then `cells` of the
    /// player; `columns` names those cells.
    #[must_use]
    pub fn ranked(
        columns: &[&'static str],
        order: &[usize],
        names: &[String],
        cells: impl Fn(usize) -> Vec<String>,
    ) -> Table {
        let rows = order
            .iter()
            .enumerate()
            .map(|(rank, &e)| {
                let mut row = vec![(rank + 1).to_string(), names[e].clone()];
                row.extend(cells(e));
                row
            })
            .collect();
        Table {
            header: [&["rank", "player"], columns].concat(),
            rows,
        }
    }

    /// The table as CSV (header line first).
    #[must_use]
    pub fn to_csv(&self) -> String {
        let (header, rows) = (&self.header, &self.rows);
        let quote = |s: &str| {
            if s.contains([',', '"', '\n']) {
                format!("\"{}\"", s.replace('"', "\"\""))
            } else {
                s.to_string()
            }
        };
        let mut out = header.join(",");
        out.push('\n');
        for row in rows {
            out.push_str(&row.iter().map(|c| quote(c)).collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        out
    }

    /// The table as a JSON array of objects. Cells that parse as numbers are
    /// written as numbers.
    #[must_use]
    pub fn to_json(&self) -> String {
        let (header, rows) = (&self.header, &self.rows);
        let string = |s: &str| {
            let mut out = String::from("\"");
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        };
        let cell = |s: &str| {
            if s.parse::<f64>().is_ok_and(f64::is_finite) && !s.starts_with('+') {
                s.to_string()
            } else {
                string(s)
            }
        };
        let objects: Vec<String> = rows
            .iter()
            .map(|row| {
                let fields: Vec<String> = header
                    .iter()
                    .zip(row)
                    .map(|(h, v)| format!("{}: {}", string(h), cell(v)))
                    .collect();
                format!("  {{{}}}", fields.join(", "))
            })
            .collect();
        format!("[\n{}\n]\n", objects.join(",\n"))
    }

    /// The table as text with aligned columns.
    #[must_use]
    pub fn to_text(&self) -> String {
        let (header, rows) = (&self.header, &self.rows);
        let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
        for row in rows {
            for (i, c) in row.iter().enumerate() {
                widths[i] = widths[i].max(c.chars().count());
            }
        }
        let line = |cells: Vec<&str>| {
            cells
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{:>w$}", c, w = widths[i]))
                .collect::<Vec<_>>()
                .join("  ")
        };
        let mut out = line(header.clone());
        out.push('\n');
        for row in rows {
            out.push_str(&line(row.iter().map(String::as_str).collect()));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::arena::{Arena, GameSpec, Outcome};
    use std::cell::RefCell;

    /// An arena that returns scripted outcomes, chosen by a function of the
    /// game, and remembers what it was asked to play.
    pub struct Scripted<F: Fn(&GameSpec) -> Outcome> {
        pub decide: F,
        pub played: RefCell<Vec<(usize, usize)>>,
    }

    impl<F: Fn(&GameSpec) -> Outcome> Arena for Scripted<F> {
        fn play(&self, games: &[GameSpec]) -> Vec<Outcome> {
            games
                .iter()
                .map(|g| {
                    self.played.borrow_mut().push((g.black, g.white));
                    (self.decide)(g)
                })
                .collect()
        }
    }

    pub fn scripted<F: Fn(&GameSpec) -> Outcome>(decide: F) -> Scripted<F> {
        Scripted {
            decide,
            played: RefCell::new(Vec::new()),
        }
    }

    #[test]
    fn tables_render() {
        let table = Table {
            header: vec!["name", "points", "diff"],
            rows: vec![vec!["a,b".to_string(), "3".to_string(), "+1".to_string()]],
        };
        assert_eq!(table.to_csv(), "name,points,diff\n\"a,b\",3,+1\n");
        assert_eq!(
            table.to_json(),
            "[\n  {\"name\": \"a,b\", \"points\": 3, \"diff\": \"+1\"}\n]\n"
        );
    }
}
