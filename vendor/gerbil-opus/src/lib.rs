//! libopus 1.5.2, built from the vendored C source in `opus/` (see build.rs), with the small safe
//! API gerbil uses: a float encoder and decoder. The names follow the `opus` crate's (`Encoder`,
//! `Decoder`, `Channels`, `Application`, `Bitrate`, `Error`, `version`), so `use gerbil_opus as
//! opus;` is a drop-in for what gerbil called. Nothing here panics on bad input: an argument
//! libopus refuses, a corrupt packet or a too-small buffer is an `Err` with libopus's own message.

use std::ffi::CStr;
use std::fmt;
use std::os::raw::{c_char, c_int};

/// The raw C API (include/opus.h, include/opus_defines.h): only what the safe API calls.
pub mod ffi {
    use std::os::raw::{c_char, c_int};

    /// `OpusEncoder` (opaque).
    #[repr(C)]
    pub struct OpusEncoder {
        _private: [u8; 0],
    }

    /// `OpusDecoder` (opaque).
    #[repr(C)]
    pub struct OpusDecoder {
        _private: [u8; 0],
    }

    pub const OPUS_OK: c_int = 0;
    pub const OPUS_BAD_ARG: c_int = -1;
    pub const OPUS_BUFFER_TOO_SMALL: c_int = -2;
    pub const OPUS_INTERNAL_ERROR: c_int = -3;
    pub const OPUS_INVALID_PACKET: c_int = -4;
    pub const OPUS_UNIMPLEMENTED: c_int = -5;
    pub const OPUS_INVALID_STATE: c_int = -6;
    pub const OPUS_ALLOC_FAIL: c_int = -7;

    pub const OPUS_AUTO: c_int = -1000;
    pub const OPUS_BITRATE_MAX: c_int = -1;

    pub const OPUS_APPLICATION_VOIP: c_int = 2048;
    pub const OPUS_APPLICATION_AUDIO: c_int = 2049;
    pub const OPUS_APPLICATION_RESTRICTED_LOWDELAY: c_int = 2051;

    pub const OPUS_SET_BITRATE_REQUEST: c_int = 4002;
    pub const OPUS_GET_BITRATE_REQUEST: c_int = 4003;
    pub const OPUS_GET_LOOKAHEAD_REQUEST: c_int = 4027;

    extern "C" {
        pub fn opus_get_version_string() -> *const c_char;
        pub fn opus_strerror(error: c_int) -> *const c_char;

        pub fn opus_encoder_create(fs: i32, channels: c_int, application: c_int, error: *mut c_int)
            -> *mut OpusEncoder;
        pub fn opus_encoder_destroy(st: *mut OpusEncoder);
        pub fn opus_encode_float(
            st: *mut OpusEncoder,
            pcm: *const f32,
            frame_size: c_int,
            data: *mut u8,
            max_data_bytes: i32,
        ) -> i32;
        pub fn opus_encoder_ctl(st: *mut OpusEncoder, request: c_int, ...) -> c_int;

        pub fn opus_decoder_create(fs: i32, channels: c_int, error: *mut c_int) -> *mut OpusDecoder;
        pub fn opus_decoder_destroy(st: *mut OpusDecoder);
        pub fn opus_decode_float(
            st: *mut OpusDecoder,
            data: *const u8,
            len: i32,
            pcm: *mut f32,
            frame_size: c_int,
            decode_fec: c_int,
        ) -> c_int;
    }
}

/// What the encoder is tuned for (`OPUS_APPLICATION_*`).
#[derive(Debug, Clone, Copy, Eq, PartialEq, Hash)]
pub enum Application {
    /// Intelligibility first: VoIP, videoconferencing.
    Voip,
    /// Fidelity to the input: broadcast, music, general audio.
    Audio,
    /// Lowest delay only.
    LowDelay,
}

impl Application {
    fn raw(self) -> c_int {
        match self {
            Application::Voip => ffi::OPUS_APPLICATION_VOIP,
            Application::Audio => ffi::OPUS_APPLICATION_AUDIO,
            Application::LowDelay => ffi::OPUS_APPLICATION_RESTRICTED_LOWDELAY,
        }
    }
}

/// Channel count of an encoder or decoder. Samples of several channels are interleaved.
#[derive(Debug, Clone, Copy, Eq, PartialEq, Hash)]
pub enum Channels {
    Mono = 1,
    Stereo = 2,
}

impl Channels {
    fn count(self) -> usize {
        self as usize
    }
}

