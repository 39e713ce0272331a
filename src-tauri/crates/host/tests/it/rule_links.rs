//! Issue class 7: file-tool rules judge the path the tool opens, not only the path the call
//! names. The tools follow symlinks inside the workspace, so every case here puts a real
//! link in a temporary workspace. Each test says the verdict the unmodified code gave
//! (lexical judging only), which is how it was shown able to fail.

use std::os::unix::fs::symlink;
use std::path::PathBuf;

use paddock_fake_model::{FakeServer, Reply};
use paddock_host::explain::explain;
use paddock_host::rules::add_allow_rules;
use paddock_host::{Project, ProjectRuntime, Resolved, RunLimits};
use paddock_protocol::{
    CallExplanation, Grant, ProjectSettings, ProviderKind, RuleEntry, ToolPreset,
};
use serde_json::{Value, json};

struct Ws {
    _dir: tempfile::TempDir,
    /// The project's folder and its settings, taken as written.
    top: PathBuf,
    settings: ProjectSettings,
    root: PathBuf,
}

impl Ws {
    fn new(settings: ProjectSettings) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let ws = root.join(".agent-workspace");
        std::fs::create_dir(&ws).unwrap();
        Self {
            _dir: dir,
            top: root,
            settings,
            root: ws,
        }
    }

    fn project(&self) -> Project {
        Resolved::as_written(&self.top, self.settings.clone())
            .unwrap()
            .project()
    }

    fn file(&self, rel: &str, text: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    fn dir(&self, rel: &str) {
        std::fs::create_dir_all(self.root.join(rel)).unwrap();
    }

    fn link(&self, target: &str, rel: &str) {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        symlink(target, path).unwrap();
    }

    fn explain(&self, tool: &str, input: Value) -> CallExplanation {
        explain(
            &self.project(),
            &RunLimits::interactive(),
            tool,
            &input,
            no_hooks(),
        )
        .unwrap()
    }
}

fn rules(s: &mut ProjectSettings, tools: &[&str], entry: &RuleEntry) {
    for tool in tools {
        s.rules
            .entry((*tool).to_owned())
            .or_default()
            .push(entry.clone());
    }
}

/// Read tools granted by the preset, `secrets/**` denied to all three.
fn secrets_denied() -> Ws {
    let mut s = ProjectSettings {
        preset: Some(ToolPreset::Readonly),
        ..ProjectSettings::default()
    };
    let deny = RuleEntry::Deny("secrets/**".into());
    rules(&mut s, &["file_read", "grep", "glob"], &deny);
    let ws = Ws::new(s);
    ws.file("secrets/key.txt", "TOPSECRET-4711\n");
    ws.file("docs/readme.md", "hello\n");
    ws.link("../secrets", "docs/s");
    ws.link("../secrets/key.txt", "docs/k");
    ws.link("docs", "d");
    ws
}

/// Before: file_read docs/s/key.txt, docs/k, d/s/key.txt, the absolute spelling, grep and
/// glob over docs/s were all Allow ("no rule matches ... (falls back to the tool's grant)").
#[test]
fn a_link_into_a_denied_folder_is_denied() {
    let ws = secrets_denied();
    let abs = ws.root.join("docs/s/key.txt").display().to_string();
    for path in [
        "docs/s/key.txt",
        "docs/k",
        "d/s/key.txt",
        "docs/s/../secrets/key.txt",
        &abs,
    ] {
        let e = ws.explain("file_read", json!({ "path": path }));
        assert_eq!(e.decision, Grant::Deny, "{path}: {e:?}");
        assert!(e.by_rule, "{e:?}");
        assert!(e.why.contains("resolves to \"secrets/"), "{}", e.why);
        assert!(e.why.contains("secrets/**"), "{}", e.why);
    }
    let e = ws.explain("file_read", json!({ "path": "docs/s/key.txt" }));
    assert!(
        e.why
            .contains("\"docs/s/key.txt\" resolves to \"secrets/key.txt\""),
        "{}",
        e.why
    );
    for path in ["docs/s", "docs/s/", "d/s"] {
        let e = ws.explain("grep", json!({ "pattern": "SECRET", "path": path }));
        assert_eq!(e.decision, Grant::Deny, "grep {path}: {e:?}");
        let e = ws.explain("glob", json!({ "pattern": "*", "path": path }));
        assert_eq!(e.decision, Grant::Deny, "glob {path}: {e:?}");
    }
    // No link on the way: nothing changes.
    let e = ws.explain("file_read", json!({ "path": "docs/readme.md" }));
    assert_eq!((e.decision, e.by_rule), (Grant::Allow, false), "{e:?}");
    assert!(!e.why.contains("resolves"), "{}", e.why);
}

