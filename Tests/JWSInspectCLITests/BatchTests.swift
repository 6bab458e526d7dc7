import AppStoreTestData
import Foundation
import TestPKI
import Testing

/// Batches: parallel verification in input order, summaries, large documents.
@Suite(.timeLimit(.minutes(10))) struct BatchTests {
    static let pki = ExecutableTests.pki
    static let root = ExecutableTests.rootFile

    /// Valid, tampered and wrong-environment tokens interleaved, so any reordering shows.
    static let mixed: [String] = (0..<300).map { index in
        switch index % 3 {
        case 0: return pki.sign(payloadJSON: TestPayloads.transaction(transactionId: String(index)))
        case 1: return ExecutableTests.tampered()
        default:
            return pki.sign(
                payloadJSON: TestPayloads.transaction(environment: "Production", transactionId: String(index)))
        }
    }

    @Test func parallelOutputKeepsInputOrder() throws {
        let input = Self.mixed.joined(separator: "\n") + "\n"
        #expect(input.utf8.count > 1 << 20, "stdin is read 1 MiB at a time: tokens span a read")
        let single = try CLI.run(
            ["--format", "jsonl", "--environment", "Sandbox", "--jobs", "1", "--root", Self.root], stdin: input)
        let parallel = try CLI.run(
            ["--format", "jsonl", "--environment", "Sandbox", "--jobs", "4", "--root", Self.root], stdin: input)
        #expect(single.status == 1)
        #expect(parallel.status == 1, "the first failing token is a tampered one")
        let statuses = try parallel.jsonObjects().map { $0["status"] as? String }
        #expect(statuses.count == 300)
        #expect(statuses == (0..<300).map { ["valid", "invalid-signature", "wrong-environment"][$0 % 3] })
        #expect(try parallel.jsonObjects().map { $0["source"] as? String } == (1...300).map { "<stdin>:\($0)" })
        // Identical apart from the validNow timestamps, which name the moment of each run.
        func strip(_ text: String) -> String {
            text.replacingOccurrences(of: #"now \([0-9TZ:.\-]+\)"#, with: "now", options: .regularExpression)
                .replacingOccurrences(of: #""time":"[0-9TZ:.\-]+""#, with: "", options: .regularExpression)
        }
        #expect(strip(single.stdout) == strip(parallel.stdout))
    }

    /// Several batches: with more than one job, a batch is verified while the one before is
    /// shown and the next read (`InspectCommand.Run.flush(overlapping:)`). Results stay in input
    /// order, every one is counted, and the exit status is the first failure's in input order,
    /// whichever batch verified first.
    @Test func batchesVerifiedWhileOthersAreShownKeepOrderCountsAndFirstFailure() throws {
        let valid = Self.mixed[0]
        let count = 2_600
        #expect(count > 2 * 1024, "more batches than one in flight and one shown")
        var lines = Array(repeating: valid, count: count)
        lines[1_100] = Self.mixed[2]  // wrong environment (exit 3), in the second batch
        lines[2_300] = Self.mixed[1]  // tampered (exit 1), in the third
        let input = lines.joined(separator: "\n") + "\n"
        for jobs in ["2", "3"] {
            let result = try CLI.run(
                ["--format", "jsonl", "--summary", "--environment", "Sandbox", "--jobs", jobs, "--root", Self.root],
                stdin: input)
            #expect(result.status == 3, "the first failure in input order decides")
            let objects = try result.jsonObjects()
            #expect(objects.map { $0["source"] as? String } == (1...count).map { "<stdin>:\($0)" })
            let statuses = objects.map { $0["status"] as? String }
            #expect(statuses.filter { $0 == "valid" }.count == count - 2)
            #expect(statuses[1_100] == "wrong-environment" && statuses[2_300] == "invalid-signature")
            #expect(result.stderr.contains("\"total\":\(count)"), "\(result.stderr)")
        }
    }

    @Test func summaryCountsResultsByStatus() throws {
        let input = Self.mixed.prefix(6).joined(separator: "\n")
        let table = try CLI.run(["-q", "--summary", "--environment", "Sandbox", "--root", Self.root], stdin: input)
        #expect(table.status == 1)
        #expect(table.stderr == "jwsinspect: summary: 6 results: 2 valid, 2 invalid-signature, 2 wrong-environment\n")
        let jsonl = try CLI.run(
            ["--format", "jsonl", "--summary", "--environment", "Sandbox", "--root", Self.root], stdin: input)
        // Every line of standard output is a result; the summary is one JSON object on standard error.
        #expect(try jsonl.jsonObjects().map { $0["status"] != nil } == Array(repeating: true, count: 6))
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(jsonl.stderr.utf8)) as? [String: Any])
        #expect(summary["record"] as? String == "summary" && summary["total"] as? Int == 6)
        #expect(
            summary["statuses"] as? [String: Int] == ["valid": 2, "invalid-signature": 2, "wrong-environment": 2])
        let tableMode = try CLI.run(["--summary", "--root", Self.root, Self.mixed[0]])
        #expect(tableMode.stderr == "jwsinspect: summary: 1 result: 1 valid\n")
        #expect(tableMode.stdout.hasPrefix("VALID"))
    }

    @Test func largeDocumentIsVerifiedOnEveryJob() throws {
        let tokens = (0..<200).map { Self.pki.sign(payloadJSON: TestPayloads.transaction(transactionId: String($0))) }
        let body = #"{"signedTransactions":["# + tokens.map { "\"\($0)\"" }.joined(separator: ",") + "]}"
        let result = try CLI.run(["--format", "jsonl", "--jobs", "2", "--root", Self.root], stdin: body)
        #expect(result.status == 0)
        let objects = try result.jsonObjects()
        #expect(objects.count == 200)
        #expect(objects.map { $0["source"] as? String } == (0..<200).map { "<stdin>: signedTransactions[\($0)]" })
    }

    @Test(arguments: [["--jobs", "0"], ["--jobs", "x"], ["--jobs", "257"], ["--summary=yes"]])
    func badBatchOptionsExit64(_ arguments: [String]) throws {
        #expect(try CLI.run(arguments + [Self.mixed[0]]).status == 64)
    }
}
