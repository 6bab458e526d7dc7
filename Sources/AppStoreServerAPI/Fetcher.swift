internal import FoundationEssentials
package import JWSInspectCore

/// One answer of the API: which call in which environment answered, and its JSON.
package struct FetchedPage: Sendable {
    /// The request's name, as sources are named: `fetch history 2000000000000010 (Production) page 2`.
    package let origin: String
    package let environment: ServerEnvironment
    /// `GET /inApps/v2/history/…?revision=…`.
    package let request: String
    /// 1 for the first page; nil for an endpoint without pages.
    package let page: Int?
    package let response: HTTPResponse
    /// The unsigned fields that matter, for display.
    package let summary: ResponseSummary
    /// A short name for the saved body: `history-2000000000000010-Production-page-2`.
    package let fileStem: String
}

/// How a fetch ended.
package enum FetchEnd: Sendable, Equatable {
    /// Every page was delivered.
    case done
    /// The caller stopped taking pages (`--limit` reached, or output failed).
    case stopped
    /// Nothing exists for the request in any environment asked; why, in words, and the error
    /// answer that said so (the last environment's), when one did.
    case notFound(String, answer: ErrorAnswer?)
    /// The API gave no usable answer; `request` names the call.
    case failed(APIFailure, request: FailedCall)
}

/// The call that got no usable answer: which fetch, in which environment, on which page, and
/// the HTTP request.
package struct FailedCall: Sendable, Equatable {
    /// "fetch history 2000000000000010 (Production)".
    package let name: String
    package let environment: ServerEnvironment
    /// The page asked for, for a paged request.
    package let page: Int?
    /// "GET /inApps/v2/history/2000000000000010?sort=ASCENDING".
    package let request: String

    package init(name: String, environment: ServerEnvironment, page: Int?, request: String) {
        self.name = name
        self.environment = environment
        self.page = page
        self.request = request
    }

    /// Named as an answered page is: "fetch history 2000000000000010 (Production) page 2".
    package var origin: String { name + (page.map { " page \($0)" } ?? "") }

    /// "fetch history 2000000000000010 (Production): GET /inApps/v2/history/…", for messages.
    package var description: String { "\(name): \(request)" }
}

/// Something that happened on the way, for standard error.
package enum FetchNote: Sendable, Equatable {
    /// Production did not know the ID; Sandbox is asked next.
    case fallingBack(String)
    /// Which environment answered, when it was not given.
    case answeredBy(ServerEnvironment)
    /// A test notification's status is not available yet; asking again.
    case polling(String)
}

