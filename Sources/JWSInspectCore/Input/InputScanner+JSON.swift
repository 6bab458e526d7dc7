extension InputScanner {
    /// How many levels of JSON documents held in strings are read as documents: an API
    /// Gateway event's `body` is one level (`event.json: body → signedPayload`). A string
    /// deeper than that is scanned as text, as a log line is, so the tokens in it are still
    /// found (without the path inside it). Each level's documents are parts of the level
    /// above, so a record's bytes are parsed at most this many times more.
    package static let maximumEmbeddedDocuments = 4

    /// The largest string read as a JSON document: 8 MiB, room for a verifyReceipt body with the
    /// largest receipt read (4 MiB, 5.6 MB of base64). A larger one is scanned as text. One
    /// embedded document (and those inside it) is held at a time.
    package static let maximumEmbeddedDocumentSize = 8 << 20

    /// What is in a JSON document's strings, each named by its path (`SourcePath`) after
    /// `origin` ("body.json:"), in document order (an object's members by key).
    ///
    /// A string is, by the first that applies: a receipt in base64 (a verifyReceipt body's
    /// `receipt-data`); a StoreKit 1 transaction receipt in base64 (`TransactionReceiptText`); a JWS, or what looks like one but is not whole (nothing but token
    /// characters, a JWS header first); a JSON document of its own (an object or array,
    /// `maximumEmbeddedDocuments` levels deep and `maximumEmbeddedDocumentSize` bytes at most),
    /// walked the same way, its path joined by " → "; else text,
    /// scanned as a log line is (`Bearer <JWS>`, a token in a sentence). Each string is read
    /// one of these ways only, so no token is found twice.
    ///
    /// The walk keeps a stack, not the call stack: an embedded document may nest 512 levels
    /// again, on a worker thread.
    static func jsonTokens(_ document: JSONValue, origin: String) -> [Item] {
        var items: [Item] = []
        jsonTokens(document, origin: origin) { items.append($0) }
        return items
    }

    /// `jsonTokens`, each item handed to `emit` as it is found (a 64 MiB document of tokens is
    /// never held as a list of them as well).
    static func jsonTokens(_ document: JSONValue, origin: String, emit: (Item) -> Void) {
        var walk = JSONWalk(origin: origin)
        walk.run(document, emit: emit)
    }
}

/// A walk over a JSON document, strings and all (see `InputScanner.jsonTokens`).
private struct JSONWalk {
    let origin: String
    var path = SourcePath()

    /// A container being walked: its values, the next one to visit, where its path starts
    /// and how deep in embedded documents it is.
    private struct Frame {
        enum Values {
            case array([JSONValue])
            case object([String: JSONValue], keys: [String])
        }
        let values: Values
        var next = 0
        let pathCount: Int
        let level: Int
    }
    private var frames: [Frame] = []

    init(origin: String) {
        self.origin = origin
    }

    mutating func run(_ document: JSONValue, emit: (InputScanner.Item) -> Void) {
        visit(document, level: 0, emit: emit)
        while !frames.isEmpty {
            let top = frames.count - 1
            let frame = frames[top]
            path.removeLast(to: frame.pathCount)
            let value: JSONValue
            switch frame.values {
            case .array(let values):
                guard frame.next < values.count else {
                    frames.removeLast()
                    continue
                }
                path.append(.index(frame.next))
                value = values[frame.next]
            case .object(let object, let keys):
                guard frame.next < keys.count, let member = object[keys[frame.next]] else {
                    frames.removeLast()
                    continue
                }
                path.append(.key(keys[frame.next]))
                value = member
            }
            frames[top].next += 1
            visit(value, level: frame.level, emit: emit)
        }
    }

