import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Records of a streamed input: exact limits, documents over them, where a document ends,
/// and memory that stays bounded whatever follows. Inputs are generated piece by piece, as a
/// pipe delivers them, so a test of 64 MiB never holds 64 MiB itself; most tests read with a
/// 64 KiB record limit, the logic being the same at 64 MiB (which one test checks exactly).
@Suite struct InputStreamTests {
    static let token = Fixtures.pki.sign(payloadJSON: TestPayloads.transaction())
    static let limit = InputStream.maximumRecordSize

    /// An input made of parts, each repeated, read in pieces of `pieceSize` bytes; it
    /// records the most bytes the stream's buffer held when asked for more.
    final class Generator {
        let parts: [(bytes: [UInt8], count: Int)]
        let pieceSize: Int
        private var part = 0
        private var repeated = 0
        private var offset = 0
        private(set) var largestBuffer = 0

        init(_ parts: [(String, Int)], pieceSize: Int = 1 << 20) {
            self.parts = parts.map { (Array($0.0.utf8), $0.1) }
            self.pieceSize = pieceSize
        }

        func read(_ buffer: inout [UInt8]) -> (count: Int, error: String?) {
            largestBuffer = max(largestBuffer, buffer.count)
            var produced = 0
            while produced < pieceSize, part < parts.count {
                let bytes = parts[part].bytes
                let take = min(pieceSize - produced, bytes.count - offset)
                buffer.append(contentsOf: bytes[offset..<(offset + take)])
                produced += take
                offset += take
                if offset == bytes.count {
                    offset = 0
                    repeated += 1
                    if repeated >= parts[part].count {
                        repeated = 0
                        part += 1
                    }
                }
            }
            return (produced, nil)
        }

        func items(origin: String = "in", recordLimit: Int = InputStream.maximumRecordSize) -> [InputScanner.Item] {
            var stream = InputStream(origin: origin, recordLimit: recordLimit) { self.read(&$0) }
            var found: [InputScanner.Item] = []
            while let items = stream.next() { found += items }
            return found
        }
    }

    /// A notification body, then 4 MiB of newlines (or spaces and newlines) on a pipe: looking
    /// ahead for "is the rest blank" kept and rescanned all of it.
    @Test(arguments: ["\n", " \n", "\r\n"])
    func blankLinesAfterADocumentAreNotHeld(_ blank: String) {
        let body = #"{"signedPayload":"\#(Self.token)"}"#
        let input = Generator([(body + "\n", 1), (blank, (4 << 20) / blank.utf8.count)])
        #expect(input.items() == [.token(source: "in: signedPayload", token: Self.token)])
        #expect(input.largestBuffer <= 2 << 20, "the buffer held \(input.largestBuffer) bytes")
    }

