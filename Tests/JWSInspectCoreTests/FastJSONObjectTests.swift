import Foundation
import Testing

@testable import JWSInspectCore

/// `FastJSONObject` reads what it reads exactly as Foundation's `JSONDecoder` does, and
/// declines (nil: Foundation reads it) whatever it might read otherwise.
struct FastJSONObjectTests {
    /// Foundation's reading, the one `FastJSONObject` must equal.
    static func foundation(_ text: [UInt8]) throws -> [String: JSONValue]? {
        try JSONValue.decodeUnchecked(text).objectValue
    }

    /// Every payload of the real samples, nested ones included: Apple's own texts.
    static func samplePayloads() throws -> [[UInt8]] {
        var payloads: [[UInt8]] = []
        var tokens = try [
            "notification-subscribed-sandbox-2025.jws", "notification-test-sandbox-2025.jws",
            "transaction-sandbox-2022.jws",
        ].map(Fixtures.sample)
        while let token = tokens.popLast() {
            let payload = try Base64URL.decode(Array(token.split(separator: ".")[1].utf8))
            payloads.append(payload)
            let data = try #require(try foundation(payload))["data"]?.objectValue ?? [:]
            tokens += data.values.compactMap(\.stringValue).filter { $0.hasPrefix("eyJ") }
        }
        return payloads
    }

    @Test func readsApplesPayloadsAsFoundationDoes() throws {
        let payloads = try Self.samplePayloads()
        #expect(payloads.count >= 5)
        for payload in payloads {
            let fast = try #require(FastJSONObject.parse(payload), "\(String(decoding: payload, as: UTF8.self))")
            #expect(fast == (try Self.foundation(payload)))
        }
    }

    @Test(arguments: [
        #"{}"#, #" { } "#, "\t{\r\n\"a\" :\n1 }\n", #"{"a":[],"b":{},"c":[[],{}]}"#,
        #"{"s":"plain","e":"","u":"h\u00e9llo \u0000 \u001f \u20ac","x":"\"\\\/\b\f\n\r\t"}"#,
        #"{"raw":"héllo € 𝄞","key é":"v"}"#, #"{"n":0,"m":-1,"big":9223372036854775807,"min":-9223372036854775808}"#,
        #"{"t":true,"f":false,"z":null,"a":[1,"2",true,null,{"b":[3]}]}"#,
        #"{"signedDate":"1700000000000","price":true,"data":[1],"expiresDate":{"x":1}}"#,
        #"{"environment":1,"isUpgraded":0,"bundleId":null}"#,
    ])
    func readsWhatItReadsAsFoundationDoes(_ text: String) throws {
        let bytes = Array(text.utf8)
        let fast = try #require(FastJSONObject.parse(bytes))
        #expect(fast == (try Self.foundation(bytes)), "\(text)")
    }

    @Test(arguments: [
        // Numbers Foundation reads its own way.
        #"{"a":1.5}"#, #"{"a":1.0}"#, #"{"a":1e3}"#, #"{"a":1E3}"#, #"{"a":-0}"#, #"{"a":9223372036854775808}"#,
        #"{"a":-9223372036854775809}"#, #"{"a":99999999999999999999999}"#,
        // UTF-16 surrogates, paired or not; raw control characters; unknown escapes.
        #"{"a":"\ud83d\ude00"}"#, #"{"a":"\ud800"}"#, #"{"a":"\udc00x"}"#, "{\"a\":\"tab\there\"}", #"{"a":"\q"}"#,
        #"{"a":"\u12"}"#, #"{"a":"\u12G4"}"#,
        // Names Swift deems equal: two members to JSON, one key to a dictionary.
        "{\"\u{E9}\":1,\"e\u{301}\":2}",
        // Not an object, or not JSON.
        #"[1]"#, #""s""#, #"1"#, #"{"a":1} x"#, #"{"a":1,}"#, #"{"a":01}"#, #"{"a":-}"#, #"{"a" 1}"#, #"{"a":tru}"#,
        #"{"a":[1,]}"#, #"{a:1}"#, #"{"a":1"#, #"{"a":"#, #"{"a":"x"#, "",
    ])
    func declinesWhatFoundationMayReadOtherwise(_ text: String) {
        #expect(FastJSONObject.parse(Array(text.utf8)) == nil, "\(text)")
    }

