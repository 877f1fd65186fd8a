//! Every streaming `response_format` encoder against a standard decoder: a known signal is
//! encoded (in one go and in uneven streamed chunks), decoded by symphonia (wav, flac, mp3)
//! or by the Ogg reader + libopus (opus; symphonia 0.5 has no Opus decoder), and checked for
//! duration (within one codec frame, or exactly where the container records the length) and
//! for the signal itself (sample-exact for the lossless formats, correlation otherwise).

use std::io::Cursor;

use gerbil::audio::encode::{encode_all, AudioFormat, EncodeError, StreamEncoder};
use symphonia::core::audio::SampleBuffer;
use symphonia::core::codecs::DecoderOptions;
use symphonia::core::errors::Error as SymError;
use symphonia::core::formats::FormatOptions;
use symphonia::core::io::MediaSourceStream;
use symphonia::core::meta::MetadataOptions;
use symphonia::core::probe::Hint;

const RATE: u32 = 22050;
/// MPEG-2 (LSF) Layer III frames, as at 22.05 kHz, hold 576 samples.
const MP3_FRAME: usize = 576;
/// LAME's encoder delay (576) plus the standard decoder's MDCT delay (528 + 1): where the
/// input's first sample lands in a decode without the (unstreamable) LAME gapless tag.
const MP3_DELAY: usize = 576 + 529;

/// 1.37 s of a 440 Hz tone with a slow 3 Hz amplitude swell and a little 1.7 kHz overtone,
/// an odd length so no codec frame boundary lines up with the end.
fn signal(rate: u32) -> Vec<f32> {
    let n = (rate as f64 * 1.37) as usize + 17;
    (0..n)
        .map(|i| {
            let t = i as f32 / rate as f32;
            let env = 0.35 + 0.25 * (2.0 * std::f32::consts::PI * 3.0 * t).sin();
            env * (2.0 * std::f32::consts::PI * 440.0 * t).sin()
                + 0.05 * (2.0 * std::f32::consts::PI * 1700.0 * t).sin()
        })
        .collect()
}

/// Strict symphonia decode: any error is a test failure. Returns (samples, rate).
fn symphonia_decode(bytes: Vec<u8>, ext: &str) -> (Vec<f32>, u32) {
    let mss = MediaSourceStream::new(Box::new(Cursor::new(bytes)), Default::default());
    let mut hint = Hint::new();
    hint.with_extension(ext);
    let probed = symphonia::default::get_probe()
        .format(&hint, mss, &FormatOptions::default(), &MetadataOptions::default())
        .expect("probe");
    let mut format = probed.format;
    let track = format.default_track().expect("a track").clone();
    assert_eq!(track.codec_params.channels.map(|c| c.count()), Some(1), "{ext}: mono");
    let rate = track.codec_params.sample_rate.expect("rate");
    let mut dec = symphonia::default::get_codecs().make(&track.codec_params, &DecoderOptions::default()).unwrap();
    let mut out = Vec::new();
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(SymError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => panic!("{ext}: reading packets: {e}"),
        };
        let buf = dec.decode(&packet).unwrap_or_else(|e| panic!("{ext}: decoding: {e}"));
        let mut s = SampleBuffer::<f32>::new(buf.capacity() as u64, *buf.spec());
        s.copy_interleaved_ref(buf);
        out.extend_from_slice(s.samples());
    }
    (out, rate)
}

/// Ogg Opus per RFC 7845 with the ogg reader and libopus: OpusHead gives the pre-skip,
/// the last page's granule position the end. Returns (48 kHz samples, input rate in the head).
fn opus_decode(bytes: Vec<u8>) -> (Vec<f32>, u32) {
    let mut r = ogg::PacketReader::new(Cursor::new(bytes));
    let head = r.read_packet_expected().unwrap();
    assert!(head.first_in_stream() && head.data.starts_with(b"OpusHead") && head.data.len() == 19);
    assert_eq!(head.data[9], 1, "mono");
    let pre_skip = u16::from_le_bytes([head.data[10], head.data[11]]) as usize;
    let input_rate = u32::from_le_bytes(head.data[12..16].try_into().unwrap());
    let tags = r.read_packet_expected().unwrap();
    assert!(tags.data.starts_with(b"OpusTags"));
    let mut dec = gerbil_opus::Decoder::new(48_000, gerbil_opus::Channels::Mono).unwrap();
    let mut pcm = Vec::new();
    let mut buf = vec![0f32; 5760];
    let mut end = None;
    while let Some(p) = r.read_packet().unwrap() {
        assert!(end.is_none(), "packets after the end of stream");
        let n = dec.decode_float(&p.data, &mut buf, false).unwrap();
        pcm.extend_from_slice(&buf[..n]);
        if p.last_in_stream() {
            end = Some(p.absgp_page() as usize);
        }
    }
    let end = end.expect("an end-of-stream page");
    assert!(end <= pcm.len() && end >= pre_skip, "end granule {end} vs {} decoded", pcm.len());
    (pcm[pre_skip..end].to_vec(), input_rate)
}

