import Foundation
import TestPKI
import Testing

@testable import JWSInspectCLI
@testable import JWSInspectCore

/// The serialized header and chain fragments are shared per distinct header, within bounds.
@Suite struct RenderingBoundTests {
    func fragments(_ cache: ChainFragments, header size: Int, index: Int) -> (header: String, chain: String) {
        let header = Array(#"{"alg":"ES256","pad":"\#(index)\#(String(repeating: "x", count: size))"}"#.utf8)
        return cache.fragments(header: header, pretty: false, level: 1) { (.raw(header), .array([])) }
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

/// Outcomes are handed over group by group, so a record with thousands of tokens (a 64 MiB
/// API dump) never has all its rendered results in memory at once.
@Suite struct BatchBoundTests {
    @Test(arguments: [1, 2])
    func outcomesAreHandedOverInBoundedGroups(jobs: Int) throws {
        let pki = ExecutableTests.pki
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        let count = BatchRunner.groupSize * 2 + 100
        let document = Array(("[" + Array(repeating: "\"\(token)\"", count: count).joined(separator: ",") + "]").utf8)
        var stream = InputStream(bytes: document, origin: "in")
        let next = stream.nextRecord()
        let record = try #require(next)
        let rendered = Locked(0)
        var options = VerificationOptions(trustStore: TrustStore(roots: [try Certificate(derBytes: pki.root.der)]))
        options.now = Date(timeIntervalSince1970: 1_748_736_000)
        let runner = BatchRunner(verifier: Verifier(options: options), jobs: jobs) { inspection in
            rendered.update { $0 += 1 }
            return .init(status: inspection.status, output: nil, error: nil)
        }
        var delivered: [Int] = []
        _ = runner.run([.record(record)]) { outcome in
            #expect(outcome.status == .valid)
            delivered.append(rendered.value)
        }
        #expect(delivered.count == count)
        // When the first outcome arrived, only its group had been rendered.
        #expect(delivered.first == BatchRunner.groupSize)
        #expect(delivered.last == count)
    }
}
