// A barrier over every workgroup of a dispatch (decode_layer.wgsl, and the probe that decides
// whether an adapter may run it: gpu/grid_probe.rs). The includer defines the hooks
//   barrier_add(v) -> u32   atomicAdd of v on the barrier word (zero when the buffer is made)
//   barrier_load() -> u32   atomicLoad of it
//   failed_load() -> u32    atomicLoad of the failure word (zero when the buffer is made)
//   failed_set()            atomicStore of 1 on it
// The word holds the arrivals in bits 0-15 and a generation above. The last to arrive resets the
// count and moves the generation on in one atomic add; the others wait for the generation to change.
// storageBarrier on each side: device-scope release of this workgroup's writes, then acquire (naga
// emits a Device memory scope for it). It does not make plain loads of an undecorated buffer
// coherent: NVIDIA may serve them from an L1 line it holds, so a value another workgroup publishes
// is read from a @coherent binding (split_records_coherent.wgsl; undecorated plain loads read stale
// values on the H200 in some buffer placements). Every workgroup must be resident at once,
// which neither Vulkan nor WGSL promises: the probe checks it on the adapter, `grid_resident` checks
// it for the kernel's own pipeline and largest grid (graph/residency.rs), and the wait is bounded,
// so a grid that cannot be resident gives wrong numbers, not a hang.

// Seconds of polling (software Vulkan needs over a million polls at a barrier).
const SPIN_LIMIT: u32 = 67108864u;

// Every invocation of every workgroup calls it (barriers); `groups` is the grid's size.
// A workgroup that waits out its polls (the grid stopped being resident together: say another
// process took SMs) sets the failure word. Waiters poll it with the barrier word and leave once it
// is set, so every later barrier passes at once: the submission finishes quickly, with wrong
// numbers, and the session, which reads the word with each batch's tokens, plans again without
// grid barriers and recomputes those steps (models/llm/session.rs). The word is apart from the barrier
// word (logically: the two share a cache line), whose arrivals and generation go on counting
// whatever happens. A waiter reads the failure word with its first poll and then every
// FAILED_POLL_EVERY polls, not on every poll: the waiters' polls all hit
// the barrier word's line, and the last arrival's add queues behind them.
const FAILED_POLL_EVERY: u32 = 64u;

fn grid_sync(t: u32, groups: u32) {
    storageBarrier();
    if (t == 0u) {
        let old = barrier_add(1u);
        if ((old & 0xffffu) == groups - 1u) {
            barrier_add(0x10000u - groups);
        } else {
            // Requested next to the first poll: no round trip of its own.
            var failed = failed_load();
            var waited_out = true;
            for (var i = 1u; i <= SPIN_LIMIT; i++) {
                if ((barrier_load() >> 16u) != (old >> 16u) || failed != 0u) {
                    waited_out = false;
                    break;
                }
                if (i % FAILED_POLL_EVERY == 0u) { failed = failed_load(); }
            }
            if (waited_out) { failed_set(); }
        }
    }
    storageBarrier();
}

// Polls a workgroup of the residency check makes (~10-60 ms on a GPU; a resident grid's last
// workgroup arrives within microseconds of its first).
const RESIDENT_SPIN: u32 = 65536u;

// The residency check, run by a kernel in place of its work (graph/residency.rs) so that its own
// registers and workgroup memory decide how many of its workgroups fit at once. Each workgroup
// arrives, polls until all `groups` have arrived or its polls run out, and adds 1 << 16 if it saw
// them all. A workgroup gives up only after its polls, so a later one can start only in its place
// if that one did not see everybody: the word ends as groups | groups << 16 exactly when the whole
// grid was resident together. The caller zeroes the word before and after.
fn grid_resident(t: u32, groups: u32) {
    if (t == 0u) {
        var seen = barrier_add(1u) + 1u;
        for (var i = 0u; i < RESIDENT_SPIN && (seen & 0xffffu) < groups; i++) {
            seen = barrier_load();
        }
        if ((seen & 0xffffu) >= groups) { barrier_add(0x10000u); }
    }
}
