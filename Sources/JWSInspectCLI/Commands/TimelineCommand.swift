internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect timeline [options] [INPUT…]`: reads what inspect reads, verifies every item as
/// inspect does, folds the verified ones into each subscription's state (`Timeline`) and reports
/// what is wrong between them: duplicated, conflicting, out of order, a refund without its
/// purchase, a gap, and (with `--against`) what Apple's record holds and the log does not.
enum TimelineCommand {
    static func run(_ options: TimelineOptions, io: CommandIO) -> Int32 {
        if options.showHelp { return Output.print(HelpText.of(Commands.timeline), io: io) }
        let trustStore: TrustStore?
        switch RootFiles.trustStore(options.inspect.rootFiles) {
        case .success(let store): trustStore = store
        case .failure(let failure):
            io.error(failure.message)
            return failure.status.rawValue
        }
        let zone: DisplayZone
        switch options.inspect.displayZone(environment: io.environment) {
        case .success(let found): zone = found
        case .failure(let error):
            io.error(error.message)
            return ExitStatus.usage.rawValue
        }
        options.inspect.warnings.forEach(io.error)
        options.inspect.ignoredEnvironment(io.environment).forEach(io.error)
        let revocation: RevocationCheck?
        switch RevocationCheck.make(options.inspect) {
        case .success(let made): revocation = made
        case .failure(let failure):
            io.error(failure.message)
            return failure.status.rawValue
        }
        let verification = options.inspect.verificationOptions(
            trustStore: trustStore, now: io.now, revocation: revocation)
        let engine = BatchEngine(verifier: Verifier(options: verification), jobs: options.inspect.jobs)
        var fold = Fold(engine: engine, io: io)
        for (index, input) in (options.inputs.isEmpty ? ["-"] : options.inputs).enumerated() {
            fold.read(input, position: index + 1)
        }
        var record = Fold(engine: engine, io: io)
        for (index, file) in options.against.enumerated() { record.read(file, position: index + 1) }
        revocation?.warnings.forEach(io.error)

        let timeline = fold.timeline
        var subscriptions = timeline.subscriptions(at: verification.accessTime)
        if let customer = options.customer?.uuidString.lowercased() {
            subscriptions = subscriptions.filter { $0.appAccountTokens.contains { Exact.same($0, customer) } }
        }
        let kept = Set(subscriptions.map { ExactText($0.id) })
        var anomalies = timeline.anomalies()
        if !options.against.isEmpty { anomalies += timeline.reconcile(against: record.timeline) }
        if options.customer != nil {
            anomalies = anomalies.filter { $0.subscriptionID.map { kept.contains(ExactText($0)) } ?? false }
        }

        let report = TimelineReport(
            timeline: timeline, record: options.against.isEmpty ? nil : record.timeline, subscriptions: subscriptions,
            anomalies: anomalies, accessTime: verification.accessTime, unreadable: fold.unreadable + record.unreadable)
        let output = Output(io)
        switch options.format {
        case _ where options.quiet: break
        case .table: output.write(zone.rewrite(options.brief ? report.brief() : report.tables()))
        case .json, .jsonl:
            for object in report.records() {
                output.write(OrderedJSON.object(object).serialized(pretty: options.format == .json) + "\n")
            }
        }
        if let status = output.finish(io) { return status }
        if let failure = fold.firstFailure ?? record.firstFailure { return failure.rawValue }
        if options.failOnAnomaly, !anomalies.isEmpty { return ExitStatus.anomaly.rawValue }
        return ExitStatus.success.rawValue
    }

    /// Inputs read, verified and folded, in input order; the first failure's exit status.
    struct Fold {
        let engine: BatchEngine
        let io: CommandIO
        var timeline = Timeline()
        var firstFailure: ExitStatus?
        /// The inputs not read (a file, standard input) and the one-line error each got.
        var unreadable: [(source: String, reason: String)] = []

        init(engine: BatchEngine, io: CommandIO) {
            self.engine = engine
            self.io = io
        }

        /// Reads one input (the `position`th: it names an inline token) as inspect reads it:
        /// records in batches bounded by count and bytes, a JSON record that is not JSON named
        /// when nothing is found.
        mutating func read(_ input: String, position: Int) {
            switch InputReader.open(input, position: position, io: io, onStall: {}) {
            case .unreadable(let message):
                io.error(message)
                unreadable.append((input, message))
                firstFailure = firstFailure ?? .unreadable
            case .malformed(let origin, let reason):
                verify([.item(.malformed(source: origin, reason: reason))])
            case .stream(let origin, var stream):
                var batch: [BatchEngine.Work] = []
                var batchBytes = 0
                var jsonProblem: String?
                let before = timeline.items
                while let record = stream.nextRecord() {
                    batch.append(.record(record))
                    batchBytes += record.size
                    if batch.count >= engine.batchSize || batchBytes >= BatchEngine.batchBytes {
                        jsonProblem = jsonProblem ?? verify(batch)
                        batch.removeAll(keepingCapacity: true)
                        batchBytes = 0
                    }
                }
                jsonProblem = jsonProblem ?? verify(batch)
                stream.noteJSONProblem(jsonProblem)
                if timeline.items == before, stream.readError == nil {
                    verify([.item(InputReader.nothingFound(in: stream, origin: origin))])
                }
                if let error = stream.readError {
                    io.error(error)
                    unreadable.append((input, error))
                    firstFailure = firstFailure ?? .unreadable
                }
            }
        }

        /// Verifies `work` and folds each result in order; why a JSON-looking record of it was
        /// not JSON, when one was not.
        @discardableResult
        private mutating func verify(_ work: [BatchEngine.Work]) -> String? {
            engine.run(work, outcome: { $0 }) { inspection in
                if inspection.status.isFailure, firstFailure == nil { firstFailure = ExitStatus(inspection.status) }
                timeline.add(inspection)
            }
        }
    }
}
