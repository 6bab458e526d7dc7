internal import AppStoreServerAPI
internal import FoundationEssentials
internal import JWSInspectCore

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// `jwsinspect listen`: receives App Store Server Notifications over HTTP, verifies each as
/// inspect verifies a webhook body, stores each authentic one once in `--log` before
/// answering 200, forwards what it stored (`--forward-to`), and shows each as it arrives;
/// `--import FILE` appends notifications to the log through the same rule without serving.
enum ListenCommand {
    static func run(_ options: ListenOptions, io given: CommandIO) -> Int32 {
        if options.showHelp { return Output.print(HelpText.of(Commands.listen), io: given) }
        let setup: VerificationSetup
        switch VerificationSetup.make(options.inspect, io: given, prefix: "listen: ") {
        case .success(let made): setup = made
        case .failure(let failure):
            given.error(failure.message)
            return failure.status.rawValue
        }
        let io = setup.io
        // A file size limit (ulimit -f) makes a write fail (a 503, Apple retries) rather than end the process.
        _ = signal(SIGXFSZ, SIG_IGN)
        // Without --import, nothing is done without a server: said before the log is opened.
        if options.imports.isEmpty, io.server == nil, io.transport == nil {
            io.error("listen: " + Companion.missing)
            return ExitStatus.fetchMissing.rawValue
        }
        if options.imports.isEmpty, io.server == nil {
            io.error(
                "listen: this jwsinspect-fetch was built without libmicrohttpd, the HTTP server listen uses: install "
                    + "libmicrohttpd-dev and rebuild (make build), or install a jwsinspect package built with it")
            return ExitStatus.unavailable.rawValue
        }
        var log: NotificationLog?
        var unforwarded: [NotificationLog.Entry] = []
        if let path = options.log {
            switch NotificationLog.openLog(path) {
            case .failure(let failure):
                io.error("listen: --log \(failure.message)")
                return ExitStatus.ioError.rawValue
            case .success(let (opened, recovery)):
                log = opened
                unforwarded = recovery.unforwarded
                io.error(
                    "listen: \(path): \(recovery.stored) notification\(recovery.stored == 1 ? "" : "s") stored, "
                        + "\(recovery.forwarded) forwarded")
                if let aside = recovery.setAsidePath {
                    io.error(
                        "listen: \(path) ended with \(recovery.setAside) bytes of a record cut short (a crash while "
                            + "writing; never acknowledged): set aside into \(aside)")
                }
                if recovery.duplicates > 0 {
                    io.error(
                        "listen: warning: \(path) stores \(recovery.duplicates) notificationUUID(s) twice (edited?): "
                            + "the first is kept")
                }
            }
        }
        let listener = Listener(options: options, setup: setup, log: log, unforwarded: unforwarded)
        if !options.imports.isEmpty { return listener.importFiles(options.imports) }
        guard let server = io.server else { return ExitStatus.unavailable.rawValue }
        return listener.serve(with: server)
    }
}

/// One listen run: verifies, stores, answers, shows and counts. Thread-safe: the server calls
/// `handle` on its threads, several at once.
final class Listener: @unchecked Sendable {
    let options: ListenOptions
    private let verifier: Verifier
    private let io: CommandIO
    private let log: NotificationLog?
    /// Without --log: the keys answered, so that a repeat is shown as one (nothing is stored).
    private let seen = Locked(Set<NotificationLog.Key>())
    private let counts = Locked(ListenCounts())
    /// Standard output, one delivery's lines at a time; the writes made. (Not a `Locked<Void>`:
    /// ThreadSanitizer takes a zero-sized value's access for one of the lock's own pointer.)
    private let output = Locked(0)
    private let renderer: any ResultRenderer
    private let fragments = ChainFragments()
    private let requests = Locked(0)
    private var forwarder: Forwarder?
    /// What the server enforces, and what the answers to a request it cut short say.
    private let limits = ListenLimits()
    /// The stored notifications not forwarded yet, found when the log was opened.
    private let unforwarded: [NotificationLog.Entry]

