//! Sign-in with a Solana account through `w3api-rest`: the test plays the
//! end user, signing the issued message with the account's Ed25519 key, and
//! checks what the client reports when verification must fail.

use chrono::{Duration, Utc};
use ed25519_dalek::{Signer, SigningKey};
use w3api_rest::{Client, Error};
use w3api_tests::local::Session;
use w3api_types::{
    SolanaChallengeRequest, SolanaChallengeResponse, SolanaNetwork, SolanaVerifiedChallenge, SolanaVerifyRequest,
};

use crate::contract::expect_api_error;

fn address(key: &SigningKey) -> String {
    bs58::encode(key.verifying_key().as_bytes()).into_string()
}

fn request(key: &SigningKey) -> SolanaChallengeRequest {
    SolanaChallengeRequest {
        domain: "defi.finance".into(),
        uri: "https://defi.finance/login".into(),
        address: address(key),
        network: SolanaNetwork::Devnet,
        timeout: 60,
        statement: Some("Sign in to DeFi Finance".into()),
        expiration_time: None,
        not_before: None,
        resources: Some(vec!["https://docs.defi.finance/terms".into()]),
    }
}

/// Signs `message` as a Solana wallet does: Ed25519 over the UTF-8 text, Base58.
fn sign(key: &SigningKey, message: &str) -> SolanaVerifyRequest {
    let signature = bs58::encode(key.sign(message.as_bytes()).to_bytes()).into_string();
    SolanaVerifyRequest { message: message.to_string(), signature }
}

async fn challenge(rest: &Client, body: SolanaChallengeRequest) -> Result<SolanaChallengeResponse, Error> {
    Ok(rest.auth().request_solana_challenge().body(body).send().await?.into_inner())
}

async fn verify(rest: &Client, body: SolanaVerifyRequest) -> Result<SolanaVerifiedChallenge, Error> {
    Ok(rest.auth().verify_solana_challenge().body(body).send().await?.into_inner())
}

#[test]
fn a_signed_challenge_verifies_once_with_what_was_requested() {
    let session = Session::new();
    let rest = session.rest();
    let key = session.devnet().solana_key(0);
    assert_eq!(address(&key), session.devnet().solana_address(0));
    session.run(async {
        let issued = challenge(&rest, request(&key)).await.unwrap();
        assert!(issued.message.contains(&address(&key)), "the message names the account: {}", issued.message);
        let verified = verify(&rest, sign(&key, &issued.message)).await.unwrap();
        assert_eq!((&verified.id, &verified.profile_id), (&issued.id, &issued.profile_id));
        assert_eq!(verified.address, address(&key));
        assert_eq!(verified.domain, "defi.finance");
        assert_eq!(verified.uri, "https://defi.finance/login");
        assert_eq!(verified.network, Some(SolanaNetwork::Devnet));
        assert_eq!(verified.statement.as_deref(), Some("Sign in to DeFi Finance"));
        assert_eq!(verified.resources, request(&key).resources);
        assert!(issued.message.contains(&format!("Nonce: {}", verified.nonce)));
        expect_api_error(verify(&rest, sign(&key, &issued.message)).await, 400, "already verified");
        let again = challenge(&rest, request(&key)).await.unwrap();
        assert_eq!(again.profile_id, issued.profile_id, "the profile is stable per account");
        assert_ne!(again.id, issued.id);
    });
    session.finish();
}

#[test]
fn tampered_or_wrongly_signed_messages_are_refused() {
    let session = Session::new();
    let rest = session.rest();
    let key = session.devnet().solana_key(1);
    let stranger = session.devnet().solana_key(2);
    session.run(async {
        let message = challenge(&rest, request(&key)).await.unwrap().message;
        let tampered = message.replace("Sign in to DeFi Finance", "Send all funds");
        expect_api_error(verify(&rest, sign(&key, &tampered)).await, 400, "tampered");
        expect_api_error(verify(&rest, sign(&stranger, &message)).await, 400, "signature");
        let mut truncated = sign(&key, &message);
        truncated.signature.truncate(20);
        expect_api_error(verify(&rest, truncated).await, 400, "signature");
        // Failed attempts leave the challenge usable.
        verify(&rest, sign(&key, &message)).await.unwrap();
    });
    session.finish();
}

#[test]
fn validity_windows_and_fields_are_enforced() {
    let session = Session::new();
    let rest = session.rest();
    let key = session.devnet().solana_key(3);
    session.run(async {
        let early = SolanaChallengeRequest {
            not_before: Some(Utc::now() + Duration::hours(1)),
            expiration_time: Some(Utc::now() + Duration::hours(2)),
            ..request(&key)
        };
        let message = challenge(&rest, early).await.unwrap().message;
        expect_api_error(verify(&rest, sign(&key, &message)).await, 400, "not valid before");
        let past = SolanaChallengeRequest { expiration_time: Some(Utc::now() - Duration::hours(1)), ..request(&key) };
        expect_api_error(challenge(&rest, past).await, 400, "expirationTime");
        let short = SolanaChallengeRequest { timeout: 14, ..request(&key) };
        expect_api_error(challenge(&rest, short).await, 400, "timeout");
        let schemeful = SolanaChallengeRequest { domain: "https://defi.finance".into(), ..request(&key) };
        expect_api_error(challenge(&rest, schemeful).await, 400, "domain");
        let not_a_key = SolanaChallengeRequest { address: "not-base58-0OIl".into(), ..request(&key) };
        expect_api_error(challenge(&rest, not_a_key).await, 400, "address");
        let wrong_key = session.rest_with_key(&session.wrong_key());
        expect_api_error(challenge(&wrong_key, request(&key)).await, 401, "Invalid API key");
    });
    session.finish();
}
