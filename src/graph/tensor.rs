//! Device tensors: the buffers a graph binds from outside its activation pool (weights, KV caches,
//! token ids, rope tables), their uploads and read-backs.

use std::sync::Arc;

use crate::gpu::{Gpu, GpuError, KvDtype, KvLayout, KvPaging};
use crate::weights::int4::Int4Matrix;

/// A paged cache's pool shape and its block table ([slots, table_stride] block indices: one buffer
/// every layer's caches share, bound by the kernels that read them, `Bind::KvTable`).
#[derive(Debug, Clone)]
pub struct KvPages {
    pub paging: KvPaging,
    pub table: wgpu::Buffer,
}

/// A buffer that lives outside the graph's activation pool.
#[derive(Debug)]
pub enum DeviceTensor {
    /// `len` values in rows of `cols`.
    F32 {
        buf: wgpu::Buffer,
        len: usize,
        cols: usize,
    },
    U32 {
        buf: wgpu::Buffer,
        len: usize,
    },
    /// A KV cache of `len` values of a packed type (`KvDtype::F16` or `Fp8`, little-endian), in rows
    /// of `cols` (contiguous f32 caches are `F32`), or a paged cache of any type (`pages`).
    Kv {
        buf: wgpu::Buffer,
        len: usize,
        cols: usize,
        dtype: KvDtype,
        pages: Option<KvPages>,
    },
    /// INT4 groups (see `weights::int4`): q words and (scale, offset) pairs.
    Int4 {
        q: wgpu::Buffer,
        sm: wgpu::Buffer,
        rows: usize,
        cols: usize,
        group: usize,
    },
}

impl DeviceTensor {
    pub fn f32(gpu: &Gpu, label: &str, data: &[f32], cols: usize) -> Result<Arc<Self>, GpuError> {
        gpu.check_binding(label, data.len() as u64 * 4)?;
        Ok(Arc::new(DeviceTensor::F32 { buf: gpu.storage_from(label, data), len: data.len(), cols }))
    }

    pub fn u32(gpu: &Gpu, label: &str, data: &[u32]) -> Result<Arc<Self>, GpuError> {
        Ok(Arc::new(DeviceTensor::U32 { buf: gpu.storage_from(label, data), len: data.len() }))
    }

    /// `data` as a KV cache of `dtype` values (`KvDtype::encode`; a multiple of 4 values), in rows of `cols`.
    pub fn kv(gpu: &Gpu, label: &str, data: &[f32], cols: usize, dtype: KvDtype) -> Result<Arc<Self>, GpuError> {
        if dtype == KvDtype::F32 {
            return Self::f32(gpu, label, data, cols);
        }
        let bytes = dtype.encode(data);
        gpu.check_binding(label, bytes.len() as u64)?;
        Ok(Arc::new(DeviceTensor::Kv {
            buf: gpu.storage_from(label, &bytes),
            len: data.len(),
            cols,
            dtype,
            pages: None,
        }))
    }

    /// `data` as a paged KV cache of `dtype` values (a pool laid out as `KvPaging` says).
    pub fn kv_paged(
        gpu: &Gpu,
        label: &str,
        data: &[f32],
        cols: usize,
        dtype: KvDtype,
        pages: KvPages,
    ) -> Result<Arc<Self>, GpuError> {
        let bytes = dtype.encode(data);
        gpu.check_binding(label, bytes.len() as u64)?;
        let buf = gpu.storage_from(label, &bytes);
        Ok(Arc::new(DeviceTensor::Kv { buf, len: data.len(), cols, dtype, pages: Some(pages) }))
    }

    /// A zeroed paged KV cache of `len` values.
    pub fn zeros_kv_paged(
        gpu: &Gpu,
        label: &str,
        len: usize,
        cols: usize,
        dtype: KvDtype,
        pages: KvPages,
    ) -> Result<Arc<Self>, GpuError> {
        let bytes = (len * dtype.bytes()) as u64;
        gpu.check_binding(label, bytes)?;
        let buf = gpu.storage(label, bytes);
        gpu.queue.write_buffer(&buf, 0, &vec![0u8; bytes as usize]);
        Ok(Arc::new(DeviceTensor::Kv { buf, len, cols, dtype, pages: Some(pages) }))
    }

