/// Finds compact JWS in what a user hands over: a bare token, many tokens separated
/// by whitespace, a JSON document (a webhook body, an API response), JSON lines,
/// or tokens inside quotes and log lines.
package enum InputScanner {
    /// One thing found in an input.
    package enum Item: Sendable, Equatable {
        /// A string shaped like a compact JWS (three segments, a JSON-object header).
        case token(source: String, token: String)
        /// A legacy App Store receipt (a PKCS#7 container): its DER or BER bytes, decoded from
        /// base64 when it came as text.
        case receipt(source: String, der: [UInt8])
        /// A StoreKit 1 transaction receipt: its OpenStep property list, decoded from base64
        /// (`TransactionReceiptText`).
        case transactionReceipt(source: String, propertyList: [UInt8])
        /// A JSON document shaped as a realtime response (`RealtimeResponseModel.recognises`):
        /// its bytes, read as the payload.
        case realtimeResponse(source: String, document: [UInt8])
        /// Something that starts like a JWS (or a receipt) but cannot be one.
        case malformed(source: String, reason: String)
    }

    /// The most bytes of JSON path a source names (`SourcePath`): a longer one is shortened.
    package static let maximumPathLength = SourcePath.maximumLength

    /// Scans an input's bytes.
    ///
    /// - Parameters:
    ///   - bytes: the whole input (UTF-8 expected; other bytes simply never match).
    ///   - origin: its name ("file.json", "<stdin>", "argument 1"), prefixed to every source.
    ///   - numberLines: whether sources name the line ("file.jws:3"); a one-line input
    ///     given on the command line reads better without it.
    /// - Returns: what was found, in input order; empty when nothing looks like a JWS.
    package static func scan(_ bytes: [UInt8], origin: String, numberLines: Bool = true) -> [Item] {
        var stream = InputStream(bytes: bytes, origin: origin, numberLines: numberLines)
        var items: [Item] = []
        while let found = stream.next() { items += found }
        return items
    }

    /// A receipt from its base64 text (whitespace ignored), or why the text is not one.
    static func receipt(base64 text: some Collection<UInt8>, source: String) -> Item {
        do {
            return .receipt(source: source, der: try ReceiptBase64.decode(text))
        } catch {
            return .malformed(source: source, reason: error.description)
        }
    }

    /// Runs of base64url characters and dots whose first segment opens a JSON object.
    /// The shortest run taken for a JWS: `{"alg":"ES256"}` alone encodes to 20 characters,
    /// so anything shorter is a coincidence (random bytes, words), not a truncated token.
    static let minimumCandidateLength = 20

    /// The tokens in a line of text (a log line, a paste, a JSON string that is neither a
    /// token nor a document): runs of token characters that open with a JWS header, tokens
    /// glued together split, tokens wrapped over whitespace joined.
    static func textTokens(_ line: ArraySlice<UInt8>, source: String) -> [Item] {
        var items: [Item] = []
        line.withUnsafeBufferPointer { textTokens($0, into: &items) { source } }
        return items
    }

    /// The tokens in `bytes`, appended to `items`; `source` is asked for only when one is found.
    static func textTokens(
        _ bytes: UnsafeBufferPointer<UInt8>, into items: inout [Item], source: () -> String
    ) {
        textTokens(bytes, source: source) { items.append($0) }
    }

    /// The tokens in `bytes`, each handed to `emit` as it is found (a 64 MiB line of tokens is
    /// never held as a list); `source` is asked for only when one is found.
    static func textTokens(
        _ bytes: UnsafeBufferPointer<UInt8>, source: () -> String, emit: (Item) -> Void
    ) {
        // This runs over every byte of every input: runs are measured sixteen bytes at a
        // time (TokenCharacters), their dots counted with CompactJWS.forEachDot.
        let count = bytes.count
        var index = 0
        // Where the last attempt to join a wrapped token stopped: none starts again before it.
        var noJoinBefore = 0
        while index < count {
            let length = TokenCharacters.runLength(bytes, from: index)
            guard length > 0 else {
                index += 1
                continue
            }
            if index >= noJoinBefore, index + length < count, isWhitespace(bytes[index + length]) {
                let (joined, scannedTo) = joinWrapped(bytes, from: index, length: length)
                noJoinBefore = scannedTo
                if let (token, pieces) = joined {
                    // Named, since whitespace inside a JWS string is refused by Apple's libraries.
                    emit(
                        .token(
                            source: "\(source()) (rejoined from \(pieces) pieces)",
                            token: String(decoding: token, as: UTF8.self)))
                    index = scannedTo
                    continue
                }
            }
            let runEnd = tokenEnd(bytes, run: index..<(index + length))
            if runEnd - index >= minimumCandidateLength {
                let runBytes = UnsafeBufferPointer(rebasing: bytes[index..<runEnd])
                if looksLikeJWSHeader(runBytes) { wholeRun(runBytes, source: source(), emit: emit) }
            }
            index += length
        }
    }

    /// A run of token characters that opens with a JWS header: a token when it has three
    /// segments, else the tokens glued together in it, or why it is not one. `token` is the
    /// run as a String when the caller has it already.
    static func wholeRun(_ run: UnsafeBufferPointer<UInt8>, source: String, token: String? = nil) -> [Item] {
        var items: [Item] = []
        wholeRun(run, source: source, token: token) { items.append($0) }
        return items
    }

    /// `wholeRun`'s items, each handed to `emit` as it is found.
    static func wholeRun(
        _ run: UnsafeBufferPointer<UInt8>, source: String, token: String? = nil, emit: (Item) -> Void
    ) {
        guard dotCount(run) != 2 else {
            emit(.token(source: source, token: token ?? String(decoding: run, as: UTF8.self)))
            return
        }
        for range in splitConcatenated(run) {
            classify(UnsafeBufferPointer(rebasing: run[range]), source: source).forEach(emit)
        }
    }

    /// A token wrapped by whitespace (line breaks or spaces) that starts with the run at
    /// `start`: its pieces joined and counted, when together they form one JWS
    /// (`WrappedToken`), and where the attempt stopped.
    private static func joinWrapped(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, length: Int)
        -> (joined: (token: [UInt8], pieces: Int)?, end: Int)
    {
        let run = UnsafeBufferPointer(rebasing: bytes[start..<start + length])
        guard looksLikeJWSHeader(run) else { return (nil, start) }
        var progress = WrappedToken.Progress()
        progress.add(run)
        guard progress.isIncomplete else { return (nil, start) }
        var pieces = [start..<start + length]
        var end = start + length
        while progress.isIncomplete {
            var next = end
            while next < bytes.count, isWhitespace(bytes[next]) { next += 1 }
            let pieceLength = next < bytes.count ? TokenCharacters.runLength(bytes, from: next) : 0
            guard next > end, pieceLength > 0 else { break }
            let piece = UnsafeBufferPointer(rebasing: bytes[next..<next + pieceLength])
            guard !WrappedToken.isTokenByItself(piece) else { break }
            progress.add(piece)
            pieces.append(next..<next + pieceLength)
            end = next + pieceLength
        }
        guard pieces.count > 1, progress.isWhole else { return (nil, end) }
        let token = pieces.flatMap { bytes[$0] }
        return WrappedToken.isOneJWS(token) ? ((token, pieces.count), end) : (nil, end)
    }

    /// Where a token in `run` ends: trailing dots are a sentence's full stop (`… h.p.s.`), except
    /// the one dot of `h.p.` that opens an empty third segment (an unsigned JWT, `alg: none`).
    static func tokenEnd(_ bytes: UnsafeBufferPointer<UInt8>, run: Range<Int>) -> Int {
        var end = run.upperBound
        while end > run.lowerBound, bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        guard end == run.upperBound - 1, end > run.lowerBound,
            dotCount(UnsafeBufferPointer(rebasing: bytes[run.lowerBound..<end])) == 1
        else { return end }
        return run.upperBound
    }

    private static func dotCount(_ buffer: UnsafeBufferPointer<UInt8>) -> Int {
        var dots = 0
        CompactJWS.forEachDot(in: buffer) { _ in
            dots += 1
            return true
        }
        return dots
    }

    /// The length of an ES256 signature segment: 64 bytes in unpadded base64url.
    static let es256SignatureLength = 86

    /// Splits tokens glued together without a separator (`cat a.jws b.jws` of files that
    /// lack a final newline): where a third segment runs on past an ES256 signature's
    /// 86 characters straight into another JWS header, a new token starts there.
    ///
    /// Linear in the run: its dots are found once, and each split moves on from the dots
    /// already seen (a line of glued tokens may be 64 MiB).
    static func splitConcatenated(_ run: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var dots: [Int] = []
        CompactJWS.forEachDot(in: run) {
            dots.append($0)
            return true
        }
        var tokens: [Range<Int>] = []
        var start = 0
        // dots[next...] are the dots after `start`: the current token's first, second and third.
        var next = 0
        while dots.count - next > 2 {
            let cut = dots[next + 1] + 1 + es256SignatureLength
            let third = dots[next + 2]
            guard cut < third, looksLikeJWSHeader(UnsafeBufferPointer(rebasing: run[cut..<third])) else { break }
            tokens.append(start..<cut)
            start = cut
            next += 2  // the third dot ends the next token's header
        }
        tokens.append(start..<run.count)
        return tokens
    }

    /// A string that its document says is a JWS (an App Store Server API answer's
    /// `signedTransactionInfo`, say): a token when it is shaped like one, else malformed,
    /// saying what it is instead. Unlike a scan, nothing here is skipped for not looking like a JWS.
    package static func signedField(_ value: String, source: String) -> Item {
        var bytes = Array(value.utf8)
        while let last = bytes.last, isWhitespace(last) { bytes.removeLast() }
        let start = bytes.firstIndex { !isWhitespace($0) } ?? bytes.count
        bytes.removeFirst(start)
        guard looksLikeJWSHeader(bytes) else {
            let shown = bytes.isEmpty ? "an empty string" : "'\(Excerpt.of(String(decoding: bytes, as: UTF8.self)))'"
            return .malformed(source: source, reason: "not a JWS: \(shown) where a signed value belongs")
        }
        return bytes.withUnsafeBufferPointer { classify($0, source: source) }[0]
    }

    /// A run as a token when it has three segments, else why not.
    private static func classify(_ run: UnsafeBufferPointer<UInt8>, source: String) -> [Item] {
        var segments = 1
        CompactJWS.forEachDot(in: run) { _ in
            segments += 1
            return true
        }
        guard segments == 3 else {
            return [
                .malformed(
                    source: source,
                    reason: "looks like a JWS but has \(segments) segment\(segments == 1 ? "" : "s"), "
                        + "expected 3 (header.payload.signature); truncated?")
            ]
        }
        return [.token(source: source, token: String(decoding: run, as: UTF8.self))]
    }

    /// True when the text before the first dot is base64url of a JSON object's start: `{`
    /// possibly after whitespace ("eyJ" is `{"`, "ewo" `{\n`, "eyA" `{ `), then, after
    /// whitespace, a member name's quote or `}`, as far as the first eight characters reach.
    ///
    /// A hex string starting `e0`…`e9` (a request ID, a verifyReceipt shared secret) and one
    /// random base64 string in 256 decode to `{` too, but never to `{"`: without the second
    /// byte they were reported as truncated tokens. A NUL after `{` is taken as well: a header
    /// in UTF-16 or UTF-32 little-endian is then reported as not UTF-8, not passed over.
    package static func looksLikeJWSHeader(_ run: [UInt8]) -> Bool {
        run.withUnsafeBufferPointer { looksLikeJWSHeader($0) }
    }

    static func looksLikeJWSHeader(_ run: UnsafeBufferPointer<UInt8>) -> Bool {
        // Up to eight characters (six bytes), at least four, before anything that is not base64url.
        var bits: UInt64 = 0
        var characters = 0
        while characters < 8, characters < run.count {
            let value = Base64URL.decodeTable[Int(run[characters])]
            guard value != 0xff else { break }
            bits = bits << 6 | UInt64(value)
            characters += 1
        }
        guard characters >= 4 else { return false }
        var opened = false
        for index in 0..<(characters * 6 / 8) {
            let byte = UInt8(truncatingIfNeeded: bits >> (characters * 6 - 8 * (index + 1)))
            if isWhitespace(byte) { continue }
            guard opened else {
                guard byte == UInt8(ascii: "{") else { return false }
                opened = true
                continue
            }
            return byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "}") || byte == 0
        }
        return opened
    }

    /// Whether `bytes` are JWS characters only (base64url and dots), with at least two dots:
    /// the shape of a compact JWS, whatever its segments decode to.
    package static func isDottedBase64URL(_ bytes: some Collection<UInt8>) -> Bool {
        var dots = 0
        for byte in bytes {
            guard TokenCharacters.contains(byte) else { return false }
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
        return dots >= 2
    }

    /// Whether `byte` may appear in a compact JWS (base64url and dots).
    package static func isJWSCharacter(_ byte: UInt8) -> Bool { TokenCharacters.contains(byte) }

    package static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0a || byte == 0x0d || byte == 0x09
    }
}
