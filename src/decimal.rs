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
    // itoa writes two digits a step from a table, and hands back a `str` that needs no UTF-8
    // check (a `char` push a digit cost about 200 instructions a number under callgrind).
    out.push_str(itoa::Buffer::new().format(n));
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
