//! The typed layer: a serde input struct plus a schemars schema whose doc comments become
//! the model-facing description.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use paddock_protocol::{CallPreview, ToolSpec};
use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{PreparedCall, Tool, ToolContext, ToolError, ToolOutput, coerced};
use crate::write_locks::WriteScope;

/// A tool with a typed input. The input struct's doc comment is the tool's description.
#[async_trait]
pub trait TypedTool: Send + Sync + 'static {
    type Input: DeserializeOwned + JsonSchema + Send;

    const NAME: &'static str;

    fn max_output_chars(&self) -> Option<usize> {
        None
    }

    fn timeout(&self) -> Option<Duration> {
        None
    }

    /// See [`Tool::mutates`]: assumed unless the tool says otherwise.
    fn mutates(&self) -> bool {
        true
    }

    /// See [`Tool::summary`].
    fn summary(&self, input: &Value) -> String {
        super::summarize_input(input)
    }

    /// See [`Tool::changes_workspace`].
    fn changes_workspace(&self) -> bool {
        self.mutates()
    }

    /// See [`Tool::write_scope`].
    fn write_scope(&self, _input: &Self::Input) -> WriteScope {
        WriteScope::None
    }

    /// See [`Tool::preview`]; called only with input that matches the schema.
    async fn preview(&self, _input: Self::Input) -> Option<CallPreview> {
        None
    }

    async fn run(&self, input: Self::Input, ctx: &ToolContext) -> Result<ToolOutput, ToolError>;
}

/// The JSON schema of `T` with subschemas inlined (models handle `$ref` poorly), and the
/// description lifted out of it.
pub fn schema_for<T: JsonSchema>() -> (String, Value) {
    let schema = SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = schema.to_value();
    let mut description = String::new();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        if let Some(Value::String(d)) = map.remove("description") {
            description = d;
        }
    }
    (description, value)
}

struct Typed<T: TypedTool> {
    tool: T,
    spec: ToolSpec,
}

/// Wraps a [`TypedTool`] as a [`Tool`].
pub fn typed<T: TypedTool>(tool: T) -> Arc<dyn Tool> {
    let (description, input_schema) = schema_for::<T::Input>();
    Arc::new(Typed {
        tool,
        spec: ToolSpec {
            name: T::NAME.to_owned(),
            description,
            input_schema,
        },
    })
}

#[async_trait]
impl<T: TypedTool> Tool for Typed<T> {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn max_output_chars(&self) -> Option<usize> {
        self.tool.max_output_chars()
    }

    fn timeout(&self) -> Option<Duration> {
        self.tool.timeout()
    }

    fn mutates(&self) -> bool {
        self.tool.mutates()
    }

    fn summary(&self, input: &Value) -> String {
        self.tool.summary(input)
    }

    fn changes_workspace(&self) -> bool {
        self.tool.changes_workspace()
    }

    fn write_scope(&self, input: &Value) -> WriteScope {
        match self.parse(input) {
            Ok(parsed) => self.tool.write_scope(&parsed),
            // It fails validation before writing anything.
            Err(_) => WriteScope::None,
        }
    }

    async fn preview(&self, input: &Value) -> Option<CallPreview> {
        let parsed = self.parse(input).ok()?;
        self.tool.preview(parsed).await
    }

    async fn call(&self, input: &Value, ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
        let parsed = self.parse(input)?;
        self.tool.run(parsed, ctx).await
    }

    /// One parse for the write scope and the run; the run is the typed tool's own future.
    fn prepare<'a>(&'a self, input: &'a Value, ctx: &'a ToolContext) -> PreparedCall<'a> {
        match self.parse(input) {
            Ok(parsed) => PreparedCall {
                scope: self.tool.write_scope(&parsed),
                run: self.tool.run(parsed, ctx),
            },
            // It fails validation before writing anything.
            Err(e) => PreparedCall {
                scope: WriteScope::None,
                run: Box::pin(std::future::ready(Err(e))),
            },
        }
    }
}

