//! `spec/openapi.yaml` -> one progenitor client per tag.
//!
//! progenitor runs as a library, once per tag, on a copy of the document that
//! holds only that tag's operations. Every component schema is replaced by the
//! `w3api-types` type of the same name, so no type is defined twice. Two
//! things of the copy differ from the spec, both for the hand-written layer
//! of `w3api-rest`:
//! - error responses become `4XX` and `5XX` ranges with the `Error` body, so
//!   that statuses the spec does not list (production answers 502 and 503)
//!   reach the caller decoded like the listed ones;
//! - the client carries `crate::ClientState` (retry policy), whose
//!   `ClientHooks` impl performs retries.

use std::path::Path;

use openapiv3::{MediaType, OpenAPI, ReferenceOr, Response, StatusCode, Tag};
use progenitor_impl::{GenerationSettings, Generator, InterfaceStyle, TagStyle, TypeImpl};
use quote::{format_ident, quote};

use crate::{Error, GeneratedFile, OPENAPI_SPEC, REST_DIR, format};

/// Generates `<tag>.rs` for every tag, and the `mod.rs` that declares them.
pub(crate) fn generate(text: &str) -> Result<Vec<GeneratedFile>, Error> {
    let spec: OpenAPI = serde_norway::from_str(text).map_err(|e| Error::OpenApi(e.to_string()))?;
    check_tags(&spec)?;
    let mut files = Vec::new();
    for tag in &spec.tags {
        let path = Path::new(REST_DIR).join(format!("{}.rs", tag.name));
        let tokens = client_for(&spec, tag)?;
        files.push(GeneratedFile { contents: format::rust_file(&path, OPENAPI_SPEC, tokens)?, path });
    }
    let path = Path::new(REST_DIR).join("mod.rs");
    files.push(GeneratedFile { contents: format::rust_file(&path, OPENAPI_SPEC, modules(&spec.tags))?, path });
    Ok(files)
}

/// Each operation has exactly one tag, and every tag names a module.
fn check_tags(spec: &OpenAPI) -> Result<(), Error> {
    for tag in &spec.tags {
        if syn::parse_str::<syn::Ident>(&tag.name).is_err() || tag.name.chars().any(|c| c.is_ascii_uppercase()) {
            return Err(Error::OpenApi(format!("tag {:?} is not a lowercase Rust identifier", tag.name)));
        }
    }
    for (path, method, operation) in spec.operations() {
        let id = operation.operation_id.as_deref().unwrap_or("(no operationId)");
        match operation.tags.as_slice() {
            [tag] if spec.tags.iter().any(|t| &t.name == tag) => {}
            [tag] => return Err(Error::OpenApi(format!("{method} {path} ({id}): tag {tag:?} is not declared"))),
            tags => return Err(Error::OpenApi(format!("{method} {path} ({id}): {} tags; one is needed", tags.len()))),
        }
    }
    Ok(())
}

/// The progenitor client of one tag.
fn client_for(spec: &OpenAPI, tag: &Tag) -> Result<proc_macro2::TokenStream, Error> {
    let input = progenitor_input(spec, tag);
    let mut settings = GenerationSettings::new();
    settings
        .with_interface(InterfaceStyle::Builder)
        .with_tag(TagStyle::Merged)
        .with_inner_type(quote!(crate::ClientState));
    for name in spec.components.iter().flat_map(|c| c.schemas.keys()) {
        settings.with_replacement(name, format!("w3api_types::{name}"), replaced_impls(name).into_iter());
    }
    Generator::new(&settings)
        .generate_tokens(&input)
        .map_err(|e| Error::Progenitor { tag: tag.name.clone(), message: e.to_string() })
}

/// Traits of the replacement types that progenitor may lean on.
fn replaced_impls(name: &str) -> Vec<TypeImpl> {
    match name {
        "Address" | "Chain" | "DateInput" | "NftTokenId" | "BlockNumberOrHash" => {
            vec![TypeImpl::FromStr, TypeImpl::Display]
        }
        "TokenIdFormat" => vec![TypeImpl::Default],
        _ => Vec::new(),
    }
}

/// The spec as progenitor sees it for one tag (see the module docs).
fn progenitor_input(spec: &OpenAPI, tag: &Tag) -> OpenAPI {
    let mut input = spec.clone();
    input.info.title = format!("the `{}` group of the w3api REST interface", tag.name);
    input.info.description = tag.description.clone();
    input.tags = vec![tag.clone()];
    for item in input.paths.paths.values_mut() {
        let ReferenceOr::Item(item) = item else { continue };
        let slots = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.options,
            &mut item.head,
            &mut item.patch,
            &mut item.trace,
        ];
        for slot in slots {
            match slot {
                Some(operation) if operation.tags.contains(&tag.name) => {
                    let responses = &mut operation.responses.responses;
                    responses.retain(|status, _| !is_error(status));
                    responses.insert(StatusCode::Range(4), error_response("A client error"));
                    responses.insert(StatusCode::Range(5), error_response("A server error"));
                }
                _ => *slot = None,
            }
        }
    }
    input.paths.paths.retain(|_, item| item.as_item().is_some_and(|item| item.iter().next().is_some()));
    input
}

fn is_error(status: &StatusCode) -> bool {
    match status {
        StatusCode::Code(code) => *code >= 400,
        StatusCode::Range(range) => *range >= 4,
    }
}

fn error_response(description: &str) -> ReferenceOr<Response> {
    let mut response = Response { description: description.into(), ..Default::default() };
    let schema = ReferenceOr::Reference { reference: "#/components/schemas/Error".into() };
    response.content.insert("application/json".into(), MediaType { schema: Some(schema), ..Default::default() });
    ReferenceOr::Item(response)
}

/// `mod.rs`: one module per tag, documented by the tag's description.
fn modules(tags: &[Tag]) -> proc_macro2::TokenStream {
    let items = tags.iter().map(|tag| {
        let module = format_ident!("{}", tag.name);
        let doc = tag.description.clone().unwrap_or_else(|| format!("Operations tagged `{}`.", tag.name));
        quote! {
            #[doc = #doc]
            pub mod #module;
        }
    });
    let lints = format::generated_code_lints();
    quote! {
        //! One progenitor client per tag of `spec/openapi.yaml`.
        #lints
        #(#items)*
    }
}
