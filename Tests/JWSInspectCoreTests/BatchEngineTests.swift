import AppStoreTestData
import Foundation
import TestPKI
import Testing

@testable import JWSInspectCore

/// The batch engine's scheduling: bounded groups, input order, the first JSON problem.
@Suite struct BatchEngineTests {
    let pki = Fixtures.pki

    /// Every record of `text`, read but not scanned.
    func records(_ text: String) -> [BatchEngine.Work] {
        var stream = InputStream(bytes: Array(text.utf8), origin: "in")
        var records: [BatchEngine.Work] = []
        while let record = stream.nextRecord() { records.append(.record(record)) }
        return records
    }

    /// Outcomes are handed over group by group, so a record with thousands of tokens (a 64 MiB
    /// API dump) never has all its outcomes in memory at once.
    @Test(arguments: [1, 2])
    func outcomesAreHandedOverInBoundedGroups(jobs: Int) throws {
        let token = pki.sign(payloadJSON: TestPayloads.transaction())
        let count = BatchEngine.groupSize * 2 + 100
        let work = records("[" + Array(repeating: "\"\(token)\"", count: count).joined(separator: ",") + "]")
        try #require(work.count == 1)
        let made = Locked(0)
        let engine = BatchEngine(verifier: Verifier(options: Fixtures.options()), jobs: jobs)
        var delivered: [Int] = []
        _ = engine.run(
            work,
            outcome: { inspection in
                made.withLock { $0 += 1 }
                return inspection.status
            }
        ) { (status: Status) in
            #expect(status == .valid)
            delivered.append(made.withLock { $0 })
        }
        #expect(delivered.count == count)
        // When the first outcome arrived, only its group had been made.
        #expect(delivered.first == BatchEngine.groupSize)
        #expect(delivered.last == count)
    }

    /// Outcomes come back in input order whatever the number of workers, items found already
    /// among them, and the first JSON-looking record that was not JSON is the one reported.
    @Test(arguments: [1, 2])
    func outcomesKeepInputOrderAndTheFirstJSONProblemIsReturned(jobs: Int) {
        let tokens = (0..<40).map { pki.sign(payloadJSON: TestPayloads.transaction(transactionId: String($0))) }
        // Two records that look like JSON and are not: too deeply nested first, then merely broken.
        let deep = "{\"a\":" + String(repeating: "[", count: 600) + "x" + String(repeating: "]", count: 600) + "}"
        let lines: [String] = Array(tokens.prefix(20)) + [deep] + Array(tokens[20..<39]) + [#"{"b": broken}"#]
        var work = records(lines.joined(separator: "\n") + "\n")
        work.append(.item(.malformed(source: "last", reason: "nothing found")))
        work.append(.item(.token(source: "given", token: tokens[39])))
        let engine = BatchEngine(verifier: Verifier(options: Fixtures.options()), jobs: jobs)
        var sources: [String] = []
        let problem = engine.run(work, outcome: { $0 }) { sources.append($0.source) }
        #expect(sources == (1...20).map { "in:\($0)" } + (22...40).map { "in:\($0)" } + ["last", "given"])
        #expect(problem?.contains("levels deep") == true, "\(problem ?? "no problem")")
    }
}
