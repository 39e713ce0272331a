//! Checks that a model calls tools on a server, as `paddock doctor` would:
//!
//! ```text
//! cargo run -p paddock-providers --example probe -- BASE_URL MODEL [--kind KIND] [--json]
//! ```
//!
//! KIND is `openai-compatible` (the default), `openai` or `anthropic`; the key comes from
//! the kind's environment variable (`PADDOCK_OPENAI_COMPAT_API_KEY`, ...). Prints the
//! report (or one JSON object with `--json`); exits 1 when the probe fails, 2 on bad
//! arguments.

use std::process::ExitCode;

use paddock_providers::{Provider, ProviderConfig, ProviderKind, ToolCallMode, WindowSource};
use serde_json::json;

const USAGE: &str =
    "usage: probe BASE_URL MODEL [--kind openai-compatible|openai|anthropic] [--json]";

struct Args {
    base_url: String,
    model: String,
    kind: ProviderKind,
    json: bool,
}

fn parse(mut argv: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut positional = Vec::new();
    let mut kind = ProviderKind::OpenAiCompatible;
    let mut json = false;
    while let Some(arg) = argv.next() {
        match arg.as_str() {
            "--json" => json = true,
            "--kind" => {
                let value = argv.next().ok_or("--kind needs a value")?;
                kind = value
                    .parse()
                    .map_err(|_| format!("unknown provider kind '{value}'"))?;
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            _ => positional.push(arg),
        }
    }
    match <[String; 2]>::try_from(positional) {
        Ok([base_url, model]) => Ok(Args {
            base_url,
            model,
            kind,
            json,
        }),
        Err(_) => Err(USAGE.to_owned()),
    }
}

fn mode_name(mode: ToolCallMode) -> &'static str {
    match mode {
        ToolCallMode::Native => "native",
        ToolCallMode::TextFallback => "text-fallback",
        ToolCallMode::Prompted => "prompted",
        ToolCallMode::None => "none",
    }
}

fn source_name(source: WindowSource) -> &'static str {
    match source {
        WindowSource::Server => "server",
        WindowSource::Table => "table",
        WindowSource::Default => "default",
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args = match parse(std::env::args().skip(1)) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let config = ProviderConfig::new(args.kind)
        .with_base_url(args.base_url)
        .with_env_key();
    let provider = match Provider::new(config) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("probe: {e}");
            return ExitCode::from(2);
        }
    };
    let probe = match provider.probe_tools(&args.model).await {
        Ok(p) => p,
        Err(e) => {
            eprintln!("probe: {e}");
            return ExitCode::FAILURE;
        }
    };
    if args.json {
        let report = json!({
            "mode": mode_name(probe.mode),
            "streaming": probe.streaming,
            "first_token_ms": probe.first_token_ms,
            "total_ms": probe.total_ms,
            "context_window": {
                "tokens": probe.context_window.tokens,
                "source": source_name(probe.context_window.source),
            },
            "advice": probe.advice,
            "detail": probe.detail,
        });
        println!("{report}");
        return ExitCode::SUCCESS;
    }
    println!("tool calls:     {}", mode_name(probe.mode));
    println!(
        "streaming:      {}",
        if probe.streaming { "yes" } else { "no" }
    );
    match probe.first_token_ms {
        Some(ms) => println!("first output:   {ms} ms"),
        None => println!("first output:   none"),
    }
    println!("total:          {} ms", probe.total_ms);
    println!(
        "context window: {} tokens ({})",
        probe.context_window.tokens,
        source_name(probe.context_window.source)
    );
    println!("detail:         {}", probe.detail);
    for line in &probe.advice {
        println!("advice:         {line}");
    }
    ExitCode::SUCCESS
}
