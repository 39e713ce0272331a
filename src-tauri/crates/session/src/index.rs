//! A project's session index: SQLite (bundled) with an FTS5 trigram table, in the project's
//! session folder. The JSONL files stay the truth: each list or search first brings the index
//! up to date from the folder (a `stat` per file, a read only for new or changed ones, one
//! transaction per file, so a crash leaves every file either indexed whole or not at all).
//! An index that cannot be opened or read is deleted and rebuilt.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use paddock_protocol::{SearchHit, SessionSummary};
use rusqlite::{Connection, OptionalExtension, params};

/// The index's file in a project's session folder.
pub const INDEX_FILE: &str = "index.sqlite";
/// Bumped when the schema changes: an older index is rebuilt.
const SCHEMA_VERSION: i64 = 1;
/// The trigram tokenizer matches substrings of at least this many characters.
const TRIGRAM: usize = 3;
/// How long a writer waits for another process's transaction.
const BUSY_MS: u64 = 5_000;

#[derive(Debug, thiserror::Error)]
#[error("session index {path}: {source}")]
pub struct IndexError {
    path: PathBuf,
    source: rusqlite::Error,
}

/// One session's indexable content, as the store reads it.
pub struct Indexed {
    pub summary: SessionSummary,
    /// (message index, text) in order.
    pub texts: Vec<(u32, String)>,
}

/// The open index of one project folder.
pub struct SessionIndex {
    conn: Connection,
    path: PathBuf,
}

/// What a file looked like when indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    size: i64,
    mtime_ns: i64,
}

