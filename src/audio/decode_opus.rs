//! Opus uploads, which symphonia does not decode: Ogg Opus (RFC 7845: OpenAI's and gerbil's own
//! `opus` output, voice notes) and WebM / Matroska with an Opus track (what browsers'
//! MediaRecorder makes). The container gives packets (the `ogg` and `matroska-demuxer` crates),
//! libopus decodes them at 48 kHz, the header's pre-skip is dropped and channels are averaged.

use std::io::Cursor;

use super::decode::Pcm;
use super::AudioError;

/// libopus always decodes at this rate (the header's input rate is informational).
const OPUS_RATE: u32 = 48_000;
/// The longest Opus packet: 120 ms at 48 kHz, per channel.
const MAX_FRAME: usize = 5760;

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
    if p.len() < 19 || &p[..8] != b"OpusHead" {
        return Err(AudioError::Corrupt("the Opus stream does not start with an OpusHead header".into()));
    }
    let channels = p[9] as usize;
    if !(1..=2).contains(&channels) {
        return Err(AudioError::Unsupported(format!("Opus with {channels} channels (mono and stereo are supported)")));
    }
    let pre_skip = u16::from_le_bytes([p[10], p[11]]) as usize;
    let gain_q8 = i16::from_le_bytes([p[16], p[17]]);
    Ok(OpusHead { channels, pre_skip, gain: 10f32.powf(gain_q8 as f32 / (20.0 * 256.0)) })
}

/// Decodes packets into mono 48 kHz, dropping the pre-skip and keeping at most `keep` samples.
struct OpusMono {
    decoder: opus::Decoder,
    head: OpusHead,
    frame: Vec<f32>,
    samples: Vec<f32>,
    decoded: usize,
    bad: usize,
}

impl OpusMono {
    fn new(head: OpusHead) -> Result<Self, AudioError> {
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

    fn packet(&mut self, packet: &[u8]) {
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
    }

    /// `total`: the stream's length in samples after the pre-skip, where the container says.
    fn finish(mut self, total: Option<usize>) -> Result<Pcm, AudioError> {
        if let Some(t) = total {
            self.samples.truncate(t);
        }
        if self.samples.is_empty() {
            return Err(if self.bad > 0 {
                AudioError::Corrupt(format!("none of {} Opus packets decoded", self.bad))
            } else {
                AudioError::Empty
            });
        }
        Ok(Pcm { samples: self.samples, sample_rate: OPUS_RATE })
    }
}

fn decode_ogg(bytes: Vec<u8>) -> Result<Pcm, AudioError> {
    let mut reader = ogg::PacketReader::new(Cursor::new(bytes));
    let corrupt = |e: ogg::OggReadError| match e {
        ogg::OggReadError::ReadError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            AudioError::Corrupt("the file ends in the middle of an Ogg page".into())
        }
        e => AudioError::Corrupt(format!("Ogg: {e}")),
    };
    let first = reader.read_packet().map_err(corrupt)?.ok_or(AudioError::Empty)?;
    let serial = first.stream_serial();
    let mut opus = OpusMono::new(parse_head(&first.data)?)?;
    let pre_skip = opus.head.pre_skip;
    let mut index = 0;
    let mut last_granule = None;
    loop {
        let packet = match reader.read_packet() {
            Ok(Some(p)) => p,
            Ok(None) => break,
            // A truncated tail: keep what decoded.
            Err(_) if opus.decoded > 0 => break,
            Err(e) => return Err(corrupt(e)),
        };
        if packet.stream_serial() != serial {
            continue;
        }
        index += 1;
        // The second packet is OpusTags (comments).
        if index == 1 {
            continue;
        }
        opus.packet(&packet.data);
        if packet.last_in_page() {
            last_granule = Some(packet.absgp_page());
        }
    }
    // The last page's granule position counts the samples to play, pre-skip included (RFC 7845 4.4).
    let total = last_granule.map(|g| (g as usize).saturating_sub(pre_skip));
    opus.finish(total)
}

fn decode_matroska(bytes: Vec<u8>) -> Result<Pcm, AudioError> {
    let corrupt = |e: matroska_demuxer::DemuxError| AudioError::Corrupt(format!("WebM/Matroska: {}", describe(e)));
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
            pre_skip: track.codec_delay().map_or(0, |ns| (ns * OPUS_RATE as u64 / 1_000_000_000) as usize),
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
            Err(_) if opus.decoded > 0 => break,
            Err(e) => return Err(corrupt(e)),
        }
        if frame.track == number {
            opus.packet(&frame.data);
        }
    }
    opus.finish(None)
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
