//! An OpenRPC document -> a jsonrpsee API trait: `spec/openrpc.json` (the
//! gateway, `EthApi`) and `spec/openrpc-cheats.json` (chain control for
//! tests, `CheatApi`), each into a module of `w3api-rpc` ([`Target`]).
//!
//! No OpenRPC generator for jsonrpsee exists, so this one is ours. It reads
//! the document as JSON and emits, with `quote`:
//! - the API trait, a jsonrpsee `#[rpc]` trait with one method per OpenRPC
//!   method: positional parameters as typed arguments (`Option` for trailing
//!   optional ones), results as `w3api-types` types (`Option` where the
//!   result may be null). Its client half exists with the crate's `client`
//!   feature and its server half with `server`, so that a server does not
//!   build an HTTP client and an SDK user does not build a server;
//! - `method`, the wire name of each method as a constant, so that code
//!   which routes or caches by method name never spells one by hand, and
//!   `method::CHANGES_STATE`, those marked `x-changes-state` (which a
//!   client's retries never send again), and `method::EXECUTES`, those
//!   marked `x-executes` (which run the EVM within the server's budget);
//!   a method marked `x-kept-per-key` (a filter, kept for the caller's API
//!   key) reads the request's extensions on the server's side;
//! - `ErrorCode`, the errors of `components.errors`;
//! - `limits`, the `maxItems` of the component schemas' lists, so that a
//!   server checks the spec's own numbers (`ADDRESS_FILTER_MAX_ITEMS` for
//!   the list form of `AddressFilter`, `LOG_FILTER_TOPICS_MAX_ITEMS` for the
//!   property `topics` of `LogFilter`);
//! - `UNANSWERABLE_METHODS`, the standard methods of `x-unanswerable-methods`
//!   with the reason a server without EVM state gives for each (when the
//!   document has that list);
//! - one method per RPC method on `crate::RpcClient` (typed errors) and on
//!   `crate::Batch` (typed batch results), the hand-written client of
//!   `w3api-rpc` (with the `client` feature), so that no signature is
//!   written by hand.
//!
//! It supports the constructs the spec uses. Anything else (named
//! parameters, a schema it cannot map to a type, an unknown key) is an error
//! that names it, so nothing in the spec is silently left out.

use std::path::Path;

use heck::{ToShoutySnakeCase, ToSnakeCase, ToUpperCamelCase};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use serde_json::{Map, Value};

use crate::{CHEATS_FILE, CHEATS_SPEC, Error, GeneratedFile, OPENRPC_SPEC, RPC_FILE, format};

/// A document and what it becomes.
pub(crate) struct Target {
    spec: &'static str,
    file: &'static str,
    /// The API trait (`EthApi`: jsonrpsee adds `EthApiClient` and `EthApiServer`).
    api: &'static str,
}

/// The gateway.
pub(crate) const GATEWAY: Target = Target { spec: OPENRPC_SPEC, file: RPC_FILE, api: "EthApi" };
/// The chain-control methods.
pub(crate) const CHEATS: Target = Target { spec: CHEATS_SPEC, file: CHEATS_FILE, api: "CheatApi" };

/// The namespace whose prefix Rust method names leave out
/// (`eth_getBlockByNumber` is `get_block_by_number`; `net_version` stays
/// `net_version`).
const MAIN_NAMESPACE: &str = "eth_";

/// Generates the module of `target` from its document's `text`.
pub(crate) fn generate(text: &str, target: &Target) -> Result<GeneratedFile, Error> {
    let document: Value = serde_json::from_str(text).map_err(|e| Error::OpenRpc(format!("{}: {e}", target.spec)))?;
    let api = Api::read(&document).map_err(|e| match e {
        Error::OpenRpc(message) => Error::OpenRpc(format!("{}: {message}", target.spec)),
        other => other,
    })?;
    let path = Path::new(target.file).to_path_buf();
    let contents = format::rust_file(&path, target.spec, api.emit(target))?;
    Ok(GeneratedFile { path, contents })
}

fn unsupported(at: &str, what: impl std::fmt::Display) -> Error {
    Error::OpenRpc(format!("{at}: {what} is not supported by the RPC generator (xtask/src/rpc.rs)"))
}

