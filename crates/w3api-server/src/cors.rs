//! Cross-origin calls from web pages: which origins may call, and the
//! preflight answer browsers ask for before a call with an API key header or
//! a JSON body.

use std::time::Duration;

use axum::http::{HeaderName, HeaderValue, Method, header};
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer};

/// The web origins allowed to call the server.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum CorsOrigins {
    /// Any page: the default, for local development.
    #[default]
    Any,
    /// Only pages of these origins (`scheme://host[:port]`).
    Only(Vec<String>),
}

/// An origin that is not `scheme://host[:port]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid CORS origin {origin:?}: {reason}; an origin is scheme://host[:port], such as http://localhost:3000")]
pub struct InvalidOrigin {
    /// What was given.
    pub origin: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl CorsOrigins {
    /// Only the given origins, each checked to be `scheme://host[:port]`.
    pub fn only<I: IntoIterator<Item = S>, S: AsRef<str>>(origins: I) -> Result<CorsOrigins, InvalidOrigin> {
        origins.into_iter().map(|o| check_origin(o.as_ref())).collect::<Result<_, _>>().map(CorsOrigins::Only)
    }
}

fn check_origin(origin: &str) -> Result<String, InvalidOrigin> {
    let invalid = |reason| InvalidOrigin { origin: origin.to_string(), reason };
    let url = url::Url::parse(origin).map_err(|_| invalid("not a URL"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(invalid("the scheme is not http or https"));
    }
    if url.host_str().is_none() {
        return Err(invalid("there is no host"));
    }
    let bare = url.path() == "/" && url.query().is_none() && url.fragment().is_none() && url.username().is_empty();
    if !bare || origin.trim_end_matches('/') != url.origin().ascii_serialization() {
        return Err(invalid("an origin has no path, query, credentials or trailing text"));
    }
    Ok(url.origin().ascii_serialization())
}

/// The CORS layer for `origins`: every method of the interface, any request
/// header (the API key, the content type and `Prefer` among them), and the
/// headers a page's client reads exposed: the request id, `Retry-After` (not
/// safelisted, so a browser hides it otherwise) and the injected-fault mark.
pub(crate) fn layer(origins: &CorsOrigins) -> CorsLayer {
    let allow_origin = match origins {
        CorsOrigins::Any => AllowOrigin::any(),
        CorsOrigins::Only(list) => {
            AllowOrigin::list(list.iter().filter_map(|origin| HeaderValue::from_str(origin).ok()))
        }
    };
    CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods([Method::GET, Method::POST, Method::PUT, Method::PATCH, Method::DELETE])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers([
            HeaderName::from_static("x-request-id"),
            header::RETRY_AFTER,
            HeaderName::from_static(crate::FAULT_HEADER),
        ])
        .max_age(Duration::from_secs(86_400))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_scheme_host_and_port_only() {
        let only = CorsOrigins::only(["http://localhost:3000", "https://app.example.com/"]).unwrap();
        assert_eq!(only, CorsOrigins::Only(vec!["http://localhost:3000".into(), "https://app.example.com".into()]));
        for bad in ["localhost:3000", "ftp://example.com", "http://example.com/app", "http://example.com?x=1", "*"] {
            let error = CorsOrigins::only([bad]).unwrap_err();
            assert!(error.to_string().contains(&format!("{bad:?}")), "{error}");
        }
    }
}
