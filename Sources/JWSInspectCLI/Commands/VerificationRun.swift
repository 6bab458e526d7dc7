internal import Dispatch
internal import FoundationEssentials
internal import JWSInspectCore

// The one verification run inspect, fetch and timeline are clients of: `VerificationSetup`
// (trust store, display zone, revocation, verification options, renderer: the preamble),
// `InputBatches` (inputs read into bounded batches, verified, handed over in input order),
// `ResultSink` (each result shown, counted and turned into the exit status) and
// `StatusCounts` (the counts `--summary` reports, typed).

/// What every verifying subcommand sets up from inspect's options before it verifies
/// anything, in one order: the trust store (`--root`), the options' warnings, the display zone,
/// revocation, the verification options, then the renderer. Each failure is a message and an
/// exit status for the caller to say and return.
struct VerificationSetup {
    let trustStore: TrustStore?
    let zone: DisplayZone
    let revocation: RevocationCheck?
    /// The verification options the inspect options describe (fetch adapts them per environment).
    var verification: VerificationOptions
    let render: Renderer
    /// `--redact`'s, when given: the renderer redacts through it, and so does `io`.
    let redaction: Redaction?
    /// The command's input and output, standard error redacted under `--redact`.
    let io: CommandIO

    struct Failure: Error {
        let message: String
        let status: ExitStatus
        /// Whether the usage line follows the message.
        var isUsage = false
    }

    /// - Parameters:
    ///   - prefix: before the zone's and revocation's messages ("fetch: ").
    ///   - revocationTimeout: `--timeout`, when the subcommand has one and it was given.
    ///   - developerKeys: whether `--key`'s developer keys are read (inspect).
    ///   - asked: identifiers the command was given (fetch's ID), redacted under `--redact`.
    static func make(
        _ options: InspectOptions, io given: CommandIO, prefix: String = "", revocationTimeout: Int? = nil,
        developerKeys: Bool = false, asked: [String] = []
    ) -> Result<VerificationSetup, Failure> {
        var io = given
        var redaction: Redaction?
        if options.redact {
            let known = asked + [options.accountToken, options.deviceID].compactMap { $0?.uuidString.lowercased() }
            let made = Redaction.make(environment: given.environment, known: known + known.map { $0.uppercased() }) {
                given.error($0)
            }
            let write = io.writeError
            io.writeError = { write(made.redact($0)) }
            redaction = made
        }
        let trustStore: TrustStore?
        switch RootFiles.trustStore(options.rootFiles) {
        case .success(let store): trustStore = store
        case .failure(let failure): return .failure(Failure(message: failure.message, status: failure.status))
        }
        options.warnings.forEach(io.error)
        let zone: DisplayZone
        switch options.displayZone(environment: io.environment) {
        case .success(let found): zone = found
        case .failure(let error): return .failure(Failure(message: prefix + error.message, status: .usage))
        }
        let revocation: RevocationCheck?
        switch RevocationCheck.make(options, timeout: revocationTimeout) {
        case .success(let made): revocation = made
        case .failure(let failure): return .failure(Failure(message: prefix + failure.message, status: failure.status))
        }
        var verification = options.verificationOptions(trustStore: trustStore, now: io.now, revocation: revocation)
        if developerKeys {
            do throws(KeyOptions.Failure) {
                let (keys, warnings) = try options.keyOptions.developerKeys(environment: io.environment)
                warnings.forEach(io.error)
                verification.developerKeys = keys
            } catch  where error.fromEnvironment {
                // The variable serves sign and fetch too: App Store data needs no key, so a stale
                // one is said and set aside (a developer-signed token then has no trusted key).
                io.error("warning: \(error.message); inspecting without it")
            } catch {
                return .failure(Failure(message: error.message, status: error.status, isUsage: error.isUsage))
            }
        }
        let chosen = ResultRenderers.make(
            format: options.format, brief: options.brief, quiet: options.quiet,
            color: options.usesColor(stdoutIsTerminal: io.stdoutIsTerminal, environment: io.environment),
            zone: zone)
        let render = Renderer(redaction.map { RedactingOutput(inner: chosen, redaction: $0) } ?? chosen)
        return .success(
            VerificationSetup(
                trustStore: trustStore, zone: zone, revocation: revocation, verification: verification, render: render,
                redaction: redaction, io: io))
    }
}

/// A status `--summary` counts: a verification's, a fetch request's, or an input not read.
enum CountedStatus: Hashable {
    case verification(Status)
    case request(FetchStatus)
    case unreadable

