#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif
public import FoundationEssentials
public import JWSInspectCore

/// Where a run reads and writes, and what it knows of its surroundings: the process's own
/// descriptors, clock and environment (`process`), or memory, for the fuzz harness, which
/// runs the whole command on each input and checks what it printed.
public struct CommandIO {
    /// Standard input as a stream reader; nil when it is closed.
    public var standardInput: InputStream.Reader?
    /// Whether standard input is a terminal (a hint on how to end a paste is printed then).
    public var standardInputIsTerminal = false
    /// Writes to standard output.
    public var writeOut: (String) -> Void
    /// Writes to standard error.
    public var writeError: (String) -> Void
    /// Whether standard output is a terminal (colour by default).
    public var stdoutIsTerminal = false
    /// An environment variable's value.
    public var environment: (String) -> String? = { _ in nil }
    /// The moment taken as now.
    public var now: Date
    /// The largest record read whole (smaller when fuzzing, so small inputs reach it).
    public var recordLimit = InputStream.maximumRecordSize

    public init(standardInput: InputStream.Reader?, now: Date, writeOut: @escaping (String) -> Void,
                writeError: @escaping (String) -> Void) {
        self.standardInput = standardInput
        self.now = now
        self.writeOut = writeOut
        self.writeError = writeError
    }

    /// The process's descriptors, clock and environment.
    static func process(standardInputClosed: Bool) -> CommandIO {
        var io = CommandIO(standardInput: standardInputClosed ? nil : InputReader.reader(descriptor: STDIN_FILENO, origin: "<stdin>",
                                                                                        closeAtEnd: false),
                           now: Date(), writeOut: Console.out, writeError: Console.write(error:))
        io.standardInputIsTerminal = isatty(STDIN_FILENO) == 1
        io.stdoutIsTerminal = Console.stdoutIsTerminal
        io.environment = Console.environment
        return io
    }

    /// Writes to standard output.
    func out(_ text: String) {
        writeOut(text)
    }

    /// One line on standard error, prefixed with the program name, control characters escaped.
    func error(_ line: String) {
        writeError("jwsinspect: \(TerminalText.safe(line))\n")
    }
}
