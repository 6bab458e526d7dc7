#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A compact-serialized JWS split into its three segments and decoded.
///
/// Decoding only: nothing here is verified. The signing input is kept exactly
/// as it appears in the token, never re-encoded.
public struct CompactJWS: Sendable {
    /// The token as given (ASCII).
    public let token: String
    /// The decoded header bytes (UTF-8 JSON as signed) and their parsed value.
    public let header: DecodedSegment
    /// The decoded payload bytes (UTF-8 JSON as signed) and their parsed value.
    public let payload: DecodedSegment
    /// The decoded signature bytes.
    public let signature: [UInt8]
    /// The ASCII bytes of `header.payload`, the ES256 signing input.
    public let signingInput: [UInt8]

    /// A decoded JSON segment: the exact bytes and the object they hold.
    public struct DecodedSegment: Sendable {
        public let bytes: [UInt8]
        /// The members verification reads (for a header: all of them). Decoding only these
        /// keeps batch verification fast; `object` has everything.
        let essentials: [String: JSONValue]
        /// Whether `essentials` holds every member.
        let isComplete: Bool

        /// Every member, decoded on demand when `essentials` is a subset.
        public var object: [String: JSONValue] {
            guard !isComplete else { return essentials }
            return ((try? JSONValue.decodeObject(bytes)) ?? nil) ?? essentials
        }

        /// The object as a `JSONValue`.
        public var value: JSONValue { .object(object) }
    }

    /// Why a string is not a decodable compact JWS.
    public enum FormatError: Error, Equatable, Sendable, CustomStringConvertible {
        case segmentCount(Int)
        case emptySegment(String)
        case base64(segment: String, Base64URL.DecodingError)
        case notJSON(segment: String, String)
        case notObject(segment: String, String)
        case tooLarge(Int, limit: Int)

        public var description: String {
            switch self {
            case .segmentCount(let count):
                "a compact JWS has 3 dot-separated segments (header.payload.signature), found \(count)"
            case .emptySegment(let segment): "the \(segment) segment is empty"
            case .base64(let segment, let error): "the \(segment) segment is not base64url: \(error)"
            case .notJSON(let segment, let detail): "the \(segment) is not valid JSON: \(detail)"
            case .notObject(let segment, let kind): "the \(segment) is \(kind), expected a JSON object"
            case .tooLarge(let size, let limit): "the token is \(size) bytes, over the \(limit)-byte limit for one JWS"
            }
        }
    }

    /// The largest token accepted (1 MiB); real App Store tokens are under 20 KB.
    public static let maximumTokenSize = 1 << 20

    /// Splits and decodes a compact JWS.
    public init(_ token: String) throws(FormatError) {
        try self.init(token, decodedHeader: nil, payloadKeys: .all)
    }

    /// Splits and decodes a compact JWS whose header segment is already known decoded
    /// (it is byte-identical to one decoded before).
    ///
    /// - Parameter payloadKeys: the payload members decoded into `essentials`.
    init(_ token: String, decodedHeader: DecodedSegment?, payloadKeys: PayloadKeys) throws(FormatError) {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumTokenSize else { throw .tooLarge(bytes.count, limit: Self.maximumTokenSize) }
        let dots = Self.dotPositions(bytes)
        guard dots.count == 2 else { throw .segmentCount(dots.count + 1) }
        let parts = [bytes[..<dots[0]], bytes[(dots[0] + 1)..<dots[1]], bytes[(dots[1] + 1)...]]
        let names = ["header", "payload", "signature"]
        for (part, name) in zip(parts, names) where part.isEmpty { throw .emptySegment(name) }

        func decode(_ part: ArraySlice<UInt8>, _ name: String) throws(FormatError) -> [UInt8] {
            do { return try Base64URL.decode(part) } catch { throw .base64(segment: name, error) }
        }
        func object(_ bytes: [UInt8], _ name: String, essentialsOnly: Bool) throws(FormatError) -> DecodedSegment {
            // JSON text is UTF-8 (RFC 8259); Foundation's parser lets invalid bytes through, and
            // they could not be shown "exactly as signed" in JSON output.
            guard String(validating: bytes, as: UTF8.self) != nil else {
                throw .notJSON(segment: name, "it is not valid UTF-8")
            }
            let object: [String: JSONValue]?
            do {
                object = essentialsOnly ? try JSONValue.decodeObject(bytes, selection: payloadKeys.selection)
                    : try JSONValue.decodeObject(bytes)
            } catch {
                throw .notJSON(segment: name, JSONValue.describeFailure(error, bytes: bytes))
            }
            guard let object else {
                let kind = (try? JSONValue.decode(bytes))?.kindDescription ?? "not an object"
                throw .notObject(segment: name, kind)
            }
            return DecodedSegment(bytes: bytes, essentials: object, isComplete: !essentialsOnly)
        }

        self.token = token
        if let decodedHeader {
            self.header = decodedHeader
        } else {
            self.header = try object(try decode(parts[0], "header"), "header", essentialsOnly: false)
        }
        self.payload = try object(try decode(parts[1], "payload"), "payload", essentialsOnly: true)
        self.signature = try decode(parts[2], "signature")
        self.signingInput = Array(bytes[..<(parts[1].endIndex)])
    }

    /// Offsets of the dots in `bytes` (all of them when there are more than two: for the error).
    private static func dotPositions(_ bytes: [UInt8]) -> [Int] {
        bytes.withUnsafeBufferPointer { buffer -> [Int] in
            guard let base = buffer.baseAddress else { return [] }
            var positions: [Int] = []
            var offset = 0
            while offset < buffer.count, let found = memchr(base + offset, Int32(UInt8(ascii: ".")), buffer.count - offset) {
                let position = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                positions.append(position)
                offset = position + 1
            }
            return positions
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
