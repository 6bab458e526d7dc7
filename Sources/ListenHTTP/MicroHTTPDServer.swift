package import AppStoreServerAPI
internal import CMicroHTTPD
internal import JWSInspectCore

#if canImport(Glibc)
    internal import Glibc
#endif

/// libmicrohttpd's HTTP/1.1 server (`jwsinspect listen`, in jwsinspect-fetch alone): a thread
/// per connection, on which the handler runs and blocks (it verifies and stores before it
/// answers), so that many requests in flight can be stored together.
///
/// How each bound of `ListenLimits` is enforced:
/// - `maximumConnections`, `maximumConnectionsPerAddress`: libmicrohttpd, at accept
///   (MHD_OPTION_CONNECTION_LIMIT, MHD_OPTION_PER_IP_CONNECTION_LIMIT): a connection over either
///   is closed as it is accepted.
/// - `idleTimeoutSeconds`: libmicrohttpd (MHD_OPTION_CONNECTION_TIMEOUT), from the last byte
///   received or sent; a request whose headers had arrived is handed over as `.timedOut` when
///   its connection is closed so.
/// - `maximumHeaderBytes`: libmicrohttpd's memory pool per connection
///   (MHD_OPTION_CONNECTION_MEMORY_LIMIT, `memoryLimit(for:)`), which holds the request line,
///   the headers and the read buffer: over it, 431 (or 414 for the request line) and closed.
/// - `maximumBodyBytes`: here. A declared Content-Length over it is answered before a byte of
///   the body is read (no 100 Continue), and the connection closed. A chunked body that grows
///   past it is handed over at once; libmicrohttpd 0.9.75 cannot answer before a request's
///   end, so the rest is read and discarded, up to `maximumBodyBytes` more within the request
///   timeout, then the answer sent and the connection closed; a longer or slower rest closes
///   the connection without an answer.
/// - `requestTimeoutSeconds`: here, from the end of the headers, checked as each piece of body
///   arrives and at the request's end: a body not whole in time is handed over as `.tooSlow`,
///   answered when it ended, otherwise the connection closed (no answer can be sent mid-body).
///   A body that stops arriving is the idle timeout's, so a request lasts at most the request
///   timeout plus the idle timeout. The headers have no total bound: each byte restarts the idle
///   timeout, so a client that sends them a byte at a time holds its connection (one of
///   `maximumConnections`) up to `maximumHeaderBytes` idle timeouts.
package final class MicroHTTPDServer: NotificationServer {
    /// The stack of each connection's thread, where the handler runs (verification included):
    /// a token nested as deep as the JSON reader goes verifies in 160 KiB in a debug build and
    /// overflows 64 KiB (`MicroHTTPDServerTests.verificationFitsOnAConnectionThread`).
    package static let threadStackBytes = 1 << 20

    private enum Phase {
        case idle
        case starting
        case running(daemon: OpaquePointer, context: Unmanaged<ServerContext>)
        case stopped
    }

    private let phase = Locked(Phase.idle)
    /// Held through a whole `stop`, so that a second one returns when the first has stopped; the
    /// stops asked for. (Not a `Locked<Void>`: ThreadSanitizer takes a zero-sized value's access
    /// for one of the lock's own pointer.)
    private let stopping = Locked(0)
    private let counters = Locked(ServerContext.Counters())

    package init() {}

    deinit {
        stop(graceSeconds: 0)
    }

    package var requestsInFlight: Int { counters.withLock { $0.inFlight } }

    package func start(
        address: ListenAddress, tls: ListenTLS?, limits: ListenLimits,
        handler: @escaping @Sendable (ReceivedRequest) -> ServerAnswer
    ) throws(ServerStartError) -> UInt16 {
        let mayStart = phase.withLock { phase in
            switch phase {
            case .idle, .stopped:
                phase = .starting
                return true
            case .starting, .running: return false
            }
        }
        guard mayStart else { throw ServerStartError("the server is already started") }
        counters.withLock { $0 = ServerContext.Counters() }
        do {
            let (daemon, context) = try Self.startDaemon(
                address: address, tls: tls, limits: limits, handler: handler, counters: counters)
            phase.withLock { $0 = .running(daemon: daemon, context: context) }
            return CMicroHTTPD_bound_port(daemon)
        } catch {
            phase.withLock { $0 = .idle }
            throw error
        }
    }

    package func stop(graceSeconds: Double) {
        stopping.withLock { stops in
            stops += 1
            let running: (OpaquePointer, Unmanaged<ServerContext>)? = phase.withLock { phase in
                guard case .running(let daemon, let context) = phase else { return nil }
                phase = .stopped
                return (daemon, context)
            }
            guard let (daemon, context) = running else { return }
            counters.withLock { $0.stopping = true }
            // No new connection: the listening socket is closed now (quiescing hands it over).
            let listening = MHD_quiesce_daemon(daemon)
            if listening >= 0 { close(listening) }
            let deadline = Monotonic.nanoseconds() + UInt64(max(0, graceSeconds) * 1e9)
            while requestsInFlight > 0 && Monotonic.nanoseconds() < deadline { usleep(10_000) }
            // Closes every connection, and waits for their threads (a handler still running too).
            MHD_stop_daemon(daemon)
            context.release()
        }
    }

    /// The connection memory pool for `limits`: the headers, what libmicrohttpd keeps per
    /// header line (about 64 bytes each) and room for the answer's headers.
    static func memoryLimit(for limits: ListenLimits) -> Int { max(limits.maximumHeaderBytes, 1024) + 4096 }

    private static func startDaemon(
        address: ListenAddress, tls: ListenTLS?, limits: ListenLimits,
        handler: @escaping @Sendable (ReceivedRequest) -> ServerAnswer, counters: Locked<ServerContext.Counters>
    ) throws(ServerStartError) -> (OpaquePointer, Unmanaged<ServerContext>) {
        var storage = sockaddr_storage()
        let length = address.host.withCString { CMicroHTTPD_numeric_address($0, address.port, &storage) }
        guard length > 0 else {
            throw ServerStartError(
                "'\(address.host)' is not a numeric IPv4 or IPv6 address: give one with --listen "
                    + "(127.0.0.1:PORT, [::1]:PORT, 0.0.0.0:PORT)")
        }
        let isIPv6 = Int32(storage.ss_family) == AF_INET6
        let dualStack = isIPv6 && address.host.split(separator: ":").allSatisfy { Int($0, radix: 16) == 0 }
        let refusal = withUnsafePointer(to: &storage) { CMicroHTTPD_probe_bind($0, length, dualStack ? 0 : 1) }
        if refusal != 0 { throw ServerStartError(Self.bindFailure(address, errno: refusal)) }

        let context = ServerContext(handler: handler, limits: limits, counters: counters, tls: tls)
        let retained = Unmanaged.passRetained(context)
        let closure = retained.toOpaque()
        var flags = MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_INTERNAL_POLLING_THREAD.rawValue
        flags |= MHD_USE_POLL.rawValue | MHD_USE_ITC.rawValue | MHD_USE_ERROR_LOG.rawValue
        if isIPv6 { flags |= dualStack ? MHD_USE_DUAL_STACK.rawValue : MHD_USE_IPv6.rawValue }
        if tls != nil { flags |= MHD_USE_TLS.rawValue }
        let daemon = withUnsafePointer(to: &storage) { storagePointer in
            storagePointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                var settings = CMicroHTTPD_Settings(
                    flags: flags, address: socketAddress,
                    connectionLimit: UInt32(clamping: max(1, limits.maximumConnections)),
                    perAddressLimit: UInt32(clamping: max(0, limits.maximumConnectionsPerAddress)),
                    idleTimeout: UInt32(clamping: max(1, limits.idleTimeoutSeconds)),
                    memoryLimit: memoryLimit(for: limits), threadStackSize: threadStackBytes,
                    accessHandler: accessHandler, accessHandlerClosure: closure,
                    completed: requestCompleted, completedClosure: closure, log: context.log,
                    certificatePEM: UnsafePointer(context.certificatePEM), keyPEM: UnsafePointer(context.keyPEM))
                return CMicroHTTPD_start(&settings)
            }
        }
        guard let daemon else {
            let logged = context.firstLogged()
            retained.release()
            let reason = logged.isEmpty ? "" : " (libmicrohttpd: \(logged))"
            if tls != nil {
                throw ServerStartError(
                    "could not serve HTTPS on \(address.description) with the certificate and key given\(reason): "
                        + "check that --tls-cert is a PEM certificate and --tls-key its PEM private key")
            }
            throw ServerStartError("could not serve on \(address.description)\(reason)")
        }
        return (daemon, retained)
    }

    /// Why binding `address` failed, and what to do.
    private static func bindFailure(_ address: ListenAddress, errno code: Int32) -> String {
        let listen = address.description
        switch code {
        case EADDRINUSE:
            let port = address.host.contains(":") ? "[\(address.host)]:PORT" : "\(address.host):PORT"
            return "\(listen) is in use: choose another port with --listen \(port)"
        case EADDRNOTAVAIL:
            return "\(address.host) is not an address of this machine: choose one it has with --listen "
                + "(127.0.0.1, 0.0.0.0, ::1 or ::)"
        case EACCES:
            return "\(listen) needs privileges to bind (a port below 1024): choose a port above 1023 with --listen"
        case EAFNOSUPPORT:
            return "\(listen): this machine has no \(address.host.contains(":") ? "IPv6" : "IPv4")"
        default:
            return "cannot bind \(listen): \(String(cString: strerror(code)))"
        }
    }
}

