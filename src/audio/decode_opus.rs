//! Opus uploads, which symphonia does not decode: Ogg Opus (RFC 7845: OpenAI's and gerbil's own
//! `opus` output, voice notes) and WebM / Matroska with an Opus track (what browsers'
//! MediaRecorder makes). The container gives packets (the `ogg` and `matroska-demuxer` crates),
//! libopus decodes them at 48 kHz, the header's pre-skip is dropped and channels are averaged.

use std::io::Cursor;

use gerbil_opus as opus;

use super::pcm::{too_long, Pcm, MAX_SECONDS};
use super::AudioError;

/// libopus always decodes at this rate (the header's input rate is informational).
const OPUS_RATE: u32 = 48_000;
/// The longest Opus packet: 120 ms at 48 kHz, per channel.
const MAX_FRAME: usize = 5760;
/// Most decoded audio accepted: a packet of a few bytes decodes to up to 120 ms, so a 25 MiB
/// upload could otherwise ask for hundreds of gigabytes.
const MAX_SAMPLES: usize = MAX_SECONDS * OPUS_RATE as usize;

/// The container an upload's first bytes name, where it may hold Opus.
pub fn sniff(bytes: &[u8]) -> Option<Container> {
    if bytes.starts_with(b"OggS") && bytes.windows(8).take(80).any(|w| w == b"OpusHead") {
        Some(Container::Ogg)
    } else if bytes.starts_with(&[0x1A, 0x45, 0xDF, 0xA3]) {
        Some(Container::Matroska)
    } else {
        None
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    Ogg,
    Matroska,
}

pub fn decode(bytes: Vec<u8>, container: Container) -> Result<Pcm, AudioError> {
    match container {
        Container::Ogg => decode_ogg(bytes),
        Container::Matroska => decode_matroska(bytes),
    }
}

/// The fields of an `OpusHead` packet (RFC 7845 section 5.1) the decoder needs.
struct OpusHead {
    channels: usize,
    pre_skip: usize,
    /// Output gain as a linear factor.
    gain: f32,
}

fn parse_head(p: &[u8]) -> Result<OpusHead, AudioError> {
    if p.len() < 19 || &p[..8] != b"OpusHead" || p[8] >> 4 != 0 {
        return Err(AudioError::Corrupt("the Opus stream does not start with a version 0 OpusHead header".into()));
    }
    let channels = p[9] as usize;
    check_channels(channels)?;
    // Mapping family 0 is one stream; another family is decodable here only as one stream too.
    if p[18] != 0 && (p.len() < 21 + channels || p[19] != 1 || p[20] as usize != channels - 1) {
        return Err(AudioError::Unsupported(format!(
            "Opus with channel mapping family {} over several streams (one mono or stereo stream is supported)",
            p[18]
        )));
    }
    let pre_skip = u16::from_le_bytes([p[10], p[11]]) as usize;
    let gain_q8 = i16::from_le_bytes([p[16], p[17]]);
    Ok(OpusHead { channels, pre_skip, gain: 10f32.powf(gain_q8 as f32 / (20.0 * 256.0)) })
}

fn check_channels(channels: usize) -> Result<(), AudioError> {
    if (1..=2).contains(&channels) {
        Ok(())
    } else {
        Err(AudioError::Unsupported(format!("Opus with {channels} channels (mono and stereo are supported)")))
    }
}

/// Decodes one stream's packets into mono 48 kHz, dropping the pre-skip.
struct OpusMono {
    decoder: opus::Decoder,
    head: OpusHead,
    frame: Vec<f32>,
    samples: Vec<f32>,
    /// Samples decoded, pre-skip included.
    decoded: usize,
    /// Packets libopus refused.
    bad: usize,
}

impl OpusMono {
    fn new(head: OpusHead) -> Result<Self, AudioError> {
        check_channels(head.channels)?;
        let ch = if head.channels == 2 { opus::Channels::Stereo } else { opus::Channels::Mono };
        let decoder = opus::Decoder::new(OPUS_RATE, ch).map_err(|e| AudioError::Corrupt(format!("libopus: {e}")))?;
        Ok(OpusMono {
            decoder,
            frame: vec![0.0; MAX_FRAME * head.channels],
            head,
            samples: Vec::new(),
            decoded: 0,
            bad: 0,
        })
    }

    /// `before`: samples of earlier chained streams, which count against MAX_SAMPLES too.
    fn packet(&mut self, packet: &[u8], before: usize) -> Result<(), AudioError> {
        // An empty packet asks libopus to conceal a lost one: 120 ms out of nothing. Skip it.
        if packet.is_empty() {
            return Ok(());
        }
        if before + self.samples.len() > MAX_SAMPLES {
            return Err(too_long());
        }
        let ch = self.head.channels;
        match self.decoder.decode_float(packet, &mut self.frame, false) {
            Ok(n) => {
                for f in self.frame[..n * ch].chunks(ch) {
                    if self.decoded >= self.head.pre_skip {
                        self.samples.push(f.iter().sum::<f32>() / ch as f32 * self.head.gain);
                    }
                    self.decoded += 1;
                }
            }
            // A damaged packet: skip it, as players do; all-damaged input is an error below.
            Err(_) => self.bad += 1,
        }
        Ok(())
    }

    /// The stream's samples. `end`: the granule position of its last page (pre-skip included),
    /// where the container gives one; one past what decoded (a bogus value) is ignored.
    fn finish(mut self, end: Option<u64>) -> Vec<f32> {
        let total = end.and_then(|g| usize::try_from(g).ok()?.checked_sub(self.head.pre_skip));
        if let Some(t) = total.filter(|&t| t <= self.samples.len()) {
            self.samples.truncate(t);
        }
        self.samples
    }
}

/// Decoded samples as a Pcm, or why there are none.
fn pcm(samples: Vec<f32>, bad: usize) -> Result<Pcm, AudioError> {
    match (samples.is_empty(), bad) {
        (true, 0) => Err(AudioError::Empty),
        (true, bad) => Err(AudioError::Corrupt(format!("none of {bad} Opus packets decoded"))),
        (false, _) => Ok(Pcm { samples, sample_rate: OPUS_RATE }),
    }
}

/// One logical Ogg stream being decoded.
struct OggStream {
    serial: u32,
    opus: OpusMono,
    packets: usize,
    /// The granule position of its last page so far.
    end: Option<u64>,
}

/// Ogg Opus, chained streams included (`cat a.opus b.opus`, stream dumps): each logical stream
/// starts with its own OpusHead (its pre-skip) and ends at its own last granule position
/// (RFC 7845 section 4.4); their audio is joined.
fn decode_ogg(bytes: Vec<u8>) -> Result<Pcm, AudioError> {
    let mut reader = ogg::PacketReader::new(Cursor::new(bytes));
    let corrupt = |e: ogg::OggReadError| match e {
        ogg::OggReadError::ReadError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            AudioError::Corrupt("the file ends in the middle of an Ogg page".into())
        }
        e => AudioError::Corrupt(format!("Ogg: {e}")),
    };
    let (mut joined, mut bad) = (Vec::new(), 0);
    let mut current: Option<OggStream> = None;
    loop {
        let packet = match reader.read_packet() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            // A truncated tail: keep what decoded.
            Err(_) if !joined.is_empty() || current.as_ref().is_some_and(|c| !c.opus.samples.is_empty()) => break,
            Err(e) => return Err(corrupt(e)),
        };
        if packet.first_in_stream() && packet.data.starts_with(b"OpusHead") {
            if let Some(done) = current.take() {
                bad += done.opus.bad;
                joined.extend(done.opus.finish(done.end));
            }
            let opus = OpusMono::new(parse_head(&packet.data)?)?;
            current = Some(OggStream { serial: packet.stream_serial(), opus, packets: 0, end: None });
            continue;
        }
        let Some(s) = current.as_mut() else {
            return Err(AudioError::Corrupt("the Ogg file's first stream is not Opus".into()));
        };
        // Another multiplexed stream (say, a video track) is not ours.
        if packet.stream_serial() != s.serial {
            continue;
        }
        s.packets += 1;
        // The stream's second packet is OpusTags (comments).
        if s.packets == 1 {
            continue;
        }
        s.opus.packet(&packet.data, joined.len())?;
        if packet.last_in_page() {
            s.end = Some(packet.absgp_page());
        }
    }
    if let Some(done) = current {
        bad += done.opus.bad;
        joined.extend(done.opus.finish(done.end));
    }
    pcm(joined, bad)
}