/// Normalized cross-correlation of `got[lag..]` with `want`, over want's length.
fn correlation(got: &[f32], want: &[f32], lag: usize) -> f64 {
    let n = want.len().min(got.len().saturating_sub(lag));
    let (mut gw, mut gg, mut ww) = (0f64, 0f64, 0f64);
    for i in 0..n {
        let (g, w) = (got[lag + i] as f64, want[i] as f64);
        gw += g * w;
        gg += g * g;
        ww += w * w;
    }
    gw / (gg * ww).sqrt().max(1e-12)
}

fn best_lag(got: &[f32], want: &[f32], max_lag: usize) -> (usize, f64) {
    (0..=max_lag).map(|l| (l, correlation(got, want, l))).fold((0, f64::MIN), |a, b| if b.1 > a.1 { b } else { a })
}

/// Encodes in uneven chunks, as sentences arrive: (all bytes, first chunk's bytes).
fn encode_streamed(format: AudioFormat, rate: u32, x: &[f32]) -> (Vec<u8>, Vec<u8>) {
    let mut e = StreamEncoder::new(format, rate).unwrap();
    let mut out = Vec::new();
    let mut first = None;
    let mut pos = 0;
    for (i, size) in [5000usize, 7, 1, 3333, 9000, 400].iter().cycle().enumerate() {
        if pos >= x.len() {
            break;
        }
        let end = (pos + size).min(x.len());
        let b = e.chunk(&x[pos..end]).unwrap();
        if i == 0 {
            first = Some(b.clone());
        }
        out.extend(b);
        pos = end;
    }
    out.extend(e.finish().unwrap());
    (out, first.unwrap())
}

fn quantized(x: &[f32]) -> Vec<f32> {
    x.iter().map(|&s| gerbil::audio::encode::to_i16(s) as f32 / 32768.0).collect()
}

#[test]
fn wav_and_flac_are_lossless_and_stream_byte_identically() {
    let x = signal(RATE);
    for (format, ext) in [(AudioFormat::Wav, "wav"), (AudioFormat::Flac, "flac")] {
        let whole = encode_all(format, RATE, &x).unwrap();
        let (streamed, first) = encode_streamed(format, RATE, &x);
        assert_eq!(whole, streamed, "{ext}: streamed chunks differ from the one-shot encoding");
        // The first chunk already carries the header and the audio of its 5000 samples
        // (a whole 4096-sample FLAC frame), and decodes on its own.
        let (head, rate) = symphonia_decode(first, ext);
        assert_eq!(rate, RATE);
        let expect_head = if format == AudioFormat::Wav { 5000 } else { 4096 };
        assert_eq!(head.len(), expect_head, "{ext}: first chunk");
        let (y, rate) = symphonia_decode(whole, ext);
        assert_eq!(rate, RATE, "{ext}");
        assert_eq!(y.len(), x.len(), "{ext}: duration");
        assert_eq!(y, quantized(&x), "{ext}: not the 16-bit input");
        println!("{ext}: {} samples, {} bytes", y.len(), streamed.len());
    }
    let pcm = encode_all(AudioFormat::Pcm, RATE, &x).unwrap();
    assert_eq!(pcm.len(), 2 * x.len());
}

