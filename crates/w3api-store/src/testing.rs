//! For test suites, here and in other crates, that need a PostgreSQL.

/// The database the suites may use: `W3API_TEST_DATABASE_URL`
/// (`.ci/postgres.sh start` starts a throwaway cluster and prints one).
/// Without it, `None` after printing why the caller will skip, unless
/// `W3API_REQUIRE_POSTGRES` is set, as CI sets it: then it panics, so that
/// CI never skips silently.
pub fn database_url(what: &str) -> Option<String> {
    from_env("W3API_TEST_DATABASE_URL", what, "`.ci/postgres.sh start` starts a PostgreSQL and prints its URL")
}

/// `variable`'s value; without it, `None` after printing why `what` will
/// skip and `how` to set it, unless `W3API_REQUIRE_POSTGRES` is set, as CI
/// sets it: then it panics, so that CI never skips silently.
fn from_env(variable: &str, what: &str, how: &str) -> Option<String> {
    match std::env::var(variable) {
        Ok(url) if !url.is_empty() => Some(url),
        _ if std::env::var_os("W3API_REQUIRE_POSTGRES").is_some() => {
            panic!("W3API_REQUIRE_POSTGRES is set but {variable} names no database ({what})")
        }
        _ => {
            eprintln!("skipping {what}: {variable} is not set ({how})");
            None
        }
    }
}

/// A hot standby of the database [`database_url`] names, as `.ci/postgres.sh
/// replica` starts one: `W3API_TEST_REPLICA_URL`. Without it, `None` after
/// printing why the caller will skip, unless `W3API_REQUIRE_POSTGRES` is set.
pub fn replica_url(what: &str) -> Option<String> {
    from_env("W3API_TEST_REPLICA_URL", what, "`.ci/postgres.sh replica` starts a hot standby and prints its URL")
}

/// A new, empty database on the cluster `url` names (whose user may create
/// databases, as `.ci/postgres.sh`'s may), for a test whose state must be
/// its own: a devnet's chains are one per database, so servers of tests
/// that run at once on different seeds cannot share one. Its URL.
///
/// # Panics
///
/// When the cluster cannot be reached or refuses: the test cannot run.
pub async fn fresh_database(url: &str) -> String {
    use sqlx::Connection;
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    let next = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("w3api_test_{:x}_{}_{next}", nanos as u64, std::process::id());
    let mut admin = sqlx::PgConnection::connect(url).await.unwrap_or_else(|e| panic!("connecting to {url}: {e}"));
    let create = format!("CREATE DATABASE {name}");
    sqlx::query(sqlx::AssertSqlSafe(create))
        .execute(&mut admin)
        .await
        .unwrap_or_else(|e| panic!("creating {name}: {e}"));
    let (cluster, _) = url.split('?').next().unwrap_or(url).rsplit_once('/').unwrap_or((url, ""));
    format!("{cluster}/{name}")
}
