// A barrier over every workgroup of a dispatch (decode_layer.wgsl, and the probe that decides
// whether an adapter may run it: gpu/grid_probe.rs). The includer defines the hooks
//   barrier_add(v) -> u32   atomicAdd of v on the barrier word (zero when the buffer is made)
//   barrier_load() -> u32   atomicLoad of it
// The word holds the arrivals in bits 0-15 and a generation above. The last to arrive resets the
// count and moves the generation on in one atomic add; the others wait for the generation to change.
// storageBarrier on each side: device-scope release of this workgroup's writes, then acquire (naga
// emits a Device memory scope for it). What it does not do on NVIDIA is drop L1 lines this
// workgroup read before the barrier, so a value another workgroup publishes must be read only after
// it (no cache line of it read earlier in the dispatch). Every workgroup must be resident at once,
// which neither Vulkan nor WGSL promises: the probe checks it on the adapter, and the wait is
// bounded, so a grid that cannot be resident gives wrong numbers, not a hang.

// Seconds of polling (software Vulkan needs over a million polls at a barrier).
const SPIN_LIMIT: u32 = 67108864u;

// Every invocation of every workgroup calls it (barriers); `groups` is the grid's size.
fn grid_sync(t: u32, groups: u32) {
    storageBarrier();
    if (t == 0u) {
        let old = barrier_add(1u);
        if ((old & 0xffffu) == groups - 1u) {
            barrier_add(0x10000u - groups);
        } else {
            for (var i = 0u; i < SPIN_LIMIT; i++) {
                if ((barrier_load() >> 16u) != (old >> 16u)) { break; }
            }
        }
    }
    storageBarrier();
}
