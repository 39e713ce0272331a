pub(crate) mod images;

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use paddock_protocol::{
    AgentEvent, ContentBlock, SESSION_FORMAT, SearchHit, SessionHeader, SessionRecord,
    SessionSummary, ToolStatus,
};

use crate::index::SessionIndex;
use crate::private::{make_private, private_dir, private_file};
use crate::project_key;
use crate::timeline::Timeline;
use crate::{
    LoadedSession, SessionError, SessionWriter, check_id, data_dir, interrupted_results, io,
    now_rfc3339, push_merged,
};

/// Characters of context on each side of a search match.
const SNIPPET_CONTEXT: usize = 60;
/// Search stops after this many hits.
const MAX_SEARCH_HITS: usize = 200;
/// Title length shown in lists.
const MAX_TITLE_CHARS: usize = 80;

/// The sessions of every project, under `<data dir>/sessions/<project key>/<id>.jsonl`.
#[derive(Debug, Clone)]
pub struct SessionStore {
    root: PathBuf,
}

impl SessionStore {
    pub fn new(root: PathBuf) -> Self {
        Self { root }
    }

    /// The store in Paddock's data directory.
    pub fn open_default() -> Result<Self, SessionError> {
        Ok(Self::new(data_dir()?.join("sessions")))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn project_dir(&self, project: &Path) -> PathBuf {
        self.root.join(project_key(project))
    }

    pub(crate) fn file(&self, project: &Path, id: &str) -> Result<PathBuf, SessionError> {
        check_id(id)?;
        Ok(self.project_dir(project).join(format!("{id}.jsonl")))
    }

    /// Starts a session: writes its header and returns the writer.
    pub fn create(
        &self,
        project: &Path,
        provider: Option<&str>,
        model: &str,
        first_prompt: &str,
    ) -> Result<(SessionHeader, SessionWriter), SessionError> {
        self.create_as(project, &new_id(), provider, model, first_prompt)
    }

    /// Starts a session under an id chosen beforehand ([`new_session_id`]; an ACP client
    /// is given the id before the first prompt). An id already taken is refused.
    pub fn create_as(
        &self,
        project: &Path,
        id: &str,
        provider: Option<&str>,
        model: &str,
        first_prompt: &str,
    ) -> Result<(SessionHeader, SessionWriter), SessionError> {
        check_id(id)?;
        let dir = self.project_dir(project);
        private_dir(&self.root).map_err(io("create", &self.root))?;
        private_dir(&dir).map_err(io("create", &dir))?;
        let id = id.to_owned();
        let path = dir.join(format!("{id}.jsonl"));
        let header = SessionHeader {
            format: SESSION_FORMAT,
            id: id.clone(),
            project: project.to_string_lossy().into_owned(),
            provider: provider.map(str::to_owned),
            model: model.to_owned(),
            created: now_rfc3339(),
            title: title_of(first_prompt),
        };
        let file = private_file()
            .create_new(true)
            .append(true)
            .open(&path)
            .map_err(io("create", &path))?;
        let writer = SessionWriter::new(id, path, file, 0);
        writer.append(&SessionRecord::Header(header.clone()));
        writer.flush();
        if let Some(e) = writer.error() {
            return Err(SessionError::Io {
                action: "write",
                path: writer.path().to_owned(),
                source: std::io::Error::other(e),
            });
        }
        Ok((header, writer))
    }

    /// A session's header alone (its first line): whose it is, without reading it all.
    pub fn header(&self, project: &Path, id: &str) -> Result<SessionHeader, SessionError> {
        let path = self.file(project, id)?;
        if !path.is_file() {
            return Err(SessionError::NotFound(id.to_owned()));
        }
        read_header(&path)
    }

    /// Reads a session back. Unreadable lines are skipped and reported in `warnings`.
    pub fn load(&self, project: &Path, id: &str) -> Result<LoadedSession, SessionError> {
        let path = self.file(project, id)?;
        let file = File::open(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => SessionError::NotFound(id.to_owned()),
            _ => SessionError::Io {
                action: "open",
                path: path.clone(),
                source: e,
            },
        })?;
        read_session(&path, file)
    }

