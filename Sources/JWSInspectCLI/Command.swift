#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
internal import JWSInspectCore

/// The `jwsinspect` command: reads inputs, verifies every JWS found, renders, and
/// returns the exit status. All terminal knowledge lives here and in `Rendering/`.
public enum Command {
    /// Runs with the process's arguments and exits.
    public static func main() -> Never {
        let status = run(Array(CommandLine.arguments.dropFirst()))
        exit(status)
    }

    /// Runs with `arguments` (without the program name) and returns the exit status.
    static func run(_ arguments: [String]) -> Int32 {
        let options: Options
        do {
            options = try Options.parse(arguments)
        } catch {
            Console.error(error.message)
            Console.error(Help.usage + " (see --help)")
            return ExitStatus.usage.rawValue
        }
        if options.showHelp {
            Console.out(Help.text + "\n")
            return ExitStatus.success.rawValue
        }
        if options.showVersion {
            Console.out("jwsinspect \(Help.version) (\(OpenSSLInfo.version))\n")
            return ExitStatus.success.rawValue
        }

        var verification = VerificationOptions()
        if !options.rootFiles.isEmpty {
            var roots: [Certificate] = []
            for path in options.rootFiles {
                switch loadRoot(path) {
                case .success(let root): roots.append(root)
                case .failure(let failure):
                    Console.error(failure.message)
                    return failure.status.rawValue
                }
            }
            verification.trustStore = TrustStore(roots: roots)
        }
        verification.timePolicy = options.timePolicy
        verification.expectedBundleId = options.bundleId
        verification.expectedAppAppleId = options.appAppleId
        verification.expectedEnvironment = options.environment
        verification.kindOverride = options.kind
        verification.expectedAccountToken = options.accountToken
        verification.deviceVerificationID = options.deviceID
        verification.requireActive = options.requireActive
        verification.strictX509 = options.strictX509
        verification.verifySignatures = options.verify

        let verifier = Verifier(options: verification)
        let color = options.color ?? (Console.stdoutIsTerminal && Console.environment("NO_COLOR") == nil)
        let table = TableRenderer(color: color)
        let format = options.format
        let quiet = options.quiet
        let runner = BatchRunner(verifier: verifier, jobs: options.jobs) { inspection in
            let error = inspection.status == .malformed ? "\(inspection.source): malformed: \(inspection.reason)" : nil
            guard !quiet else { return .init(status: inspection.status, output: nil, error: error) }
            let output: String?
            switch format {
            case .table: output = inspection.status == .malformed ? nil : table.render(inspection)
            case .json: output = JSONRenderer.render(inspection, pretty: true) + "\n"
            case .jsonl: output = JSONRenderer.render(inspection, pretty: false) + "\n"
            }
            return .init(status: inspection.status, output: output, error: error)
        }

        var exitStatus = ExitStatus.success
        var printedTables = 0
        var counts: [Status: Int] = [:]
        var batch: [BatchRunner.Work] = []
        var batchBytes = 0

        /// Verifies the batch; returns how many results it had and the first JSON problem seen.
        @discardableResult
        func flush() -> (results: Int, jsonProblem: String?) {
            var results = 0
            let problem = runner.run(batch) { outcome in
                results += 1
                if let error = outcome.error { Console.error(error) }
                if var output = outcome.output {
                    if format == .table {
                        if printedTables > 0 { output = "\n" + output }
                        printedTables += 1
                    }
                    Console.out(output)
                }
                counts[outcome.status, default: 0] += 1
                if exitStatus == .success { exitStatus = ExitStatus(outcome.status) }
            }
            batch.removeAll(keepingCapacity: true)
            batchBytes = 0
            return (results, problem)
        }

        let inputs = options.inputs.isEmpty ? ["-"] : options.inputs
        for (position, input) in inputs.enumerated() {
            switch InputReader.open(input, position: position + 1) {
            case .unreadable(let message):
                flush()
                Console.error(message)
                if exitStatus == .success { exitStatus = .unreadable }
            case .stream(let origin, var stream):
                var found = 0
                while let record = stream.nextRecord() {
                    batch.append(.record(record))
                    batchBytes += record.size
                    if batch.count >= runner.batchSize || batchBytes >= BatchRunner.batchBytes {
                        let (results, problem) = flush()
                        found += results
                        stream.noteJSONProblem(problem)
                    }
                }
                let (results, problem) = flush()
                found += results
                stream.noteJSONProblem(problem)
                if found == 0 {
                    batch.append(.item(InputReader.nothingFound(in: stream, origin: origin)))
                    flush()
                }
                if let error = stream.readError {
                    Console.error(error)
                    if exitStatus == .success { exitStatus = .unreadable }
                }
            }
        }
        if options.summary {
            reportSummary(counts, format: format, quiet: quiet)
        }
        return exitStatus.rawValue
    }

    /// `--summary`: results counted by status, after everything else.
    private static func reportSummary(_ counts: [Status: Int], format: Options.Format, quiet: Bool) {
        let total = counts.values.reduce(0, +)
        let ordered = Status.allCases.compactMap { status in counts[status].map { (status, $0) } }
        if format == .table || quiet {
            let parts = ordered.map { "\($0.1) \($0.0.rawValue)" }
            Console.error("summary: \(total) result\(total == 1 ? "" : "s")" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")))
        } else {
            let object = OutputJSON.object([("summary", .object([("total", .integer(total))] + ordered.map { ($0.0.rawValue, .integer($0.1)) }))])
            Console.out(object.serialized(pretty: format == .json) + "\n")
        }
    }

    private struct Failure: Error {
        let message: String
        let status: ExitStatus
    }

    private static func loadRoot(_ path: String) -> Result<Certificate, Failure> {
        guard let file = fopen(path, "rb") else {
            return .failure(Failure(message: "--root: cannot read '\(path)': \(String(cString: strerror(errno)))", status: .unreadable))
        }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk[0..<count]
            if bytes.count > 1 << 20 {
                return .failure(Failure(message: "--root: '\(path)' is over 1 MiB; not a certificate", status: .usage))
            }
        }
        do {
            return .success(try Certificate(fileBytes: bytes))
        } catch {
            return .failure(Failure(message: "--root: '\(path)' is \(error)", status: .usage))
        }
    }
}
