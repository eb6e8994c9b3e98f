//! The `w3api` binary: the allocator, and the command line of the library.

// The binary is a thin shell: the library uses the package's dependencies,
// and only mimalloc is named here.
#![allow(unused_crate_dependencies)]

use std::process::ExitCode;

// The server's cold answers allocate and free tens of kilobytes per request
// on every worker thread; glibc's arenas shrank and regrew their heaps under
// that load (page faults, mprotect, consolidation: a fifth of the server's
// time in profiles) and held several times the live memory. mimalloc's
// per-thread pages reuse the memory instead.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    w3api_cli::main()
}
