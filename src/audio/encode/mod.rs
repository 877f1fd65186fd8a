//! Streaming encoders for `response_format`. Each takes f32 mono chunks as sentences finish
//! and hands back the bytes it can already emit, so a chunked response streams real audio
//! early; `finish` flushes the tail. Concatenating every returned chunk gives one valid file.
//!   wav:  RIFF/WAVE PCM s16le; streamed, so the RIFF and data sizes are 0xFFFFFFFF
//!         ("unknown length", read to the end by standard decoders).
//!   pcm:  raw s16le at the voice's rate (the rate travels in a response header).
//!   flac: native FLAC (flacenc), 16-bit, fixed 4096-sample blocks; STREAMINFO says
//!         "total samples unknown" because the header goes out before the audio exists.
//!   mp3:  MPEG-2 Layer III CBR (LAME through mp3lame-encoder) at the voice's rate.
//!   opus: Opus (libopus) in Ogg, resampled to 48 kHz (rubato) since Opus takes no 22.05 kHz.
//! AAC has no maintained encoder crate we want to carry, so it is refused at the edge.

mod flac;
mod mp3;
mod opus;
mod wav;

pub use wav::{to_i16, wav_header};

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

/// The `response_format` values this build encodes (aac is parsed, then refused).
pub const SUPPORTED_NAMES: &[&str] = &["mp3", "opus", "flac", "wav", "pcm"];

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

    pub fn name(self) -> &'static str {
        match self {
            AudioFormat::Wav => "wav",
            AudioFormat::Pcm => "pcm",
            AudioFormat::Flac => "flac",
            AudioFormat::Mp3 => "mp3",
            AudioFormat::Opus => "opus",
            AudioFormat::Aac => "aac",
        }
    }

    pub fn supported(self) -> bool {
        SUPPORTED_NAMES.contains(&self.name())
    }

    pub fn content_type(self) -> &'static str {
        match self {
            AudioFormat::Wav => "audio/wav",
            AudioFormat::Pcm => "audio/pcm",
            AudioFormat::Flac => "audio/flac",
            AudioFormat::Mp3 => "audio/mpeg",
            AudioFormat::Opus => "audio/ogg; codecs=opus",
            AudioFormat::Aac => "audio/aac",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    #[error("response_format '{0}' is not supported by this server")]
    Unsupported(&'static str),
    #[error("{codec} encoder: {msg}")]
    Codec { codec: &'static str, msg: String },
    #[error("resampling for the encoder failed: {0}")]
    Resample(String),
}

impl EncodeError {
    pub(crate) fn codec(codec: &'static str, e: impl std::fmt::Display) -> Self {
        EncodeError::Codec { codec, msg: e.to_string() }
    }
}

enum Inner {
    Wav(wav::WavStream),
    Flac(Box<flac::FlacStream>),
    Mp3(Box<mp3::Mp3Stream>),
    Opus(Box<opus::OpusStream>),
}

/// One response's encoder: push chunks, get bytes, then `finish`.
pub struct StreamEncoder {
    inner: Inner,
    finished: bool,
}

impl StreamEncoder {
    /// `rate` is the rate of the samples that will be pushed (the voice's rate).
    pub fn new(format: AudioFormat, rate: u32) -> Result<Self, EncodeError> {
        let inner = match format {
            AudioFormat::Wav => Inner::Wav(wav::WavStream::new(rate, true)),
            AudioFormat::Pcm => Inner::Wav(wav::WavStream::new(rate, false)),
            AudioFormat::Flac => Inner::Flac(Box::new(flac::FlacStream::new(rate)?)),
            AudioFormat::Mp3 => Inner::Mp3(Box::new(mp3::Mp3Stream::new(rate)?)),
            AudioFormat::Opus => Inner::Opus(Box::new(opus::OpusStream::new(rate)?)),
            AudioFormat::Aac => return Err(EncodeError::Unsupported("aac")),
        };
        Ok(StreamEncoder { inner, finished: false })
    }

    /// For a response read as a file rather than as it comes: as `new`, but FLAC is encoded
    /// whole at `finish`, so its STREAMINFO says the length and MD5 (libsndfile needs them).
    pub fn file(format: AudioFormat, rate: u32) -> Result<Self, EncodeError> {
        match format {
            AudioFormat::Flac => {
                Ok(StreamEncoder { inner: Inner::Flac(Box::new(flac::FlacStream::file(rate)?)), finished: false })
            }
            _ => Self::new(format, rate),
        }
    }

    /// The bytes that can be emitted after these samples (may be empty while a codec
    /// fills a frame; the header comes with the first call).
    pub fn chunk(&mut self, samples: &[f32]) -> Result<Vec<u8>, EncodeError> {
        debug_assert!(!self.finished, "chunk after finish");
        match &mut self.inner {
            Inner::Wav(e) => Ok(e.push(samples)),
            Inner::Flac(e) => e.push(samples),
            Inner::Mp3(e) => e.push(samples),
            Inner::Opus(e) => e.push(samples),
        }
    }

    /// The bytes that close the stream (the header alone if no audio was produced).
    pub fn finish(&mut self) -> Result<Vec<u8>, EncodeError> {
        if std::mem::replace(&mut self.finished, true) {
            return Ok(Vec::new());
        }
        match &mut self.inner {
            Inner::Wav(e) => Ok(e.push(&[])),
            Inner::Flac(e) => e.finish(),
            Inner::Mp3(e) => e.finish(),
            Inner::Opus(e) => e.finish(),
        }
    }
}

/// Encodes a whole signal in one go (the same bytes as streaming it chunk by chunk).
pub fn encode_all(format: AudioFormat, rate: u32, samples: &[f32]) -> Result<Vec<u8>, EncodeError> {
    let mut e = StreamEncoder::new(format, rate)?;
    let mut out = e.chunk(samples)?;
    out.extend(e.finish()?);
    Ok(out)
}
