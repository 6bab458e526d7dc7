import Foundation
import TestPKI
import Testing

/// The README's recipe for more than one process (or machine): GNU parallel cuts standard
/// input into blocks of lines, one jwsinspect per block, `--first-line` numbering each block's
/// lines as the whole stream's, `--keep-order` putting the results back in order. The records
/// are those of one process, byte for byte, but `validNow`, which says when each was judged.
/// GNU parallel's path, when the `parallel` on the PATH is GNU's (moreutils has another).
enum GNUParallel {
    static let path: String? = {
        guard let found = try? CLI.runProgram("/bin/sh", ["-c", "command -v parallel"]), found.status == 0 else {
            return nil
        }
        let path = found.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let version = try? CLI.runProgram(path, ["--version"]), version.stdout.contains("GNU parallel") else {
            return nil
        }
        return path
    }()
}

@Suite(
    .timeLimit(.minutes(10)),
    .enabled(if: GNUParallel.path != nil, "GNU parallel is not installed (make test installs it)"))
struct ParallelRecipeTests {
    /// When each record was judged: the one member that differs between two runs.
    static func judged(_ output: String) -> String {
        output.replacing(/"validNow":\{[^{}]*\}/, with: #""validNow":…"#)
    }

    @Test func twoLocalJobsGiveOneProcesssRecordsInOrder() throws {
        let folder = try CLI.temporaryDirectory()
        let chain = AppleShapedChain()
        let root = folder.appendingPathComponent("root.der")
        try Data(chain.root.der).write(to: root)
        // 100,000 lines: every 20th a token of the test chain (five transactions, a renewal
        // info, a notification), the others a token without a chain, a line of text, a
        // blank line, in a cycle, so that every block holds results of every kind.
        let tokens =
            (1...5).map { chain.sign(payloadJSON: TestPayloads.transaction(transactionId: "200000000000000\($0)")) }
            + [
                chain.sign(payloadJSON: TestPayloads.renewalInfo()),
                chain.sign(payloadJSON: TestPayloads.notification()),
            ]
        let chainless = "eyJhbGciOiJFUzI1NiJ9.eyJzaWduZWREYXRlIjoxfQ.AAAA"
        var lines: [String] = []
        lines.reserveCapacity(100_000)
        for index in 0..<100_000 {
            if index % 20 == 0 {
                lines.append(tokens[(index / 20) % tokens.count])
            } else {
                lines.append([chainless, "a line of text, no token", ""][index % 3])
            }
        }
        let stream = folder.appendingPathComponent("stream.jws")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: stream)

        let binary = CLI.executable.path
        // The access time fixed too: records judged at two moments would differ in access.time.
        let options = "--format jsonl --root '\(root.path)' --at 2025-06-01 --access-at 2025-06-01"
        // 36,667 records of about 1.8 KB: over the 64 MiB a test keeps by default.
        let limit = 128 << 20
        let one = try CLI.runProgram(
            "/bin/sh", ["-c", "'\(binary)' \(options) < '\(stream.path)'"], outputLimit: limit)
        let recipe =
            "'\(GNUParallel.path!)' --will-cite --pipe -N 10000 --keep-order -j 2 "
            + "'\(binary)' \(options) --first-line '$(( ({#} - 1) * 10000 + 1 ))' < '\(stream.path)'"
        let split = try CLI.runProgram("/bin/sh", ["-c", recipe], outputLimit: limit)
        // One process: exit 2 (chainless tokens); parallel: the number of blocks that failed.
        #expect(one.status == 2, "\(one.stderr.prefix(300))")
        #expect(split.status == 10, "\(split.stderr.prefix(300))")
        let records = one.stdout.split(separator: "\n")
        #expect(records.count == 36_667, "\(records.count)")
        #expect(
            records.last?.hasPrefix(#"{"schemaVersion":1,"record":"result","source":"<stdin>:100000""#) == true,
            "\(records.last?.prefix(80) ?? "")")
        #expect(Self.judged(split.stdout) == Self.judged(one.stdout))
        // Without --first-line the blocks would number their lines from 1: the check can fail.
        #expect(split.stdout.contains(#"{"schemaVersion":1,"record":"result","source":"<stdin>:90001""#))
    }
}

/// `--first-line N`: standard input's lines numbered from N, every other input as before.
struct FirstLineTests {
    @Test func standardInputsLinesAreNumberedFromN() throws {
        let token = try String(
            contentsOf: CLI.packageRoot.appendingPathComponent("Samples/transaction-sandbox-2022.jws"), encoding: .utf8
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        let stdin = "\n" + token + "\nno token here\n" + token + "\n"
        let numbered = InProcess.run(["--format", "jsonl", "--first-line", "40001", "-"], stdin: stdin)
        #expect(numbered.status == 0, "\(numbered.stderr)")
        let sources = FetchHarness.records(numbered.stdout).compactMap { $0["source"] as? String }
        #expect(sources == ["<stdin>:40002", "<stdin>:40004"])
        let plain = InProcess.run(["--format", "jsonl", "-"], stdin: stdin)
        #expect(
            FetchHarness.records(plain.stdout).compactMap { $0["source"] as? String } == ["<stdin>:2", "<stdin>:4"])
    }

    @Test(arguments: ["0", "-1", "x", "1000000000000001"])
    func aFirstLineOutOfRangeIsAUsageError(_ value: String) {
        let result = InProcess.run(["--first-line", value, "-"], stdin: "")
        #expect(result.status == 64, "\(value): \(result.stderr)")
        #expect(result.stderr.hasPrefix("jwsinspect: --first-line must be a whole number from 1"), "\(result.stderr)")
    }
}
