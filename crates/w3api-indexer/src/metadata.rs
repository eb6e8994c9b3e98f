//! NFT metadata documents, read where a token URI points: `data:` URIs
//! always, http(s) only from hosts the operator allows (a URI is written by
//! whoever deployed the contract, so fetching any would let any contract
//! make the server call any address).

use std::collections::HashMap;
use std::time::Duration;

use base64::Engine;
use parking_lot::Mutex;
use w3api_types::{NftAttribute, NormalizedMetadata};

/// Largest document read.
const MAX_DOCUMENT: usize = 1 << 20;

/// Reads and keeps metadata documents.
#[derive(Debug)]
pub(crate) struct MetadataReader {
    allowed_hosts: Vec<String>,
    http: reqwest::Client,
    /// Documents read, by URI.
    documents: Mutex<HashMap<String, String>>,
}

impl MetadataReader {
    /// A reader that fetches http(s) documents from `allowed_hosts` only
    /// (host names or `host:port`, compared without case).
    pub(crate) fn new(allowed_hosts: Vec<String>, timeout: Duration) -> MetadataReader {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        let allowed_hosts = allowed_hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect();
        MetadataReader { allowed_hosts, http, documents: Mutex::new(HashMap::new()) }
    }

    /// The document at `uri`; `None` when it cannot or may not be read.
    pub(crate) async fn document(&self, uri: &str) -> Option<String> {
        if let Some(document) = self.documents.lock().get(uri) {
            return Some(document.clone());
        }
        let document = if uri.starts_with("data:") { from_data_uri(uri) } else { self.fetch(uri).await }?;
        self.documents.lock().insert(uri.to_string(), document.clone());
        Some(document)
    }

    async fn fetch(&self, uri: &str) -> Option<String> {
        let url: url::Url = uri.parse().ok()?;
        if !matches!(url.scheme(), "http" | "https") || !self.allows(&url) {
            return None;
        }
        let response = self.http.get(url).send().await.ok()?.error_for_status().ok()?;
        let body = response.bytes().await.ok()?;
        (body.len() <= MAX_DOCUMENT).then(|| String::from_utf8(body.to_vec()).ok()).flatten()
    }

    fn allows(&self, url: &url::Url) -> bool {
        let Some(host) = url.host_str().map(str::to_ascii_lowercase) else { return false };
        let with_port = url.port().map(|port| format!("{host}:{port}"));
        self.allowed_hosts.iter().any(|allowed| *allowed == host || Some(allowed) == with_port.as_ref())
    }
}

/// The text of a `data:` URI (base64 or percent-encoded).
fn from_data_uri(uri: &str) -> Option<String> {
    let (header, data) = uri.strip_prefix("data:")?.split_once(',')?;
    let bytes = if header.ends_with(";base64") {
        base64::engine::general_purpose::STANDARD.decode(data.trim()).ok()?
    } else {
        percent_encoding::percent_decode_str(data).collect()
    };
    (bytes.len() <= MAX_DOCUMENT).then(|| String::from_utf8(bytes).ok()).flatten()
}

/// A metadata document in the interface's fixed shape; `None` when it is
/// not a JSON object. Attributes that are not objects are left out.
pub(crate) fn normalize(document: &str) -> Option<NormalizedMetadata> {
    let value: serde_json::Value = serde_json::from_str(document).ok()?;
    let object = value.as_object()?;
    let text = |key: &str| object.get(key).and_then(|v| v.as_str()).map(str::to_string);
    let attributes = object.get("attributes").and_then(|a| a.as_array()).map(|attributes| {
        attributes.iter().filter_map(|a| serde_json::from_value::<NftAttribute>(a.clone()).ok()).collect()
    });
    Some(NormalizedMetadata {
        name: text("name"),
        description: text("description"),
        image: text("image").or_else(|| text("image_url")),
        external_link: text("external_url").or_else(|| text("external_link")),
        animation_url: text("animation_url"),
        attributes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_uris_are_read_in_both_encodings() {
        let document = r#"{"name":"One","attributes":[{"trait_type":"Eyes","value":"Blue"},7]}"#;
        let base64 = base64::engine::general_purpose::STANDARD.encode(document);
        assert_eq!(from_data_uri(&format!("data:application/json;base64,{base64}")).as_deref(), Some(document));
        assert_eq!(
            from_data_uri("data:application/json,%7B%22name%22%3A%22One%22%7D").as_deref(),
            Some(r#"{"name":"One"}"#)
        );
        let normalized = normalize(document).unwrap();
        assert_eq!(normalized.name.as_deref(), Some("One"));
        let attributes = normalized.attributes.unwrap();
        assert_eq!(attributes.len(), 1, "the attribute that is not an object is left out");
        assert_eq!(attributes[0].trait_type.as_deref(), Some("Eyes"));
        assert_eq!(normalize("[1]"), None);
    }

    #[tokio::test]
    async fn http_documents_come_only_from_allowed_hosts() {
        let reader = MetadataReader::new(vec!["metadata.example:8080".into()], Duration::from_secs(1));
        let allowed: url::Url = "http://METADATA.example:8080/1.json".parse().unwrap();
        let other_port: url::Url = "http://metadata.example:9090/1.json".parse().unwrap();
        assert!(reader.allows(&allowed));
        assert!(!reader.allows(&other_port));
        assert_eq!(reader.document("http://127.0.0.1:1/1.json").await, None, "a host not allowed is not asked");
        assert_eq!(reader.document("ipfs://Qm/1.json").await, None);
    }
}
