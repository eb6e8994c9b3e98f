//! Load of sign-in: each of `--connections` workers requests a challenge
//! from one target, signs it, and verifies it on the next target (so with
//! two replicas, every challenge crosses from one to the other), until
//! `--duration` has passed. Prints one summary line of `key=value` pairs:
//! requests, errors by status, requests/s, p50 and p99 in milliseconds;
//! with `--timeline`, a line per 100 ms before it:
//! `timeline <ms since start> <2xx> <503> <other errors>`.
//!
//! `w3api-load-signin --target http://127.0.0.1:8080 --target http://127.0.0.1:8081 --key k`

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Parser;
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};

#[derive(Parser)]
struct Args {
    /// A server's base URL; repeat for replicas.
    #[arg(long = "target", required = true)]
    targets: Vec<String>,
    /// API key the servers accept.
    #[arg(long)]
    key: String,
    /// Workers, each with one request in flight.
    #[arg(long, default_value_t = 32)]
    connections: usize,
    /// How long to load (e.g. 60s).
    #[arg(long, default_value = "60s", value_parser = humantime::parse_duration)]
    duration: Duration,
    /// Print what answered in each 100 ms.
    #[arg(long)]
    timeline: bool,
}

/// What one request gave: when it ended, its latency, and its status
/// (0 when no answer came).
struct Outcome {
    ended: Duration,
    latency: Duration,
    status: u16,
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().pool_max_idle_per_host(args.connections).build().expect("an HTTP client");
    let outcomes = Arc::new(Mutex::new(Vec::new()));
    let start = Instant::now();
    let epoch_ms = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis());
    println!("start_epoch_ms={epoch_ms}");
    let workers: Vec<_> = (0..args.connections)
        .map(|worker| {
            let (http, outcomes, targets, key) =
                (http.clone(), outcomes.clone(), args.targets.clone(), args.key.clone());
            tokio::spawn(async move {
                let signer = SigningKey::from_bytes(&[u8::try_from(worker % 250).unwrap_or(0) + 1; 32]);
                let mut round = worker;
                while start.elapsed() < args.duration {
                    let issuer = &targets[round % targets.len()];
                    let verifier = &targets[(round + 1) % targets.len()];
                    let done = sign_in(&http, &key, &signer, issuer, verifier, start).await;
                    outcomes.lock().unwrap().extend(done);
                    round += 1;
                }
            })
        })
        .collect();
    for worker in workers {
        worker.await.expect("a worker finished");
    }
    let elapsed = start.elapsed();
    let outcomes = std::mem::take(&mut *outcomes.lock().unwrap());
    if args.timeline {
        print_timeline(&outcomes);
    }
    print_summary(&outcomes, elapsed);
}

/// One sign-in: a challenge from `issuer`, verified on `verifier`. The
/// verify is skipped when the request failed.
async fn sign_in(
    http: &reqwest::Client,
    key: &str,
    signer: &SigningKey,
    issuer: &str,
    verifier: &str,
    start: Instant,
) -> Vec<Outcome> {
    let address = bs58::encode(signer.verifying_key().as_bytes()).into_string();
    let request = json!({"domain": "load.example", "address": address, "uri": "https://load.example/",
        "network": "mainnet", "timeout": 60});
    let (issued, challenge) = post(http, key, &format!("{issuer}/challenge/request/solana"), &request, start).await;
    // An error's body has a `message` too: only a 201 is a challenge.
    let challenge = challenge.filter(|_| issued.status == 201);
    let Some(message) = challenge.as_ref().and_then(|c| c["message"].as_str()) else { return vec![issued] };
    let signature = bs58::encode(signer.sign(message.as_bytes()).to_bytes()).into_string();
    let verify = json!({"message": message, "signature": signature});
    let (verified, _) = post(http, key, &format!("{verifier}/challenge/verify/solana"), &verify, start).await;
    vec![issued, verified]
}

async fn post(http: &reqwest::Client, key: &str, url: &str, body: &Value, start: Instant) -> (Outcome, Option<Value>) {
    let sent = Instant::now();
    let answer = http.post(url).header("X-API-Key", key).json(body).send().await;
    let (status, body) = match answer {
        Ok(response) => {
            let status = response.status().as_u16();
            (status, response.json::<Value>().await.ok())
        }
        Err(error) => {
            eprintln!("no answer from {url}: {error}");
            (0, None)
        }
    };
    if !(200..300).contains(&status)
        && let Some(body) = &body
    {
        // Errors are rare in a good run; each is worth seeing.
        eprintln!("{status} from {url}: {body}");
    }
    (Outcome { ended: start.elapsed(), latency: sent.elapsed(), status }, body)
}

fn print_timeline(outcomes: &[Outcome]) {
    let mut buckets: BTreeMap<u128, [u64; 3]> = BTreeMap::new();
    for outcome in outcomes {
        let bucket = buckets.entry(outcome.ended.as_millis() / 100 * 100).or_default();
        let column = match outcome.status {
            200..=299 => 0,
            503 => 1,
            _ => 2,
        };
        bucket[column] += 1;
    }
    for (ms, [ok, unavailable, other]) in buckets {
        println!("timeline {ms} {ok} {unavailable} {other}");
    }
}

fn print_summary(outcomes: &[Outcome], elapsed: Duration) {
    let mut errors: BTreeMap<u16, u64> = BTreeMap::new();
    for outcome in outcomes.iter().filter(|o| !(200..300).contains(&o.status)) {
        *errors.entry(outcome.status).or_default() += 1;
    }
    let mut latencies: Vec<Duration> = outcomes.iter().map(|o| o.latency).collect();
    latencies.sort_unstable();
    let quantile = |q: f64| {
        let index = ((latencies.len() as f64 * q).ceil() as usize).saturating_sub(1);
        latencies.get(index).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
    };
    let by_status: Vec<String> = errors.iter().map(|(status, n)| format!("{status}:{n}")).collect();
    println!(
        "requests={} errors={} errors_by_status={} rps={:.0} p50_ms={:.2} p99_ms={:.2}",
        outcomes.len(),
        errors.values().sum::<u64>(),
        if by_status.is_empty() { "-".to_string() } else { by_status.join(",") },
        outcomes.len() as f64 / elapsed.as_secs_f64(),
        quantile(0.50),
        quantile(0.99),
    );
}
