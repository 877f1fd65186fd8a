//! Sample-rate conversion with rubato (FFT-based, fixed ratio).

use rubato::{FftFixedIn, Resampler};

use super::AudioError;

/// Resamples mono `x` from `from` Hz to `to` Hz (a copy when equal).
pub fn resample(x: &[f32], from: u32, to: u32) -> Result<Vec<f32>, AudioError> {
    if from == to {
        return Ok(x.to_vec());
    }
    let err = |e: String| AudioError::Resample(e);
    let mut r = FftFixedIn::<f32>::new(from as usize, to as usize, 1024, 2, 1).map_err(|e| err(e.to_string()))?;
    let want = (x.len() as u64 * to as u64).div_ceil(from as u64) as usize;
    let delay = r.output_delay();
    let mut out: Vec<f32> = Vec::with_capacity(want + delay + 2048);
    let mut pos = 0;
    while pos + r.input_frames_next() <= x.len() {
        let n = r.input_frames_next();
        let o = r.process(&[&x[pos..pos + n]], None).map_err(|e| err(e.to_string()))?;
        out.extend_from_slice(&o[0]);
        pos += n;
    }
    if pos < x.len() {
        let o = r.process_partial(Some(&[&x[pos..]]), None).map_err(|e| err(e.to_string()))?;
        out.extend_from_slice(&o[0]);
    }
    // Flush the filter's delay line until the whole signal is out.
    while out.len() < want + delay {
        let o = r.process_partial::<&[f32]>(None, None).map_err(|e| err(e.to_string()))?;
        if o[0].is_empty() {
            break;
        }
        out.extend_from_slice(&o[0]);
    }
    let end = (delay + want).min(out.len());
    Ok(out[delay.min(end)..end].to_vec())
}
