//! Opus (libopus) in an Ogg container (RFC 7845): an OpusHead page, an OpusTags page,
//! then 20 ms packets. Opus only codes 8/12/16/24/48 kHz, so the voice's audio is
//! resampled to 48 kHz as it streams (rubato). The header's pre-skip is the encoder's
//! lookahead and the last page's granule position marks the true end, so a conforming
//! decoder returns exactly the input's duration.

use gerbil_opus::{Application, Bitrate, Channels, Encoder};
use ogg::{PacketWriteEndInfo, PacketWriter};
use rubato::{FftFixedIn, Resampler};

use super::EncodeError;

/// Opus's reference rate: granule positions always count 48 kHz samples.
pub const OPUS_RATE: u32 = 48_000;
/// 20 ms: the frame size libopus recommends for general audio.
pub const FRAME: usize = 960;
/// Mono speech at 48 kbit/s is near-transparent and a sixth of 22 kHz s16 PCM.
const BITRATE: i32 = 48_000;
/// Any value identifies the one logical stream of the file.
const SERIAL: u32 = 0x6765_7262;
/// Largest packet libopus produces for one frame (its documented recommended buffer).
const MAX_PACKET: usize = 4000;

fn err(e: impl std::fmt::Display) -> EncodeError {
    EncodeError::codec("opus", e)
}

/// Fixed-ratio resampling of a stream pushed in arbitrary chunks; `finish` flushes the
/// filter and trims its delay so the output has exactly ceil(n * to / from) samples.
pub struct StreamResampler {
    r: FftFixedIn<f32>,
    from: u32,
    to: u32,
    pending: Vec<f32>,
    skip: usize,
    fed: u64,
    emitted: u64,
}

impl StreamResampler {
    pub fn new(from: u32, to: u32) -> Result<Self, EncodeError> {
        let r = FftFixedIn::<f32>::new(from as usize, to as usize, 1024, 2, 1)
            .map_err(|e| EncodeError::Resample(e.to_string()))?;
        let skip = r.output_delay();
        Ok(StreamResampler { r, from, to, pending: Vec::new(), skip, fed: 0, emitted: 0 })
    }

    fn take(&mut self, mut o: Vec<f32>, out: &mut Vec<f32>) {
        let drop = self.skip.min(o.len());
        self.skip -= drop;
        o.drain(..drop);
        self.emitted += o.len() as u64;
        out.extend(o);
    }

    pub fn push(&mut self, x: &[f32]) -> Result<Vec<f32>, EncodeError> {
        let e = |e: rubato::ResampleError| EncodeError::Resample(e.to_string());
        self.fed += x.len() as u64;
        self.pending.extend_from_slice(x);
        let mut out = Vec::new();
        let mut pos = 0;
        while self.pending.len() - pos >= self.r.input_frames_next() {
            let n = self.r.input_frames_next();
            let o = self.r.process(&[&self.pending[pos..pos + n]], None).map_err(e)?;
            pos += n;
            self.take(o.into_iter().next().unwrap_or_default(), &mut out);
        }
        self.pending.drain(..pos);
        Ok(out)
    }

    pub fn finish(&mut self) -> Result<Vec<f32>, EncodeError> {
        let e = |e: rubato::ResampleError| EncodeError::Resample(e.to_string());
        let want = (self.fed * self.to as u64).div_ceil(self.from as u64);
        let mut out = Vec::new();
        if !self.pending.is_empty() {
            let o = self.r.process_partial(Some(&[&self.pending[..]]), None).map_err(e)?;
            self.pending.clear();
            self.take(o.into_iter().next().unwrap_or_default(), &mut out);
        }
        // Flush the filter's delay line until the whole signal is out.
        while self.emitted < want {
            let o = self.r.process_partial::<&[f32]>(None, None).map_err(e)?;
            let o = o.into_iter().next().unwrap_or_default();
            if o.is_empty() {
                break;
            }
            self.take(o, &mut out);
        }
        let extra = self.emitted.saturating_sub(want) as usize;
        out.truncate(out.len().saturating_sub(extra));
        self.emitted -= extra as u64;
        Ok(out)
    }
}

pub struct OpusStream {
    enc: Encoder,
    resampler: Option<StreamResampler>,
    writer: PacketWriter<'static, Vec<u8>>,
    pre_skip: u16,
    /// 48 kHz samples waiting for a full frame.
    pcm: Vec<f32>,
    /// 48 kHz samples pushed so far (before padding).
    samples: u64,
    /// Encoded 48 kHz samples (whole frames, including the pre-skip).
    coded: u64,
}