/// What libmicrohttpd's callbacks reach through their closure pointer: the handler, the
/// limits and the counters, and the C memory the daemon reads while it runs.
///
/// `@unchecked Sendable`: its stored properties are constants, the counters are behind a lock,
/// and the C buffers are written once, before the daemon starts, and freed after it stopped.
private final class ServerContext: @unchecked Sendable {
    struct Counters {
        /// Requests handed over whose answer is not sent yet.
        var inFlight = 0
        /// Whether `stop` began: answers then close their connection.
        var stopping = false
    }

    let handler: @Sendable (ReceivedRequest) -> ServerAnswer
    let limits: ListenLimits
    let counters: Locked<Counters>
    let log: UnsafeMutablePointer<CMicroHTTPD_Log>
    let certificatePEM: UnsafeMutablePointer<CChar>?
    let keyPEM: UnsafeMutablePointer<CChar>?

    init(
        handler: @escaping @Sendable (ReceivedRequest) -> ServerAnswer, limits: ListenLimits,
        counters: Locked<Counters>, tls: ListenTLS?
    ) {
        self.handler = handler
        self.limits = limits
        self.counters = counters
        log = UnsafeMutablePointer<CMicroHTTPD_Log>.allocate(capacity: 1)
        log.initialize(to: CMicroHTTPD_Log())
        CMicroHTTPD_Log_init(log)
        certificatePEM = tls.map { Self.cString($0.certificatePEM) }
        keyPEM = tls.map { Self.cString($0.keyPEM) }
    }

