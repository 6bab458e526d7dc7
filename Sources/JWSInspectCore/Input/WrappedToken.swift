/// A token broken over lines or by spaces, as terminals, e-mail (76 columns) and editors wrap
/// pasted text: its pieces are joined again only when together they form one App Store JWS
/// (two dots, a header that decodes to a JSON object, an ES256 signature of 86 characters),
/// so two tokens on two lines stay two.
enum WrappedToken {
    /// How far a token in progress has got: its dots, and the length of its third segment.
    struct Progress {
        private(set) var dots = 0
        private(set) var signatureLength = 0

        /// Adds a piece's characters (base64url and dots); its dots are found with memchr.
        mutating func add(_ piece: UnsafeBufferPointer<UInt8>) {
            var lastDot: Int?
            var dots = self.dots
            CompactJWS.forEachDot(in: piece) { position in
                dots += 1
                lastDot = position
                return dots <= 2
            }
            if let lastDot {
                signatureLength = piece.count - lastDot - 1
            } else if dots == 2 {
                signatureLength += piece.count
            }
            self.dots = dots
        }

        /// Shorter than a whole ES256 token, so the next piece may continue it.
        var isIncomplete: Bool { dots < 2 || (dots == 2 && signatureLength < InputScanner.es256SignatureLength) }

        /// Exactly the shape of an ES256 JWS.
        var isWhole: Bool { dots == 2 && signatureLength == InputScanner.es256SignatureLength }
    }

    /// A piece that is a token by itself (a JWS header and two dots) never continues another.
    static func isTokenByItself(_ piece: UnsafeBufferPointer<UInt8>) -> Bool {
        guard InputScanner.looksLikeJWSHeader(piece) else { return false }
        var progress = Progress()
        progress.add(piece)
        return progress.dots == 2
    }

    /// Whether `token` (pieces joined) is one JWS: ES256-shaped, its header a JSON object, its
    /// signature canonical base64url. Pieces that join into a signature no encoder writes are
    /// not one token wrapped (a truncated token, then base64 text of something else: found by
    /// `make fuzz` in issue 52), and are read apart.
    static func isOneJWS(_ token: [UInt8]) -> Bool {
        let progress = token.withUnsafeBufferPointer { bytes in
            var progress = Progress()
            progress.add(bytes)
            return progress
        }
        guard progress.isWhole, let dot = token.firstIndex(of: UInt8(ascii: ".")),
            let lastDot = token.lastIndex(of: UInt8(ascii: ".")),
            (try? Base64URL.decode(token[(lastDot + 1)...])) != nil,
            let header = try? Base64URL.decode(token[..<dot])
        else { return false }
        return header.first { !InputScanner.isWhitespace($0) } == UInt8(ascii: "{")
            && header.last { !InputScanner.isWhitespace($0) } == UInt8(ascii: "}")
    }

    /// Whether `line` ends (before trailing whitespace) in a whole ES256 signature: a dot,
    /// then 86 characters without one. Every line of tokens does, and this looks at 87 bytes
    /// of it, not at the whole line (which `lastRun` would).
    static func endsInSignature(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        var end = line.count
        while end > 0, InputScanner.isWhitespace(line[end - 1]) { end -= 1 }
        let length = InputScanner.es256SignatureLength
        guard end > length, line[end - length - 1] == UInt8(ascii: ".") else { return false }
        return line[(end - length)..<end].allSatisfy { $0 != UInt8(ascii: ".") && TokenCharacters.contains($0) }
    }

    /// The run of token characters that ends `line` (after trailing whitespace), if any.
    static func lastRun(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        var end = line.count
        while end > 0, InputScanner.isWhitespace(line[end - 1]) { end -= 1 }
        var start = end
        while start > 0, TokenCharacters.contains(line[start - 1]) { start -= 1 }
        return start < end ? UnsafeBufferPointer(rebasing: line[start..<end]) : nil
    }

    /// The line as one piece: its token characters without surrounding whitespace, or nil
    /// when it holds anything else (a piece of a wrapped token fills its line).
    static func soleRun(_ line: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        var start = 0
        var end = line.count
        while start < end, InputScanner.isWhitespace(line[start]) { start += 1 }
        while end > start, InputScanner.isWhitespace(line[end - 1]) { end -= 1 }
        guard start < end, line[start..<end].allSatisfy(TokenCharacters.contains) else { return nil }
        return UnsafeBufferPointer(rebasing: line[start..<end])
    }
}
