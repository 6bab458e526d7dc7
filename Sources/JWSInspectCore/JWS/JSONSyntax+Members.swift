#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A JSON object that names a member twice: where the second name starts, and the name.
///
/// RFC 8259 §4 says names SHOULD be unique and leaves the meaning of a repeated one to each
/// parser; RFC 7515 §5.2 lets a JWS parser either refuse such a header or take the last.
/// Foundation keeps the first, Python, Node and Go the last: the same text reads two ways,
/// so a verifier refuses it.
package struct DuplicateMember: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name as decoded (escapes resolved), quoted at most `Excerpt.limit` characters long.
    package let name: String
    /// The byte offset of the second name's opening quote in the text.
    package let offset: Int

    /// `"bundleId"`, the name as messages quote it.
    package var quotedName: String { "\"\(Excerpt.of(name))\"" }

    /// "member "bundleId" twice (at byte 123)", for "the payload names …".
    package var description: String { "member \(quotedName) twice (at byte \(offset))" }
}

/// The member names of the objects open in a JSON text, to find an object that names one
/// twice (`JSONSyntax` feeds it).
///
/// Names are compared as decoded strings (RFC 8259 §8.3: `"bundl\u0065Id"` is `"bundleId"`),
/// and as Swift compares strings: canonically equivalent names (`"é"` as U+00E9 and as
/// `e` U+0301, `"K"` and U+212A KELVIN SIGN) are the same name. Foundation's decoder keys its
/// objects by Swift `String`, so it would silently keep one of two such members where Python
/// reads both: refusing them is the only reading that cannot differ.
///
/// Linear and bounded: an object's names are kept while it is open and dropped when it
/// closes. This runs on every header and payload, so up to `linearLimit` names of ASCII an
/// object's names are compared one by one, by length and first bytes, where they stand in
/// the text, with one allocation for the whole text (App Store headers have three names,
/// payloads about twenty); past that, or once a name is not ASCII, they go into a
/// `Set<String>` (seeded per process, so chosen names cannot make it quadratic).
struct MemberNames {
    /// The names of the open objects' members, each object's after a marker, innermost last.
    private var entries: [Entry] = []
    /// The index of the innermost open object's marker (-1 when none is open).
    private var innermost = -1
    /// Entries from here on may refer to the piece being fed; those before it are `owned`.
    private var unownedFrom = 0
    /// The bytes of names that are not in the piece being fed (escaped, fed in earlier
    /// pieces), in the order of their entries.
    private var owned: [UInt8] = []
    /// The names of the open objects that are hashed, innermost last.
    private var hashed: [Set<String>] = []

    private struct Entry {
        /// A name's length and first seven bytes (`head(_:)`); for a marker, whether its
        /// object's names are hashed (1) or here (0).
        var head: UInt64
        /// Where a name's bytes start: their offset in the text when at least 0, else `~start`
        /// in `owned`; for a marker, the index of the marker before it.
        var start: Int
        /// A name's length in bytes; -1 for a marker.
        var count: Int

        var isOwned: Bool { count >= 0 && start < 0 }
    }

    static let linearLimit = 24

    /// The bytes a member name that is not ASCII may have. Such names are compared as Swift
    /// strings, by canonical equivalence, and Swift normalises a run of combining marks in
    /// more than linear time (a 160 KB name took 4.5 s): bounding each name bounds the cost
    /// per byte. App Store data names its members in ASCII, which has no such bound.
    static let nonASCIILimit = 1024
    /// The bytes all member names that are not ASCII may have in one text: each costs up to
    /// about 3 µs a byte to compare (1,000 names of 1 KB of combining marks took 2.9 s), so
    /// their total is bounded too, and the time with it (about 0.2 s).
    static let nonASCIITotalLimit = 64 << 10

    /// Whether `name` holds a byte that is not ASCII.
    static func isNotASCII(_ name: UnsafeBufferPointer<UInt8>) -> Bool { name.contains { $0 >= 0x80 } }

