internal import JWSInspectCore

/// `jwsinspect [inspect] [options] [INPUT…]`: reads the inputs, verifies every JWS found,
/// renders each result as it is verified, and returns the exit status.
enum InspectCommand {
    static func run(_ options: InspectOptions, io given: CommandIO) -> Int32 {
        if options.showHelp { return Output.print(HelpText.main, io: given) }
        let setup: VerificationSetup
        switch VerificationSetup.make(options, io: given, developerKeys: true) {
        case .success(let made): setup = made
        case .failure(let failure):
            given.error(failure.message)
            if failure.isUsage { given.error("usage: jwsinspect \(Commands.inspect.usage[0]) (see jwsinspect --help)") }
            return failure.status.rawValue
        }
        let io = setup.io
        options.ignoredEnvironment(io.environment).forEach(io.error)
        let output = Output(io, buffered: true)
        let sink = ResultSink(output: output, render: setup.render, io: io)
        let engine = BatchEngine(verifier: Verifier(options: setup.verification), jobs: options.jobs)
        let render = setup.render
        let batches = InputBatches(
            engine: engine, io: io, firstLine: options.firstLine, exact: options.exact, outcome: render.outcome,
            deliver: sink.show, unreadable: { sink.unreadable(source: $0, message: $1) }, stopped: { output.failed },
            beforeWait: output.flush)
        batches.read(options.inputs)
        if let status = output.finish(io) { return status }
        setup.revocation?.warnings.forEach(io.error)
        if options.summary { sink.reportSummary() }
        return sink.exitStatus.rawValue
    }
}

/// Standard output for one run, every write checked. The first failure ends the output: a
/// closed pipe quietly (as `| head` expects), anything else with one line and exit 74.
///
/// Buffered (`inspect`), results given as bytes are gathered and written a few dozen kilobytes
/// at a time instead of one write each; whatever else is written, and `flush()` (the caller's,
/// before a wait, before standard error, at the end), writes them first, so that nothing is
/// reordered and nothing waits in the buffer while the input stalls.
final class Output {
    private let sink: (String) -> Int32?
    private let byteSink: ([UInt8]) -> Int32?
    private(set) var failure: Int32?
    /// Results written so far (`writeResult`).
    private var resultsWritten = 0
    /// Results gathered and not written yet (buffered output only).
    private var pending: [UInt8] = []
    private let buffered: Bool
    /// Bytes gathered before they are written.
    static let bufferSize = 64 << 10

    init(_ io: CommandIO, buffered: Bool = false) {
        let sink = io.writeOut
        self.sink = sink
        self.byteSink = io.writeOutBytes ?? { sink(String(decoding: $0, as: UTF8.self)) }
        self.buffered = buffered
        if buffered { pending.reserveCapacity(Self.bufferSize) }
    }

    var failed: Bool { failure != nil }

    func write(_ text: String) {
        flush()
        guard failure == nil else { return }
        failure = sink(text)
    }

    /// Writes the results gathered (buffered output), if any.
    func flush() {
        guard !pending.isEmpty else { return }
        if failure == nil { failure = byteSink(pending) }
        pending.removeAll(keepingCapacity: true)
    }

    /// Writes one result, after the renderer's separator when it is not the first.
    func writeResult(_ text: String, separator: String) {
        write(resultsWritten > 0 ? separator + text : text)
        resultsWritten += 1
    }

    /// Writes one rendered result, after the renderer's separator when it is not the first.
    func writeResult(_ rendered: RenderedResult, separator: String) {
        switch rendered {
        case .text(let text): writeResult(text, separator: separator)
        case .bytes(let bytes):
            if resultsWritten > 0, !separator.isEmpty { write(separator) }
            if buffered, bytes.count < Self.bufferSize {
                if pending.count + bytes.count > Self.bufferSize { flush() }
                pending.append(contentsOf: bytes)
            } else {
                flush()
                if failure == nil { failure = byteSink(bytes) }
            }
            resultsWritten += 1
        }
    }

    /// Writes one text (help, a script) and returns the exit status: 0, or that of a failed write.
    static func print(_ text: String, io: CommandIO) -> Int32 {
        let output = Output(io)
        output.write(text)
        return output.finish(io) ?? ExitStatus.success.rawValue
    }

    /// The exit status a failed write ends the run with, after saying why; nil when all went out.
    func finish(_ io: CommandIO) -> Int32? {
        flush()
        guard let failure else { return nil }
        // A reader that has gone needs no message: end as the default SIGPIPE would have.
        if failure == System.brokenPipe { return 128 + 13 }
        io.error("write error: \(System.errorText(failure))")
        return ExitStatus.ioError.rawValue
    }
}
