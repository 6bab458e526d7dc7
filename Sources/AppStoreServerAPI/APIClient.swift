package import FoundationEssentials
package import JWSInspectCore

/// What the client signs its bearer tokens with: the In-App Purchase key, its ID, the issuer
/// ID and the app's bundle ID.
package struct Credentials: Sendable {
    package let key: PrivateKey
    package let keyID: String
    package let issuerID: String
    package let bundleID: String

    package init(key: PrivateKey, keyID: String, issuerID: String, bundleID: String) {
        self.key = key
        self.keyID = keyID
        self.issuerID = issuerID
        self.bundleID = bundleID
    }
}

/// An answer that was an error: its HTTP status, and Apple's error code and message when the
/// body carried them (`{"errorCode": 4040010, "errorMessage": "…"}`).
package struct ErrorAnswer: Sendable, Equatable {
    package let status: Int
    package let errorCode: Int64?
    package let errorMessage: String?

    package init(status: Int, errorCode: Int64?, errorMessage: String?) {
        self.status = status
        self.errorCode = errorCode
        self.errorMessage = errorMessage
    }

    /// "HTTP 500, errorCode 5000000 GeneralInternalError: An unknown error occurred.", for messages.
    package var description: String {
        "HTTP \(status)" + (errorCode.map { ", \(APIFailure.describe(code: $0))" } ?? "")
            + (errorMessage.map { ": \($0)" } ?? "")
    }
}

/// Why a call got no usable answer.
package enum APIFailure: Error, Sendable, Equatable {
    /// 401: the bearer token was refused; what was sent, for the diagnosis.
    case unauthorized(UnauthorizedDiagnosis)
    /// Another 4xx (or a retryable error after the retries): Apple's error code and message when
    /// the body carried them.
    case refused(status: Int, errorCode: Int64?, errorMessage: String?)
    /// Try again later: unreachable, timed out, or 429/5xx after every retry; `answer` is the
    /// last HTTP answer when there was one.
    case temporary(String, answer: ErrorAnswer?)
    /// An answer that cannot be used: a body that is not one JSON object (or names a member
    /// twice), over the size limit, a redirect, pages that do not add up.
    case badAnswer(String)
    /// The server's TLS certificate was refused, in `environment`: permanent, not retried.
    case untrustedCertificate(ServerEnvironment, String)
    /// The bearer token could not be signed (OpenSSL refused the key): nothing was sent.
    case signingFailed(String)

    /// Apple's error code and name, "errorCode 4040010 TransactionIdNotFoundError".
    package static func describe(code: Int64) -> String {
        APIErrorCodes.name(code).map { "errorCode \(code) \($0)" } ?? "errorCode \(code)"
    }
}

/// Something the client does that a person waiting may want to know (a terminal shows it).
package enum ClientEvent: Sendable {
    /// A wait before retry `attempt` of `retries`, and why.
    case waiting(seconds: Double, attempt: Int, retries: Int, reason: String)
}