impl<T: TypedTool> Typed<T> {
    fn parse(&self, input: &Value) -> Result<T::Input, ToolError> {
        let input = coerced(&self.spec.input_schema, input);
        // Valid input (most calls) is read without tracking the path, which costs a string
        // per field; invalid input is read again to say where it failed.
        if let Ok(parsed) = T::Input::deserialize(&*input) {
            return Ok(parsed);
        }
        // Arguments that never parsed reach the tool as the text the model wrote: say so,
        // rather than "invalid type: string" or a field the model did give.
        if let Value::String(raw) = &*input {
            return Err(ToolError::InvalidInput(format!(
                "the arguments are not a JSON object (they could not be read as JSON: {}); \
                 send them again as one JSON object",
                crate::tool::one_line(raw, 200)
            )));
        }
        serde_path_to_error::deserialize(&*input).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path == "." || path.is_empty() {
                ToolError::InvalidInput(inner.to_string())
            } else {
                ToolError::InvalidInput(format!("field `{path}`: {inner}"))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;
    use serde_json::json;

    /// Says hello to someone.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct HelloInput {
        /// Who to greet.
        name: String,
        /// How many times.
        times: Option<u32>,
    }

    static PARSES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    /// Counts how often it is read.
    #[derive(JsonSchema)]
    struct Counted {
        path: String,
    }

    impl<'de> Deserialize<'de> for Counted {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            #[derive(Deserialize)]
            struct Plain {
                path: String,
            }
            PARSES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Plain::deserialize(d).map(|p| Self { path: p.path })
        }
    }

    struct Writer;

    #[async_trait]
    impl TypedTool for Writer {
        type Input = Counted;
        const NAME: &'static str = "writer";
        fn write_scope(&self, input: &Counted) -> WriteScope {
            WriteScope::Path(input.path.clone())
        }
        async fn run(&self, input: Counted, _ctx: &ToolContext) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::ok(input.path))
        }
    }

    #[tokio::test]
    async fn a_prepared_call_reads_its_input_once() {
        let tool = typed(Writer);
        let ctx = ToolContext {
            call: None,
            agent: Arc::from("a"),
            chain: Arc::from(vec!["a".to_owned()]),
            cancel: Default::default(),
            events: Arc::new(crate::events::NullSink),
            approvals: Arc::default(),
            grants: Arc::default(),
            writes: Arc::default(),
            approved: None,
            told: Arc::default(),
            hooks: Arc::new(crate::tool::hooks::NoHooks),
        };
        let input = json!({"path": "a.txt"});
        let call = tool.prepare(&input, &ctx);
        assert_eq!(call.scope, WriteScope::Path("a.txt".into()));
        assert_eq!(call.run.await.unwrap().content, "a.txt");
        assert_eq!(PARSES.load(std::sync::atomic::Ordering::SeqCst), 1);

        let bad = json!({"path": 5});
        let call = tool.prepare(&bad, &ctx);
        assert_eq!(call.scope, WriteScope::None);
        assert_eq!(
            call.run.await.unwrap_err(),
            tool.call(&bad, &ctx).await.unwrap_err(),
            "the same error, with its field, either way"
        );
    }

    /// Shown able to fail: before the string case the error was serde's "invalid type:
    /// string ..., expected struct Counted", which says nothing about broken JSON.
    #[tokio::test]
    async fn arguments_that_never_parsed_are_said_to_be_unreadable() {
        let tool = typed(Writer);
        let ctx = ToolContext {
            call: None,
            agent: Arc::from("a"),
            chain: Arc::from(vec!["a".to_owned()]),
            cancel: Default::default(),
            events: Arc::new(crate::events::NullSink),
            approvals: Arc::default(),
            grants: Arc::default(),
            writes: Arc::default(),
            approved: None,
            told: Arc::default(),
            hooks: Arc::new(crate::tool::hooks::NoHooks),
        };
        let raw = json!("{\"path\": \"a.txt\", oops");
        let err = tool.call(&raw, &ctx).await.unwrap_err().to_string();
        assert!(
            err.contains("not a JSON object") && err.contains("oops"),
            "{err}"
        );
    }

    #[test]
    fn doc_comments_become_descriptions() {
        let (description, schema) = schema_for::<HelloInput>();
        assert_eq!(description, "Says hello to someone.");
        assert_eq!(schema["type"], json!("object"));
        assert_eq!(
            schema["properties"]["name"]["description"],
            json!("Who to greet.")
        );
        assert_eq!(schema["required"], json!(["name"]));
        assert!(schema.get("$schema").is_none());
    }
}
