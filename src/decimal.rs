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

/// The two digits of each number below 100, end to end (`00`, `01`, ... `99`).
const PAIRS: &[u8; 200] = b"\
0001020304050607080910111213141516171819\
2021222324252627282930313233343536373839\
4041424344454647484950515253545556575859\
6061626364656667686970717273747576777879\
8081828384858687888990919293949596979899";

/// `n` below 100 in two digits, as `{n:02}` writes it.
pub fn two_digits(n: u8) -> [u8; 2] {
    let pair = 2 * usize::from(n);
    [PAIRS[pair], PAIRS[pair + 1]]
}

/// Short text put together on the stack and appended to its file's buffer with one copy: the
/// text of every move (a PGN move with its clock comment, an `events.jsonl` event). Pushed a
/// piece at a time onto a growing buffer, each piece checked the capacity and went through
/// `memcpy`, and each number through a buffer of its own. Pushing past `N` bytes panics:
/// callers size it for the longest text they put in it, and `MAX_DIGITS` more for a number.
pub struct Ascii<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Default for Ascii<N> {
    fn default() -> Self {
        Ascii {
            bytes: [0; N],
            len: 0,
        }
    }
}

impl<const N: usize> Ascii<N> {
    /// The text so far.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }

    /// The text so far, which is ASCII when only ASCII was pushed.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(self.as_bytes()).expect("ASCII")
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties it for the next text.
    #[inline]
    pub fn clear(&mut self) {
        self.len = 0;
    }

    #[inline]
    pub fn push(&mut self, byte: u8) {
        self.bytes[self.len] = byte;
        self.len += 1;
    }

    #[inline]
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        let end = self.len + bytes.len();
        self.bytes[self.len..end].copy_from_slice(bytes);
        self.len = end;
    }

    /// `n` in decimal, as `{n}` writes it. Needs room for `MAX_DIGITS` bytes, whatever `n`:
    /// the digits are copied as one piece of that length, with no loop over them.
    pub fn push_u64(&mut self, n: u64) {
        // Written from the last digit back to `at`, four digits a step, then two (as itoa
        // writes them), ending at `MAX_DIGITS`, with room after them for the copy.
        let mut digits = [0; 2 * MAX_DIGITS];
        let (mut n, mut at) = (n, MAX_DIGITS);
        while n >= 10_000 {
            let four = (n % 10_000) as usize;
            n /= 10_000;
            let (high, low) = (2 * (four / 100), 2 * (four % 100));
            at -= 4;
            digits[at..at + 4].copy_from_slice(&[
                PAIRS[high],
                PAIRS[high + 1],
                PAIRS[low],
                PAIRS[low + 1],
            ]);
        }
        let mut n = n as usize;
        if n >= 100 {
            let low = 2 * (n % 100);
            n /= 100;
            at -= 2;
            digits[at..at + 2].copy_from_slice(&[PAIRS[low], PAIRS[low + 1]]);
        }
        if n >= 10 {
            at -= 2;
            digits[at..at + 2].copy_from_slice(&[PAIRS[2 * n], PAIRS[2 * n + 1]]);
        } else {
            at -= 1;
            digits[at] = b'0' + n as u8;
        }
        self.bytes[self.len..self.len + MAX_DIGITS].copy_from_slice(&digits[at..at + MAX_DIGITS]);
        self.len += MAX_DIGITS - at;
    }

    /// `n` in decimal, as `{n}` writes it.
    #[inline]
    pub fn push_i64(&mut self, n: i64) {
        if n < 0 {
            self.push(b'-');
        }
        self.push_u64(n.unsigned_abs());
    }

    /// `n` below 100 in two digits, as `{n:02}` writes it.
    #[inline]
    pub fn push_two(&mut self, n: u8) {
        self.push_bytes(&two_digits(n));
    }
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
            let mut ascii = Ascii::<48>::default();
            ascii.push(b'x');
            ascii.push_u64(n);
            assert_eq!(ascii.as_bytes(), format!("x{n}").as_bytes(), "{n}");
            for signed in [n as i64, (n as i64).wrapping_neg()] {
                let mut ascii = Ascii::<48>::default();
                ascii.push_i64(signed);
                ascii.push_bytes(b"..");
                assert_eq!(ascii.as_bytes(), format!("{signed}..").as_bytes());
            }
        }
        for n in [i64::MIN, i64::MAX, -1, -10, -99, -100] {
            let mut ascii = Ascii::<24>::default();
            ascii.push_i64(n);
            assert_eq!(ascii.as_bytes(), n.to_string().as_bytes());
        }
        for n in 0..100 {
            let mut ascii = Ascii::<2>::default();
            ascii.push_two(n);
            assert_eq!(ascii.as_bytes(), format!("{n:02}").as_bytes());
        }
    }

    #[test]
    #[should_panic]
    fn pushing_past_the_room_panics() {
        let mut ascii = Ascii::<4>::default();
        ascii.push_u64(12_345);
    }
}
