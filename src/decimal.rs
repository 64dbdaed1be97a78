//! Whole numbers in decimal, without the formatter: for the text written on every move (the
//! `go` command's clock times, a chart's coordinates), where `format!` costs more than the
//! digits, and for the janitor's signal handler, which may not allocate.

/// Enough room for any `u64` in decimal.
pub const MAX_DIGITS: usize = 20;

/// `n`'s decimal digits, as `{n}` writes them, placed at the end of `buf`.
pub fn digits(mut n: u64, buf: &mut [u8; MAX_DIGITS]) -> &[u8] {
    let mut at = buf.len();
    loop {
        at -= 1;
        buf[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[at..];
        }
    }
}

/// Appends `n` in decimal to `out`.
pub fn push(out: &mut String, n: u64) {
    let mut buf = [0u8; MAX_DIGITS];
    // One push of the ASCII digits, not one `char` push each (a `char` push costs a UTF-8
    // encoding and a capacity check).
    out.push_str(std::str::from_utf8(digits(n, &mut buf)).expect("ASCII digits"));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_are_written_as_the_formatter_writes_them() {
        let mut values = vec![0, 1, 9, 10, 99, 100, 1_000_000, u64::MAX - 1, u64::MAX];
        values.extend((0..64).map(|shift| 1u64 << shift));
        values.extend((0..64).map(|shift| (1u64 << shift) - 1));
        for n in values {
            let mut ours = String::from("x");
            push(&mut ours, n);
            assert_eq!(ours, format!("x{n}"), "{n}");
        }
    }
}
