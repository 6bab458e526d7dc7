public import AppStoreServerAPI
internal import Dispatch
internal import Foundation
internal import JWSInspectCore
internal import Synchronization

#if canImport(FoundationNetworking)
    internal import FoundationNetworking
#endif

/// Foundation's `URLSession` (libcurl underneath on Linux), used synchronously: the command
/// sends one request at a time and waits for it.
///
/// - The body is read through a delegate that counts it after decoding (libcurl inflates
///   gzip, deflate, br and zstd) and stops the transfer past `bodyLimit`, so a hostile or
///   broken server cannot fill memory. The delegate runs on an `ImmediateQueue`: on an
///   ordinary delegate queue URLSession hands over data without waiting, and a body that
///   inflates faster than the delegate takes it piles up in the queue, unbounded.
/// - No redirect is followed (`willPerformHTTPRedirection` answers nil): every 3xx is
///   `.redirected`, and the bearer token goes to the URL asked only.
/// - `timeout` bounds the whole request: URLSession's own timeout restarts with each byte
///   received, so a body that drips would outlast it.
public final class URLSessionTransport: HTTPTransport {
    /// The largest body read (after decoding): a page of 20 transactions is about 100 KB, so
    /// this is generous.
    public static let bodyLimit = 16 << 20

    public init() {}

    public func send(_ request: HTTPRequest, timeout: Double) -> Result<HTTPResponse, TransportError> {
        guard let url = URL(string: request.url) else { return .failure(.unreachable("'\(request.url)' is not a URL")) }
        let deadline = DispatchTime.now() + timeout
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        if let body = request.body { urlRequest.httpBody = Data(body) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let delegate = BodyCollector(limit: Self.bodyLimit, timeout: timeout)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: ImmediateQueue())
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: urlRequest)
        task.resume()
        guard delegate.done.wait(timeout: deadline) == .success else {
            task.cancel()
            return .failure(.timedOut(seconds: timeout))
        }
        return delegate.result.withLock { $0 } ?? .failure(.unreachable("no HTTP response"))
    }
}

/// An operation queue that runs each operation at once, on the thread that adds it: URLSession's
/// own work queue, for `BodyCollector`, which therefore never blocks and never calls URLSession
/// there (`cancel()` waits for that queue: it is called from another thread).
private final class ImmediateQueue: OperationQueue, @unchecked Sendable {
    override func addOperation(_ block: @escaping @Sendable () -> Void) {
        block()
    }

    override func addOperation(_ operation: Operation) {
        operation.start()
    }
}

/// Collects one task's response and body, cancelling it when the body passes the limit and
/// refusing every redirect.
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
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Not followed: the 3xx becomes the answer, refused in didCompleteWithError.
        completionHandler(nil)
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
        if tooLarge { Self.cancel(dataTask) }
    }

    /// Cancels `task` from another thread: this delegate runs on URLSession's work queue, which
    /// `cancel()` waits for. Until it lands, further data is dropped.
    private static func cancel(_ task: URLSessionTask) {
        DispatchQueue.global().async { task.cancel() }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let stop = state.withLock { state -> Bool in
            guard !state.overLimit else { return false }
            guard state.body.count + data.count <= limit else {
                state.overLimit = true
                state.body = []
                return true
            }
            state.body.append(contentsOf: data)
            return false
        }
        if stop { Self.cancel(dataTask) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (received, body, overLimit) = state.withLock { ($0.response, $0.body, $0.overLimit) }
        // URLSession tells no delegate of a 301–308 it does not follow; the task has it.
        let response = received ?? (task.response as? HTTPURLResponse)
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
            let answer = HTTPResponse(status: response.statusCode, headers: headers, body: body)
            if (300..<400).contains(answer.status) {
                outcome = .failure(.redirected(status: answer.status, location: answer.header("Location")))
            } else {
                outcome = .success(answer)
            }
        } else {
            outcome = .failure(.unreachable("no HTTP response"))
        }
        result.withLock { $0 = outcome }
        done.signal()
    }

    /// A URLSession error in words: a timeout, a certificate refused, or why the host could not
    /// be reached.
    private static func classify(_ error: any Error, timeout: Double) -> TransportError {
        let error = error as NSError
        if error.domain == NSURLErrorDomain, error.code == NSURLErrorTimedOut { return .timedOut(seconds: timeout) }
        let underlying = (error.userInfo[NSUnderlyingErrorKey] as? NSError)?.userInfo[NSLocalizedDescriptionKey]
        let given = (underlying as? String) ?? (error.userInfo[NSLocalizedDescriptionKey] as? String)
        let text = given.flatMap { $0.isEmpty || $0 == "(null)" ? nil : Excerpt.of($0, limit: 200) }
        // libcurl's certificate failures reach Foundation on Linux as NSURLErrorUnknown with
        // libcurl's words: "SSL certificate problem: self-signed certificate", "SSL: no
        // alternative certificate subject name matches target host name …".
        let certificateCodes = [
            NSURLErrorServerCertificateUntrusted, NSURLErrorServerCertificateHasBadDate,
            NSURLErrorServerCertificateNotYetValid, NSURLErrorServerCertificateHasUnknownRoot,
        ]
        if certificateCodes.contains(error.code) || text?.lowercased().contains("certificate") == true {
            return .certificate(text ?? "code \(error.code)")
        }
        let reason: String
        switch error.code {
        case NSURLErrorCannotConnectToHost: reason = "connection refused"
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: reason = "host not found"
        case NSURLErrorNetworkConnectionLost: reason = "the connection closed before an answer"
        case NSURLErrorNotConnectedToInternet: reason = "not connected to a network"
        case NSURLErrorSecureConnectionFailed: reason = "TLS failed"
        default:
            let tls = text.map { $0.contains("SSL") || $0.contains("TLS") } ?? false
            reason = tls ? "TLS handshake failed" : "network error \(error.code)"
        }
        guard let text else { return .unreachable(reason) }
        return .unreachable("\(reason) (\(text))")
    }
}
