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
const SCHEMA_VERSION: i64 = 4;
/// Bytes at the start of a session file whose digest tells an append from a rewrite.
const HEAD_BYTES: usize = 4096;
/// The trigram tokenizer matches substrings of at least this many characters.
const TRIGRAM: usize = 3;
/// How long a writer waits for another process's transaction.
const BUSY_MS: u64 = 5_000;
/// Up to this many matching texts, one query sorts them all; past it (a common word), the
/// sessions are searched one by one, newest first, until the hits are enough.
const SORT_ALL_BELOW: i64 = 2_000;

#[derive(Debug, thiserror::Error)]
#[error("session index {path}: {source}")]
pub struct IndexError {
    path: PathBuf,
    source: rusqlite::Error,
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
                   created TEXT NOT NULL, updated TEXT NOT NULL,
                   texts_size INTEGER NOT NULL DEFAULT -1,
                   texts_mtime_ns INTEGER NOT NULL DEFAULT -1,
                   texts_head TEXT NOT NULL DEFAULT '',
                   texts_messages INTEGER NOT NULL DEFAULT 0,
                   cost TEXT);
                 CREATE VIRTUAL TABLE texts USING fts5(text, session, message UNINDEXED,
                   tokenize = 'trigram');
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

    /// Brings the session list up to date with the `*.jsonl` files of `dir` (a `stat` per
    /// file; `summary` reads a new or changed file's header). Texts are left for
    /// [`Self::sync_texts`], so a list never waits for them.
    pub fn sync_files(
        &mut self,
        dir: &Path,
        summary: impl Fn(&str) -> Option<SessionSummary>,
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
        let mut present = std::collections::HashSet::new();
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
            present.insert(id.to_owned());
            if known.get(id) == Some(&stamp) {
                continue;
            }
            match summary(id) {
                Some(s) => {
                    self.conn
                        .execute(
                            "INSERT INTO files (id, size, mtime_ns, title, model, created, updated,
                               cost)
                             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                             ON CONFLICT(id) DO UPDATE SET size = ?2, mtime_ns = ?3, title = ?4,
                               model = ?5, created = ?6, updated = ?7, cost = ?8",
                            params![
                                id,
                                stamp.size,
                                stamp.mtime_ns,
                                s.title,
                                s.model,
                                s.created,
                                s.updated,
                                s.cost.and_then(|c| serde_json::to_string(&c).ok())
                            ],
                        )
                        .map_err(self.err())?;
                }
                None => self.forget(id)?,
            }
        }
        for gone in known.keys().filter(|k| !present.contains(*k)) {
            self.forget(gone)?;
        }
        Ok(())
    }

    /// Indexes the texts of every session whose file changed since its texts were indexed;
    /// `texts` reads one (its texts by message, and how many messages it has). A file that
    /// only grew (same start, larger) keeps the texts of the messages before its last
    /// indexed one. One transaction per session: its texts and their stamp together.
    pub fn sync_texts(
        &mut self,
        dir: &Path,
        texts: impl Fn(&str) -> Option<(Vec<(u32, String)>, u32)>,
    ) -> Result<(), IndexError> {
        struct Stale {
            id: String,
            stamp: Stamp,
            indexed_size: i64,
            head: String,
            messages: u32,
        }
        let stale: Vec<Stale> = {
            let mut stmt = self
                .conn
                .prepare(
                    "SELECT id, size, mtime_ns, texts_size, texts_head, texts_messages FROM files
                     WHERE texts_size != size OR texts_mtime_ns != mtime_ns",
                )
                .map_err(self.err())?;
            let rows = stmt
                .query_map([], |r| {
                    Ok(Stale {
                        id: r.get(0)?,
                        stamp: Stamp {
                            size: r.get(1)?,
                            mtime_ns: r.get(2)?,
                        },
                        indexed_size: r.get(3)?,
                        head: r.get(4)?,
                        messages: r.get(5)?,
                    })
                })
                .map_err(self.err())?;
            rows.collect::<Result<_, _>>().map_err(self.err())?
        };
        for item in stale {
            let id = &item.id;
            let head = head_digest(&dir.join(format!("{id}.jsonl")));
            // Appended to: the messages before the last indexed one are as they were (the
            // last may have had results merged into it, so it is indexed again).
            let from = if item.indexed_size >= 0
                && item.stamp.size > item.indexed_size
                && !item.head.is_empty()
                && head == item.head
            {
                item.messages.saturating_sub(1)
            } else {
                0
            };
            let (content, messages) = texts(id).unwrap_or_default();
            let path = self.path.clone();
            let err = |source| IndexError {
                path: path.clone(),
                source,
            };
            let tx = self.conn.transaction().map_err(err)?;
            tx.execute(
                "DELETE FROM texts WHERE session = ?1 AND message >= ?2",
                params![id, from],
            )
            .map_err(err)?;
            {
                let mut insert = tx
                    .prepare("INSERT INTO texts (text, session, message) VALUES (?1, ?2, ?3)")
                    .map_err(err)?;
                for (message, text) in content.iter().filter(|(m, _)| *m >= from) {
                    insert.execute(params![text, id, message]).map_err(err)?;
                }
            }
            tx.execute(
                "UPDATE files SET texts_size = ?2, texts_mtime_ns = ?3, texts_head = ?4,
                   texts_messages = ?5 WHERE id = ?1",
                params![id, item.stamp.size, item.stamp.mtime_ns, head, messages],
            )
            .map_err(err)?;
            tx.commit().map_err(err)?;
        }
        Ok(())
    }

    /// Drops a session (its file is gone or not a session).
    fn forget(&mut self, id: &str) -> Result<(), IndexError> {
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
        tx.commit().map_err(err)
    }

    /// Every indexed session, newest first.
    pub fn list(&self) -> Result<Vec<SessionSummary>, IndexError> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT id, title, model, created, updated, size, cost FROM files
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
                    cost: r
                        .get::<_, Option<String>>(6)?
                        .and_then(|c| serde_json::from_str(&c).ok()),
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
        let mut hits = Vec::new();
        if needle.chars().count() < TRIGRAM {
            // Too short for trigrams: every indexed text, checked (still no JSONL read).
            let sql = "SELECT t.session, f.title, t.message, t.text FROM texts t
                       JOIN files f ON f.id = t.session
                       ORDER BY f.updated DESC, f.id DESC, t.message ASC, t.rowid ASC";
            self.collect(sql, &[], needle, limit, &snippet, &mut hits)?;
            return Ok(hits);
        }
        let phrase = quoted(needle);
        let matches: i64 = self
            .conn
            .query_row(
                "SELECT count(*) FROM (SELECT 1 FROM texts WHERE texts MATCH ?1 LIMIT ?2)",
                params![format!("text: {phrase}"), SORT_ALL_BELOW],
                |r| r.get(0),
            )
            .map_err(self.err())?;
        if matches < SORT_ALL_BELOW {
            let sql = "SELECT t.session, f.title, t.message, t.text FROM texts t
                       JOIN files f ON f.id = t.session WHERE texts MATCH ?1
                       ORDER BY f.updated DESC, f.id DESC, t.message ASC, t.rowid ASC";
            self.collect(
                sql,
                &[format!("text: {phrase}")],
                needle,
                limit,
                &snippet,
                &mut hits,
            )?;
            return Ok(hits);
        }
        // A common word: newest sessions first, each its own small query, until enough.
        let sessions: Vec<(String, String)> = {
            let mut stmt = self
                .conn
                .prepare("SELECT id, title FROM files ORDER BY updated DESC, id DESC")
                .map_err(self.err())?;
            let rows = stmt
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .map_err(self.err())?;
            rows.collect::<Result<_, _>>().map_err(self.err())?
        };
        for (id, _) in sessions {
            let sql = "SELECT t.session, f.title, t.message, t.text FROM texts t
                       JOIN files f ON f.id = t.session WHERE texts MATCH ?1
                       ORDER BY t.message ASC, t.rowid ASC";
            let query = format!("text: {phrase} AND session: {}", quoted(&id));
            self.collect(sql, &[query], needle, limit, &snippet, &mut hits)?;
            if hits.len() >= limit {
                break;
            }
        }
        Ok(hits)
    }

    /// Adds the hits of one query (rows ordered by session, then message) to `hits`.
    fn collect(
        &self,
        sql: &str,
        args: &[String],
        needle: &str,
        limit: usize,
        snippet: &impl Fn(&str, &str) -> Option<String>,
        hits: &mut Vec<SearchHit>,
    ) -> Result<(), IndexError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(self.err())?;
        let mut rows = stmt
            .query(rusqlite::params_from_iter(args))
            .map_err(self.err())?;
        while hits.len() < limit {
            let Some(row) = rows.next().map_err(self.err())? else {
                break;
            };
            let session: String = row.get(0).map_err(self.err())?;
            let message: u32 = row.get(2).map_err(self.err())?;
            if hits
                .last()
                .is_some_and(|h: &SearchHit| h.session_id == session && h.message_index == message)
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
        }
        Ok(())
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

/// A digest of a file's first bytes (empty when it cannot be read).
fn head_digest(path: &Path) -> String {
    use std::hash::{Hash, Hasher};
    use std::io::Read;
    let mut head = Vec::with_capacity(HEAD_BYTES);
    let read =
        std::fs::File::open(path).and_then(|f| f.take(HEAD_BYTES as u64).read_to_end(&mut head));
    if read.is_err() {
        return String::new();
    }
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    head.hash(&mut hasher);
    format!("{}:{:016x}", head.len(), hasher.finish())
}

/// A string as an FTS5 phrase.
fn quoted(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// The index holds what the sessions say: private like them.
fn private(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600));
    }
}
