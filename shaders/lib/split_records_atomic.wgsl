// The split scratch where storage buffers cannot be declared @coherent: every record goes through
// device-scope atomics, which always see the device's value (a float at a time, as u32 bits).
// The kernel composer strips the kernel file's @coherent. split_records_coherent.wgsl says why a
// plain load would not do.
struct SplitScratch { tickets: array<atomic<u32>, MAX_TICKETS>, rec: array<atomic<u32>> }

// Float j of the records (vec4 i is floats 4 i .. 4 i + 3).
fn rec_load1(j: u32) -> f32 { return bitcast<f32>(atomicLoad(&scratch.rec[j])); }
fn rec_store1(j: u32, v: f32) { atomicStore(&scratch.rec[j], bitcast<u32>(v)); }
fn rec_load(i: u32) -> vec4<f32> {
    let j = 4u * i;
    return vec4<f32>(rec_load1(j), rec_load1(j + 1u), rec_load1(j + 2u), rec_load1(j + 3u));
}
fn rec_store(i: u32, v: vec4<f32>) {
    let j = 4u * i;
    rec_store1(j, v.x);
    rec_store1(j + 1u, v.y);
    rec_store1(j + 2u, v.z);
    rec_store1(j + 3u, v.w);
}
