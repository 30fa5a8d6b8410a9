// kerf's outline path: glyphs drawn from their curves, each pixel's exact
// area coverage under nonzero winding computed in the fragment shader.
// Appended to common.wgsl, filtered.wgsl and area_transform.wgsl.
//
// A glyph's record (kerf_cache::curves) holds its curves in ems (y up),
// quadratic and monotone in x and y, and horizontal bands listing the
// curves that reach into each, rightmost first.
//
// The coverage of a pixel. Its footprint in ems is the parallelogram
// spanned by a = d(em)/dx and b = d(em)/dy about the pixel's centre p (for
// an affine transform exactly the pixel's preimage; under perspective its
// preimage to first order). With w(q) the winding number at q, counted by
// the curves crossing the ray from q to the right (+x in ems), the
// winding-weighted area of the footprint is
//     ∫∫ w = Σ over curves ∫ G(x(t), y(t)) y'(t) dt,
// G(x, y) being the length of the footprint's chord at height y left of x:
// each crossing adds its direction to every point of the chord behind it.
// A curve right of the footprint adds the footprint's area between its
// ends' heights (closed form); one left of it adds nothing, and the bands'
// order lets the loop stop at the first; one across it is integrated
// exactly: between the parameters where it crosses the footprint's edges
// or passes its corners' heights, G · y' is a cubic in t, and two-point
// Gauss-Legendre is exact for cubics. Coverage = min(|∫∫ w| / area, 1)
// (nonzero winding, as FreeType's: overlapping contours count once).

// The outline records: kerf_cache::curves::CurveStore's words, mirrored.
@group(3) @binding(0) var<storage, read> curves: array<u32>;

// kerf_cache::curves::{GRID, GRID_SIDE, CELL_EDGE, BAND_TABLE, OFFSET_BITS}.
const GRID: u32 = 6u;
const GRID_SIDE: u32 = 16u;
const CELL_EDGE: u32 = 2u;
const BAND_TABLE: u32 = 22u;
const OFFSET_BITS: u32 = 24u;
const OFFSET_MASK: u32 = 0x00ffffffu;

// One kerf_wgpu::OutlineQuad per instance (48 bytes).
struct OutlineInstance {
    @builtin(vertex_index) vertex: u32,
    // The pen (area pixels).
    @location(0) pen: vec2<f32>,
    // Area pixels per em, and the margin around the bounds (ems).
    @location(1) scale: vec2<f32>,
    // The outline's bounds: xmin, ymin, xmax, ymax (ems, y up).
    @location(2) bounds: vec4<f32>,
    @location(3) record: u32,
    @location(4) color: vec4<f32>,
    @location(5) transform: u32,
};

struct OutlineVaryings {
    @builtin(position) clip: vec4<f32>,
    // The position in ems.
    @location(0) em: vec2<f32>,
    @location(1) @interpolate(flat) record: u32,
    @location(2) @interpolate(flat) color: vec4<f32>,
    @location(3) @interpolate(flat) lum: f32,
    // The outline's bounds (as the record's first words; a flat input is
    // cheaper than four reads of the store per fragment).
    @location(4) @interpolate(flat) bounds: vec4<f32>,
};

@vertex
fn vs_outline(in: OutlineInstance) -> OutlineVaryings {
    let corner = vec2<f32>(f32(in.vertex & 1u), f32((in.vertex >> 1u) & 1u));
    let m = in.scale.y;
    // Top-left first: y up in ems, down in the area.
    let em = vec2<f32>(
        mix(in.bounds.x - m, in.bounds.z + m, corner.x),
        mix(in.bounds.w + m, in.bounds.y - m, corner.y),
    );
    var out: OutlineVaryings;
    out.clip = area_clip(in.transform, in.pen + vec2<f32>(em.x, -em.y) * in.scale.x);
    out.em = em;
    out.record = in.record;
    out.color = target_color(in.color);
    out.lum = color_luminance(in.color);
    out.bounds = in.bounds;
    return out;
}

fn word_f(i: u32) -> f32 {
    return bitcast<f32>(curves[i]);
}

