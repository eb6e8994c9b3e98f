//! Fault rules set by the program that runs the server, for requests that
//! cannot carry a `Prefer` header (a client under test sends its own).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use w3api_rpc::method;
use w3api_types::params::Operation;

use super::Injection;

/// Which requests a rule applies to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RuleTarget {
    /// Every request.
    Any,
    /// Requests for this REST operation, by `operationId` (`getWalletNfts`).
    Operation(String),
    /// JSON-RPC requests calling this method (`eth_getBalance`), alone or in a batch.
    RpcMethod(String),
}

/// A target that names no operation or method of the specs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownTarget(String);

/// What goes wrong, for which requests, how many times.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FaultRule {
    /// The requests it applies to.
    pub target: RuleTarget,
    /// What happens to their answers.
    pub injection: Injection,
    /// How many answers it spoils before it is spent; `None` for every one.
    pub times: Option<u32>,
}

/// A rule's identity, for removing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RuleId(u64);

impl RuleId {
    /// The id as a number, as JSON-RPC carries it.
    pub fn number(self) -> u64 {
        self.0
    }

    /// The id of this number (which may name no rule).
    pub fn from_number(number: u64) -> RuleId {
        RuleId(number)
    }
}

/// The rules of one server, shared by everyone holding a clone: the server
/// reads them, the program that started it changes them while it runs.
#[derive(Clone, Default)]
pub struct FaultRules {
    inner: Arc<Inner>,
}

#[derive(Default)]
struct Inner {
    rules: Mutex<Vec<(RuleId, FaultRule)>>,
    /// Whether any rule exists: read on every request, without the lock.
    any: AtomicBool,
    next: AtomicU64,
}

impl FaultRules {
    /// Adds `rule`, after those added before; the first rule that applies
    /// to a request decides. Refuses a rule whose target names no
    /// operation of `spec/openapi.yaml` or method of `spec/openrpc.json`,
    /// or that injects nothing.
    pub fn add(&self, rule: FaultRule) -> Result<RuleId, UnknownTarget> {
        match &rule.target {
            RuleTarget::Any => {}
            RuleTarget::Operation(id) if Operation::named(id).is_none() => {
                let known: Vec<_> = w3api_types::params::operations::OPERATIONS.iter().map(|o| o.id).collect();
                return Err(UnknownTarget(format!("no operation is named {id:?}; known: {}", known.join(", "))));
            }
            RuleTarget::RpcMethod(name) if !method::ALL.contains(&name.as_str()) => {
                return Err(UnknownTarget(format!("no JSON-RPC method is named {name:?}")));
            }
            RuleTarget::Operation(_) | RuleTarget::RpcMethod(_) => {}
        }
        if rule.injection.is_empty() || rule.times == Some(0) {
            return Err(UnknownTarget("the rule injects nothing (no fault, no delay, or zero times)".into()));
        }
        let id = RuleId(self.inner.next.fetch_add(1, Ordering::Relaxed));
        let mut rules = self.rules();
        rules.push((id, rule));
        self.publish(&rules);
        Ok(id)
    }

    /// Removes a rule; `false` when it was spent or removed already.
    pub fn remove(&self, id: RuleId) -> bool {
        let mut rules = self.rules();
        let before = rules.len();
        rules.retain(|(rule, _)| *rule != id);
        self.publish(&rules);
        rules.len() < before
    }

    /// Removes every rule.
    pub fn clear(&self) {
        let mut rules = self.rules();
        rules.clear();
        self.publish(&rules);
    }

    /// The rules in force, with how many times each has left.
    pub fn list(&self) -> Vec<(RuleId, FaultRule)> {
        self.rules().clone()
    }

    /// Whether any rule is in force.
    pub(crate) fn any(&self) -> bool {
        self.inner.any.load(Ordering::Acquire)
    }

    /// The injection for a request for `operation`, or calling `methods`,
    /// counting it against the rule that decides.
    pub(crate) fn take(&self, operation: Option<&str>, methods: &[String]) -> Option<Injection> {
        let mut rules = self.rules();
        let position = rules.iter().position(|(_, rule)| match &rule.target {
            RuleTarget::Any => true,
            RuleTarget::Operation(id) => operation == Some(id.as_str()),
            RuleTarget::RpcMethod(name) => methods.iter().any(|m| m == name),
        })?;
        let injection = rules[position].1.injection;
        if let Some(times) = &mut rules[position].1.times {
            *times -= 1;
            if *times == 0 {
                rules.remove(position);
                self.publish(&rules);
            }
        }
        Some(injection)
    }

    fn rules(&self) -> std::sync::MutexGuard<'_, Vec<(RuleId, FaultRule)>> {
        self.inner.rules.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn publish(&self, rules: &[(RuleId, FaultRule)]) {
        self.inner.any.store(!rules.is_empty(), Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use http::StatusCode;

    use super::*;
    use crate::faults::Fault;

    fn status(code: u16) -> Injection {
        Injection { fault: Some(Fault::Status(StatusCode::from_u16(code).unwrap())), delay: None }
    }

    #[test]
    fn the_first_rule_that_applies_decides_and_is_spent_after_its_times() {
        let rules = FaultRules::default();
        assert!(!rules.any());
        let nfts = RuleTarget::Operation("getWalletNfts".into());
        rules.add(FaultRule { target: nfts, injection: status(429), times: Some(2) }).unwrap();
        let slow = Injection { fault: None, delay: Some(Duration::from_millis(5)) };
        rules.add(FaultRule { target: RuleTarget::Any, injection: slow, times: None }).unwrap();
        assert!(rules.any());
        assert_eq!(rules.take(Some("getWalletNfts"), &[]), Some(status(429)));
        assert_eq!(rules.take(Some("getStream"), &[]), Some(slow), "another operation");
        assert_eq!(rules.take(Some("getWalletNfts"), &[]), Some(status(429)));
        assert_eq!(rules.take(Some("getWalletNfts"), &[]), Some(slow), "the 429s are spent");
        assert_eq!(rules.list().len(), 1);
        rules.clear();
        assert_eq!(rules.take(None, &[]), None);
        assert!(!rules.any());
    }

    #[test]
    fn rpc_rules_match_any_call_of_a_batch() {
        let rules = FaultRules::default();
        let balance = RuleTarget::RpcMethod("eth_getBalance".into());
        let id = rules.add(FaultRule { target: balance, injection: status(503), times: None }).unwrap();
        let batch = ["eth_blockNumber".to_string(), "eth_getBalance".to_string()];
        assert_eq!(rules.take(None, &batch), Some(status(503)));
        assert_eq!(rules.take(None, &batch[..1]), None);
        assert!(rules.remove(id) && !rules.remove(id));
        assert!(!rules.any());
    }

    #[test]
    fn a_rule_naming_nothing_known_or_injecting_nothing_is_refused() {
        let rules = FaultRules::default();
        let refused = |target, injection, times| rules.add(FaultRule { target, injection, times }).unwrap_err();
        let error = refused(RuleTarget::Operation("getWalletNFTs".into()), status(500), None);
        assert!(error.to_string().contains("getWalletNfts"), "lists the known names: {error}");
        let error = refused(RuleTarget::RpcMethod("eth_nothing".into()), status(500), None);
        assert!(error.to_string().contains("eth_nothing"), "{error}");
        refused(RuleTarget::Any, Injection::default(), None);
        refused(RuleTarget::Any, status(500), Some(0));
        assert!(!rules.any());
    }
}
