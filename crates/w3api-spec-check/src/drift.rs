//! Compares a component schema of the spec with the schemars schema of its
//! Rust type: the same properties, each with the same JSON types.
//!
//! Both sides are reduced to a [`Shape`] per property: the set of JSON types
//! the property admits (arrays with their item types, `"array<string>"`),
//! whether it admits `null`, and, for string enums, the values. The rules:
//! - property names are equal;
//! - JSON types other than `null` are equal;
//! - a property the spec makes nullable is nullable in Rust (Rust may accept
//!   `null` where the spec does not: decoding is lenient, encoding omits it);
//! - every enum value of the spec is one the Rust type's schema lists (Rust
//!   may list more spellings, as `Chain` does). Types that keep values they
//!   do not know (`Chain::Other`, the `Unknown` variant of open enums) list
//!   their known values only, so a value added to the spec and not to the
//!   type is still reported.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// What a schema admits, reduced to what the drift check compares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape {
    /// JSON types other than `null`; `None` when any value is allowed.
    pub types: Option<BTreeSet<String>>,
    /// Whether `null` is allowed.
    pub nullable: bool,
    /// The allowed strings, when the schema is a string enum.
    pub enum_values: Option<BTreeSet<String>>,
}

/// The differences between a spec schema and a Rust schema, one message each.
pub fn compare(component: &str, spec_doc: &Value, spec: &Value, rust_doc: &Value, rust: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    compare_at(component, spec_doc, spec, rust_doc, rust, &mut problems);
    problems
}

fn compare_at(path: &str, spec_doc: &Value, spec: &Value, rust_doc: &Value, rust: &Value, problems: &mut Vec<String>) {
    compare_shapes(path, &shape(spec_doc, spec), &shape(rust_doc, rust), problems);
    let spec_props = properties(spec_doc, spec);
    let rust_props = properties(rust_doc, rust);
    for name in spec_props.keys().filter(|n| !rust_props.contains_key(*n)) {
        problems.push(format!("{path}.{name}: in the spec, missing from the Rust type"));
    }
    for name in rust_props.keys().filter(|n| !spec_props.contains_key(*n)) {
        problems.push(format!("{path}.{name}: in the Rust type, missing from the spec"));
    }
    for (name, spec_prop) in &spec_props {
        let Some(rust_prop) = rust_props.get(name) else { continue };
        let field = format!("{path}.{name}");
        if is_inline_object(spec_prop) {
            // Nested objects written in place (not components) are compared field by field.
            compare_at(&field, spec_doc, spec_prop, rust_doc, rust_prop, problems);
        } else {
            compare_shapes(&field, &shape(spec_doc, spec_prop), &shape(rust_doc, rust_prop), problems);
        }
    }
}

fn compare_shapes(path: &str, spec: &Shape, rust: &Shape, problems: &mut Vec<String>) {
    if spec.types != rust.types {
        problems.push(format!(
            "{path}: JSON types differ: spec {} vs Rust {}",
            show(spec.types.as_ref()),
            show(rust.types.as_ref())
        ));
    }
    if spec.nullable && !rust.nullable {
        problems.push(format!("{path}: nullable in the spec, not in the Rust type"));
    }
    if let (Some(spec_values), Some(rust_values)) = (&spec.enum_values, &rust.enum_values) {
        let missing: Vec<&String> = spec_values.difference(rust_values).collect();
        if !missing.is_empty() {
            problems.push(format!("{path}: enum values of the spec the Rust type rejects: {missing:?}"));
        }
    }
}

fn show(types: Option<&BTreeSet<String>>) -> String {
    match types {
        Some(types) => format!("{types:?}"),
        None => "(any)".to_string(),
    }
}

fn is_inline_object(schema: &Value) -> bool {
    schema.get("$ref").is_none() && schema.get("properties").is_some()
}

/// Resolves a `#/...` reference inside `doc`.
fn deref<'a>(doc: &'a Value, mut schema: &'a Value) -> &'a Value {
    while let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let pointer = reference.strip_prefix('#').unwrap_or_else(|| panic!("external $ref {reference}"));
        schema = doc.pointer(pointer).unwrap_or_else(|| panic!("dangling $ref {reference}"));
    }
    schema
}

