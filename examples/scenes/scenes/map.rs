//! A map (1600×1000): 300 place names at fixed places on the map's plane,
//! the camera zooming from 8 to 2,000 px per em and back over 600 frames
//! (by one factor a frame, as a pinch or a scroll wheel zooms) while the
//! map turns back and forth by up to 40°: the labels scale and turn with
//! it. At 2,000 px per em a label's glyph is larger than the window.

use super::common::{sans, shaped, width_of, Lcg, Scene};
use crate::sides::{Area, Shaped};
use glyphon::FontSystem;

const NAMES: [&str; 12] = [
    "Harbour",
    "Old Town",
    "Northgate",
    "Riverside",
    "Market Square",
    "Hill Fort",
    "Mill Lane",
    "Lighthouse",
    "West Bridge",
    "Saltmarsh",
    "Cathedral",
    "Quarry",
];
const LABELS: usize = 300;
/// Frames of one zoom in and out.
const PERIOD: usize = 600;
/// The labels' em at zoom 1, and the zoom's range: 8 to 2,000 px per em.
const EM: f32 = 16.0;
const ZOOM_MIN: f32 = 8.0 / EM;
const ZOOM_MAX: f32 = 2000.0 / EM;

pub(super) struct Map {
    /// Each label: its text, its place on the map (map pixels at zoom 1)
    /// and its width.
    labels: Vec<(Shaped, f32, f32, f32)>,
    zoom: f32,
    turn: f32,
    /// The map point at the window's centre.
    centre: (f32, f32),
}

impl Map {
    pub(super) fn new(fs: &mut FontSystem) -> Map {
        let mut rng = Lcg(0x3a9_0f1e);
        let labels = (0..LABELS)
            .map(|i| {
                let text = format!("{} {}", NAMES[i % NAMES.len()], 1 + rng.below(99));
                let b = shaped(fs, &text, EM, None, &sans());
                // Spread over a 3,200 × 2,000 map about its centre, a few
                // close to it (where the zoom ends up).
                let spread = if i % 10 == 0 { 60.0 } else { 1.0 };
                let x = (rng.unit() - 0.5) * 3200.0 / spread;
                let y = (rng.unit() - 0.5) * 2000.0 / spread;
                let w = width_of(&b);
                (b, x, y, w)
            })
            .collect();
        Map { labels, zoom: ZOOM_MIN, turn: 0.0, centre: (0.0, 0.0) }
    }
}

impl Scene for Map {
    fn size(&self) -> (u32, u32) {
        (1600, 1000)
    }
    fn advance(&mut self, _: &mut FontSystem, i: usize) {
        // In and out geometrically: the same factor every frame.
        let t = (i % PERIOD) as f32 / (PERIOD / 2) as f32;
        let u = if t > 1.0 { 2.0 - t } else { t };
        self.zoom = ZOOM_MIN * (ZOOM_MAX / ZOOM_MIN).powf(u);
        self.turn = 40f32.to_radians() * (i as f32 * 0.013).sin();
        // The camera drifts towards a label near the middle as it zooms.
        self.centre = (12.0 * u, -8.0 * u);
    }
    fn areas(&self) -> Vec<Area<'_>> {
        let (w, h) = self.size();
        let c = (w as f32 / 2.0, h as f32 / 2.0);
        let s = self.zoom;
        self.labels
            .iter()
            .map(|(b, x, y, width)| {
                // The label's middle at its place, the map turned about the
                // window's centre (the labels with it).
                let left = c.0 + s * (x - self.centre.0 - width / 2.0);
                let top = c.1 + s * (y - self.centre.1 - EM * 0.6);
                Area {
                    scale: s,
                    rotation: self.turn,
                    pivot: c,
                    color: [30, 40, 60, 255],
                    ..Area::at(b, left, top)
                }
            })
            .collect()
    }
}
