internal import AppStoreServerAPI
internal import FoundationEssentials
internal import JWSInspectCore

/// `jwsinspect fetch KIND [ID]`: asks the App Store Server API, then verifies and shows every
/// JWS of the answer as `inspect` would, with the answer's unsigned fields before them.
enum FetchCommand {
    static func run(_ options: FetchOptions, io given: CommandIO) -> Int32 {
        var io = given
        guard !options.showHelp, let kind = options.kind else {
            return Output.print(HelpText.of(Commands.fetch), io: io)
        }
        guard let transport = io.transport else {
            io.error("fetch: " + Companion.missing)
            return ExitStatus.fetchMissing.rawValue
        }
        let credentials: Credentials
        do throws(KeyOptions.Failure) {
            let keys = options.keyOptions
            let (key, keyID, warnings) = try keys.signingKey(environment: io.environment)
            let issuerID = try keys.issuerID(environment: io.environment)
            let bundleID = try keys.bundleID(environment: io.environment)
            warnings.forEach(io.error)
            credentials = Credentials(key: key, keyID: keyID, issuerID: issuerID, bundleID: bundleID)
        } catch {
            io.error("fetch: " + error.message)
            if error.isUsage { io.error("usage: jwsinspect \(Commands.fetch.usage[0]) (see jwsinspect help fetch)") }
            return error.status.rawValue
        }
        if let folder = options.save, let failure = System.prepareFolder(folder) {
            io.error("--save: \(failure.message(folder))")
            return ExitStatus.ioError.rawValue
        }
        let setup: VerificationSetup
        switch VerificationSetup.make(
            options.inspect, io: io, prefix: "fetch: ",
            revocationTimeout: options.timeoutGiven ? Int(options.timeout) : nil,
            asked: [options.id, options.transactionID].compactMap { $0 })
        {
        case .success(let made): setup = made
        case .failure(let failure):
            io.error(failure.message)
            return failure.status.rawValue
        }
        io = setup.io
        let run = FetchRun(options: options, credentials: credentials, setup: setup, transport: transport, io: io)
        return run.start(request(kind, options, now: io.now))
    }

    /// The request the options describe.
    private static func request(_ kind: FetchOptions.Kind, _ options: FetchOptions, now: Date) -> FetchRequest {
        let id = options.id ?? ""
        switch kind {
        case .transaction: return .transaction(id)
        case .history:
            var filters = options.history
            filters.startDate = options.startDate?.resolve(now: now)
            filters.endDate = options.endDate?.resolve(now: now)
            return .history(id, filters)
        case .subscriptions: return .subscriptions(id, statuses: options.statuses)
        case .order: return .order(id)
        case .refunds: return .refunds(id)
        case .appTransaction: return .appTransaction(id)
        case .notifications:
            var filters = NotificationFilters(since: options.since?.resolve(now: now) ?? now)
            filters.until = options.until?.resolve(now: now)
            filters.transactionID = options.transactionID
            filters.notificationType = options.notificationType
            filters.notificationSubtype = options.notificationSubtype
            filters.onlyFailures = options.onlyFailures
            return .notifications(filters)
        case .testNotification: return .testNotification(wait: options.wait)
        case .testNotificationStatus: return .testNotificationStatus(id)
        case .extensionStatus: return .extensionStatus(product: options.extensionProduct ?? "", requestIdentifier: id)
        case .retentionImages: return .retention(.images)
        case .retentionMessages: return .retention(.messages)
        case .retentionDefault: return .retention(.defaultMessage(product: options.extensionProduct ?? "", locale: id))
        case .retentionRealtimeURL: return .retention(.realtimeURL)
        case .retentionPerformanceTest: return .retention(.performanceTest(id))
        }
    }
}

