import Foundation
import Testing

@testable import JWSInspectCLI
@testable import JWSInspectCore

/// The serialized header and chain fragments are shared per distinct header, within bounds.
@Suite struct RenderingBoundTests {
    func fragments(_ cache: ChainFragments, header size: Int, index: Int) -> (header: String, chain: String) {
        let header = Array(#"{"alg":"ES256","pad":"\#(index)\#(String(repeating: "x", count: size))"}"#.utf8)
        let made = cache.fragments(header: header, pretty: false, level: 1) { (.raw(header), .array([])) }
        return (String(decoding: made.header, as: UTF8.self), String(decoding: made.chain, as: UTF8.self))
    }

    @Test func headersOverTheEntryBoundAreNeverKept() {
        let cache = ChainFragments()
        for index in 0..<10 { _ = fragments(cache, header: ChainFragments.largestHeader, index: index) }
        #expect(cache.footprint.entries == 0)
    }

    @Test func keptFragmentsStayWithinTheByteBudget() {
        let cache = ChainFragments()
        var largest = 0
        for index in 0..<300 {
            let made = fragments(cache, header: 30_000, index: index)
            #expect(made.header.hasPrefix(#"{"alg":"ES256","pad":"\#(index)x"#))
            largest = max(largest, cache.footprint.bytes)
        }
        #expect(largest > ChainFragments.byteBudget / 2)
        #expect(largest <= ChainFragments.byteBudget)
    }

    @Test func aRepeatedHeaderIsKeptOnce() {
        let cache = ChainFragments()
        for _ in 0..<5 { _ = fragments(cache, header: 100, index: 7) }
        #expect(cache.footprint.entries == 1)
    }
}
