import Foundation
import JWSInspectCore

extension MockAppStoreServer {
    /// The mock's state and request handling, shared by the facade and the HTTP handler (which
    /// holds this, not the facade, so that the facade's `deinit` can stop the server).
    final class Backend: Sendable {
        /// A scripted reply waiting for its requests.
        struct ScriptEntry: Sendable {
            var reply: MockReply
            var pathPrefix: String
            var method: String?
            var phase: ScriptPhase
            var remaining: Int
        }

        /// Where a `revision` or `paginationToken` the mock issued continues: the query (or body)
        /// it belongs to, and how many items were already sent.
        struct Cursor: Sendable {
            var key: String
            var offset: Int
        }

        /// A test notification requested with Request a Test Notification.
        struct TestNotification: Sendable {
            var uuid: String
            var requestedAt: Date
            var polls = 0
        }

        /// A mass renewal date extension (Extend Subscription Renewal Dates for All Active
        /// Subscribers), complete when it has a date.
        struct MassExtension: Sendable {
            var requestIdentifier: String
            var completeDate: Date?
            var succeeded: Int64
            var failed: Int64
        }

        /// Everything mutable, behind `contents`.
        struct Contents: Sendable {
            var transactions: [String: MockTransaction] = [:]
            var appTransactions: [MockAppTransaction] = []
            var orders: [String: [String]] = [:]
            var notifications: [MockNotification] = []
            var testNotifications: [String: TestNotification] = [:]
            /// Mass renewal date extensions requested, by "product/requestIdentifier".
            var massExtensions: [String: MassExtension] = [:]
            /// Retention Messaging: default messages by "product/locale", the realtime URL, and
            /// performance test results by request ID (their answers' JSON).
            var defaultMessages: [String: String] = [:]
            var realtimeURL: String?
            var performanceTests: [String: MockJSON] = [:]
            var cursors: [String: Cursor] = [:]
            var script: [ScriptEntry] = []
            var requests: [RecordedRequest] = []
            var clockOffset: Duration = .zero
            var pageSize = 20
            var testNotificationPendingPolls = 1

            /// Takes the first scripted reply for `request` at `phase` (counting one use), if any.
            mutating func takeScript(for request: MockHTTPServer.Request, phase: ScriptPhase) -> MockReply? {
                guard
                    let index = script.firstIndex(where: {
                        $0.phase == phase && request.path.hasPrefix($0.pathPrefix)
                            && ($0.method.map { $0 == request.method } ?? true)
                    })
                else { return nil }
                let reply = script[index].reply
                script[index].remaining -= 1
                if script[index].remaining == 0 { script.remove(at: index) }
                return reply
            }
        }

        let environment: String
        let tokenCheck: MockTokenCheck
        let minter: MockMinter
        private let startDate: Date
        private let startInstant = ContinuousClock.now
        let contents = JWSInspectCore.Locked(Contents())

        init(environment: String, tokenCheck: MockTokenCheck, minter: MockMinter, now: Date) {
            self.environment = environment
            self.tokenCheck = tokenCheck
            self.minter = minter
            self.startDate = now
        }

        /// The mock's clock: the start date + monotonic time elapsed + the clock offset.
        var now: Date {
            let offset = contents.withLock { $0.clockOffset }
            return startDate.addingTimeInterval(Self.seconds(ContinuousClock.now - startInstant + offset))
        }

        /// `duration` in seconds.
        static func seconds(_ duration: Duration) -> TimeInterval {
            Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        }

        /// Answers one request and records it (before the answer is sent).
        func handle(_ request: MockHTTPServer.Request) -> MockHTTPServer.Reply {
            let now = self.now
            var record = RecordedRequest(
                method: request.method, path: request.path, query: request.query, headers: request.headers,
                body: request.body, receivedAt: now)
            return contents.withLock { contents in
                let reply = answer(request, now: now, record: &record, contents: &contents)
                if case .respond(let response) = reply { record.status = response.status }
                if case .drip(let response, _) = reply { record.status = response.status }
                contents.requests.append(record)
                return reply
            }
        }

        private func answer(
            _ request: MockHTTPServer.Request, now: Date, record: inout RecordedRequest, contents: inout Contents
        ) -> MockHTTPServer.Reply {
            if let scripted = contents.takeScript(for: request, phase: .beforeTokenCheck) {
                record.scripted = true
                return Self.httpReply(scripted)
            }
            let route: Route
            switch Route.match(method: request.method, path: request.path) {
            case .none:
                return .respond(Self.text(404, "Not Found"))
            case .wrongMethod(let allowed):
                var response = Self.text(405, "Method Not Allowed")
                response.headers.append(("Allow", allowed))
                return .respond(response)
            case .route(let matched):
                route = matched
            }
            let verdict = tokenCheck.verdict(authorization: request.headerValues("Authorization"), now: now)
            record.tokenVerdict = verdict
            guard verdict == .accepted else {
                // Apple's 401 body is plain text, not an error object.
                let requestID = UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(26)
                return .respond(Self.text(401, "Unauthenticated\n\nRequest ID: \(requestID).0.0"))
            }
            if let scripted = contents.takeScript(for: request, phase: .afterTokenCheck) {
                record.scripted = true
                return Self.httpReply(scripted)
            }
            return .respond(answer(route, request, now: now, contents: &contents))
        }