/// Sends calls to the App Store Server API: a fresh bearer token for each request, the
/// timeout, and the retries of `RetryPolicy`.
package final class APIClient: Sendable {
    package let credentials: Credentials
    package let baseURLs: [ServerEnvironment: BaseURL]
    package let transport: any HTTPTransport
    package let retry: RetryPolicy
    /// Seconds a request may take.
    package let timeout: Double
    /// The lifetime of each bearer token, in seconds (Apple's libraries use 5 minutes).
    package let tokenLifetime: Int64 = DeveloperToken.defaultLifetime
    let clock: @Sendable () -> Date
    let sleep: @Sendable (Double) -> Void
    let jitter: @Sendable () -> Double
    let events: @Sendable (ClientEvent) -> Void

    /// - Parameters:
    ///   - clock: the time now, for `iat` and `Retry-After`.
    ///   - sleep: waits so many seconds.
    ///   - jitter: a random number from 0.5 to 1 that scales each backoff.
    package init(
        credentials: Credentials, baseURLs: [ServerEnvironment: BaseURL], transport: any HTTPTransport,
        retry: RetryPolicy, timeout: Double, clock: @escaping @Sendable () -> Date,
        sleep: @escaping @Sendable (Double) -> Void,
        jitter: @escaping @Sendable () -> Double = { .random(in: 0.5...1) },
        events: @escaping @Sendable (ClientEvent) -> Void = { _ in }
    ) {
        self.credentials = credentials
        self.baseURLs = baseURLs
        self.transport = transport
        self.retry = retry
        self.timeout = timeout
        self.clock = clock
        self.sleep = sleep
        self.jitter = jitter
        self.events = events
    }

    /// The base URL of `environment`.
    package func baseURL(_ environment: ServerEnvironment) -> BaseURL {
        baseURLs[environment] ?? environment.defaultBaseURL
    }

    /// The request for `call` in `environment`, with a bearer token signed now.
    func request(_ call: APICall, in environment: ServerEnvironment) throws(APIFailure) -> (
        HTTPRequest, DeveloperToken.Signed
    ) {
        let issuedAt = Int64(clock().timeIntervalSince1970.rounded(.down))
        let claims = DeveloperToken.claims(
            .apiToken(lifetime: tokenLifetime), issuerID: credentials.issuerID, bundleID: credentials.bundleID,
            issuedAt: issuedAt, nonce: UUID())
        let token: DeveloperToken.Signed
        do {
            token = try DeveloperToken.sign(claims: claims, keyID: credentials.keyID, key: credentials.key)
        } catch {
            throw .signingFailed("the bearer token could not be signed: \(error)")
        }
        var headers = [
            ("Authorization", "Bearer " + token.token), ("Accept", "application/json"),
            ("User-Agent", "jwsinspect"),
        ]
        if call.body != nil { headers.append(("Content-Type", "application/json")) }
        let url = baseURL(environment).text + call.pathAndQuery
        return (HTTPRequest(method: call.method, url: url, headers: headers, body: call.body), token)
    }

    /// Sends `call` to `environment`, retrying as `retry` says: a 2xx response, or why none came.
    package func send(_ call: APICall, in environment: ServerEnvironment) -> Result<HTTPResponse, APIFailure> {
        var attempt = 0
        while true {
            let request: HTTPRequest
            let token: DeveloperToken.Signed
            do {
                (request, token) = try self.request(call, in: environment)
            } catch {
                return .failure(error)
            }
            let sentAt = clock()
            let outcome = transport.send(request, timeout: timeout)
            let verdict = judge(outcome, token: token, sentAt: sentAt, environment: environment, retry: attempt + 1)
            switch verdict {
            case .done(let result):
                return result
            case .retry(let wait, let reason, let failure):
                guard attempt < retry.retries else { return .failure(failure) }
                attempt += 1
                events(.waiting(seconds: wait, attempt: attempt, retries: retry.retries, reason: reason))
                if wait > 0 { sleep(wait) }
            }
        }
    }

    private enum Verdict {
        case done(Result<HTTPResponse, APIFailure>)
        /// Try again after `wait` seconds; `failure` if no retry is left.
        case retry(wait: Double, reason: String, failure: APIFailure)
    }

    /// What a response (or its absence) means: done, or worth another try.
    private func judge(
        _ outcome: Result<HTTPResponse, TransportError>, token: DeveloperToken.Signed, sentAt: Date,
        environment: ServerEnvironment, retry attempt: Int
    ) -> Verdict {
        let response: HTTPResponse
        switch outcome {
        case .failure(let error) where error.isAnswer:
            return .done(.failure(.badAnswer(error.description)))
        case .failure(.certificate(let reason)):
            return .done(
                .failure(
                    .untrustedCertificate(
                        environment, "\(baseURL(environment).text): \(TransportError.certificate(reason).description)"))
            )
        case .failure(let error):
            let reason = "\(baseURL(environment).text): \(error.description)"
            return .retry(
                wait: retry.backoff(attempt: attempt, jitter: jitter()), reason: error.description,
                failure: .temporary(reason, answer: nil))
        case .success(let answer):
            response = answer
        }
        let (code, message) = Self.apiError(response)
        switch response.status {
        case 200..<300:
            return .done(.success(response))
        case 401:
            return .done(
                .failure(
                    .unauthorized(
                        UnauthorizedDiagnosis(
                            token: token, credentials: credentials, sentAt: sentAt,
                            serverDate: response.header("Date").flatMap(RetryPolicy.httpDate),
                            environment: environment))))
        case 429:
            let fromHeader = response.header("Retry-After").flatMap { RetryPolicy.retryAfter($0, now: clock()) }
            let wait = fromHeader ?? retry.backoff(attempt: attempt, jitter: jitter())
            return .retry(
                wait: wait, reason: "429 rate limit exceeded",
                failure: .temporary(
                    "429 rate limit exceeded" + (message.map { ": \($0)" } ?? "")
                        + " (Apple limits requests per app per hour; try again later)",
                    answer: ErrorAnswer(status: 429, errorCode: code, errorMessage: message)))
        case 500..<600:
            let answer = ErrorAnswer(status: response.status, errorCode: code, errorMessage: message)
            return .retry(
                wait: retry.backoff(attempt: attempt, jitter: jitter()), reason: "HTTP \(response.status)",
                failure: .temporary(answer.description, answer: answer))
        default:
            let failure = APIFailure.refused(status: response.status, errorCode: code, errorMessage: message)
            if let code, APIErrorCodes.retryable.contains(code) {
                return .retry(
                    wait: retry.backoff(attempt: attempt, jitter: jitter()),
                    reason: APIFailure.describe(code: code), failure: failure)
            }
            return .done(.failure(failure))
        }
    }

    /// Apple's `{"errorCode": N, "errorMessage": "…"}`, when the body is that (strict JSON: a
    /// body naming `errorCode` twice says no code).
    static func apiError(_ response: HTTPResponse) -> (code: Int64?, message: String?) {
        guard response.body.count <= 1 << 16, case .success(let object) = JSONValue.strictObject(response.body)
        else { return (nil, nil) }
        var code: Int64?
        if case .integer(let number) = object["errorCode"] { code = number }
        var message: String?
        if case .string(let text) = object["errorMessage"] { message = Excerpt.of(text) }
        return (code, message)
    }
}