/// One fetch: its client, the verification of each environment's answers, what was shown
/// and the exit status it makes (the first failure's, in output order).
private final class FetchRun {
    let options: FetchOptions
    let credentials: Credentials
    /// The run's trust store, revocation check (one for every engine: each certificate is
    /// asked about once per run) and renderer.
    let setup: VerificationSetup
    let transport: any HTTPTransport
    let io: CommandIO
    let output: Output
    /// The results shown, counted for `--summary`, and the exit status they make.
    let sink: ResultSink
    let progress: ProgressLine
    private var engines: [EngineKey: BatchEngine] = [:]
    private var remaining: Int?
    /// Who the question was about, as the access decision binds the answer to it (for
    /// subscriptions and history, resolved with Get Transaction Info when the run starts).
    private(set) var customer: Entitlement.Customer?
    /// Authentic transactions the answer held, and those of them tied to `customer`.
    private var transactionsSeen = 0
    private var transactionsTied = 0

    init(
        options: FetchOptions, credentials: Credentials, setup: VerificationSetup, transport: any HTTPTransport,
        io: CommandIO
    ) {
        self.options = options
        self.credentials = credentials
        self.setup = setup
        self.transport = transport
        self.io = io
        output = Output(io)
        sink = ResultSink(output: output, render: setup.render, io: io)
        progress = ProgressLine(terminal: io.stderrIsTerminal, write: io.writeError)
        remaining = options.limit
        customer = Self.customer(options)
    }

    /// Whom the answer must be about: the transaction asked for (Get Transaction Info), or the
    /// subscription it belongs to (statuses, history: an item is tied when its signed
    /// `transactionId` or `originalTransactionId` is the ID asked by). An order lookup cannot be
    /// tied by signed data (signed transactions carry no order ID): from a server that is not
    /// Apple's, it never grants. Refunds, app transactions and notifications grant nothing.
    static func customer(_ options: FetchOptions) -> Entitlement.Customer? {
        guard let kind = options.kind, let id = options.id else { return nil }
        switch kind {
        case .transaction: return .transaction(id)
        case .subscriptions, .history: return .subscription(id)
        case .order:
            let apple = ServerEnvironment.allCases.map(\.defaultBaseURL)
            guard
                let other = [options.productionURL, options.sandboxURL].compactMap({ $0 }).first(where: {
                    !apple.contains($0)
                })
            else { return nil }
            return .untiable(
                "an order lookup cannot be tied to a customer by signed data (signed transactions carry no order "
                    + "ID), and this answer came from \(other), not Apple")
        case .refunds, .appTransaction, .notifications, .testNotification, .testNotificationStatus, .extensionStatus,
            .retentionImages, .retentionMessages, .retentionDefault, .retentionRealtimeURL, .retentionPerformanceTest:
            return nil
        }
    }

    func start(_ request: FetchRequest) -> Int32 {
        // Now moves on from the run's start, so that each request's token is fresh.
        let (start, startSeconds, monotonic) = (io.now, io.monotonicSeconds(), io.monotonicSeconds)
        let clock: @Sendable () -> Date = { start.addingTimeInterval(monotonic() - startSeconds) }
        var baseURLs: [ServerEnvironment: BaseURL] = [:]
        baseURLs[.production] = options.productionURL
        baseURLs[.sandbox] = options.sandboxURL
        let progress = self.progress
        let client = APIClient(
            credentials: credentials, baseURLs: baseURLs, transport: transport,
            retry: RetryPolicy(retries: options.retries), timeout: options.timeout, clock: clock, sleep: io.sleep,
            events: { event in progress.show(event) })
        let fetcher = Fetcher(client: client, hints: OptionHints())
        if case .subscription(let asked, nil) = customer {
            customer = .subscription(asked, resolved: resolve(asked, with: fetcher))
        }
        let end = fetcher.run(request, environment: options.environment, note: note) { page in deliver(page) }
        progress.clear()
        finish(end)
        refuseUntied()
        if let status = output.finish(io) { return status }
        setup.revocation?.warnings.forEach(io.error)
        if options.inspect.summary { sink.reportSummary() }
        return sink.exitStatus.rawValue
    }

