//! Every example in both spec files validates against its schema and decodes
//! into its Rust type; every request body and 2xx response has one.

use serde_json::{Value, json};
use w3api_spec_check::spec::{Document, component_name};

/// A `$ref` to a JSON pointer of the document's components, escaped for a URI fragment.
fn reference(tokens: &[String]) -> Value {
    let mut fragment = String::from("#");
    for token in tokens {
        fragment.push('/');
        let escaped = token.replace('~', "~0").replace('/', "~1");
        for byte in escaped.bytes() {
            if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&byte) {
                fragment.push(byte as char);
            } else {
                fragment.push_str(&format!("%{byte:02X}"));
            }
        }
    }
    json!({ "$ref": fragment })
}

/// An example found in the OpenAPI document.
struct Example {
    /// Where it is, as pointer tokens.
    location: Vec<String>,
    value: Value,
    /// The schema it must match.
    schema: Value,
    /// The component it must decode into, if its schema is one.
    component: Option<String>,
}

/// Walks the (translated) OpenAPI document for `example` keys: on media types
/// and parameters they exemplify the sibling `schema`; inside schemas, the
/// schema they sit in.
fn openapi_examples() -> Vec<Example> {
    fn walk(value: &Value, tokens: &mut Vec<String>, in_schema: bool, out: &mut Vec<Example>) {
        let Value::Object(map) = value else {
            if let Value::Array(items) = value {
                for (i, item) in items.iter().enumerate() {
                    tokens.push(i.to_string());
                    walk(item, tokens, in_schema, out);
                    tokens.pop();
                }
            }
            return;
        };
        if let Some(example) = map.get("example") {
            if let Some(schema) = map.get("schema") {
                out.push(Example {
                    location: tokens.clone(),
                    value: example.clone(),
                    schema: schema.clone(),
                    component: component_name(schema).map(String::from),
                });
            } else if in_schema {
                let component = match tokens.as_slice() {
                    [c, s, name] if c == "components" && s == "schemas" => Some(name.clone()),
                    _ => None,
                };
                out.push(Example {
                    location: tokens.clone(),
                    value: example.clone(),
                    schema: reference(tokens),
                    component,
                });
            }
        }
        for (key, item) in map {
            if key == "example" || key == "examples" {
                continue;
            }
            let entering_schema =
                in_schema || key == "schema" || (tokens.len() == 1 && tokens[0] == "components" && key == "schemas");
            tokens.push(key.clone());
            walk(item, tokens, entering_schema, out);
            tokens.pop();
        }
    }
    let mut out = Vec::new();
    walk(Document::OpenApi.json_schema(), &mut Vec::new(), false, &mut out);
    out
}

fn check_decodes(document: Document, component: &str, value: &Value) -> Result<(), String> {
    let rust_type = document.rust_type(component)?;
    (rust_type.reencode)(value).map(drop).map_err(|e| format!("does not decode into {component}: {e}"))
}

#[test]
fn openapi_examples_validate_and_decode() {
    let examples = openapi_examples();
    let mut failures = Vec::new();
    for example in &examples {
        let location = example.location.join("/");
        if let Err(e) = Document::OpenApi.validate(&example.schema, &example.value) {
            failures.push(format!("{location}: {e}"));
        }
        if let Some(component) = &example.component
            && let Err(e) = check_decodes(Document::OpenApi, component, &example.value)
        {
            failures.push(format!("{location}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} examples fail:\n{}", failures.len(), examples.len(), failures.join("\n"));
    // Six operations, each with one success example, plus request bodies and error bodies.
    assert!(examples.len() >= 15, "only {} examples found; the walk is broken", examples.len());
}

#[test]
fn every_request_body_and_success_response_has_an_example() {
    let doc = Document::OpenApi.raw();
    let mut missing = Vec::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, operation) in item.as_object().unwrap().iter().filter(|(k, _)| *k != "servers") {
            let name = format!("{} {path}", method.to_uppercase());
            for (media, content) in operation["requestBody"]["content"].as_object().into_iter().flatten() {
                if content.get("example").is_none() {
                    missing.push(format!("{name}: request body {media}"));
                }
            }
            for (status, response) in operation["responses"].as_object().unwrap() {
                if !status.starts_with('2') {
                    continue;
                }
                let content = response["content"].as_object();
                if content.is_none_or(|c| c.values().any(|media| media.get("example").is_none())) {
                    missing.push(format!("{name}: response {status}"));
                }
            }
        }
    }
    assert!(missing.is_empty(), "no example for:\n{}", missing.join("\n"));
}

/// The schema of a method's parameter or result, and the component it names.
fn rpc_schema(schema: &Value) -> (Value, Option<String>) {
    // A nullable result is `oneOf: [component, null]`.
    let component = component_name(schema)
        .map(String::from)
        .or_else(|| schema["oneOf"].as_array()?.iter().find_map(|s| component_name(s).map(String::from)));
    (schema.clone(), component)
}

#[test]
fn openrpc_examples_validate_and_decode() {
    for document in Document::RPC {
        check_rpc_examples(document);
    }
}

/// Every method of an OpenRPC document has an example, whose parameters and
/// result match their schemas and decode into their Rust types.
fn check_rpc_examples(document: Document) {
    let doc = document.raw();
    let mut failures = Vec::new();
    let mut checked = 0;
    for method in doc["methods"].as_array().unwrap() {
        let name = method["name"].as_str().unwrap();
        let examples = method["examples"].as_array().map(Vec::as_slice).unwrap_or_default();
        if examples.is_empty() {
            failures.push(format!("{name}: no example"));
        }
        for example in examples {
            let label = format!("{name} example {}", example["name"]);
            let mut pairs = Vec::new();
            for param in example["params"].as_array().unwrap() {
                let declared = method["params"].as_array().unwrap().iter().find(|p| p["name"] == param["name"]);
                match declared {
                    Some(declared) => pairs.push((
                        format!("param {}", param["name"]),
                        rpc_schema(&declared["schema"]),
                        &param["value"],
                    )),
                    None => failures.push(format!("{label}: param {} is not a parameter of the method", param["name"])),
                }
            }
            pairs.push(("result".into(), rpc_schema(&method["result"]["schema"]), &example["result"]["value"]));
            for (what, (schema, component), value) in pairs {
                checked += 1;
                if let Err(e) = document.validate(&schema, value) {
                    failures.push(format!("{label} {what}: {e}"));
                }
                if let Some(component) = component
                    && !value.is_null()
                    && let Err(e) = check_decodes(document, &component, value)
                {
                    failures.push(format!("{label} {what}: {e}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}:\n{}", document.file_name(), failures.join("\n"));
    assert!(checked >= 8, "{}: only {checked} example values found", document.file_name());
}
