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

// kerf_cache::curves::{BAND_TABLE, OFFSET_BITS}.
const BAND_TABLE: u32 = 6u;
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
    return out;
}

fn word_f(i: u32) -> f32 {
    return bitcast<f32>(curves[i]);
}

// A pixel's footprint in ems, about its centre.
struct Footprint {
    // The rows of the inverse of [a b]: the footprint is
    // |dot(m0, v)| <= 1/2 and |dot(m1, v)| <= 1/2.
    m0: vec2<f32>,
    m1: vec2<f32>,
    // Half its height; half the height of its middle part (between the
    // middle corners' heights), where its chords are all `w` long.
    h: f32,
    k: f32,
    w: f32,
    area: f32,
    // Its corners' heights.
    ys: vec4<f32>,
};

// The x interval where |dot(m, (x, y))| <= 1/2 (everything or nothing for
// a slab whose edges are level).
fn slab(m: vec2<f32>, y: f32) -> vec2<f32> {
    let level = abs(m.x) <= 1e-6 * abs(m.y);
    let c = -m.y * y / m.x;
    let half = 0.5 / abs(m.x);
    let all = select(vec2<f32>(1e30, -1e30), vec2<f32>(-1e30, 1e30), abs(m.y * y) <= 0.5);
    return select(vec2<f32>(c - half, c + half), all, level);
}

// The length of the footprint's chord at height v.y left of v.x.
fn chord_left(f: Footprint, v: vec2<f32>) -> f32 {
    let ia = slab(f.m0, v.y);
    let ib = slab(f.m1, v.y);
    let l = max(ia.x, ib.x);
    let r = min(ia.y, ib.y);
    return clamp(v.x - l, 0.0, max(r - l, 0.0));
}

// The footprint's area below height y.
fn below(f: Footprint, y: f32) -> f32 {
    let yc = clamp(y, -f.h, f.h);
    let t = 2.0 * max(f.h - f.k, 1e-30);
    let lo = f.w * (yc + f.h) * (yc + f.h) / t;
    let hi = f.area - f.w * (f.h - yc) * (f.h - yc) / t;
    let mid = f.w * (f.h - f.k) * 0.5 + f.w * (yc + f.k);
    return select(select(mid, hi, yc > f.k), lo, yc < -f.k);
}

// The roots of a t² + b t + c strictly inside 0..1 (-1 where there is none).
fn roots01(a: f32, b: f32, c: f32) -> vec2<f32> {
    var r = vec2<f32>(-1.0, -1.0);
    if (abs(a) <= 1e-6 * abs(b)) {
        if (b != 0.0) {
            r.x = -c / b;
        }
    } else {
        let d = b * b - 4.0 * a * c;
        if (d >= 0.0) {
            let q = -0.5 * (b + select(-1.0, 1.0, b >= 0.0) * sqrt(d));
            r.x = q / a;
            if (q != 0.0) {
                r.y = c / q;
            }
        }
    }
    return select(vec2<f32>(-1.0), r, r > vec2<f32>(0.0) & r < vec2<f32>(1.0));
}

// ∫ G(x(t), y(t)) y'(t) dt over the curve p0 p1 p2 (relative to the pixel's
// centre), cut where the integrand's form changes: two Gauss points a piece.
fn across(f: Footprint, p0: vec2<f32>, p1: vec2<f32>, p2: vec2<f32>) -> f32 {
    // P(t) = p0 + B t + A t².
    let A = p0 - 2.0 * p1 + p2;
    let B = 2.0 * (p1 - p0);
    var ts: array<f32, 18>;
    ts[0] = 0.0;
    ts[1] = 1.0;
    var n = 2u;
    // Where it crosses the footprint's four edges.
    for (var e = 0u; e < 4u; e++) {
        let m = select(f.m1, f.m0, e < 2u);
        let s = select(-0.5, 0.5, (e & 1u) == 0u);
        let r = roots01(dot(m, A), dot(m, B), dot(m, p0) - s);
        if (r.x > 0.0) { ts[n] = r.x; n++; }
        if (r.y > 0.0) { ts[n] = r.y; n++; }
    }
    // Where it passes the corners' heights.
    for (var c = 0u; c < 4u; c++) {
        let r = roots01(A.y, B.y, p0.y - f.ys[c]);
        if (r.x > 0.0) { ts[n] = r.x; n++; }
        if (r.y > 0.0) { ts[n] = r.y; n++; }
    }
    // In order (insertion sort: a handful of values).
    for (var i = 1u; i < n; i++) {
        let v = ts[i];
        var j = i;
        while (j > 0u && ts[j - 1u] > v) {
            ts[j] = ts[j - 1u];
            j--;
        }
        ts[j] = v;
    }
    var sum = 0.0;
    for (var i = 0u; i + 1u < n; i++) {
        let t0 = ts[i];
        let t1 = ts[i + 1u];
        if (t1 <= t0) {
            continue;
        }
        let half = 0.5 * (t1 - t0);
        let mid = 0.5 * (t0 + t1);
        let d = half * 0.57735026918962576;
        let ta = mid - d;
        let tb = mid + d;
        let ga = chord_left(f, p0 + (B + A * ta) * ta) * (B.y + 2.0 * A.y * ta);
        let gb = chord_left(f, p0 + (B + A * tb) * tb) * (B.y + 2.0 * A.y * tb);
        sum += half * (ga + gb);
    }
    return sum;
}

