//! The cursors of the streams listings: opaque to clients, naming where the
//! next page starts and which listing they belong to.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::StreamsError;

/// A listing a cursor belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Listing {
    Streams,
    Addresses,
    History,
    Logs,
}

impl Listing {
    fn name(self) -> &'static str {
        match self {
            Listing::Streams => "streams",
            Listing::Addresses => "addresses",
            Listing::History => "history",
            Listing::Logs => "logs",
        }
    }
}

/// The cursor of the page after `position`.
pub(crate) fn encode(listing: Listing, position: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{}:{position}", listing.name()))
}

/// Where the page a cursor names starts.
pub(crate) fn decode(listing: Listing, cursor: &str) -> Result<String, StreamsError> {
    let wrong = || StreamsError::invalid(format!("cursor: {cursor:?} is not a cursor of this listing"));
    let text = URL_SAFE_NO_PAD.decode(cursor).ok().and_then(|bytes| String::from_utf8(bytes).ok()).ok_or_else(wrong)?;
    let (name, position) = text.split_once(':').ok_or_else(wrong)?;
    if name != listing.name() {
        return Err(wrong());
    }
    Ok(position.to_owned())
}

/// A cursor whose position is a number.
pub(crate) fn decode_number(listing: Listing, cursor: &str) -> Result<i64, StreamsError> {
    decode(listing, cursor)?
        .parse()
        .map_err(|_| StreamsError::invalid(format!("cursor: {cursor:?} is not a cursor of this listing")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_reads_back_in_its_listing_only() {
        let cursor = encode(Listing::Streams, "17");
        assert_eq!(decode_number(Listing::Streams, &cursor).unwrap(), 17);
        assert!(decode(Listing::History, &cursor).is_err());
        assert!(decode(Listing::Streams, "not base64 !").is_err());
        assert!(decode_number(Listing::Streams, &encode(Listing::Streams, "x")).is_err());
    }
}