/// The encoder's target bitrate.
#[derive(Debug, Copy, Clone, Eq, PartialEq, Hash)]
pub enum Bitrate {
    /// Bits per second (libopus accepts 500 to 512000).
    Bits(i32),
    /// As many bits as the packet buffer allows.
    Max,
    /// libopus's default for the rate and channels.
    Auto,
}

impl Bitrate {
    fn raw(self) -> c_int {
        match self {
            Bitrate::Auto => ffi::OPUS_AUTO,
            Bitrate::Max => ffi::OPUS_BITRATE_MAX,
            Bitrate::Bits(bits) => bits,
        }
    }

    fn from_raw(raw: c_int) -> Bitrate {
        match raw {
            ffi::OPUS_AUTO => Bitrate::Auto,
            ffi::OPUS_BITRATE_MAX => Bitrate::Max,
            bits => Bitrate::Bits(bits),
        }
    }
}

/// libopus's error codes (`OPUS_*` below zero).
#[derive(Debug, Copy, Clone, Eq, PartialEq, Hash)]
pub enum ErrorCode {
    BadArg,
    BufferTooSmall,
    InternalError,
    InvalidPacket,
    Unimplemented,
    InvalidState,
    AllocFail,
    /// A code libopus does not define.
    Unknown(i32),
}

impl ErrorCode {
    fn from_raw(code: c_int) -> ErrorCode {
        match code {
            ffi::OPUS_BAD_ARG => ErrorCode::BadArg,
            ffi::OPUS_BUFFER_TOO_SMALL => ErrorCode::BufferTooSmall,
            ffi::OPUS_INTERNAL_ERROR => ErrorCode::InternalError,
            ffi::OPUS_INVALID_PACKET => ErrorCode::InvalidPacket,
            ffi::OPUS_UNIMPLEMENTED => ErrorCode::Unimplemented,
            ffi::OPUS_INVALID_STATE => ErrorCode::InvalidState,
            ffi::OPUS_ALLOC_FAIL => ErrorCode::AllocFail,
            other => ErrorCode::Unknown(other),
        }
    }

    /// The raw `OPUS_*` value.
    pub fn raw(self) -> i32 {
        match self {
            ErrorCode::BadArg => ffi::OPUS_BAD_ARG,
            ErrorCode::BufferTooSmall => ffi::OPUS_BUFFER_TOO_SMALL,
            ErrorCode::InternalError => ffi::OPUS_INTERNAL_ERROR,
            ErrorCode::InvalidPacket => ffi::OPUS_INVALID_PACKET,
            ErrorCode::Unimplemented => ffi::OPUS_UNIMPLEMENTED,
            ErrorCode::InvalidState => ffi::OPUS_INVALID_STATE,
            ErrorCode::AllocFail => ffi::OPUS_ALLOC_FAIL,
            ErrorCode::Unknown(code) => code,
        }
    }

    /// libopus's message for the code (`opus_strerror`), e.g. "corrupted stream".
    pub fn description(self) -> &'static str {
        // SAFETY: opus_strerror returns a pointer to a static NUL-terminated string for any input.
        static_str(unsafe { ffi::opus_strerror(self.raw()) }).unwrap_or("unknown error")
    }
}

/// An error from libopus: the C function that returned it and its code.
#[derive(Debug, Clone, Copy, Eq, PartialEq)]
pub struct Error {
    function: &'static str,
    code: ErrorCode,
}

impl Error {
    fn new(function: &'static str, code: c_int) -> Error {
        Error { function, code: ErrorCode::from_raw(code) }
    }

    /// The libopus function that failed (or whose arguments could not be formed).
    pub fn function(&self) -> &'static str {
        self.function
    }

    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// libopus's message for the error (`opus_strerror`).
    pub fn description(&self) -> &'static str {
        self.code.description()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.function, self.description())
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

fn static_str(p: *const c_char) -> Option<&'static str> {
    if p.is_null() {
        return None;
    }
    // SAFETY: callers pass libopus's static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().ok()
}

/// libopus's version string, "libopus 1.5.2".
pub fn version() -> &'static str {
    // SAFETY: returns a pointer to a static NUL-terminated string.
    static_str(unsafe { ffi::opus_get_version_string() }).unwrap_or("libopus")
}

/// A count for a C int argument: too large is BAD_ARG, never a panic or a wrap.
fn c_len(n: usize, function: &'static str) -> Result<c_int> {
    c_int::try_from(n).map_err(|_| Error::new(function, ffi::OPUS_BAD_ARG))
}

