import AppStoreTestData
import Foundation
import TestPKI
import TestSupport
import Testing

/// Runs the built `jwsinspect` executable, as a user or a script would.
enum CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The executable SwiftPM built beside this test bundle.
    static let executable: URL = {
        if let path = ProcessInfo.processInfo.environment["JWSINSPECT_BIN"] { return URL(fileURLWithPath: path) }
        var candidates: [URL] = []
        if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
            candidates.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("jwsinspect"))
        }
        candidates.append(
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "jwsinspect"))
        candidates.append(packageRoot.appendingPathComponent(".build/debug/jwsinspect"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates.last!
    }()

    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String

        /// Every JSON object printed (a pretty stream or JSON lines).
        func jsonObjects() throws -> [[String: Any]] {
            var objects: [[String: Any]] = []
            var depth = 0
            var inString = false
            var escaped = false
            var current: [UInt8] = []
            for byte in Array(stdout.utf8) {
                if depth > 0 || byte == UInt8(ascii: "{") { current.append(byte) }
                if inString {
                    if escaped {
                        escaped = false
                    } else if byte == UInt8(ascii: "\\") {
                        escaped = true
                    } else if byte == UInt8(ascii: "\"") {
                        inString = false
                    }
                    continue
                }
                if byte == UInt8(ascii: "\"") { inString = true }
                if byte == UInt8(ascii: "{") { depth += 1 }
                if byte == UInt8(ascii: "}") {
                    depth -= 1
                    if depth == 0 {
                        let object = try JSONSerialization.jsonObject(with: Data(current))
                        objects.append(try #require(object as? [String: Any]))
                        current = []
                    }
                }
            }
            return objects
        }
    }

    /// Runs the executable, with `stdin` through a pipe (empty when nil), in a fresh folder of
    /// its own (what it writes by a relative name never lands in the checkout), as
    /// `ChildProcess` runs every process a test starts; one still running after `timeout` seconds
    /// (`ChildProcess.defaultTimeout` when nil) is killed, and the test fails with what it
    /// printed (a guard against runaway time, not a measurement: `make bench` measures).
    static func run(
        _ arguments: [String], stdin: String? = nil, timeout: TimeInterval? = nil,
        environment extra: [String: String] = [:]
    ) throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "NO_COLOR")
        environment.merge(extra) { _, new in new }
        return Result(
            try ChildProcess.run(
                executable.path, arguments, environment: environment, directory: try temporaryDirectory(),
                input: .bytes(Array((stdin ?? "").utf8)),
                timeout: timeout.map { .milliseconds(Int($0 * 1_000)) } ?? ChildProcess.defaultTimeout))
    }

    /// Runs another program (a shell, jq, groff), with `stdin` as its standard input (/dev/null
    /// when nil), in a fresh folder of its own, and waits for it.
    static func runProgram(
        _ path: String, _ arguments: [String], stdin: String? = nil,
        outputLimit: Int = ChildProcess.defaultOutputLimit
    ) throws -> Result {
        Result(
            try ChildProcess.run(
                path, arguments, directory: try temporaryDirectory(),
                input: stdin.map { .bytes(Array($0.utf8)) } ?? .nullDevice, outputLimit: outputLimit))
    }

    /// One folder per test process for every file the tests write, removed when the process exits.
    static let scratch: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "jwsinspect-tests-\(getpid())-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: CLI.scratch) }
        return url
    }()

    /// A fresh folder for one test's files, inside `scratch`.
    static func temporaryDirectory() throws -> URL {
        let url = scratch.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func write(_ text: String, to url: URL) throws {
        try Data(text.utf8).write(to: url)
    }
}

extension CLI.Result {
    /// A finished child's status and outputs, as text.
    init(_ result: ChildProcess.Result) {
        self.init(status: result.status, stdout: result.stdoutText, stderr: result.stderrText)
    }
}

/// A value shared between threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
