internal import JWSInspectCore

/// Turns command-line inputs (tokens, paths, "-") into streams of what the scanner finds.
enum InputReader {
    /// One command-line input, opened.
    enum Opened {
        /// Items come from the stream, record by record.
        case stream(origin: String, InputStream)
        /// The input cannot be read (exit 66).
        case unreadable(String)
        /// An argument that is no file and holds no JWS or receipt (exit 5), and why.
        case malformed(origin: String, reason: String)
    }

    /// Bytes read from a file or stdin at a time.
    static let chunkSize = 1 << 20

    /// Opens one input.
    ///
    /// - Parameters:
    ///   - argument: a token, a file path, or "-" for standard input.
    ///   - position: 1-based position among the inputs, used to name inline tokens.
    ///   - io: standard input (nil when closed, `<&-`), the record limit, and where hints go.
    ///   - onStall: called when reading a pipe or terminal would wait for more input (so that
    ///     what was read so far is verified and shown first).
    ///   - firstLine: the number standard input's first line gets (`--first-line`).
    ///   - unwrapping: whether an argument that names no file is read without the quotes and
    ///     `Bearer ` around a token (`unwrapped`); `--exact` reads it as given.
    static func open(
        _ argument: String, position: Int, io: CommandIO, firstLine: Int = 1, unwrapping: Bool = true,
        onStall: @escaping () -> Void
    ) -> Opened {
        if argument == "-" {
            guard let standardInput = io.standardInput else {
                return .unreadable(
                    "cannot read standard input: it is closed (\(System.errorText(System.badDescriptor)))")
            }
            if io.standardInputIsTerminal {
                io.error("reading JWS from standard input: paste (any length), Enter, then Ctrl-D; --help for usage")
            }
            let (read, wouldWait) = standardInput(onStall)
            return .stream(
                origin: "<stdin>",
                InputStream(
                    origin: "<stdin>", recordLimit: io.recordLimit, wouldWait: wouldWait, firstLine: firstLine,
                    read: read))
        }
        if System.isAmbiguousFileName(argument) {
            return .unreadable("cannot read '\(argument)': \(System.ambiguousName)")
        }
        switch System.kind(ofPath: argument) {
        case .directory?:
            return .unreadable("cannot read '\(argument)': it is a directory")
        case .regular?, .other?:
            switch System.openForReading(argument) {
            case .failure(let error):
                return .unreadable("cannot read '\(argument)': \(error)")
            case .success(let descriptor):
                let read = reader(descriptor: descriptor, origin: argument, closeAtEnd: true, onStall: onStall)
                return .stream(origin: argument, stream(read, origin: argument, io: io))
            }
        case nil:
            let error = System.lastError
            let reason = System.errorText(error)
            let bytes = unwrapping ? unwrapped(Array(argument.utf8)) : Array(argument.utf8)
            let origin = "argument \(position)"
            // A receipt, a transaction receipt (or another property list) in base64: never a file name.
            if LegacyReceipt.looksLike(bytes) || TransactionReceiptText.recognise(bytes) != nil {
                return .stream(
                    origin: origin,
                    InputStream(bytes: bytes, origin: origin, numberLines: false, recordLimit: io.recordLimit))
            }
            guard isInlineInput(bytes) || holdsJWS(bytes) else {
                if looksLikeBase64Receipt(bytes) {
                    return .malformed(
                        origin: origin,
                        reason: "not a valid receipt: base64 that starts as a PKCS#7 container does (MII…), but "
                            + "does not hold one")
                }
                if error == System.nameTooLong || !isPathLike(argument) {
                    return .malformed(
                        origin: origin, reason: "not a file, and not a JWS or receipt: '\(Excerpt.of(argument))'")
                }
                return .unreadable("cannot read '\(Excerpt.of(argument))': \(reason) (and it is not a JWS)")
            }
            let stream = InputStream(
                bytes: bytes, origin: origin, numberLines: bytes.contains(UInt8(ascii: "\n")),
                recordLimit: io.recordLimit)
            return .stream(origin: origin, stream)
        }
    }

    /// One input under `--exact`: the one item it is (malformed, saying why, when it is not
    /// exactly one), or why it cannot be read.
    enum Exact {
        case item(InputScanner.Item)
        /// The input cannot be read (exit 66): where, and why.
        case unreadable(source: String, message: String)
    }

