//! Layers a loader never read. A config.json with fewer layers than its checkpoint (another
//! model's config, a hand-edited layer count) loads "fine" and runs a truncated network, so
//! after a load the checkpoint is asked for tensors of a layer past the last one read.
//!
//! Only layers past the last one read count: within the read range, tensors a family leaves
//! alone on purpose stay allowed (old `rotary_emb.inv_freq` buffers, VITS's duration flow that
//! inference skips, DAC's encoder-side `in_proj`s), and so do whole lists no loader reads
//! (a vision tower, MTP layers, an encoder the codec never runs).

use std::collections::{HashMap, HashSet};

/// `(list, index)` of a tensor inside a numbered list: `model.layers.3.mlp.up_proj.weight` is
/// `("model.layers", 3)`. The first all-digit component is the index.
pub fn layer_of(name: &str) -> Option<(&str, usize)> {
    let mut start = 0;
    for part in name.split('.') {
        if start > 0 && !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
            return part.parse().ok().map(|i| (&name[..start - 1], i));
        }
        start += part.len() + 1;
    }
    None
}

/// The first tensor (by list, index, name) of `all` in a layer past the last one `read` reached
/// in its list, with that list and the number of layers that were read there.
pub fn first_unread_layer<'a>(
    all: impl Iterator<Item = &'a str>,
    read: &HashSet<String>,
) -> Option<(&'a str, &'a str, usize)> {
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (list, i) in read.iter().filter_map(|n| layer_of(n)) {
        let e = last.entry(list).or_insert(i);
        *e = (*e).max(i);
    }
    all.filter(|n| !read.contains(*n))
        .filter_map(|n| {
            let (list, i) = layer_of(n)?;
            let l = *last.get(list)?;
            (i > l).then_some((list, i, n, l + 1))
        })
        .min()
        .map(|(list, _, n, layers)| (n, list, layers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layer_names() {
        assert_eq!(layer_of("model.layers.12.mlp.up_proj.weight"), Some(("model.layers", 12)));
        assert_eq!(layer_of("dec.resblocks.5.convs1.2.weight"), Some(("dec.resblocks", 5)));
        assert_eq!(layer_of("model.encoder.conv1.weight"), None);
        assert_eq!(layer_of("0.weight"), None);
        assert_eq!(layer_of("model.norm.weight"), None);
    }

    #[test]
    fn only_layers_past_the_last_read_are_reported() {
        let read: HashSet<String> =
            ["model.layers.0.w", "model.layers.1.w", "model.norm.weight", "dp.flows.0.w", "dp.flows.7.w"]
                .map(String::from)
                .into();
        let mut all: Vec<&str> = read.iter().map(String::as_str).collect();
        // Allowed: a buffer inside a read layer, a flow inference skips, a list nobody reads.
        all.extend(["model.layers.1.rotary_emb.inv_freq", "dp.flows.1.w", "model.visual.blocks.9.w"]);
        assert_eq!(first_unread_layer(all.iter().copied(), &read), None);
        all.extend(["model.layers.3.w", "model.layers.2.b", "model.layers.2.a"]);
        assert_eq!(first_unread_layer(all.iter().copied(), &read), Some(("model.layers.2.a", "model.layers", 2)));
    }
}
