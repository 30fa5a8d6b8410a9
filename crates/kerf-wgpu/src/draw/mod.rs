//! What the GPU draws with: the shaders' pipelines (made on threads of
//! their own, [`made`]), the correction baked into them ([`fit`]), and the
//! instance formats their vertex stages read ([`vertex`]). The renderer's
//! `render` (renderer/render.rs) records them into the app's pass.

pub(crate) mod fit;
pub(crate) mod made;
pub(crate) mod pipeline;
pub(crate) mod vertex;