fn src_allowed() -> Ws {
    let mut s = ProjectSettings::default();
    s.tools.insert("file_write".into(), Grant::Ask);
    s.tools.insert("file_edit".into(), Grant::Ask);
    let allow = RuleEntry::Allow("src/**".into());
    rules(&mut s, &["file_write", "file_edit"], &allow);
    let ws = Ws::new(s);
    ws.file("src/main.rs", "fn main() {}\n");
    ws.file("config/app.toml", "a = 1\n");
    ws.link("../config", "src/c");
    ws
}

/// Before: Allow ("allowed by rules.file_write[0] \"src/**\""), the write landing in
/// config/ without a question.
#[test]
fn an_allowed_folder_does_not_allow_where_its_links_lead() {
    let ws = src_allowed();
    let e = ws.explain(
        "file_write",
        json!({ "path": "src/c/x.toml", "content": "" }),
    );
    assert_eq!(e.decision, Grant::Ask, "{e:?}");
    assert!(!e.by_rule, "the grant decides: {e:?}");
    assert!(
        e.why
            .contains("\"src/c/x.toml\" resolves to \"config/x.toml\""),
        "{}",
        e.why
    );
    let e = ws.explain(
        "file_edit",
        json!({ "path": "src/c/app.toml", "old_string": "a", "new_string": "b" }),
    );
    assert_eq!(e.decision, Grant::Ask, "{e:?}");
}

/// Before: each of these was Allow by `src/**`: a new file under a linked folder, folders
/// that do not exist yet behind the link, a dangling folder link and a dangling file link.
#[test]
fn paths_that_do_not_exist_yet_resolve_through_their_links() {
    let ws = src_allowed();
    ws.link("../config/later", "src/d");
    ws.link("../config/f.toml", "src/f.toml");
    for (path, real) in [
        ("src/c/new/deeper/x.toml", "config/new/deeper/x.toml"),
        ("src/d/x.toml", "config/later/x.toml"),
        ("src/f.toml", "config/f.toml"),
    ] {
        let e = ws.explain("file_write", json!({ "path": path, "content": "" }));
        assert_eq!(e.decision, Grant::Ask, "{path}: {e:?}");
        assert!(e.why.contains(&format!("\"{real}\"")), "{}", e.why);
    }
}

/// Before: Allow by `**` (the deny rule saw only docs/s/new.txt).
#[test]
fn a_new_file_behind_a_link_meets_the_deny_rule() {
    let mut s = ProjectSettings::default();
    s.tools.insert("file_write".into(), Grant::Allow);
    s.rules.insert(
        "file_write".into(),
        vec![
            RuleEntry::Allow("**".into()),
            RuleEntry::Deny("secrets/**".into()),
        ],
    );
    let ws = Ws::new(s);
    ws.dir("secrets");
    ws.link("../secrets", "docs/s");
    ws.link("../secrets/gone/x", "docs/g");
    for path in ["docs/s/new.txt", "docs/s/a/b/new.txt", "docs/g"] {
        let e = ws.explain("file_write", json!({ "path": path, "content": "x" }));
        assert_eq!(e.decision, Grant::Deny, "{path}: {e:?}");
    }
}

/// Passed before too (the ordinary case must not change); the second part was Allow before
/// and stays Allow: a link from one allowed area into another.
#[test]
fn links_between_allowed_areas_stay_allowed() {
    let mut s = ProjectSettings::default();
    s.tools.insert("file_write".into(), Grant::Ask);
    s.rules.insert(
        "file_write".into(),
        vec![
            RuleEntry::Allow("src/**".into()),
            RuleEntry::Allow("lib/**".into()),
        ],
    );
    let ws = Ws::new(s);
    ws.file("src/main.rs", "fn main() {}\n");
    ws.dir("lib");
    ws.link("../lib", "src/l");
    let e = ws.explain(
        "file_write",
        json!({ "path": "src/main.rs", "content": "" }),
    );
    assert_eq!((e.decision, e.by_rule), (Grant::Allow, true), "{e:?}");
    let e = ws.explain("file_write", json!({ "path": "src/l/x.rs", "content": "" }));
    assert_eq!((e.decision, e.by_rule), (Grant::Allow, true), "{e:?}");
    assert!(e.why.contains("lib/**"), "{}", e.why);
}

