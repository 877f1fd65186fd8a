//! MP3 through LAME (mp3lame-encoder builds it from source): CBR, mono, at the voice's own
//! rate (22.05 kHz and 16 kHz are MPEG-2 rates, so LAME does not resample). No Xing/LAME
//! info frame: it can only be written once the stream is complete, by seeking back to the
//! start, which a chunked response cannot do. Decoders therefore see LAME's usual encoder
//! delay (576 samples plus the decoder's 529) and the padding of the last frame.

use std::num::NonZeroU32;

use mp3lame_encoder::{Bitrate, Builder, Encoder, FlushGap, Mode, MonoPcm, Quality};

use super::EncodeError;

/// 64 kbit/s mono is transparent enough for 22 kHz speech and a tenth of the WAV size.
const BITRATE: Bitrate = Bitrate::Kbps64;
/// The sample rates an MPEG-1/2/2.5 Layer III stream can carry.
const MPEG_RATES: &[u32] = &[8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000];

pub struct Mp3Stream {
    enc: Encoder,
}

fn err(e: impl std::fmt::Display) -> EncodeError {
    EncodeError::codec("mp3", e)
}

impl Mp3Stream {
    pub fn new(rate: u32) -> Result<Self, EncodeError> {
        let mut b = Builder::new().ok_or_else(|| err("lame_init failed"))?;
        b.set_num_channels(1).map_err(err)?;
        b.set_sample_rate(rate).map_err(err)?;
        // Keep the voice's rate where MPEG allows it; otherwise LAME picks the nearest.
        let out_rate = MPEG_RATES.contains(&rate).then(|| NonZeroU32::new(rate)).flatten();
        b.set_output_sample_rate(out_rate).map_err(err)?;
        b.set_mode(Mode::Mono).map_err(err)?;
        b.set_brate(BITRATE).map_err(err)?;
        b.set_quality(Quality::Good).map_err(err)?;
        b.set_to_write_vbr_tag(false).map_err(err)?;
        Ok(Mp3Stream { enc: b.build().map_err(err)? })
    }

    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<u8>, EncodeError> {
        // LAME's documented worst case: 1.25 * samples + 7200 bytes.
        let mut out = Vec::with_capacity(samples.len() * 5 / 4 + 7200);
        let clamped: Vec<f32> = samples.iter().map(|s| s.clamp(-1.0, 1.0)).collect();
        self.enc.encode_to_vec(MonoPcm(clamped.as_slice()), &mut out).map_err(err)?;
        Ok(out)
    }

    pub fn finish(&mut self) -> Result<Vec<u8>, EncodeError> {
        let mut out = Vec::with_capacity(7200);
        // lame_encode_flush pads the last frame with zeros so every pushed sample is encoded
        // (the "no gap" flush leaves samples in LAME's buffer for a following file).
        self.enc.flush_to_vec::<FlushGap>(&mut out).map_err(err)?;
        Ok(out)
    }
}
