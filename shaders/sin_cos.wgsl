// wgpu-sat: the sine and cosine of an angle to the host's bits, the twin of sin_cos,
// sin_cos_f64, sin_poly, cos_poly and from_angle in src/math.rs.
//
// The host reduces the angle by a two-part pi/2 and evaluates two Taylor polynomials in f64,
// then rounds to f32 once; WGSL's own sin and cos are neither specified to the last bit nor
// the same between adapters. WGSL has no f64, so the f64 steps run on soft_f64.wgsl's
// operations (each rounded as the host's hardware rounds), which this file needs compiled
// before it, with u64.wgsl.
//
//   sin_cos(a): a tiny angle (|a| < 2^-13, zero and subnormals included) is its own sine,
//               with cosine 1 (the host's polynomials round to exactly that there);
//               else x = a in f64, reduced modulo 2 pi first when |x| >= 2^20 pi/2;
//               k = round(x 2/pi) (half away from zero); r = (x - k PIO2_HI) - k PIO2_LO;
//               (sin_poly r, cos_poly r) swapped and negated by k mod 4; rounded to f32

// math.rs' constants, as f64 bits (lo, hi).
const F64_FRAC_2_PI = vec2<u32>(0x6dc9c883u, 0x3fe45f30u);
const F64_PIO2_HI = vec2<u32>(0x54400000u, 0x3ff921fbu);
const F64_PIO2_LO = vec2<u32>(0x1a626331u, 0x3dd0b461u);
const F64_TAU = vec2<u32>(0x54442d18u, 0x401921fbu);
// 2^20 quarter turns (HUGE_ANGLE): the reduction by PIO2_HI is exact below it.
const F64_HUGE_ANGLE = vec2<u32>(0x54442d18u, 0x413921fbu);
// sin_poly's coefficients, highest degree first: 1/13!, -1/11!, 1/9!, -1/7!, 1/5!, -1/3!.
const F64_SIN_TERMS = array<vec2<u32>, 6>(
    vec2<u32>(0x13a86d09u, 0x3de61246u),
    vec2<u32>(0x67f544e4u, 0xbe5ae645u),
    vec2<u32>(0xa556c734u, 0x3ec71de3u),
    vec2<u32>(0x1a01a01au, 0xbf2a01a0u),
    vec2<u32>(0x11111111u, 0x3f811111u),
    vec2<u32>(0x55555555u, 0xbfc55555u),
);
// cos_poly's: 1/14!, -1/12!, 1/10!, -1/8!, 1/6!, -1/4!, 1/2!.
const F64_COS_TERMS = array<vec2<u32>, 7>(
    vec2<u32>(0xa8c07c9du, 0x3da93974u),
    vec2<u32>(0xeff8d898u, 0xbe21eed8u),
    vec2<u32>(0xb7789f5cu, 0x3e927e4fu),
    vec2<u32>(0x1a01a01au, 0xbefa01a0u),
    vec2<u32>(0x16c16c17u, 0x3f56c16cu),
    vec2<u32>(0x55555555u, 0xbfa55555u),
    vec2<u32>(0x00000000u, 0x3fe00000u),
);
// Below this magnitude (2^-13) sin a rounds to a and cos a to 1 in f32: the polynomials'
// corrections (a^3/6 and a^2/2) are under a quarter of an f32 step there.
const TINY_ANGLE: f32 = 1.220703125e-4;

// x mod y, exactly, with x's sign (IEEE fmod, Rust's %), for finite x and a positive y:
// the long division's remainders on the significands, one quotient bit per step.
fn fmod_f64(x: vec2<u32>, y: vec2<u32>) -> vec2<u32> {
    let a = unpack(x);
    let b = unpack(y);
    if a.exponent < b.exponent || (a.exponent == b.exponent && less64(a.m, b.m)) {
        return x;
    }
    var m = a.m;
    for (var e = a.exponent; e > b.exponent; e--) {
        if !less64(m, b.m) {
            m = sub64(m, b.m);
        }
        m = shl64(m, 1u);
    }
    if !less64(m, b.m) {
        m = sub64(m, b.m);
    }
    if m.x == 0u && m.y == 0u {
        return signed_zero(a.sign);
    }
    // The remainder is below y, so it is exact at y's exponent: its leading one back to
    // bit 52 (the exponent stays far above f64's subnormals: y is 2 pi).
    let shift = leading_zeros64(m) - 11u;
    let r = shl64(m, shift);
    let biased = u32(b.exponent - i32(shift) + 1023);
    return vec2<u32>(r.x, (a.sign << 31u) | (biased << 20u) | (r.y & 0xfffffu));
}

