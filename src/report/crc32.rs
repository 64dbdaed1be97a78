//! CRC-32 (IEEE 802.3, the checksum of zlib and PNG), for fastchess's `-crc32 pgn=true`: the
//! line `File F has CRC32: 0x...` after each game written, which fishtest compares with
//! `zlib.crc32` of the file before it uploads it.

/// The reflected polynomial 0x04C11DB7.
const POLY: u32 = 0xEDB8_8320;

const fn table() -> [u32; 256] {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { POLY ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        table[i] = c;
        i += 1;
    }
    table
}

const TABLE: [u32; 256] = table();

/// The CRC-32 of the bytes whose CRC-32 is `crc`, followed by `data` (`zlib.crc32(data, crc)`);
/// 0 is the CRC-32 of nothing.
pub fn update(crc: u32, data: &[u8]) -> u32 {
    let mut c = !crc;
    for &byte in data {
        c = TABLE[((c ^ u32::from(byte)) & 0xFF) as usize] ^ (c >> 8);
    }
    !c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_and_increments() {
        // The check value of CRC-32/ISO-HDLC.
        assert_eq!(update(0, b"123456789"), 0xCBF4_3926);
        assert_eq!(update(0, b""), 0);
        assert_eq!(update(update(0, b"12345"), b"6789"), 0xCBF4_3926);
    }
}
