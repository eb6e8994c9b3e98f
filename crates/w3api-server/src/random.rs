//! Unpredictable values from the operating system: secrets, nonces, ids.

/// `N` random bytes.
pub(crate) fn bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).expect("the operating system's random source is available");
    bytes
}

/// A random string of `len` ASCII letters and digits.
pub(crate) fn alphanumeric(len: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut out = String::with_capacity(len);
    while out.len() < len {
        for byte in bytes::<32>() {
            // 248 = 4 x 62: keeping only bytes below it leaves no bias.
            if byte < 248 && out.len() < len {
                out.push(char::from(ALPHABET[usize::from(byte) % ALPHABET.len()]));
            }
        }
    }
    out
}