impl OpusStream {
    pub fn new(rate: u32) -> Result<Self, EncodeError> {
        let mut enc = Encoder::new(OPUS_RATE, Channels::Mono, Application::Audio).map_err(err)?;
        enc.set_bitrate(Bitrate::Bits(BITRATE)).map_err(err)?;
        let pre_skip = u16::try_from(enc.get_lookahead().map_err(err)?).map_err(err)?;
        let resampler = if rate == OPUS_RATE { None } else { Some(StreamResampler::new(rate, OPUS_RATE)?) };
        let mut writer = PacketWriter::new(Vec::new());
        // RFC 7845 5.1: OpusHead, version 1, mono, pre-skip, original rate, gain 0, family 0.
        let mut head = b"OpusHead".to_vec();
        head.push(1);
        head.push(1);
        head.extend(pre_skip.to_le_bytes());
        head.extend(rate.to_le_bytes());
        head.extend(0i16.to_le_bytes());
        head.push(0);
        writer.write_packet(head, SERIAL, PacketWriteEndInfo::EndPage, 0).map_err(err)?;
        // RFC 7845 5.2: OpusTags with the vendor string and no comments, on its own page.
        let vendor = gerbil_opus::version().as_bytes();
        let mut tags = b"OpusTags".to_vec();
        tags.extend((vendor.len() as u32).to_le_bytes());
        tags.extend(vendor);
        tags.extend(0u32.to_le_bytes());
        writer.write_packet(tags, SERIAL, PacketWriteEndInfo::EndPage, 0).map_err(err)?;
        Ok(OpusStream { enc, resampler, writer, pre_skip, pcm: Vec::new(), samples: 0, coded: 0 })
    }

    /// Encodes every full frame in `pcm`; the last packet of the batch closes the page (so
    /// this chunk's bytes leave now, not when a page fills) or, at the end, the stream.
    fn encode_frames(&mut self, last: PacketWriteEndInfo, end_granule: Option<u64>) -> Result<(), EncodeError> {
        let frames = self.pcm.len() / FRAME;
        for f in 0..frames {
            let packet = self.enc.encode_vec_float(&self.pcm[f * FRAME..(f + 1) * FRAME], MAX_PACKET).map_err(err)?;
            self.coded += FRAME as u64;
            // Granule of a packet = samples decoded up to its end, pre-skip included; the
            // last page's may be smaller, telling the decoder to trim the zero padding.
            let (info, granule) = if f + 1 == frames {
                (last, end_granule.unwrap_or(self.coded))
            } else {
                (PacketWriteEndInfo::NormalPacket, self.coded)
            };
            self.writer.write_packet(packet, SERIAL, info, granule).map_err(err)?;
        }
        self.pcm.drain(..frames * FRAME);
        Ok(())
    }

    fn take_bytes(&mut self) -> Vec<u8> {
        std::mem::take(self.writer.inner_mut())
    }

    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<u8>, EncodeError> {
        let x = match &mut self.resampler {
            Some(r) => r.push(samples)?,
            None => samples.to_vec(),
        };
        self.samples += x.len() as u64;
        self.pcm.extend(x.iter().map(|s| s.clamp(-1.0, 1.0)));
        self.encode_frames(PacketWriteEndInfo::EndPage, None)?;
        Ok(self.take_bytes())
    }

    pub fn finish(&mut self) -> Result<Vec<u8>, EncodeError> {
        if let Some(r) = &mut self.resampler {
            let tail = r.finish()?;
            self.samples += tail.len() as u64;
            self.pcm.extend(tail.iter().map(|s| s.clamp(-1.0, 1.0)));
        }
        // Feed zeros until the decoder, after dropping the pre-skip, has every real sample.
        // Only whole frames are coded while pushing, so coded <= samples < end: at least one
        // frame is always left for the end-of-stream page.
        let end = self.samples + self.pre_skip as u64;
        let total = ((end - self.coded).div_ceil(FRAME as u64) as usize).max(1) * FRAME;
        self.pcm.resize(total, 0.0);
        self.encode_frames(PacketWriteEndInfo::EndStream, Some(end))?;
        Ok(self.take_bytes())
    }
}
