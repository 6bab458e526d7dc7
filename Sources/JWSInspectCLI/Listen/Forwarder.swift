internal import AppStoreServerAPI
internal import Dispatch
internal import FoundationEssentials
internal import JWSInspectCore

/// `listen --forward-to URL`: posts each stored notification's body, unchanged, to the
/// developer's endpoint, in the order they were stored, on a thread of its own (receiving never
/// waits for it). An answer other than 2xx, or none, is retried with backoff (1, 2, 4 … 60
/// seconds) until it is 2xx; each delivery is recorded in the log (`forwarded`), so a restart
/// resumes with what was not. At least once: a forward whose record was not written before a
/// crash is sent again.
final class Forwarder: @unchecked Sendable {
    struct Event: Sendable {
        let time: Date
        let notificationUUID: String
        let url: String
        let delivered: Bool
        let httpStatus: Int?
        let attempt: Int
        let reason: String
        let retryIn: Int?
    }

    /// Seconds one forward may take in all.
    static let timeout = 5.0
    /// The longest wait between two attempts.
    static let maximumBackoff = 60

    private let url: String
    private let log: NotificationLog
    private let transport: any HTTPTransport
    private unowned let listener: Listener
    private let condition = Condition()
    /// Guarded by `condition`: the entries to forward, in order (8 + 16 + 8 bytes each: the bodies
    /// stay in the log until sent).
    private var queue: [NotificationLog.Entry] = []
    private var head = 0
    private var stopping = false
    private var finished = false

    init(url: String, log: NotificationLog, transport: any HTTPTransport, listener: Listener) {
        self.url = url
        self.log = log
        self.transport = transport
        self.listener = listener
    }

    /// Entries waiting to be forwarded.
    var pending: Int { condition.locked { queue.count - head } }

    func start(resuming entries: [NotificationLog.Entry]) {
        condition.locked { queue = entries + queue }
        DispatchQueue(label: "jwsinspect.listen.forward").async { [self] in run() }
    }

    func enqueue(_ entry: NotificationLog.Entry) {
        condition.locked {
            queue.append(entry)
            condition.broadcast()
        }
    }

    /// Ends the forwarding loop: at once while it waits, else when the forward in flight has
    /// its answer (at most `timeout`), which is then recorded.
    func stop() {
        condition.locked {
            stopping = true
            condition.broadcast()
            let deadline = System.monotonicSeconds() + Self.timeout + 1
            while !finished, System.monotonicSeconds() < deadline { condition.wait(seconds: 0.05) }
        }
    }

    private func run() {
        condition.lock()
        defer {
            finished = true
            condition.broadcast()
            condition.unlock()
        }
        var attempt = 0
        while !stopping {
            guard head < queue.count else {
                condition.wait()
                continue
            }
            let entry = queue[head]
            condition.unlock()
            attempt += 1
            let event = forward(entry, attempt: attempt)
            condition.lock()
            if let event { listener.forwarded(event) }
            // Delivered, or unreadable and skipped (no retry): the next one.
            guard let event, let retryIn = event.retryIn else {
                head += 1
                attempt = 0
                // Keep the queue from growing with what was sent.
                if head > 1024, head * 2 > queue.count {
                    queue.removeFirst(head)
                    head = 0
                }
                continue
            }
            // Wait before the next attempt, unless stopped meanwhile.
            let until = System.monotonicSeconds() + Double(retryIn)
            while !stopping, System.monotonicSeconds() < until {
                condition.wait(seconds: min(until - System.monotonicSeconds(), 1))
            }
        }
    }

    /// Seconds before the attempt after `attempt` failed: 1, 2, 4 … `maximumBackoff`.
    static func backoff(attempt: Int) -> Int { min(maximumBackoff, 1 << min(max(attempt, 1) - 1, 6)) }

    /// One attempt: the event, or nil when the entry cannot be read back (then skipped, and said).
    private func forward(_ entry: NotificationLog.Entry, attempt: Int) -> Event? {
        guard let line = log.line(entry), case .success(let members) = JSONValue.strictObject(line),
            case .string(let uuid)? = members["notificationUUID"], case .string(let body)? = members["body"]
        else {
            listener.forwardUnreadable(offset: entry.offset)
            return nil
        }
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [("Content-Type", "application/json"), ("User-Agent", "jwsinspect-listen")],
            body: Array(body.utf8))
        let now = Date()
        switch transport.send(request, timeout: Self.timeout) {
        case .success(let response) where (200..<300).contains(response.status):
            let record: OrderedJSON.Members = [
                ("schemaVersion", .integer(RecordType.schemaVersion)),
                ("record", .string(RecordType.forwarded.rawValue)), ("time", .string(ISO8601.string(now))),
                ("notificationUUID", .string(uuid)), ("url", .string(url)),
                ("httpStatus", .integer(Int64(response.status))), ("attempts", .integer(Int64(attempt))),
            ]
            var bytes: [UInt8] = []
            OrderedJSON.object(.init(distinct: record)).write(into: &bytes)
            var reason = "HTTP \(response.status)"
            if case .failed(let why) = log.append(bytes, key: nil) {
                reason += "; its record was not written (\(why)): it is forwarded again after a restart"
            }
            return Event(
                time: now, notificationUUID: uuid, url: url, delivered: true, httpStatus: response.status,
                attempt: attempt, reason: reason, retryIn: nil)
        case .success(let response):
            let delay = Self.backoff(attempt: attempt)
            return Event(
                time: now, notificationUUID: uuid, url: url, delivered: false, httpStatus: response.status,
                attempt: attempt, reason: "HTTP \(response.status); trying again in \(delay) s", retryIn: delay)
        case .failure(let error):
            let delay = Self.backoff(attempt: attempt)
            return Event(
                time: now, notificationUUID: uuid, url: url, delivered: false, httpStatus: nil, attempt: attempt,
                reason: "\(error.description); trying again in \(delay) s", retryIn: delay)
        }
    }
}