// A pixel's footprint in ems, about its centre: the parallelogram of
// corners ±a/2 ±b/2.
struct Footprint {
    // Its corners, counter-clockwise from -(a + b)/2: the edges run
    // v0→v1, v1→v2, v2→v3, v3→v0.
    v0: vec2<f32>,
    v1: vec2<f32>,
    v2: vec2<f32>,
    v3: vec2<f32>,
    // The orientation's sign: the chord-length identity below holds with
    // -1 for corners counter-clockwise (y up), +1 for clockwise.
    sigma: f32,
    // Half its height; half the height of its middle part (between the
    // middle corners' heights), where its chords are all `w` long.
    h: f32,
    k: f32,
    w: f32,
    area: f32,
};

// The footprint's area below height y (closed form: two triangles and the
// part between them).
fn below(f: Footprint, y: f32) -> f32 {
    let yc = clamp(y, -f.h, f.h);
    let t = 2.0 * max(f.h - f.k, 1e-30);
    let lo = f.w * (yc + f.h) * (yc + f.h) / t;
    let hi = f.area - f.w * (f.h - yc) * (f.h - yc) / t;
    let mid = f.w * (f.h - f.k) * 0.5 + f.w * (yc + f.k);
    return select(select(mid, hi, yc > f.k), lo, yc < -f.k);
}

// The parameter where a curve monotone in y (y(t) = c0 + b t + a t², from
// y0 to y2) reaches height `y`: 0 or 1 where it never does.
fn t_at(a: f32, b: f32, c0: f32, y0: f32, y2: f32, y: f32) -> f32 {
    let rising = y2 >= y0;
    let before = select(y >= y0, y <= y0, rising);
    let after = select(y <= y2, y >= y2, rising);
    let c = c0 - y;
    var t: f32;
    if (abs(a) <= 1e-6 * abs(b)) {
        t = -c / b;
    } else {
        let d = max(b * b - 4.0 * a * c, 0.0);
        let q = -0.5 * (b + select(-1.0, 1.0, b >= 0.0) * sqrt(d));
        let r1 = q / a;
        let r2 = select(r1, c / q, q != 0.0);
        // The root in 0..1 (the other lies outside: the curve is monotone).
        t = select(r2, r1, r1 >= -1e-4 && r1 <= 1.0 + 1e-4);
    }
    return select(select(clamp(t, 0.0, 1.0), 1.0, after), 0.0, before);
}

// ∫ of (d0 + d1 t + d2 t²)(e0 + e1 t) dt from t0 to t1: a cubic, so two
// Gauss-Legendre points are exact, and evaluated inside the piece they
// lose nothing to cancellation (an antiderivative's difference over a
// piece a pixel long of a curve an em long would).
fn piece(d: vec3<f32>, e: vec2<f32>, t0: f32, t1: f32) -> f32 {
    let half = 0.5 * (t1 - t0);
    let mid = 0.5 * (t0 + t1);
    let ts = vec2<f32>(mid) + vec2<f32>(-half, half) * 0.57735026918962576;
    let f = (d.x + ts * (d.y + ts * d.z)) * (e.x + ts * e.y);
    return half * (f.x + f.y);
}

