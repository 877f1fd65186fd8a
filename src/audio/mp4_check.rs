//! A check of an MP4/M4A upload's box structure before symphonia reads it. symphonia's MP4 reader
//! sizes its tables by what the boxes declare (`Vec::with_capacity(entry_count)`, `vec![0; size]`)
//! before reading them, so a file of a few bytes that declares 2^32 table entries makes it ask for
//! tens of gigabytes, and a failed allocation aborts the whole server. Here every box that reader
//! parses must fit inside its parent, and every table's entries inside their box: nothing it
//! allocates is then larger than the upload. (Found by fuzzing: fuzz/corpus/audio_m4a.)

/// Boxes whose children the reader parses.
const CONTAINERS: &[&[u8; 4]] =
    &[b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf", b"udta", b"mvex", b"moof", b"traf", b"ilst"];
/// Leaf boxes the reader parses (read whole or as tables): they must be complete.
const PARSED: &[&[u8; 4]] = &[
    b"ftyp", b"sidx", b"meta", b"mvhd", b"tkhd", b"mdhd", b"hdlr", b"smhd", b"stsd", b"stts", b"ctts", b"stsc",
    b"stsz", b"stco", b"co64", b"stss", b"elst", b"trex", b"mehd", b"mfhd", b"tfhd", b"trun", b"data",
];
/// Deeper than any structure the reader knows: the check stops descending there.
const MAX_DEPTH: usize = 12;

fn be32(b: &[u8], at: usize) -> Option<u64> {
    Some(u32::from_be_bytes(b.get(at..at + 4)?.try_into().ok()?) as u64)
}

/// Whether `bytes` holds an MP4 box structure where symphonia's probe will find it: its marker
/// is the `ftyp` type at offset 4 of the first box.
pub fn looks_like_mp4(bytes: &[u8]) -> Option<usize> {
    // The probe scans the first megabyte byte by byte for a marker.
    let window = &bytes[..bytes.len().min(1 << 20)];
    window.windows(4).skip(4).position(|w| w == b"ftyp")
}

/// Checks the boxes from the first one (`at` = the start of the `ftyp` box) to the end.
pub fn check(bytes: &[u8]) -> Result<(), String> {
    match looks_like_mp4(bytes) {
        Some(at) => walk(&bytes[at..], 0),
        None => Ok(()),
    }
}

fn name(t: &[u8]) -> String {
    String::from_utf8_lossy(t).into_owned()
}

fn walk(mut rest: &[u8], depth: usize) -> Result<(), String> {
    while rest.len() >= 8 {
        let typ: [u8; 4] = rest[4..8].try_into().expect("8 bytes");
        let (head, size) = match be32(rest, 0).expect("8 bytes") {
            1 => match rest.get(8..16) {
                Some(b) => (16, u64::from_be_bytes(b.try_into().expect("8 bytes"))),
                None => return Err(format!("box '{}' is cut off in its header", name(&typ))),
            },
            0 => (8, rest.len() as u64),
            n => (8, n),
        };
        let parsed = CONTAINERS.contains(&&typ) || PARSED.contains(&&typ);
        if size < head {
            return Err(format!("box '{}' declares {size} bytes, less than its own header", name(&typ)));
        }
        if size > rest.len() as u64 {
            if parsed {
                return Err(format!("box '{}' declares {size} bytes but {} remain", name(&typ), rest.len()));
            }
            // Media data (or a box the reader skips) of a file cut off: it reads what is there.
            return Ok(());
        }
        let body = &rest[head as usize..size as usize];
        if depth < MAX_DEPTH {
            if CONTAINERS.contains(&&typ) {
                walk(body, depth + 1)?;
            } else if &typ == b"meta" {
                // A full box: version and flags, then boxes.
                walk(body.get(4..).unwrap_or_default(), depth + 1)?;
            } else if depth > 0 && typ_is_ilst_item(&typ, rest) {
                walk(body, depth + 1)?;
            } else {
                check_table(&typ, body)?;
            }
        }
        rest = &rest[size as usize..];
    }
    Ok(())
}

/// Metadata items under `ilst` are boxes of any name holding `data` boxes; they are reached
/// through `ilst` only, which `walk` descends as a container, so an item is a box whose body
/// starts with a box of a known item type.
fn typ_is_ilst_item(_typ: &[u8; 4], rest: &[u8]) -> bool {
    matches!(rest.get(12..16), Some(b"data" | b"mean" | b"name"))
}

/// The full box's table, where `typ` is one: its entries must fit in `body`.
fn check_table(typ: &[u8; 4], body: &[u8]) -> Result<(), String> {
    let flags = be32(body, 0).unwrap_or(0) & 0x00ff_ffff;
    let version = body.first().copied().unwrap_or(0);
    // (bytes before the entries, the entry count, bytes per entry)
    let (before, count, entry) = match typ {
        b"stts" | b"ctts" => (8, be32(body, 4), 8),
        b"stsc" => (8, be32(body, 4), 12),
        b"stco" | b"stss" => (8, be32(body, 4), 4),
        b"co64" => (8, be32(body, 4), 8),
        b"elst" => (8, be32(body, 4), if version == 1 { 20 } else { 12 }),
        b"stsz" => match be32(body, 4) {
            Some(0) => (12, be32(body, 8), 4),
            _ => (12, Some(0), 0),
        },
        b"trun" => {
            // Optional data offset and first-sample flags, then per-sample fields by flag.
            let optional = 4 * ((flags & 0x1 != 0) as u64 + (flags & 0x4 != 0) as u64);
            let per_sample = 4 * [0x100, 0x200, 0x400, 0x800].iter().filter(|&&f| flags & f != 0).count() as u64;
            // A run with no per-sample fields still loops over its count: one byte each bounds it.
            (8 + optional, be32(body, 4), per_sample.max(1))
        }
        b"stsd" => (8, be32(body, 4), 8),
        b"hdlr" => (24, Some(0), 0),
        b"data" => (8, Some(0), 0),
        _ => return Ok(()),
    };
    let Some(count) = count else {
        return Err(format!("box '{}' is too short for its entry count", name(typ)));
    };
    let need = before + count.saturating_mul(entry);
    if need > body.len() as u64 {
        return Err(format!("box '{}' declares {count} entries ({need} bytes) in {} bytes", name(typ), body.len()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bx(typ: &[u8; 4], body: &[u8]) -> Vec<u8> {
        let mut v = ((body.len() + 8) as u32).to_be_bytes().to_vec();
        v.extend_from_slice(typ);
        v.extend_from_slice(body);
        v
    }

    fn file(stbl_children: &[u8]) -> Vec<u8> {
        let stbl = bx(b"stbl", stbl_children);
        let moov = bx(b"moov", &bx(b"trak", &bx(b"mdia", &bx(b"minf", &stbl))));
        [bx(b"ftyp", b"M4A \0\0\0\0"), moov, bx(b"mdat", &[1, 2, 3])].concat()
    }

    fn table(typ: &[u8; 4], count: u32, entries: usize) -> Vec<u8> {
        let mut body = vec![0u8; 4];
        body.extend_from_slice(&count.to_be_bytes());
        body.extend(vec![7u8; entries]);
        bx(typ, &body)
    }

    #[test]
    fn tables_that_fit_pass_and_overstated_counts_fail() {
        assert_eq!(check(&file(&table(b"stts", 2, 16))), Ok(()));
        assert_eq!(check(&file(&table(b"stsc", 1, 12))), Ok(()));
        for (typ, entry) in [(b"stts", 8), (b"ctts", 8), (b"stsc", 12), (b"stco", 4), (b"co64", 8), (b"stss", 4)] {
            let err = check(&file(&table(typ, 3, 2 * entry))).unwrap_err();
            assert!(err.contains("declares 3 entries"), "{err}");
            let err = check(&file(&table(typ, u32::MAX, 2 * entry))).unwrap_err();
            assert!(err.contains(&format!("declares {} entries", u32::MAX)), "{err}");
        }
    }

    #[test]
    fn sample_sizes_count_only_when_they_vary() {
        let stsz = |size: u32, count: u32, bytes: usize| {
            let mut body = vec![0u8; 4];
            body.extend_from_slice(&size.to_be_bytes());
            body.extend_from_slice(&count.to_be_bytes());
            body.extend(vec![0u8; bytes]);
            bx(b"stsz", &body)
        };
        assert_eq!(check(&file(&stsz(1024, u32::MAX, 0))), Ok(()), "a constant size has no table");
        assert_eq!(check(&file(&stsz(0, 2, 8))), Ok(()));
        assert!(check(&file(&stsz(0, 3, 8))).is_err());
    }

    #[test]
    fn a_box_larger_than_its_parent_fails_unless_the_reader_skips_it() {
        let mut f = file(&table(b"stts", 0, 0));
        // mdat, the last box, claims more than the file holds: a cut-off recording reads as is.
        let n = f.len();
        f[n - 11..n - 7].copy_from_slice(&1_000_000u32.to_be_bytes());
        assert_eq!(check(&f), Ok(()));
        // moov claims more than remains.
        let mut g = file(&table(b"stts", 0, 0));
        g[16..20].copy_from_slice(&1_000_000u32.to_be_bytes());
        assert!(check(&g).unwrap_err().contains("box 'moov' declares 1000000 bytes"));
        // A 64-bit size of 2^40.
        let mut big = bx(b"ftyp", b"M4A \0\0\0\0");
        big.extend_from_slice(&1u32.to_be_bytes());
        big.extend_from_slice(b"moov");
        big.extend_from_slice(&(1u64 << 40).to_be_bytes());
        assert!(check(&big).unwrap_err().contains("box 'moov' declares 1099511627776 bytes"));
        // A size below the header.
        let mut small = bx(b"ftyp", b"M4A \0\0\0\0");
        small.extend_from_slice(&bx(b"moov", &[])[..4]);
        small[16..20].copy_from_slice(&4u32.to_be_bytes());
        small.extend_from_slice(b"moov");
        assert!(check(&small).unwrap_err().contains("less than its own header"));
    }

    #[test]
    fn runs_count_their_per_sample_fields() {
        let trun = |flags: u32, count: u32, bytes: usize| {
            let mut body = flags.to_be_bytes().to_vec();
            body.extend_from_slice(&count.to_be_bytes());
            body.extend(vec![0u8; bytes]);
            bx(b"moof", &bx(b"traf", &bx(b"trun", &body)))
        };
        let with = |t: Vec<u8>| [bx(b"ftyp", b"M4A \0\0\0\0"), t].concat();
        // Duration and size per sample (8 bytes), a data offset (4).
        assert_eq!(check(&with(trun(0x301, 2, 20))), Ok(()));
        assert!(check(&with(trun(0x301, 3, 20))).is_err());
        // No per-sample field: the count is still bounded by the box.
        assert!(check(&with(trun(0, u32::MAX, 0))).is_err());
    }

    #[test]
    fn not_mp4_is_not_checked() {
        assert_eq!(check(b"RIFF\0\0\0\0WAVEfmt "), Ok(()));
        assert_eq!(looks_like_mp4(b"xxxx"), None);
        // The marker after leading junk, where the probe finds it.
        let mut f = b"junk".to_vec();
        f.extend(file(&table(b"stts", 9, 0)));
        assert!(check(&f).is_err());
    }
}
