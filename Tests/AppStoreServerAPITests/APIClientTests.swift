import AppStoreServerAPI
import AppStoreTestData
import Foundation
import JWSInspectCore
import Synchronization
import TestPKI
import Testing

/// A transport that answers from a script and records what it was sent.
final class ScriptedTransport: HTTPTransport {
    enum Answer {
        case response(Int, [String: String], String)
        case failure(TransportError)
    }

    private let state: Mutex<(script: [Answer], sent: [HTTPRequest])>

    init(_ script: [Answer]) {
        state = Mutex((script, []))
    }

    var sent: [HTTPRequest] { state.withLock { $0.sent } }

    func send(_ request: HTTPRequest, timeout: Double) -> Result<HTTPResponse, TransportError> {
        state.withLock { state in
            state.sent.append(request)
            guard !state.script.isEmpty else { return .failure(.unreachable("script ended")) }
            switch state.script.removeFirst() {
            case .response(let status, let headers, let body):
                return .success(HTTPResponse(status: status, headers: headers, body: Array(body.utf8)))
            case .failure(let error):
                return .failure(error)
            }
        }
    }
}

/// Words every hint by its case, so a test sees which hint a message asked for.
struct NamedHints: HintWording {
    func word(_ hint: Hint) -> String { "<\(hint)>" }
}

/// The waits a client asked for, instead of waiting.
final class Waits: Sendable {
    private let waits = Mutex<[Double]>([])
    var all: [Double] { waits.withLock { $0 } }
    func record(_ seconds: Double) { waits.withLock { $0.append(seconds) } }
}

@Suite("App Store Server API client")
struct APIClientTests {
    static let now = Date(timeIntervalSince1970: 1_748_736_000)
    static let key: PrivateKey = {
        let file = try? KeyFile(bytes: Array(TestKey.p256().privateKeyPEM.utf8), path: "AuthKey_2X9R4HXF34.p8")
        return file!.privateKey!
    }()
    static let credentials = Credentials(
        key: key, keyID: "2X9R4HXF34", issuerID: "57246542-96fe-1a63-e053-0824d011072a", bundleID: "com.example.app")

    func client(_ transport: ScriptedTransport, waits: Waits, retries: Int = 3) -> APIClient {
        APIClient(
            credentials: Self.credentials, baseURLs: [:], transport: transport, retry: RetryPolicy(retries: retries),
            timeout: 30, clock: { Self.now }, sleep: { waits.record($0) }, jitter: { 1 })
    }

    static let transactionBody = #"{"signedTransactionInfo":"a.b.c"}"#
    static let notFound = #"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#

