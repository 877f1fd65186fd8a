//! ggml tensor element types and their block geometry.

use std::fmt;

/// A ggml tensor type as stored in GGUF tensor infos.
///
/// Every type id that current ggml / gguf-py know is listed so that files
/// containing them still open; dequantization supports only a subset
/// (see [`super::dequant::dequantize`]).
#[allow(non_camel_case_types)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GgmlType {
    F32,
    F16,
    Q4_0,
    Q4_1,
    Q5_0,
    Q5_1,
    Q8_0,
    Q8_1,
    Q2_K,
    Q3_K,
    Q4_K,
    Q5_K,
    Q6_K,
    Q8_K,
    IQ2_XXS,
    IQ2_XS,
    IQ3_XXS,
    IQ1_S,
    IQ4_NL,
    IQ3_S,
    IQ2_S,
    IQ4_XS,
    I8,
    I16,
    I32,
    I64,
    F64,
    IQ1_M,
    BF16,
    TQ1_0,
    TQ2_0,
    MXFP4,
    NVFP4,
    Q1_0,
}

/// Elements per K-quant super-block.
pub const QK_K: usize = 256;

impl GgmlType {
    /// Maps a GGUF type id to a type; `None` for ids ggml does not define
    /// (including the removed ids 4, 5, 31-33 and 36-38).
    pub fn from_id(id: u32) -> Option<GgmlType> {
        use GgmlType::*;
        Some(match id {
            0 => F32,
            1 => F16,
            2 => Q4_0,
            3 => Q4_1,
            6 => Q5_0,
            7 => Q5_1,
            8 => Q8_0,
            9 => Q8_1,
            10 => Q2_K,
            11 => Q3_K,
            12 => Q4_K,
            13 => Q5_K,
            14 => Q6_K,
            15 => Q8_K,
            16 => IQ2_XXS,
            17 => IQ2_XS,
            18 => IQ3_XXS,
            19 => IQ1_S,
            20 => IQ4_NL,
            21 => IQ3_S,
            22 => IQ2_S,
            23 => IQ4_XS,
            24 => I8,
            25 => I16,
            26 => I32,
            27 => I64,
            28 => F64,
            29 => IQ1_M,
            30 => BF16,
            34 => TQ1_0,
            35 => TQ2_0,
            39 => MXFP4,
            40 => NVFP4,
            41 => Q1_0,
            _ => return None,
        })
    }

    /// The GGUF type id.
    pub fn id(self) -> u32 {
        use GgmlType::*;
        match self {
            F32 => 0,
            F16 => 1,
            Q4_0 => 2,
            Q4_1 => 3,
            Q5_0 => 6,
            Q5_1 => 7,
            Q8_0 => 8,
            Q8_1 => 9,
            Q2_K => 10,
            Q3_K => 11,
            Q4_K => 12,
            Q5_K => 13,
            Q6_K => 14,
            Q8_K => 15,
            IQ2_XXS => 16,
            IQ2_XS => 17,
            IQ3_XXS => 18,
            IQ1_S => 19,
            IQ4_NL => 20,
            IQ3_S => 21,
            IQ2_S => 22,
            IQ4_XS => 23,
            I8 => 24,
            I16 => 25,
            I32 => 26,
            I64 => 27,
            F64 => 28,
            IQ1_M => 29,
            BF16 => 30,
            TQ1_0 => 34,
            TQ2_0 => 35,
            MXFP4 => 39,
            NVFP4 => 40,
            Q1_0 => 41,
        }
    }

    /// `(elements per block, bytes per block)`, as gguf-py's `GGML_QUANT_SIZES`.
    pub fn block_geometry(self) -> (usize, usize) {
        use GgmlType::*;
        match self {
            F32 => (1, 4),
            F16 => (1, 2),
            Q4_0 => (32, 2 + 16),
            Q4_1 => (32, 2 + 2 + 16),
            Q5_0 => (32, 2 + 4 + 16),
            Q5_1 => (32, 2 + 2 + 4 + 16),
            Q8_0 => (32, 2 + 32),
            Q8_1 => (32, 4 + 4 + 32),
            Q2_K => (QK_K, 2 + 2 + QK_K / 16 + QK_K / 4),
            Q3_K => (QK_K, 2 + QK_K / 4 + QK_K / 8 + 12),
            Q4_K => (QK_K, 2 + 2 + QK_K / 2 + 12),
            Q5_K => (QK_K, 2 + 2 + QK_K / 2 + QK_K / 8 + 12),
            Q6_K => (QK_K, 2 + QK_K / 2 + QK_K / 4 + QK_K / 16),
            Q8_K => (QK_K, 4 + QK_K + QK_K / 8),
            IQ2_XXS => (QK_K, 2 + QK_K / 4),
            IQ2_XS => (QK_K, 2 + QK_K / 4 + QK_K / 32),
            IQ3_XXS => (QK_K, 2 + QK_K / 4 + QK_K / 8),
            IQ1_S => (QK_K, 2 + QK_K / 8 + QK_K / 16),
            IQ4_NL => (32, 2 + 16),
            IQ3_S => (QK_K, 2 + QK_K / 4 + QK_K / 8 + QK_K / 32 + 4),
            IQ2_S => (QK_K, 2 + QK_K / 4 + QK_K / 16),
            IQ4_XS => (QK_K, 2 + 2 + QK_K / 2 + QK_K / 64),
            I8 => (1, 1),
            I16 => (1, 2),
            I32 => (1, 4),
            I64 => (1, 8),
            F64 => (1, 8),
            IQ1_M => (QK_K, QK_K / 8 + QK_K / 16 + QK_K / 32),
            BF16 => (1, 2),
            TQ1_0 => (QK_K, 2 + 4 * 13),
            TQ2_0 => (QK_K, 2 + 64),
            MXFP4 => (32, 1 + 16),
            NVFP4 => (64, 4 + 32),
            Q1_0 => (128, 2 + 16),
        }
    }

    /// Elements per block.
    pub fn block_size(self) -> usize {
        self.block_geometry().0
    }

    /// Bytes per block.
    pub fn type_size(self) -> usize {
        self.block_geometry().1
    }

    /// Upper-case ggml name, e.g. `"Q4_K"`.
    pub fn name(self) -> &'static str {
        use GgmlType::*;
        match self {
            F32 => "F32",
            F16 => "F16",
            Q4_0 => "Q4_0",
            Q4_1 => "Q4_1",
            Q5_0 => "Q5_0",
            Q5_1 => "Q5_1",
            Q8_0 => "Q8_0",
            Q8_1 => "Q8_1",
            Q2_K => "Q2_K",
            Q3_K => "Q3_K",
            Q4_K => "Q4_K",
            Q5_K => "Q5_K",
            Q6_K => "Q6_K",
            Q8_K => "Q8_K",
            IQ2_XXS => "IQ2_XXS",
            IQ2_XS => "IQ2_XS",
            IQ3_XXS => "IQ3_XXS",
            IQ1_S => "IQ1_S",
            IQ4_NL => "IQ4_NL",
            IQ3_S => "IQ3_S",
            IQ2_S => "IQ2_S",
            IQ4_XS => "IQ4_XS",
            I8 => "I8",
            I16 => "I16",
            I32 => "I32",
            I64 => "I64",
            F64 => "F64",
            IQ1_M => "IQ1_M",
            BF16 => "BF16",
            TQ1_0 => "TQ1_0",
            TQ2_0 => "TQ2_0",
            MXFP4 => "MXFP4",
            NVFP4 => "NVFP4",
            Q1_0 => "Q1_0",
        }
    }
}

impl fmt::Display for GgmlType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