    /// Loads a session to continue it: repairs a missing tool result (persisting the repair)
    /// and returns the writer to append the next prompt's records.
    pub fn resume(
        &self,
        project: &Path,
        id: &str,
    ) -> Result<(LoadedSession, SessionWriter), SessionError> {
        let mut session = self.load(project, id)?;
        let path = self.file(project, id)?;
        let mut file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(io("open", &path))?;
        // Sessions written by an older Paddock were readable by others: private from now on.
        make_private(&path, &file, &self.root, &self.project_dir(project))
            .map_err(io("protect", &path))?;
        // A torn last line has no newline: start the next record on a line of its own.
        file.write_all(b"\n").map_err(io("write", &path))?;
        let repair = interrupted_results(&session.history);
        if let Some(results) = &repair {
            session.warnings.push(
                "the last tool call had no result (Paddock stopped mid-turn); it was marked \
                 as interrupted"
                    .to_owned(),
            );
            push_merged(&mut session.messages, results.clone());
            push_merged(&mut session.history, results.clone());
        }
        let writer = SessionWriter::new(id.to_owned(), path, file, session.history.len());
        if let Some(results) = repair {
            writer.append(&SessionRecord::Message { message: results });
            writer.flush();
        }
        Ok((session, writer))
    }

    /// This project's sessions, newest first (from the index, brought up to date first).
    pub fn list(&self, project: &Path) -> Result<Vec<SessionSummary>, SessionError> {
        match self.index(project, false) {
            Some(index) => match index.list() {
                Ok(list) => Ok(list),
                Err(e) => {
                    tracing::warn!("session list without the index: {e}");
                    self.scan_list(project)
                }
            },
            None => self.scan_list(project),
        }
    }

    /// Case-insensitive text search across this project's sessions: one hit per message,
    /// newest sessions first, with the message's index and a snippet.
    pub fn search(&self, project: &Path, query: &str) -> Result<Vec<SearchHit>, SessionError> {
        let needle = query.trim().to_lowercase();
        if needle.is_empty() {
            return Ok(Vec::new());
        }
        match self.index(project, true) {
            Some(index) => match index.search(&needle, MAX_SEARCH_HITS, snippet) {
                Ok(hits) => Ok(hits),
                Err(e) => {
                    tracing::warn!("session search without the index: {e}");
                    self.scan_search(project, query)
                }
            },
            None => self.scan_search(project, query),
        }
    }

    /// The project's index, up to date with its files (and their texts, for a search);
    /// `None` (logged) when it cannot be used, and the callers read the files instead.
    fn index(&self, project: &Path, texts: bool) -> Option<SessionIndex> {
        let dir = self.project_dir(project);
        if !dir.is_dir() {
            return None;
        }
        let synced = SessionIndex::open(&dir).and_then(|mut index| {
            index.sync_files(&dir, |id| self.summary_of(project, id))?;
            if texts {
                index.sync_texts(&dir, |id| self.texts_of(project, id))?;
            }
            Ok(index)
        });
        match synced {
            Ok(index) => Some(index),
            Err(e) => {
                tracing::warn!("session index unusable, reading the files: {e}");
                None
            }
        }
    }

    /// A session's line in the list, from its header and file.
    fn summary_of(&self, project: &Path, id: &str) -> Option<SessionSummary> {
        let path = self.file(project, id).ok()?;
        let meta = std::fs::metadata(&path).ok()?;
        let header = read_header(&path).ok()?;
        Some(SessionSummary {
            id: header.id,
            title: header.title,
            model: header.model,
            created: header.created,
            updated: meta
                .modified()
                .ok()
                .map(|t| humantime::format_rfc3339_seconds(t).to_string())
                .unwrap_or_default(),
            size_bytes: meta.len(),
            cost: crate::cost::cost_in_file(&path),
        })
    }

    /// The searchable texts of a session by message index, and its number of messages.
    fn texts_of(&self, project: &Path, id: &str) -> Option<(Vec<(u32, String)>, u32)> {
        let session = self.load(project, id).ok()?;
        let texts = session
            .messages
            .iter()
            .enumerate()
            .flat_map(|(i, m)| {
                let i = u32::try_from(i).unwrap_or(u32::MAX);
                searchable_texts(m).into_iter().map(move |t| (i, t))
            })
            .collect();
        Some((
            texts,
            u32::try_from(session.messages.len()).unwrap_or(u32::MAX),
        ))
    }

