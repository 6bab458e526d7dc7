import Foundation
import Testing

@testable import JWSInspectCore

/// The OpenStep property list reader: Apple's transaction receipt fixture, the syntax Core
/// Foundation reads (comments, quotes, escapes, unquoted strings, nesting), each refusal, and
/// its bounds. FoundationEssentials' `PropertyListDecoder`, which reads this format on Linux
/// too, is the independent judge of what the values are.
@Suite struct OpenStepPropertyListTests {
    typealias Value = OpenStepPropertyList.Value
    typealias Member = OpenStepPropertyList.Member

    static func parse(_ text: String, maximumDepth: Int = OpenStepPropertyList.maximumDepth) throws -> Value {
        try OpenStepPropertyList.parse(Array(text.utf8), maximumDepth: maximumDepth)
    }

    static func refusal(_ text: String, maximumDepth: Int = OpenStepPropertyList.maximumDepth)
        -> OpenStepPropertyList.ParseError?
    {
        do {
            _ = try OpenStepPropertyList.parse(Array(text.utf8), maximumDepth: maximumDepth)
            return nil
        } catch {
            return error
        }
    }

    /// What Foundation reads from `text`, when it is a dictionary of strings.
    static func foundation(_ text: String) throws -> [String: String] {
        var format = PropertyListDecoder.PropertyListFormat.xml
        let decoded = try PropertyListDecoder().decode([String: String].self, from: Data(text.utf8), format: &format)
        #expect(format == .openStep)
        return decoded
    }

    @Test func applesFixtureReadsAsFoundationReadsIt() throws {
        let base64 = String(decoding: try Fixtures.bytes("Tests/Vectors/apple/legacyTransaction"), as: UTF8.self)
        let outerText = String(decoding: try #require(Data(base64Encoded: base64)), as: UTF8.self)
        let outer = try Self.parse(outerText)
        let info = "ewoidHJhbnNhY3Rpb24taWQiID0gIjMzOTkzMzk5IjsKfQo="
        #expect(outer == .dictionary([Member(key: "purchase-info", value: .string(info))]))
        #expect(try Self.foundation(outerText) == ["purchase-info": info])
        let innerText = String(decoding: try #require(Data(base64Encoded: info)), as: UTF8.self)
        #expect(try Self.parse(innerText) == .dictionary([Member(key: "transaction-id", value: .string("33993399"))]))
        #expect(try Self.foundation(innerText) == ["transaction-id": "33993399"])
    }

    @Test func membersKeepTheirOrder() throws {
        let text = "{ z = 1; a = 2; m = \"3\"; }"
        let parsed = try Self.parse(text)
        guard case .dictionary(let members) = parsed else {
            Issue.record("not a dictionary: \(parsed)")
            return
        }
        #expect(members.map(\.key) == ["z", "a", "m"])
        #expect(try Self.foundation(text) == ["z": "1", "a": "2", "m": "3"])
    }

    /// The syntax Core Foundation reads, each value as Foundation reads it too.
    @Test(arguments: [
        ("{ a = \"x\"; }", "x"),
        ("{ a = 'x y'; }", "x y"),
        ("{ a = unquoted_$/:.-9; }", "unquoted_$/:.-9"),
        ("{ a = \"tab\\tnew\\nline\\r\"; }", "tab\tnew\nline\r"),
        ("{ a = \"\\\"quoted\\\" \\\\ back\"; }", "\"quoted\" \\ back"),
        ("{ a = \"\\a\\b\"; }", "\u{07}\u{08}"),
        ("{ a = \"\\101\\102\\7\"; }", "AB\u{07}"),
        ("{ a = \"\\U00e9\\U20AC\"; }", "é€"),
        ("{ a = \"é ünïcode ✓\"; }", "é ünïcode ✓"),
        ("{ a = \"\\q\"; }", "q"),
        ("{ a = \"two\nlines\"; }", "two\nlines"),
        ("/* before */ { // a comment\n a /* between */ = \"x\" ; } // after", "x"),
        ("{\n\t\"a\"\t=\t\"x\";\n}\n", "x"),
    ])
    func syntax(_ text: String, _ expected: String) throws {
        #expect(try Self.parse(text) == .dictionary([Member(key: "a", value: .string(expected))]))
        #expect(try Self.foundation(text) == ["a": expected])
    }

    /// Where swift-foundation's reader departs from Core Foundation's (which wrote these
    /// receipts): `\f` and `\v` are form feed and vertical tab (it reads 0x12 and 0x11), and a
    /// surrogate pair written as two `\U` escapes is one character (it refuses it).
    @Test func escapesReadAsCoreFoundationReadsThem() throws {
        #expect(
            try Self.parse("{ a = \"\\f\\v\"; }") == .dictionary([Member(key: "a", value: .string("\u{0C}\u{0B}"))]))
        #expect(try Self.parse("{ a = \"\\UD83D\\UDE00\"; }") == .dictionary([Member(key: "a", value: .string("😀"))]))
    }

    @Test func dictionariesAndArraysNest() throws {
        let parsed = try Self.parse("{ d = { x = 1; }; a = (1, \"2\", (), {},); e = (); f = {}; }")
        #expect(
            parsed
                == .dictionary([
                    Member(key: "d", value: .dictionary([Member(key: "x", value: .string("1"))])),
                    Member(
                        key: "a", value: .array([.string("1"), .string("2"), .array([]), .dictionary([])])),
                    Member(key: "e", value: .array([])),
                    Member(key: "f", value: .dictionary([])),
                ]))
        #expect(try Self.parse("(a, b)") == .array([.string("a"), .string("b")]))
        #expect(try Self.parse("\"alone\"") == .string("alone"))
    }

