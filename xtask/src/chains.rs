//! `components.schemas.Chain.x-chains` of `spec/openapi.yaml` -> the chain
//! table of `w3api-types` (`crates/w3api-types/src/chain/table.rs`).
//!
//! The table is the one place a chain is listed. Before writing it, the
//! generator checks that the other lists of the specs say the same: the
//! OpenAPI `Chain` enum must be exactly the names, hex ids and aliases of the
//! rows with a name, and `servers[0].variables.chain.enum` of
//! `spec/openrpc.json` exactly the RPC slugs. A chain added to one list and
//! not the others is an error that names it.

use std::collections::BTreeSet;
use std::path::Path;

use heck::ToUpperCamelCase;
use proc_macro2::TokenStream;
use quote::quote;
use serde_json::Value;

use crate::{CHAIN_FILE, Error, OPENAPI_SPEC, OPENRPC_SPEC, format};

/// One row of `x-chains`.
#[derive(Debug)]
struct Row {
    variant: syn::Ident,
    id: u64,
    name: Option<String>,
    rpc_slug: Option<String>,
    aliases: Vec<String>,
}

fn invalid(what: impl std::fmt::Display) -> Error {
    Error::OpenApi(format!("components.schemas.Chain.x-chains: {what}"))
}

/// Generates the chain table from the two documents.
pub(crate) fn generate(openapi: &str, openrpc: &str) -> Result<crate::GeneratedFile, Error> {
    let spec: Value = serde_norway::from_str(openapi).map_err(|e| Error::OpenApi(e.to_string()))?;
    let schema = &spec["components"]["schemas"]["Chain"];
    let rows = read_rows(&schema["x-chains"])?;
    check_openapi_enum(schema, &rows)?;
    let rpc: Value = serde_json::from_str(openrpc).map_err(|e| Error::OpenRpc(e.to_string()))?;
    check_rpc_slugs(&rpc, &rows)?;
    let path = Path::new(CHAIN_FILE).to_path_buf();
    let contents = format::rust_file(&path, OPENAPI_SPEC, emit(&rows))?;
    Ok(crate::GeneratedFile { path, contents })
}

fn read_rows(table: &Value) -> Result<Vec<Row>, Error> {
    let entries = table.as_array().ok_or_else(|| invalid("missing, or not a list"))?;
    let mut rows: Vec<Row> = Vec::new();
    for (index, entry) in entries.iter().enumerate() {
        let at = |what: &str| invalid(format_args!("row {index}: {what}"));
        let object = entry.as_object().ok_or_else(|| at("not an object"))?;
        if let Some(key) =
            object.keys().find(|k| !["name", "id", "rpcSlug", "aliases", "rustName"].contains(&k.as_str()))
        {
            return Err(at(&format!("unknown key {key:?}")));
        }
        let text = |key: &str| -> Result<Option<String>, Error> {
            match object.get(key) {
                None => Ok(None),
                Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
                Some(other) => Err(at(&format!("{key} must be a non-empty string, not {other}"))),
            }
        };
        let id_text = text("id")?.ok_or_else(|| at("id is missing"))?;
        let id = id_text
            .strip_prefix("0x")
            .filter(|digits| !digits.starts_with('0') && digits.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .and_then(|digits| u64::from_str_radix(digits, 16).ok())
            .ok_or_else(|| at(&format!("id {id_text:?} is not 0x and lowercase hex without leading zeros")))?;
        let name = text("name")?;
        let rpc_slug = text("rpcSlug")?;
        let aliases = match object.get("aliases") {
            None => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|a| a.as_str().map(String::from).ok_or_else(|| at("aliases must be strings")))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(at("aliases must be a list")),
        };
        let variant_name = match (text("rustName")?, &name, &rpc_slug) {
            (Some(explicit), _, _) => explicit,
            (None, Some(name), _) => name.to_upper_camel_case(),
            (None, None, Some(slug)) => slug.to_upper_camel_case(),
            (None, None, None) => return Err(at("a chain needs a name, an rpcSlug or both")),
        };
        let variant = syn::parse_str::<syn::Ident>(&variant_name)
            .map_err(|_| at(&format!("{variant_name:?} is not a Rust identifier")))?;
        if variant == "Other" {
            return Err(at("the variant name Other is taken by chains outside the table"));
        }
        rows.push(Row { variant, id, name, rpc_slug, aliases });
    }
    check_unique(&rows)?;
    Ok(rows)
}

/// No two rows share a variant, an id or a spelling.
fn check_unique(rows: &[Row]) -> Result<(), Error> {
    let mut variants = BTreeSet::new();
    let mut ids = BTreeSet::new();
    let mut spellings = BTreeSet::new();
    for row in rows {
        if !variants.insert(row.variant.to_string()) {
            return Err(invalid(format_args!("two chains are named {} in Rust", row.variant)));
        }
        if !ids.insert(row.id) {
            return Err(invalid(format_args!("two chains have id {:#x}", row.id)));
        }
        let forms = row.name.iter().chain(&row.rpc_slug).chain(&row.aliases);
        let mut own = BTreeSet::new();
        for form in forms {
            // A chain's name and slug may be the same word; two chains may not.
            if own.insert(form.clone()) && !spellings.insert(form.clone()) {
                return Err(invalid(format_args!("two chains are spelled {form:?}")));
            }
        }
    }
    Ok(())
}