    /// A KV cache's value type and addressing (None: not a KV cache of a packed type or paged).
    pub fn kv_layout(&self) -> Option<KvLayout> {
        match self {
            DeviceTensor::Kv { dtype, pages, .. } => {
                Some(KvLayout { dtype: *dtype, paging: pages.as_ref().map(|p| p.paging) })
            }
            _ => None,
        }
    }

    /// A paged cache's pool shape and block table.
    pub fn kv_pages(&self) -> Option<&KvPages> {
        match self {
            DeviceTensor::Kv { pages, .. } => pages.as_ref(),
            _ => None,
        }
    }

    /// An f32 tensor's or a KV cache's values, read back (packed types widened exactly).
    pub fn read_values(&self, gpu: &Gpu) -> Result<Vec<f32>, GpuError> {
        match self {
            DeviceTensor::F32 { buf, len, .. } => gpu.read_f32(buf, *len),
            DeviceTensor::Kv { buf, len, dtype, .. } => {
                Ok(dtype.decode(&gpu.read_bytes(buf, (*len * dtype.bytes()) as u64)?))
            }
            _ => panic!("read_values of a tensor that holds no f32 values or KV cache"),
        }
    }

    /// A zeroed f32 buffer.
    pub fn zeros(gpu: &Gpu, label: &str, len: usize, cols: usize) -> Result<Arc<Self>, GpuError> {
        Self::zeros_kv(gpu, label, len, cols, KvDtype::F32)
    }

    /// A zeroed KV cache of `len` values of `dtype` in rows of `cols` (an f16 cache's `len` is even).
    pub fn zeros_kv(gpu: &Gpu, label: &str, len: usize, cols: usize, dtype: KvDtype) -> Result<Arc<Self>, GpuError> {
        let bytes = (len * dtype.bytes()) as u64;
        gpu.check_binding(label, bytes)?;
        let buf = gpu.storage(label, bytes);
        gpu.queue.write_buffer(&buf, 0, &vec![0u8; bytes as usize]);
        Ok(Arc::new(match dtype {
            KvDtype::F32 => DeviceTensor::F32 { buf, len, cols },
            KvDtype::F16 | KvDtype::Fp8 => DeviceTensor::Kv { buf, len, cols, dtype, pages: None },
        }))
    }

    pub fn int4(gpu: &Gpu, label: &str, m: &Int4Matrix) -> Result<Arc<Self>, GpuError> {
        gpu.check_binding(label, m.q.len() as u64 * 4)?;
        gpu.check_binding(label, m.sm.len() as u64 * 8)?;
        Ok(Arc::new(DeviceTensor::Int4 {
            q: gpu.storage_from(&format!("{label}.q"), &m.q),
            sm: gpu.storage_from(&format!("{label}.sm"), &m.sm),
            rows: m.rows,
            cols: m.cols,
            group: m.group,
        }))
    }

    /// The buffer holding the values (an INT4 tensor's packed nibbles).
    pub fn buffer(&self) -> &wgpu::Buffer {
        match self {
            DeviceTensor::F32 { buf, .. } | DeviceTensor::U32 { buf, .. } | DeviceTensor::Kv { buf, .. } => buf,
            DeviceTensor::Int4 { q, .. } => q,
        }
    }

    pub fn bytes(&self) -> u64 {
        match self {
            DeviceTensor::F32 { len, .. } | DeviceTensor::U32 { len, .. } => *len as u64 * 4,
            DeviceTensor::Kv { len, dtype, .. } => (*len * dtype.bytes()) as u64,
            DeviceTensor::Int4 { rows, cols, group, .. } => (rows * cols / 2 + rows * cols / group * 8) as u64,
        }
    }
}
