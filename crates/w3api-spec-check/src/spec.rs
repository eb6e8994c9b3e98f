//! The spec documents, loaded once, with validators for any schema in them.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use jsonschema::{Draft, Validator};
use serde_json::{Map, Value, json};

/// Which document a schema comes from; they speak different JSON Schema dialects.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Document {
    /// `spec/openapi.yaml`: OpenAPI 3.0's schema dialect (with `nullable`).
    OpenApi,
    /// `spec/openrpc.json`: JSON Schema draft 7.
    OpenRpc,
    /// `spec/openrpc-cheats.json`, the chain-control methods: JSON Schema draft 7.
    OpenRpcCheats,
}

impl Document {
    /// Every document.
    pub const ALL: [Document; 3] = [Document::OpenApi, Document::OpenRpc, Document::OpenRpcCheats];

    /// The OpenRPC documents: the methods a gateway URL answers.
    pub const RPC: [Document; 2] = [Document::OpenRpc, Document::OpenRpcCheats];

    /// The document as written.
    pub fn raw(self) -> &'static Value {
        match self {
            Document::OpenApi => &OPENAPI.raw,
            Document::OpenRpc => &OPENRPC.raw,
            Document::OpenRpcCheats => &CHEATS.raw,
        }
    }

    /// The document with every schema in plain JSON Schema (OpenAPI's
    /// `nullable` rewritten); validators and the drift check read this one.
    pub fn json_schema(self) -> &'static Value {
        match self {
            Document::OpenApi => &OPENAPI.translated,
            Document::OpenRpc => &OPENRPC.translated,
            Document::OpenRpcCheats => &CHEATS.translated,
        }
    }

    /// The component schemas, translated.
    pub fn components(self) -> &'static Map<String, Value> {
        self.json_schema()["components"]["schemas"].as_object().expect("the document has component schemas")
    }

    /// File name, for messages.
    pub fn file_name(self) -> &'static str {
        match self {
            Document::OpenApi => "spec/openapi.yaml",
            Document::OpenRpc => "spec/openrpc.json",
            Document::OpenRpcCheats => "spec/openrpc-cheats.json",
        }
    }

    fn draft(self) -> Draft {
        match self {
            Document::OpenApi => Draft::Draft202012,
            Document::OpenRpc | Document::OpenRpcCheats => Draft::Draft7,
        }
    }

    /// A validator for `schema`, a schema taken from this (translated)
    /// document; its `$ref`s resolve inside the document.
    pub fn validator(self, schema: &Value) -> Arc<Validator> {
        static CACHE: LazyLock<Mutex<ValidatorCache>> = LazyLock::new(Default::default);
        let key = (self, schema.to_string());
        let mut cache = CACHE.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        cache.entry(key).or_insert_with(|| Arc::new(self.compile(schema))).clone()
    }

    /// A validator for the component schema `name`.
    pub fn component_validator(self, name: &str) -> Arc<Validator> {
        self.validator(&json!({ "$ref": format!("#/components/schemas/{name}") }))
    }

    fn compile(self, schema: &Value) -> Validator {
        // The schema becomes the root, next to the document's components, so
        // that `#/components/...` pointers resolve.
        let mut root = match schema {
            Value::Object(map) => map.clone(),
            Value::Bool(true) => Map::new(),
            other => panic!("not a schema object: {other}"),
        };
        root.insert("components".into(), self.json_schema()["components"].clone());
        jsonschema::options()
            .with_draft(self.draft())
            .should_validate_formats(true)
            .build(&Value::Object(root))
            .unwrap_or_else(|e| panic!("{} holds a schema that does not compile: {e}", self.file_name()))
    }

    /// Validates `instance` against `schema`; the error lists every violation.
    pub fn validate(self, schema: &Value, instance: &Value) -> Result<(), String> {
        let validator = self.validator(schema);
        let errors: Vec<String> =
            validator.iter_errors(instance).map(|e| format!("at {}: {e}", e.instance_path())).collect();
        if errors.is_empty() { Ok(()) } else { Err(errors.join("\n")) }
    }

    /// Validates `instance` against the component schema `name`.
    pub fn validate_component(self, name: &str, instance: &Value) -> Result<(), String> {
        self.validate(&json!({ "$ref": format!("#/components/schemas/{name}") }), instance)
            .map_err(|e| format!("{} does not match {}#/components/schemas/{name}:\n{e}", instance, self.file_name()))
    }
}

/// Compiled validators by document and schema text; compiling is the slow part.
type ValidatorCache = HashMap<(Document, String), Arc<Validator>>;

struct Loaded {
    raw: Value,
    translated: Value,
}

fn spec_path(file: &str) -> PathBuf {
    crate::repository_root().join("spec").join(file)
}