/// The `enum` of the OpenAPI `Chain` is the table's data-API forms, in table order.
fn check_openapi_enum(schema: &Value, rows: &[Row]) -> Result<(), Error> {
    let listed: Vec<&str> = schema["enum"]
        .as_array()
        .ok_or_else(|| Error::OpenApi("components.schemas.Chain: enum is missing".into()))?
        .iter()
        .map(|v| v.as_str().ok_or_else(|| Error::OpenApi("components.schemas.Chain: enum values are strings".into())))
        .collect::<Result<_, _>>()?;
    let expected: Vec<String> = rows
        .iter()
        .filter_map(|row| {
            let name = row.name.clone()?;
            Some([name, format!("{:#x}", row.id)].into_iter().chain(row.aliases.iter().cloned()))
        })
        .flatten()
        .collect();
    if listed != expected {
        return Err(Error::OpenApi(format!(
            "components.schemas.Chain: enum differs from x-chains (name, id, aliases of each row with a name): {}",
            differences(listed.iter().copied(), expected.iter().map(String::as_str))
        )));
    }
    Ok(())
}

/// `servers[0].variables.chain.enum` of the OpenRPC document is the table's slugs, in table order.
fn check_rpc_slugs(rpc: &Value, rows: &[Row]) -> Result<(), Error> {
    let listed: Vec<&str> = rpc["servers"][0]["variables"]["chain"]["enum"]
        .as_array()
        .ok_or_else(|| Error::OpenRpc("servers[0].variables.chain.enum is missing".into()))?
        .iter()
        .map(|v| v.as_str().ok_or_else(|| Error::OpenRpc("servers[0].variables.chain.enum holds strings".into())))
        .collect::<Result<_, _>>()?;
    let listed: BTreeSet<&str> = listed.into_iter().collect();
    let expected: BTreeSet<&str> = rows.iter().filter_map(|row| row.rpc_slug.as_deref()).collect();
    if listed != expected {
        return Err(Error::OpenRpc(format!(
            "servers[0].variables.chain.enum differs from the rpcSlug values of {OPENAPI_SPEC} \
             components.schemas.Chain.x-chains: {}",
            differences(listed.into_iter(), expected.into_iter())
        )));
    }
    Ok(())
}

/// What one list has that the other lacks (or, when both hold the same
/// values, that the order differs).
fn differences<'a>(listed: impl Iterator<Item = &'a str>, expected: impl Iterator<Item = &'a str>) -> String {
    let listed: Vec<&str> = listed.collect();
    let expected: Vec<&str> = expected.collect();
    let extra: Vec<&&str> = listed.iter().filter(|v| !expected.contains(v)).collect();
    let missing: Vec<&&str> = expected.iter().filter(|v| !listed.contains(v)).collect();
    if extra.is_empty() && missing.is_empty() {
        return "same values in another order".to_string();
    }
    format!("listed but not in the table: {extra:?}; in the table but not listed: {missing:?}")
}

fn emit(rows: &[Row]) -> TokenStream {
    let variants = rows.iter().map(|row| {
        let variant = &row.variant;
        let name = row.name.as_deref().map_or("not served by the wallet-data API".into(), |n| format!("`{n}`"));
        let slug = row.rpc_slug.as_deref().map_or("not served by the RPC gateway".into(), |s| format!("`{s}`"));
        let doc = format!("Chain id `{:#x}`. Wallet-data API: {name}. RPC gateway: {slug}.", row.id);
        quote! {
            #[doc = #doc]
            #variant,
        }
    });
    let entries = rows.iter().map(|row| {
        let variant = &row.variant;
        let id = proc_macro2::Literal::u64_unsuffixed(row.id);
        let option = |value: &Option<String>| match value {
            Some(text) => quote!(Some(#text)),
            None => quote!(None),
        };
        let (name, slug) = (option(&row.name), option(&row.rpc_slug));
        let aliases = &row.aliases;
        quote! {
            ChainInfo { chain: Chain::#variant, id: #id, data_api_name: #name, rpc_slug: #slug, aliases: &[#(#aliases),*] },
        }
    });
    let indexes = rows.iter().enumerate().map(|(index, row)| {
        let variant = &row.variant;
        let index = proc_macro2::Literal::usize_unsuffixed(index);
        quote!(Chain::#variant => Some(#index),)
    });
    let enum_doc = format!(
        "An EVM chain: one of the table of `{OPENAPI_SPEC}` (`components.schemas.Chain.x-chains`), \
         or [`Chain::Other`], a chain the table does not list.\n\n\
         Each chain of the table has a numeric id ([`Chain::id`], written in hex by [`Chain::hex_id`]), \
         a data-API name ([`Chain::data_api_name`], the `chain` query value) and an RPC slug \
         ([`Chain::rpc_slug`], the gateway path segment; `{OPENRPC_SPEC}` lists the same). \
         [`FromStr`](std::str::FromStr) and deserialization accept any of these, and any other \
         well-formed name or hex id as [`Chain::Other`]; serialization writes the data-API name, \
         or the RPC slug for chains the data API does not serve, or an other chain as it was written."
    );
    quote! {
        //! The chain table, from `components.schemas.Chain.x-chains` of the OpenAPI document.

        use super::{ChainInfo, OtherChain};

        #[doc = #enum_doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Chain {
            #(#variants)*
            /// A chain the table does not list, by hex id or by name (see [`OtherChain`]).
            Other(OtherChain),
        }

        /// Every chain of the table, in the order of the spec.
        pub(super) const TABLE: &[ChainInfo] = &[
            #(#entries)*
        ];

        impl Chain {
            /// Position of the chain in [`TABLE`]; `None` for [`Chain::Other`].
            pub(super) fn table_index(self) -> Option<usize> {
                match self {
                    #(#indexes)*
                    Chain::Other(_) => None,
                }
            }
        }
    }
}
