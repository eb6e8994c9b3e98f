//! For test suites, here and in other crates, that need a PostgreSQL.

/// The database the suites may use: `W3API_TEST_DATABASE_URL`
/// (`.ci/postgres.sh start` starts a throwaway cluster and prints one).
/// Without it, `None` after printing why the caller will skip, unless
/// `W3API_REQUIRE_POSTGRES` is set, as CI sets it: then it panics, so that
/// CI never skips silently.
pub fn database_url(what: &str) -> Option<String> {
    match std::env::var("W3API_TEST_DATABASE_URL") {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("W3API_REQUIRE_POSTGRES").is_some() => {
            panic!("W3API_REQUIRE_POSTGRES is set but W3API_TEST_DATABASE_URL names no database ({what})")
        }
        _ => {
            eprintln!(
                "skipping {what}: W3API_TEST_DATABASE_URL is not set (`.ci/postgres.sh start` starts a PostgreSQL and prints its URL)"
            );
            None
        }
    }
}
