//! NFT metadata documents, read where a token URI points: `data:` URIs
//! always, http(s) only from hosts the operator allows (a URI is written by
//! whoever deployed the contract, so fetching any would let any contract
//! make the server call any address).

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Utc};
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use w3api_types::{NftAttribute, NormalizedMetadata};

/// Largest document read.
const MAX_DOCUMENT: usize = 1 << 20;

/// Bytes of documents kept by default: a thousand documents of 64 KiB.
pub(crate) const CACHE_BYTES: u64 = 64 << 20;

/// Why a document was not read; said in the log, as a token's metadata is
/// then `null`, as production answers for a document it could not read.
#[derive(Debug, thiserror::Error)]
enum Unread {
    #[error("only http(s) and data: URIs are read")]
    Scheme,
    #[error("its host is not one --metadata-host allows")]
    HostNotAllowed,
    #[error("the host declared {0} bytes, over the limit of {MAX_DOCUMENT}")]
    DeclaredTooLarge(u64),
    #[error("the document is over the limit of {MAX_DOCUMENT} bytes")]
    TooLarge,
    #[error("the host answered HTTP {0}")]
    Status(u16),
    #[error("reading it failed ({0})")]
    Transport(#[from] reqwest::Error),
    #[error("it is not UTF-8 text")]
    NotText,
    #[error("it is not a data: URI the Fetch standard reads ({0})")]
    DataUri(String),
}

/// A metadata document and when it was read: `None` for a `data:` URI,
/// whose document is the URI itself, so as recent as the URI.
#[derive(Clone, Debug)]
pub(crate) struct Document {
    pub(crate) text: Arc<str>,
    pub(crate) fetched: Option<DateTime<Utc>>,
}

/// Weighs a kept document by its size and its URI's.
#[derive(Clone)]
struct BySize;

impl Weighter<String, Document> for BySize {
    fn weight(&self, uri: &String, document: &Document) -> u64 {
        (uri.len() + document.text.len()) as u64
    }
}

/// Reads and keeps metadata documents.
#[derive(Debug)]
pub(crate) struct MetadataReader {
    allowed_hosts: Vec<String>,
    http: reqwest::Client,
    /// Documents read over http(s), by URI, up to a number of bytes; a
    /// `data:` URI holds its document already, so it is decoded each time.
    documents: Cache<String, Document, BySize>,
}

impl MetadataReader {
    /// A reader that fetches http(s) documents from `allowed_hosts` only
    /// (host names or `host:port`, compared without case), keeping at most
    /// `cache_bytes` of them.
    pub(crate) fn new(allowed_hosts: Vec<String>, timeout: Duration, cache_bytes: u64) -> MetadataReader {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default();
        let allowed_hosts = allowed_hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect();
        let documents = Cache::with_options(cache_options(cache_bytes), BySize, Default::default(), Default::default());
        MetadataReader { allowed_hosts, http, documents }
    }

    /// The document at `uri`; `None` when it cannot or may not be read.
    pub(crate) async fn document(&self, uri: &str) -> Option<Document> {
        let read = match uri.strip_prefix("data:") {
            Some(_) => from_data_uri(uri).map(|text| Document { text, fetched: None }),
            None => self.kept_or_fetched(uri).await,
        };
        read.map_err(|why| tracing::debug!(uri = %Shortened(uri), %why, "a metadata document was not read")).ok()
    }

    async fn kept_or_fetched(&self, uri: &str) -> Result<Document, Unread> {
        if let Some(document) = self.documents.get(uri) {
            return Ok(document);
        }
        let document = Document { text: self.fetch(uri).await?.into(), fetched: Some(Utc::now()) };
        self.documents.insert(uri.to_owned(), document.clone());
        Ok(document)
    }

