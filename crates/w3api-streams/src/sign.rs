//! The `x-signature` of a delivery, as production signs: keccak256 of the
//! exact body bytes followed by the project's secret, as `0x` and hex.

use alloy_primitives::keccak256;

/// The header a delivery's signature travels in.
pub const SIGNATURE_HEADER: &str = "x-signature";

/// The signature of `body` under `secret`.
pub fn signature(body: &[u8], secret: &str) -> String {
    let mut signed = Vec::with_capacity(body.len() + secret.len());
    signed.extend_from_slice(body);
    signed.extend_from_slice(secret.as_bytes());
    format!("{:#x}", keccak256(&signed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_keccak256_of_the_body_then_the_secret() {
        // The well-known keccak256 of no bytes.
        let empty = "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
        assert_eq!(signature(b"", ""), empty);
        assert_eq!(signature(b"{\"a\":1}", "key"), signature(b"{\"a\":1}k", "ey"), "the two are joined as they are");
        assert_ne!(signature(b"{}", "secret"), signature(b"{} ", "secret"), "every byte of the body counts");
        assert_ne!(signature(b"{}", "secret"), signature(b"{}", "secreT"), "and of the secret");
    }
}
