internal import FoundationEssentials
internal import JWSInspectCore

/// One HTTP request, as the client builds it.
package struct HTTPRequest: Sendable {
    package var method: String
    /// The whole URL: base, path and query.
    package var url: String
    package var headers: [(String, String)]
    package var body: [UInt8]?

    package init(method: String, url: String, headers: [(String, String)], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response: status, headers (names lowercased) and body.
package struct HTTPResponse: Sendable {
    package let status: Int
    package let headers: [String: String]
    package let body: [UInt8]

    package init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }

    /// A header's value, by name in any case.
    package func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why no usable HTTP response arrived.
package enum TransportError: Error, Sendable, Equatable {
    /// The whole request (connecting, TLS, sending, the whole answer) took longer than the timeout.
    case timedOut(seconds: Double)
    /// The host could not be reached: refused, unresolvable, reset, a TLS handshake failure (the reason).
    case unreachable(String)
    /// The body, after its `Content-Encoding` is decoded, was larger than the client reads.
    case tooLarge(limit: Int)
    /// The answer's `Content-Encoding` is one the client does not decode (more than one layer,
    /// or not the gzip it asked for), or an earlier such answer holds the client: the reason.
    /// Refused before any byte of the body was decoded.
    case encodingRefused(String)
    /// A 3xx answer: the API never redirects, and the request (with its bearer token) is not
    /// sent on; `location` is the `Location` header as sent, if any.
    case redirected(status: Int, location: String?)
    /// The server's TLS certificate was not accepted (untrusted issuer, expired, another host's
    /// name): libcurl's reason. Trying again gives the same answer.
    case certificate(String)

    package var description: String {
        switch self {
        case .timedOut(let seconds): "no complete answer within \(Self.seconds(seconds))"
        case .unreachable(let reason): reason
        case .tooLarge(let limit):
            "the answer is over \(limit >> 20) MiB (after decoding its Content-Encoding), more than any App Store "
                + "Server API answer; the transfer was stopped there"
        case .redirected(let status, let location):
            "HTTP \(status) redirecting "
                + (location.map { "to '\(Excerpt.of($0, limit: 200))'" } ?? "without a Location")
                + ": the App Store Server API never redirects, so the request and its bearer token were not sent on"
        case .certificate(let reason): "the server's TLS certificate is not trusted (\(reason))"
        case .encodingRefused(let reason): reason
        }
    }

    /// Whether an answer came and cannot be used (too large, a redirect, an encoding refused):
    /// not retried, for the server would answer the same.
    var isAnswer: Bool {
        switch self {
        case .tooLarge, .redirected, .encodingRefused: true
        case .timedOut, .unreachable, .certificate: false
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

/// What sends requests: `URLSessionTransport` (in `AppStoreServerHTTP`, the one target that
/// links a network library) in `jwsinspect-fetch`; tests may pass their own.
package protocol HTTPTransport: Sendable {
    /// Sends `request` and waits for its whole response, at most `timeout` seconds in all.
    func send(_ request: HTTPRequest, timeout: Double) -> Result<HTTPResponse, TransportError>
}
