public import FoundationEssentials

/// JSON written as it is produced, straight into one buffer: the same text `OrderedJSON`'s
/// writer makes of the same members (compact, or pretty with two-space indentation), without
/// building the value first. Output records are written so, member by member, from what a
/// result holds: no tree of members, strings or arrays per record.
///
/// The caller keeps the structure: `openObject`, then `key` before each member's value, then
/// `closeObject`; `openArray`, `element` before each element, `closeArray`. A value is one of
/// the `string`, `integer`, `bool`, `null`, `raw` (a JSON text re-indented), `preformatted`
/// (text serialized for this place) calls, or a nested object or array.
public struct JSONStream {
    /// The text so far, as UTF-8.
    public private(set) var bytes: [UInt8]
    /// Pretty (two-space indentation) or compact.
    public let pretty: Bool
    /// The depth of the container being written (its members are at `level`).
    public private(set) var level: Int
    /// Whether the container being written has no member yet, one bit a depth (the innermost
    /// last); containers nest at most 64 deep below the start (output records nest 5).
    private var empty: UInt64 = 0

    /// A stream at `level` (the depth a value written first will be at: 0 for a whole
    /// document, as `OrderedJSON.serialized(level:)` takes it), its buffer reserved.
    public init(pretty: Bool, level: Int = 0, capacity: Int = 0) {
        self.pretty = pretty
        self.level = level
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Containers

    public mutating func openObject() { open(UInt8(ascii: "{")) }
    public mutating func closeObject() { close(UInt8(ascii: "}")) }
    public mutating func openArray() { open(UInt8(ascii: "[")) }
    public mutating func closeArray() { close(UInt8(ascii: "]")) }

    /// Starts a member: its separator, line and name (a name written in code: plain ASCII, no
    /// character JSON escapes).
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        bytes.append(UInt8(ascii: "\""))
        colon()
    }

    /// Starts a member whose name is data known to need no escape (printable ASCII, no quote
    /// or backslash: `FieldName.isPlain`), copied as it is.
    public mutating func key(plain name: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: name.utf8)
        bytes.append(UInt8(ascii: "\""))
        colon()
    }

    /// Starts a member whose name is data (escaped as any string).
    public mutating func key(data name: String) {
        separate()
        OrderedJSON.writeString(name, into: &bytes)
        colon()
    }

    /// Starts an element of the array being written.
    public mutating func element() { separate() }

    private mutating func open(_ bracket: UInt8) {
        precondition(level < 64 + 64, "JSONStream: nested too deep")
        bytes.append(bracket)
        level += 1
        empty = empty << 1 | 1
    }

    private mutating func close(_ bracket: UInt8) {
        level -= 1
        let wasEmpty = empty & 1 != 0
        empty >>= 1
        // An empty container stays "{}" or "[]"; a filled one closes on a line of its own.
        if !wasEmpty { newline(level) }
        bytes.append(bracket)
    }

    private mutating func separate() {
        if empty & 1 == 0 { bytes.append(UInt8(ascii: ",")) }
        empty &= ~1
        newline(level)
    }

    private mutating func colon() {
        bytes.append(UInt8(ascii: ":"))
        if pretty { bytes.append(UInt8(ascii: " ")) }
    }

    private mutating func newline(_ level: Int) {
        guard pretty else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: level * 2))
    }

    // MARK: Values

    /// A string, escaped as `OrderedJSON` escapes it.
    public mutating func string(_ text: String) { OrderedJSON.writeString(text, into: &bytes) }

    /// A string known to need no escape (an identifier written in code: a status, a kind, a
    /// check's name: printable ASCII, no quote or backslash), copied as it is.
    public mutating func plain(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: text.utf8)
        bytes.append(UInt8(ascii: "\""))
    }

    /// A string, or `null`.
    public mutating func string(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    /// An ISO-8601 date as `ISO8601.string` writes it, without making a String.
    public mutating func date(_ date: Date?) {
        bytes.append(UInt8(ascii: "\""))
        ISO8601.write(date, into: &bytes)
        bytes.append(UInt8(ascii: "\""))
    }

    public mutating func integer(_ value: Int64) { OrderedJSON.writeInteger(value, into: &bytes) }

    public mutating func bool(_ value: Bool) { bytes.append(contentsOf: (value ? "true" : "false").utf8) }

    public mutating func bool(_ value: Bool?) {
        if let value { bool(value) } else { null() }
    }

    public mutating func null() { bytes.append(contentsOf: "null".utf8) }

    /// A valid JSON text as signed, only the whitespace between its tokens changed
    /// (`OrderedJSON.raw`).
    public mutating func raw(_ text: [UInt8]) {
        OrderedJSON.reformat(text, into: &bytes, pretty: pretty, level: level)
    }

    /// `raw(text)` for a text known to be compact, no whitespace between its tokens and no raw
    /// control character (`CompactJWS.DecodedSegment.isCompact`): copied whole when compact is
    /// what is written.
    public mutating func raw(_ text: [UInt8], isCompact: Bool) {
        if isCompact && !pretty { bytes.append(contentsOf: text) } else { raw(text) }
    }

    /// Text already serialized for this place (this mode, this depth: `OrderedJSON.preformatted`).
    public mutating func preformatted(_ text: [UInt8]) { bytes.append(contentsOf: text) }

    /// A value built as `OrderedJSON`, written here as its writer writes it.
    public mutating func value(_ value: OrderedJSON) { value.write(into: &bytes, pretty: pretty, level: level) }
}
