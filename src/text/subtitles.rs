//! Transcript renderings: SubRip (srt) and WebVTT.

use super::transcript::Segment;

fn stamp(t: f64, sep: char) -> String {
    let ms = (t.max(0.0) * 1000.0).round() as u64;
    let (h, m, s, ms) = (ms / 3_600_000, (ms / 60_000) % 60, (ms / 1000) % 60, ms % 1000);
    format!("{h:02}:{m:02}:{s:02}{sep}{ms:03}")
}

/// SubRip: numbered cues from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`.
pub fn srt(segments: &[Segment]) -> String {
    let mut out = String::new();
    for (i, s) in segments.iter().enumerate() {
        out.push_str(&format!("{}\n{} --> {}\n{}\n\n", i + 1, stamp(s.start, ','), stamp(s.end, ','), s.text.trim()));
    }
    out
}

/// WebVTT: a `WEBVTT` header, then `HH:MM:SS.mmm --> HH:MM:SS.mmm` cues.
pub fn vtt(segments: &[Segment]) -> String {
    let mut out = String::from("WEBVTT\n\n");
    for s in segments {
        out.push_str(&format!("{} --> {}\n{}\n\n", stamp(s.start, '.'), stamp(s.end, '.'), s.text.trim()));
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamps() {
        assert_eq!(super::stamp(3725.0456, ','), "01:02:05,046");
        assert_eq!(super::stamp(0.0, '.'), "00:00:00.000");
    }
}
