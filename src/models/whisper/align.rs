//! Word timestamps from cross-attention, as OpenAI whisper's `timing.py` does
//! them: the alignment heads' attention over the audio frames in a
//! teacher-forced pass of the window's text, softmaxed over the frames the
//! window holds, standardised per frame, median-filtered along time, averaged
//! over heads, then a dynamic time warping path between text tokens and 20 ms
//! encoder frames. Word boundaries come from where the path enters each
//! word's first token.

/// Encoder frames per second of audio (two mel hops of 10 ms each).
pub const FRAMES_PER_SECOND: f64 = 50.0;
/// Median filter width along time (OpenAI's `medfilt_width`).
pub const MEDIAN_WIDTH: usize = 7;
const PREPEND_PUNCTUATION: &str = "\"'“¿([{-";
const APPEND_PUNCTUATION: &str = "\"'.。,，!！?？:：”)]}、";
const ASCII_PUNCTUATION: &str = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

/// One word with its tokens and its time in seconds from the window start.
#[derive(Debug, Clone, PartialEq)]
pub struct WordTiming {
    pub word: String,
    pub tokens: Vec<u32>,
    pub start: f64,
    pub end: f64,
}

/// In-place softmax of each row of `x` ([rows, cols]).
fn softmax_rows(x: &mut [f32], cols: usize) {
    for row in x.chunks_mut(cols) {
        let mx = row.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let mut sum = 0.0f64;
        for v in row.iter_mut() {
            *v = (*v - mx).exp();
            sum += *v as f64;
        }
        row.iter_mut().for_each(|v| *v = (*v as f64 / sum) as f32);
    }
}

/// Each column of `x` ([rows, cols]) to zero mean and unit (population) variance over the rows.
fn standardize_columns(x: &mut [f32], rows: usize, cols: usize) {
    for c in 0..cols {
        let mean = (0..rows).map(|r| x[r * cols + c] as f64).sum::<f64>() / rows as f64;
        let var = (0..rows).map(|r| (x[r * cols + c] as f64 - mean).powi(2)).sum::<f64>() / rows as f64;
        let std = var.sqrt();
        for r in 0..rows {
            x[r * cols + c] = ((x[r * cols + c] as f64 - mean) / std) as f32;
        }
    }
}

/// Median over a window of `width` (odd) along each row of `x` ([rows,
/// cols]), reflect-padded at the ends like torch's `F.pad(mode="reflect")`;
/// rows no longer than width / 2 are returned unchanged (as OpenAI does).
pub fn median_filter_rows(x: &[f32], cols: usize, width: usize) -> Vec<f32> {
    let pad = width / 2;
    if cols <= pad {
        return x.to_vec();
    }
    let reflect = |i: isize| -> usize {
        let n = cols as isize;
        let j = if i < 0 {
            -i
        } else if i >= n {
            2 * (n - 1) - i
        } else {
            i
        };
        j as usize
    };
    let mut out = Vec::with_capacity(x.len());
    let mut win = vec![0f32; width];
    for row in x.chunks(cols) {
        for c in 0..cols as isize {
            for (k, w) in win.iter_mut().enumerate() {
                *w = row[reflect(c - pad as isize + k as isize)];
            }
            win.sort_by(f32::total_cmp);
            out.push(win[pad]);
        }
    }
    out
}

/// Dynamic time warping over `cost` ([n, m]); returns the path as (text
/// index, time index) pairs from the start, exactly as OpenAI's `dtw_cpu` +
/// `backtrace` (ties prefer a step along time; indices of -1 where the path
/// runs along an edge).
pub fn dtw(cost: &[f32], n: usize, m: usize) -> Vec<(isize, isize)> {
    let w = m + 1;
    let mut acc = vec![f32::INFINITY; (n + 1) * w];
    let mut trace = vec![-1i8; (n + 1) * w];
    acc[0] = 0.0;
    for j in 1..=m {
        for i in 1..=n {
            let (c0, c1, c2) = (acc[(i - 1) * w + j - 1], acc[(i - 1) * w + j], acc[i * w + j - 1]);
            let (c, t) = if c0 < c1 && c0 < c2 {
                (c0, 0)
            } else if c1 < c0 && c1 < c2 {
                (c1, 1)
            } else {
                (c2, 2)
            };
            acc[i * w + j] = cost[(i - 1) * m + j - 1] + c;
            trace[i * w + j] = t;
        }
    }
    trace[..w].fill(2);
    for i in 0..=n {
        trace[i * w] = 1;
    }
    let (mut i, mut j) = (n, m);
    let mut path = Vec::new();
    while i > 0 || j > 0 {
        path.push((i as isize - 1, j as isize - 1));
        match trace[i * w + j] {
            0 => {
                i -= 1;
                j -= 1;
            }
            1 => i -= 1,
            _ => j -= 1,
        }
    }
    path.reverse();
    path
}

