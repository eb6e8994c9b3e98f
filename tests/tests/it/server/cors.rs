//! Calls from web pages: the preflight a browser sends before a call with an
//! API key or a JSON body, and which origins are let through.

use reqwest::Method;
use w3api_devnet::Scale;
use w3api_server::{CorsOrigins, ServerConfig};
use w3api_tests::local::{Answer, Session, Setup};

const PAGE: &str = "http://localhost:3000";

/// A browser's preflight for `method` on `path` from `origin`.
fn preflight(session: &Session, path: &str, method: &str, origin: &str) -> Answer {
    session.send(|http| {
        http.request(Method::OPTIONS, format!("{}{path}", session.base()))
            .header("origin", origin)
            .header("access-control-request-method", method)
            .header("access-control-request-headers", "x-api-key,content-type")
    })
}

fn header<'a>(answer: &'a Answer, name: &str) -> Option<&'a str> {
    answer.headers.get(name).map(|v| v.to_str().unwrap())
}

#[test]
fn any_page_may_call_rest_and_rpc_by_default() {
    let session = Session::new();
    let wallet = session.devnet().sample_wallets(1)[0];
    let tokens = format!("/api/v2.2/wallets/{wallet:#x}/tokens");
    let rpc = format!("/eth/{}", session.key());
    for (path, method) in [(tokens.as_str(), "GET"), (rpc.as_str(), "POST"), ("/challenge/request/solana", "POST")] {
        let answer = preflight(&session, path, method, PAGE);
        assert!((200..300).contains(&answer.status), "{path}: preflight answered {}", answer.status);
        assert_eq!(header(&answer, "access-control-allow-origin"), Some("*"), "{path}");
        let methods = header(&answer, "access-control-allow-methods").unwrap_or_default();
        assert!(methods.contains(method), "{path}: {methods}");
        let headers = header(&answer, "access-control-allow-headers").unwrap_or_default().to_ascii_lowercase();
        assert!(headers.contains("x-api-key") && headers.contains("content-type"), "{path}: {headers}");
    }
    let call = session.send(|http| {
        http.get(format!("{}{tokens}", session.base())).header("origin", PAGE).header("x-api-key", session.key())
    });
    assert_eq!(call.status, 200);
    assert_eq!(header(&call, "access-control-allow-origin"), Some("*"));
    let exposed = header(&call, "access-control-expose-headers").unwrap_or_default().to_ascii_lowercase();
    for name in ["x-request-id", "retry-after", "x-w3api-fault"] {
        assert!(exposed.contains(name), "a page's client may read {name}: {exposed}");
    }
}

#[test]
fn a_restricted_server_lets_in_only_the_origins_given() {
    let server = Setup::new()
        .scale(Scale::TINY)
        .config(|config| ServerConfig { cors: CorsOrigins::only([PAGE]).unwrap(), ..config })
        .start();
    let session = server.session();
    let path = format!("/eth/{}", session.key());
    let allowed = preflight(&session, &path, "POST", PAGE);
    assert_eq!(header(&allowed, "access-control-allow-origin"), Some(PAGE));
    let other = preflight(&session, &path, "POST", "http://evil.example");
    assert_eq!(header(&other, "access-control-allow-origin"), None, "another origin gets no grant");
}