    /// This project's sessions by reading every file's header (without the index).
    fn scan_list(&self, project: &Path) -> Result<Vec<SessionSummary>, SessionError> {
        let dir = self.project_dir(project);
        let entries = match std::fs::read_dir(&dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io("read", &dir)(e)),
        };
        let mut out = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "jsonl") {
                continue;
            }
            let Ok(header) = read_header(&path) else {
                continue;
            };
            let meta = entry.metadata().ok();
            out.push(SessionSummary {
                id: header.id,
                title: header.title,
                model: header.model,
                created: header.created,
                updated: meta
                    .as_ref()
                    .and_then(|m| m.modified().ok())
                    .map(|t| humantime::format_rfc3339_seconds(t).to_string())
                    .unwrap_or_default(),
                size_bytes: meta.map_or(0, |m| m.len()),
                cost: crate::cost::cost_in_file(&path),
            });
        }
        out.sort_by(|a, b| b.updated.cmp(&a.updated).then(b.id.cmp(&a.id)));
        Ok(out)
    }

    /// Search by reading every session (without the index).
    fn scan_search(&self, project: &Path, query: &str) -> Result<Vec<SearchHit>, SessionError> {
        let needle = query.trim().to_lowercase();
        if needle.is_empty() {
            return Ok(Vec::new());
        }
        let mut hits = Vec::new();
        for summary in self.scan_list(project)? {
            let Ok(session) = self.load(project, &summary.id) else {
                continue;
            };
            for (i, message) in session.messages.iter().enumerate() {
                for text in searchable_texts(message) {
                    if let Some(snippet) = snippet(&text, &needle) {
                        hits.push(SearchHit {
                            session_id: summary.id.clone(),
                            title: summary.title.clone(),
                            message_index: u32::try_from(i).unwrap_or(u32::MAX),
                            snippet,
                        });
                        if hits.len() >= MAX_SEARCH_HITS {
                            return Ok(hits);
                        }
                        break;
                    }
                }
            }
        }
        Ok(hits)
    }

    /// Appends one event to a session that is not running (a rewind), and makes it durable
    /// before returning.
    pub fn append_event(
        &self,
        project: &Path,
        id: &str,
        event: AgentEvent,
    ) -> Result<(), SessionError> {
        let path = self.file(project, id)?;
        let mut file = OpenOptions::new()
            .append(true)
            .open(&path)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => SessionError::NotFound(id.to_owned()),
                _ => io("open", &path)(e),
            })?;
        let line = serde_json::to_string(&SessionRecord::Event { event })
            .map_err(|e| io("write", &path)(std::io::Error::other(e)))?;
        // A torn last line has no newline: start on a line of our own.
        file.write_all(format!("\n{line}\n").as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(io("write", &path))
    }

    pub fn delete(&self, project: &Path, id: &str) -> Result<(), SessionError> {
        let path = self.file(project, id)?;
        let _ = std::fs::remove_dir_all(crate::store::images::images_dir(&path));
        // An external agent's own session id, kept beside (`host::external`).
        let _ = std::fs::remove_file(path.with_extension("acp"));
        std::fs::remove_file(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => SessionError::NotFound(id.to_owned()),
            _ => SessionError::Io {
                action: "delete",
                path: path.clone(),
                source: e,
            },
        })
    }
}

fn read_header(path: &Path) -> Result<SessionHeader, SessionError> {
    let file = File::open(path).map_err(io("open", path))?;
    let mut first = String::new();
    BufReader::new(file)
        .read_line(&mut first)
        .map_err(io("read", path))?;
    match serde_json::from_str::<SessionRecord>(&first) {
        Ok(SessionRecord::Header(h)) => Ok(h),
        _ => Err(SessionError::NotASession {
            path: path.to_owned(),
            reason: "the first line is not a session header".into(),
        }),
    }
}

/// One line of a session file. The writer puts each record's tag first, so its value is read
/// straight from the rest of the line: serde would otherwise buffer the whole line to find the
/// tag, then read it again (a 10,000-event session's lines: 19.5 ms that way, 11.8 this way).
/// Any other shape, or a value that does not read, takes the general path: same records, same
/// errors (`tests/it/records.rs`).
pub fn parse_record(line: &str) -> Result<SessionRecord, serde_json::Error> {
    const EVENT: &str = r#"{"type":"event","event":"#;
    const MESSAGE: &str = r#"{"type":"message","message":"#;
    let inner = |prefix: &str| {
        line.strip_prefix(prefix)
            .and_then(|rest| rest.trim_end().strip_suffix('}'))
    };
    if let Some(value) = inner(EVENT)
        && let Ok(event) = serde_json::from_str(value)
    {
        return Ok(SessionRecord::Event { event });
    }
    if let Some(value) = inner(MESSAGE)
        && let Ok(message) = serde_json::from_str(value)
    {
        return Ok(SessionRecord::Message { message });
    }
    serde_json::from_str(line)
}