/// The tokens of `tokens` grouped into words the way OpenAI's
/// `split_tokens_on_spaces` does: subwords that decode to whole characters,
/// a new word at a leading space, a special token or punctuation.
/// `decode` turns token ids into text (special tokens included).
pub fn split_words(tokens: &[u32], eot: u32, decode: &dyn Fn(&[u32]) -> String) -> Vec<(String, Vec<u32>)> {
    let full = decode(tokens);
    let full: Vec<char> = full.chars().collect();
    let mut subwords: Vec<(String, Vec<u32>)> = Vec::new();
    let (mut current, mut offset) = (Vec::new(), 0usize);
    for &t in tokens {
        current.push(t);
        let text = decode(&current);
        let chars: Vec<char> = text.chars().collect();
        let complete = match chars.iter().position(|&c| c == '\u{fffd}') {
            None => true,
            Some(p) => full.get(offset + p) == Some(&'\u{fffd}'),
        };
        if complete {
            offset += chars.len();
            subwords.push((text, std::mem::take(&mut current)));
        }
    }
    let mut words: Vec<(String, Vec<u32>)> = Vec::new();
    for (sub, toks) in subwords {
        let special = toks[0] >= eot;
        let spaced = sub.starts_with(' ');
        let trimmed = sub.trim();
        let punctuation = !trimmed.is_empty() && trimmed.chars().all(|c| ASCII_PUNCTUATION.contains(c));
        match words.last_mut() {
            Some(last) if !(special || spaced || punctuation) => {
                last.0.push_str(&sub);
                last.1.extend(toks);
            }
            _ => words.push((sub, toks)),
        }
    }
    words
}

/// OpenAI's `merge_punctuations`: opening marks join the following word,
/// closing marks the preceding one (the merged-away entry keeps no word and no tokens).
pub fn merge_punctuation(words: &mut [WordTiming]) {
    if words.len() < 2 {
        return;
    }
    let (mut i, mut j) = (words.len() as isize - 2, words.len() - 1);
    while i >= 0 {
        let iu = i as usize;
        let prev = &words[iu];
        // `contains` on strings is a substring test, as Python's `in` is there.
        if prev.word.starts_with(' ') && PREPEND_PUNCTUATION.contains(prev.word.trim()) {
            let (word, tokens) = (std::mem::take(&mut words[iu].word), std::mem::take(&mut words[iu].tokens));
            words[j].word = word + &words[j].word;
            words[j].tokens.splice(0..0, tokens);
        } else {
            j = iu;
        }
        i -= 1;
    }
    let (mut i, mut j) = (0usize, 1usize);
    while j < words.len() {
        let follow = &words[j].word;
        if !words[i].word.ends_with(' ') && APPEND_PUNCTUATION.contains(follow.as_str()) {
            let (word, tokens) = (std::mem::take(&mut words[j].word), std::mem::take(&mut words[j].tokens));
            words[i].word.push_str(&word);
            words[i].tokens.extend(tokens);
        } else {
            i = j;
        }
        j += 1;
    }
}

/// Word timings of `text` (the window's text tokens, no timestamps) from
/// `weights`: per alignment head the attention logits [rows, frames] of a
/// pass over sot sequence (`sot_len` tokens) + no_timestamps + text + eot,
/// already cut to the frames the window's audio fills.
pub fn find_alignment(
    weights: Vec<Vec<f32>>,
    frames: usize,
    sot_len: usize,
    text: &[u32],
    eot: u32,
    decode: &dyn Fn(&[u32]) -> String,
) -> Vec<WordTiming> {
    let rows = sot_len + text.len() + 2;
    if text.is_empty() || frames == 0 || weights.is_empty() {
        return Vec::new();
    }
    let mut mean = vec![0f32; rows * frames];
    let heads = weights.len() as f32;
    for mut w in weights {
        assert_eq!(w.len(), rows * frames, "alignment weights are [rows, frames]");
        softmax_rows(&mut w, frames);
        standardize_columns(&mut w, rows, frames);
        let w = median_filter_rows(&w, frames, MEDIAN_WIDTH);
        mean.iter_mut().zip(&w).for_each(|(m, v)| *m += v / heads);
    }
    // Rows from the no_timestamps query (it predicts the first text token) to the last text token's.
    let n = text.len() + 1;
    let cost: Vec<f32> = mean[sot_len * frames..(sot_len + n) * frames].iter().map(|v| -v).collect();
    let path = dtw(&cost, n, frames);
    // The time at which the path first reaches each text index.
    let mut jump_times = Vec::with_capacity(n);
    let mut last = None;
    for &(ti, fi) in &path {
        if last != Some(ti) {
            jump_times.push(fi as f64 / FRAMES_PER_SECOND);
            last = Some(ti);
        }
    }
    let mut with_eot = text.to_vec();
    with_eot.push(eot);
    let words = split_words(&with_eot, eot, decode);
    let mut out = Vec::new();
    let mut boundary = 0usize;
    for (word, tokens) in words.into_iter().take_while(|(_, t)| t[0] < eot) {
        let end = boundary + tokens.len();
        let at = |i: usize| jump_times.get(i).or(jump_times.last()).copied().unwrap_or(0.0);
        out.push(WordTiming { word, tokens, start: at(boundary), end: at(end) });
        boundary = end;
    }
    out
}

