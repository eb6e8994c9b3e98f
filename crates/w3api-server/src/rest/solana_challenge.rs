//! `requestSolanaChallenge` and `verifySolanaChallenge`: sign-in with a
//! Solana wallet, a challenge issued and then verified once.

use std::sync::Arc;

use crate::Backend;
use axum::extract::State;
use axum::http::StatusCode;
use w3api_types::params::operations::{request_solana_challenge, verify_solana_challenge};
use w3api_types::{SolanaChallengeRequest, SolanaChallengeResponse, SolanaVerifiedChallenge, SolanaVerifyRequest};

use super::answer::JsonAnswer;
use super::body::JsonBody;
use crate::error::ApiError;
use crate::{App, signin};

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &request_solana_challenge::OPERATION, request_challenge::<S>);
    super::operation(router, &verify_solana_challenge::OPERATION, verify_challenge::<S>)
}

async fn request_challenge<S: Backend>(
    State(app): State<Arc<App<S>>>,
    JsonBody(request): JsonBody<SolanaChallengeRequest>,
) -> Result<(StatusCode, JsonAnswer<SolanaChallengeResponse>), ApiError> {
    let response = signin::request(&app.challenges, request, chrono::Utc::now()).await?;
    Ok((StatusCode::CREATED, JsonAnswer(response)))
}

async fn verify_challenge<S: Backend>(
    State(app): State<Arc<App<S>>>,
    JsonBody(request): JsonBody<SolanaVerifyRequest>,
) -> Result<(StatusCode, JsonAnswer<SolanaVerifiedChallenge>), ApiError> {
    let verified = signin::verify(&app.challenges, request, chrono::Utc::now()).await?;
    Ok((StatusCode::CREATED, JsonAnswer(verified)))
}
