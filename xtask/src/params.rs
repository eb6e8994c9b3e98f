//! `spec/openapi.yaml` -> the parameter tables of `w3api-types`
//! (`crates/w3api-types/src/params/operations.rs`).
//!
//! Every operation becomes a module named after its `operationId`, with one
//! constant per parameter: its name, where it is sent, whether it is
//! required, and the values its schema allows (bounds, defaults, list
//! lengths). Every request-body schema becomes a module with the bounds of
//! its bounded fields. The server validates with these tables, so a limit
//! changed in the spec changes the server's check with it.
//!
//! Only the schema forms the interface uses are read; anything else is an
//! error that names the parameter, so a new form is a generator change, not
//! a silent gap.

use std::path::Path;

use heck::{ToShoutySnakeCase, ToSnakeCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::Value;

use crate::{Error, OPENAPI_SPEC, PARAMS_FILE, format};

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// Generates the parameter tables.
pub(crate) fn generate(openapi: &str) -> Result<crate::GeneratedFile, Error> {
    let spec: Value = serde_norway::from_str(openapi).map_err(|e| Error::OpenApi(e.to_string()))?;
    let mut operations = Vec::new();
    let mut table = Vec::new();
    let mut bodies = Vec::new();
    let mut body_schemas = std::collections::BTreeSet::new();
    let paths = spec["paths"].as_object().ok_or_else(|| Error::OpenApi("paths: missing".into()))?;
    for (path, item) in paths {
        for method in METHODS {
            let Some(operation) = item.get(method) else { continue };
            let id = operation["operationId"]
                .as_str()
                .ok_or_else(|| Error::OpenApi(format!("{method} {path}: no operationId")))?;
            operations.push(operation_module(&spec, id, method, path, operation)?);
            let module = format_ident!("{}", id.to_snake_case());
            table.push(quote!(#module::OPERATION));
            let body = &operation["requestBody"]["content"]["application/json"]["schema"];
            if let Some(name) = schema_name(body)
                && body_schemas.insert(name)
            {
                bodies.push(body_module(&spec, name, body)?);
                for item in list_items(&spec, body)? {
                    if body_schemas.insert(item) {
                        bodies.extend(item_module(&spec, item)?);
                    }
                }
            }
        }
    }
    let tokens = quote! {
        //! Parameters of every operation and bounds of every request body, from the OpenAPI document.
        use super::{FieldBounds, Operation, Param, ParamKind, ParamLocation};
        /// Every operation, by path.
        pub const OPERATIONS: &[Operation] = &[#(#table),*];
        #(#operations)*
        #(#bodies)*
    };
    let path = Path::new(PARAMS_FILE).to_path_buf();
    let contents = format::rust_file(&path, OPENAPI_SPEC, tokens)?;
    Ok(crate::GeneratedFile { path, contents })
}

/// Follows a local `$ref` (`#/components/...`) to what it names.
fn resolve<'a>(spec: &'a Value, node: &'a Value) -> Result<&'a Value, Error> {
    let Some(reference) = node.get("$ref").and_then(Value::as_str) else { return Ok(node) };
    let pointer = reference.strip_prefix('#').ok_or_else(|| Error::OpenApi(format!("{reference}: not local")))?;
    let target = spec.pointer(pointer).ok_or_else(|| Error::OpenApi(format!("{reference}: names nothing")))?;
    resolve(spec, target)
}

/// The component schema name a `$ref` names, if the node is one.
fn schema_name(node: &Value) -> Option<&str> {
    node.get("$ref")?.as_str()?.strip_prefix("#/components/schemas/")
}

fn operation_module(spec: &Value, id: &str, method: &str, path: &str, operation: &Value) -> Result<TokenStream, Error> {
    let module = format_ident!("{}", id.to_snake_case());
    let doc = format!("`{id}`: {} {path}.", method.to_uppercase());
    let mut constants = Vec::new();
    let mut names = Vec::new();
    for parameter in operation["parameters"].as_array().into_iter().flatten() {
        let parameter = resolve(spec, parameter)?;
        let name =
            parameter["name"].as_str().ok_or_else(|| Error::OpenApi(format!("{id}: a parameter has no name")))?;
        let at = |what: String| Error::OpenApi(format!("{id}, parameter {name}: {what}"));
        let location = match parameter["in"].as_str() {
            Some("path") => quote!(ParamLocation::Path),
            Some("query") => quote!(ParamLocation::Query),
            other => return Err(at(format!("location {other:?} is not path or query"))),
        };
        let required = parameter["required"].as_bool().unwrap_or(false);
        let kind = param_kind(spec, &parameter["schema"]).map_err(at)?;
        let constant = format_ident!("{}", name.to_shouty_snake_case());
        let doc = parameter["description"].as_str().unwrap_or(name).trim().to_string();
        constants.push(quote! {
            #[doc = #doc]
            pub const #constant: Param = Param { name: #name, location: #location, required: #required, kind: #kind };
        });
        names.push(constant);
    }
    let method = method.to_uppercase();
    Ok(quote! {
        #[doc = #doc]
        pub mod #module {
            use super::*;
            /// The operation's name, method and path.
            pub const OPERATION: Operation = Operation { id: #id, method: #method, path: #path };
            #(#constants)*
            /// Every parameter of the operation, in the spec's order.
            pub const ALL: &[Param] = &[#(#names),*];
        }
    })
}

fn param_kind(spec: &Value, schema: &Value) -> Result<TokenStream, String> {
    if let Some(name) = schema_name(schema) {
        let default = option(resolve(spec, schema).map_err(|e| e.to_string())?["default"].as_str());
        return Ok(quote!(ParamKind::Schema { name: #name, default: #default }));
    }
    let number = |key: &str| schema.get(key).map(|v| v.as_u64().ok_or(format!("{key} is not a whole number")));
    let bound = |key: &str| number(key).transpose().map(option);
    match schema["type"].as_str() {
        Some("boolean") => {
            let default = option(schema["default"].as_bool());
            Ok(quote!(ParamKind::Boolean { default: #default }))
        }
        Some("integer") => {
            let (minimum, maximum, default) = (bound("minimum")?, bound("maximum")?, bound("default")?);
            Ok(quote!(ParamKind::Integer { minimum: #minimum, maximum: #maximum, default: #default }))
        }
        Some("number") => {
            let minimum = schema.get("minimum").map(|v| v.as_f64().ok_or("minimum is not a number")).transpose()?;
            let minimum = option(minimum);
            Ok(quote!(ParamKind::Number { minimum: #minimum }))
        }
        Some("string") if schema.get("enum").is_none() => {
            let min_length = bound("minLength")?;
            let format = option(schema["format"].as_str());
            Ok(quote!(ParamKind::Text { min_length: #min_length, format: #format }))
        }
        Some("array") => {
            let items = schema_name(&schema["items"]).ok_or("array items are not a component schema")?;
            let max_items = bound("maxItems")?;
            Ok(quote!(ParamKind::List { items: #items, max_items: #max_items }))
        }
        other => Err(format!("schema type {other:?} (or its enum) is not one the generator reads")),
    }
}

/// `Some(value)` or `None`, as tokens.
fn option<T: quote::ToTokens>(value: Option<T>) -> TokenStream {
    match value {
        Some(value) => quote!(Some(#value)),
        None => quote!(None),
    }
}

/// One constant per bounded field of an object schema: its bounds.
fn field_bounds(spec: &Value, name: &str, schema: &Value) -> Result<Vec<TokenStream>, Error> {
    let mut constants = Vec::new();
    for (field, property) in schema["properties"].as_object().into_iter().flatten() {
        let property = resolve(spec, property)?;
        let bound = |key: &str| option(property.get(key).and_then(Value::as_u64));
        let keys = ["minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems"];
        if !keys.iter().any(|key| property.get(*key).is_some()) {
            continue;
        }
        if let Some(key) = keys.iter().find(|key| property.get(**key).is_some_and(|v| v.as_u64().is_none())) {
            return Err(Error::OpenApi(format!("{name}.{field}: {key} is not a whole number")));
        }
        let (minimum, maximum, min_length, max_length) =
            (bound("minimum"), bound("maximum"), bound("minLength"), bound("maxLength"));
        let (min_items, max_items) = (bound("minItems"), bound("maxItems"));
        let constant = format_ident!("{}", field.to_shouty_snake_case());
        let doc = format!("Bounds of `{field}`.");
        constants.push(quote! {
            #[doc = #doc]
            pub const #constant: FieldBounds = FieldBounds {
                name: #field, minimum: #minimum, maximum: #maximum, min_length: #min_length, max_length: #max_length,
                min_items: #min_items, max_items: #max_items,
            };
        });
    }
    Ok(constants)
}

/// The component schemas a body's list fields hold, whose own fields a
/// handler checks item by item.
fn list_items<'a>(spec: &'a Value, body: &'a Value) -> Result<Vec<&'a str>, Error> {
    let schema = resolve(spec, body)?;
    let properties = schema["properties"].as_object().into_iter().flatten();
    Ok(properties.filter_map(|(_, property)| schema_name(&property["items"])).collect())
}

/// The bounds of the items of a body's list, when they have any.
fn item_module(spec: &Value, name: &str) -> Result<Option<TokenStream>, Error> {
    let schema = spec["components"]["schemas"]
        .get(name)
        .ok_or_else(|| Error::OpenApi(format!("#/components/schemas/{name}: names nothing")))?;
    let constants = field_bounds(spec, name, schema)?;
    if constants.is_empty() {
        return Ok(None);
    }
    let module = format_ident!("{}", name.to_snake_case());
    let doc = format!("Items of schema `{name}` in request bodies' lists.");
    Ok(Some(quote! {
        #[doc = #doc]
        pub mod #module {
            use super::*;
            #(#constants)*
        }
    }))
}

/// The bounds of the bounded fields of a request body schema.
fn body_module(spec: &Value, name: &str, body: &Value) -> Result<TokenStream, Error> {
    let schema = resolve(spec, body)?;
    let constants = field_bounds(spec, name, schema)?;
    let module = format_ident!("{}", name.to_snake_case());
    let doc = format!("Request bodies of schema `{name}`.");
    let uses = (!constants.is_empty()).then(|| {
        quote!(
            use super::*;
        )
    });
    let schema = body_schema(spec, name)?;
    let schema_doc = format!("The schema of `{name}` with every component it reaches, as JSON.");
    let rust_type = format_ident!("{name}");
    Ok(quote! {
        #[doc = #doc]
        pub mod #module {
            #uses
            #(#constants)*
            #[doc = #schema_doc]
            pub const SCHEMA: &str = #schema;
            impl crate::openapi::RequestBody for crate::#rust_type {
                const SCHEMA: &'static str = SCHEMA;
            }
        }
    })
}

/// A body schema as a document of its own: a `$ref` to the component, next
/// to every component schema it reaches (so its `#/components/schemas/…`
/// pointers resolve), without descriptions and examples, which validate
/// nothing.
fn body_schema(spec: &Value, name: &str) -> Result<String, Error> {
    let mut reached = std::collections::BTreeMap::new();
    let mut pending = vec![name.to_string()];
    while let Some(next) = pending.pop() {
        if reached.contains_key(&next) {
            continue;
        }
        let schema = spec["components"]["schemas"]
            .get(&next)
            .ok_or_else(|| Error::OpenApi(format!("#/components/schemas/{next}: names nothing")))?;
        collect_refs(schema, &mut pending)?;
        reached.insert(next, without_annotations(schema));
    }
    let document = serde_json::json!({
        "$ref": format!("#/components/schemas/{name}"),
        "components": { "schemas": reached },
    });
    Ok(document.to_string())
}

fn collect_refs(schema: &Value, found: &mut Vec<String>) -> Result<(), Error> {
    match schema {
        Value::Object(map) => {
            if let Some(reference) = map.get("$ref").and_then(Value::as_str) {
                let name = reference
                    .strip_prefix("#/components/schemas/")
                    .ok_or_else(|| Error::OpenApi(format!("{reference}: a body schema reaches beyond the schemas")))?;
                found.push(name.to_string());
            }
            for (key, item) in map {
                if key != "example" && key != "examples" {
                    collect_refs(item, found)?;
                }
            }
            Ok(())
        }
        Value::Array(items) => items.iter().try_for_each(|item| collect_refs(item, found)),
        _ => Ok(()),
    }
}

/// A schema without its annotations; the names of `properties` are data,
/// whatever they are called (`description` is a stream's field).
fn without_annotations(schema: &Value) -> Value {
    let is_annotation = |key: &str| matches!(key, "description" | "example" | "examples" | "title");
    match schema {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(key, _)| !is_annotation(key))
                .map(|(key, item)| {
                    let item = match item.as_object() {
                        Some(properties) if key == "properties" => Value::Object(
                            properties
                                .iter()
                                .map(|(name, schema)| (name.clone(), without_annotations(schema)))
                                .collect(),
                        ),
                        _ => without_annotations(item),
                    };
                    (key.clone(), item)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_annotations).collect()),
        other => other.clone(),
    }
}
