//! Whisper's special tokens (looked up by text in tokenizer.json) and the
//! logit filters of OpenAI's decoder: blank and token suppression, and the
//! timestamp rules (pairs, monotonic, a first timestamp within 1 s, and
//! timestamps forced when their total probability beats any text token).

use std::path::Path;

use crate::models::{read_json, ModelError};
use crate::nn::{mask_bits, LogitRules, LogitStats};

#[derive(Debug, Clone)]
pub struct Specials {
    pub eot: u32,
    pub sot: u32,
    pub sot_prev: Option<u32>,
    pub sot_lm: Option<u32>,
    pub transcribe: Option<u32>,
    pub translate: Option<u32>,
    pub no_speech: Option<u32>,
    pub no_timestamps: u32,
    /// First timestamp token (<|0.00|>): no_timestamps + 1.
    pub ts_begin: u32,
    /// (code, token id) of every language token, multilingual models only.
    pub languages: Vec<(String, u32)>,
}

fn id(tok: &tokenizers::Tokenizer, s: &str) -> Option<u32> {
    tok.token_to_id(s)
}

impl Specials {
    pub fn from_tokenizer(
        tok: &tokenizers::Tokenizer,
        multilingual: bool,
        path: &Path,
    ) -> Result<Specials, ModelError> {
        let need = |s: &str| {
            id(tok, s)
                .ok_or_else(|| ModelError::Config { path: path.into(), msg: format!("tokenizer has no {s} token") })
        };
        let sot = need("<|startoftranscript|>")?;
        let no_timestamps = need("<|notimestamps|>")?;
        let translate = id(tok, "<|translate|>");
        let mut languages = Vec::new();
        if let (true, Some(tr)) = (multilingual, translate) {
            for i in sot + 1..tr {
                if let Some(t) = tok.id_to_token(i) {
                    if let Some(code) = t.strip_prefix("<|").and_then(|t| t.strip_suffix("|>")) {
                        languages.push((code.to_string(), i));
                    }
                }
            }
        }
        Ok(Specials {
            eot: need("<|endoftext|>")?,
            sot,
            sot_prev: id(tok, "<|startofprev|>"),
            sot_lm: id(tok, "<|startoflm|>"),
            transcribe: id(tok, "<|transcribe|>"),
            translate,
            no_speech: id(tok, "<|nospeech|>").or_else(|| id(tok, "<|nocaptions|>")),
            no_timestamps,
            ts_begin: no_timestamps + 1,
            languages,
        })
    }
}

/// generation_config.json fields the filters use (absent file: defaults).
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct GenerationConfig {
    #[serde(default)]
    pub suppress_tokens: Option<Vec<i64>>,
    #[serde(default)]
    pub begin_suppress_tokens: Option<Vec<i64>>,
    #[serde(default)]
    pub max_initial_timestamp_index: Option<u32>,
    /// Whether the checkpoint has language tokens (absent: guessed from the vocabulary size).
    #[serde(default)]
    pub is_multilingual: Option<bool>,
    /// [layer, head] pairs of the decoder's cross-attention that follow the audio (word timestamps).
    #[serde(default)]
    pub alignment_heads: Option<Vec<[usize; 2]>>,
}

impl GenerationConfig {
    pub fn load(dir: &Path) -> Result<GenerationConfig, ModelError> {
        let path = dir.join("generation_config.json");
        if path.exists() {
            read_json(&path)
        } else {
            Ok(GenerationConfig::default())
        }
    }
}

/// The filters applied to every step's logits before choosing a token.
#[derive(Debug, Clone)]
pub struct LogitFilter {
    pub sp: Specials,
    /// Always -inf.
    pub suppress: Vec<u32>,
    /// -inf at the first sampled position (blank, end of text).
    pub begin_suppress: Vec<u32>,
    pub max_initial_timestamp: u32,
    pub vocab: usize,
}

fn log_softmax(x: &[f32]) -> Vec<f64> {
    let m = x.iter().cloned().fold(f32::NEG_INFINITY, f32::max) as f64;
    let z = x.iter().map(|v| (*v as f64 - m).exp()).sum::<f64>().ln() + m;
    x.iter().map(|v| *v as f64 - z).collect()
}

