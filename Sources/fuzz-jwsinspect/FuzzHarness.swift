// The fuzz target over the input scanner, the decode/verify/display path (JWS and legacy
// receipts, ReceiptHarness.swift) and the whole command.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer calls
// `LLVMFuzzerTestOneInput` with mutated inputs. Built normally (as `swift build` and
// `make test` do), it is a replay tool: `fuzz-jwsinspect FILE|DIR...` runs every file
// through the same harness, so the seed corpus and every finding ever made stay
// regression tests (Tests/Fuzz/).
import Foundation
import JWSInspectCLI
import JWSInspectCore
import StrictJSONParser

enum Harness {
    /// A fixed "now", so runs are repeatable.
    static let now = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01

    /// The public key of the developer key (kid 2X9R4HXF34) that signed the corpus's developer
    /// tokens, so that mutations of them reach the developer-key trust model and its claims checks.
    static let developerKey = DeveloperKey(
        keyID: "2X9R4HXF34",
        publicKey: PublicKey(
            subjectPublicKeyInfo: Array(
                Data(
                    base64Encoded:
                        "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEesYHXLhYpga2T6wN3HXyWbK4kNYmK4NLO5z1p33ozqEuXBOz"
                        + "RI1X8Bwo0QnEXQnSRHk51otg10i7w9+utKH4Hw==")!))!)

    /// Apple's embedded roots, with expectations, at the fixed now. One per input: what a
    /// verifier learns stays with it, and memory kept from one input to the next would make
    /// libFuzzer look for leaks after every input (a scan of the whole heap each time).
    static func verifier() -> Verifier {
        var options = VerificationOptions()
        options.now = now
        options.expectedEnvironment = .sandbox
        options.expectedBundleId = "com.example.app"
        options.requireActive = true
        options.developerKeys = [developerKey]
        return Verifier(options: options)
    }

    static func run(_ bytes: [UInt8]) {
        let verifier = verifier()
        // As a whole input: scanned for JWS and receipts, each inspected and rendered for reading.
        for item in InputScanner.scan(bytes, origin: "fuzz") {
            // Memory follows the record: a source names at most SourcePath.maximumLength bytes of
            // JSON path after the origin and its line ("fuzz:12: ").
            let source: String
            switch item {
            case .token(let place, _), .receipt(let place, _), .transactionReceipt(let place, _),
                .realtimeResponse(let place, _), .malformed(let place, _):
                source = place
            }
            precondition(source.utf8.count <= 32 + InputScanner.maximumPathLength, "a source unbounded: \(source)")
            switch item {
            case .token(let source, let token): inspect(token, source: source, verifier: verifier)
            case .receipt(let source, let der): inspectReceipt(der, source: source, verifier: verifier)
            case .transactionReceipt(let source, let propertyList):
                inspectTransactionReceipt(propertyList, source: source, verifier: verifier)
            case .realtimeResponse(let source, let document):
                let inspection = verifier.inspectRealtimeResponse(document, source: source)
                precondition(!inspection.reason.isEmpty, "a realtime response result without a reason")
                precondition(!inspection.isAuthentic, "a realtime response is never authentic")
                precondition(inspection.access?.access.grantsAccess != true, "a realtime response granted access")
            case .malformed: continue
            }
        }
        // As one token, whatever it holds; as one receipt too (a raw receipt already was, as
        // the scanner's one item).
        inspect(String(decoding: bytes, as: UTF8.self), source: "raw", verifier: verifier)
        let rawReceipt = startsRawReceipt(bytes)
        if !rawReceipt { inspectReceipt(bytes, source: "raw", verifier: verifier) }
        // As a transaction receipt's property list (its base64 decoded), whatever it holds.
        inspectTransactionReceipt(bytes, source: "raw", verifier: verifier)
        // Through the whole command, between two lines of known outcome: with a record limit
        // small inputs reach, and one that holds App Store tokens. A raw receipt, which is one
        // only as a whole input, also alone.
        for limit in recordLimits { checkCommand(bytes, recordLimit: limit) }
        if rawReceipt { checkReceiptCommand(bytes, recordLimit: recordLimits[1]) }
        checkDocument(bytes)
    }

