//! The resolved hyper-parameters every decoder-only text family has, in one struct the families'
//! configs hold and the text model interface (`decoder::TextArch::config`) returns.

/// The resolved hyper-parameters every text family has. A family's config holds one as `text` and
/// derefs to it (`text_config_deref!`), so `cfg.hidden` reads alike in every family.
#[derive(Debug, Clone)]
pub struct TextConfig {
    pub hidden: usize,
    /// The SwiGLU MLP's width.
    pub intermediate: usize,
    pub layers: usize,
    pub heads: usize,
    pub kv_heads: usize,
    pub head_dim: usize,
    /// RMSNorm epsilon.
    pub eps: f32,
    /// The RMSNorms scale by 1 + w (zero-centred weights, Qwen3.5) rather than by w.
    pub norm_add_unit: bool,
    pub vocab: usize,
    /// max_position_embeddings: the model's own context limit.
    pub max_pos: usize,
    pub rope_theta: f64,
    /// The lm_head is the embedding matrix.
    pub tied: bool,
    pub eos: Vec<u32>,
    pub bos: Option<u32>,
}

/// `Deref` / `DerefMut` of a family config to its `text: TextConfig`.
macro_rules! text_config_deref {
    ($t:ty) => {
        impl std::ops::Deref for $t {
            type Target = $crate::models::text_config::TextConfig;
            fn deref(&self) -> &Self::Target {
                &self.text
            }
        }
        impl std::ops::DerefMut for $t {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.text
            }
        }
    };
}
pub(crate) use text_config_deref;
