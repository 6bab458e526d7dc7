import AppStoreTestData
import Foundation
import TestPKI
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

    /// Runs the executable; with a `timeout`, a run still going then is killed and reported as
    /// status -1 (a guard against runaway time, not a measurement: `make bench` measures).
    static func run(_ arguments: [String], stdin: String? = nil, timeout: TimeInterval? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "NO_COLOR")
        process.environment = environment
        try process.run()
        // Feed stdin and drain both pipes concurrently so that large outputs cannot deadlock.
        let writer = Thread {
            if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
            try? input.fileHandleForWriting.close()
        }
        writer.start()
        return collect(process, out: out, err: err, timeout: timeout)
    }

    /// Waits for a started `process`, reading `out` and `err` at once (neither can fill and
    /// block it). With a `timeout`, a process still running then is killed, with every process
    /// it started (Foundation makes it a process group's leader: a shell's children, which hold
    /// the pipes open, die too), and reported as status -1.
    static func collect(_ process: Process, out: Pipe, err: Pipe, timeout: TimeInterval?) -> Result {
        nonisolated(unsafe) var errData = Data()
        let errDone = DispatchSemaphore(value: 0)
        Thread {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            errDone.signal()
        }.start()
        let killed = Locked(false)
        if let timeout {
            // A thread of its own: the global dispatch queues are the test runner's threads,
            // and they may all be blocked reading from processes.
            Thread {
                Thread.sleep(forTimeInterval: timeout)
                guard process.isRunning else { return }
                killed.set(true)
                // SIGKILL: a child inherits the test runner's blocked signals, SIGTERM among them.
                kill(-process.processIdentifier, SIGKILL)
            }.start()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        errDone.wait()
        return Result(
            status: killed.value ? -1 : process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs another program (a shell, jq, groff), with `stdin` as its standard input (none when
    /// nil), and waits for it.
    static func runProgram(_ path: String, _ arguments: [String], stdin: String? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        if stdin != nil { process.standardInput = input }
        try process.run()
        if let stdin {
            // Written on a thread of its own, so that a large output cannot block the writer.
            Thread {
                input.fileHandleForWriting.write(Data(stdin.utf8))
                try? input.fileHandleForWriting.close()
            }.start()
        }
        return collect(process, out: out, err: err, timeout: nil)
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

/// A value shared between threads.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }
    func set(_ value: Value) { lock.withLock { stored = value } }
    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