    /// The input as a JSON document, as a record is read (issue 48). Invariants:
    /// - member names are compared in linear time: no member name that is not ASCII is over
    ///   `MemberNames.nonASCIILimit` bytes in a document that decodes (such names are where
    ///   Swift's string comparison went quadratic);
    /// - memory is bounded per record: a document decodes only when the tree it makes is
    ///   estimated within the record's budget (`JSONValue.TreeCost`), and a text scan of the
    ///   input hands its items over one at a time, in the same order as the list `scan()` makes.
    ///   (The JSON problem each scan reports is not compared: under the fuzzer's build two scans
    ///   of one record twice reported different problems, never reproduced in a replay.)
    static func checkDocument(_ bytes: [UInt8]) {
        let budget = InputStream.Record.treeBudget(limit: recordLimits[1])
        if let document = try? JSONValue.decode(bytes, budget: budget) {
            let estimate = bytes.withUnsafeBufferPointer { JSONValue.TreeCost.estimate($0) }
            precondition(estimate.bytes <= budget, "a document over its memory budget decoded")
            var pending = [document]
            while let value = pending.popLast() {
                switch value {
                case .object(let members):
                    for (name, member) in members {
                        precondition(
                            name.utf8.allSatisfy { $0 < 0x80 } || name.utf8.count <= JSONValue.nonASCIIMemberNameLimit,
                            "a member name of \(name.utf8.count) bytes, not ASCII, was compared")
                        pending.append(member)
                    }
                case .array(let values): pending += values
                default: break
                }
            }
        }
        var emitted: [InputScanner.Item] = []
        var stream = InputStream(bytes: bytes, origin: "fuzz", recordLimit: recordLimits[1])
        while let record = stream.nextRecord() {
            _ = record.scan { emitted.append($0) }
            let (listed, _) = record.scan()
            precondition(Array(emitted.suffix(listed.count)) == listed, "streaming changed the items")
        }
    }

    private static func inspect(_ token: String, source: String, verifier: Verifier) {
        let inspection = verifier.inspect(token, source: source)
        // Batches inspect with the signature pending, then verify: a pending check is never
        // passed before it has run; once resolved, the same inspection; or (when the signature
        // fails) a failure that the ordinary inspection reports.
        var (deferred, signature) = verifier.inspectDeferringSignature(token, source: source)
        let pending = deferred.checks.filter(\.isPending)
        precondition(
            pending.count == (signature == nil ? 0 : 1) && pending.allSatisfy { $0.name == .signature && !$0.passed },
            "a deferred signature must be one pending signature check, never passed before it has run")
        if signature?.resolve(&deferred) ?? true {
            precondition(
                deferred.status == inspection.status && deferred.reason == inspection.reason
                    && deferred.checks == inspection.checks,
                "deferred verification disagrees: \(deferred.reason) / \(inspection.reason)")
        } else {
            precondition(inspection.status.isFailure, "a signature that does not verify, yet \(inspection.reason)")
        }
        let (display, summary) = inspection.presentation
        _ = display?.fields.count
        _ = summary?.count
        for nested in inspection.nested { _ = nested.inspection.presentation }
        checkAccessFailsClosed(inspection)
        checkNoMemberTwice(inspection)
    }

    /// Access is granted only on data that verified, decided the same way wherever it is asked,
    /// here and in every nested token (SECURITY.md, "Access decisions fail closed").
    static func checkAccessFailsClosed(_ inspection: Inspection) {
        let decision = inspection.access
        precondition(decision == inspection.fullPresentation?.access, "access decided two ways")
        if decision?.access.grantsAccess == true {
            precondition(inspection.status == .valid, "grants access though \(inspection.status.rawValue)")
        }
        if !inspection.decidesAccess {
            precondition(decision == nil || decision?.access.grantsAccess == nil, "a decision on unproven data")
        }
        for nested in inspection.nested { checkAccessFailsClosed(nested.inspection) }
    }

