//! `gerbil speak --out FILE`: the file's audio format comes from its extension and is encoded by
//! the encoders /v1/audio/speech streams with, so the bytes always match the name.

use std::path::Path;

use crate::audio::encode::{encode_all, to_i16, wav_header, AudioFormat, SUPPORTED_NAMES};

/// The format `path`'s extension names; checked before anything loads.
pub fn format_of(path: &Path) -> anyhow::Result<AudioFormat> {
    let known = SUPPORTED_NAMES.join(", ");
    let Some(ext) = path.extension().map(|e| e.to_string_lossy().to_lowercase()) else {
        anyhow::bail!("--out {}: no extension to choose the audio format by (one of {known})", path.display());
    };
    match AudioFormat::parse(&ext) {
        Some(f) if f.supported() => Ok(f),
        _ => anyhow::bail!("--out {}: '.{ext}' is not an audio format gerbil writes (one of {known})", path.display()),
    }
}

/// The whole file's bytes. A file knows its length, so a WAV gets its real sizes rather than
/// the streaming 0xFFFFFFFF the HTTP response carries.
pub fn encode(format: AudioFormat, rate: u32, samples: &[f32]) -> anyhow::Result<Vec<u8>> {
    if format == AudioFormat::Wav {
        let mut bytes = wav_header(rate, Some(samples.len() as u32)).to_vec();
        bytes.extend(samples.iter().flat_map(|s| to_i16(*s).to_le_bytes()));
        return Ok(bytes);
    }
    Ok(encode_all(format, rate, samples)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extensions_pick_the_format_or_are_named() {
        assert_eq!(format_of(Path::new("a/speech.MP3")).unwrap(), AudioFormat::Mp3);
        assert_eq!(format_of(Path::new("x.flac")).unwrap(), AudioFormat::Flac);
        assert_eq!(format_of(Path::new("x.opus")).unwrap(), AudioFormat::Opus);
        assert_eq!(format_of(Path::new("x.pcm")).unwrap(), AudioFormat::Pcm);
        for (p, says) in [("x.ogg", "'.ogg'"), ("x.aac", "'.aac'"), ("speech", "no extension")] {
            let e = format_of(Path::new(p)).unwrap_err().to_string();
            assert!(e.contains(says) && e.contains("mp3, opus, flac, wav, pcm"), "{p}: {e}");
        }
    }

    /// Each format decodes back to (about) the audio that went in; WAV carries its real sizes.
    #[test]
    fn files_hold_the_named_format() {
        let rate = 22050;
        let tone: Vec<f32> =
            (0..rate / 2).map(|i| 0.3 * (i as f32 * 440.0 * std::f32::consts::TAU / rate as f32).sin()).collect();
        let wav = encode(AudioFormat::Wav, rate, &tone).unwrap();
        assert_eq!(u32::from_le_bytes(wav[40..44].try_into().unwrap()), tone.len() as u32 * 2);
        for (format, ext) in [(AudioFormat::Wav, "wav"), (AudioFormat::Mp3, "mp3"), (AudioFormat::Flac, "flac")] {
            let bytes = encode(format, rate, &tone).unwrap();
            let pcm = crate::audio::decode(bytes, Some(ext)).unwrap_or_else(|e| panic!("{ext}: {e}"));
            assert_eq!(pcm.sample_rate, rate, "{ext}");
            let secs = pcm.samples.len() as f64 / rate as f64;
            assert!((0.45..0.7).contains(&secs), "{ext}: {secs} s");
        }
        assert_ne!(&encode(AudioFormat::Mp3, rate, &tone).unwrap()[..4], b"RIFF");
    }
}
