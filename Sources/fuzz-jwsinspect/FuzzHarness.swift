// The fuzz target over the input scanner and the decode/verify/display path.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`: libFuzzer calls
// `LLVMFuzzerTestOneInput` with mutated inputs. Built normally (as `swift build` and
// `make test` do), it is a replay tool: `fuzz-jwsinspect FILE|DIR...` runs every file
// through the same harness, so the seed corpus and every crash ever found stay
// regression tests (Tests/Fuzz/).
import Foundation
import JWSInspectCore

enum Harness {
    /// Apple's embedded roots, at a fixed "now", so runs are repeatable.
    static let verifier: Verifier = {
        var options = VerificationOptions()
        options.now = Date(timeIntervalSince1970: 1_764_547_200)  // 2025-12-01
        options.expectedEnvironment = .sandbox
        options.expectedBundleId = "com.example.app"
        options.requireActive = true
        return Verifier(options: options)
    }()

    static func run(_ bytes: [UInt8]) {
        // As a whole input: scanned for JWS, each inspected and rendered for reading.
        for item in InputScanner.scan(bytes, origin: "fuzz") {
            guard case .token(let source, let token) = item else { continue }
            inspect(token, source: source)
        }
        // As one token, whatever it holds.
        inspect(String(decoding: bytes, as: UTF8.self), source: "raw")
    }

    private static func inspect(_ token: String, source: String) {
        let inspection = verifier.inspect(token, source: source)
        // Batches inspect as if the signature verified, then verify: the same verdict, or
        // (when the signature fails) a failure that the ordinary inspection reports.
        let (deferred, signature) = verifier.inspectDeferringSignature(token, source: source)
        if signature?.verifies() ?? true {
            precondition(deferred.status == inspection.status && deferred.reason == inspection.reason,
                         "deferred verification disagrees: \(deferred.reason) / \(inspection.reason)")
        } else {
            precondition(inspection.status.isFailure, "a signature that does not verify, yet \(inspection.reason)")
        }
        let (display, summary) = inspection.presentation
        _ = display?.fields.count
        _ = summary?.count
        for nested in inspection.nested { _ = nested.inspection.presentation }
    }
}

#if FUZZING
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
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
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
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
