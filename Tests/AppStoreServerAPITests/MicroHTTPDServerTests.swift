#if JWSINSPECT_LISTEN
    import AppStoreServerAPI
    import AppStoreServerHTTP
    import AppStoreTestData
    import Foundation
    import Glibc
    import JWSInspectCore
    import ListenHTTP
    import TestPKI
    import Testing

    /// `MicroHTTPDServer` on loopback: what reaches the handler, the answers, every limit,
    /// stopping and TLS, through URLSession (`URLSessionTransport`) and raw sockets. Shared state
    /// is behind `Locked`, which ThreadSanitizer sees through (`make sanitize`).
    @Suite(.timeLimit(.minutes(10)))
    struct MicroHTTPDServerTests {
        /// What a handler was handed, in order.
        final class Recorder: Sendable {
            private let requests = Locked<[ReceivedRequest]>([])
            var all: [ReceivedRequest] { requests.withLock { $0 } }
            func record(_ request: ReceivedRequest) { requests.withLock { $0.append(request) } }

            /// Waits (up to `seconds`) until `count` requests were recorded.
            func wait(for count: Int, seconds: Double = 30) -> [ReceivedRequest] {
                let deadline = Date().addingTimeInterval(seconds)
                while all.count < count && Date() < deadline { usleep(10_000) }
                return all
            }
        }

        /// A server on 127.0.0.1 (port 0) whose handler records each request and answers `answer`.
        static func serve(
            limits: ListenLimits = ListenLimits(), tls: ListenTLS? = nil,
            answer: @escaping @Sendable (ReceivedRequest) -> ServerAnswer = { request in
                switch request.problem {
                case .tooLarge: ServerAnswer(status: 413, body: "too large")
                case .tooSlow: ServerAnswer(status: 408, body: "too slow")
                default: ServerAnswer(status: 200, contentType: "application/json", body: "{\"ok\":true}")
                }
            }
        ) throws -> (MicroHTTPDServer, UInt16, Recorder) {
            let server = MicroHTTPDServer()
            let recorder = Recorder()
            let port = try server.start(
                address: ListenAddress(host: "127.0.0.1", port: 0), tls: tls, limits: limits,
                handler: { request in
                    recorder.record(request)
                    return answer(request)
                })
            #expect(port != 0)
            return (server, port, recorder)
        }

        static func send(
            _ method: String, port: UInt16, path: String, body: [UInt8]? = nil, contentType: String? = nil,
            scheme: String = "http"
        ) -> Result<HTTPResponse, TransportError> {
            URLSessionTransport().send(
                HTTPRequest(
                    method: method, url: "\(scheme)://127.0.0.1:\(port)\(path)",
                    headers: contentType.map { [("Content-Type", $0)] } ?? [], body: body),
                timeout: 60)
        }

        @Test func postReachesTheHandlerAndItsAnswerComesBack() throws {
            let (server, port, recorder) = try Self.serve()
            defer { server.stop(graceSeconds: 1) }
            let body = Array(#"{"signedPayload":"x"}"#.utf8)
            let response = try Self.send(
                "POST", port: port, path: "/notifications?x=1", body: body, contentType: "application/json"
            ).get()
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json")
            #expect(String(decoding: response.body, as: UTF8.self) == "{\"ok\":true}")
            let request = try #require(recorder.all.first)
            #expect(recorder.all.count == 1)
            #expect(request.method == "POST")
            #expect(request.path == "/notifications")
            #expect(request.body == body)
            #expect(request.remoteAddress == "127.0.0.1")
            #expect(request.contentType == "application/json")
            #expect(request.problem == nil)
            #expect(server.requestsInFlight == 0)
        }

        @Test func getReachesTheHandlerToo() throws {
            let notFound = ServerAnswer(status: 404, body: "no such path")
            let (server, port, recorder) = try Self.serve(answer: { _ in notFound })
            defer { server.stop(graceSeconds: 1) }
            let response = try Self.send("GET", port: port, path: "/elsewhere").get()
            #expect(response.status == 404)
            #expect(String(decoding: response.body, as: UTF8.self) == "no such path")
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            let request = try #require(recorder.all.first)
            #expect(request.method == "GET")
            #expect(request.path == "/elsewhere")
            #expect(request.body.isEmpty)
            #expect(request.contentType == nil)
        }

        @Test func aBodyOfTheLimitPassesWholeAndOneByteMoreIsTooLarge() throws {
            let (server, port, recorder) = try Self.serve()
            defer { server.stop(graceSeconds: 1) }
            let limit = ListenLimits().maximumBodyBytes
            let whole = (0..<limit).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let accepted = try Self.send("POST", port: port, path: "/n", body: whole).get()
            #expect(accepted.status == 200)
            let refused = try Self.send("POST", port: port, path: "/n", body: whole + [1]).get()
            #expect(refused.status == 413)
            let requests = recorder.all
            try #require(requests.count == 2)
            #expect(requests[0].body == whole)
            #expect(requests[0].problem == nil)
            #expect(requests[1].body.isEmpty)
            #expect(requests[1].problem == .tooLarge(declared: limit + 1))
        }

        @Test func aDeclaredLengthOverTheLimitIsRefusedBeforeTheBody() throws {
            let (server, port, recorder) = try Self.serve()
            defer { server.stop(graceSeconds: 1) }
            let socket = try RawClient(port: port)
            socket.send("POST /n HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n")
            let answer = socket.readToEnd(seconds: 30)
            #expect(answer.hasPrefix("HTTP/1.1 413"))
            #expect(answer.lowercased().contains("connection: close"))
            #expect(socket.closedByServer)
            #expect(recorder.all.map(\.problem) == [.tooLarge(declared: 100_000_000)])
        }

        @Test func headersOverTheLimitAreRefusedWithoutTheHandler() throws {
            let limits = ListenLimits()
            let (server, port, recorder) = try Self.serve(limits: limits)
            defer { server.stop(graceSeconds: 1) }
            let fits = try RawClient(port: port)
            let near = String(repeating: "a", count: limits.maximumHeaderBytes - 1024)
            fits.send("GET /n HTTP/1.1\r\nHost: x\r\nX-Filler: \(near)\r\nConnection: close\r\n\r\n")
            #expect(fits.readToEnd(seconds: 30).hasPrefix("HTTP/1.1 200"))
            let over = try RawClient(port: port)
            let twice = String(repeating: "a", count: 2 * limits.maximumHeaderBytes)
            over.send("GET /n HTTP/1.1\r\nHost: x\r\nX-Filler: \(twice)\r\n\r\n")
            #expect(over.readToEnd(seconds: 30).hasPrefix("HTTP/1.1 431"))
            #expect(over.closedByServer)
            #expect(recorder.all.count == 1)
        }

        @Test func aChunkedBodyOverTheLimitIsTooLargeAndAnswered() throws {
            var limits = ListenLimits()
            limits.maximumBodyBytes = 1000
            let (server, port, recorder) = try Self.serve(limits: limits)
            defer { server.stop(graceSeconds: 1) }
            let socket = try RawClient(port: port)
            socket.send("POST /n HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in 0..<3 { socket.send("190\r\n" + String(repeating: "a", count: 400) + "\r\n") }
            socket.send("0\r\n\r\n")
            let answer = socket.readToEnd(seconds: 30)
            #expect(answer.hasPrefix("HTTP/1.1 413"))
            #expect(socket.closedByServer)
            let requests = recorder.all
            #expect(requests.map(\.problem) == [.tooLarge(declared: nil)])
            #expect(requests.first?.body.isEmpty == true)
        }

        @Test func aSilentClientIsClosedAfterTheIdleTimeoutAndHandedOverAsTimedOut() throws {
            var limits = ListenLimits()
            limits.idleTimeoutSeconds = 1
            let (server, port, recorder) = try Self.serve(limits: limits)
            defer { server.stop(graceSeconds: 1) }
            let socket = try RawClient(port: port)
            let start = Date()
            socket.send("POST /n HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n")
            let answer = socket.readToEnd(seconds: 30)
            #expect(Date().timeIntervalSince(start) < 10)
            #expect(answer.isEmpty)
            #expect(socket.closedByServer)
            let requests = recorder.wait(for: 1)
            #expect(requests.map(\.problem) == [.timedOut])
            #expect(requests.first?.path == "/n")
        }

        @Test func aBodyDribbledPastTheRequestTimeoutIsTooSlow() throws {
            var limits = ListenLimits()
            limits.requestTimeoutSeconds = 1
            limits.idleTimeoutSeconds = 10
            let (server, port, recorder) = try Self.serve(limits: limits)
            defer { server.stop(graceSeconds: 1) }
            let socket = try RawClient(port: port)
            socket.send("POST /n HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n")
            let start = Date()
            for _ in 0..<40 {
                guard socket.send("a") else { break }
                usleep(200_000)
                if !recorder.all.isEmpty { break }
            }
            let requests = recorder.wait(for: 1)
            #expect(Date().timeIntervalSince(start) < 9)
            #expect(requests.map(\.problem) == [.tooSlow])
            _ = socket.readToEnd(seconds: 30)
            #expect(socket.closedByServer)
        }

        @Test func fiftyClientsTwentyRequestsEachAreAllAnsweredOnce() throws {
            let (server, port, recorder) = try Self.serve()
            defer { server.stop(graceSeconds: 1) }
            let answered = Locked(0)
            DispatchQueue.concurrentPerform(iterations: 50) { client in
                for index in 0..<20 {
                    guard let socket = try? RawClient(port: port) else { continue }
                    let body = "client \(client) request \(index)"
                    socket.send(
                        "POST /n HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                            + body)
                    if socket.readToEnd(seconds: 120).hasPrefix("HTTP/1.1 200") { answered.withLock { $0 += 1 } }
                }
            }
            #expect(answered.withLock { $0 } == 1000)
            let bodies = recorder.all.map { String(decoding: $0.body, as: UTF8.self) }
            #expect(bodies.count == 1000)
            #expect(Set(bodies).count == 1000)
        }

        @Test func stopLetsARequestInFlightFinishThenRefusesConnections() throws {
            let (server, port, _) = try Self.serve(answer: { _ in
                usleep(300_000)
                return ServerAnswer(status: 200, body: "stored")
            })
            let response = Locked<Result<HTTPResponse, TransportError>?>(nil)
            let thread = Thread {
                let result = Self.send("POST", port: port, path: "/n", body: Array("x".utf8))
                response.withLock { $0 = result }
            }
            thread.start()
            let deadline = Date().addingTimeInterval(30)
            while server.requestsInFlight == 0 && Date() < deadline { usleep(1000) }
            #expect(server.requestsInFlight == 1)
            server.stop(graceSeconds: 10)
            server.stop(graceSeconds: 10)
            #expect(server.requestsInFlight == 0)
            while response.withLock({ $0 == nil }) && Date() < deadline { usleep(10_000) }
            let answer = try #require(try response.withLock { try $0?.get() })
            #expect(answer.status == 200)
            #expect(String(decoding: answer.body, as: UTF8.self) == "stored")
            #expect(throws: RawClient.Refused.self) { try RawClient(port: port) }
        }

        /// The handler runs on the connection's thread (`MicroHTTPDServer.threadStackBytes` of
        /// stack): verification of a token nested as deep as the JSON reader goes fits in it.
        @Test func verificationFitsOnAConnectionThread() throws {
            let chain = AppleShapedChain()
            let depth = JSONValue.maximumDepth - 2
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let token = chain.sign(payloadJSON: #"{"bundleId":"com.example","nested":\#(nested)}"#)
            var options = VerificationOptions(
                trustStore: TrustStore(roots: [try Certificate(derBytes: chain.root.der)]))
            options.now = AppleShapedChain.leafNotBefore.addingTimeInterval(86_400)
            let verifier = Verifier(options: options)
            let expected = verifier.inspect(token, source: "here")
            #expect(expected.status == .valid, "\(expected.reason)")
            let (server, port, _) = try Self.serve(answer: { _ in
                ServerAnswer(status: 200, body: "\(verifier.inspect(token, source: "there").status)")
            })
            defer { server.stop(graceSeconds: 1) }
            let response = try Self.send("POST", port: port, path: "/n", body: Array(token.utf8)).get()
            #expect(response.status == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == "\(expected.status)")
        }

        @Test func aPortInUseOrAHostThatIsNoAddressIsAStartError() throws {
            let (server, port, _) = try Self.serve()
            defer { server.stop(graceSeconds: 1) }
            let second = MicroHTTPDServer()
            let error = #expect(throws: ServerStartError.self) {
                try second.start(
                    address: ListenAddress(host: "127.0.0.1", port: port), tls: nil, limits: ListenLimits(),
                    handler: { _ in ServerAnswer(status: 200, body: "") })
            }
            #expect(
                error?.message == "127.0.0.1:\(port) is in use: choose another port with --listen 127.0.0.1:PORT")
            let named = #expect(throws: ServerStartError.self) {
                try second.start(
                    address: ListenAddress(host: "localhost", port: 0), tls: nil, limits: ListenLimits(),
                    handler: { _ in ServerAnswer(status: 200, body: "") })
            }
            #expect(named?.message.contains("not a numeric IPv4 or IPv6 address") == true)
        }

        @Test func ipv6LoopbackServes() throws {
            let server = MicroHTTPDServer()
            let recorder = Recorder()
            let port: UInt16
            do {
                port = try server.start(
                    address: ListenAddress(host: "::1", port: 0), tls: nil, limits: ListenLimits(),
                    handler: { request in
                        recorder.record(request)
                        return ServerAnswer(status: 200, body: "ok")
                    })
            } catch {
                // A machine without IPv6 loopback.
                #expect(error.message.contains("IPv6") || error.message.contains("not an address"))
                return
            }
            defer { server.stop(graceSeconds: 1) }
            // (FoundationNetworking takes no URL with an IPv6 literal: a raw socket asks.)
            let socket = try RawClient(port: port, ipv6: true)
            socket.send("GET /v6 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(socket.readToEnd(seconds: 30).hasPrefix("HTTP/1.1 200"))
            #expect(recorder.all.first?.remoteAddress == "::1")
        }

        @Test func tlsServesHTTPSAndRefusesPlainHTTP() throws {
            let start = Date(timeIntervalSinceNow: -3600)
            let certificate = TestPKI.issue(
                CertificateSpec(
                    commonName: "127.0.0.1", notBefore: start, notAfter: start.addingTimeInterval(86_400 * 2),
                    isCA: false),
                key: .p256(), issuer: nil)
            let tls = ListenTLS(
                certificatePEM: Array(certificate.pem.utf8), keyPEM: Array(certificate.key.privateKeyPEM.utf8))
            let (server, port, recorder) = try Self.serve(tls: tls)
            defer { server.stop(graceSeconds: 1) }
            // URLSession verifies the certificate: a self-signed one is refused after the handshake,
            // which is what shows the server spoke TLS.
            let https = Self.send("GET", port: port, path: "/tls", scheme: "https")
            guard case .failure(.certificate) = https else {
                Issue.record("expected a certificate refusal, got \(https)")
                return
            }
            let socket = try RawClient(port: port)
            socket.send("GET /plain HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = socket.readToEnd(seconds: 30)
            #expect(!answer.hasPrefix("HTTP/1.1 200"))
            #expect(recorder.all.isEmpty)

            let bad = MicroHTTPDServer()
            let error = #expect(throws: ServerStartError.self) {
                try bad.start(
                    address: ListenAddress(host: "127.0.0.1", port: 0),
                    tls: ListenTLS(certificatePEM: Array("not a certificate".utf8), keyPEM: tls.keyPEM),
                    limits: ListenLimits(), handler: { _ in ServerAnswer(status: 200, body: "") })
            }
            #expect(error?.message.contains("--tls-cert") == true)
        }
    }

    /// A blocking TCP client on 127.0.0.1 (or ::1), reading with a timeout.
    final class RawClient {
        struct Refused: Error {}

        private let fd: Int32
        /// Whether the server closed the connection (end of stream or reset) while reading.
        private(set) var closedByServer = false

        init(port: UInt16, ipv6: Bool = false) throws {
            fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw Refused() }
            let connected: Int32
            if ipv6 {
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = port.bigEndian
                address.sin6_addr = in6addr_loopback
                connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                    }
                }
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
                connected = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            guard connected == 0 else {
                close(fd)
                throw Refused()
            }
        }

        deinit { close(fd) }

        /// Sends `text`; false when the connection is gone.
        @discardableResult func send(_ text: String) -> Bool {
            let bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }

        /// Everything received until the server closes, or `seconds` pass.
        func readToEnd(seconds: Double) -> String {
            let deadline = Date().addingTimeInterval(seconds)
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while Date() < deadline {
                var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&poller, 1, 100) >= 0 else { break }
                guard poller.revents != 0 else { continue }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count <= 0 {
                    closedByServer = true
                    break
                }
                received += buffer[0..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }
    }
#endif