/// The properties of an object schema, gathered through `$ref`, `allOf` and
/// the non-null branch of a nullable `anyOf`/`oneOf`.
pub fn properties<'a>(doc: &'a Value, schema: &'a Value) -> BTreeMap<String, &'a Value> {
    let schema = deref(doc, schema);
    let mut out = BTreeMap::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        out.extend(props.iter().map(|(k, v)| (k.clone(), v)));
    }
    for keyword in ["allOf", "anyOf", "oneOf"] {
        for member in schema.get(keyword).and_then(Value::as_array).into_iter().flatten() {
            let member = deref(doc, member);
            // Only object alternatives carry fields; the per-type branches of
            // `Transaction` merely restate required fields.
            let is_object = member.get("type").is_some_and(|t| t == "object") || keyword == "allOf";
            if is_object {
                out.extend(properties(doc, member));
            }
        }
    }
    out
}

/// The shape of a schema.
pub fn shape(doc: &Value, schema: &Value) -> Shape {
    let types = json_types(doc, schema);
    let nullable = types.as_ref().is_none_or(|t| t.contains("null"));
    let types = types.map(|mut t| {
        t.remove("null");
        t
    });
    Shape { types, nullable, enum_values: enum_values(doc, schema) }
}

/// The JSON types a schema admits, `null` included; `None` for any.
fn json_types(doc: &Value, schema: &Value) -> Option<BTreeSet<String>> {
    let schema = deref(doc, schema);
    let object = match schema {
        Value::Bool(true) => return None,
        Value::Object(object) => object,
        other => panic!("not a schema: {other}"),
    };
    // Each keyword present constrains the types; the schema admits what all of them admit.
    let mut constraints: Vec<Option<BTreeSet<String>>> = Vec::new();
    if let Some(declared) = object.get("type") {
        let names: Vec<&str> = match declared {
            Value::String(name) => vec![name],
            Value::Array(names) => names.iter().filter_map(Value::as_str).collect(),
            other => panic!("bad type keyword {other}"),
        };
        constraints.push(Some(names.into_iter().map(|name| type_name(doc, object, name)).collect()));
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(members) = object.get(keyword).and_then(Value::as_array) {
            constraints.push(union(members.iter().map(|m| json_types(doc, m))));
        }
    }
    for member in object.get("allOf").and_then(Value::as_array).into_iter().flatten() {
        constraints.push(json_types(doc, member));
    }
    if let Some(values) = object.get("enum").and_then(Value::as_array) {
        constraints.push(Some(values.iter().map(value_type).collect()));
    }
    if let Some(value) = object.get("const") {
        constraints.push(Some(BTreeSet::from([value_type(value)])));
    }
    constraints.into_iter().fold(None, |acc, next| match (acc, next) {
        (None, next) => next,
        (acc, None) => acc,
        (Some(a), Some(b)) => Some(a.intersection(&b).cloned().collect()),
    })
}

fn union(sets: impl Iterator<Item = Option<BTreeSet<String>>>) -> Option<BTreeSet<String>> {
    let mut out = BTreeSet::new();
    for set in sets {
        out.extend(set?);
    }
    Some(out)
}

fn type_name(doc: &Value, schema: &serde_json::Map<String, Value>, name: &str) -> String {
    if name != "array" {
        return name.to_string();
    }
    match schema.get("items").map(|items| json_types(doc, items)) {
        Some(Some(items)) => format!("array<{}>", items.into_iter().collect::<Vec<_>>().join("|")),
        _ => "array<any>".to_string(),
    }
}

fn value_type(value: &Value) -> String {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array<any>",
        Value::Object(_) => "object",
    }
    .to_string()
}

/// The strings a schema allows when it is a string enum (through `$ref`,
/// `enum`, `const` and alternatives made of those).
fn enum_values(doc: &Value, schema: &Value) -> Option<BTreeSet<String>> {
    let schema = deref(doc, schema);
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return values.iter().map(|v| v.as_str().map(String::from)).collect();
    }
    if let Some(value) = schema.get("const") {
        return value.as_str().map(|v| BTreeSet::from([v.to_string()]));
    }
    let members = schema.get("oneOf").or_else(|| schema.get("anyOf"))?.as_array()?;
    let mut out = BTreeSet::new();
    for member in members {
        out.extend(enum_values(doc, member)?);
    }
    Some(out)
}
