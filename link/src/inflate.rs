//! A small raw-inflate decoder (RFC 1951; stored, fixed and dynamic blocks), after zlib's `puff`.
//! Links are read once per page load: a table-free canonical decoder is fast enough and a fraction
//! of a general library's size in the bundle. Every malformed input is a `None`, never a panic.

use super::deflate::{DIST_BASE, DIST_EXTRA, LENGTH_BASE, LENGTH_EXTRA};

/// Canonical Huffman code: how many codes of each length, and the symbols in code order.
struct Huffman {
    counts: [u16; 16],
    symbols: Vec<u16>,
}

impl Huffman {
    /// The code of `lengths` (one per symbol, 0: unused); `None` when over-subscribed.
    fn new(lengths: &[u8]) -> Option<Huffman> {
        let mut counts = [0u16; 16];
        for &l in lengths {
            *counts.get_mut(usize::from(l))? += 1;
        }
        counts[0] = 0;
        let mut left: i32 = 1;
        for &c in &counts[1..] {
            left = (left << 1) - i32::from(c);
            if left < 0 {
                return None;
            }
        }
        let mut offsets = [0u16; 16];
        for len in 1..15 {
            offsets[len + 1] = offsets[len] + counts[len];
        }
        let mut symbols = vec![0u16; lengths.len()];
        for (symbol, &l) in lengths.iter().enumerate() {
            if l != 0 {
                let slot = offsets.get_mut(usize::from(l))?;
                *symbols.get_mut(usize::from(*slot))? = symbol as u16;
                *slot += 1;
            }
        }
        Some(Huffman { counts, symbols })
    }
}

struct Input<'a> {
    data: &'a [u8],
    /// Position in bits.
    bit: usize,
}

impl Input<'_> {
    fn bits(&mut self, n: u32) -> Option<u32> {
        let mut v = 0u32;
        for k in 0..n {
            let byte = *self.data.get(self.bit / 8)?;
            v |= u32::from((byte >> (self.bit % 8)) & 1) << k;
            self.bit += 1;
        }
        Some(v)
    }

    fn symbol(&mut self, h: &Huffman) -> Option<u16> {
        let (mut code, mut first, mut index) = (0i32, 0i32, 0i32);
        for len in 1..16 {
            code |= self.bits(1)? as i32;
            let count = i32::from(h.counts[len]);
            if code - first < count {
                return h.symbols.get((index + code - first) as usize).copied();
            }
            index += count;
            first = (first + count) << 1;
            code <<= 1;
        }
        None
    }
}

/// Order in which a dynamic block lists the code-length code's lengths.
const CLEN_ORDER: [usize; 19] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];

/// Inflates a raw deflate stream; `None` if it is malformed or inflates beyond `limit` bytes.
pub fn decompress(data: &[u8], limit: usize) -> Option<Vec<u8>> {
    let mut input = Input { data, bit: 0 };
    let mut out = Vec::with_capacity(data.len() * 4);
    loop {
        let last = input.bits(1)? == 1;
        match input.bits(2)? {
            0 => {
                input.bit = input.bit.div_ceil(8) * 8;
                let len = input.bits(16)?;
                let nlen = input.bits(16)?;
                if len != !nlen & 0xFFFF {
                    return None;
                }
                let start = input.bit / 8;
                let bytes = data.get(start..start + len as usize)?;
                if out.len() + bytes.len() > limit {
                    return None;
                }
                out.extend_from_slice(bytes);
                input.bit += 8 * len as usize;
            }
            1 => {
                let mut lengths = [8u8; 288];
                lengths[144..256].fill(9);
                lengths[256..280].fill(7);
                let lit = Huffman::new(&lengths)?;
                let dist = Huffman::new(&[5u8; 30])?;
                codes(&mut input, &mut out, &lit, &dist, limit)?;
            }
            2 => {
                let (lit, dist) = dynamic_codes(&mut input)?;
                codes(&mut input, &mut out, &lit, &dist, limit)?;
            }
            _ => return None,
        }
        if last {
            return Some(out);
        }
    }
}

