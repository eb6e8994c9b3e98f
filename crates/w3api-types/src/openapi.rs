//! OpenAPI 3.0's schema dialect, and the request bodies the spec declares.

use serde_json::{Map, Value, json};

/// Rewrites OpenAPI 3.0's schema dialect as JSON Schema: a schema with
/// `nullable: true` becomes `anyOf: [that schema, {type: null}]`. Example
/// values are data, not schemas, and are left alone.
pub fn openapi_to_json_schema(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, item) in map {
                let translated =
                    if key == "example" || key == "examples" { item.clone() } else { openapi_to_json_schema(item) };
                out.insert(key.clone(), translated);
            }
            if out.remove("nullable") == Some(Value::Bool(true)) {
                json!({ "anyOf": [Value::Object(out), { "type": "null" }] })
            } else {
                Value::Object(out)
            }
        }
        Value::Array(items) => Value::Array(items.iter().map(openapi_to_json_schema).collect()),
        other => other.clone(),
    }
}

/// A type the spec declares as an operation's request body.
pub trait RequestBody {
    /// Its schema, generated from the spec: `{"$ref": "#/components/schemas/…",
    /// "components": {"schemas": …}}` with every component it reaches, in
    /// OpenAPI's dialect (see [`openapi_to_json_schema`]).
    const SCHEMA: &'static str;
}
