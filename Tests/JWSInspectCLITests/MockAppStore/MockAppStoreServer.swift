import AppStoreTestData
import Foundation
import JWSInspectCore
import TestPKI

/// A mock App Store Server API on a loopback port, answering as Apple documents it: bearer tokens
/// checked as Apple does (`MockTokenCheck`; 401 with a plain-text body), Apple's paths, JSON
/// shapes, pagination and error bodies, every JWS minted with a test PKI chain.
///
/// Use:
///
///     let key = MockAPIKey()
///     let server = try MockAppStoreServer(credentials: key.credentials, chain: chain)
///     defer { server.stop() }
///     // GET \(server.baseURL)/inApps/v1/transactions/2000000000000001 with
///     // "Authorization: Bearer \(key.token(issuedAt: InProcess.now))"
///
/// Endpoints (`MockAppStoreServer+Routes.swift` says what each answers): Get Transaction Info,
/// Get Transaction History v2, Get All Subscription Statuses, Look Up Order ID, Get Refund History
/// v2, Get App Transaction Info, Get Notification History, Request a Test Notification, Get Test
/// Notification Status. The data starts as `Seed` describes (unless `seed: false`); `add…`
/// methods add more.
///
/// How a request is handled, in order:
/// 1. a reply scripted with `phase: .beforeTokenCheck` for it (`enqueue`), if any;
/// 2. an unknown path: 404 (plain text); a known path with another method: 405;
/// 3. the token check: a refused token gets 401 (`RecordedRequest.tokenVerdict` says why);
/// 4. a reply scripted with `phase: .afterTokenCheck` (the default), if any;
/// 5. the endpoint's answer.
///
/// The mock's clock is `now` at init plus the (monotonic) time elapsed since, plus `clockOffset`:
/// tokens are judged and `Date` headers, `signedDate`s and `Retry-After` values written by it.
///
/// Thread-safe; `stop()` (also run by `deinit`) ends it. The mock mirrors the real
/// service's behaviour where Apple documents it; where it does not, the choice is documented here.
final class MockAppStoreServer: Sendable {
    /// The key a token must be signed with, and the claims it must carry.
    struct Credentials: Sendable {
        /// The header `kid`.
        var keyID: String
        /// The `iss` claim (a UUID in App Store Connect).
        var issuerID: String
        /// The `bid` claim, compared case-sensitively; also the payloads' `bundleId`.
        var bundleID: String
        /// The public half of the In-App Purchase key.
        var publicKey: PublicKey

        init(keyID: String, issuerID: String, bundleID: String, publicKey: PublicKey) {
            self.keyID = keyID
            self.issuerID = issuerID
            self.bundleID = bundleID
            self.publicKey = publicKey
        }

        /// With the public key as DER SubjectPublicKeyInfo (`TestKey.publicKeyDER`); nil when
        /// the bytes are not a key.
        init?(keyID: String, issuerID: String, bundleID: String, publicKeyDER: [UInt8]) {
            guard let key = PublicKey(subjectPublicKeyInfo: publicKeyDER) else { return nil }
            self.init(keyID: keyID, issuerID: issuerID, bundleID: bundleID, publicKey: key)
        }
    }

    /// When a scripted reply is used: before the token is looked at (whatever the token), or only
    /// for a request whose token is accepted (what 429 and 500 need: Apple authenticates first).
    enum ScriptPhase: Sendable {
        case beforeTokenCheck
        case afterTokenCheck
    }

    /// "Production" or "Sandbox": what payloads and bodies say, and which rules apply.
    let environment: String
    let credentials: Credentials
    let chain: AppleShapedChain
    /// The app's Apple ID the payloads carry in Production (`TestPayloads.appAppleId`).
    let appAppleID: Int64
    let backend: Backend
    private let http: MockHTTPServer

    /// Starts a mock on 127.0.0.1 on a free port.
    ///
    /// - Parameters:
    ///   - environment: "Production" or "Sandbox" (anything else is a programming error).
    ///   - credentials: the key and claims tokens must match.
    ///   - now: the mock's time at init (default `InProcess.now`, 2025-06-01T00:00:00Z).
    ///   - chain: the test PKI whose leaf signs every JWS (trust its root to verify them).
    ///   - seed: start with `Seed`'s data (true) or none.
    ///   - appAppleID: the app's Apple ID.
    /// - Throws: `MockHTTPServer.SocketError` when it cannot listen.
    init(
        environment: String = "Production", credentials: Credentials, now: Date = InProcess.now,
        chain: AppleShapedChain, seed: Bool = true, appAppleID: Int64 = TestPayloads.appAppleId
    ) throws(MockHTTPServer.SocketError) {
        precondition(environment == "Production" || environment == "Sandbox", "environment: Production or Sandbox")
        self.environment = environment
        self.credentials = credentials
        self.chain = chain
        self.appAppleID = appAppleID
        let minter = MockMinter(
            environment: environment, bundleID: credentials.bundleID, appAppleID: appAppleID, chain: chain)
        let backend = Backend(
            environment: environment, tokenCheck: MockTokenCheck(credentials: credentials), minter: minter, now: now)
        if seed {
            backend.contents.withLock { contents in
                for transaction in Seed.transactions { contents.transactions[transaction.transactionId] = transaction }
                contents.appTransactions = Seed.appTransactions
                contents.orders = Seed.orders
                contents.notifications = Seed.notifications
            }
        }
        self.backend = backend
        // The handler holds the backend, not `self`: dropping the last reference to the mock
        // runs `deinit`, which stops the server.
        http = try MockHTTPServer(clock: { backend.now }, handler: { backend.handle($0) })
    }