fn decode_matroska(bytes: Vec<u8>) -> Result<Pcm, AudioError> {
    let corrupt = |e: matroska_demuxer::DemuxError| AudioError::Corrupt(format!("WebM/Matroska: {}", describe(e)));
    super::matroska_check::check(&bytes).map_err(|why| AudioError::Unsupported(format!("WebM/Matroska: {why}")))?;
    let mut file = matroska_demuxer::MatroskaFile::open(Cursor::new(bytes)).map_err(corrupt)?;
    let track = file
        .tracks()
        .iter()
        .find(|t| t.track_type() == matroska_demuxer::TrackType::Audio)
        .ok_or_else(|| AudioError::Unsupported("the WebM/Matroska file has no audio track".into()))?;
    if track.codec_id() != "A_OPUS" {
        return Err(AudioError::Unsupported(format!(
            "WebM/Matroska audio in {} (Opus is supported)",
            track.codec_id()
        )));
    }
    let number = track.track_number().get();
    let head = match track.codec_private() {
        Some(private) => parse_head(private)?,
        // Without CodecPrivate, the track's channel count and CodecDelay (ns) stand in for it.
        None => OpusHead {
            channels: track.audio().map_or(1, |a| a.channels().get() as usize),
            pre_skip: track.codec_delay().map_or(0, |ns| (ns as u128 * OPUS_RATE as u128 / 1_000_000_000) as usize),
            gain: 1.0,
        },
    };
    let mut opus = OpusMono::new(head)?;
    let mut frame = matroska_demuxer::Frame::default();
    loop {
        match file.next_frame(&mut frame) {
            Ok(true) => {}
            Ok(false) => break,
            // A recording cut off mid-cluster: keep what decoded.
            Err(_) if !opus.samples.is_empty() => break,
            Err(e) => return Err(corrupt(e)),
        }
        if frame.track == number {
            opus.packet(&frame.data, 0)?;
        }
    }
    let bad = opus.bad;
    pcm(opus.finish(None), bad)
}

/// matroska-demuxer's Display prints an I/O error's source (often `None`), not the error.
fn describe(e: matroska_demuxer::DemuxError) -> String {
    match e {
        matroska_demuxer::DemuxError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the file ends early (an element it announces is cut off)".into()
        }
        matroska_demuxer::DemuxError::IoError(io) => io.to_string(),
        e => e.to_string(),
    }
}
