//! The IPC contract, written once. [`commands!`] takes every command as a function whose
//! injected parameters (app, window, state) sit in brackets and whose arguments from the
//! page sit in parentheses, and makes from it the Tauri commands, the handler that routes
//! to them, and a description ([`Command`]) from which the page's client
//! (`ui/src/lib/commands.ts`), the component tests' mock (`ui/src/test/api-mock.ts`) and the
//! table in `docs/desktop-ipc.md` are generated (the `contract` test rewrites them with
//! `PADDOCK_UPDATE_GENERATED=1` and fails while they are stale).

use std::collections::BTreeSet;
use std::fmt::Write;

/// One command as the page calls it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub name: &'static str,
    /// The doc comment's lines.
    pub doc: &'static [&'static str],
    /// Argument names (as Rust spells them) and TypeScript types.
    pub args: Vec<(&'static str, String)>,
    /// The TypeScript type of what it resolves with.
    pub returns: String,
}

/// Defines the commands: see the module's documentation. Each body returns
/// `Result<T, AppError>` where the signature says `-> T`.
macro_rules! commands {
    ($(
        $(#[doc = $doc:literal])*
        fn $name:ident $(<$gen:ident>)? [$($inj:ident : $injty:ty),* $(,)?]
            ($($arg:ident : $argty:ty),* $(,)?) -> $ret:ty $body:block
    )*) => {
        $(
            $(#[doc = $doc])*
            #[tauri::command]
            pub async fn $name $(<$gen: tauri::Runtime>)? (
                $($inj: $injty,)* $($arg: $argty),*
            ) -> std::result::Result<$ret, paddock_protocol::AppError> $body
        )*

        /// Every command, for `Builder::invoke_handler` (and the mock runtime in tests).
        pub fn handler<R: tauri::Runtime>(
        ) -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($name),*]
        }

        /// Every command as the page calls it.
        pub fn contract() -> Vec<$crate::contract::Command> {
            let cfg = ts_rs::Config::default();
            vec![$(
                $crate::contract::Command {
                    name: stringify!($name),
                    doc: &[$($doc),*],
                    args: vec![$(
                        (stringify!($arg), $crate::contract::ts_type(
                            &<$argty as ts_rs::TS>::name(&cfg),
                        )),
                    )*],
                    returns: $crate::contract::ts_type(&<$ret as ts_rs::TS>::name(&cfg)),
                },
            )*]
        }
    };
}
pub(crate) use commands;

/// A TypeScript type as the page gets it: Tauri sends 64-bit integers as JSON numbers.
pub fn ts_type(name: &str) -> String {
    name.replace("bigint", "number")
}

/// `session_id` as the page spells it (Tauri turns argument names into camelCase).
pub fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

const GENERATED: &str = "// Generated from src-tauri/src/commands.rs by the desktop's `contract` test. \
                         Do not edit:\n// PADDOCK_UPDATE_GENERATED=1 cargo test -p paddock-desktop \
                         --test it contract\n";

/// The page's typed client: one function per command.
pub fn typescript_client(commands: &[Command]) -> String {
    let mut types = BTreeSet::new();
    for c in commands {
        for ty in c.args.iter().map(|(_, t)| t).chain([&c.returns]) {
            types.extend(type_names(ty));
        }
    }
    let mut out = String::from(GENERATED);
    if !types.is_empty() {
        let list: Vec<String> = types.into_iter().collect();
        let _ = writeln!(
            out,
            "import type {{ {} }} from './bindings';",
            list.join(", ")
        );
    }
    out.push_str("import { invokeCommand } from './invoke';\n");
    for c in commands {
        out.push('\n');
        let doc: Vec<&str> = c.doc.iter().map(|l| l.trim()).collect();
        if !doc.is_empty() && doc.iter().any(|l| !l.is_empty()) {
            let _ = writeln!(out, "/** {} */", doc.join(" ").trim());
        }
        let params: Vec<String> = c
            .args
            .iter()
            .map(|(n, t)| format!("{}: {t}", camel(n)))
            .collect();
        let keys: Vec<String> = c.args.iter().map(|(n, _)| camel(n)).collect();
        let args = if keys.is_empty() {
            String::new()
        } else {
            format!(", {{ {} }}", keys.join(", "))
        };
        let _ = writeln!(
            out,
            "export const {} = ({}) =>\n  invokeCommand<{}>('{}'{args});",
            camel(c.name),
            params.join(", "),
            c.returns,
            c.name,
        );
    }
    out
}