// The exact area coverage of the pixel about `p` (ems) by record `rec`.
fn outline_coverage(p: vec2<f32>, rec: u32) -> f32 {
    let a = dpdxFine(p);
    let b = dpdyFine(p);
    let det = a.x * b.y - a.y * b.x;
    var f: Footprint;
    f.area = abs(det);
    if (!(f.area > 0.0)) {
        return 0.0;
    }
    f.m0 = vec2<f32>(b.y, -b.x) / det;
    f.m1 = vec2<f32>(-a.y, a.x) / det;
    let ha = 0.5 * abs(a.y);
    let hb = 0.5 * abs(b.y);
    f.h = ha + hb;
    f.k = abs(ha - hb);
    f.w = f.area / (f.h + f.k);
    f.ys = 0.5 * vec4<f32>(a.y + b.y, a.y - b.y, -a.y - b.y, b.y - a.y);
    let ex = 0.5 * (abs(a.x) + abs(b.x));
    let lo = vec2<f32>(word_f(rec), word_f(rec + 1u));
    let hi = vec2<f32>(word_f(rec + 2u), word_f(rec + 3u));
    // Outside the bounds' rows, or right of them: nothing.
    if (p.y - f.h >= hi.y || p.y + f.h <= lo.y || p.x - ex >= hi.x) {
        return 0.0;
    }
    let n = curves[rec + 4u];
    let band_h = (hi.y - lo.y) / f32(n);
    let last = f32(n - 1u);
    let b0 = u32(clamp(floor((p.y - f.h - lo.y) / band_h), 0.0, last));
    let b1 = u32(clamp(floor((p.y + f.h - lo.y) / band_h), 0.0, last));
    var sum = 0.0;
    for (var band = b0; band <= b1; band++) {
        let start = rec + curves[rec + BAND_TABLE + 2u * band];
        let count = curves[rec + BAND_TABLE + 2u * band + 1u];
        for (var i = 0u; i < count; i++) {
            let entry = curves[start + i];
            let c = rec + (entry & OFFSET_MASK);
            let p0 = vec2<f32>(word_f(c), word_f(c + 1u)) - p;
            let p2 = vec2<f32>(word_f(c + 4u), word_f(c + 5u)) - p;
            // Rightmost first: every curve from here on ends left of the
            // footprint, where a crossing adds nothing.
            if (max(p0.x, p2.x) <= -ex) {
                break;
            }
            // Read in an earlier band of the footprint's rows already.
            if (band != b0 && (entry >> OFFSET_BITS) < band) {
                continue;
            }
            if (max(p0.y, p2.y) <= -f.h || min(p0.y, p2.y) >= f.h) {
                continue;
            }
            if (min(p0.x, p2.x) >= ex) {
                sum += below(f, p2.y) - below(f, p0.y);
                continue;
            }
            let p1 = vec2<f32>(word_f(c + 2u), word_f(c + 3u)) - p;
            sum += across(f, p0, p1, p2);
        }
    }
    return min(abs(sum) / f.area, 1.0);
}

@fragment
fn fs_outline(in: OutlineVaryings) -> @location(0) vec4<f32> {
    return shade_filtered(outline_coverage(in.em, in.record), in.color, in.lum);
}
