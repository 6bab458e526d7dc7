package import AppStoreServerAPI
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
/// - Only gzip is asked for (`Accept-Encoding: gzip`), and an answer whose `Content-Encoding`
///   is anything else, or more than one layer (`gzip, gzip`: libcurl would inflate every layer,
///   a few KB to tens of GiB), is refused when its headers arrive, before libcurl decodes a byte.
/// - The body is read through a delegate that counts it after decoding and refuses it past
///   `bodyLimit`, so a hostile or broken server cannot fill memory. The delegate runs on an
///   `ImmediateQueue`: on an ordinary delegate queue URLSession hands over data without
///   waiting, and a body that inflates faster than the delegate takes it piles up in the queue,
///   unbounded.
/// - A refused answer stops libcurl by holding its thread (`Halt`): FoundationNetworking gives a
///   delegate no way to stop a transfer mid-call (it ignores the response disposition and
///   always tells libcurl to go on), and `cancel()` waits for URLSession's one work queue, the
///   one libcurl's call holds until it has decoded every byte it has read. The work queue is
///   shared by every session in the process, so this transport sends nothing more after a
///   refusal (a refused answer is not retried, and `jwsinspect-fetch` exits after it).
/// - No redirect is followed (`willPerformHTTPRedirection` answers nil): every 3xx is
///   `.redirected`, and the bearer token goes to the URL asked only.
/// - `timeout` bounds the whole request: URLSession's own timeout restarts with each byte
///   received, so a body that drips would outlast it. The caller never waits for URLSession's
///   work queue: the task is cancelled from another thread.
package final class URLSessionTransport: HTTPTransport {
    /// The largest body read (after decoding): a page of 20 transactions is about 100 KB, so
    /// this is generous.
    package static let bodyLimit = 16 << 20

    /// The one content coding asked for and decoded.
    static let acceptedEncoding = "gzip"

    private let halt = Halt()

    package init() {}

    package func send(_ request: HTTPRequest, timeout: Double) -> Result<HTTPResponse, TransportError> {
        guard !halt.isHalted else {
            return .failure(
                .encodingRefused(
                    "not sent: an earlier answer was refused mid-transfer, and libcurl stays stopped (holding "
                        + "URLSession's work queue) until this program exits"))
        }
        guard let url = URL(string: request.url) else { return .failure(.unreachable("'\(request.url)' is not a URL")) }
        let deadline = DispatchTime.now() + timeout
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        // libcurl would offer every coding it was built with (deflate, gzip, br, zstd).
        urlRequest.setValue(Self.acceptedEncoding, forHTTPHeaderField: "Accept-Encoding")
        if let body = request.body { urlRequest.httpBody = Data(body) }

        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        configuration.urlCredentialStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout
        let delegate = BodyCollector(limit: Self.bodyLimit, timeout: timeout, halt: halt)
        let session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: ImmediateQueue())
        let task = session.dataTask(with: urlRequest)
        task.resume()
        let answered = delegate.done.wait(timeout: deadline) == .success
        // After a refusal libcurl's thread is held, and cancelling would wait for it forever.
        if !halt.isHalted {
            // `cancel()` and `invalidateAndCancel()` wait for URLSession's work queue: not here.
            DispatchQueue.global().async {
                task.cancel()
                session.invalidateAndCancel()
            }
        }
        guard answered else { return .failure(.timedOut(seconds: timeout)) }
        return delegate.result.withLock { $0 } ?? .failure(.unreachable("no HTTP response"))
    }

    /// Why an answer with these `Content-Encoding` values (every header line of that name, in
    /// order) is refused unread, or nil: none, `identity`, or one `gzip`, as asked.
    static func encodingRefusal(_ values: [String]) -> TransportError? {
        let codings = values.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty && $0 != "identity" }
        guard !codings.isEmpty, codings != [acceptedEncoding] else { return nil }
        let named = Excerpt.of(values.joined(separator: ", "), limit: 200)
        let what =
            codings.count > 1
            ? "\(codings.count) layers, where at most one (\(acceptedEncoding), as asked) is decoded"
            : "not the \(acceptedEncoding) asked for (Accept-Encoding: \(acceptedEncoding))"
        return .encodingRefused(
            "the answer's Content-Encoding is '\(named)', \(what); refused before any of its body was decoded")
    }
}

/// Stops libcurl where it is, for good: a refused answer's delegate call never returns, so
/// libcurl decodes nothing more. It holds that thread and URLSession's work queue, shared by
/// every session, until the program exits; the transport sends nothing after it.
private final class Halt: Sendable {
    private let halted = Mutex(false)
    private let never = DispatchSemaphore(value: 0)

    var isHalted: Bool { halted.withLock { $0 } }

    /// Marks the transport halted and blocks the calling thread (libcurl's) for good.
    func hold() -> Never {
        halted.withLock { $0 = true }
        while true { never.wait() }
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

/// Collects one task's response and body, refusing a `Content-Encoding` not asked for, a body
/// past the limit, and every redirect.
private final class BodyCollector: NSObject, URLSessionDataDelegate, Sendable {
    let limit: Int
    let timeout: Double
    let halt: Halt
    let done = DispatchSemaphore(value: 0)
    let result = Mutex<Result<HTTPResponse, TransportError>?>(nil)
    private let state = Mutex<(response: HTTPURLResponse?, body: [UInt8])>((nil, []))

    init(limit: Int, timeout: Double, halt: Halt) {
        self.limit = limit
        self.timeout = timeout
        self.halt = halt
    }

    /// Answers `failure` and stops libcurl (on whose thread every delegate call runs) for good.
    private func refuse(_ failure: TransportError) -> Never {
        state.withLock { $0.body = [] }
        result.withLock { $0 = .failure(failure) }
        done.signal()
        halt.hold()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        // Not followed: the 3xx becomes the answer, refused in didCompleteWithError.
        completionHandler(nil)
    }

    /// Called from libcurl's header callback, before any of the body is decoded: FoundationNetworking
    /// ignores the disposition, so a refusal holds the thread instead.
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        let http = response as? HTTPURLResponse
        // libcurl stacks every Content-Encoding line; Foundation joins lines of one name and keeps
        // one of those whose names differ in case: the body's bound stops what that hides.
        let encodings = (http?.allHeaderFields ?? [:]).compactMap { name, value -> String? in
            guard (name as? String)?.lowercased() == "content-encoding" else { return nil }
            return value as? String
        }
        if let refusal = URLSessionTransport.encodingRefusal(encodings.sorted()) { refuse(refusal) }
        if (http?.expectedContentLength ?? -1) > Int64(limit) { refuse(.tooLarge(limit: limit)) }
        state.withLock { $0.response = http }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let over = state.withLock { state -> Bool in
            guard state.body.count + data.count <= limit else { return true }
            state.body.append(contentsOf: data)
            return false
        }
        if over { refuse(.tooLarge(limit: limit)) }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (received, body) = state.withLock { ($0.response, $0.body) }
        // URLSession tells no delegate of a 301–308 it does not follow; the task has it.
        let response = received ?? (task.response as? HTTPURLResponse)
        let outcome: Result<HTTPResponse, TransportError>
        if let error {
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
