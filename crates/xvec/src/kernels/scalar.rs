//! Scalar kernels: plain sequential loops, the oracle every SIMD set is tested against and
//! the fallback on CPUs without a SIMD set.

use half::f16;

use super::{Kernels, SCAN_BLOCK, SCAN_MAX_PAIRS};

pub(super) static KERNELS: Kernels = Kernels {
    isa: "scalar",
    dot_f32,
    l2_f32,
    dot_f16,
    l2_f16,
    dot_i8,
    l2_i8,
    dot_f32_x4,
    l2_f32_x4,
    dot_f32_u8,
    dot_f32_u4,
    dot_u8_i8,
    masked_sum_i8,
    scan_u4,
    fwht,
};

fn dot_f32(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |s, (&x, &y)| s + x * y)
}

fn l2_f32(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |s, (&x, &y)| {
        let d = x - y;
        s + d * d
    })
}

fn dot_f16(a: &[f32], b: &[f16]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |s, (&x, y)| s + x * y.to_f32())
}

fn l2_f16(a: &[f32], b: &[f16]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0.0, |s, (&x, y)| {
        let d = x - y.to_f32();
        s + d * d
    })
}

fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0, |s, (&x, &y)| s + i32::from(x) * i32::from(y))
}

fn l2_i8(a: &[i8], b: &[i8]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0, |s, (&x, &y)| {
        let d = i32::from(x) - i32::from(y);
        s + d * d
    })
}

fn dot_f32_x4(q: [&[f32]; 4], x: &[f32]) -> [f32; 4] {
    q.map(|q| dot_f32(q, x))
}

fn l2_f32_x4(q: [&[f32]; 4], x: &[f32]) -> [f32; 4] {
    q.map(|q| l2_f32(q, x))
}

fn dot_f32_u8(q: &[f32], c: &[u8]) -> f32 {
    debug_assert_eq!(q.len(), c.len());
    q.iter().zip(c).fold(0.0, |s, (&x, &c)| s + x * f32::from(c))
}

fn dot_f32_u4(q: &[f32], c: &[u8]) -> f32 {
    debug_assert_eq!(q.len(), 2 * c.len());
    // Byte j holds element 2j in its low nibble and element 2j+1 in its high nibble.
    let (q2, _) = q.as_chunks::<2>();
    q2.iter().zip(c).fold(0.0, |s, (&[x0, x1], &c)| s + x0 * f32::from(c & 0x0F) + x1 * f32::from(c >> 4))
}

fn dot_u8_i8(a: &[u8], b: &[i8]) -> i32 {
    debug_assert_eq!(a.len(), b.len());
    a.iter().zip(b).fold(0, |s, (&x, &y)| s + i32::from(x) * i32::from(y))
}

fn masked_sum_i8(q: &[i8], bits: &[u64]) -> i32 {
    let set = |i: usize| bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1);
    q.iter().enumerate().filter(|&(i, _)| set(i)).map(|(_, &v)| i32::from(v)).sum()
}

fn scan_u4(codes: &[u8], lut: &[u8], out: &mut [u16; SCAN_BLOCK]) {
    debug_assert!(codes.len() <= 32 * SCAN_MAX_PAIRS && lut.len() >= codes.len());
    out.fill(0);
    for (column, lut) in codes.chunks_exact(32).zip(lut.chunks_exact(32)) {
        for (o, &b) in out.iter_mut().zip(column) {
            *o += u16::from(lut[(b & 15) as usize]) + u16::from(lut[16 + (b >> 4) as usize]);
        }
    }
}

fn fwht(x: &mut [f32]) {
    debug_assert!(x.len().is_power_of_two() || x.is_empty());
    let mut h = 1;
    while h < x.len() {
        // Butterflies on split halves: no index arithmetic, so the compiler vectorizes.
        for pair in x.chunks_exact_mut(h * 2) {
            let (lo, hi) = pair.split_at_mut(h);
            for (a, c) in lo.iter_mut().zip(hi.iter_mut()) {
                let (x, y) = (*a, *c);
                *a = x + y;
                *c = x - y;
            }
        }
        h *= 2;
    }
}