    /// At the real limit: a line of exactly 64 MiB (a JSON array holding one string) is read,
    /// one byte more is refused without being held.
    @Test func aRecordOfExactlyTheLimitIsReadAndOneByteMoreIsRefused() {
        let kilobyte = String(repeating: "A", count: 1024)
        let exact = Generator([
            ("[\"", 1), (kilobyte, Self.limit / 1024 - 1), (String(repeating: "A", count: 1020), 1),
            ("\"]\n" + Self.token + "\n", 1),
        ])
        #expect(exact.items() == [.token(source: "in:2", token: Self.token)])
        let over = Generator([
            ("[\"", 1), (kilobyte, Self.limit / 1024 - 1), (String(repeating: "A", count: 1021), 1),
            ("\"]\n" + Self.token + "\n", 1),
        ])
        #expect(
            over.items() == [
                .malformed(
                    source: "in:1", reason: "line 1 is \(Self.limit + 1) bytes, over the 64 MiB limit for one record"),
                .token(source: "in:2", token: Self.token),
            ])
        // Not held: the buffer never grows much past the limit.
        #expect(over.largestBuffer <= Self.limit + (1 << 20))
    }

    /// The record limit of the tests below: 64 KiB.
    static let small = 64 << 10

    /// A line over the limit inside a document used to end the document silently (and the
    /// rest of it was then read as text, a token on its line 2 passing as valid).
    @Test func aLineOverTheLimitInsideADocumentRefusesTheDocument() {
        let input = Generator([
            ("{\"signedTransactions\": [\n\"\(Self.token)\",\n\"", 1), ("A", Self.small + 1),
            ("\"\n]}\n\(Self.token)\n", 1),
        ])
        #expect(
            input.items(recordLimit: Self.small) == [
                .malformed(
                    source: "in:1",
                    reason:
                        "the JSON document on lines 1 to 4 is over the 64 KiB limit for one record; nothing in it was read"
                ),
                .token(source: "in:5", token: Self.token),
            ])
    }

    /// A pretty-printed document over the limit, its lines each small: refused once, named,
    /// and read to its end without being kept (it used to be read again, line by line, as
    /// text, with sources that no longer named `signedTransactions[0]`).
    @Test func aDocumentOverTheLimitIsRefusedOnceAndReadToItsEnd() {
        let line = "    \"" + String(repeating: "A", count: 94) + "\",\n"
        let count = Self.small / line.utf8.count + 1
        let input = Generator(
            [
                ("{\n  \"signedTransactions\": [\n    \"\(Self.token)\",\n", 1), (line, count),
                ("    \"\(Self.token)\"\n  ]\n}\n\(Self.token)\n", 1),
            ], pieceSize: 4096)
        let last = 3 + count + 3
        #expect(
            input.items(recordLimit: Self.small) == [
                .malformed(
                    source: "in:1",
                    reason:
                        "the JSON document on lines 1 to \(last) is over the 64 KiB limit for one record; nothing in it was read"
                ),
                .token(source: "in:\(last + 1)", token: Self.token),
            ])
        #expect(input.largestBuffer <= 2 * 4096 + Self.token.utf8.count)
    }

    /// One byte under, at and over the limit, the newlines between its lines counted.
    @Test(arguments: [-1, 0, 1])
    func aDocumentAtTheLimit(_ difference: Int) {
        let line = "\"" + String(repeating: "A", count: 94) + "\",\n"
        let head = "[\n\"\(Self.token)\",\n"
        let count = 300
        let tail =
            "\""
            + String(repeating: "B", count: Self.small + difference - head.utf8.count - count * line.utf8.count - 3)
            + "\"]"
        let input = Generator([(head, 1), (line, count), (tail + "\n", 1)], pieceSize: 1000)
        let expected: [InputScanner.Item] =
            difference <= 0
            ? [.token(source: "in: [0]", token: Self.token)]
            : [
                .malformed(
                    source: "in:1",
                    reason:
                        "the JSON document on lines 1 to 303 is over the 64 KiB limit for one record; nothing in it was read"
                )
            ]
        #expect(input.items(recordLimit: Self.small) == expected)
    }

    /// A log line cut inside a string cannot continue: the next line is a record of its own,
    /// its token named by its path.
    @Test func aTruncatedJSONLineDoesNotSwallowTheNextLines() {
        let text = """
            {"signedPayload":"eyJhbGciOiJFUzI1NiIs
            {"signedPayload":"\(Self.token)"}
            {"a":[1,
            {"signedPayload":"\(Self.token)"}
            {"signedPayload":"\(Self.token)"}
            """
        #expect(
            InputScanner.scan(Array(text.utf8), origin: "in") == [
                .malformed(
                    source: "in:1",
                    reason: "looks like a JWS but has 1 segment, expected 3 (header.payload.signature); truncated?"),
                .token(source: "in:2: signedPayload", token: Self.token),
                // `{` may follow `[1,`: line 4 continues line 3's document, which then is not JSON.
                .token(source: "in:4", token: Self.token),
                .token(source: "in:5: signedPayload", token: Self.token),
            ])
    }

    /// The syntax that decides where documents end agrees with Foundation on every prefix
    /// cut at a line end: a document Foundation reads is never cut short.
    @Test func documentsSpanningLinesStayWhole() {
        let document = """
            {
              "data": [
                {"a": -1.5e+3, "b": [true, false, null], "c": "\\u00e9 \\" }", "d": {}},
                [],
                "\(Self.token)"
              ],
              "e": 0
            }
            """
        let items = InputScanner.scan(Array((document + "\n" + Self.token).utf8), origin: "in")
        #expect(
            items == [.token(source: "in:1: data[2]", token: Self.token), .token(source: "in:9", token: Self.token)])
    }
}
