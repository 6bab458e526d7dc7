/// Identifiers compared as Apple compares them: by their bytes (code points), never by Swift's
/// `String` equality, which is canonical equivalence (`"K"` equals U+212A KELVIN SIGN, a
/// composed accent equals its decomposed form) and normalises in more than linear time.
///
/// Bundle IDs, environments, transaction IDs, UUIDs and every other identifier read from
/// signed data are compared with `same(_:_:)` or kept as `ExactText` keys.
package enum Exact {
    /// Whether `a` and `b` have the same UTF-8 bytes.
    @inlinable
    package static func same(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    /// `text` when it is ASCII, else nil: what a `switch` over documented (ASCII) values, or a
    /// table of them, may look up, since a string that is not ASCII can equal an ASCII one
    /// only by canonical equivalence (U+212A KELVIN SIGN is `"K"`), never by its bytes.
    @inlinable
    package static func ascii(_ text: String?) -> String? {
        guard let text, text.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        return text
    }

    /// Whether `a` and `b` are both nil, or both have the same UTF-8 bytes.
    @inlinable
    package static func same(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): same(a, b)
        default: false
        }
    }
}

/// A `String` that is equal to another and hashes by its UTF-8 bytes only (`Exact`): a key for
/// the dictionaries and sets that group App Store identifiers.
package struct ExactText: Hashable, Sendable, CustomStringConvertible {
    package let text: String

    package init(_ text: String) { self.text = text }

    package var description: String { text }

    package static func == (lhs: ExactText, rhs: ExactText) -> Bool { Exact.same(lhs.text, rhs.text) }

    package func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
