//! Bitsets as words of `BITS` columns, bit `c % BITS` of word `c / BITS`
//! for column `c`; ranges are `c0..c1`.
//! (MaxRects' grid of free cells, in deallocation.)

/// A word of columns (64-bit: cheaper shifts than `u128`, and most
/// neighbourhoods fit one).
pub(crate) type Word = u64;
pub(crate) const BITS: usize = Word::BITS as usize;

/// The bits of word `w` that lie in `c0..c1`.
fn mask(w: usize, c0: usize, c1: usize) -> Word {
    let ones = |n: usize| if n >= BITS { !0 } else { (1 << n) - 1 };
    let (lo, hi) = (c0.saturating_sub(BITS * w), c1.saturating_sub(BITS * w));
    ones(hi) & !ones(lo)
}

/// The words that hold some of `c0..c1`.
fn span(c0: usize, c1: usize) -> core::ops::Range<usize> {
    if c0 < c1 {
        c0 / BITS..(c1 - 1) / BITS + 1
    } else {
        0..0
    }
}

pub(crate) fn set(words: &mut [Word], c0: usize, c1: usize) {
    for w in span(c0, c1) {
        words[w] |= mask(w, c0, c1);
    }
}

pub(crate) fn all(words: &[Word], c0: usize, c1: usize) -> bool {
    span(c0, c1).all(|w| words[w] & mask(w, c0, c1) == mask(w, c0, c1))
}

/// True when every column set in `a` is set in `b` (rows of equal length).
pub(crate) fn subset(a: &[Word], b: &[Word]) -> bool {
    a.iter().zip(b).all(|(a, b)| a & !b == 0)
}

pub(crate) fn any(words: &[Word], c0: usize, c1: usize) -> bool {
    span(c0, c1).any(|w| words[w] & mask(w, c0, c1) != 0)
}

/// The first column at or after `from` whose bit is `value`.
pub(crate) fn next(words: &[Word], from: usize, value: bool) -> Option<usize> {
    let word = |w: usize| if value { words[w] } else { !words[w] };
    let mut w = from / BITS;
    if w >= words.len() {
        return None;
    }
    let mut rest = word(w) & (!0 << (from % BITS));
    while rest == 0 {
        w += 1;
        if w == words.len() {
            return None;
        }
        rest = word(w);
    }
    Some(BITS * w + rest.trailing_zeros() as usize)
}
