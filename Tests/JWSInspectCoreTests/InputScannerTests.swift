import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

@Suite struct InputScannerTests {
    static let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
    static let other = Fixtures.pki.sign(payloadJSON: TestPayloads.renewalInfo())

    func tokens(_ text: String, origin: String = "in") -> [InputScanner.Item] {
        InputScanner.scan(Array(text.utf8), origin: origin)
    }

    @Test func bareTokenWithNewline() {
        #expect(tokens(Self.token + "\n") == [.token(source: "in:1", token: Self.token)])
    }

    @Test func manyTokensWhitespaceAndLines() {
        let found = tokens("\(Self.token) \(Self.other)\n\n\t\(Self.token)\n")
        #expect(
            found == [
                .token(source: "in:1", token: Self.token), .token(source: "in:1", token: Self.other),
                .token(source: "in:3", token: Self.token),
            ])
    }

    @Test func notificationBody() {
        let found = tokens(#"{"signedPayload": "\#(Self.token)"}"#, origin: "body.json")
        #expect(found == [.token(source: "body.json: signedPayload", token: Self.token)])
    }

    @Test func apiResponseShapesAreWalked() {
        let history = #"{"revision":"x","hasMore":false,"signedTransactions":["\#(Self.token)","\#(Self.other)"]}"#
        #expect(
            tokens(history, origin: "h.json") == [
                .token(source: "h.json: signedTransactions[0]", token: Self.token),
                .token(source: "h.json: signedTransactions[1]", token: Self.other),
            ])
        let statuses =
            #"{"data":[{"lastTransactions":[{"status":1,"signedTransactionInfo":"\#(Self.token)","signedRenewalInfo":"\#(Self.other)"}]}]}"#
        let sources = tokens(statuses, origin: "s.json").map { item -> String in
            if case .token(let source, _) = item { return source }
            return ""
        }
        #expect(
            sources == [
                "s.json: data[0].lastTransactions[0].signedRenewalInfo",
                "s.json: data[0].lastTransactions[0].signedTransactionInfo",
            ])
    }

    @Test func jsonLinesAndQuotedLogLines() {
        let text = """
            {"signedPayload":"\(Self.token)"}
            2025-01-01T00:00:00Z INFO webhook received token="\(Self.other)".
            """
        #expect(
            tokens(text) == [
                .token(source: "in:1: signedPayload", token: Self.token), .token(source: "in:2", token: Self.other),
            ])
    }

    @Test func tokensGluedWithoutSeparatorAreSplit() {
        // `cat a.jws b.jws` where the files lack a final newline.
        #expect(
            tokens(Self.token + Self.other + Self.token) == [
                .token(source: "in:1", token: Self.token),
                .token(source: "in:1", token: Self.other),
                .token(source: "in:1", token: Self.token),
            ])
        // A signature segment that merely runs long is not split, it is malformed.
        let parts = Self.token.split(separator: ".")
        let long = "\(parts[0]).\(parts[1]).\(parts[2])AAAA"
        #expect(tokens(long) == [.token(source: "in:1", token: long)])
    }

    @Test func dottedNamesAreNotTokens() {
        #expect(tokens("com.example.app and www.apple.com and 1.2.840.113635").isEmpty)
        #expect(tokens("").isEmpty)
        #expect(tokens("{\"a\": \"b\"}").isEmpty)
    }

    @Test func truncatedTokenIsReportedAsMalformed() {
        let truncated = Self.token.split(separator: ".").prefix(2).joined(separator: ".")
        #expect(
            tokens(truncated) == [
                .malformed(
                    source: "in:1",
                    reason: "looks like a JWS but has 2 segments, expected 3 (header.payload.signature); truncated?")
            ])
    }

    /// Hex IDs and shared secrets starting `e0`…`e9` decode to `{` and were reported as truncated
    /// tokens ("1 segment"), failing the run; a JWS header is `{` then `"` or `}`. A header cut
    /// before its first dot, and one in UTF-16 (not UTF-8, so malformed), are still reported.
    @Test func hexIsNotATruncatedToken() {
        let hex = "e3a1b2c3d4e5f60718293a4b5c6d7e8f"
        #expect(tokens("request \(hex) done, id=e9f0a1b2c3d4e5f607.e0a1b2c3d4e5f6071829a4").isEmpty)
        #expect(tokens(#"{"id":"\#(hex)","trace":"Root=1-\#(hex)"}"#).isEmpty)
        let oneSegment = "looks like a JWS but has 1 segment, expected 3 (header.payload.signature); truncated?"
        #expect(tokens("eyJhbGciOiJFUzI1NiIs") == [.malformed(source: "in:1", reason: oneSegment)])
        #expect(tokens("ewogICJhbGciOiAiRVMyNTYiCn0") == [.malformed(source: "in:1", reason: oneSegment)])
        let utf16 = TestPKI.base64URL(Array(#"{"alg":"ES256"}"#.data(using: .utf16LittleEndian) ?? Data()))
        #expect(tokens("\(utf16).e30.AAAA") == [.token(source: "in:1", token: "\(utf16).e30.AAAA")])
    }

    /// `header.payload.` is a JWS with an empty signature (an `alg: none` JWT), in text and in
    /// JSON; a full stop after a whole token is still a sentence's.
    @Test func trailingDotOpensAnEmptySignatureOnlyAfterTwoSegments() {
        let parts = Self.token.split(separator: ".")
        let unsigned = "\(parts[0]).\(parts[1])."
        #expect(tokens(unsigned) == [.token(source: "in:1", token: unsigned)])
        #expect(tokens("paste: \(unsigned)\n") == [.token(source: "in:1", token: unsigned)])
        #expect(
            tokens(#"{"signedPayload": "\#(unsigned)"}"#, origin: "b.json")
                == [.token(source: "b.json: signedPayload", token: unsigned)])
        // A sentence's full stop after a whole token, or after more dots, is not part of it.
        #expect(tokens("token: \(Self.token).") == [.token(source: "in:1", token: Self.token)])
        #expect(tokens("token: \(Self.token)...") == [.token(source: "in:1", token: Self.token)])
        #expect(
            tokens("\(parts[0]).\(parts[1])..") == [
                .malformed(
                    source: "in:1",
                    reason: "looks like a JWS but has 2 segments, expected 3 (header.payload.signature); truncated?")
            ])
    }

    @Test(arguments: [1, 5, 64, 4093])
    func readsInAnyPiecesFindWhatOneReadFinds(pieceSize: Int) {
        // Lines and JSON documents that span reads, blank lines, a last line without a newline.
        let document = "{\n  \"signedPayload\": \"\(Self.other)\",\n  \"x\": [1, {\"y\": \"}\"}]\n}"
        let text =
            "\(Self.token)\n\n  \(Self.other) \(Self.token)\n\(document)\nlog: token=\(Self.token).\n\n\(Self.other)"
        let bytes = Array(text.utf8)
        var offset = 0
        var stream = InputStream(origin: "in") { buffer in
            guard offset < bytes.count else { return (0, nil) }
            let piece = bytes[offset..<min(offset + pieceSize, bytes.count)]
            offset += piece.count
            buffer.append(contentsOf: piece)
            return (piece.count, nil)
        }
        var found: [InputScanner.Item] = []
        while let items = stream.next() { found += items }
        #expect(found == InputScanner.scan(bytes, origin: "in"))
        #expect(found.count == 6)
        #expect(found.last == .token(source: "in:10", token: Self.other))
    }

    /// The sixteen-bytes-at-a-time run length agrees with the plain definition for every
    /// byte value, wherever it falls: in a block, at a block's edge, in the byte-by-byte tail.
    @Test func tokenRunLengthStopsAtEveryNonJWSByte() {
        let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.".utf8)
        for value in 0...255 {
            let byte = UInt8(value)
            #expect(TokenCharacters.contains(byte) == alphabet.contains(byte), "byte \(value)")
            for position in [0, 7, 15, 16, 31, 40, 44] {
                var bytes = [UInt8](repeating: UInt8(ascii: "A"), count: 45)
                bytes[position] = byte
                for start in [0, 3] where start <= position {
                    let length = bytes.withUnsafeBufferPointer { TokenCharacters.runLength($0, from: start) }
                    let expected = alphabet.contains(byte) ? bytes.count - start : position - start
                    #expect(length == expected, "byte \(value) at \(position), run from \(start)")
                }
            }
        }
        // A token of every JWS character, then a quote: the run is the whole token.
        let token = Array(Self.token.utf8) + Array("\"".utf8)
        #expect(token.withUnsafeBufferPointer { TokenCharacters.runLength($0, from: 0) } == token.count - 1)
    }
}

