// wgpu-sat: the joint angle for the GPU world's joints, the twin of relative_angle
// (src/dynamics/joints/mod.rs), atan2_small and atan2_f64 (src/math.rs).
//
// The host takes a wide turn's angle (past |y| <= x / 8, some 7 degrees) through atan2 in
// f64, and WGSL has no f64. So this file carries the few f64 operations that path uses (add,
// multiply, divide, and the conversions from and to f32), on the IEEE bits held in two u32
// (lo, hi), each rounded to nearest, ties to even, as the host's hardware rounds: the same
// bits. Only what the path can meet is handled: finite values, zeros of either sign, and f32
// subnormals as inputs; no f64 subnormal, infinity or NaN arises from a unit rotation's
// components (the smallest is about 1e-45, its square 1e-90, far above f64's 2e-308).
//
// A value in flight is unpacked as (sign, exponent, significand): the significand has its
// leading one at bit 55 of a u64 (53 bits, then a guard, a round and a sticky bit), the
// exponent unbiased.

// The u64 helpers (add64, mul32, ...) are u64.wgsl's, compiled before this file.

struct Unpacked {
    sign: u32,
    exponent: i32,
    // The significand, leading one at bit 52 (zero for a zero).
    m: vec2<u32>,
}

fn unpack(bits: vec2<u32>) -> Unpacked {
    let e = (bits.y >> 20u) & 0x7ffu;
    let m = vec2<u32>(bits.x, bits.y & 0xfffffu);
    if e == 0u {
        return Unpacked(bits.y >> 31u, 0, vec2<u32>(0u));
    }
    return Unpacked(bits.y >> 31u, i32(e) - 1023, vec2<u32>(m.x, m.y | 0x100000u));
}

fn signed_zero(sign: u32) -> vec2<u32> {
    return vec2<u32>(0u, sign << 31u);
}

fn is_zero64(bits: vec2<u32>) -> bool {
    return bits.x == 0u && (bits.y & 0x7fffffffu) == 0u;
}

// Rounds a significand with its leading one at bit 55 (53 bits, guard, round, sticky) to 53
// bits, nearest, ties to even, and packs it.
fn round_pack(sign: u32, exponent: i32, m: vec2<u32>) -> vec2<u32> {
    let low = m.x & 7u;
    var r = shr64_sticky(vec2<u32>(m.x & ~7u, m.y), 3u);
    var e = exponent;
    if low > 4u || (low == 4u && (r.x & 1u) == 1u) {
        r = add64(r, vec2<u32>(1u, 0u));
        if (r.y & 0x200000u) != 0u {
            r = shr64_sticky(r, 1u);
            e += 1;
        }
    }
    let biased = u32(e + 1023);
    return vec2<u32>(r.x, (sign << 31u) | (biased << 20u) | (r.y & 0xfffffu));
}

fn neg64(a: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x, a.y ^ 0x80000000u);
}

// a + b.
fn add_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    if is_zero64(a) {
        if is_zero64(b) {
            // +0 unless both are -0.
            return signed_zero((a.y >> 31u) & (b.y >> 31u));
        }
        return b;
    }
    if is_zero64(b) {
        return a;
    }
    var x = unpack(a);
    var y = unpack(b);
    x.m = shl64(x.m, 3u);
    y.m = shl64(y.m, 3u);
    // x the larger in magnitude.
    if x.exponent < y.exponent || (x.exponent == y.exponent && less64(x.m, y.m)) {
        let t = x;
        x = y;
        y = t;
    }
    let ym = shr64_sticky(y.m, u32(x.exponent - y.exponent));
    var e = x.exponent;
    var m: vec2<u32>;
    if x.sign == y.sign {
        m = add64(x.m, ym);
        if (m.y & 0x1000000u) != 0u {
            m = shr64_sticky(m, 1u);
            e += 1;
        }
    } else {
        m = sub64(x.m, ym);
        if m.x == 0u && m.y == 0u {
            return vec2<u32>(0u);
        }
        // Leading one back to bit 55.
        let shift = leading_zeros64(m) - 8u;
        m = shl64(m, shift);
        e -= i32(shift);
    }
    return round_pack(x.sign, e, m);
}

fn sub_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return add_f64(a, neg64(b));
}

