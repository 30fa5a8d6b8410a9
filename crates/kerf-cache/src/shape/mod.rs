//! Shaper adapters: cosmic-text and parley layouts as positioned glyphs,
//! decorations and effects.

#[cfg(feature = "cosmic-text")]
pub(crate) mod cosmic;
#[cfg(feature = "parley")]
pub(crate) mod parley_adapter;