/// A FLAC file (a raw HTTP body) comes whole at `finish`, its STREAMINFO carrying the length and
/// the MD5 of the samples (libsndfile refuses an unknown length): symphonia, verifying the MD5,
/// decodes the 16-bit input.
#[test]
fn flac_files_carry_their_length_and_md5() {
    let x = signal(RATE);
    let mut e = StreamEncoder::file(AudioFormat::Flac, RATE).unwrap();
    assert!(e.chunk(&x[..5000]).unwrap().is_empty() && e.chunk(&x[5000..]).unwrap().is_empty());
    let bytes = e.finish().unwrap();
    // fLaC, the STREAMINFO header (4 bytes), then: block sizes (4), frame sizes (6), and 8 bytes of
    // rate (20 bits), channels - 1 (3), bits - 1 (5), total samples (36); then the MD5 (16).
    assert_eq!(&bytes[..4], b"fLaC");
    let packed = u64::from_be_bytes(bytes[18..26].try_into().unwrap());
    assert_eq!(packed >> 44, RATE as u64);
    assert_eq!(packed & ((1 << 36) - 1), x.len() as u64, "STREAMINFO total samples");
    assert!(bytes[26..42].iter().any(|&b| b != 0), "STREAMINFO MD5 set");
    let mss = MediaSourceStream::new(Box::new(Cursor::new(bytes)), Default::default());
    let probed = symphonia::default::get_probe()
        .format(Hint::new().with_extension("flac"), mss, &FormatOptions::default(), &MetadataOptions::default())
        .unwrap();
    let mut format = probed.format;
    let track = format.default_track().unwrap().clone();
    assert_eq!(track.codec_params.n_frames, Some(x.len() as u64));
    let opts = DecoderOptions { verify: true };
    let mut dec = symphonia::default::get_codecs().make(&track.codec_params, &opts).unwrap();
    let mut y = Vec::new();
    while let Ok(packet) = format.next_packet() {
        let buf = dec.decode(&packet).unwrap();
        let mut s = SampleBuffer::<f32>::new(buf.capacity() as u64, *buf.spec());
        s.copy_interleaved_ref(buf);
        y.extend_from_slice(s.samples());
    }
    assert_eq!(y, quantized(&x));
    assert_eq!(dec.finalize().verify_ok, Some(true), "the MD5 in STREAMINFO is the samples'");
}

#[test]
fn mp3_decodes_to_the_input_after_lames_delay() {
    let x = signal(RATE);
    let whole = encode_all(AudioFormat::Mp3, RATE, &x).unwrap();
    let (streamed, first) = encode_streamed(AudioFormat::Mp3, RATE, &x);
    // LAME buffers internally, so the chunking does not change a bit of the stream.
    assert_eq!(whole, streamed, "mp3: streamed chunks differ from the one-shot encoding");
    assert!(!first.is_empty(), "mp3: 5000 samples gave no frame yet");
    let (y, rate) = symphonia_decode(whole.clone(), "mp3");
    assert_eq!(rate, RATE);
    // Find where the input starts in the decode: it must be LAME's documented delay.
    let (lag, corr) = best_lag(&y, &x, 3000);
    println!(
        "mp3: {} bytes, {} samples decoded for {}, lag {lag}, correlation {corr:.4}",
        whole.len(),
        y.len(),
        x.len()
    );
    assert!(lag.abs_diff(MP3_DELAY) <= 2, "mp3: the signal starts at {lag}, not LAME's {MP3_DELAY}");
    assert!(corr > 0.98, "mp3: correlation {corr}");
    // Duration: after the delay, the decode covers the whole input and the flush adds less
    // than one frame of padding beyond the frame that completes the encoder's delay line.
    let after = y.len() - lag;
    assert!(after >= x.len(), "mp3: {after} samples after the delay < {} input", x.len());
    assert!(after - x.len() < 2 * MP3_FRAME, "mp3: {} samples of padding", after - x.len());
    let rms = |v: &[f32]| (v.iter().map(|s| (*s as f64).powi(2)).sum::<f64>() / v.len() as f64).sqrt();
    let ratio = rms(&y[lag..lag + x.len()]) / rms(&x);
    assert!((0.9..1.1).contains(&ratio), "mp3: level changed by {ratio}");
}