// f64::round (half away from zero) of a value below 2^30 in magnitude, as an integer.
fn round_to_i32(v: vec2<u32>) -> i32 {
    if is_zero64(v) {
        return 0;
    }
    let u = unpack(v);
    var k = 0u;
    if u.exponent == -1 {
        k = 1u;
    } else if u.exponent >= 0 {
        // Integer part: the significand shifted right by 52 - exponent (22 to 52 places);
        // then the bit just below it, the half.
        let s = u32(52 - u.exponent);
        var whole = 0u;
        if s >= 32u {
            whole = u.m.y >> (s - 32u);
        } else {
            whole = (u.m.x >> s) | (u.m.y << (32u - s));
        }
        var half = 0u;
        if s - 1u >= 32u {
            half = (u.m.y >> (s - 33u)) & 1u;
        } else {
            half = (u.m.x >> (s - 1u)) & 1u;
        }
        k = whole + half;
    }
    return select(i32(k), -i32(k), u.sign == 1u);
}

// sin r for |r| <= pi/4 (math.rs' sin_poly): r + r^3 p(r^2).
fn sin_poly(r: vec2<u32>) -> vec2<u32> {
    let r2 = mul_f64(r, r);
    var terms = F64_SIN_TERMS;
    var p = terms[0];
    for (var i = 1; i < 6; i++) {
        p = add_f64(terms[i], mul_f64(r2, p));
    }
    return add_f64(r, mul_f64(mul_f64(r, r2), p));
}

// cos r for |r| <= pi/4 (math.rs' cos_poly): 1 - r^2 p(r^2).
fn cos_poly(r: vec2<u32>) -> vec2<u32> {
    let r2 = mul_f64(r, r);
    var terms = F64_COS_TERMS;
    var p = terms[0];
    for (var i = 1; i < 7; i++) {
        p = add_f64(terms[i], mul_f64(r2, p));
    }
    return sub_f64(F64_ONE, mul_f64(r2, p));
}

// (sin a, cos a) to the host's bits (math.rs' sin_cos); NaNs for an infinite or NaN angle.
fn sin_cos(angle: f32) -> vec2<f32> {
    if !is_finite_f32(angle) {
        let nan = bitcast<f32>(0x7fc00000u);
        return vec2<f32>(nan, nan);
    }
    if abs(angle) < TINY_ANGLE {
        return vec2<f32>(angle, 1.0);
    }
    var x = f64_from_f32(angle);
    if !less64(vec2<u32>(x.x, x.y & 0x7fffffffu), F64_HUGE_ANGLE) {
        x = fmod_f64(x, F64_TAU);
    }
    let k = round_to_i32(mul_f64(x, F64_FRAC_2_PI));
    let kf = f64_from_f32(f32(k));
    let r = sub_f64(sub_f64(x, mul_f64(kf, F64_PIO2_HI)), mul_f64(kf, F64_PIO2_LO));
    let s = sin_poly(r);
    let c = cos_poly(r);
    switch ((k % 4) + 4) % 4 {
        case 0: {
            return vec2<f32>(f32_from_f64(s), f32_from_f64(c));
        }
        case 1: {
            return vec2<f32>(f32_from_f64(c), f32_from_f64(neg64(s)));
        }
        case 2: {
            return vec2<f32>(f32_from_f64(neg64(s)), f32_from_f64(neg64(c)));
        }
        default: {
            return vec2<f32>(f32_from_f64(neg64(c)), f32_from_f64(s));
        }
    }
}

// The rotation (cos a, sin a) of an angle (math.rs' from_angle).
fn from_angle(angle: f32) -> vec2<f32> {
    let sc = sin_cos(angle);
    return vec2<f32>(sc.y, sc.x);
}
