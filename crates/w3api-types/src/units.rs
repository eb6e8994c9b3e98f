//! Raw integer amounts written in whole units.

use alloy_primitives::U256;

/// `raw / 10^decimals`, exactly, without trailing zeros: `1500000` with 6
/// decimals is `"1.5"`.
pub fn format_units(raw: U256, decimals: u8) -> String {
    let mut text = raw.to_string();
    let decimals = usize::from(decimals);
    if decimals == 0 {
        return text;
    }
    // Wallet answers format two amounts per token: built in place, in the
    // one string the digits came in, rather than through four.
    if text.len() <= decimals {
        let zeros = decimals - text.len();
        text.insert_str(0, &"0".repeat(zeros + 1));
    }
    let point = text.len() - decimals;
    let kept = text.trim_end_matches('0').len().max(point);
    text.truncate(kept);
    if kept > point {
        text.insert(point, '.');
    }
    text
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
