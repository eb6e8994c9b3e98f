//! Sign-in with a Solana account over real HTTP, signed with ed25519-dalek:
//! the whole flow, and every way a verification must fail.

use std::sync::OnceLock;

use chrono::{Duration, Utc};
use ed25519_dalek::{Signer, SigningKey};
use serde_json::{Value, json};
use w3api_tests::local::{Answer, Session};

const REQUEST: &str = "/challenge/request/solana";
const VERIFY: &str = "/challenge/verify/solana";

/// The session these tests share (each challenge is bound to its own key pair).
fn server() -> &'static Session<'static> {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(Session::new)
}

fn key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

fn address(key: &SigningKey) -> String {
    bs58::encode(key.verifying_key().as_bytes()).into_string()
}

fn sign(key: &SigningKey, message: &str) -> String {
    bs58::encode(key.sign(message.as_bytes()).to_bytes()).into_string()
}

fn request_body(key: &SigningKey) -> Value {
    json!({
        "domain": "defi.finance",
        "uri": "https://defi.finance/login",
        "address": address(key),
        "network": "devnet",
        "timeout": 60,
        "statement": "Sign in to DeFi Finance",
        "resources": ["https://docs.defi.finance/terms"]
    })
}

/// Requests a challenge and returns the message to sign.
fn challenge(body: &Value) -> String {
    let answer = server().post(REQUEST, body);
    assert_eq!(answer.status, 201, "{}", answer.text);
    answer.body["message"].as_str().unwrap().to_string()
}

fn verify(message: &str, signature: &str) -> Answer {
    server().post(VERIFY, &json!({ "message": message, "signature": signature }))
}

#[test]
fn a_signed_challenge_verifies_once() {
    let key = key(1);
    let issued = server().post(REQUEST, &request_body(&key));
    assert_eq!(issued.status, 201, "{}", issued.text);
    let message = issued.body["message"].as_str().unwrap();
    assert!(message.starts_with("defi.finance wants you to sign in with your Solana account:\n"));
    assert!(message.contains(&format!(
        "\n{}\n\nSign in to DeFi Finance\n\nURI: https://defi.finance/login\nVersion: 1\nNetwork: devnet\nNonce: ",
        address(&key)
    )));
    assert!(message.ends_with("\nResources:\n- https://docs.defi.finance/terms"));
    let verified = verify(message, &sign(&key, message));
    assert_eq!(verified.status, 201, "{}", verified.text);
    assert_eq!(verified.body["id"], issued.body["id"]);
    assert_eq!(verified.body["profileId"], issued.body["profileId"]);
    assert_eq!(verified.body["address"], address(&key));
    assert_eq!(verified.body["network"], "devnet");
    assert_eq!(verified.body["statement"], "Sign in to DeFi Finance");
    verify(message, &sign(&key, message)).expect_error(400, "already verified (replay)");
    // The profile is stable per account.
    let again = server().post(REQUEST, &request_body(&key));
    assert_eq!(again.body["profileId"], issued.body["profileId"]);
    assert_ne!(again.body["id"], issued.body["id"]);
}

#[test]
fn a_failed_attempt_does_not_consume_the_challenge() {
    let key = key(2);
    let message = challenge(&request_body(&key));
    verify(&message, &sign(&self::key(3), &message)).expect_error(400, "signature: does not verify");
    assert_eq!(verify(&message, &sign(&key, &message)).status, 201);
}

#[test]
fn tampered_messages_and_unknown_nonces_are_refused() {
    let key = key(4);
    let message = challenge(&request_body(&key));
    let tampered = message.replace("Sign in to DeFi Finance", "Send all funds");
    verify(&tampered, &sign(&key, &tampered)).expect_error(400, "differs from the issued challenge (tampered)");
    let nonce_line = message.lines().find(|l| l.starts_with("Nonce: ")).unwrap();
    let unknown = message.replace(nonce_line, "Nonce: NeverIssued12345");
    verify(&unknown, &sign(&key, &unknown)).expect_error(400, "no challenge was issued with this nonce");
    verify("hello", "abc").expect_error(400, "message: not a sign-in message");
}

