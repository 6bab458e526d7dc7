internal import Dispatch
internal import Foundation
internal import Synchronization

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// One HTTP request, as the client builds it.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The whole URL: base, path and query.
    public var url: String
    public var headers: [(String, String)]
    public var body: [UInt8]?

    public init(method: String, url: String, headers: [(String, String)], body: [UInt8]? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response: status, headers (names lowercased) and body.
public struct HTTPResponse: Sendable {
    public let status: Int
    public let headers: [String: String]
    public let body: [UInt8]

    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { a, _ in a })
        self.body = body
    }

    /// A header's value, by name in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why no HTTP response arrived.
public enum TransportError: Error, Sendable, Equatable {
    /// No answer within the timeout.
    case timedOut(seconds: Double)
    /// The host could not be reached: refused, unresolvable, reset, TLS failure (the reason).
    case unreachable(String)
    /// The body was larger than the client reads.
    case tooLarge(limit: Int)

    public var description: String {
        switch self {
        case .timedOut(let seconds): "no answer within \(Self.seconds(seconds))"
        case .unreachable(let reason): reason
        case .tooLarge(let limit): "the answer is over \(limit >> 20) MiB, more than any App Store Server API answer"
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

/// What sends requests: `URLSessionTransport` in the tool; tests may pass their own.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and waits for its response, at most `timeout` seconds.
    func send(_ request: HTTPRequest, timeout: Double) -> Result<HTTPResponse, TransportError>
}

/// Foundation's `URLSession` (libcurl underneath on Linux), used synchronously: the command
/// sends one request at a time and waits for it. The body is read through a delegate that
/// stops at `bodyLimit`, so a hostile or broken server cannot fill memory.
public final class URLSessionTransport: HTTPTransport {
    /// The largest body read: a page of 20 transactions is about 100 KB, so this is generous.
    public static let bodyLimit = 16 << 20

    public init() {}

    public func send(_ request: HTTPRequest, timeout: Double) -> Result<HTTPResponse, TransportError> {
        guard let url = URL(string: request.url) else { return .failure(.unreachable("'\(request.url)' is not a URL")) }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let delegate = BodyCollector(limit: Self.bodyLimit, timeout: timeout)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        defer { session.invalidateAndCancel() }
        session.dataTask(with: urlRequest).resume()
        // URLSession enforces the timeout; this bound only guards against it never calling back.
        if delegate.done.wait(timeout: .now() + timeout + 5) == .timedOut {
            return .failure(.timedOut(seconds: timeout))
        }
        return delegate.result.withLock { $0 } ?? .failure(.unreachable("no HTTP response"))
    }
}

/// Collects one task's response and body, cancelling it when the body passes the limit.
private final class BodyCollector: NSObject, URLSessionDataDelegate, Sendable {
    let limit: Int
    let timeout: Double
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<HTTPResponse, TransportError>?>(nil)
    private let state = Mutex<(response: HTTPURLResponse?, body: [UInt8], overLimit: Bool)>((nil, [], false))

    init(limit: Int, timeout: Double) {
        self.limit = limit
        self.timeout = timeout
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        let tooLarge = (http?.expectedContentLength ?? -1) > Int64(limit)
        state.withLock {
            $0.response = http
            $0.overLimit = tooLarge
        }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state -> Bool in
            guard !state.overLimit else { return true }
            guard state.body.count + data.count <= limit else {
                state.overLimit = true
                state.body = []
                return true
            }
            state.body.append(contentsOf: data)
            return false
        }
        if over { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (response, body, overLimit) = state.withLock { ($0.response, $0.body, $0.overLimit) }
        let outcome: Result<HTTPResponse, TransportError>
        if overLimit {
            outcome = .failure(.tooLarge(limit: limit))
        } else if let error {
            outcome = .failure(Self.classify(error, timeout: timeout))
        } else if let response {
            var headers: [String: String] = [:]
            for (name, value) in response.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name] = value }
            }
            outcome = .success(HTTPResponse(status: response.statusCode, headers: headers, body: body))
        } else {
            outcome = .failure(.unreachable("no HTTP response"))
        }
        result.withLock { $0 = outcome }
        done.signal()
    }

    /// A URLSession error in words: a timeout, or why the host could not be reached.
    private static func classify(_ error: any Error, timeout: Double) -> TransportError {
        let error = error as NSError
        if error.domain == NSURLErrorDomain, error.code == NSURLErrorTimedOut { return .timedOut(seconds: timeout) }
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.userInfo[NSLocalizedDescriptionKey]
        let text = (underlying as? String) ?? (error.userInfo[NSLocalizedDescriptionKey] as? String)
        let reason: String
        switch error.code {
        case NSURLErrorCannotConnectToHost: reason = "connection refused"
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: reason = "host not found"
        case NSURLErrorNetworkConnectionLost: reason = "the connection closed before an answer"
        case NSURLErrorNotConnectedToInternet: reason = "not connected to a network"
        case NSURLErrorSecureConnectionFailed, NSURLErrorServerCertificateUntrusted,
            NSURLErrorServerCertificateHasBadDate, NSURLErrorServerCertificateNotYetValid:
            reason = "TLS failed"
        default: reason = "network error \(error.code)"
        }
        guard let text, !text.isEmpty, text != "(null)" else { return .unreachable(reason) }
        return .unreachable("\(reason) (\(text))")
    }
}