    @Test func declinesBytesThatAreNotUTF8AndDeepNesting() {
        #expect(FastJSONObject.parse(Array(#"{"a":""#.utf8) + [0xFF, 0xFE] + Array(#""}"#.utf8)) == nil)
        #expect(FastJSONObject.parse(Array(#"{""#.utf8) + [0xC3] + Array(#"":1}"#.utf8)) == nil)
        let deep = FastJSONObject.maximumDepth
        let within = "{\"a\":" + String(repeating: "[", count: deep - 1) + String(repeating: "]", count: deep - 1) + "}"
        #expect(FastJSONObject.parse(Array(within.utf8)) != nil)
        let over = "{\"a\":" + String(repeating: "[", count: deep) + String(repeating: "]", count: deep) + "}"
        #expect(FastJSONObject.parse(Array(over.utf8)) == nil)
    }

    /// Random objects of every kind of value it reads, in random layouts, read as Foundation
    /// reads them.
    @Test func randomObjectsReadAsFoundationDoes() throws {
        var generator = SplitMix(seed: 26_027)
        for _ in 0..<500 {
            let text = Self.randomObject(&generator, depth: 0)
            let bytes = Array(text.utf8)
            let fast = try #require(FastJSONObject.parse(bytes), "\(text)")
            #expect(fast == (try Self.foundation(bytes)), "\(text)")
        }
    }

    /// A payload FastJSONObject reads is not checked again (`CompactJWS`): whatever it reads,
    /// the strict check passes, with no raw control character, and says nothing else. Random
    /// objects, then each spoiled byte by byte, by a character put in or taken out, by a
    /// duplicate name and by nesting: every text read is one the strict check passes.
    @Test func readsNothingTheStrictCheckRefuses() {
        var generator = SplitMix(seed: 27_027)
        let insertions = Array("{}[],:\\\"0-1.eE \n\tx\u{1}\u{7f}é".utf8) + [0xFF, 0xC3, 0x00]
        var read = 0
        var spoiledRead = 0
        for round in 0..<30_000 {
            var bytes = Array(Self.randomObject(&generator, depth: 0).utf8)
            let spoiled = round % 3 != 0 && !bytes.isEmpty
            if spoiled {
                for _ in 0..<Int.random(in: 1...3, using: &generator) where !bytes.isEmpty {
                    let index = Int.random(in: 0..<bytes.count, using: &generator)
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: bytes[index] = insertions.randomElement(using: &generator)!
                    case 1: bytes.insert(insertions.randomElement(using: &generator)!, at: index)
                    case 2: bytes.remove(at: index)
                    default: bytes[index] ^= 1 << UInt8.random(in: 0...7, using: &generator)
                    }
                }
            }
            guard FastJSONObject.parse(bytes) != nil else { continue }
            read += 1
            if spoiled { spoiledRead += 1 }
            let (problem, duplicate, raw) = bytes.withUnsafeBufferPointer { JSONSyntax.strictCheck($0) }
            #expect(problem == nil && duplicate == nil && !raw, "\(String(decoding: bytes, as: UTF8.self))")
            guard case .success(nil) = CompactJWS.strictText(bytes) else {
                Issue.record("strictText refuses \(String(decoding: bytes, as: UTF8.self))")
                continue
            }
        }
        #expect(read > 10_000)
        #expect(spoiledRead > 1_000, "spoiled texts FastJSONObject still reads are checked too")
        // Shapes the generator makes rarely: a name twice, deep nesting, text around the object.
        for text in [
            #"{"a":1,"a":2}"#, #"{"a":1,"\u0061":2}"#, "{\"é\":1,\"e\u{301}\":2}",
            String(repeating: #"{"a":"#, count: 64) + "1" + String(repeating: "}", count: 64), #"{"a":1}x"#,
            #"x{"a":1}"#,
            "\u{FEFF}{\"a\":1}", #"{"a":01}"#, #"{"a":1,}"#, #"{"a":[1,]}"#, #"{"a":tru}"#, #"{"a" 1}"#,
        ] {
            let bytes = Array(text.utf8)
            if FastJSONObject.parse(bytes) != nil {
                #expect(bytes.withUnsafeBufferPointer { JSONSyntax.strictCheck($0) }.problem == nil, "\(text)")
            }
        }
    }

