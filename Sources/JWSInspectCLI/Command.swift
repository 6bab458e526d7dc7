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
        var exitStatus = ExitStatus.success
        var printed = 0

        func report(_ inspection: Inspection) {
            if inspection.status == .malformed {
                Console.error("\(inspection.source): malformed: \(inspection.reason)")
            }
            if !options.quiet {
                switch options.format {
                case .table:
                    if inspection.status != .malformed {
                        Console.out((printed > 0 ? "\n" : "") + table.render(inspection))
                        printed += 1
                    }
                case .json:
                    Console.out(JSONRenderer.render(inspection, pretty: true) + "\n")
                case .jsonl:
                    Console.out(JSONRenderer.render(inspection, pretty: false) + "\n")
                }
            }
            if exitStatus == .success { exitStatus = ExitStatus(inspection.status) }
        }

        let inputs = options.inputs.isEmpty ? ["-"] : options.inputs
        for (position, input) in inputs.enumerated() {
            switch InputReader.read(input, position: position + 1) {
            case .unreadable(let message):
                Console.error(message)
                if exitStatus == .success { exitStatus = .unreadable }
            case .items(let origin, let items):
                if items.isEmpty {
                    report(.malformed(source: origin, reason: "no JWS found (expected a compact JWS header.payload.signature, "
                        + "a JSON document holding one, or lines of them)"))
                }
                for item in items {
                    switch item {
                    case .token(let source, let token): report(verifier.inspect(token, source: source))
                    case .malformed(let source, let reason): report(.malformed(source: source, reason: reason))
                    }
                }
            }
        }
        return exitStatus.rawValue
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