/// OpenAI's hack for words that DTW stretched over a pause: at a sentence
/// mark, a word longer than twice the median word (capped at 0.7 s) is cut
/// to that length. Runs before [`merge_punctuation`], as there. Returns
/// (median, max) word duration.
pub fn clamp_long_words(words: &mut [WordTiming]) -> (f64, f64) {
    let mut durations: Vec<f64> = words.iter().map(|w| w.end - w.start).filter(|d| *d != 0.0).collect();
    if durations.is_empty() {
        return (0.0, 0.0);
    }
    durations.sort_by(f64::total_cmp);
    let k = durations.len();
    let median = if k % 2 == 1 { durations[k / 2] } else { (durations[k / 2 - 1] + durations[k / 2]) / 2.0 };
    let median = median.min(0.7);
    let max = median * 2.0;
    const SENTENCE_END: &str = ".。!！?？";
    for i in 1..words.len() {
        if words[i].end - words[i].start > max {
            if SENTENCE_END.contains(words[i].word.as_str()) {
                words[i].end = words[i].start + max;
            } else if SENTENCE_END.contains(words[i - 1].word.as_str()) {
                words[i].start = words[i].end - max;
            }
        }
    }
    (median, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtw_follows_the_cheap_diagonal_and_prefers_time_on_ties() {
        // 2 tokens x 4 frames: token 0 cheap on frames 0-1, token 1 on frames 2-3.
        let cost = [0.0, 0.0, 5.0, 5.0, 5.0, 5.0, 0.0, 0.0];
        assert_eq!(dtw(&cost, 2, 4), vec![(0, 0), (0, 1), (1, 2), (1, 3)]);
        // All equal: ties go along time first, so the text index moves last.
        let flat = [1.0; 6];
        assert_eq!(dtw(&flat, 2, 3), vec![(0, 0), (1, 1), (1, 2)]);
    }

    #[test]
    fn median_filter_reflects_at_the_edges() {
        let x = [5.0, 1.0, 9.0, 2.0, 8.0];
        // Reflect padding of 1 (width 3): [1, 5, 1, 9, 2, 8, 2].
        assert_eq!(median_filter_rows(&x, 5, 3), vec![1.0, 5.0, 2.0, 8.0, 2.0]);
        // Too short a row for the padding comes back unchanged.
        assert_eq!(median_filter_rows(&[3.0, 1.0], 2, 7), vec![3.0, 1.0]);
    }

    #[test]
    fn punctuation_merges_into_neighbours() {
        let w = |s: &str, t: u32| WordTiming { word: s.into(), tokens: vec![t], start: 0.0, end: 0.0 };
        let mut words = vec![w(" Ever", 1), w(" tried", 2), w(".", 3), w(" \"", 4), w("No", 5)];
        merge_punctuation(&mut words);
        let got: Vec<(&str, Vec<u32>)> = words.iter().map(|w| (w.word.as_str(), w.tokens.clone())).collect();
        assert_eq!(
            got,
            vec![(" Ever", vec![1]), (" tried.", vec![2, 3]), ("", vec![]), ("", vec![]), (" \"No", vec![4, 5])]
        );
    }

    #[test]
    fn words_split_at_spaces_and_punctuation() {
        let vocab = [" Ever", " tri", "ed", ",", " fail", "<|endoftext|>"];
        let decode = |ids: &[u32]| ids.iter().map(|&i| vocab[i as usize]).collect::<String>();
        let words = split_words(&[0, 1, 2, 3, 4, 5], 5, &decode);
        let got: Vec<&str> = words.iter().map(|w| w.0.as_str()).collect();
        assert_eq!(got, vec![" Ever", " tried", ",", " fail", "<|endoftext|>"]);
        assert_eq!(words[1].1, vec![1, 2]);
    }

    #[test]
    fn alignment_recovers_a_planted_diagonal() {
        // sot (1 token) + no_timestamps + 3 text tokens + eot = 6 rows, 30 frames:
        // text token i is "heard" in frames [10 i, 10 i + 10) (the query one row
        // earlier predicts it), so word i spans 0.2 s from 0.2 i s.
        let (rows, frames) = (6, 30);
        let mut w = vec![0f32; rows * frames];
        for r in 0..rows {
            for f in 0..frames {
                let token = r as isize - 1; // the row's query predicts text token r - 1
                w[r * frames + f] = if token >= 0 && f as isize / 10 == token { 8.0 } else { 0.0 };
            }
        }
        let vocab = [" a", " b", " c", "<eot>"];
        let decode = |ids: &[u32]| ids.iter().map(|&i| vocab[i as usize]).collect::<String>();
        let words = find_alignment(vec![w.clone(), w], frames, 1, &[0, 1, 2], 3, &decode);
        let spans: Vec<(f64, f64)> = words.iter().map(|w| (w.start, w.end)).collect();
        assert_eq!(words.len(), 3);
        for (i, (s, e)) in spans.iter().enumerate() {
            assert!((s - 0.2 * i as f64).abs() < 0.041, "word {i} starts at {s}: {spans:?}");
            assert!(e > s, "word {i}: {spans:?}");
        }
    }
}