impl LogitFilter {
    /// Applies every filter in place; `sampled` are the tokens chosen so far in this window.
    pub fn apply(&self, logits: &mut [f32], sampled: &[u32]) {
        let ninf = f32::NEG_INFINITY;
        let kill = |i: u32, l: &mut [f32]| {
            if let Some(v) = l.get_mut(i as usize) {
                *v = ninf;
            }
        };
        if sampled.is_empty() {
            for &t in &self.begin_suppress {
                kill(t, logits);
            }
        }
        for &t in &self.suppress {
            kill(t, logits);
        }
        let (tb, eot) = (self.sp.ts_begin as usize, self.sp.eot as usize);
        if tb >= logits.len() {
            return;
        }
        kill(self.sp.no_timestamps, logits);
        let n = sampled.len();
        let last_ts = n >= 1 && sampled[n - 1] as usize >= tb;
        let penult_ts = n < 2 || sampled[n - 2] as usize >= tb;
        if last_ts {
            if penult_ts {
                logits[tb..].fill(ninf); // a pair just closed: text (or end) next
            } else {
                logits[..eot].fill(ninf); // an open pair: a timestamp (or end) next
            }
        }
        if let Some(&last) = sampled.iter().rev().find(|&&t| t as usize >= tb) {
            // Timestamps never go backwards; a closed pair's end cannot be repeated.
            let upto = if last_ts && !penult_ts { last as usize } else { last as usize + 1 };
            let upto = upto.min(logits.len());
            logits[tb..upto].fill(ninf);
        }
        if n == 0 {
            logits[..tb].fill(ninf);
            let last_allowed = tb + self.max_initial_timestamp as usize;
            if last_allowed + 1 < logits.len() {
                logits[last_allowed + 1..].fill(ninf);
            }
        }
        let lp = log_softmax(logits);
        let ts = &lp[tb..];
        let m = ts.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let ts_mass = if m.is_finite() { m + ts.iter().map(|v| (v - m).exp()).sum::<f64>().ln() } else { m };
        let max_text = lp[..tb].iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        if ts_mass > max_text {
            logits[..tb].fill(ninf);
        }
    }
}

impl LogitFilter {
    /// The same filters as [`LogitFilter::apply`] as GPU selection rules
    /// (`nn::select`): group A is [0, ts_begin), group B the timestamps; the
    /// masks are `suppress` + <|notimestamps|> and `begin_suppress`.
    pub fn rules(&self, sampled: &[u32], sample: Option<(f32, u32)>) -> LogitRules {
        let vocab = self.vocab as u32;
        let (tb, eot) = (self.sp.ts_begin.min(vocab), self.sp.eot);
        let mut r = LogitRules {
            split: tb,
            kill_end: 0,
            ts_lo: tb,
            ts_hi: vocab,
            mask: true,
            begin: sampled.is_empty(),
            sample,
            probe: 0,
        };
        let n = sampled.len();
        let last_ts = n >= 1 && sampled[n - 1] >= tb;
        let penult_ts = n < 2 || sampled[n - 2] >= tb;
        if last_ts {
            if penult_ts {
                r.ts_lo = vocab; // a pair just closed: text (or end) next
            } else {
                r.kill_end = eot; // an open pair: a timestamp (or end) next
            }
        }
        if let Some(&last) = sampled.iter().rev().find(|&&t| t >= tb) {
            let upto = if last_ts && !penult_ts { last } else { last + 1 };
            r.ts_lo = r.ts_lo.max(upto.min(vocab));
        }
        if n == 0 {
            r.kill_end = tb;
            r.ts_hi = (tb + self.max_initial_timestamp + 1).min(vocab);
        }
        r
    }

    /// The always- and begin-masks for [`LogitFilter::rules`], `vocab.div_ceil(32)` words each.
    pub fn masks(&self) -> Vec<u32> {
        let mut always = self.suppress.clone();
        always.push(self.sp.no_timestamps);
        let mut m = mask_bits(self.vocab, &always);
        m.extend(mask_bits(self.vocab, &self.begin_suppress));
        m
    }
}

/// The token chosen from a row's statistics under the timestamp rules, and
/// its log-probability: timestamps are forced when their total probability
/// beats every text token (log-sum-exp of B > max of A); greedy takes the
/// argmax, sampling the Gumbel-max pick, of what remains.
pub fn choose(st: &LogitStats, sampled: bool) -> (u32, f64) {
    let forced = st.lse[1] > st.max[0];
    // (score, token, raw logit) per group.
    let pick = |g: usize| {
        if sampled {
            (st.gumbel[g], st.garg[g], st.glogit[g])
        } else {
            (st.max[g], st.arg[g], st.max[g])
        }
    };
    let (a, b) = (pick(0), pick(1));
    let (_, token, logit) = if forced || b.0 > a.0 { b } else { a };
    let total = if forced { st.lse[1] as f64 } else { st.lse_all() };
    (token, logit as f64 - total)
}

/// Log-probabilities of a row (f64).
pub fn log_probs(x: &[f32]) -> Vec<f64> {
    log_softmax(x)
}