fn dynamic_codes(input: &mut Input) -> Option<(Huffman, Huffman)> {
    let nlen = input.bits(5)? as usize + 257;
    let ndist = input.bits(5)? as usize + 1;
    let ncode = input.bits(4)? as usize + 4;
    if nlen > 286 || ndist > 30 {
        return None;
    }
    let mut clens = [0u8; 19];
    for &k in CLEN_ORDER.iter().take(ncode) {
        clens[k] = input.bits(3)? as u8;
    }
    let clen = Huffman::new(&clens)?;
    let mut lengths = vec![0u8; nlen + ndist];
    let mut k = 0;
    while k < nlen + ndist {
        let symbol = input.symbol(&clen)?;
        let (value, repeat) = match symbol {
            0..=15 => (symbol as u8, 1),
            16 => (*lengths.get(k.checked_sub(1)?)?, 3 + input.bits(2)?),
            17 => (0, 3 + input.bits(3)?),
            _ => (0, 11 + input.bits(7)?),
        };
        for _ in 0..repeat {
            *lengths.get_mut(k)? = value;
            k += 1;
        }
    }
    // A block without an end-of-block code could never end.
    if lengths.get(256) == Some(&0) {
        return None;
    }
    Some((
        Huffman::new(lengths.get(..nlen)?)?,
        Huffman::new(lengths.get(nlen..)?)?,
    ))
}

fn codes(
    input: &mut Input,
    out: &mut Vec<u8>,
    lit: &Huffman,
    dist: &Huffman,
    limit: usize,
) -> Option<()> {
    loop {
        let symbol = usize::from(input.symbol(lit)?);
        if symbol < 256 {
            if out.len() >= limit {
                return None;
            }
            out.push(symbol as u8);
            continue;
        }
        if symbol == 256 {
            return Some(());
        }
        let l = symbol - 257;
        let len = usize::from(*LENGTH_BASE.get(l)?)
            + input.bits(u32::from(*LENGTH_EXTRA.get(l)?))? as usize;
        let d = usize::from(input.symbol(dist)?);
        let distance =
            usize::from(*DIST_BASE.get(d)?) + input.bits(u32::from(*DIST_EXTRA.get(d)?))? as usize;
        if distance > out.len() || out.len() + len > limit {
            return None;
        }
        let from = out.len() - distance;
        // Byte by byte: a match may overlap the bytes it produces.
        for k in 0..len {
            let b = *out.get(from + k)?;
            out.push(b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<Vec<u8>> {
        let mut junk = Vec::new();
        let mut x: u32 = 11;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            junk.push((x >> 3) as u8);
        }
        vec![
            Vec::new(),
            b"x".to_vec(),
            b"abcabcabcabcabcabcabcabcabc".repeat(40),
            crate::presets::PRESETS
                .iter()
                .map(|(_, t)| *t)
                .collect::<String>()
                .into_bytes(),
            "é∀😀\n".repeat(500).into_bytes(),
            junk,
        ]
    }

    #[test]
    fn reads_every_block_kind_a_general_encoder_writes() {
        for data in samples() {
            // Level 0: stored blocks; 1: fixed codes on short inputs; 9: dynamic codes.
            for level in [0, 1, 6, 9, 10] {
                let packed = miniz_oxide::deflate::compress_to_vec(&data, level);
                assert_eq!(
                    decompress(&packed, usize::MAX).as_deref(),
                    Some(data.as_slice()),
                    "level {level}, {} bytes",
                    data.len()
                );
            }
            assert_eq!(
                decompress(&crate::deflate::compress(&data), usize::MAX).as_deref(),
                Some(data.as_slice())
            );
        }
    }

    #[test]
    fn refuses_damage_and_bombs_without_panicking() {
        let packed = miniz_oxide::deflate::compress_to_vec(&[b'a'; 100_000], 9);
        assert_eq!(decompress(&packed, 1000), None, "beyond the limit");
        let good = miniz_oxide::deflate::compress_to_vec(crate::presets::DEFAULT.as_bytes(), 9);
        for cut in 0..good.len() {
            let _ = decompress(&good[..cut], usize::MAX);
        }
        let mut x: u32 = 5;
        for _ in 0..2000 {
            let mut damaged = good.clone();
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let at = x as usize % damaged.len();
            damaged[at] ^= 1 << (x % 8);
            let _ = decompress(&damaged, 1 << 20);
        }
        assert_eq!(decompress(&[0xff; 16], 1 << 20), None);
    }
}
