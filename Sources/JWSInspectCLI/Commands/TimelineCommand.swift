internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect timeline [options] [INPUT…]`: reads what inspect reads, verifies every item as
/// inspect does, folds the verified ones into each subscription's state (`Timeline`) and reports
/// what is wrong between them: duplicated, conflicting, out of order, a refund without its
/// purchase, a gap, and (with `--against`) what Apple's record holds and the log does not.
enum TimelineCommand {
    static func run(_ options: TimelineOptions, io given: CommandIO) -> Int32 {
        if options.showHelp { return Output.print(HelpText.of(Commands.timeline), io: given) }
        let setup: VerificationSetup
        switch VerificationSetup.make(options.inspect, io: given) {
        case .success(let made): setup = made
        case .failure(let failure):
            given.error(failure.message)
            return failure.status.rawValue
        }
        let io = setup.io
        options.inspect.ignoredEnvironment(io.environment).forEach(io.error)
        var verification = setup.verification
        // A fold reads what was signed; whether each chain is also valid today is not shown.
        verification.reportsValidityNow = false
        let engine = BatchEngine(verifier: Verifier(options: verification), jobs: options.inspect.jobs)
        let fold = Fold(engine: engine, io: io, redaction: setup.redaction)
        fold.read(options.inputs.isEmpty ? ["-"] : options.inputs)
        let record = Fold(engine: engine, io: io, redaction: setup.redaction)
        record.read(options.against)
        setup.revocation?.warnings.forEach(io.error)

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
        let text = setup.render.output.report(table: report.tables, brief: report.brief, records: report.records)
        output.write(setup.redaction?.redact(text, also: fold.identifiers.union(record.identifiers)) ?? text)
        if let status = output.finish(io) { return status }
        if options.inspect.summary {
            let counts = fold.counts.merged(with: record.counts)
            io.writeError(setup.render.output.summary(total: counts.total, counts: counts.ordered))
        }
        if let failure = fold.firstFailure ?? record.firstFailure { return failure.rawValue }
        if options.failOnAnomaly, !anomalies.isEmpty { return ExitStatus.anomaly.rawValue }
        return ExitStatus.success.rawValue
    }

    /// Inputs read and verified as inspect reads and verifies them (`InputBatches`), folded in
    /// input order; the first failure's exit status.
    final class Fold {
        private(set) var timeline = Timeline()
        private(set) var firstFailure: ExitStatus?
        /// The inputs not read (a file, standard input) and the one-line error each got.
        private(set) var unreadable: [(source: String, reason: String)] = []
        /// Items by status (and inputs not read), for `--summary`.
        private(set) var counts = StatusCounts()
        /// `--redact`: the identifiers of every item, redacted in the report.
        private(set) var identifiers: Set<String> = []
        private var batches: InputBatches<Inspection>?

        init(engine: BatchEngine, io: CommandIO, redaction: Redaction?) {
            batches = InputBatches(
                engine: engine, io: io, outcome: { $0 },
                deliver: { [unowned self] inspection in
                    if inspection.status.isFailure, firstFailure == nil {
                        firstFailure = ExitStatus(inspection.status)
                    }
                    if let redaction { identifiers.formUnion(redaction.values(of: inspection)) }
                    counts.add(.verification(inspection.status))
                    timeline.add(inspection)
                },
                unreadable: { [unowned self] source, message in
                    io.error(message)
                    unreadable.append((source, message))
                    counts.add(.unreadable)
                    firstFailure = firstFailure ?? .unreadable
                })
        }

        func read(_ inputs: [String]) {
            for (index, input) in inputs.enumerated() { batches?.read(input, position: index + 1) }
        }
    }
}