/// A buffer capacity for a C int argument: libopus only needs an upper bound, so clamp.
fn c_cap(n: usize) -> c_int {
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

fn c_rate(sample_rate: u32, function: &'static str) -> Result<i32> {
    i32::try_from(sample_rate).map_err(|_| Error::new(function, ffi::OPUS_BAD_ARG))
}

/// An Opus encoder (`OpusEncoder`).
#[derive(Debug)]
pub struct Encoder {
    ptr: *mut ffi::OpusEncoder,
    channels: Channels,
}

// A libopus state may be used from any thread, one at a time ("A single codec state may only be
// accessed from a single thread at a time"); every method takes &mut self.
unsafe impl Send for Encoder {}

impl Drop for Encoder {
    fn drop(&mut self) {
        // SAFETY: ptr came from opus_encoder_create and is destroyed once.
        unsafe { ffi::opus_encoder_destroy(self.ptr) }
    }
}

impl Encoder {
    /// An encoder at `sample_rate` (8000, 12000, 16000, 24000 or 48000 Hz).
    pub fn new(sample_rate: u32, channels: Channels, application: Application) -> Result<Encoder> {
        const F: &str = "opus_encoder_create";
        let fs = c_rate(sample_rate, F)?;
        let mut error = ffi::OPUS_OK;
        // SAFETY: error points to a live c_int.
        let ptr = unsafe { ffi::opus_encoder_create(fs, channels as c_int, application.raw(), &mut error) };
        if ptr.is_null() || error != ffi::OPUS_OK {
            if !ptr.is_null() {
                // SAFETY: a state libopus returned along with an error is still ours to free.
                unsafe { ffi::opus_encoder_destroy(ptr) };
            }
            return Err(Error::new(F, if error == ffi::OPUS_OK { ffi::OPUS_ALLOC_FAIL } else { error }));
        }
        Ok(Encoder { ptr, channels })
    }

    /// Encodes one frame of interleaved samples in [-1, 1] (2.5, 5, 10, 20, 40, 60, 80, 100 or
    /// 120 ms per channel) into `output`; returns the packet's length in bytes.
    pub fn encode_float(&mut self, input: &[f32], output: &mut [u8]) -> Result<usize> {
        const F: &str = "opus_encode_float";
        let frame_size = c_len(input.len() / self.channels.count(), F)?;
        // SAFETY: libopus reads frame_size * channels <= input.len() samples and writes at most
        // output.len() bytes.
        let n = unsafe {
            ffi::opus_encode_float(self.ptr, input.as_ptr(), frame_size, output.as_mut_ptr(), c_cap(output.len()))
        };
        if n < 0 {
            return Err(Error::new(F, n));
        }
        Ok(n as usize)
    }

    /// `encode_float` into a new buffer of at most `max_size` bytes (4000 is always enough).
    pub fn encode_vec_float(&mut self, input: &[f32], max_size: usize) -> Result<Vec<u8>> {
        let mut out = vec![0u8; max_size];
        let n = self.encode_float(input, &mut out)?;
        out.truncate(n);
        Ok(out)
    }

    pub fn set_bitrate(&mut self, bitrate: Bitrate) -> Result<()> {
        // SAFETY: OPUS_SET_BITRATE takes one opus_int32 argument.
        let r = unsafe { ffi::opus_encoder_ctl(self.ptr, ffi::OPUS_SET_BITRATE_REQUEST, bitrate.raw()) };
        if r < 0 {
            return Err(Error::new("opus_encoder_ctl(OPUS_SET_BITRATE)", r));
        }
        Ok(())
    }

    pub fn get_bitrate(&mut self) -> Result<Bitrate> {
        let mut v: i32 = 0;
        // SAFETY: OPUS_GET_BITRATE takes one opus_int32 pointer, which points to a live i32.
        let r = unsafe { ffi::opus_encoder_ctl(self.ptr, ffi::OPUS_GET_BITRATE_REQUEST, &mut v as *mut i32) };
        if r < 0 {
            return Err(Error::new("opus_encoder_ctl(OPUS_GET_BITRATE)", r));
        }
        Ok(Bitrate::from_raw(v))
    }

    /// The encoder's delay in samples at its rate: the pre-skip of an Ogg Opus stream (at 48 kHz).
    pub fn get_lookahead(&mut self) -> Result<i32> {
        let mut v: i32 = 0;
        // SAFETY: OPUS_GET_LOOKAHEAD takes one opus_int32 pointer, which points to a live i32.
        let r = unsafe { ffi::opus_encoder_ctl(self.ptr, ffi::OPUS_GET_LOOKAHEAD_REQUEST, &mut v as *mut i32) };
        if r < 0 {
            return Err(Error::new("opus_encoder_ctl(OPUS_GET_LOOKAHEAD)", r));
        }
        Ok(v)
    }
}

/// An Opus decoder (`OpusDecoder`).
#[derive(Debug)]
pub struct Decoder {
    ptr: *mut ffi::OpusDecoder,
    channels: Channels,
}

// See `Encoder`'s Send.
unsafe impl Send for Decoder {}

impl Drop for Decoder {
    fn drop(&mut self) {
        // SAFETY: ptr came from opus_decoder_create and is destroyed once.
        unsafe { ffi::opus_decoder_destroy(self.ptr) }
    }
}

impl Decoder {
    /// A decoder that outputs `sample_rate` (8000, 12000, 16000, 24000 or 48000 Hz).
    pub fn new(sample_rate: u32, channels: Channels) -> Result<Decoder> {
        const F: &str = "opus_decoder_create";
        let fs = c_rate(sample_rate, F)?;
        let mut error = ffi::OPUS_OK;
        // SAFETY: error points to a live c_int.
        let ptr = unsafe { ffi::opus_decoder_create(fs, channels as c_int, &mut error) };
        if ptr.is_null() || error != ffi::OPUS_OK {
            if !ptr.is_null() {
                // SAFETY: as in Encoder::new.
                unsafe { ffi::opus_decoder_destroy(ptr) };
            }
            return Err(Error::new(F, if error == ffi::OPUS_OK { ffi::OPUS_ALLOC_FAIL } else { error }));
        }
        Ok(Decoder { ptr, channels })
    }

    /// Decodes one packet into interleaved samples; returns the samples *per channel* written.
    /// `output` must hold the packet's duration (5760 per channel always suffices). An empty
    /// `input` is a lost packet: libopus conceals `output.len() / channels` samples. `fec`:
    /// decode the in-band redundancy of the previous (lost) frame instead.
    pub fn decode_float(&mut self, input: &[u8], output: &mut [f32], fec: bool) -> Result<usize> {
        const F: &str = "opus_decode_float";
        let len = c_len(input.len(), F)?;
        let data = if input.is_empty() { std::ptr::null() } else { input.as_ptr() };
        let frame_size = c_cap(output.len() / self.channels.count());
        // SAFETY: libopus reads len bytes of data and writes at most frame_size * channels <=
        // output.len() samples.
        let n = unsafe { ffi::opus_decode_float(self.ptr, data, len, output.as_mut_ptr(), frame_size, fec as c_int) };
        if n < 0 {
            return Err(Error::new(F, n));
        }
        Ok(n as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RATE: u32 = 48_000;
    const FRAME: usize = 960;

    fn sine(n: usize, hz: f32) -> Vec<f32> {
        (0..n).map(|i| 0.5 * (2.0 * std::f32::consts::PI * hz * i as f32 / RATE as f32).sin()).collect()
    }

    /// Encodes `x` (mono, whole frames) and decodes it back.
    fn round_trip(x: &[f32], bitrate: i32) -> (Vec<f32>, usize, usize) {
        let mut enc = Encoder::new(RATE, Channels::Mono, Application::Audio).unwrap();
        enc.set_bitrate(Bitrate::Bits(bitrate)).unwrap();
        assert_eq!(enc.get_bitrate().unwrap(), Bitrate::Bits(bitrate));
        let lookahead = enc.get_lookahead().unwrap() as usize;
        let mut dec = Decoder::new(RATE, Channels::Mono).unwrap();
        let (mut y, mut bytes) = (Vec::new(), 0);
        let mut buf = vec![0f32; 5760];
        for frame in x.chunks(FRAME) {
            let packet = enc.encode_vec_float(frame, 4000).unwrap();
            assert!(!packet.is_empty() && packet.len() <= 4000);
            bytes += packet.len();
            let n = dec.decode_float(&packet, &mut buf, false).unwrap();
            assert_eq!(n, FRAME);
            y.extend_from_slice(&buf[..n]);
        }
        (y, lookahead, bytes)
    }

    #[test]
    fn version_is_the_vendored_one() {
        assert_eq!(version(), "libopus 1.5.2");
    }

    #[test]
    fn sine_round_trip_has_the_length_and_a_high_snr() {
        let x = sine(FRAME * 50, 440.0);
        let (y, lookahead, bytes) = round_trip(&x, 64_000);
        assert_eq!(y.len(), x.len());
        // 48 kHz output lags the input by the encoder's lookahead (312 samples in 1.5).
        assert!(lookahead > 0 && lookahead < FRAME, "lookahead {lookahead}");
        // Skip the first 100 ms (the codec settling), compare the rest after the delay.
        let (mut sig, mut err) = (0f64, 0f64);
        for i in 4800..x.len() - lookahead {
            let (a, b) = (x[i] as f64, y[i + lookahead] as f64);
            sig += a * a;
            err += (a - b) * (a - b);
        }
        let snr = 10.0 * (sig / err).log10();
        assert!(snr > 20.0, "SNR {snr:.1} dB");
        // 1 s at 64 kbit/s is about 8 KB.
        assert!((4000..12000).contains(&bytes), "{bytes} bytes");
    }

    #[test]
    fn stereo_round_trip() {
        let mut enc = Encoder::new(RATE, Channels::Stereo, Application::Voip).unwrap();
        let mut dec = Decoder::new(RATE, Channels::Stereo).unwrap();
        let l = sine(FRAME, 300.0);
        let x: Vec<f32> = l.iter().flat_map(|&s| [s, -s]).collect();
        let mut out = vec![0f32; 2 * 5760];
        for _ in 0..5 {
            let p = enc.encode_vec_float(&x, 4000).unwrap();
            assert_eq!(dec.decode_float(&p, &mut out, false).unwrap(), FRAME);
        }
    }

    #[test]
    fn corrupt_packets_are_errors() {
        let mut dec = Decoder::new(RATE, Channels::Mono).unwrap();
        let mut out = vec![0f32; 5760];
        // TOC code 3 (arbitrary frame count) with a frame count of 0: invalid.
        let e = dec.decode_float(&[0xFB, 0x00], &mut out, false).unwrap_err();
        assert_eq!(e.code(), ErrorCode::InvalidPacket);
        assert_eq!(e.to_string(), "opus_decode_float: corrupted stream");
        // Code 3 claiming 48 frames of 20 ms (960 ms > 120 ms), and CBR lengths that don't add up.
        assert!(dec.decode_float(&[0xFB, 0x30, 1, 2, 3], &mut out, false).is_err());
        // Code 2 (two frames of different sizes) whose first length runs past the packet.
        assert!(dec.decode_float(&[0xFA, 200, 1, 2, 3], &mut out, false).is_err());
        // Random bytes never panic; whatever libopus makes of them is in range.
        let mut s = 0x1234_5678u32;
        for len in 1..400 {
            let p: Vec<u8> = (0..len)
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 17;
                    s ^= s << 5;
                    s as u8
                })
                .collect();
            if let Ok(n) = dec.decode_float(&p, &mut out, false) {
                assert!(n <= 5760 && out[..n].iter().all(|v| v.is_finite()));
            }
        }
        // The decoder still works after all that.
        let mut enc = Encoder::new(RATE, Channels::Mono, Application::Audio).unwrap();
        let p = enc.encode_vec_float(&sine(FRAME, 440.0), 4000).unwrap();
        assert_eq!(dec.decode_float(&p, &mut out, false).unwrap(), FRAME);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let e = Encoder::new(44_100, Channels::Mono, Application::Audio).unwrap_err();
        assert_eq!((e.code(), e.function()), (ErrorCode::BadArg, "opus_encoder_create"));
        assert_eq!(e.description(), "invalid argument");
        assert!(Decoder::new(u32::MAX, Channels::Mono).is_err());
        let mut enc = Encoder::new(RATE, Channels::Mono, Application::Audio).unwrap();
        // 1000 samples is no Opus frame size.
        assert_eq!(enc.encode_vec_float(&[0.0; 1000], 4000).unwrap_err().code(), ErrorCode::BadArg);
        assert!(enc.encode_vec_float(&[0.0; FRAME], 0).is_err());
        assert!(enc.encode_vec_float(&[], 4000).is_err());
        assert!(enc.set_bitrate(Bitrate::Bits(-5)).is_err());
        // OPUS_GET_BITRATE reports what Max and Auto come to.
        enc.set_bitrate(Bitrate::Max).unwrap();
        assert!(matches!(enc.get_bitrate().unwrap(), Bitrate::Bits(b) if b > 500_000));
        // Output too small for the decoded frame.
        let mut dec = Decoder::new(RATE, Channels::Mono).unwrap();
        let p = enc.encode_vec_float(&sine(FRAME, 440.0), 4000).unwrap();
        let mut small = vec![0f32; 480];
        assert_eq!(dec.decode_float(&p, &mut small, false).unwrap_err().code(), ErrorCode::BufferTooSmall);
        assert!(dec.decode_float(&p, &mut [], false).is_err());
        // A lost packet (empty input) is concealed over the output's length.
        let mut out = vec![0f32; FRAME];
        assert_eq!(dec.decode_float(&[], &mut out, false).unwrap(), FRAME);
    }
}
