//! Safetensors checkpoints, single-file or sharded (model.safetensors.index.json),
//! memory-mapped; tensors come out as f32 whatever their stored dtype.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use memmap2::Mmap;
use safetensors::tensor::{Dtype, Metadata};
use safetensors::SafeTensors;

use super::WeightError;

struct Shard {
    path: PathBuf,
    map: Mmap,
    header_len: usize,
    meta: Metadata,
}

pub struct Checkpoint {
    shards: Vec<Shard>,
    /// Tensor name -> shard index.
    index: HashMap<String, usize>,
    pub dir: PathBuf,
    /// Names `f32` handed out, for `check_all_layers_read`.
    read: Mutex<HashSet<String>>,
}

impl Checkpoint {
    /// Opens `dir/model.safetensors.index.json` if present, else every `*.safetensors` in `dir`.
    pub fn open(dir: &Path) -> Result<Self, WeightError> {
        let index_path = dir.join("model.safetensors.index.json");
        let files: Vec<PathBuf> = if index_path.exists() {
            let text = std::fs::read_to_string(&index_path).map_err(|e| WeightError::io(&index_path, e))?;
            let v: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| WeightError::Format { path: index_path.clone(), msg: e.to_string() })?;
            let map = v["weight_map"]
                .as_object()
                .ok_or_else(|| WeightError::Format { path: index_path.clone(), msg: "no weight_map object".into() })?;
            let mut files: Vec<String> = map.values().filter_map(|f| f.as_str().map(String::from)).collect();
            files.sort();
            files.dedup();
            files.into_iter().map(|f| dir.join(f)).collect()
        } else {
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(|e| WeightError::io(dir, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "safetensors"))
                .collect();
            files.sort();
            files
        };
        if files.is_empty() {
            return Err(WeightError::NoWeights { dir: dir.to_path_buf() });
        }
        let mut shards = Vec::new();
        let mut index = HashMap::new();
        for path in files {
            let file = std::fs::File::open(&path).map_err(|e| WeightError::io(&path, e))?;
            // SAFETY: the file is opened read-only; we never hand out slices past the mapping's life.
            let map = unsafe { Mmap::map(&file) }.map_err(|e| WeightError::io(&path, e))?;
            // deserialize validates the header against the file length (catches truncation).
            SafeTensors::deserialize(&map)
                .map_err(|e| WeightError::Format { path: path.clone(), msg: e.to_string() })?;
            let (header_len, meta) = SafeTensors::read_metadata(&map)
                .map_err(|e| WeightError::Format { path: path.clone(), msg: e.to_string() })?;
            for name in meta.tensors().keys() {
                index.insert(name.clone(), shards.len());
            }
            shards.push(Shard { path, map, header_len, meta });
        }
        Ok(Checkpoint { shards, index, dir: dir.to_path_buf(), read: Mutex::default() })
    }

    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.index.keys().map(|s| s.as_str())
    }

    fn locate(&self, name: &str) -> Result<(&Shard, &safetensors::tensor::TensorInfo), WeightError> {
        let shard = self
            .index
            .get(name)
            .map(|i| &self.shards[*i])
            .ok_or_else(|| WeightError::Missing { name: name.into(), dir: self.dir.clone() })?;
        let info = shard.meta.info(name).expect("indexed tensor has info");
        Ok((shard, info))
    }

    /// Fails on a tensor in a layer past the last one read (a config with fewer layers than the
    /// checkpoint); loaders call it once they have read their weights. See unread.rs.
    pub fn check_all_layers_read(&self) -> Result<(), WeightError> {
        let read = self.read.lock().unwrap_or_else(|e| e.into_inner());
        match super::unread::first_unread_layer(self.names(), &read) {
            Some((name, list, layers)) => {
                Err(WeightError::UnreadLayer { name: name.into(), dir: self.dir.clone(), list: list.into(), layers })
            }
            None => Ok(()),
        }
    }

    /// A `__metadata__` entry of the first shard that has it.
    pub fn metadata(&self, key: &str) -> Option<String> {
        self.shards.iter().find_map(|s| s.meta.metadata().as_ref().and_then(|m| m.get(key).cloned()))
    }

    pub fn shape(&self, name: &str) -> Result<Vec<usize>, WeightError> {
        Ok(self.locate(name)?.1.shape.clone())
    }

    /// The tensor as f32, checked against `shape`.
    pub fn f32(&self, name: &str, shape: &[usize]) -> Result<Vec<f32>, WeightError> {
        let (shard, info) = self.locate(name)?;
        self.read.lock().unwrap_or_else(|e| e.into_inner()).insert(name.to_string());
        if info.shape != shape {
            return Err(WeightError::Shape {
                name: name.into(),
                path: shard.path.clone(),
                want: shape.to_vec(),
                got: info.shape.clone(),
            });
        }
        let start = 8 + shard.header_len + info.data_offsets.0;
        let bytes = &shard.map[start..8 + shard.header_len + info.data_offsets.1];
        let out: Vec<f32> = match info.dtype {
            Dtype::F32 => bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect(),
            Dtype::F16 => bytes.chunks_exact(2).map(|b| half::f16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            Dtype::BF16 => bytes.chunks_exact(2).map(|b| half::bf16::from_le_bytes([b[0], b[1]]).to_f32()).collect(),
            other => {
                return Err(WeightError::Dtype {
                    name: name.into(),
                    path: shard.path.clone(),
                    dtype: format!("{other:?}"),
                })
            }
        };
        Ok(out)
    }
}
