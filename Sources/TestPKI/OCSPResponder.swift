internal import AppStoreTestData
public import Foundation

#if canImport(Glibc)
    internal import Glibc
#endif

/// A real OCSP responder on loopback: `openssl ocsp -index … -port 0 -rsigner … -CA …`, as a
/// user runs it against `mint ca --ocsp-url`. It answers for the certificates `CA` issued, from
/// an index file in `openssl ca`'s format, signed by `signer`.
///
/// It runs under a shell that stops it once the test process has gone, so no responder outlives
/// the tests that started it.
public final class OCSPResponder: Sendable {
    /// One line of the index: a certificate by serial, valid or revoked.
    public struct Entry: Sendable {
        public let serial: UInt64
        /// When and why (a CRL reason as `openssl ca` writes it: "keyCompromise"), or nil: valid.
        public let revoked: (date: Date, reason: String)?

        public init(serial: UInt64, revoked: (date: Date, reason: String)? = nil) {
            self.serial = serial
            self.revoked = revoked
        }
    }

    /// The port `openssl ocsp` chose.
    public let port: Int
    /// `http://127.0.0.1:PORT/`, the URL certificates name.
    public var url: String { "http://127.0.0.1:\(port)/" }
    private let pid: pid_t

    /// Starts a responder in `folder` (which it writes its files into).
    ///
    /// - Parameters:
    ///   - ca: the issuer whose certificates it answers for.
    ///   - signer: the certificate (with its key) its answers are signed with: `ca` itself, a
    ///     responder `ca` delegated, or any other, for tests of answers that must be refused.
    ///   - entries: the certificates it knows; any other is "unknown".
    ///   - days: `nextUpdate` this many days after each answer's `thisUpdate`; nil: answers
    ///     without `nextUpdate`.
    public convenience init(
        folder: URL, name: String, ca: TestCertificate, signer: TestCertificate, entries: [Entry], days: Int? = 1
    ) throws {
        let file = { (suffix: String) in folder.appendingPathComponent("\(name)-\(suffix)") }
        try Data(ca.pem.utf8).write(to: file("ca.pem"))
        try Data(signer.pem.utf8).write(to: file("signer.pem"))
        try Data(try signer.issued.key.privateKeyPEM().utf8).write(to: file("signer-key.pem"))
        try Data(entries.map(Self.indexLine).joined().utf8).write(to: file("index.txt"))
        let arguments =
            [
                "ocsp", "-index", file("index.txt").path, "-port", "0", "-rsigner", file("signer.pem").path,
                "-rkey", file("signer-key.pem").path, "-CA", file("ca.pem").path,
            ] + (days.map { ["-ndays", String($0)] } ?? [])
        try self.init(openssl: arguments)
    }

    /// Starts `openssl ARGUMENTS` (an `ocsp` responder: `-port 0` or a port of its own) and
    /// waits until it listens.
    public init(openssl arguments: [String]) throws {
        // The shell starts openssl and stops it when this process has gone (checked every
        // second) or when `stop()` terminates the shell.
        let script =
            "openssl \"$@\" & child=$!; trap 'kill $child; exit 0' TERM; "
            + "while kill -0 \(getpid()) 2>/dev/null && kill -0 $child 2>/dev/null; do sleep 1 & wait $!; done; "
            + "kill $child 2>/dev/null"
        let (pid, output) = try Self.spawn(["/bin/sh", "-c", script, "sh"] + arguments)
        self.pid = pid
        // "ACCEPT [::]:PORT PID=…", then a line per connection: read until the port shows.
        var seen: [UInt8] = []
        var found: Int?
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while found == nil {
            let count = read(output, &chunk, chunk.count)
            guard count > 0 else { break }
            seen += chunk[0..<count]
            let text = String(decoding: seen, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
                let address = line.split(separator: " ").dropFirst().first,
                let colon = address.lastIndex(of: ":")
            {
                found = Int(address[address.index(after: colon)...])
            }
        }
        guard let found else {
            kill(pid, SIGTERM)
            close(output)
            throw ResponderError(message: "openssl ocsp did not start: \(String(decoding: seen, as: UTF8.self))")
        }
        port = found
        // Keep reading what it says, so that it never blocks on a full pipe.
        Thread.detachNewThread {
            var sink = [UInt8](repeating: 0, count: 4_096)
            while read(output, &sink, sink.count) > 0 {}
            close(output)
        }
    }

    /// Starts `arguments` with an empty signal mask and default handlers (a test runner's thread
    /// blocks most signals, and a child would inherit that), standard input from /dev/null, and
    /// standard output and error into a pipe: the child's process ID and the pipe's read end.
    private static func spawn(_ arguments: [String]) throws -> (pid_t, Int32) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw ResponderError(message: "pipe: \(errno)") }
        // Neither end goes to any other child (the one spawned here gets the write end by dup2).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, environ)
        close(ends[1])
        guard spawned == 0 else {
            close(ends[0])
            throw ResponderError(message: "posix_spawn: \(spawned)")
        }
        return (pid, ends[0])
    }

    /// Stops the responder (later requests find the port closed).
    public func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }

    struct ResponderError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private static func indexLine(_ entry: Entry) -> String {
        OCSPIndex.line(serial: entry.serial, commonName: "serial \(entry.serial)", revoked: entry.revoked)
    }
}

/// Loopback ports that never answer: one that accepts connections and reads nothing (a
/// responder that hangs), and one that refuses them (a responder that is down). Each holds its
/// port until it is released, so no other process takes it meanwhile.
public final class LoopbackPort: Sendable {
    public let port: Int
    private let socket: Int32

    public var url: String { "http://127.0.0.1:\(port)/" }

    /// A port that accepts connections (the kernel completes them) and never answers.
    public static func hanging() -> LoopbackPort { LoopbackPort(listening: true) }
    /// A port that accepts each connection and resets it at once (SO_LINGER 0): a responder
    /// that hangs up.
    public static func resetting() -> LoopbackPort {
        let port = LoopbackPort(listening: true)
        let socket = port.socket
        Thread.detachNewThread {
            while true {
                let connection = accept(socket, nil, nil)
                guard connection >= 0 else { return }
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                _ = setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                close(connection)
            }
        }
        return port
    }

    /// A loopback port no one listens on now (bound, read and released: a responder told to
    /// listen there is very likely to get it).
    public static func freePort() -> Int { LoopbackPort(listening: false).port }

    /// A port bound but not listening: connections are refused.
    public static func refusing() -> LoopbackPort { LoopbackPort(listening: false) }

    private init(listening: Bool) {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(descriptor >= 0, "socket: \(errno)")
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        precondition(bound == 0, "bind: \(errno)")
        if listening { precondition(listen(descriptor, 16) == 0, "listen: \(errno)") }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        socket = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
