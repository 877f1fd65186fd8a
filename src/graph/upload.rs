//! Moving checkpoint tensors to the GPU in the configured format, as the graph's `DeviceTensor`s
//! (was weights/upload.rs: the weights layer reads checkpoints and knows no graph).

use std::sync::Arc;

use super::ir::DeviceTensor;
use crate::gpu::Gpu;
use crate::weights::int4::{pick_group, Int4Matrix};
use crate::weights::{TensorSource, WeightError, WeightFormat};

/// A [rows, cols] linear weight (or embedding table) in `format`. A source
/// that already holds 4-bit groups (GGUF Q4_0/Q4_1/Q4_K) hands them over
/// losslessly; otherwise f32 data is quantized here. INT4 falls back to f32
/// when no group size divides `cols`.
pub fn matrix(
    gpu: &Gpu,
    src: &dyn TensorSource,
    name: &str,
    rows: usize,
    cols: usize,
    format: WeightFormat,
) -> Result<Arc<DeviceTensor>, WeightError> {
    if let WeightFormat::Int4 { .. } = format {
        if let Some(q) = src.int4(name, rows, cols)? {
            return Ok(DeviceTensor::int4(gpu, name, &q)?);
        }
    }
    let data = src.f32(name, &[rows, cols])?;
    matrix_from(gpu, name, data, rows, cols, format)
}

pub fn matrix_from(
    gpu: &Gpu,
    name: &str,
    data: Vec<f32>,
    rows: usize,
    cols: usize,
    format: WeightFormat,
) -> Result<Arc<DeviceTensor>, WeightError> {
    match format {
        WeightFormat::Int4 { group } => match pick_group(cols, group) {
            Some(g) => {
                let q = Int4Matrix::quantize(&data, rows, cols, g).expect("group divides cols");
                Ok(DeviceTensor::int4(gpu, name, &q)?)
            }
            None => {
                tracing::warn!(name, cols, "no INT4 group size divides this matrix; keeping it f32");
                Ok(DeviceTensor::f32(gpu, name, &data, cols)?)
            }
        },
        WeightFormat::F32 => Ok(DeviceTensor::f32(gpu, name, &data, cols)?),
    }
}

/// A vector (norm weight, bias) in f32.
pub fn vector(gpu: &Gpu, src: &dyn TensorSource, name: &str, len: usize) -> Result<Arc<DeviceTensor>, WeightError> {
    let data = src.f32(name, &[len])?;
    Ok(DeviceTensor::f32(gpu, name, &data, len)?)
}
