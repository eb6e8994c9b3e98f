//! Raw integer amounts written in whole units.

use alloy_primitives::U256;

/// `raw / 10^decimals`, exactly, without trailing zeros: `1500000` with 6
/// decimals is `"1.5"`.
pub fn format_units(raw: U256, decimals: u8) -> String {
    write_decimal(raw, |digits| {
        // Wallet answers format two amounts per token: written once, into a
        // string of the right size, without shifting digits around.
        let decimals = usize::from(decimals);
        let (whole, fraction) = digits.split_at(digits.len().saturating_sub(decimals));
        let fraction = fraction.trim_end_matches('0');
        let zeros = if fraction.is_empty() { 0 } else { decimals - (digits.len() - whole.len()) };
        let mut text = String::with_capacity(whole.len().max(1) + 1 + zeros + fraction.len());
        text.push_str(if whole.is_empty() { "0" } else { whole });
        if !fraction.is_empty() {
            text.push('.');
            text.extend(std::iter::repeat_n('0', zeros));
            text.push_str(fraction);
        }
        text
    })
}

/// Hands `write` the decimal digits of `value`, without allocating. Amounts
/// almost always fit 128 bits, which `itoa` writes several times faster
/// than `U256`'s own `Display`; wallet answers write four per token.
pub(crate) fn write_decimal<R>(value: U256, write: impl FnOnce(&str) -> R) -> R {
    match u128::try_from(value) {
        Ok(small) => write(itoa::Buffer::new().format(small)),
        Err(_) => write(&value.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits_match_display_on_both_sides_of_128_bits() {
        let edges =
            [U256::ZERO, U256::from(9u8), U256::from(u128::MAX), U256::from(u128::MAX) + U256::from(1u8), U256::MAX];
        for value in edges {
            assert_eq!(write_decimal(value, str::to_owned), value.to_string());
        }
    }

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