/// "Always allow" proposes both paths: the named one alone would leave the resolved one
/// unmatched and the call would ask again. Before: only `src/c/x.toml` was proposed (and
/// nothing asked).
#[test]
fn always_allow_proposes_the_resolved_path_too() {
    let mut ws = src_allowed();
    let input = json!({ "path": "src/c/x.toml", "content": "" });
    let e = ws.explain("file_write", input.clone());
    assert_eq!(e.proposed_rules, ["src/c/x.toml", "config/x.toml"]);
    add_allow_rules(&mut ws.settings, "file_write", &e.proposed_rules).unwrap();
    let e = ws.explain("file_write", input);
    assert_eq!((e.decision, e.by_rule), (Grant::Allow, true), "{e:?}");
}

/// Paths the guard refuses keep the verdict of the named path (the tool refuses them); a
/// FIFO is never opened (resolving is metadata only), so this returns.
#[test]
fn refused_and_special_paths_never_block_or_panic() {
    let ws = src_allowed();
    ws.link("/etc", "src/out");
    ws.link("loop", "src/loop");
    ws.link("../..", "src/up");
    // Best effort: where mkfifo is missing the case is a plain missing file.
    let _ = std::process::Command::new("mkfifo")
        .arg(ws.root.join("src/fifo"))
        .status();
    for (path, lexical) in [
        ("src/out/passwd", Grant::Allow),
        ("src/loop/x", Grant::Allow),
        ("src/up/x", Grant::Allow),
        ("src/fifo", Grant::Allow),
        ("", Grant::Ask),
        ("../x", Grant::Ask),
    ] {
        let e = ws.explain("file_write", json!({ "path": path, "content": "" }));
        assert_eq!(e.decision, lexical, "{path}: {e:?}");
    }
    // No workspace folder at all: the named path alone decides.
    std::fs::remove_dir_all(&ws.root).unwrap();
    let e = ws.explain("file_write", json!({ "path": "src/x.rs", "content": "" }));
    assert_eq!(e.decision, Grant::Allow, "{e:?}");
}

/// End to end: a scripted model asks for the secret through the link in a real run. Before:
/// the tool result sent back to the model held TOPSECRET-4711.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_run_does_not_read_a_denied_file_through_a_link() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("file_read", json!({ "path": "docs/s/key.txt" })),
        Reply::text("done"),
    ]);
    let mut ws = secrets_denied();
    let s = &mut ws.settings;
    s.provider = Some(ProviderKind::OpenAiCompatible);
    s.base_url = Some(server.url());
    s.model = Some("fake".into());
    let rt = ProjectRuntime::new(ws.project(), None, Vec::new(), &RunLimits::default()).unwrap();
    let result = rt.agent().run_fresh("read the key").await;
    assert!(result.error.is_none(), "{:?}", result.error);
    let bodies: Vec<Value> = server
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("chat/completions"))
        .map(|r| r.body)
        .collect();
    assert_eq!(bodies.len(), 2, "{bodies:?}");
    let sent = bodies[1].to_string();
    assert!(!sent.contains("TOPSECRET"), "{sent}");
    assert!(sent.contains("secrets/**"), "{sent}");
}

/// A search over a folder leaves out what the rules deny the search tool: before, `grep`
/// over the whole workspace returned TOPSECRET-4711 from secrets/key.txt under a
/// `secrets/**` deny rule (only the searched path, `.`, was judged), and `glob` listed it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_over_a_folder_leaves_out_what_the_rules_deny() {
    let server = FakeServer::start().await.unwrap();
    server.push_all([
        Reply::tool_call("grep", json!({ "pattern": "TOPSECRET|hello" })),
        Reply::tool_call("glob", json!({ "pattern": "**/*" })),
        Reply::text("done"),
    ]);
    let mut ws = secrets_denied();
    let s = &mut ws.settings;
    s.provider = Some(ProviderKind::OpenAiCompatible);
    s.base_url = Some(server.url());
    s.model = Some("fake".into());
    let rt = ProjectRuntime::new(ws.project(), None, Vec::new(), &RunLimits::default()).unwrap();
    let result = rt.agent().run_fresh("search everything").await;
    assert!(result.error.is_none(), "{:?}", result.error);
    let bodies: Vec<String> = server
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("chat/completions"))
        .map(|r| r.body.to_string())
        .collect();
    assert_eq!(bodies.len(), 3, "{bodies:?}");
    let (after_grep, after_glob) = (&bodies[1], &bodies[2]);
    assert!(after_grep.contains("docs/readme.md"), "{after_grep}");
    assert!(!after_grep.contains("TOPSECRET-4711"), "{after_grep}");
    assert!(after_grep.contains("left out"), "{after_grep}");
    assert!(!after_glob.contains("secrets/key.txt"), "{after_glob}");
}

/// A config folder with no `hooks.json`: the user has no hooks.
fn no_hooks() -> &'static std::path::Path {
    std::path::Path::new("/nonexistent/paddock-config")
}
