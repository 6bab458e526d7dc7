#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A compact-serialized JWS split into its three segments and decoded.
///
/// Decoding only: nothing here is verified. The signing input is kept exactly
/// as it appears in the token, never re-encoded.
package struct CompactJWS: Sendable {
    /// The token as given (ASCII).
    package let token: String
    /// The decoded header bytes (UTF-8 JSON as signed) and their parsed value.
    package let header: DecodedSegment
    /// The decoded payload bytes (UTF-8 JSON as signed) and their parsed value.
    package let payload: DecodedSegment
    /// The decoded signature bytes (empty for `header.payload.`).
    package let signature: [UInt8]

    /// A decoded JSON segment: the exact bytes and the object they hold. Immutable, and a
    /// class: a token's segments are handed from stage to stage (subject, envelope, result)
    /// by one reference each, not copied member by member.
    package final class DecodedSegment: Sendable {
        package let bytes: [UInt8]
        /// The members verification reads (for a header: all of them). Decoding only these
        /// keeps batch verification fast; `object` has everything.
        let essentials: [String: JSONValue]
        /// Whether `essentials` holds every member.
        let isComplete: Bool
        /// The payload kind recognised while decoding `essentials` (nil when not recognised then).
        let recognisedKind: PayloadKind?
        /// `bytes` with raw control characters in strings escaped, for Foundation, which refuses
        /// to decode them (nil when there are none, almost always).
        let decodable: [UInt8]?
        /// Every member, when they were read whole to pick `essentials` (`FastJSONObject`).
        let whole: [String: JSONValue]?
        /// Whether `bytes` are known to be compact JSON, no whitespace between tokens and no raw
        /// control character: JSON Lines writes them as they are (else re-indented, `OrderedJSON.raw`).
        package let isCompact: Bool

        init(
            bytes: [UInt8], essentials: [String: JSONValue], isComplete: Bool, recognisedKind: PayloadKind? = nil,
            decodable: [UInt8]? = nil, whole: [String: JSONValue]? = nil, isCompact: Bool = false
        ) {
            self.isCompact = isCompact
            self.bytes = bytes
            self.essentials = essentials
            self.isComplete = isComplete
            self.recognisedKind = recognisedKind
            self.decodable = decodable
            self.whole = whole
        }

        /// Every member, decoded on demand when `essentials` is a subset.
        package var object: [String: JSONValue] {
            guard !isComplete else { return essentials }
            if let whole { return whole }
            // The text was decoded once already, and checked as JSON: this cannot fail.
            return ((try? JSONValue.decodeObject(decodable ?? bytes)) ?? nil) ?? essentials
        }
    }

    /// Why a string is not a decodable compact JWS.
    package enum FormatError: Error, Equatable, Sendable, CustomStringConvertible {
        case segmentCount(Int)
        case emptySegment(String)
        case base64(segment: String, Base64URL.DecodingError)
        case notJSON(segment: String, String)
        case notObject(segment: String, String)
        /// An object in the segment names a member twice.
        case duplicateMember(segment: String, DuplicateMember)
        case tooLarge(Int, limit: Int)

        package var description: String {
            switch self {
            case .segmentCount(let count):
                "a compact JWS has 3 dot-separated segments (header.payload.signature), found \(count)"
            case .emptySegment(let segment): "the \(segment) segment is empty"
            case .base64(let segment, let error): "the \(segment) segment is not base64url: \(error)"
            case .notJSON(let segment, let detail): "the \(segment) is not valid JSON: \(detail)"
            case .notObject(let segment, let kind): "the \(segment) is \(kind), expected a JSON object"
            case .duplicateMember(let segment, let duplicate): "the \(segment) names \(duplicate)"
            case .tooLarge(let size, let limit): "the token is \(size) bytes, over the \(limit)-byte limit for one JWS"
            }
        }
    }

    /// The largest token accepted (1 MiB); real App Store tokens are under 20 KB.
    package static let maximumTokenSize = 1 << 20

    /// Splits and decodes a compact JWS.
    package init(_ token: String) throws(FormatError) {
        try self.init(token, decodedHeader: nil, payloadKeys: .all)
    }

    /// Splits and decodes a compact JWS whose header segment is already known decoded
    /// (it is byte-identical to one decoded before).
    ///
    /// Works on the token's own UTF-8 storage: this runs for every token of a batch, and
    /// copying a 4 KB token costs as much as decoding its signature.
    ///
    /// - Parameter payloadKeys: the payload members decoded into `essentials`.
    init(_ token: String, decodedHeader: DecodedSegment?, payloadKeys: PayloadKeys) throws(FormatError) {
        var text = token
        let parsed = text.withUTF8 { bytes in
            Result { () throws(FormatError) in
                try Self.parse(bytes, decodedHeader: decodedHeader, payloadKeys: payloadKeys)
            }
        }
        let (header, payload, signature, signingInputLength) = try parsed.get()
        self.token = token
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInputLength = signingInputLength
    }

    /// The length of the signing input `header.payload` at the start of `token`.
    let signingInputLength: Int

    /// Calls `body` with the signing input's bytes, read in place from the token.
    func withSigningInput<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        var text = token
        return text.withUTF8 { body(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: $0[..<signingInputLength]))) }
    }

    private static func parse(
        _ bytes: UnsafeBufferPointer<UInt8>, decodedHeader: DecodedSegment?, payloadKeys: PayloadKeys
    )
        throws(FormatError) -> (DecodedSegment, DecodedSegment, [UInt8], Int)
    {
        guard bytes.count <= Self.maximumTokenSize else { throw .tooLarge(bytes.count, limit: Self.maximumTokenSize) }
        let dots = Self.dotPositions(bytes)
        guard dots.count == 2 else { throw .segmentCount(dots.count + 1) }
        let parts = [bytes[..<dots[0]], bytes[(dots[0] + 1)..<dots[1]], bytes[(dots[1] + 1)...]]
        // An empty signature is a JWS all the same (`header.payload.`, an `alg: none` JWT):
        // verification says it is not signed.
        for (part, name) in zip(parts.prefix(2), ["header", "payload"]) where part.isEmpty { throw .emptySegment(name) }

        func decode(_ part: Slice<UnsafeBufferPointer<UInt8>>, _ name: String) throws(FormatError) -> [UInt8] {
            do { return try Base64URL.decode(UnsafeBufferPointer(rebasing: part)) } catch {
                throw .base64(segment: name, error)
            }
        }
        func object(_ bytes: [UInt8], _ name: String, essentialsOnly: Bool) throws(FormatError) -> DecodedSegment {
            // A payload FastJSONObject reads whole is one the strict check passes (it reads nothing
            // that check refuses, and no raw control character): one pass, not two.
            if essentialsOnly, let (members, compact) = FastJSONObject.parseNotingLayout(bytes) {
                let (object, kind) = payloadKeys.selection.plan.select(from: members)
                return DecodedSegment(
                    bytes: bytes, essentials: object, isComplete: false, recognisedKind: kind, whole: members,
                    isCompact: compact)
            }
            let decodable: [UInt8]?
            switch strictText(bytes) {
            case .success(let copy): decodable = copy
            case .failure(.duplicateMember(let duplicate)): throw .duplicateMember(segment: name, duplicate)
            case .failure(.notJSON(let problem)): throw .notJSON(segment: name, problem)
            case .failure(.notAnObject): throw .notObject(segment: name, "not an object")  // strictText never says so
            }
            let object: [String: JSONValue]?
            var kind: PayloadKind?
            var whole: [String: JSONValue]?
            do {
                if essentialsOnly, let decodable, let (members, _) = FastJSONObject.parseNotingLayout(decodable) {
                    // Read whole at once (raw control characters escaped): the essentials are picked
                    // from it, the rest kept for output.
                    (object, kind) = payloadKeys.selection.plan.select(from: members)
                    whole = members
                } else if essentialsOnly {
                    // Declined by FastJSONObject: Foundation's reading, without asking it again.
                    let selected = try JSONValue.decodeObjectWithFoundation(
                        decodable ?? bytes, selection: payloadKeys.selection)
                    object = selected?.members
                    kind = selected?.kind
                } else {
                    object = try JSONValue.decodeObject(decodable ?? bytes)
                }
            } catch {
                throw .notJSON(segment: name, JSONValue.describeFailure(error, bytes: bytes))
            }
            guard let object else {
                let kind = (try? JSONValue.decodeUnchecked(decodable ?? bytes))?.kindDescription ?? "not an object"
                throw .notObject(segment: name, kind)
            }
            return DecodedSegment(
                bytes: bytes, essentials: object, isComplete: !essentialsOnly, recognisedKind: kind,
                decodable: decodable, whole: whole)
        }

        let header: DecodedSegment
        if let decodedHeader {
            header = decodedHeader
        } else {
            header = try object(try decode(parts[0], "header"), "header", essentialsOnly: false)
        }
        let payload = try object(try decode(parts[1], "payload"), "payload", essentialsOnly: true)
        let signature = try decode(parts[2], "signature")
        return (header, payload, signature, parts[1].endIndex)
    }

    /// The checks a JSON text passes before Foundation decodes it, where what it says must be
    /// read one way only (a JWS header or payload, an App Store Server API answer): the copy
    /// Foundation decodes (nil: `bytes` themselves), or why not (`.notJSON` or
    /// `.duplicateMember`).
    ///
    /// JSON text is UTF-8 without a byte order mark (RFC 8259 §8.1), as Apple signs it;
    /// Foundation's parser also takes UTF-16, UTF-32, a BOM and invalid bytes, none of which
    /// could be shown "exactly as signed" in JSON output. Foundation is lax where RFC 8259 is
    /// not (trailing commas; numbers and escapes in members it does not decode), and a member
    /// named twice reads two ways (Foundation keeps the first, others the last). Raw control
    /// characters in strings are kept (and escaped in output); Foundation decodes them only
    /// escaped, so the copy it decodes has them escaped.
    static func strictText(_ bytes: [UInt8]) -> Result<[UInt8]?, StrictJSONError> {
        if let problem = encodingProblem(bytes) { return .failure(.notJSON(problem)) }
        guard isValidUTF8(bytes) else { return .failure(.notJSON("it is not valid UTF-8")) }
        let (problem, duplicate, rawControlCharacters) = bytes.withUnsafeBufferPointer { JSONSyntax.strictCheck($0) }
        if let duplicate { return .failure(.duplicateMember(duplicate)) }
        if let problem { return .failure(.notJSON(problem)) }
        return .success(rawControlCharacters ? JSONSyntax.escapingControlCharacters(bytes) : nil)
    }

    /// Why `bytes` are not in JSON's one encoding, UTF-8 without a byte order mark, when they
    /// plainly are in another (a BOM, or the NUL bytes of UTF-16 and UTF-32 around the first
    /// ASCII character); nil otherwise.
    static func encodingProblem(_ bytes: [UInt8]) -> String? {
        guard let first = bytes.first, first == 0 || first >= 0xEF || bytes.prefix(4).contains(0) else { return nil }
        if let bom = byteOrderMarks.first(where: { bytes.starts(with: $0.mark) }) {
            return "it starts with \(bom.name); JSON is UTF-8 without one (RFC 8259 §8.1)"
        }
        guard bytes.prefix(4).contains(0) else { return nil }
        return "it holds NUL bytes where JSON text begins, as UTF-16 or UTF-32 would; JSON is UTF-8 (RFC 8259 §8.1)"
    }

    private static let byteOrderMarks: [(mark: [UInt8], name: String)] = [
        ([0xEF, 0xBB, 0xBF], "a UTF-8 byte order mark"), ([0x00, 0x00, 0xFE, 0xFF], "a UTF-32 byte order mark"),
        ([0xFF, 0xFE, 0x00, 0x00], "a UTF-32 byte order mark"), ([0xFE, 0xFF], "a UTF-16 byte order mark"),
        ([0xFF, 0xFE], "a UTF-16 byte order mark"),
    ]

    /// Whether `bytes` are UTF-8; all-ASCII text (every App Store payload) is confirmed eight
    /// bytes at a time without building a String.
    static func isValidUTF8(_ bytes: [UInt8]) -> Bool {
        let ascii = bytes.withUnsafeBytes { raw -> Bool in
            var high: UInt64 = 0
            var offset = 0
            while offset + 8 <= raw.count {
                high |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            while offset < raw.count {
                high |= UInt64(raw[offset])
                offset += 1
            }
            return high & 0x8080_8080_8080_8080 == 0
        }
        return ascii || String(validating: bytes, as: UTF8.self) != nil
    }

    /// Offsets of the dots in `bytes` (all of them when there are more than two: for the error).
    private static func dotPositions(_ buffer: UnsafeBufferPointer<UInt8>) -> [Int] {
        var positions: [Int] = []
        forEachDot(in: buffer) {
            positions.append($0)
            return true
        }
        return positions
    }

    /// Calls `body` with the offset of each dot in `buffer`, in order, until it returns false
    /// (memchr: the scanner, the parser and the header cache look for dots in every token).
    static func forEachDot(in buffer: UnsafeBufferPointer<UInt8>, _ body: (Int) -> Bool) {
        guard let base = buffer.baseAddress else { return }
        var offset = 0
        while offset < buffer.count, let found = memchr(base + offset, Int32(UInt8(ascii: ".")), buffer.count - offset)
        {
            let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
            guard body(position) else { return }
            offset = position + 1
        }
    }

    /// A one-line description of a Foundation decoding error.
    static func describe(_ error: any Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            let underlying = (context.underlyingError as? any CustomStringConvertible)?.description
            return [context.debugDescription, underlying].compactMap { $0 }.joined(separator: ": ")
                .split(whereSeparator: \.isNewline).joined(separator: " ")
        }
        return "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
