//! Rotary embedding frequencies from config.json, in the float order of
//! transformers' `modeling_rope_utils` (default, linear, llama3), and the
//! cos/sin table the rope kernel reads.

use serde::Deserialize;

/// `rope_parameters` (transformers >= 5) or `rope_scaling` (older configs).
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RopeParameters {
    #[serde(alias = "type")]
    pub rope_type: Option<String>,
    pub rope_theta: Option<f64>,
    pub factor: Option<f64>,
    pub low_freq_factor: Option<f64>,
    pub high_freq_factor: Option<f64>,
    pub original_max_position_embeddings: Option<f64>,
    pub partial_rotary_factor: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum RopeScaling {
    None,
    Linear { factor: f32 },
    Llama3 { factor: f32, low_freq_factor: f32, high_freq_factor: f32, original_max: f32 },
}

impl RopeScaling {
    pub fn from_params(p: &RopeParameters) -> Result<Self, String> {
        let factor = || p.factor.ok_or("rope scaling without factor").map(|f| f as f32);
        match p.rope_type.as_deref() {
            None | Some("default") => Ok(RopeScaling::None),
            Some("linear") => Ok(RopeScaling::Linear { factor: factor()? }),
            Some("llama3") => Ok(RopeScaling::Llama3 {
                factor: factor()?,
                low_freq_factor: p.low_freq_factor.unwrap_or(1.0) as f32,
                high_freq_factor: p.high_freq_factor.unwrap_or(4.0) as f32,
                original_max: p
                    .original_max_position_embeddings
                    .ok_or("llama3 rope without original_max_position_embeddings")?
                    as f32,
            }),
            Some(other) => Err(format!("rope type '{other}' is not supported (default, linear, llama3 are)")),
        }
    }
}

/// inv_freq[i] for i < rotary_dim / 2.
pub fn inv_freq(theta: f64, rotary_dim: usize, scaling: &RopeScaling) -> Vec<f32> {
    let base = theta as f32;
    let inv: Vec<f32> = (0..rotary_dim / 2).map(|i| 1.0 / base.powf((2 * i) as f32 / rotary_dim as f32)).collect();
    match *scaling {
        RopeScaling::None => inv,
        RopeScaling::Linear { factor } => inv.iter().map(|f| f / factor).collect(),
        RopeScaling::Llama3 { factor, low_freq_factor, high_freq_factor, original_max } => {
            let low_wavelen = original_max / low_freq_factor;
            let high_wavelen = original_max / high_freq_factor;
            inv.iter()
                .map(|&f| {
                    let wavelen = 2.0 * std::f32::consts::PI / f;
                    let scaled = if wavelen > low_wavelen { f / factor } else { f };
                    let medium = (high_wavelen..=low_wavelen).contains(&wavelen);
                    if medium {
                        let smooth = (original_max / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor);
                        (1.0 - smooth) * scaled / factor + smooth * scaled
                    } else {
                        scaled
                    }
                })
                .collect()
        }
    }
}

/// (cos, sin) of pos * inv_freq[i], flattened as [pos][i][2].
pub fn cos_sin_table(inv_freq: &[f32], max_pos: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(max_pos * inv_freq.len() * 2);
    for p in 0..max_pos {
        for f in inv_freq {
            let a = p as f32 * f;
            out.push(a.cos());
            out.push(a.sin());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn llama3_scales_low_keeps_high_and_smooths_the_middle() {
        let s = RopeScaling::Llama3 { factor: 8.0, low_freq_factor: 1.0, high_freq_factor: 4.0, original_max: 64.0 };
        let base = inv_freq(500000.0, 16, &RopeScaling::None);
        let got = inv_freq(500000.0, 16, &s);
        assert_eq!(got[0], base[0], "highest frequency untouched");
        assert_eq!(*got.last().unwrap(), base.last().unwrap() / 8.0, "lowest frequency divided by factor");
        assert!(got.iter().zip(&base).any(|(g, b)| g < b && *g > b / 8.0), "some frequency smoothed");
    }
}
