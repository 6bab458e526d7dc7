import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// Headers and payloads are JSON text as RFC 8259 defines it, in UTF-8: what Foundation's
/// lax parser accepts beyond that could not be shown as signed in JSON output.
@Suite struct JSONTextTests {
    static let pki = Fixtures.pki
    static let prefix = #"{"transactionId":"1","signedDate":1735689600000"#

    /// Signed properly: a payload is refused for what it is, not for its signature.
    static func inspect(payload: [UInt8]) -> Inspection {
        Fixtures.inspect(TestPKI.compactJWS(headerJSON: pki.headerJSON(), payloadBytes: payload, key: pki.leaf.key))
    }

    /// Foundation accepts every one of these (the last four in members it does not decode).
    @Test(arguments: [
        (#",}"#, "a trailing comma before '}' at byte 48"),
        (#","x":[1,]}"#, "a trailing comma before ']' at byte 55"),
        (#","x":01}"#, "a malformed number at byte 53"),
        (#","x":-}"#, "a malformed number at byte 53"),
        (#","x":1.}"#, "a malformed number at byte 54"),
        (#","x":1e}"#, "a malformed number at byte 54"),
        (#","x":"\q"}"#, #"an unknown escape '\q' at byte 54"#),
    ])
    func laxJSONIsMalformed(_ tail: String, _ expected: String) {
        let result = Self.inspect(payload: Array((Self.prefix + tail).utf8))
        #expect(result.status == .malformed)
        #expect(result.reason == "the payload is not valid JSON: \(expected)", "\(result.reason)")
    }

    @Test(arguments: [
        ([0xEF, 0xBB, 0xBF], "it starts with a UTF-8 byte order mark; JSON is UTF-8 without one (RFC 8259 §8.1)"),
        ([0xFF, 0xFE], "it starts with a UTF-16 byte order mark; JSON is UTF-8 without one (RFC 8259 §8.1)"),
        ([0xFE, 0xFF], "it starts with a UTF-16 byte order mark; JSON is UTF-8 without one (RFC 8259 §8.1)"),
    ])
    func byteOrderMarksAreNamed(_ mark: [UInt8], _ expected: String) {
        let result = Self.inspect(payload: mark + Array((Self.prefix + "}").utf8))
        #expect(result.status == .malformed)
        #expect(result.reason == "the payload is not valid JSON: \(expected)", "\(result.reason)")
    }

    @Test func utf16And32AreNotUTF8() throws {
        let text = Self.prefix + "}"
        for encoding: String.Encoding in [.utf16LittleEndian, .utf16BigEndian, .utf32LittleEndian, .utf32BigEndian] {
            let bytes = Array(try #require(text.data(using: encoding)))
            #expect(
                (try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))) != nil, "Foundation reads \(encoding)")
            let result = Self.inspect(payload: bytes)
            #expect(result.status == .malformed)
            #expect(
                result.reason.hasPrefix("the payload is not valid JSON: it holds NUL bytes where JSON text begins"),
                "\(result.reason)")
        }
    }

    /// Numbers a double cannot hold and unpaired surrogates are JSON syntax, but Foundation
    /// cannot decode them: left in, the report would silently lack those members.
    @Test(arguments: [
        (#","x":1e400}"#, "the number 1e400 is beyond the range of a 64-bit float (RFC 8259 §6) at byte 52"),
        (#","x":-1.8e308}"#, "the number -1.8e308 is beyond the range of a 64-bit float (RFC 8259 §6) at byte 52"),
        (#","x":1e-400}"#, "the number 1e-400 is beyond the range of a 64-bit float (RFC 8259 §6) at byte 52"),
        (#","x":"\ud800"}"#, "an unpaired surrogate escape at byte 59"),
        (#","x":"\udc00\ud800"}"#, "an unpaired surrogate escape at byte 58"),
        (#","x":"\ud800\n"}"#, "an unpaired surrogate escape at byte 60"),
    ])
    func whatFoundationCannotDecodeIsMalformed(_ tail: String, _ expected: String) {
        let result = Self.inspect(payload: Array((Self.prefix + tail).utf8))
        #expect(result.status == .malformed)
        #expect(result.reason == "the payload is not valid JSON: \(expected)", "\(result.reason)")
    }

    /// Raw control characters inside strings are the one laxity kept (Foundation and Apple's
    /// Swift library accept them); output escapes them. Paired surrogates, zero and the
    /// extremes of a double are fine.
    @Test func controlCharactersInStringsAreAccepted() {
        let payload =
            Array((Self.prefix + #","note":"a"#).utf8) + [0x00, 0x01, 0x0A, 0x09, 0x1B, 0x1F]
            + Array(#"z","s":"\ud83d\ude00","z":0e-400,"m":1.7976931348623157e308,"t":5e-324}"#.utf8)
        let result = Self.inspect(payload: payload)
        #expect(result.status == .valid, "\(result.reason)")
        #expect(result.jws?.payload.object["note"] == .string("a\u{0}\u{1}\n\t\u{1b}\u{1f}z"))
        #expect(result.jws?.payload.object["s"] == .string("😀"))
        #expect(result.jws?.payload.object["t"] == .double(Double.leastNonzeroMagnitude))  // 5e-324
    }

    @Test func theHeaderIsHeldToTheSameRules() {
        let header = #"{"alg":"ES256","x5c":["\#(Self.pki.x5c.joined(separator: #"",""#))"],}"#
        let token = TestPKI.compactJWS(headerJSON: header, payloadJSON: Self.prefix + "}", key: Self.pki.leaf.key)
        let result = Fixtures.inspect(token)
        #expect(result.status == .malformed)
        #expect(
            result.reason.hasPrefix("the header is not valid JSON: a trailing comma before '}'"), "\(result.reason)")
    }

    // MARK: The syntax itself

    static func strict(_ text: String) -> String? {
        Array(text.utf8).withUnsafeBufferPointer { JSONSyntax.strictProblem($0) }
    }

    @Test(arguments: [
        "{}", "[]",
        " {\"a\" : [1, -0, 0.5, -1.5e+10, 2E-3, 1e5, true, false, null, \"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\"]} ",
        "\"s\"", "0", "-1",
        "[[[[]]]]", "{\"\":{}}", "123456789012345678901234567890",
    ])
    func strictAcceptsJSON(_ text: String) {
        #expect(Self.strict(text) == nil, "\(text): \(Self.strict(text) ?? "")")
    }

    @Test(arguments: [
        ("", "no JSON value"), ("{", "the text ends inside a value (truncated)"),
        ("{\"a\":1", "the text ends inside a value (truncated)"),
        ("{} {}", "'{' after the end of the JSON value at byte 3"),
        ("[1 2]", "expected ',' or a closing bracket, found '2' at byte 3"),
        ("{\"a\" 1}", "expected ':' after an object's key, found '1' at byte 5"),
        ("{1:2}", "expected a string key, found '1' at byte 1"),
        ("[}", "expected a value, found '}' at byte 1"), ("]", "expected a value, found ']' at byte 0"),
        ("[1}", "'}' closes an array at byte 2"),
        ("nul", "the text ends inside a value (truncated)"), ("nulx", "an unknown word (expected null) at byte 3"),
        ("[\"\\u12g4\"]", "a \\u escape without four hexadecimal digits at byte 6"),
        ("-", "an incomplete number at byte 1"),
        ("[+1]", "expected a value, found '+' at byte 1"), ("[.5]", "expected a value, found '.' at byte 1"),
        ("[NaN]", "expected a value, found 'N' at byte 1"), ("[1,,2]", "expected a value, found ',' at byte 3"),
        ("{\"a\":1,,}", "expected a string key, found ',' at byte 7"),
        ("\u{e9}", "expected a value, found '\\xc3' at byte 0"),
    ])
    func strictRefusesWhatIsNotJSON(_ text: String, _ expected: String) {
        #expect(Self.strict(text) == expected)
    }

    /// Strings are skipped eight bytes at a time: every byte value, at every position of a
    /// word and of the byte-by-byte tail, is seen for what it is.
    @Test func stringsAreScannedWordByWordAndToTheLastByte() {
        for value in 0...255 {
            let byte = UInt8(value)
            var word = [UInt8](repeating: UInt8(ascii: "a"), count: 8)
            for position in 0..<8 {
                word[position] = byte
                let loaded = word.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                #expect(
                    JSONSyntax.mayEndString(loaded) == (byte == 0x22 || byte == 0x5C || byte < 0x20),
                    "byte \(value) at \(position)")
                word[position] = UInt8(ascii: "a")
            }
            for position in [0, 5, 7, 8, 15, 16, 18] {
                var text =
                    Array(#"{"k":""#.utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 20) + Array(#""}"#.utf8)
                text[6 + position] = byte
                let (problem, _, raw) = text.withUnsafeBufferPointer { JSONSyntax.strictCheck($0) }
                switch byte {
                case 0x22: #expect(problem == "expected ',' or a closing bracket, found 'a' at byte \(7 + position)")
                case 0x5C: #expect(problem == "an unknown escape '\\a' at byte \(7 + position)")
                default:
                    #expect(problem == nil, "byte \(value) at \(position): \(problem ?? "")")
                    #expect(raw == (byte < 0x20))
                }
            }
        }
    }

    /// Every prefix of a document is open or complete; the record mode never breaks on a
    /// line end outside strings, and always inside one.
    @Test func recordModeBreaksOnlyWhereJSONCannotContinue() {
        func outcome(_ lines: [String]) -> JSONSyntax.Outcome {
            var syntax = JSONSyntax(mode: .record)
            for line in lines {
                Array(line.utf8).withUnsafeBufferPointer { syntax.feed($0) }
                syntax.endLine()
            }
            return syntax.outcome
        }
        #expect(outcome(["{", "\"a\":", "1", ",\"b\":[", "true", ",", "2", "]", "}"]) == .complete)
        #expect(outcome(["{\"a\":1,", "}"]) == .complete, "lenient: Foundation takes trailing commas")
        #expect(outcome(["{\"a\":\"b", "\"}"]) == .broken, "a string cannot span lines")
        #expect(outcome(["{\"a\":1}", "{"]) == .complete)
        #expect(outcome(["{\"a\":[1,", "{\"b\":2}", "{"]) == .broken)
        #expect(outcome(["[1", "2]"]) == .broken)
        #expect(outcome(["[12", "]"]) == .complete)
    }
}