    private mutating func visit(_ value: JSONValue, level: Int, emit: (InputScanner.Item) -> Void) {
        switch value {
        case .string(let string): visit(string, level: level, emit: emit)
        case .array(let values): frames.append(Frame(values: .array(values), pathCount: path.count, level: level))
        case .object(var object):
            // An API Gateway or Lambda function URL event says its body is base64: read it decoded.
            if case .bool(true)? = object["isBase64Encoded"], case .string(let body)? = object["body"],
                let decoded = Self.decodedBody(body)
            {
                object["body"] = .string(decoded)
            }
            frames.append(
                Frame(values: .object(object, keys: object.keys.sorted()), pathCount: path.count, level: level))
        default: break
        }
    }

    /// An event's `body` when `isBase64Encoded` is true: its text, when it is standard base64 of
    /// UTF-8 (else it is read as it is). Bounded as the string it came from is (a record).
    private static func decodedBody(_ body: String) -> String? {
        guard !body.isEmpty, let bytes = ParsedChain.standardBase64(body) else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }

    /// The source of what is found at `path`.
    private static func source(origin: String, path: SourcePath) -> String {
        origin + " " + (path.count == 0 ? "(document)" : path.description)
    }

    private mutating func visit(_ value: String, level: Int, emit: (InputScanner.Item) -> Void) {
        // Read in place: a document's strings may be megabytes, and most hold no JWS.
        var string = value
        string.makeContiguousUTF8()
        let shared = string
        // Written out only when something is found, once for all found in the string.
        var written: String?
        let (origin, here) = (self.origin, self.path)
        func source() -> String {
            if let written { return written }
            written = Self.source(origin: origin, path: here)
            return written!
        }
        var found: [InputScanner.Item] = []
        var embedded: JSONValue?
        string.withUTF8 { bytes in
            var start = 0
            var end = bytes.count
            while start < end, InputScanner.isWhitespace(bytes[start]) { start += 1 }
            while end > start, InputScanner.isWhitespace(bytes[end - 1]) { end -= 1 }
            let trimmed = UnsafeBufferPointer(rebasing: bytes[start..<end])
            guard let first = trimmed.first, let last = trimmed.last else { return }
            if first == UInt8(ascii: "M"), LegacyReceipt.looksLike(trimmed) {
                // A receipt in base64, as a verifyReceipt request's `receipt-data` holds it.
                found.append(InputScanner.receipt(base64: trimmed, source: source()))
            } else if TransactionReceiptText.recognise(trimmed, others: false) == .openStep {
                // A StoreKit 1 transaction receipt in base64, as an app sent transactionReceipt.
                found.append(TransactionReceiptText.item(base64: trimmed, source: source()))
            } else if InputScanner.looksLikeJWSHeader(trimmed),
                TokenCharacters.runLength(trimmed, from: 0) == trimmed.count
            {
                // The string is the token when nothing was trimmed: shared, not copied.
                found = InputScanner.wholeRun(
                    trimmed, source: source(), token: start == 0 && end == bytes.count ? shared : nil)
            } else if level < InputScanner.maximumEmbeddedDocuments,
                trimmed.count <= InputScanner.maximumEmbeddedDocumentSize,
                (first == UInt8(ascii: "{") && last == UInt8(ascii: "}"))
                    || (first == UInt8(ascii: "[") && last == UInt8(ascii: "]"))
            {
                do {
                    embedded = try JSONValue.decode(
                        Array(trimmed), budget: 4 * InputScanner.maximumEmbeddedDocumentSize)
                } catch let refusal as any JSONValue.CostRefusal {
                    found.append(
                        .malformed(source: source(), reason: "the JSON document in this string is refused: \(refusal)"))
                } catch let duplicate as DuplicateMember {
                    // Read two ways, as a document of the input would be: refused whole, neither
                    // copy (nor any token in it) verified.
                    found.append(
                        .malformed(
                            source: source(), reason: "the JSON document in this string names \(duplicate)"))
                } catch {
                    InputScanner.textTokens(trimmed, into: &found, source: source)
                }
            } else {
                InputScanner.textTokens(trimmed, into: &found, source: source)
            }
        }
        found.forEach(emit)
        if let embedded {
            path.append(.document)
            visit(embedded, level: level + 1, emit: emit)
        }
    }
}
