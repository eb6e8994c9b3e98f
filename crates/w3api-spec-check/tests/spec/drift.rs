//! Every component schema of the spec has a Rust type with the same
//! properties and JSON types, and the check notices when they part.

use serde_json::{Value, json};
use w3api_spec_check::drift;
use w3api_spec_check::spec::Document;

fn problems_of(document: Document, spec_doc: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let components = spec_doc["components"]["schemas"].as_object().unwrap();
    for (name, spec_schema) in components {
        let rust_type = match document.rust_type(name) {
            Ok(rust_type) => rust_type,
            Err(e) => {
                problems.push(e);
                continue;
            }
        };
        let rust_doc = (rust_type.schema)();
        let found = drift::compare(name, spec_doc, spec_schema, &rust_doc, &rust_doc);
        problems.extend(found.into_iter().map(|p| format!("{}: {p}", document.file_name())));
    }
    problems
}

#[test]
fn every_component_matches_its_rust_type() {
    let mut problems = Vec::new();
    for document in Document::ALL {
        problems.extend(problems_of(document, document.json_schema()));
        for rust_type in document.rust_types() {
            if !document.components().contains_key(rust_type.name) {
                problems.push(format!(
                    "{}: the registry names {}, which is not a component",
                    document.file_name(),
                    rust_type.name
                ));
            }
        }
    }
    assert!(problems.is_empty(), "the spec and the types disagree:\n{}", problems.join("\n"));
}

/// A copy of the OpenAPI document with one component schema edited.
fn edited(component: &str, edit: impl FnOnce(&mut Value)) -> Value {
    let mut doc = Document::OpenApi.json_schema().clone();
    edit(&mut doc["components"]["schemas"][component]);
    doc
}

#[test]
fn a_renamed_field_is_reported_with_schema_and_field() {
    let doc = edited("TokenBalance", |schema| {
        let properties = schema["properties"].as_object_mut().unwrap();
        let balance = properties.remove("balance").unwrap();
        properties.insert("raw_balance".into(), balance);
    });
    let problems = problems_of(Document::OpenApi, &doc);
    assert!(
        problems.iter().any(|p| p.contains("TokenBalance.raw_balance") && p.contains("missing from the Rust type")),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("TokenBalance.balance") && p.contains("missing from the spec")),
        "{problems:?}"
    );
}

#[test]
fn a_changed_type_is_reported_with_schema_and_field() {
    let doc = edited("NftMediaItem", |schema| schema["properties"]["height"] = json!({ "type": "string" }));
    let problems = problems_of(Document::OpenApi, &doc);
    assert!(
        problems.iter().any(|p| p.contains("NftMediaItem.height") && p.contains("JSON types differ")),
        "{problems:?}"
    );
}

#[test]
fn a_nullable_field_the_type_cannot_hold_null_in_is_reported() {
    let doc = edited("TokenBalance", |schema| {
        schema["properties"]["portfolio_percentage"] = json!({ "anyOf": [{ "type": "number" }, { "type": "null" }] });
    });
    let problems = problems_of(Document::OpenApi, &doc);
    assert!(
        problems.iter().any(|p| p.contains("TokenBalance.portfolio_percentage") && p.contains("nullable")),
        "{problems:?}"
    );
}

#[test]
fn an_enum_value_the_type_rejects_is_reported() {
    let doc = edited("StreamStatus", |schema| schema["enum"].as_array_mut().unwrap().push(json!("archived")));
    let problems = problems_of(Document::OpenApi, &doc);
    assert!(problems.iter().any(|p| p.contains("StreamStatus") && p.contains("archived")), "{problems:?}");
}

#[test]
fn a_component_without_a_rust_type_is_reported() {
    let mut doc = Document::OpenApi.json_schema().clone();
    doc["components"]["schemas"]["Orphan"] = json!({ "type": "string" });
    let problems = problems_of(Document::OpenApi, &doc);
    assert!(problems.iter().any(|p| p.contains("Orphan") && p.contains("no Rust type")), "{problems:?}");
}