    /// An object opened.
    mutating func open() {
        // Enough for an App Store payload without growing.
        if entries.capacity == 0 { entries.reserveCapacity(32) }
        entries.append(Entry(head: 0, start: innermost, count: -1))
        innermost = entries.count - 1
    }

    /// The innermost object closed: its names are dropped.
    mutating func close() {
        guard innermost >= 0 else { return }
        let marker = entries[innermost]
        if marker.head != 0 { hashed.removeLast() }
        dropNames()
        entries.removeLast()
        unownedFrom = min(unownedFrom, entries.count)
        innermost = marker.start
    }

    /// Adds a decoded name to the innermost object; false when that object has it already.
    ///
    /// - Parameters:
    ///   - name: the name, decoded.
    ///   - textStart: where `name` starts in the text, when it is those bytes of `piece`
    ///     (nil: it is copied).
    ///   - piece, pieceOffset: the piece being fed, and its offset in the text.
    mutating func add(
        _ name: UnsafeBufferPointer<UInt8>, textStart: Int?, piece: UnsafePointer<UInt8>, pieceOffset: Int
    ) -> Bool {
        guard innermost >= 0 else { return true }
        if entries[innermost].head == 0 {
            if entries.count - innermost - 1 < Self.linearLimit, let head = Self.head(name) {
                if contains(name, head: head, piece: piece, pieceOffset: pieceOffset) { return false }
                if let textStart {
                    entries.append(Entry(head: head, start: textStart, count: name.count))
                } else {
                    keepNames(of: piece, at: pieceOffset)
                    entries.append(Entry(head: head, start: ~owned.count, count: name.count))
                    owned.append(contentsOf: name)
                    unownedFrom = entries.count
                }
                return true
            }
            // The names compared one by one go into a set: they are ASCII, so no two of them
            // are canonically equivalent, and none was equal.
            var set = Set<String>(minimumCapacity: 2 * (entries.count - innermost))
            owned.withUnsafeBufferPointer { owned in
                for entry in entries[(innermost + 1)...] {
                    let bytes = UnsafeBufferPointer(
                        start: Self.bytes(of: entry, piece: piece, pieceOffset: pieceOffset, owned: owned),
                        count: entry.count)
                    set.insert(String(decoding: bytes, as: UTF8.self))
                }
            }
            dropNames()
            entries[innermost].head = 1
            hashed.append(set)
        }
        // In place: the set is not copied.
        return hashed[hashed.count - 1].insert(String(decoding: name, as: UTF8.self)).inserted
    }

    /// A piece ends: the names that refer to it are copied into `owned`.
    mutating func keepNames(of piece: UnsafePointer<UInt8>, at pieceOffset: Int) {
        guard unownedFrom < entries.count else { return }
        for index in unownedFrom..<entries.count where entries[index].count >= 0 && entries[index].start >= 0 {
            let entry = entries[index]
            entries[index].start = ~owned.count
            owned.append(
                contentsOf: UnsafeBufferPointer(start: piece + (entry.start - pieceOffset), count: entry.count))
        }
        unownedFrom = entries.count
    }

    /// Whether the innermost object, its names compared one by one, has `name`.
    private func contains(
        _ name: UnsafeBufferPointer<UInt8>, head: UInt64, piece: UnsafePointer<UInt8>, pieceOffset: Int
    )
        -> Bool
    {
        entries.withUnsafeBufferPointer { entries in
            owned.withUnsafeBufferPointer { owned in
                for entry in entries[(innermost + 1)...] where entry.head == head && entry.count == name.count {
                    // The head holds all of a name under eight bytes.
                    guard name.count >= 8 else { return true }
                    let bytes = Self.bytes(of: entry, piece: piece, pieceOffset: pieceOffset, owned: owned)
                    if let other = name.baseAddress, memcmp(bytes, other, name.count) == 0 { return true }
                }
                return false
            }
        }
    }