fn read_session(path: &Path, file: File) -> Result<LoadedSession, SessionError> {
    let mut lines = BufReader::new(file).lines();
    let header = match lines.next() {
        Some(Ok(line)) => match serde_json::from_str::<SessionRecord>(&line) {
            Ok(SessionRecord::Header(h)) => h,
            _ => {
                return Err(SessionError::NotASession {
                    path: path.to_owned(),
                    reason: "the first line is not a session header".into(),
                });
            }
        },
        Some(Err(e)) => return Err(io("read", path)(e)),
        None => {
            return Err(SessionError::NotASession {
                path: path.to_owned(),
                reason: "the file is empty".into(),
            });
        }
    };
    let mut session = LoadedSession {
        header,
        messages: Vec::new(),
        events: Vec::new(),
        history: Vec::new(),
        points: Vec::new(),
        last_rewind: None,
        last_compaction: None,
        warnings: Vec::new(),
    };
    let mut timeline = Timeline::default();
    for (n, line) in lines.enumerate() {
        let line = line.map_err(io("read", path))?;
        if line.trim().is_empty() {
            continue;
        }
        match parse_record(&line) {
            Ok(SessionRecord::Message { message }) => {
                timeline.message(message.clone());
                push_merged(&mut session.messages, message);
            }
            Ok(SessionRecord::Event { event }) => {
                timeline.event(&event);
                session.events.push(with_status(event));
            }
            Ok(SessionRecord::Header(_)) => session
                .warnings
                .push(format!("line {}: a second header was ignored", n + 2)),
            Err(e) => session.warnings.push(format!(
                "line {} could not be read and was skipped (a write cut short by a crash?): {e}",
                n + 2
            )),
        }
    }
    session.history = timeline.history;
    session.points = timeline.points;
    session.last_rewind = timeline.last_rewind;
    session.last_compaction = timeline.compactions.latest().cloned();
    let dir = crate::store::images::images_dir(path);
    let (messages, history) = (&mut session.messages, &mut session.history);
    crate::store::images::resolve(
        &dir,
        messages.iter_mut().chain(history.iter_mut()),
        &mut session.warnings,
    );
    Ok(session)
}

fn searchable_texts(message: &paddock_protocol::Message) -> Vec<String> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text { text } => Some(text.clone()),
            ContentBlock::ToolResult(r) => Some(r.content.to_string()),
            ContentBlock::ToolCall(c) => Some(format!("{} {}", c.name, c.input)),
            _ => None,
        })
        .collect()
}

/// The text around the first case-insensitive match of `needle` (already lowercase).
fn snippet(text: &str, needle: &str) -> Option<String> {
    let lower = text.to_lowercase();
    let at = lower.find(needle)?;
    // Lowercasing can change byte lengths; map back through character counts.
    let char_at = lower[..at].chars().count();
    let chars: Vec<char> = text.chars().collect();
    let start = char_at.saturating_sub(SNIPPET_CONTEXT);
    let end = (char_at + needle.chars().count() + SNIPPET_CONTEXT).min(chars.len());
    let mut s: String = chars[start..end].iter().collect();
    s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 {
        s.insert(0, '…');
    }
    if end < chars.len() {
        s.push('…');
    }
    Some(s)
}

fn title_of(prompt: &str) -> String {
    let line = prompt
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim();
    let mut title: String = line.chars().take(MAX_TITLE_CHARS).collect();
    if line.chars().count() > MAX_TITLE_CHARS {
        title.push('…');
    }
    if title.is_empty() {
        "(empty prompt)".to_owned()
    } else {
        title
    }
}

/// A new session id: sortable and unique (UTC time, then random hex).
pub fn new_session_id() -> String {
    new_id()
}

fn new_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let now = humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string();
    let stamp: String = now.chars().filter(char::is_ascii_digit).collect();
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.write_u32(std::process::id());
    format!("{stamp}-{:08x}", h.finish() as u32)
}

/// Sessions written before tool statuses existed read as `ok`: a failed call says so in
/// `is_error`, and is `failed` (the closest status they can name).
fn with_status(event: AgentEvent) -> AgentEvent {
    match event {
        AgentEvent::ToolCallFinished {
            id,
            name,
            summary,
            output,
            is_error: true,
            status: ToolStatus::Ok,
            duration_ms,
            why,
            changes,
        } => AgentEvent::ToolCallFinished {
            id,
            name,
            summary,
            output,
            is_error: true,
            status: ToolStatus::Failed,
            duration_ms,
            why,
            changes,
        },
        AgentEvent::Delegated {
            agent,
            depth,
            call_id,
            event,
        } => AgentEvent::Delegated {
            agent,
            depth,
            call_id,
            event: Box::new(with_status(*event)),
        },
        other => other,
    }
}
