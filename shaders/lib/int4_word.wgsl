// One 32-weight word of four INT4 columns against 32 inputs: the arithmetic every
// INT4 decode kernel shares (matvec_int4_core.wgsl's main loop, the MLP's down
// partials, attention's o_proj partials), so a sum split differently across
// kernels still adds bit-identical terms. A kernel that includes this defines the
// hooks load_q(m, i) -> vec4<u32> and load_sm(m, i) -> vec2<f32> (word i, scale
// group i of its matrix m).

// Four nibbles of `word` (bits 0..16: lo, 16..32: hi) as the floats 1 + q / 16, built by
// moving each nibble into the top mantissa bits of 1.0 (shift + mask + or): no int to
// float conversion, which runs at a quarter of the FMA rate and was the longest part of
// a small matvec's critical path. word_dot folds the 1 and the 16 back in.
const MANT_MASK: u32 = 0x00780000u; // mantissa bits 19..22
const ONE_BITS: u32 = 0x3f800000u;
fn mant_floats(w: vec4<u32>) -> vec4<f32> {
    return bitcast<vec4<f32>>((w & vec4<u32>(MANT_MASK)) | vec4<u32>(ONE_BITS));
}
fn nib4_lo(word: u32) -> vec4<f32> { return mant_floats(vec4<u32>(word << 19u, word << 15u, word << 11u, word << 7u)); }
fn nib4_hi(word: u32) -> vec4<f32> { return mant_floats(vec4<u32>(word << 3u, word >> 1u, word >> 5u, word >> 9u)); }

struct WordAcc { dq: vec4<f32>, sx: f32 }

// Inputs xa = x[8 j .. 8 j + 4], xb = x[8 j + 4 .. 8 j + 8] against u32 j of each column's word.
fn word_step(acc: WordAcc, xa: vec4<f32>, xb: vec4<f32>, w0: u32, w1: u32, w2: u32, w3: u32) -> WordAcc {
    var r = acc;
    r.sx += dot(xa + xb, vec4<f32>(1.0));
    r.dq += vec4<f32>(dot(nib4_lo(w0), xa) + dot(nib4_hi(w0), xb),
                      dot(nib4_lo(w1), xa) + dot(nib4_hi(w1), xb),
                      dot(nib4_lo(w2), xa) + dot(nib4_hi(w2), xb),
                      dot(nib4_lo(w3), xa) + dot(nib4_hi(w3), xb));
    return r;
}

// Columns q0..q3 (one vec4<u32> word each: 32 weights, k at bits 4 * (k % 8) of u32 k / 8)
// against inputs x0..x7 (32 floats): per column s * dot(q, x) + m * sum(x). With
// f = 1 + q / 16: dot(q, x) = 16 (dot(f, x) - sum(x)), so a column is
// 16 s * dot(f, x) + (m - 16 s) * sum(x).
fn word_dot(x0: vec4<f32>, x1: vec4<f32>, x2: vec4<f32>, x3: vec4<f32>,
            x4: vec4<f32>, x5: vec4<f32>, x6: vec4<f32>, x7: vec4<f32>,
            q0: vec4<u32>, q1: vec4<u32>, q2: vec4<u32>, q3: vec4<u32>,
            sc: vec4<f32>, ofs: vec4<f32>) -> vec4<f32> {
    var a = WordAcc(vec4<f32>(0.0), 0.0);
    a = word_step(a, x0, x1, q0.x, q1.x, q2.x, q3.x);
    a = word_step(a, x2, x3, q0.y, q1.y, q2.y, q3.y);
    a = word_step(a, x4, x5, q0.z, q1.z, q2.z, q3.z);
    a = word_step(a, x6, x7, q0.w, q1.w, q2.w, q3.w);
    let sc16 = 16.0 * sc;
    return sc16 * a.dq + (ofs - sc16) * a.sx;
}

// One word of four columns' weights with their scale groups (zeros for absent columns).
struct Chunk {
    q0: vec4<u32>, q1: vec4<u32>, q2: vec4<u32>, q3: vec4<u32>,
    sm0: vec2<f32>, sm1: vec2<f32>, sm2: vec2<f32>, sm3: vec2<f32>,
}

fn chunk_scales(c: Chunk) -> vec4<f32> { return vec4<f32>(c.sm0.x, c.sm1.x, c.sm2.x, c.sm3.x); }
fn chunk_offsets(c: Chunk) -> vec4<f32> { return vec4<f32>(c.sm0.y, c.sm1.y, c.sm2.y, c.sm3.y); }

// Columns 4 quad .. 4 quad + 4 of matrix m (K = k, scale groups of `group`) at word `word`
// of their K: the split matvecs' loads (the MLP's down partials, attention's o_proj).
fn quad_words(m: u32, quad: u32, word: u32, k: u32, group: u32) -> Chunk {
    let vecs = k / 32u;
    let groups = k / group;
    let gv = word / (group / 32u);
    let c = 4u * quad;
    var r: Chunk;
    r.q0 = load_q(m, c * vecs + word);
    r.q1 = load_q(m, (c + 1u) * vecs + word);
    r.q2 = load_q(m, (c + 2u) * vecs + word);
    r.q3 = load_q(m, (c + 3u) * vecs + word);
    r.sm0 = load_sm(m, c * groups + gv);
    r.sm1 = load_sm(m, (c + 1u) * groups + gv);
    r.sm2 = load_sm(m, (c + 2u) * groups + gv);
    r.sm3 = load_sm(m, (c + 3u) * groups + gv);
    return r;
}

// word_dot of a loaded Chunk.
fn chunk_dot(x0: vec4<f32>, x1: vec4<f32>, x2: vec4<f32>, x3: vec4<f32>,
             x4: vec4<f32>, x5: vec4<f32>, x6: vec4<f32>, x7: vec4<f32>, c: Chunk) -> vec4<f32> {
    return word_dot(x0, x1, x2, x3, x4, x5, x6, x7, c.q0, c.q1, c.q2, c.q3, chunk_scales(c), chunk_offsets(c));
}