// MARK: JSON documents: paths, and the strings in them

extension InputScannerTests {
    /// A token the scanner takes (it does not verify): a header, an empty payload, a signature.
    static let short = "eyJhbGciOiJFUzI1NiJ9.e30.AAAA"

    func sources(_ text: String, origin: String = "in") -> [String] {
        tokens(text, origin: origin).map { item in
            switch item {
            case .token(let source, _), .receipt(let source, _), .transactionReceipt(let source, _),
                .realtimeResponse(let source, _), .malformed(let source, _):
                source
            }
        }
    }

    /// 100 nested objects with 500-character keys around 1,000 short tokens: each token's source
    /// held its own copy of the 50 KB path (40,000 tokens, 1.3 MB of JSON, took 2 GB). A path over
    /// `SourcePath.maximumLength` bytes is shown as its start, "…" and its end, so a record's items
    /// hold at most that much path each, whatever its keys: memory follows the record.
    @Test func aLongPathIsShortenedSoSourcesStayBounded() {
        var document = "[" + Array(repeating: "\"\(Self.short)\"", count: 1000).joined(separator: ",") + "]"
        for level in (0..<100).reversed() {
            document = #"{"k\#(level)"# + String(repeating: "x", count: 498) + #"":"# + document + "}"
        }
        let found = sources(document)
        #expect(found.count == 1000)
        let bound = "in: ".utf8.count + SourcePath.maximumLength
        #expect(found.allSatisfy { $0.utf8.count <= bound }, "\(found.first?.utf8.count ?? 0) bytes")
        #expect(found.reduce(0) { $0 + $1.utf8.count } <= found.count * bound)
        // Where the path starts, that it is shortened, and where the token is.
        let head = "in: k0" + String(repeating: "x", count: SourcePath.headLength - 2)
        let tail = String(repeating: "x", count: 80) + "[999]"
        #expect(found.last == head + "…" + tail)
    }