    async fn fetch(&self, uri: &str) -> Result<String, Unread> {
        let url: url::Url = uri.parse().map_err(|_| Unread::Scheme)?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Unread::Scheme);
        }
        if !self.allows(&url) {
            return Err(Unread::HostNotAllowed);
        }
        let mut response = self.http.get(url).send().await?;
        if !response.status().is_success() {
            return Err(Unread::Status(response.status().as_u16()));
        }
        // Refused before reading when the host says it is too large; read
        // in chunks and cut at the limit when it does not say, or lies.
        match response.content_length() {
            Some(declared) if declared > MAX_DOCUMENT as u64 => return Err(Unread::DeclaredTooLarge(declared)),
            _ => {}
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await? {
            if body.len() + chunk.len() > MAX_DOCUMENT {
                return Err(Unread::TooLarge);
            }
            body.extend_from_slice(&chunk);
        }
        String::from_utf8(body).map_err(|_| Unread::NotText)
    }

    fn allows(&self, url: &url::Url) -> bool {
        let Some(host) = url.host_str().map(str::to_ascii_lowercase) else { return false };
        let with_port = url.port().map(|port| format!("{host}:{port}"));
        self.allowed_hosts.iter().any(|allowed| *allowed == host || Some(allowed) == with_port.as_ref())
    }

    /// Bytes of documents kept.
    #[cfg(test)]
    fn kept_bytes(&self) -> u64 {
        self.documents.weight()
    }
}

/// Shards of at least 16 MiB: the cache splits its bytes evenly between
/// shards and never keeps a document larger than a shard, so the default of
/// four per core would keep no 1 MiB document on a large machine.
fn cache_options(cache_bytes: u64) -> quick_cache::Options {
    const SHARD_BYTES: u64 = 16 << 20;
    let shards = usize::try_from(cache_bytes / SHARD_BYTES).unwrap_or(usize::MAX).clamp(1, 16);
    let estimated_documents = usize::try_from(cache_bytes / 4096).unwrap_or(usize::MAX).max(16);
    quick_cache::OptionsBuilder::new()
        .shards(shards)
        .estimated_items_capacity(estimated_documents)
        .weight_capacity(cache_bytes)
        .build()
        .expect("both capacities are set")
}

/// The text of a `data:` URI, base64 or percent-encoded, read as the Fetch
/// standard reads it (`;BASE64` in any case, padding optional, spaces
/// ignored), cut at the document limit.
fn from_data_uri(uri: &str) -> Result<Arc<str>, Unread> {
    let data = data_url::DataUrl::process(uri).map_err(|e| Unread::DataUri(format!("{e:?}")))?;
    let mut body = Vec::new();
    let decoded = data.decode(|bytes: &[u8]| {
        if body.len() + bytes.len() > MAX_DOCUMENT {
            return Err(Unread::TooLarge);
        }
        body.extend_from_slice(bytes);
        Ok(())
    });
    match decoded {
        Ok(_) => String::from_utf8(body).map(Arc::from).map_err(|_| Unread::NotText),
        Err(data_url::forgiving_base64::DecodeError::WriteError(too_large)) => Err(too_large),
        Err(data_url::forgiving_base64::DecodeError::InvalidBase64(e)) => Err(Unread::DataUri(format!("{e:?}"))),
    }
}

/// A URI as logged: a `data:` URI can be a megabyte long.
struct Shortened<'a>(&'a str);