// a * b.
fn mul_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let sign = (a.y ^ b.y) >> 31u;
    if is_zero64(a) || is_zero64(b) {
        return signed_zero(sign);
    }
    let x = unpack(a);
    let y = unpack(b);
    // The 106-bit product in four u32 limbs, lowest first.
    let p00 = mul32(x.m.x, y.m.x);
    let p01 = mul32(x.m.x, y.m.y);
    let p10 = mul32(x.m.y, y.m.x);
    let p11 = mul32(x.m.y, y.m.y);
    var l1 = vec2<u32>(p00.y, 0u);
    l1 = add64(l1, vec2<u32>(p01.x, 0u));
    l1 = add64(l1, vec2<u32>(p10.x, 0u));
    var l2 = vec2<u32>(l1.y, 0u);
    l2 = add64(l2, vec2<u32>(p01.y, 0u));
    l2 = add64(l2, vec2<u32>(p10.y, 0u));
    l2 = add64(l2, vec2<u32>(p11.x, 0u));
    let limbs = array<u32, 4>(p00.x, l1.x, l2.x, l2.y + p11.y);
    var e = x.exponent + y.exponent;
    // The leading one is at bit 104 or 105; bring it to 55.
    var s = 49u;
    if (limbs[3] & 0x200u) != 0u {
        s = 50u;
        e += 1;
    }
    let k = s - 32u;
    let lo = (limbs[1] >> k) | (limbs[2] << (32u - k));
    let hi = (limbs[2] >> k) | (limbs[3] << (32u - k));
    let lost = limbs[0] != 0u || (limbs[1] << (32u - k)) != 0u;
    return round_pack(sign, e, vec2<u32>(lo | select(0u, 1u, lost), hi));
}

// a / b, b not zero.
fn div_f64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let sign = (a.y ^ b.y) >> 31u;
    if is_zero64(a) {
        return signed_zero(sign);
    }
    let x = unpack(a);
    let y = unpack(b);
    var r = x.m;
    var e = x.exponent - y.exponent;
    if less64(r, y.m) {
        r = shl64(r, 1u);
        e -= 1;
    }
    // 56 quotient bits, long division: the leading one lands at bit 55.
    var q = vec2<u32>(0u);
    for (var i = 0u; i < 56u; i++) {
        q = shl64(q, 1u);
        if !less64(r, y.m) {
            r = sub64(r, y.m);
            q.x |= 1u;
        }
        r = shl64(r, 1u);
    }
    q.x |= select(0u, 1u, r.x != 0u || r.y != 0u);
    return round_pack(sign, e, q);
}

// f32 to f64, exactly.
fn f64_from_f32(v: f32) -> vec2<u32> {
    let u = bitcast<u32>(v);
    let sign = u >> 31u;
    let e = (u >> 23u) & 0xffu;
    var f = u & 0x7fffffu;
    if e == 0u && f == 0u {
        return signed_zero(sign);
    }
    var exponent = i32(e) - 127;
    if e == 0u {
        // A subnormal: its leading one becomes the implicit bit.
        let lead = 31u - countLeadingZeros(f);
        exponent = i32(lead) - 149;
        f = (f << (23u - lead)) & 0x7fffffu;
    }
    let m = shl64(vec2<u32>(f, 0u), 29u);
    return vec2<u32>(m.x, (sign << 31u) | (u32(exponent + 1023) << 20u) | m.y);
}

// f64 to f32, nearest, ties to even (the path's results are normal f32s).
fn f32_from_f64(a: vec2<u32>) -> f32 {
    let sign = a.y >> 31u;
    if is_zero64(a) {
        return bitcast<f32>(sign << 31u);
    }
    let x = unpack(a);
    // 53 bits to 24: 29 shifted out.
    let low = x.m.x & 0x1fffffffu;
    var m = (x.m.x >> 29u) | (x.m.y << 3u);
    var e = x.exponent;
    if low > 0x10000000u || (low == 0x10000000u && (m & 1u) == 1u) {
        m += 1u;
        if m == 0x1000000u {
            m >>= 1u;
            e += 1;
        }
    }
    return bitcast<f32>((sign << 31u) | (u32(e + 127) << 23u) | (m & 0x7fffffu));
}

// Whether a > b for two non-negative values: their bits order as they do.
fn greater_f64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return less64(b, a);
}

