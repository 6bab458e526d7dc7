import Foundation
import Testing

@testable import JWSInspectCore

/// Output records are written member by member (`JSONStream`), dates formatted from integer
/// milliseconds (`ISO8601.write`): each must write exactly what it replaced, `OrderedJSON`'s
/// writer and `gmtime_r`.
@Suite struct JSONStreamTests {
    /// A random value of every kind the writer has, nested a few deep, empty containers included.
    static func value(depth: Int, using random: inout SplitMix) -> OrderedJSON {
        let strings = ["", "a", "plain text", "quote \" and \\ backslash", "line\nbreak\u{1}", "é — ✓", "2024-01-01"]
        switch Int.random(in: 0..<(depth > 3 ? 6 : 9), using: &random) {
        case 0: return .string(strings.randomElement(using: &random)!)
        case 1: return .integer(Int64.random(in: -1_000_000_000_000...1_000_000_000_000, using: &random))
        case 2: return .bool(Bool.random(using: &random))
        case 3: return .null
        case 4: return .raw(Array(#"{"b": [1, 2, {"c": "d\n"}], "e": {}, "f": [ ]}"#.utf8))
        case 5: return .double(Double.random(in: -10...10, using: &random))
        case 6, 7:
            let count = Int.random(in: 0...4, using: &random)
            return .object(
                .init(distinct: (0..<count).map { ("key \($0) \"x\"", value(depth: depth + 1, using: &random)) }))
        default:
            return .array(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in value(depth: depth + 1, using: &random) })
        }
    }

    /// Writes `value` through the stream's calls, as a record renderer does.
    static func stream(_ value: OrderedJSON, into stream: inout JSONStream) {
        switch value {
        case .object(let object):
            stream.openObject()
            for (key, member) in object.members {
                stream.key(data: key)
                Self.stream(member, into: &stream)
            }
            stream.closeObject()
        case .array(let values):
            stream.openArray()
            for element in values {
                stream.element()
                Self.stream(element, into: &stream)
            }
            stream.closeArray()
        case .string(let text): stream.string(text)
        case .integer(let number): stream.integer(number)
        case .bool(let flag): stream.bool(flag)
        case .null: stream.null()
        case .raw(let bytes): stream.raw(bytes)
        case .double, .preformatted: stream.value(value)
        }
    }

    @Test func randomValuesAreWrittenAsOrderedJSONWritesThem() {
        var random = SplitMix(seed: 7)
        for _ in 0..<2_000 {
            let value = Self.value(depth: 0, using: &random)
            for pretty in [false, true] {
                for level in [0, 1, 3] {
                    var stream = JSONStream(pretty: pretty, level: level)
                    Self.stream(value, into: &stream)
                    #expect(
                        String(decoding: stream.bytes, as: UTF8.self) == value.serialized(pretty: pretty, level: level),
                        "pretty \(pretty), level \(level)")
                }
            }
        }
    }

    /// A random decoded value: strings, integers, doubles, booleans, null, arrays and objects.
    static func decoded(depth: Int, using random: inout SplitMix) -> JSONValue {
        switch Int.random(in: 0..<(depth > 3 ? 6 : 8), using: &random) {
        case 0: return .string(["", "a", "q\"b\\", "é\n"].randomElement(using: &random)!)
        case 1: return .integer(Int64.random(in: Int64.min...Int64.max, using: &random))
        case 2: return .double(Double.random(in: -1e6...1e6, using: &random))
        case 3: return .bool(Bool.random(using: &random))
        case 4: return .null
        case 5: return .string("2000000000000000")
        case 6:
            return .array(
                (0..<Int.random(in: 0...3, using: &random)).map { _ in decoded(depth: depth + 1, using: &random) })
        default:
            var members: [String: JSONValue] = [:]
            for index in 0..<Int.random(in: 0...3, using: &random) {
                members["k\(index)"] = decoded(depth: depth + 1, using: &random)
            }
            return .object(members)
        }
    }

    @Test func decodedValuesAreWrittenAsTheirOrderedJSONIs() {
        var random = SplitMix(seed: 9)
        for _ in 0..<2_000 {
            let value = Self.decoded(depth: 0, using: &random)
            for pretty in [false, true] {
                var stream = JSONStream(pretty: pretty, level: 1)
                stream.value(value)
                #expect(
                    String(decoding: stream.bytes, as: UTF8.self)
                        == OrderedJSON(value).serialized(pretty: pretty, level: 1))
            }
        }
    }

    @Test func namesWrittenInCodeAreWrittenAsDataNamesAre() {
        for pretty in [false, true] {
            var literal = JSONStream(pretty: pretty)
            var data = JSONStream(pretty: pretty)
            literal.openObject()
            data.openObject()
            literal.key("source")
            data.key(data: "source")
            literal.date(Date(timeIntervalSince1970: 1_667_559_685.499))
            data.string("2022-11-04T11:01:25.499Z")
            literal.key("nothing")
            data.key(data: "nothing")
            literal.date(nil)
            data.string("?")
            literal.closeObject()
            data.closeObject()
            #expect(literal.bytes == data.bytes)
        }
    }

    /// The identifiers JSON output writes without escaping (`JSONStream.plain`): every check's
    /// name, status and payload kind, and the time bases, need none.
    @Test func identifiersWrittenPlainNeedNoEscape() {
        let names =
            Policies.all.map { $0.name.rawValue } + Status.allCases.map(\.rawValue)
            + PayloadKind.allCases.map(\.rawValue)
        #expect(names.count > 30)
        for name in names {
            #expect(
                !name.isEmpty && name.utf8.allSatisfy { (0x20...0x7E).contains($0) && $0 != 0x22 && $0 != 0x5C },
                "\(name)")
            var plain = JSONStream(pretty: false)
            plain.plain(name)
            var escaped = JSONStream(pretty: false)
            escaped.string(name)
            #expect(plain.bytes == escaped.bytes)
        }
    }

    /// The formatter this one replaced: `gmtime_r` on the whole seconds.
    static func gmtimeString(_ date: Date) -> String {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds.isFinite, milliseconds >= -62_135_596_800_000, milliseconds < 253_402_300_800_000 else {
            return "?"
        }
        let seconds = (milliseconds / 1000).rounded(.down)
        var time = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&time, &parts) != nil else { return "?" }
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1,
            Int(parts.tm_mday), Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec),
            Int(milliseconds - seconds * 1000))
    }

    @Test func datesAreFormattedAsGmtimeFormatsThem() {
        var random = SplitMix(seed: 8)
        var dates: [Double] = [
            0, -1, -0.0004, 0.0005, 1_667_559_685_499, 951_782_400_000, 951_868_800_000, 4_107_542_400_000,
            -62_135_596_800_000, -62_135_596_800_001, 253_402_300_799_999, 253_402_300_800_000, -2_208_988_800_000,
            1_735_689_599_999.5,
        ]
        for _ in 0..<100_000 {
            dates.append(Double(Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &random)))
        }
        for _ in 0..<10_000 { dates.append(Double.random(in: -1e15...1e15, using: &random)) }
        for milliseconds in dates {
            let date = Date(timeIntervalSince1970: milliseconds / 1000)
            #expect(ISO8601.string(date) == Self.gmtimeString(date), "\(milliseconds)")
        }
        #expect(ISO8601.string(nil) == "?")
        #expect(ISO8601.string(Date(timeIntervalSince1970: .nan)) == "?")
        #expect(ISO8601.string(Date(timeIntervalSince1970: .infinity)) == "?")
    }
}
