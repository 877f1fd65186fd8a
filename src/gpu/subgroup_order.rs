//! Which order the driver's `subgroupAdd` adds a 32-lane subgroup's values in, probed once at
//! start-up. The partial-sum consumers (`PARTIALS_IN` in shaders/lib/matvec_int4_core.wgsl)
//! re-add, inside one invocation, 32 lane values that the plain matvec sums with `subgroupAdd`;
//! adding them in the driver's order makes fused and unfused decode agree to the bit. The
//! order is the driver's own, so it is measured here rather than assumed per vendor.

use super::buffers::Buffers;
use super::pipelines::{bind_buffers, standalone_pipeline};
use super::GpuError;

/// A butterfly over 32 lanes: each level adds lane l and lane l ^ s, for s in the order named.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum SubgroupAddOrder {
    /// s = 16, 8, 4, 2, 1: lane l first meets lane l + 16 (shaders/lib/reduce_shared.wgsl's tree).
    HalvesFirst,
    /// s = 1, 2, 4, 8, 16: neighbouring lanes first.
    NeighboursFirst,
}

impl SubgroupAddOrder {
    /// The offsets of the butterfly's levels, in order.
    fn offsets(self) -> [usize; 5] {
        match self {
            SubgroupAddOrder::HalvesFirst => [16, 8, 4, 2, 1],
            SubgroupAddOrder::NeighboursFirst => [1, 2, 4, 8, 16],
        }
    }

    /// Lane 0's sum of `v` (32 values) in this order, as f32 adds.
    pub fn sum(self, v: &[f32; 32]) -> f32 {
        let mut a = *v;
        for s in self.offsets() {
            let prev = a;
            for (l, x) in a.iter_mut().enumerate() {
                *x = prev[l] + prev[l ^ s];
            }
        }
        a[0]
    }
}

const SUBGROUPS: usize = 8;
const PROBE: &str = "
@group(0) @binding(0) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<f32>>;
@compute @workgroup_size(256)
fn probe(@builtin(local_invocation_index) t: u32) {
    y[t] = subgroupAdd(x[t]);
}";

/// Values whose sums round differently in different orders: mixed signs and magnitudes
/// over 2^-12 .. 2^12 (a fixed xorshift sequence, so every start-up probes the same inputs).
fn probe_inputs() -> Vec<f32> {
    let mut s = 0x9e37_79b9_u32;
    (0..SUBGROUPS * 32 * 4)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            let mant = 1.0 + (s & 0xffff) as f32 / 65536.0;
            let exp = ((s >> 16) % 25) as i32 - 12;
            let sign = if s >> 31 == 1 { -1.0 } else { 1.0 };
            sign * mant * 2f32.powi(exp)
        })
        .collect()
}

/// Runs `subgroupAdd` over 8 subgroups of 4 components each and returns the order every
/// result matches bit for bit, on every lane; None where no candidate does (the consumers
/// then keep the tree order and agree with the plain matvec to rounding only). Call only
/// where subgroups are enabled and exactly 32 wide. `Gpu::new` runs it and keeps its answer in
/// the caps, so it takes the device's parts (`Buffers`) rather than the `Gpu`.
pub fn probe(gpu: Buffers) -> Result<Option<SubgroupAddOrder>, GpuError> {
    let input = probe_inputs();
    let x = gpu.storage_from("subgroup order probe in", &input);
    let y = gpu.storage("subgroup order probe out", (input.len() * 4) as u64);
    let pipeline = standalone_pipeline(gpu.device, "subgroup order probe", PROBE, "probe");
    let bind = bind_buffers(gpu.device, "subgroup order probe", &pipeline, &[&x, &y]);
    let mut enc = gpu.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(1, 1, 1);
    }
    gpu.queue.submit([enc.finish()]);
    let got = gpu.read_f32(&y, input.len())?;
    Ok(matching_order(&input, &got))
}

/// The order in which `got` (per lane, vec4 components interleaved like the input) is
/// every subgroup's sum on every lane.
fn matching_order(input: &[f32], got: &[f32]) -> Option<SubgroupAddOrder> {
    [SubgroupAddOrder::HalvesFirst, SubgroupAddOrder::NeighboursFirst].into_iter().find(|order| {
        (0..input.len() / 128).all(|sg| {
            (0..4).all(|c| {
                let lanes: [f32; 32] = std::array::from_fn(|l| input[(sg * 32 + l) * 4 + c]);
                let want = order.sum(&lanes).to_bits();
                (0..32).all(|l| got[(sg * 32 + l) * 4 + c].to_bits() == want)
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_orders_differ_on_the_probe_inputs() {
        let input = probe_inputs();
        let sums = |o: SubgroupAddOrder| -> Vec<f32> {
            input
                .chunks(128)
                .flat_map(|sg| (0..4).map(move |c| o.sum(&std::array::from_fn(|l| sg[l * 4 + c]))))
                .collect()
        };
        let (a, b) = (sums(SubgroupAddOrder::HalvesFirst), sums(SubgroupAddOrder::NeighboursFirst));
        let differ = a.iter().zip(&b).filter(|(x, y)| x.to_bits() != y.to_bits()).count();
        assert!(differ >= 8, "only {differ} of {} sums tell the orders apart", a.len());
    }

    #[test]
    fn matching_order_names_the_order_that_produced_the_sums() {
        let input = probe_inputs();
        for order in [SubgroupAddOrder::HalvesFirst, SubgroupAddOrder::NeighboursFirst] {
            let mut got = vec![0.0; input.len()];
            for sg in 0..input.len() / 128 {
                for c in 0..4 {
                    let s = order.sum(&std::array::from_fn(|l| input[(sg * 32 + l) * 4 + c]));
                    for l in 0..32 {
                        got[(sg * 32 + l) * 4 + c] = s;
                    }
                }
            }
            assert_eq!(matching_order(&input, &got), Some(order));
            got[5] = f32::from_bits(got[5].to_bits() ^ 1);
            assert_eq!(matching_order(&input, &got), None, "one lane off by an ulp matches nothing");
        }
    }
}
