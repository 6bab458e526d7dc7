import Foundation
import TestSupport

/// The `openssl` command-line tool run in a private temporary directory: an independent judge
/// of what the test PKI mints.
struct OpenSSLCommand: ~Copyable {
    /// What one run produced.
    struct Outcome {
        /// The exit status.
        var status: Int32
        /// Standard output as UTF-8 text.
        var output: String
        /// Standard error as UTF-8 text.
        var errors: String
    }

    /// The temporary directory the files live in; removed in `deinit`.
    let directory: URL

    /// Creates a fresh temporary directory.
    init() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("receipt-minting-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Writes `bytes` to `name` in the directory and returns the file's path.
    @discardableResult
    func write(_ bytes: [UInt8], to name: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    /// Writes `text` to `name` in the directory and returns the file's path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        try write(Array(text.utf8), to: name)
    }

    /// The bytes of `name` in the directory.
    func read(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    /// Runs `openssl arguments...` in the directory (relative file names work) and waits for it.
    func run(_ arguments: String...) throws -> Outcome {
        try run(arguments)
    }

    /// Runs `openssl` with `arguments` in the directory and waits for it.
    func run(_ arguments: [String]) throws -> Outcome {
        let result = try ChildProcess.run("openssl", arguments, directory: directory)
        return Outcome(status: result.status, output: result.stdoutText, errors: result.stderrText)
    }
}
