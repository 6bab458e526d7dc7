package import AppStoreServerAPI
package import FoundationEssentials
package import JWSInspectCore

/// Where a run reads and writes, and what it knows of its surroundings: the process's own
/// descriptors, clock and environment (`process`), or memory, for the fuzz harness and the
/// in-process tests, which run the whole command and check what it printed.
package struct CommandIO {
    /// Makes standard input's reader (and what says whether its next read would wait), given
    /// what to call when it would wait for more input; nil when standard input is closed.
    package var standardInput:
        ((_ onStall: @escaping () -> Void) -> (read: InputStream.Reader, wouldWait: (() -> Bool)?))?
    /// Whether standard input is a terminal (a hint on how to end a paste is printed then).
    package var standardInputIsTerminal = false
    /// Writes to standard output: nil when written, else the error number.
    package var writeOut: (String) -> Int32?
    /// Writes bytes to standard output, when the sink takes them as they are (the process's
    /// descriptor); nil: `writeOut` gets them as text.
    package var writeOutBytes: (([UInt8]) -> Int32?)?
    /// Writes to standard error (what cannot be written there cannot be reported anywhere).
    package var writeError: (String) -> Void
    /// Whether standard output is a terminal (colour by default).
    package var stdoutIsTerminal = false
    /// Whether standard error is a terminal (`fetch` shows a progress line there while it waits).
    package var stderrIsTerminal = false
    /// Seconds on a clock that only moves forward (how long a run has taken).
    package var monotonicSeconds: @Sendable () -> Double = { System.monotonicSeconds() }
    /// Waits so many seconds (`fetch` before a retry).
    package var sleep: @Sendable (Double) -> Void = { System.sleep(seconds: $0) }
    /// Sends `fetch`'s requests: `jwsinspect-fetch` gives URLSession's; `jwsinspect` links no
    /// network library and has none (it runs `jwsinspect-fetch` instead); tests give their own.
    package var transport: (any HTTPTransport)?
    /// Receives `listen`'s notifications: `jwsinspect-fetch` gives libmicrohttpd's when it was
    /// built with it; `jwsinspect` has none (it runs `jwsinspect-fetch`); tests give their own.
    package var server: (any NotificationServer)?
    /// An environment variable's value.
    package var environment: (String) -> String? = { _ in nil }
    /// The moment taken as now.
    package var now: Date
    /// The largest record read whole (smaller when fuzzing, so small inputs reach it).
    package var recordLimit = InputStream.maximumRecordSize

    /// - Parameters:
    ///   - standardInput: standard input's bytes, read by this reader (nil: closed).
    ///   - writeOut: receives standard output; returns nil, or an error number to fail the write with.
    package init(
        standardInput: InputStream.Reader?, now: Date, writeOut: @escaping (String) -> Int32?,
        writeError: @escaping (String) -> Void
    ) {
        self.standardInput = standardInput.map { reader in { _ in (reader, nil) } }
        self.now = now
        self.writeOut = writeOut
        self.writeError = writeError
    }

    /// The process's descriptors, clock and environment.
    static func process(standardInputClosed: Bool) -> CommandIO {
        var io = CommandIO(
            standardInput: nil, now: Date(), writeOut: { System.writeAll($0, to: System.standardOutput) },
            writeError: { _ = System.writeAll($0, to: System.standardError) })
        io.writeOutBytes = { System.writeAll($0, to: System.standardOutput) }
        if !standardInputClosed {
            io.standardInput = { onStall in
                // A terminal reads a paste of any length (TerminalPaste), and Ctrl-D ends it.
                let terminal = System.isTerminal(System.standardInput) && TerminalPaste.begin(System.standardInput)
                let reader = InputReader.reader(
                    descriptor: System.standardInput, origin: "<stdin>", closeAtEnd: false,
                    onStall: onStall, terminal: terminal)
                return ({ reader.read(into: &$0) }, reader.wouldWait)
            }
        }
        io.standardInputIsTerminal = System.isTerminal(System.standardInput)
        io.stdoutIsTerminal = System.isTerminal(System.standardOutput)
        io.stderrIsTerminal = System.isTerminal(System.standardError)
        io.environment = System.environment
        return io
    }

    /// One line on standard error, prefixed with the program name, control characters escaped.
    func error(_ line: String) {
        writeError(Self.errorLine(line))
    }

    /// What `error` writes: the line prefixed with the program name, control characters escaped.
    static func errorLine(_ line: String) -> String {
        "jwsinspect: \(TerminalText.safe(line))\n"
    }
}
