//! Production's published reference for our operations, kept as data in
//! `tests/fixtures/production-reference/` (one file per source, each with its
//! `source` block), against the specs: every parameter, request-body field
//! and response field production documents must be in `spec/openapi.yaml`
//! (and every `eth_getTokenPrice` result field in `spec/openrpc.json`,
//! required), with a type and enum values ours admits. The differences kept
//! on purpose are listed, each with its reason, in
//! `spec/deliberate-differences.yaml`; a listed difference that no longer
//! differs is a failure too, so that the list stays short and true.
//!
//! Integer and number are one type here: production's reference is written
//! by a generator that turns every `integer` into `number`. Names written
//! `name[]` (array parameters) are the same as `name`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use w3api_spec_check::repository_root;
use w3api_spec_check::spec::Document;

const REFERENCE_DIR: &str = "tests/fixtures/production-reference";
const DIFFERENCES: &str = "spec/deliberate-differences.yaml";
const REFRESH: &str = "tests/fixtures/production-reference/refresh.py";

/// What a difference is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    /// Production has the name; ours does not.
    Missing,
    /// Ours does not admit production's JSON type.
    Type,
    /// Ours does not admit one of production's enum values.
    Enum,
    /// Production requires a result field ours leaves optional.
    Required,
}

impl Kind {
    const ALL: [Kind; 4] = [Kind::Missing, Kind::Type, Kind::Enum, Kind::Required];

    fn as_str(self) -> &'static str {
        match self {
            Kind::Missing => "missing",
            Kind::Type => "type",
            Kind::Enum => "enum",
            Kind::Required => "required",
        }
    }
}

/// Where a production name is: `path`, `query`, `body`, `response` (REST),
/// `params`, `result` (JSON-RPC; a path parameter of the gateway URL is `path`).
const PLACES: [&str; 6] = ["path", "query", "body", "response", "params", "result"];

fn place_words(place: &str) -> &'static str {
    match place {
        "path" => "path parameter",
        "query" => "query parameter",
        "body" => "request body field",
        "response" => "response field",
        "params" => "params field",
        "result" => "result field",
        other => panic!("no place {other}"),
    }
}

/// A difference, as `spec/deliberate-differences.yaml` names it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    operation: String,
    place: &'static str,
    name: String,
    kind: Kind,
    /// The enum value ours does not admit (`enum` only).
    value: Option<String>,
}

impl std::fmt::Display for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{{operation: {}, in: {}, name: {:?}, kind: {}",
            self.operation,
            self.place,
            self.name,
            self.kind.as_str()
        )?;
        if let Some(value) = &self.value {
            write!(f, ", value: {value:?}")?;
        }
        write!(f, "}}")
    }
}

/// What a comparison found: differences (which the list may excuse) and
/// failures it may not (an operation not found, a URL that differs).
#[derive(Default)]
struct Findings {
    differences: BTreeMap<Key, String>,
    failures: Vec<String>,
}

impl Findings {
    fn differ(&mut self, key: Key, message: String) {
        self.differences.entry(key).or_insert(message);
    }
}

/// One of our documents, and its file name for messages.
#[derive(Clone, Copy)]
struct Spec<'a> {
    root: &'a Value,
    file: &'static str,
}

/// A schema in one of our documents and its JSON pointer there.
#[derive(Clone)]
struct At<'a> {
    schema: &'a Value,
    pointer: String,
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