    deinit {
        http.stop()
    }

    /// Stops listening, ends hanging connections and waits for the connection threads. Idempotent.
    func stop() {
        http.stop()
    }

    /// The port on 127.0.0.1.
    var port: UInt16 { http.port }

    /// `http://127.0.0.1:PORT` (no trailing slash): the base URL to put Apple's paths after.
    var baseURL: String { "http://127.0.0.1:\(port)" }

    /// The mock's time now (`now` at init + elapsed + `clockOffset`).
    var now: Date { backend.now }

    /// Added to the mock's clock, e.g. `.seconds(-300)` for a server five minutes behind the
    /// client, or `.seconds(3600)` to let a token expire. Default zero.
    var clockOffset: Duration {
        get { backend.contents.withLock { $0.clockOffset } }
        set { backend.contents.withLock { $0.clockOffset = newValue } }
    }

    /// Transactions (and signedTransactions) per page of transaction history, refund history and
    /// notification history. Default 20, as Apple's.
    var pageSize: Int {
        get { backend.contents.withLock { $0.pageSize } }
        set {
            precondition(newValue > 0, "pageSize must be positive")
            backend.contents.withLock { $0.pageSize = newValue }
        }
    }

    /// How many Get Test Notification Status calls for a token answer 404 4040008 ("not yet
    /// available") before the notification is there. Default 1.
    var testNotificationPendingPolls: Int {
        get { backend.contents.withLock { $0.testNotificationPendingPolls } }
        set { backend.contents.withLock { $0.testNotificationPendingPolls = newValue } }
    }

    /// Every request answered so far (malformed HTTP excepted: see `httpRejections`), in order.
    /// A request is recorded before its answer is sent.
    var requests: [RecordedRequest] {
        backend.contents.withLock { $0.requests }
    }

    /// `requests` but Get Transaction Info's: fetch history and subscriptions resolve their ID
    /// with it first (what ties the answer to the customer), before the requests a test asks about.
    var answerRequests: [RecordedRequest] {
        requests.filter { !$0.path.hasPrefix("/inApps/v1/transactions/") }
    }

    /// Why the HTTP layer refused requests it could not parse (they reach no endpoint).
    var httpRejections: [String] { http.rejections }

    // MARK: - Scripting

    /// Makes the next `times` requests whose path starts with `pathPrefix` (and whose method is
    /// `method`, when given) get `reply` instead of their normal answer, at `phase`.
    ///
    /// Scripted replies are used in the order they were enqueued; each is used `times` times.
    /// The default phase, `.afterTokenCheck`, applies only to known paths with an accepted token.
    func enqueue(
        _ reply: MockReply, forPathPrefix pathPrefix: String, method: String? = nil, times: Int = 1,
        phase: ScriptPhase = .afterTokenCheck
    ) {
        precondition(times > 0, "times must be positive")
        backend.contents.withLock {
            $0.script.append(
                Backend.ScriptEntry(
                    reply: reply, pathPrefix: pathPrefix, method: method, phase: phase, remaining: times))
        }
    }

    /// How many scripted replies are still waiting to be used (a reply enqueued with `times: 3`
    /// counts three).
    var pendingScriptedReplies: Int {
        backend.contents.withLock { $0.script.reduce(0) { $0 + $1.remaining } }
    }

    /// A `Retry-After` value as Apple writes it on 429: the UNIX time in milliseconds, by the
    /// mock's clock, `delay` from now.
    func retryAfterMilliseconds(fromNow delay: Duration) -> String {
        String(MockJSON.milliseconds(now.addingTimeInterval(Backend.seconds(delay))))
    }

    // MARK: - Data

    /// Adds (or replaces, by transaction ID) a transaction.
    func addTransaction(_ transaction: MockTransaction) {
        backend.contents.withLock { $0.transactions[transaction.transactionId] = transaction }
    }

    /// Adds a customer's app transaction (replacing the customer's previous one).
    func addAppTransaction(_ appTransaction: MockAppTransaction) {
        backend.contents.withLock { contents in
            contents.appTransactions.removeAll { $0.customer == appTransaction.customer }
            contents.appTransactions.append(appTransaction)
        }
    }

    /// Adds (or replaces) an order: Look Up Order ID answers status 0 with these transactions.
    func addOrder(_ orderID: String, transactionIDs: [String]) {
        backend.contents.withLock { $0.orders[orderID] = transactionIDs }
    }

