/// Where a value sits in a JSON document, as a source names it: `data[0].signedTransactionInfo`,
/// with ` → ` where a string holds a JSON document of its own (`body → signedPayload`).
///
/// Its components are kept while a document is walked, not a string per value: a path is
/// written out only for a string where something is found, and then at most `maximumLength`
/// bytes of it. A longer path (keys may be megabytes, and a document nests 512 levels) is
/// shown as its first `headLength` bytes, "…" and its last bytes, so that every item found
/// carries a source of bounded size however long its path: memory follows the record, not
/// the record times the number of items in it.
struct SourcePath {
    enum Component {
        /// An object's member.
        case key(String)
        /// An array's element.
        case index(Int)
        /// The JSON document a string holds.
        case document
    }

    /// The longest path shown whole, in UTF-8 bytes.
    static let maximumLength = 128
    /// Bytes kept from the start of a longer path; the rest of `maximumLength`, less the
    /// ellipsis, is kept from its end (the member that holds the value, and where it is).
    static let headLength = 40
    static let ellipsis = "…"

    private(set) var components: [Component] = []
    /// The length in bytes of the path written out up to and including each component.
    private var ends: [Int] = []

    var count: Int { components.count }

    /// The length in bytes of the whole path written out.
    var length: Int { ends.last ?? 0 }

    mutating func append(_ component: Component) {
        let (lead, key) = Self.parts(of: component, after: components.last)
        components.append(component)
        ends.append(length + lead.utf8.count + (key?.utf8.count ?? 0))
    }

    /// Removes components from the end until `count` are left.
    mutating func removeLast(to count: Int) {
        guard count < components.count else { return }
        components.removeLast(components.count - count)
        ends.removeLast(ends.count - count)
    }

    /// A component as written after `previous`: what leads it (a key after another key or an
    /// index takes a dot) and its key, kept apart so that a long key is never copied whole.
    private static func parts(of component: Component, after previous: Component?) -> (lead: String, key: String?) {
        switch component {
        case .key(let key):
            switch previous {
            case nil, .document: ("", key)
            case .key, .index: (".", key)
            }
        case .index(let index): ("[\(index)]", nil)
        case .document: (" → ", nil)
        }
    }

    private func parts(at index: Int) -> (lead: String, key: String?) {
        Self.parts(of: components[index], after: index > 0 ? components[index - 1] : nil)
    }

    /// The path written out: whole up to `maximumLength` bytes, else its start, "…" and its end,
    /// cut between Unicode scalars. Reads only the components it shows, and of each only the
    /// bytes it shows (every component but the first writes at least one byte), so its cost is
    /// bounded by `maximumLength` too, however long the keys.
    var description: String {
        guard length > Self.maximumLength else {
            return components.indices.map { index in
                let (lead, key) = parts(at: index)
                return lead + (key ?? "")
            }.joined()
        }
        // The start, up to one byte past the head (to see whether the head ends inside a character).
        var head: [UInt8] = []
        var index = 0
        while head.count <= Self.headLength, index < components.count {
            let (lead, key) = parts(at: index)
            head += lead.utf8.prefix(Self.headLength + 1 - head.count)
            if let key { head += key.utf8.prefix(Self.headLength + 1 - head.count) }
            index += 1
        }
        var headEnd = min(Self.headLength, head.count)
        while headEnd > 0, headEnd < head.count, head[headEnd] & 0xC0 == 0x80 { headEnd -= 1 }
        // The end, written backwards until it is long enough.
        let tailLength = Self.maximumLength - Self.headLength - Self.ellipsis.utf8.count
        var pieces: [[UInt8]] = []
        var tailCount = 0
        index = components.count - 1
        while tailCount < tailLength, index >= 0 {
            let (lead, key) = parts(at: index)
            for text in [key ?? "", lead] where tailCount < tailLength {
                let piece = Array(text.utf8.suffix(tailLength - tailCount))
                pieces.append(piece)
                tailCount += piece.count
            }
            index -= 1
        }
        var tail = Array(pieces.reversed().joined())
        // A cut inside a UTF-8 sequence drops its continuation bytes.
        tail.removeFirst(tail.firstIndex { $0 & 0xC0 != 0x80 } ?? tail.count)
        return String(decoding: head[..<headEnd], as: UTF8.self) + Self.ellipsis + String(decoding: tail, as: UTF8.self)
    }
}