    /// Whatever was not refused as malformed has a header and payload that name no member twice,
    /// as the independent strict parser judges them (SECURITY.md, "Duplicate members are refused").
    static func checkNoMemberTwice(_ inspection: Inspection) {
        guard let sections = inspection.envelope?.sections else { return }
        for (name, bytes) in [("header", sections.header.bytes), ("payload", sections.payload.bytes)] {
            do {
                _ = try StrictJSON.parse(bytes)
            } catch let failure as StrictJSON.Failure where failure.duplicateMember != nil {
                preconditionFailure("a \(name) naming a member twice was accepted: \(failure)")
            } catch {
                continue
            }
        }
        for nested in inspection.nested { checkNoMemberTwice(nested.inspection) }
    }

    /// A JSON record's `access.grants` is true only when `verified` is, here and in `nested`.
    static func checkGrantsOnlyVerified(_ record: [String: Any]) {
        if (record["access"] as? [String: Any])?["grants"] as? Bool == true {
            precondition(record["verified"] as? Bool == true, "a record grants access but did not verify: \(record)")
        }
        for case let nested as [String: Any] in (record["nested"] as? [String: Any] ?? [:]).values {
            checkGrantsOnlyVerified(nested)
        }
    }

    // MARK: The whole command

    /// A line that always yields exactly one result, `invalid-chain` (no `x5c`).
    static let sentinel = "eyJhbGciOiJFUzI1NiJ9.e30.AA"
    /// The record limits of these runs: 1 KiB, which small inputs reach, and 64 KiB.
    static let recordLimits = [1 << 10, 1 << 16]
    static let statuses: Set<String> = [
        "valid", "unverified", "invalid-signature", "invalid-chain", "wrong-environment",
        "wrong-app", "malformed", "inactive", "unverifiable",
        // A realtime response Apple's model refuses: no key is needed to reach it.
        "invalid-claims",
    ]

    /// The input between two sentinel lines, through `jwsinspect --format jsonl -`, read whole
    /// by one worker and in small pieces by two, then as pretty JSON. Invariants:
    /// - the output is JSON (one object a line in JSON Lines), checked by an independent
    ///   strict parser, whatever the input held;
    /// - a batch of N records yields N results or named refusals: one result for each item
    ///   the scanner finds in the input, plus the two sentinels, first and last, in order;
    /// - a line over the record limit is refused with the limit named, never dropped silently;
    /// - reading in pieces, and verifying on two workers, changes nothing.
    static func checkCommand(_ bytes: [UInt8], recordLimit: Int) {
        let input = Array((sentinel + "\n").utf8) + bytes + Array(("\n" + sentinel + "\n").utf8)
        let lastLine = input.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }
        // After the first sentinel line, a raw receipt's bytes are lines of text, as after a newline.
        let scanned = startsRawReceipt(bytes) ? [0x0A] + bytes : bytes
        var stream = InputStream(bytes: scanned, origin: "fuzz", recordLimit: recordLimit)
        var expected = 2
        while let items = stream.next() { expected += items.count }

