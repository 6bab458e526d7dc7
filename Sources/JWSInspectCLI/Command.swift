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
        // A closed standard input (`<&-`) is noted, then its descriptor taken by /dev/null, so
        // that no file opened later lands on descriptor 0 and is read as standard input.
        let standardInputClosed = fcntl(STDIN_FILENO, F_GETFD) == -1 && errno == EBADF
        if standardInputClosed { _ = Glibc.open("/dev/null", O_RDONLY) }
        let status = run(Array(CommandLine.arguments.dropFirst()), io: .process(standardInputClosed: standardInputClosed))
        exit(status)
    }

    /// Runs with `arguments` (without the program name), reading and writing through `io`,
    /// and returns the exit status.
    public static func run(_ arguments: [String], io: CommandIO) -> Int32 {
        let options: Options
        do {
            options = try Options.parse(arguments)
        } catch {
            io.error(error.message)
            io.error(Help.usage + " (see --help)")
            return ExitStatus.usage.rawValue
        }
        if options.showHelp {
            io.out(Help.text + "\n")
            return ExitStatus.success.rawValue
        }
        if options.showVersion {
            io.out("jwsinspect \(Help.version) (\(OpenSSLInfo.version))\n")
            return ExitStatus.success.rawValue
        }

        var verification = VerificationOptions()
        verification.now = io.now
        if !options.rootFiles.isEmpty {
            var roots: [Certificate] = []
            for path in options.rootFiles {
                switch loadRoots(path) {
                case .success(let certificates): roots += certificates
                case .failure(let failure):
                    io.error(failure.message)
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
        let color = options.color ?? (io.stdoutIsTerminal && io.environment("NO_COLOR") == nil)
        let table = TableRenderer(color: color)
        let format = options.format
        let quiet = options.quiet
        let fragments = ChainFragments()
        let runner = BatchRunner(verifier: verifier, jobs: options.jobs) { inspection in
            let error = inspection.status == .malformed ? "\(inspection.source): malformed: \(inspection.reason)" : nil
            guard !quiet else { return .init(status: inspection.status, output: nil, error: error) }
            let output: String?
            switch format {
            case .table: output = inspection.status == .malformed ? nil : table.render(inspection)
            case .json: output = JSONRenderer.render(inspection, pretty: true, fragments: fragments) + "\n"
            case .jsonl: output = JSONRenderer.render(inspection, pretty: false, fragments: fragments) + "\n"
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
                if let error = outcome.error { io.error(error) }
                if var output = outcome.output {
                    if format == .table {
                        if printedTables > 0 { output = "\n" + output }
                        printedTables += 1
                    }
                    io.out(output)
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
            switch InputReader.open(input, position: position + 1, io: io) {
            case .unreadable(let message):
                flush()
                io.error(message)
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
                if found == 0, stream.readError == nil {
                    batch.append(.item(InputReader.nothingFound(in: stream, origin: origin)))
                    flush()
                }
                if let error = stream.readError {
                    io.error(error)
                    if exitStatus == .success { exitStatus = .unreadable }
                }
            }
        }
        if options.summary {
            reportSummary(counts, format: format, quiet: quiet, io: io)
        }
        return exitStatus.rawValue
    }

    /// `--summary`: results counted by status, after everything else.
    private static func reportSummary(_ counts: [Status: Int], format: Options.Format, quiet: Bool, io: CommandIO) {
        let total = counts.values.reduce(0, +)
        let ordered = Status.allCases.compactMap { status in counts[status].map { (status, $0) } }
        if format == .table || quiet {
            let parts = ordered.map { "\($0.1) \($0.0.rawValue)" }
            io.error("summary: \(total) result\(total == 1 ? "" : "s")" + (parts.isEmpty ? "" : ": " + parts.joined(separator: ", ")))
        } else {
            let object = OutputJSON.object([("summary", .object([("total", .integer(total))] + ordered.map { ($0.0.rawValue, .integer($0.1)) }))])
            io.out(object.serialized(pretty: format == .json) + "\n")
        }
    }

    private struct Failure: Error {
        let message: String
        let status: ExitStatus
    }

    /// The certificates of one `--root` file (DER, or PEM with one or more blocks).
    private static func loadRoots(_ path: String) -> Result<[Certificate], Failure> {
        let limit = 1 << 20
        switch readFile(path, limit: limit) {
        case .failure(let reason):
            return .failure(Failure(message: "--root: cannot read '\(path)': \(reason)", status: .unreadable))
        case .success(nil):
            return .failure(Failure(message: "--root: '\(path)' is over \(InputStream.describe(size: limit)); not a certificate", status: .usage))
        case .success(let bytes?):
            do {
                return .success(try Certificate.all(fileBytes: bytes))
            } catch {
                return .failure(Failure(message: "--root: '\(path)' is \(error)", status: .usage))
            }
        }
    }

    /// A whole file of at most `limit` bytes (nil when larger), or why it cannot be read.
    private static func readFile(_ path: String, limit: Int) -> Result<[UInt8]?, ReadError> {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return .failure(ReadError(errno)) }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return .failure(ReadError(EISDIR, "it is a directory")) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 14)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(ReadError(errno))
            }
            if count == 0 { return .success(bytes) }
            bytes += chunk[0..<count]
            if bytes.count > limit { return .success(nil) }
        }
    }

    /// Why a file cannot be read: `strerror`, or a plainer phrase.
    private struct ReadError: Error, CustomStringConvertible {
        let description: String

        init(_ code: Int32, _ phrase: String? = nil) {
            description = phrase ?? String(cString: strerror(code))
        }
    }
}
