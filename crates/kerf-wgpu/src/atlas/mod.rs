//! The GPU side of the cache's pages: the texture arrays and their bind
//! groups ([`textures::TextAtlas`]) and the per-glyph upload scatter.

pub(crate) mod scatter;
pub(crate) mod textures;