    /// Opens one input and reads it whole for `--exact` (`ExactInput`): files and standard input
    /// as `open` opens them, an argument that names no file as given (quotes and `Bearer ` are
    /// text around a token then), a plausible path that is missing unreadable as ever. At most
    /// one byte past the record limit is read.
    static func openExact(_ argument: String, position: Int, io: CommandIO) -> Exact {
        switch open(argument, position: position, io: io, unwrapping: false, onStall: {}) {
        case .unreadable(let message):
            return .unreadable(source: argument, message: message)
        case .malformed(let origin, _):
            // An argument that is no file, and no JWS or receipt: why, in --exact's words.
            return .item(exactItem(Array(argument.utf8), origin: origin, io: io))
        case .stream(let origin, var stream):
            let bytes = stream.wholeInput(maximum: io.recordLimit)
            if let error = stream.readError { return .unreadable(source: origin, message: error) }
            return .item(exactItem(bytes, origin: origin, io: io))
        }
    }

    /// The one item `bytes` are, or malformed, saying why they are not exactly one.
    private static func exactItem(_ bytes: [UInt8], origin: String, io: CommandIO) -> InputScanner.Item {
        switch ExactInput.item(in: bytes, source: origin, limit: io.recordLimit) {
        case .success(let item):
            return item
        case .failure(let refusal):
            return .malformed(
                source: origin,
                reason: "--exact: \(refusal); give exactly one JWS, webhook body or receipt, or drop --exact")
        }
    }

    /// An argument as pasted, without what surrounds the token: whitespace, a pair of quotes
    /// (`'…'` or `"…"`, as copied from code or a log) and an `Authorization` header's `Bearer `.
    static func unwrapped(_ bytes: [UInt8]) -> [UInt8] {
        var text = bytes[...]
        func trim() {
            while let first = text.first, InputScanner.isWhitespace(first) { text = text.dropFirst() }
            while let last = text.last, InputScanner.isWhitespace(last) { text = text.dropLast() }
        }
        trim()
        for quote in [UInt8(ascii: "\""), UInt8(ascii: "'")]
        where text.count >= 2 && text.first == quote && text.last == quote {
            text = text.dropFirst().dropLast()
            trim()
        }
        let bearer = Array("bearer ".utf8)
        if text.count > bearer.count, zip(text, bearer).allSatisfy({ $0 | 0x20 == $1 }) {
            text = text.dropFirst(bearer.count)
            trim()
        }
        return Array(text)
    }

    /// The members Apple documents for the payloads of the App Store's own JWS: the first member of a
    /// decoded payload is one of them.
    private static let signedPayloadMembers: Set<String> = Set(
        [PayloadKind.transaction, .renewalInfo, .notification, .appTransaction, .realtimeRequest].flatMap {
            PayloadSchema.of($0).documentedFields
        })

