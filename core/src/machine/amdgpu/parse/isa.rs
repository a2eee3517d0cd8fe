//! The instructions the emitter writes: operands, opcodes with their mnemonics, and the
//! encoding each belongs to.

use crate::machine::NameMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    Sgpr(u16),
    Vgpr(u16),
    /// `s[a:a+1]`.
    SgprPair(u16),
    /// `v[a:a+1]`.
    VgprPair(u16),
    M0,
    Vcc,
    /// The wave's lane mask (written whole: every lane on or every lane off).
    Exec,
    /// An integer as written (decimal or hex; floats are not in the subset).
    Imm(i64),
    Off,
    /// Index of the instruction a label names.
    Label(usize),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cmp {
    Eq,
    Lg,
    Gt,
    Ge,
    Lt,
    Le,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    SLoadDwordx2,
    SMovB32,
    SAddU32,
    SSubU32,
    SAddI32,
    SSubI32,
    SMulI32,
    SMulHiU32,
    SMinI32,
    SMaxI32,
    SLshlB32,
    SLshrB32,
    SAndB32,
    SOrB32,
    SCmp(Cmp, bool),
    SCselectB32,
    /// `s_mov_b64 exec, imm` and `s_cselect_b64 exec, imm, imm`: EXEC set whole.
    SMovB64,
    SCselectB64,
    SCbranchScc1,
    SCbranchScc0,
    SBranch,
    SWaitcnt,
    SBarrier,
    SNop,
    SEndpgm,
    VReadfirstlaneB32,
    VMovB32,
    VLshlrevB32,
    VLshrrevB32,
    VAddU32,
    VSubU32,
    VAddCoU32,
    VAddcCoU32,
    VAndB32,
    VOrB32,
    VXorB32,
    VAddF32,
    VSubF32,
    VMulF32,
    VMaxF32,
    VMinF32,
    VRcpF32,
    VFmaF32,
    VCvtF32I32,
    GlobalLoadDword,
    GlobalStoreDword,
    GlobalLoadLdsDword,
    /// gfx950 only: 16 bytes a lane (LDS at M0 + offset + 16 · lane).
    GlobalLoadLdsDwordx4,
    DsReadB32,
    DsWriteB32,
}

/// How an instruction's operands are encoded (what the assembler accepts in each position).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Enc {
    Sop2,
    Sop1,
    /// `s_mov_b64` / `s_cselect_b64` writing EXEC from inline immediates: checked by hand.
    Sop64,
    Sopc,
    /// Branches and `s_waitcnt`/`s_endpgm`: checked by hand.
    Sopp,
    Smem,
    Vop1,
    Vop2,
    /// VOP2 with a carry out (and in) in VCC: `v_add_co_u32 vD, vcc, src0, vsrc1`.
    Vop2Carry {
        carry_in: bool,
    },
    Vop3,
    Readlane,
    Mem,
}

/// Mnemonic → operation, built once (a `match` on strings compares them one after the other).
pub(super) fn mnemonics() -> &'static NameMap<&'static str, Op> {
    static TABLE: std::sync::OnceLock<NameMap<&'static str, Op>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = NameMap::default();
        for m in MNEMONICS {
            if let Some(op) = Op::from_mnemonic(m) {
                t.insert(m, op);
            }
        }
        for c in ["eq", "lg", "gt", "ge", "lt", "le"] {
            for ty in ["i32", "u32"] {
                let m: &'static str = match (c, ty) {
                    ("eq", "i32") => "s_cmp_eq_i32",
                    ("eq", _) => "s_cmp_eq_u32",
                    ("lg", "i32") => "s_cmp_lg_i32",
                    ("lg", _) => "s_cmp_lg_u32",
                    ("gt", "i32") => "s_cmp_gt_i32",
                    ("gt", _) => "s_cmp_gt_u32",
                    ("ge", "i32") => "s_cmp_ge_i32",
                    ("ge", _) => "s_cmp_ge_u32",
                    ("lt", "i32") => "s_cmp_lt_i32",
                    ("lt", _) => "s_cmp_lt_u32",
                    ("le", "i32") => "s_cmp_le_i32",
                    _ => "s_cmp_le_u32",
                };
                if let Some(op) = Op::from_mnemonic(m) {
                    t.insert(m, op);
                }
            }
        }
        t
    })
}

pub(super) const MNEMONICS: [&str; 49] = [
    "s_load_dwordx2",
    "s_mov_b32",
    "s_add_u32",
    "s_sub_u32",
    "s_add_i32",
    "s_sub_i32",
    "s_mul_i32",
    "s_mul_hi_u32",
    "s_min_i32",
    "s_max_i32",
    "s_lshl_b32",
    "s_lshr_b32",
    "s_and_b32",
    "s_or_b32",
    "s_cselect_b32",
    "s_mov_b64",
    "s_cselect_b64",
    "s_cbranch_scc1",
    "s_cbranch_scc0",
    "s_branch",
    "s_waitcnt",
    "s_barrier",
    "s_nop",
    "s_endpgm",
    "v_readfirstlane_b32",
    "v_mov_b32",
    "v_lshlrev_b32",
    "v_lshrrev_b32",
    "v_add_u32",
    "v_sub_u32",
    "v_add_co_u32",
    "v_addc_co_u32",
    "v_and_b32",
    "v_or_b32",
    "v_xor_b32",
    "v_add_f32",
    "v_sub_f32",
    "v_mul_f32",
    "v_max_f32",
    "v_min_f32",
    "v_rcp_f32",
    "v_fma_f32",
    "v_cvt_f32_i32",
    "global_load_dword",
    "global_store_dword",
    "global_load_lds_dword",
    "global_load_lds_dwordx4",
    "ds_read_b32",
    "ds_write_b32",
];

