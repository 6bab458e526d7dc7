/// Whether text holds any byte of a few kinds, found eight bytes at a time: JSON's writer
/// asks it of every string (quotes, backslashes, controls to escape), tables of every cell
/// (controls to show escaped). Most texts hold none, and are cleared a word at a time.
package enum ByteScan {
    /// Whether a byte of `bytes` is below `floor` (at most 0x80) or equal to `first` or `second`.
    ///
    /// A word of ASCII bytes is tested whole: "has a byte below `floor`" and "has a zero byte"
    /// (after XOR with each mark below 0x80), exact as answers for the word's eight bytes
    /// together. A word holding a byte of 0x80 or more (where a mark of 0x80 or more can
    /// only be) is looked at byte by byte.
    package static func contains(
        _ bytes: UnsafeRawBufferPointer, below floor: UInt8, orEither first: UInt8, _ second: UInt8
    ) -> Bool {
        precondition(floor <= 0x80, "ByteScan: the word test needs a floor of at most 0x80")
        func matches(_ byte: UInt8) -> Bool { byte < floor || byte == first || byte == second }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ word: UInt64) -> Bool { (word &- ones) & ~word & high != 0 }
        // A mark of 0x80 or more never equals an ASCII byte: its test is left out of ASCII words.
        func hasMark(_ word: UInt64, _ mark: UInt8) -> Bool { mark < 0x80 && hasZero(word ^ (ones &* UInt64(mark))) }
        var offset = 0
        while offset + 8 <= bytes.count {
            let word = bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
            if word & high != 0 {
                if bytes[offset..<offset + 8].contains(where: matches) { return true }
            } else if (word &- ones &* UInt64(floor)) & ~word & high != 0 || hasMark(word, first)
                || hasMark(word, second)
            {
                return true
            }
            offset += 8
        }
        return bytes[offset...].contains(where: matches)
    }
}
