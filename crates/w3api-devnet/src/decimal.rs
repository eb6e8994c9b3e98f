//! Raw integer amounts as numbers.

/// `raw / 10^decimals` as a float, for USD arithmetic.
pub(crate) fn to_f64(raw: u128, decimals: u8) -> f64 {
    raw as f64 / 10f64.powi(i32::from(decimals))
}
