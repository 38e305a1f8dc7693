//! What the store asks of a database, whichever it is: statements with
//! numbered parameters (`$1`), rows of integers and texts, one transaction
//! a change, and a notice to the other server processes that share the
//! database once a change is committed.

use super::StoreError;

/// A parameter or a column's value: the store keeps integers, texts and
/// bytes (a team's compiled program).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    Null,
    Int(i64),
    Text(String),
    Bytes(Vec<u8>),
}

impl From<&[u8]> for Value {
    fn from(v: &[u8]) -> Value {
        Value::Bytes(v.to_vec())
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}

impl From<usize> for Value {
    fn from(v: usize) -> Value {
        Value::Int(v as i64)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Text(v.to_string())
    }
}

impl From<&String> for Value {
    fn from(v: &String) -> Value {
        Value::Text(v.clone())
    }
}

impl<T: Into<Value>> From<Option<T>> for Value {
    fn from(v: Option<T>) -> Value {
        v.map_or(Value::Null, Into::into)
    }
}

/// The parameters of a statement, each turned into a [`Value`].
macro_rules! params {
    ($($value:expr),* $(,)?) => {
        &[$($crate::store::sql::Value::from($value)),*][..]
    };
}
pub(crate) use params;

/// One row of a query's answer.
pub struct Row(pub Vec<Value>);

impl Row {
    fn at(&self, i: usize) -> Result<&Value, StoreError> {
        self.0
            .get(i)
            .ok_or_else(|| StoreError::Other(format!("no column {i}")))
    }

    pub fn opt_int(&self, i: usize) -> Result<Option<i64>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Int(v) => Ok(Some(*v)),
            Value::Text(t) => Err(StoreError::Other(format!(
                "column {i}: a number was expected, not '{t}'"
            ))),
            Value::Bytes(_) => Err(StoreError::Other(format!(
                "column {i}: a number was expected, not bytes"
            ))),
        }
    }

    pub fn int(&self, i: usize) -> Result<i64, StoreError> {
        self.opt_int(i)?
            .ok_or_else(|| StoreError::Other(format!("column {i} is empty")))
    }

    pub fn opt_text(&self, i: usize) -> Result<Option<String>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Text(t) => Ok(Some(t.clone())),
            Value::Int(v) => Err(StoreError::Other(format!(
                "column {i}: a text was expected, not {v}"
            ))),
            Value::Bytes(_) => Err(StoreError::Other(format!(
                "column {i}: a text was expected, not bytes"
            ))),
        }
    }

    pub fn opt_bytes(&self, i: usize) -> Result<Option<Vec<u8>>, StoreError> {
        match self.at(i)? {
            Value::Null => Ok(None),
            Value::Bytes(b) => Ok(Some(b.clone())),
            Value::Text(t) => Ok(Some(t.clone().into_bytes())),
            Value::Int(v) => Err(StoreError::Other(format!(
                "column {i}: bytes were expected, not {v}"
            ))),
        }
    }

    pub fn text(&self, i: usize) -> Result<String, StoreError> {
        self.opt_text(i)?
            .ok_or_else(|| StoreError::Other(format!("column {i} is empty")))
    }
}

/// Where the two databases' SQL differs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// One process, one connection: every transaction runs alone.
    Sqlite,
    /// Several processes, many connections: rows are locked as they are
    /// claimed.
    Postgres,
}

impl Dialect {
    /// What follows a query whose rows the transaction goes on to change,
    /// so that no other process changes them meanwhile (nothing in SQLite,
    /// whose one connection runs one transaction at a time).
    pub fn lock_rows(self) -> &'static str {
        match self {
            Dialect::Sqlite => "",
            Dialect::Postgres => " FOR UPDATE",
        }
    }

    /// As [`Dialect::lock_rows`], passing over rows another process has
    /// locked: a job queue's claim, which never waits for another claimer.
    pub fn claim_rows(self) -> &'static str {
        match self {
            Dialect::Sqlite => "",
            Dialect::Postgres => " FOR UPDATE SKIP LOCKED",
        }
    }
}

/// A transaction: the store's every call runs in one.
pub trait Sql {
    /// Runs a statement; the rows it changed.
    fn exec(&mut self, sql: &str, params: &[Value]) -> Result<u64, StoreError>;
    /// Runs a query; its rows.
    fn rows(&mut self, sql: &str, params: &[Value]) -> Result<Vec<Row>, StoreError>;
    fn dialect(&self) -> Dialect;
    /// Tells the other server processes, when this transaction commits,
    /// that `what` changed (`g<id>`: a game; `c`: a contest).
    fn notify(&mut self, what: &str) -> Result<(), StoreError>;
}

impl dyn Sql + '_ {
    /// The query's first row, if any.
    pub fn row(&mut self, sql: &str, params: &[Value]) -> Result<Option<Row>, StoreError> {
        Ok(self.rows(sql, params)?.into_iter().next())
    }

    /// The first column of the query's first row, if any.
    pub fn int(&mut self, sql: &str, params: &[Value]) -> Result<Option<i64>, StoreError> {
        self.row(sql, params)?
            .map(|r| r.opt_int(0))
            .transpose()
            .map(Option::flatten)
    }

    /// The first column of every row.
    pub fn ints(&mut self, sql: &str, params: &[Value]) -> Result<Vec<i64>, StoreError> {
        self.rows(sql, params)?.iter().map(|r| r.int(0)).collect()
    }
}
