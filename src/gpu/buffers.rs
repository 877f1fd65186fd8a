//! Buffer creation and readback helpers. They borrow only the device, the queue and the
//! creation counter (`Buffers`), not the `Gpu`: the `Gpu` holds the counter, and the
//! subgroup-order probe that fills its caps makes and reads buffers too. `Gpu`'s buffer methods
//! (device.rs) borrow a `Buffers` from themselves.

use std::sync::atomic::{AtomicU64, Ordering};

use wgpu::util::DeviceExt;

use super::GpuError;

/// Bytes of storage and uniform buffers the engine has created through these helpers (weights,
/// caches, activation pools, params arenas; not readback staging). wgpu buffers free on drop
/// without telling us, so this counts creations: the difference over a span in which nothing the
/// engine made is dropped (a model's load and use) is the live total at its end, which is its peak.
#[derive(Debug, Default)]
pub struct AllocStats {
    created: AtomicU64,
}

impl AllocStats {
    pub fn created_bytes(&self) -> u64 {
        self.created.load(Ordering::Relaxed)
    }

    fn add(&self, bytes: u64) {
        self.created.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// Usage of every storage buffer: bindable, and copyable both ways so tests and
/// a plan can poison, upload and read back any of them.
pub const STORAGE: wgpu::BufferUsages =
    wgpu::BufferUsages::STORAGE.union(wgpu::BufferUsages::COPY_SRC).union(wgpu::BufferUsages::COPY_DST);

/// What creating and reading back buffers needs of a device. Creations add to `alloc`.
#[derive(Clone, Copy)]
pub struct Buffers<'a> {
    pub device: &'a wgpu::Device,
    pub queue: &'a wgpu::Queue,
    pub alloc: &'a AllocStats,
}

impl Buffers<'_> {
    /// A storage buffer holding `data` (at least 4 bytes: empty bindings are illegal).
    pub fn storage_from<T: bytemuck::Pod>(&self, label: &str, data: &[T]) -> wgpu::Buffer {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        if bytes.is_empty() {
            return self.storage(label, 4);
        }
        self.init_buffer(label, bytes, STORAGE)
    }

