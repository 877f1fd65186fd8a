//! Long audio for Moonshine: an energy voice-activity detector cuts the clip
//! at silences into chunks the model handles well. Moonshine has no fixed
//! window (rotary positions, raw samples), but it was trained on single
//! utterances of up to about 30 s, and two things go wrong past that:
//! - it loops or drops words on long chunks, so speech regions are merged
//!   only up to `MAX_CHUNK_S`, a region with no pause being cut at its
//!   quietest 10 ms frame in the second half of the window;
//! - a chunk whose speech is followed by a long pause often decodes to
//!   nothing at all: the model sees the utterance end and emits end-of-text
//!   first (measured on beckett.wav tiled with 1 s of silence between copies:
//!   13.4 s starting with "Fail better" then the pause -> no tokens, with the
//!   reference onnxruntime model too; each sentence alone transcribes). So
//!   regions are never merged across a pause of `SPLIT_PAUSE_S` or more.
//!
//! Silent stretches are never decoded (Moonshine hallucinates on silence).

/// 10 ms analysis frames at 16 kHz.
pub const FRAME: usize = 160;
pub const RATE: usize = 16000;
/// Longest chunk handed to the model, seconds.
pub const MAX_CHUNK_S: f64 = 20.0;
/// Shortest pause that may separate chunks, seconds.
pub const MIN_SILENCE_S: f64 = 0.3;
/// Pauses at least this long always separate chunks, seconds.
pub const SPLIT_PAUSE_S: f64 = 0.8;
/// Silence kept around speech at a cut, seconds (word onsets and tails are soft).
const PAD_S: f64 = 0.15;
/// Speech shorter than this (clicks) is ignored, seconds.
const MIN_SPEECH_S: f64 = 0.05;
/// Frame RMS below this is silence whatever the clip's level (about -50 dBFS).
const ABS_FLOOR: f32 = 0.003;

/// Per-frame RMS.
pub fn frame_rms(audio: &[f32]) -> Vec<f32> {
    audio.chunks(FRAME).map(|f| (f.iter().map(|v| v * v).sum::<f32>() / f.len() as f32).sqrt()).collect()
}

/// The speech/silence threshold: a tenth of the way from the clip's noise
/// floor (10th percentile of frame RMS) to its loud level (95th percentile),
/// and at most half the loud level (so a clip without pauses, where floor and
/// loud meet, is all speech), never below `ABS_FLOOR`.
pub fn threshold(rms: &[f32]) -> f32 {
    if rms.is_empty() {
        return ABS_FLOOR;
    }
    let mut s = rms.to_vec();
    s.sort_by(f32::total_cmp);
    let pct = |p: f64| s[((s.len() - 1) as f64 * p) as usize];
    let (floor, loud) = (pct(0.10), pct(0.95));
    (floor + 0.1 * (loud - floor)).min(0.5 * loud).max(ABS_FLOOR)
}

/// Speech regions [start, end) in frames: runs above the threshold, with
/// pauses shorter than `MIN_SILENCE_S` bridged and blips dropped.
pub fn speech_regions(rms: &[f32]) -> Vec<(usize, usize)> {
    let thr = threshold(rms);
    let min_gap = (MIN_SILENCE_S * 100.0).round() as usize;
    let min_speech = (MIN_SPEECH_S * 100.0).round() as usize;
    let mut regions: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < rms.len() {
        if rms[i] <= thr {
            i += 1;
            continue;
        }
        let start = i;
        while i < rms.len() && rms[i] > thr {
            i += 1;
        }
        match regions.last_mut() {
            Some(last) if start - last.1 < min_gap => last.1 = i,
            _ => regions.push((start, i)),
        }
    }
    regions.retain(|(s, e)| e - s >= min_speech);
    regions
}

/// Chunks [start, end) in samples covering the speech of `audio`, each at
/// most `MAX_CHUNK_S` long, in order and non-overlapping.
pub fn chunks(audio: &[f32]) -> Vec<(usize, usize)> {
    let rms = frame_rms(audio);
    let max = (MAX_CHUNK_S * 100.0) as usize;
    let pad = (PAD_S * 100.0) as usize;
    // Split regions longer than the maximum at their quietest frame.
    let mut regions = Vec::new();
    let limit = max - 2 * pad;
    for (mut s, e) in speech_regions(&rms) {
        while e - s > limit {
            let cut = (s + limit / 2..s + limit).min_by(|&a, &b| rms[a].total_cmp(&rms[b])).unwrap_or(s + limit);
            regions.push((s, cut));
            s = cut;
        }
        regions.push((s, e));
    }
    // Merge neighbours across short pauses while the merged span (with padding) fits.
    let split = (SPLIT_PAUSE_S * 100.0).round() as usize;
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (s, e) in regions {
        match merged.last_mut() {
            Some(last) if s - last.1 < split && e - last.0 + 2 * pad <= max => last.1 = e,
            _ => merged.push((s, e)),
        }
    }
    // Pad into the surrounding silence, at most halfway to a neighbour.
    let n_frames = rms.len();
    let mut out = Vec::with_capacity(merged.len());
    for (i, &(s, e)) in merged.iter().enumerate() {
        let lo = if i == 0 { 0 } else { (merged[i - 1].1 + s).div_ceil(2) };
        let hi = merged.get(i + 1).map_or(n_frames, |m| (e + m.0) / 2);
        let (s, e) = (s.saturating_sub(pad).max(lo), (e + pad).min(hi));
        out.push((s * FRAME, (e * FRAME).min(audio.len())));
    }
    out
}
