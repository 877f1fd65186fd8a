//! A check of a WebM/Matroska upload's first elements before matroska-demuxer opens it. Its search
//! for the SeekHead re-reads the Segment's first element after a CRC-32 element from the same
//! place, forever: a file whose Segment starts with a CRC-32 element hangs the decoding thread.
//! Such files (rare: muxers put CRC-32 elements inside clusters, not first in the Segment) are
//! refused here. (Found by fuzzing: fuzz/corpus/audio_webm.)

const EBML: u32 = 0x1A45_DFA3;
const SEGMENT: u32 = 0x1853_8067;
const CRC32: u32 = 0xBF;

/// An element ID at `at` as the demuxer reads one (it skips bytes whose high nibble is zero),
/// and the position after it.
fn id(b: &[u8], mut at: usize) -> Option<(u32, usize)> {
    while b.get(at)? & 0xF0 == 0 {
        at += 1;
    }
    let first = *b.get(at)?;
    let len = first.leading_zeros() as usize + 1; // 1 to 4 bytes
    let bytes = b.get(at..at + len)?;
    Some((bytes.iter().fold(0u32, |v, &x| v << 8 | x as u32), at + len))
}

/// An element's data size (an EBML variable-length integer) at `at`, and the position after it.
fn size(b: &[u8], at: usize) -> Option<(u64, usize)> {
    let first = *b.get(at)?;
    if first == 0 {
        return None;
    }
    let len = first.leading_zeros() as usize + 1; // 1 to 8 bytes
    let bytes = b.get(at..at + len)?;
    let mask = if len == 8 { 0 } else { 0xFFu64 >> len };
    let v = bytes[1..].iter().fold(first as u64 & mask, |v, &x| v << 8 | x as u64);
    Some((v, at + len))
}

/// Fails where a Segment's first element is a CRC-32 element; anything it cannot read is left to
/// the demuxer, which reports it. The demuxer finds the Segment after the EBML header's children as
/// it parses them, not where the header's declared size ends (the two differ in a malformed file),
/// so every Segment ID in the file is checked.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    if id(bytes, 0).map(|(i, _)| i) != Some(EBML) {
        return Ok(());
    }
    let marker = SEGMENT.to_be_bytes();
    let crc_first = |at: usize| -> Option<bool> {
        let (_, at) = size(bytes, at + marker.len())?;
        Some(id(bytes, at)?.0 == CRC32)
    };
    let found = bytes.windows(4).enumerate().any(|(at, w)| w == marker && crc_first(at) == Some(true));
    if found {
        return Err("a Segment that starts with a CRC-32 element is not supported".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(first_in_segment: &[u8]) -> Vec<u8> {
        let mut f = vec![0x1A, 0x45, 0xDF, 0xA3, 0x84, 0x42, 0x86, 0x81, 0x01]; // EBML { EBMLVersion 1 }
        f.extend_from_slice(&[0x18, 0x53, 0x80, 0x67, 0x01, 0, 0, 0, 0, 0, 0, 0x10]); // Segment, 8-byte size
        f.extend_from_slice(first_in_segment);
        f
    }

    #[test]
    fn a_segment_starting_with_crc32_is_refused_and_others_pass() {
        let crc = [0xBF, 0x84, 1, 2, 3, 4];
        assert!(check(&file(&crc)).unwrap_err().contains("CRC-32"));
        // Bytes the demuxer skips before an ID (high nibble zero) do not hide it.
        assert!(check(&file(&[0x00, 0x0F, 0xBF, 0x84, 1, 2, 3, 4])).is_err());
        let seek_head = [0x11, 0x4D, 0x9B, 0x74, 0x80];
        assert_eq!(check(&file(&seek_head)), Ok(()));
        let info = [0x15, 0x49, 0xA9, 0x66, 0x80];
        assert_eq!(check(&file(&info)), Ok(()));
        assert_eq!(check(b"not matroska"), Ok(()));
        assert_eq!(check(&file(&[])), Ok(()), "cut off: the demuxer reports it");
        // The EBML header's children run past its declared size: the Segment is found where they end.
        let mut f = vec![0x1A, 0x45, 0xDF, 0xA3, 0x82, 0x42, 0x86, 0x81, 0x01];
        f.extend_from_slice(&[0x18, 0x53, 0x80, 0x67, 0x88, 0xBF, 0x84, 1, 2, 3, 4]);
        assert!(check(&f).is_err());
    }

    #[test]
    fn the_real_files_pass() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/audio");
        let webm = std::fs::read(dir.join("tones_stereo.webm")).unwrap();
        assert_eq!(check(&webm), Ok(()));
    }
}
