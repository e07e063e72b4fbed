// wgpu-sat: unsigned 64-bit integers held as vec2<u32> (low, high), for the kernels that need
// them and WGSL's missing u64: the soft f64 of the joint angle (soft_f64.wgsl) and the
// colouring's SplitMix64 draws (colouring.wgsl). Integer arithmetic: the same bits on every
// adapter.

// A u64 as (lo, hi).
fn add64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    let lo = a.x + b.x;
    return vec2<u32>(lo, a.y + b.y + select(0u, 1u, lo < a.x));
}

// a - b for a >= b.
fn sub64(a: vec2<u32>, b: vec2<u32>) -> vec2<u32> {
    return vec2<u32>(a.x - b.x, a.y - b.y - select(0u, 1u, a.x < b.x));
}

fn less64(a: vec2<u32>, b: vec2<u32>) -> bool {
    return a.y < b.y || (a.y == b.y && a.x < b.x);
}

fn shl64(a: vec2<u32>, n: u32) -> vec2<u32> {
    if n == 0u {
        return a;
    }
    if n < 32u {
        return vec2<u32>(a.x << n, (a.y << n) | (a.x >> (32u - n)));
    }
    if n < 64u {
        return vec2<u32>(0u, a.x << (n - 32u));
    }
    return vec2<u32>(0u);
}

// a >> n, with every bit shifted out ORed into bit 0 (the sticky bit).
fn shr64_sticky(a: vec2<u32>, n: u32) -> vec2<u32> {
    if n == 0u {
        return a;
    }
    if n >= 64u {
        return vec2<u32>(select(0u, 1u, a.x != 0u || a.y != 0u), 0u);
    }
    var out: vec2<u32>;
    var lost: bool;
    if n < 32u {
        out = vec2<u32>((a.x >> n) | (a.y << (32u - n)), a.y >> n);
        lost = (a.x << (32u - n)) != 0u;
    } else {
        out = vec2<u32>(a.y >> (n - 32u), 0u);
        lost = a.x != 0u || (n > 32u && (a.y << (64u - n)) != 0u);
    }
    return vec2<u32>(out.x | select(0u, 1u, lost), out.y);
}

fn leading_zeros64(a: vec2<u32>) -> u32 {
    if a.y != 0u {
        return countLeadingZeros(a.y);
    }
    return 32u + countLeadingZeros(a.x);
}

// a * b for u32 a, b, as a u64.
fn mul32(a: u32, b: u32) -> vec2<u32> {
    let a0 = a & 0xffffu;
    let a1 = a >> 16u;
    let b0 = b & 0xffffu;
    let b1 = b >> 16u;
    let low = a0 * b0;
    let mid = a0 * b1;
    let mid2 = a1 * b0;
    let high = a1 * b1;
    var r = vec2<u32>(low, high);
    r = add64(r, vec2<u32>(mid << 16u, mid >> 16u));
    r = add64(r, vec2<u32>(mid2 << 16u, mid2 >> 16u));
    return r;
}
