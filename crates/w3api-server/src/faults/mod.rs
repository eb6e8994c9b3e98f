//! Faults a test asks for: answers that fail the way production sometimes
//! does (a status such as 429 or 503, a slow answer, a connection reset, a
//! truncated or malformed body), so that clients' retries and error paths
//! can be tested against the real server.
//!
//! Two ways to ask:
//! - per request, with a `Prefer` header in Prism's convention:
//!   `Prefer: code=429`, `Prefer: delay=300ms`,
//!   `Prefer: fault=reset|truncate|malformed`, or several at once
//!   (`Prefer: code=503, delay=1s`);
//! - with [`FaultRules`], set by the program that runs the server: a REST
//!   operation or a JSON-RPC method, what goes wrong, how many times.
//!
//! Every injected answer carries `x-w3api-fault`, saying what was injected.

mod answer;
mod layer;
mod prefer;
mod rules;

use std::time::Duration;

use http::StatusCode;

pub(crate) use layer::FaultLayer;
pub(crate) use prefer::injection_of;
pub use rules::{FaultRule, FaultRules, RuleId, RuleTarget, UnknownTarget};

/// The request header that asks for a fault (RFC 7240's `Prefer`).
const PREFER: http::HeaderName = http::HeaderName::from_static("prefer");

/// The header every injected answer carries.
pub const FAULT_HEADER: &str = "x-w3api-fault";

/// The longest delay one may ask for.
pub const MAX_DELAY: Duration = Duration::from_secs(60);

/// What goes wrong with an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// This status (400 to 599) and an error body in the API's format:
    /// `{message}` on REST, a JSON-RPC error on the gateway.
    /// A 429 carries `Retry-After: 1`.
    Status(StatusCode),
    /// The connection is closed without an answer.
    Reset,
    /// The real answer's status and headers, `Content-Length` included,
    /// then half its body, then the connection is closed.
    Truncate,
    /// The real answer's status, with a body that is not JSON.
    Malformed,
}

/// What to do to one answer: a fault, a delay before it, or both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Injection {
    /// What goes wrong; `None` answers normally (after the delay).
    pub fault: Option<Fault>,
    /// How long to wait before answering.
    pub delay: Option<Duration>,
}

impl Injection {
    /// Nothing injected.
    fn is_empty(&self) -> bool {
        self.fault.is_none() && self.delay.is_none()
    }

    /// The value of [`FAULT_HEADER`]: what was injected, as `Prefer` writes it.
    fn describe(&self) -> String {
        let fault = self.fault.map(|fault| match fault {
            Fault::Status(status) => format!("code={}", status.as_u16()),
            Fault::Reset => "fault=reset".into(),
            Fault::Truncate => "fault=truncate".into(),
            Fault::Malformed => "fault=malformed".into(),
        });
        let delay = self.delay.map(|delay| format!("delay={}ms", delay.as_millis()));
        fault.into_iter().chain(delay).collect::<Vec<_>>().join(", ")
    }
}