#[test]
fn opus_in_ogg_decodes_to_the_exact_duration_at_48k() {
    for rate in [RATE, 16_000, 48_000] {
        let x = signal(rate);
        let whole = encode_all(AudioFormat::Opus, rate, &x).unwrap();
        let (streamed, first) = encode_streamed(AudioFormat::Opus, rate, &x);
        assert!(first.starts_with(b"OggS"));
        // Page boundaries follow the chunks, the packets do not.
        let (y, head_rate) = opus_decode(whole.clone());
        let (ys, _) = opus_decode(streamed.clone());
        assert_eq!(y, ys, "opus@{rate}: streamed packets differ from the one-shot encoding");
        assert_eq!(head_rate, rate, "OpusHead's input sample rate");
        let want_len = (x.len() as u64 * 48_000).div_ceil(rate as u64) as usize;
        // The granule positions record the length, so it is exact, not just within a frame.
        assert_eq!(y.len(), want_len, "opus@{rate}: duration");
        let x48 = gerbil::audio::resample::resample(&x, rate, 48_000).unwrap();
        let (lag, corr) = best_lag(&y, &x48, 200);
        println!(
            "opus@{rate}: {} bytes ({} streamed), {} samples, lag {lag}, correlation {corr:.4}",
            whole.len(),
            streamed.len(),
            y.len()
        );
        // The pre-skip is the encoder's lookahead, so the signal is aligned to the sample.
        assert!(lag <= 1, "opus@{rate}: the signal starts {lag} samples late");
        assert!(corr > 0.95, "opus@{rate}: correlation {corr}");
        // The upload decoder (audio/decode_opus.rs) reads our own output as this reference does.
        let up = gerbil::audio::decode(whole, Some("opus")).unwrap();
        assert_eq!((up.sample_rate, &up.samples), (48_000, &y), "opus@{rate}: gerbil::audio::decode");
    }
}

#[test]
fn first_streamed_chunk_is_not_held_back() {
    // A chunked response must put real bytes on the wire after the first sentence.
    let x = signal(RATE);
    for format in [AudioFormat::Wav, AudioFormat::Pcm, AudioFormat::Flac, AudioFormat::Mp3, AudioFormat::Opus] {
        let mut e = StreamEncoder::new(format, RATE).unwrap();
        let b = e.chunk(&x[..RATE as usize]).unwrap();
        // One second of audio is at least 60% of a second of the codec's bitrate.
        assert!(b.len() > 4000, "{format:?}: only {} bytes after one second", b.len());
    }
}

#[test]
fn aac_is_refused() {
    assert!(matches!(StreamEncoder::new(AudioFormat::Aac, RATE), Err(EncodeError::Unsupported("aac"))));
    assert!(!AudioFormat::Aac.supported());
}

/// The 44-byte RIFF/WAVE header, every field read by hand.
#[derive(Debug, PartialEq)]
struct WavHeader {
    riff_size: u32,
    fmt_size: u32,
    format_tag: u16,
    channels: u16,
    sample_rate: u32,
    byte_rate: u32,
    block_align: u16,
    bits_per_sample: u16,
    data_size: u32,
}

fn parse_wav_header(b: &[u8]) -> WavHeader {
    assert!(b.len() >= 44, "{} bytes", b.len());
    let u32_at = |i: usize| u32::from_le_bytes(b[i..i + 4].try_into().unwrap());
    let u16_at = |i: usize| u16::from_le_bytes(b[i..i + 2].try_into().unwrap());
    assert_eq!(&b[0..4], b"RIFF");
    assert_eq!(&b[8..12], b"WAVE");
    assert_eq!(&b[12..16], b"fmt ");
    assert_eq!(&b[36..40], b"data");
    WavHeader {
        riff_size: u32_at(4),
        fmt_size: u32_at(16),
        format_tag: u16_at(20),
        channels: u16_at(22),
        sample_rate: u32_at(24),
        byte_rate: u32_at(28),
        block_align: u16_at(32),
        bits_per_sample: u16_at(34),
        data_size: u32_at(40),
    }
}