impl<'a> Spec<'a> {
    fn at(self, pointer: String) -> At<'a> {
        let schema = self.root.pointer(&pointer).unwrap_or_else(|| panic!("{}: nothing at #{pointer}", self.file));
        At { schema, pointer }
    }

    fn follow(self, node: At<'a>) -> At<'a> {
        match node.schema.get("$ref").and_then(Value::as_str) {
            Some(reference) => {
                let pointer = reference.strip_prefix('#').unwrap_or_else(|| panic!("external $ref {reference}"));
                self.follow(self.at(pointer.to_string()))
            }
            None => node,
        }
    }

    /// The schemas `node` stands for: `$ref`s followed, unions opened.
    fn alternatives(self, node: At<'a>) -> Vec<At<'a>> {
        let mut out = Vec::new();
        self.open(node, &mut out, 0);
        out
    }

    fn open(self, node: At<'a>, out: &mut Vec<At<'a>>, depth: usize) {
        assert!(depth < 64, "{}: $refs loop at #{}", self.file, node.pointer);
        let node = self.follow(node);
        let mut opened = false;
        for key in ["allOf", "anyOf", "oneOf"] {
            for (i, member) in node.schema.get(key).and_then(Value::as_array).into_iter().flatten().enumerate() {
                opened = true;
                self.open(At { schema: member, pointer: format!("{}/{key}/{i}", node.pointer) }, out, depth + 1);
            }
        }
        if !opened || node.schema.get("type").is_some() || node.schema.get("properties").is_some() {
            out.push(node);
        }
    }

    fn location(self, nodes: &[At<'_>]) -> String {
        let pointers: BTreeSet<&str> = nodes.iter().map(|n| n.pointer.as_str()).collect();
        let pointers: Vec<String> = pointers.into_iter().map(|p| format!("{}#{p}", self.file)).collect();
        pointers.join(" and ")
    }

    /// The schemas at a dotted path below `root` (`result[].media.category`;
    /// `[]` for an array's items), or where the walk stopped.
    fn walk(self, root: At<'a>, path: &str) -> Walk<'a> {
        let mut current = self.alternatives(root);
        let mut holders = Vec::new();
        for segment in segments(path) {
            let mut next = Vec::new();
            holders.clear();
            for node in &current {
                let child = if segment == "[]" {
                    node.schema.get("items").map(|items| (items, format!("{}/items", node.pointer)))
                } else {
                    let property = node.schema.get("properties").and_then(|p| p.get(&segment));
                    property.map(|p| (p, format!("{}/properties/{}", node.pointer, escape(&segment))))
                };
                if let Some((schema, pointer)) = child {
                    holders.push(node.clone());
                    next.extend(self.alternatives(At { schema, pointer }));
                }
            }
            if next.is_empty() {
                return Walk::Stopped { parents: current, segment };
            }
            current = next;
        }
        Walk::Found { nodes: current, holders }
    }
}

enum Walk<'a> {
    /// The schemas at the path, and the objects holding its last name.
    Found { nodes: Vec<At<'a>>, holders: Vec<At<'a>> },
    /// No schema has `segment` below `parents`.
    Stopped { parents: Vec<At<'a>>, segment: String },
}

/// `result[].media.category` as `result`, `[]`, `media`, `category`.
fn segments(path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let mut name = part;
        let mut arrays = 0;
        while let Some(rest) = name.strip_suffix("[]") {
            name = rest;
            arrays += 1;
        }
        while let Some(rest) = name.strip_prefix("[]") {
            name = rest;
            out.push("[]".to_string());
        }
        if !name.is_empty() {
            out.push(name.to_string());
        }
        out.extend(std::iter::repeat_n("[]".to_string(), arrays));
    }
    out
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The JSON types one of our schemas admits; `None` for any.
fn our_types(schema: &Value) -> Option<BTreeSet<&str>> {
    let mut types = BTreeSet::new();
    match schema.get("type") {
        Some(Value::String(t)) => {
            types.insert(t.as_str());
        }
        Some(Value::Array(ts)) => types.extend(ts.iter().filter_map(Value::as_str)),
        _ => {
            if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                types.extend(values.iter().map(|v| -> &str { json_type(v) }));
            } else if schema.get("properties").is_some() || schema.get("additionalProperties").is_some() {
                types.insert("object");
            } else if schema.get("items").is_some() {
                types.insert("array");
            } else {
                return None;
            }
        }
    }
    if schema.get("nullable") == Some(&Value::Bool(true)) {
        types.insert("null");
    }
    Some(types)
}

fn numeric(t: &str) -> bool {
    t == "integer" || t == "number"
}

fn admits_type(ours: &[At<'_>], wanted: &str) -> bool {
    ours.iter().any(|node| {
        our_types(node.schema)
            .is_none_or(|types| types.contains(wanted) || (numeric(wanted) && types.iter().any(|t| numeric(t))))
    })
}

fn admits_value(ours: &[At<'_>], value: &Value) -> bool {
    ours.iter().any(|node| match node.schema.get("enum").and_then(Value::as_array) {
        Some(values) => values.contains(value),
        None => admits_type(std::slice::from_ref(node), json_type(value)),
    })
}

fn describe_types(ours: &[At<'_>]) -> String {
    let mut all = BTreeSet::new();
    for node in ours {
        match our_types(node.schema) {
            Some(types) => all.extend(types),
            None => return "any JSON".into(),
        }
    }
    all.into_iter().collect::<Vec<_>>().join(" or ")
}

/// The JSON types production gives a name: its `type`, or those of the
/// members of its union. Types that are not JSON types (`rpcArray`) and
/// `null` are left out.
fn production_types(facts: &Value) -> Vec<String> {
    const JSON_TYPES: [&str; 6] = ["string", "number", "integer", "boolean", "object", "array"];
    let mut out = Vec::new();
    let mut add = |t: &str| {
        if JSON_TYPES.contains(&t) && !out.iter().any(|o: &String| o == t) {
            out.push(t.to_string());
        }
    };
    match facts.get("type").or_else(|| facts.get("type_of_example")) {
        Some(Value::String(t)) => add(t),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).for_each(&mut add),
        _ => {
            for key in ["anyOf", "oneOf"] {
                for member in facts.get(key).and_then(Value::as_array).into_iter().flatten() {
                    production_types(member).iter().for_each(|t| add(t));
                }
            }
        }
    }
    out
}

/// One production name being compared, for keys and messages.
struct Subject<'r> {
    reference: &'r str,
    operation: &'r str,
    title: String,
    place: &'static str,
}

impl Subject<'_> {
    fn key(&self, name: &str, kind: Kind, value: Option<&Value>) -> Key {
        let value = value.map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
        Key { operation: self.operation.to_string(), place: self.place, name: name.to_string(), kind, value }
    }

    fn say(&self, name: &str, what: &str) -> String {
        let shown = if name.is_empty() { "the body".to_string() } else { format!("`{name}`") };
        format!("{}: {}: production's {} {shown} {what}", self.reference, self.title, place_words(self.place))
    }
}

/// Production's type, enum values and item type of one name against ours.
fn compare_facts(
    spec: Spec<'_>,
    subject: &Subject<'_>,
    name: &str,
    facts: &Value,
    ours: &[At<'_>],
    out: &mut Findings,
) {
    for wanted in production_types(facts) {
        if !admits_type(ours, &wanted) {
            let what = format!("is {wanted}, but {} admits {}", spec.location(ours), describe_types(ours));
            out.differ(subject.key(name, Kind::Type, None), subject.say(name, &what));
        }
    }
    for value in facts.get("enum").and_then(Value::as_array).into_iter().flatten() {
        if !admits_value(ours, value) {
            let what = format!("may be {value}, which {} does not admit", spec.location(ours));
            out.differ(subject.key(name, Kind::Enum, Some(value)), subject.say(name, &what));
        }
    }
    if let Some(items) = facts.get("items") {
        let our_items: Vec<At<'_>> = ours
            .iter()
            .filter_map(|node| {
                let items = node.schema.get("items")?;
                Some(spec.alternatives(At { schema: items, pointer: format!("{}/items", node.pointer) }))
            })
            .flatten()
            .collect();
        if !our_items.is_empty() {
            compare_facts(spec, subject, &format!("{name}[]"), items, &our_items, out);
        }
    }
}

/// Every field production lists below a body, response or result against
/// the schema at `root`. A field whose parent is missing is not reported
/// again. `required`: production's required fields must be required in ours.
fn compare_fields(
    spec: Spec<'_>,
    subject: &Subject<'_>,
    root: At<'_>,
    entry: &Value,
    required: bool,
    out: &mut Findings,
) {
    compare_facts(spec, subject, "", entry, &spec.alternatives(root.clone()), out);
    let fields = entry.get("fields").and_then(Value::as_object).into_iter().flatten();
    let mut gone: Vec<String> = Vec::new();
    for (name, facts) in fields {
        if gone.iter().any(|g| name.strip_prefix(g.as_str()).is_some_and(|rest| rest.starts_with(['.', '[']))) {
            continue;
        }
        match spec.walk(root.clone(), name) {
            Walk::Found { nodes, holders } => {
                compare_facts(spec, subject, name, facts, &nodes, out);
                let last = segments(name).pop().unwrap_or_default();
                let listed = |node: &At<'_>| {
                    node.schema.get("required").and_then(Value::as_array).is_some_and(|r| r.contains(&json!(last)))
                };
                if required && facts.get("required") == Some(&Value::Bool(true)) && !holders.iter().any(listed) {
                    let what = format!("is required, but {} does not require `{last}`", spec.location(&holders));
                    out.differ(subject.key(name, Kind::Required, None), subject.say(name, &what));
                }
            }
            Walk::Stopped { parents, segment } => {
                let what = if segment == "[]" {
                    format!("is missing: {} is not an array", spec.location(&parents))
                } else {
                    // The objects that list properties, where the name belongs.
                    let objects: Vec<At<'_>> =
                        parents.iter().filter(|p| p.schema.get("properties").is_some()).cloned().collect();
                    let parents = if objects.is_empty() { parents } else { objects };
                    format!("is missing: {} has no property `{segment}`", spec.location(&parents))
                };
                out.differ(subject.key(name, Kind::Missing, None), subject.say(name, &what));
                gone.push(name.clone());
            }
        }
    }
}

/// A production name without the `[]` some clients append to array parameters.
fn parameter_name(name: &str) -> &str {
    name.strip_suffix("[]").unwrap_or(name)
}

/// Production's URL of an operation: host and path, `:name` as `{name}`.
fn production_url(production: &Value) -> String {
    let host = production["host"].as_str().unwrap_or_default().trim_end_matches('/');
    let path = production["path"].as_str().unwrap_or_default();
    let path: Vec<String> = path
        .split('/')
        .map(|s| s.strip_prefix(':').map_or_else(|| s.to_string(), |name| format!("{{{name}}}")))
        .collect();
    format!("{host}{}", path.join("/"))
}

/// A server's URL with its variables at their defaults, but for `keep`.
fn server_url(server: &Value, keep: &[&str]) -> String {
    let mut url = server["url"].as_str().unwrap_or_default().to_string();
    for (name, variable) in server["variables"].as_object().into_iter().flatten() {
        if !keep.contains(&name.as_str())
            && let Some(default) = variable["default"].as_str()
        {
            url = url.replace(&format!("{{{name}}}"), default);
        }
    }
    url
}

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// Compares one REST operation of a reference with ours.
fn compare_operation(openapi: Spec<'_>, reference: &str, operation: &str, entry: &Value, out: &mut Findings) {
    let paths = openapi.root["paths"].as_object().expect("the document has paths");
    let found = paths.iter().find_map(|(template, item)| {
        let method = METHODS.into_iter().find(|m| item.get(*m).is_some_and(|op| op["operationId"] == operation))?;
        Some((template, item, method))
    });
    let Some((template, item, method)) = found else {
        out.failures.push(format!(
            "{reference}: production's operation {operation} is not in {}; an operationId changed?",
            openapi.file
        ));
        return;
    };
    let op = &item[method];
    let base = format!("/paths/{}", escape(template));
    let title = format!("{operation} ({} {template})", method.to_uppercase());

    let production = &entry["production"];
    let server = op["servers"].get(0).or_else(|| item["servers"].get(0)).or_else(|| openapi.root["servers"].get(0));
    let ours = format!("{}{template}", server.map(|s| server_url(s, &[])).unwrap_or_default());
    let theirs = production_url(production);
    if production["method"].as_str() != Some(&method.to_uppercase()) || ours != theirs {
        out.failures.push(format!(
            "{reference}: {title}: production's operation is {} {theirs}, ours {} {ours}",
            production["method"].as_str().unwrap_or("?"),
            method.to_uppercase()
        ));
    }

    // Parameters: the path item's, then the operation's.
    let mut parameters: Vec<(String, String, At<'_>)> = Vec::new();
    for pointer in [format!("{base}/parameters"), format!("{base}/{method}/parameters")] {
        let count = openapi.root.pointer(&pointer).and_then(Value::as_array).map_or(0, Vec::len);
        for i in 0..count {
            let parameter = openapi.follow(openapi.at(format!("{pointer}/{i}")));
            let place = parameter.schema["in"].as_str().unwrap_or_default().to_string();
            let name = parameter_name(parameter.schema["name"].as_str().unwrap_or_default()).to_string();
            let schema = openapi.at(format!("{}/schema", parameter.pointer));
            parameters.push((place, name, schema));
        }
    }
    for (place, key) in [("path", "path_params"), ("query", "query_params")] {
        let subject = Subject { reference, operation, title: title.clone(), place };
        for (name, facts) in entry[key].as_object().into_iter().flatten() {
            let name = parameter_name(name);
            match parameters.iter().find(|(p, n, _)| p == place && n == name) {
                Some((_, _, schema)) => {
                    compare_facts(openapi, &subject, name, facts, &openapi.alternatives(schema.clone()), out);
                }
                None => {
                    let what = format!(
                        "is missing: {}#{base}/{method}/parameters has no {place} parameter of that name",
                        openapi.file
                    );
                    out.differ(subject.key(name, Kind::Missing, None), subject.say(name, &what));
                }
            }
        }
    }

    if let Some(body) = entry.get("body") {
        let subject = Subject { reference, operation, title: title.clone(), place: "body" };
        let pointer = format!("{base}/{method}/requestBody");
        match openapi.root.pointer(&pointer) {
            Some(_) => {
                let request = openapi.follow(openapi.at(pointer));
                let schema = openapi.at(format!("{}/content/application~1json/schema", request.pointer));
                compare_fields(openapi, &subject, schema, body, false, out);
            }
            None => {
                let what = format!("is missing: {}#{base}/{method} has no requestBody", openapi.file);
                out.differ(subject.key("", Kind::Missing, None), subject.say("", &what));
            }
        }
    }

    for (status, response) in entry["responses"].as_object().into_iter().flatten() {
        if !status.starts_with('2') {
            continue;
        }
        let subject = Subject { reference, operation, title: format!("{title} {status}"), place: "response" };
        let pointer = format!("{base}/{method}/responses/{status}");
        if openapi.root.pointer(&pointer).is_none() {
            out.failures.push(format!(
                "{reference}: {title}: production answers {status}, which {}#{base}/{method}/responses does not declare",
                openapi.file
            ));
            continue;
        }
        let declared = openapi.follow(openapi.at(pointer));
        let schema_pointer = format!("{}/content/application~1json/schema", declared.pointer);
        if openapi.root.pointer(&schema_pointer).is_some() {
            compare_fields(openapi, &subject, openapi.at(schema_pointer), response, false, out);
        } else if response["fields"].as_object().is_some_and(|f| !f.is_empty()) {
            let what = format!("is missing: {}#{} has no JSON body", openapi.file, declared.pointer);
            out.differ(subject.key("", Kind::Missing, None), subject.say("", &what));
        }
    }
}

/// Compares one JSON-RPC method of a reference with ours: the gateway URL's
/// path parameters, the `params` production shows by example, and every
/// result field, which must be required.
fn compare_rpc_method(openrpc: Spec<'_>, reference: &str, method: &str, entry: &Value, out: &mut Findings) {
    let methods = openrpc.root["methods"].as_array().expect("the document has methods");
    let Some(index) = methods.iter().position(|m| m["name"] == method) else {
        out.failures.push(format!("{reference}: production's method {method} is not in {}", openrpc.file));
        return;
    };
    let base = format!("/methods/{index}");
    let title = method.to_string();

    let production = &entry["production"];
    let path_params: Vec<&str> =
        entry["path_params"].as_object().into_iter().flatten().map(|(k, _)| k.as_str()).collect();
    let server = &openrpc.root["servers"][0];
    let ours = server_url(server, &path_params);
    let theirs = production_url(production);
    if ours != theirs {
        out.failures.push(format!("{reference}: {method}: production's gateway URL is {theirs}, ours {ours}"));
    }
    let subject = Subject { reference, operation: method, title: title.clone(), place: "path" };
    for (name, facts) in entry["path_params"].as_object().into_iter().flatten() {
        let pointer = format!("/servers/0/variables/{}", escape(name));
        if openrpc.root.pointer(&pointer).is_some() {
            compare_facts(openrpc, &subject, name, facts, &[openrpc.at(pointer)], out);
        } else {
            let what = format!("is missing: {}#/servers/0/variables has no variable of that name", openrpc.file);
            out.differ(subject.key(name, Kind::Missing, None), subject.say(name, &what));
        }
    }

    let subject = Subject { reference, operation: method, title: title.clone(), place: "params" };
    for (name, facts) in entry["params"].as_object().into_iter().flatten() {
        // `[0].address`: the first parameter's `address`.
        let (position, rest) = name
            .strip_prefix('[')
            .and_then(|s| s.split_once(']'))
            .and_then(|(i, rest)| Some((i.parse::<usize>().ok()?, rest.trim_start_matches('.'))))
            .unwrap_or_else(|| panic!("{reference}: {method}: params entry {name} is not [i] or [i].field"));
        let pointer = format!("{base}/params/{position}/schema");
        if openrpc.root.pointer(&pointer).is_none() {
            let what = format!("is missing: {}#{base}/params has no parameter {position}", openrpc.file);
            out.differ(subject.key(name, Kind::Missing, None), subject.say(name, &what));
            continue;
        }
        let fields = json!({ "fields": { rest: facts } });
        let fields = if rest.is_empty() { facts.clone() } else { fields };
        compare_fields(openrpc, &subject, openrpc.at(pointer), &fields, false, out);
    }

    if let Some(result) = entry.get("result") {
        let subject = Subject { reference, operation: method, title, place: "result" };
        compare_fields(openrpc, &subject, openrpc.at(format!("{base}/result/schema")), result, true, out);
    }
}

/// A reference file: its name and content.
struct Reference {
    file: String,
    json: Value,
}

fn references() -> Vec<Reference> {
    let dir = repository_root().join(REFERENCE_DIR);
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("a readable directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    assert!(!paths.is_empty(), "no reference in {}", dir.display());
    paths.into_iter().map(|path| Reference { file: file_name(&path), json: read_json(&path) }).collect()
}

fn file_name(path: &Path) -> String {
    path.file_name().expect("a file").to_string_lossy().into_owned()
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every difference between the references and the two documents.
fn compare(references: &[Reference], openapi: &Value, openrpc: &Value) -> Findings {
    let openapi = Spec { root: openapi, file: "spec/openapi.yaml" };
    let openrpc = Spec { root: openrpc, file: "spec/openrpc.json" };
    let mut out = Findings::default();
    for reference in references {
        for (operation, entry) in reference.json["operations"].as_object().into_iter().flatten() {
            compare_operation(openapi, &reference.file, operation, entry, &mut out);
        }
        for (method, entry) in reference.json["jsonrpc_methods"].as_object().into_iter().flatten() {
            compare_rpc_method(openrpc, &reference.file, method, entry, &mut out);
        }
    }
    out
}

/// One entry of `spec/deliberate-differences.yaml`.
struct Deliberate {
    key: Key,
    /// Which entry, for messages.
    index: usize,
}

/// The entries of the list; a malformed entry is a failure of its own.
fn parse_deliberate(yaml: &str) -> Result<Vec<Deliberate>, Vec<String>> {
    let entries: Value = serde_norway::from_str(yaml).map_err(|e| vec![format!("{DIFFERENCES}: {e}")])?;
    let entries = match entries {
        Value::Array(entries) => entries,
        Value::Null => Vec::new(),
        _ => return Err(vec![format!("{DIFFERENCES}: the file is a list of differences")]),
    };
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let problem = |what: &str| format!("{DIFFERENCES}: entry {} ({entry}): {what}", index + 1);
        let text = |key: &str| entry.get(key).and_then(Value::as_str).map(str::trim).filter(|s| !s.is_empty());
        let allowed = ["operation", "in", "name", "kind", "value", "reason"];
        if let Some(unknown) =
            entry.as_object().into_iter().flatten().map(|(k, _)| k).find(|k| !allowed.contains(&k.as_str()))
        {
            errors.push(problem(&format!("unknown key {unknown}; the keys are {}", allowed.join(", "))));
            continue;
        }
        let kind = Kind::ALL.into_iter().find(|k| text("kind") == Some(k.as_str()));
        let place = PLACES.into_iter().find(|p| text("in") == Some(*p));
        let (Some(operation), Some(place), Some(kind), Some(_)) = (text("operation"), place, kind, text("reason"))
        else {
            errors.push(problem(&format!(
                "needs operation, in ({}), name, kind ({}) and a reason",
                PLACES.join("|"),
                Kind::ALL.map(Kind::as_str).join("|")
            )));
            continue;
        };
        let Some(name) = entry.get("name").and_then(Value::as_str) else {
            errors.push(problem("needs a name (production's name; \"\" for a whole body)"));
            continue;
        };
        let value = entry.get("value").map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string));
        if (kind == Kind::Enum) != value.is_some() {
            errors.push(problem("an enum difference names its value; no other kind has one"));
            continue;
        }
        let key = Key { operation: operation.to_string(), place, name: name.to_string(), kind, value };
        if out.iter().any(|d: &Deliberate| d.key == key) {
            errors.push(problem("listed twice"));
            continue;
        }
        out.push(Deliberate { key, index });
    }
    if errors.is_empty() { Ok(out) } else { Err(errors) }
}

/// The failures left once the deliberate differences are taken out, and a
/// failure for each listed difference that is not found.
fn judge(findings: Findings, deliberate: &[Deliberate]) -> Vec<String> {
    let mut failures = findings.failures;
    for (key, message) in &findings.differences {
        if !deliberate.iter().any(|d| &d.key == key) {
            failures.push(format!("{message}\n    (if deliberate, list in {DIFFERENCES}: {key})"));
        }
    }
    for listed in deliberate {
        if !findings.differences.contains_key(&listed.key) {
            failures.push(format!(
                "{DIFFERENCES}: entry {} {} no longer differs; remove it",
                listed.index + 1,
                listed.key
            ));
        }
    }
    failures
}

fn deliberate_differences() -> Vec<Deliberate> {
    let path = repository_root().join(DIFFERENCES);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse_deliberate(&text).unwrap_or_else(|errors| panic!("{}", errors.join("\n")))
}

#[test]
fn the_specs_have_every_name_production_documents_but_the_listed_differences() {
    let findings = compare(&references(), Document::OpenApi.raw(), Document::OpenRpc.raw());
    let failures = judge(findings, &deliberate_differences());
    let mut message = String::new();
    for failure in &failures {
        let _ = writeln!(message, "- {failure}");
    }
    assert!(
        failures.is_empty(),
        "{} difference(s) from production's published reference ({REFERENCE_DIR}/): add each name to spec/, \
         or list it with its reason in {DIFFERENCES}\n{message}",
        failures.len()
    );
}

#[test]
fn each_reference_names_its_source() {
    for reference in references() {
        let source = &reference.json["source"];
        for key in ["repo", "path", "commit", "date"] {
            let value = source[key].as_str().unwrap_or_default();
            assert!(!value.is_empty(), "{}: source.{key} is missing; refresh it with {REFRESH}", reference.file);
        }
        let commit = source["commit"].as_str().unwrap_or_default();
        assert!(
            commit.len() == 40 && commit.bytes().all(|b| b.is_ascii_hexdigit()),
            "{}: source.commit {commit:?} is not a full commit hash",
            reference.file
        );
        let date = source["date"].as_str().unwrap_or_default();
        assert!(
            chrono::DateTime::parse_from_rfc3339(date).is_ok(),
            "{}: source.date {date:?} is not an RFC 3339 date",
            reference.file
        );
    }
}

#[test]
fn every_operation_of_ours_has_a_reference() {
    let references = references();
    let documented: BTreeSet<&str> = references
        .iter()
        .flat_map(|r| {
            let operations = r.json["operations"].as_object().into_iter().flatten();
            let methods = r.json["jsonrpc_methods"].as_object().into_iter().flatten();
            operations.chain(methods).map(|(name, _)| name.as_str())
        })
        .collect();
    let paths = Document::OpenApi.raw()["paths"].as_object().unwrap();
    let ours = paths
        .values()
        .flat_map(|item| METHODS.into_iter().filter_map(|m| item.get(m)?["operationId"].as_str()))
        .chain(["eth_getTokenPrice", "eth_getTokenBalances", "eth_getTokenMetadata"]);
    let missing: Vec<&str> = ours.filter(|op| !documented.contains(op)).collect();
    assert!(
        missing.is_empty(),
        "no production reference for {missing:?}: add them to OPERATIONS in {REFRESH} and refresh"
    );
}

// The comparison itself, on small documents.

fn tiny_openapi() -> Value {
    json!({
        "servers": [{ "url": "{base}", "variables": { "base": { "default": "https://api.example.org" } } }],
        "paths": {
            "/things/{id}": {
                "get": {
                    "operationId": "getThing",
                    "parameters": [
                        { "name": "id", "in": "path", "required": true, "schema": { "type": "string" } },
                        { "name": "chainId", "in": "query", "schema": { "type": "array", "items": { "$ref": "#/components/schemas/Chain" } } },
                        { "name": "limit", "in": "query", "schema": { "type": "integer", "maximum": 100 } }
                    ],
                    "responses": { "200": { "content": { "application/json": { "schema": { "$ref": "#/components/schemas/Page" } } } } }
                }
            }
        },
        "components": { "schemas": {
            "Chain": { "type": "string", "enum": ["0x1", "0x89"] },
            "Page": { "type": "object", "properties": { "result": { "type": "array", "items": { "$ref": "#/components/schemas/Thing" } } } },
            "Thing": { "allOf": [{ "$ref": "#/components/schemas/Named" }, { "type": "object", "properties": { "price": { "type": "number", "nullable": true } } }] },
            "Named": { "type": "object", "properties": { "name": { "type": "string" } } }
        } }
    })
}

fn tiny_reference(query: Value, fields: Value) -> Reference {
    let json = json!({ "operations": { "getThing": {
        "production": { "method": "GET", "host": "https://api.example.org", "path": "/things/:id" },
        "path_params": { "id": { "type": "string", "required": true } },
        "query_params": query,
        "responses": { "200": { "type": "object", "fields": fields } }
    } } });
    Reference { file: "tiny.json".into(), json }
}

fn tiny_findings(query: Value, fields: Value) -> Findings {
    compare(&[tiny_reference(query, fields)], &tiny_openapi(), &json!({ "methods": [] }))
}

#[test]
fn what_ours_has_is_no_difference() {
    let findings = tiny_findings(
        // `chainId[]` is `chainId`; production's `number` is our `integer`.
        json!({ "chainId[]": { "type": "array", "items": { "type": "string", "enum": ["0x1"] } }, "limit": { "type": "number" } }),
        json!({ "result": { "type": "array" }, "result[].name": { "type": "string" }, "result[].price": { "type": "number" } }),
    );
    assert!(findings.failures.is_empty(), "{:?}", findings.failures);
    assert!(findings.differences.is_empty(), "{:?}", findings.differences);
}

#[test]
fn a_missing_name_is_reported_with_where_ours_should_have_it() {
    let findings = tiny_findings(
        json!({ "status": { "type": "string" } }),
        json!({ "result[].category": { "type": "string" }, "result[].category.kind": { "type": "string" } }),
    );
    let messages: Vec<&String> = findings.differences.values().collect();
    assert_eq!(messages.len(), 2, "a missing field's children are not reported again: {messages:?}");
    assert!(
        messages.iter().any(|m| m.contains("query parameter `status` is missing")
            && m.contains("spec/openapi.yaml#/paths/~1things~1{id}/get/parameters")),
        "{messages:?}"
    );
    assert!(
        messages.iter().any(|m| m.contains("response field `result[].category` is missing")
            && m.contains("#/components/schemas/Named")
            && m.contains("#/components/schemas/Thing/allOf/1")
            && m.contains("has no property `category`")),
        "{messages:?}"
    );
}

#[test]
fn a_type_or_enum_value_ours_does_not_admit_is_reported() {
    let findings = tiny_findings(
        json!({ "chainId": { "type": "array", "items": { "type": "string", "enum": ["0x1", "0x31769"] } } }),
        json!({ "result[].price": { "type": "string" } }),
    );
    let keys: Vec<String> = findings.differences.keys().map(ToString::to_string).collect();
    assert_eq!(
        keys,
        [
            r#"{operation: getThing, in: query, name: "chainId[]", kind: enum, value: "0x31769"}"#,
            r#"{operation: getThing, in: response, name: "result[].price", kind: type}"#,
        ],
        "{:?}",
        findings.differences
    );
}

#[test]
fn a_listed_difference_excuses_exactly_itself_and_must_still_differ() {
    let findings = tiny_findings(json!({ "status": { "type": "string" } }), json!({}));
    let listed = parse_deliberate(
        "- {operation: getThing, in: query, name: status, kind: missing, reason: not served}\n\
         - {operation: getThing, in: query, name: limit, kind: type, reason: was a string once}\n",
    )
    .unwrap();
    let failures = judge(findings, &listed);
    assert_eq!(failures.len(), 1, "{failures:?}");
    assert!(failures[0].contains("entry 2") && failures[0].contains("no longer differs; remove it"), "{failures:?}");
}

#[test]
fn a_malformed_listed_difference_is_refused() {
    for text in [
        "- {operation: getThing, in: query, name: status, kind: missing}\n",
        "- {operation: getThing, in: header, name: status, kind: missing, reason: r}\n",
        "- {operation: getThing, in: query, name: chain, kind: enum, reason: r}\n",
        "- {operation: getThing, in: query, name: status, kind: missing, reason: r, because: r}\n",
    ] {
        assert!(parse_deliberate(text).is_err(), "accepted: {text}");
    }
}