// One edge's share (from `a` to `b`) of the curve's integral: ∫ max(0,
// x(t) - x_e(y(t))) y'(t) dt over the parameters where y(t) lies in the
// edge's height range (t from ta to tb), x_e the edge's x at height y.
// Between the roots of x(t) - x_e(y(t)), a quadratic, the integrand is a
// cubic of known sign (`piece`).
fn edge_share(a: vec2<f32>, b: vec2<f32>, ta: f32, tb: f32, p0: vec2<f32>, cl: vec2<f32>, cq: vec2<f32>) -> f32 {
    if (a.y == b.y || tb <= ta) {
        return 0.0;
    }
    let k = (b.x - a.x) / (b.y - a.y);
    let d = vec3<f32>(p0.x - a.x - (p0.y - a.y) * k, cl.x - k * cl.y, cq.x - k * cq.y);
    let e = vec2<f32>(cl.y, 2.0 * cq.y);
    // The roots of d, in order, held inside ta..tb.
    var r1 = tb;
    var r2 = tb;
    if (abs(d.z) <= 1e-6 * abs(d.y)) {
        if (d.y != 0.0) {
            r1 = -d.x / d.y;
        }
    } else {
        let disc = d.y * d.y - 4.0 * d.z * d.x;
        if (disc >= 0.0) {
            let q = -0.5 * (d.y + select(-1.0, 1.0, d.y >= 0.0) * sqrt(disc));
            let x1 = q / d.z;
            let x2 = select(x1, d.x / q, q != 0.0);
            r1 = min(x1, x2);
            r2 = max(x1, x2);
        }
    }
    r1 = clamp(r1, ta, tb);
    r2 = clamp(r2, r1, tb);
    // Each piece counts where x(t) is right of the edge (d > 0 at its middle).
    let dm = vec3<f32>(0.5 * (ta + r1), 0.5 * (r1 + r2), 0.5 * (r2 + tb));
    let sign = d.x + dm * (d.y + dm * d.z);
    var sum = 0.0;
    sum += select(0.0, piece(d, e, ta, r1), sign.x > 0.0);
    sum += select(0.0, piece(d, e, r1, r2), sign.y > 0.0);
    sum += select(0.0, piece(d, e, r2, tb), sign.z > 0.0);
    return sum;
}

// ∫ G(x(t), y(t)) y'(t) dt over the curve p0 p1 p2 (relative to the pixel's
// centre; monotone in y), G the length of the footprint's chord at height
// y left of x. The footprint's edges split G into a sum: with rays to the
// left, G(x, y) = sigma · Σ over edges e of ±max(0, x - x_e(y)) for y in
// e's height range, + where the edge runs up, - where it runs down.
fn across(f: Footprint, p0: vec2<f32>, p1: vec2<f32>, p2: vec2<f32>) -> f32 {
    // P(t) = p0 + cl t + cq t².
    let cq = p0 - 2.0 * p1 + p2;
    let cl = 2.0 * (p1 - p0);
    // The parameters where the curve passes each corner's height.
    let t0 = t_at(cq.y, cl.y, p0.y, p0.y, p2.y, f.v0.y);
    let t1 = t_at(cq.y, cl.y, p0.y, p0.y, p2.y, f.v1.y);
    let t2 = t_at(cq.y, cl.y, p0.y, p0.y, p2.y, f.v2.y);
    let t3 = t_at(cq.y, cl.y, p0.y, p0.y, p2.y, f.v3.y);
    var sum = 0.0;
    sum += sign(f.v1.y - f.v0.y) * edge_share(f.v0, f.v1, min(t0, t1), max(t0, t1), p0, cl, cq);
    sum += sign(f.v2.y - f.v1.y) * edge_share(f.v1, f.v2, min(t1, t2), max(t1, t2), p0, cl, cq);
    sum += sign(f.v3.y - f.v2.y) * edge_share(f.v2, f.v3, min(t2, t3), max(t2, t3), p0, cl, cq);
    sum += sign(f.v0.y - f.v3.y) * edge_share(f.v3, f.v0, min(t3, t0), max(t3, t0), p0, cl, cq);
    // The curve runs down where y' < 0: its integral over t is then the
    // integral over the height range with its sign (no reordering needed).
    return f.sigma * sum;
}

