//! A small raw-deflate encoder (RFC 1951): greedy LZ77 matches coded with the fixed Huffman tables.
//! Links hold a few kilobytes of text, where dynamic tables would save only a few percent, and this
//! encoder is a fraction of the size of a general one in the bundle. Any inflater reads its output.

const WINDOW: usize = 32 * 1024;
const MIN_MATCH: usize = 3;
const MAX_MATCH: usize = 258;
/// Candidates tried per position: enough for source text, bounded for pasted junk.
const MAX_CHAIN: usize = 48;
const HASH_BITS: u32 = 13;

/// RFC 1951 §3.2.5: lengths and distances as a base plus extra bits (inflate reads them too).
pub(super) const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
pub(super) const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
pub(super) const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
pub(super) const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];

struct Bits {
    out: Vec<u8>,
    acc: u32,
    n: u32,
}

impl Bits {
    /// Writes the low `n` bits of `v`, least significant first (how deflate packs values).
    fn put(&mut self, v: u32, n: u32) {
        self.acc |= v << self.n;
        self.n += n;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    /// Writes a Huffman code of `n` bits, most significant first.
    fn code(&mut self, code: u32, n: u32) {
        self.put(code.reverse_bits() >> (32 - n), n);
    }

    /// A literal/length symbol of the fixed table.
    fn symbol(&mut self, s: u32) {
        match s {
            0..=143 => self.code(0x30 + s, 8),
            144..=255 => self.code(0x190 + (s - 144), 9),
            256..=279 => self.code(s - 256, 7),
            _ => self.code(0xC0 + (s - 280), 8),
        }
    }

    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// Index of the last table entry whose base is at most `v`.
fn bucket(bases: &[u16], v: usize) -> usize {
    bases
        .iter()
        .rposition(|b| usize::from(*b) <= v)
        .unwrap_or(0)
}

fn hash(data: &[u8], i: usize) -> usize {
    match data.get(i..i + 3) {
        Some(&[a, b, c]) => {
            let v = u32::from(a) | u32::from(b) << 8 | u32::from(c) << 16;
            (v.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize
        }
        _ => 0,
    }
}

/// The raw deflate stream of `data` (one final block with fixed codes).
pub fn compress(data: &[u8]) -> Vec<u8> {
    let mut bits = Bits {
        out: Vec::with_capacity(data.len() / 2 + 16),
        acc: 0,
        n: 0,
    };
    bits.put(1, 1); // BFINAL
    bits.put(1, 2); // BTYPE = fixed Huffman
                    // head[h]: last position + 1 with hash h; prev[i % WINDOW]: the position before it + 1.
    let mut head = vec![0usize; 1 << HASH_BITS];
    let mut prev = vec![0usize; WINDOW];
    let insert = |i: usize, head: &mut Vec<usize>, prev: &mut Vec<usize>| {
        if i + MIN_MATCH <= data.len() {
            let h = hash(data, i);
            if let (Some(slot), Some(p)) = (head.get_mut(h), prev.get_mut(i % WINDOW)) {
                *p = *slot;
                *slot = i + 1;
            }
        }
    };
    let mut i = 0;
    while i < data.len() {
        let (mut best_len, mut best_dist) = (0, 0);
        if i + MIN_MATCH <= data.len() {
            let mut candidate = head.get(hash(data, i)).copied().unwrap_or(0);
            let limit = (data.len() - i).min(MAX_MATCH);
            for _ in 0..MAX_CHAIN {
                let Some(j) = candidate.checked_sub(1) else {
                    break;
                };
                if i - j > WINDOW - 1 || j >= i {
                    break;
                }
                let len = data[j..]
                    .iter()
                    .zip(&data[i..i + limit])
                    .take_while(|(a, b)| a == b)
                    .count();
                if len > best_len {
                    (best_len, best_dist) = (len, i - j);
                    if len == limit {
                        break;
                    }
                }
                candidate = prev.get(j % WINDOW).copied().unwrap_or(0);
            }
        }
        if best_len >= MIN_MATCH {
            let l = bucket(&LENGTH_BASE, best_len);
            bits.symbol(257 + l as u32);
            let extra = u32::from(LENGTH_EXTRA.get(l).copied().unwrap_or(0));
            let base = usize::from(LENGTH_BASE.get(l).copied().unwrap_or(3));
            bits.put((best_len - base) as u32, extra);
            let d = bucket(&DIST_BASE, best_dist);
            bits.code(d as u32, 5);
            let extra = u32::from(DIST_EXTRA.get(d).copied().unwrap_or(0));
            let base = usize::from(DIST_BASE.get(d).copied().unwrap_or(1));
            bits.put((best_dist - base) as u32, extra);
            for k in i..i + best_len {
                insert(k, &mut head, &mut prev);
            }
            i += best_len;
        } else {
            bits.symbol(u32::from(data.get(i).copied().unwrap_or(0)));
            insert(i, &mut head, &mut prev);
            i += 1;
        }
    }
    bits.symbol(256);
    bits.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inflate(packed: &[u8]) -> Vec<u8> {
        miniz_oxide::inflate::decompress_to_vec(packed).expect("valid deflate")
    }

    #[test]
    fn round_trips_through_a_standard_inflater() {
        let mut junk = Vec::new();
        let mut x: u32 = 7;
        for _ in 0..70_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            junk.push((x % 7) as u8 + b'a');
        }
        let cases: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"a".to_vec(),
            b"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa".repeat(9),
            crate::presets::PRESETS
                .iter()
                .map(|(_, t)| *t)
                .collect::<String>()
                .into_bytes(),
            (0..=255u8).cycle().take(5000).collect(),
            "é∀😀\n".repeat(300).into_bytes(),
            junk,
        ];
        for data in cases {
            assert_eq!(inflate(&compress(&data)), data, "{} bytes", data.len());
        }
    }

    #[test]
    fn compresses_source_text_about_as_well_as_a_general_encoder() {
        for (name, text) in crate::presets::PRESETS {
            let ours = compress(text.as_bytes()).len();
            let general = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 9).len();
            assert!(
                ours * 100 <= general * 125,
                "{name}: {ours} bytes against {general}"
            );
        }
    }
}
