//! `${VAR}` in an MCP server's settings, as Claude Code, Cursor and VS Code write them:
//! `${NAME}`, `${NAME:-default}`, `${env:NAME}` and `${workspaceFolder}`. Values are read when
//! the server starts and never written back; `${input:…}` (VS Code's prompts) is refused by
//! name. The settings keep the text with the variables, so a token never lands in the file.

use std::collections::BTreeMap;

use paddock_protocol::McpServerConfig;

/// Longest text one variable may expand to.
const MAX_VALUE_BYTES: usize = 64 * 1024;

/// Where variable values come from.
pub struct VarSource<'a> {
    pub lookup: &'a dyn Fn(&str) -> Option<String>,
    /// What `${workspaceFolder}` means (the project folder).
    pub workspace: Option<&'a str>,
}

/// One reference in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Var<'t> {
    Env {
        name: &'t str,
        default: Option<&'t str>,
    },
    Workspace,
}

/// Splits `text` into literal pieces and variables; the error says what is wrong.
fn scan(text: &str) -> Result<Vec<Result<&str, Var<'_>>>, String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("${") {
        if at > 0 {
            out.push(Ok(&rest[..at]));
        }
        let body_start = at + 2;
        let Some(len) = rest[body_start..].find('}') else {
            return Err(format!("`{}` has no closing `}}`", &rest[at..]));
        };
        let body = &rest[body_start..body_start + len];
        out.push(Err(parse_var(body)?));
        rest = &rest[body_start + len + 1..];
    }
    if !rest.is_empty() {
        out.push(Ok(rest));
    }
    Ok(out)
}

fn parse_var(body: &str) -> Result<Var<'_>, String> {
    if body == "workspaceFolder" {
        return Ok(Var::Workspace);
    }
    if body.starts_with("input:") {
        return Err(format!(
            "`${{{body}}}` is a VS Code prompt; Paddock reads `${{NAME}}` from your environment instead"
        ));
    }
    let body = body.strip_prefix("env:").unwrap_or(body);
    let (name, default) = match body.split_once(":-") {
        Some((name, default)) => (name, Some(default)),
        None => (body, None),
    };
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "`${{{body}}}` is not a variable (use `${{NAME}}`, `${{NAME:-default}}` or `${{workspaceFolder}}`)"
        ));
    }
    Ok(Var::Env { name, default })
}

/// The environment variables `text` reads; an error when its `${…}` are malformed.
fn referenced(text: &str) -> Result<Vec<String>, String> {
    Ok(scan(text)?
        .into_iter()
        .filter_map(|piece| match piece {
            Err(Var::Env { name, .. }) => Some(name.to_owned()),
            _ => None,
        })
        .collect())
}

/// `text` with its variables replaced; an unset variable without a default is an error
/// naming it.
fn expand(text: &str, source: &VarSource<'_>) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for piece in scan(text)? {
        match piece {
            Ok(literal) => out.push_str(literal),
            Err(Var::Workspace) => out.push_str(
                source
                    .workspace
                    .ok_or_else(|| "`${workspaceFolder}` has no project folder here".to_owned())?,
            ),
            Err(Var::Env { name, default }) => {
                let value = (source.lookup)(name)
                    .or_else(|| default.map(str::to_owned))
                    .ok_or_else(|| {
                        format!("`${{{name}}}` is not set in Paddock's environment or the keychain")
                    })?;
                if value.len() > MAX_VALUE_BYTES {
                    return Err(format!(
                        "`${{{name}}}` is longer than {MAX_VALUE_BYTES} bytes"
                    ));
                }
                out.push_str(&value);
            }
        }
    }
    Ok(out)
}

/// The texts of a server entry that may hold variables, named as the settings name them.
fn fields(config: &McpServerConfig) -> Vec<(String, &str)> {
    let mut out: Vec<(String, &str)> = Vec::new();
    if let Some(c) = &config.command {
        out.push(("command".into(), c));
    }
    out.extend(
        config
            .args
            .iter()
            .enumerate()
            .map(|(i, a)| (format!("args[{i}]"), a.as_str())),
    );
    out.extend(
        config
            .env
            .iter()
            .map(|(k, v)| (format!("env.{k}"), v.as_str())),
    );
    if let Some(u) = &config.url {
        out.push(("url".into(), u));
    }
    out.extend(
        config
            .headers
            .iter()
            .map(|(k, v)| (format!("headers.{k}"), v.as_str())),
    );
    if let Some(f) = &config.env_file {
        out.push(("envFile".into(), f));
    }
    out
}