/// Fails on keys outside `allowed` (extensions `x-*` excepted).
fn only_keys(at: &str, object: &Map<String, Value>, allowed: &[&str]) -> Result<(), Error> {
    match object.keys().find(|k| !allowed.contains(&k.as_str()) && !k.starts_with("x-")) {
        Some(key) => Err(unsupported(at, format_args!("key {key:?}"))),
        None => Ok(()),
    }
}

fn object<'a>(at: &str, value: &'a Value) -> Result<&'a Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| Error::OpenRpc(format!("{at}: expected an object")))
}

fn string<'a>(at: &str, object: &'a Map<String, Value>, key: &str) -> Result<&'a str, Error> {
    object.get(key).and_then(Value::as_str).ok_or_else(|| Error::OpenRpc(format!("{at}: {key:?} must be a string")))
}

struct Api {
    title: String,
    methods: Vec<Method>,
    errors: Vec<ErrorCode>,
    /// `None` when the document has no `x-unanswerable-methods`.
    unanswerable: Option<Vec<(String, String)>>,
    limits: Vec<Limit>,
}

/// The `maxItems` of a list in a component schema.
struct Limit {
    constant: syn::Ident,
    max: u64,
    doc: String,
}

struct Method {
    /// Name on the wire (`eth_getBlockByNumber`).
    wire_name: String,
    doc: String,
    params: Vec<Param>,
    result: TokenStream,
    /// `x-changes-state`: sending it twice may do twice what it does, so a
    /// client never sends it again on its own.
    changes_state: bool,
    /// `x-executes`: it runs the EVM, within the server's time budget.
    executes: bool,
    /// `x-kept-per-key`: what it makes is kept for the caller's API key, so
    /// the server's half reads the request's extensions (`with_extensions`).
    kept_per_key: bool,
    /// `x-websocket-only`: it works on a WebSocket only, whose connection
    /// holds what it makes (a subscription), so a server answers it there
    /// rather than through the API trait.
    websocket_only: bool,
}

struct Param {
    ident: syn::Ident,
    ty: TokenStream,
    required: bool,
    /// Whether its schema is a hex string the spec writes with a `0x`
    /// prefix (`Hash32`, `Address`, `Bytes`, `Uint`…), which the server
    /// checks before the types read it (they would take it without one).
    prefixed: bool,
}

struct ErrorCode {
    variant: syn::Ident,
    code: i64,
    message: String,
}

impl Api {
    fn read(document: &Value) -> Result<Api, Error> {
        let root = object("document", document)?;
        only_keys(
            "document",
            root,
            &["openrpc", "info", "servers", "methods", "components", "externalDocs", "$schema"],
        )?;
        let components = root.get("components").map(|c| object("components", c)).transpose()?;
        if let Some(components) = components {
            only_keys("components", components, &["schemas", "errors"])?;
        }
        let schemas = components.and_then(|c| c.get("schemas")).and_then(Value::as_object);
        let errors = components.and_then(|c| c.get("errors")).and_then(Value::as_object);
        let methods =
            root.get("methods").and_then(Value::as_array).ok_or_else(|| Error::OpenRpc("no methods".into()))?;
        let title = root.get("info").and_then(|i| i.get("title")).and_then(Value::as_str).unwrap_or("JSON-RPC API");
        Ok(Api {
            title: title.to_string(),
            methods: methods.iter().map(|m| Method::read(m, schemas, errors)).collect::<Result<_, _>>()?,
            errors: errors.map(read_errors).transpose()?.unwrap_or_default(),
            unanswerable: read_unanswerable(root)?,
            limits: schemas
                .map(read_limits)
                .unwrap_or_default()
                .into_iter()
                .chain(read_param_limits(methods))
                .collect(),
        })
    }

