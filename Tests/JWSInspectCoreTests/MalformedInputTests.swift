import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

@Suite struct MalformedInputTests {
    static let header = Base64URL.encode(Array(#"{"alg":"ES256"}"#.utf8))
    static let payload = Base64URL.encode(Array("{}".utf8))

    @Test(arguments: [
        ("", "found 1"),
        ("abc", "found 1"),
        ("a.b", "found 2"),
        ("a.b.c.d", "found 4"),
        ("\(header)..sig", "the payload segment is empty"),
        ("\(header)=.\(payload).c2ln", "'=' at offset"),
        ("\(header).\(payload)+.c2ln", "'+' at offset"),
        ("\(Base64URL.encode(Array("not json".utf8))).\(payload).c2ln", "the header is not valid JSON"),
        ("\(Base64URL.encode(Array("[1]".utf8))).\(payload).c2ln", "the header is an array, expected a JSON object"),
        ("\(header).\(Base64URL.encode(Array("\"s\"".utf8))).c2ln", "the payload is a string, expected a JSON object"),
        ("\(header).\(Base64URL.encode([0xff, 0xfe])).c2ln", "the payload is not valid JSON"),
        ("\(header).\(payload).a", "a length of 4n+1 is impossible"),
    ])
    func malformedTokensAreNamed(_ token: String, _ expected: String) {
        let result = Fixtures.inspect(token)
        #expect(result.status == .malformed)
        #expect(result.reason.contains(expected), "\(result.reason)")
        #expect(!result.reason.contains("\n"))
    }

    @Test func invalidUTF8IsMalformedEvenInsideAString() {
        let payload = Array(#"{"transactionId":"1","s":""#.utf8) + [0xff, 0xfe] + Array(#""}"#.utf8)
        let token = TestPKI.compactJWS(
            headerJSON: Fixtures.pki.headerJSON(), payloadJSON: "{}", key: Fixtures.pki.leaf.key)
        let parts = token.split(separator: ".")
        let result = Fixtures.inspect("\(parts[0]).\(Base64URL.encode(payload)).\(parts[2])")
        #expect(result.status == .malformed)
        #expect(result.reason == "the payload is not valid JSON: it is not valid UTF-8")
    }

    @Test func utf8IsCheckedWordByWordAndToTheLastByte() {
        // ASCII is confirmed eight bytes at a time; any other byte sends the text to the full check.
        for text in ["a", "abcdefg", "abcdefgh", "abcdefghi", "Café ☕ 日本", "𝄞"] {
            #expect(CompactJWS.isValidUTF8(Array(text.utf8)), "\(text)")
        }
        for bytes: [UInt8] in [
            [0xff], [0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0xc3], [0xc3, 0x28],
            Array("abcdefgh".utf8) + [0xed, 0xa0, 0x80],
        ] {
            #expect(!CompactJWS.isValidUTF8(bytes), "\(bytes)")
        }
        let signed = Fixtures.inspect(
            Fixtures.pki.sign(payloadJSON: #"{"transactionId":"1","signedDate":1735689600000,"note":"Café ☕"}"#))
        #expect(signed.status == .valid, "\(signed.reason)")
    }

    @Test func hugeTokenIsRefusedByLimit() {
        let huge = String(repeating: "A", count: CompactJWS.maximumTokenSize + 1)
        let result = Fixtures.inspect(huge)
        #expect(result.status == .malformed)
        #expect(result.reason.contains("limit"))
    }

    @Test func deeplyNestedPayloadDoesNotCrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let token = "\(Self.header).\(Base64URL.encode(Array(#"{"a":\#(deep)}"#.utf8))).c2ln"
        let result = Fixtures.inspect(token)
        #expect(result.status == .malformed)
        #expect(
            result.reason
                == "the payload is not valid JSON: objects and arrays nested 100001 levels deep, over the 512-level limit"
        )
        // Just inside the limit is fine.
        let inside = String(repeating: "[", count: 510) + String(repeating: "]", count: 510)
        let ok = Fixtures.inspect("\(Self.header).\(Base64URL.encode(Array(#"{"a":\#(inside)}"#.utf8))).c2ln")
        #expect(ok.status != .malformed, "\(ok.reason)")
    }

    @Test func base64URLRoundTripsAndRejectsNonCanonical() throws {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(try Base64URL.decode(Array(Base64URL.encode(bytes).utf8)) == bytes)
        }
        #expect(throws: Base64URL.DecodingError.nonCanonical) { try Base64URL.decode(Array("AB".utf8)) }
        #expect(throws: Base64URL.DecodingError.impossibleLength(5)) { try Base64URL.decode(Array("AAAAA".utf8)) }
    }

    /// Every byte outside the alphabet is refused and named with its offset, wherever it
    /// falls in a group of four or in the last, partial group; every letter of it decodes.
    @Test func base64URLNamesTheFirstByteOutsideTheAlphabet() throws {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let everyLetter = alphabet + Array("AA".utf8)  // 66 characters: 16 groups and a partial one
        #expect(try Base64URL.decode(everyLetter).count == 49)
        for value in 0...255 where !alphabet.contains(UInt8(value)) {
            for offset in [0, 1, 2, 3, 5, 64, 65] {
                var text = everyLetter
                text[offset] = UInt8(value)
                #expect(throws: Base64URL.DecodingError.invalidCharacter(UInt8(value), offset: offset)) {
                    try Base64URL.decode(text)
                }
            }
        }
    }
}

/// Issue 48, item 1: a member name of combining marks took more than linear time to compare
/// (Swift normalises it); a name that is not ASCII is bounded, and refused past the bound.
@Suite struct LongMemberNameTests {
    static func payload(_ name: String) -> String {
        #"{"signedDate":1735689600000,""# + name + #"":1}"#
    }

    @Test(arguments: [1_024, 1_025, 80_001])
    func aNameThatIsNotASCIIIsBounded(_ bytes: Int) throws {
        // "a" and pairs of combining marks (U+0301 U+0316, two bytes each), then ASCII to the length.
        let marks = String(repeating: "\u{0301}\u{0316}", count: (bytes - 1) / 4)
        let name = "a" + marks + String(repeating: "x", count: bytes - 1 - marks.utf8.count)
        #expect(name.utf8.count == bytes)
        let token = Fixtures.pki.sign(payloadJSON: Self.payload(name))
        let result = Fixtures.inspect(token)
        if bytes <= MemberNames.nonASCIILimit {
            #expect(result.status != .malformed, "\(result.reason)")
        } else {
            #expect(result.status == .malformed)
            #expect(
                result.reason.contains(
                    "a member name of \(bytes) bytes that is not ASCII, over the 1024 bytes such a name may have"),
                "\(result.reason)")
        }
    }

    /// ASCII names have no such bound: App Store data names its members in ASCII.
    @Test func anASCIINameIsNotBounded() {
        let token = Fixtures.pki.sign(payloadJSON: Self.payload(String(repeating: "n", count: 100_000)))
        #expect(Fixtures.inspect(token).status != .malformed)
    }

    /// The strict check, whatever the path to it (an escaped name, a name split across pieces).
    @Test func theStrictCheckRefusesItEscapedToo() {
        let escaped = "a" + String(repeating: #"\u0301\u0316"#, count: 300)
        let bytes = Array(Self.payload(escaped).utf8)
        let (problem, _, _) = bytes.withUnsafeBufferPointer { JSONSyntax.strictCheck($0) }
        #expect(problem?.contains("a member name of 1201 bytes that is not ASCII") == true, "\(problem ?? "")")
    }
}