    /// An uninitialised storage buffer of `bytes` (rounded up to 4).
    pub fn storage(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        let size = bytes.max(4).next_multiple_of(4);
        self.alloc.add(size);
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: STORAGE,
            mapped_at_creation: false,
        })
    }

    /// A uniform buffer holding one params struct.
    pub fn uniform_from<T: bytemuck::Pod>(&self, label: &str, value: &T) -> wgpu::Buffer {
        self.uniform_bytes(label, bytemuck::bytes_of(value))
    }

    /// A plan's Step buffer: a uniform that the last kernel of a one-token decode plan also
    /// writes as storage (moving the position on), readable back for tests.
    pub fn step_buffer<T: bytemuck::Pod>(&self, label: &str, value: &T) -> wgpu::Buffer {
        self.init_buffer(label, bytemuck::bytes_of(value), wgpu::BufferUsages::UNIFORM | STORAGE)
    }

    /// A uniform buffer holding `bytes` (e.g. an arena of params structs).
    pub fn uniform_bytes(&self, label: &str, bytes: &[u8]) -> wgpu::Buffer {
        self.init_buffer(label, bytes, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST)
    }

    /// A counted buffer created holding `bytes`.
    fn init_buffer(&self, label: &str, bytes: &[u8], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        self.alloc.add(bytes.len() as u64);
        self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor { label: Some(label), contents: bytes, usage })
    }

    /// Copies `bytes` bytes from the start of `buf` back to the host (blocking).
    pub fn read_bytes(&self, buf: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>, GpuError> {
        self.read_bytes_at(buf, 0, bytes)
    }

    /// A host-mappable buffer that GPU copies fill, for `map_read` / `map_read_after`.
    pub fn readback_buffer(&self, label: &str, bytes: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: bytes,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Copies `bytes` bytes starting at byte `offset` (a multiple of 4) of `buf` back to the host (blocking).
    pub fn read_bytes_at(&self, buf: &wgpu::Buffer, offset: u64, bytes: u64) -> Result<Vec<u8>, GpuError> {
        let bytes = bytes.next_multiple_of(4);
        let staging = self.readback_buffer("readback", bytes);
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(buf, offset, &staging, 0, bytes);
        self.queue.submit([enc.finish()]);
        self.map_read(&staging, bytes)
    }

    /// `read_bytes_at`, with the u32 at byte `word.1` of `word.0` copied behind the bytes in the same
    /// readback (0 without a word): one round trip for a result and a flag about it.
    pub fn read_bytes_and_word(
        &self,
        buf: &wgpu::Buffer,
        offset: u64,
        bytes: u64,
        word: Option<(&wgpu::Buffer, u64)>,
    ) -> Result<(Vec<u8>, u32), GpuError> {
        let bytes = bytes.next_multiple_of(4);
        let staging = self.readback_buffer("readback", bytes + 4);
        let mut enc = self.device.create_command_encoder(&Default::default());
        enc.copy_buffer_to_buffer(buf, offset, &staging, 0, bytes);
        if let Some((w, at)) = word {
            enc.copy_buffer_to_buffer(w, at, &staging, bytes, 4);
        }
        self.queue.submit([enc.finish()]);
        let mut out = self.map_read(&staging, bytes + 4)?;
        let tail = out.split_off(bytes as usize);
        let flag = if word.is_some() { u32::from_le_bytes(tail[..4].try_into().unwrap()) } else { 0 };
        Ok((out, flag))
    }

    /// Maps an already-filled MAP_READ buffer and returns its first `bytes` bytes (waits for all submitted work).
    pub fn map_read(&self, staging: &wgpu::Buffer, bytes: u64) -> Result<Vec<u8>, GpuError> {
        self.map_read_once(staging, bytes, wgpu::PollType::wait_indefinitely())
    }

    /// Like `map_read` for a buffer last written by submission `after`, waiting for that submission only:
    /// work submitted later keeps the GPU busy meanwhile.
    pub fn map_read_after(
        &self,
        staging: &wgpu::Buffer,
        bytes: u64,
        after: wgpu::SubmissionIndex,
    ) -> Result<Vec<u8>, GpuError> {
        self.map_read_once(staging, bytes, wgpu::PollType::Wait { submission_index: Some(after), timeout: None })
    }

    /// Requests the mapping, polls with `wait`, then (the buffer's submission being done) polls
    /// until the mapping callback has run, and copies the bytes out.
    fn map_read_once(&self, staging: &wgpu::Buffer, bytes: u64, wait: wgpu::PollType) -> Result<Vec<u8>, GpuError> {
        let err = |e: &dyn std::fmt::Display| GpuError::Readback(e.to_string());
        let slice = staging.slice(0..bytes);
        let (tx, rx) = std::sync::mpsc::channel();
        slice.map_async(wgpu::MapMode::Read, move |r| {
            let _ = tx.send(r);
        });
        self.device.poll(wait).map_err(|e| err(&e))?;
        let mapped = loop {
            match rx.try_recv() {
                Ok(r) => break r,
                Err(std::sync::mpsc::TryRecvError::Empty) => {
                    self.device.poll(wgpu::PollType::Poll).map_err(|e| err(&e))?;
                }
                Err(e) => return Err(err(&e)),
            }
        };
        mapped.map_err(|e| err(&e))?;
        let out = slice.get_mapped_range().map_err(|e| err(&e))?.to_vec();
        staging.unmap();
        Ok(out)
    }

    pub fn read_f32(&self, buf: &wgpu::Buffer, len: usize) -> Result<Vec<f32>, GpuError> {
        let b = self.read_bytes(buf, (len * 4) as u64)?;
        Ok(bytemuck::cast_slice(&b[..len * 4]).to_vec())
    }

    pub fn read_u32(&self, buf: &wgpu::Buffer, len: usize) -> Result<Vec<u32>, GpuError> {
        let b = self.read_bytes(buf, (len * 4) as u64)?;
        Ok(bytemuck::cast_slice(&b[..len * 4]).to_vec())
    }
}
