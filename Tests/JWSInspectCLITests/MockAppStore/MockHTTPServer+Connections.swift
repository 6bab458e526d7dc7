import Foundation
import JWSInspectCore

#if canImport(Glibc)
    import Glibc
#endif

/// The threads of `MockHTTPServer`: the accept loop and one thread per connection, which reads
/// the request, asks the handler and answers.
extension MockHTTPServer {
    /// What the accept and connection threads share. `@unchecked Sendable`: the descriptors and
    /// closures are immutable after init, and everything mutable is behind a `JWSInspectCore.Locked` (pthread mutex).
    final class State: @unchecked Sendable {
        let listener: Int32
        /// A socket pair nobody reads: one byte written by `stop()` makes its read end readable for good,
        /// which wakes every thread polling it.
        let wakeRead: Int32
        let wakeWrite: Int32
        let clock: @Sendable () -> Date
        let handler: Handler
        let threads = DispatchGroup()
        let stopped = JWSInspectCore.Locked(false)
        let rejections = JWSInspectCore.Locked<[String]>([])

        init(
            listener: Int32, wakeRead: Int32, wakeWrite: Int32, clock: @escaping @Sendable () -> Date,
            handler: @escaping Handler
        ) {
            self.listener = listener
            self.wakeRead = wakeRead
            self.wakeWrite = wakeWrite
            self.clock = clock
            self.handler = handler
        }

        func startAcceptLoop() {
            threads.enter()
            Thread.detachNewThread { [self] in
                defer { threads.leave() }
                acceptLoop()
            }
        }

        func stop() {
            let first = stopped.withLock { stopped in
                defer { stopped = true }
                return !stopped
            }
            guard first else { return }
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
            // Descriptors are closed only once no thread can use them any more: a leak is
            // better than closing a number the system may have handed out again.
            guard threads.wait(timeout: .now() + 10) == .success else { return }
            close(listener)
            close(wakeRead)
            close(wakeWrite)
        }

