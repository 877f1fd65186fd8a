//! How a KV cache's positions are addressed, the other choice its kernels are compiled for (besides
//! the value type, `KvDtype`): a region of `max_seq` rows per (slot, kv head), or blocks from a pool
//! found through a block table (paged attention, as vLLM's): a sequence then holds only the blocks
//! its positions fill, and the pool is sized by a memory budget instead of slots x max context.

use super::KvDtype;

/// A paged cache: per layer, `blocks` blocks of `2^block_shift` positions for each kv head, laid out
/// [kv_head][block][position in block][head_dim]; slot s's position j lives in block
/// `table[s * table_stride + (j >> block_shift)]`. Kv head h's blocks are one run of the buffer, so
/// positions of consecutive blocks copy as one range.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct KvPaging {
    pub block_shift: u32,
    pub blocks: u32,
    /// Table entries per slot: enough blocks for the longest sequence.
    pub table_stride: u32,
}

impl KvPaging {
    pub fn block_tokens(self) -> usize {
        1 << self.block_shift
    }
}

/// What a kernel's cache code is compiled for (`PipelineKey::kv`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct KvLayout {
    pub dtype: KvDtype,
    pub paging: Option<KvPaging>,
}

impl From<KvDtype> for KvLayout {
    fn from(dtype: KvDtype) -> Self {
        KvLayout { dtype, paging: None }
    }
}

/// The prelude defining `KV_PAGED` and `kv_row_paged(slot, kvh, j, hd4)` (the first word of position
/// j's row): for a paged layout, with the block table bound at `table_binding` (the kernel file's
/// first binding after its own). Contiguous layouts declare no table, so kernels without one compile.
pub fn paging_prelude(paging: Option<KvPaging>, table_binding: u32) -> String {
    let Some(p) = paging else {
        return "const KV_PAGED: bool = false;\n\
                fn kv_row_paged(slot: u32, kvh: u32, j: u32, hd4: u32) -> u32 { return 0u; }\n"
            .to_string();
    };
    format!(
        "const KV_PAGED: bool = true;\n\
         const KV_BLOCK_SHIFT: u32 = {shift}u;\n\
         const KV_POOL_BLOCKS: u32 = {blocks}u;\n\
         const KV_TABLE_STRIDE: u32 = {stride}u;\n\
         @group(0) @binding({table_binding}) var<storage, read> kv_table: array<u32>;\n\
         fn kv_row_paged(slot: u32, kvh: u32, j: u32, hd4: u32) -> u32 {{\n\
         \x20   let b = kv_table[slot * KV_TABLE_STRIDE + (j >> KV_BLOCK_SHIFT)];\n\
         \x20   return (((kvh * KV_POOL_BLOCKS + b) << KV_BLOCK_SHIFT) + (j & ((1u << KV_BLOCK_SHIFT) - 1u))) * hd4;\n\
         }}\n",
        shift = p.block_shift,
        blocks = p.blocks,
        stride = p.table_stride,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_paged_prelude_bakes_in_the_pool_shape() {
        let p = KvPaging { block_shift: 4, blocks: 37, table_stride: 9 };
        let text = paging_prelude(Some(p), 15);
        for want in [
            "KV_PAGED: bool = true",
            "KV_BLOCK_SHIFT: u32 = 4u",
            "KV_POOL_BLOCKS: u32 = 37u",
            "KV_TABLE_STRIDE: u32 = 9u",
            "@binding(15) var<storage, read> kv_table",
        ] {
            assert!(text.contains(want), "{want} missing from {text}");
        }
        assert_eq!(p.block_tokens(), 16);
        assert_eq!(KvLayout::from(KvDtype::Fp8), KvLayout { dtype: KvDtype::Fp8, paging: None });
        let flat = paging_prelude(None, 15);
        assert!(flat.contains("KV_PAGED: bool = false") && !flat.contains("kv_table"));
    }
}
