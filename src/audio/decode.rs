//! Upload decoding with symphonia (pure Rust): WAV (PCM), FLAC, MP3,
//! Ogg/Vorbis, and AAC in MP4/M4A; Opus in Ogg or WebM through decode_opus.rs (libopus).
//! Channels are averaged to mono.

use std::io::Cursor;

use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::{DecoderOptions, CODEC_TYPE_NULL};
use symphonia::core::errors::Error as SymError;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

use super::pcm::too_long;
use super::AudioError;

pub use super::pcm::{Pcm, MAX_SECONDS};

/// The formats the decoder reads, for error messages and docs.
pub const SUPPORTED: &str = "wav, flac, mp3, ogg (vorbis, opus), webm/mkv (opus), m4a/mp4 (aac)";

/// Highest input sample rate accepted (anything above is not real audio).
pub const MAX_SAMPLE_RATE: u32 = 384_000;
/// Lowest input sample rate accepted.
pub const MIN_SAMPLE_RATE: u32 = 1_000;

/// Decodes a whole file held in memory. `ext` (from the upload's file name)
/// is a hint only; the container is probed from the bytes.
pub fn decode(bytes: Vec<u8>, ext: Option<&str>) -> Result<Pcm, AudioError> {
    if bytes.is_empty() {
        return Err(AudioError::Empty);
    }
    // symphonia's WAV reader panics on a zero rate in the header (a time base of 1/0).
    if let Some(rate) = wav_header_rate(&bytes).filter(|&r| r == 0) {
        return Err(AudioError::SampleRate(rate));
    }
    // symphonia's MP4 reader allocates what the boxes declare before reading them.
    super::mp4_check::check(&bytes).map_err(|why| AudioError::Corrupt(format!("malformed MP4: {why}")))?;
    let opus = super::decode_opus::sniff(&bytes);
    // A net under the decoders for the headers they do not check: a bad upload is the client's
    // error, not a server fault.
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match opus {
        Some(container) => super::decode_opus::decode(bytes, container).and_then(checked),
        None => decode_checked(bytes, ext),
    }))
    .unwrap_or_else(|panic| {
        let why = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        Err(AudioError::Corrupt(format!("the decoder gave up on this file: {why}")))
    })
}

/// The sample rate in a RIFF/WAVE file's `fmt ` chunk, where the bytes are one.
fn wav_header_rate(bytes: &[u8]) -> Option<u32> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        return None;
    }
    let mut at = 12;
    while at + 8 <= bytes.len() {
        let size = u32::from_le_bytes(bytes[at + 4..at + 8].try_into().ok()?) as usize;
        if &bytes[at..at + 4] == b"fmt " {
            let rate = bytes.get(at + 12..at + 16)?;
            return Some(u32::from_le_bytes(rate.try_into().ok()?));
        }
        // Chunks are padded to an even size.
        at = at.checked_add(8)?.checked_add(size + (size & 1))?;
    }
    None
}