    private func note(_ note: FetchNote) {
        progress.clear()
        switch note {
        case .fallingBack(let text): io.error("fetch: \(text)")
        case .answeredBy(let environment):
            // Said so that a reader knows which environment's data follows; -q asks for silence.
            if !options.inspect.quiet { io.error("fetch: answered by \(environment.rawValue)") }
        case .polling(let text): io.error("fetch: \(text)")
        }
    }

    /// Shows one answer and verifies its JWS; false to stop (the limit, or output failed).
    private func deliver(_ page: FetchedPage) -> Bool {
        progress.clear()
        if let folder = options.save {
            let path = System.path(page.fileStem + ".json", in: folder)
            if let reason = System.writeFile(path, page.response.body) {
                io.error("--save: cannot write '\(path)': \(reason)")
                sink.fail(.ioError)
            }
        }
        let render = setup.render
        if let text = render.output.answer(page) { output.writeResult(text, separator: render.output.separator) }
        // Only the members Apple documents as JWS are verified, each named by its path.
        var fields = page.summary.signed
        if let left = remaining {
            let cut = fields.count > left
            if cut { fields.removeLast(fields.count - left) }
            remaining = left - fields.count
            if remaining == 0, cut || page.summary.fields.contains(where: { $0.name == "hasMore" && Self.isTrue($0) }) {
                io.error(
                    "fetch: stopped at --limit \(options.limit ?? 0) signed items; the answer has more: raise --limit "
                        + "to get them")
            }
        }
        // A subscription's renewal info is not an access decision: --require-active is decided
        // on the transaction beside it, with that renewal info and Apple's status. Runs of items
        // that share an engine keep the answer's order.
        var start = 0
        while start < fields.count {
            let decides = fields[start].accessDecidedBy == nil
            let beside = fields[start].beside
            var end = start + 1
            while beside == nil, end < fields.count, fields[end].beside == nil,
                (fields[end].accessDecidedBy == nil) == decides
            {
                end += 1
            }
            let items = fields[start..<end].map { field in
                BatchEngine.Work.item(Self.item(field.path, field.value, origin: page.origin))
            }
            let engine =
                beside.map { contextEngine($0, environment: page.environment, origin: page.origin) }
                ?? engine(for: page.environment, decidesAccess: decides)
            _ = engine.run(items, outcome: { ($0.isTiedToCustomer, render.outcome($0)) }) { tied, outcome in
                if let tied {
                    transactionsSeen += 1
                    if tied { transactionsTied += 1 }
                }
                sink.show(outcome)
            }
            start = end
        }
        return !output.failed && remaining != 0
    }

    /// A signed member of an answer as an item to verify, named by its path.
    private static func item(_ path: String, _ value: JSONValue, origin: String) -> InputScanner.Item {
        let source = "\(origin): \(path)"
        guard case .string(let text) = value else {
            return .malformed(
                source: source, reason: "not a JWS: \(value.kindDescription) where a signed value belongs")
        }
        return InputScanner.signedField(text, source: source)
    }

    /// An engine for one subscription's transaction, whose access decision reads what the
    /// answer holds beside it: its renewal info, when that verifies as this environment's, and
    /// Apple's `status` (a snapshot of the renewal info's signedDate, else of now).
    private func contextEngine(
        _ beside: ResponseSummary.SignedField.Beside, environment: ServerEnvironment, origin: String
    ) -> BatchEngine {
        var context = Entitlement.Context(customer: customer)
        if let renewal = beside.renewal,
            case .token(_, let token) = Self.item(renewal.path, renewal.value, origin: origin)
        {
            let inspection = engine(for: environment, decidesAccess: false).verifier.inspect(token, source: origin)
            if inspection.status == .valid, inspection.kind == .renewalInfo, let payload = inspection.jws?.payload {
                context.renewal = .init(payload: payload.object, path: renewal.path)
            }
        }
        if let status = beside.status {
            let asOf = context.renewal.flatMap { Timestamp.date($0.payload["signedDate"]) } ?? io.now
            context.status = .init(value: status.value, path: status.path, asOf: asOf)
        }
        var verification = verificationOptions(for: environment, decidesAccess: true)
        verification.accessContext = context
        return BatchEngine(verifier: Verifier(options: verification), jobs: 1)
    }