/// Every environment variable a server entry reads, sorted; the error names the field.
pub fn server_vars(config: &McpServerConfig) -> Result<Vec<String>, (String, String)> {
    let mut names = Vec::new();
    for (field, text) in fields(config) {
        names.extend(referenced(text).map_err(|e| (field, e))?);
    }
    names.sort();
    names.dedup();
    Ok(names)
}

/// The entry as it is started: every variable replaced. The error names the field.
pub fn resolve_server(
    config: &McpServerConfig,
    source: &VarSource<'_>,
) -> Result<McpServerConfig, String> {
    let one = |field: &str, text: &str| expand(text, source).map_err(|e| format!("{field}: {e}"));
    let map = |prefix: &str, m: &BTreeMap<String, String>| {
        m.iter()
            .map(|(k, v)| Ok((k.clone(), one(&format!("{prefix}.{k}"), v)?)))
            .collect::<Result<BTreeMap<_, _>, String>>()
    };
    let mut out = config.clone();
    out.command = config
        .command
        .as_deref()
        .map(|c| one("command", c))
        .transpose()?;
    out.args = config
        .args
        .iter()
        .enumerate()
        .map(|(i, a)| one(&format!("args[{i}]"), a))
        .collect::<Result<_, _>>()?;
    out.env = map("env", &config.env)?;
    out.url = config.url.as_deref().map(|u| one("url", u)).transpose()?;
    out.headers = map("headers", &config.headers)?;
    out.env_file = config
        .env_file
        .as_deref()
        .map(|f| one("envFile", f))
        .transpose()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source<'a>(lookup: &'a dyn Fn(&str) -> Option<String>) -> VarSource<'a> {
        VarSource {
            lookup,
            workspace: Some("/w"),
        }
    }

    #[test]
    fn the_spellings_other_tools_write() {
        let env = |n: &str| (n == "TOKEN").then(|| "s3cret".to_owned());
        let s = source(&env);
        assert_eq!(expand("Bearer ${TOKEN}", &s).unwrap(), "Bearer s3cret");
        assert_eq!(expand("${env:TOKEN}", &s).unwrap(), "s3cret");
        assert_eq!(expand("${MISSING:-dflt}/x", &s).unwrap(), "dflt/x");
        assert_eq!(expand("${workspaceFolder}/db", &s).unwrap(), "/w/db");
        assert_eq!(
            expand("no vars, $HOME stays", &s).unwrap(),
            "no vars, $HOME stays"
        );
        let err = expand("${MISSING}", &s).unwrap_err();
        assert!(err.contains("`${MISSING}` is not set"), "{err}");
        assert!(
            expand("${input:token}", &s)
                .unwrap_err()
                .contains("VS Code prompt")
        );
        assert!(expand("${TOKEN", &s).unwrap_err().contains("no closing"));
        assert!(expand("${1X}", &s).unwrap_err().contains("not a variable"));
        assert_eq!(
            referenced("a ${A} ${env:B} ${C:-x} ${workspaceFolder}").unwrap(),
            ["A", "B", "C"]
        );
    }

    #[test]
    fn a_server_resolves_every_field_or_names_the_bad_one() {
        let config = McpServerConfig {
            url: Some("https://h/${HOST_PATH:-mcp}".into()),
            headers: [("Authorization".to_owned(), "Bearer ${TOKEN}".to_owned())].into(),
            ..McpServerConfig::default()
        };
        let env = |n: &str| (n == "TOKEN").then(|| "t".to_owned());
        let resolved = resolve_server(&config, &source(&env)).unwrap();
        assert_eq!(resolved.url.as_deref(), Some("https://h/mcp"));
        assert_eq!(resolved.headers["Authorization"], "Bearer t");
        assert_eq!(server_vars(&config).unwrap(), ["HOST_PATH", "TOKEN"]);
        let none = |_: &str| None;
        let err = resolve_server(&config, &source(&none)).unwrap_err();
        assert!(
            err.starts_with("headers.Authorization: `${TOKEN}`"),
            "{err}"
        );
    }
}
