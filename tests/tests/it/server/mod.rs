//! The server over raw HTTP: what the generated clients cannot send or would
//! hide (malformed bodies, odd query forms, preflights, headers), injected
//! faults, fuzzing, and shutting down.

mod cheats;
mod cors;
mod dyn_backend;
mod faults;
mod fuzz;
mod lifecycle;
mod limits;
mod pool;
mod rest;
mod rpc;
mod rpc_cache;
mod signin;
mod streams;
mod subscriptions;
mod traces;