    /// The name of a JSON object's first member, from the input's first bytes (`{ "name": …`),
    /// when it is plain ASCII letters.
    static func firstMemberName(_ opening: [UInt8]) -> String? {
        var index = 0
        func skipWhitespace() { while index < opening.count, InputScanner.isWhitespace(opening[index]) { index += 1 } }
        skipWhitespace()
        guard index < opening.count, opening[index] == UInt8(ascii: "{") else { return nil }
        index += 1
        skipWhitespace()
        guard index < opening.count, opening[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        let start = index
        while index < opening.count, (opening[index] | 0x20) >= UInt8(ascii: "a"),
            (opening[index] | 0x20) <= UInt8(ascii: "z")
        {
            index += 1
        }
        guard index < opening.count, opening[index] == UInt8(ascii: "\""), index > start else { return nil }
        return String(decoding: opening[start..<index], as: UTF8.self)
    }

    /// What to report for an input in which the scanner found nothing.
    static func nothingFound(in stream: InputStream, origin: String) -> InputScanner.Item {
        if let record = stream.soleTextRecord, let token = soleBareToken(record) {
            // Dot-separated base64url that the scanner passed over: decode it for a precise reason.
            return .token(source: origin, token: token)
        }
        if let problem = stream.jsonProblem {
            return .malformed(source: origin, reason: "no JWS found, and it is not a JSON document: \(problem)")
        }
        if let name = firstMemberName(stream.opening), signedPayloadMembers.contains(name) {
            return .malformed(
                source: origin,
                reason: "no JWS found: this is a decoded payload (a JSON object starting with '\(name)', as Xcode's "
                    + "jsonRepresentation or a JWS's middle part is), which carries no signature; give the JWS "
                    + "itself (jwsRepresentation, or the signedPayload Apple posted)")
        }
        return .malformed(
            source: origin,
            reason: "no JWS found (expected a compact JWS header.payload.signature, "
                + "a JSON document holding one, or lines of them)")
    }

    /// Reads a descriptor a chunk at a time (closing it at the end when asked). The chunk is
    /// allocated on the first read and freed at the end of the input, or with the reader when
    /// it is never read to the end (standard input when only files are given).
    ///
    /// - Parameters:
    ///   - onStall: for pipes and terminals, called before a read that would wait.
    ///   - terminal: the descriptor is a terminal in non-canonical mode (`TerminalPaste`):
    ///     Ctrl-D's byte ends the input, and the terminal is restored then.
    static func reader(
        descriptor: Int32, origin: String, closeAtEnd: Bool, onStall: (() -> Void)?, terminal: Bool = false
    )
        -> DescriptorReader
    {
        DescriptorReader(
            descriptor: descriptor, origin: origin, closeAtEnd: closeAtEnd, onStall: onStall, terminal: terminal)
    }

    /// An input stream over a descriptor reader.
    static func stream(_ reader: DescriptorReader, origin: String, io: CommandIO) -> InputStream {
        InputStream(
            origin: origin, recordLimit: io.recordLimit, wouldWait: reader.wouldWait, read: { reader.read(into: &$0) })
    }

    final class DescriptorReader {
        let descriptor: Int32
        let origin: String
        let closeAtEnd: Bool
        let terminal: Bool
        /// Set for pipes and terminals, which can make a read wait (files never do).
        let onStall: (() -> Void)?
        private var chunk: UnsafeMutableRawBufferPointer?
        private var closed = false

        init(descriptor: Int32, origin: String, closeAtEnd: Bool, onStall: (() -> Void)?, terminal: Bool) {
            self.descriptor = descriptor
            self.origin = origin
            self.closeAtEnd = closeAtEnd
            self.terminal = terminal
            self.onStall = System.kind(of: descriptor) == .regular ? nil : onStall
        }

        deinit {
            chunk?.deallocate()
            if terminal { TerminalPaste.restore() }
        }

        /// Whether the next read would wait for input that may never come (a live pipe or a terminal).
        func wouldWait() -> Bool {
            !closed && onStall != nil && !System.canReadWithoutWaiting(descriptor)
        }

        func read(into buffer: inout [UInt8]) -> (count: Int, error: String?) {
            guard !closed else { return (0, nil) }
            let chunk = self.chunk ?? UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
            self.chunk = chunk
            // Input stalls (`tail -f`): what was read so far is shown before waiting for more.
            if let onStall, !System.canReadWithoutWaiting(descriptor) { onStall() }
            switch System.readSome(descriptor, into: chunk) {
            case .success(var count) where count > 0:
                var ended = false
                if terminal, let end = chunk[0..<count].firstIndex(of: TerminalPaste.endOfTransmission) {
                    count = end
                    ended = true
                }
                buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[0..<count]))
                if ended {
                    finish()
                    // The bytes before Ctrl-D are the last; an empty read says the input ended.
                    return count > 0 ? (count, nil) : (0, nil)
                }
                return (count, nil)
            case .success:
                finish()
                return (0, nil)
            case .failure(let error):
                finish()
                return (0, "cannot read '\(origin)': \(error)")
            }
        }

        private func finish() {
            if closeAtEnd { System.closeDescriptor(descriptor) }
            if terminal { TerminalPaste.restore() }
            chunk?.deallocate()
            chunk = nil
            closed = true
        }
    }

    /// True when an argument that names no file is meant as data: JSON, or something JWS-shaped
    /// (it opens like a JWS header, or is dot-separated base64url with at least two dots).
    private static func isInlineInput(_ bytes: [UInt8]) -> Bool {
        guard let first = bytes.first(where: { !InputScanner.isWhitespace($0) }) else { return false }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") { return true }
        if InputScanner.looksLikeJWSHeader(bytes) { return true }
        return InputScanner.isDottedBase64URL(bytes)
    }

    /// True when a word of the argument is a JWS (`Authorization: Bearer eyJ…`, `"eyJ…",` copied
    /// from a JSON array): the scanner then finds it, as it does in a log line.
    private static func holdsJWS(_ bytes: [UInt8]) -> Bool {
        let words = bytes.split { !InputScanner.isJWSCharacter($0) }
        return words.contains { $0.starts(with: Array("eyJ".utf8)) && InputScanner.isDottedBase64URL($0) }
    }

    /// Base64 that opens as a DER SEQUENCE does (`MII…`) and runs long: meant as a receipt.
    private static func looksLikeBase64Receipt(_ bytes: [UInt8]) -> Bool {
        let base64 = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8))
        return bytes.count >= 64 && bytes.starts(with: Array("MII".utf8)) && bytes.allSatisfy { base64.contains($0) }
    }

    /// Whether an argument reads as a path that could name a file (one that is missing is then
    /// unreadable, exit 66) rather than as text: no line breaks, quotes or spaces.
    private static func isPathLike(_ argument: String) -> Bool {
        !argument.utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: " ") }
    }

    /// The record's only word when it is dot-separated base64url with two dots (a JWS with a bad header).
    private static func soleBareToken(_ bytes: [UInt8]) -> String? {
        let words = bytes.split(whereSeparator: InputScanner.isWhitespace)
        guard words.count == 1, InputScanner.isDottedBase64URL(words[0]) else { return nil }
        return String(decoding: words[0], as: UTF8.self)
    }
}
