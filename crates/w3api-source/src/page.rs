//! Paging where the data lives.
//!
//! A listing is read one page at a time: the server asks for `limit` items
//! after a [`PagePosition`], and the source answers those items and the
//! position of the next page. The position is opaque to the server (it only
//! signs it into the client's cursor), so each source writes what suits its
//! storage: the devnet the key of the last item, a SQL backend the values of
//! its keyset.

/// Where a listing stands between two pages, written by the source.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PagePosition(pub String);

/// One page to read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PageRequest {
    /// Most items to return; at least 1.
    pub limit: usize,
    /// Read after this position; from the start when `None`.
    pub after: Option<PagePosition>,
}

impl PageRequest {
    /// The first `limit` items (at least one).
    pub fn first(limit: usize) -> PageRequest {
        PageRequest { limit: limit.max(1), after: None }
    }

    /// Cuts the page out of a listing whose items have a totally ordered key,
    /// for sources that hold the whole listing at hand. The position is the
    /// last key of the page, as `encode` writes it; `decode` reads it back,
    /// and a position it cannot read is [`crate::SourceError::BadPosition`].
    pub fn cut<T, K: Ord>(
        &self,
        items: impl IntoIterator<Item = T>,
        key: impl Fn(&T) -> K,
        encode: impl Fn(&K) -> String,
        decode: impl Fn(&str) -> Option<K>,
    ) -> Result<Page<T>, crate::SourceError> {
        let after = match &self.after {
            Some(position) => Some(decode(&position.0).ok_or(crate::SourceError::BadPosition)?),
            None => None,
        };
        let mut rest = items.into_iter().filter(|item| after.as_ref().is_none_or(|after| key(item) > *after));
        let items: Vec<T> = rest.by_ref().take(self.limit.max(1)).collect();
        let next = match (items.last(), rest.next()) {
            (Some(last), Some(_)) => Some(PagePosition(encode(&key(last)))),
            _ => None,
        };
        Ok(Page { items, next })
    }
}

/// One page of a listing.
#[derive(Clone, Debug, PartialEq)]
pub struct Page<T> {
    /// The items, in the listing's order.
    pub items: Vec<T>,
    /// Where the next page starts; `None` on the last page.
    pub next: Option<PagePosition>,
}

impl<T> Page<T> {
    /// The same page with each item changed by `f`.
    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page { items: self.items.into_iter().map(f).collect(), next: self.next }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(all: &[u32], limit: usize) -> Vec<Vec<u32>> {
        let mut pages = Vec::new();
        let mut request = PageRequest::first(limit);
        loop {
            let page = request.cut(all.iter().copied(), |n| *n, ToString::to_string, |t| t.parse().ok()).unwrap();
            pages.push(page.items);
            match page.next {
                Some(next) => request.after = Some(next),
                None => return pages,
            }
        }
    }

    #[test]
    fn walking_yields_every_item_once_and_no_empty_last_page() {
        let all: Vec<u32> = (0..37).map(|n| n * 3).collect();
        for limit in 1..=40 {
            let pages = walk(&all, limit);
            assert_eq!(pages.concat(), all, "limit {limit}");
            assert!(pages.iter().all(|p| !p.is_empty() && p.len() <= limit), "limit {limit}");
            assert_eq!(pages.len(), all.len().div_ceil(limit), "limit {limit}");
        }
        assert_eq!(walk(&[], 5), vec![Vec::<u32>::new()], "an empty listing is one empty page");
    }

    #[test]
    fn an_unreadable_position_is_refused() {
        let request = PageRequest { limit: 2, after: Some(PagePosition("x".into())) };
        let error = request.cut([1u32, 2], |n| *n, ToString::to_string, |t| t.parse().ok()).unwrap_err();
        assert!(matches!(error, crate::SourceError::BadPosition), "{error}");
    }
}