/// What symphonia's WAV reader makes of a file: (rate, channels, bits, n_frames, samples).
fn symphonia_wav(bytes: Vec<u8>) -> (u32, usize, Option<u32>, Option<u64>, Vec<f32>) {
    let mss = MediaSourceStream::new(Box::new(Cursor::new(bytes)), Default::default());
    let probed = symphonia::default::get_probe()
        .format(Hint::new().with_extension("wav"), mss, &FormatOptions::default(), &MetadataOptions::default())
        .expect("symphonia reads the WAV");
    let mut format = probed.format;
    let track = format.default_track().expect("a track").clone();
    let p = &track.codec_params;
    let info = (p.sample_rate.expect("rate"), p.channels.expect("channels").count(), p.bits_per_sample, p.n_frames);
    let mut dec = symphonia::default::get_codecs().make(p, &DecoderOptions::default()).unwrap();
    let mut y = Vec::new();
    loop {
        let packet = match format.next_packet() {
            Ok(p) => p,
            Err(SymError::IoError(e)) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => panic!("wav: reading packets: {e}"),
        };
        let buf = dec.decode(&packet).unwrap();
        let mut s = SampleBuffer::<f32>::new(buf.capacity() as u64, *buf.spec());
        s.copy_interleaved_ref(buf);
        y.extend_from_slice(s.samples());
    }
    (info.0, info.1, info.2, info.3, y)
}

/// The WAV the encoder streams (sizes unknown: 0xFFFFFFFF) and the one `wav_header` writes for a
/// known length (`gerbil speak -o x.wav`), at several rates: every header field by hand, against
/// what PCM s16le mono at that rate must say (byte rate = rate * channels * bytes per sample,
/// block align = channels * bytes per sample), and the whole file through symphonia, to the sample.
#[test]
fn wav_header_fields_are_exact_and_symphonia_agrees() {
    const CHANNELS: u32 = 1;
    const BYTES: u32 = 2;
    for rate in [8000u32, 16_000, 22_050, 24_000, 44_100, 48_000] {
        let x = signal(rate);
        let n = x.len() as u32;
        let want = |riff_size: u32, data_size: u32| WavHeader {
            riff_size,
            fmt_size: 16,
            format_tag: 1, // WAVE_FORMAT_PCM
            channels: CHANNELS as u16,
            sample_rate: rate,
            byte_rate: rate * CHANNELS * BYTES,
            block_align: (CHANNELS * BYTES) as u16,
            bits_per_sample: (8 * BYTES) as u16,
            data_size,
        };
        let pcm = encode_all(AudioFormat::Pcm, rate, &x).unwrap();
        assert_eq!(pcm.len() as u32, n * CHANNELS * BYTES);

        // Streamed: "to the end" sizes, then exactly the PCM.
        let streamed = encode_all(AudioFormat::Wav, rate, &x).unwrap();
        assert_eq!(parse_wav_header(&streamed), want(u32::MAX, u32::MAX), "streamed header at {rate} Hz");
        assert_eq!(&streamed[44..], &pcm[..], "streamed data at {rate} Hz");
        let (r, ch, bits, _, y) = symphonia_wav(streamed);
        assert_eq!((r, ch, bits), (rate, 1, Some(16)), "streamed at {rate} Hz");
        assert_eq!(y.len(), x.len(), "streamed duration at {rate} Hz");
        assert_eq!(y, quantized(&x));

        // Known length: RIFF size = file - 8, data size = file - 44.
        let mut file = gerbil::audio::encode::wav_header(rate, Some(n)).to_vec();
        file.extend_from_slice(&pcm);
        let h = parse_wav_header(&file);
        assert_eq!(h, want(36 + n * BYTES, n * CHANNELS * BYTES), "sized header at {rate} Hz");
        assert_eq!(h.riff_size as usize, file.len() - 8);
        assert_eq!(h.data_size as usize, file.len() - 44);
        // The duration a player computes from the header (data / byte rate) is the signal's.
        assert_eq!(h.data_size as f64 / h.byte_rate as f64, n as f64 / rate as f64, "duration at {rate} Hz");
        assert_eq!(h.data_size / h.block_align as u32, n, "frames at {rate} Hz");
        let (r, ch, bits, frames, y) = symphonia_wav(file);
        assert_eq!((r, ch, bits, frames), (rate, 1, Some(16), Some(n as u64)), "sized at {rate} Hz");
        assert_eq!(y.len(), x.len(), "sized duration at {rate} Hz");
        assert_eq!(y, quantized(&x));
    }
    // An empty known-length file: sizes 36 and 0.
    let h = parse_wav_header(&gerbil::audio::encode::wav_header(16_000, Some(0)));
    assert_eq!((h.riff_size, h.data_size, h.byte_rate, h.block_align), (36, 0, 32_000, 2));
}
