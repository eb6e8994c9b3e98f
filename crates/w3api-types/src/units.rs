//! Raw integer amounts written in whole units.

use alloy_primitives::U256;

/// `raw / 10^decimals`, exactly, without trailing zeros: `1500000` with 6
/// decimals is `"1.5"`.
pub fn format_units(raw: U256, decimals: u8) -> String {
    let digits = raw.to_string();
    let decimals = usize::from(decimals);
    if decimals == 0 {
        return digits;
    }
    let (whole, fraction) = if digits.len() > decimals {
        let split = digits.len() - decimals;
        (digits[..split].to_string(), digits[split..].to_string())
    } else {
        ("0".to_string(), format!("{digits:0>decimals$}"))
    };
    let fraction = fraction.trim_end_matches('0');
    if fraction.is_empty() { whole } else { format!("{whole}.{fraction}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_exactly() {
        assert_eq!(format_units(U256::from(1_500_000u64), 6), "1.5");
        assert_eq!(format_units(U256::from(5u64), 18), "0.000000000000000005");
        assert_eq!(format_units(U256::from(1_000u64), 3), "1");
        assert_eq!(format_units(U256::ZERO, 8), "0");
        assert_eq!(format_units(U256::from(42u64), 0), "42");
        assert_eq!(
            format_units(U256::MAX, 18),
            "115792089237316195423570985008687907853269984665640564039457.584007913129639935"
        );
    }
}