    fn emit(&self, target: &Target) -> TokenStream {
        let api = format_ident!("{}", target.api);
        let client = format_ident!("{}Client", target.api);
        let api_doc = format!(
            "{}, as a jsonrpsee API: `{api}Client` (feature `client`) is implemented for every jsonrpsee \
             client, and the server implements `{api}Server` (feature `server`), so the two cannot \
             disagree on names, parameters or types.",
            self.title
        );
        let module_doc = format!(" {} (`{}`).", self.title, target.spec);
        let methods = self.methods.iter().map(Method::emit_trait_method);
        let method_names = self.methods.iter().map(Method::emit_name_constant);
        let method_constants = self.methods.iter().map(Method::name_constant);
        let changing_constants = self.methods.iter().filter(|m| m.changes_state).map(Method::name_constant);
        let executing_constants = self.methods.iter().filter(|m| m.executes).map(Method::name_constant);
        let websocket_constants = self.methods.iter().filter(|m| m.websocket_only).map(Method::name_constant);
        let mut prefixed: Vec<(&str, Vec<usize>)> = self
            .methods
            .iter()
            .map(|m| {
                (
                    m.wire_name.as_str(),
                    m.params.iter().enumerate().filter(|(_, p)| p.prefixed).map(|(i, _)| i).collect(),
                )
            })
            .filter(|(_, positions): &(&str, Vec<usize>)| !positions.is_empty())
            .collect();
        prefixed.sort();
        let prefixed = prefixed.iter().map(|(name, positions)| quote!((#name, &[#(#positions),*])));
        let client_methods = self.methods.iter().map(|m| m.emit_client_method(&client));
        let batch_methods = self.methods.iter().map(Method::emit_batch_method);
        let error_codes = emit_error_codes(&self.errors);
        let limits = (!self.limits.is_empty()).then(|| {
            let items = self.limits.iter().map(|Limit { constant, max, doc }| {
                let max = *max as usize;
                quote! {
                    #[doc = #doc]
                    pub const #constant: usize = #max;
                }
            });
            quote! {
                /// The most items each list of the spec's schemas holds (`maxItems`),
                /// and the largest value of each method parameter that has one (`maximum`).
                pub mod limits {
                    #(#items)*
                }
            }
        });
        let unanswerable = self.unanswerable.as_ref().map(|list| {
            let (names, reasons): (Vec<_>, Vec<_>) = list.iter().cloned().unzip();
            let count = names.len();
            quote! {
                /// Standard methods that need EVM execution, contract state or a
                /// transaction pool (`x-unanswerable-methods`), each with the
                /// reason a server without them gives.
                pub const UNANSWERABLE_METHODS: [(&str, &str); #count] = [#((#names, #reasons)),*];
            }
        });
        let lints = format::generated_code_lints();
        quote! {
            #![doc = #module_doc]
            #lints

            #[cfg(any(feature = "client", feature = "server"))]
            use jsonrpsee::proc_macros::rpc;

            #[doc = #api_doc]
            // jsonrpsee's macro generates only the halves it is asked for; the
            // trait's `#[method]` attributes mean nothing without it.
            #[cfg(any(feature = "client", feature = "server"))]
            #[cfg_attr(all(feature = "client", feature = "server"), rpc(client, server))]
            #[cfg_attr(all(feature = "client", not(feature = "server")), rpc(client))]
            #[cfg_attr(all(feature = "server", not(feature = "client")), rpc(server))]
            pub trait #api {
                #(#methods)*
            }

            /// The wire name of each method of the API.
            pub mod method {
                #(#method_names)*
                /// Every method, in the spec's order.
                pub const ALL: &[&str] = &[#(#method_constants),*];
                /// The methods that change state (`x-changes-state`): sent
                /// twice, they may do twice what they do, so a client never
                /// sends them again on its own; every other one is a read.
                pub const CHANGES_STATE: &[&str] = &[#(#changing_constants),*];
                /// The methods that run the EVM (`x-executes`): each call of
                /// them is stopped once the request's time budget is spent.
                pub const EXECUTES: &[&str] = &[#(#executing_constants),*];
                /// The methods that work on a WebSocket only (`x-websocket-only`):
                /// its connection holds what they make, so a server answers them
                /// there; over HTTP they are refused.
                pub const WEBSOCKET_ONLY: &[&str] = &[#(#websocket_constants),*];
                /// The methods with parameters the spec writes as `0x`-prefixed
                /// hex (a hash, an address, bytes, a quantity), by name in
                /// order, with those parameters' positions: the server refuses
                /// one without its prefix, as geth does, before the types read
                /// it (they would take it).
                pub const PREFIXED_HEX_PARAMS: &[(&str, &[usize])] = &[#(#prefixed),*];
            }

            #error_codes

            #limits

            #unanswerable

            #[cfg(feature = "client")]
            impl crate::RpcClient {
                #(#client_methods)*
            }

            #[cfg(feature = "client")]
            impl crate::Batch<'_> {
                #(#batch_methods)*
            }
        }
    }
}

impl Method {
    fn read(
        value: &Value,
        schemas: Option<&Map<String, Value>>,
        errors: Option<&Map<String, Value>>,
    ) -> Result<Method, Error> {
        let method = object("method", value)?;
        let wire_name = string("method", method, "name")?;
        let at = format!("method {wire_name}");
        only_keys(
            &at,
            method,
            &[
                "name",
                "summary",
                "description",
                "params",
                "result",
                "errors",
                "examples",
                "paramStructure",
                "tags",
                "x-changes-state",
                "x-executes",
                "x-kept-per-key",
                "x-websocket-only",
            ],
        )?;
        match method.get("paramStructure").and_then(Value::as_str) {
            None | Some("by-position") => {}
            Some(other) => return Err(unsupported(&at, format_args!("paramStructure {other:?}"))),
        }
        let params = method.get("params").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let params = params.iter().map(|p| Param::read(&at, p, schemas)).collect::<Result<Vec<_>, _>>()?;
        if let Some(pair) = params.windows(2).find(|pair| !pair[0].required && pair[1].required) {
            return Err(unsupported(
                &at,
                format_args!("the required parameter {} after an optional one", pair[1].ident),
            ));
        }
        let result = method.get("result").ok_or_else(|| unsupported(&at, "a method without a result"))?;
        let result_at = format!("{at} result");
        let result_object = object(&result_at, result)?;
        only_keys(&result_at, result_object, &["name", "schema", "summary", "description"])?;
        let result_schema =
            result_object.get("schema").ok_or_else(|| Error::OpenRpc(format!("{result_at}: no schema")))?;
        let flag = |key: &str| match method.get(key) {
            None => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(other) => Err(unsupported(&at, format_args!("{key} {other}, not a boolean"))),
        };
        Ok(Method {
            changes_state: flag("x-changes-state")?,
            executes: flag("x-executes")?,
            kept_per_key: flag("x-kept-per-key")?,
            websocket_only: flag("x-websocket-only")?,
            wire_name: wire_name.to_string(),
            doc: method_doc(method, &params, errors)?,
            result: rust_type(&result_at, result_schema, schemas)?,
            params,
        })
    }

    fn ident(&self) -> syn::Ident {
        let name = self.wire_name.strip_prefix(MAIN_NAMESPACE).unwrap_or(&self.wire_name);
        format_ident!("{}", name.to_snake_case())
    }

    /// `ETH_GET_BLOCK_BY_NUMBER` for `eth_getBlockByNumber`.
    fn name_constant(&self) -> syn::Ident {
        format_ident!("{}", self.wire_name.to_shouty_snake_case())
    }

    fn emit_name_constant(&self) -> TokenStream {
        let (name, constant) = (&self.wire_name, self.name_constant());
        let summary = self.doc.lines().next().unwrap_or_default();
        let doc = format!("`{name}`: {summary}");
        quote! {
            #[doc = #doc]
            pub const #constant: &str = #name;
        }
    }

    fn emit_trait_method(&self) -> TokenStream {
        let (doc, name, ident, result) = (&self.doc, &self.wire_name, self.ident(), &self.result);
        let params = self.params.iter().map(Param::declaration);
        let attribute = match self.kept_per_key {
            true => quote!(#[method(name = #name, param_kind = array, with_extensions)]),
            false => quote!(#[method(name = #name, param_kind = array)]),
        };
        quote! {
            #[doc = #doc]
            #attribute
            async fn #ident(&self, #(#params),*) -> jsonrpsee::core::RpcResult<#result>;
        }
    }

    fn emit_client_method(&self, client: &syn::Ident) -> TokenStream {
        let (doc, ident, result) = (&self.doc, self.ident(), &self.result);
        let params = self.params.iter().map(Param::declaration);
        let args = self.params.iter().map(|param| &param.ident);
        quote! {
            #[doc = #doc]
            pub async fn #ident(&self, #(#params),*) -> Result<#result, crate::RpcError> {
                #client::#ident(self.transport(), #(#args),*).await.map_err(|e| self.error(e))
            }
        }
    }

    fn emit_batch_method(&self) -> TokenStream {
        let (wire_name, constant, ident, result) = (&self.wire_name, self.name_constant(), self.ident(), &self.result);
        let doc = format!("Adds a `{wire_name}` call to the batch; its result is read back with the returned handle.");
        let params = self.params.iter().map(Param::declaration);
        // A trailing optional parameter that is absent is left out, as the
        // jsonrpsee client does, rather than sent as null.
        let inserts = self.params.iter().map(|Param { ident, required, .. }| {
            if *required {
                quote!(params.insert(#ident)?;)
            } else {
                quote!(if let Some(value) = #ident { params.insert(value)?; })
            }
        });
        let params_arg = if self.params.is_empty() { quote!(_) } else { quote!(params) };
        quote! {
            #[doc = #doc]
            pub fn #ident(&mut self, #(#params),*) -> crate::BatchItem<#result> {
                self.push(method::#constant, |#params_arg| {
                    #(#inserts)*
                    Ok(())
                })
            }
        }
    }
}

impl Param {
    fn read(method_at: &str, value: &Value, schemas: Option<&Map<String, Value>>) -> Result<Param, Error> {
        let param = object(method_at, value)?;
        let name = string(method_at, param, "name")?;
        let at = format!("{method_at} param {name}");
        only_keys(&at, param, &["name", "schema", "required", "summary", "description"])?;
        let required = match param.get("required") {
            Some(Value::Bool(required)) => *required,
            None => false,
            Some(other) => return Err(Error::OpenRpc(format!("{at}: \"required\" must be a boolean, not {other}"))),
        };
        let ident = syn::parse_str::<syn::Ident>(&name.to_snake_case())
            .map_err(|_| unsupported(&at, "a name that is not a Rust identifier"))?;
        let schema = param.get("schema").ok_or_else(|| Error::OpenRpc(format!("{at}: no schema")))?;
        let ty = rust_type(&at, schema, schemas)?;
        let prefixed = prefixed_hex(schema, schemas);
        Ok(Param { ident, ty: if required { ty } else { optional(ty) }, required, prefixed })
    }

    fn declaration(&self) -> TokenStream {
        let Param { ident, ty, .. } = self;
        quote!(#ident: #ty)
    }
}

/// Whether `schema` is a component that is a string with a `^0x` pattern.
fn prefixed_hex(schema: &Value, schemas: Option<&Map<String, Value>>) -> bool {
    let name = schema.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/"));
    let component = name.and_then(|name| schemas?.get(name));
    component.is_some_and(|c| {
        c.get("type") == Some(&Value::from("string"))
            && c.get("pattern").and_then(Value::as_str).is_some_and(|p| p.starts_with("^0x"))
    })
}

/// The Rust type of a schema: a component (by `$ref`), a boolean, a number,
/// a string, an array of one of those, or one of those or null.
fn rust_type(at: &str, schema: &Value, schemas: Option<&Map<String, Value>>) -> Result<TokenStream, Error> {
    let object = object(at, schema)?;
    if let Some(reference) = object.get("$ref").and_then(Value::as_str) {
        let name = reference
            .strip_prefix("#/components/schemas/")
            .ok_or_else(|| unsupported(at, format_args!("$ref {reference:?} outside #/components/schemas")))?;
        if !schemas.is_some_and(|s| s.contains_key(name)) {
            return Err(Error::OpenRpc(format!("{at}: $ref to {name}, which is not a component")));
        }
        let ident = format_ident!("{}", name);
        return Ok(quote!(w3api_types::rpc::#ident));
    }
    for keyword in ["oneOf", "anyOf"] {
        if let Some(alternatives) = object.get(keyword).and_then(Value::as_array) {
            let is_null = |s: &Value| s.get("type") == Some(&Value::from("null"));
            return match alternatives.as_slice() {
                [a, b] if is_null(b) && !is_null(a) => Ok(optional(rust_type(at, a, schemas)?)),
                [a, b] if is_null(a) && !is_null(b) => Ok(optional(rust_type(at, b, schemas)?)),
                _ => Err(unsupported(at, format_args!("{keyword} other than one schema or null"))),
            };
        }
    }
    match object.get("type").and_then(Value::as_str) {
        Some("boolean") => Ok(quote!(bool)),
        Some("null") => Ok(quote!(())),
        // A minimum or maximum above 0 is a bound the server checks (`limits`).
        Some("integer") if object.get("minimum").and_then(Value::as_u64).is_some() => Ok(quote!(u64)),
        Some("number") => Ok(quote!(f64)),
        // A pattern constrains the text, which the server checks; the Rust type stays a string.
        Some("string") if !object.contains_key("enum") => Ok(quote!(String)),
        Some("array") => {
            let items = object.get("items").ok_or_else(|| unsupported(at, "an array without items"))?;
            let item = rust_type(&format!("{at} items"), items, schemas)?;
            Ok(quote!(Vec<#item>))
        }
        _ => Err(unsupported(at, format_args!("the schema {schema}"))),
    }
}

fn optional(inner: TokenStream) -> TokenStream {
    quote!(Option<#inner>)
}

/// Summary, description, parameters and errors of a method, as rustdoc.
fn method_doc(
    method: &Map<String, Value>,
    params: &[Param],
    errors: Option<&Map<String, Value>>,
) -> Result<String, Error> {
    let name = method["name"].as_str().unwrap_or_default();
    let mut doc = String::new();
    for key in ["summary", "description"] {
        if let Some(text) = method.get(key).and_then(Value::as_str) {
            doc.push_str(&format!("{text}\n\n"));
        }
    }
    doc.push_str(&format!("Calls `{name}`"));
    if !params.is_empty() {
        let list: Vec<String> = params.iter().map(|p| format!("`{}`", p.ident)).collect();
        doc.push_str(&format!(" with the positional parameters {}", list.join(", ")));
    }
    doc.push('.');
    let method_errors = method.get("errors").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    if !method_errors.is_empty() {
        doc.push_str("\n\n# Errors\n");
        for error in method_errors {
            let (variant, code, message) = resolve_error(name, error, errors)?;
            doc.push_str(&format!("\n- `{code}` ([`ErrorCode::{variant}`]): {message}"));
        }
    }
    Ok(doc)
}

/// An error of a method: a `$ref` into `components.errors` or inline.
fn resolve_error(
    method: &str,
    error: &Value,
    errors: Option<&Map<String, Value>>,
) -> Result<(String, i64, String), Error> {
    let at = format!("method {method} errors");
    let (name, definition) = match error.get("$ref").and_then(Value::as_str) {
        Some(reference) => {
            let name = reference
                .strip_prefix("#/components/errors/")
                .ok_or_else(|| unsupported(&at, format_args!("$ref {reference:?}")))?;
            let definition = errors
                .and_then(|e| e.get(name))
                .ok_or_else(|| Error::OpenRpc(format!("{at}: $ref to {name}, which is not a component error")))?;
            (name, definition)
        }
        None => return Err(unsupported(&at, "an inline error (declare it in components.errors)")),
    };
    let (code, message) = error_fields(&at, definition)?;
    Ok((name.to_upper_camel_case(), code, message))
}

fn error_fields(at: &str, definition: &Value) -> Result<(i64, String), Error> {
    let object = object(at, definition)?;
    only_keys(at, object, &["code", "message", "data"])?;
    let code =
        object.get("code").and_then(Value::as_i64).ok_or_else(|| Error::OpenRpc(format!("{at}: no integer code")))?;
    if i32::try_from(code).is_err() {
        return Err(Error::OpenRpc(format!("{at}: code {code} does not fit a JSON-RPC error code")));
    }
    Ok((code, string(at, object, "message")?.to_string()))
}

/// `x-unanswerable-methods`: `[{name, reason}]`, none when absent.
fn read_unanswerable(root: &Map<String, Value>) -> Result<Option<Vec<(String, String)>>, Error> {
    let Some(list) = root.get("x-unanswerable-methods") else { return Ok(None) };
    let at = "x-unanswerable-methods";
    let list = list.as_array().ok_or_else(|| Error::OpenRpc(format!("{at}: expected an array")))?;
    list.iter()
        .map(|entry| {
            let entry = object(at, entry)?;
            only_keys(at, entry, &["name", "reason"])?;
            Ok((string(at, entry, "name")?.to_string(), string(at, entry, "reason")?.to_string()))
        })
        .collect::<Result<_, _>>()
        .map(Some)
}

/// The `maxItems` of each component schema that is a list in one of its
/// forms (`anyOf`), and of each of its properties that is one.
fn read_limits(schemas: &Map<String, Value>) -> Vec<Limit> {
    let max_items = |schema: &Value| schema.get("maxItems").and_then(Value::as_u64);
    let mut limits = Vec::new();
    for (name, schema) in schemas {
        let forms = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array);
        if let Some(max) = forms.into_iter().flatten().find_map(max_items) {
            let constant = format_ident!("{}_MAX_ITEMS", name.to_shouty_snake_case());
            limits.push(Limit { constant, max, doc: format!("Most items in the list form of `{name}`.") });
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (property, value) in properties.into_iter().flatten() {
            if let Some(max) = max_items(value) {
                let constant =
                    format_ident!("{}_{}_MAX_ITEMS", name.to_shouty_snake_case(), property.to_shouty_snake_case());
                limits.push(Limit { constant, max, doc: format!("Most items in `{property}` of `{name}`.") });
            }
        }
    }
    limits
}

/// The bounds of each method's integer parameters that has them: its
/// `maximum` (`OTS_SEARCH_TRANSACTIONS_BEFORE_PAGE_SIZE_MAX`), and its
/// `minimum` when above 0 (`..._MIN`).
fn read_param_limits(methods: &[Value]) -> Vec<Limit> {
    let mut limits = Vec::new();
    for method in methods {
        let name = method.get("name").and_then(Value::as_str).unwrap_or_default();
        for param in method.get("params").and_then(Value::as_array).into_iter().flatten() {
            let param_name = param.get("name").and_then(Value::as_str).unwrap_or_default();
            let bounds = [("maximum", "MAX", "largest"), ("minimum", "MIN", "smallest")];
            for (keyword, suffix, which) in bounds {
                let Some(bound) = param.pointer(&format!("/schema/{keyword}")).and_then(Value::as_u64) else {
                    continue;
                };
                if bound == 0 {
                    continue;
                }
                let constant =
                    format_ident!("{}_{}_{suffix}", name.to_shouty_snake_case(), param_name.to_shouty_snake_case());
                limits.push(Limit { constant, max: bound, doc: format!("The {which} `{param_name}` of `{name}`.") });
            }
        }
    }
    limits
}

fn read_errors(errors: &Map<String, Value>) -> Result<Vec<ErrorCode>, Error> {
    errors
        .iter()
        .map(|(name, definition)| {
            let (code, message) = error_fields(&format!("components.errors.{name}"), definition)?;
            Ok(ErrorCode { variant: format_ident!("{}", name.to_upper_camel_case()), code, message })
        })
        .collect()
}

fn emit_error_codes(errors: &[ErrorCode]) -> TokenStream {
    let count = errors.len();
    let variants = errors.iter().map(|e| &e.variant).collect::<Vec<_>>();
    let codes = errors.iter().map(|e| i32::try_from(e.code).expect("checked when read")).collect::<Vec<_>>();
    let messages = errors.iter().map(|e| &e.message).collect::<Vec<_>>();
    quote! {
        /// The errors of `components.errors`: code and meaning.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ErrorCode {
            #( #[doc = #messages] #variants, )*
        }

        impl ErrorCode {
            /// Every error code, by name.
            pub const ALL: [ErrorCode; #count] = [#(ErrorCode::#variants),*];

            /// The JSON-RPC error code.
            pub const fn code(self) -> i32 {
                match self {
                    #( ErrorCode::#variants => #codes, )*
                }
            }

            /// What the spec says the error means.
            pub const fn description(self) -> &'static str {
                match self {
                    #( ErrorCode::#variants => #messages, )*
                }
            }

            /// The error with this code, if the spec declares one.
            pub const fn from_code(code: i32) -> Option<ErrorCode> {
                match code {
                    #( #codes => Some(ErrorCode::#variants), )*
                    _ => None,
                }
            }
        }
    }
}
