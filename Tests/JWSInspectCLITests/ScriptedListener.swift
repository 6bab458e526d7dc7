import AppStoreServerAPI
import Dispatch
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `NotificationServer` without HTTP, for `listen` run in this process: it hands `requests` to
/// the listener's handler one by one (as libmicrohttpd would hand them over, whole), keeps the
/// answers, waits until `until` says the run has done what it should (the forwards answered),
/// then sends SIGINT to the thread that started it, the one `listen` waits for it on. What
/// `listen` decides, stores, forwards and prints is the real code's; only the HTTP parsing is
/// left out. (The HTTP server itself has tests of its own, where it is built.)
final class ScriptedServer: NotificationServer, @unchecked Sendable {
    let requests: [ReceivedRequest]
    private let until: @Sendable () -> Bool
    private let lock = NSLock()
    private var kept: [ServerAnswer] = []

    /// - Parameters:
    ///   - until: checked every 10 ms once every request is answered; SIGINT is sent when it
    ///     holds (or after 20 s, so that a run that never gets there still ends).
    init(requests: [ReceivedRequest], until: @escaping @Sendable () -> Bool = { true }) {
        self.requests = requests
        self.until = until
    }

    /// The answers, in the order of `requests`.
    var answers: [ServerAnswer] { lock.withLock { kept } }

    func start(
        address: ListenAddress, tls: ListenTLS?, limits: ListenLimits,
        handler: @escaping @Sendable (ReceivedRequest) -> ServerAnswer
    ) throws(ServerStartError) -> UInt16 {
        let waiting = pthread_self()
        let requests = requests
        let until = until
        Thread.detachNewThread { [self] in
            for request in requests {
                let answer = handler(request)
                lock.withLock { kept.append(answer) }
            }
            let deadline = Date().addingTimeInterval(20)
            while !until(), Date() < deadline { usleep(10_000) }
            pthread_kill(waiting, SIGINT)
        }
        return address.port == 0 ? 49_152 : address.port
    }

    func stop(graceSeconds: Double) {}

    var requestsInFlight: Int { 0 }
}

/// What `--forward-to` posts to, without a network: each answer in turn from `statuses` (the
/// last one again when they run out); the requests kept.
final class ScriptedTransport: HTTPTransport, @unchecked Sendable {
    private let statuses: [Int]
    private let lock = NSLock()
    private var sent: [HTTPRequest] = []

    init(statuses: [Int]) { self.statuses = statuses }

    /// The requests sent so far.
    var requests: [HTTPRequest] { lock.withLock { sent } }

    func send(_ request: HTTPRequest, timeout: Double) -> Result<HTTPResponse, TransportError> {
        let count = lock.withLock {
            sent.append(request)
            return sent.count
        }
        let status = statuses[min(count, statuses.count) - 1]
        return .success(HTTPResponse(status: status, headers: [:], body: Array("\(status)\n".utf8)))
    }
}

/// Unblocks SIGINT and SIGTERM in the calling thread: `listen` blocks them in the thread that
/// serves (to wait for them there), which in-process is the test's.
func unblockListenSignals() {
    var signals = sigset_t()
    sigemptyset(&signals)
    sigaddset(&signals, SIGINT)
    sigaddset(&signals, SIGTERM)
    pthread_sigmask(SIG_UNBLOCK, &signals, nil)
}