    @Test("each request goes to Apple's URL with a fresh API token, Accept and no body for GET")
    func request() throws {
        let transport = ScriptedTransport([.response(200, [:], Self.transactionBody)])
        let fetcher = Fetcher(client: client(transport, waits: Waits()))
        var pages: [FetchedPage] = []
        let end = fetcher.run(.transaction("2000000000000010"), environment: .production, note: { _ in }) {
            pages.append($0)
            return true
        }
        #expect(end == .done)
        let sent = try #require(transport.sent.first)
        #expect(sent.url == "https://api.storekit.apple.com/inApps/v1/transactions/2000000000000010")
        #expect(sent.method == "GET" && sent.body == nil)
        let authorization = try #require(sent.headers.first { $0.0 == "Authorization" }?.1)
        #expect(authorization.hasPrefix("Bearer ey"))
        let claims = try #require(authorization.split(separator: ".").dropFirst().first)
        let decoded = try Base64URL.decode(Array(claims.utf8))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(decoded)) as? [String: Any])
        #expect(object["aud"] as? String == "appstoreconnect-v1")
        #expect(object["bid"] as? String == "com.example.app")
        #expect(object["iss"] as? String == "57246542-96fe-1a63-e053-0824d011072a")
        #expect(object["iat"] as? Int == 1_748_736_000 && object["exp"] as? Int == 1_748_736_300)
        #expect(pages.first?.origin == "fetch transaction 2000000000000010 (Production)")
    }

    @Test("429 waits until Retry-After (UNIX milliseconds), then the retry succeeds")
    func rateLimited() {
        let transport = ScriptedTransport([
            .response(
                429, ["Retry-After": "1748736002500"], #"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#),
            .response(200, [:], Self.transactionBody),
        ])
        let waits = Waits()
        let end = Fetcher(client: client(transport, waits: waits)).run(
            .transaction("1"), environment: .production, note: { _ in }, deliver: { _ in true })
        #expect(end == .done)
        #expect(waits.all == [2.5])
        #expect(transport.sent.count == 2)
    }

    @Test("5xx backs off exponentially; after the last retry it is 'try again later'")
    func serverErrors() {
        let error = #"{"errorCode":5000000,"errorMessage":"An unknown error occurred."}"#
        let transport = ScriptedTransport(Array(repeating: .response(500, [:], error), count: 4))
        let waits = Waits()
        let end = Fetcher(client: client(transport, waits: waits)).run(
            .transaction("1"), environment: .production, note: { _ in }, deliver: { _ in true })
        #expect(waits.all == [1, 2, 4])
        guard case .failed(.temporary(let reason, _), _) = end else {
            Issue.record("expected a temporary failure, got \(end)")
            return
        }
        #expect(reason.contains("HTTP 500") && reason.contains("5000000 GeneralInternalError"))
    }

    @Test("a connection error is retried like a 5xx; none left means try again later")
    func unreachable() {
        let transport = ScriptedTransport([
            .failure(.unreachable("connection refused")), .failure(.timedOut(seconds: 30)),
        ])
        let waits = Waits()
        let end = Fetcher(client: client(transport, waits: waits, retries: 1)).run(
            .transaction("1"), environment: .production, note: { _ in }, deliver: { _ in true })
        #expect(waits.all == [1])
        guard case .failed(.temporary(let reason, _), _) = end else {
            Issue.record("expected a temporary failure, got \(end)")
            return
        }
        #expect(reason.contains("no complete answer within 30 s"))
    }

    @Test("Production's 4040010 falls back to Sandbox; both unknown is not found")
    func sandboxFallback() {
        let transport = ScriptedTransport([
            .response(404, [:], Self.notFound), .response(200, [:], Self.transactionBody),
        ])
        var notes: [FetchNote] = []
        var environments: [ServerEnvironment] = []
        let end = Fetcher(client: client(transport, waits: Waits())).run(
            .transaction("1"), environment: nil, note: { notes.append($0) },
            deliver: {
                environments.append($0.environment)
                return true
            })
        #expect(end == .done && environments == [.sandbox])
        #expect(
            transport.sent.map(\.url).map { $0.hasPrefix("https://api.storekit-sandbox.apple.com") } == [false, true])
        #expect(notes.last == .answeredBy(.sandbox))

        let neither = ScriptedTransport([.response(404, [:], Self.notFound), .response(404, [:], Self.notFound)])
        let missing = Fetcher(client: client(neither, waits: Waits())).run(
            .transaction("1"), environment: nil, note: { _ in }, deliver: { _ in true })
        guard case .notFound = missing else {
            Issue.record("expected not found, got \(missing)")
            return
        }
    }

    @Test("another 4xx is refused at once, with Apple's code and message; no fallback, no retry")
    func refused() {
        let transport = ScriptedTransport([
            .response(400, [:], #"{"errorCode":4000006,"errorMessage":"Invalid transaction id."}"#)
        ])
        let end = Fetcher(client: client(transport, waits: Waits())).run(
            .transaction("1"), environment: nil, note: { _ in }, deliver: { _ in true })
        #expect(transport.sent.count == 1)
        guard case .failed(.refused(400, 4_000_006, "Invalid transaction id."), _) = end else {
            Issue.record("expected refused, got \(end)")
            return
        }
    }

    @Test("a 401 says what the token carried, the clock skew beyond a minute, and Production's first-release rule")
    func unauthorized() {
        let transport = ScriptedTransport([
            .response(401, ["Date": RetryPolicy.httpDateText(Self.now.addingTimeInterval(-300))], "Unauthenticated")
        ])
        let end = Fetcher(client: client(transport, waits: Waits())).run(
            .transaction("1"), environment: .production, note: { _ in }, deliver: { _ in true })
        guard case .failed(.unauthorized(let diagnosis), _) = end else {
            Issue.record("expected unauthorized, got \(end)")
            return
        }
        let message = diagnosis.message()
        #expect(message.contains("kid 2X9R4HXF34") && message.contains("iss 57246542-96fe-1a63-e053-0824d011072a"))
        #expect(message.contains("bid com.example.app") && message.contains("lifetime 5 min"))
        #expect(message.contains("clock is 5 min ahead of Apple's"))
        #expect(message.hasSuffix("a release in Production: try the Sandbox environment"))
        #expect(diagnosis.message(NamedHints()).hasSuffix("a release in Production: try <environment(\"Sandbox\")>"))
    }

    @Test("a test notification whose status never comes says to wait longer, in the caller's words")
    func testNotificationTimeout() {
        let answers: [ScriptedTransport.Answer] = [
            .response(200, [:], #"{"testNotificationToken":"tok-1"}"#),
            .response(404, [:], #"{"errorCode":4040008,"errorMessage":"Test notification not found."}"#),
        ]
        for (hints, tail) in [
            (PlainHints() as any HintWording, "try a longer wait)"), (NamedHints(), "try a longer <statusWait>)"),
        ] {
            let end = Fetcher(client: client(ScriptedTransport(answers), waits: Waits()), hints: hints).run(
                .testNotification(wait: 0), environment: .sandbox, note: { _ in }, deliver: { _ in true })
            guard case .failed(.temporary(let reason, _), _) = end else {
                Issue.record("expected a temporary failure, got \(end)")
                return
            }
            #expect(reason.hasPrefix("no status for test notification tok-1 within") && reason.hasSuffix(tail))
        }
    }

    @Test("more pages than any history has ends the fetch, and says how to narrow it in the caller's words")
    func pageLimit() {
        let page = { (index: Int) in #"{"revision":"r\#(index)","hasMore":true,"signedTransactions":["a.b.c"]}"# }
        let transport = ScriptedTransport((1...4).map { .response(200, [:], page($0)) })
        var fetcher = Fetcher(client: client(transport, waits: Waits()), hints: NamedHints())
        #expect(fetcher.pageLimit == 10_000)
        fetcher.pageLimit = 3
        let end = fetcher.run(
            .history("7", HistoryFilters()), environment: .sandbox, note: { _ in }, deliver: { _ in true })
        #expect(transport.sent.count == 3)
        guard case .failed(.badAnswer(let reason), _) = end else {
            Issue.record("expected a bad answer, got \(end)")
            return
        }
        #expect(reason == "more than 3 pages; narrow the request (dates, <resultLimit>)")
    }

    @Test("history follows revision while hasMore, repeating the filters on every page")
    func pages() throws {
        let page = { (revision: String, more: Bool) in
            #"{"revision":"\#(revision)","hasMore":\#(more),"bundleId":"com.example.app","environment":"Sandbox","signedTransactions":["a.b.c"]}"#
        }
        let transport = ScriptedTransport([
            .response(200, [:], page("r1", true)), .response(200, [:], page("r2", true)),
            .response(200, [:], page("r3", false)),
        ])
        var filters = HistoryFilters()
        filters.productIDs = ["pro.monthly", "pro.yearly"]
        filters.sort = "DESCENDING"
        var origins: [String] = []
        let end = Fetcher(client: client(transport, waits: Waits())).run(
            .history("7", filters), environment: .sandbox, note: { _ in },
            deliver: {
                origins.append($0.origin)
                return true
            })
        #expect(end == .done)
        #expect(origins == (1...3).map { "fetch history 7 (Sandbox) page \($0)" })
        let urls = transport.sent.map(\.url)
        let base =
            "https://api.storekit-sandbox.apple.com/inApps/v2/history/7?productId=pro.monthly&productId=pro.yearly&sort=DESCENDING"
        #expect(urls == [base, base + "&revision=r1", base + "&revision=r2"])
    }

    @Test("an order with status 1 is not found, and Sandbox is never asked for an order")
    func invalidOrder() {
        let transport = ScriptedTransport([.response(200, [:], #"{"status":1}"#)])
        let end = Fetcher(client: client(transport, waits: Waits())).run(
            .order("MQ7TYF9XYZ"), environment: nil, note: { _ in }, deliver: { _ in true })
        #expect(transport.sent.count == 1)
        guard case .notFound(let reason, _) = end else {
            Issue.record("expected not found, got \(end)")
            return
        }
        #expect(reason.contains("order status 1"))
    }

    @Test("a 2xx body that is not JSON is an unusable answer, quoted")
    func notJSON() {
        let transport = ScriptedTransport([.response(200, [:], "<html>proxy login</html>")])
        let end = Fetcher(client: client(transport, waits: Waits())).run(
            .transaction("1"), environment: .production, note: { _ in }, deliver: { _ in true })
        guard case .failed(.badAnswer(let reason), _) = end else {
            Issue.record("expected a bad answer, got \(end)")
            return
        }
        #expect(reason.contains("not JSON") && reason.contains("<html>proxy login"))
    }

    @Test("a server that answers hasMore with a revision already answered is not asked forever")
    func repeatedRevision() {
        let page = #"{"revision":"same","hasMore":true,"signedTransactions":["a.b.c"]}"#
        let transport = ScriptedTransport(Array(repeating: .response(200, [:], page), count: 5))
        let end = Fetcher(client: client(transport, waits: Waits())).run(
            .history("7", HistoryFilters()), environment: .sandbox, note: { _ in }, deliver: { _ in true })
        #expect(transport.sent.count == 2)
        guard case .failed(.badAnswer(let reason), _) = end else {
            Issue.record("expected a bad answer, got \(end)")
            return
        }
        #expect(reason == "page 2 says hasMore with a page token already answered")
    }
}
