//! Uniform layouts, defined once here. Each struct mirrors a `struct` in a WGSL
//! file; `tests/shaders.rs` reflects the WGSL with naga and checks that field
//! names, offsets and sizes agree, so a drift between Rust and WGSL fails CI.

/// Declares a `#[repr(C)]` uniform struct plus its field table for the layout test.
macro_rules! gpu_params {
    ($(#[$m:meta])* $name:ident { $($field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
        pub struct $name { $(pub $field: $ty),* }
        impl $name {
            pub const FIELDS: &'static [(&'static str, usize)] =
                &[$((stringify!($field), std::mem::offset_of!($name, $field))),*];
        }
        const _: () = assert!(std::mem::size_of::<$name>() % 16 == 0, "uniforms are 16-byte multiples");
    };
}

/// Flag bits shared by the matmul family.
pub mod flags {
    /// A bias vector is bound and added.
    pub const BIAS: u32 = 1;
    /// Read only the last input row (`step.n_tokens - 1`) and write output row 0.
    pub const LAST_ROW: u32 = 2;
    /// Argmax only: one token per logits row (batched decode), row = workgroup y.
    pub const PER_ROW: u32 = 4;
}

gpu_params!(
    /// Per-step values shared by every dispatch of a step (binding 1). `probe` is non-zero only
    /// while graph/residency.rs checks a grid-barrier pipeline (the kernel then does no work).
    Step { n_tokens: u32, pos0: u32, kv_len: u32, probe: u32 }
);
gpu_params!(EmbedParams { width: u32, vocab: u32, group: u32, pad0: u32 });
gpu_params!(RmsNormParams { dim: u32, rows_per_token: u32, eps: f32, add_unit: u32 });
gpu_params!(MatmulParams { n: u32, k: u32, group: u32, flags: u32 });
gpu_params!(RopeParams {
    n_q_heads: u32,
    n_kv_heads: u32,
    head_dim: u32,
    rotary_dim: u32,
    interleaved: u32,
    max_pos: u32,
    pad0: u32,
    pad1: u32,
});
gpu_params!(KvAppendParams { kv_width: u32, head_dim: u32, max_seq: u32, pad0: u32 });
gpu_params!(AttentionParams {
    n_heads: u32,
    n_kv_heads: u32,
    head_dim: u32,
    max_seq: u32,
    scale: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
});
gpu_params!(EltwiseParams { width: u32, pad0: u32, pad1: u32, pad2: u32 });
gpu_params!(
    /// `argmax.wgsl`; `blocks`: stage 1's block count (two-stage argmax).
    ArgmaxParams { n: u32, flags: u32, blocks: u32, pad1: u32 }
);
/// Logits one workgroup of the two-stage argmax's first stage scans (BLOCK in argmax.wgsl).
pub const ARGMAX_BLOCK: usize = 2048;
gpu_params!(
    /// `split_cols.wgsl`: the widths of up to four output segments.
    SplitParams { w0: u32, w1: u32, w2: u32, w3: u32 }
);
gpu_params!(CopyParams { n_vec4: u32, pad0: u32, pad1: u32, pad2: u32 });
gpu_params!(
    /// The INT4 matvec kernels; `n3`: the fourth matrix or output segment.
    FusedMatvecParams { n0: u32, n1: u32, n2: u32, k: u32, group: u32, flags: u32, eps: f32, n3: u32 }
);
gpu_params!(AttentionDecodeParams {
    n_heads: u32,
    n_kv_heads: u32,
    head_dim: u32,
    max_seq: u32,
    scale: f32,
    rotary_dim: u32,
    flags: u32,
    qk_eps: f32,
});
gpu_params!(
    /// `attention_qkv_o.wgsl` and `decode_layer.wgsl`: the qkv matvec's `FusedMatvecParams` fields
    /// (first, so a plan reads its shape constants as for every INT4 matvec; decode_layer's n3 is
    /// the MLP's intermediate width), then the attention's. `split_cap`: decode_layer's most splits a
    /// head (attention_qkv_o does not split).
    AttentionQkvParams {
        n0: u32,
        n1: u32,
        n2: u32,
        k: u32,
        group: u32,
        flags: u32,
        eps: f32,
        n3: u32,
        n_heads: u32,
        n_kv_heads: u32,
        head_dim: u32,
        max_seq: u32,
        scale: f32,
        rotary_dim: u32,
        split_cap: u32,
        qk_eps: f32,
    }
);
gpu_params!(
    /// The short-conv kernels (`short_conv*.wgsl`, `conv_state_update.wgsl`); flags: `conv::BIAS`.
    ShortConvParams { dim: u32, kernel: u32, flags: u32, pad0: u32 }
);
gpu_params!(AddRmsNormParams { dim: u32, eps: f32, add_unit: u32, pad0: u32 });

