internal import Dispatch
internal import JWSInspectCore

/// `jwsinspect [inspect] [options] [INPUT…]`: reads the inputs, verifies every JWS found,
/// renders each result as it is verified, and returns the exit status.
enum InspectCommand {
    static func run(_ options: InspectOptions, io: CommandIO) -> Int32 {
        if options.showHelp { return Output.print(HelpText.main, io: io) }
        let output = Output(io, buffered: true)
        let trustStore: TrustStore?
        switch RootFiles.trustStore(options.rootFiles) {
        case .success(let store): trustStore = store
        case .failure(let failure):
            io.error(failure.message)
            return failure.status.rawValue
        }
        options.warnings.forEach(io.error)
        let zone: DisplayZone
        switch options.displayZone(environment: io.environment) {
        case .success(let found): zone = found
        case .failure(let error):
            io.error(error.message)
            return ExitStatus.usage.rawValue
        }
        let revocation: RevocationCheck?
        switch RevocationCheck.make(options) {
        case .success(let made): revocation = made
        case .failure(let failure):
            io.error(failure.message)
            return failure.status.rawValue
        }
        var verification = options.verificationOptions(trustStore: trustStore, now: io.now, revocation: revocation)
        do throws(KeyOptions.Failure) {
            let (keys, warnings) = try options.keyOptions.developerKeys(environment: io.environment)
            warnings.forEach(io.error)
            verification.developerKeys = keys
        } catch  where error.fromEnvironment {
            // The variable serves sign and fetch too: App Store data needs no key, so a stale one
            // is said and set aside (a developer-signed token then has no trusted key, and fails).
            io.error("warning: \(error.message); inspecting without it")
        } catch {
            io.error(error.message)
            if error.isUsage { io.error("usage: jwsinspect \(Commands.inspect.usage[0]) (see jwsinspect --help)") }
            return error.status.rawValue
        }
        options.ignoredEnvironment(io.environment).forEach(io.error)
        let verifier = Verifier(options: verification)
        let render = Renderer(
            ResultRenderers.make(
                format: options.format, brief: options.brief, quiet: options.quiet,
                color: options.usesColor(stdoutIsTerminal: io.stdoutIsTerminal, environment: io.environment),
                zone: zone))
        let engine = BatchEngine(verifier: verifier, jobs: options.jobs)
        let run = Run(
            engine: engine, render: render, output: output, io: io, firstLine: options.firstLine, exact: options.exact)

        let inputs = options.inputs.isEmpty ? ["-"] : options.inputs
        for (position, input) in inputs.enumerated() where !output.failed {
            run.read(input, position: position + 1)
        }
        if let status = output.finish(io) { return status }
        revocation?.warnings.forEach(io.error)
        if options.summary { run.reportSummary() }
        return run.exitStatus.rawValue
    }

    /// What one run has done so far: results shown, counted, and the exit status they make.
    private final class Run {
        let engine: BatchEngine
        let render: Renderer
        let output: Output
        let io: CommandIO
        /// The number of standard input's first line.
        let firstLine: Int
        /// `--exact`: each input is read whole, as exactly one item.
        let exact: Bool
        private(set) var exitStatus = ExitStatus.success
        private var counts: [String: Int] = [:]
        private var batch: [BatchEngine.Work] = []
        private var batchBytes = 0
        /// Results of the input being read, and why a JSON-looking record of it was not JSON.
        private var found = 0
        private var jsonProblem: String?
        /// The batch being verified on the workers while the next one is read (more than one
        /// job): its outcomes are shown once it is done, before the next batch's.
        private var inFlight: (done: DispatchGroup, results: BatchResults)?

        /// What a batch verified in the background made, read once it is done.
        private final class BatchResults: @unchecked Sendable {
            var outcomes: [Renderer.Outcome] = []
            var problem: String?
        }

        init(engine: BatchEngine, render: Renderer, output: Output, io: CommandIO, firstLine: Int, exact: Bool) {
            self.engine = engine
            self.render = render
            self.output = output
            self.io = io
            self.firstLine = firstLine
            self.exact = exact
        }