    /// Up to `SourcePath.maximumLength` bytes a path is shown whole; longer, it is cut between
    /// characters, never inside one; components are written out only where shown.
    @Test func aPathIsWholeUpToItsLimitAndCutBetweenCharacters() {
        let limit = SourcePath.maximumLength
        let whole = String(repeating: "a", count: limit)
        #expect(sources(#"{"\#(whole)":"\#(Self.short)"}"#) == ["in: " + whole])
        let over = String(repeating: "a", count: limit + 1)
        #expect(
            sources(#"{"\#(over)":"\#(Self.short)"}"#) == [
                "in: " + String(repeating: "a", count: SourcePath.headLength) + "…"
                    + String(repeating: "a", count: limit - SourcePath.headLength - 3)
            ])
        for character in ["é", "🔑", "\u{2192}"] {
            let key = "a" + String(repeating: character, count: 80)
            let found = sources(#"{"\#(key)":[{"\#(key)":"\#(Self.short)"}]}"#)
            #expect(found.count == 1)
            let source = found.first ?? ""
            #expect(source.utf8.count <= "in: ".utf8.count + limit && source.utf8.count > limit - 4)
            #expect(!source.contains("\u{FFFD}"), "\(source)")
            #expect(source.hasPrefix("in: a\(character)") && source.hasSuffix("\(character)\(character)"))
            #expect(source.contains("…"))
        }
        // Index and key separators, and an empty key.
        #expect(sources(#"{"a":[[{"":{"b":"\#(Self.short)"}}]]}"#) == ["in: a[0][0]..b"])
    }

