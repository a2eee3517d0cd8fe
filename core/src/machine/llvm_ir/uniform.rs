//! Which SSA values are the same in every thread, read from the decoded text alone (never from
//! what the emitter meant), so that the executor computes those once instead of once per thread.
//!
//! A value is uniform unless it is the thread's id, a load, or computed from a value that is not.
//! Control flow adds no divergence: the executor stops at the first branch whose condition differs
//! between threads, so every thread enters a block from the same predecessor and a phi of uniform
//! incoming values is uniform. Loads count as varying even from one address: their values are
//! memory's, and a race report names the thread, so they keep one value per thread.

use super::parse::{Function, Kind, Val};

/// Per local: whether its value is the same in every thread.
pub(super) fn uniform_locals(f: &Function) -> Vec<bool> {
    let mut uniform = vec![true; f.locals.len()];
    let varying = |uniform: &[bool], v: &Val| match v {
        Val::Local(k) => !uniform.get(*k as usize).copied().unwrap_or(true),
        _ => false,
    };
    // Varying only ever spreads, so this reaches its fixed point within one pass per phi cycle.
    loop {
        let mut changed = false;
        for inst in f.blocks.iter().flat_map(|b| &b.insts) {
            let (dst, thread_dependent) = match &inst.kind {
                Kind::WorkitemId { dst } | Kind::Load { dst, .. } => (*dst, true),
                Kind::Int { dst, a, b, .. }
                | Kind::Icmp { dst, a, b, .. }
                | Kind::Logic { dst, a, b, .. }
                | Kind::FBin { dst, a, b, .. } => {
                    (*dst, varying(&uniform, a) || varying(&uniform, b))
                }
                Kind::Gep { dst, base, index } => {
                    (*dst, varying(&uniform, base) || varying(&uniform, index))
                }
                Kind::Select { dst, c, a, b } | Kind::Fma { dst, a, b, c } => (
                    *dst,
                    varying(&uniform, c) || varying(&uniform, a) || varying(&uniform, b),
                ),
                Kind::FNeg { dst, a } | Kind::FAbs { dst, a } | Kind::SiToFp { dst, a } => {
                    (*dst, varying(&uniform, a))
                }
                Kind::Phi { dst, incoming } => {
                    (*dst, incoming.iter().any(|(v, _)| varying(&uniform, v)))
                }
                Kind::Store { .. }
                | Kind::AsyncLds { .. }
                | Kind::AsyncMark
                | Kind::WaitAsyncMark { .. }
                | Kind::Br { .. }
                | Kind::CondBr { .. }
                | Kind::Ret => continue,
            };
            if thread_dependent {
                if let Some(u) = uniform.get_mut(dst as usize) {
                    if *u {
                        *u = false;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            return uniform;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::parse::parse;
    use super::uniform_locals;

    fn uniform_names(text: &str) -> Vec<String> {
        let parsed = parse(text);
        assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
        let f = &parsed.kernel;
        uniform_locals(f)
            .iter()
            .zip(&f.locals)
            .filter(|(u, _)| **u)
            .map(|(_, (name, _))| name.clone())
            .collect()
    }

    #[test]
    fn the_thread_id_spreads_through_arithmetic_and_phi_cycles_but_a_loop_counter_stays_uniform() {
        let text = r#"target triple = "amdgcn-amd-amdhsa"
declare i32 @llvm.amdgcn.workitem.id.x()
define amdgpu_kernel void @k(ptr addrspace(1) %A) {
entry:
  %tid = call i32 @llvm.amdgcn.workitem.id.x()
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %acc = phi i32 [ 0, %entry ], [ %acc.next, %loop ]
  %acc.next = add i32 %acc, %tid
  %off = mul i32 %i, 64
  %p = getelementptr float, ptr addrspace(1) %A, i32 %off
  %x = load float, ptr addrspace(1) %p, align 4
  %i.next = add i32 %i, 1
  %more = icmp slt i32 %i.next, 4
  br i1 %more, label %loop, label %done
done:
  ret void
}
"#;
        assert_eq!(
            uniform_names(text),
            ["i", "off", "p", "i.next", "more"],
            "the accumulator takes the thread id round the loop's back edge; the load is memory's"
        );
    }
}