    /// Every refusal, named with its line.
    @Test(arguments: [
        ("", OpenStepPropertyList.ParseError.empty),
        ("  /* only a comment */ ", .empty),
        ("{ a = <0fab>; }", .data(line: 1)),
        ("{\n a = \"x\";\n a = \"y\";\n}", .duplicateKey("a", line: 3)),
        ("{ a = \"x\" }", .unexpected(found: "'}'", line: 1, expected: "';' after the value")),
        ("{ a \"x\"; }", .unexpected(found: "'\"'", line: 1, expected: "'=' after the key")),
        ("{ a; }", .unexpected(found: "';'", line: 1, expected: "'=' after the key")),
        ("{ = \"x\"; }", .unexpected(found: "'='", line: 1, expected: "a key or '}'")),
        ("{ a = ; }", .unexpected(found: "';'", line: 1, expected: "a value")),
        ("{ a = (1 2); }", .unexpected(found: "'2'", line: 1, expected: "',' or ')'")),
        ("{ a = \"x\"; ", .unexpectedEnd(expected: "a key or '}'")),
        ("{ a = ", .unexpectedEnd(expected: "a value")),
        ("(1,", .unexpectedEnd(expected: "a value or ')'")),
        ("{\n a = \"never ends; }", .unterminatedString(line: 2)),
        ("{ a = \"x\"; } /* never ends", .unterminatedComment(line: 1)),
        ("{ a = \"x\"; }\n{ b = \"y\"; }", .trailingText(line: 2)),
        (
            "{ a = \"\\200\"; }",
            .escape("\\200", line: 1, why: "a NeXTSTEP-encoded byte, which jwsinspect does not read")
        ),
        (
            "{ a = \"\\UD83D\"; }",
            .escape("\\UD83D", line: 1, why: "half of a UTF-16 surrogate pair without its other half")
        ),
        (
            "{ a = \"\\UDE00\"; }",
            .escape("\\UDE00", line: 1, why: "half of a UTF-16 surrogate pair without its other half")
        ),
        ("{ a = \"\\Uzz\"; }", .escape("\\U", line: 1, why: "without hex digits")),
        ("{ a = \u{7F}; }", .unexpected(found: "byte 0x7F", line: 1, expected: "a value")),
    ])
    func refusals(_ text: String, _ expected: OpenStepPropertyList.ParseError) {
        #expect(Self.refusal(text) == expected)
    }

    @Test func textThatIsNotUTF8IsRefused() {
        #expect(throws: OpenStepPropertyList.ParseError.notUTF8) {
            try OpenStepPropertyList.parse(Array("{ a = \"".utf8) + [0xFF, 0xFE] + Array("\"; }".utf8))
        }
    }

    @Test func refusalsReadAsOneLine() {
        let described = OpenStepPropertyList.ParseError.duplicateKey("transaction-id", line: 3).description
        #expect(
            described == "names \"transaction-id\" twice in one dictionary (line 3): which one counts would be a guess")
        #expect(OpenStepPropertyList.ParseError.data(line: 2).description.contains("only strings"))
    }

    /// Nesting is bounded: `maximumDepth` levels are read, one more is refused, and a hundred
    /// thousand opening brackets are refused at the bound (never a deep recursion).
    @Test func nestingIsBounded() throws {
        let limit = OpenStepPropertyList.maximumDepth
        let deepest = String(repeating: "(", count: limit) + String(repeating: ")", count: limit)
        #expect(throws: Never.self) { try Self.parse(deepest) }
        let tooDeep = String(repeating: "(", count: limit + 1) + String(repeating: ")", count: limit + 1)
        #expect(Self.refusal(tooDeep) == .tooDeep(line: 1, limit: limit))
        #expect(Self.refusal(String(repeating: "{a=", count: 100_000)) == .tooDeep(line: 1, limit: limit))
        #expect(Self.refusal("{ a = { b = x; }; }", maximumDepth: 1) == .tooDeep(line: 1, limit: 1))
    }

    /// Every byte is read once: a megabyte of members, of escapes, of comment and of an
    /// unterminated string each ends well inside the time limit.
    @Test(.timeLimit(.minutes(10))) func largeInputsAreReadInLinearTime() throws {
        let members = "{" + (0..<50_000).map { "k\($0) = \"v\";" }.joined() + "}"
        guard case .dictionary(let read) = try Self.parse(members) else {
            Issue.record("not a dictionary")
            return
        }
        #expect(read.count == 50_000)
        let escapes = "{ a = \"" + String(repeating: "\\n\\U00e9", count: 100_000) + "\"; }"
        #expect(
            try Self.parse(escapes)
                == .dictionary([Member(key: "a", value: .string(String(repeating: "\né", count: 100_000)))]))
        #expect(Self.refusal("{ a = \"" + String(repeating: "\\\\", count: 500_000)) == .unterminatedString(line: 1))
        #expect(Self.refusal("/*" + String(repeating: "*", count: 1_000_000)) == .unterminatedComment(line: 1))
        let lines = "{" + String(repeating: "\n", count: 1_000_000) + "a = <>; }"
        #expect(Self.refusal(lines) == .data(line: 1_000_001))
    }
}