        // MARK: - Response helpers

        /// A scripted reply as the HTTP layer takes it.
        static func httpReply(_ reply: MockReply) -> MockHTTPServer.Reply {
            switch reply {
            case .status(let status, let headers, let body):
                let fields = headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
                return .respond(MockHTTPServer.Response(status: status, headers: fields, body: Array(body.utf8)))
            case .hang: return .hang
            case .drop: return .drop
            case .reset: return .reset
            case .bytes(let status, let headers, let body):
                let fields = headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
                return .respond(MockHTTPServer.Response(status: status, headers: fields, body: body))
            case .drip(let status, let headers, let body, let interval):
                let fields = headers.sorted { $0.key < $1.key }.map { (name: $0.key, value: $0.value) }
                return .drip(
                    MockHTTPServer.Response(status: status, headers: fields, body: Array(body.utf8)), every: interval)
            }
        }

        /// A plain-text response (`text` and a newline).
        static func text(_ status: Int, _ text: String) -> MockHTTPServer.Response {
            MockHTTPServer.Response(
                status: status, headers: [("Content-Type", "text/plain")], body: Array((text + "\n").utf8))
        }

        /// A 2xx (or other) JSON response.
        static func json(_ value: MockJSON, status: Int = 200) -> MockHTTPServer.Response {
            MockHTTPServer.Response(
                status: status, headers: [("Content-Type", "application/json")], body: Array(value.text.utf8))
        }

        /// `{"errorCode":code,"errorMessage":message}`.
        static func errorBody(code: Int, message: String) -> String {
            MockJSON.object([("errorCode", .integer(Int64(code))), ("errorMessage", .string(message))]).text
        }

        /// An Apple error response with `Content-Type: application/json`.
        static func apiError(_ status: Int, _ code: Int, _ message: String) -> MockHTTPServer.Response {
            MockHTTPServer.Response(
                status: status, headers: [("Content-Type", "application/json")],
                body: Array(errorBody(code: code, message: message).utf8))
        }
    }
}

extension MockAppStoreServer.Backend {
    /// The endpoints, by method and path (`*` is one non-empty path segment).
    enum Route {
        case transactionInfo(String)
        case appTransactionInfo(String)
        case transactionHistory(String)
        case subscriptionStatuses(String)
        case orderLookup(String)
        case refundHistory(String)
        case notificationHistory
        case requestTestNotification
        case testNotificationStatus(String)
        /// "product/requestIdentifier".
        case massExtensionStatus(String)
        case retentionImages, retentionMessages, realtimeURL
        /// "product/locale".
        case defaultMessage(String)
        case performanceTestResult(String)

        enum Match {
            case none
            case wrongMethod(allowed: String)
            case route(Route)
        }

        private static let table: [(method: String, pattern: String, make: @Sendable (String) -> Route)] = [
            ("GET", "/inApps/v1/transactions/*", { .transactionInfo($0) }),
            ("GET", "/inApps/v1/transactions/appTransactions/*", { .appTransactionInfo($0) }),
            ("GET", "/inApps/v2/history/*", { .transactionHistory($0) }),
            ("GET", "/inApps/v1/subscriptions/*", { .subscriptionStatuses($0) }),
            ("GET", "/inApps/v1/lookup/*", { .orderLookup($0) }),
            ("GET", "/inApps/v2/refund/lookup/*", { .refundHistory($0) }),
            ("POST", "/inApps/v1/notifications/history", { _ in .notificationHistory }),
            ("POST", "/inApps/v1/notifications/test", { _ in .requestTestNotification }),
            ("GET", "/inApps/v1/notifications/test/*", { .testNotificationStatus($0) }),
            ("GET", "/inApps/v1/subscriptions/extend/mass/*/*", { .massExtensionStatus($0) }),
            ("GET", "/inApps/v1/messaging/image/list", { _ in .retentionImages }),
            ("GET", "/inApps/v1/messaging/message/list", { _ in .retentionMessages }),
            ("GET", "/inApps/v1/messaging/default/*/*", { .defaultMessage($0) }),
            ("GET", "/inApps/v1/messaging/realtime/url", { _ in .realtimeURL }),
            ("GET", "/inApps/v1/messaging/performanceTest/result/*", { .performanceTestResult($0) }),
        ]

        /// The route of `method` and `path` (paths compared case-sensitively, as Apple's are).
        static func match(method: String, path: String) -> Match {
            let segments = path.split(separator: "/", omittingEmptySubsequences: false)
            var allowed: [String] = []
            for entry in table {
                let pattern = entry.pattern.split(separator: "/", omittingEmptySubsequences: false)
                guard pattern.count == segments.count else { continue }
                // Each `*`'s segment, joined by "/" when there are two.
                var parameter = ""
                let matches = zip(pattern, segments).allSatisfy { expected, segment in
                    guard expected == "*" else { return expected == segment }
                    parameter += (parameter.isEmpty ? "" : "/") + String(segment)
                    return !segment.isEmpty
                }
                guard matches else { continue }
                if entry.method == method { return .route(entry.make(parameter)) }
                allowed.append(entry.method)
            }
            return allowed.isEmpty ? .none : .wrongMethod(allowed: allowed.joined(separator: ", "))
        }
    }
}