    init(options: ListenOptions, setup: VerificationSetup, log: NotificationLog?, unforwarded: [NotificationLog.Entry])
    {
        self.options = options
        self.io = setup.io
        self.log = log
        self.unforwarded = unforwarded
        var verification = setup.verification
        verification.reportsValidityNow = false
        verifier = Verifier(options: verification)
        renderer = setup.render.output
    }

    // MARK: Serving

    func serve(with server: any NotificationServer) -> Int32 {
        var tls: ListenTLS?
        if let certificate = options.tlsCertificate, let key = options.tlsKey {
            switch (System.readRegularFile(certificate, limit: 1 << 20), System.readRegularFile(key, limit: 1 << 20)) {
            case (.success(let certificatePEM), .success(let keyPEM)):
                tls = ListenTLS(certificatePEM: certificatePEM, keyPEM: keyPEM)
            case (.failure(let failure), _):
                io.error("listen: --tls-cert \(certificate): \(failure.description)")
                return ExitStatus.unreadable.rawValue
            case (_, .failure(let failure)):
                io.error("listen: --tls-key \(key): \(failure.description)")
                return ExitStatus.unreadable.rawValue
            }
        }
        // SIGINT and SIGTERM are taken by `sigwait` below: blocked before any thread starts, so
        // that every thread the server starts has them blocked too.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        if let forwardTo = options.forwardTo, let log, let transport = io.transport {
            forwarder = Forwarder(url: forwardTo, log: log, transport: transport, listener: self)
        }
        let port: UInt16
        do {
            port = try server.start(
                address: options.address, tls: tls, limits: limits,
                handler: { [unowned self] request in handle(request) })
        } catch {
            io.error("listen: \(error.message)")
            return ExitStatus.unavailable.rawValue
        }
        var bound = options.address
        bound.port = port
        let url = "\(tls == nil ? "http" : "https")://\(bound.description)\(options.path)"
        io.error(
            "listen: receiving App Store Server Notifications at \(url)"
                + (options.log.map { "; storing them in \($0)" } ?? "; not storing them (no --log): each is shown, "
                    + "answered 200 when authentic, and not kept")
                + (options.forwardTo.map { "; forwarding them to \($0)" } ?? "") + " (Ctrl-C stops)")
        forwarder?.start(resuming: unforwarded)
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        io.error("listen: \(received == SIGINT ? "interrupted" : "terminated"): finishing the requests in flight")
        server.stop(graceSeconds: 5)
        forwarder?.stop()
        reportSummary()
        return ExitStatus.success.rawValue
    }

    /// What one request gets: verified, stored when authentic, answered.
    func handle(_ request: ReceivedRequest) -> ServerAnswer {
        let number = requests.withLock { count in
            count += 1
            return count
        }
        let time = Date()
        let from = request.remoteAddress
        let line = "\(request.method) \(request.path)"
        func reject(_ status: Int, _ reason: String) -> ServerAnswer {
            deliver(
                Delivery(
                    time: time, via: .http, from: from, request: line, httpStatus: status, outcome: .rejected,
                    reason: reason, bytes: request.body.count))
            return ServerAnswer(status: status, body: reason + "\n")
        }
        switch request.problem {
        case .tooLarge(let declared)?:
            return reject(
                413,
                "the body is over \(limits.maximumBodyBytes >> 20) MiB"
                    + (declared.map { " (\($0) bytes declared)" } ?? "")
                    + ": no App Store notification is that large")
        case .tooSlow?:
            return reject(
                408, "the body took over \(limits.requestTimeoutSeconds) seconds to arrive: closed")
        case .timedOut?:
            _ = reject(
                408,
                "the connection was silent for \(limits.idleTimeoutSeconds) seconds: closed without an answer")
            return ServerAnswer(status: 408, body: "")
        case nil: break
        }
        guard request.path == options.path else {
            return reject(
                404, "nothing is received at \(Excerpt.of(request.path)): notifications go to \(options.path)")
        }
        guard request.method == "POST" else {
            return reject(405, "\(Excerpt.of(request.method)) is not taken: App Store notifications are POSTed")
        }
        let delivery = receive(
            body: request.body, origin: "request \(number)", time: time, via: .http, from: from, request: line)
        deliver(delivery)
        let body =
            delivery.outcome == .stored || delivery.outcome == .repeated
            ? "\(delivery.outcome.rawValue) \(delivery.notificationUUID ?? "")\n" : delivery.reason + "\n"
        return ServerAnswer(status: delivery.httpStatus ?? 500, body: body)
    }

    // MARK: Deciding

    /// What a body gets: scanned as inspect scans a webhook body, verified, stored when it is an
    /// authentic notification.
    func receive(
        body: [UInt8], origin: String, time: Date, via: Delivery.Via, from: String, request: String?
    ) -> Delivery {
        var delivery = Delivery(
            time: time, via: via, from: from, request: request, httpStatus: 400, outcome: .rejected, reason: "",
            bytes: body.count)
        guard String(validating: body, as: UTF8.self) != nil else {
            delivery.reason = "the body is not UTF-8 text: an App Store notification body is {\"signedPayload\": …}"
            return delivery
        }
        let items = InputScanner.scan(body, origin: origin, numberLines: false)
        guard items.count == 1, let item = items.first else {
            delivery.reason =
                items.isEmpty
                ? "no notification in the body: an App Store notification body is {\"signedPayload\": …}"
                : "the body holds \(items.count) items: an App Store notification body holds one signedPayload"
            return delivery
        }
        return decide(item, body: body, delivery: delivery)
    }

    /// The decision on one item found (its body stored as `body`).
    private func decide(_ item: InputScanner.Item, body: [UInt8], delivery given: Delivery) -> Delivery {
        var delivery = given
        let token: String
        let source: String
        switch item {
        case .token(let found, let text):
            token = text
            source = found
        case .malformed(_, let reason):
            delivery.reason = "malformed: \(reason)"
            return delivery
        case .receipt, .transactionReceipt, .realtimeResponse:
            delivery.httpStatus = 422
            delivery.reason = "the body holds no JWS: an App Store notification body is {\"signedPayload\": …}"
            return delivery
        }
        let inspection = verifier.at(delivery.time).inspect(token, source: source)
        delivery.inspection = inspection
        let payload = inspection.envelope?.sections.payload.object ?? [:]
        if inspection.status == .revocationUnavailable {
            delivery.httpStatus = 503
            delivery.outcome = .retry
            delivery.reason = "revocation could not be checked (\(inspection.reason)): Apple will send it again"
            return delivery
        }
        guard inspection.status != .malformed else {
            delivery.reason = "malformed: \(inspection.reason)"
            return delivery
        }
        guard inspection.isAuthentic else {
            delivery.httpStatus = 403
            delivery.reason = "not authentic (\(inspection.status.rawValue)): \(inspection.reason)"
            return delivery
        }
        // What the shown line names, from signed data only: a forgery's claims are in its result alone.
        if case .string(let type)? = payload["notificationType"] { delivery.notificationType = type }
        if case .string(let subtype)? = payload["subtype"] { delivery.subtype = subtype }
        for path in ["data.signedTransactionInfo", "data.signedRenewalInfo"] {
            guard let nested = inspection.nested.first(where: { $0.path == path })?.inspection,
                let members = nested.envelope?.sections.payload.object
            else { continue }
            if delivery.productId == nil, case .string(let product)? = members["productId"] {
                delivery.productId = product
            }
            if delivery.transactionId == nil, path == "data.signedTransactionInfo",
                case .string(let transaction)? = members["transactionId"]
            {
                delivery.transactionId = transaction
            }
        }
        guard inspection.kind == .notification else {
            delivery.httpStatus = 422
            delivery.reason = "an authentic \(inspection.kind.displayName), not a notification: not stored"
            return delivery
        }
        guard case .string(let uuid)? = payload["notificationUUID"], !uuid.isEmpty else {
            delivery.httpStatus = 422
            delivery.reason = "an authentic notification without a notificationUUID: it cannot be stored once"
            return delivery
        }
        delivery.notificationUUID = uuid
        let key = NotificationLog.Key(notificationUUID: uuid)
        delivery.reason =
            inspection.status == .valid
            ? inspection.reason : "authentic, stored and flagged: \(inspection.status.rawValue): \(inspection.reason)"
        guard let log else {
            let fresh = seen.withLock { $0.insert(key).inserted }
            delivery.httpStatus = 200
            delivery.outcome = fresh ? .shown : .repeated
            return delivery
        }
        switch log.append(storedRecord(delivery, uuid: uuid, body: body), key: key) {
        case .stored(let entry):
            delivery.httpStatus = 200
            delivery.outcome = .stored
            forwarder?.enqueue(entry)
        case .repeated:
            delivery.httpStatus = 200
            delivery.outcome = .repeated
            delivery.reason = "stored before: answered 200 again and not stored twice"
        case .failed(let reason):
            delivery.httpStatus = 503
            delivery.outcome = .retry
            delivery.reason = "not stored (\(reason)): answered 503, so Apple sends it again"
        }
        return delivery
    }

    /// The log line of a stored notification: the body as it came, and what was decided.
    private func storedRecord(_ delivery: Delivery, uuid: String, body: [UInt8]) -> [UInt8] {
        let inspection = delivery.inspection
        let members: OrderedJSON.Members = [
            ("schemaVersion", .integer(RecordType.schemaVersion)), ("record", .string(RecordType.stored.rawValue)),
            ("time", .string(ISO8601.string(delivery.time))), ("notificationUUID", .string(uuid)),
            ("notificationType", delivery.notificationType.map { .string($0) } ?? .null),
            ("subtype", delivery.subtype.map { .string($0) } ?? .null),
            ("status", inspection.map { .string($0.status.rawValue) } ?? .null),
            ("reason", .string(delivery.reason)), ("via", .string(delivery.via.rawValue)),
            ("from", .string(delivery.from)), ("body", .string(String(decoding: body, as: UTF8.self))),
        ]
        var line: [UInt8] = []
        OrderedJSON.object(.init(distinct: members)).write(into: &line)
        return line
    }

    // MARK: Importing

    /// `--import`: every notification the files hold, verified and appended once; the exit
    /// status of the first that is not stored or repeated, else 0.
    func importFiles(_ paths: [String]) -> Int32 {
        var status = ExitStatus.success
        for path in paths {
            let bytes: [UInt8]
            switch System.readRegularFile(path, limit: InputStream.maximumRecordSize) {
            case .success(let read): bytes = read
            case .failure(let failure):
                io.error("listen: --import \(path): \(failure.description)")
                status = status == .success ? .unreadable : status
                continue
            }
            let items = InputScanner.scan(bytes, origin: path)
            if items.isEmpty { io.error("listen: --import \(path): no notification found in it") }
            for item in items {
                var body: [UInt8] = []
                if case .token(_, let token) = item {
                    OrderedJSON.object(.init(distinct: [("signedPayload", .string(token))])).write(into: &body)
                }
                var delivery = decide(
                    item, body: body,
                    delivery: Delivery(
                        time: Date(), via: .import, from: path, request: nil, httpStatus: nil, outcome: .rejected,
                        reason: "", bytes: body.count))
                // Nothing is answered to a file: the status the decision would send is not shown.
                delivery.httpStatus = nil
                deliver(delivery)
                if status == .success { status = Self.exitStatus(delivery) }
            }
        }
        reportSummary()
        return status.rawValue
    }

    /// An imported notification's exit status: 0 when stored or repeated; a refusal's as
    /// inspect's (a valid item that is no notification: 5); 75 when revocation could not be
    /// checked; 74 when the log could not be written.
    static func exitStatus(_ delivery: Delivery) -> ExitStatus {
        switch delivery.outcome {
        case .stored, .repeated, .shown: return .success
        case .retry:
            return delivery.inspection?.status == .revocationUnavailable ? .tryAgainLater : .ioError
        case .rejected:
            let status = delivery.inspection.map { ExitStatus($0.status) } ?? .malformed
            return status == .success ? .malformed : status
        }
    }

    // MARK: Showing

    /// Counts a delivery and shows it.
    private func deliver(_ delivery: Delivery) {
        counts.withLock { $0.add(delivery) }
        guard !options.inspect.output.quiet else { return }
        let text: String
        switch options.inspect.output.format {
        case .table: text = table(delivery)
        case .json, .jsonl:
            text = record(delivery).serialized(pretty: options.inspect.output.format == .json) + "\n"
        }
        output.withLock { written in
            _ = io.writeOut(text)
            written += 1
        }
    }

    private func table(_ delivery: Delivery) -> String {
        var head = "\(ISO8601.string(delivery.time))  "
        head += delivery.httpStatus.map { "HTTP \($0) " } ?? ""
        head += delivery.outcome.rawValue
        if let type = delivery.notificationType {
            head += "  " + type + (delivery.subtype.map { "/" + $0 } ?? "")
        }
        if let uuid = delivery.notificationUUID { head += "  " + uuid }
        if let product = delivery.productId { head += "  product " + product }
        if let transaction = delivery.transactionId { head += "  transaction " + transaction }
        head += "  (\(delivery.via == .http ? "from " : "")\(delivery.from))"
        var lines = [head]
        if delivery.outcome == .rejected || delivery.outcome == .retry || delivery.inspection == nil {
            lines.append("  " + delivery.reason)
        }
        if let inspection = delivery.inspection, let brief = renderer.result(inspection) {
            lines += brief.split(separator: "\n", omittingEmptySubsequences: false).map { "  " + $0 }
            while lines.last?.allSatisfy({ $0 == " " }) == true { lines.removeLast() }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func record(_ delivery: Delivery) -> OrderedJSON {
        let result: OrderedJSON =
            delivery.inspection.map {
                .raw(JSONRenderer.bytes($0, pretty: false, fragments: fragments))
            } ?? .null
        let members: OrderedJSON.Members = [
            ("time", .string(ISO8601.string(delivery.time))), ("via", .string(delivery.via.rawValue)),
            ("from", .string(delivery.from)), ("request", delivery.request.map { .string($0) } ?? .null),
            ("httpStatus", delivery.httpStatus.map { .integer(Int64($0)) } ?? .null),
            ("outcome", .string(delivery.outcome.rawValue)), ("reason", .string(delivery.reason)),
            ("notificationUUID", delivery.notificationUUID.map { .string($0) } ?? .null),
            ("notificationType", delivery.notificationType.map { .string($0) } ?? .null),
            ("subtype", delivery.subtype.map { .string($0) } ?? .null),
            ("productId", delivery.productId.map { .string($0) } ?? .null),
            ("transactionId", delivery.transactionId.map { .string($0) } ?? .null),
            ("bytes", .integer(Int64(delivery.bytes))),
            ("result", result),
        ]
        return .object(.init(distinct: RecordType.delivery.head + members))
    }

    /// A forward's outcome, counted and shown.
    func forwarded(_ event: Forwarder.Event) {
        counts.withLock { counts in
            if event.delivered { counts.forwarded += 1 } else { counts.forwardFailures += 1 }
        }
        guard !options.inspect.output.quiet else { return }
        let text: String
        switch options.inspect.output.format {
        case .table:
            text =
                "\(ISO8601.string(event.time))  forward \(event.delivered ? "delivered" : "failed")  "
                + "\(event.notificationUUID) → \(event.url): \(event.reason)\n"
        case .json, .jsonl:
            let members: OrderedJSON.Members = [
                ("time", .string(ISO8601.string(event.time))), ("notificationUUID", .string(event.notificationUUID)),
                ("url", .string(event.url)), ("outcome", .string(event.delivered ? "delivered" : "failed")),
                ("httpStatus", event.httpStatus.map { .integer(Int64($0)) } ?? .null),
                ("attempt", .integer(Int64(event.attempt))), ("reason", .string(event.reason)),
                ("retryInSeconds", event.retryIn.map { .integer(Int64($0)) } ?? .null),
            ]
            text =
                OrderedJSON.object(.init(distinct: RecordType.forward.head + members)).serialized(
                    pretty: options.inspect.output.format == .json) + "\n"
        }
        output.withLock { written in
            _ = io.writeOut(text)
            written += 1
        }
    }

    /// A stored entry that could not be read back from the log (it was changed under the listener).
    func forwardUnreadable(offset: Int) {
        io.error(
            "listen: the log's record at byte \(offset) could not be read back to forward it (was the log changed?): "
                + "skipped")
    }

    /// The counts, on standard error (a `listenSummary` record there in JSON modes).
    func reportSummary() {
        var counts = counts.withLock { $0 }
        counts.forwardPending = forwarder?.pending ?? 0
        switch options.inspect.output.format {
        case .table:
            io.error(
                "listen: \(counts.received) received: \(counts.stored) stored, \(counts.repeated) repeated, "
                    + "\(counts.shown) shown (not stored), \(counts.rejected) rejected, \(counts.retry) answered 503 "
                    + "(retry)"
                    + (options.forwardTo == nil
                        ? "" : "; \(counts.forwarded) forwarded, \(counts.forwardPending) waiting to be forwarded"))
        case .json, .jsonl:
            let members: OrderedJSON.Members = [
                ("received", .integer(Int64(counts.received))), ("stored", .integer(Int64(counts.stored))),
                ("repeated", .integer(Int64(counts.repeated))), ("shown", .integer(Int64(counts.shown))),
                ("rejected", .integer(Int64(counts.rejected))), ("retry", .integer(Int64(counts.retry))),
                ("forwarded", .integer(Int64(counts.forwarded))),
                ("forwardFailures", .integer(Int64(counts.forwardFailures))),
                ("forwardPending", .integer(Int64(counts.forwardPending))),
            ]
            io.writeError(
                OrderedJSON.object(.init(distinct: RecordType.listenSummary.head + members)).serialized() + "\n")
        }
    }
}

/// One request's (or one imported notification's) outcome.
struct Delivery: Sendable {
    enum Via: String, Sendable {
        case http
        case `import`
    }

    enum Outcome: String, Sendable {
        /// Authentic, and appended to the log (synced) before the answer.
        case stored
        /// Authentic, and stored before (or answered before, without --log): not stored again.
        case repeated
        /// Authentic, answered 200, and not kept (no --log).
        case shown
        /// Refused (4xx): not authentic, malformed, no notification, too large, too slow.
        case rejected
        /// Answered 5xx so that Apple sends it again: revocation could not be checked, or the log not written.
        case retry
    }

    let time: Date
    let via: Via
    let from: String
    let request: String?
    var httpStatus: Int?
    var outcome: Outcome
    var reason: String
    var bytes: Int
    var notificationUUID: String?
    var notificationType: String?
    var subtype: String?
    /// The nested transaction's (else renewal info's) productId, and the transaction's ID.
    var productId: String?
    var transactionId: String?
    var inspection: Inspection?

    init(
        time: Date, via: Via, from: String, request: String?, httpStatus: Int?, outcome: Outcome, reason: String,
        bytes: Int
    ) {
        self.time = time
        self.via = via
        self.from = from
        self.request = request
        self.httpStatus = httpStatus
        self.outcome = outcome
        self.reason = reason
        self.bytes = bytes
    }
}

/// What listen counts for its summary.
struct ListenCounts: Sendable {
    var received = 0
    var stored = 0
    var repeated = 0
    var shown = 0
    var rejected = 0
    var retry = 0
    var forwarded = 0
    var forwardFailures = 0
    var forwardPending = 0

    mutating func add(_ delivery: Delivery) {
        received += 1
        switch delivery.outcome {
        case .stored: stored += 1
        case .repeated: repeated += 1
        case .shown: shown += 1
        case .rejected: rejected += 1
        case .retry: retry += 1
        }
    }
}