impl std::fmt::Display for Shortened<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.char_indices().nth(96) {
            Some((end, _)) => write!(f, "{}…", &self.0[..end]),
            None => f.write_str(self.0),
        }
    }
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
    let external = text("external_url").or_else(|| text("external_link"));
    Some(NormalizedMetadata {
        name: text("name"),
        description: text("description"),
        image: text("image").or_else(|| text("image_url")),
        external_link: external.clone(),
        external_url: external,
        animation_url: text("animation_url"),
        attributes,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpListener;

    use super::*;

    const DOCUMENT: &str = r#"{"name":"One","attributes":[{"trait_type":"Eyes","value":"Blue"},7]}"#;
    /// DOCUMENT in base64, padded.
    const BASE64: &str = "eyJuYW1lIjoiT25lIiwiYXR0cmlidXRlcyI6W3sidHJhaXRfdHlwZSI6IkV5ZXMiLCJ2YWx1ZSI6IkJsdWUifSw3XX0=";

    fn data(uri: &str) -> Option<String> {
        from_data_uri(uri).ok().map(|document| document.to_string())
    }

    #[test]
    fn data_uris_are_read_as_the_fetch_standard_reads_them() {
        assert_eq!(data(&format!("data:application/json;base64,{BASE64}")).as_deref(), Some(DOCUMENT));
        assert_eq!(data(&format!("data:application/json;BASE64,{BASE64}")).as_deref(), Some(DOCUMENT));
        let unpadded = BASE64.trim_end_matches('=');
        assert_eq!(data(&format!("data:application/json;base64,{unpadded}")).as_deref(), Some(DOCUMENT));
        let spaced = format!("data:;Base64,{} {}", &BASE64[..40], &BASE64[40..]);
        assert_eq!(data(&spaced).as_deref(), Some(DOCUMENT));
        assert_eq!(data("data:application/json,%7B%22name%22%3A%22One%22%7D").as_deref(), Some(r#"{"name":"One"}"#));
        assert_eq!(
            data("data:application/json;charset=utf-8,{\"name\":\"caf%C3%A9\"}").as_deref(),
            Some(r#"{"name":"café"}"#)
        );
        assert!(matches!(from_data_uri("data:application/json;base64,eyJ*"), Err(Unread::DataUri(_))));
        assert!(matches!(from_data_uri("data:application/json;base64,/w=="), Err(Unread::NotText)));
        assert!(matches!(from_data_uri("not data"), Err(Unread::DataUri(_))));
        let huge = format!("data:,{}", "a".repeat(MAX_DOCUMENT + 1));
        assert!(matches!(from_data_uri(&huge), Err(Unread::TooLarge)));
    }

    #[test]
    fn documents_are_normalized_into_the_fixed_shape() {
        let normalized = normalize(DOCUMENT).unwrap();
        assert_eq!(normalized.name.as_deref(), Some("One"));
        let attributes = normalized.attributes.unwrap();
        assert_eq!(attributes.len(), 1, "the attribute that is not an object is left out");
        assert_eq!(attributes[0].trait_type.as_deref(), Some("Eyes"));
        assert_eq!(normalize("[1]"), None);
    }

    #[tokio::test]
    async fn http_documents_come_only_from_allowed_hosts() {
        let reader = MetadataReader::new(vec!["metadata.example:8080".into()], Duration::from_secs(1), CACHE_BYTES);
        let allowed: url::Url = "http://METADATA.example:8080/1.json".parse().unwrap();
        let other_port: url::Url = "http://metadata.example:9090/1.json".parse().unwrap();
        assert!(reader.allows(&allowed));
        assert!(!reader.allows(&other_port));
        assert!(matches!(reader.fetch("http://127.0.0.1:1/1.json").await, Err(Unread::HostNotAllowed)));
        assert!(matches!(reader.fetch("ipfs://Qm/1.json").await, Err(Unread::Scheme)));
    }

    /// How a test host sends its documents.
    #[derive(Clone, Copy)]
    enum Framing {
        /// With a Content-Length of the whole document.
        Declared,
        /// Chunked, without a length.
        Chunked,
    }

    /// A host on 127.0.0.1 answering every request with a document of
    /// `size` bytes whose first is `{`; it counts the bytes it managed to
    /// send, which is at most what the client read plus the sockets' buffers.
    async fn host(size: u64, framing: Framing) -> (String, Arc<AtomicU64>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let sent = Arc::new(AtomicU64::new(0));
        let counter = sent.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let counter = counter.clone();
                tokio::spawn(async move {
                    let mut request = [0; 4096];
                    let _ = socket.read(&mut request).await;
                    let head = match framing {
                        Framing::Declared => format!("HTTP/1.1 200 OK\r\ncontent-length: {size}\r\n\r\n"),
                        Framing::Chunked => "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n".to_owned(),
                    };
                    if socket.write_all(head.as_bytes()).await.is_err() {
                        return;
                    }
                    let mut left = size;
                    let mut chunk = vec![b' '; 64 << 10];
                    chunk[0] = b'{';
                    while left > 0 {
                        let n = left.min(chunk.len() as u64) as usize;
                        let written = match framing {
                            Framing::Declared => socket.write_all(&chunk[..n]).await,
                            Framing::Chunked => {
                                let framed = [format!("{n:x}\r\n").as_bytes(), &chunk[..n], b"\r\n"].concat();
                                socket.write_all(&framed).await
                            }
                        };
                        if written.is_err() {
                            return;
                        }
                        counter.fetch_add(n as u64, Ordering::Relaxed);
                        chunk[0] = b' ';
                        left -= n as u64;
                    }
                    if let Framing::Chunked = framing {
                        let _ = socket.write_all(b"0\r\n\r\n").await;
                    }
                });
            }
        });
        (format!("127.0.0.1:{}", address.port()), sent)
    }

    #[tokio::test]
    async fn a_document_over_the_limit_is_refused_without_reading_it_whole() {
        const HUGE: u64 = 1 << 30;
        for framing in [Framing::Declared, Framing::Chunked] {
            let (host, sent) = host(HUGE, framing).await;
            let reader = MetadataReader::new(vec![host.clone()], Duration::from_secs(20), CACHE_BYTES);
            let read = reader.fetch(&format!("http://{host}/1.json")).await;
            match framing {
                Framing::Declared => assert!(matches!(read, Err(Unread::DeclaredTooLarge(HUGE))), "{read:?}"),
                Framing::Chunked => assert!(matches!(read, Err(Unread::TooLarge)), "{read:?}"),
            }
            // Give the host time to notice the closed connection.
            tokio::time::sleep(Duration::from_millis(200)).await;
            let sent = sent.load(Ordering::Relaxed);
            assert!(sent < 64 << 20, "{sent} of {HUGE} bytes were sent before the reader stopped");
            assert_eq!(reader.kept_bytes(), 0, "nothing refused is kept");
        }
    }

    #[tokio::test]
    async fn kept_documents_stay_within_the_cache_size() {
        const CACHE: u64 = 1 << 20;
        let (host, _) = host(200 << 10, Framing::Chunked).await;
        let reader = MetadataReader::new(vec![host.clone()], Duration::from_secs(20), CACHE);
        for token in 0..50 {
            let document = reader.document(&format!("http://{host}/{token}.json")).await;
            assert_eq!(document.map(|d| d.text.len()), Some(200 << 10), "document {token}");
            assert!(reader.kept_bytes() <= CACHE, "{} bytes kept after {token}", reader.kept_bytes());
        }
        assert!(reader.kept_bytes() > 0, "documents are kept");
    }

    #[tokio::test]
    async fn a_kept_document_keeps_the_time_it_was_fetched() {
        let (host, sent) = host(100, Framing::Declared).await;
        let reader = MetadataReader::new(vec![host.clone()], Duration::from_secs(20), CACHE_BYTES);
        let uri = format!("http://{host}/1.json");
        let first = reader.document(&uri).await.expect("fetched");
        let fetched = first.fetched.expect("a fetched document has a time");
        tokio::time::sleep(Duration::from_millis(20)).await;
        let again = reader.document(&uri).await.expect("kept");
        assert_eq!(again.fetched, Some(fetched), "read from the cache, not fetched again");
        assert!(sent.load(Ordering::Relaxed) < 200, "one fetch");
        let inline = reader.document("data:application/json,%7B%7D").await.expect("a data: URI");
        assert_eq!((&*inline.text, inline.fetched), ("{}", None), "a data: URI is as recent as the URI");
    }
}