/// The component tests' stand-in for `lib/api.ts`: every command (and each of `extras`,
/// the hand-written functions of api.ts) a `vi.fn()` to script.
pub fn mock(commands: &[Command], extras: &[&str]) -> String {
    let mut out = GENERATED.to_owned();
    out.push_str(
        "// A stand-in for lib/api.ts in component tests: every function is a vi.fn() to \
         script, with\n// the real error normalisation. Use: vi.mock('../lib/api', () => \
         import('../test/api-mock')).\nimport { vi } from 'vitest';\nimport type * as Api \
         from '../lib/api';\n\n// The real module, not the mock (importing '../lib/api' here \
         would import this file again).\nconst real = await vi.importActual<typeof \
         Api>('../lib/api');\nexport const toAppError = real.toAppError;\n\ntype Fn<K extends \
         keyof typeof Api> = ReturnType<typeof vi.fn<(typeof Api)[K]>>;\nconst fn = <K \
         extends keyof typeof Api>(): Fn<K> => vi.fn<(typeof Api)[K]>();\n\n",
    );
    let mut names: Vec<String> = commands.iter().map(|c| camel(c.name)).collect();
    names.extend(extras.iter().map(|e| (*e).to_owned()));
    names.sort();
    names.dedup();
    for name in names {
        let _ = writeln!(out, "export const {name} = fn<'{name}'>();");
    }
    out
}

/// The docs' table of commands, between its markers.
pub fn docs_table(commands: &[Command]) -> String {
    let mut out =
        String::from("| Command | Arguments | Resolves with | What it does |\n|---|---|---|---|\n");
    for c in commands {
        let args: Vec<String> = c
            .args
            .iter()
            .map(|(n, t)| format!("`{}: {}`", camel(n), t.replace('|', "\\|")))
            .collect();
        let doc = c
            .doc
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ")
            .replace('|', "\\|");
        let _ = writeln!(
            out,
            "| `{}` | {} | `{}` | {} |",
            c.name,
            if args.is_empty() {
                "—".to_owned()
            } else {
                args.join(", ")
            },
            c.returns.replace('|', "\\|"),
            doc.trim()
        );
    }
    out
}

/// The binding types a TypeScript type names (`Array<ToolGrantInfo> | null` →
/// `ToolGrantInfo`).
fn type_names(ty: &str) -> Vec<String> {
    ty.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()))
        .filter(|w| !matches!(*w, "Array" | "Record" | "Partial"))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_types_are_the_pages() {
        assert_eq!(camel("session_id"), "sessionId");
        assert_eq!(camel("project"), "project");
        assert_eq!(ts_type("bigint | null"), "number | null");
        assert_eq!(type_names("Array<ToolGrantInfo> | null"), ["ToolGrantInfo"]);
        let c = Command {
            name: "set_tool_grant",
            doc: &[" Sets one tool's grant."],
            args: vec![
                ("project", "string".into()),
                ("grant", "Grant | null".into()),
            ],
            returns: "Array<ToolGrantInfo>".into(),
        };
        let ts = typescript_client(std::slice::from_ref(&c));
        assert!(
            ts.contains("import type { Grant, ToolGrantInfo } from './bindings';"),
            "{ts}"
        );
        assert!(
            ts.contains(
                "export const setToolGrant = (project: string, grant: Grant | null) =>\n  \
                 invokeCommand<Array<ToolGrantInfo>>('set_tool_grant', { project, grant });"
            ),
            "{ts}"
        );
        assert!(docs_table(&[c]).contains("`grant: Grant \\| null`"));
    }
}
