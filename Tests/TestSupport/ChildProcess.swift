internal import CChildProcess
package import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// A program a test starts: the one way test code starts a process, whether it runs to its end
/// (`run`) or serves for a while (`init`, `waitForOutput`, `end`).
///
/// - It gets exactly three descriptors: pipes of its own for standard output and error, and one
///   for standard input (or /dev/null). Nothing else of the test process reaches it, not
///   another test's pipe: a child that held one would keep that test waiting for end of file.
/// - It leads a process group of its own, with no signal blocked. When it exits, whatever it
///   left running in that group is killed; at its deadline, or when the test is cancelled (its
///   time limit), the whole group is killed and `finish()` throws a `Failure` with what it
///   printed so far.
/// - A thread of its own writes its input and reads both outputs as they come, so neither pipe
///   can fill and stall it; each output is kept up to `outputLimit` bytes.
/// - `end()`, and `deinit`, kill its group and return once it is gone.
///
/// A test that starts one must have a time limit (`TestTimeLimit`).
package final class ChildProcess: Sendable {
    /// What the child reads.
    package enum Input: Sendable {
        /// /dev/null: end of file at once.
        case nullDevice
        /// These bytes through a pipe, closed after them.
        case bytes([UInt8])
        /// A pipe the test writes to (`write(_:)`) and closes (`closeInput()`).
        case pipe
    }

    /// How a child that ran to its end ended, and what it printed.
    package struct Result: Sendable {
        /// Its exit status, or 128 plus the signal that ended it (as a shell says).
        package let status: Int32
        package let stdout: [UInt8]
        package let stderr: [UInt8]
    }

    /// How long a child may run unless told otherwise: far longer than any test's process takes
    /// on a busy machine, far shorter than a hang.
    package static let defaultTimeout: Duration = .seconds(300)
    /// The bytes of each output kept unless told otherwise.
    package static let defaultOutputLimit = 64 << 20

    /// Its process ID, which is also its process group's.
    package let pid: Int32
    /// The command, for messages: the program's name and its arguments.
    package let command: String
    private let run: ChildRun

    /// Starts `executable` (a path, or a name looked up in PATH) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: its variables (nil: the test process's).
    ///   - directory: the folder it starts in (nil: the test process's).
    ///   - input: what it reads.
    ///   - timeout: how long it may run; then its process group is killed.
    ///   - outputLimit: the bytes of each output kept; more is read and dropped, and `finish()`
    ///     then throws.
    /// - Throws: `Failure` (`.cannotStart`) when it cannot be started.
    package init(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        directory: URL? = nil, input: Input = .nullDevice, timeout: Duration = ChildProcess.defaultTimeout,
        outputLimit: Int = ChildProcess.defaultOutputLimit
    ) throws {
        let command = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
        self.command = command.count > 300 ? String(command.prefix(300)) + "…" : command
        TestTimeLimit.require(starting: "'\(self.command)'")
        run = try ChildRun(
            executable: executable, arguments: arguments, environment: environment, directory: directory,
            input: input, timeout: timeout, outputLimit: outputLimit, command: self.command)
        pid = run.pid
    }

    deinit {
        run.end(because: .ended)
    }

    /// Runs `executable` to its end and returns how it ended and what it printed.
    ///
    /// - Throws: `Failure` when it cannot be started, runs past `timeout`, is cancelled, prints
    ///   more than `outputLimit` bytes on an output, or leaves its output open after it exited.
    package static func run(
        _ executable: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        directory: URL? = nil, input: Input = .nullDevice, timeout: Duration = ChildProcess.defaultTimeout,
        outputLimit: Int = ChildProcess.defaultOutputLimit
    ) throws -> Result {
        try ChildProcess(
            executable, arguments, environment: environment, directory: directory, input: input, timeout: timeout,
            outputLimit: outputLimit
        ).finish()
    }

    /// Adds `bytes` to what the child reads (input `.pipe`); written as it reads them.
    package func write(_ bytes: [UInt8]) { run.write(bytes) }

    /// Closes the child's input once what was written has been read (input `.pipe`).
    package func closeInput() { run.closeInput() }

    /// Waits until `ready` finds what it waits for in what the child printed so far (standard
    /// output, standard error), and returns that.
    ///
    /// - Throws: `Failure` when `within` passes first (`.notReady`), the child ends first
    ///   (`.exitedBeforeReady`, or why it was ended), or the test is cancelled.
    package func waitForOutput<Value>(
        within: Duration, _ ready: (_ stdout: [UInt8], _ stderr: [UInt8]) -> Value?
    ) throws -> Value {
        try run.waitForOutput(within: within, ready)
    }

    /// Waits for the child's end and for the end of its output.
    ///
    /// - Throws: `Failure`, as `run` says.
    package func finish() throws -> Result { try run.finish() }

    /// Kills the child's process group now (if it still runs) and returns once the child is
    /// gone: a port it listened on is closed then. Idempotent; `deinit` does it too.
    package func end() { run.end(because: .ended) }

    /// Why a child failed a test, with what it printed (the end of each output).
    package struct Failure: Error, CustomStringConvertible {
        package enum Reason: Sendable, Equatable {
            /// An errno value.
            case cannotStart(Int32)
            case timedOut(Duration)
            /// The test was cancelled (its time limit passed) while it waited.
            case cancelled
            /// The bytes of the output over the limit.
            case outputOverLimit(Int)
            /// It exited and its process group was killed, but its output stayed open: a process
            /// it started outside its group holds it.
            case outputHeldOpen
            /// It ended with this status before printing what `waitForOutput` waited for.
            case exitedBeforeReady(Int32)
            case notReady(Duration)
            /// `end()` had ended it.
            case ended
        }

        package let reason: Reason
        package let command: String
        package let stdout: [UInt8]
        package let stderr: [UInt8]

        package var description: String {
            "'\(command)' \(Self.words(reason)); it printed \(Self.excerpt(stdout)) on standard output and "
                + "\(Self.excerpt(stderr)) on standard error"
        }

        private static func words(_ reason: Reason) -> String {
            switch reason {
            case .cannotStart(let error): "could not be started: \(String(cString: strerror(error)))"
            case .timedOut(let limit): "still ran after \(limit): its process group was killed"
            case .cancelled: "was ended because the test was cancelled (its time limit passed)"
            case .outputOverLimit(let bytes): "printed \(bytes) bytes more on an output than the test keeps"
            case .outputHeldOpen:
                "exited, but its output stayed open after its process group was killed: a process it started "
                    + "outside its group holds it"
            case .exitedBeforeReady(let status): "ended (status \(status)) before printing what the test waited for"
            case .notReady(let wait): "did not print what the test waited for within \(wait)"
            case .ended: "had been ended by the test"
            }
        }

        /// The last 2,000 bytes, quoted.
        private static func excerpt(_ bytes: [UInt8]) -> String {
            guard !bytes.isEmpty else { return "nothing" }
            let tail = bytes.suffix(2_000)
            return (tail.count < bytes.count ? "…" : "") + "\"\(String(decoding: tail, as: UTF8.self))\""
        }
    }
}

extension ChildProcess.Result {
    /// Standard output as UTF-8 text.
    package var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    /// Standard error as UTF-8 text.
    package var stderrText: String { String(decoding: stderr, as: UTF8.self) }
}