#[test]
fn signatures_that_are_not_strict_ed25519_are_refused() {
    let key = key(5);
    let message = challenge(&request_body(&key));
    verify(&message, "0OIl").expect_error(400, "signature: not Base58");
    verify(&message, &bs58::encode([7u8; 32]).into_string()).expect_error(400, "signature: 32 bytes");
    // S + L encodes the same scalar non-canonically; strict verification refuses it.
    let mut bytes = key.sign(message.as_bytes()).to_bytes();
    let order: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut carry = 0u16;
    for (s, l) in bytes[32..].iter_mut().zip(order) {
        let sum = u16::from(*s) + u16::from(l) + carry;
        *s = sum as u8;
        carry = sum >> 8;
    }
    verify(&message, &bs58::encode(bytes).into_string()).expect_error(400, "signature: does not verify");
    assert_eq!(verify(&message, &sign(&key, &message)).status, 201, "the honest signature still works");
}

#[test]
fn small_order_keys_get_a_challenge_but_never_verify() {
    // The identity point: any signature would "verify" for it without strict checks.
    let mut identity = [0u8; 32];
    identity[0] = 1;
    let mut body = request_body(&key(8));
    body["address"] = json!(bs58::encode(identity).into_string());
    let message = challenge(&body);
    verify(&message, &bs58::encode([0u8; 64]).into_string()).expect_error(400, "small-order");
}

#[test]
fn expired_and_not_yet_valid_challenges_are_refused() {
    let key = key(6);
    let soon = Utc::now() + Duration::milliseconds(1200);
    let mut body = request_body(&key);
    body["expirationTime"] = json!(soon.to_rfc3339());
    let message = challenge(&body);
    assert!(message.contains("\nExpiration Time: "));
    std::thread::sleep(std::time::Duration::from_millis(1500));
    verify(&message, &sign(&key, &message)).expect_error(400, "the challenge expired at");
    let mut body = request_body(&key);
    body["notBefore"] = json!((Utc::now() + Duration::hours(1)).to_rfc3339());
    body["expirationTime"] = json!((Utc::now() + Duration::hours(2)).to_rfc3339());
    let message = challenge(&body);
    verify(&message, &sign(&key, &message)).expect_error(400, "not valid before");
}

#[test]
fn request_bodies_are_validated_field_by_field() {
    let h = Session::new();
    let key = key(7);
    let cases: Vec<(&str, Value, &str)> = vec![
        ("domain", json!("https://defi.finance"), "domain: \"https://defi.finance\" is not a host name"),
        ("uri", json!("defi.finance"), "uri: \"defi.finance\" is not an absolute URL"),
        ("address", json!("26qv4GCcx98RihuK3c4T6ozB3J7L6VwCuFVc7Ta2A3U"), "address:"),
        ("address", json!(bs58::encode([9u8; 31]).into_string()), "is not the Base58 form of 32 bytes"),
        ("domain", json!(format!("{}.example:8080", "a".repeat(240))), "domain:"),
        ("domain", json!("defi.finance:65536"), "domain:"),
        ("timeout", json!(14), "timeout: 14 is not between 15 and 120"),
        ("timeout", json!(121), "timeout: 121"),
        ("statement", json!("two\nlines"), "statement:"),
        ("statement", json!("café"), "statement:"),
        ("resources", json!(["not a url"]), "resources: \"not a url\""),
        ("resources", json!(["w://\u{1f3fb}"]), "resources:"),
        (
            "expirationTime",
            json!("2020-01-01T00:00:00Z"),
            "expirationTime: 2020-01-01T00:00:00.000Z is not in the future",
        ),
    ];
    for (field, value, fragment) in cases {
        let mut body = request_body(&key);
        body[field] = value;
        h.post(REQUEST, &body).expect_error(400, fragment);
    }
    let mut body = request_body(&key);
    body["network"] = json!("moon");
    h.post(REQUEST, &body).expect_error(400, "network: unknown variant `moon`");
    body["network"] = json!("devnet");
    body["timeout"] = json!("sixty");
    h.post(REQUEST, &body).expect_error(400, "timeout:");
    // Production requires a timeout; there is no default to fall back on.
    body.as_object_mut().unwrap().remove("timeout");
    h.post(REQUEST, &body).expect_error(400, "missing field `timeout`");
    // Several problems come back together.
    let answer =
        h.post(REQUEST, &json!({"domain": "-", "uri": "x", "address": "y", "network": "mainnet", "timeout": 15}));
    assert_eq!(answer.messages().len(), 3, "{}", answer.text);
}
