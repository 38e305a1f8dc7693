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
            crate::util::report::write(&k.report(&names));
            (
                k.standings_table(&names),
                Some(bracket_svg::render(&k, &arena.entrants)),
            )
        }
        Format::Elo { games } => {
            let (pool, stopped) = elo::run(players, arena, openings, games, arena.jobs);
            if let Some(why) = stopped {
                crate::say!("{why}");
            }
            (pool.standings_table(&names), None)
        }
        Format::Ladder { rounds, per_pair } => {
            let mut l = ladder::Ladder::new(players);
            for r in 0..rounds {
                l.round(arena, openings, per_pair);
                let order: Vec<&str> = l.order.iter().map(|&e| names[e].as_str()).collect();
                crate::say!("after round {}: {}", r + 1, order.join(" > "));
            }
            (l.standings_table(&names, ["as-black", "as-white"]), None)
        }
    };
    crate::say!("");
    crate::util::report::write(&table.to_text());
    if let Some(dir) = out {
        let write = |file: &str, text: &str| {
            let path = dir.join(file);
            crate::util::files::write_atomically(&path, text.as_bytes())
        };
        write("standings.csv", &table.to_csv())?;
        write("standings.json", &table.to_json())?;
        if let Some(svg) = &svg {
            write("bracket.svg", svg)?;
        }
        crate::say!("results in {}", dir.display());
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

    /// The table as CSV (header line first), quoted as RFC 4180 says.
    #[must_use]
    pub fn to_csv(&self) -> String {
        let mut writer = csv::Writer::from_writer(Vec::new());
        let written = std::iter::once(self.header.iter().map(|h| h.to_string()).collect())
            .chain(self.rows.iter().cloned())
            .try_for_each(|row: Vec<String>| writer.write_record(&row));
        let bytes = written
            .and_then(|()| writer.into_inner().map_err(|e| e.into_error().into()))
            .expect("writing to memory cannot fail");
        String::from_utf8(bytes).expect("the cells are text")
    }

    /// The table as a JSON array of objects, one a player, keys in column
    /// order. The player's name is always a string; another cell is a
    /// number where it is one as JSON writes numbers, else a string.
    #[must_use]
    pub fn to_json(&self) -> String {
        let objects: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|row| {
                let fields = self.header.iter().zip(row).map(|(&column, cell)| {
                    let number = serde_json::from_str::<serde_json::Number>(cell).ok();
                    let value = match number {
                        Some(n) if column != "player" => serde_json::Value::Number(n),
                        _ => serde_json::Value::String(cell.clone()),
                    };
                    (column.to_string(), value)
                });
                serde_json::Value::Object(fields.collect())
            })
            .collect();
        let mut text = serde_json::to_string_pretty(&objects).expect("values always serialise");
        text.push('\n');
        text
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
            header: vec!["player", "points", "diff"],
            rows: vec![vec!["a,b".to_string(), "3".to_string(), "+1".to_string()]],
        };
        assert_eq!(table.to_csv(), "player,points,diff\n\"a,b\",3,+1\n");
        assert_eq!(
            table.to_json(),
            "[\n  {\n    \"player\": \"a,b\",\n    \"points\": 3,\n    \"diff\": \"+1\"\n  }\n]\n"
        );
    }

    #[test]
    fn any_name_reads_back_from_json_and_csv() {
        let names = [
            "007", "1.", ".5", "5.", "12", "-0", "a\"b", "é", "x,y", "cr\rlf\n", "1e5",
        ];
        let table = Table {
            header: vec!["rank", "player", "score"],
            rows: names
                .iter()
                .enumerate()
                .map(|(i, n)| vec![(i + 1).to_string(), n.to_string(), "1.5".to_string()])
                .collect(),
        };
        let json: serde_json::Value = serde_json::from_str(&table.to_json()).expect("valid JSON");
        let read: Vec<&str> = json
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["player"].as_str().expect("a name is a string"))
            .collect();
        assert_eq!(read, names);
        assert_eq!(json[0]["rank"], serde_json::json!(1));
        assert_eq!(json[0]["score"], serde_json::json!(1.5));
        let csv = table.to_csv();
        let mut reader = csv::Reader::from_reader(csv.as_bytes());
        let read: Vec<String> = reader
            .records()
            .map(|r| r.expect("valid CSV")[1].to_string())
            .collect();
        assert_eq!(read, names);
    }
}