        let whole = command(
            input, pieceSize: input.count, recordLimit: recordLimit,
            arguments: ["--format", "jsonl", "--jobs", "1", "-"])
        // Two workers for one input in sixteen: their threads outlive the input, which makes
        // libFuzzer look for leaks (a scan of the whole heap) after it.
        let jobs = input.count % 16 == 0 ? "2" : "1"
        let pieces = command(
            input, pieceSize: 1 + Int(input.count % 7), recordLimit: recordLimit,
            arguments: ["--format", "jsonl", "--jobs", jobs, "-"])
        precondition(whole == pieces, "reading in pieces (on \(jobs) workers) changed the output")
        precondition(
            whole.status == 2, "the first sentinel's invalid-chain decides the exit status, not \(whole.status)")
        let results: [[String: Any]]
        do {
            results = try StrictJSON.lines(whole.out)
        } catch {
            preconditionFailure("JSON Lines output is not JSON: \(error)")
        }
        precondition(results.count == expected, "\(expected) items found, \(results.count) results")
        var previousLine = 0
        for result in results {
            guard let status = result["status"] as? String, statuses.contains(status),
                let reason = result["reason"] as? String, !reason.isEmpty,
                let source = result["source"] as? String, source.hasPrefix("<stdin>:")
            else { preconditionFailure("a result without status, reason or source: \(result)") }
            checkGrantsOnlyVerified(result)
            let line = Int(source.dropFirst(8).prefix { $0.isNumber }) ?? 0
            precondition(line >= previousLine, "results out of input order")
            previousLine = line
        }
        for (index, line) in [(0, 1), (results.count - 1, lastLine)] {
            precondition(
                results[index]["source"] as? String == "<stdin>:\(line)"
                    && results[index]["status"] as? String == "invalid-chain", "a sentinel was lost")
        }
        let longest = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(\.count).max() ?? 0
        if longest > recordLimit {
            precondition(
                results.contains { ($0["reason"] as? String)?.contains("limit for one record") == true },
                "a line over the record limit was not refused by name")
        }

        let pretty = command(
            input, pieceSize: input.count, recordLimit: recordLimit,
            arguments: ["--format", "json", "--jobs", "1", "-"])
        do {
            let documents = try StrictJSON.documents(pretty.out)
            precondition(
                documents.count == results.count,
                "pretty JSON has \(documents.count) results, JSON Lines \(results.count)")
        } catch {
            preconditionFailure("pretty JSON output is not JSON: \(error)")
        }
    }

    struct Output: Equatable {
        var status: Int32 = 0
        var out = ""
        var error = ""
    }

    /// Runs the command on `input` as standard input, read `pieceSize` bytes at a time.
    static func command(_ input: [UInt8], pieceSize: Int, recordLimit: Int, arguments: [String]) -> Output {
        var offset = 0
        var output = Output()
        var io = CommandIO(
            standardInput: { buffer in
                guard offset < input.count else { return (0, nil) }
                let end = min(offset + pieceSize, input.count)
                buffer.append(contentsOf: input[offset..<end])
                defer { offset = end }
                return (end - offset, nil)
            },
            now: now,
            writeOut: {
                output.out += $0
                return nil
            }, writeError: { output.error += $0 })
        io.recordLimit = recordLimit
        output.status = Command.run(arguments, io: io)
        return output
    }
}

#if FUZZING
    @_cdecl("LLVMFuzzerTestOneInput")
    package func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
        Harness.run(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
        return 0
    }

    /// libFuzzer's entry point for programs that keep their own `main`.
    @_silgen_name("LLVMFuzzerRunDriver")
    func runFuzzerDriver(
        _ argc: UnsafeMutablePointer<Int32>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
    ) -> Int32

    /// SwiftPM links an executable's entry point as `<module>_main`; hand it to libFuzzer.
    @_cdecl("fuzz_jwsinspect_main")
    package func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
        var count = argc
        var arguments = argv
        return runFuzzerDriver(&count, &arguments) { fuzzOneInput($0, $1) }
    }
#else
    @main
    struct Replay {
        static func main() throws {
            var files = 0
            for argument in CommandLine.arguments.dropFirst() {
                for path in try paths(argument) {
                    Harness.run(try contents(path))
                    files += 1
                }
            }
            print("replayed \(files) inputs")
        }

        static func paths(_ path: String) throws -> [String] {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return [] }
            guard isDirectory.boolValue else { return [path] }
            return try FileManager.default.contentsOfDirectory(atPath: path).filter { !$0.hasPrefix(".") }.sorted()
                .map { "\(path)/\($0)" }
        }

        static func contents(_ path: String) throws -> [UInt8] {
            guard let data = FileManager.default.contents(atPath: path) else { return [] }
            return Array(data)
        }
    }
#endif