static OPENAPI: LazyLock<Loaded> = LazyLock::new(|| {
    let path = spec_path("openapi.yaml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let raw: Value = serde_norway::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let translated = openapi_to_json_schema(&raw);
    Loaded { raw, translated }
});

static OPENRPC: LazyLock<Loaded> = LazyLock::new(|| load_json("openrpc.json"));

static CHEATS: LazyLock<Loaded> = LazyLock::new(|| load_json("openrpc-cheats.json"));

fn load_json(file: &str) -> Loaded {
    let path = spec_path(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let raw: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Loaded { translated: raw.clone(), raw }
}

pub use w3api_types::openapi::openapi_to_json_schema;

/// Follows `$ref`s (`#/...` pointers into the document) until a schema
/// without one; annotation siblings of a `$ref` are dropped.
pub fn resolve<'a>(document: &'a Value, mut schema: &'a Value) -> &'a Value {
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let pointer = reference.strip_prefix('#').unwrap_or_else(|| panic!("external $ref {reference}"));
        schema = document.pointer(pointer).unwrap_or_else(|| panic!("dangling $ref {reference}"));
    }
    schema
}

/// The component name a `#/components/schemas/X` reference points at.
pub fn component_name(schema: &Value) -> Option<&str> {
    schema.get("$ref")?.as_str()?.strip_prefix("#/components/schemas/")
}

/// Every REST operation of `spec/openapi.yaml`: upper-case method and path
/// template (`GET`, `/streams/evm/{id}`), in the document's order.
pub fn rest_operations() -> &'static [(String, String)] {
    static OPERATIONS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    OPERATIONS.get_or_init(|| {
        const METHODS: [&str; 5] = ["get", "post", "put", "delete", "patch"];
        let paths = Document::OpenApi.raw()["paths"].as_object().expect("spec/openapi.yaml has paths");
        paths
            .iter()
            .flat_map(|(template, item)| {
                let methods = item.as_object().into_iter().flat_map(|item| item.keys());
                methods.filter(|m| METHODS.contains(&m.as_str())).map(|m| (m.to_uppercase(), template.clone()))
            })
            .collect()
    })
}

impl Document {
    /// The schema of an operation's response in `spec/openapi.yaml`, by path
    /// template (`/streams/evm/{id}`), method and status; responses shared
    /// through `components/responses` are followed.
    pub fn response_schema(self, template: &str, method: &str, status: u16) -> Option<&'static Value> {
        let doc = Document::OpenApi.json_schema();
        let responses = doc["paths"].get(template)?.get(method.to_lowercase())?.get("responses")?;
        let mut response = responses.get(status.to_string())?;
        if let Some(reference) = response.get("$ref").and_then(Value::as_str) {
            response = doc.pointer(reference.trim_start_matches('#'))?;
        }
        response.get("content")?.get("application/json")?.get("schema")
    }

    /// Checks a REST response against its operation in the spec: the status
    /// must be declared, and the body must match its schema.
    pub fn check_response(template: &str, method: &str, status: u16, body: &Value) -> Result<(), String> {
        let schema = Document::OpenApi
            .response_schema(template, method, status)
            .ok_or_else(|| format!("{method} {template} does not declare status {status} (body {body})"))?;
        Document::OpenApi.validate(schema, body).map_err(|e| format!("{method} {template} {status}: {body}\n{e}"))
    }

    /// The OpenRPC document declaring `method`, and its declaration.
    pub fn rpc_method(method: &str) -> Option<(Document, &'static Value)> {
        Document::RPC.into_iter().find_map(|document| {
            let methods = document.json_schema()["methods"].as_array()?;
            methods.iter().find(|m| m["name"] == method).map(|declared| (document, declared))
        })
    }

    /// Checks a JSON-RPC result against the method's result schema in
    /// `spec/openrpc.json` or `spec/openrpc-cheats.json`.
    pub fn check_rpc_result(method: &str, result: &Value) -> Result<(), String> {
        let (document, declared) = Document::rpc_method(method)
            .ok_or_else(|| format!("{method} is a method of neither spec/openrpc.json nor spec/openrpc-cheats.json"))?;
        document.validate(&declared["result"]["schema"], result).map_err(|e| format!("{method} result {result}:\n{e}"))
    }

    /// Checks that a JSON-RPC error code is one the OpenRPC documents declare.
    pub fn check_rpc_error_code(code: i64) -> Result<(), String> {
        let declared = Document::RPC.into_iter().any(|document| {
            let errors = document.json_schema()["components"]["errors"].as_object().expect("declared errors");
            errors.values().any(|e| e["code"] == code)
        });
        declared.then_some(()).ok_or_else(|| format!("error code {code} is not declared"))
    }
}