// The exact area coverage of the pixel about `p` (ems) by record `rec`,
// whose bounds are `bounds`.
fn outline_coverage(p: vec2<f32>, rec: u32, bounds: vec4<f32>) -> f32 {
    let da = dpdxFine(p);
    let db = dpdyFine(p);
    // A footprint edge within a thousandth of level is made level: its
    // slope would multiply the rounding of every height (the shape moves by
    // at most 1/1000 of a pixel).
    let a = vec2<f32>(da.x, select(da.y, 0.0, abs(da.y) < 1e-3 * abs(da.x)));
    let b = vec2<f32>(db.x, select(db.y, 0.0, abs(db.y) < 1e-3 * abs(db.x)));
    let det = a.x * b.y - a.y * b.x;
    var f: Footprint;
    f.area = abs(det);
    if (!(f.area > 0.0)) {
        return 0.0;
    }
    f.v0 = -0.5 * (a + b);
    f.v1 = 0.5 * (a - b);
    f.v2 = 0.5 * (a + b);
    f.v3 = 0.5 * (b - a);
    f.sigma = select(1.0, -1.0, det > 0.0);
    let ha = 0.5 * abs(a.y);
    let hb = 0.5 * abs(b.y);
    f.h = ha + hb;
    f.k = abs(ha - hb);
    f.w = f.area / (f.h + f.k);
    let ex = 0.5 * (abs(a.x) + abs(b.x));
    let lo = bounds.xy;
    let hi = bounds.zw;
    // Outside the bounds' rows, or left or right of them: nothing.
    if (p.y - f.h >= hi.y || p.y + f.h <= lo.y || p.x - ex >= hi.x || p.x + ex <= lo.x) {
        return 0.0;
    }
    // A footprint inside one cell that no curve reaches: the cell's
    // coverage, no curve read (most pixels of a large glyph).
    let cell = (hi - lo) / f32(GRID_SIDE);
    let c0 = floor((p - vec2<f32>(ex, f.h) - lo) / cell);
    let c1 = floor((p + vec2<f32>(ex, f.h) - lo) / cell);
    if (all(c0 == c1) && all(c0 >= vec2<f32>(0.0)) && all(c0 < vec2<f32>(f32(GRID_SIDE)))) {
        let i = u32(c0.y) * GRID_SIDE + u32(c0.x);
        let code = (curves[rec + GRID + i / 16u] >> (2u * (i % 16u))) & 3u;
        if (code != CELL_EDGE) {
            return f32(code);
        }
    }
    let n = curves[rec + 4u];
    let band_h = (hi.y - lo.y) / f32(n);
    let last = f32(n - 1u);
    let b0 = u32(clamp(floor((p.y - f.h - lo.y) / band_h), 0.0, last));
    let b1 = u32(clamp(floor((p.y + f.h - lo.y) / band_h), 0.0, last));
    // Rays to the right from pixels in the bounds' right half, to the left
    // from the left half: the curves on the nearer side are read, the far
    // side's never. Leftward, a curve adds minus the part of the
    // footprint's rows right of it (the two sums agree: over closed
    // contours the chord lengths' integral is zero).
    let leftward = p.x < 0.5 * (lo.x + hi.x);
    var sum = 0.0;
    for (var band = b0; band <= b1; band++) {
        let count = curves[rec + BAND_TABLE + 2u * band + 1u];
        let start = rec + curves[rec + BAND_TABLE + 2u * band] + select(0u, count, leftward);
        for (var i = 0u; i < count; i++) {
            let entry = curves[start + i];
            let c = rec + (entry & OFFSET_MASK);
            let p0 = vec2<f32>(word_f(c), word_f(c + 1u)) - p;
            let p2 = vec2<f32>(word_f(c + 4u), word_f(c + 5u)) - p;
            // Nearest first: every curve from here on lies beyond the
            // footprint on the ray's far side, where a crossing adds nothing.
            if (select(max(p0.x, p2.x) <= -ex, min(p0.x, p2.x) >= ex, leftward)) {
                break;
            }
            // Read in an earlier band of the footprint's rows already.
            if (band != b0 && (entry >> OFFSET_BITS) < band) {
                continue;
            }
            if (max(p0.y, p2.y) <= -f.h || min(p0.y, p2.y) >= f.h) {
                continue;
            }
            let whole = below(f, p2.y) - below(f, p0.y);
            // Wholly on the ray's side of the footprint: its rows' area.
            if (select(min(p0.x, p2.x) >= ex, max(p0.x, p2.x) <= -ex, leftward)) {
                sum += select(whole, -whole, leftward);
                continue;
            }
            let p1 = vec2<f32>(word_f(c + 2u), word_f(c + 3u)) - p;
            let left = across(f, p0, p1, p2);
            sum += select(left, left - whole, leftward);
        }
    }
    return min(abs(sum) / f.area, 1.0);
}

@fragment
fn fs_outline(in: OutlineVaryings) -> @location(0) vec4<f32> {
    return shade_filtered(outline_coverage(in.em, in.record, in.bounds), in.color, in.lum);
}