    /// The signed IDs of transaction `id`, from Get Transaction Info: what ties the items of a
    /// subscriptions or history answer to the customer asked about. Nil (said on standard
    /// error) when the answer is not the authentic transaction `id` of this app: then only
    /// items whose own signed IDs are `id` are tied.
    private func resolve(_ id: String, with fetcher: Fetcher) -> Entitlement.Resolved? {
        var resolved: Entitlement.Resolved?
        var why = "no answer"
        let end = fetcher.run(.transaction(id), environment: options.environment, note: { _ in }) { page in
            guard let field = page.summary.signed.first,
                case .token(_, let token) = Self.item(field.path, field.value, origin: page.origin)
            else {
                why = "the answer holds no signed transaction"
                return false
            }
            let inspection = engine(for: page.environment, decidesAccess: false).verifier.inspect(
                token, source: page.origin)
            guard inspection.status == .valid, inspection.kind == .transaction,
                let payload = inspection.jws?.payload.object, Exact.same(payload["transactionId"]?.stringValue, id)
            else {
                why = "its transaction is not the authentic transaction \(id) (\(inspection.status.rawValue))"
                return false
            }
            resolved = Entitlement.Resolved(
                originalTransactionId: payload["originalTransactionId"]?.stringValue,
                appTransactionId: payload["appTransactionId"]?.stringValue)
            return false
        }
        // The engines were made before the customer was resolved.
        engines.removeAll()
        if resolved == nil {
            if case .notFound(let reason, _) = end { why = reason }
            io.error(
                "fetch: \(id) could not be resolved with Get Transaction Info (\(TerminalText.safe(why))): only items "
                    + "whose own signed transactionId or originalTransactionId is \(id) are tied to it")
        }
        return resolved
    }

    /// An answer whose authentic transactions are all about someone else is no answer to the
    /// question: it is reported as not found (exit 8), over the inactive status its items made.
    private func refuseUntied() {
        guard transactionsSeen > 0, transactionsTied == 0, let id = options.id else { return }
        let reason =
            "not found: the answer holds \(transactionsSeen) authentic transaction(s), none of them tied to "
            + "\(id) by its signed transactionId or originalTransactionId; nothing in it is this customer's"
        io.error("\(sourceName): \(reason)")
        sink.unanswered(UnansweredRequest(source: sourceName, status: .notFound, reason: reason))
        if sink.exitStatus == .success || sink.exitStatus == .inactive { sink.exitStatus = .notFound }
    }

    /// Whether a summary field holds `true` (`hasMore`).
    private static func isTrue(_ field: ResponseSummary.Field) -> Bool {
        if case .scalar(.bool(true)) = field.value { return true }
        return false
    }

    /// The engine that verifies one environment's JWS: the answering environment is expected;
    /// `decidesAccess` false for items whose access is decided beside them (no `--require-active`).
    private func engine(for environment: ServerEnvironment, decidesAccess: Bool) -> BatchEngine {
        let key = EngineKey(environment: environment, decidesAccess: decidesAccess)
        if let engine = engines[key] { return engine }
        let verification = verificationOptions(for: environment, decidesAccess: decidesAccess)
        let engine = BatchEngine(verifier: Verifier(options: verification), jobs: options.inspect.jobs)
        engines[key] = engine
        return engine
    }

    /// How one environment's JWS are verified: the answering environment and the credentials'
    /// bundle ID are expected, and access is decided about `customer`.
    private func verificationOptions(for environment: ServerEnvironment, decidesAccess: Bool) -> VerificationOptions {
        var verification = setup.verification
        verification.expectedBundleId = credentials.bundleID
        verification.expectedEnvironment = environment == .production ? .production : .sandbox
        verification.accessContext.customer = customer
        if !decidesAccess { verification.requireActive = false }
        return verification
    }

    private struct EngineKey: Hashable {
        let environment: ServerEnvironment
        let decidesAccess: Bool
    }