        /// Reads one input to its end, verifying and showing its results batch by batch.
        func read(_ input: String, position: Int) {
            if exact { return readExact(input, position: position) }
            found = 0
            jsonProblem = nil
            // A pipe or terminal that stalls (`tail -f`) gets what is done shown before the wait.
            let opened = InputReader.open(input, position: position, io: io, firstLine: firstLine) {
                [unowned self] in flush()
            }
            switch opened {
            case .unreadable(let message):
                flush()
                unreadable(source: input, message: message)
            case .malformed(let origin, let reason):
                batch.append(.item(.malformed(source: origin, reason: reason)))
                flush()
            case .stream(let origin, var stream):
                while !output.failed, let record = stream.nextRecord() {
                    batch.append(.record(record))
                    batchBytes += record.size
                    if batch.count >= engine.batchSize || batchBytes >= BatchEngine.batchBytes {
                        flush(overlapping: true)
                    }
                }
                flush()
                stream.noteJSONProblem(jsonProblem)
                if found == 0, stream.readError == nil, !output.failed {
                    batch.append(.item(InputReader.nothingFound(in: stream, origin: origin)))
                    flush()
                }
                if let error = stream.readError {
                    unreadable(source: origin, message: error)
                }
            }
        }

        /// `--exact`: reads one input whole, and verifies and shows the one item it is (malformed
        /// when it is not exactly one).
        private func readExact(_ input: String, position: Int) {
            switch InputReader.openExact(input, position: position, io: io) {
            case .unreadable(let source, let message):
                flush()
                unreadable(source: source, message: message)
            case .item(let item):
                batch.append(.item(item))
                flush()
            }
        }

        /// Verifies the batch and shows its results, in input order, with every result before
        /// them shown first.
        ///
        /// - Parameter overlapping: with more than one job, the batch is verified on the workers
        ///   while this thread shows the results of the one before and reads the next, instead
        ///   of in turn (one batch in flight at most: memory stays two batches'). Results are
        ///   shown in input order all the same; the end of an input, or a stalled one, waits for
        ///   everything (`flush()`). A batch holding a record the engine streams
        ///   (`BatchEngine.streamedRecordBytes`) is not overlapped: its results are shown as they
        ///   are made, never all held (a 64 MiB line may hold 2.8 million tokens).
        func flush(overlapping: Bool = false) {
            // What is shown is written before anything waits (a stalled input, the next batch).
            defer { output.flush() }
            let previous = inFlight
            inFlight = nil
            previous?.done.wait()
            guard !batch.isEmpty, !output.failed else { return show(previous?.results) }
            let work = batch
            batch.removeAll(keepingCapacity: true)
            batchBytes = 0
            let streamed = work.contains {
                if case .record(let record) = $0 { return record.size >= BatchEngine.streamedRecordBytes }
                return false
            }
            guard overlapping, engine.jobs > 1, !streamed else {
                show(previous?.results)
                let problem = engine.run(work, outcome: render.outcome, deliver: show)
                if jsonProblem == nil { jsonProblem = problem }
                return
            }
            let (engine, render) = (self.engine, self.render)
            let results = BatchResults()
            let done = DispatchGroup()
            done.enter()
            DispatchQueue.global().async {
                results.problem = engine.run(work, outcome: render.outcome) { results.outcomes.append($0) }
                done.leave()
            }
            inFlight = (done, results)
            show(previous?.results)
        }

        /// Shows a batch verified in the background.
        private func show(_ results: BatchResults?) {
            guard let results else { return }
            results.outcomes.forEach(show)
            if jsonProblem == nil { jsonProblem = results.problem }
        }

        /// Shows one result, counts it, and keeps the first failure's exit status.
        private func show(_ outcome: Renderer.Outcome) {
            found += 1
            if let error = outcome.error {
                output.flush()
                io.error(error)
            }
            if let text = outcome.output { output.writeResult(text, separator: render.output.separator) }
            counts[outcome.status.rawValue, default: 0] += 1
            if exitStatus == .success { exitStatus = ExitStatus(outcome.status) }
        }

        /// An input that cannot be read: one line on standard error, and in JSON modes a record
        /// in its place, so that every input has its result there (exit 66).
        private func unreadable(source: String, message: String) {
            output.flush()
            io.error(message)
            if let record = render.output.unreadable(source: source, reason: message) { output.write(record) }
            counts[Renderer.unreadableStatus, default: 0] += 1
            if exitStatus == .success { exitStatus = .unreadable }
        }

        /// `--summary`: results counted by status, on standard error (one JSON object there in
        /// JSON modes, so that every line of standard output is a result).
        func reportSummary() {
            render.reportSummary(counts, order: Status.allCases.map(\.rawValue) + [Renderer.unreadableStatus], io: io)
        }
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
