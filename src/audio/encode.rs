//! Streaming encoders for `response_format`: a header (where the format has one) goes out
//! with the first chunk, every later chunk is self-contained bytes appended to the stream.
//!   wav: RIFF/WAVE PCM s16le, mono; streamed, so the RIFF and data sizes are 0xFFFFFFFF
//!        ("unknown length", read to the end by standard decoders).
//!   pcm: raw s16le mono at the voice's rate (the rate travels in a response header).

/// The formats a client may ask for; `supported` says which this build encodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AudioFormat {
    Wav,
    Pcm,
    Flac,
    Mp3,
    Opus,
    Aac,
}

impl AudioFormat {
    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "wav" => AudioFormat::Wav,
            "pcm" => AudioFormat::Pcm,
            "flac" => AudioFormat::Flac,
            "mp3" => AudioFormat::Mp3,
            "opus" => AudioFormat::Opus,
            "aac" => AudioFormat::Aac,
            _ => return None,
        })
    }

    pub fn supported(self) -> bool {
        matches!(self, AudioFormat::Wav | AudioFormat::Pcm)
    }

    pub fn content_type(self) -> &'static str {
        match self {
            AudioFormat::Wav => "audio/wav",
            AudioFormat::Pcm => "audio/pcm",
            AudioFormat::Flac => "audio/flac",
            AudioFormat::Mp3 => "audio/mpeg",
            AudioFormat::Opus => "audio/ogg",
            AudioFormat::Aac => "audio/aac",
        }
    }
}

pub struct StreamEncoder {
    format: AudioFormat,
    rate: u32,
    started: bool,
}

impl StreamEncoder {
    pub fn new(format: AudioFormat, rate: u32) -> Self {
        debug_assert!(format.supported());
        StreamEncoder { format, rate, started: false }
    }

    /// The bytes for the next samples (the header is prepended the first time).
    pub fn chunk(&mut self, samples: &[f32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(44 + samples.len() * 2);
        if !self.started {
            self.started = true;
            if self.format == AudioFormat::Wav {
                out.extend(wav_header(self.rate, None));
            }
        }
        for &s in samples {
            out.extend(to_i16(s).to_le_bytes());
        }
        out
    }

    /// Bytes that close the stream (the header alone if no audio was produced).
    pub fn finish(&mut self) -> Vec<u8> {
        if self.started {
            Vec::new()
        } else {
            self.chunk(&[])
        }
    }
}

pub fn to_i16(s: f32) -> i16 {
    (s.clamp(-1.0, 1.0) * 32767.0).round() as i16
}

/// A 44-byte PCM s16le mono WAV header; `samples: None` writes the streaming sizes 0xFFFFFFFF.
pub fn wav_header(rate: u32, samples: Option<u32>) -> [u8; 44] {
    let data = samples.map_or(u32::MAX, |n| n * 2);
    let riff = samples.map_or(u32::MAX, |_| 36 + data);
    let mut h = [0u8; 44];
    h[0..4].copy_from_slice(b"RIFF");
    h[4..8].copy_from_slice(&riff.to_le_bytes());
    h[8..12].copy_from_slice(b"WAVE");
    h[12..16].copy_from_slice(b"fmt ");
    h[16..20].copy_from_slice(&16u32.to_le_bytes());
    h[20..22].copy_from_slice(&1u16.to_le_bytes()); // PCM
    h[22..24].copy_from_slice(&1u16.to_le_bytes()); // mono
    h[24..28].copy_from_slice(&rate.to_le_bytes());
    h[28..32].copy_from_slice(&(rate * 2).to_le_bytes());
    h[32..34].copy_from_slice(&2u16.to_le_bytes());
    h[34..36].copy_from_slice(&16u16.to_le_bytes());
    h[36..40].copy_from_slice(b"data");
    h[40..44].copy_from_slice(&data.to_le_bytes());
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wav_stream_is_header_then_pcm() {
        let mut e = StreamEncoder::new(AudioFormat::Wav, 22050);
        let a = e.chunk(&[0.5, -1.5]);
        assert_eq!(&a[..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(a[40..44].try_into().unwrap()), u32::MAX);
        assert_eq!(u32::from_le_bytes(a[24..28].try_into().unwrap()), 22050);
        assert_eq!(&a[44..], &[0x00, 0x40, 0x01, 0x80]); // 16384 (0.5 rounds to 16384), -32767
        assert_eq!(e.chunk(&[0.0]), vec![0, 0]);
        assert!(e.finish().is_empty());
        let mut p = StreamEncoder::new(AudioFormat::Pcm, 16000);
        assert_eq!(p.chunk(&[1.0]), 32767i16.to_le_bytes().to_vec());
    }
}
