internal import COpenSSL

/// One `ReceiptAttribute ::= SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`
/// of a legacy receipt or of one of its in-app entries.
package struct ReceiptAttribute: Sendable, Equatable {
    /// The field type (2 = bundle ID, 17 = an in-app entry, 1702 = product ID…).
    package let type: Int
    /// The attribute's version (not shown by verifyReceipt).
    package let version: Int64
    /// The OCTET STRING's contents: the DER of the value's own type (raw bytes for the opaque
    /// value and the SHA-1 hash).
    package let bytes: [UInt8]

    /// The value decoded as the ASN.1 it holds.
    package var value: ReceiptValue { ReceiptValue(der: bytes) }
}

/// A receipt attribute's value, decoded with `d2i_ASN1_TYPE`.
package enum ReceiptValue: Sendable, Equatable {
    /// A UTF8String (names, versions, IDs).
    case utf8String(String)
    /// An IA5String (dates).
    case ia5String(String)
    /// An INTEGER that fits in 64 bits.
    case integer(Int64)
    /// Anything else (opaque bytes, SETs, integers beyond 64 bits, bytes that are not one
    /// complete DER value): the attribute's bytes as they are.
    case raw([UInt8])

    /// Decodes one complete DER value; anything else is `.raw`.
    init(der: [UInt8]) {
        self = Self.primitive(der) ?? ReceiptValue(decodingWhole: der)
    }

    /// `init(der:)` by `d2i_ASN1_TYPE` alone, whatever the value (what `primitive` must agree with).
    init(decodingWhole der: [UInt8]) {
        self = der.withUnsafeBufferPointer { buffer -> ReceiptValue in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard !buffer.isEmpty, let type = d2i_ASN1_TYPE(nil, &cursor, buffer.count) else {
                OpenSSLError.drain()
                return .raw(der)
            }
            defer { ASN1_TYPE_free(type) }
            guard let cursor, cursor - buffer.baseAddress! == buffer.count else { return .raw(der) }
            switch ASN1_TYPE_get(type) {
            case V_ASN1_UTF8STRING:
                return .utf8String(
                    String(decoding: CMSSignedData.bytes(of: type.pointee.value.utf8string), as: UTF8.self))
            case V_ASN1_IA5STRING:
                return .ia5String(
                    String(decoding: CMSSignedData.bytes(of: type.pointee.value.ia5string), as: UTF8.self))
            case V_ASN1_INTEGER:
                var number: Int64 = 0
                guard ASN1_INTEGER_get_int64(&number, type.pointee.value.integer) == 1 else {
                    OpenSSLError.drain()
                    return .raw(der)
                }
                return .integer(number)
            default:
                return .raw(der)
            }
        }
    }

    /// The value of the shapes receipts hold, read in place: a UTF8String, an IA5String or a
    /// non-negative INTEGER whose content is its magnitude, primitive and of definite length
    /// (`ASN1_get_object`), filling `der`; nil for anything else, which `d2i_ASN1_TYPE` then
    /// reads (so that the value is the same either way, without its allocations).
    static func primitive(_ der: [UInt8]) -> ReceiptValue? {
        der.withUnsafeBufferPointer { buffer -> ReceiptValue? in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
            var cursor: UnsafePointer<UInt8>? = base
            var length = 0
            var tag: Int32 = 0
            var tagClass: Int32 = 0
            let result = ASN1_get_object(&cursor, &length, &tag, &tagClass, buffer.count)
            guard result == 0, tagClass == V_ASN1_UNIVERSAL, let content = cursor, length >= 0,
                content + length == base + buffer.count
            else {
                OpenSSLError.drain()
                return nil
            }
            let bytes = UnsafeBufferPointer(start: content, count: length)
            switch tag {
            case V_ASN1_UTF8STRING: return .utf8String(String(decoding: bytes, as: UTF8.self))
            case V_ASN1_IA5STRING: return .ia5String(String(decoding: bytes, as: UTF8.self))
            case V_ASN1_INTEGER:
                guard let number = magnitude(bytes) else {
                    OpenSSLError.drain()
                    return nil
                }
                return .integer(number)
            default: return nil
            }
        }
    }

    /// The INTEGER whose content is `content`, when that content is its magnitude (it starts
    /// 01–7F, or is one 00 byte: a non-negative INTEGER as OpenSSL keeps an ASN1_INTEGER), read
    /// in place by `ASN1_INTEGER_get_int64` (no copy, no allocation); nil for any other content,
    /// or a number beyond 64 bits (OpenSSL's error left queued).
    static func magnitude(_ content: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let start = content.baseAddress, content.count > 0,
            content[0] < 0x80, content[0] != 0 || content.count == 1
        else { return nil }
        var inPlace = asn1_string_st(
            length: Int32(content.count), type: V_ASN1_INTEGER, data: UnsafeMutablePointer(mutating: start), flags: 0)
        var number: Int64 = 0
        return ASN1_INTEGER_get_int64(&number, &inPlace) == 1 ? number : nil
    }

    /// The value of a DER value given in lowercase or uppercase hex (as JSON output shows an
    /// undocumented field); nil when the text is not hex.
    package init?(hex: String) {
        let digits = Array(hex.utf8)
        guard !digits.isEmpty, digits.count % 2 == 0, digits.count <= 2 * CMSSignedData.maximumSize else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self.init(der: bytes)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The value as a reader sees it: `UTF8String "…"`, `IA5String "…"`, `INTEGER 42`; nil for raw bytes.
    package var shown: String? {
        switch self {
        case .utf8String(let text): "UTF8String \"\(text)\""
        case .ia5String(let text): "IA5String \"\(text)\""
        case .integer(let number): "INTEGER \(number)"
        case .raw: nil
        }
    }

    /// The text of a UTF8String or IA5String.
    package var string: String? {
        switch self {
        case .utf8String(let text), .ia5String(let text): text
        default: nil
        }
    }

    /// The number of an INTEGER.
    package var integer: Int64? {
        if case .integer(let number) = self { return number }
        return nil
    }
}

/// Decoding `SET OF ReceiptAttribute` with OpenSSL's ASN.1 API (`d2i_ASN1_SET_ANY`,
/// `d2i_ASN1_SEQUENCE_ANY`, `ASN1_INTEGER_get_int64`).
enum ReceiptAttributeSet {
    /// Refuses a SET that holds a documented field (`names`, by type) more than once: Apple's
    /// receipts never do, and a reader that takes the first and another that takes the last
    /// would disagree on the bundle ID or an expiry. Linear: one pass, the documented fields
    /// seen kept as bits (a receipt documents 8 fields, an in-app entry 12; at most 64).
    static func refuseDuplicates(
        in attributes: [ReceiptAttribute], of documented: [(type: Int, name: String)], what: @autoclosure () -> String
    ) throws(ReceiptPayload.DecodingError) {
        precondition(documented.count <= 64, "more documented fields than bits")
        var seen: UInt64 = 0
        for attribute in attributes {
            guard let place = documented.firstIndex(where: { $0.type == attribute.type }) else { continue }
            let bit: UInt64 = 1 << UInt64(place)
            guard seen & bit == 0 else {
                throw .duplicateField(what: what(), name: documented[place].name, type: attribute.type)
            }
            seen |= bit
        }
    }

    /// Decodes the DER of a SET of attribute SEQUENCEs, refusing more than `limit` elements
    /// before OpenSSL decodes them (counted with `ASN1_get_object`, OpenSSL's TLV header reader).
    ///
    /// - Parameter what: "the receipt" or "in-app entry 3", for messages.
    static func decode(_ der: [UInt8], limit: Int, what describe: @autoclosure () -> String)
        throws(ReceiptPayload.DecodingError)
        -> [ReceiptAttribute]
    {
        if let attributes = walk(der, limit: limit) { return attributes }
        return try decodeWhole(der, limit: limit, what: describe())
    }

    /// `decode` by OpenSSL's `d2i_ASN1_SET_ANY` and `d2i_ASN1_SEQUENCE_ANY` alone, whatever the
    /// bytes (what `walk` must agree with).
    static func decodeWhole(_ der: [UInt8], limit: Int, what: String) throws(ReceiptPayload.DecodingError)
        -> [ReceiptAttribute]
    {
        try refuseMoreElements(than: limit, in: der, what: what)
        return try der.withUnsafeBufferPointer { buffer throws(ReceiptPayload.DecodingError) -> [ReceiptAttribute] in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard !buffer.isEmpty, let set = d2i_ASN1_SET_ANY(nil, &cursor, buffer.count) else {
                throw .notASet(what: what, reason: OpenSSLError.describe(or: "d2i_ASN1_SET_ANY failed"))
            }
            defer { COpenSSL_sk_ASN1_TYPE_pop_free(set) }
            let consumed = cursor.map { $0 - buffer.baseAddress! } ?? 0
            guard consumed == buffer.count else {
                throw .notASet(what: what, reason: "\(buffer.count - consumed) bytes follow the SET")
            }
            let count = Int(COpenSSL_sk_ASN1_TYPE_num(set))
            guard count <= limit else { throw .tooManyAttributes(what: what, count: count, limit: limit) }
            var attributes: [ReceiptAttribute] = []
            attributes.reserveCapacity(count)
            for index in 0..<count {
                guard let element = COpenSSL_sk_ASN1_TYPE_value(set, Int32(index)),
                    ASN1_TYPE_get(element) == V_ASN1_SEQUENCE
                else { throw .malformedAttribute(what: what, index: index, reason: "not a SEQUENCE") }
                let sequence = CMSSignedData.bytes(of: element.pointee.value.sequence)
                attributes.append(try attribute(sequence, what: what, index: index))
            }
            return attributes
        }
    }

    /// The attributes of a SET in the shape every receipt has, read in one walk over its bytes:
    /// each header by `ASN1_get_object` (OpenSSL's TLV header reader), each INTEGER by
    /// `ASN1_INTEGER_get_int64` (read in place when its content is its magnitude, else decoded by
    /// `d2i_ASN1_INTEGER` into one reused object), nothing else
    /// decoded or copied but each value's bytes. Nil whenever the bytes are not exactly that
    /// shape (a SET and SEQUENCEs of definite length, primitive INTEGERs and OCTET STRINGs
    /// filling them, nothing after the SET), the count exceeds `limit`, or an integer does not
    /// read: `decode` then reads them as OpenSSL's `d2i_ASN1_SET_ANY` does, so that what it
    /// accepts, refuses and says is the same either way, the walk only cheaper.
    static func walk(_ der: [UInt8], limit: Int) -> [ReceiptAttribute]? {
        der.withUnsafeBufferPointer { buffer -> [ReceiptAttribute]? in
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return nil }
            defer { OpenSSLError.drain() }
            var integer: UnsafeMutablePointer<ASN1_INTEGER>? = nil
            defer { if let integer { ASN1_INTEGER_free(integer) } }
            /// The header at `cursor` within `end`: its content's start and length, or nil
            /// unless it is universal, of `tag`, definite, and constructed as `constructed` says.
            func header(
                _ cursor: UnsafePointer<UInt8>, _ end: UnsafePointer<UInt8>, tag expected: Int32, constructed: Bool
            )
                -> (content: UnsafePointer<UInt8>, length: Int)?
            {
                var next: UnsafePointer<UInt8>? = cursor
                var length = 0
                var tag: Int32 = 0
                var tagClass: Int32 = 0
                let result = ASN1_get_object(&next, &length, &tag, &tagClass, end - cursor)
                guard result == (constructed ? V_ASN1_CONSTRUCTED : 0), tag == expected,
                    tagClass == V_ASN1_UNIVERSAL, let next, length >= 0, length <= end - next
                else { return nil }
                return (next, length)
            }
            /// The INTEGER whose TLV is the `length` bytes at `cursor` and whose content is
            /// `content`, as a 64-bit number.
            func number(
                _ cursor: UnsafePointer<UInt8>, _ length: Int, content: (start: UnsafePointer<UInt8>, length: Int)
            )
                -> Int64?
            {
                // A content that is its magnitude (every receipt's): read in place.
                let magnitude = UnsafeBufferPointer(start: content.start, count: content.length)
                if let value = ReceiptValue.magnitude(magnitude) { return value }
                // Any other (negative, padded, empty, beyond 64 bits): decoded whole by
                // d2i_ASN1_INTEGER, which reads or refuses it as d2i_ASN1_SET_ANY would.
                var value: Int64 = 0
                var read: UnsafePointer<UInt8>? = cursor
                guard let decoded = d2i_ASN1_INTEGER(&integer, &read, length), read == cursor + length else {
                    return nil
                }
                guard ASN1_INTEGER_get_int64(&value, decoded) == 1 else { return nil }
                return value
            }
            let end = base + buffer.count
            guard let set = header(base, end, tag: V_ASN1_SET, constructed: true), set.content + set.length == end
            else { return nil }
            var attributes: [ReceiptAttribute] = []
            var cursor = set.content
            while cursor < end {
                guard attributes.count < limit,
                    let sequence = header(cursor, end, tag: V_ASN1_SEQUENCE, constructed: true)
                else { return nil }
                let sequenceEnd = sequence.content + sequence.length
                guard let type = header(sequence.content, sequenceEnd, tag: V_ASN1_INTEGER, constructed: false)
                else { return nil }
                let versionStart = type.content + type.length
                guard let version = header(versionStart, sequenceEnd, tag: V_ASN1_INTEGER, constructed: false)
                else { return nil }
                let valueStart = version.content + version.length
                guard let value = header(valueStart, sequenceEnd, tag: V_ASN1_OCTET_STRING, constructed: false),
                    value.content + value.length == sequenceEnd,
                    let typeNumber = number(
                        sequence.content, versionStart - sequence.content, content: (type.content, type.length)),
                    let fieldType = Int(exactly: typeNumber), fieldType >= 0,
                    let versionNumber = number(
                        versionStart, valueStart - versionStart, content: (version.content, version.length))
                else { return nil }
                attributes.append(
                    ReceiptAttribute(
                        type: fieldType, version: versionNumber,
                        bytes: Array(UnsafeBufferPointer(start: value.content, count: value.length))))
                cursor = sequenceEnd
            }
            return attributes
        }
    }

    /// Decodes one `SEQUENCE { INTEGER, INTEGER, OCTET STRING }` (its whole DER).
    private static func attribute(_ der: [UInt8], what: String, index: Int) throws(ReceiptPayload.DecodingError)
        -> ReceiptAttribute
    {
        try der.withUnsafeBufferPointer { buffer throws(ReceiptPayload.DecodingError) -> ReceiptAttribute in
            func fail(_ reason: String) -> ReceiptPayload.DecodingError {
                .malformedAttribute(what: what, index: index, reason: reason)
            }
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            guard let sequence = d2i_ASN1_SEQUENCE_ANY(nil, &cursor, buffer.count) else {
                throw fail(OpenSSLError.describe(or: "d2i_ASN1_SEQUENCE_ANY failed"))
            }
            defer { COpenSSL_sk_ASN1_TYPE_pop_free(sequence) }
            guard COpenSSL_sk_ASN1_TYPE_num(sequence) == 3,
                let type = COpenSSL_sk_ASN1_TYPE_value(sequence, 0),
                let version = COpenSSL_sk_ASN1_TYPE_value(sequence, 1),
                let value = COpenSSL_sk_ASN1_TYPE_value(sequence, 2),
                ASN1_TYPE_get(type) == V_ASN1_INTEGER, ASN1_TYPE_get(version) == V_ASN1_INTEGER,
                ASN1_TYPE_get(value) == V_ASN1_OCTET_STRING
            else { throw fail("not SEQUENCE { INTEGER, INTEGER, OCTET STRING }") }
            var typeNumber: Int64 = 0
            var versionNumber: Int64 = 0
            guard ASN1_INTEGER_get_int64(&typeNumber, type.pointee.value.integer) == 1,
                let fieldType = Int(exactly: typeNumber), fieldType >= 0
            else {
                OpenSSLError.drain()
                throw fail("its type is not an integer from 0 to \(Int.max)")
            }
            guard ASN1_INTEGER_get_int64(&versionNumber, version.pointee.value.integer) == 1 else {
                OpenSSLError.drain()
                throw fail("its version does not fit in 64 bits")
            }
            return ReceiptAttribute(
                type: fieldType, version: versionNumber,
                bytes: CMSSignedData.bytes(of: value.pointee.value.octet_string))
        }
    }

    /// Throws `.tooManyAttributes` when the outer SET of `der` has more than `limit` elements,
    /// counting element headers with `ASN1_get_object` (stops at `limit + 1`). Indefinite
    /// lengths and malformed headers end the count early: `d2i_ASN1_SET_ANY` then judges.
    private static func refuseMoreElements(than limit: Int, in der: [UInt8], what: String)
        throws(ReceiptPayload.DecodingError)
    {
        let count = der.withUnsafeBufferPointer { buffer -> Int in
            guard let base = buffer.baseAddress else { return 0 }
            var cursor: UnsafePointer<UInt8>? = base
            var length = 0
            var tag: Int32 = 0
            var tagClass: Int32 = 0
            let header = ASN1_get_object(&cursor, &length, &tag, &tagClass, buffer.count)
            guard header & 0x80 == 0, header & 0x01 == 0, var position = cursor else {
                OpenSSLError.drain()
                return 0
            }
            let end = position + min(length, buffer.count - (position - base))
            var count = 0
            while position < end, count <= limit {
                var element: UnsafePointer<UInt8>? = position
                let result = ASN1_get_object(&element, &length, &tag, &tagClass, end - position)
                guard result & 0x80 == 0, result & 0x01 == 0, let next = element, length <= end - next else {
                    OpenSSLError.drain()
                    break
                }
                position = next + length
                count += 1
            }
            return count
        }
        if count > limit { throw .tooManyAttributes(what: what, count: count, limit: limit) }
    }
}