/// Flag bits of the short-conv kernels.
pub mod conv {
    pub const BIAS: u32 = 1;
    /// Longest kernel L the state-carrying kernel keeps in registers.
    pub const MAX_KERNEL: usize = 8;
}
gpu_params!(ConvParams { channels: u32, kernel: u32, pad0: u32, pad1: u32 });
gpu_params!(DualNormParams {
    dim: u32,
    q_rows: u32,
    k_rows: u32,
    add_unit: u32,
    eps: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
});
gpu_params!(DeltaParams { k_heads: u32, v_heads: u32, dk: u32, dv: u32 });

gpu_params!(LayerNormParams { dim: u32, eps: f32, pad0: u32, pad1: u32 });
gpu_params!(
    /// `groupnorm.wgsl` (GroupNorm with one group); flags: `group_norm::TANH`.
    GroupNormParams { channels: u32, eps: f32, flags: u32, pad0: u32 }
);
gpu_params!(Im2colParams {
    c_in: u32,
    t_in: u32,
    kernel: u32,
    stride: u32,
    pad: u32,
    t_out: u32,
    pad0: u32,
    pad1: u32
});
gpu_params!(
    /// `logit_stats.wgsl` (see `nn::select`).
    LogitStatsParams {
        vocab: u32,
        split: u32,
        kill_end: u32,
        ts_lo: u32,
        ts_hi: u32,
        mask_words: u32,
        flags: u32,
        inv_temp: f32,
        seed: u32,
        probe: u32,
        row: u32,
        slot: u32,
    }
);
gpu_params!(
    /// `matmul_bcast.wgsl` (see `nn::Strided`).
    MatmulStridedParams {
        m: u32,
        n: u32,
        k: u32,
        flags: u32,
        x_off: u32,
        x_rs: u32,
        x_bs: u32,
        w_off: u32,
        w_ns: u32,
        w_ks: u32,
        w_bs: u32,
        y_off: u32,
        y_rs: u32,
        y_bs: u32,
        scale: f32,
        pad0: u32,
    }
);
gpu_params!(AttentionFullParams {
    n_heads: u32,
    head_dim: u32,
    kv_len: u32,
    q_stride: u32,
    kv_stride: u32,
    k_off: u32,
    v_off: u32,
    causal_off: u32,
    scale: f32,
    flags: u32,
    row_off: u32,
    pad1: u32,
});

/// Flag bits of `attention_full.wgsl`.
/// Flag bits of `groupnorm.wgsl`.
pub mod group_norm {
    /// tanh is applied to the input first (Moonshine's conv stem).
    pub const TANH: u32 = 1;
}

pub mod attn_full {
    /// Query row r sees keys < causal_off + r + 1.
    pub const CAUSAL: u32 = 1;
}

/// Flag bits of `matvec_fused_int4.wgsl`.
pub mod fused {
    pub const NORM: u32 = 1;
    pub const ADD_UNIT: u32 = 2;
    pub const RESID: u32 = 4;
    pub const SWIGLU: u32 = 8;
    pub const BIAS0: u32 = 16;
    /// Read only the last input row (`step.n_tokens - 1`), write output row 0.
    pub const LAST_ROW: u32 = 128;
    /// Prologue x' = x * sigmoid(gate) (gate bound where the norm weight goes).
    pub const GATE: u32 = 4096;
    /// The plan runs one token per step (set by the plan, not the dispatch selection).
    pub const ONE_TOKEN: u32 = 8192;
    /// Bits 14-15: log2 of the lane groups sharing each column's K (`dispatch_matvec::k_split_layout`).
    pub const KSPLIT_SHIFT: u32 = 14;
    /// x = resid + the sum of per-word partial rows (their count in bits 17-23).
    pub const PARTIALS_IN: u32 = 65536;
    pub const PARTIALS_SHIFT: u32 = 17;
    /// Two column slots per lane group (one input row): `dispatch_matvec::wide_layout`.
    pub const WIDE: u32 = 1 << 24;
    /// x and the norm weights loaded into workgroup memory at kernel start (one token, NORM, K <= 2048).
    pub const STAGE: u32 = 1 << 25;
}

