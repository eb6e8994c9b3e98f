//! The time budget of a JSON-RPC request, as jsonrpsee middleware.
//!
//! A request, alone or a batch, has one budget from the moment it arrives
//! (`--rpc-evm-timeout`, geth's `--rpc.evmtimeout`; zero is none, as in
//! geth). Each call of a method
//! that runs the EVM (`x-executes`) must end within what is left of it, or
//! it is dropped, which stops the EVM in the devnet and the call passed on
//! in node mode, and answered with geth's error. A batch of such calls thus
//! takes the budget once, not once per call.
//!
//! The request's budget also notes calls refused because every execution
//! slot was busy, so that the gateway answers them with `Retry-After`.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use jsonrpsee::server::middleware::rpc::{Batch, MethodResponse, Notification, Request, RpcServiceT};
use w3api_rpc::{ErrorCode, method};

use super::rpc_error;

/// One HTTP request's budget, shared by every call in it (jsonrpsee copies
/// the HTTP request's extensions into each call's).
#[derive(Clone, Debug)]
pub(crate) struct RequestBudget {
    /// `None` when there is no budget (a timeout of zero, as geth reads it).
    deadline: Option<Instant>,
    /// Set when a call was refused because every execution slot was busy.
    busy: Arc<AtomicBool>,
}

impl RequestBudget {
    /// The budget of a request arriving now.
    pub(crate) fn starting_now(timeout: Duration) -> RequestBudget {
        let deadline = (!timeout.is_zero()).then(|| Instant::now().checked_add(timeout)).flatten();
        RequestBudget { deadline, busy: Arc::new(AtomicBool::new(false)) }
    }

    /// Whether a call of the request was refused as busy.
    pub(crate) fn met_busy(&self) -> bool {
        self.busy.load(Ordering::Relaxed)
    }
}

/// Wraps a chain's JSON-RPC service in the budget.
#[derive(Clone)]
pub(super) struct BudgetLayer {
    timeout: Duration,
}

impl BudgetLayer {
    pub(super) fn new(timeout: Duration) -> BudgetLayer {
        BudgetLayer { timeout }
    }
}

impl<S> tower::Layer<S> for BudgetLayer {
    type Service = Budgeted<S>;

    fn layer(&self, inner: S) -> Budgeted<S> {
        Budgeted { inner, timeout: self.timeout }
    }
}

/// A JSON-RPC service whose executions end within their request's budget.
#[derive(Clone)]
pub(super) struct Budgeted<S> {
    inner: S,
    timeout: Duration,
}

impl<S: super::InnerService> RpcServiceT for Budgeted<S> {
    type MethodResponse = MethodResponse;
    type NotificationResponse = MethodResponse;
    type BatchResponse = MethodResponse;

    fn call<'a>(&self, request: Request<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        self.clone().within_budget(request)
    }

    fn batch<'a>(&self, batch: Batch<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        self.inner.batch(batch)
    }

    fn notification<'a>(&self, notification: Notification<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        self.inner.notification(notification)
    }
}

impl<S: super::InnerService> Budgeted<S> {
    async fn within_budget(self, request: Request<'_>) -> MethodResponse {
        let budget = request.extensions().get::<RequestBudget>().cloned();
        let budget = budget.unwrap_or_else(|| RequestBudget::starting_now(self.timeout));
        let response = if let Some(deadline) = budget.deadline
            && method::EXECUTES.contains(&request.method_name())
        {
            let id = request.id().into_owned();
            match tokio::time::timeout_at(deadline.into(), self.inner.call(request)).await {
                Ok(response) => response,
                Err(_) => MethodResponse::error(id, timed_out(self.timeout)),
            }
        } else {
            self.inner.call(request).await
        };
        if response.as_error_code() == Some(ErrorCode::RateLimited.code()) {
            budget.busy.store(true, Ordering::Relaxed);
        }
        response
    }
}

/// geth's answer to a call stopped by `--rpc.evmtimeout`.
fn timed_out(timeout: Duration) -> jsonrpsee::types::ErrorObjectOwned {
    rpc_error(ErrorCode::ServerError, format!("execution aborted (timeout = {})", go_duration(timeout)))
}

/// A duration as Go prints one, as geth's message has it: `5s`, `500ms`, `1.5s`.
pub(crate) fn go_duration(duration: Duration) -> String {
    match (duration.as_secs(), duration.subsec_nanos()) {
        (0, 0) => "0s".into(),
        (0, nanos) if nanos % 1_000_000 == 0 => format!("{}ms", nanos / 1_000_000),
        (0, nanos) => format!("{}µs", f64::from(nanos) / 1e3),
        (seconds, 0) => format!("{seconds}s"),
        _ => format!("{}s", duration.as_secs_f64()),
    }
}

#[cfg(test)]
mod tests {
    use super::go_duration;
    use std::time::Duration;

    #[test]
    fn durations_read_as_geth_writes_them() {
        assert_eq!(go_duration(Duration::from_secs(5)), "5s");
        assert_eq!(go_duration(Duration::from_millis(500)), "500ms");
        assert_eq!(go_duration(Duration::from_millis(1500)), "1.5s");
        assert_eq!(go_duration(Duration::from_secs(0)), "0s");
    }
}