    /// A string that is neither a whole token nor a document is scanned as a log line is: a
    /// message, an Authorization header, quotes, tokens glued together, a wrapped token.
    @Test func tokensInsideJSONStringsAreFoundAsInText() {
        #expect(
            tokens(#"{"msg":"verifying token \#(Self.token) now"}"#, origin: "body.json")
                == [.token(source: "body.json: msg", token: Self.token)])
        #expect(
            tokens(#"{"headers":{"authorization":"Bearer \#(Self.token)"}}"#, origin: "req.json")
                == [.token(source: "req.json: headers.authorization", token: Self.token)])
        #expect(
            tokens(#"{"log":["a='\#(Self.token)', b=\#(Self.other)\#(Self.token)."]}"#, origin: "l.json") == [
                .token(source: "l.json: log[0]", token: Self.token),
                .token(source: "l.json: log[0]", token: Self.other),
                .token(source: "l.json: log[0]", token: Self.token),
            ])
        let wrapped = WrappedTokenTests.wrapped(Self.token, width: 76, separator: "\\n")
        let pieces = (Self.token.count + 75) / 76
        #expect(
            tokens(#"{"paste":"\#(wrapped)"}"#, origin: "p.json")
                == [.token(source: "p.json: paste (rejoined from \(pieces) pieces)", token: Self.token)])
        // What the text scan leaves alone stays alone: words, names, numbers.
        #expect(tokens(#"{"a":"com.example.app, www.apple.com, 1.2.840.113635","b":"no token here"}"#).isEmpty)
    }

    /// A JSON string holding a JSON document is walked as one, its path joined by " → ": an API
    /// Gateway event's `body`, an array, a document inside a document.
    @Test func aDocumentInAStringIsWalkedAsOne() {
        let body = #"{"signedPayload":"\#(Self.token)"}"#
        let event = #"{"body":\#(Self.quoted(body)),"isBase64Encoded":false,"requestContext":{"stage":"prod"}}"#
        #expect(
            tokens(event, origin: "event.json") == [
                .token(source: "event.json: body → signedPayload", token: Self.token)
            ])
        let list = #"{"records":[{"payload":\#(Self.quoted("[\"\(Self.other)\", \(Self.quoted(body))]"))}]}"#
        #expect(
            tokens(list, origin: "q.json") == [
                .token(source: "q.json: records[0].payload → [0]", token: Self.other),
                .token(source: "q.json: records[0].payload → [1] → signedPayload", token: Self.token),
            ])
        // A string that only looks like a document is text: the token in it is found once.
        #expect(
            tokens(#"{"msg":"{not json: \#(Self.token)}"}"#, origin: "m.json")
                == [.token(source: "m.json: msg", token: Self.token)])
    }

    /// A document held in a string that names a member twice is refused as one, as a document of
    /// the input is: neither copy is verified (an API Gateway event's `body` with two `signedPayload`s).
    @Test func aDocumentInAStringNamingAMemberTwiceIsRefusedWhole() {
        let body = #"{"signedPayload":"\#(Self.token)","signedPayload":"\#(Self.other)"}"#
        let event = #"{"body":\#(Self.quoted(body)),"id":"\#(Self.other)"}"#
        let items = tokens(event, origin: "event.json")
        let second = 20 + Self.token.utf8.count  // {"signedPayload":"<token>", then the second name
        #expect(
            items == [
                .malformed(
                    source: "event.json: body",
                    reason: #"the JSON document in this string names member "signedPayload" twice (at byte "#
                        + "\(second))"),
                .token(source: "event.json: id", token: Self.other),
            ], "\(items)")
    }

    /// Documents in strings are read `InputScanner.maximumEmbeddedDocuments` levels deep and up to
    /// `InputScanner.maximumEmbeddedDocumentSize` bytes; a string deeper or larger than that is
    /// scanned as text, so its tokens are still found, each once.
    @Test func documentsInStringsAreReadFourLevelsDeepThenAsText() {
        var document = #"{"signedPayload":"\#(Self.token)"}"#
        for _ in 0..<6 { document = #"{"a":\#(Self.quoted(document))}"# }
        #expect(InputScanner.maximumEmbeddedDocuments == 4)
        let arrows = Array(repeating: "a", count: 5).joined(separator: " → ")
        #expect(tokens(document) == [.token(source: "in: " + arrows, token: Self.token)])
        document = #"{"signedPayload":"\#(Self.token)"}"#
        for _ in 0..<3 { document = #"{"a":\#(Self.quoted(document))}"# }
        #expect(tokens(document) == [.token(source: "in: a → a → a → signedPayload", token: Self.token)])
        // Up to 8 MiB, and one byte more.
        let limit = InputScanner.maximumEmbeddedDocumentSize
        let body = #"{"signedPayload":"\#(Self.token)","pad":""}"#
        for (size, source) in [(limit, "in: body → signedPayload"), (limit + 1, "in: body")] {
            let padded = body.replacingOccurrences(
                of: #""pad":"""#, with: #""pad":""# + String(repeating: "-", count: size - body.utf8.count) + #"""#)
            #expect(padded.utf8.count == size)
            #expect(tokens(#"{"body":\#(Self.quoted(padded))}"#) == [.token(source: source, token: Self.token)])
        }
    }

    /// A verifyReceipt body's password, and any other string, appears in no source or reason,
    /// whatever it holds: hex (which may start like a JWS header), spaces, braces, a Bearer.
    @Test(arguments: [
        "hunter2", "e3a1b2c3d4e5f60718293a4b5c6d7e8f", "e9f0a1b2c3d4e5f60718293a4b5c6d7e",
        "correct horse e0a1b2c3d4e5f6071829",
        "{not json e3a1b2c3d4e5f60718293a4b}", "Bearer e3a1b2c3d4e5f60718293a4b5c6d7e8f.e3a1b2c3d4e5f6",
    ])
    func aPasswordIsNeverAnItemNorInASource(_ secret: String) throws {
        let der = try Fixtures.bytes("Tests/Vectors/receipts/01-xcode-apple-backyardbirds-empty.der")
        let body = #"{"receipt-data":"\#(Data(der).base64EncodedString())","password":"\#(secret)"}"#
        #expect(tokens(body, origin: "body.json") == [.receipt(source: "body.json: receipt-data", der: der)])
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: [text], options: [.withoutEscapingSlashes])) ?? Data()
        return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
    }
}