    /// Reports how the fetch ended, when not every page came.
    private func finish(_ end: FetchEnd) {
        switch end {
        case .done, .stopped:
            return
        case .notFound(let reason, let answer):
            var reason = "not found: " + reason
            if options.kind == .order, let id = options.id, id != id.uppercased() {
                // Apple's order IDs are uppercase letters and digits, as its receipt e-mail shows them.
                reason += "; order IDs are uppercase (as in Apple's receipt e-mail): try \(id.uppercased())"
            }
            report(
                UnansweredRequest(source: sourceName, status: .notFound, reason: reason, answer: answer),
                message: sourceName, exit: .notFound)
        case .failed(let failure, let call):
            func failed(_ status: FetchStatus, _ reason: String, answer: ErrorAnswer? = nil) -> UnansweredRequest {
                UnansweredRequest(
                    source: call.origin, status: status, reason: reason, environment: call.environment,
                    request: call.request, answer: answer)
            }
            let message = call.description
            switch failure {
            case .unauthorized(let diagnosis):
                let answer = ErrorAnswer(status: 401, errorCode: nil, errorMessage: nil)
                report(
                    failed(.unauthorized, diagnosis.message(OptionHints()), answer: answer), message: message,
                    exit: .unauthorized)
            case .refused(let status, let code, let text):
                let answer = ErrorAnswer(status: status, errorCode: code, errorMessage: text)
                report(failed(.refused, answer.description, answer: answer), message: message, exit: .unavailable)
            case .temporary(let reason, let answer):
                report(
                    failed(.unavailable, "try again later: " + reason, answer: answer), message: message,
                    exit: .tryAgainLater)
            case .badAnswer(let reason):
                report(failed(.malformed, "unusable answer: " + reason), message: message, exit: .unavailable)
            case .untrustedCertificate(let environment, let reason):
                let option = environment == .production ? "--production-url" : "--sandbox-url"
                let reason =
                    "TLS refused: \(reason); not retried (the same certificate would be refused again): check "
                    + "\(option), and that this system's CA store (/etc/ssl/certs) holds the CA that issued the "
                    + "server's certificate (a TLS-inspecting proxy's own CA, for one)"
                report(failed(.untrustedCertificate, reason), message: message, exit: .unavailable)
            case .signingFailed(let reason):
                report(failed(.signingFailed, reason + "; nothing was sent"), message: message, exit: .software)
            }
        }
    }

    private var sourceName: String {
        "fetch " + (options.kind?.rawValue ?? "") + (options.id.map { " \($0)" } ?? "")
    }

    /// Says on standard error why `request` got no answer (after `message`, the call), writes
    /// its record, and records the exit status.
    private func report(_ request: UnansweredRequest, message: String, exit: ExitStatus) {
        io.error("\(message): \(request.reason)")
        sink.unanswered(request)
        sink.fail(exit)
    }
}

/// The line on standard error that says what a retry waits for: on a terminal drawn in place,
/// and cleared before anything else is written; in a pipe or a log, one line per retry.
private final class ProgressLine: @unchecked Sendable {
    private let terminal: Bool
    private let write: (String) -> Void
    private var shown = false

    init(terminal: Bool, write: @escaping (String) -> Void) {
        self.terminal = terminal
        self.write = write
    }

    func show(_ event: ClientEvent) {
        switch event {
        case .waiting(let seconds, let attempt, let retries, let reason):
            let tenths = Int((seconds * 10).rounded())
            let wait = seconds < 9.95 ? "\(tenths / 10).\(tenths % 10) s" : "\(Int(seconds.rounded())) s"
            let text = "jwsinspect: fetch: \(TerminalText.safe(reason)); retry \(attempt) of \(retries) in \(wait)"
            guard terminal else {
                // Off a terminal (a CI log), one line per retry: a silent wait reads as a hang.
                write(text + "\n")
                return
            }
            write("\r\u{1b}[K" + text + "…")
            shown = true
        }
    }

    func clear() {
        guard shown else { return }
        write("\r\u{1b}[K")
        shown = false
    }
}
