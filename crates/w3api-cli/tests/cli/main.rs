//! `w3api` as a user runs it, in one test binary (each binary is a link of
//! its own): the API commands against the harness's in-process server, and
//! `w3api serve` as a process of its own.

mod commands;
mod serve;