    /// Adds a mass renewal date extension: Get Status of Subscription Renewal Date Extensions
    /// answers for it (in progress while `completeDate` is nil).
    func addMassExtension(
        product: String, requestIdentifier: String, completeDate: Date?, succeeded: Int64 = 0, failed: Int64 = 0
    ) {
        backend.contents.withLock {
            $0.massExtensions[product + "/" + requestIdentifier] = Backend.MassExtension(
                requestIdentifier: requestIdentifier, completeDate: completeDate, succeeded: succeeded, failed: failed)
        }
    }

    /// Retention Messaging: a product's default message for a locale, the realtime URL, and a
    /// performance test's result (its answer, as Apple sends it).
    func setDefaultMessage(product: String, locale: String, messageIdentifier: String) {
        backend.contents.withLock { $0.defaultMessages[product + "/" + locale] = messageIdentifier }
    }

    func setRealtimeURL(_ url: String) {
        backend.contents.withLock { $0.realtimeURL = url }
    }

    func addPerformanceTest(requestID: String, result: MockJSON) {
        backend.contents.withLock { $0.performanceTests[requestID] = result }
    }

    /// A performance test that failed (92% of requests answered in time), as the tests ask for it.
    static let failedPerformanceTest: MockJSON = .object([
        ("target", .string("https://example.com/retention")), ("result", .string("FAIL")),
        ("successRate", .integer(92)), ("numPending", .integer(0)),
        ("responseTimes", .object([("average", .integer(310)), ("p99", .integer(1_900))])),
        ("failures", .object([("TIMED_OUT", .integer(8))])),
    ])

    /// Adds a notification to the history (kept in `signedDate` order).
    func addNotification(_ notification: MockNotification) {
        backend.contents.withLock { contents in
            contents.notifications.append(notification)
            contents.notifications.sort { $0.signedDate < $1.signedDate }
        }
    }

    /// The transaction with this ID, if the mock has it.
    func transaction(_ id: String) -> MockTransaction? {
        backend.contents.withLock { $0.transactions[id] }
    }
}

/// A reply scripted for a test (`MockAppStoreServer.enqueue`).
enum MockReply: Sendable {
    /// Answer with this status, these headers and this body (UTF-8).
    case status(Int, headers: [String: String] = [:], body: String)
    /// Never answer: hold the connection until the client gives up or the server stops.
    case hang
    /// Close the connection without answering (the client reads an empty reply).
    case drop
    /// Reset the connection without answering (TCP RST).
    case reset
    /// Answer with this status, these headers and these bytes as the body (a gzip body, for one).
    case bytes(Int, headers: [String: String], body: [UInt8])
    /// Send the head at once, then the body (UTF-8) one byte every `every`.
    case drip(Int, headers: [String: String], body: String, every: Duration)

    /// An Apple error body `{"errorCode":N,"errorMessage":"…"}` with `Content-Type: application/json`.
    static func apiError(status: Int, code: Int, message: String, headers: [String: String] = [:]) -> MockReply {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return .status(
            status, headers: headers, body: MockAppStoreServer.Backend.errorBody(code: code, message: message))
    }

    /// 429 with 4290000 "Rate limit exceeded." and, when given, `Retry-After` (see
    /// `MockAppStoreServer.retryAfterMilliseconds(fromNow:)`).
    static func rateLimited(retryAfter: String?) -> MockReply {
        apiError(
            status: 429, code: 4_290_000, message: "Rate limit exceeded.",
            headers: retryAfter.map { ["Retry-After": $0] } ?? [:])
    }

    /// 500 with 5000000 "An unknown error occurred."
    static let internalError = apiError(status: 500, code: 5_000_000, message: "An unknown error occurred.")

    /// 500 with 5000001 "An unknown error occurred. Please try again." (retryable).
    static let retryableInternalError = apiError(
        status: 500, code: 5_000_001, message: "An unknown error occurred. Please try again.")

    /// 200 with `Content-Type: application/json` and a body that is not JSON (cut short).
    static let malformedJSON = MockReply.status(
        200, headers: ["Content-Type": "application/json"], body: #"{"signedTransactionInfo":"eyJhbGciOiJFUzI1NiJ9."#)
}

/// A request as the mock saw it, and what it answered.
struct RecordedRequest: Sendable {
    var method: String
    /// The path as sent (not percent-decoded).
    var path: String
    /// The query's items in order, percent-decoded.
    var query: [MockHTTPServer.QueryItem]
    var headers: [(name: String, value: String)]
    var body: [UInt8]
    /// The mock's clock when the request arrived.
    var receivedAt: Date
    /// The token check's verdict; nil when the token was not looked at (unknown path, or a reply
    /// scripted before the token check).
    var tokenVerdict: TokenVerdict?
    /// The status answered; nil for `.hang`, `.drop` and `.reset`.
    var status: Int?
    /// Whether a scripted reply answered it.
    var scripted = false

    /// The first value of a header field (name compared case-insensitively).
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The values of a query parameter, in order.
    func queryValues(_ name: String) -> [String] {
        query.filter { $0.name == name }.map(\.value)
    }

    /// The body as UTF-8 text.
    var bodyText: String { String(decoding: body, as: UTF8.self) }
}
