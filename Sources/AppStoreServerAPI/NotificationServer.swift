// The seam between `jwsinspect listen` and the HTTP server that receives App Store Server
// Notifications: the command decides what each request gets (verified, stored, answered) and
// knows no HTTP library; the server (`MicroHTTPDServer`, in jwsinspect-fetch alone) parses
// HTTP, enforces the limits below and hands over whole requests.

/// Where the listener binds: an IPv4 or IPv6 address (numeric) and a port (0: one the system
/// chooses, which `NotificationServer.start` returns).
package struct ListenAddress: Sendable, Equatable {
    package var host: String
    package var port: UInt16

    package init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// `host:port`, an IPv6 host in brackets.
    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// What the server refuses or ends before a request reaches the handler, every bound
/// enforced by the server itself.
package struct ListenLimits: Sendable, Equatable {
    /// The most bytes of body read; a longer body (by its Content-Length, or as it arrives
    /// chunked) is not read further and the request is handed over as `.tooLarge`.
    package var maximumBodyBytes = 1 << 20
    /// The most bytes a connection's request line and headers may take (the server's memory
    /// per connection); more is refused with 431 or the connection closed.
    package var maximumHeaderBytes = 16 << 10
    /// Seconds a connection may stay silent before it is closed.
    package var idleTimeoutSeconds = 10
    /// Seconds one request may take from its first body byte to its last; a slower body is
    /// handed over as `.tooSlow`.
    package var requestTimeoutSeconds = 30
    /// Connections open at once; more are refused at accept.
    package var maximumConnections = 512
    /// Connections open at once from one address (0: no such limit; behind a tunnel every
    /// client shares one address).
    package var maximumConnectionsPerAddress = 0

    package init() {}
}

/// A certificate and key in PEM for HTTPS (`--tls-cert`, `--tls-key`).
package struct ListenTLS: Sendable {
    package var certificatePEM: [UInt8]
    package var keyPEM: [UInt8]

    package init(certificatePEM: [UInt8], keyPEM: [UInt8]) {
        self.certificatePEM = certificatePEM
        self.keyPEM = keyPEM
    }
}

/// One request as the server hands it over.
package struct ReceivedRequest: Sendable {
    /// Why the server did not read the whole request.
    package enum Problem: Sendable, Equatable {
        /// The body is over `maximumBodyBytes` (its length, when the client declared one).
        case tooLarge(declared: Int?)
        /// The body took longer than `requestTimeoutSeconds`.
        case tooSlow
        /// The connection stayed silent for `idleTimeoutSeconds` and was closed; no answer is sent.
        case timedOut
    }

    package var method: String
    /// The request target's path, without its query.
    package var path: String
    /// The client's address (numeric), as the connection came: behind a tunnel, the tunnel's.
    package var remoteAddress: String
    package var contentType: String?
    /// The body (empty when a problem stopped reading it).
    package var body: [UInt8]
    package var problem: Problem?

    package init(
        method: String, path: String, remoteAddress: String, contentType: String?, body: [UInt8],
        problem: Problem? = nil
    ) {
        self.method = method
        self.path = path
        self.remoteAddress = remoteAddress
        self.contentType = contentType
        self.body = body
        self.problem = problem
    }
}

/// The handler's answer: a status and a short body (one line of text, or JSON).
package struct ServerAnswer: Sendable, Equatable {
    package var status: Int
    package var contentType: String
    package var body: String

    package init(status: Int, contentType: String = "text/plain; charset=utf-8", body: String) {
        self.status = status
        self.contentType = contentType
        self.body = body
    }
}

/// Why the server did not start.
package struct ServerStartError: Error, Sendable {
    package let message: String

    package init(_ message: String) { self.message = message }
}

/// An HTTP/1.1 server that hands whole requests to one handler, called on the server's threads
/// (several at once: the handler is thread-safe). The handler's answer is sent as it returns:
/// a handler that stores before it returns acknowledges only what it stored.
package protocol NotificationServer: AnyObject, Sendable {
    /// Starts serving on `address` (HTTPS with `tls`), and returns the port bound.
    func start(
        address: ListenAddress, tls: ListenTLS?, limits: ListenLimits,
        handler: @escaping @Sendable (ReceivedRequest) -> ServerAnswer
    ) throws(ServerStartError) -> UInt16

    /// Stops accepting connections, lets requests in flight finish for up to `graceSeconds`,
    /// then closes every connection and returns. Idempotent.
    func stop(graceSeconds: Double)

    /// Requests being handled now (read, handed over and not yet answered).
    var requestsInFlight: Int { get }
}