impl Op {
    pub(super) fn from_mnemonic(m: &str) -> Option<Op> {
        use Op::*;
        let cmp = |s: &str| match s {
            "eq" => Some(Cmp::Eq),
            "lg" => Some(Cmp::Lg),
            "gt" => Some(Cmp::Gt),
            "ge" => Some(Cmp::Ge),
            "lt" => Some(Cmp::Lt),
            "le" => Some(Cmp::Le),
            _ => None,
        };
        if let Some(rest) = m.strip_prefix("s_cmp_") {
            let (c, ty) = rest.split_once('_')?;
            let signed = match ty {
                "i32" => true,
                "u32" => false,
                _ => return None,
            };
            return Some(SCmp(cmp(c)?, signed));
        }
        Some(match m {
            "s_load_dwordx2" => SLoadDwordx2,
            "s_mov_b32" => SMovB32,
            "s_add_u32" => SAddU32,
            "s_sub_u32" => SSubU32,
            "s_add_i32" => SAddI32,
            "s_sub_i32" => SSubI32,
            "s_mul_i32" => SMulI32,
            "s_mul_hi_u32" => SMulHiU32,
            "s_min_i32" => SMinI32,
            "s_max_i32" => SMaxI32,
            "s_lshl_b32" => SLshlB32,
            "s_lshr_b32" => SLshrB32,
            "s_and_b32" => SAndB32,
            "s_or_b32" => SOrB32,
            "s_cselect_b32" => SCselectB32,
            "s_mov_b64" => SMovB64,
            "s_cselect_b64" => SCselectB64,
            "s_cbranch_scc1" => SCbranchScc1,
            "s_cbranch_scc0" => SCbranchScc0,
            "s_branch" => SBranch,
            "s_waitcnt" => SWaitcnt,
            "s_barrier" => SBarrier,
            "s_nop" => SNop,
            "s_endpgm" => SEndpgm,
            "v_readfirstlane_b32" => VReadfirstlaneB32,
            "v_mov_b32" => VMovB32,
            "v_lshlrev_b32" => VLshlrevB32,
            "v_lshrrev_b32" => VLshrrevB32,
            "v_add_u32" => VAddU32,
            "v_sub_u32" => VSubU32,
            "v_add_co_u32" => VAddCoU32,
            "v_addc_co_u32" => VAddcCoU32,
            "v_and_b32" => VAndB32,
            "v_or_b32" => VOrB32,
            "v_xor_b32" => VXorB32,
            "v_add_f32" => VAddF32,
            "v_sub_f32" => VSubF32,
            "v_mul_f32" => VMulF32,
            "v_max_f32" => VMaxF32,
            "v_min_f32" => VMinF32,
            "v_rcp_f32" => VRcpF32,
            "v_fma_f32" => VFmaF32,
            "v_cvt_f32_i32" => VCvtF32I32,
            "global_load_dword" => GlobalLoadDword,
            "global_store_dword" => GlobalStoreDword,
            "global_load_lds_dword" => GlobalLoadLdsDword,
            "global_load_lds_dwordx4" => GlobalLoadLdsDwordx4,
            "ds_read_b32" => DsReadB32,
            "ds_write_b32" => DsWriteB32,
            _ => return None,
        })
    }

    pub(super) fn encoding(self) -> Enc {
        use Op::*;
        match self {
            SLoadDwordx2 => Enc::Smem,
            SMovB32 => Enc::Sop1,
            SAddU32 | SSubU32 | SAddI32 | SSubI32 | SMulI32 | SMulHiU32 | SMinI32 | SMaxI32
            | SLshlB32 | SLshrB32 | SAndB32 | SOrB32 | SCselectB32 => Enc::Sop2,
            SMovB64 | SCselectB64 => Enc::Sop64,
            SCmp(..) => Enc::Sopc,
            SCbranchScc1 | SCbranchScc0 | SBranch | SWaitcnt | SBarrier | SNop | SEndpgm => {
                Enc::Sopp
            }
            VReadfirstlaneB32 => Enc::Readlane,
            VMovB32 | VRcpF32 | VCvtF32I32 => Enc::Vop1,
            VLshlrevB32 | VLshrrevB32 | VAddU32 | VSubU32 | VAndB32 | VOrB32 | VXorB32
            | VAddF32 | VSubF32 | VMulF32 | VMaxF32 | VMinF32 => Enc::Vop2,
            VAddCoU32 => Enc::Vop2Carry { carry_in: false },
            VAddcCoU32 => Enc::Vop2Carry { carry_in: true },
            VFmaF32 => Enc::Vop3,
            GlobalLoadDword | GlobalStoreDword | GlobalLoadLdsDword | GlobalLoadLdsDwordx4
            | DsReadB32 | DsWriteB32 => Enc::Mem,
        }
    }

    /// Whether the executor runs the instruction while EXEC is 0: scalar instructions, and the
    /// LDS DMA (issued and counted by vmcnt, touching no memory). Other vector instructions
    /// under an empty EXEC are not modelled.
    pub fn runs_without_lanes(self) -> bool {
        !matches!(
            self.encoding(),
            Enc::Vop1 | Enc::Vop2 | Enc::Vop2Carry { .. } | Enc::Vop3 | Enc::Readlane | Enc::Mem
        ) || matches!(self, Op::GlobalLoadLdsDword | Op::GlobalLoadLdsDwordx4)
    }

    /// Float operations read inline integer constants as floats (`v_add_f32 v0, 1, v1` adds 1.0).
    pub fn is_float(self) -> bool {
        use Op::*;
        matches!(
            self,
            VAddF32 | VSubF32 | VMulF32 | VMaxF32 | VMinF32 | VRcpF32 | VFmaF32
        )
    }
}