fn decode_checked(bytes: Vec<u8>, ext: Option<&str>) -> Result<Pcm, AudioError> {
    let mss = MediaSourceStream::new(Box::new(Cursor::new(bytes)), Default::default());
    let mut hint = Hint::new();
    if let Some(e) = ext {
        hint.with_extension(e);
    }
    let probed = symphonia::default::get_probe()
        .format(&hint, mss, &FormatOptions::default(), &MetadataOptions::default())
        .map_err(|e| AudioError::Unsupported(format!("unrecognised audio container ({e}); supported: {SUPPORTED}")))?;
    let mut format = probed.format;
    let track = format
        .tracks()
        .iter()
        .find(|t| t.codec_params.codec != CODEC_TYPE_NULL)
        .ok_or_else(|| AudioError::Unsupported("the file has no audio track".into()))?;
    let track_id = track.id;
    let rate = track.codec_params.sample_rate.unwrap_or(0);
    if !(MIN_SAMPLE_RATE..=MAX_SAMPLE_RATE).contains(&rate) {
        return Err(AudioError::SampleRate(rate));
    }
    let mut decoder = symphonia::default::get_codecs()
        .make(&track.codec_params, &DecoderOptions::default())
        .map_err(|e| AudioError::Unsupported(format!("unsupported codec ({e}); supported: {SUPPORTED}")))?;
    let mut samples = Vec::new();
    let mut bad_packets = 0usize;
    let mut good_packets = 0usize;
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(SymError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(SymError::ResetRequired) => break,
            Err(e) => {
                if good_packets > 0 {
                    break; // a truncated tail: keep what decoded
                }
                return Err(AudioError::Corrupt(e.to_string()));
            }
        };
        if packet.track_id() != track_id {
            continue;
        }
        match decoder.decode(&packet) {
            Ok(buf) => {
                good_packets += 1;
                let spec = *buf.spec();
                let ch = spec.channels.count().max(1);
                let mut sb = SampleBuffer::<f32>::new(buf.capacity() as u64, spec);
                sb.copy_interleaved_ref(buf);
                samples.extend(sb.samples().chunks(ch).map(|f| f.iter().sum::<f32>() / ch as f32));
                if samples.len() > MAX_SECONDS * rate as usize {
                    return Err(too_long());
                }
            }
            // A damaged packet: skip it, as players do; all-damaged input is an error below.
            Err(SymError::DecodeError(_)) => bad_packets += 1,
            Err(e) => return Err(AudioError::Corrupt(e.to_string())),
        }
    }
    if good_packets == 0 && bad_packets > 0 {
        return Err(AudioError::Corrupt(format!("none of {bad_packets} audio packets decoded")));
    }
    checked(Pcm { samples, sample_rate: rate })
}

/// Decoded audio as the models may take it: some samples, all finite, within full scale.
fn checked(mut pcm: Pcm) -> Result<Pcm, AudioError> {
    if pcm.samples.is_empty() {
        return Err(AudioError::Empty);
    }
    if pcm.samples.iter().any(|s| !s.is_finite()) {
        return Err(AudioError::Corrupt("non-finite samples".into()));
    }
    // Float formats can carry samples past full scale (up to 3.4e38, which overflows the
    // resampler's FFT into NaN): clipped, as a player clips them.
    pcm.samples.iter_mut().for_each(|s| *s = s.clamp(-1.0, 1.0));
    Ok(pcm)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mono 32-bit float WAV holding `samples`.
    fn float_wav(rate: u32, samples: &[f32]) -> Vec<u8> {
        let data: Vec<u8> = samples.iter().flat_map(|s| s.to_le_bytes()).collect();
        let mut v = b"RIFF".to_vec();
        v.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
        v.extend_from_slice(b"WAVEfmt ");
        v.extend_from_slice(&16u32.to_le_bytes());
        v.extend_from_slice(&3u16.to_le_bytes()); // IEEE float
        v.extend_from_slice(&1u16.to_le_bytes());
        v.extend_from_slice(&rate.to_le_bytes());
        v.extend_from_slice(&(rate * 4).to_le_bytes());
        v.extend_from_slice(&4u16.to_le_bytes());
        v.extend_from_slice(&32u16.to_le_bytes());
        v.extend_from_slice(b"data");
        v.extend_from_slice(&(data.len() as u32).to_le_bytes());
        v.extend(data);
        v
    }

    #[test]
    fn float_samples_past_full_scale_are_clipped_and_resample() {
        let x = [0.5, 1e30, -2.0, -0.25, 3.4e38, 1.0];
        let pcm = decode(float_wav(8000, &x), Some("wav")).unwrap();
        assert_eq!(pcm.samples, [0.5, 1.0, -1.0, -0.25, 1.0, 1.0]);
        // 3000 samples of huge values: the resampler's FFT stays finite.
        let loud: Vec<f32> = (0..3000).map(|i| if i % 2 == 0 { 3e38 } else { -3e38 }).collect();
        let out = super::super::load_16k(float_wav(8000, &loud), Some("wav")).unwrap();
        assert_eq!(out.len(), 6000);
        assert!(out.iter().all(|s| s.is_finite()));
    }
}
