import Foundation
import Testing

@testable import JWSInspectCore

/// `JSONSyntax` refuses an object that names a member twice (issue 23, item 8): names compared
/// after their escapes are resolved and as Swift compares strings, in one pass that stays
/// linear however many names an object has and however deep objects nest.
@Suite struct JSONMemberTests {
    /// The member named twice in `text`, by the strict check (headers, payloads).
    static func strict(_ text: String) -> DuplicateMember? {
        Array(text.utf8).withUnsafeBufferPointer { JSONSyntax.strictCheck($0).duplicate }
    }

    /// The same, fed in pieces of 1 to 7 bytes (the checker is resumable).
    static func inPieces(_ text: String, mode: JSONSyntax.Mode = .strict) -> DuplicateMember? {
        let bytes = Array(text.utf8)
        var syntax = JSONSyntax(mode: mode, members: true)
        var start = 0
        var size = 1
        while start < bytes.count {
            let end = min(bytes.count, start + size)
            bytes[start..<end].withUnsafeBufferPointer { syntax.feed($0) }
            start = end
            size = size % 7 + 1
        }
        _ = syntax.finish()
        return syntax.duplicate
    }

    /// Where the last `needle` starts in `text`, in bytes.
    static func lastOffset(of needle: String, in text: String) -> Int {
        guard let range = text.range(of: needle, options: [.backwards, .literal]) else { return -1 }
        return text.utf8.distance(from: text.startIndex, to: range.lowerBound)
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "a", #""a""#),
        (#"{"bundleId":"x","bundl\u0065Id":"y"}"#, "bundleId", #""bundl\u0065Id""#),
        (#"{"bundl\u0065Id":"x","bundleId":"y"}"#, "bundleId", #""bundleId""#),
        (#"{"a/b":1,"a\/b":2}"#, "a/b", #""a\/b""#),
        (#"{"tab\there":1,"tab\u0009here":2}"#, "tab\there", #""tab\u0009here""#),
        (#"{"\ud83d\ude00":1,"😀":2}"#, "😀", #""😀""#),
        (#"{"":1,"":2}"#, "", #""""#),
        (#"{"a":{"a":1},"a":2}"#, "a", #""a":2"#),
        (#"{"x":[{"k":1},{"k":1,"k":2}]}"#, "k", #""k":2"#),
        (#"{"abcdefgh":1,"abcdefgh":2}"#, "abcdefgh", #""abcdefgh":2"#),
        (#"{"alg":"ES256","x5c":["a","b","c"],"alg":"none"}"#, "alg", #""alg":"none""#),
    ])
    func aMemberNamedTwiceIsFound(_ text: String, _ name: String, _ second: String) {
        let expected = DuplicateMember(name: name, offset: Self.lastOffset(of: second, in: text))
        #expect(Self.strict(text) == expected, "\(text)")
        #expect(Self.inPieces(text) == expected, "in pieces: \(text)")
        #expect(Self.inPieces(text, mode: .record) == expected, "record mode: \(text)")
    }

    /// Foundation keys objects by Swift `String`, which compares canonically equivalent
    /// strings as equal: it would keep one of these two members where Python keeps both.
    @Test(arguments: [
        (#"{"é":1,"e\u0301":2}"#, "e\u{301}"),
        (#"{"e\u0301":1,"\u00e9":2}"#, "\u{E9}"),
        (#"{"K":1,"\u212a":2}"#, "\u{212A}"),
        (#"{"\u212a":1,"K":2}"#, "K"),
    ])
    func canonicallyEquivalentNamesAreTheSameName(_ text: String, _ name: String) throws {
        let found = try #require(Self.strict(text), "\(text)")
        #expect(found.name.unicodeScalars.elementsEqual(name.unicodeScalars))
        #expect(Self.inPieces(text)?.name.unicodeScalars.elementsEqual(name.unicodeScalars) == true)
    }

    @Test(arguments: [
        #"{"a":{"a":1,"b":{"a":1}},"b":[{"a":1},{"a":2}]}"#,
        #"[{"a":1},{"a":1}]"#,
        #"{"abcdefg1":1,"abcdefg2":2}"#,
        #"{"abcdefgh":1,"abcdefgi":2,"abcdefg":3}"#,
        #"{"A":1,"a":2,"a\u0000":3,"é":4,"e":5,"\u00e8":6}"#,
        #"{"\ud83d\ude00":1,"\ud83d\ude01":2}"#,
        #"{"x":"a","y":"a","a":"x"}"#,
        #"{"a":{},"b":{"a":[]}}"#,
    ])
    func distinctNamesPass(_ text: String) {
        #expect(Self.strict(text) == nil, "\(text)")
        #expect(Array(text.utf8).withUnsafeBufferPointer { JSONSyntax.strictProblem($0) } == nil)
        #expect(Self.inPieces(text) == nil, "in pieces: \(text)")
    }

    /// Past 24 names, or once a name is not ASCII, an object's names are hashed.
    @Test func namesPastTheLinearLimitAreHashed() throws {
        let names = (0..<40).map { "\"member\($0)\":\($0)" }
        #expect(Self.strict("{" + names.joined(separator: ",") + "}") == nil)
        for repeated in [0, 23, 24, 39] {
            let text = "{" + names.joined(separator: ",") + ",\"member\(repeated)\":0}"
            let found = try #require(Self.strict(text), "member\(repeated)")
            #expect(found.name == "member\(repeated)")
            #expect(Self.inPieces(text)?.name == "member\(repeated)")
        }
        // A name not ASCII among the first ones: hashed from there on, ASCII names compared too.
        #expect(Self.strict(#"{"a":1,"ü":2,"b":3,"a":4}"#)?.name == "a")
        #expect(Self.strict(#"{"a":1,"ü":2,"b":3,"u\u0308":4}"#)?.name == "u\u{308}")
        // An inner object's hashed names are dropped when it closes.
        let inner = "{" + names.joined(separator: ",") + "}"
        #expect(Self.strict("{\"x\":\(inner),\"y\":\(inner),\"member1\":1}") == nil)
    }

    /// 100,000 names in one object, and 512 levels of objects each naming the same members,
    /// in one linear pass (compared one by one, 100,000 names would take 5·10⁹ comparisons).
    @Test func manyNamesAndDeepNestingStayLinear() throws {
        let names = (0..<100_000).map { "\"k\($0)\":0" }.joined(separator: ",")
        #expect(Self.strict("{" + names + "}") == nil)
        let text = "{" + names + ",\"k99999\":1}"
        #expect(
            Self.strict(text) == DuplicateMember(name: "k99999", offset: Self.lastOffset(of: "\"k99999\"", in: text)))

        let level = (0..<30).map { "\"m\($0)\":0," }.joined()
        let deep = String(repeating: "{" + level + "\"o\":", count: 512) + "0" + String(repeating: "}", count: 512)
        #expect(Self.strict(deep) == nil)
        let innermostTwice =
            String(repeating: "{" + level + "\"o\":", count: 511) + "{\"m3\":0,\"m3\":1}"
            + String(repeating: "}", count: 511)
        #expect(Self.strict(innermostTwice)?.name == "m3")
    }

    /// Documents from input are decoded with Foundation and then checked: `decode` throws
    /// the member named twice, which Foundation alone lets through.
    @Test func decodeRefusesWhatFoundationLetsThrough() throws {
        let text = Array(#"{"signedPayload":"first","signedPayload":"second","x":[1,]}"#.utf8)
        let foundation = try JSONDecoder().decode([String: JSONValue].self, from: Data(text))
        #expect(foundation.count == 2, "Foundation reads one of the two members silently")
        // Canonically equivalent names are one key for Foundation (two for Python).
        let equivalent = Array(#"{"\u00e9":1,"e\u0301":2}"#.utf8)
        #expect(try JSONDecoder().decode([String: JSONValue].self, from: Data(equivalent)).count == 1)
        #expect(throws: DuplicateMember.self) { try JSONValue.decode(equivalent) }
        #expect(throws: DuplicateMember(name: "signedPayload", offset: 25)) { try JSONValue.decode(text) }
        // A text Foundation reads whose members cannot be checked (UTF-16) is not taken as read.
        let utf16 = Array(try #require(#"{"a":1,"a":2}"#.data(using: .utf16LittleEndian)))
        #expect(throws: (any Error).self) { try JSONValue.decode(utf16) }
        #expect(try JSONValue.decode(Array(#"{"a":{"b":1},"b":{"a":[{"a":1}]}}"#.utf8)).objectValue?.count == 2)
    }

    @Test func messagesNameTheMemberAndWhere() throws {
        let long = String(repeating: "n", count: 200)
        let found = try #require(Self.strict("{\"\(long)\":1,\"\(long)\":2}"))
        #expect(found.description == "member \"\(String(repeating: "n", count: 59))…\" twice (at byte 206)")
        #expect(
            Array(#"{"a":1,"a":2}"#.utf8).withUnsafeBufferPointer { JSONSyntax.strictProblem($0) }
                == #"a second member named "a" at byte 7"#)
    }
}
