//! Buffers as the machine sees them: row-major addressing, the shapes of implicit globals inferred
//! from the indices that touch them, the deterministic input values, and rounding to a dtype.

use super::result::Problem;
use crate::affine::{interval, Interval};
use crate::ir::*;
use std::collections::BTreeMap;

/// Row-major strides of a shape.
pub fn strides_of(shape: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; shape.len()];
    for k in (0..shape.len().saturating_sub(1)).rev() {
        let next =
            strides.get(k + 1).copied().unwrap_or(1) * shape.get(k + 1).copied().unwrap_or(1);
        if let Some(s) = strides.get_mut(k) {
            *s = next;
        }
    }
    strides
}

/// The multi-dimensional index of a flat offset.
pub fn unflatten(strides: &[i64], off: usize) -> Vec<i64> {
    let mut rest = off as i64;
    strides
        .iter()
        .map(|s| {
            let s = (*s).max(1);
            let i = rest / s;
            rest %= s;
            i
        })
        .collect()
}

/// The deterministic input value of element `index` of global buffer `name`.
pub fn input_value(name: &str, index: &[i64], seed: u64) -> f64 {
    input_value_after(name_hash(name, seed), index)
}

/// The part of `input_value` that depends on the buffer only, computed once per buffer.
fn name_hash(name: &str, seed: u64) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in name.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    h
}

fn input_value_after(mut h: u64, index: &[i64]) -> f64 {
    for &i in index {
        h = (h ^ (i as u64)).wrapping_mul(0x100_0000_01b3);
        h ^= h >> 29;
    }
    // Small integers keep every sum and product exact in any float type.
    ((h % 17) as f64) - 8.0
}

pub(super) fn round(v: f64, dtype: DType) -> f64 {
    match dtype {
        DType::Float64 => v,
        // float16/bfloat16 are rounded like float32: exact for the small integers of the inputs.
        DType::Float32 | DType::Float16 | DType::Bfloat16 => v as f32 as f64,
        DType::Int32 => (v as i64 as i32) as f64,
        DType::Int8 => (v as i64 as i8) as f64,
    }
}

/// `input_value` of every element in row-major order. The index advances like an odometer instead
/// of being recomputed from each offset: long buffers are most of the cost of preparing a run.
pub(super) fn initial_values(name: &str, shape: &[i64], total: usize, seed: u64) -> Vec<f64> {
    let h = name_hash(name, seed);
    let mut index = vec![0i64; shape.len()];
    let mut values = Vec::with_capacity(total);
    for _ in 0..total {
        values.push(input_value_after(h, &index));
        for (i, d) in index.iter_mut().zip(shape).rev() {
            *i += 1;
            if *i < *d {
                break;
            }
            *i = 0;
        }
    }
    values
}

/// Shapes of implicit globals: the interval each index covers over the loop ranges.
pub(super) fn infer_shapes(
    program: &Program,
    env: &[i64],
    problems: &mut Vec<Problem>,
) -> Vec<Option<Vec<i64>>> {
    let mut shapes: Vec<Option<Vec<i64>>> =
        program.buffers.iter().map(|b| b.shape.clone()).collect();
    let mut ranges: Vec<Interval> = env.iter().map(|v| Interval::point(*v)).collect();
    for (i, v) in program.vars.iter().enumerate() {
        if v.kind == VarKind::Loop {
            if let Some(r) = ranges.get_mut(i) {
                *r = Interval::ALL;
            }
        }
    }
    let mut inferred: BTreeMap<u32, Vec<i64>> = BTreeMap::new();
    walk_shapes(&program.body, program, &mut ranges, &mut inferred, problems);
    for (b, dims) in inferred {
        if let Some(s) = shapes.get_mut(b as usize) {
            if s.is_none() {
                *s = Some(dims.iter().map(|d| (*d).max(1)).collect());
            }
        }
    }
    shapes
}

fn walk_shapes(
    nodes: &[Node],
    program: &Program,
    ranges: &mut Vec<Interval>,
    inferred: &mut BTreeMap<u32, Vec<i64>>,
    problems: &mut Vec<Problem>,
) {
    for n in nodes {
        match n {
            Node::For {
                var, lo, hi, body, ..
            } => {
                let look = |v: VarId| ranges.get(v as usize).copied().unwrap_or(Interval::ALL);
                let (l, h) = (interval(lo, &look), interval(hi, &look));
                let saved = ranges.get(*var as usize).copied();
                if let Some(r) = ranges.get_mut(*var as usize) {
                    *r = Interval {
                        lo: l.lo,
                        hi: h.hi.saturating_sub(1).max(l.lo),
                    };
                }
                walk_shapes(body, program, ranges, inferred, problems);
                if let (Some(r), Some(s)) = (ranges.get_mut(*var as usize), saved) {
                    *r = s;
                }
            }
            Node::If { body, .. }
            | Node::Commit { body, .. }
            | Node::AsyncScope { body, .. }
            | Node::Wait { body, .. }
            | Node::Section { body, .. } => walk_shapes(body, program, ranges, inferred, problems),
            Node::Barrier { .. } => {}
            Node::Assign(a) => {
                let mut note = |acc: &Access| {
                    if program
                        .buffer(acc.buffer)
                        .is_some_and(|b| b.shape.is_none())
                    {
                        let look =
                            |v: VarId| ranges.get(v as usize).copied().unwrap_or(Interval::ALL);
                        let dims: Vec<i64> = acc
                            .indices
                            .iter()
                            .map(|e| {
                                let iv = interval(e, &look);
                                if iv.is_bounded() {
                                    iv.hi.saturating_add(1)
                                } else {
                                    -1
                                }
                            })
                            .collect();
                        let entry = inferred
                            .entry(acc.buffer)
                            .or_insert_with(|| vec![0; dims.len()]);
                        if entry.len() != dims.len() {
                            problems.push(Problem::of_run(
                                acc.span,
                                "this global buffer is indexed with different numbers of dimensions".into(),
                            ));
                            return;
                        }
                        for (e, d) in entry.iter_mut().zip(&dims) {
                            *e = if *d < 0 || *e < 0 { -1 } else { (*e).max(*d) };
                        }
                    }
                };
                note(&a.target);
                for_each_read(&a.value, &mut note);
            }
        }
    }
}
