//! WAV and raw PCM: s16le mono. A streamed WAV cannot know its length when the header
//! goes out, so both sizes are 0xFFFFFFFF, which standard readers take as "to the end".
//! (hound needs a seekable writer to patch the sizes afterwards, so the 44 bytes are written here.)

pub struct WavStream {
    rate: u32,
    header: bool,
    started: bool,
}

impl WavStream {
    pub fn new(rate: u32, header: bool) -> Self {
        WavStream { rate, header, started: false }
    }

    pub fn push(&mut self, samples: &[f32]) -> Vec<u8> {
        let mut out = Vec::with_capacity(44 + samples.len() * 2);
        if !std::mem::replace(&mut self.started, true) && self.header {
            out.extend(wav_header(self.rate, None));
        }
        for &s in samples {
            out.extend(to_i16(s).to_le_bytes());
        }
        out
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
        let mut e = WavStream::new(22050, true);
        let a = e.push(&[0.5, -1.5]);
        assert_eq!(&a[..4], b"RIFF");
        assert_eq!(u32::from_le_bytes(a[40..44].try_into().unwrap()), u32::MAX);
        assert_eq!(u32::from_le_bytes(a[24..28].try_into().unwrap()), 22050);
        assert_eq!(&a[44..], &[0x00, 0x40, 0x01, 0x80]); // 16384 (0.5 rounds to 16384), -32767
        assert_eq!(e.push(&[0.0]), vec![0, 0]);
        let mut p = WavStream::new(16000, false);
        assert_eq!(p.push(&[1.0]), 32767i16.to_le_bytes().to_vec());
    }
}