    /// The members a verifier selects, and the kind recognised, are Foundation's, for every
    /// sample payload and every selection the policies make.
    @Test func selectsWhatFoundationSelects() throws {
        var everything = VerificationOptions()
        everything.expectedBundleId = "com.example.app"
        everything.expectedAppAppleId = 1_470_168_868
        everything.expectedEnvironment = .sandbox
        everything.expectedAccountToken = UUID()
        everything.requireActive = true
        var notification = VerificationOptions()
        notification.kindOverride = .notification
        let selections =
            [VerificationOptions(), everything, notification].map { PayloadKeys(for: $0).selection }
            + [PayloadKeys.all.selection]
        for payload in try Self.samplePayloads() {
            for selection in selections {
                let fast = try #require(try JSONValue.decodeObject(payload, selection: selection))
                let slow = try #require(try JSONValue.decodeObjectWithFoundation(payload, selection: selection))
                #expect(fast.members == slow.members)
                #expect(fast.kind == slow.kind)
            }
        }
    }

    // MARK: Random JSON

    static func space(_ generator: inout SplitMix) -> String {
        [" ", "", "", "\n  ", "\t", "\r\n"].randomElement(using: &generator)!
    }

    static func randomString(_ generator: inout SplitMix) -> String {
        let pieces = [
            "a", "Z", "0", " ", "é", "€", "𝄞", "\\\"", "\\\\", "\\/", "\\n", "\\t", "\\b", "\\f", "\\r", "\\u0041",
            "\\u00e9", "\\u20AC", "\\u0000", "\\u001F", "com.example", "-",
        ]
        let count = Int.random(in: 0...6, using: &generator)
        return "\"" + (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined() + "\""
    }

    static func randomValue(_ generator: inout SplitMix, depth: Int) -> String {
        switch Int.random(in: 0..<(depth < 4 ? 9 : 7), using: &generator) {
        case 0, 1: return randomString(&generator)
        case 2: return String(Int64.random(in: -1_000_000...1_000_000, using: &generator))
        case 3:
            return String(
                [Int64.max, Int64.min, 0, 1_700_000_000_000, -1].randomElement(using: &generator)!)
        case 4: return ["true", "false"].randomElement(using: &generator)!
        case 5: return "null"
        case 6: return String(UInt32.random(in: 0...UInt32.max, using: &generator))
        case 7: return randomObject(&generator, depth: depth + 1)
        default:
            let count = Int.random(in: 0...4, using: &generator)
            let elements = (0..<count).map { _ in space(&generator) + randomValue(&generator, depth: depth + 1) }
            return "[" + elements.joined(separator: ",") + space(&generator) + "]"
        }
    }

    static func randomObject(_ generator: inout SplitMix, depth: Int) -> String {
        let count = Int.random(in: 0...6, using: &generator)
        var members: [String] = []
        for index in 0..<count {
            // Distinct names: Foundation's reading of a name given twice is not the question here.
            let name = "\"k\(index)" + ["", "é", "\\u00e9x", "\\n"].randomElement(using: &generator)! + "\""
            members.append(
                space(&generator) + name + space(&generator) + ":" + space(&generator)
                    + randomValue(&generator, depth: depth))
        }
        return "{" + members.joined(separator: ",") + space(&generator) + "}"
    }
}
