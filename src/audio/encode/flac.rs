//! FLAC through flacenc, one fixed-size frame at a time so bytes leave as soon as a block
//! is full. The STREAMINFO block is written first, before the length, the frame sizes or
//! the MD5 are known; FLAC defines 0 as "unknown" for each, and decoders then read frames
//! to the end of the stream. Some readers (libsndfile, so Python's soundfile) refuse an
//! unknown length: a file download is therefore encoded whole at the end (`FlacStream::file`),
//! its STREAMINFO complete.

use flacenc::bitsink::ByteSink;
use flacenc::component::{BitRepr, Stream, StreamInfo};
use flacenc::error::{Verified, Verify};
use flacenc::source::{Fill, FrameBuf};

use super::{to_i16, EncodeError};

/// Samples per FLAC frame: the reference encoder's default at this rate.
pub const BLOCK: usize = 4096;
const BITS: usize = 16;

pub struct FlacStream {
    config: Verified<flacenc::config::Encoder>,
    info: StreamInfo,
    buf: FrameBuf,
    pending: Vec<i32>,
    frame_number: usize,
    header_sent: bool,
    /// Every sample, for an encoding at `finish` (`file`); None when streaming frames.
    whole: Option<Vec<i32>>,
}

fn err(e: impl std::fmt::Debug) -> EncodeError {
    EncodeError::codec("flac", format!("{e:?}"))
}

impl FlacStream {
    pub fn new(rate: u32) -> Result<Self, EncodeError> {
        let config = flacenc::config::Encoder::default().into_verified().map_err(|(_, e)| err(e))?;
        let mut info = StreamInfo::new(rate as usize, 1, BITS).map_err(err)?;
        // Every block but the last is BLOCK long (FLAC lets the last one be shorter than
        // min_block_size); frame sizes 0 = unknown. total_samples and md5 stay 0 = unknown.
        info.set_block_sizes(BLOCK, BLOCK).map_err(err)?;
        info.set_frame_sizes(0, 0).map_err(err)?;
        let buf = FrameBuf::with_size(1, BLOCK).map_err(err)?;
        Ok(FlacStream {
            config,
            info,
            buf,
            pending: Vec::with_capacity(BLOCK),
            frame_number: 0,
            header_sent: false,
            whole: None,
        })
    }

    /// Nothing until `finish`, which gives the whole file with its length and MD5 in STREAMINFO.
    pub fn file(rate: u32) -> Result<Self, EncodeError> {
        Ok(FlacStream { whole: Some(Vec::new()), ..Self::new(rate)? })
    }

    /// The streamed header (fLaC + STREAMINFO) with the first bytes out, then nothing.
    fn header(&mut self) -> Result<Vec<u8>, EncodeError> {
        if std::mem::replace(&mut self.header_sent, true) {
            return Ok(Vec::new());
        }
        let mut sink = ByteSink::new();
        Stream::with_stream_info(self.info.clone()).write(&mut sink).map_err(err)?;
        Ok(sink.as_slice().to_vec())
    }

    fn frame(&mut self, out: &mut Vec<u8>) -> Result<(), EncodeError> {
        self.buf.fill_interleaved(&self.pending).map_err(err)?;
        let frame =
            flacenc::encode_fixed_size_frame(&self.config, &self.buf, self.frame_number, &self.info).map_err(err)?;
        let mut sink = ByteSink::new();
        frame.write(&mut sink).map_err(err)?;
        out.extend_from_slice(sink.as_slice());
        self.frame_number += 1;
        self.pending.clear();
        Ok(())
    }

    pub fn push(&mut self, samples: &[f32]) -> Result<Vec<u8>, EncodeError> {
        if let Some(all) = &mut self.whole {
            all.extend(samples.iter().map(|&s| to_i16(s) as i32));
            return Ok(Vec::new());
        }
        let mut out = self.header()?;
        for &s in samples {
            self.pending.push(to_i16(s) as i32);
            if self.pending.len() == BLOCK {
                self.frame(&mut out)?;
            }
        }
        Ok(out)
    }

    pub fn finish(&mut self) -> Result<Vec<u8>, EncodeError> {
        if let Some(all) = self.whole.take() {
            let src = flacenc::source::MemSource::from_samples(&all, 1, BITS, self.info.sample_rate());
            let mut stream = flacenc::encode_with_fixed_block_size(&self.config, src, BLOCK).map_err(err)?;
            // flacenc counts the short last block in the minimum; FLAC's minimum leaves it out,
            // and readers take min == max to mean fixed-size frames numbered by frame, not sample.
            stream.stream_info_mut().set_block_sizes(BLOCK, BLOCK).map_err(err)?;
            let mut sink = ByteSink::new();
            stream.write(&mut sink).map_err(err)?;
            return Ok(sink.as_slice().to_vec());
        }
        let mut out = self.header()?;
        if !self.pending.is_empty() {
            self.frame(&mut out)?;
        }
        Ok(out)
    }
}