    /// Drops the names after the innermost marker, and their owned bytes.
    private mutating func dropNames() {
        let names = entries.count - innermost - 1
        guard names > 0 else { return }
        // Owned bytes are in the order of their entries: the first owned name's start cuts.
        if let first = entries[(innermost + 1)...].first(where: \.isOwned) {
            owned.removeLast(owned.count - ~first.start)
        }
        entries.removeLast(names)
        unownedFrom = min(unownedFrom, entries.count)
    }

    @inline(__always)
    private static func bytes(
        of entry: Entry, piece: UnsafePointer<UInt8>, pieceOffset: Int, owned: UnsafeBufferPointer<UInt8>
    ) -> UnsafePointer<UInt8> {
        guard entry.start < 0 else { return piece + (entry.start - pieceOffset) }
        // An owned name of no bytes may start at the end of `owned` (possibly nil): any pointer will do.
        return owned.baseAddress.map { $0 + ~entry.start } ?? piece
    }

    /// A name's length and first seven bytes in one word (two names of under eight bytes
    /// and the same length are equal exactly when their heads are); nil when the name is not
    /// ASCII.
    @inline(__always)
    private static func head(_ name: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard let base = name.baseAddress else { return 0 }
        let raw = UnsafeRawPointer(base)
        let count = name.count
        // Eight bytes at a time: none of them may have its high bit set.
        var high: UInt64 = 0
        var index = 0
        while index + 8 <= count {
            high |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        var first: UInt64 = 0
        if count >= 8 {
            first = raw.loadUnaligned(as: UInt64.self).littleEndian & 0x00FF_FFFF_FFFF_FFFF
            high |= raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else {
            for index in 0..<count {
                high |= UInt64(base[index])
                first |= UInt64(base[index]) << (8 * UInt64(index))
            }
        }
        guard high & 0x8080_8080_8080_8080 == 0 else { return nil }
        return UInt64(truncatingIfNeeded: count) << 56 | first
    }

    /// A name's bytes with its escapes resolved (the text between its quotes, valid JSON
    /// escapes expected): UTF-8, an unpaired surrogate as U+FFFD (two such names then compare
    /// equal: refused rather than told apart), an unknown escape as its character.
    static func unescape(_ raw: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var index = raw.startIndex
        /// The four hexadecimal digits at `index` (advancing past them), or nil.
        func hex4() -> UInt32? {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard index != raw.endIndex, let digit = JSONSyntax.hexValue(raw[index]) else { return nil }
                value = value << 4 | UInt32(digit)
                index = raw.index(after: index)
            }
            return value
        }
        while index != raw.endIndex {
            let byte = raw[index]
            index = raw.index(after: index)
            guard byte == 0x5C, index != raw.endIndex else {
                out.append(byte)
                continue
            }
            let escape = raw[index]
            index = raw.index(after: index)
            switch escape {
            case 0x62: out.append(0x08)  // b
            case 0x66: out.append(0x0C)  // f
            case 0x6E: out.append(0x0A)  // n
            case 0x72: out.append(0x0D)  // r
            case 0x74: out.append(0x09)  // t
            case 0x75:  // u
                guard var scalar = hex4() else { continue }
                if (0xD800...0xDBFF).contains(scalar) {
                    // A high surrogate: with the low one after it, one scalar.
                    let rest = index
                    if index != raw.endIndex, raw[index] == 0x5C, raw.index(after: index) != raw.endIndex,
                        raw[raw.index(after: index)] == 0x75
                    {
                        index = raw.index(index, offsetBy: 2)
                        if let low = hex4(), (0xDC00...0xDFFF).contains(low) {
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else {
                            index = rest
                        }
                    }
                }
                UTF8.encode(Unicode.Scalar(scalar) ?? "\u{FFFD}") { out.append($0) }
            default: out.append(escape)  // " \ / (and, leniently, any other)
            }
        }
        return out
    }
}