impl SessionIndex {
    /// Opens (or creates) the index in `dir`; a damaged or older one is replaced by a new,
    /// empty one (the next sync fills it from the JSONL files).
    pub fn open(dir: &Path) -> Result<Self, IndexError> {
        let path = dir.join(INDEX_FILE);
        match Self::open_checked(&path) {
            Ok(index) => Ok(index),
            Err(e) => {
                tracing::warn!("rebuilding the session index: {e}");
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
                }
                Self::open_checked(&path)
            }
        }
    }

    fn open_checked(path: &Path) -> Result<Self, IndexError> {
        let err = |source| IndexError {
            path: path.to_owned(),
            source,
        };
        let conn = Connection::open(path).map_err(err)?;
        private(path);
        conn.busy_timeout(std::time::Duration::from_millis(BUSY_MS))
            .map_err(err)?;
        // WAL: readers and one writer at once (the app and the CLI), durable commits.
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(err)?;
        let version: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(err)?;
        if version == 0 {
            conn.execute_batch(&format!(
                "BEGIN;
                 CREATE TABLE files (id TEXT PRIMARY KEY, size INTEGER NOT NULL,
                   mtime_ns INTEGER NOT NULL, title TEXT NOT NULL, model TEXT NOT NULL,
                   created TEXT NOT NULL, updated TEXT NOT NULL);
                 CREATE VIRTUAL TABLE texts USING fts5(text, session UNINDEXED,
                   message UNINDEXED, tokenize = 'trigram');
                 PRAGMA user_version = {SCHEMA_VERSION};
                 COMMIT;"
            ))
            .map_err(err)?;
        } else if version != SCHEMA_VERSION {
            return Err(err(rusqlite::Error::InvalidQuery));
        }
        // A damaged file opens fine and fails here.
        conn.query_row("SELECT count(*) FROM files", [], |r| r.get::<_, i64>(0))
            .map_err(err)?;
        Ok(Self {
            conn,
            path: path.to_owned(),
        })
    }

    fn err(&self) -> impl Fn(rusqlite::Error) -> IndexError + '_ {
        |source| IndexError {
            path: self.path.clone(),
            source,
        }
    }

    /// Brings the index up to date with the `*.jsonl` files of `dir`; `read` gives a changed
    /// file's content (`None`: not a readable session, left out).
    pub fn sync(
        &mut self,
        dir: &Path,
        read: impl Fn(&str) -> Option<Indexed>,
    ) -> Result<(), IndexError> {
        let known: HashMap<String, Stamp> = {
            let mut stmt = self
                .conn
                .prepare("SELECT id, size, mtime_ns FROM files")
                .map_err(self.err())?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>(0)?,
                        Stamp {
                            size: r.get(1)?,
                            mtime_ns: r.get(2)?,
                        },
                    ))
                })
                .map_err(self.err())?;
            rows.collect::<Result<_, _>>().map_err(self.err())?
        };
        let mut present = Vec::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let Some(id) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".jsonl"))
            else {
                continue;
            };
            let Ok(meta) = entry.metadata() else { continue };
            let stamp = Stamp {
                size: i64::try_from(meta.len()).unwrap_or(i64::MAX),
                mtime_ns: meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
                    .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX)),
            };
            present.push(id.to_owned());
            if known.get(id) == Some(&stamp) {
                continue;
            }
            let content = read(id);
            self.replace(id, stamp, content.as_ref())?;
        }
        for gone in known.keys().filter(|k| !present.contains(k)) {
            self.replace(
                gone,
                Stamp {
                    size: 0,
                    mtime_ns: 0,
                },
                None,
            )?;
        }
        Ok(())
    }

    /// One file's rows, in one transaction: all of it or none of it.
    fn replace(
        &mut self,
        id: &str,
        stamp: Stamp,
        content: Option<&Indexed>,
    ) -> Result<(), IndexError> {
        let path = self.path.clone();
        let err = |source| IndexError {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        tx.execute("DELETE FROM texts WHERE session = ?1", [id])
            .map_err(err)?;
        tx.execute("DELETE FROM files WHERE id = ?1", [id])
            .map_err(err)?;
        if let Some(c) = content {
            let s = &c.summary;
            tx.execute(
                "INSERT INTO files (id, size, mtime_ns, title, model, created, updated)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    id,
                    stamp.size,
                    stamp.mtime_ns,
                    s.title,
                    s.model,
                    s.created,
                    s.updated
                ],
            )
            .map_err(err)?;
            let mut insert = tx
                .prepare("INSERT INTO texts (text, session, message) VALUES (?1, ?2, ?3)")
                .map_err(err)?;
            for (message, text) in &c.texts {
                insert.execute(params![text, id, message]).map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }

    /// Every indexed session, newest first.
    pub fn list(&self) -> Result<Vec<SessionSummary>, IndexError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, title, model, created, updated, size FROM files
                 ORDER BY updated DESC, id DESC",
            )
            .map_err(self.err())?;
        let rows = stmt
            .query_map([], |r| {
                Ok(SessionSummary {
                    id: r.get(0)?,
                    title: r.get(1)?,
                    model: r.get(2)?,
                    created: r.get(3)?,
                    updated: r.get(4)?,
                    size_bytes: u64::try_from(r.get::<_, i64>(5)?).unwrap_or(0),
                })
            })
            .map_err(self.err())?;
        rows.collect::<Result<_, _>>().map_err(self.err())
    }

    /// The first text of each message that contains `needle` (lowercase), newest session
    /// first, at most `limit`, with `snippet` making each hit's excerpt (and confirming the
    /// match the way the store always has: Unicode lowercase).
    pub fn search(
        &self,
        needle: &str,
        limit: usize,
        snippet: impl Fn(&str, &str) -> Option<String>,
    ) -> Result<Vec<SearchHit>, IndexError> {
        let order = "ORDER BY f.updated DESC, f.id DESC, t.message ASC, t.rowid ASC";
        let (sql, arg) = if needle.chars().count() >= TRIGRAM {
            (
                format!(
                    "SELECT t.session, f.title, t.message, t.text FROM texts t
                     JOIN files f ON f.id = t.session WHERE texts MATCH ?1 {order}"
                ),
                format!("\"{}\"", needle.replace('"', "\"\"")),
            )
        } else {
            // Too short for trigrams: every indexed text, checked below (still no JSONL read).
            (
                format!(
                    "SELECT t.session, f.title, t.message, t.text FROM texts t
                     JOIN files f ON f.id = t.session WHERE ?1 = ?1 {order}"
                ),
                String::new(),
            )
        };
        let mut stmt = self.conn.prepare(&sql).map_err(self.err())?;
        let mut rows = stmt.query([arg]).map_err(self.err())?;
        let mut hits: Vec<SearchHit> = Vec::new();
        while let Some(row) = rows.next().map_err(self.err())? {
            let session: String = row.get(0).map_err(self.err())?;
            let message: u32 = row.get(2).map_err(self.err())?;
            if hits
                .last()
                .is_some_and(|h| h.session_id == session && h.message_index == message)
            {
                continue;
            }
            let text: String = row.get(3).map_err(self.err())?;
            let Some(snippet) = snippet(&text, needle) else {
                continue;
            };
            hits.push(SearchHit {
                session_id: session,
                title: row.get(1).map_err(self.err())?,
                message_index: message,
                snippet,
            });
            if hits.len() >= limit {
                break;
            }
        }
        Ok(hits)
    }

    /// Whether a session is in the index (tests).
    pub fn contains(&self, id: &str) -> Result<bool, IndexError> {
        self.conn
            .query_row("SELECT 1 FROM files WHERE id = ?1", [id], |_| Ok(()))
            .optional()
            .map(|r| r.is_some())
            .map_err(self.err())
    }
}

/// The index holds what the sessions say: private like them.
fn private(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
}
