import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The mock's HTTP layer (`MockHTTPServer`) with bytes URLSession would never send: malformed,
/// oversized and chunked requests, `Expect: 100-continue`, header names in any case.
@Suite(.timeLimit(.minutes(10))) struct MockAppStoreServerHTTPTests {
    typealias Seed = MockAppStoreServer.Seed
    static let key = MockAPIKey()

    static func server() throws -> MockAppStoreServer {
        try MockAppStoreServer(credentials: key.credentials, chain: MockAppStoreServerTests.chain)
    }

    /// A raw TCP connection to 127.0.0.1.
    final class Connection {
        let fd: Int32

        init(port: UInt16) throws {
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian
            let status = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard fd >= 0, status == 0 else { throw MockHTTPServer.SocketError(call: "connect", code: errno) }
        }

        deinit { close(fd) }

        func send(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// What arrives until `marker` has arrived or the server closes (at most 30 s: generous
        /// for a loaded machine, and the server closes at once).
        func read(until marker: String? = nil) -> String {
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline {
                if let marker, String(decoding: received, as: UTF8.self).contains(marker) { break }
                var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&ready, 1, 100) >= 0 else { break }
                if ready.revents == 0 { continue }
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard count > 0 else { break }
                received += buffer[..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// Raw requests the HTTP layer refuses, and the status line it answers with.
    static let refused: [(request: String, statusLine: String)] = [
        ("HELLO\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET /inApps HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET /inApps HTTP/1.1\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET http://example.com/ HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET / HTTP/2.0\r\nHost: x\r\n\r\n", "HTTP/1.1 505 HTTP Version Not Supported"),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", "HTTP/1.1 501 Not Implemented"),
        ("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", "HTTP/1.1 413 Content Too Large"),
        ("POST / HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n", "HTTP/1.1 417 Expectation Failed"),
        ("GET /%zz?a=%zz HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP/1.1 400 Bad Request"),
        ("GET / HTTP/1.1\r\nHost: x\r\nX: a\u{1}b\r\n\r\n", "HTTP/1.1 400 Bad Request"),
    ]

    @Test func malformedRequestsGetAnErrorAndTheServerGoesOn() throws {
        let server = try Self.server()
        defer { server.stop() }
        for (request, statusLine) in Self.refused {
            let connection = try Connection(port: server.port)
            connection.send(request)
            let answer = connection.read()
            #expect(answer.hasPrefix(statusLine + "\r\n"), "\(request.debugDescription) → \(answer.debugDescription)")
            #expect(answer.contains("\r\nConnection: close\r\n") && answer.contains("\r\nDate: "))
        }
        #expect(server.httpRejections.count == Self.refused.count)
        #expect(server.requests.isEmpty)
    }

    @Test func headerSectionTooLarge() throws {
        let server = try Self.server()
        defer { server.stop() }
        let connection = try Connection(port: server.port)
        connection.send("GET / HTTP/1.1\r\nHost: x\r\nX-Filler: " + String(repeating: "a", count: 70_000))
        #expect(connection.read().hasPrefix("HTTP/1.1 431 "))
    }

    @Test func expectContinueThenBody() throws {
        let server = try Self.server()
        defer { server.stop() }
        let body = #"{"startDate":1735689600000,"endDate":1748736000000}"#
        let connection = try Connection(port: server.port)
        connection.send(
            "POST /inApps/v1/notifications/history HTTP/1.1\r\nhost: 127.0.0.1\r\n"
                + "authorization: \(MockClient.bearer(Self.key))\r\ncontent-type: application/json\r\n"
                + "expect: 100-continue\r\ncontent-length: \(body.utf8.count)\r\n\r\n")
        #expect(connection.read(until: "\r\n\r\n") == "HTTP/1.1 100 Continue\r\n\r\n")
        connection.send(body)
        let answer = connection.read()
        #expect(answer.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(answer)")
        #expect(answer.contains("\r\nContent-Type: application/json\r\n"))
        #expect(server.requests.last?.tokenVerdict == .accepted)
        #expect(server.requests.last?.bodyText == body)
    }

    @Test func aClientThatGoesAwayMidRequest() throws {
        let server = try Self.server()
        defer { server.stop() }
        do {
            let connection = try Connection(port: server.port)
            connection.send("POST /inApps/v1/notifications/history HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{")
        }
        let connection = try Connection(port: server.port)
        connection.send("GET /inApps/v1/transactions/\(Seed.coins) HTTP/1.0\r\n\r\n")
        #expect(connection.read().hasPrefix("HTTP/1.1 401 Unauthorized\r\n"))
    }

    @Test func imfFixdate() {
        #expect(
            HTTPRequestParser.imfFixdate(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPRequestParser.imfFixdate(InProcess.now) == "Sun, 01 Jun 2025 00:00:00 GMT")
    }
}
