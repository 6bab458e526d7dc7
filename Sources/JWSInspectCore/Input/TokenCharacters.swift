/// The characters of a compact JWS: base64url (`A–Z a–z 0–9 - _`) and the dot.
///
/// Finding where a run of them ends touches every byte of every input, so `runLength`
/// classifies sixteen bytes at a time with lane-wise arithmetic (no comparisons: Swift's
/// SIMD masks compile to per-lane code), then finishes byte by byte.
enum TokenCharacters {
    /// Whether `byte` may appear in a compact JWS.
    @inline(__always)
    static func contains(_ byte: UInt8) -> Bool {
        (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
    }

    /// How many bytes from `start` on are JWS characters.
    static func runLength(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress, start < bytes.count, contains(base[start]) else { return 0 }
        let count = bytes.count
        var index = start
        while index + 16 <= count {
            let lanes = unsafeBitCast(
                Self.marks(UnsafeRawPointer(base + index).loadUnaligned(as: Lanes.self)),
                to: SIMD2<UInt64>.self)
            guard lanes[0] & lanes[1] == 0x8080_8080_8080_8080 else { break }
            index += 16
        }
        while index < count, contains(base[index]) { index += 1 }
        return index - start
    }

    private typealias Lanes = SIMD16<UInt8>

    /// The top bit of each lane set exactly when that byte is a JWS character.
    ///
    /// For a byte x below 0x80, `x &+ (0x80 - a)` has its top bit set exactly when x ≥ a
    /// (no lane overflows), and `(y &+ 0x7F) | y` exactly when y ≠ 0. Bytes from 0x80 up
    /// come out unmarked too: for them "≥ low" holds only below 0x80 + low, and "≥ high + 1"
    /// below 0x80 + high + 1, so no range test passes; their difference from "/" or "_"
    /// keeps its top bit, so neither equality does. (The tests try all 256 values.)
    @inline(__always)
    private static func marks(_ x: Lanes) -> Lanes {
        let folded = x | Lanes(repeating: 0x20)  // A–Z onto a–z; nothing else lands in a–z
        let letters = atLeast(folded, UInt8(ascii: "a")) & ~atLeast(folded, UInt8(ascii: "z") + 1)
        // "-" ".", "/" (excluded), "0"–"9" are one range.
        let digitsDashDot =
            atLeast(x, UInt8(ascii: "-")) & ~atLeast(x, UInt8(ascii: "9") + 1) & ~equal(x, UInt8(ascii: "/"))
        return letters | digitsDashDot | equal(x, UInt8(ascii: "_"))
    }

    @inline(__always)
    private static func atLeast(_ value: Lanes, _ bound: UInt8) -> Lanes {
        (value &+ Lanes(repeating: 0x80 &- bound)) & Lanes(repeating: 0x80)
    }

    @inline(__always)
    private static func equal(_ value: Lanes, _ byte: UInt8) -> Lanes {
        let difference = value ^ Lanes(repeating: byte)
        return ~((difference &+ Lanes(repeating: 0x7F)) | difference) & Lanes(repeating: 0x80)
    }
}