/// Runs one `FetchRequest`: the environment (Production, then Sandbox on "not found", as
/// Apple advises, unless one is given), every page, and the test notification's polling.
package struct Fetcher: Sendable {
    package let client: APIClient
    /// The most pages one fetch asks for by default (20 items each: 200,000 transactions).
    package static let defaultPageLimit = 10_000
    /// The most pages one fetch asks for; a server that says `hasMore` beyond it is not followed.
    package var pageLimit = Fetcher.defaultPageLimit
    /// Seconds between test notification status checks (Apple allows one request a second).
    package var pollInterval: Double = 1
    /// Words what a message suggests trying (a result limit, a longer wait); plain terms unless
    /// the caller brings its own (the command line names its options).
    package let hints: any HintWording

    package init(client: APIClient, hints: any HintWording = PlainHints()) {
        self.client = client
        self.hints = hints
    }

    /// Fetches `request`, handing each page to `deliver` (which returns false to stop) and
    /// each note to `note`.
    package func run(
        _ request: FetchRequest, environment: ServerEnvironment?, note: (FetchNote) -> Void,
        deliver: (FetchedPage) -> Bool
    ) -> FetchEnd {
        let environments: [ServerEnvironment] =
            environment.map { [$0] } ?? (request.isProductionOnly ? [.production] : [.production, .sandbox])
        var notFound: [String] = []
        var lastAnswer: ErrorAnswer?
        for (index, environment) in environments.enumerated() {
            var unknownHere = true
            let end: FetchEnd
            if case .testNotification(let wait) = request {
                end = testNotification(wait: wait, in: environment, note: note, deliver)
            } else {
                end = run(request, in: environment, unknownHere: &unknownHere, deliver: deliver)
            }
            guard case .notFound(let reason, let answer) = end, unknownHere else {
                if environments.count > 1, end == .done || end == .stopped { note(.answeredBy(environment)) }
                return end
            }
            notFound.append(reason)
            lastAnswer = answer ?? lastAnswer
            if index + 1 < environments.count {
                note(.fallingBack("\(reason); asking \(environments[index + 1].rawValue)"))
            }
        }
        return .notFound(notFound.joined(separator: "; "), answer: lastAnswer)
    }

    /// The request in one environment: `.notFound` when the environment does not know it, or
    /// (`unknownHere` false: no other environment is asked) when it knows it and has nothing.
    private func run(
        _ request: FetchRequest, in environment: ServerEnvironment, unknownHere: inout Bool,
        deliver: (FetchedPage) -> Bool
    ) -> FetchEnd {
        let name = "fetch \(request.name)" + (request.id.map { " \($0)" } ?? "") + " (\(environment.rawValue))"
        let stem = [request.name, request.id, environment.rawValue].compactMap { $0 }.joined(separator: "-")
        let paged = request.isPaged
        func failedCall(page: Int?, _ described: String) -> FailedCall {
            FailedCall(name: name, environment: environment, page: page, request: described)
        }
        var call: APICall? = request.call(now: client.clock())
        var page = 1
        var signedItems = 0
        // The page tokens answered, by SHA-256: a token is sent back whole, but only its digest kept.
        var seen: Set<[UInt8]> = []
        while let current = call {
            let described = "\(current.method) \(current.pathAndQuery)"
            let answer: [String: JSONValue]
            let response: HTTPResponse
            switch fetch(current, in: environment) {
            case .failure(let failure):
                // A 404 whose errorCode says this environment has nothing for the request.
                if case .refused(404, let code?, let message) = failure,
                    let reason = request.notFoundReason(code, in: environment)
                {
                    return .notFound(
                        "\(reason) (\(APIFailure.describe(code: code)))",
                        answer: ErrorAnswer(status: 404, errorCode: code, errorMessage: message))
                }
                return .failed(failure, request: failedCall(page: paged ? page : nil, described))
            case .success(let (body, members)):
                response = body
                answer = members
            }
            let summary = ResponseSummary(request: request, members: answer)
            if case .order = request, summary.orderStatus == 1 {
                return .notFound(
                    "order \(request.id ?? "") is not known to Production (order status 1: invalid)", answer: nil)
            }
            signedItems += summary.signedCount
            let pageName = paged ? " page \(page)" : ""
            let fetched = FetchedPage(
                origin: name + pageName, environment: environment, request: described, page: paged ? page : nil,
                response: response, summary: summary,
                fileStem: stem + (paged ? "-page-\(page)" : ""))
            guard deliver(fetched) else { return .stopped }
            call = nil
            switch request.nextPage(after: current, answer: answer) {
            case .none:
                break
            case .malformed(let reason):
                return .failed(.badAnswer("page \(page): \(reason)"), request: failedCall(page: page, described))
            case .call(let next, let token):
                // A server that does not advance would be asked forever: a page token seen before,
                // or more pages than any App Store history has, ends the fetch.
                guard seen.insert(Digest.sha256(Array(token.utf8))).inserted else {
                    return .failed(
                        .badAnswer("page \(page) says hasMore with a page token already answered"),
                        request: failedCall(page: page, described))
                }
                guard page < pageLimit else {
                    return .failed(
                        .badAnswer(
                            "more than \(pageLimit) pages; narrow the request (dates, \(hints.word(.resultLimit)))"
                        ),
                        request: failedCall(page: page, described))
                }
                call = next
            }
            page += 1
        }
        if signedItems == 0, request.answersSignedData {
            unknownHere = false
            return .notFound(emptyAnswer(request, environment), answer: nil)
        }
        return .done
    }

    /// Why an answer without signed items means nothing was found.
    private func emptyAnswer(_ request: FetchRequest, _ environment: ServerEnvironment) -> String {
        let id = request.id ?? ""
        switch request {
        case .history: return "the \(environment.rawValue) transaction history of \(id) is empty (with these filters)"
        case .refunds: return "no refunded transaction for \(id) in \(environment.rawValue)"
        case .subscriptions: return "no subscription for \(id) in \(environment.rawValue)"
        case .notifications: return "no notification in \(environment.rawValue) in that time (with these filters)"
        default: return "the \(environment.rawValue) answer holds no signed data"
        }
    }

    /// Sends a call and reads its body: a JSON object, or why not.
    private func fetch(_ call: APICall, in environment: ServerEnvironment) -> Result<
        (HTTPResponse, [String: JSONValue]), APIFailure
    > {
        switch client.send(call, in: environment) {
        case .failure(let failure):
            return .failure(failure)
        case .success(let response):
            switch JSONValue.strictObject(response.body) {
            case .success(let members):
                return .success((response, members))
            case .failure(.notAnObject):
                return .failure(.badAnswer("HTTP \(response.status) with JSON that is not an object"))
            case .failure(.duplicateMember(let duplicate)):
                return .failure(.badAnswer("HTTP \(response.status) with a body that names \(duplicate)"))
            case .failure(.notJSON(let problem)):
                return .failure(
                    .badAnswer(
                        "HTTP \(response.status) with a body that is not JSON: \(Self.excerpt(response.body)) (\(problem))"
                    ))
            }
        }
    }

    /// The start of a body, for a message.
    static func excerpt(_ body: [UInt8]) -> String {
        body.isEmpty ? "(empty)" : "'" + Excerpt.of(String(decoding: body.prefix(200), as: UTF8.self)) + "'"
    }

    /// Requests a test notification, then checks its status until a send attempt is reported
    /// or `wait` seconds have passed.
    private func testNotification(
        wait: Double, in environment: ServerEnvironment, note: (FetchNote) -> Void, _ deliver: (FetchedPage) -> Bool
    ) -> FetchEnd {
        let name = "fetch test-notification (\(environment.rawValue))"
        func call(_ described: String) -> FailedCall {
            FailedCall(name: name, environment: environment, page: nil, request: described)
        }
        let request = FetchRequest.testNotification(wait: wait)
        let post = request.call(now: client.clock())
        let token: String
        switch fetch(post, in: environment) {
        case .failure(let failure):
            return .failed(failure, request: call("POST \(post.path)"))
        case .success(let (_, members)):
            guard case .string(let value) = members["testNotificationToken"], !value.isEmpty else {
                return .failed(
                    .badAnswer("the answer has no testNotificationToken"), request: call("POST \(post.path)"))
            }
            token = value
        }
        let deadline = client.clock().addingTimeInterval(wait)
        let status = APICall(method: "GET", path: "/inApps/v1/notifications/test/" + APICall.segment(token))
        var last: (HTTPResponse, [String: JSONValue])?
        var told = false
        while true {
            switch fetch(status, in: environment) {
            case .failure(.refused(404, let code?, _)) where code == 4_040_008:
                if !told {
                    note(
                        .polling(
                            "test notification \(token) requested; waiting for Apple's send attempt (at most \(TransportError.seconds(wait)))"
                        ))
                    told = true
                }
            case .failure(let failure):
                return .failed(failure, request: call("GET \(status.path)"))
            case .success(let answer):
                last = answer
                if case .array(let attempts) = answer.1["sendAttempts"], !attempts.isEmpty { break }
            }
            if let last, case .array(let attempts) = last.1["sendAttempts"], !attempts.isEmpty { break }
            guard client.clock() < deadline else { break }
            client.sleep(pollInterval)
        }
        guard let (response, members) = last else {
            return .failed(
                .temporary(
                    "no status for test notification \(token) within \(TransportError.seconds(wait)) (Apple reports "
                        + "it once a send is attempted; try a longer \(hints.word(.statusWait)))",
                    answer: nil),
                request: call("GET \(status.path)"))
        }
        let page = FetchedPage(
            origin: name, environment: environment, request: "GET \(status.path)", page: nil, response: response,
            summary: ResponseSummary(request: request, members: members, testToken: token),
            fileStem: "test-notification-\(environment.rawValue)")
        return deliver(page) ? .done : .stopped
    }
}
