/// Reads an input that must be exactly one item, for a backend that gates a purchase on the
/// verdict (`--exact`): where the scan (`InputScanner`) finds a token in any text, this takes
/// one compact JWS, one webhook body `{"signedPayload":"<JWS>"}` (strict JSON, that member
/// alone, its string the JWS and nothing else), one legacy receipt (its DER or BER bytes, or
/// standard base64 on one line) or one StoreKit 1 transaction receipt (standard base64 on one
/// line) or one realtime response (a JSON object of Retention Messaging's options alone,
/// `RealtimeResponseModel.recognises`), with nothing but whitespace (space, tab, line feed, carriage
/// return) around it, and refuses anything else, saying what was wrong.
///
/// Linear in the input, which is at most `limit` bytes: bytes are compared (never
/// `Character`s), each a bounded number of times; a webhook body is read once by the strict
/// JSON parser, a receipt's base64 decoded once.
package enum ExactInput {
    /// The one member of a webhook body.
    static let signedPayload = "signedPayload"

    /// The one item `bytes` are, or why they are not exactly one.
    ///
    /// - Parameters:
    ///   - bytes: the whole input (a file, standard input, an argument as given). More than
    ///     `limit` bytes are refused, so a caller need read no more than `limit + 1`.
    ///   - source: the input's name ("file.jws", "<stdin>", "argument 1"), the item's source:
    ///     the input is the item, so no line is named; a webhook body's token is named by its
    ///     member, as a scan names a whole document's (`body.json: signedPayload`).
    ///   - limit: the largest input, in bytes: one record's (`InputStream.maximumRecordSize`)
    ///     unless testing.
    /// - Returns: the item: a token, a receipt, or malformed when the one thing the input holds
    ///   cannot be what it looks like (a JWS-shaped run of four segments, base64 that decodes to
    ///   no receipt), said as a scan says it; or the refusal.
    package static func item(
        in bytes: [UInt8], source: String, limit: Int = InputStream.maximumRecordSize
    ) -> Result<InputScanner.Item, Refusal> {
        guard bytes.count <= limit else { return .failure(.overLimit(limit)) }
        return bytes.withUnsafeBufferPointer { all in
            var start = 0
            while start < all.count, InputScanner.isWhitespace(all[start]) { start += 1 }
            guard start < all.count else { return .failure(.empty) }
            let rest = UnsafeBufferPointer(rebasing: all[start...])
            // Raw DER or BER: its own length says where it ends, whatever its last bytes are.
            if LegacyReceipt.startsSignedData(Array(rest.prefix(6 + LegacyReceipt.signedDataOID.count))) {
                return rawReceipt(rest, source: source)
            }
            var end = all.count
            while InputScanner.isWhitespace(all[end - 1]) { end -= 1 }
            let text = UnsafeBufferPointer(rebasing: all[start..<end])
            switch text[0] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                return webhookBody(bytes, source: source)
            case UInt8(ascii: "M") where LegacyReceipt.looksLike(text):
                return receiptText(text, source: source)
            case _ where TransactionReceiptText.recognise(text) != nil:
                return transactionReceiptText(text, source: source)
            default:
                return jws(text, source: source).mapError { $0 == .noJWS ? .nothingRecognised : $0 }
            }
        }
    }

    /// A receipt's DER or BER bytes, `der[0]` its SEQUENCE's tag: a definite length ends it
    /// (what follows may be whitespace only); an indefinite one ends with the end-of-contents
    /// octets (`00 00`), so trailing whitespace is never part of it.
    private static func rawReceipt(_ der: UnsafeBufferPointer<UInt8>, source: String) -> Result<
        InputScanner.Item, Refusal
    > {
        var end = der.count
        if der[1] == 0x80 {
            while end > 0, InputScanner.isWhitespace(der[end - 1]) { end -= 1 }
        } else {
            // `startsSignedData` has seen the length octets (0x81 to 0x84) and the OID after them.
            let lengthBytes = Int(der[1] & 0x7F)
            let length = der[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
            let total = 2 + lengthBytes + length
            if total < der.count {
                let after = der[total...]
                guard after.allSatisfy(InputScanner.isWhitespace) else {
                    return .failure(.bytesAfterReceipt(after.count))
                }
                end = total
            }
        }
        return .success(.receipt(source: source, der: Array(der[..<end])))
    }

    /// A receipt in base64 (`text` starts like one): one line of the standard alphabet and
    /// padding, decoded; else several receipts, one wrapped over lines (the lines hold base64
    /// alone, as many characters as its DER length needs), or text after it.
    private static func receiptText(_ text: UnsafeBufferPointer<UInt8>, source: String) -> Result<
        InputScanner.Item, Refusal
    > {
        func isBase64(_ byte: UInt8) -> Bool { ReceiptBase64.classes[Int(byte)] <= ReceiptBase64.padding }
        var end = 0
        while end < text.count, isBase64(text[end]) { end += 1 }
        guard end < text.count else { return .success(InputScanner.receipt(base64: text, source: source)) }
        var pieces = 0
        var receipts = 0
        var characters = 0
        var onlyBase64 = true
        forEachWord(in: text) { word in
            pieces += 1
            let census = LegacyReceipt.Census(UnsafeBufferPointer(rebasing: word))
            characters += census.characters
            if !census.onlyBase64Text { onlyBase64 = false }
            if word[word.startIndex] == UInt8(ascii: "M"), LegacyReceipt.looksLike(word) { receipts += 1 }
        }
        if receipts > 1 { return .failure(.several(receipts, .receipt)) }
        let needed = LegacyReceipt.base64Length(text)
        if onlyBase64, needed == nil || needed == characters { return .failure(.wrapped(.receipt, pieces: pieces)) }
        return .failure(.surrounded(.receipt, before: nil, after: Refusal.excerpt(text[end...])))
    }

    /// A StoreKit 1 transaction receipt in base64 (`text` starts like one): one run of the
    /// standard alphabet and padding, decoded; else several, one wrapped over lines (base64
    /// words, the first unpadded), or text after it.
    private static func transactionReceiptText(_ text: UnsafeBufferPointer<UInt8>, source: String) -> Result<
        InputScanner.Item, Refusal
    > {
        var end = 0
        while end < text.count, ReceiptBase64.classes[Int(text[end])] <= ReceiptBase64.padding { end += 1 }
        guard end < text.count else { return .success(TransactionReceiptText.item(base64: text, source: source)) }
        var pieces = 0
        var found = 0
        var onlyBase64 = true
        forEachWord(in: text) { word in
            pieces += 1
            if !LegacyReceipt.Census(UnsafeBufferPointer(rebasing: word)).onlyBase64Text { onlyBase64 = false }
            if TransactionReceiptText.recognise(word) != nil { found += 1 }
        }
        if found > 1 { return .failure(.several(found, .transactionReceipt)) }
        // Padding ends the base64: what follows it is not more of it.
        if onlyBase64, text[end - 1] != UInt8(ascii: "=") {
            return .failure(.wrapped(.transactionReceipt, pieces: pieces))
        }
        return .failure(.surrounded(.transactionReceipt, before: nil, after: Refusal.excerpt(text[end...])))
    }

    /// A webhook body: one strict JSON object whose one member is `signedPayload`, a string
    /// that is one JWS and nothing else (not even whitespace: it is the token as Apple sent it).
    private static func webhookBody(_ bytes: [UInt8], source: String) -> Result<InputScanner.Item, Refusal> {
        let members: [String: JSONValue]
        switch JSONValue.strictObject(bytes) {
        case .success(let object): members = object
        case .failure(.notJSON(let problem)): return .failure(.notJSON(problem))
        case .failure(.notAnObject): return .failure(.jsonArray)
        case .failure(.duplicateMember(let duplicate)): return .failure(.duplicateMember(duplicate))
        }
        if RealtimeResponseModel.recognises(.object(members)) {
            // A realtime response is one item: the document, its offer's JWS inside it.
            return .success(.realtimeResponse(source: source, document: bytes))
        }
        guard let value = members[signedPayload] else {
            return .failure(.noSignedPayload(Refusal.Names(members.keys)))
        }
        guard members.count == 1 else {
            return .failure(.otherMembers(Refusal.Names(members.keys.lazy.filter { $0 != signedPayload })))
        }
        guard case .string(let string) = value else {
            return .failure(.inSignedPayload(.notAString(value.kindDescription)))
        }
        return Array(string.utf8).withUnsafeBufferPointer { jws($0, source: "\(source): \(signedPayload)") }
            .mapError { .inSignedPayload($0) }
    }

    /// The one JWS `text` is (the whitespace allowed around it already trimmed), or why it is
    /// not: `.noJWS` when nothing in it looks like one.
    private static func jws(_ text: UnsafeBufferPointer<UInt8>, source: String) -> Result<InputScanner.Item, Refusal> {
        guard !text.isEmpty else { return .failure(.empty) }
        if TokenCharacters.runLength(text, from: 0) == text.count { return run(text, source: source) }
        if let pieces = wrappedPieces(text) { return .failure(.wrapped(.jws, pieces: pieces)) }
        // Text with JWS in it: its candidates as a scan finds them in a line (a JWS header, at
        // least `minimumCandidateLength` characters, a full stop after it not its own).
        var found = 0
        var first: Range<Int>?
        var index = 0
        while index < text.count {
            let length = TokenCharacters.runLength(text, from: index)
            guard length > 0 else {
                index += 1
                continue
            }
            let end = InputScanner.tokenEnd(text, run: index..<(index + length))
            let candidate = UnsafeBufferPointer(rebasing: text[index..<end])
            if candidate.count >= InputScanner.minimumCandidateLength, InputScanner.looksLikeJWSHeader(candidate) {
                found += InputScanner.splitConcatenated(candidate).count
                first = first ?? index..<end
            }
            index += length
        }
        guard let first else { return .failure(.noJWS) }
        guard found == 1 else { return .failure(.several(found, .jws)) }
        return .failure(
            .surrounded(
                .jws, before: Refusal.excerpt(text[..<first.lowerBound]),
                after: Refusal.excerpt(text[first.upperBound...])))
    }

    /// `text` that is JWS characters only: a token when it has two dots (whatever its segments
    /// decode to: decoding says what is wrong, as for a scan's lone bare token); a JWS and a
    /// full stop; several glued together; or what a scan makes of a JWS-shaped run of other
    /// segments (malformed, "has 4 segments").
    private static func run(_ text: UnsafeBufferPointer<UInt8>, source: String) -> Result<InputScanner.Item, Refusal> {
        func dots(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            var count = 0
            CompactJWS.forEachDot(in: bytes) { _ in
                count += 1
                return true
            }
            return count
        }
        if dots(text) == 2 { return .success(.token(source: source, token: String(decoding: text, as: UTF8.self))) }
        guard InputScanner.looksLikeJWSHeader(text) else { return .failure(.noJWS) }
        let end = InputScanner.tokenEnd(text, run: 0..<text.count)
        if end < text.count, dots(UnsafeBufferPointer(rebasing: text[..<end])) == 2 {
            return .failure(.surrounded(.jws, before: nil, after: Refusal.excerpt(text[end...])))
        }
        let items = InputScanner.wholeRun(text, source: source)
        return items.count == 1 ? .success(items[0]) : .failure(.several(items.count, .jws))
    }

    /// How many pieces `text` is when it is one ES256 JWS broken by whitespace (wrapped at 76
    /// columns, or by a terminal): JWS characters and whitespace only, a JWS header first.
    private static func wrappedPieces(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard InputScanner.looksLikeJWSHeader(text) else { return nil }
        var joined: [UInt8] = []
        var pieces = 0
        var index = 0
        while index < text.count {
            let length = TokenCharacters.runLength(text, from: index)
            if length > 0 {
                joined.append(contentsOf: text[index..<(index + length)])
                pieces += 1
                index += length
                continue
            }
            guard InputScanner.isWhitespace(text[index]) else { return nil }
            index += 1
        }
        return pieces > 1 && WrappedToken.isOneJWS(joined) ? pieces : nil
    }

    /// Calls `body` with each run of bytes between whitespace in `text`, in order.
    private static func forEachWord(
        in text: UnsafeBufferPointer<UInt8>, _ body: (Slice<UnsafeBufferPointer<UInt8>>) -> Void
    ) {
        var index = 0
        while index < text.count {
            guard !InputScanner.isWhitespace(text[index]) else {
                index += 1
                continue
            }
            var end = index
            while end < text.count, !InputScanner.isWhitespace(text[end]) { end += 1 }
            body(text[index..<end])
            index = end
        }
    }
}
