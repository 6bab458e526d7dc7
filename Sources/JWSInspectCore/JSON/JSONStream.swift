package import FoundationEssentials

/// JSON written as it is produced, straight into one buffer: the same text `OrderedJSON`'s
/// writer makes of the same members (compact, or pretty with two-space indentation), without
/// building the value first. Output records are written so, member by member, from what a
/// result holds: no tree of members, strings or arrays per record.
///
/// The caller keeps the structure: `openObject`, then `key` before each member's value, then
/// `closeObject`; `openArray`, `element` before each element, `closeArray`. A value is one of
/// the `string`, `integer`, `bool`, `null`, `raw` (a JSON text re-indented), `preformatted`
/// (text serialized for this place) calls, or a nested object or array.
package struct JSONStream {
    /// The text so far, in a buffer of its own (`OutputBytes`: an append is a bounds check and
    /// a copy).
    package private(set) var output: OutputBytes
    /// The text so far, as UTF-8 (a copy of `output`).
    package var bytes: [UInt8] { output.array }
    /// Pretty (two-space indentation) or compact.
    package let pretty: Bool
    /// The depth of the container being written (its members are at `level`).
    package private(set) var level: Int
    /// Whether the container being written has no member yet, one bit a depth (the innermost
    /// last); containers nest at most 64 deep below the start (output records nest 5).
    private var empty: UInt64 = 0

    /// A stream at `level` (the depth a value written first will be at: 0 for a whole
    /// document, as `OrderedJSON.serialized(level:)` takes it), its buffer reserved.
    package init(pretty: Bool, level: Int = 0, capacity: Int = 0) {
        self.pretty = pretty
        self.level = level
        output = OutputBytes(capacity: capacity)
    }

    // MARK: Containers

    package mutating func openObject() { open(UInt8(ascii: "{")) }
    package mutating func closeObject() { close(UInt8(ascii: "}")) }
    package mutating func openArray() { open(UInt8(ascii: "[")) }
    package mutating func closeArray() { close(UInt8(ascii: "]")) }

    /// Starts a member: its separator, line and name (a name written in code: plain ASCII, no
    /// character JSON escapes).
    package mutating func key(_ name: StaticString) {
        separate()
        output.write(UInt8(ascii: "\""))
        output.write(name)
        output.write(UInt8(ascii: "\""))
        colon()
    }

    /// Starts a member whose name is data known to need no escape (printable ASCII, no quote
    /// or backslash: `FieldName.isPlain`), copied as it is.
    package mutating func key(plain name: String) {
        separate()
        plain(name)
        colon()
    }

    /// Starts a member whose name is data (escaped as any string).
    package mutating func key(data name: String) {
        separate()
        OrderedJSON.writeString(name, to: &output)
        colon()
    }

    /// Starts an element of the array being written.
    package mutating func element() { separate() }

    private mutating func open(_ bracket: UInt8) {
        precondition(level < 64 + 64, "JSONStream: nested too deep")
        output.write(bracket)
        level += 1
        empty = empty << 1 | 1
    }

    private mutating func close(_ bracket: UInt8) {
        level -= 1
        let wasEmpty = empty & 1 != 0
        empty >>= 1
        // An empty container stays "{}" or "[]"; a filled one closes on a line of its own.
        if !wasEmpty { newline(level) }
        output.write(bracket)
    }

    private mutating func separate() {
        if empty & 1 == 0 { output.write(UInt8(ascii: ",")) }
        empty &= ~1
        newline(level)
    }

    private mutating func colon() {
        output.write(UInt8(ascii: ":"))
        if pretty { output.write(UInt8(ascii: " ")) }
    }

    private mutating func newline(_ level: Int) {
        OrderedJSON.newline(&output, pretty: pretty, level: level)
    }

    // MARK: Values

    /// The line feed that ends a record (JSON Lines, or a pretty document), after its value.
    package mutating func newlineAfterRecord() { output.write(UInt8(ascii: "\n")) }

    /// A string, escaped as `OrderedJSON` escapes it.
    package mutating func string(_ text: String) { OrderedJSON.writeString(text, to: &output) }

    /// A string known to need no escape (an identifier written in code: a status, a kind, a
    /// check's name: printable ASCII, no quote or backslash), copied as it is.
    package mutating func plain(_ text: String) {
        output.write(UInt8(ascii: "\""))
        output.write(utf8: text)
        output.write(UInt8(ascii: "\""))
    }

    /// A string, or `null`.
    package mutating func string(_ text: String?) {
        if let text { string(text) } else { null() }
    }

    /// An ISO-8601 date as `ISO8601.string` writes it, without making a String.
    package mutating func date(_ date: Date?) {
        output.write(UInt8(ascii: "\""))
        ISO8601.write(date, to: &output)
        output.write(UInt8(ascii: "\""))
    }

    package mutating func integer(_ value: Int64) { OrderedJSON.writeInteger(value, into: &output) }

    package mutating func bool(_ value: Bool) { output.write(value ? "true" : "false") }

    package mutating func bool(_ value: Bool?) {
        if let value { bool(value) } else { null() }
    }

    package mutating func null() { output.write("null") }

    /// A valid JSON text as signed, only the whitespace between its tokens changed
    /// (`OrderedJSON.raw`).
    package mutating func raw(_ text: [UInt8]) {
        OrderedJSON.reformat(text, to: &output, pretty: pretty, level: level)
    }

    /// `raw(text)` for a text known to be compact, no whitespace between its tokens and no raw
    /// control character (`CompactJWS.DecodedSegment.isCompact`): copied whole when compact is
    /// what is written.
    package mutating func raw(_ text: [UInt8], isCompact: Bool) {
        if isCompact && !pretty { text.withUnsafeBufferPointer { output.write($0) } } else { raw(text) }
    }

    /// Text already serialized for this place (this mode, this depth: `OrderedJSON.preformatted`).
    package mutating func preformatted(_ text: [UInt8]) { text.withUnsafeBufferPointer { output.write($0) } }

    /// A decoded value, written as `OrderedJSON(value)` is (an object's members sorted by name).
    package mutating func value(_ value: JSONValue) {
        switch value {
        case .string(let text): string(text)
        case .integer(let number): integer(number)
        case .bool(let flag): bool(flag)
        case .null: null()
        case .array(let values):
            openArray()
            for item in values {
                element()
                self.value(item)
            }
            closeArray()
        case .object, .double: self.value(OrderedJSON(value))
        }
    }

    /// A value built as `OrderedJSON`, written here as its writer writes it.
    package mutating func value(_ value: OrderedJSON) { value.write(to: &output, pretty: pretty, level: level) }
}