        /// Accepts until `stop()`, handing each connection to a thread of its own.
        private func acceptLoop() {
            while Self.wait(for: listener, wake: wakeRead, timeout: -1) == .readable {
                // accept4 (atomic SOCK_CLOEXEC) is not visible to Swift: Glibc's module map hides
                // GNU extensions. The accepted socket is made close-on-exec right after.
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else {
                    if [EINTR, EAGAIN, EWOULDBLOCK, ECONNABORTED, EMFILE, ENFILE].contains(errno) { continue }
                    return
                }
                _ = fcntl(connection, F_SETFD, FD_CLOEXEC)
                // The listener is non-blocking; the connection must not be (Linux does not
                // inherit the flag, but say so).
                _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) & ~O_NONBLOCK)
                threads.enter()
                Thread.detachNewThread { [self] in
                    defer { threads.leave() }
                    serve(connection)
                }
            }
        }

        /// Reads one request from `fd`, answers it as the handler says, closes `fd`. A request not
        /// complete 30 s after the connection was accepted is dropped unanswered; sending the
        /// answer may take at most 5 s per `send` (`SO_SNDTIMEO`).
        private func serve(_ fd: Int32) {
            defer { close(fd) }
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var parser = HTTPRequestParser()
            let deadline = ContinuousClock.now + .seconds(30)
            var buffer = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                switch parser.step() {
                case .needMoreBytes:
                    break
                case .sendContinue:
                    guard send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8), on: fd) else { return }
                    continue
                case .refused(let status, let why):
                    rejections.withLock { $0.append("\(status): \(why)") }
                    respond(
                        Response(
                            status: status, headers: [("Content-Type", "text/plain")], body: Array((why + "\n").utf8)),
                        method: "", on: fd)
                    return
                case .complete(let request):
                    handle(request, on: fd)
                    return
                }
                let remaining = deadline - ContinuousClock.now
                guard remaining > .zero else { return }
                let milliseconds = Int32(
                    remaining.components.seconds * 1000 + remaining.components.attoseconds / 1_000_000_000_000_000)
                guard Self.wait(for: fd, wake: wakeRead, timeout: max(milliseconds, 1)) == .readable else { return }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else {
                    if count < 0, errno == EINTR { continue }
                    // The peer closed (or failed) before the request was complete: nothing to answer.
                    return
                }
                parser.append(buffer[..<count])
            }
        }

        private func handle(_ request: Request, on fd: Int32) {
            switch handler(request) {
            case .respond(let response):
                respond(response, method: request.method, on: fd)
            case .hang:
                // Wait until the client gives up (end of file or error) or the server stops.
                var sink = [UInt8](repeating: 0, count: 4096)
                while Self.wait(for: fd, wake: wakeRead, timeout: -1) == .readable {
                    let count = sink.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count == 0 || (count < 0 && errno != EINTR) { return }
                }
            case .drop:
                return
            case .reset:
                var linger = linger(l_onoff: 1, l_linger: 0)
                setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<linger>.size))
            case .drip(let response, let interval):
                drip(response, every: interval, on: fd)
            }
        }

        /// Sends the head of `response`, then its body a byte at a time, `interval` apart; stops
        /// when the client closes (or fails) or the server stops.
        private func drip(_ response: Response, every interval: Duration, on fd: Int32) {
            guard send(head(of: response), on: fd) else { return }
            let parts = interval.components
            let milliseconds = Int32(max(parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000, 1))
            var sink = [UInt8](repeating: 0, count: 4096)
            var next = 0
            while next < response.body.count {
                switch Self.wait(for: fd, wake: wakeRead, timeout: milliseconds) {
                case .woken:
                    return
                case .readable:
                    let count = sink.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                    if count == 0 || (count < 0 && errno != EINTR) { return }
                case .timedOut:
                    guard send([response.body[next]], on: fd) else { return }
                    next += 1
                }
            }
        }

        /// The status line and header fields of `response`, with `Date` (unless given),
        /// `Content-Length` and `Connection: close`.
        private func head(of response: Response) -> [UInt8] {
            let reason = response.reason ?? HTTPRequestParser.reason(for: response.status)
            var head = "HTTP/1.1 \(response.status) \(reason)\r\n"
            let managed: Set<String> = ["content-length", "connection"]
            var hasDate = false
            for (name, value) in response.headers where !managed.contains(name.lowercased()) {
                hasDate = hasDate || name.lowercased() == "date"
                head += "\(name): \(value)\r\n"
            }
            if !hasDate { head += "Date: \(HTTPRequestParser.imfFixdate(clock()))\r\n" }
            head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
            return Array(head.utf8)
        }

        /// Sends `response` (headers only for HEAD), then closes gently: shuts down the sending
        /// side and reads until the client closes (at most 1 s), so that unread request bytes
        /// cannot turn the close into a reset that loses the answer.
        private func respond(_ response: Response, method: String, on fd: Int32) {
            guard send(head(of: response) + (method == "HEAD" ? [] : response.body), on: fd) else { return }
            shutdown(fd, Int32(SHUT_WR))
            var sink = [UInt8](repeating: 0, count: 4096)
            let deadline = ContinuousClock.now + .seconds(1)
            while ContinuousClock.now < deadline, Self.wait(for: fd, wake: wakeRead, timeout: 100) == .readable {
                let count = sink.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count == 0 || (count < 0 && errno != EINTR) { return }
            }
        }

        /// Sends every byte (no SIGPIPE); false when the peer has gone.
        private func send(_ bytes: [UInt8], on fd: Int32) -> Bool {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return false }
                offset += sent
            }
            return true
        }

        enum Readiness { case readable, woken, timedOut }

        /// Waits until `fd` is readable (or has failed or hung up: a read then tells), the wake
        /// pipe is readable (`stop()`), or `timeout` ms pass (-1: no limit).
        static func wait(for fd: Int32, wake: Int32, timeout: Int32) -> Readiness {
            var fds = [
                pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
            ]
            while true {
                let ready = poll(&fds, 2, timeout)
                if ready < 0, errno == EINTR { continue }
                if ready < 0 || fds[1].revents != 0 { return .woken }
                if ready == 0 { return .timedOut }
                return .readable
            }
        }
    }
}
