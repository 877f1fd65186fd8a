// erf for exact GELU (torch.nn.functional.gelu(approximate='none')). WGSL has no
// erf: Abramowitz & Stegun 7.1.26, |error| <= 1.5e-7. Prepended to kernels that call erf_as.
fn erf_as(x: f32) -> f32 {
    let s = sign(x);
    let a = abs(x);
    let t = 1.0 / (1.0 + 0.3275911 * a);
    let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-a * a);
    return s * y;
}
