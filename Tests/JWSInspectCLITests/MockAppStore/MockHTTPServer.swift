import Foundation
import JWSInspectCore
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A minimal HTTP/1.1 server on 127.0.0.1, for tests: one request per connection, answered by a
/// handler closure, then the connection is closed.
///
/// - Binds 127.0.0.1 on a free port (`port`), `SO_REUSEADDR`, every descriptor close-on-exec (so
///   executables the tests launch do not inherit it; accepted sockets just after `accept`).
/// - An accept loop runs on its own thread; each connection is handled on its own thread.
/// - Requests are read by `HTTPRequestParser` (at most `HTTPRequestParser.maximumRequestBytes`
///   in all, body by `Content-Length` only; `Transfer-Encoding` is refused with 501,
///   `Expect: 100-continue` answered with `HTTP/1.1 100 Continue` before the body is read). A
///   request it refuses is answered 400 (or 413, 417, 431, 501) in plain text and never reaches
///   the handler; `rejections` lists why. A request must be complete within 30 s of the connection.
/// - Every answer carries `Connection: close`, `Content-Length` and a `Date` (IMF-fixdate, from
///   `clock`), and the connection is closed after it. A `.drip` answer sends its body a byte at
///   a time.
/// - `stop()` (also run by `deinit`) closes the listening socket, wakes every connection thread
///   (hanging ones included) and waits for them to finish.
final class MockHTTPServer: Sendable {
    /// One parsed request.
    struct Request: Sendable {
        /// The method, as sent (`GET`, `POST`, …).
        var method: String
        /// The request target as sent (origin-form: path and query).
        var target: String
        /// The path part of `target`, as sent (not percent-decoded).
        var path: String
        /// The query's items in order, percent-decoded (`+` is kept as is, not read as a space);
        /// a name without `=` has the value "".
        var query: [QueryItem]
        /// The header fields in order, names as sent.
        var headers: [(name: String, value: String)]
        /// The body (empty without `Content-Length`).
        var body: [UInt8]

        /// The first value of the header field `name` (compared case-insensitively), or nil.
        func header(_ name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }

        /// Every value of the header field `name` (compared case-insensitively), in order.
        func headerValues(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        /// The values of the query item `name`, in order (a repeated parameter gives several).
        func queryValues(_ name: String) -> [String] {
            query.filter { $0.name == name }.map(\.value)
        }
    }

    /// One `name=value` of a query string, percent-decoded.
    struct QueryItem: Sendable, Equatable, CustomStringConvertible {
        var name: String
        var value: String

        init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }

        var description: String { "\(name)=\(value)" }
    }

    /// A response to send. `Content-Length`, `Connection: close` and (unless given here) `Date`
    /// are added by the server; `Content-Length` and `Connection` given here are ignored.
    struct Response: Sendable {
        var status: Int
        /// The reason phrase; nil for the usual one of `status` (`HTTPRequestParser.reason(for:)`).
        var reason: String?
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        init(status: Int, reason: String? = nil, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
            self.status = status
            self.reason = reason
            self.headers = headers
            self.body = body
        }
    }

    /// What the handler wants done with a request.
    enum Reply: Sendable {
        /// Send this response, then close.
        case respond(Response)
        /// Never answer: hold the connection open until the client closes it or the server stops
        /// (for client timeout tests).
        case hang
        /// Close the connection without answering (the client reads end-of-file: an empty reply).
        case drop
        /// Abort the connection without answering (`SO_LINGER` 0: the client gets a TCP reset).
        case reset
        /// Send the response's head (with its `Content-Length`) at once, then its body one byte
        /// every `every`, until it is sent, the client goes or the server stops (for timeout
        /// tests: a server that drips).
        case drip(Response, every: Duration)
    }

    /// Answers one request; called on the connection's thread, possibly on several at once.
    typealias Handler = @Sendable (Request) -> Reply

    /// The loopback port the server listens on.
    let port: UInt16
    private let state: State

    /// Starts listening on 127.0.0.1 (port chosen by the system) and accepting connections.
    ///
    /// - Parameters:
    ///   - clock: the time the `Date` header gives (called once per answer).
    ///   - handler: answers each well-formed request.
    /// - Throws: `SocketError` when the socket cannot be created, bound or listened on.
    init(clock: @escaping @Sendable () -> Date, handler: @escaping Handler) throws(SocketError) {
        TestTimeLimit.require(starting: "a mock HTTP server")
        let listener = try Self.listeningSocket()
        // A socket pair rather than a pipe: it can be made close-on-exec atomically.
        var pipeEnds: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pipeEnds) == 0 else {
            close(listener.fd)
            throw SocketError(call: "socketpair", code: errno)
        }
        port = listener.port
        state = State(
            listener: listener.fd, wakeRead: pipeEnds[0], wakeWrite: pipeEnds[1], clock: clock, handler: handler)
        state.startAcceptLoop()
    }

    deinit {
        state.stop()
    }

    /// Stops the server: closes the listening socket, ends hanging connections and waits (up to
    /// 10 s) for every connection thread to finish. Idempotent.
    func stop() {
        state.stop()
    }

    /// Why each refused request (malformed, too large, chunked…) was refused, in order.
    var rejections: [String] {
        state.rejections.withLock { $0 }
    }

    /// A loopback port on which nothing listens (bound to port 0, read, closed): connecting to it
    /// is refused (unless another process happens to take it in between, which is unlikely).
    static func unusedPort() throws(SocketError) -> UInt16 {
        let listener = try listeningSocket(listen: false)
        close(listener.fd)
        return listener.port
    }

    /// A failed socket call: its name and `errno`.
    struct SocketError: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
    }

    /// A non-blocking TCP socket bound to 127.0.0.1 on a free port, listening unless `listen` is false.
    private static func listeningSocket(listen shouldListen: Bool = true) throws(SocketError) -> (
        fd: Int32, port: UInt16
    ) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw SocketError(call: "socket", code: errno) }
        var yes: Int32 = 1
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let failure: String? = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                if setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size)) != 0 {
                    return "setsockopt(SO_REUSEADDR)"
                }
                if bind(fd, socketAddress, length) != 0 { return "bind(127.0.0.1:0)" }
                if shouldListen, listen(fd, 128) != 0 { return "listen" }
                if getsockname(fd, socketAddress, &length) != 0 { return "getsockname" }
                return nil
            }
        }
        if let failure {
            let code = errno
            close(fd)
            throw SocketError(call: failure, code: code)
        }
        return (fd, UInt16(bigEndian: address.sin_port))
    }
}