    /// Its name in `--summary` (a request's `malformed` and a token's are one count).
    var name: String {
        switch self {
        case .verification(let status): status.rawValue
        case .request(let status): status.rawValue
        case .unreadable: Renderer.unreadableStatus
        }
    }

    /// The order `--summary` lists them in: verification statuses, then a request's, then unread.
    static let order: [String] = {
        var names = Status.allCases.map(\.rawValue)
        for status in FetchStatus.allCases where status != .answered && !names.contains(status.rawValue) {
            names.append(status.rawValue)
        }
        return names + [Renderer.unreadableStatus]
    }()
}

/// Results counted by status, for `--summary`.
struct StatusCounts {
    private var counts: [CountedStatus: Int] = [:]

    mutating func add(_ status: CountedStatus) {
        counts[status, default: 0] += 1
    }

    /// The statuses seen, in `CountedStatus.order`, with their counts (a request's `malformed`
    /// and a token's counted as one).
    var ordered: [(status: String, count: Int)] {
        var byName: [String: Int] = [:]
        for (status, count) in counts { byName[status.name, default: 0] += count }
        return CountedStatus.order.compactMap { name in byName[name].map { (status: name, count: $0) } }
    }

    var total: Int { counts.values.reduce(0, +) }

    /// These counts and `other`'s together.
    func merged(with other: StatusCounts) -> StatusCounts {
        var both = self
        both.counts.merge(other.counts, uniquingKeysWith: +)
        return both
    }
}

/// Where a run's results go: each one written in its renderer's format, counted, and its
/// status kept when it is the first failure. inspect and fetch show their results through it.
final class ResultSink {
    let output: Output
    let render: Renderer
    let io: CommandIO
    /// The first failure's exit status (the caller may set a later decision over it).
    var exitStatus = ExitStatus.success
    private(set) var counts = StatusCounts()

    init(output: Output, render: Renderer, io: CommandIO) {
        self.output = output
        self.render = render
        self.io = io
    }

    /// Shows one verified item: its error line (a malformed item), its result, its count.
    func show(_ outcome: Renderer.Outcome) {
        if let error = outcome.error {
            output.flush()
            io.error(error)
        }
        if let text = outcome.output { output.writeResult(text, separator: render.output.separator) }
        counts.add(.verification(outcome.status))
        fail(ExitStatus(outcome.status))
    }

    /// An input that cannot be read: one line on standard error, and in JSON modes a record
    /// in its place, so that every input has its result there (exit 66).
    func unreadable(source: String, message: String) {
        output.flush()
        io.error(message)
        if let record = render.output.unreadable(source: source, reason: message) { output.write(record) }
        counts.add(.unreadable)
        fail(.unreadable)
    }

    /// A request that got no usable answer: its record, its count.
    func unanswered(_ request: UnansweredRequest) {
        counts.add(.request(request.status))
        if let record = render.output.unanswered(request) { output.write(record) }
    }

    /// Records a status; the first failure is the run's.
    func fail(_ status: ExitStatus) {
        if exitStatus == .success { exitStatus = status }
    }

    /// `--summary`: the counts on standard error (one record there in JSON modes).
    func reportSummary() {
        io.writeError(render.output.summary(total: counts.total, counts: counts.ordered))
    }
}

/// Inputs read as inspect reads them (a file, standard input or an inline token), records
/// gathered into batches bounded by count and bytes, verified by the engine, and each outcome
/// handed to `deliver` in input order: the batch loop of inspect and timeline.
final class InputBatches<Outcome: Sendable> {
    let engine: BatchEngine
    let io: CommandIO
    /// The number of standard input's first line (`--first-line`).
    let firstLine: Int
    /// `--exact`: each input is read whole, as exactly one item.
    let exact: Bool
    /// What is made of each inspection, on the worker that verified it.
    let outcome: @Sendable (Inspection) -> Outcome
    /// Takes each outcome, in input order.
    let deliver: (Outcome) -> Void
    /// An input that cannot be read, and why.
    let unreadable: (_ source: String, _ message: String) -> Void
    /// Whether to stop reading (output failed).
    let stopped: () -> Bool
    /// Called before anything waits (a stalled input, the next batch): what is shown goes out.
    let beforeWait: () -> Void

    private var batch: [BatchEngine.Work] = []
    private var batchBytes = 0
    /// Outcomes of the input being read, and why a JSON-looking record of it was not JSON.
    private var found = 0
    private var jsonProblem: String?
    /// The batch being verified on the workers while the next one is read (more than one
    /// job): its outcomes are handed over once it is done, before the next batch's.
    private var inFlight: (done: DispatchGroup, results: BatchResults)?