    deinit {
        CMicroHTTPD_Log_destroy(log)
        log.deinitialize(count: 1)
        log.deallocate()
        for pem in [certificatePEM, keyPEM] {
            guard let pem else { continue }
            // The key's bytes are not left in freed memory.
            var length = 0
            while pem[length] != 0 { length += 1 }
            pem.update(repeating: 0, count: length)
            pem.deallocate()
        }
    }

    /// A NUL-terminated copy of `bytes` (cut at a NUL inside them, which PEM never holds).
    private static func cString(_ bytes: [UInt8]) -> UnsafeMutablePointer<CChar> {
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
        copy[bytes.count] = 0
        return copy
    }

    /// The first message libmicrohttpd logged.
    func firstLogged() -> String {
        var buffer = [CChar](repeating: 0, count: 512)
        let count = buffer.count
        CMicroHTTPD_Log_read(log, &buffer, count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Hands `request` over and returns the answer; the request counts as in flight until its
    /// connection is done with it (`requestCompleted`).
    func handOver(_ state: RequestState, problem: ReceivedRequest.Problem?) -> ServerAnswer {
        counters.withLock { $0.inFlight += 1 }
        state.handedOver = true
        let body = problem == nil ? state.body : []
        state.body = []
        return handler(
            ReceivedRequest(
                method: state.method, path: state.path, remoteAddress: state.remoteAddress,
                contentType: state.contentType, body: body, problem: problem))
    }

    /// Called by libmicrohttpd for a request: once when its headers arrived (`state` nil), then
    /// for each piece of body, then once at its end.
    func access(
        _ connection: OpaquePointer, path: String, method: String, upload: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>, requestState: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let raw = requestState.pointee else {
            let state = RequestState(connection, method: method, path: path)
            requestState.pointee = Unmanaged.passRetained(state).toOpaque()
            if let declared = state.declaredLength, declared > limits.maximumBodyBytes {
                // Answered before the body: libmicrohttpd then reads none of it and closes.
                state.phase = .answered
                return queue(handOver(state, problem: .tooLarge(declared: declared)), on: connection, close: true)
            }
            if let declared = state.declaredLength { state.body.reserveCapacity(declared) }
            return .YES
        }
        let state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
        let late = Monotonic.nanoseconds() > state.deadline(limits)
        let count = uploadSize.pointee
        if count > 0 {
            uploadSize.pointee = 0
            switch state.phase {
            case .reading:
                if late {
                    // No answer can be sent before the body's end: the connection is closed.
                    state.phase = .answered
                    _ = handOver(state, problem: .tooSlow)
                    return .NO
                }
                if count > limits.maximumBodyBytes - state.body.count {
                    state.phase = .draining(
                        discarded: count, answer: handOver(state, problem: .tooLarge(declared: nil)))
                    return .YES
                }
                if let upload {
                    upload.withMemoryRebound(to: UInt8.self, capacity: count) {
                        state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                    }
                }
                return .YES
            case .draining(let discarded, let answer):
                let total = discarded + count
                if late || total > limits.maximumBodyBytes { return .NO }
                state.phase = .draining(discarded: total, answer: answer)
                return .YES
            case .answered:
                return .YES
            }
        }
        switch state.phase {
        case .reading:
            state.phase = .answered
            let answer = handOver(state, problem: late ? .tooSlow : nil)
            return queue(answer, on: connection, close: late)
        case .draining(_, let answer):
            state.phase = .answered
            return queue(answer, on: connection, close: true)
        case .answered:
            return .YES
        }
    }

    /// Queues `answer` on `connection` (closed after it when `close`, or when the server stops);
    /// .NO (the connection closed) when libmicrohttpd refused it.
    func queue(_ answer: ServerAnswer, on connection: OpaquePointer, close: Bool) -> MHD_Result {
        var body = Array(answer.body.utf8)
        let response = body.withUnsafeMutableBytes {
            MHD_create_response_from_buffer($0.count, $0.baseAddress, .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        defer { MHD_destroy_response(response) }
        _ = MHD_add_response_header(response, "Content-Type", answer.contentType)
        if close || counters.withLock({ $0.stopping }) { _ = MHD_add_response_header(response, "Connection", "close") }
        let status = (200...599).contains(answer.status) ? answer.status : 500
        return MHD_queue_response(connection, UInt32(status), response)
    }

    /// Called by libmicrohttpd when a request is done with (answered, or its connection closed).
    func completed(_ state: RequestState, code: MHD_RequestTerminationCode) {
        if state.handedOver {
            counters.withLock { $0.inFlight -= 1 }
        } else if code == .REQUEST_TERMINATED_TIMEOUT_REACHED {
            state.phase = .answered
            _ = handOver(state, problem: .timedOut)
            counters.withLock { $0.inFlight -= 1 }
        }
    }
}

/// One request, from its headers to its end: only its connection's thread touches it.
private final class RequestState {
    enum Phase {
        /// The body is being read.
        case reading
        /// The body grew past the limit: handed over, the rest read and discarded until it ends.
        case draining(discarded: Int, answer: ServerAnswer)
        /// Handed over and answered (or its connection closed).
        case answered
    }

    let method: String
    let path: String
    let remoteAddress: String
    let contentType: String?
    /// The Content-Length declared (nil for a chunked body).
    let declaredLength: Int?
    /// When the headers had arrived (CLOCK_MONOTONIC, ns).
    let started = Monotonic.nanoseconds()
    var body: [UInt8] = []
    var phase = Phase.reading
    var handedOver = false

    init(_ connection: OpaquePointer, method: String, path: String) {
        self.method = method
        self.path = path
        var buffer = [CChar](repeating: 0, count: 64)
        let capacity = buffer.count
        remoteAddress =
            CMicroHTTPD_client_address(connection, &buffer, capacity) == 0
            ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        contentType = Self.header(connection, "Content-Type")
        let chunked = Self.header(connection, "Transfer-Encoding")?.lowercased().contains("chunked") ?? false
        declaredLength = chunked ? nil : Self.header(connection, "Content-Length").map { Int($0) ?? Int.max }
    }

    /// The end of the request timeout (ns).
    func deadline(_ limits: ListenLimits) -> UInt64 {
        started &+ UInt64(max(0, limits.requestTimeoutSeconds)) * 1_000_000_000
    }

    private static func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }
}

/// libmicrohttpd's access handler: `closure` is the ServerContext, `requestState` its
/// RequestState (retained, released in `requestCompleted`).
private let accessHandler: MHD_AccessHandlerCallback = {
    closure, connection, url, method, _, upload, uploadSize, requestState in
    guard let closure, let connection, let uploadSize, let requestState else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(closure).takeUnretainedValue()
    return context.access(
        connection, path: url.map { String(cString: $0) } ?? "", method: method.map { String(cString: $0) } ?? "",
        upload: upload, uploadSize: uploadSize, requestState: requestState)
}

/// libmicrohttpd's MHD_OPTION_NOTIFY_COMPLETED: releases the request's state.
private let requestCompleted: MHD_RequestCompletedCallback = { closure, _, requestState, code in
    guard let closure, let requestState, let raw = requestState.pointee else { return }
    requestState.pointee = nil
    let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
    Unmanaged<ServerContext>.fromOpaque(closure).takeUnretainedValue().completed(state, code: code)
}

/// CLOCK_MONOTONIC in nanoseconds.
private enum Monotonic {
    static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