/// Flag bits of `attention_decode.wgsl`.
pub mod attn_decode {
    pub const QK_NORM: u32 = 1;
    pub const INTERLEAVED: u32 = 2;
    /// q is final and the new token's K/V are in the cache (the unfused decode graph).
    pub const PREPARED: u32 = 4;
    /// `attention_decode_o`: log2(o_proj group / 32) at bit 4, o_proj outputs / 4 at bit 8.
    pub const O_GROUP_SHIFT: u32 = 4;
    pub const O_QUADS_SHIFT: u32 = 8;
    /// `attention_qkv_o.wgsl`: QK_NORM and INTERLEAVED sit at this bit, above the matvec core's.
    pub const QKV_ATTN_SHIFT: u32 = 26;
    /// `decode_layer.wgsl`: log2 of the positions a split takes, at this bit.
    pub const LAYER_SPLIT_SHIFT: u32 = 28;
    /// `decode_layer.wgsl`'s STASH: the first vec4 of its scratch past the split records of the
    /// widest head (128 workgroups' records of 256 / 4 + 1 vec4s).
    pub const LAYER_STASH_VEC4S: u32 = 128 * (256 / 4 + 1);
    /// Decode (`attention_decode`, `attention_decode_o`, `attention_rows`): log2 of the positions a
    /// flash-decoding split takes, at this bit (0: one workgroup per head and row).
    pub const SPLIT_SHIFT: u32 = 24;
    /// The kernel's split scratch holds this many tickets; a head takes at most this many splits.
    pub const MAX_TICKETS: usize = 256;
    pub const MAX_SPLITS: usize = 64;
}

gpu_params!(Conv1dParams {
    c_in: u32,
    c_out: u32,
    kernel: u32,
    dilation: u32,
    padding: u32,
    groups: u32,
    flags: u32,
    slope: f32,
    out_scale: f32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
});
gpu_params!(ConvTranspose1dParams {
    c_in: u32,
    c_out: u32,
    kernel: u32,
    stride: u32,
    padding: u32,
    flags: u32,
    slope: f32,
    pad0: u32,
});

gpu_params!(
    /// `snake.wgsl`: channels of the [channels, time] tensor (time comes from `Step::n_tokens`).
    SnakeParams { channels: u32, pad0: u32, pad1: u32, pad2: u32 }
);

gpu_params!(
    /// `layernorm_channels.wgsl`: LayerNorm across the channels of [channels, time].
    LayerNormChannelsParams { channels: u32, flags: u32, eps: f32, pad0: u32 }
);
/// Flag bits of `layernorm_channels.wgsl`.
pub mod layernorm_channels {
    pub const GELU: u32 = 1;
    pub const ACCUMULATE: u32 = 2;
}
gpu_params!(
    /// `rel_attention.wgsl`: channels per q/k/v block, the head size and the relative window.
    RelAttentionParams { channels: u32, head_dim: u32, window: u32, pad0: u32 }
);
gpu_params!(
    /// `spline_inverse.wgsl`.
    SplineParams { bins: u32, pad0: u32, inv_sqrt_filter: f32, pad1: u32 }
);
gpu_params!(
    /// `expand_prior.wgsl`: channels of this half, its first channel, the text length, the log-std row offset.
    ExpandPriorParams { channels: u32, ch0: u32, t_text: u32, logs_row0: u32 }
);

/// Flag bits of `conv1d.wgsl` and `conv_transpose1d.wgsl` (the latter knows BIAS and PRE_LRELU).
pub mod conv1d {
    pub const BIAS: u32 = 1;
    pub const PRE_LRELU: u32 = 2;
    pub const RESIDUAL: u32 = 4;
    pub const ACCUMULATE: u32 = 8;
    pub const POST_TANH: u32 = 16;
}