    /// What a batch verified in the background made, read once it is done.
    private final class BatchResults: @unchecked Sendable {
        var outcomes: [Outcome] = []
        var problem: String?
    }

    init(
        engine: BatchEngine, io: CommandIO, firstLine: Int = 1, exact: Bool = false,
        outcome: @escaping @Sendable (Inspection) -> Outcome, deliver: @escaping (Outcome) -> Void,
        unreadable: @escaping (String, String) -> Void, stopped: @escaping () -> Bool = { false },
        beforeWait: @escaping () -> Void = {}
    ) {
        self.engine = engine
        self.io = io
        self.firstLine = firstLine
        self.exact = exact
        self.outcome = outcome
        self.deliver = deliver
        self.unreadable = unreadable
        self.stopped = stopped
        self.beforeWait = beforeWait
    }

    /// Reads each input in turn (standard input when there is none), until output fails.
    func read(_ inputs: [String]) {
        for (position, input) in (inputs.isEmpty ? ["-"] : inputs).enumerated() where !stopped() {
            read(input, position: position + 1)
        }
    }

    /// Reads one input to its end, verifying and handing over its outcomes batch by batch.
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
            unreadable(input, message)
        case .malformed(let origin, let reason):
            batch.append(.item(.malformed(source: origin, reason: reason)))
            flush()
        case .stream(let origin, var stream):
            while !stopped(), let record = stream.nextRecord() {
                batch.append(.record(record))
                batchBytes += record.size
                if batch.count >= engine.batchSize || batchBytes >= BatchEngine.batchBytes {
                    flush(overlapping: true)
                }
            }
            flush()
            stream.noteJSONProblem(jsonProblem)
            if found == 0, stream.readError == nil, !stopped() {
                batch.append(.item(InputReader.nothingFound(in: stream, origin: origin)))
                flush()
            }
            if let error = stream.readError {
                unreadable(origin, error)
            }
        }
    }

    /// `--exact`: reads one input whole, and verifies and hands over the one item it is
    /// (malformed when it is not exactly one).
    private func readExact(_ input: String, position: Int) {
        switch InputReader.openExact(input, position: position, io: io) {
        case .unreadable(let source, let message):
            flush()
            unreadable(source, message)
        case .item(let item):
            batch.append(.item(item))
            flush()
        }
    }

    /// Verifies the batch and hands over its outcomes, in input order, with every outcome
    /// before them handed over first.
    ///
    /// - Parameter overlapping: with more than one job, the batch is verified on the workers
    ///   while this thread hands over the outcomes of the one before and reads the next,
    ///   instead of in turn (one batch in flight at most: memory stays two batches'). Outcomes
    ///   come in input order all the same; the end of an input, or a stalled one, waits for
    ///   everything (`flush()`). A batch holding a record the engine streams
    ///   (`BatchEngine.streamedRecordBytes`) is not overlapped: its outcomes are handed over as
    ///   they are made, never all held (a 64 MiB line may hold 2.8 million tokens).
    func flush(overlapping: Bool = false) {
        // What is shown is written before anything waits (a stalled input, the next batch).
        defer { beforeWait() }
        let previous = inFlight
        inFlight = nil
        previous?.done.wait()
        guard !batch.isEmpty, !stopped() else { return hand(previous?.results) }
        let work = batch
        batch.removeAll(keepingCapacity: true)
        batchBytes = 0
        let streamed = work.contains {
            if case .record(let record) = $0 { return record.size >= BatchEngine.streamedRecordBytes }
            return false
        }
        guard overlapping, engine.jobs > 1, !streamed else {
            hand(previous?.results)
            let problem = engine.run(work, outcome: outcome, deliver: hand)
            if jsonProblem == nil { jsonProblem = problem }
            return
        }
        let (engine, outcome) = (self.engine, self.outcome)
        let results = BatchResults()
        let done = DispatchGroup()
        done.enter()
        DispatchQueue.global().async {
            results.problem = engine.run(work, outcome: outcome) { results.outcomes.append($0) }
            done.leave()
        }
        inFlight = (done, results)
        hand(previous?.results)
    }

    /// Hands over a batch verified in the background.
    private func hand(_ results: BatchResults?) {
        guard let results else { return }
        results.outcomes.forEach(hand)
        if jsonProblem == nil { jsonProblem = results.problem }
    }

    private func hand(_ outcome: Outcome) {
        found += 1
        deliver(outcome)
    }
}
