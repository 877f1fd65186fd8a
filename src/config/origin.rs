//! CORS origins as browsers send them. The CORS layer compares the `Origin` header byte for
//! byte, and browsers always send `scheme://host[:port]`: lowercase, no path, no user, no
//! default port, IDN hosts in punycode. A configured value of any other shape can never match,
//! so it is refused at start-up instead of being dropped or kept as a dead entry.

/// Why `o` can never match a browser's `Origin` header, if it cannot; `*` (any) and `null`
/// (sandboxed documents, file://) are accepted as browsers spell them.
pub fn check(o: &str) -> Result<(), String> {
    const SHAPE: &str = "expected scheme://host[:port] such as https://example.com, or \"*\"";
    if o == "*" || o == "null" {
        return Ok(());
    }
    if o.trim().is_empty() {
        return Err(format!("empty ({SHAPE})"));
    }
    let (scheme, rest) = o.split_once("://").ok_or_else(|| SHAPE.to_string())?;
    let scheme_ok = scheme.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
        && scheme.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"+-.".contains(&b));
    if !scheme_ok {
        return Err(format!("the scheme '{scheme}' must be lowercase letters ({SHAPE})"));
    }
    if let Some(c) = rest.chars().find(|c| matches!(c, '/' | '?' | '#')) {
        return Err(format!("an origin has no path, query or fragment (remove from the '{c}' on)"));
    }
    if rest.contains('@') {
        return Err("an origin has no user name or password".into());
    }
    // Bracketed IPv6 hosts contain ':' themselves.
    let (host, port) = match rest.strip_prefix('[') {
        Some(v6) => {
            let (inside, after) = v6.split_once(']').ok_or("an IPv6 host needs its closing ']'")?;
            if inside.is_empty() || !inside.bytes().all(|b| b.is_ascii_hexdigit() || b":.".contains(&b)) {
                return Err(format!("'[{inside}]' is not an IPv6 address"));
            }
            match after {
                "" => (None, None),
                p => (None, Some(p.strip_prefix(':').ok_or("expected ':port' after the IPv6 host")?)),
            }
        }
        None => match rest.rsplit_once(':') {
            Some((h, p)) => (Some(h), Some(p)),
            None => (Some(rest), None),
        },
    };
    if let Some(h) = host {
        if h.is_empty() {
            return Err(format!("no host ({SHAPE})"));
        }
        if let Some(c) = h.chars().find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'))) {
            return Err(format!("'{c}' cannot appear in a host (write an international name in punycode, xn--...)"));
        }
        if h.bytes().any(|b| b.is_ascii_uppercase()) {
            return Err(format!("browsers send the host in lowercase: write '{}'", o.to_lowercase()));
        }
    }
    if let Some(p) = port {
        let n = p.parse::<u16>().ok().filter(|n| *n > 0 && p.bytes().all(|b| b.is_ascii_digit()));
        let n = n.ok_or_else(|| format!("the port '{p}' is not a number from 1 to 65535"))?;
        if (scheme, n) == ("http", 80) || (scheme, n) == ("https", 443) {
            return Err(format!(
                "browsers leave out the default port {n}: write '{}'",
                o.trim_end_matches(&format!(":{p}"))
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::check;

    #[test]
    fn browser_origins_pass() {
        for o in [
            "*",
            "null",
            "https://example.com",
            "http://localhost:3000",
            "http://127.0.0.1:8080",
            "http://[::1]:5173",
            "https://my_host.internal",
            "chrome-extension://abcdef",
            "https://xn--bcher-kva.example",
        ] {
            assert_eq!(check(o), Ok(()), "{o}");
        }
    }

    #[test]
    fn values_that_never_match_are_refused() {
        for (o, says) in [
            ("", "empty"),
            ("example.com", "scheme://host"),
            ("https://example.com/", "no path"),
            ("https://example.com/app", "no path"),
            ("HTTPS://example.com", "scheme"),
            ("https://Example.com", "'https://example.com'"),
            ("https://user@example.com", "user"),
            ("https://example.com:443", "'https://example.com'"),
            ("http://localhost:0", "port '0'"),
            ("http://localhost:http", "port 'http'"),
            ("http://localhost:+80", "port '+80'"),
            ("https://bücher.example", "punycode"),
            ("https:// example.com", "' ' cannot"),
            ("http://[::1", "']'"),
            ("https://", "no host"),
        ] {
            let e = check(o).expect_err(o);
            assert!(e.contains(says), "{o}: {e}");
        }
    }
}
