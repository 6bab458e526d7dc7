import Testing

@testable import JWSInspectCore

/// The one ordered JSON value: what its writer writes (the command line's output, a receipt's
/// payload, minted payloads all go through it) and what its parser reads.
@Suite struct OrderedJSONTests {
    func text(_ value: OrderedJSON, pretty: Bool = false) -> String { value.serialized(pretty: pretty) }

    @Test func stringsHaveOneEscapingRule() {
        let value = OrderedJSON.string("q\"b\\n\nr\rt\tbs\u{8}ff\u{C}c\u{1}del\u{7F}é")
        #expect(text(value) == #""q\"b\\n\nr\rt\tbs\u0008ff\u000cc\u0001del\#u{7F}é""#)
    }

    @Test func objectsKeepTheirOrderCompactAndPretty() {
        let value = OrderedJSON.object([
            ("z", .integer(-1)), ("a", .array([.bool(true), .null, .double(2.5)])), ("e", .object([])),
            ("n", .array([])),
        ])
        #expect(text(value) == #"{"z":-1,"a":[true,null,2.5],"e":{},"n":[]}"#)
        #expect(
            text(value, pretty: true) == """
                {
                  "z": -1,
                  "a": [
                    true,
                    null,
                    2.5
                  ],
                  "e": {},
                  "n": []
                }
                """)
        #expect(text(.double(.infinity)) == "null")
        #expect(text(.double(.nan)) == "null")
    }

    @Test func rawTextKeepsItsTokensAndOnlyItsWhitespaceChanges() {
        let raw = Array((#"{ "b" : 1.50e+2 , "a":[ ], "s":"x\u0041 y", "c":"tab"# + "\t" + #"in" }"#).utf8)
        #expect(text(.raw(raw)) == #"{"b":1.50e+2,"a":[],"s":"x\u0041 y","c":"tab\tin"}"#)
        #expect(text(.object([("p", .raw(raw))]), pretty: true).contains("\n    \"b\": 1.50e+2,\n"))
    }

    @Test func decodedObjectsAreSortedByKey() throws {
        let decoded = try JSONValue.decode(Array(#"{"b":1,"a":{"y":true,"x":null},"c":[1.5,"s"]}"#.utf8))
        #expect(text(OrderedJSON(decoded)) == #"{"a":{"x":null,"y":true},"b":1,"c":[1.5,"s"]}"#)
    }

    @Test func anObjectMadeWithARepeatedKeyKeepsItsFirstPlaceAndLastValue() {
        var object = OrderedJSON.Object([("a", .integer(1)), ("b", .integer(2)), ("a", .integer(3))])
        #expect(object.keys == ["a", "b"])
        #expect(object["a"] == .integer(3))
        object["b"] = nil
        object["c"] = .string("new")
        object.add("d", nil)
        #expect(text(.object(object)) == #"{"a":3,"c":"new"}"#)
    }

    @Test func parsingKeepsMemberOrderAndRoundTrips() throws {
        let source = #"{"z":{"k":[1,-2.5,"\u00e9\n",false,null]},"a":9223372036854775807,"m":1e2}"#
        let value = try OrderedJSON.parse(Array(source.utf8))
        guard case .object(let object) = value else {
            Issue.record("not an object")
            return
        }
        #expect(object.keys == ["z", "a", "m"])
        #expect(object["a"] == .integer(.max))
        #expect(object["m"] == .double(100))
        #expect(try OrderedJSON.parse(value.bytes) == value)
    }

    @Test(arguments: [
        (#"{"a":1,"a":2}"#, "duplicate member \"a\""),
        ("{\"\u{E9}\":1,\"e\u{301}\":2}", "duplicate member"),
        (#"{"a":1,}"#, "expected a member name"),
        ("[1,", "unexpected end of the text"),
        ("1e999", "out of range"),
        ("\"a\u{1}\"", "control character in a string"),
        (#""\ud800\u0041""#, "unpaired surrogate"),
        ("01", "unexpected text after the JSON value"),
        (String(repeating: "[", count: 65) + String(repeating: "]", count: 65), "nested over 64 levels"),
    ])
    func parsingRefusesWhatIsNotStrictJSON(text: String, reason: String) {
        #expect {
            _ = try OrderedJSON.parse(Array(text.utf8))
        } throws: { error in
            let description = (error as? OrderedJSON.ParseError)?.description ?? ""
            return description.hasPrefix("invalid JSON at byte ") && description.contains(reason)
        }
    }

    /// Member names are checked in a set: an object of many members is read in one pass.
    @Test func aLargeObjectIsReadWhole() throws {
        let members = (0..<50_000).map { "\"m\($0)\":\($0)" }.joined(separator: ",")
        guard case .object(let object) = try OrderedJSON.parse(Array("{\(members)}".utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(object.members.count == 50_000)
        #expect(object.members.last?.key == "m49999")
    }
}

/// `OrderedJSON.writeString` escapes what RFC 8259 requires wherever it is in a string (its
/// fast path clears eight bytes at a time), and copies everything else as it is.
struct OrderedJSONStringTests {
    /// What the writer must give: one byte at a time.
    static func reference(_ text: String) -> [UInt8] {
        var out: [UInt8] = [UInt8(ascii: "\"")]
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): out += Array("\\\\".utf8)
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case ..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return out
    }

    @Test func everyEscapeAtEveryOffsetIsWritten() {
        for special in ["\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1b}", "\u{1f}", "", "\u{7f}", "é", "€"] {
            for filler in ["a", "é", "!~ ", "\u{20}"] {
                for offset in 0..<20 {
                    let text = String(repeating: filler, count: offset) + special + String(repeating: filler, count: 9)
                    var out: [UInt8] = []
                    OrderedJSON.writeString(text, into: &out)
                    #expect(
                        out == Self.reference(text), "\(offset) \(filler.debugDescription) \(special.debugDescription)")
                }
            }
        }
    }
}