// math.rs' constants, as f64 bits (lo, hi).
const F64_ONE = vec2<u32>(0x00000000u, 0x3ff00000u);
const F64_TAN_PI_12 = vec2<u32>(0x5e9ecd56u, 0x3fd12614u);
const F64_SQRT_3 = vec2<u32>(0xe8584caau, 0x3ffbb67au);
const F64_FRAC_PI_6 = vec2<u32>(0x382d7366u, 0x3fe0c152u);
const F64_FRAC_PI_2 = vec2<u32>(0x54442d18u, 0x3ff921fbu);
const F64_PI = vec2<u32>(0x54442d18u, 0x400921fbu);
// 1 / (2n + 1) for n = 0..=11.
const F64_ODD_INVERSES = array<vec2<u32>, 12>(
    vec2<u32>(0x00000000u, 0x3ff00000u),
    vec2<u32>(0x55555555u, 0x3fd55555u),
    vec2<u32>(0x9999999au, 0x3fc99999u),
    vec2<u32>(0x92492492u, 0x3fc24924u),
    vec2<u32>(0x1c71c71cu, 0x3fbc71c7u),
    vec2<u32>(0x745d1746u, 0x3fb745d1u),
    vec2<u32>(0x13b13b14u, 0x3fb3b13bu),
    vec2<u32>(0x11111111u, 0x3fb11111u),
    vec2<u32>(0x1e1e1e1eu, 0x3fae1e1eu),
    vec2<u32>(0xbca1af28u, 0x3faaf286u),
    vec2<u32>(0x18618618u, 0x3fa86186u),
    vec2<u32>(0x590b2164u, 0x3fa642c8u),
);

// atan_unit (math.rs): atan t for t in [0, 1].
fn atan_unit(t: vec2<u32>) -> vec2<u32> {
    var base = vec2<u32>(0u);
    var u = t;
    if greater_f64(t, F64_TAN_PI_12) {
        base = F64_FRAC_PI_6;
        u = div_f64(sub_f64(mul_f64(t, F64_SQRT_3), F64_ONE), add_f64(t, F64_SQRT_3));
    }
    let u2 = mul_f64(u, u);
    var p = vec2<u32>(0u);
    var inverses = F64_ODD_INVERSES;
    for (var n = 11i; n >= 0i; n--) {
        var coefficient = inverses[n];
        if (n & 1i) == 1i {
            coefficient = neg64(coefficient);
        }
        p = add_f64(coefficient, mul_f64(u2, p));
    }
    return add_f64(base, mul_f64(u, p));
}

// The host's math::atan2 (atan2_f64 rounded to f32): the wide turn's path.
fn atan2_wide(y: f32, x: f32) -> f32 {
    let ax = f64_from_f32(abs(x));
    let ay = f64_from_f32(abs(y));
    let steep = greater_f64(ay, ax);
    var t = vec2<u32>(0u);
    if steep {
        t = div_f64(ax, ay);
    } else if !is_zero64(ax) {
        t = div_f64(ay, ax);
    }
    var a = atan_unit(t);
    if steep {
        a = sub_f64(F64_FRAC_PI_2, a);
    }
    if (bitcast<u32>(x) >> 31u) == 1u {
        a = sub_f64(F64_PI, a);
    }
    if (bitcast<u32>(y) >> 31u) == 1u {
        a = neg64(a);
    }
    return f32_from_f64(a);
}

// atan2_small (math.rs): near the positive x axis, atan t by its odd series in f32; else atan2.
fn atan2_small(y: f32, x: f32) -> f32 {
    if x > 0.0 && abs(y) <= 0.125 * x {
        let t = y / x;
        if t == 0.0 {
            return t;
        }
        let t2 = keep(t * t);
        // The f32 quotients -1/11, 1/9, -1/7, 1/5, -1/3 as the host's compiler rounds them.
        var p = bitcast<f32>(0xbdba2e8cu);
        p = keep(bitcast<f32>(0x3de38e39u) + keep(t2 * p));
        p = keep(bitcast<f32>(0xbe124925u) + keep(t2 * p));
        p = keep(bitcast<f32>(0x3e4ccccdu) + keep(t2 * p));
        p = keep(bitcast<f32>(0xbeaaaaabu) + keep(t2 * p));
        return t + keep(t * keep(t2 * p));
    }
    return atan2_wide(y, x);
}

// relative_angle (joints/mod.rs): the angle of rotation b relative to rotation a.
fn relative_angle(a: vec2<f32>, b: vec2<f32>) -> f32 {
    // inverse_rotate(a, b), each product kept.
    let r = vec2<f32>(keep(a.x * b.x) + keep(a.y * b.y), keep(-a.y * b.x) + keep(a.x * b.y));
    return atan2_small(r.y, r.x);
}

// unwind (joints/mod.rs): an angle brought into [-pi, pi] (PI and TAU as f32 bits).
fn unwind(angle: f32) -> f32 {
    let pi = bitcast<f32>(0x40490fdbu);
    let tau = bitcast<f32>(0x40c90fdbu);
    if angle < -pi {
        return angle + tau;
    }
    if angle > pi {
        return angle - tau;
    }
    return angle;
}
